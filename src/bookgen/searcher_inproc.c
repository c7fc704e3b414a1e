/* searcher_inproc.c - the searcher interface (searcher.h) over Hayanagi's own alpha-beta:
 * everything book making knows about src/search/ is in this file.
 *
 * Each slot owns a Search and searches single-threaded with the hash cleared before every
 * position, so an answer depends only on the position and the budget (a resumed run
 * repeats an uninterrupted one). The search reports SearchInfo structs (search/info.h),
 * no text; each is read directly into the collector's SearchLine (searcher.h), the form an
 * external engine's parsed info line also takes, so both kinds of searcher share one
 * collector and one score scale. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bookgen/searcher.h"
#include "search/search.h"
#include "shogi/game.h"

typedef struct {
    Searcher base;
    Search *search[MAX_THREADS];
    uint64_t done[MAX_THREADS];
    atomic_int stopped;
} Inproc;

typedef struct {
    MultiPvLines lines; /* the lines of the last iteration that gave all of them */
    int warnings;
} Collect;

/* One line of the search's report, read from its SearchInfo (legal 32-bit PV moves). */
static bool line_from_search(const SearchInfo *si, SearchLine *line) {
    if (si->text || si->score_kind == INFO_SCORE_NONE || !si->pv)
        return false; /* messages and progress are no part of a report */
    memset(line, 0, sizeof *line);
    line->multipv = si->multipv > 0 ? si->multipv : 1;
    line->depth = si->depth;
    line->exact = si->bound == INFO_BOUND_EXACT && si->pv_length > 0;
    if (!line->exact)
        return true;
    SearchCandidate *c = &line->cand;
    c->move = move_to_move16(si->pv[0]);
    c->ponder = si->pv_length > 1 ? move_to_move16(si->pv[1]) : MOVE_NONE;
    c->pv_len = si->pv_length < SEARCHER_PV_LEN ? si->pv_length : SEARCHER_PV_LEN;
    for (int i = 0; i < c->pv_len; i++)
        c->pv[i] = move_to_move16(si->pv[i]);
    c->score = si->score_kind == INFO_SCORE_CP ? searcher_cp_score(si->score)
                                               : searcher_mate_score(si->score, si->score_kind == INFO_SCORE_MATED);
    c->has_score = true;
    c->depth = si->depth;
    c->nodes = si->nodes;
    return true;
}

static void on_info(void *ctx, const SearchInfo *si) {
    Collect *c = ctx;
    SearchLine line;
    if (line_from_search(si, &line))
        multipv_lines_add(&c->lines, &line);
}

static void on_bestmove(void *ctx, Move best, Move ponder) {
    (void)ctx;
    (void)best;
    (void)ponder;
}

static void on_checkmate(void *ctx, const Move *pv, int len, int status) {
    (void)ctx;
    (void)pv;
    (void)len;
    (void)status;
}

static SearchStatus inproc_analyse(Searcher *s, int slot, Position *pos, const SearchBudget *b, int mpv,
                                   SearchAnswer *out) {
    Inproc *ip = (Inproc *)s;
    if (atomic_load(&ip->stopped))
        return SEARCH_STOPPED;
    Game g;
    game_init(&g);
    if (!game_set_position(&g, pos, NULL, 0)) {
        game_free(&g);
        return SEARCH_NONE;
    }
    SearchLimits lim;
    memset(&lim, 0, sizeof lim);
    lim.depth = b->depth;
    lim.nodes = b->nodes;
    lim.movetime = b->movetime;
    if (!b->depth && !b->nodes && !b->movetime)
        lim.depth = SEARCH_DEFAULT_DEPTH; /* raw go arguments are for external engines */
    SearchOptions so;
    search_options_default(&so);
    so.multipv = mpv;
    so.threads = 1;
    Collect *c = calloc(1, sizeof *c);
    if (!c) {
        game_free(&g);
        return SEARCH_RETRY;
    }
    multipv_lines_init(&c->lines, &g.pos, mpv);
    SearchReporter rep = {on_info, on_bestmove, on_checkmate, c};
    search_clear(ip->search[slot]);
    SearchResult r = search_run(ip->search[slot], &g, &lim, &so, &rep);
    game_free(&g);
    snprintf(out->engine, sizeof out->engine, "Hayanagi (in-process)");
    out->nodes = r.nodes;
    out->depth = r.depth;
    out->warnings = c->warnings;
    if (atomic_load(&ip->stopped)) {
        free(c);
        return SEARCH_STOPPED; /* cut short: redone on resume */
    }
    multipv_lines_answer(&c->lines, out);
    /* no complete info line (a very short search): take the bestmove, with what the
     * search knows of it */
    SearchCandidate *cd = search_answer_bare_bestmove(out, r.best, MOVE_NONE);
    if (cd) {
        cd->has_score = r.score != VALUE_NONE;
        cd->score = cd->has_score ? r.score : 0;
        cd->depth = r.depth;
        cd->nodes = r.nodes;
    }
    free(c);
    ip->done[slot]++;
    return out->n ? SEARCH_OK : SEARCH_NONE;
}

static void inproc_stop(Searcher *s) {
    Inproc *ip = (Inproc *)s;
    atomic_store(&ip->stopped, 1);
    for (int i = 0; i < s->slots; i++)
        search_stop(ip->search[i]);
}

static void inproc_destroy(Searcher *s) {
    Inproc *ip = (Inproc *)s;
    for (int i = 0; i < s->slots; i++)
        search_destroy(ip->search[i]);
    free(ip);
}

static const SearcherOps INPROC_OPS = {inproc_analyse, inproc_stop, NULL, NULL, inproc_destroy};

Searcher *searcher_inproc_create(int threads, size_t hash_mb) {
    Inproc *ip = calloc(1, sizeof *ip);
    if (!ip)
        return NULL;
    ip->base.ops = &INPROC_OPS;
    int n = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
    for (int i = 0; i < n; i++) {
        ip->search[i] = search_create(hash_mb ? hash_mb : 16);
        if (!ip->search[i])
            break;
        ip->base.slots++;
    }
    if (!ip->base.slots) {
        free(ip);
        return NULL;
    }
    return &ip->base;
}
