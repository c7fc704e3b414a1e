/* book.c - the book IR; see book.h for the layout and the ownership rules. */
#include "book/book.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/sort.h"

/* 40 bytes: the key, where the moves start in the pool, how many, and the ply. */
typedef struct {
    BookKey key;
    uint32_t first;
    uint16_t n;
    uint16_t ply; /* 0 = unknown; saturates at 65535 */
} PosRec;

/* 12 bytes per move; the depth lives in a parallel int16 array. */
typedef struct {
    uint16_t move;
    uint16_t ponder;
    int32_t score; /* SCORE_NONE when the source had none */
    uint32_t count;
} MoveRec;

#define SCORE_NONE INT32_MIN
#define DEPTH_NONE INT16_MIN

typedef struct {
    uint64_t key;     /* id << 16 | move */
    BookStats s;      /* s.comment is owned (malloc) */
    bool has_stats;   /* false for a position entry that only holds analyses */
    uint32_t n_evals; /* analyses of a position entry (move == MOVE_NONE) */
    BookEval *evals;  /* one owned block: the array, then its strings */
    size_t eval_bytes;
} StatEntry;

struct Book {
    PosRec *pos;
    size_t npos, pos_cap;
    uint64_t *slots; /* see slot_make(); 0 = empty; size slot_mask + 1, a power of two */
    size_t slot_mask;
    MoveRec *moves;
    int16_t *depths;
    size_t nmoves, moves_cap;
    size_t holes; /* pool entries abandoned when a list was relocated */
    size_t live;  /* moves reachable from positions */
    StatEntry *stats;
    size_t nstats, stats_cap;
    uint32_t *stat_slots; /* index + 1 */
    size_t stat_mask;
    size_t n_with_stats, n_evals; /* entries with statistics; analyses over all entries */
};

/* ---- keys ---- */

void book_key_from_position(const Position *pos, BookKey *key) { packed_sfen_encode(pos, key); }

bool book_key_from_sfen(const char *sfen, BookKey *key, int *ply, char *err, size_t err_len) {
    Position pos;
    StateInfo st;
    if (!position_from_sfen(&pos, &st, sfen, err, err_len))
        return false;
    book_key_from_position(&pos, key);
    if (ply)
        *ply = pos.ply;
    return true;
}

void book_key_after_move(Position *pos, Move m, BookKey *key) {
    StateInfo st;
    position_do_move(pos, m, &st);
    book_key_from_position(pos, key);
    position_undo_move(pos, m);
}

void book_key_flipped_after_move(Position *pos, Move m, BookKey *key) {
    StateInfo st;
    position_do_move(pos, m, &st);
    packed_sfen_encode_flipped(pos, key);
    position_undo_move(pos, m);
}

bool book_key_to_position(const BookKey *key, Position *pos, StateInfo *st, int ply) {
    return packed_sfen_decode(key, pos, st, ply, NULL, 0);
}

Move16 book_move_flip(Move16 m) {
    if (m == MOVE_NONE || m == MOVE_NULL || m == MOVE_RESIGN || m == MOVE_WIN)
        return m;
    unsigned to = m & 0x7f, from = (m >> 7) & 0x7f;
    if (to < SQ_NB)
        to = 80 - to;
    if (!(m & MOVE_DROP) && from < SQ_NB)
        from = 80 - from;
    return (Move16)((m & (MOVE_DROP | MOVE_PROMOTE)) | (from << 7) | to);
}

bool book_key_flip(const BookKey *key, BookKey *flipped) { return packed_sfen_flip(key, flipped); }

/* ---- hashing ---- */

static uint64_t key_hash(const BookKey *k) {
    uint64_t w[4];
    memcpy(w, k->data, sizeof w);
    uint64_t h = w[0] * 0x9E3779B97F4A7C15ull;
    h = (h ^ (h >> 29) ^ w[1]) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 31) ^ w[2]) * 0x94D049BB133111EBull;
    h = (h ^ (h >> 29) ^ w[3]) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 32);
}

static uint64_t stat_hash(uint64_t k) {
    k = (k ^ (k >> 33)) * 0xFF51AFD7ED558CCDull;
    return k ^ (k >> 29);
}

/* ---- lifetime ---- */

Book *book_create(void) {
    Book *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->slot_mask = 1023;
    b->slots = calloc(b->slot_mask + 1, sizeof *b->slots);
    if (!b->slots) {
        free(b);
        return NULL;
    }
    return b;
}

void book_free(Book *b) {
    if (!b)
        return;
    for (size_t i = 0; i < b->nstats; i++) {
        free((char *)b->stats[i].s.comment);
        free(b->stats[i].evals);
    }
    free(b->stats);
    free(b->stat_slots);
    free(b->pos);
    free(b->slots);
    free(b->moves);
    free(b->depths);
    free(b);
}

size_t book_position_count(const Book *b) { return b->npos; }
size_t book_move_count(const Book *b) { return b->live; }

size_t book_memory_bytes(const Book *b) {
    size_t bytes = sizeof *b + b->pos_cap * sizeof *b->pos + (b->slot_mask + 1) * sizeof *b->slots +
                   b->moves_cap * (sizeof *b->moves + sizeof *b->depths);
    bytes += b->stats_cap * sizeof *b->stats + (b->stat_slots ? (b->stat_mask + 1) * sizeof *b->stat_slots : 0);
    for (size_t i = 0; i < b->nstats; i++) {
        if (b->stats[i].s.comment)
            bytes += strlen(b->stats[i].s.comment) + 1;
        bytes += b->stats[i].eval_bytes;
    }
    return bytes;
}

/* ---- positions ---- */

/* An index slot holds id + 1 in its low 32 bits and the high 32 bits of the key's hash
 * above them, so that a probe compares hashes in the slot and reads the position array
 * (a cache miss in a big book) only when they match: a miss almost never reads it. */
static uint64_t slot_make(uint64_t hash, size_t id) { return (hash & 0xFFFFFFFF00000000ull) | ((uint64_t)id + 1); }
static uint32_t slot_id(uint64_t v) { return (uint32_t)v - 1; }

uint64_t book_key_hash(const BookKey *key) { return key_hash(key); }

static bool slot_find_hashed(const Book *b, const BookKey *key, uint64_t hash, size_t *slot) {
    uint64_t tag = hash & 0xFFFFFFFF00000000ull;
    size_t i = (size_t)hash & b->slot_mask;
    for (;; i = (i + 1) & b->slot_mask) {
        uint64_t v = b->slots[i];
        if (v == 0) {
            *slot = i;
            return false;
        }
        if ((v & 0xFFFFFFFF00000000ull) == tag &&
            memcmp(b->pos[slot_id(v)].key.data, key->data, sizeof key->data) == 0) {
            *slot = i;
            return true;
        }
    }
}

static bool slot_find(const Book *b, const BookKey *key, size_t *slot) {
    return slot_find_hashed(b, key, key_hash(key), slot);
}

static bool resize_slots(Book *b, size_t size) {
    uint64_t *slots = calloc(size, sizeof *slots);
    if (!slots)
        return false;
    free(b->slots);
    b->slots = slots;
    b->slot_mask = size - 1;
    for (size_t id = 0; id < b->npos; id++) {
        uint64_t h = key_hash(&b->pos[id].key);
        size_t i = (size_t)h & b->slot_mask;
        while (slots[i])
            i = (i + 1) & b->slot_mask;
        slots[i] = slot_make(h, id);
    }
    return true;
}

static bool grow_slots(Book *b) { return resize_slots(b, (b->slot_mask + 1) * 2); }

bool book_reserve(Book *b, size_t positions) {
    size_t size = b->slot_mask + 1;
    while (size * 4 < positions * 5 && size < ((size_t)1 << 40))
        size *= 2;
    return size == b->slot_mask + 1 || resize_slots(b, size);
}

void book_prefetch(const Book *b, const BookKey *key) {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(&b->slots[(size_t)key_hash(key) & b->slot_mask]);
#else
    (void)b;
    (void)key;
#endif
}

bool book_find_hashed(const Book *b, const BookKey *key, uint64_t hash, uint32_t *id) {
    size_t slot;
    if (!slot_find_hashed(b, key, hash, &slot))
        return false;
    *id = slot_id(b->slots[slot]);
    return true;
}

bool book_find(const Book *b, const BookKey *key, uint32_t *id) { return book_find_hashed(b, key, key_hash(key), id); }

void book_clear(Book *b) {
    /* Zero only the slots in use when they are few (a reader handing over one entry at a
     * time clears a one-position book millions of times): find them all first, as
     * clearing one would cut the probe runs of the others. */
    if (b->npos * 8 <= b->slot_mask + 1) {
        for (size_t id = 0; id < b->npos; id++) {
            size_t slot;
            slot_find(b, &b->pos[id].key, &slot);
            b->pos[id].first = (uint32_t)slot; /* the record is dropped below anyway */
        }
        for (size_t id = 0; id < b->npos; id++)
            b->slots[b->pos[id].first] = 0;
    } else
        memset(b->slots, 0, (b->slot_mask + 1) * sizeof *b->slots);
    for (size_t i = 0; i < b->nstats; i++) {
        free((char *)b->stats[i].s.comment);
        free(b->stats[i].evals);
    }
    if (b->stat_slots)
        memset(b->stat_slots, 0, (b->stat_mask + 1) * sizeof *b->stat_slots);
    b->npos = b->nmoves = b->holes = b->live = b->nstats = b->n_with_stats = b->n_evals = 0;
}

static uint16_t clamp_ply(int ply) { return (uint16_t)(ply <= 0 ? 0 : ply > 65535 ? 65535 : ply); }

bool book_add_position(Book *b, const BookKey *key, int ply, uint32_t *id) {
    size_t slot;
    if (slot_find(b, key, &slot)) {
        PosRec *r = &b->pos[slot_id(b->slots[slot])];
        uint16_t p = clamp_ply(ply);
        if (p && (!r->ply || p < r->ply))
            r->ply = p;
        if (id)
            *id = slot_id(b->slots[slot]);
        return true;
    }
    if (b->npos >= UINT32_MAX - 1)
        return false;
    /* Keep the load factor at or below 0.8: linear probing stays short. */
    if ((b->npos + 1) * 5 > (b->slot_mask + 1) * 4) {
        if (!grow_slots(b))
            return false;
        slot_find(b, key, &slot);
    }
    if (b->npos == b->pos_cap) {
        /* Grow by half plus a constant: a capacity of 1 (book_shrink leaves one for a
         * one-position book) must still grow, since 1 + 1 / 2 is 1. */
        size_t cap = b->pos_cap + b->pos_cap / 2 + 1024;
        PosRec *p = realloc(b->pos, cap * sizeof *p);
        if (!p)
            return false;
        b->pos = p;
        b->pos_cap = cap;
    }
    PosRec *r = &b->pos[b->npos];
    r->key = *key;
    r->first = 0;
    r->n = 0;
    r->ply = clamp_ply(ply);
    b->slots[slot] = slot_make(key_hash(key), b->npos);
    if (id)
        *id = (uint32_t)b->npos;
    b->npos++;
    return true;
}

void book_position_key(const Book *b, uint32_t id, BookKey *key) { *key = b->pos[id].key; }
int book_position_ply(const Book *b, uint32_t id) { return b->pos[id].ply; }
int book_position_move_count(const Book *b, uint32_t id) { return b->pos[id].n; }

/* ---- moves ---- */

static void move_to_rec(const BookMove *m, MoveRec *r, int16_t *depth) {
    r->move = m->move;
    r->ponder = m->ponder;
    r->score = m->has_score ? (m->score == SCORE_NONE ? SCORE_NONE + 1 : m->score) : SCORE_NONE;
    r->count = m->count > BOOK_COUNT_MAX ? BOOK_COUNT_MAX : (uint32_t)m->count;
    if (!m->has_depth)
        *depth = DEPTH_NONE;
    else
        *depth = (int16_t)(m->depth > BOOK_DEPTH_MAX    ? BOOK_DEPTH_MAX
                           : m->depth < -BOOK_DEPTH_MAX ? -BOOK_DEPTH_MAX
                                                        : m->depth);
}

static void rec_to_move(const MoveRec *r, int16_t depth, BookMove *m) {
    m->move = r->move;
    m->ponder = r->ponder;
    m->has_score = r->score != SCORE_NONE;
    m->score = m->has_score ? r->score : 0;
    m->has_depth = depth != DEPTH_NONE;
    m->depth = m->has_depth ? depth : 0;
    m->count = r->count;
}

static bool reserve_moves(Book *b, size_t extra) {
    if (b->nmoves + extra <= b->moves_cap)
        return true;
    if (b->nmoves + extra > UINT32_MAX)
        return false;
    size_t cap = b->moves_cap + b->moves_cap / 2 + 4096;
    if (cap < b->nmoves + extra)
        cap = b->nmoves + extra;
    if (cap > UINT32_MAX)
        cap = UINT32_MAX;
    MoveRec *m = realloc(b->moves, cap * sizeof *m);
    if (!m)
        return false;
    b->moves = m;
    int16_t *d = realloc(b->depths, cap * sizeof *d);
    if (!d)
        return false; /* b->moves grew; moves_cap stays, which only wastes the slack */
    b->depths = d;
    b->moves_cap = cap;
    return true;
}

/* Rebuilds the pool in id order with no holes. */
static bool compact_pool(Book *b, bool exact) {
    size_t cap = exact ? (b->live ? b->live : 1) : b->live + b->live / 2 + 4096;
    MoveRec *m = malloc(cap * sizeof *m);
    int16_t *d = malloc(cap * sizeof *d);
    if (!m || !d) {
        free(m);
        free(d);
        return false;
    }
    size_t k = 0;
    for (size_t id = 0; id < b->npos; id++) {
        PosRec *r = &b->pos[id];
        memcpy(m + k, b->moves + r->first, r->n * sizeof *m);
        memcpy(d + k, b->depths + r->first, r->n * sizeof *d);
        r->first = (uint32_t)k;
        k += r->n;
    }
    free(b->moves);
    free(b->depths);
    b->moves = m;
    b->depths = d;
    b->nmoves = k;
    b->moves_cap = cap;
    b->holes = 0;
    return true;
}

bool book_set_moves(Book *b, uint32_t id, const BookMove *moves, int n) {
    if (n < 0 || n > BOOK_MAX_MOVES)
        return false;
    PosRec *r = &b->pos[id];
    if ((uint32_t)n > r->n) {
        if (!reserve_moves(b, (size_t)n))
            return false;
        r = &b->pos[id];
        b->holes += r->n;
        r->first = (uint32_t)b->nmoves;
        b->nmoves += (size_t)n;
    } else {
        b->holes += r->n - (uint32_t)n;
    }
    b->live = b->live - r->n + (size_t)n;
    r->n = (uint16_t)n;
    for (int i = 0; i < n; i++)
        move_to_rec(&moves[i], &b->moves[r->first + (uint32_t)i], &b->depths[r->first + (uint32_t)i]);
    return true;
}

bool book_add_move(Book *b, uint32_t id, const BookMove *m, bool *merged) {
    PosRec *r = &b->pos[id];
    for (uint32_t i = 0; i < r->n; i++) {
        MoveRec *e = &b->moves[r->first + i];
        if (e->move != m->move)
            continue;
        uint64_t sum = (uint64_t)e->count + (m->count > BOOK_COUNT_MAX ? BOOK_COUNT_MAX : m->count);
        MoveRec nr;
        int16_t nd;
        move_to_rec(m, &nr, &nd);
        if (m->ponder != MOVE_NONE)
            e->ponder = m->ponder;
        if (m->has_score)
            e->score = nr.score;
        if (m->has_depth)
            b->depths[r->first + i] = nd;
        e->count = sum > BOOK_COUNT_MAX ? BOOK_COUNT_MAX : (uint32_t)sum;
        if (merged)
            *merged = true;
        return true;
    }
    if (r->n >= BOOK_MAX_MOVES)
        return false;
    if (merged)
        *merged = false;
    bool at_tail = r->n == 0 || r->first + r->n == b->nmoves;
    if (!at_tail && b->holes > 4096 && b->holes * 2 > b->nmoves) {
        if (!compact_pool(b, false))
            return false;
        r = &b->pos[id];
        at_tail = r->first + r->n == b->nmoves;
    }
    if (!reserve_moves(b, at_tail ? 1 : (size_t)r->n + 1))
        return false;
    if (!at_tail) {
        /* Move the list to the end of the pool; the old place becomes a hole. */
        memcpy(b->moves + b->nmoves, b->moves + r->first, r->n * sizeof *b->moves);
        memcpy(b->depths + b->nmoves, b->depths + r->first, r->n * sizeof *b->depths);
        r->first = (uint32_t)b->nmoves;
        b->nmoves += r->n;
        b->holes += r->n;
    } else if (r->n == 0) {
        r->first = (uint32_t)b->nmoves;
    }
    move_to_rec(m, &b->moves[b->nmoves], &b->depths[b->nmoves]);
    b->nmoves++;
    r->n++;
    b->live++;
    return true;
}

int book_position_moves(const Book *b, uint32_t id, BookMoveList *out) {
    const PosRec *r = &b->pos[id];
    out->n = r->n;
    out->ply = r->ply;
    for (uint32_t i = 0; i < r->n; i++)
        rec_to_move(&b->moves[r->first + i], b->depths[r->first + i], &out->moves[i]);
    return out->n;
}

bool book_lookup(const Book *b, const Position *pos, BookMoveList *out) {
    BookKey key;
    uint32_t id;
    book_key_from_position(pos, &key);
    if (!book_find(b, &key, &id)) {
        out->n = 0;
        out->ply = 0;
        return false;
    }
    book_position_moves(b, id, out);
    return true;
}

/* ---- bulk operations ---- */

bool book_merge(Book *dst, const Book *src) {
    BookMoveList *list = malloc(sizeof *list);
    if (!list)
        return false;
    bool ok = true;
    for (uint32_t id = 0; ok && id < src->npos; id++) {
        uint32_t did;
        const PosRec *r = &src->pos[id];
        if (!book_add_position(dst, &r->key, r->ply, &did)) {
            ok = false;
            break;
        }
        book_position_moves(src, id, list);
        for (int i = 0; ok && i < list->n; i++)
            ok = book_add_move(dst, did, &list->moves[i], NULL);
    }
    for (size_t i = 0; ok && i < src->nstats; i++) {
        const StatEntry *e = &src->stats[i];
        uint32_t id = (uint32_t)(e->key >> 16), did;
        if (!book_find(dst, &src->pos[id].key, &did))
            continue;
        if (e->has_stats)
            ok = book_set_stats(dst, did, (Move16)(e->key & 0xffff), &e->s);
        if (ok && e->n_evals)
            ok = book_set_evals(dst, did, e->evals, e->n_evals);
    }
    free(list);
    return ok;
}

static int cmp_key_ids(const void *ctx, uint32_t a, uint32_t b) {
    const PosRec *pos = ctx;
    return memcmp(pos[a].key.data, pos[b].key.data, sizeof pos[a].key.data);
}

uint32_t *book_sorted_ids(const Book *b) {
    if (b->npos == 0)
        return NULL;
    uint32_t *ids = malloc(b->npos * sizeof *ids);
    if (!ids)
        return NULL;
    for (size_t i = 0; i < b->npos; i++)
        ids[i] = (uint32_t)i;
    if (!sort_ids(ids, b->npos, cmp_key_ids, b->pos)) {
        free(ids);
        return NULL;
    }
    return ids;
}

bool book_shrink(Book *b) {
    if (b->holes) {
        if (!compact_pool(b, true))
            return false;
    } else if (b->moves_cap > b->nmoves && b->nmoves) {
        /* Shrinking in place (mremap for large blocks) never doubles the peak. */
        MoveRec *m = realloc(b->moves, b->nmoves * sizeof *m);
        if (m) {
            b->moves = m;
            b->moves_cap = b->nmoves; /* a depths array left larger is harmless */
            int16_t *d = realloc(b->depths, b->nmoves * sizeof *d);
            if (d)
                b->depths = d;
        }
    }
    if (b->pos_cap > b->npos && b->npos) {
        PosRec *p = realloc(b->pos, b->npos * sizeof *p);
        if (p) {
            b->pos = p;
            b->pos_cap = b->npos;
        }
    }
    return true;
}

void book_sort_moves(BookMove *moves, int n) {
    for (int i = 1; i < n; i++) {
        BookMove v = moves[i];
        int j = i;
        for (; j > 0; j--) {
            const BookMove *u = &moves[j - 1];
            bool after = u->count < v.count || (u->count == v.count && u->score < v.score);
            if (!after)
                break;
            moves[j] = moves[j - 1];
        }
        moves[j] = v;
    }
}

/* ---- statistics ---- */

static StatEntry *stat_find(const Book *b, uint64_t key) {
    if (!b->stat_slots)
        return NULL;
    for (size_t i = (size_t)stat_hash(key) & b->stat_mask;; i = (i + 1) & b->stat_mask) {
        uint32_t v = b->stat_slots[i];
        if (!v)
            return NULL;
        if (b->stats[v - 1].key == key)
            return &b->stats[v - 1];
    }
}

static bool stat_rehash(Book *b, size_t size) {
    uint32_t *slots = calloc(size, sizeof *slots);
    if (!slots)
        return false;
    free(b->stat_slots);
    b->stat_slots = slots;
    b->stat_mask = size - 1;
    for (size_t k = 0; k < b->nstats; k++) {
        size_t i = (size_t)stat_hash(b->stats[k].key) & b->stat_mask;
        while (slots[i])
            i = (i + 1) & b->stat_mask;
        slots[i] = (uint32_t)k + 1;
    }
    return true;
}

static StatEntry *stat_get_or_add(Book *b, uint32_t id, Move16 move) {
    uint64_t key = (uint64_t)id << 16 | move;
    StatEntry *e = stat_find(b, key);
    if (e)
        return e;
    if (b->nstats == b->stats_cap) {
        size_t cap = b->stats_cap ? b->stats_cap * 2 : 64;
        StatEntry *s = realloc(b->stats, cap * sizeof *s);
        if (!s)
            return NULL;
        b->stats = s;
        b->stats_cap = cap;
    }
    if (!b->stat_slots || (b->nstats + 1) * 2 > b->stat_mask + 1) {
        if (!stat_rehash(b, b->stat_slots ? (b->stat_mask + 1) * 2 : 128))
            return NULL;
    }
    e = &b->stats[b->nstats];
    memset(e, 0, sizeof *e);
    e->key = key;
    size_t i = (size_t)stat_hash(key) & b->stat_mask;
    while (b->stat_slots[i])
        i = (i + 1) & b->stat_mask;
    b->stat_slots[i] = (uint32_t)b->nstats + 1;
    b->nstats++;
    return e;
}

bool book_set_stats(Book *b, uint32_t id, Move16 move, const BookStats *s) {
    char *comment = NULL;
    if (s->comment) {
        size_t n = strlen(s->comment) + 1;
        comment = malloc(n);
        if (!comment)
            return false;
        memcpy(comment, s->comment, n);
    }
    StatEntry *e = stat_get_or_add(b, id, move);
    if (!e) {
        free(comment);
        return false;
    }
    free((char *)e->s.comment);
    e->s = *s;
    e->s.comment = comment;
    b->n_with_stats += !e->has_stats;
    e->has_stats = true;
    return true;
}

bool book_append_comment(Book *b, uint32_t id, Move16 move, const char *line, size_t len) {
    StatEntry *e = stat_get_or_add(b, id, move);
    if (!e)
        return false;
    size_t old = e->s.comment ? strlen(e->s.comment) : 0;
    char *c = realloc((char *)e->s.comment, old + (old ? 1 : 0) + len + 1);
    if (!c)
        return false;
    if (old)
        c[old++] = '\n';
    memcpy(c + old, line, len);
    c[old + len] = '\0';
    e->s.comment = c;
    b->n_with_stats += !e->has_stats;
    e->has_stats = true;
    return true;
}

bool book_get_stats(const Book *b, uint32_t id, Move16 move, BookStats *out) {
    const StatEntry *e = stat_find(b, (uint64_t)id << 16 | move);
    if (!e || !e->has_stats)
        return false;
    *out = e->s;
    return true;
}

bool book_has_stats(const Book *b) { return b->n_with_stats > 0; }

bool book_has_totals(const Book *b) {
    for (size_t i = 0; i < b->nstats; i++) {
        const BookStats *s = &b->stats[i].s;
        if (b->stats[i].has_stats && (s->games || s->black_wins || s->white_wins || s->eval_symbol || s->weight < 0))
            return true;
    }
    return false;
}

/* ---- analyses ---- */

static char *copy_text(char **cursor, const char *text) {
    if (!text)
        return NULL;
    size_t n = strlen(text) + 1;
    char *out = memcpy(*cursor, text, n);
    *cursor += n;
    return out;
}

BookEval *book_evals_copy(const BookEval *evals, size_t n, size_t *bytes) {
    if (!n || n > SIZE_MAX / 2 / sizeof(BookEval))
        return NULL;
    size_t size = n * sizeof(BookEval);
    for (size_t i = 0; i < n; i++)
        size += (evals[i].variation ? strlen(evals[i].variation) + 1 : 0) +
                (evals[i].engine_name ? strlen(evals[i].engine_name) + 1 : 0);
    BookEval *block = malloc(size);
    if (!block)
        return NULL;
    char *text = (char *)(block + n);
    for (size_t i = 0; i < n; i++) {
        block[i] = evals[i];
        block[i].variation = copy_text(&text, evals[i].variation);
        block[i].engine_name = copy_text(&text, evals[i].engine_name);
    }
    if (bytes)
        *bytes = size;
    return block;
}

bool book_set_evals(Book *b, uint32_t id, const BookEval *evals, size_t n) {
    size_t bytes = 0;
    BookEval *block = n > UINT32_MAX ? NULL : book_evals_copy(evals, n, &bytes);
    if (n && !block)
        return false;
    StatEntry *e = n ? stat_get_or_add(b, id, MOVE_NONE) : stat_find(b, (uint64_t)id << 16 | MOVE_NONE);
    if (!e) {
        free(block);
        return !n;
    }
    b->n_evals = b->n_evals - e->n_evals + n;
    free(e->evals);
    e->evals = block;
    e->n_evals = (uint32_t)n;
    e->eval_bytes = bytes;
    return true;
}

size_t book_get_evals(const Book *b, uint32_t id, const BookEval **evals) {
    const StatEntry *e = stat_find(b, (uint64_t)id << 16 | MOVE_NONE);
    if (evals)
        *evals = e ? e->evals : NULL;
    return e ? e->n_evals : 0;
}

size_t book_eval_count(const Book *b) { return b->n_evals; }

bool book_copy_notes(Book *dst, uint32_t did, const Book *src, uint32_t sid) {
    BookStats s;
    if (book_get_stats(src, sid, MOVE_NONE, &s) && !book_set_stats(dst, did, MOVE_NONE, &s))
        return false;
    const BookEval *ev;
    size_t ne = book_get_evals(src, sid, &ev);
    if (ne && !book_set_evals(dst, did, ev, ne))
        return false;
    BookMoveList *list = malloc(sizeof *list);
    if (!list)
        return false;
    int n = book_position_moves(dst, did, list);
    bool ok = true;
    for (int i = 0; ok && i < n; i++)
        if (book_get_stats(src, sid, list->moves[i].move, &s))
            ok = book_set_stats(dst, did, list->moves[i].move, &s);
    free(list);
    return ok;
}
