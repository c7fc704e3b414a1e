/* sbk_patch.c - the SBK patch writer (docs/formats/sbk.md, "Patch writer"); see sbk.h. */
#include "book/sbk_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shogi/notation.h"
#include "util/atomic_file.h"

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
        /* as sbk_write_file(): the statistics' weight when they hold one, else the count */
        int64_t weight = has && ms.weight != 0 ? ms.weight : (int64_t)(m->count > INT32_MAX ? UINT64_MAX : m->count);
        /* a score and depth that the child's first analysis gives back are carried by it */
        int32_t child_score = 0, child_depth = 0;
        uint32_t child = decodes ? sbki_child_of(book, &pos, m->move) : UINT32_MAX;
        bool derived =
            child != UINT32_MAX && sbki_child_eval_in_book(book, child, pos.side, &child_score, &child_depth);
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
    size_t r = sbki_rec_lower_bound(b, key);
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
    BookKey key;
    book_key_after_move(pos, m, &key);
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
    if (!sbki_locate_state(b, NULL, index, &off, &len, NULL, 0) || !sbki_reserve(raw, cap, (size_t)len) ||
        !sbki_src_read(b, NULL, off, *raw, (size_t)len))
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
    if (it->n_evals && !sbki_reserve_evals(msgs, ptrs, cap, it->n_evals))
        return false;
    for (size_t k = 0; k < it->n_evals; k++) {
        sbki_eval_to_msg(&it->evals[k], &(*msgs)[k]);
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
        size_t r = sbki_rec_lower_bound(b, &it->key);
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
        while ((r = sbki_file_field(b, NULL, &off, &f, err, err_len)) > 0) {
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
                    if (!sbki_reserve(&out, &out_cap, whole) || !sbki_src_read(b, NULL, f.start, out, whole) ||
                        fwrite(out, 1, whole, af.f) != whole)
                        PFAIL(SBK_ERR_IO, "read or write error: %s", sbki_io_reason());
                    continue;
                }
                size_t len = sbook_state__get_packed_size(s);
                ok = sbki_reserve(&out, &out_cap, len);
                if (ok) {
                    sbook_state__pack(s, out);
                    ok = sbki_put_field(af.f, 3, out, len);
                }
                s->moves = orig_moves, s->n_moves = orig_n;
                s->comment = orig_comment;
                s->position = orig_position;
                s->evals = orig_evals, s->n_evals = orig_n_evals;
                sbook_state__free_unpacked(s, NULL);
                if (!ok)
                    PFAIL(SBK_ERR_IO, "write error: %s", sbki_io_reason());
                continue;
            }
            if (!sbki_reserve(&out, &out_cap, whole) || !sbki_src_read(b, NULL, f.start, out, whole) ||
                fwrite(out, 1, whole, af.f) != whole)
                PFAIL(SBK_ERR_IO, "read or write error: %s", sbki_io_reason());
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
        if (!sbki_reserve(&out, &out_cap, len))
            PFAIL(SBK_ERR_NO_MEMORY, "out of memory");
        sbook_state__pack(&s, out);
        if (!sbki_put_field(af.f, 3, out, len))
            PFAIL(SBK_ERR_IO, "write error: %s", sbki_io_reason());
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
