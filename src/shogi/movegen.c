/* movegen.c - pseudo-legal generation by piece type, then a legality filter. */
#include "shogi/movegen.h"

/* Adds board moves from `from` to every square of `targets`, with the promotion choices
 * the rules allow for piece type pt. */
static int add_moves(const Position *pos, ExtMove *list, int n, Square from, Bitboard targets) {
    Color us = pos->side;
    Piece pc = pos->board[from];
    PieceType pt = piece_type(pc);
    bool from_zone = square_in_zone(us, from);
    while (targets) {
        Square to = bb_pop(&targets);
        if (!piece_type_can_promote(pt)) {
            list[n++].move = move_make(from, to, false, pc);
            continue;
        }
        bool can_promote = from_zone || square_in_zone(us, to);
        if (can_promote)
            list[n++].move = move_make(from, to, true, pc + PROMOTED);
        int r = rank_relative(us, square_rank(to));
        bool must_promote = ((pt == PAWN || pt == LANCE) && r == 0) || (pt == KNIGHT && r < 2);
        if (!must_promote)
            list[n++].move = move_make(from, to, false, pc);
    }
    return n;
}

/* Board moves of every piece but the king onto `target`. */
static int gen_piece_moves(const Position *pos, ExtMove *list, int n, Bitboard target) {
    Color us = pos->side;
    Bitboard occ = position_occupied(pos);
    Bitboard pieces = pos->by_color[us] & ~pos->by_type[KING] & ~pos->by_type[PAWN];
    /* Pawns all step the same way, so shift them together. */
    Bitboard pawns = position_pieces(pos, us, PAWN) & ~bitboard_tables.rank_far[us][0];
    Bitboard pushes = (us == BLACK ? pawns >> 1 : pawns << 1) & target;
    while (pushes) {
        Square to = bb_pop(&pushes);
        n = add_moves(pos, list, n, us == BLACK ? to + 1 : to - 1, bb_square(to));
    }
    while (pieces) {
        Square from = bb_pop(&pieces);
        n = add_moves(pos, list, n, from, bb_piece_attacks(pos->board[from], from, occ) & target);
    }
    return n;
}

static int gen_king_moves(const Position *pos, ExtMove *list, int n, Bitboard target) {
    Square ksq = pos->king_sq[pos->side];
    return add_moves(pos, list, n, ksq, bb_king_attacks(ksq) & target);
}

static int gen_drops(const Position *pos, ExtMove *list, int n, Bitboard target) {
    Color us = pos->side;
    Hand h = pos->hand[us];
    if (!h)
        return n;
    for (PieceType pt = PAWN; pt <= GOLD; pt++) {
        if (!hand_has(h, pt))
            continue;
        Bitboard t = target;
        if (pt == PAWN || pt == LANCE)
            t &= ~bitboard_tables.rank_far[us][0];
        else if (pt == KNIGHT)
            t &= ~bitboard_tables.rank_far[us][1];
        if (pt == PAWN) {
            Bitboard pawns = position_pieces(pos, us, PAWN);
            for (int f = 0; f < 9; f++)
                if (pawns & bitboard_tables.file[f])
                    t &= ~bitboard_tables.file[f];
            /* The only pawn drop that checks is the one in front of their king. */
            Bitboard mate_sq = bb_pawn_attacks(color_flip(us), pos->king_sq[color_flip(us)]) & t;
            if (mate_sq && position_pawn_drop_mates(pos, bb_lsb(mate_sq)))
                t &= ~mate_sq;
        }
        while (t)
            list[n++].move = move_make_drop(pt, bb_pop(&t), us);
    }
    return n;
}

static int gen_evasions(const Position *pos, ExtMove *list) {
    Color us = pos->side;
    Square ksq = pos->king_sq[us];
    Bitboard checkers = pos->st->checkers;
    int n = gen_king_moves(pos, list, 0, ~pos->by_color[us]);
    if (bb_more_than_one(checkers))
        return n;
    Square checker = bb_lsb(checkers);
    Bitboard between = bb_between(ksq, checker);
    n = gen_piece_moves(pos, list, n, between | checkers);
    return gen_drops(pos, list, n, between);
}

/* Candidates for GEN_CHECKS when not in check: board moves onto a square from which
 * the piece (or its promoted form) attacks the enemy king, every move of a piece that
 * uncovers an attack on it, and drops onto a square where some piece in hand would
 * check. The caller keeps those that give check and are legal. */
static int gen_check_candidates(const Position *pos, ExtMove *list) {
    Color us = pos->side;
    const StateInfo *st = pos->st;
    Bitboard occ = position_occupied(pos);
    Bitboard mine = pos->by_color[us];
    Bitboard discoverers = st->blockers_for_king[color_flip(us)] & mine;
    int n = 0;
    Bitboard pieces = mine;
    while (pieces) {
        Square from = bb_pop(&pieces);
        Piece pc = pos->board[from];
        PieceType pt = piece_type(pc);
        Bitboard targets = bb_piece_attacks(pc, from, occ) & ~mine;
        if (!bb_test(discoverers, from)) {
            Bitboard wanted = st->check_squares[pt];
            if (piece_type_can_promote(pt))
                wanted |= st->check_squares[pt + PROMOTED];
            targets &= wanted;
        }
        n = add_moves(pos, list, n, from, targets);
    }
    Bitboard drop_squares = 0;
    for (PieceType pt = PAWN; pt <= GOLD; pt++)
        if (hand_has(pos->hand[us], pt))
            drop_squares |= st->check_squares[pt];
    return drop_squares ? gen_drops(pos, list, n, drop_squares & ~occ & bitboard_tables.all) : n;
}

int generate_moves(const Position *pos, GenType type, ExtMove *list) {
    Color us = pos->side;
    Bitboard enemies = pos->by_color[color_flip(us)];
    Bitboard empty = bitboard_tables.all & ~position_occupied(pos);
    int n = 0;
    switch (type) {
    case GEN_CAPTURES: n = gen_piece_moves(pos, list, 0, enemies); return gen_king_moves(pos, list, n, enemies);
    case GEN_QUIETS:
        n = gen_piece_moves(pos, list, 0, empty);
        n = gen_king_moves(pos, list, n, empty);
        return gen_drops(pos, list, n, empty);
    case GEN_NON_EVASIONS:
        n = gen_piece_moves(pos, list, 0, empty | enemies);
        n = gen_king_moves(pos, list, n, empty | enemies);
        return gen_drops(pos, list, n, empty);
    case GEN_EVASIONS: return gen_evasions(pos, list);
    case GEN_QUIET_CHECKS:
    case GEN_CHECKS: {
        /* Quiet checks are the check candidates onto empty squares (drops included). */
        bool quiet_only = type == GEN_QUIET_CHECKS;
        int total = position_in_check(pos) && !quiet_only ? gen_evasions(pos, list) : gen_check_candidates(pos, list);
        for (int i = 0; i < total; i++) {
            Move m = list[i].move;
            if (quiet_only && pos->board[move_to(m)] != NO_PIECE)
                continue;
            if (position_gives_check(pos, m) && position_is_legal(pos, m))
                list[n++] = list[i];
        }
        return n;
    }
    case GEN_LEGAL: {
        int total = position_in_check(pos) ? gen_evasions(pos, list) : generate_moves(pos, GEN_NON_EVASIONS, list);
        for (int i = 0; i < total; i++)
            if (position_is_legal(pos, list[i].move))
                list[n++] = list[i];
        return n;
    }
    }
    return 0;
}

bool position_has_legal_move(const Position *pos) {
    ExtMove list[MAX_MOVES];
    int total = position_in_check(pos) ? gen_evasions(pos, list) : generate_moves(pos, GEN_NON_EVASIONS, list);
    for (int i = 0; i < total; i++)
        if (position_is_legal(pos, list[i].move))
            return true;
    return false;
}
