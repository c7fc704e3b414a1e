/* think_journal.c - `book think`'s journal (think_journal.h): blocks closed by a cksum end
 * line, the header that binds a journal to one run, the hostile-input reader and the
 * locked, fsync'ed writer. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bookgen/searcher.h"
#include "bookgen/think.h"
#include "bookgen/think_journal.h"
#include "shogi/notation.h"
#include "util/parse.h"

#define MAGIC "#hayanagi think journal 1"

/* A journal line longer than this is damage, not a journal line (SFEN and provenance are
 * far shorter). */
enum { LINE_MAX_BYTES = 2048 };

uint32_t think_journal_cksum(const char *data, size_t len) {
    uint32_t crc = 0;
    for (size_t i = 0; i < len; i++) {
        crc ^= (uint32_t)(unsigned char)data[i] << 24;
        for (int k = 0; k < 8; k++)
            crc = crc & 0x80000000u ? (crc << 1) ^ 0x04C11DB7u : crc << 1;
    }
    for (size_t n = len; n; n >>= 8) { /* POSIX appends the length, low byte first */
        crc ^= (uint32_t)(n & 0xff) << 24;
        for (int k = 0; k < 8; k++)
            crc = crc & 0x80000000u ? (crc << 1) ^ 0x04C11DB7u : crc << 1;
    }
    return ~crc;
}

/* ---- the input's identity ---- */

static uint64_t fnv64(uint64_t h, const void *data, size_t len) {
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static uint64_t fnv64_int(uint64_t h, int64_t v) {
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)((uint64_t)v >> (8 * i));
    return fnv64(h, b, sizeof b);
}

bool think_journal_book_identity(const Book *b, char *buf, size_t len) {
    uint64_t h = 14695981039346656037ULL;
    size_t n = book_position_count(b);
    uint32_t *ids = n ? book_sorted_ids(b) : NULL;
    if (n && !ids)
        return false;
    BookMoveList *list = malloc(sizeof *list);
    if (!list) {
        free(ids);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        BookKey k;
        book_position_key(b, ids[i], &k);
        h = fnv64(h, &k, sizeof k);
        h = fnv64_int(h, book_position_ply(b, ids[i]));
        int m = book_position_moves(b, ids[i], list);
        h = fnv64_int(h, m);
        for (int j = 0; j < m; j++) {
            const BookMove *bm = &list->moves[j];
            h = fnv64_int(h, bm->move);
            h = fnv64_int(h, bm->ponder);
            h = fnv64_int(h, bm->has_score ? bm->score : INT64_MIN);
            h = fnv64_int(h, bm->has_depth ? bm->depth : INT64_MIN);
            h = fnv64_int(h, (int64_t)bm->count);
        }
        BookStats s;
        if (book_get_stats(b, ids[i], MOVE_NONE, &s) && s.comment)
            h = fnv64(h, s.comment, strlen(s.comment) + 1);
        else
            h = fnv64_int(h, -1);
    }
    free(list);
    free(ids);
    snprintf(buf, len, "positions=%zu moves=%zu hash=%016" PRIx64, n, book_move_count(b), h);
    return true;
}

/* ---- reading ---- */

typedef struct {
    const char *name;
    FILE *warn;
    size_t shown;
    ThinkJournalScan *scan;
} Reader;

static void warnf(Reader *r, const char *fmt, ...) {
    r->scan->dropped++;
    if (!r->warn || r->shown++ >= THINK_JOURNAL_SHOWN_WARNINGS)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(r->warn, "%s", r->name);
    vfprintf(r->warn, fmt, ap);
    fprintf(r->warn, "\n");
    va_end(ap);
}

/* Copies the line at text (up to '\n' or end, at most LINE_MAX_BYTES) into a NUL-ended
 * buffer; false when it is too long or holds a NUL byte. */
static bool take_line(const char *text, size_t len, char *out) {
    if (len >= LINE_MAX_BYTES || memchr(text, '\0', len))
        return false;
    memcpy(out, text, len);
    out[len] = '\0';
    return true;
}

static bool all_printable(const char *s) {
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return false;
    return true;
}

/* "none" or a whole number in [lo, hi]. */
static bool field_number(const char *s, long long lo, long long hi, bool *has, long long *v) {
    *has = strcmp(s, "none") != 0;
    *v = 0;
    return !*has || parse_integer(s, lo, hi, v);
}

/* Checks one whole entry (the block at text, len bytes, its first line numbered line) and
 * adds it to done; false with the reason and the line in why/bad_line when it is invalid. */
static bool take_entry(const char *text, size_t len, size_t line, Book *done, const Book *allowed, char *why,
                       size_t why_len, size_t *bad_line) {
    char buf[LINE_MAX_BYTES];
    Position pos;
    StateInfo st;
    BookKey key;
    int ply = 0;
    uint32_t id;
    BookMove moves[SEARCHER_MAX_PV];
    int n = 0;
    char prov[LINE_MAX_BYTES] = "";
    size_t off = 0, ln = line;
    for (; off < len; ln++) {
        const char *nl = memchr(text + off, '\n', len - off);
        size_t l = (size_t)(nl - (text + off)); /* a block's lines all end in '\n' */
        *bad_line = ln;
        if (!take_line(text + off, l, buf)) {
            snprintf(why, why_len, "a line too long or with a NUL byte");
            return false;
        }
        off += l + 1;
        if (ln == line) { /* the sfen line */
            char e[256];
            if (strncmp(buf, "sfen ", 5) != 0) {
                snprintf(why, why_len, "an entry must start with a sfen line");
                return false;
            }
            if (!book_key_from_sfen(buf + 5, &key, &ply, e, sizeof e)) {
                snprintf(why, why_len, "bad SFEN: %.200s", e);
                return false;
            }
            if (!book_key_to_position(&key, &pos, &st, ply > 0 ? ply : 1)) {
                snprintf(why, why_len, "bad SFEN: not a legal position");
                return false;
            }
            if (book_find(done, &key, &id)) {
                snprintf(why, why_len, "the position is journaled twice");
                return false;
            }
            if (allowed && !book_find(allowed, &key, &id)) {
                snprintf(why, why_len, "not a position this run thinks");
                return false;
            }
            continue;
        }
        if (ln == line + 1) { /* the provenance line */
            ThinkProvenance p;
            if (strncmp(buf, "#think engine=", 14) != 0 || !all_printable(buf) ||
                !think_provenance_parse(buf + 1, &p)) {
                snprintf(why, why_len, "the second line must be the provenance (#think engine=...)");
                return false;
            }
            snprintf(prov, sizeof prov, "%s", buf + 1);
            continue;
        }
        char f[6][LINE_MAX_BYTES];
        int nf = sscanf(buf, "%2047s %2047s %2047s %2047s %2047s %2047s", f[0], f[1], f[2], f[3], f[4], f[5]);
        if (nf != 5) {
            snprintf(why, why_len, "a move line has 5 fields (move ponder score depth count)");
            return false;
        }
        if (n == SEARCHER_MAX_PV) {
            snprintf(why, why_len, "more than %d moves", SEARCHER_MAX_PV);
            return false;
        }
        Move m = position_parse_usi_move(&pos, f[0]);
        if (m == MOVE_NONE) {
            snprintf(why, why_len, "move '%.16s' is not legal in the position", f[0]);
            return false;
        }
        Move16 m16 = move_to_move16(m), p16 = MOVE_NONE;
        for (int k = 0; k < n; k++)
            if (moves[k].move == m16) {
                snprintf(why, why_len, "move '%.16s' is given twice", f[0]);
                return false;
            }
        if (strcmp(f[1], "none") != 0) {
            StateInfo st2;
            position_do_move(&pos, m, &st2);
            Move p = position_parse_usi_move(&pos, f[1]);
            position_undo_move(&pos, m);
            if (p == MOVE_NONE) {
                snprintf(why, why_len, "ponder '%.16s' is not legal after %.16s", f[1], f[0]);
                return false;
            }
            p16 = move_to_move16(p);
        }
        bool has_score, has_depth;
        long long score, depth, count;
        if (!field_number(f[2], -SEARCHER_MATE, SEARCHER_MATE, &has_score, &score)) {
            snprintf(why, why_len, "score '%.16s' is not a number in [-%d, %d] or none", f[2], SEARCHER_MATE,
                     SEARCHER_MATE);
            return false;
        }
        if (!field_number(f[3], 1, BOOK_DEPTH_MAX, &has_depth, &depth)) {
            snprintf(why, why_len, "depth '%.16s' is not a number in [1, %d] or none", f[3], BOOK_DEPTH_MAX);
            return false;
        }
        if (!parse_integer(f[4], 1, 1, &count)) {
            snprintf(why, why_len, "count '%.16s' is not 1", f[4]);
            return false;
        }
        moves[n++] = (BookMove){.move = m16,
                                .ponder = p16,
                                .score = (int32_t)score,
                                .depth = (int32_t)depth,
                                .count = 1,
                                .has_score = has_score,
                                .has_depth = has_depth};
    }
    if (ln < line + 2) {
        *bad_line = ln - 1;
        snprintf(why, why_len, "an entry needs its sfen and provenance lines");
        return false;
    }
    *bad_line = 0;
    why[0] = '\0';
    if (!book_add_position(done, &key, ply, &id) || !book_append_comment(done, id, MOVE_NONE, prov, strlen(prov)))
        return false;
    for (int k = 0; k < n; k++)
        if (!book_add_move(done, id, &moves[k], NULL))
            return false;
    return true;
}

/* Compares the header block with id; false with the reason in err. */
/* True when the line (l bytes at line) is prefix followed by exactly want. */
static bool line_is(const char *line, size_t l, const char *prefix, const char *want) {
    size_t p = strlen(prefix), w = strlen(want);
    return l == p + w && !memcmp(line, prefix, p) && !memcmp(line + p, want, w);
}

static bool starts(const char *line, size_t l, const char *prefix) {
    return l >= strlen(prefix) && !memcmp(line, prefix, strlen(prefix));
}

/* Compares the header block with id; false with the reason in err. Lines are compared in
 * place: the options of a run with many engines make a long line. */
static bool check_header(const char *text, size_t len, const char *name, const ThinkJournalId *id, char *err,
                         size_t err_len) {
    const char *their_name = "?", *their_input = "", *their_options = "";
    int name_len = 1, input_len = 0, options_len = 0;
    bool input_ok = false, options_ok = false, have_input = false, have_options = false;
    const char *options = id->options ? id->options : "";
    size_t off = 0;
    for (int ln = 0; off < len; ln++) {
        const char *line = text + off, *nl = memchr(line, '\n', len - off);
        size_t l = (size_t)(nl - line);
        off += l + 1;
        if (memchr(line, '\0', l) || l > INT_MAX) {
            snprintf(err, err_len, "%s:%d: a NUL byte in the header", name, ln + 1);
            return false;
        }
        if (ln == 0)
            continue; /* the magic line, checked by the caller */
        if (starts(line, l, "#input-name ")) {
            their_name = line + 12;
            name_len = (int)(l - 12);
        } else if (starts(line, l, "#input ")) {
            have_input = true;
            their_input = line + 7;
            input_len = (int)(l - 7);
            input_ok = line_is(line, l, "#input ", id->input);
        } else if (starts(line, l, "#options ")) {
            have_options = true;
            their_options = line + 9;
            options_len = (int)(l - 9);
            options_ok = line_is(line, l, "#options ", options);
        } else {
            snprintf(err, err_len, "%s:%d: unknown header line", name, ln + 1);
            return false;
        }
    }
    if (!have_input || !have_options) {
        snprintf(err, err_len, "%s: the header lacks its #input or #options line", name);
        return false;
    }
    if (!input_ok) {
        snprintf(err, err_len,
                 "%s was written for another input: %.*s (%.*s), this run reads %s (%s). Remove the journal to "
                 "start over, or rerun with the input it was written for",
                 name, name_len < 512 ? name_len : 512, their_name, input_len < 200 ? input_len : 200, their_input,
                 id->input_name ? id->input_name : "?", id->input);
        return false;
    }
    if (!options_ok) {
        snprintf(err, err_len,
                 "%s was written with other options:\n  journal:  %.*s\n  this run: %.1000s\nRemove the journal "
                 "to start over, or rerun with the same options",
                 name, options_len < 1000 ? options_len : 1000, their_options, options);
        return false;
    }
    return true;
}

bool think_journal_parse(const char *text, size_t len, const char *name, const ThinkJournalId *id, Book *done,
                         const Book *allowed, FILE *warn, ThinkJournalScan *scan, char *err, size_t err_len) {
    memset(scan, 0, sizeof *scan);
    Reader r = {.name = name, .warn = warn, .scan = scan};
    size_t magic = strlen(MAGIC);
    if (len == 0)
        return true;
    if (len < magic + 1 || memcmp(text, MAGIC "\n", magic + 1) != 0) {
        /* a header cut before its first line end, and nothing else, is a new journal */
        if (len <= magic && !memcmp(text, MAGIC, len) && !memchr(text, '\n', len)) {
            scan->cut_tail = true;
            return true;
        }
        snprintf(err, err_len,
                 "%s is not a journal of this version of `book think` (its first line is not '%s'); remove it "
                 "to start over",
                 name, MAGIC);
        return false;
    }
    size_t off = 0, line = 1, block = SIZE_MAX, block_line = 0;
    char why[256], buf[64];
    while (off < len) {
        const char *nl = memchr(text + off, '\n', len - off);
        if (!nl) /* a last line without its line end was cut */
            break;
        size_t l = (size_t)(nl - (text + off));
        bool blank = l == 0;
        if (block == SIZE_MAX && !blank) {
            block = off;
            block_line = line;
        }
        if (l >= 5 && !memcmp(text + off, "#end ", 5)) {
            uint64_t crc = 0, blen = 0;
            bool whole = false;
            if (l < sizeof buf) {
                memcpy(buf, text + off, l);
                buf[l] = '\0';
                char *sp = strchr(buf + 5, ' ');
                if (sp) {
                    *sp = '\0';
                    whole = parse_unsigned(buf + 5, &crc) && parse_unsigned(sp + 1, &blen) && crc <= UINT32_MAX &&
                            blen == off - block && think_journal_cksum(text + block, (size_t)blen) == crc;
                }
            }
            bool header = !scan->has_header && block == 0;
            if (!whole && header) {
                snprintf(err, err_len, "%s: the header is damaged (its end line does not match its bytes)", name);
                return false;
            }
            if (!whole)
                warnf(&r,
                      ":%zu: (byte %zu) an entry whose end line does not match its bytes (cut or damaged): "
                      "dropped, its position is searched again",
                      block_line, block);
            else if (header) {
                if (!check_header(text, off, name, id, err, err_len))
                    return false;
                scan->has_header = true;
            } else if (!scan->has_header) {
                warnf(&r, ":%zu: an entry before the header: dropped", block_line);
            } else {
                size_t bad = 0;
                if (take_entry(text + block, off - block, block_line, done, allowed, why, sizeof why, &bad))
                    scan->entries++;
                else if (why[0])
                    warnf(&r, ":%zu: %s; entry dropped, its position is searched again", bad, why);
                else {
                    snprintf(err, err_len, "out of memory");
                    return false;
                }
            }
            block = SIZE_MAX;
            scan->good_end = off + l + 1;
        }
        off += l + 1;
        line++;
    }
    if (!scan->has_header) { /* the header was cut: nothing was journaled after it */
        if (block != 0 && scan->good_end) {
            snprintf(err, err_len, "%s: no header before its first entry", name);
            return false;
        }
        scan->good_end = 0;
        scan->cut_tail = true;
        return true;
    }
    if (scan->good_end < len) {
        scan->cut_tail = true;
        warnf(&r,
              ": byte %zu: the last entry was cut (no end line, %zu bytes): dropped, its position is searched again",
              scan->good_end, len - scan->good_end);
    }
    if (warn && r.shown > THINK_JOURNAL_SHOWN_WARNINGS)
        fprintf(warn, "%s: %zu more warnings not shown\n", name, r.shown - THINK_JOURNAL_SHOWN_WARNINGS);
    return true;
}

/* ---- the locked file ---- */

struct ThinkJournal {
    int fd;
    char *path;
};

static bool write_all(int fd, const char *p, size_t n) {
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* Writes text and its end line at the file's end in one write (a kill then cuts at most
 * this block), then fsync. */
static bool append_block(int fd, const char *text, size_t len) {
    char *buf = malloc(len + 48);
    if (!buf) {
        errno = ENOMEM;
        return false;
    }
    memcpy(buf, text, len);
    int e = snprintf(buf + len, 48, "#end %" PRIu32 " %zu\n", think_journal_cksum(text, len), len);
    bool ok = write_all(fd, buf, len + (size_t)e) && fsync(fd) == 0;
    free(buf);
    return ok;
}

ThinkJournal *think_journal_open(const char *path, const ThinkJournalId *id, Book *done, const Book *allowed,
                                 FILE *warn, ThinkJournalScan *scan, char *err, size_t err_len) {
    memset(scan, 0, sizeof *scan);
    int fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, err_len, "%s: cannot open the journal: %s", path, strerror(errno));
        return NULL;
    }
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    if (fcntl(fd, F_SETLK, &fl) != 0) {
        int e = errno;
        struct flock q = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
        if ((e == EACCES || e == EAGAIN) && fcntl(fd, F_GETLK, &q) == 0 && q.l_type != F_UNLCK)
            snprintf(err, err_len,
                     "the journal %s is in use by another `book think` (pid %ld): two runs cannot share one "
                     "journal. Wait for that run to finish, or stop it and run this one again (the journal "
                     "then resumes its work); a run that writes another book needs its own --journal FILE",
                     path, (long)q.l_pid);
        else
            snprintf(err, err_len, "%s: cannot lock the journal: %s", path, strerror(e));
        close(fd);
        return NULL;
    }
    struct stat sb;
    char *text = NULL;
    size_t len = 0;
    bool ok = fstat(fd, &sb) == 0;
    if (ok && !S_ISREG(sb.st_mode)) {
        snprintf(err, err_len, "%s: the journal is not a regular file", path);
        close(fd);
        return NULL;
    }
    if (ok && sb.st_size > 0) {
        len = (size_t)sb.st_size;
        text = malloc(len);
        size_t got = 0;
        while (text && got < len) {
            ssize_t r = pread(fd, text + got, len - got, (off_t)got);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            got += (size_t)r;
        }
        ok = text && got == len;
    }
    if (!ok) {
        snprintf(err, err_len, "%s: cannot read the journal: %s", path,
                 text || !len ? strerror(errno) : "out of memory");
        free(text);
        close(fd);
        return NULL;
    }
    ok = think_journal_parse(text, len, path, id, done, allowed, warn, scan, err, err_len);
    free(text);
    if (!ok) {
        close(fd);
        return NULL;
    }
    if (scan->cut_tail && ftruncate(fd, (off_t)scan->good_end) != 0) {
        snprintf(err, err_len, "%s: cannot cut the journal's broken tail: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    if (scan->good_end == 0) { /* a new journal: its header first */
        size_t cap = 256 + strlen(id->input) + (id->options ? strlen(id->options) : 0) +
                     (id->input_name ? strlen(id->input_name) : 0);
        char *h = malloc(cap);
        int n = h ? snprintf(h, cap, MAGIC "\n#input-name %s\n#input %s\n#options %s\n",
                             id->input_name ? id->input_name : "?", id->input, id->options ? id->options : "")
                  : 0;
        ok = h && append_block(fd, h, (size_t)n);
        free(h);
        if (!ok) {
            snprintf(err, err_len, "%s: cannot write the journal: %s", path, strerror(errno));
            close(fd);
            return NULL;
        }
    }
    ThinkJournal *j = malloc(sizeof *j);
    char *p = strdup(path);
    if (!j || !p) {
        free(j);
        free(p);
        close(fd);
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    j->fd = fd;
    j->path = p;
    return j;
}

bool think_journal_append(ThinkJournal *j, const char *entry, size_t len, char *err, size_t err_len) {
    if (!append_block(j->fd, entry, len)) {
        snprintf(err, err_len, "%s: write error: %s", j->path, strerror(errno));
        return false;
    }
    return true;
}

void think_journal_close(ThinkJournal *j) {
    if (!j)
        return;
    close(j->fd); /* drops the lock */
    free(j->path);
    free(j);
}
