/* sbk.c - see sbk.h and docs/formats/sbk.md. */
#include "book/sbk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto/sbk.pb-c.h"
#include "shogi/notation.h"
#include "util/atomic_file.h"

#define SAY(...)                                                                                                       \
    do {                                                                                                               \
        if (err && err_len)                                                                                            \
            snprintf(err, err_len, __VA_ARGS__);                                                                       \
    } while (0)

/* ---- move words ---- */

/* Our piece types to SBK piece indices (P L N S G B R K, promoted = | 8) and back. */
static const uint8_t SBK_FROM_PT[PIECE_TYPE_NB] = {0, 1, 2, 3, 4, 6, 7, 5, 8, 9, 10, 11, 12, 14, 15};
static const uint8_t PT_FROM_SBK[16] = {0,    PAWN,     LANCE,     KNIGHT,     SILVER,     GOLD, BISHOP, ROOK,
                                        KING, PRO_PAWN, PRO_LANCE, PRO_KNIGHT, PRO_SILVER, 0,    HORSE,  DRAGON};

bool sbk_move_decode(int32_t word, Move16 *out) {
    uint32_t w = (uint32_t)word;
    unsigned fr = w & 15, ff = (w >> 4) & 15, tr = (w >> 8) & 15, tf = (w >> 12) & 15;
    bool promote = (w >> 19) & 1;
    unsigned piece = (w >> 24) & 15;
    if ((w & 0x60070000u) || tr < 1 || tr > 9 || tf < 1 || tf > 9)
        return false;
    unsigned to = (unsigned)square_make((int)tf - 1, (int)tr - 1);
    if (ff == 0 && fr == 0) {
        PieceType pt = (PieceType)PT_FROM_SBK[piece];
        if (promote || pt < PAWN || pt > GOLD || ((w >> 20) & 15))
            return false;
        *out = (Move16)(to | ((unsigned)pt << 7) | MOVE_DROP);
        return true;
    }
    if (fr < 1 || fr > 9 || ff < 1 || ff > 9)
        return false;
    unsigned from = (unsigned)square_make((int)ff - 1, (int)fr - 1);
    *out = (Move16)(to | (from << 7) | (promote ? MOVE_PROMOTE : 0));
    return true;
}

bool sbk_move_encode(const Position *pos, Move16 m16, int32_t *word) {
    Move m = position_legal_move_from16(pos, m16);
    if (!m)
        return false;
    uint32_t us = (uint32_t)pos->side;
    Square to = move_to(m);
    uint32_t w = (us << 31) | ((uint32_t)(square_file(to) + 1) << 12) | ((uint32_t)(square_rank(to) + 1) << 8);
    if (move_is_drop(m)) {
        w |= ((uint32_t)SBK_FROM_PT[move_dropped_type(m)] | us << 4) << 24;
    } else {
        Square from = move_from(m);
        w |= ((uint32_t)(square_file(from) + 1) << 4) | (uint32_t)(square_rank(from) + 1);
        w |= ((uint32_t)SBK_FROM_PT[piece_type(pos->board[from])] | us << 4) << 24;
        Piece cap = pos->board[to];
        if (cap != NO_PIECE)
            w |= (uint32_t)SBK_FROM_PT[piece_type(cap)] << 20;
        if (move_is_promotion(m))
            w |= 1u << 19;
    }
    *word = (int32_t)w;
    return true;
}

/* ---- varints and fields over memory ---- */

/* Parses a varint at p (avail bytes). Returns its length, 0 when truncated, -1 when it
 * runs past 10 bytes or overflows 64 bits. */
static int varint_parse(const uint8_t *p, size_t avail, uint64_t *v) {
    uint64_t r = 0;
    for (int i = 0; i < 10; i++) {
        if ((size_t)i >= avail)
            return 0;
        uint64_t byte = p[i];
        if (i == 9 && byte > 1)
            return -1;
        r |= (byte & 0x7f) << (7 * i);
        if (!(byte & 0x80)) {
            *v = r;
            return i + 1;
        }
    }
    return -1;
}

typedef struct {
    uint32_t number;
    int wt;
    uint64_t value;     /* varint value, or the fixed value */
    const uint8_t *ptr; /* wt 2: payload */
    uint64_t len;       /* wt 2: payload length */
} MemField;

/* Reads the next field of a message in [*p, end). Returns 1, 0 at the end, -1 malformed. */
static int mem_field(const uint8_t **p, const uint8_t *end, MemField *f) {
    if (*p >= end)
        return 0;
    uint64_t tag;
    int n = varint_parse(*p, (size_t)(end - *p), &tag);
    if (n <= 0 || tag >> 32 || (tag >> 3) == 0)
        return -1;
    *p += n;
    f->number = (uint32_t)(tag >> 3);
    f->wt = (int)(tag & 7);
    size_t avail = (size_t)(end - *p);
    switch (f->wt) {
    case 0:
        n = varint_parse(*p, avail, &f->value);
        if (n <= 0)
            return -1;
        *p += n;
        return 1;
    case 1:
    case 5: {
        size_t k = f->wt == 1 ? 8 : 4;
        if (avail < k)
            return -1;
        f->value = 0;
        for (size_t i = 0; i < k; i++)
            f->value |= (uint64_t)(*p)[i] << (8 * i);
        *p += k;
        return 1;
    }
    case 2:
        n = varint_parse(*p, avail, &f->len);
        if (n <= 0 || f->len > avail - (size_t)n)
            return -1;
        f->ptr = *p + n;
        *p += (size_t)n + f->len;
        return 1;
    default: return -1; /* groups (3, 4) and wire types 6, 7 */
    }
}

/* ---- the file: pread, with a page cache while the index is built ---- */

enum { PAGE_BYTES = 64 * 1024, WINDOW_BYTES = 4096, CHECKPOINT_EVERY = 16, REC_BYTES = 38, QUEUE_CAP = 1 << 16 };
#define REC_RESOLVED 0x80000000u
#define REC_EXPANDED 0x40000000u
#define REC_INDEX    0x3fffffffu

typedef struct {
    uint64_t page; /* page number + 1, 0 = empty */
    uint64_t stamp;
    uint8_t *data;
} Page;

typedef struct {
    Page *pages;
    size_t n;
    uint64_t clock;
    size_t page_bytes;
    Page *last; /* the page hit last: sequential reads skip the search */
} Cache;

typedef struct {
    int32_t id;
    uint32_t index;
} IdPair;

struct SbkBook {
    int fd;
    uint64_t size;
    char *author, *description;
    uint64_t n_states;
    uint64_t *checkpoints; /* offset of the tag of state CHECKPOINT_EVERY * k */
    size_t n_checkpoints;
    uint8_t *rec; /* REC_BYTES records: key, index (with flags while building), ply */
    size_t n_rec;
    IdPair *ids; /* sorted by id, then index; NULL when every id equals its index */
    SbkOpenStats stats;
};

static bool pread_all(int fd, uint64_t off, uint8_t *buf, size_t n) {
    while (n) {
        ssize_t r = pread(fd, buf, n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        buf += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return true;
}

static const uint8_t *cache_page(const SbkBook *b, Cache *c, uint64_t page) {
    if (c->last && c->last->page == page + 1)
        return c->last->data;
    Page *victim = &c->pages[0];
    for (size_t i = 0; i < c->n; i++) {
        if (c->pages[i].page == page + 1) {
            c->pages[i].stamp = ++c->clock;
            c->last = &c->pages[i];
            return c->pages[i].data;
        }
        if (c->pages[i].stamp < victim->stamp)
            victim = &c->pages[i];
    }
    uint64_t off = page * c->page_bytes;
    size_t n = b->size - off < c->page_bytes ? (size_t)(b->size - off) : c->page_bytes;
    if (!pread_all(b->fd, off, victim->data, n)) {
        victim->page = 0;
        c->last = NULL;
        return NULL;
    }
    victim->page = page + 1;
    victim->stamp = ++c->clock;
    c->last = victim;
    return victim->data;
}

/* Reads n bytes at off, through the cache when c is non-null. False past the end or on an
 * I/O error. */
static bool src_read(const SbkBook *b, Cache *c, uint64_t off, uint8_t *buf, size_t n) {
    if (off > b->size || n > b->size - off)
        return false;
    if (!c)
        return pread_all(b->fd, off, buf, n);
    while (n) {
        uint64_t page = off / c->page_bytes;
        size_t in = (size_t)(off % c->page_bytes), k = c->page_bytes - in < n ? c->page_bytes - in : n;
        const uint8_t *d = cache_page(b, c, page);
        if (!d)
            return false;
        memcpy(buf, d + in, k);
        buf += k;
        off += k;
        n -= k;
    }
    return true;
}

typedef struct {
    uint32_t number;
    int wt;
    uint64_t start;   /* offset of the tag */
    uint64_t payload; /* wt 2: offset of the payload */
    uint64_t len;     /* wt 2: payload length */
} FileField;

/* Reads the top-level field at *off and moves *off past it. Returns 1, 0 at the end, -1
 * with the reason in err. */
static int file_field(const SbkBook *b, Cache *c, uint64_t *off, FileField *f, char *err, size_t err_len) {
    if (*off >= b->size)
        return 0;
    uint8_t head[20];
    size_t avail = b->size - *off < sizeof head ? (size_t)(b->size - *off) : sizeof head;
    if (!src_read(b, c, *off, head, avail)) {
        SAY("read error at byte %llu", (unsigned long long)*off);
        return -1;
    }
    uint64_t tag, v;
    int n = varint_parse(head, avail, &tag);
    if (n <= 0 || tag >> 32 || (tag >> 3) == 0) {
        SAY("byte %llu: %s", (unsigned long long)*off,
            n == 0  ? "truncated file"
            : n < 0 ? "varint overflow"
                    : "bad field tag");
        return -1;
    }
    f->start = *off;
    f->number = (uint32_t)(tag >> 3);
    f->wt = (int)(tag & 7);
    size_t pos = (size_t)n;
    uint64_t skip = 0;
    switch (f->wt) {
    case 0:
        n = varint_parse(head + pos, avail - pos, &v);
        if (n <= 0) {
            SAY("byte %llu: %s", (unsigned long long)*off, n == 0 ? "truncated file" : "varint overflow");
            return -1;
        }
        pos += (size_t)n;
        break;
    case 1: skip = 8; break;
    case 5: skip = 4; break;
    case 2:
        n = varint_parse(head + pos, avail - pos, &f->len);
        if (n <= 0) {
            SAY("byte %llu: %s", (unsigned long long)*off, n == 0 ? "truncated file" : "varint overflow");
            return -1;
        }
        pos += (size_t)n;
        skip = f->len;
        break;
    default:
        SAY("byte %llu: field %u has wire type %d, which SBK never uses", (unsigned long long)*off, f->number, f->wt);
        return -1;
    }
    f->payload = *off + pos;
    if (skip > b->size - f->payload) {
        SAY("byte %llu: field %u runs %llu bytes past the end of the file (truncated?)", (unsigned long long)*off,
            f->number, (unsigned long long)(skip - (b->size - f->payload)));
        return -1;
    }
    *off = f->payload + skip;
    return 1;
}

/* Finds state index i: the offset and length of its payload. */
static bool locate_state(const SbkBook *b, Cache *c, uint64_t i, uint64_t *payload, uint64_t *len, char *err,
                         size_t err_len) {
    if (i >= b->n_states) {
        SAY("state %llu out of range", (unsigned long long)i);
        return false;
    }
    uint64_t off = b->checkpoints[i / CHECKPOINT_EVERY], k = i / CHECKPOINT_EVERY * CHECKPOINT_EVERY;
    /* Without a cache (lookups, which must not share state), a one-page window on the
     * stack: the headers of the next states usually sit in the first page read. */
    uint8_t window[WINDOW_BYTES];
    Page one = {0, 0, window};
    Cache local = {&one, 1, 0, WINDOW_BYTES, NULL};
    if (!c)
        c = &local;
    FileField f;
    int r;
    while ((r = file_field(b, c, &off, &f, err, err_len)) > 0) {
        if (f.number != 3)
            continue;
        if (k == i) {
            *payload = f.payload;
            *len = f.len;
            return true;
        }
        k++;
    }
    if (r == 0)
        SAY("state %llu not found", (unsigned long long)i);
    return false;
}

/* Grows *buf to hold n bytes. */
static bool reserve(uint8_t **buf, size_t *cap, size_t n) {
    if (*buf && n <= *cap)
        return true;
    size_t want = n < 4096 ? 4096 : n;
    uint8_t *p = realloc(*buf, want);
    if (!p)
        return false;
    *buf = p;
    *cap = want;
    return true;
}

/* ---- records ---- */

static uint32_t rec_index(const uint8_t *r) {
    return (uint32_t)r[32] | (uint32_t)r[33] << 8 | (uint32_t)r[34] << 16 | (uint32_t)r[35] << 24;
}
static void rec_set_index(uint8_t *r, uint32_t v) {
    r[32] = (uint8_t)v, r[33] = (uint8_t)(v >> 8), r[34] = (uint8_t)(v >> 16), r[35] = (uint8_t)(v >> 24);
}
static int rec_ply(const uint8_t *r) { return r[36] | r[37] << 8; }
static void rec_set_ply(uint8_t *r, int ply) { r[36] = (uint8_t)ply, r[37] = (uint8_t)(ply >> 8); }

static int rec_compare(const void *a, const void *b) {
    int c = memcmp(a, b, 32);
    if (c)
        return c;
    uint32_t x = rec_index(a), y = rec_index(b);
    return x < y ? -1 : x > y;
}

/* In place (glibc's qsort may take a temporary copy of the whole array). */
static void rec_sift(uint8_t *base, size_t root, size_t n) {
    uint8_t tmp[REC_BYTES];
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && rec_compare(base + child * REC_BYTES, base + (child + 1) * REC_BYTES) < 0)
            child++;
        if (rec_compare(base + root * REC_BYTES, base + child * REC_BYTES) >= 0)
            return;
        memcpy(tmp, base + root * REC_BYTES, REC_BYTES);
        memcpy(base + root * REC_BYTES, base + child * REC_BYTES, REC_BYTES);
        memcpy(base + child * REC_BYTES, tmp, REC_BYTES);
        root = child;
    }
}

static void rec_heapsort(uint8_t *base, size_t n) {
    uint8_t tmp[REC_BYTES];
    for (size_t i = n / 2; i-- > 0;)
        rec_sift(base, i, n);
    for (size_t end = n; end-- > 1;) {
        memcpy(tmp, base, REC_BYTES);
        memcpy(base, base + end * REC_BYTES, REC_BYTES);
        memcpy(base + end * REC_BYTES, tmp, REC_BYTES);
        rec_sift(base, 0, end);
    }
}

static int id_compare(const void *a, const void *b) {
    const IdPair *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

bool sbk_index_of_id(const SbkBook *b, int32_t id, uint32_t *index) {
    if (id < 0)
        return false;
    if (!b->ids) {
        if ((uint64_t)id >= b->n_states)
            return false;
        *index = (uint32_t)id;
        return true;
    }
    size_t lo = 0, hi = b->n_states;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->ids[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == b->n_states || b->ids[lo].id != id)
        return false;
    *index = b->ids[lo].index;
    return true;
}

/* First record with this key, or n_rec. */
static size_t rec_lower_bound(const SbkBook *b, const BookKey *key) {
    size_t lo = 0, hi = b->n_rec;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (memcmp(b->rec + mid * REC_BYTES, key->data, 32) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ---- open ---- */

void sbk_close(SbkBook *b) {
    if (!b)
        return;
    if (b->fd >= 0)
        close(b->fd);
    free(b->author);
    free(b->description);
    free(b->checkpoints);
    free(b->rec);
    free(b->ids);
    free(b);
}

static char *read_text(const SbkBook *b, Cache *c, const FileField *f) {
    size_t n = f->len > SBK_MAX_TEXT ? SBK_MAX_TEXT : (size_t)f->len;
    char *s = malloc(n + 1);
    if (!s)
        return NULL;
    if (!src_read(b, c, f->payload, (uint8_t *)s, n)) {
        free(s);
        return NULL;
    }
    s[n] = '\0';
    return s;
}

/* Scan 1: structure, state count, checkpoints, author and description. */
static bool scan_top(SbkBook *b, Cache *c, char *err, size_t err_len) {
    uint64_t off = 0;
    size_t cap = 0;
    FileField f;
    int r;
    while ((r = file_field(b, c, &off, &f, err, err_len)) > 0) {
        if (f.number == 3) {
            if (f.wt != 2) {
                SAY("byte %llu: state field with wire type %d", (unsigned long long)f.start, f.wt);
                return false;
            }
            if (f.len > SBK_MAX_STATE_BYTES) {
                SAY("state %llu is %llu bytes long, more than the %d accepted", (unsigned long long)b->n_states,
                    (unsigned long long)f.len, SBK_MAX_STATE_BYTES);
                return false;
            }
            if (b->n_states >= SBK_MAX_STATES) {
                SAY("more than %d states", SBK_MAX_STATES);
                return false;
            }
            if (b->n_states % CHECKPOINT_EVERY == 0) {
                if (b->n_checkpoints == cap) {
                    size_t nc = cap ? cap * 2 : 1024;
                    uint64_t *p = realloc(b->checkpoints, nc * sizeof *p);
                    if (!p) {
                        SAY("out of memory");
                        return false;
                    }
                    b->checkpoints = p;
                    cap = nc;
                }
                b->checkpoints[b->n_checkpoints++] = f.start;
            }
            b->n_states++;
        } else if ((f.number == 1 || f.number == 2) && f.wt == 2) {
            char **dst = f.number == 1 ? &b->author : &b->description;
            free(*dst);
            *dst = read_text(b, c, &f);
            if (!*dst) {
                SAY("cannot read the %s", f.number == 1 ? "author" : "description");
                return false;
            }
        }
    }
    if (r < 0)
        return false;
    if (b->n_states == 0) {
        SAY("no state in the book (not an SBK file?)");
        return false;
    }
    return true;
}

/* Scan 2: ids and explicit positions. */
static bool scan_roots(SbkBook *b, Cache *c, SbkOpenStats *st, uint8_t **buf, size_t *cap, char *err, size_t err_len) {
    uint64_t off = 0, i = 0;
    FileField f;
    int r;
    while ((r = file_field(b, c, &off, &f, err, err_len)) > 0) {
        if (f.number != 3)
            continue;
        uint8_t *rec = b->rec + i * REC_BYTES;
        rec_set_index(rec, (uint32_t)i);
        if (!reserve(buf, cap, (size_t)f.len) || !src_read(b, c, f.payload, *buf, (size_t)f.len)) {
            SAY("cannot read state %llu", (unsigned long long)i);
            return false;
        }
        const uint8_t *p = *buf, *end = *buf + f.len;
        MemField m;
        int32_t id = 0;
        const uint8_t *position = NULL;
        size_t position_len = 0;
        int fr;
        while ((fr = mem_field(&p, end, &m)) > 0) {
            if (m.number == 1 && m.wt == 0)
                id = (int32_t)(uint32_t)m.value;
            else if (m.number == 7 && m.wt == 2)
                position = m.ptr, position_len = (size_t)m.len;
        }
        if (fr < 0) {
            st->bad_positions++; /* a state that does not parse: never resolved */
            rec_set_index(rec, (uint32_t)i | REC_EXPANDED);
        } else if (position) {
            char sfen[256];
            BookKey key;
            int ply = 1;
            bool ok = position_len < sizeof sfen;
            if (ok) {
                memcpy(sfen, position, position_len);
                sfen[position_len] = '\0';
                ok = book_key_from_sfen(sfen, &key, &ply, NULL, 0) && ply >= 1 && ply <= SBK_MAX_PLY;
            }
            if (ok) {
                memcpy(rec, key.data, 32);
                rec_set_ply(rec, ply);
                rec_set_index(rec, (uint32_t)i | REC_RESOLVED);
                st->roots++;
            } else {
                st->bad_positions++;
                rec_set_index(rec, (uint32_t)i | REC_EXPANDED);
            }
        } else if (i == 0) {
            Position pos;
            StateInfo si;
            BookKey key;
            position_set_startpos(&pos, &si);
            book_key_from_position(&pos, &key);
            memcpy(rec, key.data, 32);
            rec_set_ply(rec, 1);
            rec_set_index(rec, REC_RESOLVED);
            st->roots++;
        }
        if ((uint64_t)(int64_t)id != i && !b->ids) {
            b->ids = malloc(b->n_states * sizeof *b->ids);
            if (!b->ids) {
                SAY("out of memory");
                return false;
            }
            for (uint64_t j = 0; j < i; j++)
                b->ids[j] = (IdPair){(int32_t)j, (uint32_t)j};
        }
        if (b->ids)
            b->ids[i] = (IdPair){id, (uint32_t)i};
        i++;
    }
    if (r < 0)
        return false;
    if (b->ids) {
        qsort(b->ids, b->n_states, sizeof *b->ids, id_compare);
        for (uint64_t j = 1; j < b->n_states; j++)
            if (b->ids[j].id == b->ids[j - 1].id)
                st->duplicate_ids++;
    }
    st->ids_are_indices = b->ids == NULL;
    return true;
}

typedef struct {
    uint32_t *q;
    size_t head, count;
} Queue;

/* Resolves the children of state i (resolved, not expanded). */
static bool expand(SbkBook *b, uint32_t i, const uint8_t *payload, size_t len, Queue *q, uint64_t cursor, bool *again,
                   SbkOpenStats *st) {
    uint8_t *rec = b->rec + (size_t)i * REC_BYTES;
    rec_set_index(rec, rec_index(rec) | REC_EXPANDED);
    BookKey key;
    memcpy(key.data, rec, 32);
    int ply = rec_ply(rec);
    Position pos;
    StateInfo si;
    if (!book_key_to_position(&key, &pos, &si, ply))
        return true;
    const uint8_t *p = payload, *end = payload + len;
    MemField f;
    while (mem_field(&p, end, &f) > 0) {
        if (f.number != 9 || f.wt != 2)
            continue;
        const uint8_t *mp = f.ptr, *mend = f.ptr + f.len;
        MemField g;
        int32_t word = 0, next = -1;
        bool has_next = false;
        while (mem_field(&mp, mend, &g) > 0) {
            if (g.number == 1 && g.wt == 0)
                word = (int32_t)(uint32_t)g.value;
            else if (g.number == 4 && g.wt == 0)
                next = (int32_t)(uint32_t)g.value, has_next = true;
        }
        if (!has_next || next < 0)
            continue;
        uint32_t j;
        if (!sbk_index_of_id(b, next, &j)) {
            st->bad_edges++;
            continue;
        }
        uint8_t *crec = b->rec + (size_t)j * REC_BYTES;
        uint32_t cflags = rec_index(crec) & ~REC_INDEX;
        if (cflags == REC_EXPANDED) { /* a state that does not parse */
            st->bad_edges++;
            continue;
        }
        Move16 m16;
        if (!sbk_move_decode(word, &m16)) {
            st->bad_moves++;
            continue;
        }
        if (((uint32_t)word >> 31) != (((uint32_t)word >> 28) & 1))
            st->side_mismatches++;
        Move m = position_legal_move_from16(&pos, m16);
        if (!m) {
            st->bad_moves++;
            continue;
        }
        if (ply + 1 > SBK_MAX_PLY) {
            st->ply_overflow++;
            continue;
        }
        StateInfo ns;
        BookKey ck;
        position_do_move(&pos, m, &ns);
        book_key_from_position(&pos, &ck);
        position_undo_move(&pos, m);
        if (cflags & REC_RESOLVED) {
            if (memcmp(crec, ck.data, 32) != 0)
                st->contradictions++;
            continue;
        }
        memcpy(crec, ck.data, 32);
        rec_set_ply(crec, ply + 1);
        rec_set_index(crec, j | REC_RESOLVED);
        /* A child ahead of the pass is expanded when the pass gets there (files written
         * parents first read sequentially); one behind it goes to the queue. */
        if (j < cursor) {
            if (q->count < QUEUE_CAP)
                q->q[(q->head + q->count++) % QUEUE_CAP] = j;
            else
                *again = true;
        }
    }
    return true;
}

/* Scan 3 and on: walks the edges until nothing new is resolved. */
static bool walk(SbkBook *b, Cache *c, const SbkOpenOptions *opt, SbkOpenStats *st, uint8_t **buf, size_t *cap,
                 char *err, size_t err_len) {
    Queue q = {malloc(QUEUE_CAP * sizeof(uint32_t)), 0, 0};
    if (!q.q) {
        SAY("out of memory");
        return false;
    }
    uint64_t expanded = 0;
    bool again = true, ok = true;
    while (again && ok) {
        again = false;
        st->passes++;
        uint64_t off = 0, i = 0;
        FileField f;
        int r = 0;
        while (ok && (r = file_field(b, c, &off, &f, err, err_len)) > 0) {
            if (f.number != 3)
                continue;
            uint32_t flags = rec_index(b->rec + i * REC_BYTES) & ~REC_INDEX;
            if (flags == REC_RESOLVED) {
                if (!reserve(buf, cap, (size_t)f.len) || !src_read(b, c, f.payload, *buf, (size_t)f.len)) {
                    SAY("cannot read state %llu", (unsigned long long)i);
                    ok = false;
                    break;
                }
                expand(b, (uint32_t)i, *buf, (size_t)f.len, &q, i + 1, &again, st);
                expanded++;
                while (ok && q.count) {
                    uint32_t j = q.q[q.head];
                    q.head = (q.head + 1) % QUEUE_CAP;
                    q.count--;
                    if ((rec_index(b->rec + (size_t)j * REC_BYTES) & ~REC_INDEX) != REC_RESOLVED)
                        continue;
                    uint64_t po, pl;
                    if (!locate_state(b, c, j, &po, &pl, err, err_len) || !reserve(buf, cap, (size_t)pl) ||
                        !src_read(b, c, po, *buf, (size_t)pl)) {
                        SAY("cannot read state %u", j);
                        ok = false;
                        break;
                    }
                    expand(b, j, *buf, (size_t)pl, &q, i + 1, &again, st);
                    expanded++;
                    if (opt && opt->progress && expanded % 1024 == 0 &&
                        opt->progress(opt->ctx, expanded, b->n_states) == SBK_CANCEL) {
                        SAY("cancelled");
                        ok = false;
                    }
                }
                if (ok && opt && opt->progress && expanded % 1024 == 0 &&
                    opt->progress(opt->ctx, expanded, b->n_states) == SBK_CANCEL) {
                    SAY("cancelled");
                    ok = false;
                }
            }
            i++;
        }
        if (ok && r < 0)
            ok = false;
    }
    free(q.q);
    return ok;
}

SbkBook *sbk_open(const char *path, const SbkOpenOptions *opt, SbkOpenStats *stats, char *err, size_t err_len) {
    SbkOpenStats local;
    memset(&local, 0, sizeof local);
    SbkOpenStats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    SbkBook *b = calloc(1, sizeof *b);
    if (!b) {
        SAY("out of memory");
        return NULL;
    }
    b->fd = open(path, O_RDONLY);
    struct stat sb;
    if (b->fd < 0 || fstat(b->fd, &sb) != 0) {
        SAY("%s: %s", path, strerror(errno));
        sbk_close(b);
        return NULL;
    }
    b->size = (uint64_t)sb.st_size;
    size_t cache_bytes = opt && opt->cache_bytes ? opt->cache_bytes : SBK_CACHE_BYTES;
    Cache c = {0};
    c.page_bytes = PAGE_BYTES;
    c.n = cache_bytes / PAGE_BYTES ? cache_bytes / PAGE_BYTES : 1;
    c.pages = calloc(c.n, sizeof *c.pages);
    uint8_t *pool = c.pages ? malloc(c.n * PAGE_BYTES) : NULL;
    uint8_t *buf = NULL;
    size_t cap = 0;
    bool ok = pool != NULL;
    char why[256] = "out of memory";
    if (ok) {
        for (size_t i = 0; i < c.n; i++)
            c.pages[i].data = pool + i * PAGE_BYTES;
        ok = scan_top(b, &c, why, sizeof why);
    }
    if (ok) {
        st->states = b->n_states;
        b->rec = calloc((size_t)b->n_states, REC_BYTES);
        ok = b->rec != NULL;
        if (!ok)
            snprintf(why, sizeof why, "out of memory for %llu states", (unsigned long long)b->n_states);
    }
    ok = ok && scan_roots(b, &c, st, &buf, &cap, why, sizeof why) && walk(b, &c, opt, st, &buf, &cap, why, sizeof why);
    free(buf);
    free(pool);
    free(c.pages);
    if (!ok) {
        SAY("%s: %s", path, why);
        sbk_close(b);
        return NULL;
    }
    /* Keep the resolved records, sorted by key. */
    size_t w = 0;
    for (size_t i = 0; i < b->n_states; i++) {
        uint8_t *r = b->rec + i * REC_BYTES;
        uint32_t v = rec_index(r);
        if (v & REC_RESOLVED) {
            rec_set_index(r, v & REC_INDEX);
            if (w != i)
                memmove(b->rec + w * REC_BYTES, r, REC_BYTES);
            w++;
        }
    }
    b->n_rec = w;
    rec_heapsort(b->rec, w);
    for (size_t i = 1; i < w; i++)
        if (!memcmp(b->rec + i * REC_BYTES, b->rec + (i - 1) * REC_BYTES, 32))
            st->duplicate_keys++;
    if (w) {
        uint8_t *p = realloc(b->rec, w * REC_BYTES);
        if (p)
            b->rec = p;
    }
    st->indexed = w;
    st->unresolved = b->n_states - w;
    b->stats = *st;
    if (opt && opt->progress)
        opt->progress(opt->ctx, w, b->n_states);
    return b;
}

const char *sbk_author(const SbkBook *b) { return b->author; }
const char *sbk_description(const SbkBook *b) { return b->description; }
size_t sbk_state_count(const SbkBook *b) { return (size_t)b->n_states; }
size_t sbk_indexed_count(const SbkBook *b) { return b->n_rec; }

/* ---- entries ---- */

void sbk_entry_clear(SbkEntry *e) {
    if (e->msg_)
        sbook_state__free_unpacked(e->msg_, NULL);
    free(e->moves);
    free(e->evals);
    memset(e, 0, sizeof *e);
}

static SbkEval eval_from_msg(const SBookEval *v) {
    uint8_t present =
        (uint8_t)((v->has_value ? BOOK_EVAL_HAS_VALUE : 0) | (v->has_depth ? BOOK_EVAL_HAS_DEPTH : 0) |
                  (v->has_seldepth ? BOOK_EVAL_HAS_SEL_DEPTH : 0) | (v->has_nodes ? BOOK_EVAL_HAS_NODES : 0));
    return (SbkEval){.value = v->value,
                     .depth = v->depth,
                     .sel_depth = v->seldepth,
                     .nodes = v->nodes,
                     .variation = v->variation,
                     .engine_name = v->enginename,
                     .present = present};
}

/* The message of an analysis: numbers written when stored in the source (present) or
 * non-zero, as ShogiHome writes them; the strings point into e. */
static void eval_to_msg(const SbkEval *e, SBookEval *m) {
    sbook_eval__init(m);
    m->has_value = e->value != 0 || (e->present & BOOK_EVAL_HAS_VALUE), m->value = e->value;
    m->has_depth = e->depth != 0 || (e->present & BOOK_EVAL_HAS_DEPTH), m->depth = e->depth;
    m->has_seldepth = e->sel_depth != 0 || (e->present & BOOK_EVAL_HAS_SEL_DEPTH), m->seldepth = e->sel_depth;
    m->has_nodes = e->nodes != 0 || (e->present & BOOK_EVAL_HAS_NODES), m->nodes = e->nodes;
    m->variation = (char *)e->variation;
    m->enginename = (char *)e->engine_name;
}

/* The score a move gets from its child's analysis: ShogiGUI stores values from black's
 * view, so a white move's score is the negated value (kept off INT32_MIN, which the IR
 * reserves). */
static int32_t mover_score(int32_t black_value, Color mover) {
    int64_t v = mover == BLACK ? black_value : -(int64_t)black_value;
    return (int32_t)(v > INT32_MAX ? INT32_MAX : v < -INT32_MAX ? -INT32_MAX : v);
}

/* The score and depth sbk_entry_to_book() gives a move of mover into book position c:
 * those of c's first analysis. False when c has none. */
static bool child_eval_in_book(const Book *book, uint32_t c, Color mover, int32_t *score, int32_t *depth) {
    const BookEval *ev;
    if (!book_get_evals(book, c, &ev))
        return false;
    *score = mover_score(ev[0].value, mover);
    *depth = ev[0].depth > BOOK_DEPTH_MAX    ? BOOK_DEPTH_MAX
             : ev[0].depth < -BOOK_DEPTH_MAX ? -BOOK_DEPTH_MAX
                                             : ev[0].depth;
    return true;
}

/* Decodes the state of record k into *out. */
static int read_entry(const SbkBook *b, size_t k, SbkEntry *out, char *err, size_t err_len) {
    memset(out, 0, sizeof *out);
    const uint8_t *r = b->rec + k * REC_BYTES;
    uint32_t index = rec_index(r);
    uint64_t off, len;
    if (!locate_state(b, NULL, index, &off, &len, err, err_len))
        return -1;
    uint8_t *buf = malloc(len ? (size_t)len : 1);
    if (!buf) {
        SAY("out of memory");
        return -1;
    }
    if (!src_read(b, NULL, off, buf, (size_t)len)) {
        free(buf);
        SAY("cannot read state %u", index);
        return -1;
    }
    SBookState *s = sbook_state__unpack(NULL, (size_t)len, buf);
    free(buf);
    if (!s) {
        SAY("state %u does not decode", index);
        return -1;
    }
    out->msg_ = s;
    out->index = index;
    out->id = s->id;
    memcpy(out->key.data, r, 32);
    out->ply = rec_ply(r);
    Position pos;
    StateInfo si;
    if (!book_key_to_position(&out->key, &pos, &si, out->ply)) {
        sbk_entry_clear(out);
        SAY("state %u: bad key", index);
        return -1;
    }
    position_to_sfen(&pos, out->sfen, true);
    out->explicit_position = s->position != NULL;
    out->position = s->position;
    out->comment = s->comment;
    out->board_key = s->boardkey;
    out->hand_key = s->handkey;
    out->games = s->games;
    out->won_black = s->wonblack;
    out->won_white = s->wonwhite;
    if (s->n_moves) {
        out->moves = calloc(s->n_moves, sizeof *out->moves);
        if (!out->moves) {
            sbk_entry_clear(out);
            SAY("out of memory");
            return -1;
        }
    }
    out->n_moves = s->n_moves;
    for (size_t i = 0; i < s->n_moves; i++) {
        const SBookMove *m = s->moves[i];
        SbkMove *o = &out->moves[i];
        o->word = m->move;
        o->evaluation = m->evaluation;
        o->weight = m->weight;
        o->next_state_id = m->has_nextstateid ? m->nextstateid : -1;
        if (sbk_move_decode(m->move, &o->move))
            o->legal = position_legal_move_from16(&pos, o->move) != MOVE_NONE;
        else
            o->move = MOVE_NONE;
    }
    if (s->n_evals) {
        out->evals = calloc(s->n_evals, sizeof *out->evals);
        if (!out->evals) {
            sbk_entry_clear(out);
            SAY("out of memory");
            return -1;
        }
    }
    out->n_evals = s->n_evals;
    for (size_t i = 0; i < s->n_evals; i++)
        out->evals[i] = eval_from_msg(s->evals[i]);
    return 1;
}

int sbk_lookup_position(const SbkBook *b, const Position *pos, SbkEntry *out, char *err, size_t err_len) {
    BookKey key;
    book_key_from_position(pos, &key);
    size_t k = rec_lower_bound(b, &key);
    if (k == b->n_rec || memcmp(b->rec + k * REC_BYTES, key.data, 32)) {
        memset(out, 0, sizeof *out);
        return 0;
    }
    return read_entry(b, k, out, err, err_len);
}

int sbk_lookup_sfen(const SbkBook *b, const char *sfen, SbkEntry *out, char *err, size_t err_len) {
    Position pos;
    StateInfo st;
    if (!position_from_sfen(&pos, &st, sfen, err, err_len)) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    return sbk_lookup_position(b, &pos, out, err, err_len);
}

int sbk_entry_at(const SbkBook *b, size_t k, SbkEntry *out, char *err, size_t err_len) {
    if (k >= b->n_rec) {
        memset(out, 0, sizeof *out);
        SAY("entry %zu out of range", k);
        return -1;
    }
    return read_entry(b, k, out, err, err_len);
}

/* The record of the state move k of parent (in position pos) leads to: the one with the
 * key the move gives and the edge's index (a child resolved otherwise, by an explicit
 * SFEN or a contradictory edge, has none). Returns the record number or -1. */
static int64_t child_record(const SbkBook *b, Position *pos, const SbkMove *m) {
    uint32_t index;
    if (!m->legal || !sbk_index_of_id(b, m->next_state_id, &index))
        return -1;
    Move mv = position_legal_move_from16(pos, m->move);
    if (!mv)
        return -1;
    StateInfo ns;
    BookKey key;
    position_do_move(pos, mv, &ns);
    book_key_from_position(pos, &key);
    position_undo_move(pos, mv);
    for (size_t r = rec_lower_bound(b, &key); r < b->n_rec && !memcmp(b->rec + r * REC_BYTES, key.data, 32); r++)
        if (rec_index(b->rec + r * REC_BYTES) == index)
            return (int64_t)r;
    return -1;
}

int sbk_child_entry(const SbkBook *b, const SbkEntry *parent, size_t k, SbkEntry *out, char *err, size_t err_len) {
    memset(out, 0, sizeof *out);
    Position pos;
    StateInfo st;
    if (k >= parent->n_moves || !book_key_to_position(&parent->key, &pos, &st, parent->ply))
        return 0;
    int64_t r = child_record(b, &pos, &parent->moves[k]);
    return r < 0 ? 0 : read_entry(b, (size_t)r, out, err, err_len);
}

/* The value and depth of the first SBookEval of state index, read with the light field
 * scanner (no protobuf-c, no position): 1 found, 0 none, -1 with the reason in err. */
static int first_eval_of(const SbkBook *b, uint32_t index, int32_t *value, int32_t *depth, char *err, size_t err_len) {
    uint64_t off, len;
    if (!locate_state(b, NULL, index, &off, &len, err, err_len))
        return -1;
    uint8_t *buf = malloc(len ? (size_t)len : 1);
    if (!buf || !src_read(b, NULL, off, buf, (size_t)len)) {
        free(buf);
        SAY("cannot read state %u", index);
        return -1;
    }
    const uint8_t *p = buf, *end = buf + len;
    MemField f;
    int r = 0, found = 0;
    while (!found && (r = mem_field(&p, end, &f)) > 0) {
        if (f.number != 10 || f.wt != 2)
            continue;
        const uint8_t *q = f.ptr, *qend = f.ptr + f.len;
        MemField g;
        int gr;
        *value = *depth = 0;
        while ((gr = mem_field(&q, qend, &g)) > 0) /* the last occurrence wins, as in protobuf */
            if (g.wt == 0 && (g.number == 1 || g.number == 2))
                *(g.number == 1 ? value : depth) = (int32_t)(uint32_t)g.value;
        found = gr < 0 ? -1 : 1;
    }
    free(buf);
    if (found < 0 || (!found && r < 0)) {
        SAY("state %u does not decode", index);
        return -1;
    }
    return found;
}

bool sbk_fill_child_evals(const SbkBook *b, SbkEntry *e, char *err, size_t err_len) {
    Position pos;
    StateInfo st;
    if (!book_key_to_position(&e->key, &pos, &st, e->ply))
        return true;
    for (size_t k = 0; k < e->n_moves; k++) {
        int64_t r = child_record(b, &pos, &e->moves[k]);
        if (r < 0)
            continue;
        int32_t value, depth;
        int found = first_eval_of(b, rec_index(b->rec + (size_t)r * REC_BYTES), &value, &depth, err, err_len);
        if (found < 0)
            return false;
        if (found) {
            e->moves[k].has_child_eval = true;
            e->moves[k].child_score = mover_score(value, pos.side);
            e->moves[k].child_depth = depth;
        }
    }
    return true;
}

int sbk_probe(void *ctx, const Position *pos, BookMoveList *out, char *err, size_t err_len) {
    const SbkBook *b = ctx;
    SbkEntry e;
    out->n = 0;
    int r = sbk_lookup_position(b, pos, &e, err, err_len);
    if (r <= 0)
        return r;
    if (!sbk_fill_child_evals(b, &e, err, err_len)) {
        sbk_entry_clear(&e);
        return -1;
    }
    out->ply = e.ply;
    for (size_t k = 0; k < e.n_moves && out->n < BOOK_MAX_MOVES; k++) {
        const SbkMove *m = &e.moves[k];
        if (!m->legal)
            continue;
        BookMove *o = &out->moves[out->n++];
        memset(o, 0, sizeof *o);
        o->move = m->move;
        o->count = m->weight > 0 ? (uint64_t)m->weight : 0;
        if (m->has_child_eval) {
            o->score = m->child_score, o->has_score = true;
            o->depth = m->child_depth, o->has_depth = true;
        }
    }
    sbk_entry_clear(&e);
    return 1;
}

/* ---- into the IR ---- */

bool sbk_entry_to_book(Book *book, const SbkEntry *e, SbkImportStats *st) {
    uint32_t id;
    if (!book_add_position(book, &e->key, e->ply, &id))
        return false;
    if (e->n_evals && !book_set_evals(book, id, e->evals, e->n_evals))
        return false;
    if (st) {
        st->positions++;
        st->evals += e->n_evals;
    }
    if (e->games || e->won_black || e->won_white || e->comment) {
        BookStats s = {.games = (uint32_t)e->games,
                       .black_wins = (uint32_t)e->won_black,
                       .white_wins = (uint32_t)e->won_white,
                       .comment = e->comment};
        if (!book_set_stats(book, id, MOVE_NONE, &s))
            return false;
    }
    for (size_t k = 0; k < e->n_moves; k++) {
        const SbkMove *m = &e->moves[k];
        if (!m->legal) {
            if (st)
                st->illegal_moves++;
            continue;
        }
        BookMove bm = {.move = m->move, .count = m->weight > 0 ? (uint64_t)m->weight : 0};
        if (m->has_child_eval) {
            bm.score = m->child_score, bm.has_score = true;
            bm.depth = m->child_depth, bm.has_depth = true;
        }
        if (!book_add_move(book, id, &bm, NULL))
            return false;
        if (m->evaluation || m->weight < 0) {
            BookStats s = {.weight = m->weight, .eval_symbol = (uint8_t)m->evaluation};
            if (!book_set_stats(book, id, m->move, &s))
                return false;
        }
        if (st)
            st->moves++;
    }
    return true;
}

bool sbk_to_book(const SbkBook *b, Book *book, Progress *progress, SbkImportStats *st, char *err, size_t err_len) {
    SbkImportStats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    book_reserve(book, b->n_rec);
    for (size_t k = 0; k < b->n_rec; k++) {
        SbkEntry e;
        if (read_entry(b, k, &e, err, err_len) < 0)
            return false;
        bool ok = sbk_fill_child_evals(b, &e, err, err_len);
        if (ok && !sbk_entry_to_book(book, &e, st)) {
            SAY("out of memory");
            ok = false;
        }
        sbk_entry_clear(&e);
        if (!ok)
            return false;
        if (progress)
            progress_update(progress, k + 1);
    }
    return true;
}

/* ---- writer ---- */

static size_t varint_put(uint8_t *p, uint64_t v) {
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static bool put_field(FILE *f, unsigned number, const void *data, size_t len) {
    uint8_t head[16];
    size_t n = varint_put(head, (uint64_t)number << 3 | 2);
    n += varint_put(head + n, len);
    return fwrite(head, 1, n, f) == n && (len == 0 || fwrite(data, 1, len, f) == len);
}

/* Grows the message arrays for n analyses. */
static bool reserve_evals(SBookEval **msgs, SBookEval ***ptrs, size_t *cap, size_t n) {
    if (n <= *cap)
        return true;
    SBookEval *m = realloc(*msgs, n * sizeof *m);
    if (m)
        *msgs = m;
    SBookEval **p = m ? realloc(*ptrs, n * sizeof *p) : NULL;
    if (!p)
        return false;
    *ptrs = p;
    *cap = n;
    return true;
}

typedef struct {
    const Book *book;
    uint32_t *order, *out_index;
    size_t n_order;
    BookMoveList *list;
} Layout;

/* Child position id of move k in list (pos is the parent), or UINT32_MAX. */
static uint32_t child_of(const Book *book, Position *pos, Move16 m16) {
    Move m = position_legal_move_from16(pos, m16);
    if (!m)
        return UINT32_MAX;
    StateInfo ns;
    BookKey key;
    position_do_move(pos, m, &ns);
    book_key_from_position(pos, &key);
    position_undo_move(pos, m);
    uint32_t id;
    return book_find(book, &key, &id) ? id : UINT32_MAX;
}

static void assign(Layout *l, uint32_t id) {
    l->out_index[id] = (uint32_t)l->n_order;
    l->order[l->n_order++] = id;
}

/* Breadth-first from l->order[head..]. */
static void bfs(Layout *l, size_t head) {
    while (head < l->n_order) {
        uint32_t p = l->order[head++];
        BookKey key;
        Position pos;
        StateInfo st;
        book_position_key(l->book, p, &key);
        if (!book_key_to_position(&key, &pos, &st, 1))
            continue;
        book_position_moves(l->book, p, l->list);
        for (int k = 0; k < l->list->n; k++) {
            uint32_t c = child_of(l->book, &pos, l->list->moves[k].move);
            if (c != UINT32_MAX && l->out_index[c] == UINT32_MAX)
                assign(l, c);
        }
    }
}

static bool sbk_write_stream(FILE *f, const Book *book, const SbkWriteOptions *opt, SbkWriteReport *rep, char *err,
                             size_t err_len) {
    memset(rep, 0, sizeof *rep);
    size_t n = book_position_count(book);
    if (n == 0) {
        SAY("the book is empty: an SBK book needs at least one state");
        return false;
    }
    Layout l = {book, malloc(n * sizeof(uint32_t)), malloc(n * sizeof(uint32_t)), 0, malloc(sizeof(BookMoveList))};
    uint8_t *reached = calloc(n, 1);
    uint32_t *sorted = book_sorted_ids(book);
    bool *is_root = calloc(n, sizeof(bool));
    bool ok = l.order && l.out_index && l.list && reached && sorted && is_root;
    if (!ok)
        SAY("out of memory");
    for (size_t p = 0; ok && p < n; p++) {
        BookKey key;
        Position pos;
        StateInfo st;
        book_position_key(book, (uint32_t)p, &key);
        if (!book_key_to_position(&key, &pos, &st, 1)) {
            SAY("position %zu has a key that does not decode", p);
            ok = false;
            break;
        }
        book_position_moves(book, (uint32_t)p, l.list);
        for (int k = 0; k < l.list->n; k++) {
            uint32_t c = child_of(book, &pos, l.list->moves[k].move);
            if (c != UINT32_MAX && c != p)
                reached[c] = 1;
        }
    }
    if (ok) {
        /* Roots: the start position, the positions no move reaches, then (found by a dry
         * run) one position of every component nothing else reaches. */
        Position sp;
        StateInfo sst;
        BookKey skey;
        position_set_startpos(&sp, &sst);
        book_key_from_position(&sp, &skey);
        uint32_t start;
        bool has_start = book_find(book, &skey, &start);
        for (int run = 0; run < 2; run++) {
            memset(l.out_index, 0xff, n * sizeof(uint32_t));
            l.n_order = 0;
            if (has_start) {
                is_root[start] = true;
                assign(&l, start);
            }
            for (size_t k = 0; k < n; k++)
                if (sorted[k] != (has_start ? start : UINT32_MAX) && (!reached[sorted[k]] || is_root[sorted[k]])) {
                    is_root[sorted[k]] = true;
                    assign(&l, sorted[k]);
                }
            bfs(&l, 0);
            bool complete = true;
            for (size_t k = 0; k < n; k++)
                if (l.out_index[sorted[k]] == UINT32_MAX) {
                    complete = false;
                    is_root[sorted[k]] = true;
                    assign(&l, sorted[k]);
                    bfs(&l, l.n_order - 1);
                }
            if (complete)
                break;
        }
    }
    if (ok && opt && opt->author)
        ok = put_field(f, 1, opt->author, strlen(opt->author));
    if (ok && opt && opt->description)
        ok = put_field(f, 2, opt->description, strlen(opt->description));
    uint8_t *buf = NULL;
    size_t cap = 0, ev_cap = 0;
    SBookEval *ev_msgs = NULL;
    SBookEval **ev_ptrs = NULL;
    SBookMove *moves = malloc(BOOK_MAX_MOVES * sizeof *moves);
    SBookMove **mptr = malloc(BOOK_MAX_MOVES * sizeof *mptr);
    if (ok && (!moves || !mptr)) {
        SAY("out of memory");
        ok = false;
    }
    for (size_t i = 0; ok && i < l.n_order; i++) {
        uint32_t p = l.order[i];
        BookKey key;
        Position pos;
        StateInfo st;
        book_position_key(book, p, &key);
        int ply = book_position_ply(book, p);
        if (ply < 1 || ply > SBK_MAX_PLY)
            ply = 1;
        book_key_to_position(&key, &pos, &st, ply);
        SBookState s = SBOOK_STATE__INIT;
        s.has_id = i != 0;
        s.id = (int32_t)i;
        BookStats ps;
        if (book_get_stats(book, p, MOVE_NONE, &ps)) {
            s.has_games = ps.games != 0, s.games = (int32_t)ps.games;
            s.has_wonblack = ps.black_wins != 0, s.wonblack = (int32_t)ps.black_wins;
            s.has_wonwhite = ps.white_wins != 0, s.wonwhite = (int32_t)ps.white_wins;
            s.comment = (char *)ps.comment;
        }
        char sfen[SFEN_MAX];
        if (is_root[p]) {
            s.position = position_to_sfen(&pos, sfen, true);
            rep->roots++;
        }
        const BookEval *evals;
        size_t n_evals = book_get_evals(book, p, &evals);
        if (n_evals && !reserve_evals(&ev_msgs, &ev_ptrs, &ev_cap, n_evals)) {
            SAY("out of memory");
            ok = false;
            break;
        }
        for (size_t k = 0; k < n_evals; k++) {
            eval_to_msg(&evals[k], &ev_msgs[k]);
            ev_ptrs[k] = &ev_msgs[k];
        }
        s.n_evals = n_evals;
        s.evals = ev_ptrs;
        book_position_moves(book, p, l.list);
        size_t nm = 0;
        for (int k = 0; k < l.list->n; k++) {
            const BookMove *bm = &l.list->moves[k];
            SBookMove *o = &moves[nm];
            sbook_move__init(o);
            int32_t word;
            if (!sbk_move_encode(&pos, bm->move, &word)) {
                rep->illegal_moves++;
                continue;
            }
            o->has_move = true, o->move = word;
            uint32_t c = child_of(book, &pos, bm->move);
            o->has_nextstateid = true;
            o->nextstateid = c == UINT32_MAX ? -1 : (int32_t)l.out_index[c];
            if (c != UINT32_MAX)
                rep->linked_moves++;
            BookStats ms;
            int64_t weight;
            if (book_get_stats(book, p, bm->move, &ms)) {
                weight = ms.weight;
                o->has_evaluation = ms.eval_symbol != 0, o->evaluation = ms.eval_symbol;
            } else {
                weight = bm->count > INT32_MAX ? INT32_MAX : (int64_t)bm->count;
                if (bm->count > INT32_MAX)
                    rep->weight_clamped++;
            }
            if (weight < 0 ? bm->count != 0 : (uint64_t)weight != bm->count)
                rep->counts++;
            o->has_weight = weight != 0, o->weight = (int32_t)weight;
            /* A score and depth the child's first analysis gives back are carried by it. */
            int32_t child_score = 0, child_depth = 0;
            bool derived = c != UINT32_MAX && child_eval_in_book(book, c, pos.side, &child_score, &child_depth);
            rep->ponders += bm->ponder != MOVE_NONE;
            rep->depths += bm->has_depth && !(derived && bm->depth == child_depth);
            rep->scores += bm->has_score && !(derived && bm->score == child_score);
            mptr[nm++] = o;
        }
        s.n_moves = nm;
        s.moves = mptr;
        size_t len = sbook_state__get_packed_size(&s);
        if (!reserve(&buf, &cap, len)) {
            SAY("out of memory");
            ok = false;
            break;
        }
        sbook_state__pack(&s, buf);
        ok = put_field(f, 3, buf, len);
        if (!ok)
            SAY("write error");
        rep->states++;
        rep->moves += nm;
        if (opt && opt->progress)
            progress_update(opt->progress, i + 1);
    }
    free(buf);
    free(moves);
    free(mptr);
    free(ev_msgs);
    free(ev_ptrs);
    free(l.order);
    free(l.out_index);
    free(l.list);
    free(reached);
    free(sorted);
    free(is_root);
    return ok;
}

bool sbk_write_file(const char *path, const Book *book, const SbkWriteOptions *opt, SbkWriteReport *rep, char *err,
                    size_t err_len) {
    SbkWriteReport local;
    AtomicFile af;
    if (!atomic_file_open(&af, path, err, err_len))
        return false;
    if (!sbk_write_stream(af.f, book, opt, rep ? rep : &local, err, err_len)) {
        atomic_file_abort(&af);
        return false;
    }
    return atomic_file_commit(&af, err, err_len);
}

bool sbk_write_memory(const Book *book, const SbkWriteOptions *opt, SbkWriteReport *rep, uint8_t **out, size_t *len,
                      char *err, size_t err_len) {
    SbkWriteReport local;
    char *data = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&data, &size);
    if (!f) {
        SAY("out of memory");
        return false;
    }
    bool ok = sbk_write_stream(f, book, opt, rep ? rep : &local, err, err_len);
    if (fclose(f) != 0 && ok) {
        SAY("out of memory");
        ok = false;
    }
    if (!ok) {
        free(data);
        return false;
    }
    *out = (uint8_t *)data;
    *len = size;
    return true;
}

/* ---- the patch writer ---- */

typedef struct {
    BookKey key;
    int ply;
    int32_t games, won_black, won_white;
    char *comment;
    size_t n_moves;
    SbkPatchMove *moves;
    bool set_evals;
    size_t n_evals;
    SbkEval *evals; /* one block (book_evals_copy()) */
    bool deleted;
    size_t seq;
} PatchItem;

struct SbkPatch {
    PatchItem *items;
    size_t n, cap;
};

SbkPatch *sbk_patch_create(void) { return calloc(1, sizeof(SbkPatch)); }

void sbk_patch_free(SbkPatch *p) {
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++) {
        free(p->items[i].comment);
        free(p->items[i].moves);
        free(p->items[i].evals);
    }
    free(p->items);
    free(p);
}

static PatchItem *patch_push(SbkPatch *p) {
    if (p->n == p->cap) {
        size_t nc = p->cap ? p->cap * 2 : 16;
        PatchItem *q = realloc(p->items, nc * sizeof *q);
        if (!q)
            return NULL;
        p->items = q;
        p->cap = nc;
    }
    PatchItem *it = &p->items[p->n];
    memset(it, 0, sizeof *it);
    it->seq = p->n++;
    return it;
}

bool sbk_patch_put(SbkPatch *p, const SbkPatchEntry *e) {
    SbkPatchMove *moves = e->n_moves ? malloc(e->n_moves * sizeof *moves) : NULL;
    char *comment = e->comment ? strdup(e->comment) : NULL;
    size_t n_evals = e->set_evals ? e->n_evals : 0;
    SbkEval *evals = n_evals ? book_evals_copy(e->evals, n_evals, NULL) : NULL;
    PatchItem *it = (e->n_moves && !moves) || (e->comment && !comment) || (n_evals && !evals) ? NULL : patch_push(p);
    if (!it) {
        free(moves);
        free(comment);
        free(evals);
        return false;
    }
    it->set_evals = e->set_evals;
    it->n_evals = n_evals;
    it->evals = evals;
    if (e->n_moves)
        memcpy(moves, e->moves, e->n_moves * sizeof *moves);
    it->key = e->key;
    it->ply = e->ply;
    it->games = e->games, it->won_black = e->won_black, it->won_white = e->won_white;
    it->comment = comment;
    it->n_moves = e->n_moves;
    it->moves = moves;
    return true;
}

bool sbk_patch_delete(SbkPatch *p, const BookKey *key) {
    PatchItem *it = patch_push(p);
    if (!it)
        return false;
    it->key = *key;
    it->deleted = true;
    return true;
}

SbkError sbk_patch_put_from_book(SbkPatch *p, const Book *book, uint32_t id, char *err, size_t err_len) {
    BookMoveList *list = malloc(sizeof *list);
    SbkPatchMove *moves = malloc(BOOK_MAX_MOVES * sizeof *moves);
    SbkError rc = list && moves ? SBK_OK : SBK_ERR_NO_MEMORY;
    int n = rc == SBK_OK ? book_position_moves(book, id, list) : 0;
    char mu[USI_MOVE_MAX];
    BookKey key;
    Position pos;
    StateInfo st;
    book_position_key(book, id, &key);
    bool decodes = book_key_to_position(&key, &pos, &st, 1);
    for (int k = 0; rc == SBK_OK && k < n; k++) {
        const BookMove *m = &list->moves[k];
        BookStats ms;
        bool has = book_get_stats(book, id, m->move, &ms);
        int64_t weight = has ? ms.weight : (int64_t)(m->count > INT32_MAX ? UINT64_MAX : m->count);
        /* a score and depth that the child's first analysis gives back are carried by it */
        int32_t child_score = 0, child_depth = 0;
        uint32_t child = decodes ? child_of(book, &pos, m->move) : UINT32_MAX;
        bool derived = child != UINT32_MAX && child_eval_in_book(book, child, pos.side, &child_score, &child_depth);
        const char *what = m->ponder != MOVE_NONE                                                ? "a ponder"
                           : m->has_depth && !(derived && m->depth == child_depth)               ? "a depth"
                           : m->has_score && !(derived && m->score == child_score)               ? "a score"
                           : weight > INT32_MAX || (weight >= 0 && (uint64_t)weight != m->count) ? "a count"
                                                                                                 : NULL;
        if (what) {
            SAY("Unsupported: move %s has %s, which SBK cannot carry", move_to_usi(m->move, mu), what);
            rc = SBK_ERR_UNSUPPORTED;
            break;
        }
        moves[k] = (SbkPatchMove){m->move, (int32_t)weight, has ? ms.eval_symbol : 0};
    }
    if (rc == SBK_OK) {
        SbkPatchEntry e = {.n_moves = (size_t)n, .moves = moves, .ply = book_position_ply(book, id), .key = key};
        const BookEval *evals;
        e.n_evals = book_get_evals(book, id, &evals);
        e.evals = evals;
        e.set_evals = e.n_evals > 0;
        BookStats ps;
        if (book_get_stats(book, id, MOVE_NONE, &ps)) {
            e.games = (int32_t)ps.games, e.won_black = (int32_t)ps.black_wins, e.won_white = (int32_t)ps.white_wins;
            e.comment = ps.comment;
        }
        if (!sbk_patch_put(p, &e))
            rc = SBK_ERR_NO_MEMORY;
    }
    if (rc == SBK_ERR_NO_MEMORY)
        SAY("out of memory");
    free(list);
    free(moves);
    return rc;
}

static int item_ptr_compare(const void *a, const void *b) {
    const PatchItem *x = *(PatchItem *const *)a, *y = *(PatchItem *const *)b;
    int c = memcmp(x->key.data, y->key.data, 32);
    if (c)
        return c;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

typedef struct {
    const PatchItem *item;
    char sfen[SFEN_MAX];
} NewState;

static int new_state_compare(const void *a, const void *b) {
    return strcmp(((const NewState *)a)->sfen, ((const NewState *)b)->sfen);
}

typedef struct {
    const SbkBook *src;
    const PatchItem **eff; /* effective items, sorted by key, one per key */
    size_t n_eff;
    int32_t *action; /* per source state: -1 kept, -2 deleted, >= 0 index into eff */
    uint32_t *new_index;
    NewState *news; /* new states, output order */
    size_t n_news, n_kept;
    uint32_t *news_by_key; /* indices into news, sorted by key */
    uint32_t *first;       /* CSR of output edges */
    uint32_t *targets;
    size_t n_targets, cap_targets;
    uint16_t *ply;
    uint8_t *flags; /* per output state: 1 explicit SFEN, 2 needs a filled-in SFEN, 4 reached */
    char *err;
    size_t err_len;
} PatchCtx;

static const PatchItem *find_eff(const PatchCtx *c, const BookKey *key) {
    size_t lo = 0, hi = c->n_eff;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int r = memcmp(c->eff[mid]->key.data, key->data, 32);
        if (r == 0)
            return c->eff[mid];
        if (r < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The output index of a position, or -1. */
static int64_t out_of_key(const PatchCtx *c, const BookKey *key) {
    const SbkBook *b = c->src;
    size_t r = rec_lower_bound(b, key);
    if (r < b->n_rec && !memcmp(b->rec + r * REC_BYTES, key->data, 32)) {
        uint32_t i = rec_index(b->rec + r * REC_BYTES);
        return c->action[i] == -2 ? -1 : (int64_t)c->new_index[i];
    }
    size_t lo = 0, hi = c->n_news;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int d = memcmp(c->news[c->news_by_key[mid]].item->key.data, key->data, 32);
        if (d == 0)
            return (int64_t)(c->n_kept + c->news_by_key[mid]);
        if (d < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* The output index an existing link goes to, -1 for none or a deleted child; -2 when the
 * id names no state. */
static int64_t out_of_link(const PatchCtx *c, const SBookMove *m) {
    if (!m->has_nextstateid || m->nextstateid < 0)
        return -1;
    uint32_t j;
    if (!sbk_index_of_id(c->src, m->nextstateid, &j))
        return -2;
    return c->action[j] == -2 ? -1 : (int64_t)c->new_index[j];
}

static int64_t child_by_key(const PatchCtx *c, Position *pos, Move16 m16) {
    Move m = position_legal_move_from16(pos, m16);
    if (!m)
        return -1;
    StateInfo ns;
    BookKey key;
    position_do_move(pos, m, &ns);
    book_key_from_position(pos, &key);
    position_undo_move(pos, m);
    return out_of_key(c, &key);
}

static bool add_edge(PatchCtx *c, int64_t t) {
    if (t < 0)
        return true;
    if (c->n_targets == c->cap_targets) {
        size_t nc = c->cap_targets ? c->cap_targets * 2 : 1024;
        uint32_t *p = realloc(c->targets, nc * sizeof *p);
        if (!p)
            return false;
        c->targets = p;
        c->cap_targets = nc;
    }
    c->targets[c->n_targets++] = (uint32_t)t;
    return true;
}

static SBookState *read_msg(const SbkBook *b, uint32_t index, uint8_t **raw, size_t *raw_len, size_t *cap) {
    uint64_t off, len;
    if (!locate_state(b, NULL, index, &off, &len, NULL, 0) || !reserve(raw, cap, (size_t)len) ||
        !src_read(b, NULL, off, *raw, (size_t)len))
        return NULL;
    *raw_len = (size_t)len;
    return sbook_state__unpack(NULL, (size_t)len, *raw);
}

static bool same_text(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

/* True when the state's evals hold the known values of the put's (the unknown fields and
 * which zeros were stored aside): then they are kept as they are. */
static bool evals_unchanged(const SBookState *s, const PatchItem *it) {
    if (s->n_evals != it->n_evals)
        return false;
    for (size_t k = 0; k < s->n_evals; k++) {
        const SBookEval *m = s->evals[k];
        const SbkEval *e = &it->evals[k];
        if (m->value != e->value || m->depth != e->depth || m->seldepth != e->sel_depth || m->nodes != e->nodes ||
            !same_text(m->variation, e->variation) || !same_text(m->enginename, e->engine_name))
            return false;
    }
    return true;
}

static bool evals_have_unknown_fields(const SBookState *s) {
    for (size_t k = 0; k < s->n_evals; k++)
        if (s->evals[k]->base.n_unknown_fields)
            return true;
    return false;
}

/* Points s->evals at messages for the put's analyses, in *msgs / *ptrs (grown). */
static bool put_evals(SBookState *s, const PatchItem *it, SBookEval **msgs, SBookEval ***ptrs, size_t *cap) {
    if (it->n_evals && !reserve_evals(msgs, ptrs, cap, it->n_evals))
        return false;
    for (size_t k = 0; k < it->n_evals; k++) {
        eval_to_msg(&it->evals[k], &(*msgs)[k]);
        (*ptrs)[k] = &(*msgs)[k];
    }
    s->n_evals = it->n_evals;
    s->evals = it->n_evals ? *ptrs : NULL;
    return true;
}

#define PFAIL(code, ...)                                                                                               \
    do {                                                                                                               \
        SAY(__VA_ARGS__);                                                                                              \
        rc = code;                                                                                                     \
        goto done;                                                                                                     \
    } while (0)

SbkError sbk_write_with_patch(const SbkBook *b, const SbkPatch *patch, const char *dst, SbkPatchProgressFn progress,
                              void *ctx, char *err, size_t err_len) {
    const SbkOpenStats *os = &b->stats;
    SbkError rc = SBK_OK;
    PatchCtx c = {.src = b, .err = err, .err_len = err_len};
    uint32_t *rec_of = NULL;
    uint8_t *raw = NULL, *out = NULL;
    size_t raw_cap = 0, out_cap = 0;
    SBookMove *extra = NULL;
    SBookMove **mptr = NULL;
    SBookEval *ev_msgs = NULL;
    SBookEval **ev_ptrs = NULL;
    size_t ev_cap = 0;
    AtomicFile af;
    bool af_open = false;
    if (os->unresolved)
        PFAIL(SBK_ERR_INVALID_DATA, "InvalidData: %llu unresolved state(s)", (unsigned long long)os->unresolved);
    if (os->duplicate_keys || os->duplicate_ids)
        PFAIL(SBK_ERR_INVALID_DATA, "InvalidData: duplicate positions or ids in the source");
    if (os->bad_moves)
        PFAIL(SBK_ERR_INVALID_DATA, "InvalidData: %llu illegal move(s) in the source",
              (unsigned long long)os->bad_moves);
    if (os->contradictions)
        PFAIL(SBK_ERR_INVALID_DATA, "InvalidData: %llu contradictory edge(s) in the source",
              (unsigned long long)os->contradictions);
    if (os->bad_edges || os->bad_positions)
        PFAIL(SBK_ERR_INVALID_DATA, "InvalidData: references to no state or bad positions in the source");
    if (os->ply_overflow)
        PFAIL(SBK_ERR_INVALID_DATA, "InvalidData: a ply past %d in the source", SBK_MAX_PLY);

    /* The effective patch: the last item of every key. */
    size_t np = patch ? patch->n : 0;
    c.eff = np ? malloc(np * sizeof *c.eff) : NULL;
    if (np && !c.eff)
        PFAIL(SBK_ERR_NO_MEMORY, "out of memory");
    for (size_t i = 0; i < np; i++)
        c.eff[i] = &patch->items[i];
    if (np)
        qsort(c.eff, np, sizeof *c.eff, item_ptr_compare);
    for (size_t i = 0; i < np; i++) {
        if (i + 1 < np && !memcmp(c.eff[i]->key.data, c.eff[i + 1]->key.data, 32))
            continue;
        c.eff[c.n_eff++] = c.eff[i];
    }

    size_t n = (size_t)b->n_states;
    rec_of = malloc(n * sizeof *rec_of);
    c.action = malloc(n * sizeof *c.action);
    c.new_index = malloc(n * sizeof *c.new_index);
    if (!rec_of || !c.action || !c.new_index)
        PFAIL(SBK_ERR_NO_MEMORY, "out of memory");
    for (size_t r = 0; r < b->n_rec; r++)
        rec_of[rec_index(b->rec + r * REC_BYTES)] = (uint32_t)r;
    for (size_t i = 0; i < n; i++) {
        BookKey key;
        memcpy(key.data, b->rec + (size_t)rec_of[i] * REC_BYTES, 32);
        const PatchItem *it = find_eff(&c, &key);
        c.action[i] = !it ? -1 : it->deleted ? -2 : (int32_t)(it - patch->items);
        if (c.action[i] != -2)
            c.new_index[i] = (uint32_t)c.n_kept++;
    }
    for (size_t k = 0; k < c.n_eff; k++)
        if (!c.eff[k]->deleted && (c.eff[k]->ply < 0 || c.eff[k]->ply > SBK_MAX_PLY))
            PFAIL(SBK_ERR_INVALID_DATA, "InvalidData: a put gives ply %d, outside 1..%d", c.eff[k]->ply, SBK_MAX_PLY);
    /* New states: put keys the source does not have, in normalised SFEN order. */
    c.news = malloc((c.n_eff ? c.n_eff : 1) * sizeof *c.news);
    c.news_by_key = malloc((c.n_eff ? c.n_eff : 1) * sizeof *c.news_by_key);
    if (!c.news || !c.news_by_key)
        PFAIL(SBK_ERR_NO_MEMORY, "out of memory");
    for (size_t k = 0; k < c.n_eff; k++) {
        const PatchItem *it = c.eff[k];
        size_t r = rec_lower_bound(b, &it->key);
        if (it->deleted || (r < b->n_rec && !memcmp(b->rec + r * REC_BYTES, it->key.data, 32)))
            continue;
        Position pos;
        StateInfo st;
        if (!book_key_to_position(&it->key, &pos, &st, 1))
            PFAIL(SBK_ERR_INVALID_DATA, "InvalidData: a patch key does not decode");
        c.news[c.n_news].item = it;
        position_to_sfen(&pos, c.news[c.n_news].sfen, false);
        c.n_news++;
    }
    if (c.n_news)
        qsort(c.news, c.n_news, sizeof *c.news, new_state_compare);
    for (size_t k = 0; k < c.n_news; k++)
        c.news_by_key[k] = (uint32_t)k;
    /* news_by_key: sorted by key (insertion sort is fine for the sizes patches have; use
     * a simple shell sort to stay O(n^1.3)) */
    for (size_t gap = c.n_news / 2; gap > 0; gap /= 2)
        for (size_t i = gap; i < c.n_news; i++)
            for (size_t j = i; j >= gap && memcmp(c.news[c.news_by_key[j - gap]].item->key.data,
                                                  c.news[c.news_by_key[j]].item->key.data, 32) > 0;
                 j -= gap) {
                uint32_t t = c.news_by_key[j];
                c.news_by_key[j] = c.news_by_key[j - gap];
                c.news_by_key[j - gap] = t;
            }
    size_t m_out = c.n_kept + c.n_news;
    if (m_out == 0)
        PFAIL(SBK_ERR_INVALID_DATA, "InvalidData: the patch deletes every state (an empty SBK is not a book)");
    if (m_out > SBK_MAX_STATES)
        PFAIL(SBK_ERR_INVALID_DATA, "InvalidData: more than %d states", SBK_MAX_STATES);
    c.first = malloc((m_out + 1) * sizeof *c.first);
    c.ply = malloc(m_out * sizeof *c.ply);
    c.flags = calloc(m_out, 1);
    if (!c.first || !c.ply || !c.flags)
        PFAIL(SBK_ERR_NO_MEMORY, "out of memory");

    /* Validating: every move legal, every link resolvable; the output edges. */
    for (size_t i = 0; i < n; i++) {
        if (progress && progress(ctx, SBK_PHASE_VALIDATING, i, n) == SBK_CANCEL)
            PFAIL(SBK_ERR_CANCELLED, "cancelled");
        if (c.action[i] == -2)
            continue;
        uint32_t o = c.new_index[i];
        c.first[o] = (uint32_t)c.n_targets;
        size_t raw_len;
        SBookState *s = read_msg(b, (uint32_t)i, &raw, &raw_len, &raw_cap);
        if (!s)
            PFAIL(SBK_ERR_IO, "state %zu cannot be read or decoded", i);
        const uint8_t *r = b->rec + (size_t)rec_of[i] * REC_BYTES;
        BookKey key;
        memcpy(key.data, r, 32);
        Position pos;
        StateInfo st;
        int ply = rec_ply(r);
        book_key_to_position(&key, &pos, &st, ply);
        if (s->position) {
            BookKey k2;
            int p2 = 1;
            if (book_key_from_sfen(s->position, &k2, &p2, NULL, 0) && p2 >= 1 && p2 <= SBK_MAX_PLY)
                ply = p2;
            c.flags[o] |= 1;
        }
        c.ply[o] = (uint16_t)ply;
        bool bad = false, missing = false, oom = false, locked_evals = false;
        if (c.action[i] == -1) {
            for (size_t k = 0; k < s->n_moves && !bad && !missing && !oom; k++) {
                Move16 m16;
                bad = !sbk_move_decode(s->moves[k]->move, &m16) || !position_legal_move_from16(&pos, m16);
                int64_t t = out_of_link(&c, s->moves[k]);
                missing = t == -2;
                oom = !missing && !add_edge(&c, t);
            }
        } else {
            const PatchItem *it = &patch->items[c.action[i]];
            for (size_t k = 0; k < it->n_moves && !bad && !missing && !oom; k++) {
                int32_t word;
                bad = !sbk_move_encode(&pos, it->moves[k].move, &word);
                int64_t t = -1;
                bool linked = false;
                for (size_t j = 0; !bad && j < s->n_moves; j++)
                    if (s->moves[j]->move == word && s->moves[j]->has_nextstateid && s->moves[j]->nextstateid >= 0) {
                        t = out_of_link(&c, s->moves[j]);
                        linked = true;
                        break;
                    }
                if (!bad && !linked)
                    t = child_by_key(&c, &pos, it->moves[k].move);
                missing = t == -2;
                oom = !bad && !missing && !add_edge(&c, t);
            }
            locked_evals = it->set_evals && evals_have_unknown_fields(s) && !evals_unchanged(s, it);
        }
        sbook_state__free_unpacked(s, NULL);
        if (locked_evals)
            PFAIL(SBK_ERR_UNSUPPORTED,
                  "Unsupported: state %zu: its evals carry unknown fields, so their known values cannot change", i);
        if (bad)
            PFAIL(SBK_ERR_INVALID_DATA, "InvalidData: state %zu has an illegal move", i);
        if (missing)
            PFAIL(SBK_ERR_INVALID_DATA, "InvalidData: state %zu refers to no state", i);
        if (oom)
            PFAIL(SBK_ERR_NO_MEMORY, "out of memory");
    }
    for (size_t k = 0; k < c.n_news; k++) {
        const PatchItem *it = c.news[k].item;
        size_t o = c.n_kept + k;
        c.first[o] = (uint32_t)c.n_targets;
        Position pos;
        StateInfo st;
        int ply = it->ply >= 1 && it->ply <= SBK_MAX_PLY ? it->ply : 1;
        book_key_to_position(&it->key, &pos, &st, ply);
        c.ply[o] = (uint16_t)ply;
        for (size_t j = 0; j < it->n_moves; j++) {
            int32_t word;
            if (!sbk_move_encode(&pos, it->moves[j].move, &word))
                PFAIL(SBK_ERR_INVALID_DATA, "InvalidData: a new state has an illegal move");
            if (!add_edge(&c, child_by_key(&c, &pos, it->moves[j].move)))
                PFAIL(SBK_ERR_NO_MEMORY, "out of memory");
        }
    }
    c.first[m_out] = (uint32_t)c.n_targets;

    /* The output graph from its SFEN states: plies, and where an SFEN must be filled in.
     * flags: 1 explicit SFEN in the source, 2 SFEN to fill in (the start, a restoration
     * point), 4 reached, 8 SFEN to fill in with the put's ply, which the graph would not
     * give (the walk is repeated until every put ply holds). */
    {
        uint32_t *q = malloc(m_out * sizeof *q);
        if (!q)
            PFAIL(SBK_ERR_NO_MEMORY, "out of memory");
        for (bool again = true; again;) {
            again = false;
            size_t head = 0, tail = 0;
            for (size_t s = 0; s < m_out; s++)
                c.flags[s] &= (uint8_t)~6;
            c.flags[0] |= (c.flags[0] & 1) ? 0 : 2; /* the output's start needs its SFEN */
            for (int round = 0; round < 2; round++)
                for (size_t s = 0; s < m_out; s++) {
                    bool start = round == 0 ? (c.flags[s] & 11) != 0 : !(c.flags[s] & 4);
                    if (!start)
                        continue;
                    if (round == 1)
                        c.flags[s] |= 2; /* a restoration point */
                    if (c.flags[s] & 4)
                        continue;
                    c.flags[s] |= 4;
                    q[tail++] = (uint32_t)s;
                    while (head < tail) {
                        uint32_t u = q[head++];
                        for (uint32_t e = c.first[u]; e < c.first[u + 1]; e++) {
                            uint32_t v = c.targets[e];
                            if (c.flags[v] & 4)
                                continue;
                            if (c.ply[u] + 1 > SBK_MAX_PLY) {
                                free(q);
                                PFAIL(SBK_ERR_INVALID_DATA, "InvalidData: the output reaches a ply past %d",
                                      SBK_MAX_PLY);
                            }
                            c.flags[v] |= 4;
                            if (!(c.flags[v] & 9))
                                c.ply[v] = (uint16_t)(c.ply[u] + 1);
                            q[tail++] = v;
                        }
                    }
                }
            for (size_t k = 0; k < c.n_eff; k++) {
                const PatchItem *it = c.eff[k];
                int64_t o = it->deleted || it->ply <= 0 ? -1 : out_of_key(&c, &it->key);
                if (o >= 0 && !(c.flags[o] & 9) && c.ply[o] != it->ply) {
                    c.flags[o] |= 8;
                    c.ply[o] = (uint16_t)it->ply;
                    again = true;
                }
            }
        }
        free(q);
    }

    /* Writing. */
    if (!atomic_file_open(&af, dst, err, err_len)) {
        rc = SBK_ERR_IO;
        goto done;
    }
    af_open = true;
    extra = malloc(BOOK_MAX_MOVES * sizeof *extra);
    mptr = malloc(BOOK_MAX_MOVES * sizeof *mptr);
    if (!extra || !mptr)
        PFAIL(SBK_ERR_NO_MEMORY, "out of memory");
    {
        uint64_t off = 0, i = 0;
        FileField f;
        int r;
        while ((r = file_field(b, NULL, &off, &f, err, err_len)) > 0) {
            size_t whole = (size_t)(off - f.start);
            bool copy_raw = f.number != 3;
            SBookState *s = NULL;
            if (!copy_raw) {
                if (progress && progress(ctx, SBK_PHASE_WRITING, i, n) == SBK_CANCEL)
                    PFAIL(SBK_ERR_CANCELLED, "cancelled");
                int32_t act = c.action[i];
                uint32_t o = act == -2 ? 0 : c.new_index[i];
                i++;
                if (act == -2)
                    continue;
                size_t raw_len;
                s = read_msg(b, (uint32_t)(i - 1), &raw, &raw_len, &raw_cap);
                if (!s)
                    PFAIL(SBK_ERR_IO, "state %llu cannot be read", (unsigned long long)(i - 1));
                bool changed = act >= 0 || (int64_t)s->id != (int64_t)o;
                char sfen[SFEN_MAX];
                if ((c.flags[o] & 10) && !s->position) {
                    BookKey key;
                    Position pos;
                    StateInfo st;
                    memcpy(key.data, b->rec + (size_t)rec_of[i - 1] * REC_BYTES, 32);
                    book_key_to_position(&key, &pos, &st, c.ply[o]);
                    s->position = position_to_sfen(&pos, sfen, true);
                    changed = true;
                }
                char *orig_position = s->position == sfen ? NULL : s->position;
                s->has_id = s->has_id || o != 0;
                s->id = (int32_t)o;
                size_t orig_n = s->n_moves;
                SBookMove **orig_moves = s->moves;
                size_t nm = 0, ne = 0;
                if (act == -1) {
                    for (size_t k = 0; k < orig_n; k++) {
                        SBookMove *m = orig_moves[k];
                        int64_t t = out_of_link(&c, m);
                        if (m->has_nextstateid && m->nextstateid >= 0 && t != m->nextstateid) {
                            m->nextstateid = (int32_t)(t < 0 ? -1 : t);
                            changed = true;
                        }
                    }
                } else {
                    const PatchItem *it = &patch->items[act];
                    BookKey key;
                    memcpy(key.data, b->rec + (size_t)rec_of[i - 1] * REC_BYTES, 32);
                    for (size_t k = 0; k < it->n_moves; k++) {
                        Position pos;
                        StateInfo st;
                        book_key_to_position(&key, &pos, &st, 1);
                        int32_t word = 0;
                        sbk_move_encode(&pos, it->moves[k].move, &word);
                        SBookMove *m = NULL;
                        for (size_t j = 0; j < orig_n && !m; j++)
                            if (orig_moves[j]->move == word)
                                m = orig_moves[j];
                        /* an existing link is kept (remapped); a new move links by position */
                        int64_t t;
                        if (m && m->has_nextstateid && m->nextstateid >= 0) {
                            t = out_of_link(&c, m);
                        } else {
                            if (!m) {
                                m = &extra[ne++];
                                sbook_move__init(m);
                                m->has_move = true, m->move = word;
                            }
                            t = child_by_key(&c, &pos, it->moves[k].move);
                        }
                        m->has_weight = m->has_weight || it->moves[k].weight != 0;
                        m->weight = it->moves[k].weight;
                        m->has_evaluation = m->has_evaluation || it->moves[k].evaluation != 0;
                        m->evaluation = it->moves[k].evaluation;
                        m->has_nextstateid = true;
                        m->nextstateid = (int32_t)(t < 0 ? -1 : t);
                        mptr[nm++] = m;
                    }
                    s->moves = mptr;
                    s->n_moves = nm;
                    s->has_boardkey = false, s->boardkey = 0;
                    s->has_handkey = false, s->handkey = 0;
                    s->has_games = it->games != 0, s->games = it->games;
                    s->has_wonblack = it->won_black != 0, s->wonblack = it->won_black;
                    s->has_wonwhite = it->won_white != 0, s->wonwhite = it->won_white;
                }
                char *orig_comment = s->comment;
                size_t orig_n_evals = s->n_evals;
                SBookEval **orig_evals = s->evals;
                bool ok = true;
                if (act >= 0) {
                    const PatchItem *it = &patch->items[act];
                    s->comment = it->comment;
                    if (it->set_evals && !evals_unchanged(s, it))
                        ok = put_evals(s, it, &ev_msgs, &ev_ptrs, &ev_cap);
                }
                if (!ok) {
                    s->moves = orig_moves, s->n_moves = orig_n;
                    s->comment = orig_comment;
                    s->position = orig_position;
                    s->evals = orig_evals, s->n_evals = orig_n_evals;
                    sbook_state__free_unpacked(s, NULL);
                    PFAIL(SBK_ERR_NO_MEMORY, "out of memory");
                }
                if (!changed) {
                    s->moves = orig_moves, s->n_moves = orig_n;
                    s->comment = orig_comment;
                    s->position = orig_position;
                    sbook_state__free_unpacked(s, NULL);
                    s = NULL;
                    /* the source bytes as they are */
                    if (!reserve(&out, &out_cap, whole) || !src_read(b, NULL, f.start, out, whole) ||
                        fwrite(out, 1, whole, af.f) != whole)
                        PFAIL(SBK_ERR_IO, "read or write error");
                    continue;
                }
                size_t len = sbook_state__get_packed_size(s);
                ok = reserve(&out, &out_cap, len);
                if (ok) {
                    sbook_state__pack(s, out);
                    ok = put_field(af.f, 3, out, len);
                }
                s->moves = orig_moves, s->n_moves = orig_n;
                s->comment = orig_comment;
                s->position = orig_position;
                s->evals = orig_evals, s->n_evals = orig_n_evals;
                sbook_state__free_unpacked(s, NULL);
                if (!ok)
                    PFAIL(SBK_ERR_IO, "write error");
                continue;
            }
            if (!reserve(&out, &out_cap, whole) || !src_read(b, NULL, f.start, out, whole) ||
                fwrite(out, 1, whole, af.f) != whole)
                PFAIL(SBK_ERR_IO, "read or write error");
        }
        if (r < 0) {
            rc = SBK_ERR_IO;
            goto done;
        }
    }
    for (size_t k = 0; k < c.n_news; k++) {
        const PatchItem *it = c.news[k].item;
        size_t o = c.n_kept + k;
        Position pos;
        StateInfo st;
        book_key_to_position(&it->key, &pos, &st, c.ply[o]);
        SBookState s = SBOOK_STATE__INIT;
        s.has_id = o != 0, s.id = (int32_t)o;
        s.has_games = it->games != 0, s.games = it->games;
        s.has_wonblack = it->won_black != 0, s.wonblack = it->won_black;
        s.has_wonwhite = it->won_white != 0, s.wonwhite = it->won_white;
        s.comment = it->comment;
        char sfen[SFEN_MAX];
        if (c.flags[o] & 10)
            s.position = position_to_sfen(&pos, sfen, true);
        if (it->set_evals && !put_evals(&s, it, &ev_msgs, &ev_ptrs, &ev_cap))
            PFAIL(SBK_ERR_NO_MEMORY, "out of memory");
        for (size_t j = 0; j < it->n_moves; j++) {
            SBookMove *m = &extra[j];
            sbook_move__init(m);
            int32_t word = 0;
            sbk_move_encode(&pos, it->moves[j].move, &word);
            m->has_move = true, m->move = word;
            m->has_weight = it->moves[j].weight != 0, m->weight = it->moves[j].weight;
            m->has_evaluation = it->moves[j].evaluation != 0, m->evaluation = it->moves[j].evaluation;
            int64_t t = child_by_key(&c, &pos, it->moves[j].move);
            m->has_nextstateid = true, m->nextstateid = (int32_t)(t < 0 ? -1 : t);
            mptr[j] = m;
        }
        s.n_moves = it->n_moves;
        s.moves = mptr;
        size_t len = sbook_state__get_packed_size(&s);
        if (!reserve(&out, &out_cap, len))
            PFAIL(SBK_ERR_NO_MEMORY, "out of memory");
        sbook_state__pack(&s, out);
        if (!put_field(af.f, 3, out, len))
            PFAIL(SBK_ERR_IO, "write error");
    }
    af_open = false;
    if (!atomic_file_commit(&af, err, err_len))
        rc = SBK_ERR_IO;
done:
    if (af_open)
        atomic_file_abort(&af);
    free(rec_of);
    free(raw);
    free(out);
    free(extra);
    free(mptr);
    free(ev_msgs);
    free(ev_ptrs);
    free(c.eff);
    free(c.action);
    free(c.new_index);
    free(c.news);
    free(c.news_by_key);
    free(c.first);
    free(c.targets);
    free(c.ply);
    free(c.flags);
    return rc;
}

bool sbk_resave(const char *src, const char *dst, char *err, size_t err_len) {
    SbkBook *b = sbk_open(src, NULL, NULL, err, err_len);
    if (!b)
        return false;
    SbkError rc = sbk_write_with_patch(b, NULL, dst, NULL, NULL, err, err_len);
    sbk_close(b);
    return rc == SBK_OK;
}
