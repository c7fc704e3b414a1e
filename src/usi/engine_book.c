/* engine_book.c - see engine_book.h. */
#include "usi/engine_book.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "book/apery.h"
#include "book/db2016.h"
#include "book/sbk.h"
#include "book/ybb.h"
#include "util/path.h"

typedef enum { KIND_NONE, KIND_MEMORY, KIND_OTF, KIND_APERY } Kind;

/* One loaded book. */
typedef struct {
    Kind kind;
    Book *memory;
    Db2016File *otf;
    AperyBook *apery;
    char path[4096];
    bool on_the_fly;
    size_t positions;
} Loaded;

struct EngineBook {
    pthread_mutex_t lock;
    pthread_cond_t done;
    pthread_t thread;
    bool thread_running; /* a loader thread exists and has not been joined */
    bool loading;        /* it has not finished yet */
    Loaded current;      /* what lookups use */
    char want_path[4096];
    bool want_otf;
    char message[5000];
    bool has_message;
};

static void loaded_free(Loaded *l) {
    book_free(l->memory);
    db2016_otf_close(l->otf);
    apery_free(l->apery);
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
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->done);
    free(b);
}

bool engine_book_resolve(const char *book_dir, const char *book_file, char *out, size_t out_len) {
    if (!book_file[0] || strcmp(book_file, "no_book") == 0)
        return false;
    return path_resolve(book_dir, book_file, out, out_len);
}

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Loads path into *l; on failure writes the message. */
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
    if (ends_with(path, ".bin")) {
        l->apery = apery_open(path, err, sizeof err);
        if (!l->apery)
            goto fail;
        l->kind = KIND_APERY;
        l->positions = apery_key_count(l->apery);
        return true;
    }
    if (on_the_fly && !ends_with(path, ".ybb") && !ends_with(path, ".sbk")) {
        l->otf = db2016_otf_open(path, err, sizeof err);
        if (l->otf) {
            l->kind = KIND_OTF;
            return true;
        }
        /* Not usable on the fly (e.g. unsorted): fall back to memory and say so below. */
    }
    l->memory = book_create();
    if (!l->memory) {
        snprintf(err, sizeof err, "out of memory");
        goto fail;
    }
    bool ok;
    if (ends_with(path, ".sbk")) { /* in memory, count = weight, score/depth from the analyses */
        SbkBook *sb = sbk_open(path, NULL, NULL, err, sizeof err);
        ok = sb && sbk_to_book(sb, l->memory, NULL, NULL, err, sizeof err);
        sbk_close(sb);
    } else {
        ok = ends_with(path, ".ybb") ? ybb_read_file(path, l->memory, err, sizeof err)
                                     : db2016_read_file(path, l->memory, NULL, NULL, err, sizeof err);
    }
    if (!ok)
        goto fail;
    l->kind = KIND_MEMORY;
    l->positions = book_position_count(l->memory);
    return true;
fail:
    snprintf(msg, msg_len, "book error %s: %s", path, err);
    loaded_free(l);
    return false;
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
        if (fresh.kind == KIND_OTF)
            snprintf(msg, sizeof msg, "book loaded %s (on the fly, %llu bytes)", path,
                     (unsigned long long)db2016_otf_size(fresh.otf));
        else
            snprintf(msg, sizeof msg, "book loaded %s (%zu positions%s)", path, fresh.positions,
                     otf && fresh.kind == KIND_MEMORY ? ", in memory: not usable on the fly" : "");
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
    if (b->current.kind != KIND_NONE && strcmp(b->current.path, path) == 0 && b->current.on_the_fly == on_the_fly) {
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

static int probe_otf(void *ctx, const Position *pos, BookMoveList *out, char *err, size_t err_len) {
    return db2016_otf_lookup(ctx, pos, out, err, err_len);
}

static int probe_apery(void *ctx, const Position *pos, BookMoveList *out, char *err, size_t err_len) {
    (void)err, (void)err_len;
    return apery_lookup(ctx, pos, out) ? 1 : 0;
}

BookSelectResult engine_book_select(EngineBook *b, Position *pos, const BookSelectOptions *opt, uint64_t *rng,
                                    BookChoice *out, char *reason, size_t reason_len) {
    pthread_mutex_lock(&b->lock);
    BookSelectResult r = BOOK_SELECT_MISS;
    if (reason && reason_len)
        snprintf(reason, reason_len, b->loading ? "book still loading" : "no book");
    if (!b->loading && b->current.kind != KIND_NONE) {
        BookSource src;
        if (b->current.kind == KIND_MEMORY)
            src = book_source_memory(b->current.memory);
        else if (b->current.kind == KIND_OTF)
            src = (BookSource){probe_otf, b->current.otf};
        else
            src = (BookSource){probe_apery, b->current.apery};
        r = book_select(&src, pos, opt, rng, out, reason, reason_len);
    }
    pthread_mutex_unlock(&b->lock);
    return r;
}

const Book *engine_book_memory(EngineBook *b) {
    pthread_mutex_lock(&b->lock);
    const Book *book = !b->loading && b->current.kind == KIND_MEMORY ? b->current.memory : NULL;
    pthread_mutex_unlock(&b->lock);
    return book;
}
