/* think_targets.c - which positions `book think` searches (think.h): the exact list,
 * the short positions and leaves of the book or of the subtree below the starts, with
 * every reply the book lacks (replies frontier), the eval-window frontier, the lines one
 * side plays followed past the book through predicted replies (predicted frontier), and
 * positions whose provenance asks for a re-think. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bookgen/think.h"
#include "bookgen/think_predictions.h"
#include "shogi/movegen.h"
#include "util/error.h"
#include "util/parse.h"

typedef struct {
    Book *seen; /* keys already in the list, as a set */
    ThinkTarget *t;
    size_t n, cap;
} List;

/* Makes room for one more element in items (*cap of them, all used, each size bytes):
 * doubles the capacity, from 256, and returns the new array; NULL (items and *cap
 * unchanged) when memory runs out. */
static void *grow_for_one(void *items, size_t *cap, size_t size) {
    size_t c = *cap ? *cap * 2 : 256;
    void *p = realloc(items, c * size);
    if (p)
        *cap = c;
    return p;
}

static bool add_target(List *l, const BookKey *k, int ply) {
    size_t before = book_position_count(l->seen);
    uint32_t id;
    if (!book_add_position(l->seen, k, ply, &id))
        return false;
    if (book_position_count(l->seen) == before)
        return true;
    if (l->n == l->cap) {
        ThinkTarget *t = grow_for_one(l->t, &l->cap, sizeof *t);
        if (!t)
            return false;
        l->t = t;
    }
    l->t[l->n].key = *k;
    l->t[l->n++].ply = ply;
    return true;
}

int think_legal_candidates(const Position *pos, const BookMoveList *list, int cnt) {
    int legal = 0;
    for (int i = 0; i < cnt; i++) {
        bool dup = false;
        for (int j = 0; j < i && !dup; j++)
            dup = list->moves[j].move == list->moves[i].move;
        if (!dup && position_legal_move_from16(pos, list->moves[i].move) != MOVE_NONE)
            legal++;
    }
    return legal;
}

/* ---- --rethink-if ---- */

bool think_rethink_parse(const char *text, ThinkRethink *r, char *err, size_t err_len) {
    memset(r, 0, sizeof *r);
    static const char *const fields[] = {"engine", "depth", "nodes", "date"};
    static const char *const ops[] = {"!=", "<=", ">=", "=", "<", ">"};
    const char *p = text;
    while (*p == ' ')
        p++;
    int f = -1;
    for (int i = 0; i < 4 && f < 0; i++)
        if (!strncmp(p, fields[i], strlen(fields[i])))
            f = i;
    if (f < 0) {
        snprintf(err, err_len, "--rethink-if '%s': the field is engine, depth, nodes or date", text);
        return false;
    }
    p += strlen(fields[f]);
    while (*p == ' ')
        p++;
    int o = -1;
    for (int i = 0; i < 6 && o < 0; i++)
        if (!strncmp(p, ops[i], strlen(ops[i])))
            o = i;
    if (o < 0 || (f == 0 && o != 0 && o != 3)) {
        snprintf(err, err_len, "--rethink-if '%s': the operator is one of = != < <= > >= (engine: = or !=)", text);
        return false;
    }
    p += strlen(ops[o]);
    while (*p == ' ')
        p++;
    if (!*p) {
        snprintf(err, err_len, "--rethink-if '%s': no value", text);
        return false;
    }
    /* depth and nodes compare whole non-negative numbers: "abc", "<9", "4.5", "-5" or "9abc"
     * would otherwise select nothing (or something else) without a word. */
    if ((f == THINK_FIELD_DEPTH || f == THINK_FIELD_NODES) && !parse_unsigned(p, &r->number)) {
        snprintf(err, err_len, "--rethink-if '%s': '%s' is not a whole non-negative number", text, p);
        return false;
    }
    if (strlen(p) >= sizeof r->value) {
        snprintf(err, err_len, "--rethink-if '%s': the value is longer than %zu characters", text, sizeof r->value - 1);
        return false;
    }
    r->field = (ThinkRethinkField)f;
    r->op = (ThinkRethinkOp)o;
    snprintf(r->value, sizeof r->value, "%s", p);
    return true;
}

static bool cmp_holds(ThinkRethinkOp op, int c) {
    switch (op) {
    case THINK_OP_NE: return c != 0;
    case THINK_OP_LE: return c <= 0;
    case THINK_OP_GE: return c >= 0;
    case THINK_OP_EQ: return c == 0;
    case THINK_OP_LT: return c < 0;
    case THINK_OP_GT: return c > 0;
    }
    return false;
}

bool think_rethink_matches(const ThinkRethink *r, const ThinkProvenance *p) {
    int c;
    if (r->field == THINK_FIELD_ENGINE)
        c = strcmp(p->engine, r->value);
    else if (r->field == THINK_FIELD_DATE)
        c = strncmp(p->date, r->value, strlen(r->value));
    else {
        unsigned long long have =
            r->field == THINK_FIELD_DEPTH ? (unsigned long long)(p->depth < 0 ? 0 : p->depth) : p->nodes;
        unsigned long long want = r->number;
        c = have < want ? -1 : have > want;
    }
    return cmp_holds(r->op, c);
}

static bool wants_rethink(const Book *b, uint32_t id, const ThinkOptions *o) {
    if (!o->n_rethink)
        return false;
    BookStats s;
    ThinkProvenance p;
    if (!book_get_stats(b, id, MOVE_NONE, &s) || !s.comment || !think_provenance_parse(s.comment, &p))
        return false;
    for (size_t i = 0; i < o->n_rethink; i++)
        if (think_rethink_matches(&o->rethink[i], &p))
            return true;
    return false;
}

/* Whether book position id (pos, its cnt moves in list) is searched itself: short (fewer
 * than multipv legal candidates) or marked for a re-think. */
static bool wants_search(const Book *b, const ThinkOptions *o, uint32_t id, const Position *pos,
                         const BookMoveList *list, int cnt) {
    return think_legal_candidates(pos, list, cnt) < o->multipv || wants_rethink(b, id, o);
}

/* ---- scope: the subtree below the starts ---- */

static bool mark_scope(const Book *b, const ThinkOptions *o, Book *scope, BookMoveList *list) {
    size_t head = 0, cap = o->n_starts + 64, tail = 0;
    uint32_t *queue = malloc(cap * sizeof *queue);
    if (!queue)
        return false;
    bool ok = true;
    for (size_t i = 0; i < o->n_starts && ok; i++) {
        uint32_t id, sid;
        size_t before = book_position_count(scope);
        ok = book_add_position(scope, &o->starts[i], o->start_plies[i], &sid);
        if (ok && book_position_count(scope) > before && book_find(b, &o->starts[i], &id))
            queue[tail++] = id;
    }
    while (ok && head < tail) {
        uint32_t id = queue[head++];
        BookKey k;
        Position pos;
        StateInfo st;
        book_position_key(b, id, &k);
        int ply = book_position_ply(b, id);
        if (!book_key_to_position(&k, &pos, &st, ply ? ply : 1))
            continue;
        int cnt = book_position_moves(b, id, list);
        for (int i = 0; i < cnt && ok; i++) {
            Move m = position_legal_move_from16(&pos, list->moves[i].move);
            if (m == MOVE_NONE)
                continue;
            BookKey ck;
            book_key_after_move(&pos, m, &ck);
            size_t before = book_position_count(scope);
            uint32_t sid, cid;
            ok = book_add_position(scope, &ck, pos.ply + 1, &sid);
            if (!ok || book_position_count(scope) == before || !book_find(b, &ck, &cid))
                continue;
            if (tail == cap) {
                uint32_t *q = realloc(queue, cap * 2 * sizeof *q);
                if (!q) {
                    ok = false;
                    break;
                }
                queue = q;
                cap *= 2;
            }
            queue[tail++] = cid;
        }
    }
    free(queue);
    return ok;
}

/* Considers book position id: a target when short (fewer than multipv legal moves) or
 * marked for a re-think; the followed moves' children that the book lacks are leaves, and
 * with all_children (the replies frontier; the line-replies frontier at the other side's
 * positions) the children of all its legal moves, listed or not.
 * follow(i) says whether move i of list is followed (NULL: every legal book move). */
static bool consider(const Book *b, const ThinkOptions *o, uint32_t id, List *l, BookMoveList *list, const bool *follow,
                     bool all_children) {
    BookKey k;
    Position pos;
    StateInfo st, st2;
    book_position_key(b, id, &k);
    int ply = book_position_ply(b, id);
    if (!book_key_to_position(&k, &pos, &st, ply ? ply : 1))
        return true;
    int cnt = book_position_moves(b, id, list);
    bool in_ply = !o->max_ply || pos.ply <= o->max_ply;
    if (in_ply && wants_search(b, o, id, &pos, list, cnt) && position_has_legal_move(&pos) &&
        !add_target(l, &k, pos.ply))
        return false;
    /* the children: of the followed legal book moves, or (all_children) of every legal move */
    ExtMove children[(int)BOOK_MAX_MOVES > (int)MAX_MOVES ? (int)BOOK_MAX_MOVES
                                                          : (int)MAX_MOVES]; /* a list may repeat a move */
    int n = 0;
    if (all_children)
        n = generate_moves(&pos, GEN_LEGAL, children);
    else
        for (int i = 0; i < cnt; i++) {
            Move m = follow && !follow[i] ? MOVE_NONE : position_legal_move_from16(&pos, list->moves[i].move);
            if (m != MOVE_NONE)
                children[n++].move = m;
        }
    for (int i = 0; i < n; i++) {
        Move m = children[i].move;
        position_do_move(&pos, m, &st2);
        BookKey ck;
        book_key_from_position(&pos, &ck);
        uint32_t cid;
        bool leaf = !book_find(b, &ck, &cid) && position_has_legal_move(&pos) && (!o->max_ply || pos.ply <= o->max_ply);
        int cply = pos.ply;
        position_undo_move(&pos, m);
        if (leaf && !add_target(l, &ck, cply))
            return false;
    }
    return true;
}

/* ---- the eval-window frontier ---- */

/* Whether us (the side to move) is the frontier's own side, which follows its best moves
 * (with THINK_SIDE_BOTH no side is: both take the window). */
static bool frontier_ours(const ThinkOptions *o, Color us, Color root_side) {
    return o->frontier_side == THINK_SIDE_BOTH   ? false
           : o->frontier_side == THINK_SIDE_ROOT ? us == root_side
                                                 : (int)us == (int)o->frontier_side;
}

/* Which moves of position (side to move us) the frontier follows: for the frontier's own
 * side the best-scored moves, for the other every move within eval_diff of the best. */
static void frontier_follow(const ThinkOptions *o, Color us, Color root_side, const BookMoveList *list, int cnt,
                            bool *follow) {
    int best = -1000000;
    bool any = false;
    for (int i = 0; i < cnt; i++)
        if (list->moves[i].has_score && list->moves[i].score > best)
            best = list->moves[i].score, any = true;
    int window = frontier_ours(o, us, root_side) ? 0 : o->eval_diff;
    for (int i = 0; i < cnt; i++)
        follow[i] = any ? list->moves[i].has_score && best - list->moves[i].score <= window : i == 0;
}

static bool walk_frontier(const Book *b, const ThinkOptions *o, const BookKey *root, int root_ply, List *l,
                          Book *visited, BookMoveList *list) {
    uint32_t rid;
    Position pos;
    StateInfo st;
    if (!book_key_to_position(root, &pos, &st, root_ply))
        return true;
    if (!book_find(b, root, &rid))
        return (o->max_ply && pos.ply > o->max_ply) || !position_has_legal_move(&pos) || add_target(l, root, pos.ply);
    Color root_side = pos.side;
    size_t cap = 256, top = 0;
    uint32_t *stack = malloc(cap * sizeof *stack);
    if (!stack)
        return false;
    stack[top++] = rid;
    bool ok = true;
    bool *follow = malloc(BOOK_MAX_MOVES * sizeof *follow);
    if (!follow) {
        free(stack);
        return false;
    }
    while (ok && top) {
        uint32_t id = stack[--top], vid;
        BookKey k;
        book_position_key(b, id, &k);
        size_t before = book_position_count(visited);
        if (!book_add_position(visited, &k, 0, &vid)) {
            ok = false;
            break;
        }
        if (book_position_count(visited) == before)
            continue;
        int ply = book_position_ply(b, id);
        if (!book_key_to_position(&k, &pos, &st, ply ? ply : 1) || (o->max_ply && pos.ply > o->max_ply))
            continue;
        int cnt = book_position_moves(b, id, list);
        frontier_follow(o, pos.side, root_side, list, cnt, follow);
        bool replies = o->frontier == THINK_FRONTIER_LINE_REPLIES && !frontier_ours(o, pos.side, root_side);
        if (!consider(b, o, id, l, list, follow, replies)) {
            ok = false;
            break;
        }
        book_position_moves(b, id, list); /* consider() reused the list */
        for (int i = 0; i < cnt; i++) {
            Move m = follow[i] ? position_legal_move_from16(&pos, list->moves[i].move) : MOVE_NONE;
            BookKey ck;
            uint32_t cid;
            if (m == MOVE_NONE)
                continue;
            book_key_after_move(&pos, m, &ck);
            if (!book_find(b, &ck, &cid))
                continue;
            if (top == cap) {
                uint32_t *s2 = realloc(stack, cap * 2 * sizeof *s2);
                if (!s2) {
                    ok = false;
                    break;
                }
                stack = s2;
                cap *= 2;
            }
            stack[top++] = cid;
        }
    }
    free(follow);
    free(stack);
    return ok;
}

typedef struct {
    const Book *b;
    const ThinkOptions *o;
    List *l;
    Book *visited;
    BookMoveList *list;
} WindowWalk;

static bool window_from(void *ctx, const BookKey *root, int root_ply) {
    WindowWalk *w = ctx;
    return walk_frontier(w->b, w->o, root, root_ply, w->l, w->visited, w->list);
}

/* ---- the predicted frontier ---- */

typedef struct {
    BookKey key;
    int ply;
    int n;                         /* predicted moves found (0: none) */
    Move16 moves[SEARCHER_MAX_PV]; /* best first */
} Wanted;

typedef struct {
    const Book *b;
    const ThinkOptions *o;
    List *l;
    Book *visited; /* positions walked in this pass, as a set */
    BookMoveList *list;
    bool *follow;
    Book *predictions; /* every position predicted so far, with its predicted moves */
    Wanted *wanted;    /* the positions this pass reached that are not predicted yet */
    size_t n_wanted, cap_wanted;
    Searcher *predictor; /* one single-threaded slot per thread */
    SearchBudget budget;
    Color root_side;
    uint64_t predicted; /* positions searched for predictions (progress) */
    uint64_t read;      /* positions whose predictions came from o->predictions */
    char *err;          /* why the walk failed, when not for memory */
    size_t err_len;
} Predicted;

/* Appends m to moves (n of them) unless it is there or MOVE_NONE. */
static void push_move(Move *moves, int *n, Move m) {
    if (m == MOVE_NONE)
        return;
    for (int i = 0; i < *n; i++)
        if (moves[i] == m)
            return;
    moves[(*n)++] = m;
}

/* Notes a position whose predictions the walk needs and does not have yet: this pass
 * cannot follow them, and the next pass will. */
static bool want_prediction(Predicted *w, const BookKey *k, int ply) {
    if (w->n_wanted == w->cap_wanted) {
        Wanted *q = grow_for_one(w->wanted, &w->cap_wanted, sizeof *q);
        if (!q)
            return false;
        w->wanted = q;
    }
    w->wanted[w->n_wanted++] = (Wanted){.key = *k, .ply = ply};
    return true;
}

enum { PREDICT_MAX_SLOTS = 128 }; /* as ThinkOptions.threads */

typedef struct {
    Predicted *w;
    int slot;
    atomic_size_t *done;
    bool out_of_memory;
} PredictJob;

/* Hayanagi's predicted moves at pos on the predictor's slot, best first: at most
 * multipv of them into moves, their number in *n. False (and *n 0) when the search
 * fails. answer is the caller's scratch. */
static bool predict_at(Predicted *w, int slot, Position *pos, SearchAnswer *answer, Move16 *moves, int *n) {
    *n = 0;
    memset(answer, 0, sizeof *answer);
    if (searcher_analyse(w->predictor, slot, pos, &w->budget, answer) != SEARCH_OK)
        return false;
    for (int c = 0; c < answer->n && c < w->budget.multipv; c++)
        moves[(*n)++] = answer->c[c].move;
    return true;
}

/* Predicts wanted[slot], wanted[slot + slots], ... on the predictor's slot. */
static void *predict_slot(void *arg) {
    PredictJob *j = arg;
    Predicted *w = j->w;
    const ThinkOptions *o = w->o;
    SearchAnswer *answer = malloc(sizeof *answer);
    j->out_of_memory = !answer;
    for (size_t i = (size_t)j->slot; answer && i < w->n_wanted && !(o->stop && *o->stop);
         i += (size_t)w->predictor->slots) {
        Wanted *q = &w->wanted[i];
        Position pos;
        StateInfo st;
        if (book_key_to_position(&q->key, &pos, &st, q->ply))
            predict_at(w, j->slot, &pos, answer, q->moves, &q->n);
        atomic_fetch_add(j->done, 1);
        if (j->slot == 0 && o->progress)
            progress_update(o->progress, w->predicted + atomic_load(j->done));
    }
    free(answer);
    return NULL;
}

/* Predicts every wanted position, one thread per predictor slot (the calling thread is
 * slot 0), and adds them to the predictions. False when memory runs out. */
static bool predict_wanted(Predicted *w) {
    int slots = w->predictor->slots;
    pthread_t th[PREDICT_MAX_SLOTS];
    PredictJob jobs[PREDICT_MAX_SLOTS];
    atomic_size_t done;
    atomic_init(&done, 0);
    int started = 1;
    jobs[0] = (PredictJob){w, 0, &done, false};
    for (int t = 1; t < slots; t++)
        jobs[t] = (PredictJob){w, t, &done, false};
    for (int t = 1; t < slots; t++, started++)
        if (pthread_create(&th[t], NULL, predict_slot, &jobs[t]) != 0)
            break;
    predict_slot(&jobs[0]);
    /* a slot whose thread did not start: its share runs here */
    for (int t = started; t < slots; t++)
        predict_slot(&jobs[t]);
    for (int t = 1; t < started; t++)
        pthread_join(th[t], NULL);
    w->predicted += atomic_load(&done);
    for (int t = 0; t < slots; t++)
        if (jobs[t].out_of_memory)
            return false;
    /* when stopped, the positions not searched have no moves: they are not predictions */
    bool stopped = w->o->stop && *w->o->stop;
    for (size_t i = 0; i < w->n_wanted; i++) {
        BookMove m[SEARCHER_MAX_PV];
        uint32_t id;
        if (stopped && !w->wanted[i].n)
            continue;
        for (int c = 0; c < w->wanted[i].n; c++)
            m[c] = (BookMove){.move = w->wanted[i].moves[c], .ponder = MOVE_NONE};
        if (!book_add_position(w->predictions, &w->wanted[i].key, w->wanted[i].ply, &id) ||
            !book_set_moves(w->predictions, id, m, w->wanted[i].n) ||
            (w->o->predictions && !think_predictions_mark(w->predictions, id, w->budget.multipv, w->budget.depth)))
            return false;
    }
    return !w->o->predictions || think_predictions_save(w->o->predictions, w->predictions, w->err, w->err_len);
}

/* The predictions of o->predictions, read into w->predictions, if this build predicts
 * the same: its first two positions with a move are predicted again and must get the
 * same moves (a file of another build, whose search or evaluation differ, is refused). */
static bool read_predictions(Predicted *w) {
    const char *path = w->o->predictions;
    if (!think_predictions_load(path, w->predictions, w->budget.multipv, w->budget.depth, w->err, w->err_len))
        return false;
    w->read = book_position_count(w->predictions);
    SearchAnswer *answer = malloc(sizeof *answer);
    if (!answer)
        return error_set(w->err, w->err_len, "out of memory");
    bool ok = true;
    for (uint32_t id = 0, checked = 0; ok && checked < 2 && id < w->read; id++) {
        int n = book_position_moves(w->predictions, id, w->list);
        BookKey k;
        Position pos;
        StateInfo st;
        book_position_key(w->predictions, id, &k);
        if (!n || !book_key_to_position(&k, &pos, &st, book_position_ply(w->predictions, id)))
            continue;
        checked++;
        Move16 now[SEARCHER_MAX_PV];
        int m;
        if (!predict_at(w, 0, &pos, answer, now, &m))
            continue;
        bool same = m == n;
        for (int c = 0; same && c < n; c++)
            same = now[c] == w->list->moves[c].move;
        if (!same) {
            char sfen[SFEN_MAX];
            position_to_sfen(&pos, sfen, true);
            ok = error_set(w->err, w->err_len,
                           "%s: this build predicts other moves at %s than the file holds (its search or evaluation "
                           "differ from the build that wrote it): name another file",
                           path, sfen);
        }
    }
    free(answer);
    return ok;
}

/* Walks pos (any position, in the book or not; unchanged on return). */
static bool walk_predicted(Predicted *w, Position *pos) {
    const ThinkOptions *o = w->o;
    if ((o->stop && *o->stop) || pos->ply > o->max_ply || !position_has_legal_move(pos))
        return true;
    BookKey k;
    uint32_t vid, id;
    book_key_from_position(pos, &k);
    size_t before = book_position_count(w->visited);
    if (!book_add_position(w->visited, &k, 0, &vid))
        return false;
    if (book_position_count(w->visited) == before)
        return true;
    bool in_book = book_find(w->b, &k, &id), ours = frontier_ours(o, pos->side, w->root_side);
    if (ours && !in_book)
        return add_target(w->l, &k, pos->ply);
    Move moves[MAX_MOVES]; /* distinct legal moves (push_move) */
    int n = 0;
    if (in_book) {
        int cnt = book_position_moves(w->b, id, w->list);
        if (ours && wants_search(w->b, o, id, pos, w->list, cnt) && !add_target(w->l, &k, pos->ply))
            return false;
        frontier_follow(o, pos->side, w->root_side, w->list, cnt, w->follow);
        for (int i = 0; i < cnt; i++)
            if (w->follow[i])
                push_move(moves, &n, position_legal_move_from16(pos, w->list->moves[i].move));
    }
    if (!ours) {
        /* up to all_replies_to every legal move of the other side; past it every move the
         * book already answers, whether or not this position is in the book (a replies
         * layer's answers are not listed moves, and a line may come back into the book
         * after a position it lacks): the walk goes on from the answer */
        bool every = pos->ply <= o->all_replies_to;
        ExtMove legal[MAX_MOVES];
        int nl = generate_moves(pos, GEN_LEGAL, legal);
        for (int i = 0; i < nl; i++) {
            BookKey ck;
            uint32_t cid;
            book_key_after_move(pos, legal[i].move, &ck);
            if (every || book_find(w->b, &ck, &cid))
                push_move(moves, &n, legal[i].move);
        }
        /* and its predicted moves, once a pass has predicted them (none are needed
         * where every move is followed) */
        uint32_t pid;
        if (!every && book_find(w->predictions, &k, &pid)) {
            int np = book_position_moves(w->predictions, pid, w->list);
            for (int i = 0; i < np; i++)
                push_move(moves, &n, position_legal_move_from16(pos, w->list->moves[i].move));
        } else if (!every && !want_prediction(w, &k, pos->ply)) {
            return false;
        }
    }
    for (int i = 0; i < n; i++) {
        StateInfo st;
        position_do_move(pos, moves[i], &st);
        bool ok = walk_predicted(w, pos);
        position_undo_move(pos, moves[i]);
        if (!ok)
            return false;
    }
    return true;
}

/* A walk from one root (a start, or the start position at SFEN move 1). */
typedef bool (*RootWalk)(void *ctx, const BookKey *root, int root_ply);

/* Walks from each start, or from the start position when there is none. */
static bool walk_roots(const ThinkOptions *o, RootWalk walk, void *ctx) {
    for (size_t i = 0; i < o->n_starts; i++)
        if (!walk(ctx, &o->starts[i], o->start_plies[i]))
            return false;
    if (o->n_starts)
        return true;
    Position pos;
    StateInfo st;
    BookKey root;
    position_set_startpos(&pos, &st);
    book_key_from_position(&pos, &root);
    return walk(ctx, &root, 1);
}

static bool predicted_from(void *ctx, const BookKey *root, int root_ply) {
    Predicted *w = ctx;
    Position pos;
    StateInfo st;
    if (!book_key_to_position(root, &pos, &st, root_ply))
        return true;
    w->root_side = pos.side;
    return walk_predicted(w, &pos);
}

/* The predicted frontier from the root (or each start): walks in passes, each following
 * the predictions the passes before made and noting the positions still to predict,
 * which are then predicted in parallel; the pass that needs no new prediction has
 * walked exactly what one walk predicting as it goes would, and its targets are the
 * list. */
static bool collect_predicted(const Book *b, const ThinkOptions *o, List *l, BookMoveList *list, ThinkStats *stats,
                              char *err, size_t err_len) {
    Predicted *w = calloc(1, sizeof *w);
    int slots = o->threads > 0 ? o->threads : 1;
    bool ok = w && (w->visited = book_create()) && (w->predictions = book_create()) &&
              (w->follow = malloc(BOOK_MAX_MOVES * sizeof *w->follow)) &&
              (w->predictor = searcher_inproc_create(slots < PREDICT_MAX_SLOTS ? slots : PREDICT_MAX_SLOTS, 16));
    if (ok) {
        w->b = b;
        w->o = o;
        w->l = l;
        w->list = list;
        int k = o->predict ? o->predict : THINK_PREDICT_DEFAULT;
        w->budget = (SearchBudget){
            .depth = o->predict_depth ? o->predict_depth : THINK_PREDICT_DEPTH_DEFAULT, .multipv = k, .multipv_max = k};
        w->err = err;
        w->err_len = err_len;
        ok = !o->predictions || read_predictions(w);
    }
    if (ok) {
        if (o->progress)
            progress_start(o->progress, o->progress->out, "predicting", 0, o->progress->quiet);
        for (;;) {
            book_clear(w->visited);
            book_clear(l->seen);
            l->n = 0;
            w->n_wanted = 0;
            ok = walk_roots(o, predicted_from, w);
            if (!ok || !w->n_wanted || (o->stop && *o->stop))
                break;
            ok = predict_wanted(w);
            if (!ok || (o->stop && *o->stop))
                break;
        }
        if (o->progress)
            progress_finish(o->progress);
    }
    if (w) {
        stats->predictions_read = w->read;
        stats->predictions_searched = w->predicted;
        searcher_destroy(w->predictor);
        free(w->follow);
        free(w->wanted);
        book_free(w->visited);
        book_free(w->predictions);
    }
    free(w);
    return ok;
}

bool think_collect_targets(const Book *b, const ThinkOptions *o, ThinkTarget **out, size_t *n_out, ThinkStats *stats,
                           char *err, size_t err_len) {
    if (err_len)
        err[0] = '\0';
    List l = {book_create(), NULL, 0, 0};
    Book *scope = NULL, *visited = NULL;
    BookMoveList *list = malloc(sizeof *list);
    bool ok = l.seen && list;
    if (ok && o->only_keys) {
        for (size_t i = 0; ok && i < o->only_count; i++) {
            Position pos;
            StateInfo st;
            int ply = o->only_plies ? o->only_plies[i] : 1;
            if (!book_key_to_position(&o->only_keys[i], &pos, &st, ply > 0 ? ply : 1) || !position_has_legal_move(&pos))
                continue;
            ok = add_target(&l, &o->only_keys[i], pos.ply);
        }
    } else if (ok && o->frontier == THINK_FRONTIER_PREDICTED) {
        ok = collect_predicted(b, o, &l, list, stats, err, err_len);
    } else if (ok && (o->frontier == THINK_FRONTIER_EVAL_WINDOW || o->frontier == THINK_FRONTIER_LINE_REPLIES)) {
        visited = book_create();
        WindowWalk ww = {b, o, &l, visited, list};
        ok = visited && walk_roots(o, window_from, &ww);
    } else if (ok) {
        if (o->n_starts)
            ok = (scope = book_create()) != NULL && mark_scope(b, o, scope, list);
        for (size_t i = 0; ok && i < o->n_starts; i++) {
            Position pos;
            StateInfo st;
            uint32_t id;
            if (book_find(b, &o->starts[i], &id) ||
                !book_key_to_position(&o->starts[i], &pos, &st, o->start_plies[i]) ||
                (o->max_ply && pos.ply > o->max_ply) || !position_has_legal_move(&pos))
                continue;
            ok = add_target(&l, &o->starts[i], pos.ply);
        }
        size_t npos = book_position_count(b);
        for (uint32_t id = 0; ok && id < npos; id++) {
            BookKey k;
            uint32_t sid;
            book_position_key(b, id, &k);
            if (scope && !book_find(scope, &k, &sid))
                continue;
            ok = consider(b, o, id, &l, list, NULL, o->frontier == THINK_FRONTIER_REPLIES);
        }
    }
    book_free(l.seen);
    book_free(scope);
    book_free(visited);
    free(list);
    if (!ok) {
        if (err_len && !err[0])
            error_set(err, err_len, "out of memory");
        free(l.t);
        return false;
    }
    *out = l.t;
    *n_out = l.n;
    return true;
}
