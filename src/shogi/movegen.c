/* movegen.c - pseudo-legal generation by piece type, then a legality filter. */
#include "shogi/movegen.h"

/* Appends base | sq for every square sq of b, in ascending order. */
static inline int emit(ExtMove *list, int n, Move base, Bitboard b) {
    uint64_t lo = (uint64_t)b, hi = (uint64_t)(b >> 64);
    while (lo) {
        list[n++].move = base | (Move)__builtin_ctzll(lo);
        lo &= lo - 1;
    }
    while (hi) {
        list[n++].move = base | (Move)(64 + __builtin_ctzll(hi));
        hi &= hi - 1;
    }
    return n;
}

/* For every square sq of targets in ascending order: pbase | sq when sq is in promo, then
 * base | sq when sq is in keep (promo and keep are subsets of targets). Branch-free: each
 * candidate is written and kept by advancing the count. */
static inline int emit_pairs(ExtMove *list, int n, Move pbase, Move base, Bitboard targets, Bitboard promo,
                             Bitboard keep) {
    for (int half = 0; half < 2; half++) {
        uint64_t t = (uint64_t)(targets >> (64 * half)), p = (uint64_t)(promo >> (64 * half)),
                 k = (uint64_t)(keep >> (64 * half));
        Move off = (Move)(64 * half);
        while (t) {
            unsigned sq = (unsigned)__builtin_ctzll(t);
            t &= t - 1;
            list[n].move = pbase | (off + sq);
            n += (int)((p >> sq) & 1);
            list[n].move = base | (off + sq);
            n += (int)((k >> sq) & 1);
        }
    }
    return n;
}

/* Squares where a piece of type pt (unpromoted) of colour us could never move again. */
static inline Bitboard dead_squares(Color us, PieceType pt) {
    return pt == PAWN || pt == LANCE ? bitboard_tables.rank_far[us][0]
           : pt == KNIGHT            ? bitboard_tables.rank_far[us][1]
                                     : BB_ZERO;
}

/* Adds board moves from `from` to every square of `targets`, with the promotion choices
 * the rules allow (promotion first, then the plain move, square by square). */
static inline int add_moves(const Position *pos, ExtMove *list, int n, Square from, Bitboard targets) {
    Color us = pos->side;
    Piece pc = pos->board[from];
    PieceType pt = piece_type(pc);
    Move base = move_make(from, 0, false, pc);
    if (!piece_type_can_promote(pt))
        return emit(list, n, base, targets);
    Bitboard promo = bb_test(bitboard_tables.zone[us], from) ? targets : targets & bitboard_tables.zone[us];
    if (!promo) /* dead squares are in the zone: every target keeps its plain move */
        return emit(list, n, base, targets);
    return emit_pairs(list, n, move_make(from, 0, true, pc + PROMOTED), base, targets, promo,
                      targets & ~dead_squares(us, pt));
}

/* Squares of the files holding a piece of b: 9-bit groups (a file is squares 9f..9f+8)
 * set whole when any bit of the group is set, by a carry within each group. */
static inline Bitboard bb_files_of(Bitboard b) {
    const Bitboard low8 = ((Bitboard)0xff7full << 64) | 0xbfdfeff7fbfdfeffull; /* ranks 0-7 of every file */
    const Bitboard top = ((Bitboard)0x10080ull << 64) | 0x4020100804020100ull; /* rank 8 of every file */
    Bitboard f = (((b & low8) + low8) | b) & top;
    return f | (f - (f >> 8));
}

/* Board moves of every piece but the king onto `target`. With legal set, pieces pinned to
 * our king keep only the moves along the pin (no other filtering is needed then). */
static inline int gen_piece_moves(const Position *pos, ExtMove *list, int n, Bitboard target, bool legal) {
    Color us = pos->side;
    Bitboard occ = position_occupied(pos);
    Bitboard pinned = legal ? pos->st->blockers_for_king[us] & pos->by_color[us] : BB_ZERO;
    Square ksq = pos->king_sq[us];
    Bitboard pieces = pos->by_color[us] & ~pos->by_type[KING] & ~pos->by_type[PAWN];
    /* Pawns all step the same way, so shift them together. */
    Bitboard pawns = position_pieces(pos, us, PAWN) & ~bitboard_tables.rank_far[us][0];
    Bitboard pushes = (us == BLACK ? pawns >> 1 : pawns << 1) & target;
    if (pawns & pinned) {
        Bitboard stuck = pawns & pinned, blocked = 0;
        while (stuck) {
            Square from = bb_pop(&stuck);
            Square to = us == BLACK ? from - 1 : from + 1;
            if (!bb_aligned(from, to, ksq))
                blocked |= bb_square(to);
        }
        pushes &= ~blocked;
    }
    if (pushes) {
        /* from = to + 1 (black) or to - 1 (white), so the move is to * 129 +- 128 */
        Move d = us == BLACK ? 128 : (Move)-128;
        Move pb = (Move)MOVE_PROMOTE | ((Move)piece_make(us, PRO_PAWN) << 16), nb = (Move)piece_make(us, PAWN) << 16;
        Bitboard promo = pushes & bitboard_tables.zone[us], keep = pushes & ~bitboard_tables.rank_far[us][0];
        for (int half = 0; half < 2; half++) {
            uint64_t t = (uint64_t)(pushes >> (64 * half)), p = (uint64_t)(promo >> (64 * half)),
                     k = (uint64_t)(keep >> (64 * half));
            while (t) {
                unsigned b = (unsigned)__builtin_ctzll(t);
                t &= t - 1;
                Move to = (Move)(64 * half) + b, mv = to * 129 + d;
                list[n].move = mv | pb;
                n += (int)((p >> b) & 1);
                list[n].move = mv | nb;
                n += (int)((k >> b) & 1);
            }
        }
    }
    while (pieces) {
        Square from = bb_pop(&pieces);
        Bitboard targets = bb_piece_attacks(pos->board[from], from, occ) & target;
        if (bb_test(pinned, from))
            targets &= bitboard_tables.line[from][ksq];
        n = add_moves(pos, list, n, from, targets);
    }
    return n;
}

/* The enemy pieces by how they attack (movegen.h), the occupancy without our king (it no
 * longer shields anything once it steps). */
static inline void king_threats(const Position *pos, KingThreats *k) {
    king_threats_of(pos, color_flip(pos->side), 0, position_occupied(pos) ^ bb_square(pos->king_sq[pos->side]), k);
}

/* King moves onto `target`; with legal set, only those onto squares no enemy attacks once
 * the king has left its square. */
static inline int gen_king_moves(const Position *pos, ExtMove *list, int n, Bitboard target, bool legal) {
    Color us = pos->side;
    Square ksq = pos->king_sq[us];
    Bitboard targets = bb_king_attacks(ksq) & target;
    if (legal && targets) {
        KingThreats k;
        king_threats(pos, &k);
        for (Bitboard t = targets; t;) {
            Square to = bb_pop(&t);
            if (king_step_attacked(us, to, &k))
                targets ^= bb_square(to);
        }
    }
    return emit(list, n, move_make(ksq, 0, false, pos->board[ksq]), targets);
}

/* Drops onto `target` (empty squares), piece type by piece type: never nifu, never where
 * the piece could not move again, never a mating pawn drop. Always legal. */
static int gen_drops(const Position *pos, ExtMove *list, int n, Bitboard target) {
    Color us = pos->side;
    Hand h = pos->hand[us];
    if (!h)
        return n;
    Bitboard no_last = target & ~bitboard_tables.rank_far[us][0];
    if (hand_has(h, PAWN)) {
        Bitboard t = no_last & ~bb_files_of(position_pieces(pos, us, PAWN));
        /* The only pawn drop that checks is the one in front of their king. */
        Bitboard mate_sq = bb_pawn_attacks(color_flip(us), pos->king_sq[color_flip(us)]) & t;
        if (mate_sq && position_pawn_drop_mates(pos, bb_lsb(mate_sq)))
            t &= ~mate_sq;
        n = emit(list, n, move_make_drop(PAWN, 0, us), t);
    }
    if (hand_has(h, LANCE))
        n = emit(list, n, move_make_drop(LANCE, 0, us), no_last);
    if (hand_has(h, KNIGHT))
        n = emit(list, n, move_make_drop(KNIGHT, 0, us), target & ~bitboard_tables.rank_far[us][1]);
    for (PieceType pt = SILVER; pt <= GOLD; pt++)
        if (hand_has(h, pt))
            n = emit(list, n, move_make_drop(pt, 0, us), target);
    return n;
}

/* Answers to a check; with legal set, only the legal ones. */
static int gen_evasions(const Position *pos, ExtMove *list, bool legal) {
    Color us = pos->side;
    Square ksq = pos->king_sq[us];
    Bitboard checkers = pos->st->checkers;
    int n = gen_king_moves(pos, list, 0, ~pos->by_color[us], legal);
    if (bb_more_than_one(checkers))
        return n;
    Square checker = bb_lsb(checkers);
    Bitboard between = bb_between(ksq, checker);
    n = gen_piece_moves(pos, list, n, between | checkers, legal);
    return gen_drops(pos, list, n, between);
}

/* Every move when not in check; with legal set, only the legal ones. */
static int gen_non_evasions(const Position *pos, ExtMove *list, bool legal) {
    Bitboard enemies = pos->by_color[color_flip(pos->side)];
    Bitboard empty = bitboard_tables.all & ~position_occupied(pos);
    int n = gen_piece_moves(pos, list, 0, empty | enemies, legal);
    n = gen_king_moves(pos, list, n, empty | enemies, legal);
    return gen_drops(pos, list, n, empty);
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
    case GEN_CAPTURES:
        n = gen_piece_moves(pos, list, 0, enemies, false);
        return gen_king_moves(pos, list, n, enemies, false);
    case GEN_QUIETS:
        n = gen_piece_moves(pos, list, 0, empty, false);
        n = gen_king_moves(pos, list, n, empty, false);
        return gen_drops(pos, list, n, empty);
    case GEN_NON_EVASIONS: return gen_non_evasions(pos, list, false);
    case GEN_EVASIONS: return gen_evasions(pos, list, false);
    case GEN_QUIET_CHECKS:
    case GEN_CHECKS: {
        /* Quiet checks are the check candidates onto empty squares (drops included). */
        bool quiet_only = type == GEN_QUIET_CHECKS;
        int total =
            position_in_check(pos) && !quiet_only ? gen_evasions(pos, list, false) : gen_check_candidates(pos, list);
        for (int i = 0; i < total; i++) {
            Move m = list[i].move;
            if (quiet_only && pos->board[move_to(m)] != NO_PIECE)
                continue;
            if (position_gives_check(pos, m) && position_is_legal(pos, m))
                list[n++] = list[i];
        }
        return n;
    }
    case GEN_LEGAL:
        /* the generators keep only legal moves (pins and king safety), in the order the
         * pseudo-legal ones would have */
        return position_in_check(pos) ? gen_evasions(pos, list, true) : gen_non_evasions(pos, list, true);
    }
    return 0;
}

bool position_has_legal_move(const Position *pos) {
    ExtMove list[MAX_MOVES];
    if (position_in_check(pos)) {
        /* a safe king step answers at once (the usual refutation of a mate try); then the
         * legal captures and blocks, then the drops between */
        Color us = pos->side;
        Bitboard steps = bb_king_attacks(pos->king_sq[us]) & ~pos->by_color[us];
        if (steps) {
            KingThreats k;
            king_threats(pos, &k);
            while (steps)
                if (!king_step_attacked(us, bb_pop(&steps), &k))
                    return true;
        }
        Bitboard checkers = pos->st->checkers;
        if (bb_more_than_one(checkers))
            return false;
        Bitboard between = bb_between(pos->king_sq[us], bb_lsb(checkers));
        return gen_piece_moves(pos, list, 0, between | checkers, true) || gen_drops(pos, list, 0, between);
    }
    /* pseudo-legal moves, tested one by one: the first legal one answers (most positions
     * have one at once) */
    int total = gen_non_evasions(pos, list, false);
    for (int i = 0; i < total; i++)
        if (position_is_legal(pos, list[i].move))
            return true;
    return false;
}
