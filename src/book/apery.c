/* apery.c - Apery book.bin reader; see apery.h. */
#include "book/apery.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shogi/movegen.h"
#include "util/error.h"

enum { ENTRY = 16, PIECE_ROWS = 31, HAND_ROWS = 7, HAND_COUNTS = 19 };

typedef struct {
    uint64_t key;
    uint16_t move;
    uint16_t count;
    int32_t score;
} AperyEntry;

struct AperyBook {
    uint64_t piece[PIECE_ROWS][SQ_NB];
    uint64_t hand[HAND_ROWS][HAND_COUNTS];
    uint64_t side;
    AperyEntry *e; /* sorted by key, stable */
    size_t n, keys;
};

/* std::mt19937_64 (Matsumoto and Nishimura's MT19937-64), as the C++ standard defines it. */
typedef struct {
    uint64_t mt[312];
    int i;
} Mt64;

static void mt64_seed(Mt64 *m, uint64_t seed) {
    m->mt[0] = seed;
    for (int i = 1; i < 312; i++)
        m->mt[i] = 6364136223846793005ull * (m->mt[i - 1] ^ (m->mt[i - 1] >> 62)) + (uint64_t)i;
    m->i = 312;
}

static uint64_t mt64_next(Mt64 *m) {
    static const uint64_t MAG[2] = {0, 0xB5026F5AA96619E9ull};
    const uint64_t UM = 0xFFFFFFFF80000000ull, LM = 0x7FFFFFFFull;
    if (m->i >= 312) {
        int k;
        for (k = 0; k < 312 - 156; k++) {
            uint64_t x = (m->mt[k] & UM) | (m->mt[k + 1] & LM);
            m->mt[k] = m->mt[k + 156] ^ (x >> 1) ^ MAG[x & 1];
        }
        for (; k < 311; k++) {
            uint64_t x = (m->mt[k] & UM) | (m->mt[k + 1] & LM);
            m->mt[k] = m->mt[k + (156 - 312)] ^ (x >> 1) ^ MAG[x & 1];
        }
        uint64_t x = (m->mt[311] & UM) | (m->mt[0] & LM);
        m->mt[311] = m->mt[155] ^ (x >> 1) ^ MAG[x & 1];
        m->i = 0;
    }
    uint64_t x = m->mt[m->i++];
    x ^= (x >> 29) & 0x5555555555555555ull;
    x ^= (x << 17) & 0x71D67FFFEDA60000ull;
    x ^= (x << 37) & 0xFFF7EEE000000000ull;
    x ^= x >> 43;
    return x;
}

static void init_tables(AperyBook *ab) {
    Mt64 *m = malloc(sizeof *m);
    Mt64 local;
    if (!m)
        m = &local;
    mt64_seed(m, 5489u);
    for (int p = 0; p < PIECE_ROWS; p++)
        for (int sq = 0; sq < SQ_NB; sq++) {
            uint64_t r = mt64_next(m);
            ab->piece[p][sq] = p ? r : 0;
        }
    for (int h = 0; h < HAND_ROWS; h++)
        for (int c = 0; c < HAND_COUNTS; c++)
            ab->hand[h][c] = mt64_next(m);
    ab->side = mt64_next(m);
    if (m != &local)
        free(m);
}

uint64_t apery_key(const AperyBook *ab, const Position *pos) {
    /* Index of our piece types PAWN..GOLD in Apery's hand order. */
    static const int HAND_INDEX[8] = {-1, 0, 1, 2, 3, 5, 6, 4};
    uint64_t key = 0;
    for (int sq = 0; sq < SQ_NB; sq++) {
        Piece pc = position_piece_on(pos, sq);
        if (pc > 0 && pc < PIECE_ROWS)
            key ^= ab->piece[pc][sq];
    }
    Hand h = pos->hand[pos->side];
    for (int pt = PAWN; pt <= GOLD; pt++) {
        int c = hand_count(h, (PieceType)pt);
        key ^= ab->hand[HAND_INDEX[pt]][c < HAND_COUNTS ? c : HAND_COUNTS - 1];
    }
    if (pos->side == WHITE)
        key ^= ab->side;
    return key;
}

Move16 apery_move_to_move16(uint16_t m) {
    unsigned to = m & 0x7f, from = (m >> 7) & 0x7f;
    bool promote = (m >> 14) & 1;
    if (!promote && from >= SQ_NB)
        return (Move16)(to | ((from - SQ_NB + 1) << 7) | MOVE_DROP);
    return (Move16)(to | (from << 7) | (promote ? MOVE_PROMOTE : 0));
}

static int cmp_entry(const void *a, const void *b) {
    const AperyEntry *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    /* Stable: entries carry their file order in the score's neighbour below. */
    return 0;
}

AperyBook *apery_open_memory(const char *name, const void *data, size_t len, char *err, size_t err_len) {
    shogi_init();
    if (len % ENTRY) {
        error_set(err, err_len, "%s: size %zu is not a multiple of 16: not an Apery book", name, len);
        return NULL;
    }
    AperyBook *ab = calloc(1, sizeof *ab);
    if (!ab || (len && !(ab->e = malloc(len / ENTRY * sizeof *ab->e)))) {
        free(ab);
        error_set(err, err_len, "%s: out of memory", name);
        return NULL;
    }
    init_tables(ab);
    const uint8_t *d = data;
    ab->n = len / ENTRY;
    bool sorted = true;
    for (size_t i = 0; i < ab->n; i++, d += ENTRY) {
        uint64_t k = 0;
        for (int b = 7; b >= 0; b--)
            k = k << 8 | d[b];
        ab->e[i].key = k;
        ab->e[i].move = (uint16_t)(d[8] | d[9] << 8);
        ab->e[i].count = (uint16_t)(d[10] | d[11] << 8);
        ab->e[i].score =
            (int32_t)((uint32_t)d[12] | (uint32_t)d[13] << 8 | (uint32_t)d[14] << 16 | (uint32_t)d[15] << 24);
        if (i && ab->e[i].key < ab->e[i - 1].key)
            sorted = false;
    }
    if (!sorted) {
        /* qsort is not stable; the order of one key's moves only matters for ties in
         * count and score, which the selector breaks by score order anyway. */
        qsort(ab->e, ab->n, sizeof *ab->e, cmp_entry);
    }
    for (size_t i = 0; i < ab->n; i++)
        ab->keys += !i || ab->e[i].key != ab->e[i - 1].key;
    return ab;
}

AperyBook *apery_open(const char *path, char *err, size_t err_len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        error_set(err, err_len, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    AperyBook *ab = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long size = ftell(f);
        rewind(f);
        void *buf = size >= 0 ? malloc((size_t)size + 1) : NULL;
        if (buf && fread(buf, 1, (size_t)size, f) == (size_t)size)
            ab = apery_open_memory(path, buf, (size_t)size, err, err_len);
        else
            error_set(err, err_len, "%s: cannot read", path);
        free(buf);
    } else {
        error_set(err, err_len, "%s: cannot seek", path);
    }
    fclose(f);
    return ab;
}

void apery_free(AperyBook *ab) {
    if (!ab)
        return;
    free(ab->e);
    free(ab);
}

size_t apery_entry_count(const AperyBook *ab) { return ab->n; }
size_t apery_key_count(const AperyBook *ab) { return ab->keys; }

/* First entry with this key, or n. */
static size_t find_first(const AperyBook *ab, uint64_t key) {
    size_t lo = 0, hi = ab->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ab->e[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ab->n && ab->e[lo].key == key ? lo : ab->n;
}

bool apery_lookup(const AperyBook *ab, const Position *pos, BookMoveList *out) {
    out->n = 0;
    out->ply = 0;
    uint64_t key = apery_key(ab, pos);
    for (size_t i = find_first(ab, key); i < ab->n && ab->e[i].key == key && out->n < BOOK_MAX_MOVES; i++) {
        BookMove m = {.move = apery_move_to_move16(ab->e[i].move),
                      .score = ab->e[i].score,
                      .has_score = true,
                      .depth = 256, /* YaneuraOu's value for Apery entries: BookDepthLimit passes them */
                      .has_depth = true,
                      .count = ab->e[i].count};
        bool dup = false;
        for (int k = 0; k < out->n; k++)
            dup |= out->moves[k].move == m.move; /* ShogiHome keeps the first */
        if (!dup)
            out->moves[out->n++] = m;
    }
    return out->n > 0;
}

/* ---- conversion ---- */

typedef struct {
    uint64_t *keys; /* open addressing, 0 = empty (a zero key is kept apart) */
    size_t mask, n;
    bool zero;
} KeySet;

static bool keyset_insert(KeySet *s, uint64_t k) { /* true when newly inserted */
    if (k == 0) {
        bool fresh = !s->zero;
        s->zero = true;
        return fresh;
    }
    if ((s->n + 1) * 2 > s->mask + 1) {
        size_t size = (s->mask + 1) * 2;
        uint64_t *nk = calloc(size, sizeof *nk);
        if (!nk)
            return false;
        for (size_t i = 0; i <= s->mask; i++)
            if (s->keys[i]) {
                size_t j = (size_t)(s->keys[i] * 0x9E3779B97F4A7C15ull >> 20) & (size - 1);
                while (nk[j])
                    j = (j + 1) & (size - 1);
                nk[j] = s->keys[i];
            }
        free(s->keys);
        s->keys = nk;
        s->mask = size - 1;
    }
    size_t j = (size_t)(k * 0x9E3779B97F4A7C15ull >> 20) & s->mask;
    for (; s->keys[j]; j = (j + 1) & s->mask)
        if (s->keys[j] == k)
            return false;
    s->keys[j] = k;
    s->n++;
    return true;
}

typedef struct {
    const AperyBook *ab;
    Book *book;
    KeySet seen;
    AperyConvertStats st;
    BookMoveList list;
    bool oom;
    int unreg_depth;
    StateInfo states[MAX_PLY + 2];
} Walk;

static void walk(Walk *w, Position *pos, int ply, int depth_left) {
    if (w->oom || ply >= MAX_PLY)
        return;
    uint64_t key = apery_key(w->ab, pos);
    bool hit = find_first(w->ab, key) < w->ab->n;
    if (!hit && depth_left < 1)
        return;
    if (hit) {
        if (!keyset_insert(&w->seen, key))
            return; /* visited (or out of memory, which only repeats work) */
        apery_lookup(w->ab, pos, &w->list);
        for (int i = 0; i < w->list.n; i++)
            if (position_legal_move_from16(pos, w->list.moves[i].move) == MOVE_NONE) {
                w->st.collisions++;
                return;
            }
        BookKey bk;
        uint32_t id;
        book_key_from_position(pos, &bk);
        if (!book_add_position(w->book, &bk, ply + 1, &id)) {
            w->oom = true;
            return;
        }
        w->st.positions++;
        for (int i = 0; i < w->list.n; i++)
            if (!book_add_move(w->book, id, &w->list.moves[i], NULL)) {
                w->oom = true;
                return;
            }
    }
    ExtMove moves[MAX_MOVES];
    int n = generate_moves(pos, GEN_LEGAL, moves);
    for (int i = 0; i < n && !w->oom; i++) {
        position_do_move(pos, moves[i].move, &w->states[ply]);
        walk(w, pos, ply + 1, hit ? w->unreg_depth : depth_left - 1);
        position_undo_move(pos, moves[i].move);
    }
}

bool apery_to_book(const AperyBook *ab, int unreg_depth, Book *book, AperyConvertStats *stats, char *err,
                   size_t err_len) {
    Walk *w = calloc(1, sizeof *w);
    if (!w)
        return error_set(err, err_len, "out of memory");
    w->ab = ab;
    w->book = book;
    w->unreg_depth = unreg_depth < 0 ? 0 : unreg_depth;
    w->seen.mask = 1023;
    w->seen.keys = calloc(1024, sizeof *w->seen.keys);
    Position pos;
    StateInfo st;
    position_set_startpos(&pos, &st);
    if (!w->seen.keys)
        w->oom = true;
    else
        walk(w, &pos, 0, w->unreg_depth);
    /* Ponder: the best book move of the position after each move. */
    for (uint32_t id = 0; !w->oom && id < book_position_count(book); id++) {
        BookKey k;
        book_position_key(book, id, &k);
        Position p;
        StateInfo s0, s1;
        if (!book_key_to_position(&k, &p, &s0, 1))
            continue;
        BookMoveList *cur = malloc(sizeof *cur);
        if (!cur) {
            w->oom = true;
            break;
        }
        book_position_moves(book, id, cur);
        for (int i = 0; i < cur->n; i++) {
            Move mv = position_legal_move_from16(&p, cur->moves[i].move);
            if (mv == MOVE_NONE || cur->moves[i].ponder != MOVE_NONE)
                continue;
            position_do_move(&p, mv, &s1);
            if (book_lookup(book, &p, &w->list) && w->list.n) {
                book_sort_moves(w->list.moves, w->list.n);
                BookMove m = cur->moves[i];
                m.ponder = w->list.moves[0].move;
                m.count = 0; /* merging adds counts: add none */
                book_add_move(book, id, &m, NULL);
            }
            position_undo_move(&p, mv);
        }
        free(cur);
    }
    w->st.unreached = ab->keys - w->seen.n - (w->seen.zero ? 1 : 0);
    if (stats)
        *stats = w->st;
    bool ok = !w->oom;
    free(w->seen.keys);
    free(w);
    return ok || error_set(err, err_len, "out of memory");
}
