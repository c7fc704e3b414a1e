/* think.c - `book think` (think.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "book/db2016.h"
#include "bookgen/think.h"
#include "search/search.h"
#include "shogi/notation.h"

typedef struct {
    BookKey key;
    int ply;
} Target;

typedef struct {
    Book *book;
    const ThinkOptions *opt;
    ThinkStats *stats;
    Target *targets;
    size_t n, next, done;
    FILE *journal;
    pthread_mutex_t lock;
    bool failed;
    char err[256];
} Shared;

typedef struct {
    int depth;
    int score;
    Move16 move, ponder;
    bool have;
} PvLine;

typedef struct {
    PvLine pv[MAX_MULTIPV];
} Collect;

static void on_info(void *ctx, const char *line) {
    Collect *c = ctx;
    if (strstr(line, " lowerbound") || strstr(line, " upperbound") || strncmp(line, "info depth ", 11))
        return;
    const char *s = strstr(line, " score ");
    const char *pv = strstr(line, " pv ");
    if (!s || !pv)
        return;
    int k = 1;
    const char *mp = strstr(line, " multipv ");
    if (mp)
        k = atoi(mp + 9);
    if (k < 1 || k > MAX_MULTIPV)
        return;
    PvLine l = {.depth = atoi(line + 11), .have = true};
    if (!strncmp(s, " score cp ", 10))
        l.score = atoi(s + 10);
    else if (!strncmp(s, " score mate ", 12)) {
        int m = atoi(s + 12);
        l.score = m >= 0 ? VALUE_MATE - m : -VALUE_MATE - m;
    } else
        return;
    const char *p = pv + 4;
    size_t len = strcspn(p, " ");
    if (!move16_from_usi(p, len, &l.move))
        return;
    p += len;
    l.ponder = MOVE_NONE;
    if (*p == ' ') {
        p++;
        size_t len2 = strcspn(p, " ");
        if (len2 && !move16_from_usi(p, len2, &l.ponder))
            l.ponder = MOVE_NONE;
    }
    c->pv[k - 1] = l;
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

typedef struct {
    Shared *sh;
    Search *search;
} Worker;

static void *worker_main(void *arg) {
    Worker *w = arg;
    Shared *sh = w->sh;
    const ThinkOptions *o = sh->opt;
    Game g;
    game_init(&g);
    for (;;) {
        pthread_mutex_lock(&sh->lock);
        bool stop = sh->failed || (o->stop && *o->stop) || sh->next >= sh->n;
        size_t i = sh->next++;
        pthread_mutex_unlock(&sh->lock);
        if (stop)
            break;
        Position pos;
        StateInfo st;
        char sfen[SFEN_MAX];
        if (!book_key_to_position(&sh->targets[i].key, &pos, &st, sh->targets[i].ply))
            continue;
        position_to_sfen(&pos, sfen, true);
        if (!game_set_sfen(&g, sfen, NULL, 0))
            continue;
        SearchLimits lim;
        memset(&lim, 0, sizeof lim);
        lim.depth = o->depth;
        lim.nodes = o->nodes;
        lim.movetime = o->movetime;
        SearchOptions so;
        search_options_default(&so);
        so.multipv = o->multipv;
        so.threads = 1;
        Collect c;
        memset(&c, 0, sizeof c);
        SearchReporter rep = {on_info, on_bestmove, on_checkmate, &c};
        search_clear(w->search);
        SearchResult r = search_run(w->search, &g, &lim, &so, &rep);
        if (o->stop && *o->stop)
            break; /* cut short: this position is redone on resume */
        pthread_mutex_lock(&sh->lock);
        uint32_t id;
        bool ok = book_add_position(sh->book, &sh->targets[i].key, sh->targets[i].ply, &id);
        int added = 0;
        if (ok)
            fprintf(sh->journal, "sfen %s\n", sfen);
        for (int k = 0; ok && k < o->multipv; k++) {
            PvLine *l = &c.pv[k];
            if (!l->have || position_legal_move_from16(&pos, l->move) == MOVE_NONE)
                continue;
            BookMove bm = {.move = l->move,
                           .ponder = l->ponder,
                           .score = l->score,
                           .depth = l->depth,
                           .count = 1,
                           .has_score = true,
                           .has_depth = true};
            ok = book_add_move(sh->book, id, &bm, NULL);
            char mu[USI_MOVE_MAX], pu[USI_MOVE_MAX];
            fprintf(sh->journal, "%s %s %d %d 1\n", move_to_usi(l->move, mu),
                    l->ponder ? move_to_usi(l->ponder, pu) : "none", l->score, l->depth);
            added++;
        }
        if (ok && !added && move_is_ok(r.best)) {
            /* no usable info line (a very short search): take the bestmove */
            char mu[USI_MOVE_MAX];
            BookMove bm = {.move = move_to_move16(r.best),
                           .score = r.score,
                           .depth = r.depth,
                           .count = 1,
                           .has_score = r.score != VALUE_NONE,
                           .has_depth = true};
            ok = book_add_move(sh->book, id, &bm, NULL);
            fprintf(sh->journal, "%s none %d %d 1\n", move_to_usi(r.best, mu), r.score, r.depth);
            added++;
        }
        fprintf(sh->journal, "\n");
        if (fflush(sh->journal) != 0 || fsync(fileno(sh->journal)) != 0 || ferror(sh->journal)) {
            ok = false;
            snprintf(sh->err, sizeof sh->err, "%s: write error: %s", o->journal, strerror(errno));
        } else if (!ok)
            snprintf(sh->err, sizeof sh->err, "out of memory");
        if (!ok)
            sh->failed = true;
        sh->stats->searched++;
        sh->stats->moves_added += (uint64_t)added;
        sh->done++;
        if (o->progress)
            progress_update(o->progress, sh->stats->resumed + sh->done);
        pthread_mutex_unlock(&sh->lock);
    }
    game_free(&g);
    return NULL;
}

static bool add_target(Book *seen, Target **t, size_t *n, size_t *cap, const BookKey *k, int ply) {
    size_t before = book_position_count(seen);
    uint32_t id;
    if (!book_add_position(seen, k, ply, &id))
        return false;
    if (book_position_count(seen) == before)
        return true;
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 256;
        Target *p = realloc(*t, c * sizeof *p);
        if (!p)
            return false;
        *t = p;
        *cap = c;
    }
    (*t)[*n].key = *k;
    (*t)[(*n)++].ply = ply;
    return true;
}

/* Marks in scope every book position reachable from the starts through book moves, and
 * the positions their moves lead to. Returns false when memory runs out. */
static bool mark_scope(const Book *b, const ThinkOptions *o, Book *scope, BookMoveList *list) {
    size_t head = 0, cap = o->n_starts + 64, tail = 0;
    uint32_t *queue = malloc(cap * sizeof *queue);
    if (!queue)
        return false;
    bool ok = true;
    for (size_t i = 0; i < o->n_starts && ok; i++) {
        uint32_t id, sid;
        size_t before = book_position_count(scope);
        ok = book_add_position(scope, &o->starts[i], o->start_plies[i], &sid);
        if (ok && book_position_count(scope) > before && book_find(b, &o->starts[i], &id))
            queue[tail++] = id;
    }
    while (ok && head < tail) {
        uint32_t id = queue[head++];
        BookKey k;
        Position pos;
        StateInfo st;
        book_position_key(b, id, &k);
        int ply = book_position_ply(b, id);
        if (!book_key_to_position(&k, &pos, &st, ply ? ply : 1))
            continue;
        int cnt = book_position_moves(b, id, list);
        for (int i = 0; i < cnt && ok; i++) {
            Move m = position_legal_move_from16(&pos, list->moves[i].move);
            if (m == MOVE_NONE)
                continue;
            BookKey ck;
            book_key_after_move(&pos, m, &ck);
            int cply = pos.ply + 1;
            size_t before = book_position_count(scope);
            uint32_t sid, cid;
            ok = book_add_position(scope, &ck, cply, &sid);
            if (!ok || book_position_count(scope) == before || !book_find(b, &ck, &cid))
                continue;
            if (tail == cap) {
                uint32_t *q = realloc(queue, cap * 2 * sizeof *q);
                if (!q) {
                    ok = false;
                    break;
                }
                queue = q;
                cap *= 2;
            }
            queue[tail++] = cid;
        }
    }
    free(queue);
    return ok;
}

bool book_think(Book *b, const ThinkOptions *o, ThinkStats *stats, char *err, size_t err_len) {
    memset(stats, 0, sizeof *stats);
    Book *done = book_create(), *seen = book_create(), *scope = o->n_starts ? book_create() : NULL;
    BookMoveList *list = malloc(sizeof *list);
    Target *targets = NULL;
    size_t n = 0, cap = 0;
    bool ok = false;
    Shared sh;
    memset(&sh, 0, sizeof sh);
    if (!done || !seen || !list || (o->n_starts && !scope)) {
        snprintf(err, err_len, "out of memory");
        goto out;
    }
    /* resume: what the journal holds is done */
    struct stat sb;
    if (o->journal && stat(o->journal, &sb) == 0) {
        Db2016ReadOptions ro = {0};
        if (!db2016_read_file(o->journal, done, &ro, NULL, err, err_len))
            goto out;
        if (!book_merge(b, done)) {
            snprintf(err, err_len, "out of memory");
            goto out;
        }
    }
    /* the targets: an exact list when given (only_keys) ... */
    for (size_t i = 0; o->only_keys && i < o->only_count; i++) {
        Position pos;
        StateInfo st;
        int ply = o->only_plies ? o->only_plies[i] : 1;
        if (!book_key_to_position(&o->only_keys[i], &pos, &st, ply > 0 ? ply : 1) || !position_has_legal_move(&pos))
            continue;
        uint32_t did;
        size_t before = n;
        if (!add_target(seen, &targets, &n, &cap, &o->only_keys[i], pos.ply))
            goto oom;
        if (n > before && book_find(done, &o->only_keys[i], &did))
            stats->resumed++;
    }
    /* ... else within the subtree of the starts, when given, or the whole book */
    if (scope && !mark_scope(b, o, scope, list))
        goto oom;
    for (size_t i = 0; i < o->n_starts; i++) {
        Position pos;
        StateInfo st;
        uint32_t id, did;
        if (book_find(b, &o->starts[i], &id) || !book_key_to_position(&o->starts[i], &pos, &st, o->start_plies[i]) ||
            (o->max_ply && pos.ply > o->max_ply) || !position_has_legal_move(&pos))
            continue;
        if (!add_target(seen, &targets, &n, &cap, &o->starts[i], pos.ply))
            goto oom;
        if (book_find(done, &o->starts[i], &did))
            stats->resumed++;
    }
    size_t npos = o->only_keys ? 0 : book_position_count(b);
    for (uint32_t id = 0; id < npos; id++) {
        BookKey k;
        Position pos;
        StateInfo st, st2;
        book_position_key(b, id, &k);
        int ply = book_position_ply(b, id);
        uint32_t sid;
        if ((scope && !book_find(scope, &k, &sid)) || !book_key_to_position(&k, &pos, &st, ply ? ply : 1))
            continue;
        int cnt = book_position_moves(b, id, list);
        if ((!o->max_ply || pos.ply <= o->max_ply) && cnt < o->multipv && position_has_legal_move(&pos)) {
            uint32_t did;
            if (!add_target(seen, &targets, &n, &cap, &k, pos.ply))
                goto oom;
            if (book_find(done, &k, &did))
                stats->resumed++;
        }
        for (int i = 0; i < cnt; i++) {
            Move m = position_legal_move_from16(&pos, list->moves[i].move);
            if (m == MOVE_NONE)
                continue;
            position_do_move(&pos, m, &st2);
            BookKey ck;
            book_key_from_position(&pos, &ck);
            uint32_t cid;
            bool leaf =
                !book_find(b, &ck, &cid) && position_has_legal_move(&pos) && (!o->max_ply || pos.ply <= o->max_ply);
            int cply = pos.ply;
            position_undo_move(&pos, m);
            if (leaf && !add_target(seen, &targets, &n, &cap, &ck, cply))
                goto oom;
        }
    }
    /* drop what an earlier run finished, keep the order otherwise */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t did;
        if (!book_find(done, &targets[i].key, &did))
            targets[k++] = targets[i];
    }
    stats->targets = n;
    n = k;
    if (o->max_positions && n > o->max_positions)
        n = (size_t)o->max_positions;
    if (o->progress)
        progress_start(o->progress, o->progress->out, "thinking", stats->resumed + n, o->progress->quiet);
    sh.book = b;
    sh.opt = o;
    sh.stats = stats;
    sh.targets = targets;
    sh.n = n;
    sh.journal = o->journal ? fopen(o->journal, "a") : NULL;
    if (!sh.journal) {
        snprintf(err, err_len, "%s: cannot open the journal: %s", o->journal ? o->journal : "(none)", strerror(errno));
        goto out;
    }
    pthread_mutex_init(&sh.lock, NULL);
    int nt = o->threads < 1 ? 1 : o->threads > MAX_THREADS ? MAX_THREADS : o->threads;
    Worker w[MAX_THREADS];
    pthread_t th[MAX_THREADS];
    int started = 0;
    for (int i = 0; i < nt; i++) {
        w[i].sh = &sh;
        w[i].search = search_create(o->hash_mb ? o->hash_mb : 16);
        if (!w[i].search)
            break;
        if (pthread_create(&th[i], NULL, worker_main, &w[i]) != 0) {
            search_destroy(w[i].search);
            break;
        }
        started++;
    }
    if (!started) {
        snprintf(err, err_len, "cannot start a worker");
        fclose(sh.journal);
        pthread_mutex_destroy(&sh.lock);
        goto out;
    }
    /* wait; on a stop request cut the searches in flight short */
    for (;;) {
        pthread_mutex_lock(&sh.lock);
        bool finished = sh.done >= n || sh.failed || sh.next >= n + (size_t)started;
        pthread_mutex_unlock(&sh.lock);
        if (o->stop && *o->stop) {
            for (int i = 0; i < started; i++)
                search_stop(w[i].search);
            break;
        }
        if (finished)
            break;
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    for (int i = 0; i < started; i++) {
        pthread_join(th[i], NULL);
        search_destroy(w[i].search);
    }
    if (o->progress)
        progress_finish(o->progress);
    fclose(sh.journal);
    pthread_mutex_destroy(&sh.lock);
    if (sh.failed) {
        snprintf(err, err_len, "%s", sh.err);
        goto out;
    }
    stats->interrupted = o->stop && *o->stop;
    ok = true;
    goto out;
oom:
    snprintf(err, err_len, "out of memory");
out:
    book_free(done);
    book_free(seen);
    book_free(scope);
    free(list);
    free(targets);
    return ok;
}
