/* db2016.c - YANEURAOU-DB2016 reader (tolerant, optionally threaded); see db2016.h.
 * The move-line parser is db2016_line.c, the writer db2016_write.c, the on-the-fly lookup db2016_otf.c. */
#include "book/db2016.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "book/db2016_internal.h"
#include "shogi/notation.h"
#include "util/error.h"

enum { SFEN_LINE_MAX = 512, READ_CHUNK = 64 * 1024 };

typedef struct {
    int fd;          /* -1 for memory */
    const char *mem; /* memory mode: the data */
    size_t mem_len;
    char *buf; /* file mode: buffer of cap bytes */
    size_t cap, start, end;
    bool eof, io_error;
    bool unterminated; /* the line just handed out ended at the end of the data, without LF */
    uint64_t consumed; /* bytes handed out, for progress */
    size_t max_line;
} LineSource;

/* Returns 1 with the next line (no LF, no trailing CR) in *line and *len, 0 at the end, -1 when
 * a line exceeds max_line (*len then holds the bytes seen) or reading fails. */
static int next_line(LineSource *s, const char **line, size_t *len) {
    if (s->fd < 0) {
        if (s->start >= s->mem_len)
            return 0;
        const char *p = s->mem + s->start;
        size_t avail = s->mem_len - s->start;
        const char *nl = memchr(p, '\n', avail);
        size_t n = nl ? (size_t)(nl - p) : avail;
        if (n > s->max_line) {
            *len = n;
            return -1;
        }
        s->start += n + (nl ? 1 : 0);
        s->consumed = s->start;
        s->unterminated = !nl;
        if (n && p[n - 1] == '\r')
            n--;
        *line = p;
        *len = n;
        return 1;
    }
    for (;;) {
        char *p = s->buf + s->start;
        size_t avail = s->end - s->start;
        char *nl = memchr(p, '\n', avail);
        if (nl || (s->eof && avail)) {
            size_t n = nl ? (size_t)(nl - p) : avail;
            if (n > s->max_line) {
                *len = n;
                return -1;
            }
            s->start += n + (nl ? 1 : 0);
            s->consumed += n + (nl ? 1 : 0);
            s->unterminated = !nl;
            if (n && p[n - 1] == '\r')
                n--;
            *line = p;
            *len = n;
            return 1;
        }
        if (s->eof)
            return 0;
        if (avail > s->max_line) {
            *len = avail;
            return -1;
        }
        if (s->start) {
            memmove(s->buf, p, avail);
            s->start = 0;
            s->end = avail;
        }
        ssize_t r;
        do
            r = read(s->fd, s->buf + s->end, s->cap - s->end);
        while (r < 0 && errno == EINTR);
        if (r < 0) {
            s->io_error = true;
            return -1;
        }
        if (r == 0)
            s->eof = true;
        s->end += (size_t)r;
    }
}

/* The first three fields of an SFEN ("board side hands") joined by single spaces into
 * out (SFEN_LINE_MAX bytes). Returns the length, 0 when there are fewer fields. */
static size_t normalized_sfen(const char *s, size_t len, char *out) {
    size_t i = 0, n = 0;
    for (int field = 0; field < 3; field++) {
        while (i < len && db2016i_is_blank(s[i]))
            i++;
        if (i >= len)
            return 0;
        if (field)
            out[n++] = ' ';
        while (i < len && !db2016i_is_blank(s[i]) && n + 2 < SFEN_LINE_MAX)
            out[n++] = s[i++];
    }
    out[n] = '\0';
    return n;
}

/* True when normalised SFEN text is what position_to_sfen() writes: no two digits in a row
 * on the board, hands "-" or in the order R B G S N L P r b g s n l p with counts above 1
 * only. Cheaper than printing the position again, and enough for the order check. */
static bool sfen_text_canonical(const char *s) {
    const char *p = s;
    for (; *p && *p != ' '; p++)
        if (*p >= '1' && *p <= '9' && p[1] >= '1' && p[1] <= '9')
            return false;
    p = strchr(p + 1, ' ');
    if (!p)
        return false;
    p++;
    if (!strcmp(p, "-"))
        return true;
    static const char ORDER[] = "RBGSNLPrbgsnlp";
    int last = -1;
    while (*p) {
        int count = 0;
        while (*p >= '0' && *p <= '9')
            count = count * 10 + (*p++ - '0');
        const char *o = *p ? strchr(ORDER, *p) : NULL;
        if (!o || (int)(o - ORDER) <= last || count == 1 || (count == 0 && p[-1] == '0'))
            return false;
        last = (int)(o - ORDER);
        p++;
    }
    return true;
}

/* ---- the reader ---- */

/* The reader is split in two: the parser turns lines into events (the costly part: SFEN
 * parsing, key encoding, legality), the applier adds them to the book. Large files run
 * the parser on a second thread, feeding the applier batches through a small queue. */
typedef enum { EV_POSITION, EV_MOVE, EV_COMMENT, EV_ERROR } EventKind;

typedef struct {
    uint8_t kind;
    Move16 target; /* EV_COMMENT: MOVE_NONE for the position, else the move */
    int32_t ply;
    uint64_t lineno;
    union {
        uint32_t pos;  /* EV_POSITION: index into the batch's positions */
        BookMove move; /* EV_MOVE */
        struct {
            uint32_t off, len; /* EV_COMMENT, EV_ERROR: text in the batch */
        } text;
    } u;
} Event;

enum { BATCH_EVENTS = 8192, BATCH_POSITIONS = 2048, BATCH_TEXT = 256 * 1024, QUEUE = 3 };

/* Positions travel whole and the applier encodes the key: that splits the work between
 * the two threads about evenly. The copies are only ever given to
 * book_key_from_position(), which reads the board, hands and side, never the states. */
typedef struct {
    Event *ev;
    size_t n, ev_cap;
    Position *pos;
    size_t npos, pos_cap;
    char *text;
    size_t tlen, text_cap;
} Batch;

typedef struct Reader Reader;

struct Reader {
    const char *name;
    Book *book;
    Db2016ReadOptions opt;
    Db2016Stats st;
    char *err;
    size_t err_len;
    uint64_t lineno;
    bool in_entry; /* a valid sfen line opened the current entry */
    bool skipping; /* the current entry's sfen line was bad: skip its lines quietly */
    Position pos;  /* the entry's position, for legality checks */
    StateInfo pos_st;
    Move16 last_move; /* comment target: MOVE_NONE = the position */
    char prev_sfen[SFEN_LINE_MAX];
    bool fatal;
    Batch *batch;             /* being filled by the parser */
    bool (*flush)(Reader *r); /* hands the batch over; false to stop */
    void *pipe;
    /* Applier state. */
    uint32_t id;
    bool have_id;
    Db2016EntryFn entry_fn; /* entry mode (db2016_read_entries): book holds one entry */
    void *entry_ctx;
    Position entry_pos; /* its position (board, hands, side, ply; no states) */
};

static Event *emit(Reader *r, EventKind kind, size_t text_len) {
    Batch *b = r->batch;
    if (b->n == b->ev_cap || b->npos == b->pos_cap || b->tlen + text_len > b->text_cap) {
        if (!r->flush(r))
            return NULL;
        b = r->batch;
    }
    Event *e = &b->ev[b->n++];
    e->kind = (uint8_t)kind;
    e->lineno = r->lineno;
    return e;
}

static bool emit_text(Reader *r, EventKind kind, Move16 target, const char *text, size_t len) {
    /* A comment keeps its bytes except CRs at its end, which a re-read would strip. */
    while (kind == EV_COMMENT && len && text[len - 1] == '\r')
        len--;
    if (len > r->batch->text_cap / 2)
        len = r->batch->text_cap / 2; /* comments and reasons are bounded; max_line may be larger */
    Event *e = emit(r, kind, len);
    if (!e)
        return false;
    e->target = target;
    e->u.text.off = (uint32_t)r->batch->tlen;
    e->u.text.len = (uint32_t)len;
    memcpy(r->batch->text + r->batch->tlen, text, len);
    r->batch->tlen += len;
    return true;
}

/* Reports an entry error; returns false when it is fatal (strict). */
static bool entry_error(Reader *r, const char *fmt, ...) {
    char reason[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    r->st.errors++;
    if (r->opt.strict) {
        error_set(r->err, r->err_len, "%s:%llu: %s", r->name, (unsigned long long)r->lineno, reason);
        r->fatal = true;
    }
    if (!emit_text(r, EV_ERROR, MOVE_NONE, reason,
                   n < 0                        ? 0
                   : (size_t)n >= sizeof reason ? sizeof reason - 1
                                                : (size_t)n))
        return false;
    return !r->fatal;
}

static bool handle_sfen(Reader *r, const char *text, size_t len) {
    r->in_entry = false;
    r->skipping = true;
    while (len && db2016i_is_blank(*text)) {
        text++;
        len--;
    }
    while (len && db2016i_is_blank(text[len - 1]))
        len--;
    if (len >= SFEN_LINE_MAX)
        return entry_error(r, "sfen too long (%zu bytes)", len);
    char sfen[SFEN_LINE_MAX], why[128];
    memcpy(sfen, text, len);
    sfen[len] = '\0';
    if (!position_from_sfen(&r->pos, &r->pos_st, sfen, why, sizeof why))
        return entry_error(r, "bad sfen: %s", why);
    if (r->opt.check_legality && !position_legality_report(&r->pos, why, sizeof why))
        return entry_error(r, "illegal position: %s", why);
    if (r->st.sorted) {
        /* On-the-fly lookup compares the file's text with the canonical SFEN, so the order
         * is checked on the text (ply left out), and the text must be canonical. */
        char norm[SFEN_LINE_MAX];
        size_t nlen = normalized_sfen(sfen, len, norm);
        if (!nlen || !sfen_text_canonical(norm) || (r->prev_sfen[0] && strcmp(norm, r->prev_sfen) <= 0))
            r->st.sorted = false;
        else
            memcpy(r->prev_sfen, norm, nlen + 1);
    }
    Event *e = emit(r, EV_POSITION, 0);
    if (!e)
        return false;
    e->u.pos = (uint32_t)r->batch->npos;
    r->batch->pos[r->batch->npos] = r->pos;
    r->batch->pos[r->batch->npos++].st = NULL;
    e->ply = r->pos.ply;
    r->st.positions++;
    r->in_entry = true;
    r->skipping = false;
    r->last_move = MOVE_NONE;
    return true;
}

static bool handle_move(Reader *r, const char *line, size_t len) {
    if (!r->in_entry) {
        if (r->skipping)
            return true; /* the bad sfen line was reported already */
        return entry_error(r, "move line outside an entry (no sfen line before it)");
    }
    if (r->opt.positions_only) {
        r->st.moves++;
        return true;
    }
    BookMove m;
    bool amb, clamped;
    char why[128];
    if (!db2016i_parse_move_line(line, len, r->opt.shogihome_columns, &m, &amb, &clamped, why, sizeof why))
        return entry_error(r, "%s", why);
    /* Kept, saturated, but counted and reported: the book no longer says what the file did. */
    if (clamped && !entry_error(r, "a number out of range was clamped (value +-2147483647, depth +-%d, count %u)",
                                BOOK_DEPTH_MAX, BOOK_COUNT_MAX))
        return false;
    if (amb)
        r->st.ambiguous_lines++;
    if (r->opt.check_legality) {
        char usi[USI_MOVE_MAX];
        Move mv = position_legal_move_from16(&r->pos, m.move);
        if (mv == MOVE_NONE)
            return entry_error(r, "illegal move %s", move_to_usi(m.move, usi));
        if (m.ponder != MOVE_NONE) {
            StateInfo st2;
            position_do_move(&r->pos, mv, &st2);
            bool ok = position_legal_move_from16(&r->pos, m.ponder) != MOVE_NONE;
            position_undo_move(&r->pos, mv);
            if (!ok) {
                char usi2[USI_MOVE_MAX];
                return entry_error(r, "illegal ponder %s after %s", move_to_usi(m.ponder, usi2),
                                   move_to_usi(m.move, usi));
            }
        }
    }
    Event *e = emit(r, EV_MOVE, 0);
    if (!e)
        return false;
    e->u.move = m;
    r->st.moves++;
    r->last_move = m.move;
    const char *c;
    size_t clen;
    if (r->opt.keep_comments && db2016i_trailing_comment(line, len, &c, &clen))
        return emit_text(r, EV_COMMENT, m.move, c, clen);
    return true;
}

static bool handle_line(Reader *r, const char *line, size_t len) {
    if (memchr(line, '\0', len)) {
        error_set(r->err, r->err_len, "%s:%llu: NUL byte (binary data, not a DB2016 text book)", r->name,
                  (unsigned long long)r->lineno);
        r->fatal = true;
        return false;
    }
    if (r->lineno == 1) {
        if (len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
            line += 3;
            len -= 3;
        }
        static const char prefix[] = "#YANEURAOU-DB2016";
        if (len >= sizeof prefix - 1 && memcmp(line, prefix, sizeof prefix - 1) == 0) {
            const char *v = line + sizeof prefix - 1;
            size_t vlen = len - (sizeof prefix - 1);
            while (vlen && db2016i_is_blank(*v)) {
                v++;
                vlen--;
            }
            while (vlen && db2016i_is_blank(v[vlen - 1]))
                vlen--;
            if (!(vlen == 4 && memcmp(v, "1.00", 4) == 0)) {
                error_set(r->err, r->err_len, "%s:1: unsupported header '%.*s' (expected '%s')", r->name,
                          (int)(len > 64 ? 64 : len), line, DB2016_HEADER);
                r->fatal = true;
                return false;
            }
            r->st.had_header = true;
            return true;
        }
    }
    size_t i = 0;
    while (i < len && db2016i_is_blank(line[i]))
        i++;
    if (i == len) { /* a blank line ends the entry */
        r->in_entry = false;
        r->skipping = false;
        return true;
    }
    if (line[0] == '#' || (len >= 2 && line[0] == '/' && line[1] == '/')) {
        if (r->opt.keep_comments && r->in_entry) {
            size_t skip = line[0] == '#' ? 1 : 2;
            return emit_text(r, EV_COMMENT, r->last_move, line + skip, len - skip);
        }
        return true;
    }
    if (len >= 5 && memcmp(line, "sfen ", 5) == 0)
        return handle_sfen(r, line + 5, len - 5);
    return handle_move(r, line, len);
}

static bool run_reader(Reader *r, LineSource *src) {
    const char *line;
    size_t len;
    int rc;
    while ((rc = next_line(src, &line, &len)) == 1) {
        r->lineno++;
        r->st.lines++;
        if (!handle_line(r, line, len))
            return false;
        /* A last line without its line end may have been cut (a truncated copy): it was
         * read as it is, but say so, unless it is a comment or blank. */
        if (src->unterminated && len && line[0] != '#' && line[0] != '/' && !db2016i_is_blank(line[0]) &&
            !entry_error(r, "the file ends in the middle of a line (no line end): the last line may be truncated"))
            return false;
        if (r->opt.progress && (r->lineno & 0xfff) == 0)
            progress_update(r->opt.progress, src->consumed);
    }
    if (rc < 0) {
        r->fatal = true;
        if (src->io_error)
            return error_set(r->err, r->err_len, "%s:%llu: read error: %s", r->name, (unsigned long long)r->lineno + 1,
                             strerror(errno));
        return error_set(r->err, r->err_len, "%s:%llu: line longer than %zu bytes", r->name,
                         (unsigned long long)r->lineno + 1, src->max_line);
    }
    if (r->opt.progress)
        progress_update(r->opt.progress, src->consumed);
    return true;
}

/* ---- the applier ---- */

typedef struct {
    uint32_t id;
    bool have_id;
    uint64_t duplicate_positions, duplicate_moves, errors;
    bool fatal;
    char err[512];
    BookKey keys[BATCH_POSITIONS];
} Applier;

static bool apply_error(Reader *r, Applier *a, uint64_t lineno, const char *reason) {
    a->errors++;
    if (r->opt.on_error)
        r->opt.on_error(r->opt.ctx, r->name, lineno, reason);
    if (r->opt.strict) {
        snprintf(a->err, sizeof a->err, "%s:%llu: %s", r->name, (unsigned long long)lineno, reason);
        a->fatal = true;
        return false;
    }
    return true;
}

static bool apply_batch(Reader *r, Applier *a, const Batch *b) {
    /* Keys first, then prefetch each one's hash slot a few positions ahead. */
    BookKey *keys = a->keys;
    for (size_t i = 0; i < b->npos; i++) {
        book_key_from_position(&b->pos[i], &keys[i]);
        if (i >= 8)
            book_prefetch(r->book, &keys[i]);
    }
    for (size_t i = 0; i < b->npos && i < 8; i++)
        book_prefetch(r->book, &keys[i]);
    for (size_t i = 0; i < b->n; i++) {
        const Event *e = &b->ev[i];
        switch (e->kind) {
        case EV_POSITION: {
            if (r->entry_fn && book_position_count(r->book)) {
                if (!r->entry_fn(r->entry_ctx, r->book, &r->entry_pos)) {
                    snprintf(a->err, sizeof a->err, "%s:%llu: stopped", r->name, (unsigned long long)e->lineno);
                    a->fatal = true;
                    return false;
                }
                book_clear(r->book);
            }
            size_t before = book_position_count(r->book);
            if (!book_add_position(r->book, &keys[e->u.pos], e->ply, &a->id)) {
                snprintf(a->err, sizeof a->err, "%s:%llu: out of memory", r->name, (unsigned long long)e->lineno);
                a->fatal = true;
                return false;
            }
            a->have_id = true;
            a->duplicate_positions += book_position_count(r->book) == before;
            if (r->entry_fn)
                r->entry_pos = b->pos[e->u.pos];
            break;
        }
        case EV_MOVE: {
            bool merged;
            if (!a->have_id)
                break;
            if (!book_add_move(r->book, a->id, &e->u.move, &merged)) {
                if (book_position_move_count(r->book, a->id) >= BOOK_MAX_MOVES) {
                    char reason[64];
                    snprintf(reason, sizeof reason, "more than %d moves in one position", BOOK_MAX_MOVES);
                    if (!apply_error(r, a, e->lineno, reason))
                        return false;
                    break;
                }
                snprintf(a->err, sizeof a->err, "%s:%llu: out of memory", r->name, (unsigned long long)e->lineno);
                a->fatal = true;
                return false;
            }
            a->duplicate_moves += merged;
            break;
        }
        case EV_COMMENT:
            if (a->have_id && !book_append_comment(r->book, a->id, e->target, b->text + e->u.text.off, e->u.text.len)) {
                snprintf(a->err, sizeof a->err, "%s:%llu: out of memory", r->name, (unsigned long long)e->lineno);
                a->fatal = true;
                return false;
            }
            break;
        case EV_ERROR: {
            char reason[300];
            size_t n = e->u.text.len < sizeof reason - 1 ? e->u.text.len : sizeof reason - 1;
            memcpy(reason, b->text + e->u.text.off, n);
            reason[n] = '\0';
            if (r->opt.on_error)
                r->opt.on_error(r->opt.ctx, r->name, e->lineno, reason);
            break;
        }
        }
    }
    return true;
}

/* A batch sized for input_len bytes of text: full size for big inputs, small for small
 * ones (a fuzzer's input or a tiny book), so that a short read does not allocate and
 * touch a megabyte. Any size is correct: emit() hands a full batch over. The text part
 * holds at least two reasons (256 bytes each) and, from 2 * input_len, any comment. */
static bool batch_alloc(Batch *b, uint64_t input_len) {
    uint64_t ev = input_len / 8 + 64, pos = input_len / 32 + 16, text = 2 * input_len + 1024;
    b->ev_cap = ev < BATCH_EVENTS ? (size_t)ev : BATCH_EVENTS;
    b->pos_cap = pos < BATCH_POSITIONS ? (size_t)pos : BATCH_POSITIONS;
    b->text_cap = text < BATCH_TEXT ? (size_t)text : BATCH_TEXT;
    b->ev = malloc(b->ev_cap * sizeof *b->ev);
    b->pos = malloc(b->pos_cap * sizeof *b->pos);
    b->text = malloc(b->text_cap);
    b->n = b->npos = b->tlen = 0;
    return b->ev && b->pos && b->text;
}

static void batch_free(Batch *b) {
    free(b->ev);
    free(b->pos);
    free(b->text);
}

/* Single thread: apply each batch as soon as it fills. */
typedef struct {
    Applier a;
} DirectPipe;

static bool direct_flush(Reader *r) {
    DirectPipe *d = r->pipe;
    bool ok = apply_batch(r, &d->a, r->batch);
    r->batch->n = r->batch->npos = r->batch->tlen = 0;
    return ok;
}

/* Two threads: the parser fills batches, the caller's thread applies them. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    Batch batches[QUEUE];
    Batch *full[QUEUE], *empty[QUEUE];
    int nfull, nempty;
    bool done, stop;
    Reader *r;
    LineSource *src;
    bool parse_ok;
} ThreadPipe;

static bool thread_flush(Reader *r) {
    ThreadPipe *t = r->pipe;
    pthread_mutex_lock(&t->mu);
    t->full[t->nfull++] = r->batch;
    pthread_cond_broadcast(&t->cv);
    while (!t->nempty && !t->stop)
        pthread_cond_wait(&t->cv, &t->mu);
    bool ok = !t->stop;
    r->batch = ok ? t->empty[--t->nempty] : NULL;
    pthread_mutex_unlock(&t->mu);
    if (ok)
        r->batch->n = r->batch->npos = r->batch->tlen = 0;
    return ok;
}

static void *parser_thread(void *arg) {
    ThreadPipe *t = arg;
    bool ok = run_reader(t->r, t->src);
    /* Deliver what is left, also after a fatal line (its error report is in there). */
    if (t->r->batch && t->r->batch->n) {
        bool delivered = thread_flush(t->r);
        ok = ok && delivered;
    }
    pthread_mutex_lock(&t->mu);
    t->parse_ok = ok;
    t->done = true;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

static bool run_direct(Reader *r, LineSource *src, uint64_t input_len) {
    DirectPipe *d = malloc(sizeof *d);
    Batch *b = calloc(1, sizeof *b);
    if (d) /* the key scratch is written before it is read: no need to clear it */
        memset(&d->a, 0, offsetof(Applier, keys));
    if (!d || !b || !batch_alloc(b, input_len)) {
        if (b)
            batch_free(b);
        free(b);
        free(d);
        return error_set(r->err, r->err_len, "%s: out of memory", r->name);
    }
    r->batch = b;
    r->flush = direct_flush;
    r->pipe = d;
    bool ok = run_reader(r, src);
    bool applied = apply_batch(r, &d->a, b); /* the rest, also before a fatal line */
    r->batch = NULL;
    r->pipe = NULL;
    r->st.duplicate_positions = d->a.duplicate_positions;
    r->st.duplicate_moves = d->a.duplicate_moves;
    r->st.errors += d->a.errors;
    if (ok && !applied)
        ok = error_set(r->err, r->err_len, "%s", d->a.err);
    else if (!ok && d->a.fatal && !r->fatal)
        error_set(r->err, r->err_len, "%s", d->a.err);
    batch_free(b);
    free(b);
    free(d);
    return ok && applied;
}

static bool run_threaded(Reader *r, LineSource *src) {
    ThreadPipe *t = calloc(1, sizeof *t);
    if (!t)
        return error_set(r->err, r->err_len, "%s: out of memory", r->name);
    bool alloc_ok = true;
    for (int i = 0; i < QUEUE; i++)
        alloc_ok &= batch_alloc(&t->batches[i], UINT64_MAX / 4);
    pthread_t th;
    if (!alloc_ok || pthread_mutex_init(&t->mu, NULL) != 0) {
        for (int i = 0; i < QUEUE; i++)
            batch_free(&t->batches[i]);
        free(t);
        return run_direct(r, src, UINT64_MAX / 4);
    }
    pthread_cond_init(&t->cv, NULL);
    for (int i = 1; i < QUEUE; i++)
        t->empty[t->nempty++] = &t->batches[i];
    r->batch = &t->batches[0];
    r->flush = thread_flush;
    r->pipe = t;
    t->r = r;
    t->src = src;
    Applier a;
    memset(&a, 0, sizeof a);
    bool applied = true;
    if (pthread_create(&th, NULL, parser_thread, t) != 0) {
        pthread_cond_destroy(&t->cv);
        pthread_mutex_destroy(&t->mu);
        for (int i = 0; i < QUEUE; i++)
            batch_free(&t->batches[i]);
        free(t);
        return run_direct(r, src, UINT64_MAX / 4);
    }
    pthread_mutex_lock(&t->mu);
    for (;;) {
        while (!t->nfull && !t->done)
            pthread_cond_wait(&t->cv, &t->mu);
        if (!t->nfull)
            break;
        Batch *b = t->full[0];
        for (int i = 1; i < t->nfull; i++)
            t->full[i - 1] = t->full[i];
        t->nfull--;
        pthread_mutex_unlock(&t->mu);
        if (applied)
            applied = apply_batch(r, &a, b);
        pthread_mutex_lock(&t->mu);
        t->empty[t->nempty++] = b;
        if (!applied)
            t->stop = true;
        pthread_cond_broadcast(&t->cv);
    }
    pthread_mutex_unlock(&t->mu);
    pthread_join(th, NULL);
    bool ok = t->parse_ok;
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    for (int i = 0; i < QUEUE; i++)
        batch_free(&t->batches[i]);
    free(t);
    r->st.duplicate_positions = a.duplicate_positions;
    r->st.duplicate_moves = a.duplicate_moves;
    r->st.errors += a.errors;
    if (!applied)
        return error_set(r->err, r->err_len, "%s", a.err);
    return ok;
}

static void reader_init(Reader *r, const char *name, Book *book, const Db2016ReadOptions *opt, char *err,
                        size_t err_len) {
    memset(r, 0, sizeof *r);
    r->name = name;
    r->book = book;
    if (opt)
        r->opt = *opt;
    if (!r->opt.max_line)
        r->opt.max_line = DB2016_MAX_LINE_DEFAULT;
    if (r->opt.first_line)
        r->lineno = r->opt.first_line - 1; /* the header is only looked for on line 1 */
    r->err = err;
    r->err_len = err_len;
    r->st.sorted = true;
}

bool db2016_read_memory(const char *name, const char *data, size_t len, Book *book, const Db2016ReadOptions *opt,
                        Db2016Stats *stats, char *err, size_t err_len) {
    shogi_init();
    Reader *r = malloc(sizeof *r);
    if (!r)
        return error_set(err, err_len, "%s: out of memory", name);
    reader_init(r, name, book, opt, err, err_len);
    LineSource src = {.fd = -1, .mem = data, .mem_len = len, .max_line = r->opt.max_line};
    bool ok = run_direct(r, &src, len);
    if (stats)
        *stats = r->st;
    free(r);
    return ok;
}

static bool read_file(const char *path, Book *book, Db2016EntryFn fn, void *ctx, const Db2016ReadOptions *opt,
                      Db2016Stats *stats, char *err, size_t err_len) {
    shogi_init();
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return error_set(err, err_len, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    bool known = fstat(fd, &sb) == 0;
    bool big = known && sb.st_size > (off_t)(8 << 20);
    uint64_t size = known && sb.st_size >= 0 ? (uint64_t)sb.st_size : UINT64_MAX / 4;
    Reader *r = malloc(sizeof *r);
    if (!r) {
        close(fd);
        return error_set(err, err_len, "%s: out of memory", path);
    }
    reader_init(r, path, book, opt, err, err_len);
    r->entry_fn = fn;
    r->entry_ctx = ctx;
    LineSource src = {.fd = fd, .max_line = r->opt.max_line};
    src.cap = r->opt.max_line + READ_CHUNK;
    src.buf = malloc(src.cap);
    bool ok;
    if (!src.buf) {
        ok = error_set(err, err_len, "%s: out of memory", path);
    } else {
#ifdef POSIX_FADV_SEQUENTIAL
        posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
        /* Size the index once for the file (about 150 bytes per position in real and
         * synthetic books): no rehash in the middle of a load. */
        if (big && !r->entry_fn)
            book_reserve(book, (size_t)sb.st_size / 150 + 1024);
        /* Big files parse on a second thread; the book is only touched by this one. */
        ok = big ? run_threaded(r, &src) : run_direct(r, &src, size);
        if (ok && fn && book_position_count(book) && !fn(ctx, book, &r->entry_pos))
            ok = error_set(err, err_len, "%s:%llu: stopped", path, (unsigned long long)r->lineno);
    }
    if (stats)
        *stats = r->st;
    free(src.buf);
    free(r);
    close(fd);
    return ok;
}

bool db2016_read_file(const char *path, Book *book, const Db2016ReadOptions *opt, Db2016Stats *stats, char *err,
                      size_t err_len) {
    return read_file(path, book, NULL, NULL, opt, stats, err, err_len);
}

bool db2016_read_entries(const char *path, Db2016EntryFn fn, void *ctx, const Db2016ReadOptions *opt,
                         Db2016Stats *stats, char *err, size_t err_len) {
    Book *scratch = book_create();
    if (!scratch)
        return error_set(err, err_len, "%s: out of memory", path);
    bool ok = read_file(path, scratch, fn, ctx, opt, stats, err, err_len);
    book_free(scratch);
    return ok;
}
