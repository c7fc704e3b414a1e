/* search.c - the tree: principal variation search with quiescence, pruning,
 * reductions and extensions in the manner of Stockfish, adapted to shogi (drops, no
 * stalemate, repetition and declaration rules), and the iterative-deepening loop. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "eval/eval.h"
#include "search/see.h"
#include "search/worker.h"
#include "shogi/notation.h"

static int reductions[MAX_MOVES];

/* Fills the late-move reduction table once (read-only afterwards). */
static void init_reductions(void) {
    static bool done;
    if (done)
        return;
    for (int i = 1; i < MAX_MOVES; i++)
        reductions[i] = (int)(20.8 * log((double)i));
    done = true;
}

static int reduction(bool improving, int depth, int move_count, int delta, int root_delta) {
    int r = reductions[depth < MAX_MOVES ? depth : MAX_MOVES - 1] *
            reductions[move_count < MAX_MOVES ? move_count : MAX_MOVES - 1];
    return (r + 1200 - delta * 800 / (root_delta > 0 ? root_delta : 1)) / 1024 + (!improving && r > 900);
}

/* Shogi has two to three times chess's branching factor, so more quiet moves are kept. */
static int futility_move_count(bool improving, int depth) { return (6 + 2 * depth * depth) / (2 - improving); }

void history_clear(History *h) { memset(h, 0, sizeof *h); }

/* Mate scores are stored relative to the node, not the root. */
static Value value_to_tt(Value v, int ply) {
    return v >= VALUE_MATE_IN_MAX_PLY ? v + ply : v <= VALUE_MATED_IN_MAX_PLY ? v - ply : v;
}
static Value value_from_tt(Value v, int ply) {
    if (v == VALUE_NONE)
        return VALUE_NONE;
    return v >= VALUE_MATE_IN_MAX_PLY ? v - ply : v <= VALUE_MATED_IN_MAX_PLY ? v + ply : v;
}

static int stat_bonus(int depth) { return depth > 13 ? 1500 : 120 * depth - 100 > 0 ? 120 * depth - 100 : 20; }

static void update_entry(int16_t *e, int bonus) {
    int b = bonus > HISTORY_MAX ? HISTORY_MAX : bonus < -HISTORY_MAX ? -HISTORY_MAX : bonus;
    *e = (int16_t)(*e + b - *e * (b < 0 ? -b : b) / HISTORY_MAX);
}

static void update_continuation(Stack *ss, Move m, int bonus) {
    int ci = cont_index(m);
    for (int i = 1; i <= 2; i++) {
        if ((ss - i)->in_check && i > 1)
            break;
        if ((ss - i)->current_move && (ss - i)->cont_hist)
            update_entry(&(ss - i)->cont_hist[ci], bonus);
    }
}

static void update_quiet(Worker *w, Stack *ss, Move m, int bonus) {
    Color us = w->game.pos.side;
    update_entry(&w->history->butterfly[us][butterfly_index(m)], bonus);
    update_continuation(ss, m, bonus);
}

static void update_stats(Worker *w, Stack *ss, Move best, Value best_value, Value beta, const Move *quiets, int nq,
                         const Move *captures, int nc, int depth) {
    const Position *pos = &w->game.pos;
    int bonus = stat_bonus(depth + (best_value > beta + 150));
    bool capture = position_is_capture(pos, best);
    if (!capture) {
        if (!((Move16)ss->killers[0] == (Move16)best)) {
            ss->killers[1] = ss->killers[0];
            ss->killers[0] = best;
        }
        update_quiet(w, ss, best, bonus);
        for (int i = 0; i < nq; i++)
            update_quiet(w, ss, quiets[i], -bonus);
        Move prev = (ss - 1)->current_move;
        if (move_is_ok(prev))
            w->history->counter[move_moved_piece_after(prev)][move_to(prev)] = (Move16)best;
    } else {
        PieceType victim = piece_type(pos->board[move_to(best)]);
        update_entry(&w->history->capture[move_moved_piece_after(best)][move_to(best)][victim], bonus);
    }
    for (int i = 0; i < nc; i++) {
        Move c = captures[i];
        PieceType victim = piece_type(pos->board[move_to(c)]);
        update_entry(&w->history->capture[move_moved_piece_after(c)][move_to(c)][victim], -bonus);
    }
}

/* Correction history: the static evaluation is shifted by how far it missed the search
 * result in earlier positions with the same pawns, and with the same hands. */
static unsigned pawn_correction_index(const Position *pos) {
    Bitboard pawns = pos->by_type[PAWN];
    Bitboard b = pawns & pos->by_color[BLACK], wh = pawns & pos->by_color[WHITE];
    uint64_t h = (uint64_t)b * 0x9e3779b97f4a7c15u ^ (uint64_t)(b >> 64) * 0xc2b2ae3d27d4eb4fu ^
                 (uint64_t)wh * 0x165667b19e3779f9u ^ (uint64_t)(wh >> 64) * 0xd6e8feb86659fd93u;
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9u;
    return (unsigned)(h >> 50) & (CORRECTION_SIZE - 1);
}
static unsigned hand_correction_index(const Position *pos) {
    return (unsigned)(pos->st->hand_key >> 50) & (CORRECTION_SIZE - 1);
}

static Value corrected_eval(const Worker *w, Value raw) {
    const Position *pos = &w->game.pos;
    Color us = pos->side;
    int c = w->history->pawn_correction[us][pawn_correction_index(pos)] +
            w->history->hand_correction[us][hand_correction_index(pos)];
    Value v = raw + c / 24; /* two thirds of each table's estimate */
    return v >= VALUE_KNOWN_WIN ? VALUE_KNOWN_WIN - 1 : v <= -VALUE_KNOWN_WIN ? -VALUE_KNOWN_WIN + 1 : v;
}

static void correction_entry_update(int16_t *e, int bonus) {
    *e = (int16_t)(*e + bonus - *e * (bonus < 0 ? -bonus : bonus) / CORRECTION_MAX);
}

static void update_correction(Worker *w, Value diff, int depth) {
    const Position *pos = &w->game.pos;
    Color us = pos->side;
    int bonus = diff * 16 * depth / 8;
    bonus = bonus > CORRECTION_MAX / 4 ? CORRECTION_MAX / 4 : bonus < -CORRECTION_MAX / 4 ? -CORRECTION_MAX / 4 : bonus;
    correction_entry_update(&w->history->pawn_correction[us][pawn_correction_index(pos)], bonus);
    correction_entry_update(&w->history->hand_correction[us][hand_correction_index(pos)], bonus);
}

static void update_pv(Move *pv, Move m, const Move *child) {
    *pv++ = m;
    while (child && *child)
        *pv++ = *child++;
    *pv = MOVE_NONE;
}

/* Makes move m at ss for the tree: records it for the histories, starts loading the
 * child's hash cluster, keeps the NNUE stack in step and counts the node. */
static void tree_do_move(Worker *w, Stack *ss, Move m) {
    ss->current_move = m;
    ss->cont_hist = w->history->cont[cont_index(m)];
    tt_prefetch(w->shared->tt, position_key_after(&w->game.pos, m));
    position_do_move(&w->game.pos, m, &w->tree_states[ss->ply]);
    eval_stack_push(w->estack, &w->game.pos);
    atomic_fetch_add_explicit(&w->nodes, 1, memory_order_relaxed);
}

static void tree_undo_move(Worker *w, Move m) {
    position_undo_move(&w->game.pos, m);
    eval_stack_pop(w->estack);
}

/* The node limit, polled by every thread at every node (docs/usi.md, "go nodes"). The
 * limit is handed out in reservations: a thread that has searched what it reserved takes
 * a share of what is left (a 2 * threads-th, at most NODE_SHARE nodes), so the
 * reservations never add up to more than the limit; once nothing is left, a thread adds
 * up all threads' nodes at every node and stops the search at the limit. One thread stops
 * exactly at the limit; with several, a thread that was slow to use its reservation may
 * finish it after the others passed the limit, and each thread may count one node before
 * it sees the stop, so a search ends within NODE_SHARE + 1 nodes per helper thread past
 * it. (Polled every 1024 calls by the main thread alone, `go nodes
 * 1` ran 946 nodes and `go nodes 2000` 2792.) */
enum { NODE_SHARE = 64 };

static void check_nodes(Worker *w) {
    SharedSearch *sh = w->shared;
    if (atomic_load_explicit(&w->nodes, memory_order_relaxed) < w->nodes_allowed)
        return;
    uint64_t limit = sh->limits.nodes, taken = atomic_load_explicit(&sh->nodes_reserved, memory_order_relaxed);
    uint64_t share = 0;
    while (taken < limit) {
        share = (limit - taken) / (2 * (uint64_t)sh->worker_count);
        share = share < 1 ? 1 : share > NODE_SHARE ? NODE_SHARE : share;
        if (atomic_compare_exchange_weak_explicit(&sh->nodes_reserved, &taken, taken + share, memory_order_relaxed,
                                                  memory_order_relaxed))
            break;
        share = 0;
    }
    if (share) {
        w->nodes_allowed = atomic_load_explicit(&w->nodes, memory_order_relaxed) + share;
        return;
    }
    uint64_t n = 0;
    for (int i = 0; i < sh->worker_count; i++)
        n += atomic_load_explicit(&sh->workers[i]->nodes, memory_order_relaxed);
    if (n >= limit)
        atomic_store(&sh->stop, true);
}

/* Polls the node limit (every thread) and the clock (main thread only, every 1024 calls). */
static void check_time(Worker *w) {
    SharedSearch *sh = w->shared;
    if (sh->limits.nodes)
        check_nodes(w);
    if (w->id != 0 || --w->calls_until_check > 0)
        return;
    w->calls_until_check = 1024;
    /* The clock never ends the search before depth 1 is complete: that takes well under a
     * millisecond, and without it zero time (go btime 0 wtime 0) answered with the first
     * legal move, unsearched (1c1d with the opponent's horse to take). */
    if (atomic_load(&sh->ponder) || sh->limits.infinite || w->completed_depth < 1)
        return;
    if (search_now_ms() - sh->start_ms >= (double)sh->budget.maximum_ms)
        atomic_store(&sh->stop, true);
}

/* Terminal and rule checks shared by search and qsearch. Returns VALUE_NONE when the
 * node must be searched. */
static Value rule_value(Worker *w, const Stack *ss) {
    const SearchOptions *o = &w->shared->options;
    switch (position_tree_rule(&w->game.pos, o->entering_king_rule, o->max_moves_to_draw)) {
    case TREE_RULE_NONE: return VALUE_NONE;
    case TREE_RULE_PERPETUAL_WIN: return VALUE_KNOWN_WIN;
    case TREE_RULE_PERPETUAL_LOSS: return -VALUE_KNOWN_WIN;
    case TREE_RULE_DECLARATION: return mate_in(ss->ply + 1);
    case TREE_RULE_REPETITION:
    case TREE_RULE_MOVE_LIMIT: return VALUE_DRAW;
    }
    return VALUE_NONE;
}

static Value qsearch(Worker *w, Stack *ss, Value alpha, Value beta, int depth, bool pv_node) {
    Position *pos = &w->game.pos;
    Move pv[MAX_PLY + 1];
    if (pv_node) {
        (ss + 1)->pv = pv;
        ss->pv[0] = MOVE_NONE;
        if (w->seldepth < ss->ply + 1)
            w->seldepth = ss->ply + 1;
    }
    bool in_check = position_in_check(pos);
    ss->in_check = in_check;
    check_time(w);
    if (atomic_load_explicit(&w->shared->stop, memory_order_relaxed))
        return VALUE_ZERO;
    if (depth == 0) {
        Value r = rule_value(w, ss);
        if (r != VALUE_NONE)
            return r;
    }
    if (ss->ply >= MAX_PLY - 4)
        return in_check ? VALUE_DRAW : evaluate(pos);

    Key key = position_key(pos);
    bool tt_hit;
    TTEntry *tte = tt_probe(w->shared->tt, key, &tt_hit);
    Value tt_value = tt_hit ? value_from_tt(tte->value, ss->ply) : VALUE_NONE;
    Move tt_move = tt_hit && tte->move16 ? position_legal_move_from16(pos, tte->move16) : MOVE_NONE;
    bool tt_pv = tt_hit && tt_is_pv(tte);
    int tt_depth_needed = in_check || depth >= 0 ? 0 : -1;
    if (!pv_node && tt_hit && tt_depth(tte) >= tt_depth_needed && tt_value != VALUE_NONE &&
        (tt_bound(tte) & (tt_value >= beta ? BOUND_LOWER : BOUND_UPPER)))
        return tt_value;

    Value best, stand_pat, raw_eval = VALUE_NONE;
    if (in_check) {
        stand_pat = VALUE_NONE;
        best = -VALUE_INFINITE;
    } else {
        raw_eval = tt_hit && tte->eval != VALUE_NONE ? tte->eval : evaluate(pos);
        stand_pat = corrected_eval(w, raw_eval);
        ss->static_eval = stand_pat;
        best = stand_pat;
        if (tt_value != VALUE_NONE && (tt_bound(tte) & (tt_value > best ? BOUND_LOWER : BOUND_UPPER)))
            best = tt_value;
        if (best >= beta) {
            if (!tt_hit)
                tt_save(w->shared->tt, tte, key, value_to_tt(best, ss->ply), false, BOUND_LOWER, -6, 0, raw_eval);
            return best;
        }
        if (best > alpha)
            alpha = best;
    }

    MovePicker mp;
    movepick_init_qsearch(&mp, pos, w->history, ss, tt_move);
    Move m, best_move = MOVE_NONE;
    int move_count = 0;
    while ((m = movepick_next(&mp, false))) {
        if (!position_is_legal(pos, m))
            continue;
        move_count++;
        bool gives_check = position_gives_check(pos, m);
        if (!in_check && best > VALUE_MATED_IN_MAX_PLY) {
            Piece victim = pos->board[move_to(m)];
            if (!gives_check && stand_pat + CAPTURE_VALUE[piece_type(victim)] + 150 <= alpha)
                continue;
            if (!see_ge(pos, m, 0))
                continue;
        }
        tree_do_move(w, ss, m);
        Value v = -qsearch(w, ss + 1, -beta, -alpha, depth - 1, pv_node);
        tree_undo_move(w, m);
        if (atomic_load_explicit(&w->shared->stop, memory_order_relaxed))
            return VALUE_ZERO;
        if (v > best) {
            best = v;
            if (v > alpha) {
                best_move = m;
                if (pv_node)
                    update_pv(ss->pv, m, (ss + 1)->pv);
                if (v >= beta)
                    break;
                alpha = v;
            }
        }
    }
    if (in_check && move_count == 0)
        return mated_in(ss->ply);
    tt_save(w->shared->tt, tte, key, value_to_tt(best, ss->ply), tt_pv, best >= beta ? BOUND_LOWER : BOUND_UPPER,
            in_check || depth >= 0 ? 0 : -1, (Move16)best_move, raw_eval);
    return best;
}

static Value search(Worker *w, Stack *ss, Value alpha, Value beta, int depth, bool cut_node, bool pv_node) {
    if (depth <= 0)
        return qsearch(w, ss, alpha, beta, 0, pv_node);
    Position *pos = &w->game.pos;
    SharedSearch *sh = w->shared;
    bool root = ss->ply == 0;
    Move pv[MAX_PLY + 1];
    bool in_check = position_in_check(pos);
    ss->in_check = in_check;
    ss->move_count = 0;
    (ss + 1)->killers[0] = (ss + 1)->killers[1] = MOVE_NONE;
    (ss + 2)->killers[0] = (ss + 2)->killers[1] = MOVE_NONE;
    if (pv_node && w->seldepth < ss->ply + 1)
        w->seldepth = ss->ply + 1;
    check_time(w);

    if (!root) {
        if (atomic_load_explicit(&sh->stop, memory_order_relaxed))
            return VALUE_ZERO;
        Value r = rule_value(w, ss);
        if (r != VALUE_NONE)
            return r;
        if (ss->ply >= MAX_PLY - 4)
            return in_check ? VALUE_DRAW : evaluate(pos);
        /* Mate distance pruning. */
        if (alpha < mated_in(ss->ply))
            alpha = mated_in(ss->ply);
        if (beta > mate_in(ss->ply + 1))
            beta = mate_in(ss->ply + 1);
        if (alpha >= beta)
            return alpha;
    }

    Move excluded = ss->excluded_move;
    Key key = position_key(pos);
    bool tt_hit = false;
    TTEntry *tte = tt_probe(sh->tt, key, &tt_hit);
    if (excluded)
        tt_hit = false; /* the singular search must not see the full node's result */
    Value tt_value = tt_hit ? value_from_tt(tte->value, ss->ply) : VALUE_NONE;
    Move tt_move = root                    ? w->root_moves[w->pv_index].move
                   : tt_hit && tte->move16 ? position_legal_move_from16(pos, tte->move16)
                                           : MOVE_NONE;
    ss->tt_pv = excluded ? ss->tt_pv : pv_node || (tt_hit && tt_is_pv(tte));
    if (!pv_node && tt_hit && tt_depth(tte) >= depth && tt_value != VALUE_NONE &&
        (tt_bound(tte) & (tt_value >= beta ? BOUND_LOWER : BOUND_UPPER))) {
        if (tt_move && tt_value >= beta && !position_is_capture(pos, tt_move))
            update_quiet(w, ss, tt_move, stat_bonus(depth));
        return tt_value;
    }

    Value eval, raw_eval = VALUE_NONE;
    bool improving = false;
    if (in_check) {
        ss->static_eval = eval = VALUE_NONE;
    } else {
        if (excluded)
            eval = ss->static_eval;
        else if (tt_hit) {
            raw_eval = tte->eval != VALUE_NONE ? tte->eval : evaluate(pos);
            ss->static_eval = eval = corrected_eval(w, raw_eval);
            if (tt_value != VALUE_NONE && (tt_bound(tte) & (tt_value > eval ? BOUND_LOWER : BOUND_UPPER)))
                eval = tt_value;
        } else {
            raw_eval = evaluate(pos);
            ss->static_eval = eval = corrected_eval(w, raw_eval);
            tt_save(sh->tt, tte, key, VALUE_NONE, ss->tt_pv, BOUND_NONE, -6, 0, raw_eval);
        }
        /* A mate in one settles the node before any pruning. */
        if (!root && !excluded && position_mate_in_one(pos))
            return mate_in(ss->ply + 1);
        improving = ss->ply >= 2 && (ss - 2)->static_eval != VALUE_NONE && ss->static_eval > (ss - 2)->static_eval;

        /* Razoring: hopeless nodes drop to the quiescence search. */
        if (!pv_node && depth <= 3 && eval + 200 + 250 * depth * depth < alpha) {
            Value v = qsearch(w, ss, alpha - 1, alpha, 0, false);
            if (v < alpha)
                return v;
        }
        /* Reverse futility pruning. */
        if (!pv_node && !excluded && depth < 9 && eval - 140 * (depth - improving) >= beta && eval < VALUE_KNOWN_WIN)
            return eval;
        /* Null move with verification at high depth. */
        if (!pv_node && !excluded && (ss - 1)->current_move != MOVE_NULL && eval >= beta &&
            ss->static_eval >= beta - 20 * depth + 160 && depth >= 2 && ss->ply >= w->nmp_min_ply &&
            beta > VALUE_MATED_IN_MAX_PLY) {
            int r = 3 + depth / 3 + ((eval - beta) / 200 < 3 ? (eval - beta) / 200 : 3);
            ss->current_move = MOVE_NULL;
            ss->cont_hist = w->history->cont[CONT_INDEX_NB];
            position_do_null_move(pos, &w->tree_states[ss->ply]);
            eval_stack_push(w->estack, pos);
            Value v = -search(w, ss + 1, -beta, -beta + 1, depth - r, !cut_node, false);
            position_undo_null_move(pos);
            eval_stack_pop(w->estack);
            if (v >= beta && v < VALUE_KNOWN_WIN) {
                if (w->nmp_min_ply || depth < 14)
                    return v;
                w->nmp_min_ply = ss->ply + 3 * (depth - r) / 4;
                Value v2 = search(w, ss, beta - 1, beta, depth - r, false, false);
                w->nmp_min_ply = 0;
                if (v2 >= beta)
                    return v;
            }
        }
    }
    /* ProbCut: a capture that beats beta by a margin in a search four plies shallower
     * very probably beats beta at full depth. */
    if (!pv_node && !in_check && !excluded && depth >= 5 && beta > -VALUE_KNOWN_WIN && beta < VALUE_KNOWN_WIN) {
        Value raised = beta + 180 - 45 * improving;
        MovePicker pc;
        movepick_init_qsearch(&pc, pos, w->history, ss, MOVE_NONE);
        int tried = 0;
        Move m;
        while (tried < 2 + 2 * cut_node && (m = movepick_next(&pc, false))) {
            if (!position_is_capture(pos, m) || !see_ge(pos, m, raised - ss->static_eval) || !position_is_legal(pos, m))
                continue;
            tried++;
            tree_do_move(w, ss, m);
            Value v = -qsearch(w, ss + 1, -raised, -raised + 1, 0, false);
            if (v >= raised)
                v = -search(w, ss + 1, -raised, -raised + 1, depth - 4, !cut_node, false);
            tree_undo_move(w, m);
            if (atomic_load_explicit(&sh->stop, memory_order_relaxed))
                return VALUE_ZERO;
            if (v >= raised)
                return v;
        }
    }
    /* Internal iterative reduction: without a hash move the node is probably new. */
    if (pv_node && !tt_move && depth >= 3)
        depth -= 2;
    if (cut_node && !tt_move && depth >= 8)
        depth -= 1;

    Move counter = MOVE_NONE;
    Move prev = (ss - 1)->current_move;
    if (move_is_ok(prev))
        counter = w->history->counter[move_moved_piece_after(prev)][move_to(prev)];
    MovePicker mp;
    movepick_init(&mp, pos, w->history, ss, tt_move, counter);
    Value best = -VALUE_INFINITE;
    Move best_move = MOVE_NONE, m;
    Move quiets[64], captures[32];
    int nq = 0, nc = 0, move_count = 0;
    bool skip_quiets = false;
    int root_move_index = 0;

    for (;;) {
        if (root) {
            /* The root searches its own list: MultiPV lines already found are skipped. */
            int i = w->pv_index + root_move_index++;
            if (i >= w->root_count)
                break;
            m = w->root_moves[i].move;
        } else {
            m = movepick_next(&mp, skip_quiets);
            if (!m)
                break;
            if ((Move16)m == (Move16)excluded)
                continue;
            if (!position_is_legal(pos, m))
                continue;
        }
        ss->move_count = ++move_count;
        bool capture = position_is_capture(pos, m);
        bool gives_check = position_gives_check(pos, m);
        int new_depth = depth - 1;
        int delta = beta - alpha;
        int r = reduction(improving, depth, move_count, delta, 100);

        if (!root && best > VALUE_MATED_IN_MAX_PLY) {
            int lmr_depth = new_depth - r;
            if (!capture && !gives_check) {
                if (move_count >= futility_move_count(improving, depth)) {
                    skip_quiets = true;
                    continue;
                }
                int ci = cont_index(m);
                int hist = ((ss - 1)->cont_hist ? (ss - 1)->cont_hist[ci] : 0) +
                           ((ss - 2)->cont_hist ? (ss - 2)->cont_hist[ci] : 0);
                if (lmr_depth < 4 && hist < -3500 * depth)
                    continue;
                if (!in_check && lmr_depth < 8 && ss->static_eval + 120 + 110 * lmr_depth <= alpha)
                    continue;
                if (!see_ge(pos, m, -25 * lmr_depth * lmr_depth))
                    continue;
            } else if (!see_ge(pos, m, -180 * depth)) {
                continue;
            }
        }

        int extension = 0;
        if (!root && depth >= 7 && (Move16)m == (Move16)tt_move && !excluded && tt_value != VALUE_NONE &&
            tt_value < VALUE_KNOWN_WIN && tt_value > -VALUE_KNOWN_WIN && (tt_bound(tte) & BOUND_LOWER) &&
            tt_depth(tte) >= depth - 3) {
            Value singular_beta = tt_value - 2 * depth;
            ss->excluded_move = m;
            Value v = search(w, ss, singular_beta - 1, singular_beta, (depth - 1) / 2, cut_node, false);
            ss->excluded_move = MOVE_NONE;
            if (v < singular_beta)
                extension = 1;
            else if (singular_beta >= beta)
                return singular_beta; /* multi-cut */
            else if (tt_value >= beta)
                extension = -1;
        } else if (gives_check && depth > 8 && see_ge(pos, m, 0)) {
            extension = 1;
        }
        new_depth += extension;

        tree_do_move(w, ss, m);
        Value v;
        if (depth >= 2 && move_count > 1 + root && (!capture || cut_node)) {
            if (ss->tt_pv)
                r--;
            if (cut_node)
                r += 2;
            if ((Move16)m == (Move16)ss->killers[0] || (Move16)m == (Move16)ss->killers[1])
                r--;
            if (!capture) {
                int ci = cont_index(m);
                ss->stat_score = 2 * w->history->butterfly[pos->side ^ 1][butterfly_index(m)] +
                                 ((ss - 1)->cont_hist ? (ss - 1)->cont_hist[ci] : 0) +
                                 ((ss - 2)->cont_hist ? (ss - 2)->cont_hist[ci] : 0) - 4000;
                r -= ss->stat_score / 12000;
            }
            int d = new_depth - r;
            d = d < 1 ? 1 : d > new_depth + 1 ? new_depth + 1 : d;
            v = -search(w, ss + 1, -(alpha + 1), -alpha, d, true, false);
            if (v > alpha && d < new_depth)
                v = -search(w, ss + 1, -(alpha + 1), -alpha, new_depth, !cut_node, false);
        } else if (!pv_node || move_count > 1) {
            v = -search(w, ss + 1, -(alpha + 1), -alpha, new_depth, !cut_node, false);
        } else {
            v = alpha + 1; /* forces the full-window search below */
        }
        /* The child's line, when this move had a PV search: a null-window fail high
         * (v >= beta off the root) is taken without one, and then pv still holds an earlier
         * sibling's line, which must not be glued after m. */
        const Move *child_pv = NULL;
        if (pv_node && (move_count == 1 || (v > alpha && (root || v < beta)))) {
            (ss + 1)->pv = pv;
            pv[0] = MOVE_NONE;
            v = -search(w, ss + 1, -beta, -alpha, new_depth, false, true);
            child_pv = pv;
        }
        tree_undo_move(w, m);
        if (atomic_load_explicit(&sh->stop, memory_order_relaxed))
            return VALUE_ZERO;

        if (root) {
            RootMove *rm = &w->root_moves[w->pv_index + root_move_index - 1];
            if (move_count == 1 || v > alpha) {
                rm->score = rm->uci_score = v;
                rm->seldepth = w->seldepth;
                rm->lowerbound = v >= beta;
                rm->upperbound = false;
                rm->pv[0] = m;
                int n = 1;
                for (const Move *p = child_pv; p && *p && n < MAX_PLY; p++)
                    rm->pv[n++] = *p;
                rm->pv_length = n;
                if (move_count > 1 && w->pv_index == 0)
                    w->best_move_changes++;
            } else {
                rm->score = -VALUE_INFINITE;
            }
        }
        if (v > best) {
            best = v;
            if (v > alpha) {
                best_move = m;
                if (pv_node && !root)
                    update_pv(ss->pv, m, child_pv);
                if (v >= beta)
                    break;
                alpha = v;
            }
        }
        if (m != best_move) {
            if (capture && nc < 32)
                captures[nc++] = m;
            else if (!capture && nq < 64)
                quiets[nq++] = m;
        }
    }

    if (move_count == 0)
        best = excluded ? alpha : mated_in(ss->ply); /* no legal move loses, in check or not */
    else if (best_move)
        update_stats(w, ss, best_move, best, beta, quiets, nq, captures, nc, depth);
    /* The correction learns only from results that say more than the bound they had. */
    bool best_capture = best_move && position_is_capture(pos, best_move);
    if (!in_check && !excluded && move_count > 0 && !best_capture && ss->static_eval != VALUE_NONE &&
        best > -VALUE_KNOWN_WIN && best < VALUE_KNOWN_WIN && !(best >= beta && best <= ss->static_eval) &&
        !(!best_move && best >= ss->static_eval))
        update_correction(w, best - ss->static_eval, depth);
    if (!excluded && !(root && w->pv_index))
        tt_save(sh->tt, tte, key, value_to_tt(best, ss->ply), ss->tt_pv,
                best >= beta                ? BOUND_LOWER
                : pv_node && best_move != 0 ? BOUND_EXACT
                                            : BOUND_UPPER,
                depth, (Move16)best_move, raw_eval);
    return best;
}

static int compare_root(const void *a, const void *b) {
    const RootMove *x = a, *y = b;
    if (x->score != y->score)
        return x->score < y->score ? 1 : -1;
    return x->previous_score < y->previous_score ? 1 : x->previous_score > y->previous_score ? -1 : 0;
}

/* Stable insertion sort of root moves [from, to) by score (keeps equal-score order). */
static void sort_root(RootMove *rm, int from, int to) {
    for (int i = from + 1; i < to; i++) {
        RootMove t = rm[i];
        int j = i - 1;
        while (j >= from && compare_root(&rm[j], &t) > 0) {
            rm[j + 1] = rm[j];
            j--;
        }
        rm[j + 1] = t;
    }
}

Value worker_qsearch(Worker *w) {
    eval_stack_reset(w->estack, &w->game.pos);
    eval_stack_bind_thread(w->estack);
    Stack stack[MAX_PLY + 10];
    memset(stack, 0, sizeof stack);
    Stack *ss = stack + 7;
    for (int i = 0; i < 7; i++)
        stack[i].cont_hist = w->history->cont[CONT_INDEX_NB];
    for (int i = 0; i <= MAX_PLY + 2; i++)
        ss[i].ply = i;
    return qsearch(w, ss, -VALUE_INFINITE, VALUE_INFINITE, 0, false);
}

void worker_iterate(Worker *w) {
    init_reductions();
    eval_stack_reset(w->estack, &w->game.pos);
    eval_stack_bind_thread(w->estack);
    SharedSearch *sh = w->shared;
    Stack stack[MAX_PLY + 10];
    memset(stack, 0, sizeof stack);
    Stack *ss = stack + 7; /* room for (ss - 7) look-backs */
    for (int i = 0; i < 7; i++)
        stack[i].cont_hist = w->history->cont[CONT_INDEX_NB];
    for (int i = 0; i <= MAX_PLY + 2; i++)
        ss[i].ply = i;
    Move root_pv[MAX_PLY + 1];
    ss->pv = root_pv;
    int multipv = sh->options.multipv < w->root_count ? sh->options.multipv : w->root_count;
    int max_depth = sh->limits.depth > 0 && sh->limits.depth < MAX_PLY ? sh->limits.depth : MAX_PLY - 1;
    double last_best_change_ms = search_now_ms();
    Move last_best = MOVE_NONE;

    for (w->root_depth = 1 + (w->id % 2 ? 1 : 0); w->root_depth <= max_depth; w->root_depth++) {
        if (atomic_load(&sh->stop))
            break;
        if (w->id == 0)
            w->best_move_changes /= 2;
        for (int i = 0; i < w->root_count; i++)
            w->root_moves[i].previous_score = w->root_moves[i].score;
        for (w->pv_index = 0; w->pv_index < multipv; w->pv_index++) {
            w->seldepth = 0;
            Value prev = w->root_moves[w->pv_index].previous_score;
            Value delta = 30, alpha = -VALUE_INFINITE, beta = VALUE_INFINITE;
            if (w->root_depth >= 4 && prev > -VALUE_INFINITE) {
                alpha = prev - delta > -VALUE_INFINITE ? prev - delta : -VALUE_INFINITE;
                beta = prev + delta < VALUE_INFINITE ? prev + delta : VALUE_INFINITE;
            }
            for (;;) {
                Value v = search(w, ss, alpha, beta, w->root_depth, false, true);
                sort_root(w->root_moves, w->pv_index, w->root_count);
                if (atomic_load(&sh->stop))
                    break;
                if (v <= alpha) {
                    beta = (alpha + beta) / 2;
                    alpha = v - delta > -VALUE_INFINITE ? v - delta : -VALUE_INFINITE;
                    w->root_moves[w->pv_index].upperbound = true;
                    w->root_moves[w->pv_index].uci_score = v;
                } else if (v >= beta) {
                    beta = v + delta < VALUE_INFINITE ? v + delta : VALUE_INFINITE;
                } else {
                    break;
                }
                if (w->id == 0 && search_now_ms() - sh->start_ms > 3000)
                    report_pv(w, w->root_depth);
                delta += delta / 2 + 10;
            }
            sort_root(w->root_moves, 0, w->pv_index + 1);
        }
        if (atomic_load(&sh->stop))
            break;
        w->completed_depth = w->root_depth;
        if (w->id != 0)
            continue;
        report_pv(w, w->root_depth);

        /* A mate found within the depth needs no deeper search. */
        Value best_score = w->root_moves[0].score;
        if (sh->limits.depth == 0 && best_score >= VALUE_MATE_IN_MAX_PLY &&
            VALUE_MATE - best_score <= 2 * w->root_depth && !sh->limits.infinite)
            break;
        if (w->root_moves[0].move != last_best) {
            last_best = w->root_moves[0].move;
            last_best_change_ms = search_now_ms();
        }
        /* Time: stop when the optimum is spent, sooner when the best move is stable. When
         * the optimum is the maximum (byoyomi alone, movetime) nothing saved would carry
         * over, so the search goes on until the clock check stops it: an iteration cut
         * short still keeps every root move it finished. */
        bool spend_all = sh->budget.optimum_ms >= sh->budget.maximum_ms;
        if (!atomic_load(&sh->ponder) && !sh->limits.infinite && sh->budget.optimum_ms != INT64_MAX && !spend_all) {
            double elapsed = search_now_ms() - sh->start_ms;
            double stability = w->best_move_changes > 0 ? 1.0 + 0.3 * w->best_move_changes : 0.7;
            if (search_now_ms() - last_best_change_ms < elapsed / 4)
                stability += 0.2;
            double target = (double)sh->budget.optimum_ms * stability;
            if (target > (double)sh->budget.maximum_ms)
                target = (double)sh->budget.maximum_ms;
            /* The next iteration costs about as much as everything so far. */
            if (elapsed > target * 0.6)
                break;
        }
    }
    eval_stack_bind_thread(NULL);
}

void report_pv(Worker *w, int depth) {
    SharedSearch *sh = w->shared;
    if (!sh->reporter || !sh->reporter->info)
        return;
    uint64_t nodes = 0;
    for (int i = 0; i < sh->worker_count; i++)
        nodes += atomic_load_explicit(&sh->workers[i]->nodes, memory_order_relaxed);
    double elapsed = search_now_ms() - sh->start_ms;
    if (elapsed < 1)
        elapsed = 1;
    int multipv = sh->options.multipv < w->root_count ? sh->options.multipv : w->root_count;
    for (int i = 0; i < multipv; i++) {
        const RootMove *rm = &w->root_moves[i];
        bool updated = rm->score != -VALUE_INFINITE;
        if (!updated && depth == 1)
            continue;
        Value v = updated ? rm->uci_score : rm->previous_score;
        if (v == -VALUE_INFINITE)
            continue;
        SearchInfo in = search_info_empty();
        in.depth = updated ? depth : depth - 1;
        in.seldepth = rm->seldepth;
        search_info_set_value(&in, v);
        if (updated && i == w->pv_index && rm->lowerbound)
            in.bound = INFO_BOUND_LOWER;
        else if (updated && i == w->pv_index && rm->upperbound)
            in.bound = INFO_BOUND_UPPER;
        in.multipv = sh->options.multipv > 1 ? i + 1 : 0;
        in.nodes = nodes;
        in.nps = (int64_t)(nodes * 1000.0 / elapsed);
        in.hashfull = tt_hashfull(sh->tt);
        in.time_ms = (int64_t)elapsed;
        in.pv = rm->pv;
        in.pv_length = rm->pv_length;
        sh->reporter->info(sh->reporter->ctx, &in);
    }
}
