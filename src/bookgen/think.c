/* think.c - `book think` (think.h): the run (queue, workers, journal, progress); the
 * targets are think_targets.c, the searching bookgen/searcher.h. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bookgen/think.h"
#include "shogi/notation.h"

typedef struct {
    Book *book;
    const ThinkOptions *opt;
    ThinkStats *stats;
    Searcher *searcher;
    SearchBudget budget;
    char budget_text[96];
    ThinkTarget *targets;
    size_t n, next, done;
    size_t journaled; /* positions written to the journal by this run */
    size_t *requeue;  /* positions whose engine failed, to be taken again */
    size_t n_requeue;
    unsigned char *fails; /* per target: engine failures on it */
    uint64_t *failed_by;  /* per target: the slots (bit slot % 64) that failed on it */
    uint64_t alive_mask;  /* the slots not retired (bit slot % 64) */
    int in_flight;
    int alive;             /* workers not retired */
    ThinkJournal *journal; /* NULL: no checkpoints */
    pthread_mutex_t lock;
    bool failed;
    char err[512];
} Shared;

typedef struct {
    Shared *sh;
    int slot;
} Worker;

/* Adds one answer to the book and the journal; called with the lock held. */
static bool record(Shared *sh, const ThinkTarget *t, const Position *pos, const SearchAnswer *a) {
    uint32_t id;
    if (!book_add_position(sh->book, &t->key, t->ply, &id)) {
        snprintf(sh->err, sizeof sh->err, "out of memory");
        return false;
    }
    char sfen[SFEN_MAX], prov[512];
    position_to_sfen(pos, sfen, true);
    ThinkProvenance pv = {.depth = a->depth, .nodes = a->nodes};
    snprintf(pv.engine, sizeof pv.engine, "%s", a->engine);
    snprintf(pv.budget, sizeof pv.budget, "%s", sh->budget_text);
    think_provenance_date(pv.date, sizeof pv.date);
    think_provenance_format(&pv, prov, sizeof prov);
    /* the journal entry: at most a sfen, the provenance and SEARCHER_MAX_PV short lines */
    char entry[SFEN_MAX + sizeof prov + SEARCHER_MAX_PV * 64];
    size_t len = (size_t)snprintf(entry, sizeof entry, "sfen %s\n#%s\n", sfen, prov);
    bool ok = book_append_comment(sh->book, id, MOVE_NONE, prov, strlen(prov));
    int added = 0;
    for (int k = 0; ok && k < a->n; k++) {
        const SearchCandidate *c = &a->c[k];
        if (position_legal_move_from16(pos, c->move) == MOVE_NONE)
            continue; /* the searchers check; this is the last guard before the book */
        BookMove bm = {.move = c->move,
                       .ponder = c->ponder,
                       .score = c->score,
                       .depth = c->depth,
                       .count = 1,
                       .has_score = c->has_score,
                       .has_depth = c->depth > 0};
        ok = book_add_move(sh->book, id, &bm, NULL);
        char mu[USI_MOVE_MAX], pu[USI_MOVE_MAX];
        char sc[16] = "none", dp[16] = "none";
        if (c->has_score)
            snprintf(sc, sizeof sc, "%d", c->score);
        if (c->depth > 0)
            snprintf(dp, sizeof dp, "%d", c->depth);
        len += (size_t)snprintf(entry + len, sizeof entry - len, "%s %s %s %s 1\n", move_to_usi(c->move, mu),
                                c->ponder ? move_to_usi(c->ponder, pu) : "none", sc, dp);
        added++;
    }
    if (sh->journal && !think_journal_append(sh->journal, entry, len, sh->err, sizeof sh->err))
        return false;
    if (!ok)
        snprintf(sh->err, sizeof sh->err, "out of memory");
    sh->stats->moves_added += (uint64_t)added;
    if (a->n == 1 && !a->c[0].has_score)
        sh->stats->unscored++;
    return ok;
}

static void *worker_main(void *arg) {
    Worker *w = arg;
    Shared *sh = w->sh;
    const ThinkOptions *o = sh->opt;
    uint64_t me = 1ULL << (w->slot % 64);
    for (;;) {
        pthread_mutex_lock(&sh->lock);
        if (sh->failed || (o->stop && *o->stop)) {
            pthread_mutex_unlock(&sh->lock);
            break;
        }
        size_t i;
        /* a position goes back to a slot that failed on it only when every working slot
         * has failed on it: until then another engine gets it */
        size_t take = SIZE_MAX;
        for (size_t j = sh->n_requeue; j-- > 0 && take == SIZE_MAX;) {
            uint64_t m = sh->failed_by[sh->requeue[j]];
            if (!(m & me) || (m & sh->alive_mask) == sh->alive_mask)
                take = j;
        }
        if (take != SIZE_MAX) {
            i = sh->requeue[take];
            sh->requeue[take] = sh->requeue[--sh->n_requeue];
        } else if (sh->next < sh->n)
            i = sh->next++;
        else if (sh->in_flight == 0) {
            pthread_mutex_unlock(&sh->lock);
            break;
        } else { /* others may still put a position back */
            pthread_mutex_unlock(&sh->lock);
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
            continue;
        }
        sh->in_flight++;
        pthread_mutex_unlock(&sh->lock);
        Position pos;
        StateInfo st;
        SearchAnswer a;
        memset(&a, 0, sizeof a); /* so that no path reads an unset engine_fault */
        SearchStatus r = SEARCH_NONE;
        if (book_key_to_position(&sh->targets[i].key, &pos, &st, sh->targets[i].ply))
            r = searcher_analyse(sh->searcher, w->slot, &pos, &sh->budget, &a);
        pthread_mutex_lock(&sh->lock);
        sh->in_flight--;
        bool quit = false;
        /* a failure before the position was sent (start-up, handshake) is the engine's alone */
        bool blame = (r == SEARCH_RETRY || r == SEARCH_RETIRED) && !a.engine_fault;
        if (blame)
            sh->failed_by[i] |= me;
        switch (r) {
        case SEARCH_OK:
            sh->stats->warnings += (uint64_t)a.warnings;
            if (!record(sh, &sh->targets[i], &pos, &a))
                sh->failed = true;
            else
                sh->journaled++;
            /* fall through */
        case SEARCH_NONE:
            sh->stats->searched++;
            sh->done++;
            break;
        case SEARCH_RETIRED:
            sh->alive--;
            sh->alive_mask &= ~me;
            quit = true;
            /* fall through */
        case SEARCH_RETRY:
            sh->stats->retries++;
            if (!blame || ++sh->fails[i] < THINK_POSITION_FAILS) {
                sh->requeue[sh->n_requeue++] = i;
                break;
            }
            { /* a position that makes engine after engine fail: leave it for a later run */
                char sfen[SFEN_MAX];
                position_to_sfen(&pos, sfen, true);
                fprintf(o->progress && o->progress->out ? o->progress->out : stderr,
                        "\nposition %s skipped: the engines failed on it %d times\n", sfen, THINK_POSITION_FAILS);
                sh->stats->skipped++;
                sh->done++;
            }
            break;
        case SEARCH_STOPPED: quit = true; break;
        }
        pthread_mutex_unlock(&sh->lock);
        if (quit)
            break;
    }
    return NULL;
}

/* The progress line's status (util/progress.h): the engines' counts, restarts and
 * retirements; called under sh->lock. */
static void engines_status(void *ctx, char *buf, size_t len) {
    Shared *sh = ctx;
    buf[0] = '\0';
    if (!sh->searcher->external || len < 9)
        return;
    snprintf(buf, len, "engines ");
    searcher_status(sh->searcher, buf + 8, len - 8);
    if (!buf[8])
        buf[0] = '\0';
}

/* The journal header's options: the caller's text, else the budget and the MultiPV; plus
 * an exact list of positions as its count and a hash of its keys. */
static void options_text(const ThinkOptions *o, const char *budget, char *buf, size_t len) {
    if (o->journal_options)
        snprintf(buf, len, "%s", o->journal_options);
    else
        snprintf(buf, len, "budget=%s multipv=%d multipv-margin=%d multipv-max=%d", budget, o->multipv,
                 o->multipv_margin, o->multipv_max);
    if (o->only_keys) {
        uint64_t h = 14695981039346656037ULL;
        for (size_t i = 0; i < o->only_count; i++)
            for (size_t k = 0; k < sizeof o->only_keys[i]; k++)
                h = (h ^ ((const unsigned char *)&o->only_keys[i])[k]) * 1099511628211ULL;
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, " positions=%zu:%016" PRIx64, o->only_count, h);
    }
}

bool book_think(Book *b, const ThinkOptions *o, ThinkStats *stats, char *err, size_t err_len) {
    memset(stats, 0, sizeof *stats);
    Book *done = book_create(), *allowed = NULL;
    char *opts = NULL; /* the journal header's options */
    ThinkTarget *targets = NULL;
    size_t n = 0;
    bool ok = false;
    Shared sh;
    memset(&sh, 0, sizeof sh);
    Searcher *own = NULL;
    if (!done) {
        snprintf(err, err_len, "out of memory");
        goto out;
    }
    /* the targets come from the book as given, before the journal, so that a resumed run
     * thinks what an uninterrupted one would (docs/book_making.md, "think") */
    if (!think_collect_targets(b, o, &targets, &n, stats, err, err_len))
        goto out;
    stats->targets = n;
    /* resume: what the journal holds is done, if it was written for this book and these options */
    sh.budget = (SearchBudget){.depth = o->depth,
                               .nodes = o->nodes,
                               .movetime = o->movetime,
                               .go_raw = o->go_raw,
                               .multipv = o->multipv,
                               .multipv_margin = o->multipv_margin,
                               .multipv_max = o->multipv_max};
    search_budget_describe(&sh.budget, sh.budget_text, sizeof sh.budget_text);
    if (o->journal) {
        size_t opts_len = (o->journal_options ? strlen(o->journal_options) : 0) + 512;
        opts = malloc(opts_len);
        ThinkJournalId id = {.input_name = o->input_name, .options = opts};
        ThinkJournalScan scan;
        if (opts)
            options_text(o, sh.budget_text, opts, opts_len);
        allowed = opts ? book_create() : NULL;
        bool mem = allowed && think_journal_book_identity(b, id.input, sizeof id.input);
        for (size_t i = 0; mem && i < n; i++) {
            uint32_t aid;
            mem = book_add_position(allowed, &targets[i].key, targets[i].ply, &aid);
        }
        if (!mem) {
            snprintf(err, err_len, "out of memory");
            goto out;
        }
        FILE *warn = o->progress && o->progress->out ? o->progress->out : stderr;
        sh.journal = think_journal_open(o->journal, &id, done, allowed, warn, &scan, err, err_len);
        if (!sh.journal)
            goto out;
        if (!book_merge(b, done)) {
            snprintf(err, err_len, "out of memory");
            goto out;
        }
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t did;
        if (book_find(done, &targets[i].key, &did))
            stats->resumed++;
        else
            targets[k++] = targets[i];
    }
    n = k;
    if (o->max_positions && n > o->max_positions)
        n = (size_t)o->max_positions;
    sh.searcher = o->searcher;
    if (!sh.searcher) {
        own = searcher_inproc_create(o->threads, o->hash_mb);
        if (!own) {
            snprintf(err, err_len, "out of memory (search)");
            goto out;
        }
        sh.searcher = own;
    }
    sh.book = b;
    sh.opt = o;
    sh.stats = stats;
    sh.targets = targets;
    sh.n = n;
    sh.requeue = malloc((n + 1) * sizeof *sh.requeue);
    sh.fails = calloc(n + 1, 1);
    sh.failed_by = calloc(n + 1, sizeof *sh.failed_by);
    if (!sh.requeue || !sh.fails || !sh.failed_by) {
        snprintf(err, err_len, "out of memory");
        goto out;
    }
    pthread_mutex_init(&sh.lock, NULL);
    int slots = sh.searcher->slots;
    Worker *w = malloc((size_t)slots * sizeof *w);
    pthread_t *th = malloc((size_t)slots * sizeof *th);
    int started = 0;
    for (int i = 0; w && th && i < slots && n > 0; i++) {
        w[i].sh = &sh;
        w[i].slot = i;
        pthread_mutex_lock(&sh.lock);
        sh.alive++;
        sh.alive_mask |= 1ULL << (i % 64);
        pthread_mutex_unlock(&sh.lock);
        if (pthread_create(&th[i], NULL, worker_main, &w[i]) != 0) {
            pthread_mutex_lock(&sh.lock);
            sh.alive--;
            sh.alive_mask &= ~(1ULL << (i % 64));
            pthread_mutex_unlock(&sh.lock);
            break;
        }
        started++;
    }
    if (!started && n > 0) {
        snprintf(err, err_len, "cannot start a worker");
        pthread_mutex_destroy(&sh.lock);
        free(w);
        free(th);
        goto out;
    }
    /* done/total, rate and ETA over this run's positions, the journal's as "before" */
    Progress *pr = o->progress;
    if (pr) {
        progress_start(pr, pr->out, "thinking", n, pr->quiet);
        progress_set_rate(pr, "pos", stats->resumed);
        progress_set_status(pr, engines_status, &sh);
    }
    /* wait; on a stop request cut the searches in flight short */
    bool stopped = false;
    for (;;) {
        pthread_mutex_lock(&sh.lock);
        bool finished = sh.done >= n || sh.failed || sh.alive == 0;
        if (pr)
            progress_update(pr, sh.done);
        pthread_mutex_unlock(&sh.lock);
        if (o->stop && *o->stop && !stopped) {
            searcher_stop(sh.searcher);
            stopped = true;
        }
        if (finished || stopped)
            break;
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(w);
    free(th);
    if (pr && n > 0) { /* its last line says what each engine did, however short the run */
        pthread_mutex_lock(&sh.lock);
        progress_update(pr, sh.done);
        progress_finish(pr);
        pthread_mutex_unlock(&sh.lock);
    }
    pthread_mutex_destroy(&sh.lock);
    if (sh.failed) {
        snprintf(err, err_len, "%s", sh.err);
        goto out;
    }
    stats->interrupted = o->stop && *o->stop;
    if (!stats->interrupted && sh.done < n) {
        char why[2048];
        searcher_failures(sh.searcher, why, sizeof why);
        /* what the journal holds: positions searched and written, not the skipped or
         * move-less ones the count of done includes */
        size_t kept = (size_t)stats->resumed + sh.journaled;
        char keeps[64] = "holds no position yet";
        if (kept)
            snprintf(keeps, sizeof keeps, "keeps the %zu position%s done", kept, kept == 1 ? "" : "s");
        snprintf(err, err_len, "every engine failed with %zu of %zu positions left; the journal %s %s:\n%s",
                 n - sh.done, n, o->journal, keeps, why);
        goto out;
    }
    ok = true;
    if (o->keep_journal) {
        *o->keep_journal = sh.journal;
        sh.journal = NULL;
    }
out:
    think_journal_close(sh.journal);
    searcher_destroy(own);
    book_free(done);
    book_free(allowed);
    free(opts);
    free(sh.requeue);
    free(sh.fails);
    free(sh.failed_by);
    free(targets);
    return ok;
}
