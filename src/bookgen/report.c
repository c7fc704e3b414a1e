/* report.c - see report.h. */
#include "bookgen/report.h"

#include <stdlib.h>
#include <string.h>

#include "bookgen/grow.h"
#include "shogi/notation.h"
#include "util/error.h"

/* One distinct exit position. */
typedef struct {
    uint32_t games;
    uint32_t deviations; /* of them, left by a move the book does not have */
    bool has_score;
    int32_t score; /* black's view */
    Move16 best;   /* the book's best move there (MOVE_NONE at a line end) */
} Exit;

/* One book move played in a game with a result. */
typedef struct {
    uint32_t pos; /* id in played_keys */
    Move16 move;
    bool has_score;
    int32_t score; /* the mover's view */
    float result;  /* the mover's */
} Played;

struct BookReport {
    BookSource src;
    BookSelectOptions opt;
    int plies_at[REPORT_MAX_AT];
    int n_at;
    BookMoveList *list;
    int32_t *plies;  /* per game */
    int32_t *scores; /* per scored exit, black's view */
    size_t n_games, n_scores, cap_games, cap_scores;
    BookReportSummary s; /* the counters; the means and medians are filled on demand */
    Book *exit_keys;     /* distinct exit positions, ids index exits[] */
    Exit *exits;
    size_t cap_exits;
    Book *played_keys; /* positions where a book move was played in a game with a result */
    Played *played;
    size_t n_played, cap_played;
};

BookReport *book_report_create(const BookSource *src, const BookSelectOptions *opt, const int *plies_at, int n_at) {
    BookReport *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->src = *src;
    if (opt)
        r->opt = *opt;
    else
        book_select_defaults(&r->opt);
    r->n_at = n_at < 0 ? 0 : n_at > REPORT_MAX_AT ? REPORT_MAX_AT : n_at;
    for (int i = 0; i < r->n_at; i++)
        r->plies_at[i] = plies_at[i];
    r->list = malloc(sizeof *r->list);
    r->exit_keys = book_create();
    r->played_keys = book_create();
    if (!r->list || !r->exit_keys || !r->played_keys) {
        book_report_free(r);
        return NULL;
    }
    return r;
}

void book_report_free(BookReport *r) {
    if (!r)
        return;
    free(r->list);
    free(r->plies);
    free(r->scores);
    free(r->exits);
    book_free(r->exit_keys);
    book_free(r->played_keys);
    free(r->played);
    free(r);
}

static bool push_i32(int32_t **a, size_t *n, size_t *cap, int32_t v) {
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 256;
        int32_t *b = realloc(*a, nc * sizeof *b);
        if (!b)
            return false;
        *a = b, *cap = nc;
    }
    (*a)[(*n)++] = v;
    return true;
}

/* The index of move m16 among the candidates, -1 when absent. */
static int find_move(const BookMoveList *l, Move16 m16) {
    for (int i = 0; i < l->n; i++)
        if (l->moves[i].move == m16)
            return i;
    return -1;
}

static bool note_exit(BookReport *r, const Position *pos, bool deviation, bool has_score, int32_t score, Move16 best) {
    BookKey key;
    uint32_t id;
    book_key_from_position(pos, &key);
    if (!book_add_position(r->exit_keys, &key, pos->ply, &id))
        return false;
    if (id >= r->cap_exits) {
        size_t nc = r->cap_exits ? r->cap_exits * 2 : 256;
        Exit *e = realloc(r->exits, nc * sizeof *e);
        if (!e)
            return false;
        memset(e + r->cap_exits, 0, (nc - r->cap_exits) * sizeof *e);
        r->exits = e, r->cap_exits = nc;
    }
    Exit *e = &r->exits[id];
    e->games++;
    e->deviations += deviation;
    e->has_score = has_score, e->score = score, e->best = best;
    return true;
}

/* Credits book move bm, played in pos, with the game's result for the mover. */
static bool note_played(BookReport *r, const Position *pos, const BookMove *bm, RecordResult result) {
    BookKey key;
    uint32_t id;
    book_key_from_position(pos, &key);
    if (!book_add_position(r->played_keys, &key, pos->ply, &id))
        return false;
    if (r->n_played == r->cap_played) {
        size_t nc = r->cap_played ? r->cap_played * 2 : 256;
        Played *p = realloc(r->played, nc * sizeof *p);
        if (!p)
            return false;
        r->played = p, r->cap_played = nc;
    }
    float res = result == REC_DRAW ? 0.5f : (result == REC_BLACK_WIN) == (pos->side == BLACK) ? 1.0f : 0.0f;
    r->played[r->n_played++] =
        (Played){.pos = id, .move = bm->move, .has_score = bm->has_score, .score = bm->score, .result = res};
    return true;
}

bool book_report_add_game(BookReport *r, const char *root_sfen, const Move *moves, int n, char *err, size_t err_len) {
    return book_report_add_result(r, root_sfen, moves, n, REC_RESULT_UNKNOWN, -1, err, err_len);
}

bool book_report_add_result(BookReport *r, const char *root_sfen, const Move *moves, int n, RecordResult result,
                            int player, char *err, size_t err_len) {
    StateInfo *st = malloc(((size_t)n + 1) * sizeof *st);
    if (!st)
        return error_set(err, err_len, "out of memory");
    Position pos;
    char why[128];
    if (!position_from_sfen(&pos, &st[n], root_sfen, why, sizeof why)) {
        free(st);
        return error_set(err, err_len, "bad root %s: %s", root_sfen, why);
    }
    int k = 0;
    bool deviation = false, has_score = false;
    int32_t score = 0; /* black's view */
    Move16 best = MOVE_NONE;
    BookMove last = {0};
    Color last_mover = BLACK;
    for (;; k++) {
        bool flipped;
        int rc = book_probe(&r->src, &pos, &r->opt, r->list, &flipped, why, sizeof why);
        if (rc < 0) {
            free(st);
            return error_set(err, err_len, "book: %s", why);
        }
        if (rc == 0 || r->list->n == 0) { /* the book line ended (or never began) */
            has_score = k > 0 && last.has_score;
            score = last_mover == BLACK ? last.score : -last.score;
            if (k == 0)
                r->s.not_in_book++;
            else
                r->s.line_ends[pos.side]++;
            break;
        }
        int i = k < n ? find_move(r->list, move_to_move16(moves[k])) : -1;
        if (i < 0) { /* a deviation, or the game ended inside the book */
            const BookMove *b0 = &r->list->moves[0];
            for (int j = 1; j < r->list->n; j++) /* the best score, not the first by count */
                if (r->list->moves[j].score > b0->score)
                    b0 = &r->list->moves[j];
            has_score = b0->has_score;
            score = pos.side == BLACK ? b0->score : -b0->score;
            best = b0->move;
            deviation = k < n;
            if (deviation)
                r->s.deviations[pos.side]++;
            break;
        }
        last = r->list->moves[i];
        last_mover = pos.side;
        if (result != REC_RESULT_UNKNOWN && !note_played(r, &pos, &last, result)) {
            free(st);
            return error_set(err, err_len, "out of memory");
        }
        r->s.book_moves[pos.side]++;
        if (position_legal_move_from16(&pos, move_to_move16(moves[k])) == MOVE_NONE) {
            free(st);
            return error_set(err, err_len, "move %d is illegal", k + 1);
        }
        position_do_move(&pos, moves[k], &st[k]);
    }
    /* the rest of the game: moves played later from a position the book also holds (a
     * transposition, or a deviation into one of its positions) that are among its
     * candidates; the engine would have played from its book there */
    Position later = pos;
    int own_exit[2] = {-1, -1}; /* the plies before each side's first move not from the book */
    own_exit[pos.side] = k;
    for (int j = k; j < n; j++) {
        int rc = book_probe(&r->src, &later, &r->opt, r->list, NULL, why, sizeof why);
        if (rc < 0) {
            free(st);
            return error_set(err, err_len, "book: %s", why);
        }
        if (rc > 0 && find_move(r->list, move_to_move16(moves[j])) >= 0)
            r->s.later_book_moves[later.side]++;
        else if (own_exit[later.side] < 0)
            own_exit[later.side] = j;
        if (position_legal_move_from16(&later, move_to_move16(moves[j])) == MOVE_NONE) {
            free(st);
            return error_set(err, err_len, "move %d is illegal", j + 1);
        }
        position_do_move(&later, moves[j], &st[j]);
    }
    bool ok = push_i32(&r->plies, &r->n_games, &r->cap_games, k) &&
              (!has_score || push_i32(&r->scores, &r->n_scores, &r->cap_scores, score)) &&
              note_exit(r, &pos, deviation, has_score, score, best);
    free(st);
    if (!ok)
        return error_set(err, err_len, "out of memory");
    r->s.games++;
    for (int c = 0; c < 2; c++) {
        if (own_exit[c] < 0) /* every move of that side came from the book */
            own_exit[c] = n;
        r->s.own_exit_plies[c] += (uint64_t)own_exit[c];
    }
    if (player == BLACK || player == WHITE) {
        r->s.player_games[player]++;
        r->s.player_exit_plies[player] += (uint64_t)own_exit[player];
    }
    for (int i = 0; i < r->n_at; i++)
        r->s.still_in[i] += k >= r->plies_at[i];
    if (has_score && score <= -100)
        r->s.bad_exits[BLACK]++;
    if (has_score && score >= 100)
        r->s.bad_exits[WHITE]++;
    return true;
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Mean and median of a[0..n) (sorted in place). */
static void stats_of(int32_t *a, size_t n, double *mean, double *median) {
    *mean = *median = 0;
    if (!n)
        return;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += a[i];
    qsort(a, n, sizeof *a, cmp_i32);
    *mean = sum / (double)n;
    *median = n % 2 ? a[n / 2] : (a[n / 2 - 1] + (double)a[n / 2]) / 2;
}

void book_report_summary(const BookReport *r, BookReportSummary *s) {
    *s = r->s;
    s->scored_exits = r->n_scores;
    stats_of(r->plies, r->n_games, &s->mean_plies, &s->median_plies);
    stats_of(r->scores, r->n_scores, &s->mean_exit_score, &s->median_exit_score);
}

void book_report_print(const BookReport *r, FILE *f, int top) {
    BookReportSummary s;
    book_report_summary(r, &s);
    double g = s.games ? (double)s.games : 1;
    fprintf(f, "games            %llu (%llu not in the book at their first move)\n", (unsigned long long)s.games,
            (unsigned long long)s.not_in_book);
    fprintf(f, "plies in book    mean %.2f, median %.1f\n", s.mean_plies, s.median_plies);
    fprintf(f, "book moves       black %.2f, white %.2f a game\n", (double)s.book_moves[BLACK] / g,
            (double)s.book_moves[WHITE] / g);
    fprintf(f, "book moves later black %.2f, white %.2f a game (back in a book position after the exit)\n",
            (double)s.later_book_moves[BLACK] / g, (double)s.later_book_moves[WHITE] / g);
    fprintf(f, "own book exit    black %.2f, white %.2f plies a game before that side's first move not from the book\n",
            (double)s.own_exit_plies[BLACK] / g, (double)s.own_exit_plies[WHITE] / g);
    uint64_t pg = s.player_games[BLACK] + s.player_games[WHITE];
    if (pg) {
        double pb = s.player_games[BLACK] ? (double)s.player_exit_plies[BLACK] / (double)s.player_games[BLACK] : 0;
        double pw = s.player_games[WHITE] ? (double)s.player_exit_plies[WHITE] / (double)s.player_games[WHITE] : 0;
        fprintf(f,
                "player's exit    %.2f plies a game before the player's first move not from the book (%llu games: "
                "%.2f as black in %llu, %.2f as white in %llu)\n",
                (double)(s.player_exit_plies[BLACK] + s.player_exit_plies[WHITE]) / (double)pg, (unsigned long long)pg,
                pb, (unsigned long long)s.player_games[BLACK], pw, (unsigned long long)s.player_games[WHITE]);
    }
    fprintf(f, "still in book   ");
    for (int i = 0; i < r->n_at; i++)
        fprintf(f, " ply %d: %.1f%%", r->plies_at[i], 100.0 * (double)s.still_in[i] / g);
    fprintf(f, "\n");
    fprintf(f,
            "left the book    black to move: %llu deviated, %llu at a line's end; white to move: %llu deviated, "
            "%llu at a line's end\n",
            (unsigned long long)s.deviations[BLACK], (unsigned long long)s.line_ends[BLACK],
            (unsigned long long)s.deviations[WHITE], (unsigned long long)s.line_ends[WHITE]);
    fprintf(f,
            "score at exit    %llu scored, black's view: mean %+.1f, median %+.1f; -100 or worse for black %llu, "
            "for white %llu\n",
            (unsigned long long)s.scored_exits, s.mean_exit_score, s.median_exit_score,
            (unsigned long long)s.bad_exits[BLACK], (unsigned long long)s.bad_exits[WHITE]);
    size_t n = book_position_count(r->exit_keys);
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!order || top <= 0) {
        free(order);
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    /* most games first, ties in first-seen order (insertion sort: stable, n is small) */
    for (size_t i = 1; i < n; i++) {
        uint32_t v = order[i];
        size_t j = i;
        while (j > 0 && r->exits[order[j - 1]].games < r->exits[v].games) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    fprintf(f, "most common exits (games, of them deviations, book's best move and score from black's view, SFEN):\n");
    for (size_t i = 0; i < n && (int)i < top; i++) {
        const Exit *e = &r->exits[order[i]];
        BookKey key;
        Position pos;
        StateInfo st;
        char sfen[SFEN_MAX], mv[8] = "-", sc[16] = "none";
        book_position_key(r->exit_keys, order[i], &key);
        int ply = book_position_ply(r->exit_keys, order[i]);
        if (!book_key_to_position(&key, &pos, &st, ply > 0 ? ply : 1))
            continue;
        if (e->best != MOVE_NONE)
            move_to_usi(e->best, mv);
        if (e->has_score)
            snprintf(sc, sizeof sc, "%+d", (int)e->score);
        fprintf(f, "  %5u %5u  %-6s %6s  %s\n", e->games, e->deviations, mv, sc, position_to_sfen(&pos, sfen, true));
    }
    free(order);
}

static int by_position_move(const void *a, const void *b) {
    const Played *x = a, *y = b;
    if (x->pos != y->pos)
        return x->pos < y->pos ? -1 : 1;
    return x->move < y->move ? -1 : x->move > y->move;
}

/* One (position, move) with its games. */
typedef struct {
    uint32_t pos;
    Move16 move;
    uint32_t games;
    int32_t score;
    double result, expected;
} Disagreement;

static int by_games_diff(const void *a, const void *b) {
    const Disagreement *x = a, *y = b;
    if (x->games != y->games)
        return x->games > y->games ? -1 : 1;
    double dx = x->result - x->expected, dy = y->result - y->expected;
    dx = dx < 0 ? -dx : dx;
    dy = dy < 0 ? -dy : dy;
    return (dx < dy) - (dx > dy);
}

long book_report_print_disagreements(const BookReport *r, FILE *f, double margin, int min_games, int top, FILE *lines) {
    Played *p = r->n_played ? malloc(r->n_played * sizeof *p) : NULL;
    Disagreement *d = r->n_played ? malloc(r->n_played * sizeof *d) : NULL;
    if (r->n_played && (!p || !d)) {
        free(p);
        free(d);
        return -1;
    }
    if (r->n_played) {
        memcpy(p, r->played, r->n_played * sizeof *p);
        qsort(p, r->n_played, sizeof *p, by_position_move);
    }
    size_t n = 0;
    for (size_t i = 0; i < r->n_played;) {
        size_t j = i;
        double sum = 0;
        while (j < r->n_played && p[j].pos == p[i].pos && p[j].move == p[i].move)
            sum += p[j++].result;
        uint32_t games = (uint32_t)(j - i);
        if (p[i].has_score && games >= (uint32_t)(min_games < 1 ? 1 : min_games)) {
            double res = sum / games, e = grow_expected_score(p[i].score);
            if (res - e > margin || e - res > margin)
                d[n++] = (Disagreement){p[i].pos, p[i].move, games, p[i].score, res, e};
        }
        i = j;
    }
    if (n)
        qsort(d, n, sizeof *d, by_games_diff);
    fprintf(f,
            "disagreements    %zu book move(s) whose mean result and expected score (600 cp logistic) differ by "
            "more than %.2f in %d game(s) or more%s\n",
            n, margin, min_games, n ? " (games, mean result, expected, score, move, SFEN):" : "");
    bool *listed = lines && n ? calloc(book_position_count(r->played_keys), 1) : NULL;
    for (size_t i = 0; i < n && (int)i < top; i++) {
        BookKey key;
        Position pos;
        StateInfo st;
        char sfen[SFEN_MAX], mv[USI_MOVE_MAX];
        book_position_key(r->played_keys, d[i].pos, &key);
        int ply = book_position_ply(r->played_keys, d[i].pos);
        if (!book_key_to_position(&key, &pos, &st, ply > 0 ? ply : 1))
            continue;
        position_to_sfen(&pos, sfen, true);
        fprintf(f, "  %5u  %.3f  %.3f  %+6d  %-6s %s%s\n", d[i].games, d[i].result, d[i].expected, (int)d[i].score,
                move_to_usi(d[i].move, mv), sfen,
                d[i].result < d[i].expected ? "  (scored below its evaluation)" : "  (scored above its evaluation)");
        if (listed && !listed[d[i].pos]) {
            listed[d[i].pos] = true;
            fprintf(lines, "sfen %s\n", sfen);
        }
    }
    free(listed);
    free(p);
    free(d);
    return (long)n;
}
