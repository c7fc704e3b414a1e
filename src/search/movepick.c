/* movepick.c - staged move ordering: hash move, good captures (MVV-LVA, capture
 * history), killers and counter move, quiets by history, then the losing captures. */
#include <string.h>

#include "eval/eval.h"
#include "search/see.h"
#include "search/worker.h"

enum {
    STAGE_TT,
    STAGE_CAPTURE_INIT,
    STAGE_GOOD_CAPTURE,
    STAGE_KILLER0,
    STAGE_KILLER1,
    STAGE_COUNTER,
    STAGE_QUIET_INIT,
    STAGE_QUIET,
    STAGE_BAD_CAPTURE,
    STAGE_EVASION_TT,
    STAGE_EVASION_INIT,
    STAGE_EVASION,
    STAGE_Q_TT,
    STAGE_Q_CAPTURE_INIT,
    STAGE_Q_CAPTURE,
    STAGE_DONE
};

static bool same(Move a, Move b) { return (Move16)a == (Move16)b; }

void movepick_init(MovePicker *mp, const Position *pos, const History *h, const Stack *ss, Move tt_move, Move counter) {
    memset(mp, 0, offsetof(MovePicker, moves));
    mp->pos = pos;
    mp->history = h;
    mp->cont[0] = (ss - 1)->cont_hist;
    mp->cont[1] = (ss - 2)->cont_hist;
    mp->tt_move = tt_move;
    mp->killers[0] = ss->killers[0];
    mp->killers[1] = ss->killers[1];
    mp->counter = counter;
    mp->stage = position_in_check(pos) ? STAGE_EVASION_TT : STAGE_TT;
    if (mp->stage == STAGE_TT && !tt_move)
        mp->stage++;
    if (mp->stage == STAGE_EVASION_TT && !tt_move)
        mp->stage++;
}

void movepick_init_qsearch(MovePicker *mp, const Position *pos, const History *h, const Stack *ss, Move tt_move) {
    memset(mp, 0, offsetof(MovePicker, moves));
    mp->pos = pos;
    mp->history = h;
    mp->cont[0] = (ss - 1)->cont_hist;
    mp->cont[1] = (ss - 2)->cont_hist;
    mp->qsearch = true;
    bool capture = tt_move && position_is_capture(pos, tt_move);
    if (position_in_check(pos)) {
        mp->tt_move = tt_move;
        mp->stage = tt_move ? STAGE_EVASION_TT : STAGE_EVASION_INIT;
    } else {
        mp->tt_move = capture ? tt_move : MOVE_NONE;
        mp->stage = mp->tt_move ? STAGE_Q_TT : STAGE_Q_CAPTURE_INIT;
    }
}

static void score_captures(MovePicker *mp) {
    for (int i = mp->cur; i < mp->end; i++) {
        Move m = mp->moves[i].move;
        PieceType victim = piece_type(mp->pos->board[move_to(m)]);
        int v = 8 * CAPTURE_VALUE[victim] + mp->history->capture[move_moved_piece_after(m)][move_to(m)][victim] / 16;
        if (move_is_promotion(m))
            v += 8 * (PIECE_VALUE[piece_type(move_moved_piece_after(m))] -
                      PIECE_VALUE[piece_type(move_moved_piece_after(m)) - PROMOTED]);
        mp->moves[i].value = v;
    }
}

static void score_quiets(MovePicker *mp) {
    Color us = mp->pos->side;
    for (int i = mp->cur; i < mp->end; i++) {
        Move m = mp->moves[i].move;
        int ci = cont_index(m);
        int v = mp->history->butterfly[us][butterfly_index(m)];
        v += mp->cont[0] ? 2 * mp->cont[0][ci] : 0;
        v += mp->cont[1] ? mp->cont[1][ci] : 0;
        if (move_is_promotion(m))
            v += 4000;
        mp->moves[i].value = v;
    }
}

static void score_evasions(MovePicker *mp) {
    Color us = mp->pos->side;
    for (int i = mp->cur; i < mp->end; i++) {
        Move m = mp->moves[i].move;
        if (position_is_capture(mp->pos, m))
            mp->moves[i].value = 1000000 + CAPTURE_VALUE[piece_type(mp->pos->board[move_to(m)])];
        else
            mp->moves[i].value =
                mp->history->butterfly[us][butterfly_index(m)] + (mp->cont[0] ? mp->cont[0][cont_index(m)] : 0);
    }
}

/* Moves the best remaining move (the first of the best, on ties) to the front and
 * returns it. The highest value is found first, by a loop without branches that the
 * compiler vectorises, then its first holder. */
static Move pick_best(MovePicker *mp) {
    int top = mp->moves[mp->cur].value;
    for (int i = mp->cur + 1; i < mp->end; i++)
        top = mp->moves[i].value > top ? mp->moves[i].value : top;
    int best = mp->cur;
    while (mp->moves[best].value != top)
        best++;
    ExtMove t = mp->moves[best];
    mp->moves[best] = mp->moves[mp->cur];
    mp->moves[mp->cur] = t;
    return mp->moves[mp->cur++].move;
}

static bool is_special(const MovePicker *mp, Move m) {
    return same(m, mp->tt_move) || same(m, mp->killers[0]) || same(m, mp->killers[1]) || same(m, mp->counter);
}

/* A killer or counter move is used only when it is a legal quiet move here. */
static Move refutation(const MovePicker *mp, Move m) {
    if (!m || same(m, mp->tt_move))
        return MOVE_NONE;
    Move legal = position_legal_move_from16(mp->pos, (Move16)m);
    if (!legal || position_is_capture(mp->pos, legal))
        return MOVE_NONE;
    return legal;
}

Move movepick_next(MovePicker *mp, bool skip_quiets) {
    Move m;
    for (;;) {
        switch (mp->stage) {
        case STAGE_TT:
        case STAGE_EVASION_TT:
        case STAGE_Q_TT: mp->stage++; return mp->tt_move;

        case STAGE_CAPTURE_INIT:
        case STAGE_Q_CAPTURE_INIT:
            mp->cur = 0;
            mp->end = generate_moves(mp->pos, GEN_CAPTURES, mp->moves);
            score_captures(mp);
            mp->stage++;
            break;

        case STAGE_GOOD_CAPTURE:
            while (mp->cur < mp->end) {
                m = pick_best(mp);
                if (same(m, mp->tt_move))
                    continue;
                if (!see_ge(mp->pos, m, -mp->moves[mp->cur - 1].value / 64)) {
                    mp->bad_captures[mp->bad_count++].move = m;
                    continue;
                }
                return m;
            }
            mp->stage++;
            break;

        case STAGE_KILLER0:
        case STAGE_KILLER1:
            m = refutation(mp, mp->killers[mp->stage - STAGE_KILLER0]);
            if (mp->stage == STAGE_KILLER1 && same(m, mp->killers[0]))
                m = MOVE_NONE;
            mp->stage++;
            if (m)
                return m;
            break;

        case STAGE_COUNTER:
            m = refutation(mp, mp->counter);
            mp->stage++;
            if (m && !same(m, mp->killers[0]) && !same(m, mp->killers[1]))
                return m;
            break;

        case STAGE_QUIET_INIT:
            if (!skip_quiets) {
                mp->cur = 0;
                mp->end = generate_moves(mp->pos, GEN_QUIETS, mp->moves);
                score_quiets(mp);
            } else {
                mp->cur = mp->end = 0;
            }
            mp->stage++;
            break;

        case STAGE_QUIET:
            while (!skip_quiets && mp->cur < mp->end) {
                m = pick_best(mp);
                if (!is_special(mp, m))
                    return m;
            }
            mp->stage++;
            mp->cur = 0;
            break;

        case STAGE_BAD_CAPTURE:
            if (mp->cur < mp->bad_count)
                return mp->bad_captures[mp->cur++].move;
            mp->stage = STAGE_DONE;
            break;

        case STAGE_EVASION_INIT:
            mp->cur = 0;
            mp->end = generate_moves(mp->pos, GEN_EVASIONS, mp->moves);
            score_evasions(mp);
            mp->stage++;
            break;

        case STAGE_EVASION:
        case STAGE_Q_CAPTURE:
            while (mp->cur < mp->end) {
                m = pick_best(mp);
                if (!same(m, mp->tt_move))
                    return m;
            }
            mp->stage = STAGE_DONE;
            break;

        default: return MOVE_NONE;
        }
    }
}
