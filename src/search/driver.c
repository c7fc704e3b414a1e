/* driver.c - the Search object: threads, limits, the root move list, ponder and stop
 * handling, and the single bestmove report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval.h"
#include "search/dfpn.h"
#include "search/root.h"
#include "search/see.h"
#include "search/watchdog.h"
#include "search/worker.h"
#include "shogi/notation.h"

struct Search {
    TranspositionTable tt;
    SharedSearch shared;
    Worker *workers[MAX_THREADS];
    int worker_count;     /* workers allocated (their histories persist) */
    RootControl control;  /* thread, stop/ponderhit/wait, holding the answer (search/root.h) */
    atomic_bool finished; /* the search thread has given its answer (joining it is immediate) */
    SearchReporter reporter;
    SearchResult result;
    DfpnSolver *root_mate; /* a small df-pn solver tried at the root, made on first use */
    bool dirty;            /* a search has run since the last clear */
    int64_t lag_ms;        /* how late recent replies came after the hard limit (timeman_update_lag) */
    /* The reply of last resort (watchdog.h): armed for a timed search, it answers from the
     * snapshot of the last completed iteration when the search thread is late. */
    Watchdog watchdog;
    atomic_bool answered;   /* the bestmove of this search has been given (by either thread) */
    int64_t answer_ms;      /* when it was given, from the search's start (written by whoever gave it) */
    SearchReporter wrapped; /* the reporter the workers see: its info takes the snapshot */
    pthread_mutex_t snap_lock;
    struct {
        Move best, ponder, pv[MAX_PLY + 1];
        Value score;
        int depth, seldepth, pv_len;
        InfoBound bound;
    } snap;
};

void search_options_default(SearchOptions *o) {
    memset(o, 0, sizeof *o);
    o->multipv = 1;
    o->threads = 1;
    o->entering_king_rule = EKR_27;
    o->max_moves_to_draw = 0;
    o->resign_value = 99999;
    o->time.minimum_thinking_ms = 1000;
    o->time.network_delay_ms = 120;
    o->time.network_delay2_ms = 1120;
    o->time.slow_mover = 100;
}

Search *search_create(size_t hash_mb) {
    Search *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (!tt_resize(&s->tt, hash_mb)) {
        free(s);
        return NULL;
    }
    root_control_init(&s->control, &s->shared.stop, &s->shared.ponder, &s->shared.start_ms);
    pthread_mutex_init(&s->snap_lock, NULL);
    watchdog_init(&s->watchdog);
    return s;
}

static void free_workers(Search *s) {
    for (int i = 0; i < s->worker_count; i++) {
        game_free(&s->workers[i]->game);
        free(s->workers[i]->history);
        eval_stack_free(s->workers[i]->estack);
        free(s->workers[i]);
        s->workers[i] = NULL;
    }
    s->worker_count = 0;
}

void search_destroy(Search *s) {
    if (!s)
        return;
    search_stop(s);
    search_wait(s);
    free_workers(s);
    tt_free(&s->tt);
    dfpn_destroy(s->root_mate);
    watchdog_destroy(&s->watchdog);
    pthread_mutex_destroy(&s->snap_lock);
    root_control_destroy(&s->control);
    free(s);
}

bool search_set_hash(Search *s, size_t mb) {
    search_stop(s);
    search_wait(s);
    return tt_resize(&s->tt, mb);
}

void search_clear(Search *s) {
    search_stop(s);
    search_wait(s);
    if (!s->dirty)
        return; /* already clean: usinewgame after gameover or isready costs nothing */
    s->dirty = false;
    tt_clear(&s->tt);
    for (int i = 0; i < s->worker_count; i++)
        history_clear(s->workers[i]->history);
}

/* Makes sure n workers exist; returns how many do (fewer when memory runs out). */
static int ensure_workers(Search *s, int n) {
    while (s->worker_count < n) {
        Worker *w = calloc(1, sizeof *w);
        History *h = w ? calloc(1, sizeof *h) : NULL;
        if (!w || !h) {
            free(w);
            free(h);
            break;
        }
        w->history = h;
        w->estack = eval_stack_new();
        w->id = s->worker_count;
        game_init(&w->game);
        s->workers[s->worker_count++] = w;
    }
    return s->worker_count < n ? s->worker_count : n;
}

static void *helper_main(void *arg) {
    worker_iterate(arg);
    return NULL;
}

/* Builds the root move list: legal moves, restricted to searchmoves when given. */
static int root_moves_init(Worker *w, const SearchLimits *limits) {
    ExtMove list[MAX_MOVES];
    int n = generate_moves(&w->game.pos, GEN_LEGAL, list), count = 0;
    for (int i = 0; i < n; i++) {
        bool wanted = limits->searchmoves_count == 0;
        for (int k = 0; k < limits->searchmoves_count && !wanted; k++)
            wanted = limits->searchmoves[k] == (Move16)list[i].move;
        if (!wanted)
            continue;
        RootMove *rm = &w->root_moves[count++];
        memset(rm, 0, sizeof *rm);
        rm->move = list[i].move;
        rm->score = rm->previous_score = rm->uci_score = -VALUE_INFINITE;
        rm->pv[0] = rm->move;
        rm->pv_length = 1;
    }
    w->root_count = count;
    return count;
}

/* The ponder move: the second move of the PV, or failing that the hash move after
 * best, if legal. */
static Move ponder_move(Search *s, Worker *w, const RootMove *rm) {
    if (rm->pv_length >= 2)
        return rm->pv[1];
    StateInfo st;
    Position *pos = &w->game.pos;
    position_do_move(pos, rm->move, &st);
    bool found;
    TTEntry *e = tt_probe(&s->tt, position_key(pos), &found);
    Move p = found && e->move16 ? position_legal_move_from16(pos, e->move16) : MOVE_NONE;
    position_undo_move(pos, rm->move);
    return p;
}

enum { ROOT_MATE_NODES = 5000, ROOT_MATE_TABLE_MB = 2 };

/* A few thousand df-pn nodes at the root find the mates that the pruned alpha-beta
 * search tends to miss (sacrifices of pieces dropped with check). On success fills *res
 * and reports the mating line. */
static bool try_root_mate(Search *s, Worker *main, SearchResult *res, Move *pv, int *pv_len) {
    if (!s->root_mate && !(s->root_mate = dfpn_create(ROOT_MATE_TABLE_MB)))
        return false;
    int len = 0;
    uint64_t nodes = 0;
    /* On a clock, a quarter of the hard limit at most: on a loaded machine 5000 nodes can
     * take longer than a short byoyomi. */
    int64_t max_ms = s->shared.budget.maximum_ms;
    /* and under a node limit no more than the limit: a mate it finds is the whole search */
    uint64_t cap =
        s->shared.limits.nodes && s->shared.limits.nodes < ROOT_MATE_NODES ? s->shared.limits.nodes : ROOT_MATE_NODES;
    DfpnLimits lim = {cap, max_ms == INT64_MAX ? 0 : max_ms / 4 + 1, &s->shared.stop};
    if (dfpn_solve(s->root_mate, &main->game.pos, &lim, pv, MAX_PLY, &len, &nodes) != DFPN_MATE)
        return false;
    res->best = pv[0];
    res->ponder = len > 1 ? pv[1] : MOVE_NONE;
    res->score = mate_in(len);
    res->depth = len;
    *pv_len = len;
    atomic_store(&main->nodes, nodes);
    if (s->reporter.info) {
        SearchInfo in = search_info_empty();
        in.depth = len;
        search_info_set_value(&in, mate_in(len));
        in.nodes = nodes;
        in.pv = pv;
        in.pv_length = len;
        s->reporter.info(s->reporter.ctx, &in);
    }
    return true;
}

/* The closing info line, written just before every bestmove (also when a time or node
 * limit cut the search short): depth, seldepth, score, nodes, time and nps of the whole
 * search and the line played. */
static void report_final(Search *s, const SearchResult *res, Value score, InfoBound bound, const Move *pv, int pv_len,
                         int seldepth) {
    if (!s->reporter.info)
        return;
    int64_t ms = res->time_ms > 0 ? res->time_ms : 0;
    SearchInfo in = search_info_empty();
    in.depth = res->depth;
    in.seldepth = seldepth > res->depth ? seldepth : res->depth;
    search_info_set_value(&in, score == VALUE_NONE || score == -VALUE_INFINITE ? 0 : score);
    in.bound = bound;
    in.multipv = s->shared.options.multipv > 1 ? 1 : 0;
    in.nodes = res->nodes;
    in.nps = (int64_t)(res->nodes * 1000 / (uint64_t)(ms > 0 ? ms : 1));
    in.hashfull = tt_hashfull(&s->tt);
    in.time_ms = ms;
    /* The line played: the best move, then the rest of pv when it starts with it. */
    Move line[MAX_PLY + 1];
    int n = 0;
    if (move_is_ok(res->best)) {
        line[n++] = res->best;
        for (int k = 1; k < pv_len && pv[0] == res->best && n < MAX_PLY + 1; k++)
            line[n++] = pv[k];
        in.pv = line;
        in.pv_length = n;
    }
    s->reporter.info(s->reporter.ctx, &in);
}

/* The watchdog's answer until an iteration completes: the capture of the most valuable
 * piece that does not lose the exchange (SEE), else the first legal move. A first search
 * in a new process can take longer than a zero-time budget to finish depth 1; the
 * generation order's first move then left a horse en prise (1c1d after 8h2b+). */
static Move fallback_move(const Worker *w) {
    const Position *pos = &w->game.pos;
    Move best = w->root_count > 0 ? w->root_moves[0].move : MOVE_NONE;
    int best_gain = 0;
    for (int i = 0; i < w->root_count; i++) {
        Move m = w->root_moves[i].move;
        if (!position_is_capture(pos, m))
            continue;
        int gain = CAPTURE_VALUE[piece_type(pos->board[move_to(m)])];
        if (gain > best_gain && see_ge(pos, m, 0)) {
            best = m;
            best_gain = gain;
        }
    }
    return best;
}

/* Records the main worker's best root move for the watchdog. Runs on the main search
 * thread (the only one that reports), so root_moves is read where it is written. */
static void take_snapshot(Search *s) {
    const Worker *main = s->workers[0];
    const RootMove *rm = &main->root_moves[0];
    pthread_mutex_lock(&s->snap_lock);
    bool updated = rm->score != -VALUE_INFINITE;
    s->snap.best = rm->move;
    s->snap.pv_len = rm->pv_length;
    memcpy(s->snap.pv, rm->pv, sizeof(Move) * (size_t)rm->pv_length);
    s->snap.ponder = rm->pv_length >= 2 ? rm->pv[1] : MOVE_NONE;
    s->snap.score = updated ? rm->uci_score : rm->previous_score;
    s->snap.bound = updated && rm->lowerbound   ? INFO_BOUND_LOWER
                    : updated && rm->upperbound ? INFO_BOUND_UPPER
                                                : INFO_BOUND_EXACT;
    s->snap.depth = main->completed_depth;
    s->snap.seldepth = rm->seldepth;
    pthread_mutex_unlock(&s->snap_lock);
}

/* The workers' info reporter: a PV report of the main worker refreshes the snapshot. */
static void wrapped_info(void *ctx, const SearchInfo *in) {
    Search *s = ctx;
    if (!in->text && in->pv && in->pv_length > 0)
        take_snapshot(s);
    if (s->reporter.info)
        s->reporter.info(s->reporter.ctx, in);
}

/* The watchdog fired: unless the search has answered meanwhile, answer from the snapshot
 * (with its closing info line) and tell the search to stop. */
static void watchdog_fire(void *ctx) {
    Search *s = ctx;
    if (atomic_exchange(&s->answered, true))
        return;
    atomic_store(&s->shared.stop, true);
    pthread_mutex_lock(&s->snap_lock);
    SearchResult r = {s->snap.best,  s->snap.ponder,  s->snap.score,
                      s->snap.depth, search_nodes(s), (int64_t)(search_now_ms() - s->shared.start_ms)};
    report_final(s, &r, r.score, s->snap.bound, s->snap.pv, s->snap.pv_len, s->snap.seldepth);
    if (s->reporter.bestmove)
        s->reporter.bestmove(s->reporter.ctx, r.best, r.ponder);
    s->answer_ms = r.time_ms; /* read by the main thread after it has joined this one */
    pthread_mutex_unlock(&s->snap_lock);
}

/* The whole search, run on the main search thread. */
static void run_search(Search *s) {
    SharedSearch *sh = &s->shared;
    Worker *main = s->workers[0];
    Position *pos = &main->game.pos;
    SearchResult *res = &s->result;
    memset(res, 0, sizeof *res);
    res->best = MOVE_NONE;
    Move pv[MAX_PLY + 1];
    int pv_len = 0, seldepth = 0;
    InfoBound bound = INFO_BOUND_EXACT; /* the closing line's score is a bound when an iteration was cut short */
    Value shown = VALUE_NONE;

    int count = root_moves_init(main, &sh->limits);
    /* The root rules both searchers share (search/root.h). */
    Move rule_answer = root_rule_answer(pos, sh->options.entering_king_rule, count);
    if (rule_answer != MOVE_NONE) {
        res->best = rule_answer; /* MOVE_WIN, the Try rule's king move, or MOVE_RESIGN */
        res->score = rule_answer == MOVE_RESIGN ? mated_in(0) : mate_in(1);
    } else if (root_forced_move(count, &sh->limits, &sh->budget, atomic_load(&sh->ponder))) {
        res->best = main->root_moves[0].move; /* only one legal move: answer at once */
    } else if (!sh->limits.infinite && sh->limits.searchmoves_count == 0 && try_root_mate(s, main, res, pv, &pv_len)) {
        /* mated by df-pn: nothing more to search */
    } else {
        tt_new_search(&s->tt);
        for (int i = 1; i < sh->worker_count; i++) {
            Worker *w = s->workers[i];
            memcpy(w->root_moves, main->root_moves, sizeof(RootMove) * (size_t)count);
            w->root_count = count;
        }
        pthread_t helpers[MAX_THREADS];
        int started = 0;
        for (int i = 1; i < sh->worker_count; i++)
            if (pthread_create(&helpers[started], NULL, helper_main, s->workers[i]) == 0)
                started++;
        worker_iterate(main);
        /* In ponder or infinite mode the answer waits for stop or ponderhit. */
        root_control_hold(&s->control);
        atomic_store(&sh->stop, true);
        for (int i = 0; i < started; i++)
            pthread_join(helpers[i], NULL);
        RootMove *rm = &main->root_moves[0];
        res->best = rm->move;
        res->score = rm->score != -VALUE_INFINITE ? rm->score : rm->previous_score;
        res->ponder = ponder_move(s, main, rm);
        res->depth = main->completed_depth;
        pv_len = rm->pv_length;
        memcpy(pv, rm->pv, sizeof(Move) * (size_t)pv_len);
        seldepth = rm->seldepth;
        bool updated = rm->score != -VALUE_INFINITE; /* searched again in the last, perhaps cut, iteration */
        shown = updated ? rm->uci_score : rm->previous_score;
        bound = updated && rm->lowerbound   ? INFO_BOUND_LOWER
                : updated && rm->upperbound ? INFO_BOUND_UPPER
                                            : INFO_BOUND_EXACT;
        /* A bound from a cut iteration on the move already reported as best: the closing
         * line repeats that report's exact score and PV (tools read the last line). */
        pthread_mutex_lock(&s->snap_lock);
        if (bound != INFO_BOUND_EXACT && s->snap.best == rm->move && s->snap.pv_len > 0 &&
            s->snap.bound == INFO_BOUND_EXACT && s->snap.score != VALUE_NONE && s->snap.score != -VALUE_INFINITE) {
            shown = s->snap.score;
            bound = INFO_BOUND_EXACT;
            pv_len = s->snap.pv_len;
            memcpy(pv, s->snap.pv, sizeof(Move) * (size_t)pv_len);
            seldepth = s->snap.seldepth;
        }
        pthread_mutex_unlock(&s->snap_lock);
        if (res->score != -VALUE_INFINITE && root_should_resign(res->score, sh->options.resign_value))
            res->best = MOVE_RESIGN, res->ponder = MOVE_NONE;
    }
    /* Held answers (declarations, resignations, forced moves) also wait in ponder mode. */
    root_control_hold(&s->control);
    for (int i = 0; i < sh->worker_count; i++)
        res->nodes += atomic_load(&s->workers[i]->nodes);
    res->time_ms = (int64_t)(search_now_ms() - sh->start_ms);
    if (!atomic_exchange(&s->answered, true)) {
        report_final(s, res, shown == VALUE_NONE ? res->score : shown, bound, pv, pv_len, seldepth);
        if (s->reporter.bestmove)
            s->reporter.bestmove(s->reporter.ctx, res->best, res->ponder);
        s->answer_ms = res->time_ms;
    }
    watchdog_cancel(&s->watchdog); /* joined: answer_ms is final */
    /* How late the answer came after the hard limit widens the next margins (load). */
    if (!sh->limits.ponder && !sh->limits.infinite && sh->budget.maximum_ms != INT64_MAX)
        s->lag_ms = timeman_update_lag(s->lag_ms, s->answer_ms - sh->budget.maximum_ms);
}

/* go mate: df-pn on the main search thread, stoppable like a search. */
static void run_mate(Search *s) {
    SharedSearch *sh = &s->shared;
    Worker *main = s->workers[0];
    size_t mb = s->tt.cluster_count * sizeof(TTCluster) / (1024 * 1024) / 2;
    DfpnSolver *solver = dfpn_create(mb < 16 ? 16 : mb > 1024 ? 1024 : mb);
    Move pv[MAX_PLY];
    int len = 0, status = 2;
    if (solver) {
        DfpnLimits lim = {0, sh->limits.mate_ms, &sh->stop};
        uint64_t nodes = 0;
        DfpnStatus r = dfpn_solve(solver, &main->game.pos, &lim, pv, MAX_PLY, &len, &nodes);
        atomic_store(&main->nodes, nodes);
        status = r == DFPN_MATE ? 0 : r == DFPN_NO_MATE ? 1 : 2;
        dfpn_destroy(solver);
    }
    if (status == 2 && sh->limits.mate_ms == 0) {
        /* go mate infinite answers only when stopped. */
        root_control_hold_until_stop(&s->control);
    }
    if (s->reporter.checkmate)
        s->reporter.checkmate(s->reporter.ctx, pv, len, status);
}

static void *main_thread(void *arg) {
    Search *s = arg;
    if (s->shared.limits.mate)
        run_mate(s);
    else
        run_search(s);
    atomic_store(&s->finished, true);
    return NULL;
}

static bool prepare(Search *s, const Game *g, const SearchLimits *limits, const SearchOptions *opt,
                    const SearchReporter *reporter) {
    search_stop(s);
    search_wait(s);
    SharedSearch *sh = &s->shared;
    int threads = opt->threads < 1 ? 1 : opt->threads > MAX_THREADS ? MAX_THREADS : opt->threads;
    threads = ensure_workers(s, threads);
    if (threads < 1)
        return false;
    for (int i = 0; i < threads; i++) {
        Worker *w = s->workers[i];
        game_free(&w->game);
        if (!game_copy(&w->game, g)) {
            game_init(&w->game);
            return false;
        }
        w->shared = sh;
        atomic_store(&w->nodes, 0);
        w->completed_depth = 0;
        w->best_move_changes = 0;
        w->nmp_min_ply = 0;
        w->calls_until_check = 1;
        w->nodes_allowed = 0;
    }
    s->dirty = true;
    sh->tt = &s->tt;
    sh->limits = *limits;
    atomic_store(&sh->nodes_reserved, 0);
    sh->options = *opt;
    if (sh->options.multipv < 1)
        sh->options.multipv = 1;
    if (sh->options.multipv > MAX_MULTIPV)
        sh->options.multipv = MAX_MULTIPV;
    sh->workers = s->workers;
    sh->worker_count = threads;
    if (reporter)
        s->reporter = *reporter;
    else
        memset(&s->reporter, 0, sizeof s->reporter);
    s->wrapped = s->reporter;
    s->wrapped.info = wrapped_info;
    s->wrapped.ctx = s;
    sh->reporter = &s->wrapped;
    atomic_store(&s->answered, false);
    /* Until an iteration completes, the watchdog would play fallback_move. */
    s->snap.best = root_moves_init(s->workers[0], limits) > 0 ? fallback_move(s->workers[0]) : MOVE_NONE;
    s->snap.ponder = MOVE_NONE;
    s->snap.pv_len = 0;
    s->snap.score = VALUE_NONE;
    s->snap.bound = INFO_BOUND_EXACT;
    s->snap.depth = s->snap.seldepth = 0;
    Color us = g->pos.side;
    TimeControl tc = {limits->time[us], limits->inc[us], limits->byoyomi,        limits->movetime,
                      g->pos.ply,       limits->timed,   opt->max_moves_to_draw, s->lag_ms};
    sh->budget = timeman_budget(&tc, &opt->time);
    root_control_arm(&s->control, limits); /* stop, ponder, the clock from go */
    return true;
}

void search_go(Search *s, const Game *g, const SearchLimits *limits, const SearchOptions *opt,
               const SearchReporter *reporter) {
    if (!prepare(s, g, limits, opt, reporter)) {
        if (reporter && reporter->info) {
            SearchInfo in = search_info_text("out of memory: search not started");
            reporter->info(reporter->ctx, &in);
        }
        if (reporter && reporter->bestmove)
            reporter->bestmove(reporter->ctx, MOVE_RESIGN, MOVE_NONE);
        return;
    }
    atomic_store(&s->finished, false);
    /* A timed search gets its watchdog, a little after the hard limit (see watchdog.h). */
    const SharedSearch *sh = &s->shared;
    int64_t max_ms = sh->budget.maximum_ms;
    if (!limits->ponder && !limits->infinite && !limits->mate && max_ms != INT64_MAX && s->snap.best != MOVE_NONE &&
        position_declaration(&g->pos, opt->entering_king_rule) == MOVE_NONE) {
        int64_t slack = max_ms / 8 < 5 ? 5 : max_ms / 8 > 25 ? 25 : max_ms / 8;
        watchdog_arm(&s->watchdog, sh->start_ms + (double)(max_ms + slack), watchdog_fire, s);
    }
    root_control_start(&s->control, main_thread, s);
}

SearchResult search_run(Search *s, const Game *g, const SearchLimits *limits, const SearchOptions *opt,
                        const SearchReporter *reporter) {
    SearchLimits l = *limits;
    l.ponder = false;
    l.infinite = false;
    SearchResult none = {MOVE_NONE, MOVE_NONE, VALUE_NONE, 0, 0, 0};
    if (!prepare(s, g, &l, opt, reporter))
        return none;
    run_search(s);
    return s->result;
}

void search_stop(Search *s) { root_control_stop(&s->control); }

void search_ponderhit(Search *s) { root_control_ponderhit(&s->control); }

void search_wait(Search *s) { root_control_wait(&s->control); }

bool search_is_running(Search *s) {
    if (root_control_running(&s->control) && atomic_load(&s->finished))
        search_wait(s); /* answered already: join it now */
    return root_control_running(&s->control);
}

uint64_t search_nodes(Search *s) {
    uint64_t n = 0;
    for (int i = 0; i < s->shared.worker_count; i++)
        n += atomic_load(&s->workers[i]->nodes);
    return n;
}

int search_hashfull(Search *s) { return tt_hashfull(&s->tt); }
