/* searcher.c - the common layer of the searcher interface (searcher.h): MultiPV widening
 * and the budget's description. */
#include "bookgen/searcher.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "shogi/movegen.h"

_Static_assert((int)SEARCHER_MATE == (int)VALUE_MATE, "the book's mate value is the search's");

/* How many candidates beyond the first are within margin of the best. */
static int within(const SearchAnswer *a, int margin) {
    int k = 0;
    for (int i = 1; i < a->n; i++)
        if (a->c[0].score - a->c[i].score <= margin)
            k = i;
    return k + 1;
}

/* Drops a candidate whose move an earlier one already has: the last complete line of each
 * MultiPV index can come from different iterations, and then two indexes may name the
 * same move (the first, the better-ranked, stays). */
static void dedupe(SearchAnswer *a) {
    int k = 0;
    for (int i = 0; i < a->n; i++) {
        bool dup = false;
        for (int j = 0; j < k && !dup; j++)
            dup = a->c[j].move == a->c[i].move;
        if (!dup)
            a->c[k++] = a->c[i];
    }
    a->n = k;
}

SearchStatus searcher_analyse(Searcher *s, int slot, Position *pos, const SearchBudget *b, SearchAnswer *out) {
    int k = b->multipv < 1 ? 1 : b->multipv > SEARCHER_MAX_PV ? SEARCHER_MAX_PV : b->multipv;
    int max = b->multipv_max < k ? k : b->multipv_max > SEARCHER_MAX_PV ? SEARCHER_MAX_PV : b->multipv_max;
    int mpv = k;
    uint64_t nodes = 0;
    int warnings = 0;
    for (;;) {
        memset(out, 0, sizeof *out);
        SearchStatus st = s->ops->analyse(s, slot, pos, b, mpv, out);
        dedupe(out);
        nodes += out->nodes;
        warnings += out->warnings;
        out->nodes = nodes;
        out->warnings = warnings;
        out->multipv_used = mpv;
        if (st != SEARCH_OK)
            return st;
        /* widen while every candidate we asked for is within the margin: the (mpv+1)-th may be too */
        if (b->multipv_margin <= 0 || mpv >= max || out->n < mpv || within(out, b->multipv_margin) < mpv)
            break;
        mpv = mpv * 2 > max ? max : mpv * 2;
    }
    int keep = k;
    if (b->multipv_margin > 0 && within(out, b->multipv_margin) > keep)
        keep = within(out, b->multipv_margin);
    if (out->n > keep)
        out->n = keep;
    return SEARCH_OK;
}

void searcher_stop(Searcher *s) {
    if (s)
        s->ops->stop(s);
}

void searcher_status(Searcher *s, char *buf, size_t len) {
    if (len)
        buf[0] = '\0';
    if (s && s->ops->status)
        s->ops->status(s, buf, len);
}

void searcher_failures(Searcher *s, char *buf, size_t len) {
    if (len)
        buf[0] = '\0';
    if (s && s->ops->failures)
        s->ops->failures(s, buf, len);
}

void searcher_destroy(Searcher *s) {
    if (s)
        s->ops->destroy(s);
}

/* The budget's words after "go" (the raw arguments as given). */
static void budget_words(const SearchBudget *b, char *buf, size_t len) {
    if (b->go_raw)
        snprintf(buf, len, "%s", b->go_raw);
    else if (b->nodes)
        snprintf(buf, len, "nodes %" PRIu64, b->nodes);
    else if (b->movetime)
        snprintf(buf, len, "movetime %" PRId64, b->movetime);
    else
        snprintf(buf, len, "depth %d", b->depth > 0 ? b->depth : SEARCH_DEFAULT_DEPTH);
}

void search_budget_describe(const SearchBudget *b, char *buf, size_t len) {
    if (b->go_raw)
        search_budget_go_line(b, buf, len);
    else
        budget_words(b, buf, len);
}

void search_budget_go_line(const SearchBudget *b, char *buf, size_t len) {
    if (len < 4) {
        if (len)
            buf[0] = '\0';
        return;
    }
    memcpy(buf, "go ", 3);
    budget_words(b, buf + 3, len - 3);
}

SearchCandidate *search_answer_bare_bestmove(SearchAnswer *out, Move best, Move ponder) {
    if (out->n || !move_is_ok(best))
        return NULL;
    SearchCandidate *c = &out->c[out->n++];
    memset(c, 0, sizeof *c);
    c->move = move_to_move16(best);
    c->ponder = ponder == MOVE_NONE ? MOVE_NONE : move_to_move16(ponder);
    return c;
}

int searcher_mate_score(int plies, bool mated) {
    int n = plies > MAX_PLY || plies < -MAX_PLY ? MAX_PLY : plies < 0 ? -plies : plies;
    return mated ? -SEARCHER_MATE + n : SEARCHER_MATE - n;
}

int searcher_cp_score(int cp) { return cp > 30000 ? 30000 : cp < -30000 ? -30000 : cp; }

bool searcher_candidate_from_info(const UsiInfo *in, SearchCandidate *c) {
    if (in->pv_len < 1)
        return false;
    memset(c, 0, sizeof *c);
    c->move = move_to_move16(in->pv[0]);
    c->ponder = in->pv_len > 1 ? move_to_move16(in->pv[1]) : MOVE_NONE;
    c->pv_len = in->pv_len < SEARCHER_PV_LEN ? in->pv_len : SEARCHER_PV_LEN;
    for (int i = 0; i < c->pv_len; i++)
        c->pv[i] = move_to_move16(in->pv[i]);
    if (in->score_mate)
        c->score = searcher_mate_score(in->mate_unknown ? MAX_PLY : in->score, in->mated);
    else
        c->score = searcher_cp_score(in->score);
    c->has_score = true;
    c->depth = in->depth;
    c->nodes = in->nodes;
    return true;
}

bool searcher_line_from_info(const UsiInfo *in, SearchLine *line) {
    if (in->is_string || !in->has_score || !in->has_pv)
        return false;
    memset(line, 0, sizeof *line);
    line->multipv = in->multipv; /* 1 when the line has none */
    line->depth = in->depth;
    line->exact = usi_info_is_complete(in) && searcher_candidate_from_info(in, &line->cand);
    return true;
}

void multipv_lines_init(MultiPvLines *c, const Position *pos, int mpv) {
    memset(c, 0, sizeof *c);
    ExtMove list[MAX_MOVES];
    int legal = generate_moves(pos, GEN_LEGAL, list);
    c->want = mpv < 1 ? 1 : mpv > SEARCHER_MAX_PV ? SEARCHER_MAX_PV : mpv;
    if (legal > 0 && legal < c->want)
        c->want = legal;
}

void multipv_lines_add(MultiPvLines *c, const SearchLine *in) {
    int k = in->multipv;
    if (k < 1 || k > c->want)
        return;
    if (in->exact) {
        c->latest[k - 1] = *in;
        c->have_latest[k - 1] = true;
    }
    if (k == 1)
        c->cur_n = 0; /* a new report */
    if (!in->exact || k != c->cur_n + 1 || (c->cur_n && in->depth != c->cur[0].depth)) {
        c->cur_n = 0; /* a bound, a gap or another depth: this report is not whole */
        return;
    }
    c->cur[c->cur_n++] = *in;
    if (c->cur_n == c->want) {
        memcpy(c->done, c->cur, sizeof c->cur[0] * (size_t)c->cur_n);
        c->done_n = c->cur_n;
        c->cur_n = 0;
    }
}

void multipv_lines_answer(const MultiPvLines *c, SearchAnswer *out) {
    for (int k = 0; k < c->want && out->n < SEARCHER_MAX_PV; k++) {
        const SearchLine *in = c->done_n ? &c->done[k] : c->have_latest[k] ? &c->latest[k] : NULL;
        if (in)
            out->c[out->n++] = in->cand;
    }
}
