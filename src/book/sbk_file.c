/* sbk_file.c - SBK move words, wire fields, file access through the page cache, and the
 * index records; see sbk_internal.h. */
#include "book/sbk_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Reads the next field of a message in [*p, end). Returns 1, 0 at the end, -1 malformed. */
int sbki_mem_field(const uint8_t **p, const uint8_t *end, MemField *f) {
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
bool sbki_src_read(const SbkBook *b, Cache *c, uint64_t off, uint8_t *buf, size_t n) {
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

/* Reads the top-level field at *off and moves *off past it. Returns 1, 0 at the end, -1
 * with the reason in err. */
int sbki_file_field(const SbkBook *b, Cache *c, uint64_t *off, FileField *f, char *err, size_t err_len) {
    if (*off >= b->size)
        return 0;
    uint8_t head[20];
    size_t avail = b->size - *off < sizeof head ? (size_t)(b->size - *off) : sizeof head;
    if (!sbki_src_read(b, c, *off, head, avail)) {
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
bool sbki_locate_state(const SbkBook *b, Cache *c, uint64_t i, uint64_t *payload, uint64_t *len, char *err,
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
    FileField f = {0};
    int r;
    while ((r = sbki_file_field(b, c, &off, &f, err, err_len)) > 0) {
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
bool sbki_reserve(uint8_t **buf, size_t *cap, size_t n) {
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

void sbki_rec_heapsort(uint8_t *base, size_t n) {
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

int sbki_id_compare(const void *a, const void *b) {
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
size_t sbki_rec_lower_bound(const SbkBook *b, const BookKey *key) {
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
