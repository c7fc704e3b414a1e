/* learn.c - see learn.h. */
#include "bookgen/learn.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bookgen/make.h"
#include "shogi/game.h"
#include "shogi/notation.h"

/* One record file: the player's result sums with each colour. */
typedef struct {
    char *file;
    double sum[2];
    uint32_t n[2];
} Group;

/* One side the player played: its group, colour and result (1, 0.5 or 0). */
typedef struct {
    uint32_t group;
    uint8_t color;
    float result;
} Side;

/* The player moved `move` in position `pos` (an id of the key index) in side `side`. */
typedef struct {
    uint32_t pos;
    uint32_t side;
    Move16 move;
} Occurrence;

struct BookLearn {
    BookLearnOptions o;
    Book *keys; /* the positions seen, for their ids, keys and plies */
    Group *groups;
    size_t n_groups, cap_groups;
    Side *sides;
    size_t n_sides, cap_sides;
    Occurrence *occ;
    size_t n_occ, cap_occ;
    StateInfo *st;
    size_t cap_st;
    uint64_t games;
};

/* The array a of n elements of size sz, with room for one more (*cap updated): a itself,
 * or a larger copy. NULL when memory runs out (a is then unchanged and still owned by the
 * caller). */
static void *grow(void *a, size_t *cap, size_t n, size_t sz) {
    if (a && n < *cap)
        return a;
    size_t nc = *cap ? *cap * 2 : 256;
    void *b = realloc(a, nc * sz);
    if (b)
        *cap = nc;
    return b;
}

BookLearn *book_learn_create(const BookLearnOptions *o) {
    BookLearn *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->o = *o;
    if (l->o.max_ply < 1)
        l->o.max_ply = 1;
    if (l->o.min_games < 1)
        l->o.min_games = 1;
    if (!(l->o.prior >= 0))
        l->o.prior = 0;
    l->keys = book_create();
    if (!l->keys) {
        free(l);
        return NULL;
    }
    return l;
}

void book_learn_free(BookLearn *l) {
    if (!l)
        return;
    book_free(l->keys);
    for (size_t i = 0; i < l->n_groups; i++)
        free(l->groups[i].file);
    free(l->groups);
    free(l->sides);
    free(l->occ);
    free(l->st);
    free(l);
}

/* The group of file (the last one when the file is the same); UINT32_MAX when memory runs out. */
static uint32_t group_of(BookLearn *l, const char *file) {
    if (l->n_groups && !strcmp(l->groups[l->n_groups - 1].file, file))
        return (uint32_t)(l->n_groups - 1);
    Group *groups = grow(l->groups, &l->cap_groups, l->n_groups, sizeof *groups);
    if (!groups)
        return UINT32_MAX;
    l->groups = groups;
    Group *g = &l->groups[l->n_groups];
    memset(g, 0, sizeof *g);
    g->file = strdup(file);
    if (!g->file)
        return UINT32_MAX;
    return (uint32_t)l->n_groups++;
}

bool book_learn_add_game(BookLearn *l, const RecordGame *g) {
    l->games++;
    if (g->result == REC_RESULT_UNKNOWN)
        return true;
    bool plays[2] = {fnmatch(l->o.player, g->black, 0) == 0, fnmatch(l->o.player, g->white, 0) == 0};
    if (!plays[BLACK] && !plays[WHITE])
        return true;
    uint32_t group = group_of(l, g->file ? g->file : "");
    if (group == UINT32_MAX)
        return false;
    uint32_t side_id[2] = {0, 0};
    for (int c = BLACK; c <= WHITE; c++) {
        if (!plays[c])
            continue;
        float r = g->result == REC_DRAW ? 0.5f : (g->result == REC_BLACK_WIN) == (c == BLACK) ? 1.0f : 0.0f;
        Side *sides = grow(l->sides, &l->cap_sides, l->n_sides, sizeof *sides);
        if (!sides)
            return false;
        l->sides = sides;
        l->sides[l->n_sides] = (Side){.group = group, .color = (uint8_t)c, .result = r};
        side_id[c] = (uint32_t)l->n_sides++;
        l->groups[group].sum[c] += r;
        l->groups[group].n[c]++;
    }
    Position pos;
    if (!book_replay_start(g, &pos, &l->st, &l->cap_st))
        return l->cap_st > (size_t)g->n_moves; /* a root without both kings is skipped, out of memory is not */
    int limit = g->n_moves < l->o.max_ply ? g->n_moves : l->o.max_ply;
    for (int i = 0; i < limit; i++) {
        if (plays[pos.side]) {
            BookKey key;
            book_key_from_position(&pos, &key);
            uint32_t id;
            Occurrence *occ = book_add_position(l->keys, &key, pos.ply, &id)
                                  ? grow(l->occ, &l->cap_occ, l->n_occ, sizeof *occ)
                                  : NULL;
            if (!occ)
                return false;
            l->occ = occ;
            l->occ[l->n_occ++] =
                (Occurrence){.pos = id, .side = side_id[pos.side], .move = move_to_move16(g->moves[i])};
        }
        position_do_move(&pos, g->moves[i], &l->st[i + 1]);
    }
    return true;
}

static int by_position_move(const void *a, const void *b) {
    const Occurrence *x = a, *y = b;
    if (x->pos != y->pos)
        return x->pos < y->pos ? -1 : 1;
    if (x->move != y->move)
        return x->move < y->move ? -1 : 1;
    return x->side < y->side ? -1 : x->side > y->side;
}

/* The evidence for one move of one position. */
typedef struct {
    Move16 move;
    uint32_t games;
    double result; /* mean result */
    double value;  /* sum(result - mean of the side's group) / (games + prior) */
} MoveEvidence;

/* More games first, then the smaller move: the order of the comment and of "played most". */
static int by_games(const void *a, const void *b) {
    const MoveEvidence *x = a, *y = b;
    if (x->games != y->games)
        return x->games > y->games ? -1 : 1;
    return x->move < y->move ? -1 : x->move > y->move;
}

/* Adds the chosen move of one position and its evidence comment to out. */
static bool emit(Book *out, const Book *keys, uint32_t pos, MoveEvidence *ev, int n, int min_games,
                 BookLearnStats *st) {
    qsort(ev, (size_t)n, sizeof *ev, by_games);
    int best = -1;
    for (int i = 0; i < n; i++)
        if ((int64_t)ev[i].games >= min_games && (best < 0 || ev[i].value > ev[best].value))
            best = i; /* on a tie the move with more games, then the smaller move, stays */
    if (best < 0)
        return true;
    BookKey key;
    book_position_key(keys, pos, &key);
    uint32_t id;
    if (!book_add_position(out, &key, book_position_ply(keys, pos), &id))
        return false;
    BookMove bm = {.move = ev[best].move, .ponder = MOVE_NONE, .count = ev[best].games};
    if (!book_add_move(out, id, &bm, NULL))
        return false;
    st->chosen++;
    if (best != 0)
        st->changed++;
    for (int i = 0; i < n && (int64_t)ev[i].games >= min_games; i++) {
        char line[128], usi[USI_MOVE_MAX];
        int len = snprintf(line, sizeof line, "learn %s: %u games, mean result %.3f, value %+.4f%s",
                           move_to_usi(ev[i].move, usi), ev[i].games, ev[i].result, ev[i].value,
                           i == best ? " (chosen)" : "");
        if (!book_append_comment(out, id, MOVE_NONE, line, (size_t)len))
            return false;
    }
    return true;
}

Book *book_learn_finish(BookLearn *l, BookLearnStats *st) {
    BookLearnStats dummy;
    if (!st)
        st = &dummy;
    memset(st, 0, sizeof *st);
    st->games = l->games;
    st->player_games = l->n_sides;
    st->positions = book_position_count(l->keys);
    Book *out = book_create();
    MoveEvidence *ev = NULL;
    size_t cap_ev = 0;
    if (!out)
        return NULL;
    if (l->n_occ)
        qsort(l->occ, l->n_occ, sizeof *l->occ, by_position_move);
    size_t i = 0;
    while (i < l->n_occ) {
        uint32_t pos = l->occ[i].pos;
        int n = 0;
        while (i < l->n_occ && l->occ[i].pos == pos) {
            Move16 move = l->occ[i].move;
            double sum = 0, diff = 0;
            uint32_t games = 0;
            for (; i < l->n_occ && l->occ[i].pos == pos && l->occ[i].move == move; i++) {
                const Side *s = &l->sides[l->occ[i].side];
                const Group *g = &l->groups[s->group];
                sum += s->result;
                diff += s->result - g->sum[s->color] / g->n[s->color];
                games++;
            }
            MoveEvidence *more = grow(ev, &cap_ev, (size_t)n, sizeof *more);
            if (!more)
                goto oom;
            ev = more;
            ev[n++] = (MoveEvidence){
                .move = move, .games = games, .result = sum / games, .value = diff / (games + l->o.prior)};
        }
        if (!emit(out, l->keys, pos, ev, n, l->o.min_games, st))
            goto oom;
    }
    free(ev);
    return out;
oom:
    free(ev);
    book_free(out);
    return NULL;
}
