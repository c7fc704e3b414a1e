/* select.c - book move selection; see select.h. */
#include "book/select.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/random.h"

static int probe_memory(void *ctx, const Position *pos, BookMoveList *out, char *err, size_t err_len) {
    (void)err;
    (void)err_len;
    return book_lookup(ctx, pos, out) ? 1 : 0;
}

BookSource book_source_memory(const Book *b) { return (BookSource){probe_memory, (void *)b}; }

void book_select_defaults(BookSelectOptions *o) {
    o->book_moves = 16;
    o->ignore_rate = 0;
    o->eval_diff = 30;
    o->eval_black_limit = 0;
    o->eval_white_limit = -140;
    o->depth_limit = 0;
    o->consider_count = false;
    o->narrow_book = false;
    o->pv_moves = 8;
    o->ignore_book_ply = true;
    o->flipped_book = true;
}

static void say(char *buf, size_t len, const char *fmt, ...) {
    if (!buf || !len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

/* Uniform in [0, n), n > 0. */
static uint64_t random_below(uint64_t *s, uint64_t n) { return random_xorshift64star(s) % n; }

int book_probe(const BookSource *src, const Position *pos, const BookSelectOptions *opt, BookMoveList *out,
               bool *flipped, char *err, size_t err_len) {
    bool flip = false;
    int rc = src->probe(src->ctx, pos, out, err, err_len);
    if (rc < 0)
        return -1;
    if (rc == 0 && opt->flipped_book) {
        BookKey key, fkey;
        Position fpos;
        StateInfo fst;
        book_key_from_position(pos, &key);
        if (book_key_flip(&key, &fkey) && book_key_to_position(&fkey, &fpos, &fst, pos->ply)) {
            rc = src->probe(src->ctx, &fpos, out, err, err_len);
            if (rc < 0)
                return -1;
            if (rc > 0) {
                flip = true;
                for (int i = 0; i < out->n; i++) {
                    out->moves[i].move = book_move_flip(out->moves[i].move);
                    out->moves[i].ponder = book_move_flip(out->moves[i].ponder);
                }
            }
        }
    }
    if (rc == 0 || (!opt->ignore_book_ply && out->ply && out->ply != pos->ply)) {
        out->n = 0;
        return 0;
    }
    /* Legality: drop illegal moves, clear illegal ponders. */
    Position *p = (Position *)pos; /* do/undo restore it exactly */
    int k = 0;
    for (int i = 0; i < out->n; i++) {
        BookMove m = out->moves[i];
        Move mv = position_legal_move_from16(pos, m.move);
        if (mv == MOVE_NONE)
            continue;
        if (m.ponder != MOVE_NONE) {
            StateInfo st;
            position_do_move(p, mv, &st);
            if (position_legal_move_from16(p, m.ponder) == MOVE_NONE)
                m.ponder = MOVE_NONE;
            position_undo_move(p, mv);
        }
        out->moves[k++] = m;
    }
    out->n = k;
    book_sort_moves(out->moves, out->n);
    if (flipped)
        *flipped = flip;
    return 1;
}

/* The filters of select.h's options and the draw, over list->moves[lo..hi): survivors are
 * packed from lo. Returns BOOK_SELECT_HIT with the chosen index in *pick and the survivors
 * in *survivors, or BOOK_SELECT_FILTERED with the reason said. drop_demoted removes an
 * overlay's demoted moves first (select.h, BOOK_SCORE_DEMOTED). */
static BookSelectResult filter_and_pick(BookMoveList *list, int lo, int hi, bool drop_demoted, const Position *pos,
                                        const BookSelectOptions *opt, uint64_t *rng, int *pick, int *survivors,
                                        char *reason, size_t reason_len) {
    BookMove *mv = list->moves + lo;
    int n = hi - lo;
    if (drop_demoted) {
        int k = 0;
        for (int i = 0; i < n; i++)
            if (!book_move_demoted(&mv[i]))
                mv[k++] = mv[i];
        if (k == 0) {
            say(reason, reason_len, "every overlay move is demoted");
            return BOOK_SELECT_FILTERED;
        }
        n = k;
    }
    uint64_t total = 0;
    for (int i = 0; i < n; i++)
        total += mv[i].count;
    if (total == 0)
        total = 1;
    if (opt->narrow_book) {
        int k = 0;
        for (int i = 0; i < n; i++)
            if ((double)mv[i].count / (double)total >= 0.1)
                mv[k++] = mv[i];
        n = k;
    }
    if (n == 0) {
        say(reason, reason_len, "NarrowBook removed every move");
        return BOOK_SELECT_FILTERED;
    }
    if (opt->depth_limit != 0 && mv[0].depth < opt->depth_limit) {
        say(reason, reason_len, "BookDepthLimit %d is above the depth %d of this entry", opt->depth_limit, mv[0].depth);
        return BOOK_SELECT_FILTERED;
    }
    /* BookEvalDiff counts from the best score, wherever the count order put that move
     * (a book from games keeps their counts after minimax; the most played move need not
     * be the best one) */
    int best = mv[0].score;
    for (int i = 1; i < n; i++)
        if (mv[i].score > best)
            best = mv[i].score;
    int limit = best - opt->eval_diff;
    int side_limit = pos->side == BLACK ? opt->eval_black_limit : opt->eval_white_limit;
    if (side_limit > limit)
        limit = side_limit;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (mv[i].score >= limit)
            mv[k++] = mv[i];
    n = k;
    if (n == 0) {
        say(reason, reason_len, "BookEvalDiff %d / %s %d removed every move", opt->eval_diff,
            pos->side == BLACK ? "BookEvalBlackLimit" : "BookEvalWhiteLimit", side_limit);
        return BOOK_SELECT_FILTERED;
    }
    int p = (int)random_below(rng, (uint64_t)n);
    if (opt->consider_count) {
        /* YaneuraOu's one-pass weighted choice; all-zero counts count as one each. */
        uint64_t sum = 0;
        for (int i = 0; i < n; i++)
            sum += mv[i].count;
        uint64_t acc = 0;
        for (int i = 0; i < n; i++) {
            uint64_t c = sum == 0 ? 1 : mv[i].count;
            acc += c;
            if (acc && random_below(rng, acc) < c)
                p = i;
        }
    }
    *pick = lo + p;
    *survivors = n;
    return BOOK_SELECT_HIT;
}

bool book_move_demoted(const BookMove *m) { return m->has_score && m->score <= BOOK_SCORE_DEMOTED; }

int book_probe_overlay(const BookSource *overlay, const BookSource *src, const Position *pos,
                       const BookSelectOptions *opt, BookMoveList *out, int *n_overlay, bool *flipped, char *err,
                       size_t err_len) {
    *n_overlay = 0;
    if (flipped)
        *flipped = false;
    int rc = 0;
    if (overlay) {
        rc = book_probe(overlay, pos, opt, out, flipped, err, err_len);
        if (rc < 0)
            return -1;
        *n_overlay = rc > 0 ? out->n : 0;
    }
    if (!src)
        return rc;
    if (rc == 0)
        return book_probe(src, pos, opt, out, flipped, err, err_len);
    BookMoveList *more = malloc(sizeof *more);
    if (!more) {
        say(err, err_len, "out of memory");
        return -1;
    }
    bool f;
    int rc2 = book_probe(src, pos, opt, more, &f, err, err_len);
    if (rc2 > 0) {
        for (int i = 0; i < more->n && out->n < BOOK_MAX_MOVES; i++) {
            bool listed = false;
            for (int j = 0; j < *n_overlay && !listed; j++)
                listed = out->moves[j].move == more->moves[i].move;
            if (!listed)
                out->moves[out->n++] = more->moves[i];
        }
    }
    free(more);
    return rc2 < 0 ? -1 : 1;
}

BookSelectResult book_select(const BookSource *src, Position *pos, const BookSelectOptions *opt, uint64_t *rng,
                             BookChoice *out, char *reason, size_t reason_len) {
    return book_select_overlay(NULL, src, pos, opt, rng, out, reason, reason_len);
}

BookSelectResult book_select_overlay(const BookSource *overlay, const BookSource *src, Position *pos,
                                     const BookSelectOptions *opt, uint64_t *rng, BookChoice *out, char *reason,
                                     size_t reason_len) {
    memset(out, 0, sizeof *out);
    if (opt->ignore_rate > 0 && (int)random_below(rng, 100) < opt->ignore_rate) {
        say(reason, reason_len, "BookIgnoreRate %d: thinking instead", opt->ignore_rate);
        return BOOK_SELECT_IGNORED;
    }
    if (pos->ply > opt->book_moves) {
        say(reason, reason_len, "ply %d is beyond BookMoves %d", pos->ply, opt->book_moves);
        return BOOK_SELECT_PLY_LIMIT;
    }
    BookMoveList *list = malloc(sizeof *list);
    if (!list) {
        say(reason, reason_len, "out of memory");
        return BOOK_SELECT_ERROR;
    }
    BookSelectResult result = BOOK_SELECT_HIT;
    int n_over = 0;
    int rc = book_probe_overlay(overlay, src, pos, opt, list, &n_over, &out->flipped, reason, reason_len);
    if (rc < 0) {
        result = BOOK_SELECT_ERROR;
        goto done;
    }
    if (rc == 0 || list->n == 0) {
        say(reason, reason_len, rc == 0 ? "not in the book" : "no legal move in the book entry");
        result = rc == 0 ? BOOK_SELECT_MISS : BOOK_SELECT_FILTERED;
        goto done;
    }
    /* The overlay's candidates are chosen from first; the main book's others only when
     * none of them survives (docs/usi.md, "Rival overlays"). */
    int pick = 0, n = 0, n_all = list->n;
    result = BOOK_SELECT_FILTERED;
    if (n_over > 0)
        result = filter_and_pick(list, 0, n_over, true, pos, opt, rng, &pick, &n, reason, reason_len);
    if (result != BOOK_SELECT_HIT && n_all > n_over)
        result = filter_and_pick(list, n_over, n_all, false, pos, opt, rng, &pick, &n, reason, reason_len);
    if (result != BOOK_SELECT_HIT)
        goto done;
    out->entry = list->moves[pick];
    out->candidates = n;
    out->from_overlay = pick < n_over;
    out->move = position_legal_move_from16(pos, out->entry.move);
    if (out->move == MOVE_NONE) { /* book_probe already checked; keep the promise anyway */
        say(reason, reason_len, "illegal book move");
        result = BOOK_SELECT_FILTERED;
        goto done;
    }
    StateInfo st;
    position_do_move(pos, out->move, &st);
    Move16 ponder = out->entry.ponder;
    if (ponder == MOVE_NONE) {
        /* No ponder in the book: take the best book move of the next position. */
        bool f;
        int nov;
        if (book_probe_overlay(overlay, src, pos, opt, list, &nov, &f, NULL, 0) > 0)
            for (int i = 0; i < list->n && ponder == MOVE_NONE; i++)
                if (!(i < nov && book_move_demoted(&list->moves[i])))
                    ponder = list->moves[i].move;
    }
    out->ponder = ponder != MOVE_NONE ? position_legal_move_from16(pos, ponder) : MOVE_NONE;
    position_undo_move(pos, out->move);
    say(reason, reason_len, "book hit");
done:
    free(list);
    return result;
}

int book_build_pv(const BookSource *src, Position *pos, const BookSelectOptions *opt, Move first, int max, Move *pv) {
    if (max <= 0 || max > MAX_PLY)
        max = max <= 0 ? 0 : MAX_PLY;
    StateInfo *states = malloc((size_t)(max > 0 ? max : 1) * sizeof *states);
    Key *seen = malloc((size_t)(max + 1) * sizeof *seen);
    BookMoveList *list = malloc(sizeof *list);
    int n = 0;
    if (states && seen && list && max > 0 && position_legal_move_from16(pos, (Move16)first) != MOVE_NONE) {
        seen[0] = position_key(pos);
        Move m = position_legal_move_from16(pos, (Move16)first);
        while (n < max && m != MOVE_NONE) {
            position_do_move(pos, m, &states[n]);
            pv[n++] = m;
            Key k = position_key(pos);
            bool repeated = false;
            for (int i = 0; i < n; i++)
                repeated |= seen[i] == k;
            seen[n] = k;
            if (repeated || n >= max)
                break;
            bool f;
            if (book_probe(src, pos, opt, list, &f, NULL, 0) <= 0 || list->n == 0)
                break;
            int best = 0;
            for (int i = 1; i < list->n; i++)
                if (list->moves[i].score > list->moves[best].score)
                    best = i;
            m = position_legal_move_from16(pos, list->moves[best].move);
        }
        for (int i = n - 1; i >= 0; i--)
            position_undo_move(pos, pv[i]);
    }
    free(states);
    free(seen);
    free(list);
    return n;
}
