/* sbk_internal.h - what the SBK files share inside the module (not a public API): the
 * handle, the page cache, the wire-field scanners, the index records and a few helpers.
 *   sbk_file.c   move words, wire fields over memory and over the file, the page cache,
 *                the index records;
 *   sbk.c        the open (index build), entries, lookups, children, sbk_probe;
 *   sbk_write.c  into the IR (entry_from_sbk) and the writer from the IR;
 *   sbk_patch.c  the patch writer (docs/formats/sbk.md, "Patch writer").
 * See sbk.h for the contracts and docs/formats/sbk.md for the format. */
#ifndef HAYANAGI_BOOK_SBK_INTERNAL_H
#define HAYANAGI_BOOK_SBK_INTERNAL_H

#include <stdio.h>

#include "book/sbk.h"
#include "proto/sbk.pb-c.h"

/* Writes the reason into err (err and err_len are in scope wherever it is used). */
/* The reason of the last failed read or write, for messages ("No space left on device");
 * "short write" when the C library set none. */
const char *sbki_io_reason(void);

#define SAY(...)                                                                                                       \
    do {                                                                                                               \
        if (err && err_len)                                                                                            \
            snprintf(err, err_len, __VA_ARGS__);                                                                       \
    } while (0)

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

/* The index records: 32-byte key, 4-byte physical index (with REC_* flags while the
 * index is built), 2-byte ply. */
static inline uint32_t rec_index(const uint8_t *r) {
    return (uint32_t)r[32] | (uint32_t)r[33] << 8 | (uint32_t)r[34] << 16 | (uint32_t)r[35] << 24;
}
static inline void rec_set_index(uint8_t *r, uint32_t v) {
    r[32] = (uint8_t)v, r[33] = (uint8_t)(v >> 8), r[34] = (uint8_t)(v >> 16), r[35] = (uint8_t)(v >> 24);
}
static inline int rec_ply(const uint8_t *r) { return r[36] | r[37] << 8; }
static inline void rec_set_ply(uint8_t *r, int ply) { r[36] = (uint8_t)ply, r[37] = (uint8_t)(ply >> 8); }

/* One field of a message in memory. */
typedef struct {
    uint32_t number;
    int wt;
    uint64_t value;     /* varint value, or the fixed value */
    const uint8_t *ptr; /* wt 2: payload */
    uint64_t len;       /* wt 2: payload length */
} MemField;

/* Reads the next field of a message in [*p, end). Returns 1, 0 at the end, -1 malformed. */
int sbki_mem_field(const uint8_t **p, const uint8_t *end, MemField *f);

/* One top-level field of the file. */
typedef struct {
    uint32_t number;
    int wt;
    uint64_t start;   /* offset of the tag */
    uint64_t payload; /* wt 2: offset of the payload */
    uint64_t len;     /* wt 2: payload length */
} FileField;

/* Reads the top-level field at *off and moves *off past it. Returns 1, 0 at the end, -1
 * with the reason in err. */
int sbki_file_field(const SbkBook *b, Cache *c, uint64_t *off, FileField *f, char *err, size_t err_len);

/* Reads n bytes at off, through the cache when c is non-null. False past the end or on an
 * I/O error. */
bool sbki_src_read(const SbkBook *b, Cache *c, uint64_t off, uint8_t *buf, size_t n);

/* Finds state index i: the offset and length of its payload. */
bool sbki_locate_state(const SbkBook *b, Cache *c, uint64_t i, uint64_t *payload, uint64_t *len, char *err,
                       size_t err_len);

/* Grows *buf to hold n bytes. */
bool sbki_reserve(uint8_t **buf, size_t *cap, size_t n);

/* First record with this key, or b->n_rec. */
size_t sbki_rec_lower_bound(const SbkBook *b, const BookKey *key);

/* Sorts n records in place by key, then index (heap sort: no temporary copy). */
void sbki_rec_heapsort(uint8_t *base, size_t n);

/* qsort order of IdPair: id, then index. */
int sbki_id_compare(const void *a, const void *b);

/* Decodes the state of record k into *out (1), or -1 with the reason in err. */
int sbki_read_entry(const SbkBook *b, size_t k, SbkEntry *out, char *err, size_t err_len);

/* The message of an analysis: numbers written when stored in the source (present) or
 * non-zero, as ShogiHome writes them; the strings point into e. */
void sbki_eval_to_msg(const SbkEval *e, SBookEval *m);

/* Grows the message arrays for n analyses. */
bool sbki_reserve_evals(SBookEval **msgs, SBookEval ***ptrs, size_t *cap, size_t n);

/* The score a move of mover gets from its child's analysis value (black's view). */
int32_t sbki_mover_score(int32_t black_value, Color mover);

/* The score and depth sbk_entry_to_book() gives a move of mover into book position c:
 * those of c's first analysis. False when c has none. */
bool sbki_child_eval_in_book(const Book *book, uint32_t c, Color mover, int32_t *score, int32_t *depth);

/* Child position id of move m16 in book (pos is the parent), or UINT32_MAX. */
uint32_t sbki_child_of(const Book *book, Position *pos, Move16 m16);

/* Writes a length-delimited field. */
bool sbki_put_field(FILE *f, unsigned number, const void *data, size_t len);

#endif
