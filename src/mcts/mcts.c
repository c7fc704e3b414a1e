/* mcts.c - the MCTS searcher: threads, playouts, limits, reports (mcts.h). */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcts/mcts.h"
#include "search/root.h"
#include "shogi/notation.h"

enum { MCTS_MAX_DEPTH = 200 };

struct MctsSearch {
    MctsTree tree;
    size_t tree_mb; /* the size the tree was made with, 0 before the first search */
    /* the root of the tree: its game, to recognise the next position */
    char root_sfen[SFEN_MAX];
    Move *root_moves;
    int root_count;
    bool have_root;

    /* this search */
    Game game;
    SearchLimits limits;
    MctsOptions opt;
    MctsProvider provider;
    SearchReporter reporter;
    TimeBudget budget;
    double start_ms;
    atomic_bool stop, ponder;
    atomic_bool helpers_stop; /* the main thread is done with playouts (stop stays the user's) */
    _Atomic uint64_t playouts, evaluated;
    _Atomic int max_depth;
    MctsResult result;

    RootControl control; /* thread, stop/ponderhit/wait, holding the answer (search/root.h) */
};

void mcts_options_default(MctsOptions *o) {
    memset(o, 0, sizeof *o);
    mcts_params_default(&o->params);
    o->threads = 1;
    o->tree_mb = 64;
    o->reuse_tree = true;
    o->entering_king_rule = EKR_27;
    o->resign_value = 99999;
    SearchOptions so;
    search_options_default(&so);
    o->time = so.time;
    o->info_interval_ms = 1000;
}

MctsSearch *mcts_create(void) {
    MctsSearch *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    game_init(&m->game);
    root_control_init(&m->control, &m->stop, &m->ponder, &m->start_ms);
    return m;
}

void mcts_destroy(MctsSearch *m) {
    if (!m)
        return;
    mcts_stop(m);
    mcts_wait(m);
    mcts_tree_free(&m->tree);
    free(m->root_moves);
    game_free(&m->game);
    root_control_destroy(&m->control);
    free(m);
}

void mcts_clear(MctsSearch *m) {
    mcts_stop(m);
    mcts_wait(m);
    if (m->tree_mb)
        mcts_tree_clear(&m->tree);
    m->have_root = false;
}

MctsTree *mcts_tree(MctsSearch *m) { return &m->tree; }

/* ---- one position's expansion ---- */

typedef struct {
    MctsSearch *m;
    MctsEvaluator *eval;
    Game game;
    StateInfo states[MCTS_MAX_DEPTH + 1];
    Move moves[MAX_MOVES];
    float priors[MAX_MOVES];
} Thread;

/* A proof from the rules alone (repetition, declaration, move limit, mate in one, no
 * move), or MCTS_UNPROVEN. Not used at the root, whose history is the game's. */
static int rule_proof(const MctsSearch *m, Position *pos, int nmoves) {
    TreeRule rule = position_tree_rule(pos, m->opt.entering_king_rule, m->opt.max_moves_to_draw);
    switch (rule) {
    case TREE_RULE_REPETITION: return MCTS_PROVEN_DRAW;
    case TREE_RULE_PERPETUAL_WIN: return MCTS_PROVEN_WIN;
    case TREE_RULE_PERPETUAL_LOSS: return MCTS_PROVEN_LOSS;
    default: break;
    }
    if (nmoves == 0)
        return MCTS_PROVEN_LOSS;
    if (rule == TREE_RULE_DECLARATION)
        return MCTS_PROVEN_WIN;
    if (rule == TREE_RULE_MOVE_LIMIT)
        return MCTS_PROVEN_DRAW;
    if (!position_in_check(pos) && position_mate_in_one(pos) != MOVE_NONE)
        return MCTS_PROVEN_WIN;
    return MCTS_UNPROVEN;
}

static double proof_value(const MctsSearch *m, int proof) {
    return proof == MCTS_PROVEN_WIN ? 1.0 : proof == MCTS_PROVEN_LOSS ? 0.0 : m->opt.params.draw_value;
}

/* The legal moves of pos (the root's restricted to searchmoves). */
static int legal_moves(const MctsSearch *m, const Position *pos, bool root, Move *out) {
    ExtMove list[MAX_MOVES];
    int n = generate_moves(pos, GEN_LEGAL, list), k = 0;
    for (int i = 0; i < n; i++) {
        bool wanted = !root || m->limits.searchmoves_count == 0;
        for (int j = 0; j < m->limits.searchmoves_count && !wanted; j++)
            wanted = m->limits.searchmoves[j] == (Move16)list[i].move;
        if (wanted)
            out[k++] = list[i].move;
    }
    return k;
}

/* Expands node id for th's current position; returns its value (side to move's view). */
static double expand(Thread *th, uint32_t id, bool root) {
    MctsSearch *m = th->m;
    MctsTree *t = &m->tree;
    Position *pos = &th->game.pos;
    int n = legal_moves(m, pos, root, th->moves);
    int proof = root ? (n == 0 ? MCTS_PROVEN_LOSS : MCTS_UNPROVEN) : rule_proof(m, pos, n);
    if (proof != MCTS_UNPROVEN) {
        mcts_node_set_terminal(t, id, proof, (float)proof_value(m, proof));
        return proof_value(m, proof);
    }
    double v = th->eval->evaluate(th->eval, pos, th->moves, n, th->priors);
    atomic_fetch_add_explicit(&m->evaluated, 1, memory_order_relaxed);
    if (!mcts_node_expand(t, id, th->moves, th->priors, n, (float)v))
        atomic_store(&t->nodes[id].state, MCTS_NODE_NEW); /* full: evaluated, not stored */
    return v;
}

/* One playout from the root: select, expand, back up. */
static void playout(Thread *th) {
    MctsSearch *m = th->m;
    MctsTree *t = &m->tree;
    const MctsParams *p = &m->opt.params;
    Position *pos = &th->game.pos;
    uint32_t nodes[MCTS_MAX_DEPTH + 1];
    int edges[MCTS_MAX_DEPTH];
    int len = 0;
    uint32_t id = t->root;
    double value;
    nodes[0] = id;
    for (;;) {
        MctsNode *node = &t->nodes[id];
        int proof = atomic_load(&node->proven);
        if (proof != MCTS_UNPROVEN && len > 0) {
            value = proof_value(m, proof);
            break;
        }
        uint8_t state = atomic_load_explicit(&node->state, memory_order_acquire);
        if (state != MCTS_NODE_READY) {
            uint8_t expected = MCTS_NODE_NEW;
            if (state == MCTS_NODE_NEW && atomic_compare_exchange_strong(&node->state, &expected, MCTS_NODE_BUSY)) {
                value = expand(th, id, len == 0);
                break;
            }
            /* another thread is expanding it: wait for its edges */
            while ((state = atomic_load_explicit(&node->state, memory_order_acquire)) == MCTS_NODE_BUSY)
                sched_yield();
            if (state != MCTS_NODE_READY) {
                value = node->value;
                break;
            }
            continue;
        }
        if (len >= MCTS_MAX_DEPTH) {
            value = node->value;
            break;
        }
        int e = mcts_select(t, id, len == 0, p);
        if (e < 0) {
            value = 0.0; /* every move loses */
            break;
        }
        mcts_add_virtual_loss(t, id, e, p);
        MctsEdge *edge = &mcts_edges(t, node)[e];
        edges[len] = e;
        position_do_move(pos, edge->move, &th->states[len]);
        uint32_t child = mcts_edge_child(t, edge);
        len++;
        if (child == MCTS_NULL) {
            /* the store is full: evaluate the position without keeping a node */
            int n = legal_moves(m, pos, false, th->moves);
            int pr = rule_proof(m, pos, n);
            value =
                pr != MCTS_UNPROVEN ? proof_value(m, pr) : th->eval->evaluate(th->eval, pos, th->moves, n, th->priors);
            nodes[len] = MCTS_NULL;
            break;
        }
        nodes[len] = child;
        id = child;
    }
    mcts_backup(t, nodes, edges, len, value, p);
    for (int i = len - 1; i >= 0; i--)
        position_undo_move(pos, mcts_edges(t, &t->nodes[nodes[i]])[edges[i]].move);
    if (len > atomic_load_explicit(&m->max_depth, memory_order_relaxed))
        atomic_store_explicit(&m->max_depth, len, memory_order_relaxed);
    atomic_fetch_add_explicit(&m->playouts, 1, memory_order_relaxed);
}

/* ---- limits and reports ---- */

/* True when the search should end now (checked by the main thread between playouts). */
static bool limits_reached(MctsSearch *m) {
    MctsTree *t = &m->tree;
    if (atomic_load(&m->stop) || (m->opt.external_stop && *m->opt.external_stop))
        return true;
    if (mcts_tree_full(t) || atomic_load(&t->nodes[t->root].proven) != MCTS_UNPROVEN)
        return true;
    if (m->limits.nodes && atomic_load(&m->playouts) >= m->limits.nodes)
        return true;
    if (m->limits.depth && atomic_load(&m->max_depth) >= m->limits.depth)
        return true;
    if (atomic_load(&m->ponder) || m->limits.infinite)
        return false;
    double elapsed = clock_now_ms() - m->start_ms;
    return elapsed >= (double)m->budget.optimum_ms || elapsed >= (double)m->budget.maximum_ms;
}

/* The most visited line from the root: moves into pv (at most max); returns its length. */
static int principal_variation(MctsTree *t, Move *pv, int max) {
    int len = 0;
    uint32_t id = t->root;
    while (id != MCTS_NULL && len < max) {
        int e = mcts_best_edge(t, id);
        if (e < 0)
            break;
        MctsEdge *edge = &mcts_edges(t, &t->nodes[id])[e];
        if (atomic_load(&edge->visits) == 0 && len > 0)
            break;
        pv[len++] = edge->move;
        id = atomic_load(&edge->child);
        if (id != MCTS_NULL && atomic_load(&t->nodes[id].state) != MCTS_NODE_READY)
            break;
    }
    return len;
}

/* The score shown for the best edge: its win rate as centipawns, or the proof. */
static int shown_score(MctsTree *t, const MctsEdge *e) {
    uint32_t c = atomic_load(&((MctsEdge *)e)->child);
    int proof = c == MCTS_NULL ? MCTS_UNPROVEN : atomic_load(&t->nodes[c].proven);
    if (proof == MCTS_PROVEN_LOSS)
        return 30000;
    if (proof == MCTS_PROVEN_WIN)
        return -30000;
    if (proof == MCTS_PROVEN_DRAW)
        return 0;
    return value_to_score(mcts_edge_q(e));
}

static void report_info(MctsSearch *m) {
    if (!m->reporter.info)
        return;
    MctsTree *t = &m->tree;
    int e = mcts_best_edge(t, t->root);
    if (e < 0)
        return;
    MctsEdge *best = &mcts_edges(t, &t->nodes[t->root])[e];
    Move pv[MAX_PLY];
    int len = principal_variation(t, pv, MAX_PLY);
    int64_t ms = (int64_t)(clock_now_ms() - m->start_ms);
    uint64_t n = atomic_load(&m->playouts);
    uint64_t hashfull = (uint64_t)atomic_load(&t->node_used) * 1000 / t->node_cap;
    SearchInfo in = search_info_empty();
    in.depth = len;
    in.seldepth = atomic_load(&m->max_depth);
    in.score_kind = INFO_SCORE_CP; /* a winrate shown as centipawns, never a mate */
    in.score = shown_score(t, best);
    in.nodes = n;
    in.nps = (int64_t)(ms > 0 ? n * 1000 / (uint64_t)ms : n);
    in.time_ms = ms;
    in.hashfull = (int)(hashfull > 1000 ? 1000 : hashfull);
    in.pv = pv;
    in.pv_length = len;
    m->reporter.info(m->reporter.ctx, &in);
    char text[128];
    snprintf(text, sizeof text, "mcts visits %u winrate %.4f", (unsigned)atomic_load(&best->visits), mcts_edge_q(best));
    SearchInfo msg = search_info_text(text);
    m->reporter.info(m->reporter.ctx, &msg);
}

/* ---- threads ---- */

static bool thread_init(Thread *th, MctsSearch *m) {
    th->m = m;
    th->eval = m->provider.new_evaluator(m->provider.ctx);
    if (!th->eval)
        return false;
    if (!game_copy(&th->game, &m->game)) {
        th->eval->destroy(th->eval);
        th->eval = NULL;
        return false;
    }
    return true;
}

static void thread_free(Thread *th) {
    if (!th->eval)
        return;
    th->eval->destroy(th->eval);
    game_free(&th->game);
}

static void *helper_main(void *arg) {
    Thread *th = arg;
    while (!atomic_load_explicit(&th->m->stop, memory_order_relaxed) &&
           !atomic_load_explicit(&th->m->helpers_stop, memory_order_relaxed) && !mcts_tree_full(&th->m->tree))
        playout(th);
    return NULL;
}

/* Prepares the tree for m->game: reuses the subtree of the new position when it follows
 * the previous root, else starts afresh. */
static bool prepare_tree(MctsSearch *m) {
    if (m->tree_mb != m->opt.tree_mb || !m->tree.nodes) {
        mcts_tree_free(&m->tree);
        m->tree_mb = 0;
        if (!mcts_tree_init(&m->tree, m->opt.tree_mb))
            return false;
        m->tree_mb = m->opt.tree_mb;
        m->have_root = false;
    }
    const Game *g = &m->game;
    bool follows = m->have_root && m->opt.reuse_tree && m->limits.searchmoves_count == 0 &&
                   strcmp(m->root_sfen, g->root_sfen) == 0 && g->count >= m->root_count &&
                   (m->root_count == 0 || memcmp(m->root_moves, g->moves, sizeof(Move) * (size_t)m->root_count) == 0);
    if (follows)
        mcts_tree_reroot(&m->tree, g->moves + m->root_count, g->count - m->root_count);
    else
        mcts_tree_clear(&m->tree);
    MctsNode *root = mcts_node(&m->tree, m->tree.root);
    if (mcts_tree_full(&m->tree) || (atomic_load(&root->state) == MCTS_NODE_READY &&
                                     (root->edge_count == 0 || atomic_load(&root->proven) != MCTS_UNPROVEN)))
        mcts_tree_clear(&m->tree); /* a full tree cannot grow; a node proven by the rules has no edges */
    Move *moves = realloc(m->root_moves, sizeof(Move) * (size_t)(g->count + 1));
    if (!moves)
        return false;
    m->root_moves = moves;
    memcpy(moves, g->moves, sizeof(Move) * (size_t)g->count);
    m->root_count = g->count;
    snprintf(m->root_sfen, sizeof m->root_sfen, "%s", g->root_sfen);
    m->have_root = !(m->limits.searchmoves_count > 0);
    return true;
}

/* The whole search, on the main search thread. */
static void run_search(MctsSearch *m) {
    MctsResult *res = &m->result;
    memset(res, 0, sizeof *res);
    Position *pos = &m->game.pos;
    /* The rules first (search/root.h, as alpha-beta): a declaration, or no legal move. */
    Move rule_answer = root_rule_answer(pos, m->opt.entering_king_rule, position_has_legal_move(pos) ? 1 : 0);
    int nthreads = m->opt.threads < 1 ? 1 : m->opt.threads > MAX_THREADS ? MAX_THREADS : m->opt.threads;
    Thread *th = calloc((size_t)nthreads, sizeof *th);
    int ready = 0;
    if (rule_answer != MOVE_NONE) {
        res->best = rule_answer;
        res->root_proof = rule_answer == MOVE_RESIGN ? MCTS_PROVEN_LOSS : MCTS_PROVEN_WIN;
    } else if (!th || !prepare_tree(m) || !thread_init(&th[0], m)) {
        if (m->reporter.info) {
            SearchInfo msg = search_info_text("mcts: out of memory, search not started");
            m->reporter.info(m->reporter.ctx, &msg);
        }
        res->best = MOVE_RESIGN;
    } else {
        ready = 1;
        MctsTree *t = &m->tree;
        Move mate = position_mate_in_one(pos);
        if (atomic_load(&t->nodes[t->root].state) != MCTS_NODE_READY) {
            atomic_store(&t->nodes[t->root].state, MCTS_NODE_BUSY);
            expand(&th[0], t->root, true);
        }
        bool forced =
            root_forced_move((int)t->nodes[t->root].edge_count, &m->limits, &m->budget, atomic_load(&m->ponder));
        if (mate != MOVE_NONE && m->limits.searchmoves_count == 0) {
            res->best = mate;
            res->root_proof = MCTS_PROVEN_WIN;
        } else if (forced || atomic_load(&t->nodes[t->root].state) != MCTS_NODE_READY) {
            res->best = t->nodes[t->root].edge_count ? mcts_edges(t, &t->nodes[t->root])[0].move : MOVE_RESIGN;
        } else {
            pthread_t helpers[MAX_THREADS];
            int started = 0;
            for (int i = 1; i < nthreads; i++)
                if (thread_init(&th[i], m)) {
                    ready = i + 1;
                    if (pthread_create(&helpers[started], NULL, helper_main, &th[i]) == 0)
                        started++;
                }
            double next_info = clock_now_ms() + m->opt.info_interval_ms;
            while (!limits_reached(m)) {
                playout(&th[0]);
                if (m->opt.info_interval_ms > 0 && clock_now_ms() >= next_info) {
                    report_info(m);
                    next_info = clock_now_ms() + m->opt.info_interval_ms;
                }
            }
            /* In ponder or infinite mode the answer waits for stop or ponderhit; the
             * helpers stop at once (a full or proven tree has nothing left to do). */
            atomic_store(&m->helpers_stop, true);
            for (int i = 0; i < started; i++)
                pthread_join(helpers[i], NULL);
            root_control_hold(&m->control);
            report_info(m);
            int e = mcts_best_edge(t, t->root);
            MctsNode *root = &t->nodes[t->root];
            res->root_proof = atomic_load(&root->proven);
            if (e >= 0) {
                MctsEdge *edge = &mcts_edges(t, root)[e];
                res->best = edge->move;
                res->visits = atomic_load(&edge->visits);
                res->winrate = mcts_edge_q(edge);
                uint32_t c = atomic_load(&edge->child);
                int pe = c != MCTS_NULL ? mcts_best_edge(t, c) : -1;
                res->ponder = pe >= 0 ? mcts_edges(t, &t->nodes[c])[pe].move : MOVE_NONE;
                int score = shown_score(t, edge);
                if (res->root_proof == MCTS_PROVEN_LOSS || root_should_resign(score, m->opt.resign_value))
                    res->best = MOVE_RESIGN, res->ponder = MOVE_NONE;
            } else
                res->best = MOVE_RESIGN;
        }
    }
    root_control_hold(&m->control);
    for (int i = 0; i < ready; i++) {
        res->evaluated += th[i].eval ? th[i].eval->nodes : 0;
        thread_free(&th[i]);
    }
    free(th);
    res->playouts = atomic_load(&m->playouts);
    res->time_ms = (int64_t)(clock_now_ms() - m->start_ms);
    if (m->reporter.bestmove)
        m->reporter.bestmove(m->reporter.ctx, res->best, res->ponder);
}

static void *main_thread(void *arg) {
    run_search(arg);
    return NULL;
}

static bool prepare(MctsSearch *m, const Game *g, const SearchLimits *limits, const MctsOptions *o, MctsProvider p,
                    const SearchReporter *reporter) {
    mcts_stop(m);
    mcts_wait(m);
    game_free(&m->game);
    if (!game_copy(&m->game, g)) {
        game_init(&m->game);
        return false;
    }
    m->limits = *limits;
    m->opt = *o;
    m->provider = p;
    if (reporter)
        m->reporter = *reporter;
    else
        memset(&m->reporter, 0, sizeof m->reporter);
    Color us = g->pos.side;
    TimeControl tc = {
        limits->time[us], limits->inc[us], limits->byoyomi, limits->movetime, g->pos.ply, limits->timed, 0, 0};
    m->budget = timeman_budget(&tc, &o->time);
    atomic_store(&m->playouts, 0);
    atomic_store(&m->evaluated, 0);
    atomic_store(&m->max_depth, 0);
    atomic_store(&m->helpers_stop, false);
    root_control_arm(&m->control, limits); /* stop, ponder, the clock from go (as alpha-beta) */
    return true;
}

void mcts_go(MctsSearch *m, const Game *g, const SearchLimits *limits, const MctsOptions *o, MctsProvider p,
             const SearchReporter *reporter) {
    if (!prepare(m, g, limits, o, p, reporter)) {
        if (reporter && reporter->bestmove)
            reporter->bestmove(reporter->ctx, MOVE_RESIGN, MOVE_NONE);
        return;
    }
    root_control_start(&m->control, main_thread, m);
}

MctsResult mcts_run(MctsSearch *m, const Game *g, const SearchLimits *limits, const MctsOptions *o, MctsProvider p,
                    const SearchReporter *reporter) {
    SearchLimits l = *limits;
    l.ponder = false;
    l.infinite = false;
    MctsResult none;
    memset(&none, 0, sizeof none);
    if (!prepare(m, g, &l, o, p, reporter))
        return none;
    run_search(m);
    return m->result;
}

void mcts_stop(MctsSearch *m) { root_control_stop(&m->control); }

void mcts_ponderhit(MctsSearch *m) { root_control_ponderhit(&m->control); }

void mcts_wait(MctsSearch *m) { root_control_wait(&m->control); }

bool mcts_is_running(MctsSearch *m) { return root_control_running(&m->control); }
