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

BookSelectResult book_select(const BookSource *src, Position *pos, const BookSelectOptions *opt, uint64_t *rng,
                             BookChoice *out, char *reason, size_t reason_len) {
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
    int rc = book_probe(src, pos, opt, list, &out->flipped, reason, reason_len);
    if (rc < 0) {
        result = BOOK_SELECT_ERROR;
        goto done;
    }
    if (rc == 0 || list->n == 0) {
        say(reason, reason_len, rc == 0 ? "not in the book" : "no legal move in the book entry");
        result = rc == 0 ? BOOK_SELECT_MISS : BOOK_SELECT_FILTERED;
        goto done;
    }
    uint64_t total = 0;
    for (int i = 0; i < list->n; i++)
        total += list->moves[i].count;
    if (total == 0)
        total = 1;
    int n = list->n;
    if (opt->narrow_book) {
        int k = 0;
        for (int i = 0; i < n; i++)
            if ((double)list->moves[i].count / (double)total >= 0.1)
                list->moves[k++] = list->moves[i];
        n = k;
    }
    if (n == 0) {
        say(reason, reason_len, "NarrowBook removed every move");
        result = BOOK_SELECT_FILTERED;
        goto done;
    }
    if (opt->depth_limit != 0 && list->moves[0].depth < opt->depth_limit) {
        say(reason, reason_len, "BookDepthLimit %d is above the depth %d of this entry", opt->depth_limit,
            list->moves[0].depth);
        result = BOOK_SELECT_FILTERED;
        goto done;
    }
    /* BookEvalDiff counts from the best score, wherever the count order put that move
     * (a book from games keeps their counts after minimax; the most played move need not
     * be the best one) */
    int best = list->moves[0].score;
    for (int i = 1; i < n; i++)
        if (list->moves[i].score > best)
            best = list->moves[i].score;
    int limit = best - opt->eval_diff;
    int side_limit = pos->side == BLACK ? opt->eval_black_limit : opt->eval_white_limit;
    if (side_limit > limit)
        limit = side_limit;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (list->moves[i].score >= limit)
            list->moves[k++] = list->moves[i];
    n = k;
    if (n == 0) {
        say(reason, reason_len, "BookEvalDiff %d / %s %d removed every move", opt->eval_diff,
            pos->side == BLACK ? "BookEvalBlackLimit" : "BookEvalWhiteLimit", side_limit);
        result = BOOK_SELECT_FILTERED;
        goto done;
    }
    int pick = (int)random_below(rng, (uint64_t)n);
    if (opt->consider_count) {
        /* YaneuraOu's one-pass weighted choice; all-zero counts count as one each. */
        uint64_t sum = 0;
        for (int i = 0; i < n; i++)
            sum += list->moves[i].count;
        uint64_t acc = 0;
        for (int i = 0; i < n; i++) {
            uint64_t c = sum == 0 ? 1 : list->moves[i].count;
            acc += c;
            if (acc && random_below(rng, acc) < c)
                pick = i;
        }
    }
    out->entry = list->moves[pick];
    out->candidates = n;
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
        if (book_probe(src, pos, opt, list, &f, NULL, 0) > 0 && list->n > 0)
            ponder = list->moves[0].move;
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
