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

Move position_mate_in_one(Position *pos) {
    ExtMove list[MAX_MOVES];
    int n =
        position_in_check(pos) ? generate_moves(pos, GEN_EVASIONS, list) : generate_moves(pos, GEN_NON_EVASIONS, list);
    StateInfo st;
    for (int i = 0; i < n; i++) {
        Move m = list[i].move;
        if (!position_gives_check(pos, m) || !position_is_legal(pos, m))
            continue;
        position_do_move(pos, m, &st);
        bool mate = !position_has_legal_move(pos);
        position_undo_move(pos, m);
        if (mate)
            return m;
    }
    return MOVE_NONE;
}
