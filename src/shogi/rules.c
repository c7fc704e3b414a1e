/* rules.c - game end conditions and mate in one. */
#include "shogi/rules.h"

#include <string.h>

#include "shogi/movegen.h"

static const char *const EKR_NAMES[EKR_NB] = {"NoEnteringKing", "CSARule24",  "CSARule24H",
                                              "CSARule27",      "CSARule27H", "TryRule"};

const char *entering_king_rule_name(EnteringKingRule r) { return r < EKR_NB ? EKR_NAMES[r] : "?"; }

bool entering_king_rule_parse(const char *name, EnteringKingRule *out) {
    for (int i = 0; i < EKR_NB; i++)
        if (strcmp(name, EKR_NAMES[i]) == 0) {
            *out = (EnteringKingRule)i;
            return true;
        }
    return false;
}

static Bitboard big_pieces(const Position *pos) {
    return pos->by_type[BISHOP] | pos->by_type[ROOK] | pos->by_type[HORSE] | pos->by_type[DRAGON];
}

static int hand_points(Hand h) {
    return hand_count(h, PAWN) + hand_count(h, LANCE) + hand_count(h, KNIGHT) + hand_count(h, SILVER) +
           hand_count(h, GOLD) + 5 * (hand_count(h, BISHOP) + hand_count(h, ROOK));
}

int entering_king_target(const Position *pos, EnteringKingRule r, Color c) {
    int base;
    if (r == EKR_24 || r == EKR_24_H)
        base = 31;
    else if (r == EKR_27 || r == EKR_27_H)
        base = c == BLACK ? 28 : 27;
    else
        return 0;
    if ((r == EKR_24_H || r == EKR_27_H) && c == WHITE) {
        /* A full set is worth 56 with each king counted as 1. */
        Bitboard occ = position_occupied(pos);
        int total = bb_count(occ) + 4 * bb_count(big_pieces(pos)) + hand_points(pos->hand[BLACK]) +
                    hand_points(pos->hand[WHITE]);
        base -= 56 - total;
    }
    return base;
}

int entering_king_points(const Position *pos, Color c) {
    Bitboard camp = pos->by_color[c] & bitboard_tables.zone[c] & ~pos->by_type[KING];
    return bb_count(camp) + 4 * bb_count(camp & big_pieces(pos)) + hand_points(pos->hand[c]);
}

Move position_declaration(const Position *pos, EnteringKingRule r) {
    Color us = pos->side;
    Square ksq = pos->king_sq[us];
    if (r == EKR_NONE || r >= EKR_NB)
        return MOVE_NONE;
    if (r == EKR_TRY) {
        Square try_sq = us == BLACK ? square_make(4, 0) : square_make(4, 8);
        if (!bb_test(bb_king_attacks(ksq), try_sq) || bb_test(pos->by_color[us], try_sq))
            return MOVE_NONE;
        if (position_attackers_to(pos, color_flip(us), try_sq, position_occupied(pos) ^ bb_square(ksq)))
            return MOVE_NONE;
        return move_make(ksq, try_sq, false, piece_make(us, KING));
    }
    if (!bb_test(bitboard_tables.zone[us], ksq) || position_in_check(pos))
        return MOVE_NONE;
    Bitboard camp = pos->by_color[us] & bitboard_tables.zone[us] & ~pos->by_type[KING];
    if (bb_count(camp) < 10)
        return MOVE_NONE;
    return entering_king_points(pos, us) >= entering_king_target(pos, r, us) ? MOVE_WIN : MOVE_NONE;
}

/* Compares the current state with an earlier one with the same board and side. */
static RepetitionState verdict(const StateInfo *st, const StateInfo *old, int distance, Color us) {
    if (st->hand_key == old->hand_key) {
        if (distance <= st->continuous_check[us])
            return REPETITION_LOSE;
        if (distance <= st->continuous_check[color_flip(us)])
            return REPETITION_WIN;
        return REPETITION_DRAW;
    }
    if (hand_is_equal_or_superior(st->hand_of_mover, old->hand_of_mover))
        return REPETITION_SUPERIOR;
    if (hand_is_equal_or_superior(old->hand_of_mover, st->hand_of_mover))
        return REPETITION_INFERIOR;
    return REPETITION_NONE;
}

RepetitionState position_repetition(const Position *pos, int max_back, int *distance) {
    const StateInfo *st = pos->st;
    int end = st->plies_from_null < max_back ? st->plies_from_null : max_back;
    if (end < 4)
        return REPETITION_NONE;
    const StateInfo *old = st->previous->previous;
    for (int i = 4; i <= end; i += 2) {
        old = old->previous->previous;
        if (old->board_key == st->board_key) {
            RepetitionState r = verdict(st, old, i, pos->side);
            if (r != REPETITION_NONE) {
                if (distance)
                    *distance = i;
                return r;
            }
        }
    }
    return REPETITION_NONE;
}

RepetitionState position_sennichite(const Position *pos) {
    const StateInfo *st = pos->st;
    Key key = position_key(pos);
    int seen = 1, first = 0;
    const StateInfo *old = st;
    for (int i = 2; i <= st->plies_from_null; i += 2) {
        old = old->previous->previous;
        if (old->board_key + old->hand_key == key) {
            seen++;
            first = i;
        }
    }
    if (seen < 4)
        return REPETITION_NONE;
    if (first <= st->continuous_check[pos->side])
        return REPETITION_LOSE;
    if (first <= st->continuous_check[color_flip(pos->side)])
        return REPETITION_WIN;
    return REPETITION_DRAW;
}

GameState position_game_state(const Position *pos, int max_moves) {
    if (!position_has_legal_move(pos))
        return GAME_MATED;
    switch (position_sennichite(pos)) {
    case REPETITION_DRAW: return GAME_REPETITION;
    case REPETITION_WIN: return GAME_PERPETUAL_WIN;
    case REPETITION_LOSE: return GAME_PERPETUAL_LOSS;
    default: break;
    }
    if (max_moves > 0 && pos->ply - 1 >= max_moves)
        return GAME_MAX_MOVES;
    return GAME_ONGOING;
}

/* Plays m (legal, checking) and tells whether the opponent is left without a move. */
static bool mates(Position *pos, Move m) {
    StateInfo st;
    position_do_move(pos, m, &st);
    bool mate = !position_has_legal_move(pos);
    position_undo_move(pos, m);
    return mate;
}

/* Whether the enemy king, checked by our legal move m, could step to a square none of
 * our pieces attacks once m is played: then m does not mate, and mates() need not play
 * it. Worked out on the position before m: the mover attacks from its new square, every
 * other piece of ours as it stands (with the occupancy after m and without the enemy
 * king, so that lines through either square are seen as they will be). */
static bool king_escapes_after(const Position *pos, Move m) {
    Color us = pos->side, them = color_flip(us);
    Square ksq = pos->king_sq[them], to = move_to(m);
    if (ksq >= SQ_NB)
        return false;
    Bitboard from = move_is_drop(m) ? 0 : bb_square(move_from(m));
    Piece after = move_is_drop(m) ? piece_make(us, move_dropped_type(m)) : move_moved_piece_after(m);
    Bitboard occ = ((position_occupied(pos) & ~from) | bb_square(to)) ^ bb_square(ksq);
    /* their own pieces block the king, the one captured on `to` aside */
    Bitboard steps = bb_king_attacks(ksq) & ~(pos->by_color[them] & ~bb_square(to)) & ~bb_piece_attacks(after, to, occ);
    if (!steps)
        return false;
    KingThreats k;
    king_threats_of(pos, us, from, occ, &k);
    while (steps)
        if (!king_step_attacked(them, bb_pop(&steps), &k))
            return true;
    return false;
}

/* Only checking moves can mate, so candidates are drawn from the check squares of
 * each piece type (direct checks) and from the moves of pieces that shield the enemy
 * king from our sliders (discovered checks). Pawn drops are skipped: a pawn drop that
 * mates is illegal. */
Move position_mate_in_one(Position *pos) {
    Color us = pos->side, them = color_flip(us);
    const StateInfo *st = pos->st;
    Bitboard occ = position_occupied(pos);
    Bitboard empty = bitboard_tables.all & ~occ;
    Bitboard checkers = st->checkers;
    Square our_king = pos->king_sq[us];
    /* When in check, every non-king move must also deal with the checker. */
    Bitboard evasion_target = bitboard_tables.all;
    if (checkers) {
        if (bb_more_than_one(checkers))
            evasion_target = 0;
        else
            evasion_target = bb_between(our_king, bb_lsb(checkers)) | checkers;
    }

    Hand h = pos->hand[us];
    /* The enemy king's steps that none of our pieces attacks now (found once, for the
     * drops): a drop only adds a blocker, so such a square stays free of our other
     * pieces' attacks, and unless the dropped piece attacks it (or lands on it) the king
     * escapes there. The rest go through king_escapes_after. */
    Bitboard free_steps = 0;
    Square their_king = pos->king_sq[them];
    if (h && their_king < SQ_NB) {
        KingThreats k;
        king_threats_of(pos, us, 0, occ ^ bb_square(their_king), &k);
        for (Bitboard steps = bb_king_attacks(their_king) & ~pos->by_color[them]; steps;) {
            Square e = bb_pop(&steps);
            if (!king_step_attacked(them, e, &k))
                free_steps |= bb_square(e);
        }
    }
    for (PieceType pt = LANCE; pt <= GOLD && h; pt++) {
        if (!hand_has(h, pt))
            continue;
        Bitboard t = st->check_squares[pt] & empty & evasion_target;
        if (pt == LANCE)
            t &= ~bitboard_tables.rank_far[us][0];
        else if (pt == KNIGHT)
            t &= ~bitboard_tables.rank_far[us][1];
        while (t) {
            Square to = bb_pop(&t);
            if (free_steps &&
                (free_steps & ~bb_square(to) &
                 ~bb_piece_attacks(piece_make(us, pt), to, (occ | bb_square(to)) ^ bb_square(their_king))))
                continue;
            Move m = move_make_drop(pt, to, us);
            if (!king_escapes_after(pos, m) && mates(pos, m))
                return m;
        }
    }

    Bitboard discoverers = st->blockers_for_king[them] & pos->by_color[us];
    Bitboard pieces = pos->by_color[us];
    while (pieces) {
        Square from = bb_pop(&pieces);
        Piece pc = pos->board[from];
        PieceType pt = piece_type(pc);
        Bitboard att = bb_piece_attacks(pc, from, occ) & ~pos->by_color[us];
        if (pt != KING)
            att &= evasion_target;
        if (!bb_test(discoverers, from)) {
            Bitboard wanted = st->check_squares[pt];
            if (piece_type_can_promote(pt))
                wanted |= st->check_squares[pt + PROMOTED];
            att &= wanted;
        }
        while (att) {
            Square to = bb_pop(&att);
            int r = rank_relative(us, square_rank(to));
            bool can_promote = piece_type_can_promote(pt) && (square_in_zone(us, from) || square_in_zone(us, to));
            bool must_promote = ((pt == PAWN || pt == LANCE) && r == 0) || (pt == KNIGHT && r < 2);
            for (int promote = can_promote; promote >= 0; promote--) {
                if (!promote && must_promote)
                    continue;
                Move m = move_make(from, to, promote, promote ? pc + PROMOTED : pc);
                if (position_gives_check(pos, m) && position_is_legal(pos, m) && !king_escapes_after(pos, m) &&
                    mates(pos, m))
                    return m;
            }
        }
    }
    return MOVE_NONE;
}

TreeRule position_tree_rule(const Position *pos, EnteringKingRule ekr, int max_moves_to_draw) {
    switch (position_repetition(pos, 32, NULL)) {
    case REPETITION_DRAW: return TREE_RULE_REPETITION;
    case REPETITION_WIN: return TREE_RULE_PERPETUAL_WIN;
    case REPETITION_LOSE: return TREE_RULE_PERPETUAL_LOSS;
    default: break;
    }
    if (ekr != EKR_NONE && position_declaration(pos, ekr) != MOVE_NONE)
        return TREE_RULE_DECLARATION;
    if (max_moves_to_draw > 0 && pos->ply - 1 >= max_moves_to_draw)
        return TREE_RULE_MOVE_LIMIT;
    return TREE_RULE_NONE;
}
