/* make.c - book build, merge and import-losses (make.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bookgen/make.h"
#include "shogi/game.h"

/* ---- scores from comments: an open-addressing map (position id, move) -> sum, n ---- */

typedef struct {
    uint64_t key; /* id << 16 | move, + 1 so that 0 means empty */
    int64_t sum;
    uint32_t n;
} ScoreSlot;

struct BuildScores {
    ScoreSlot *slot;
    size_t cap, used; /* cap a power of two */
};

BuildScores *build_scores_create(void) { return calloc(1, sizeof(BuildScores)); }

void build_scores_free(BuildScores *s) {
    if (s)
        free(s->slot);
    free(s);
}

static ScoreSlot *score_slot(ScoreSlot *slot, size_t cap, uint64_t key) {
    size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
    while (slot[i].key && slot[i].key != key)
        i = (i + 1) & (cap - 1);
    return &slot[i];
}

static bool build_scores_add(BuildScores *s, uint32_t id, Move16 move, int32_t score) {
    if (2 * (s->used + 1) > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1024;
        ScoreSlot *n = calloc(cap, sizeof *n);
        if (!n)
            return false;
        for (size_t i = 0; i < s->cap; i++)
            if (s->slot[i].key)
                *score_slot(n, cap, s->slot[i].key) = s->slot[i];
        free(s->slot);
        s->slot = n, s->cap = cap;
    }
    uint64_t key = ((uint64_t)id << 16 | move) + 1;
    ScoreSlot *e = score_slot(s->slot, s->cap, key);
    if (!e->key) {
        e->key = key;
        s->used++;
    }
    e->sum += score;
    e->n++;
    return true;
}

bool build_scores_apply(const BuildScores *s, Book *b, uint64_t *moves, uint64_t *samples) {
    uint64_t nm = 0, ns = 0;
    BookMoveList *list = malloc(sizeof *list);
    if (!list)
        return false;
    for (size_t i = 0; i < s->cap; i++) {
        const ScoreSlot *e = &s->slot[i];
        if (!e->key)
            continue;
        uint32_t id = (uint32_t)((e->key - 1) >> 16);
        Move16 move = (Move16)((e->key - 1) & 0xffff);
        int n = book_position_moves(b, id, list);
        for (int k = 0; k < n; k++) {
            if (list->moves[k].move != move)
                continue;
            double mean = (double)e->sum / e->n;
            list->moves[k].score = (int32_t)(mean < 0 ? mean - 0.5 : mean + 0.5);
            list->moves[k].has_score = true;
            char line[64];
            int len = snprintf(line, sizeof line, "scores from comments: %u samples", e->n);
            if (!book_set_moves(b, id, list->moves, n) || !book_append_comment(b, id, move, line, (size_t)len)) {
                free(list);
                return false;
            }
            nm++;
            ns += e->n;
            break;
        }
    }
    free(list);
    if (moves)
        *moves = nm;
    if (samples)
        *samples = ns;
    return true;
}

bool book_replay_start(const RecordGame *g, Position *pos, StateInfo **st, size_t *cap) {
    size_t need = (size_t)g->n_moves + 1;
    if (*cap < need) {
        StateInfo *p = realloc(*st, need * sizeof *p);
        if (!p)
            return false;
        *st = p;
        *cap = need;
    }
    /* a book key needs both kings (PackedSfen): tsume problems are not book material */
    return position_from_sfen(pos, &(*st)[0], g->root_sfen, NULL, 0);
}

static bool mover_rated(const RecordGame *g, Color c, int32_t min_rating) {
    if (min_rating == REC_NO_RATING)
        return true;
    int32_t r = c == BLACK ? g->black_rating : g->white_rating;
    return r != REC_NO_RATING && r >= min_rating;
}

bool book_build_add_game(Book *b, const RecordGame *g, const BookBuildOptions *o, BookBuildStats *stats, StateInfo **st,
                         size_t *cap) {
    Position pos;
    stats->games++;
    if (!book_replay_start(g, &pos, st, cap))
        return *cap > (size_t)g->n_moves; /* a bad root is skipped, out of memory is not */
    RecordResult winner = g->result;
    bool used = false;
    int limit = o->max_ply > 0 && o->max_ply < g->n_moves ? o->max_ply : g->n_moves;
    for (int i = 0; i < limit; i++) {
        Color us = pos.side;
        BookKey key;
        book_key_from_position(&pos, &key);
        uint32_t id;
        if (!book_add_position(b, &key, pos.ply, &id))
            return false;
        BookStats s;
        if (!book_get_stats(b, id, MOVE_NONE, &s))
            memset(&s, 0, sizeof s);
        s.comment = NULL;
        s.games++;
        if (winner == REC_BLACK_WIN)
            s.black_wins++;
        else if (winner == REC_WHITE_WIN)
            s.white_wins++;
        BookStats keep;
        const char *comment = book_get_stats(b, id, MOVE_NONE, &keep) ? keep.comment : NULL;
        char *copy = comment ? strdup(comment) : NULL;
        s.comment = copy;
        bool ok = book_set_stats(b, id, MOVE_NONE, &s);
        free(copy);
        if (!ok)
            return false;
        bool count = true;
        if ((o->side == BUILD_SIDE_BLACK && us != BLACK) || (o->side == BUILD_SIDE_WHITE && us != WHITE))
            count = false;
        if (o->winner_only && !((winner == REC_BLACK_WIN && us == BLACK) || (winner == REC_WHITE_WIN && us == WHITE)))
            count = false;
        if (!mover_rated(g, us, o->min_rating))
            count = false;
        if (o->player && strcmp(o->player, us == BLACK ? g->black : g->white))
            count = false;
        Move m = g->moves[i];
        if (count) {
            BookMove bm = {.move = move_to_move16(m), .ponder = MOVE_NONE, .count = 1};
            if (i + 1 < g->n_moves)
                bm.ponder = move_to_move16(g->moves[i + 1]);
            if (!book_add_move(b, id, &bm, NULL))
                return false;
            if (o->scores && g->scores && g->scores[i] != REC_NO_SCORE &&
                !build_scores_add(o->scores, id, bm.move, us == BLACK ? g->scores[i] : -g->scores[i]))
                return false;
            stats->moves_counted++;
            used = true;
        }
        position_do_move(&pos, m, &(*st)[i + 1]);
    }
    if (used)
        stats->games_used++;
    return true;
}

static bool copy_stats(Book *dst, uint32_t did, const Book *src, uint32_t sid) {
    BookStats s;
    if (!book_get_stats(src, sid, MOVE_NONE, &s))
        return true;
    return book_set_stats(dst, did, MOVE_NONE, &s);
}

Book *book_filter_min_count(const Book *b, uint64_t min_count) {
    Book *out = book_create();
    BookMoveList *list = malloc(sizeof *list);
    if (!out || !list)
        goto fail;
    for (uint32_t id = 0; id < book_position_count(b); id++) {
        book_position_moves(b, id, list);
        bool any = false;
        for (int i = 0; i < list->n; i++)
            any |= list->moves[i].count >= min_count;
        if (!any)
            continue;
        BookKey k;
        book_position_key(b, id, &k);
        uint32_t nid;
        if (!book_add_position(out, &k, book_position_ply(b, id), &nid) || !copy_stats(out, nid, b, id))
            goto fail;
        for (int i = 0; i < list->n; i++)
            if (list->moves[i].count >= min_count && !book_add_move(out, nid, &list->moves[i], NULL))
                goto fail;
    }
    free(list);
    return out;
fail:
    free(list);
    book_free(out);
    return NULL;
}

static void weigh(BookMoveList *l, double w) {
    if (w == 1.0)
        return;
    for (int i = 0; i < l->n; i++) {
        if (!l->moves[i].count)
            continue;
        double c = floor((double)l->moves[i].count * w + 0.5);
        l->moves[i].count = c < 1 ? 1 : c > (double)BOOK_COUNT_MAX ? BOOK_COUNT_MAX : (uint64_t)c;
    }
}

static int max_depth(const BookMoveList *l) {
    int d = -1;
    for (int i = 0; i < l->n; i++)
        if (l->moves[i].has_depth && l->moves[i].depth > d)
            d = l->moves[i].depth;
    return d;
}

static bool add_list(Book *b, uint32_t id, const BookMoveList *l) {
    for (int i = 0; i < l->n; i++)
        if (!book_add_move(b, id, &l->moves[i], NULL))
            return false;
    return true;
}

/* The statistics and comments src holds for the moves of its position sid that dst's
 * position did lists without any: a summed move keeps the first book's evidence, and
 * gains the second's where the first had none. False when memory runs out. */
static bool copy_missing_move_notes(Book *dst, uint32_t did, const Book *src, uint32_t sid) {
    BookMoveList *list = malloc(sizeof *list);
    if (!list)
        return false;
    int n = book_position_moves(dst, did, list);
    bool ok = true;
    BookStats s, have;
    for (int i = 0; ok && i < n; i++)
        if (!book_get_stats(dst, did, list->moves[i].move, &have) && book_get_stats(src, sid, list->moves[i].move, &s))
            ok = book_set_stats(dst, did, list->moves[i].move, &s);
    free(list);
    return ok;
}

bool book_merge_policy(Book **dstp, const Book *src, double weight, MergePolicy policy) {
    Book *dst = *dstp;
    BookMoveList *a = malloc(sizeof *a), *s = malloc(sizeof *s);
    Book *out = NULL;
    bool ok = false;
    if (!a || !s)
        goto done;
    if (policy == MERGE_SUM) {
        for (uint32_t sid = 0; sid < book_position_count(src); sid++) {
            BookKey k;
            book_position_key(src, sid, &k);
            uint32_t did;
            bool existed = book_find(dst, &k, &did);
            if (!existed && !book_add_position(dst, &k, book_position_ply(src, sid), &did))
                goto done;
            if (existed)
                book_add_position(dst, &k, book_position_ply(src, sid), &did); /* lowers the ply */
            book_position_moves(src, sid, s);
            weigh(s, weight);
            if (existed)
                book_position_moves(dst, did, a);
            else
                a->n = 0;
            for (int i = 0; i < s->n; i++) {
                BookMove m = s->moves[i];
                for (int j = 0; j < a->n; j++)
                    if (a->moves[j].move == m.move && a->moves[j].has_depth &&
                        (!m.has_depth || a->moves[j].depth > m.depth)) {
                        m.has_score = m.has_depth = false; /* keep the deeper evaluation */
                        m.ponder = MOVE_NONE;
                    }
                if (!book_add_move(dst, did, &m, NULL))
                    goto done;
            }
            if (!existed && !book_copy_notes(dst, did, src, sid))
                goto done;
            if (existed && !copy_missing_move_notes(dst, did, src, sid))
                goto done;
            BookStats keep;
            if (existed && !book_get_stats(dst, did, MOVE_NONE, &keep) && !copy_stats(dst, did, src, sid))
                goto done; /* the first book's comment stays; src's fills a gap */
        }
        ok = true;
        goto done;
    }
    out = book_create();
    if (!out)
        goto done;
    for (uint32_t did = 0; did < book_position_count(dst); did++) {
        BookKey k;
        book_position_key(dst, did, &k);
        book_position_moves(dst, did, a);
        uint32_t sid = 0, oid;
        const BookMoveList *use = a;
        int ply = book_position_ply(dst, did);
        if (book_find(src, &k, &sid)) {
            book_position_moves(src, sid, s);
            weigh(s, weight);
            int sp = book_position_ply(src, sid);
            if (sp && (!ply || sp < ply))
                ply = sp;
            if (policy == MERGE_PREFER_DEEPER && max_depth(s) > max_depth(a))
                use = s;
            if (a->n == 0)
                use = s;
        }
        /* the position's comment (think provenance) comes with the moves it describes */
        bool from_src = use == s;
        if (!book_add_position(out, &k, ply, &oid) || !add_list(out, oid, use) ||
            !book_copy_notes(out, oid, from_src ? src : dst, from_src ? sid : did))
            goto done;
    }
    for (uint32_t sid = 0; sid < book_position_count(src); sid++) {
        BookKey k;
        book_position_key(src, sid, &k);
        uint32_t did, oid;
        if (book_find(dst, &k, &did))
            continue;
        book_position_moves(src, sid, s);
        weigh(s, weight);
        if (!book_add_position(out, &k, book_position_ply(src, sid), &oid) || !add_list(out, oid, s) ||
            !book_copy_notes(out, oid, src, sid))
            goto done;
    }
    book_free(dst);
    *dstp = out;
    out = NULL;
    ok = true;
done:
    book_free(out);
    free(a);
    free(s);
    return ok;
}

bool book_import_loss(Book *b, const RecordGame *g, const char *opponent, int max_ply, ImportLossStats *stats,
                      StateInfo **st, size_t *cap) {
    Color loser;
    if (!strcmp(g->black, opponent) || !strcmp(g->white, opponent))
        stats->named++;
    if (g->result == REC_BLACK_WIN && !strcmp(g->white, opponent))
        loser = WHITE;
    else if (g->result == REC_WHITE_WIN && !strcmp(g->black, opponent))
        loser = BLACK;
    else
        return true;
    Position pos;
    if (!book_replay_start(g, &pos, st, cap))
        return *cap > (size_t)g->n_moves;
    BookMoveList *list = malloc(sizeof *list);
    if (!list)
        return false;
    stats->games++;
    int limit = max_ply > 0 && max_ply < g->n_moves ? max_ply : g->n_moves;
    bool ok = true;
    for (int i = 0; i < limit && ok; i++) {
        Move m = g->moves[i];
        if (pos.side != loser) {
            BookKey key;
            book_key_from_position(&pos, &key);
            uint32_t id;
            ok = book_add_position(b, &key, pos.ply, &id);
            if (!ok)
                break;
            book_position_moves(b, id, list);
            uint64_t top = 0, mine = 0;
            bool scored = false, others_hold_best = false;
            int32_t best = 0;
            Move16 m16 = move_to_move16(m);
            for (int j = 0; j < list->n; j++) {
                const BookMove *x = &list->moves[j];
                if (x->count > top)
                    top = x->count;
                if (x->move == m16)
                    mine = x->count;
                if (x->has_score && (!scored || x->score > best)) {
                    best = x->score;
                    scored = true;
                }
            }
            for (int j = 0; j < list->n; j++)
                if (list->moves[j].move != m16 && list->moves[j].has_score && list->moves[j].score == best)
                    others_hold_best = true;
            BookMove nm = {.move = m16, .ponder = MOVE_NONE, .count = top + 1 - mine};
            if (i + 1 < g->n_moves)
                nm.ponder = move_to_move16(g->moves[i + 1]);
            if (scored) {
                nm.has_score = true;
                nm.score = others_hold_best && best < VALUE_MATE ? best + 1 : best;
                for (int j = 0; j < list->n; j++)
                    if (list->moves[j].move == m16 && list->moves[j].has_depth) {
                        nm.has_depth = true;
                        nm.depth = list->moves[j].depth;
                    }
            }
            ok = book_add_move(b, id, &nm, NULL);
            stats->positions++;
        }
        position_do_move(&pos, m, &(*st)[i + 1]);
    }
    free(list);
    return ok;
}
