/* open.c - see open.h. The format table is at the end of the file. */
#include "book/open.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "book/apery.h"
#include "book/db2016.h"
#include "book/osl.h"
#include "book/sbk.h"
#include "book/ybb.h"
#include "shogi/movegen.h"
#include "util/error.h"
#include "util/progress.h"

enum { SNIFF_BYTES = 64 * 1024, WARN_PRINTED = 10 };

/* Callbacks of one table row. Every pointer but the prober's and the writer's is set. */
typedef bool (*SniffFn)(const uint8_t *head, size_t len, uint64_t size);
typedef bool (*ReadFn)(const char *path, Book *b, const BookReadOptions *o, BookReadReport *r, char *err,
                       size_t err_len);
typedef void *(*ProbeOpenFn)(const char *path, const BookReadOptions *o, BookReadReport *r, size_t *positions,
                             char *err, size_t err_len);
typedef void (*ProbeCloseFn)(void *ctx);
typedef bool (*WriteFn)(const char *path, const Book *b, const BookWriteOptions *o, BookWriteReport *r, char *err,
                        size_t err_len);

struct BookFormat {
    const char *id;            /* --from/--to word */
    const char *alias;         /* another accepted word, or NULL */
    const char *name;          /* for people */
    const char *extensions[3]; /* lower case, with the dot; tie-break and output naming only */
    SniffFn sniff;             /* positive evidence from the first bytes and the size */
    ReadFn read;               /* into the book IR */
    ProbeOpenFn probe_open;    /* NULL: lookups go through the IR in memory */
    BookProbeFn probe;
    ProbeCloseFn probe_close;
    bool probe_always; /* probe on disk even when not asked to (a read loses entries) */
    WriteFn write;     /* NULL: we cannot write it */
};

/* ---- warnings ---- */

typedef struct {
    FILE *log;
    uint64_t n;
} WarnSink;

static void warn_line(void *ctx, const char *file, uint64_t line, const char *reason) {
    WarnSink *w = ctx;
    if (w->log && w->n < WARN_PRINTED)
        fprintf(w->log, "warning: %s:%llu: %s\n", file, (unsigned long long)line, reason);
    w->n++;
}

static void warn_finish(const WarnSink *w, const char *path) {
    if (w->log && w->n > WARN_PRINTED)
        fprintf(w->log, "warning: %s: %llu more warning(s) not shown\n", path,
                (unsigned long long)(w->n - WARN_PRINTED));
}

static uint64_t file_size(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
}

/* ---- DB2016 ---- */

static bool db_sniff(const uint8_t *h, size_t len, uint64_t size) {
    (void)size;
    if (memchr(h, 0, len))
        return false;
    size_t i = len >= 3 && h[0] == 0xEF && h[1] == 0xBB && h[2] == 0xBF ? 3 : 0;
    if (len - i >= 17 && memcmp(h + i, "#YANEURAOU-DB2016", 17) == 0)
        return true;
    /* Otherwise the first line that is neither blank nor a comment must be an sfen line. */
    while (i < len) {
        size_t e = i;
        while (e < len && h[e] != '\n')
            e++;
        size_t n = e - i;
        while (n && (h[i + n - 1] == '\r' || h[i + n - 1] == ' ' || h[i + n - 1] == '\t'))
            n--;
        if (n && h[i] != '#' && !(n >= 2 && h[i] == '/' && h[i + 1] == '/'))
            return n > 5 && memcmp(h + i, "sfen ", 5) == 0 && (e < len || len == size); /* a whole line */
        i = e + 1;
    }
    return false;
}

static bool db_read(const char *path, Book *b, const BookReadOptions *o, BookReadReport *r, char *err, size_t err_len) {
    Progress pr;
    progress_start(&pr, o->log, "reading book", file_size(path), o->quiet || !o->log);
    WarnSink ws = {o->log, 0};
    Db2016ReadOptions ro = {.keep_comments = o->keep_comments,
                            .shogihome_columns = o->shogihome_columns,
                            .on_error = warn_line,
                            .ctx = &ws,
                            .progress = &pr};
    bool ok = db2016_read_file(path, b, &ro, &r->db, err, err_len);
    progress_finish(&pr);
    warn_finish(&ws, path);
    r->warnings += ws.n;
    return ok;
}

static void *db_probe_open(const char *path, const BookReadOptions *o, BookReadReport *r, size_t *positions, char *err,
                           size_t err_len) {
    (void)o, (void)r;
    *positions = 0;
    return db2016_otf_open(path, err, err_len);
}

static int db_probe(void *ctx, const Position *pos, BookMoveList *out, char *err, size_t err_len) {
    return db2016_otf_lookup(ctx, pos, out, err, err_len);
}

static void db_probe_close(void *ctx) { db2016_otf_close(ctx); }

static bool db_write(const char *path, const Book *b, const BookWriteOptions *o, BookWriteReport *r, char *err,
                     size_t err_len) {
    Progress pr;
    progress_start(&pr, o->log, "writing book", book_position_count(b), o->quiet || !o->log);
    Db2016WriteCounts counts = {0};
    Db2016WriteOptions wo = {.write_comments = o->write_comments, .progress = &pr, .counts = &counts};
    bool ok = db2016_write_file(path, b, &wo, err, err_len);
    progress_finish(&pr);
    if (ok) {
        r->positions = counts.positions;
        r->moves = counts.moves;
    }
    return ok;
}

/* ---- YBB ---- */

static bool ybb_sniff(const uint8_t *h, size_t len, uint64_t size) {
    (void)size;
    return ybb_is_ybb(h, len);
}

static bool ybb_read(const char *path, Book *b, const BookReadOptions *o, BookReadReport *r, char *err,
                     size_t err_len) {
    (void)o, (void)r;
    return ybb_read_file(path, b, err, err_len);
}

/* ---- SBK ---- */

/* Reads a varint at *p (below end); false when it does not end there or is too long. */
static bool varint(const uint8_t *h, size_t *p, size_t end, uint64_t *v) {
    *v = 0;
    for (int shift = 0; shift < 64 && *p < end; shift += 7) {
        uint8_t c = h[(*p)++];
        *v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return true;
    }
    return false;
}

/* Wire types of SBookState's fields 1..10 (sbk.proto). */
static const int8_t STATE_WIRE[11] = {-1, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2};

/* An SBK file is one SBook message: top-level fields 1 and 2 (strings) and 3 (states),
 * all length-delimited, each fitting in the file, at least one state, and each state's
 * first field one of SBookState's with its wire type. */
static bool sbk_sniff(const uint8_t *h, size_t len, uint64_t size) {
    size_t p = 0;
    uint64_t states = 0;
    while (p < len) {
        uint64_t tag, n;
        if (!varint(h, &p, len, &tag))
            return false;
        uint64_t field = tag >> 3;
        if ((tag & 7) != 2 || field < 1 || field > 3 || !varint(h, &p, len, &n) || n > size - p)
            return false;
        if (field == 3) {
            states++;
            if (n && p < len) {
                size_t q = p;
                uint64_t stag;
                if (varint(h, &q, len, &stag) &&
                    (stag >> 3 < 1 || stag >> 3 > 10 || (int)(stag & 7) != STATE_WIRE[stag >> 3]))
                    return false;
            }
        }
        if (n >= size - p)
            return states > 0 && n == size - p; /* the last field ends the file */
        p += (size_t)n;
    }
    return states > 0;
}

static bool sbk_read(const char *path, Book *b, const BookReadOptions *o, BookReadReport *r, char *err,
                     size_t err_len) {
    SbkOpenStats os;
    SbkBook *sb = sbk_open(path, NULL, &os, err, err_len);
    if (!sb)
        return false;
    Progress pr;
    progress_start(&pr, o->log, "reading book", sbk_indexed_count(sb), o->quiet || !o->log);
    SbkImportStats is;
    bool ok = sbk_to_book(sb, b, &pr, &is, err, err_len);
    progress_finish(&pr);
    uint64_t bad = os.unresolved + os.bad_edges + os.bad_moves + os.bad_positions + os.contradictions;
    if (bad && o->log)
        fprintf(o->log,
                "warning: %s: %llu state(s) not reached, %llu bad edge(s), %llu bad move(s), %llu bad "
                "position(s), %llu contradictory edge(s)\n",
                path, (unsigned long long)os.unresolved, (unsigned long long)os.bad_edges,
                (unsigned long long)os.bad_moves, (unsigned long long)os.bad_positions,
                (unsigned long long)os.contradictions);
    if (ok && is.illegal_moves && o->log)
        fprintf(o->log, "warning: %s: %llu illegal move(s) skipped\n", path, (unsigned long long)is.illegal_moves);
    r->warnings += bad + (ok ? is.illegal_moves : 0);
    sbk_close(sb);
    return ok;
}

static void *sbk_probe_open(const char *path, const BookReadOptions *o, BookReadReport *r, size_t *positions, char *err,
                            size_t err_len) {
    (void)o, (void)r;
    SbkBook *sb = sbk_open(path, NULL, NULL, err, err_len);
    *positions = sb ? sbk_indexed_count(sb) : 0;
    return sb;
}

static void sbk_probe_close(void *ctx) { sbk_close(ctx); }

static bool sbk_write(const char *path, const Book *b, const BookWriteOptions *o, BookWriteReport *r, char *err,
                      size_t err_len) {
    Progress pr;
    progress_start(&pr, o->log, "writing book", book_position_count(b), o->quiet || !o->log);
    SbkWriteOptions wo = {.author = o->author, .description = o->description, .progress = &pr};
    SbkWriteReport rep;
    bool ok = sbk_write_file(path, b, &wo, &rep, err, err_len);
    progress_finish(&pr);
    if (ok) {
        r->positions = rep.states;
        r->moves = rep.moves;
        r->ponders = rep.ponders;
        r->depths = rep.depths;
        r->scores = rep.scores;
        r->counts = rep.counts;
        r->illegal_moves = rep.illegal_moves;
        r->clamped = rep.weight_clamped;
    }
    return ok;
}

/* ---- Apery ---- */

/* 16-byte entries sorted by key (as Apery, YaneuraOu and ShogiHome write them) whose
 * moves name squares on the board. */
static bool apery_sniff(const uint8_t *h, size_t len, uint64_t size) {
    if (!size || size % 16)
        return false;
    size_t n = len / 16;
    if (!n)
        return false;
    uint64_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *e = h + i * 16;
        uint64_t key = 0;
        for (int b = 7; b >= 0; b--)
            key = key << 8 | e[b];
        unsigned m = (unsigned)(e[8] | e[9] << 8), to = m & 0x7f, from = (m >> 7) & 0x7f;
        bool promote = (m >> 14) & 1;
        if ((i && key < prev) || (m >> 15) || to >= SQ_NB || from >= SQ_NB + 7 || (promote && from >= SQ_NB) ||
            from == to)
            return false;
        prev = key;
    }
    return true;
}

/* The Apery book reaches something when the start position or one move after it is in
 * it: the walk of apery_to_book() and the engine both start there. */
static bool apery_reachable(const AperyBook *ab) {
    StateInfo st, st2;
    Position pos;
    position_set_startpos(&pos, &st);
    BookMoveList *list = malloc(sizeof *list);
    ExtMove *moves = malloc(sizeof(ExtMove) * MAX_MOVES);
    bool hit = false;
    if (list && moves) {
        hit = apery_lookup(ab, &pos, list);
        int n = hit ? 0 : generate_moves(&pos, GEN_LEGAL, moves);
        for (int i = 0; i < n && !hit; i++) {
            position_do_move(&pos, moves[i].move, &st2);
            hit = apery_lookup(ab, &pos, list);
            position_undo_move(&pos, moves[i].move);
        }
    }
    free(list);
    free(moves);
    return hit;
}

static bool apery_read(const char *path, Book *b, const BookReadOptions *o, BookReadReport *r, char *err,
                       size_t err_len) {
    AperyBook *ab = apery_open(path, err, err_len);
    if (!ab)
        return false;
    AperyConvertStats st;
    bool ok = apery_to_book(ab, o->unreg_depth > 0 ? o->unreg_depth : 1, b, &st, err, err_len);
    if (ok && st.positions == 0)
        ok = error_set(err, err_len,
                       "%s: none of its %zu keys is reachable from the start position: not an Apery book we can "
                       "read",
                       path, apery_key_count(ab));
    if (ok) {
        snprintf(r->note, sizeof r->note,
                 "apery: %zu keys, %llu positions recovered from the start position, %llu collisions, %llu keys "
                 "not reached",
                 apery_key_count(ab), (unsigned long long)st.positions, (unsigned long long)st.collisions,
                 (unsigned long long)st.unreached);
        r->warnings += st.collisions;
    }
    apery_free(ab);
    return ok;
}

static void *apery_probe_open(const char *path, const BookReadOptions *o, BookReadReport *r, size_t *positions,
                              char *err, size_t err_len) {
    (void)o, (void)r;
    AperyBook *ab = apery_open(path, err, err_len);
    if (ab && !apery_reachable(ab)) {
        error_set(err, err_len,
                  "%s: neither the start position nor a move after it is among its %zu keys: not an Apery book "
                  "we can use",
                  path, apery_key_count(ab));
        apery_free(ab);
        ab = NULL;
    }
    *positions = ab ? apery_key_count(ab) : 0;
    return ab;
}

static int apery_probe(void *ctx, const Position *pos, BookMoveList *out, char *err, size_t err_len) {
    (void)err, (void)err_len;
    return apery_lookup(ctx, pos, out) ? 1 : 0;
}

static void apery_probe_close(void *ctx) { apery_free(ctx); }

/* ---- OSL WeightedBook (GPS Shogi's joseki.dat): counts that give the exact file size ---- */

static bool osl_sniff(const uint8_t *h, size_t len, uint64_t size) { return osl_probe_header(h, len, size); }

static bool osl_read(const char *path, Book *b, const BookReadOptions *o, BookReadReport *r, char *err,
                     size_t err_len) {
    OslStats st;
    if (!osl_read_file(path, b, &(OslReadOptions){.keep_zero = o->keep_zero}, &st, err, err_len))
        return false;
    snprintf(r->note, sizeof r->note,
             "osl: %u states, %u moves; %llu positions, %llu moves kept (%llu weight-0 moves and %llu positions "
             "without a weighted move left out)",
             st.states, st.moves, (unsigned long long)st.positions, (unsigned long long)st.book_moves,
             (unsigned long long)st.zero_moves_dropped, (unsigned long long)st.positions_dropped);
    return true;
}

/* ---- the table: one row per format, strongest evidence first ----
 * To add a format (e.g. GPS Shogi's joseki.dat from book/osl.h): write its evidence
 * (SniffFn: true only on the format's own marks, never on the name) and a reader into the
 * IR (ReadFn), both thin adapters over the format's API as in the sections above, and add
 * a row. A prober (ProbeOpenFn, BookProbeFn, ProbeCloseFn) and a writer are optional.
 * Earlier rows win a tie that the extension does not break. */

static const BookFormat FORMATS[] = {
    {"ybb", NULL, "YBB (YANE-BINBOOK-V1)", {".ybb"}, ybb_sniff, ybb_read, NULL, NULL, NULL, false, NULL},
    {"osl",
     NULL,
     "OSL WeightedBook (GPS Shogi joseki.dat)",
     {".dat"},
     osl_sniff,
     osl_read,
     NULL,
     NULL,
     NULL,
     false,
     NULL},
    {"db",
     "db2016",
     "YaneuraOu DB2016 (text)",
     {".db"},
     db_sniff,
     db_read,
     db_probe_open,
     db_probe,
     db_probe_close,
     false,
     db_write},
    {"sbk",
     NULL,
     "ShogiGUI/ShogiHome SBK",
     {".sbk"},
     sbk_sniff,
     sbk_read,
     sbk_probe_open,
     sbk_probe,
     sbk_probe_close,
     false,
     sbk_write},
    {"apery",
     "bin",
     "Apery book.bin",
     {".bin"},
     apery_sniff,
     apery_read,
     apery_probe_open,
     apery_probe,
     apery_probe_close,
     true,
     NULL},
};
enum { N_FORMATS = sizeof FORMATS / sizeof FORMATS[0] };

const BookFormat *book_format_by_id(const char *id) {
    for (int i = 0; i < N_FORMATS; i++)
        if (!strcasecmp(id, FORMATS[i].id) || (FORMATS[i].alias && !strcasecmp(id, FORMATS[i].alias)))
            return &FORMATS[i];
    return NULL;
}

const char *book_format_ids(char *buf, size_t len) {
    size_t n = 0;
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < N_FORMATS && n < len; i++) {
        int w = snprintf(buf + n, len - n, "%s%s", i ? ", " : "", FORMATS[i].id);
        n += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

const char *book_format_name(const BookFormat *f) { return f ? f->name : "unknown"; }
const char *book_format_id(const BookFormat *f) { return f ? f->id : "unknown"; }

bool book_format_is(const BookFormat *f, const char *id) { return f && f == book_format_by_id(id); }

/* True when path ends with one of f's extensions. */
static bool has_extension(const BookFormat *f, const char *path) {
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return false;
    for (int k = 0; k < 3 && f->extensions[k]; k++)
        if (!strcasecmp(dot, f->extensions[k]))
            return true;
    return false;
}

static const BookFormat *detect(const char *name, const uint8_t *head, size_t len, uint64_t size, char *err,
                                size_t err_len) {
    if (size == 0) {
        error_set(err, err_len, "%s: empty file: not a book", name);
        return NULL;
    }
    const BookFormat *found = NULL;
    for (int i = 0; i < N_FORMATS; i++) {
        if (!FORMATS[i].sniff(head, len, size))
            continue;
        if (!found || (has_extension(&FORMATS[i], name) && !has_extension(found, name)))
            found = &FORMATS[i]; /* the extension only breaks a tie */
    }
    if (!found)
        error_set(err, err_len,
                  "%s: not a book we know (no DB2016 header or sfen line, no YBB magic, not an SBK message, not "
                  "Apery's sorted 16-byte entries)",
                  name);
    return found;
}

const BookFormat *book_format_detect_memory(const char *name, const void *head, size_t len, uint64_t file_size,
                                            char *err, size_t err_len) {
    return detect(name, head, len, file_size, err, err_len);
}

const BookFormat *book_format_detect(const char *path, char *err, size_t err_len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        error_set(err, err_len, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    uint8_t *head = malloc(SNIFF_BYTES);
    if (!head) {
        fclose(f);
        error_set(err, err_len, "%s: out of memory", path);
        return NULL;
    }
    size_t len = fread(head, 1, SNIFF_BYTES, f);
    bool bad = ferror(f);
    int e = errno; /* the reason: a directory reads as EISDIR */
    fclose(f);
    const BookFormat *fmt = bad ? (error_set(err, err_len, "%s: cannot read: %s", path, strerror(e)), NULL)
                                : detect(path, head, len, file_size(path), err, err_len);
    free(head);
    return fmt;
}

static const BookReadOptions NO_READ_OPTIONS = {0};

/* The start both openers share: clears *rep, defaults *opt, detects the format when *fmt is
 * NULL and names it in the report. False (reason in err) when the format is unknown. */
static bool open_start(const char *path, const BookFormat **fmt, const BookReadOptions **opt, BookReadReport *rep,
                       char *err, size_t err_len) {
    memset(rep, 0, sizeof *rep);
    if (!*opt)
        *opt = &NO_READ_OPTIONS;
    if (!*fmt && !(*fmt = book_format_detect(path, err, err_len)))
        return false;
    rep->format = *fmt;
    return true;
}

Book *book_open_read(const char *path, const BookFormat *fmt, const BookReadOptions *opt, BookReadReport *rep,
                     char *err, size_t err_len) {
    BookReadReport local;
    if (!rep)
        rep = &local;
    if (!open_start(path, &fmt, &opt, rep, err, err_len))
        return NULL;
    Book *b = book_create();
    if (!b) {
        error_set(err, err_len, "%s: out of memory", path);
        return NULL;
    }
    if (!fmt->read(path, b, opt, rep, err, err_len)) {
        book_free(b);
        return NULL;
    }
    if (book_position_count(b) == 0 && rep->warnings) {
        error_set(err, err_len, "%s: read as %s, but no position could be read (%llu warning(s))", path, fmt->name,
                  (unsigned long long)rep->warnings);
        book_free(b);
        return NULL;
    }
    book_shrink(b);
    return b;
}

struct BookProber {
    const BookFormat *format;
    Book *memory;
    void *disk;
    size_t positions;
    uint64_t size;
};

BookProber *book_prober_open(const char *path, const BookFormat *fmt, bool on_the_fly, const BookReadOptions *opt,
                             BookReadReport *rep, char *err, size_t err_len) {
    BookReadReport local;
    if (!rep)
        rep = &local;
    if (!open_start(path, &fmt, &opt, rep, err, err_len))
        return NULL;
    BookProber *p = calloc(1, sizeof *p);
    if (!p) {
        error_set(err, err_len, "%s: out of memory", path);
        return NULL;
    }
    p->format = fmt;
    p->size = file_size(path);
    if (fmt->probe_open && (on_the_fly || fmt->probe_always)) {
        char why[512];
        p->disk = fmt->probe_open(path, opt, rep, &p->positions, why, sizeof why);
        if (p->disk)
            return p;
        if (fmt->probe_always) {
            error_set(err, err_len, "%s", why);
            free(p);
            return NULL;
        }
        snprintf(rep->note, sizeof rep->note, "in memory: not usable on the fly (%.200s)", why);
    }
    char note[sizeof rep->note];
    memcpy(note, rep->note, sizeof note);
    p->memory = book_open_read(path, fmt, opt, rep, err, err_len);
    if (!p->memory) {
        free(p);
        return NULL;
    }
    if (note[0])
        memcpy(rep->note, note, sizeof note);
    p->positions = book_position_count(p->memory);
    return p;
}

BookSource book_prober_source(const BookProber *p) {
    return p->disk ? (BookSource){p->format->probe, p->disk} : book_source_memory(p->memory);
}

const Book *book_prober_memory(const BookProber *p) { return p->memory; }
bool book_prober_on_disk(const BookProber *p) { return p->disk != NULL; }
size_t book_prober_positions(const BookProber *p) { return p->positions; }
uint64_t book_prober_file_size(const BookProber *p) { return p->size; }

void book_prober_close(BookProber *p) {
    if (!p)
        return;
    if (p->disk)
        p->format->probe_close(p->disk);
    book_free(p->memory);
    free(p);
}

const BookFormat *book_format_for_output(const char *path, char *err, size_t err_len) {
    for (int i = 0; i < N_FORMATS; i++)
        if (has_extension(&FORMATS[i], path)) {
            if (FORMATS[i].write)
                return &FORMATS[i];
            error_set(err, err_len, "%s: writing %s is not supported (name the output .db or .sbk)", path,
                      FORMATS[i].name);
            return NULL;
        }
    return book_format_by_id("db");
}

static const BookWriteOptions NO_WRITE_OPTIONS = {0};

bool book_write(const char *path, const BookFormat *fmt, const Book *b, const BookWriteOptions *opt,
                BookWriteReport *rep, char *err, size_t err_len) {
    BookWriteReport local;
    if (!rep)
        rep = &local;
    memset(rep, 0, sizeof *rep);
    if (!opt)
        opt = &NO_WRITE_OPTIONS;
    if (!fmt && !(fmt = book_format_for_output(path, err, err_len)))
        return false;
    if (!fmt->write)
        return error_set(err, err_len, "%s: writing %s is not supported (db or sbk)", path, fmt->name);
    rep->format = fmt;
    return fmt->write(path, b, opt, rep, err, err_len);
}
