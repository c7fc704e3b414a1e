/* probe.c - SearchProbe (search.h): a quiescence search on any position with a worker
 * of its own, for MCTS value providers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "search/worker.h"

struct SearchProbe {
    TranspositionTable tt;
    SharedSearch shared;
    Worker *worker;
    Worker *list[1];
};

SearchProbe *search_probe_create(size_t hash_mb, const SearchOptions *opt) {
    SearchProbe *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->worker = calloc(1, sizeof *p->worker);
    if (p->worker)
        p->worker->history = calloc(1, sizeof *p->worker->history);
    if (!p->worker || !p->worker->history || !tt_resize(&p->tt, hash_mb ? hash_mb : 1)) {
        if (p->worker)
            free(p->worker->history);
        free(p->worker);
        free(p);
        return NULL;
    }
    Worker *w = p->worker;
    w->estack = eval_stack_new();
    w->id = 1; /* not the main thread: no clock polling */
    game_init(&w->game);
    p->list[0] = w;
    SharedSearch *sh = &p->shared;
    sh->tt = &p->tt;
    search_options_default(&sh->options);
    if (opt)
        sh->options = *opt;
    sh->budget.optimum_ms = sh->budget.maximum_ms = INT64_MAX;
    sh->workers = p->list;
    sh->worker_count = 1;
    atomic_store(&sh->stop, false);
    atomic_store(&sh->ponder, false);
    w->shared = sh;
    return p;
}

void search_probe_destroy(SearchProbe *p) {
    if (!p)
        return;
    game_free(&p->worker->game);
    eval_stack_free(p->worker->estack);
    free(p->worker->history);
    free(p->worker);
    tt_free(&p->tt);
    free(p);
}

Value search_probe_qsearch(SearchProbe *p, const Position *pos, uint64_t *nodes) {
    Worker *w = p->worker;
    /* The worker searches a copy of pos in place of its own game's position; do/undo
     * leave the caller's states untouched and return the copy to pos->st. */
    Position saved = w->game.pos;
    w->game.pos = *pos;
    atomic_store_explicit(&w->nodes, 0, memory_order_relaxed);
    Value v = worker_qsearch(w);
    if (nodes)
        *nodes += atomic_load_explicit(&w->nodes, memory_order_relaxed) + 1;
    w->game.pos = saved;
    return v;
}
