/* db2016_otf.c - YANEURAOU-DB2016 on-the-fly lookup: binary search over a sorted file
 * mapped into memory, without loading it; see db2016.h. */
#include "book/db2016.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"

enum { SFEN_LINE_MAX = 512 };

static bool is_blank(char c) { return c == ' ' || c == '\t'; }

struct Db2016File {
    const char *data;
    size_t size;
    size_t body; /* offset after the BOM */
};

uint64_t db2016_otf_size(const Db2016File *f) { return f->size; }

/* Offset of the first line starting at or after off, or size. */
static size_t line_start_at_or_after(const Db2016File *f, size_t off) {
    if (off <= f->body)
        return f->body < f->size ? f->body : f->size;
    if (off >= f->size)
        return f->size;
    if (f->data[off - 1] == '\n')
        return off;
    const char *nl = memchr(f->data + off, '\n', f->size - off);
    return nl ? (size_t)(nl - f->data) + 1 : f->size;
}

static size_t line_end(const Db2016File *f, size_t off) {
    if (off >= f->size)
        return f->size;
    const char *nl = memchr(f->data + off, '\n', f->size - off);
    return nl ? (size_t)(nl - f->data) : f->size;
}

static bool is_sfen_line(const Db2016File *f, size_t off) {
    return f->size - off >= 5 && memcmp(f->data + off, "sfen ", 5) == 0;
}

/* First sfen line starting in [from, limit); returns its offset or SIZE_MAX. */
static size_t next_sfen_line(const Db2016File *f, size_t from, size_t limit) {
    size_t off = line_start_at_or_after(f, from);
    while (off < limit && off < f->size) {
        if (is_sfen_line(f, off))
            return off;
        /* Jump to the next "\nsfen " directly: far faster than line by line. */
        const char *p = f->data + off;
        const char *end = f->data + (limit < f->size ? limit : f->size);
        const char *hit = NULL;
        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            if (!nl)
                break;
            if ((size_t)(f->data + f->size - nl) > 5 && memcmp(nl + 1, "sfen ", 5) == 0) {
                hit = nl + 1;
                break;
            }
            p = nl + 1;
        }
        if (!hit)
            return SIZE_MAX;
        off = (size_t)(hit - f->data);
    }
    return SIZE_MAX;
}

/* The normalised SFEN (board side hands, single spaces) of the sfen line at off, into buf
 * (SFEN_LINE_MAX bytes). Returns false when the line is too long or has fewer fields. */
static bool line_key(const Db2016File *f, size_t off, char *buf) {
    size_t end = line_end(f, off);
    const char *p = f->data + off + 5, *e = f->data + end;
    if (e > p && e[-1] == '\r')
        e--;
    size_t n = 0;
    for (int field = 0; field < 3; field++) {
        while (p < e && is_blank(*p))
            p++;
        if (p >= e)
            return false;
        if (field)
            buf[n++] = ' ';
        while (p < e && !is_blank(*p)) {
            if (n + 2 >= SFEN_LINE_MAX)
                return false;
            buf[n++] = *p++;
        }
    }
    buf[n] = '\0';
    return true;
}

Db2016File *db2016_otf_open(const char *path, char *err, size_t err_len) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        error_set(err, err_len, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        error_set(err, err_len, "%s: not a regular file", path);
        close(fd);
        return NULL;
    }
    Db2016File *f = calloc(1, sizeof *f);
    if (!f) {
        close(fd);
        error_set(err, err_len, "%s: out of memory", path);
        return NULL;
    }
    f->size = (size_t)sb.st_size;
    if (f->size) {
        void *map = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            error_set(err, err_len, "%s: cannot map: %s", path, strerror(errno));
            close(fd);
            free(f);
            return NULL;
        }
        posix_madvise(map, f->size, POSIX_MADV_RANDOM);
        f->data = map;
    } else {
        f->data = "";
    }
    /* The checks read through pread into a small buffer, not through the mapping, so that
     * opening maps no page of the file into the process (the kernel may map large folios
     * on a fault). */
    enum { CHUNK = 64 * 1024 };
    char *chunk = malloc(CHUNK);
    if (!chunk) {
        close(fd);
        db2016_otf_close(f);
        error_set(err, err_len, "%s: out of memory", path);
        return NULL;
    }
    bool ok = true;
    char prev[SFEN_LINE_MAX], cur[SFEN_LINE_MAX];
    for (int k = 0; ok && k < 9; k++) {
        size_t from = (size_t)((double)f->size * k / 9.0);
        ssize_t got = f->size ? pread(fd, chunk, CHUNK, (off_t)from) : 0;
        if (got < 0)
            got = 0;
        Db2016File view = {.data = chunk, .size = (size_t)got};
        if (k == 0) {
            if (view.size >= 3 && memcmp(chunk, "\xEF\xBB\xBF", 3) == 0)
                f->body = view.body = 3;
            static const char prefix[] = "#YANEURAOU-DB2016";
            size_t first_end = line_end(&view, view.body);
            if (first_end - view.body >= sizeof prefix - 1 &&
                memcmp(chunk + view.body, prefix, sizeof prefix - 1) == 0) {
                const char *v = chunk + view.body + sizeof prefix - 1;
                const char *e = chunk + first_end;
                while (v < e && is_blank(*v))
                    v++;
                while (e > v && (is_blank(e[-1]) || e[-1] == '\r'))
                    e--;
                if (!(e - v == 4 && memcmp(v, "1.00", 4) == 0)) {
                    error_set(err, err_len, "%s:1: unsupported header (expected '%s')", path, DB2016_HEADER);
                    ok = false;
                    break;
                }
            }
        }
        /* Mid-file stretches start inside a line: search from byte 1 (a line start needs a
         * newline before it), and ignore a last line the chunk cuts off. */
        prev[0] = '\0';
        size_t off = next_sfen_line(&view, k == 0 ? 0 : 1, view.size);
        for (int i = 0; i < 64 && off != SIZE_MAX && line_end(&view, off) < view.size; i++) {
            if (line_key(&view, off, cur)) {
                if (prev[0] && strcmp(prev, cur) >= 0) {
                    uint64_t line = 1;
                    for (size_t q = 0; q < from + off; q++)
                        line += f->data[q] == '\n';
                    error_set(err, err_len,
                              "%s:%llu: not sorted: this sfen sorts before the previous one (on-the-fly lookup needs a "
                              "file sorted by SFEN; run `hayanagi book sort` or load it in memory)",
                              path, (unsigned long long)line);
                    ok = false;
                    break;
                }
                strcpy(prev, cur);
            }
            off = next_sfen_line(&view, line_end(&view, off) + 1, view.size);
        }
    }
    free(chunk);
    close(fd);
    if (!ok) {
        db2016_otf_close(f);
        return NULL;
    }
    return f;
}

void db2016_otf_close(Db2016File *f) {
    if (!f)
        return;
    if (f->size)
        munmap((void *)f->data, f->size);
    free(f);
}

static void merge_into_list(BookMoveList *out, const BookMove *m) {
    for (int i = 0; i < out->n; i++) {
        BookMove *e = &out->moves[i];
        if (e->move != m->move)
            continue;
        uint64_t c = e->count + m->count;
        if (m->ponder != MOVE_NONE)
            e->ponder = m->ponder;
        if (m->has_score) {
            e->score = m->score;
            e->has_score = true;
        }
        if (m->has_depth) {
            e->depth = m->depth;
            e->has_depth = true;
        }
        e->count = c > BOOK_COUNT_MAX ? BOOK_COUNT_MAX : c;
        return;
    }
    if (out->n < BOOK_MAX_MOVES) {
        out->moves[out->n] = *m;
        if (out->moves[out->n].count > BOOK_COUNT_MAX)
            out->moves[out->n].count = BOOK_COUNT_MAX;
        out->n++;
    }
}

int db2016_otf_lookup(const Db2016File *f, const Position *pos, BookMoveList *out, char *err, size_t err_len) {
    out->n = 0;
    out->ply = 0;
    char target[SFEN_MAX], key[SFEN_LINE_MAX];
    position_to_sfen(pos, target, false);
    /* Keys seen so far that bound the target from below and above: in a sorted file every
     * later probe lies strictly between them. */
    char lo_key[SFEN_LINE_MAX] = "", hi_key[SFEN_LINE_MAX] = "";
    bool have_lo = false, have_hi = false;
    size_t lo = f->body, hi = f->size, found = SIZE_MAX;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        size_t off = next_sfen_line(f, mid, hi);
        if (off == SIZE_MAX) {
            hi = mid;
            continue;
        }
        if (!line_key(f, off, key)) {
            /* An unparsable sfen line: step over it (book check reports it). */
            lo = line_end(f, off) + 1 > mid ? line_end(f, off) + 1 : mid + 1;
            continue;
        }
        if ((have_lo && strcmp(key, lo_key) <= 0) || (have_hi && strcmp(key, hi_key) >= 0)) {
            error_set(err, err_len, "on-the-fly book is not sorted near byte %zu (run `hayanagi book sort`)", off);
            return -1;
        }
        int c = strcmp(target, key);
        if (c == 0) {
            found = off;
            break;
        }
        if (c < 0) {
            hi = mid;
            strcpy(hi_key, key);
            have_hi = true;
        } else {
            lo = line_end(f, off) + 1;
            strcpy(lo_key, key);
            have_lo = true;
        }
    }
    if (found == SIZE_MAX)
        return 0;
    /* The ply: the number after the third field, if any. */
    {
        size_t e = line_end(f, found);
        const char *p = f->data + found + 5, *end = f->data + e;
        for (int field = 0; field < 3; field++) {
            while (p < end && is_blank(*p))
                p++;
            while (p < end && !is_blank(*p))
                p++;
        }
        while (p < end && is_blank(*p))
            p++;
        int ply = 0;
        while (p < end && *p >= '0' && *p <= '9' && ply < 1000000)
            ply = ply * 10 + (*p++ - '0');
        out->ply = ply;
    }
    size_t off = line_end(f, found) + 1;
    while (off < f->size) {
        size_t e = line_end(f, off);
        const char *line = f->data + off;
        size_t len = e - off;
        if (len && line[len - 1] == '\r')
            len--;
        off = e + 1;
        size_t i = 0;
        while (i < len && is_blank(line[i]))
            i++;
        if (i == len || (len >= 5 && memcmp(line, "sfen ", 5) == 0))
            break;
        if (line[0] == '#' || (len >= 2 && line[0] == '/' && line[1] == '/'))
            continue;
        BookMove m;
        if (len <= DB2016_MAX_LINE_DEFAULT && db2016_parse_move_line(line, len, false, &m, NULL, NULL, 0))
            merge_into_list(out, &m);
    }
    return 1;
}
