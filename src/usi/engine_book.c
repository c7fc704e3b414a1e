/* engine_book.c - see engine_book.h. */
#include "usi/engine_book.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "book/open.h"
#include "util/path.h"

/* One loaded book (prober NULL: none). */
typedef struct {
    BookProber *prober;
    char path[4096];
    bool on_the_fly;
    BookReadReport rep;
} Loaded;

struct EngineBook {
    pthread_mutex_t lock;
    pthread_cond_t done;
    pthread_t thread;
    bool thread_running; /* a loader thread exists and has not been joined */
    bool loading;        /* it has not finished yet */
    Loaded current;      /* what lookups use */
    Loaded overlay;      /* the opponent overlay, prober NULL when none */
    char want_path[4096];
    bool want_otf;
    char message[5000];
    bool has_message;
};

static void loaded_free(Loaded *l) {
    book_prober_close(l->prober);
    memset(l, 0, sizeof *l);
}

EngineBook *engine_book_create(void) {
    EngineBook *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->done, NULL);
    return b;
}

static void join_loader(EngineBook *b) {
    if (b->thread_running) {
        pthread_join(b->thread, NULL);
        b->thread_running = false;
    }
}

void engine_book_destroy(EngineBook *b) {
    if (!b)
        return;
    join_loader(b);
    loaded_free(&b->current);
    loaded_free(&b->overlay);
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->done);
    free(b);
}

bool engine_book_resolve(const char *book_dir, const char *book_file, char *out, size_t out_len) {
    if (!book_file[0] || strcmp(book_file, "no_book") == 0)
        return false;
    return path_resolve(book_dir, book_file, out, out_len);
}

/* Loads path into *l (book/open.h decides the format by content); on failure writes the
 * message. */
static bool load(const char *path, bool on_the_fly, Loaded *l, char *msg, size_t msg_len) {
    memset(l, 0, sizeof *l);
    snprintf(l->path, sizeof l->path, "%s", path);
    l->on_the_fly = on_the_fly;
    struct stat sb;
    if (stat(path, &sb) != 0) {
        snprintf(msg, msg_len, "book not found %s", path);
        return false;
    }
    char err[512] = "";
    l->prober = book_prober_open(path, NULL, on_the_fly, NULL, &l->rep, err, sizeof err);
    if (!l->prober) {
        snprintf(msg, msg_len, "book error %s: %s", path, err);
        return false;
    }
    return true;
}

static void *loader_main(void *arg) {
    EngineBook *b = arg;
    pthread_mutex_lock(&b->lock);
    char path[4096];
    snprintf(path, sizeof path, "%s", b->want_path);
    bool otf = b->want_otf;
    pthread_mutex_unlock(&b->lock);

    Loaded fresh;
    char msg[5000];
    bool ok = load(path, otf, &fresh, msg, sizeof msg);
    if (ok) {
        char bad[96] = "";
        if (fresh.rep.warnings)
            snprintf(bad, sizeof bad, ", %llu bad line(s) or record(s) skipped",
                     (unsigned long long)fresh.rep.warnings);
        const char *fmt = book_format_name(fresh.rep.format);
        if (book_prober_on_disk(fresh.prober))
            snprintf(msg, sizeof msg, "book loaded %s (on the fly, %llu bytes, %s%s)", path,
                     (unsigned long long)book_prober_file_size(fresh.prober), fmt, bad);
        else
            snprintf(msg, sizeof msg, "book loaded %s (%zu positions, %s%s%s)", path,
                     book_prober_positions(fresh.prober), fmt, bad, otf ? ", in memory: not usable on the fly" : "");
    }
    pthread_mutex_lock(&b->lock);
    loaded_free(&b->current);
    if (ok)
        b->current = fresh;
    memcpy(b->message, msg, sizeof b->message);
    b->has_message = true;
    b->loading = false;
    pthread_cond_broadcast(&b->done);
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

void engine_book_request(EngineBook *b, const char *path, bool on_the_fly) {
    engine_book_wait(b, -1); /* one load at a time */
    join_loader(b);
    pthread_mutex_lock(&b->lock);
    if (!path) {
        loaded_free(&b->current);
        pthread_mutex_unlock(&b->lock);
        return;
    }
    if (b->current.prober && strcmp(b->current.path, path) == 0 && b->current.on_the_fly == on_the_fly) {
        pthread_mutex_unlock(&b->lock);
        return;
    }
    snprintf(b->want_path, sizeof b->want_path, "%s", path);
    b->want_otf = on_the_fly;
    b->loading = true;
    pthread_mutex_unlock(&b->lock);
    if (pthread_create(&b->thread, NULL, loader_main, b) == 0)
        b->thread_running = true;
    else
        loader_main(b);
}

bool engine_book_wait(EngineBook *b, int ms) {
    pthread_mutex_lock(&b->lock);
    if (ms < 0) {
        while (b->loading)
            pthread_cond_wait(&b->done, &b->lock);
    } else if (b->loading) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += ms / 1000;
        ts.tv_nsec += (long)(ms % 1000) * 1000000L;
        if (ts.tv_nsec >= 1000000000L)
            ts.tv_sec++, ts.tv_nsec -= 1000000000L;
        while (b->loading && pthread_cond_timedwait(&b->done, &b->lock, &ts) != ETIMEDOUT) {
        }
    }
    bool idle = !b->loading;
    pthread_mutex_unlock(&b->lock);
    return idle;
}

bool engine_book_take_message(EngineBook *b, char *out, size_t out_len) {
    pthread_mutex_lock(&b->lock);
    bool has = b->has_message;
    if (has)
        snprintf(out, out_len, "%s", b->message);
    b->has_message = false;
    pthread_mutex_unlock(&b->lock);
    return has;
}

BookSelectResult engine_book_select(EngineBook *b, Position *pos, const BookSelectOptions *opt, uint64_t *rng,
                                    BookChoice *out, char *reason, size_t reason_len) {
    pthread_mutex_lock(&b->lock);
    BookSelectResult r = BOOK_SELECT_MISS;
    if (reason && reason_len)
        snprintf(reason, reason_len, b->loading ? "book still loading" : "no book");
    bool main_ready = !b->loading && b->current.prober;
    if (main_ready || b->overlay.prober) {
        BookSource src = main_ready ? book_prober_source(b->current.prober) : (BookSource){0};
        BookSource over = b->overlay.prober ? book_prober_source(b->overlay.prober) : (BookSource){0};
        r = book_select_overlay(b->overlay.prober ? &over : NULL, main_ready ? &src : NULL, pos, opt, rng, out, reason,
                                reason_len);
    }
    pthread_mutex_unlock(&b->lock);
    return r;
}

int engine_book_demoted(EngineBook *b, Position *pos, const BookSelectOptions *opt, Move16 *out, int max) {
    BookMoveList *list = malloc(sizeof *list); /* 24 KiB: not on the USI thread's stack */
    if (!list)
        return 0;
    int n = 0;
    pthread_mutex_lock(&b->lock);
    if (b->overlay.prober) {
        BookSource over = book_prober_source(b->overlay.prober);
        bool flipped = false;
        char err[256];
        if (book_probe(&over, pos, opt, list, &flipped, err, sizeof err) > 0)
            for (int i = 0; i < list->n && n < max; i++)
                if (book_move_demoted(&list->moves[i]))
                    out[n++] = list->moves[i].move;
    }
    pthread_mutex_unlock(&b->lock);
    free(list);
    return n;
}

bool engine_book_set_overlay(EngineBook *b, const char *path, char *msg, size_t msg_len) {
    Loaded fresh = {0};
    bool ok = false;
    if (msg_len)
        msg[0] = '\0';
    if (path) {
        char lmsg[5000];
        ok = load(path, false, &fresh, lmsg, sizeof lmsg);
        if (ok) {
            char bad[96] = "";
            if (fresh.rep.warnings)
                snprintf(bad, sizeof bad, ", %llu bad line(s) or record(s) skipped",
                         (unsigned long long)fresh.rep.warnings);
            snprintf(msg, msg_len, "rival overlay loaded %s (%zu positions, %s%s)", path,
                     book_prober_positions(fresh.prober), book_format_name(fresh.rep.format), bad);
        } else {
            snprintf(msg, msg_len, "rival overlay error: %s", lmsg);
        }
    }
    pthread_mutex_lock(&b->lock);
    loaded_free(&b->overlay);
    if (ok)
        b->overlay = fresh;
    pthread_mutex_unlock(&b->lock);
    return ok;
}

/* Splits off the next blank-separated word of *s: its start, length in *len. */
static const char *next_word(const char **s, size_t *len) {
    const char *p = *s;
    while (*p == ' ' || *p == '\t')
        p++;
    const char *w = p;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    *len = (size_t)(p - w);
    *s = p;
    return w;
}

bool engine_book_opponent_name(const char *value, char *out, size_t out_len) {
    const char *s = value;
    size_t len[3];
    const char *w[3];
    for (int i = 0; i < 3; i++)
        w[i] = next_word(&s, &len[i]);
    const char *name = value;
    if ((len[2] == 8 && strncasecmp(w[2], "computer", 8) == 0) || (len[2] == 5 && strncasecmp(w[2], "human", 5) == 0))
        name = s;
    while (*name == ' ' || *name == '\t')
        name++;
    size_t n = strlen(name);
    while (n && (name[n - 1] == ' ' || name[n - 1] == '\t'))
        n--;
    if (n == 0 || n >= out_len || (n == 7 && strncmp(name, "<empty>", 7) == 0)) {
        if (out_len)
            out[0] = '\0';
        return false;
    }
    memcpy(out, name, n);
    out[n] = '\0';
    return true;
}

const Book *engine_book_memory(EngineBook *b) {
    pthread_mutex_lock(&b->lock);
    const Book *book = !b->loading && b->current.prober ? book_prober_memory(b->current.prober) : NULL;
    pthread_mutex_unlock(&b->lock);
    return book;
}
