/* grow_tree.c - the tree of `book grow`: games walked through it, expansion, the tree
 * policy and the values (grow.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bookgen/grow.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"

#define NONE UINT32_MAX /* no position, no game */

/* One move of a node, as the games and the input book know it. */
typedef struct {
    Move16 move, ponder;
    bool has_score, has_depth, from_in;
    int32_t score, depth;
    uint32_t games, wins, draws, player_games;
    uint32_t grow_games; /* of the games, those book grow played (GROW_EVENT): widening counts them */
    uint32_t pending;    /* games in progress that the policy sent through it */
    double q;            /* the value, set by the valuation */
    double lcb;          /* q less confidence standard errors (q when confidence is 0), likewise */
} GMove;

/* One position the games or the input book met: a node, or an exit waiting for K games. */
typedef struct {
    GMove *moves; /* sorted by move: the valuation visits them in one order whatever the games' */
    int n, cap;
    uint32_t exits;   /* games whose walk stopped here */
    uint32_t waiting; /* the first of those games (GGame.next_waiting links the rest) */
    bool node;
    bool from_in;
} GPos;

typedef struct {
    Move *moves; /* the first min(n, max_ply) moves */
    int n;
    int walked; /* moves credited so far: the walk goes on from here */
    RecordResult result;
    int player;   /* the grown side's colour, -1 when neither side is it */
    bool by_grow; /* its record names it a game of book grow (GROW_EVENT) */
    uint32_t next_waiting;
} GGame;

struct GrowTree {
    GrowOptions o;
    const Book *in;
    Book *keys; /* every position met, for its id */
    GPos *pos;
    size_t cap_pos;
    GGame *games;
    size_t n_games, cap_games;
    uint32_t *work; /* positions that reached K exits, to expand */
    size_t n_work, cap_work;
    StateInfo *st; /* max_ply + 1 states for replays */
    uint64_t book_plies, grown, grow_games;
    BookKey root;
    uint32_t root_id;
    Move16 *keep;       /* o.root_moves copied (o.root_moves then points here); NULL when every move is */
    BookMoveList *list; /* scratch for reading the input book */
};

double grow_expected_score(double cp) { return 1.0 / (1.0 + exp(-cp / GROW_LOGISTIC_CP)); }

int32_t grow_score_cp(double q) {
    if (q < 1e-4)
        q = 1e-4;
    if (q > 1 - 1e-4)
        q = 1 - 1e-4;
    return (int32_t)lround(GROW_LOGISTIC_CP * log(q / (1 - q)));
}

/* Room for one more element in an array of n (a itself or a larger copy; NULL when memory
 * runs out, a then unchanged). */
static void *room(void *a, size_t *cap, size_t n, size_t sz) {
    if (a && n < *cap)
        return a;
    size_t nc = *cap ? *cap * 2 : 64;
    void *b = realloc(a, nc * sz);
    if (b)
        *cap = nc;
    return b;
}

/* The GPos array covers every id of keys. */
static bool cover(GrowTree *t) {
    size_t n = book_position_count(t->keys);
    if (n <= t->cap_pos)
        return true;
    size_t nc = t->cap_pos ? t->cap_pos : 256;
    while (nc < n)
        nc *= 2;
    GPos *p = realloc(t->pos, nc * sizeof *p);
    if (!p)
        return false;
    for (size_t i = t->cap_pos; i < nc; i++)
        p[i] = (GPos){.waiting = NONE};
    t->pos = p;
    t->cap_pos = nc;
    return true;
}

/* The position's id (added when new); NONE when memory runs out. */
static uint32_t position_id(GrowTree *t, const Position *pos) {
    BookKey key;
    book_key_from_position(pos, &key);
    uint32_t id;
    if (!book_add_position(t->keys, &key, pos->ply, &id) || !cover(t))
        return NONE;
    return id;
}

/* The move m of p (inserted in order when new); NULL when memory runs out. */
static GMove *move_of(GPos *p, Move16 m) {
    int lo = 0, hi = p->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (p->moves[mid].move < m)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < p->n && p->moves[lo].move == m)
        return &p->moves[lo];
    if (p->n >= BOOK_MAX_MOVES)
        return NULL;
    size_t cap = (size_t)p->cap;
    GMove *a = room(p->moves, &cap, (size_t)p->n, sizeof *a);
    if (!a)
        return NULL;
    p->moves = a;
    p->cap = (int)cap;
    memmove(&a[lo + 1], &a[lo], (size_t)(p->n - lo) * sizeof *a);
    a[lo] = (GMove){.move = m, .ponder = MOVE_NONE};
    p->n++;
    return &a[lo];
}

GrowTree *grow_tree_create(const Book *in, const GrowOptions *o) {
    GrowTree *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->o = *o;
    t->o.root_moves = NULL;
    t->o.n_root_moves = 0;
    if (o->n_root_moves > 0) {
        if (!(t->keep = malloc((size_t)o->n_root_moves * sizeof *t->keep)))
            goto oom;
        memcpy(t->keep, o->root_moves, (size_t)o->n_root_moves * sizeof *t->keep);
        t->o.root_moves = t->keep;
        t->o.n_root_moves = o->n_root_moves;
    }
    if (t->o.max_ply < 1)
        t->o.max_ply = 1;
    if (t->o.expand_after < 1)
        t->o.expand_after = 1;
    if (!(t->o.prior >= 0))
        t->o.prior = 0;
    if (!(t->o.explore >= 0))
        t->o.explore = 0;
    t->in = in;
    t->keys = book_create();
    t->st = malloc(((size_t)t->o.max_ply + 1) * sizeof *t->st);
    t->list = malloc(sizeof *t->list);
    if (!t->keys || !t->st || !t->list)
        goto oom;
    size_t n = in ? book_position_count(in) : 0;
    if (n && !book_reserve(t->keys, n + 1024))
        goto oom;
    for (uint32_t i = 0; i < n; i++) {
        BookKey key;
        uint32_t id;
        book_position_key(in, i, &key);
        if (!book_add_position(t->keys, &key, book_position_ply(in, i), &id) || !cover(t))
            goto oom;
        GPos *p = &t->pos[id];
        p->node = p->from_in = true;
        int k = book_position_moves(in, i, t->list);
        for (int j = 0; j < k; j++) {
            const BookMove *bm = &t->list->moves[j];
            GMove *m = move_of(p, bm->move);
            if (!m)
                goto oom;
            m->from_in = true;
            m->ponder = bm->ponder;
            m->has_score = bm->has_score;
            m->score = bm->score;
            m->has_depth = bm->has_depth;
            m->depth = bm->depth;
        }
    }
    Position pos;
    position_set_startpos(&pos, &t->st[0]);
    book_key_from_position(&pos, &t->root);
    uint32_t root = position_id(t, &pos);
    if (root == NONE)
        goto oom;
    t->pos[root].node = true;
    t->root_id = root;
    return t;
oom:
    grow_tree_free(t);
    return NULL;
}

void grow_tree_free(GrowTree *t) {
    if (!t)
        return;
    for (size_t i = 0; i < t->cap_pos; i++)
        free(t->pos[i].moves);
    free(t->pos);
    for (size_t i = 0; i < t->n_games; i++)
        free(t->games[i].moves);
    free(t->games);
    free(t->work);
    free(t->st);
    free(t->keep);
    free(t->list);
    book_free(t->keys);
    free(t);
}

/* Walks game gi on from where it stopped: credits its moves at nodes, and at its exit
 * counts it and queues the position once it has K exits. False when memory runs out. */
static bool walk(GrowTree *t, uint32_t gi) {
    GGame *g = &t->games[gi];
    Position pos;
    position_set_startpos(&pos, &t->st[0]);
    for (int i = 0; i < g->n; i++) {
        if (i >= g->walked) {
            uint32_t id = position_id(t, &pos);
            if (id == NONE)
                return false;
            GPos *p = &t->pos[id];
            if (!p->node) {
                p->exits++;
                g->next_waiting = p->waiting;
                p->waiting = gi;
                if (p->exits == (uint32_t)t->o.expand_after) {
                    uint32_t *w = room(t->work, &t->cap_work, t->n_work, sizeof *w);
                    if (!w)
                        return false;
                    t->work = w;
                    t->work[t->n_work++] = id;
                }
                return true;
            }
            GMove *m = move_of(p, move_to_move16(g->moves[i]));
            if (!m)
                return false;
            Color us = pos.side;
            m->games++;
            if (g->result == REC_DRAW)
                m->draws++;
            else if ((g->result == REC_BLACK_WIN) == (us == BLACK))
                m->wins++;
            if (g->player == (int)us)
                m->player_games++;
            if (g->by_grow)
                m->grow_games++;
            g->walked = i + 1;
            t->book_plies++;
        }
        position_do_move(&pos, g->moves[i], &t->st[i + 1]);
    }
    return true;
}

/* Expands the queued positions: each becomes a node and its waiting games walk on. */
static bool expand(GrowTree *t) {
    while (t->n_work) {
        uint32_t id = t->work[--t->n_work];
        t->pos[id].node = true;
        t->grown++;
        uint32_t gi = t->pos[id].waiting;
        t->pos[id].waiting = NONE;
        while (gi != NONE) {
            uint32_t next = t->games[gi].next_waiting;
            if (!walk(t, gi))
                return false;
            gi = next;
        }
    }
    return true;
}

bool grow_event_is_grow(const char *event) { return event && !strncmp(event, GROW_EVENT, sizeof GROW_EVENT - 1); }

GrowAddResult grow_tree_add_game(GrowTree *t, const char *root_sfen, const Move *moves, int n, RecordResult result,
                                 const char *black, const char *white, const char *event) {
    BookKey key;
    int ply;
    if (!book_key_from_sfen(root_sfen, &key, &ply, NULL, 0) || memcmp(&key, &t->root, sizeof key) != 0)
        return GROW_NOT_ROOT;
    if (result == REC_RESULT_UNKNOWN)
        return GROW_NO_RESULT;
    GGame *games = room(t->games, &t->cap_games, t->n_games, sizeof *games);
    if (!games)
        return GROW_OOM;
    t->games = games;
    int keep = n < t->o.max_ply ? n : t->o.max_ply;
    GGame *g = &t->games[t->n_games];
    *g = (GGame){.n = keep, .result = result, .next_waiting = NONE, .player = -1, .by_grow = grow_event_is_grow(event)};
    if (t->o.player && black && !strcmp(black, t->o.player))
        g->player = BLACK;
    else if (t->o.player && white && !strcmp(white, t->o.player))
        g->player = WHITE;
    g->moves = malloc(((size_t)keep + 1) * sizeof *g->moves);
    if (!g->moves)
        return GROW_OOM;
    memcpy(g->moves, moves, (size_t)keep * sizeof *g->moves);
    uint32_t gi = (uint32_t)t->n_games++;
    t->grow_games += g->by_grow;
    return walk(t, gi) && expand(t) ? GROW_ADDED : GROW_OOM;
}

/* The node after moves[0..n) while the game is in the tree, with pos set to it; NONE
 * otherwise (or when the position was never met). */
static uint32_t node_after(GrowTree *t, const Move *moves, int n, Position *pos) {
    if (n > t->o.max_ply)
        return NONE;
    position_set_startpos(pos, &t->st[0]);
    for (int i = 0;; i++) {
        BookKey key;
        uint32_t id;
        book_key_from_position(pos, &key);
        if (!book_find(t->keys, &key, &id) || !t->pos[id].node)
            return NONE;
        if (i == n)
            return id;
        position_do_move(pos, moves[i], &t->st[i + 1]);
    }
}

/* False when m is a move of node id that the tree may not play nor list: at the start
 * position under root_moves, a move not kept (grow.h, "The root's moves"). */
static bool kept(const GrowTree *t, uint32_t id, Move16 m) {
    if (id != t->root_id || t->o.n_root_moves == 0)
        return true;
    for (int i = 0; i < t->o.n_root_moves; i++)
        if (t->o.root_moves[i] == m)
            return true;
    return false;
}

/* The mean result of the games at p for the side to move, shrunk toward 1/2 by G games:
 * the prior of its moves without a book score. Raw results, never backed-up values, so that
 * the shrinking does not compound down a line (a line of single games would otherwise
 * wash out to 1/2 within a few plies). */
static double node_mean(const GPos *p, double G) {
    double sum = 0, n = 0;
    for (int i = 0; i < p->n; i++) {
        sum += p->moves[i].wins + 0.5 * p->moves[i].draws;
        n += p->moves[i].games;
    }
    return n + G > 0 ? (sum + 0.5 * G) / (n + G) : 0.5;
}

static double prior_of(const GMove *m, double mean) { return m->has_score ? grow_expected_score(m->score) : mean; }

/* A 64-bit mix (splitmix64's finaliser) for the policy's tie-breaks. */
static uint64_t mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* The progressive widening rule (grow.h) at node id of position pos: true when k, its
 * listed moves legal here, is below W sqrt(N), N the games book grow played through it
 * (finished and in progress), and some legal move is not listed; then the unlisted legal
 * moves (in generation order) are in out[0..*n_out) when out is given. Imported games
 * (other matches' records) list moves but do not count in N: over a directory of thousands
 * of them every busy node would widen at once. At the start position under root_moves,
 * only kept moves count and are offered, and a root listing none of them offers them
 * whatever W is (the player may not search the others). */
static bool widening(const GrowTree *t, uint32_t id, const Position *pos, Move *out, int *n_out) {
    bool restricted = id == t->root_id && t->o.n_root_moves > 0;
    if (!(t->o.widen > 0) && !restricted)
        return false;
    const GPos *p = &t->pos[id];
    double N = 0;
    int k = 0;
    for (int i = 0; i < p->n; i++)
        if (kept(t, id, p->moves[i].move)) {
            N += p->moves[i].grow_games + p->moves[i].pending;
            k += position_legal_move_from16(pos, p->moves[i].move) != MOVE_NONE;
        }
    if (!((double)k < t->o.widen * sqrt(N)) && !(restricted && k == 0))
        return false;
    ExtMove list[MAX_MOVES];
    int n = generate_moves(pos, GEN_LEGAL, list), unlisted = 0;
    for (int j = 0; j < n; j++) {
        bool listed = !kept(t, id, move_to_move16(list[j].move));
        for (int i = 0; i < p->n && !listed; i++)
            listed = p->moves[i].move == move_to_move16(list[j].move);
        if (!listed) {
            if (out)
                out[unlisted] = list[j].move;
            unlisted++;
        }
    }
    if (n_out)
        *n_out = unlisted;
    return unlisted > 0;
}

int grow_tree_widen(GrowTree *t, const Move *moves, int n, Move *out) {
    Position pos;
    int count = 0;
    if (n >= t->o.max_ply)
        return 0;
    uint32_t id = node_after(t, moves, n, &pos);
    if (id == NONE || !widening(t, id, &pos, out, &count))
        return 0;
    return count;
}

bool grow_tree_choose(GrowTree *t, const Move *moves, int n, Move *out) {
    Position pos;
    if (n >= t->o.max_ply)
        return false;
    uint32_t id = node_after(t, moves, n, &pos);
    if (id == NONE)
        return false;
    GPos *p = &t->pos[id];
    if (widening(t, id, &pos, NULL, NULL))
        return false; /* the player searches among the moves not listed (grow_tree_widen) */
    double total = 0;
    for (int i = 0; i < p->n; i++)
        if (kept(t, id, p->moves[i].move))
            total += p->moves[i].games + p->moves[i].pending;
    double lnN = log(1 + total), G = t->o.prior, mean = node_mean(p, G);
    int best = -1;
    double best_u = 0;
    uint64_t best_tie = 0;
    Move best_move = MOVE_NONE;
    for (int i = 0; i < p->n; i++) {
        const GMove *m = &p->moves[i];
        Move full = position_legal_move_from16(&pos, m->move);
        if (full == MOVE_NONE || !kept(t, id, m->move))
            continue;
        double nv = (double)m->games + m->pending;
        double q = nv + G > 0 ? (m->wins + 0.5 * m->draws + G * prior_of(m, mean)) / (nv + G) : prior_of(m, mean);
        double u = q + t->o.explore * sqrt(lnN / (1 + nv));
        uint64_t tie = mix(t->o.seed ^ mix(m->move));
        if (best < 0 || u > best_u || (u == best_u && tie > best_tie)) {
            best = i;
            best_u = u;
            best_tie = tie;
            best_move = full;
        }
    }
    if (best < 0)
        return false;
    p->moves[best].pending++;
    *out = best_move;
    return true;
}

void grow_tree_release(GrowTree *t, const Move *moves, int n, Move m) {
    Position pos;
    uint32_t id = node_after(t, moves, n, &pos);
    if (id == NONE)
        return;
    GPos *p = &t->pos[id];
    for (int i = 0; i < p->n; i++)
        if (p->moves[i].move == move_to_move16(m) && p->moves[i].pending > 0)
            p->moves[i].pending--;
}

void grow_tree_summary(const GrowTree *t, GrowSummary *s) {
    memset(s, 0, sizeof *s);
    s->games = t->n_games;
    s->grow_games = t->grow_games;
    s->grown = t->grown;
    s->book_plies = t->book_plies;
    for (size_t i = 0; i < book_position_count(t->keys); i++)
        if (t->pos[i].node) {
            s->nodes++;
            s->moves += (uint64_t)t->pos[i].n;
        }
}

/* ---- The values ---- */

typedef struct {
    GrowTree *t;
    double *value[2];  /* per position id: with the player to move (0), with an opponent to move (1) */
    uint8_t *state[2]; /* 0 not valued, 1 being valued (a cycle stops there), 2 valued */
} Valuer;

/* The position's move number for rebuilding it (1 when the input book did not know it). */
static int ply_of(const GrowTree *t, uint32_t id) {
    int ply = book_position_ply(t->keys, id);
    return ply > 0 ? ply : 1;
}

static uint32_t node_games(const GPos *p) {
    uint32_t n = 0;
    for (int i = 0; i < p->n; i++)
        n += p->moves[i].games;
    return n;
}

/* q less z standard errors of a mean of `weight` results (q (1 - q) / weight its variance),
 * at least 0; q itself when z is 0 (so the default writes what it always wrote). */
static double lower_bound(double q, double weight, double z) {
    if (z <= 0 || weight <= 0)
        return q;
    double b = q - z * sqrt(q * (1 - q) / weight);
    return b > 0 ? b : 0;
}

/* The value of node id for its side to move when that is the player (role 0: the best
 * move, a kept one at the start position under root_moves) or an opponent (role 1: the
 * replies the opponents were seen to play, by their games), -1 when it is being valued (a
 * cycle). Role 0 sets every move's q, the player's value of the move: the value of the
 * next position with an opponent to move. */
static double node_value(Valuer *v, uint32_t id, int role) {
    if (v->state[role][id] == 2)
        return v->value[role][id];
    if (v->state[role][id] == 1)
        return -1;
    v->state[role][id] = 1;
    GrowTree *t = v->t;
    BookKey key;
    book_position_key(t->keys, id, &key);
    Position pos;
    StateInfo st;
    double G = t->o.prior, best = -1, best_lcb = -1, sum_all = 0, sum_opp = 0, mean = node_mean(&t->pos[id], G);
    uint64_t games = 0, opp = 0;
    if (book_key_to_position(&key, &pos, &st, ply_of(t, id))) {
        for (int i = 0; i < t->pos[id].n; i++) {
            GMove *m = &t->pos[id].moves[i];
            double p = prior_of(m, mean), n = m->games;
            double q = n + G > 0 ? (m->wins + 0.5 * m->draws + G * p) / (n + G) : p;
            Move full = position_legal_move_from16(&pos, m->move);
            if (full == MOVE_NONE) {
                if (role == 0)
                    m->q = m->lcb = lower_bound(q, n + G, t->o.confidence);
                continue;
            }
            BookKey ck;
            uint32_t c;
            book_key_after_move(&pos, full, &ck);
            if (m->games > 0 && book_find(t->keys, &ck, &c) && t->pos[c].node && node_games(&t->pos[c]) > 0) {
                double vc = node_value(v, c, 1 - role);
                if (vc >= 0)
                    q = (n * (1 - vc) + G * p) / (n + G);
            }
            double lcb = lower_bound(q, n + G, t->o.confidence);
            if (role == 0) {
                m->q = q;
                m->lcb = lcb;
            }
            /* the move a reader playing the best score plays; the player only among the kept */
            if (lcb > best_lcb && (role == 1 || kept(t, id, m->move)))
                best_lcb = lcb, best = q;
            sum_all += m->games * q;
            games += m->games;
            sum_opp += (m->games - m->player_games) * q;
            opp += m->games - m->player_games;
        }
    }
    double val = role == 0 || games == 0 ? best : opp > 0 ? sum_opp / (double)opp : sum_all / (double)games;
    v->value[role][id] = val < 0 ? 0.5 : val;
    v->state[role][id] = 2;
    return v->value[role][id];
}

/* Count, then score, both descending, then the move: the order OUT lists moves in. */
static int by_count_score(const void *a, const void *b) {
    const BookMove *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    int32_t sx = x->has_score ? x->score : INT32_MIN, sy = y->has_score ? y->score : INT32_MIN;
    if (sx != sy)
        return sx > sy ? -1 : 1;
    return x->move < y->move ? -1 : x->move > y->move;
}

/* Writes node id's moves, statistics and comments into out. False when memory runs out. */
static bool emit(const GrowTree *t, const Valuer *v, uint32_t id, Book *out, BookMove *list) {
    const GPos *p = &t->pos[id];
    uint32_t games = node_games(p), player = 0;
    BookKey key;
    book_position_key(t->keys, id, &key);
    uint32_t oid;
    if (!book_add_position(out, &key, book_position_ply(t->keys, id), &oid))
        return false;
    Position pos;
    StateInfo st;
    bool have_pos = book_key_to_position(&key, &pos, &st, ply_of(t, id));
    int n_list = 0;
    for (int i = 0; i < p->n; i++) {
        const GMove *m = &p->moves[i];
        player += m->player_games;
        if (!kept(t, id, m->move))
            continue; /* counted in the position's games, never listed */
        BookMove bm = {.move = m->move, .ponder = m->ponder, .count = m->games};
        /* a move without games keeps the input book's score, unless scores are lower bounds:
         * then every move of a node with games has its bound, so that they compare alike */
        bool learned = m->games > 0 || (t->o.confidence > 0 && games > 0);
        if (learned) {
            bm.has_score = true;
            bm.score = grow_score_cp(t->o.confidence > 0 ? m->lcb : m->q);
        } else {
            bm.has_score = m->has_score;
            bm.score = m->score;
            bm.has_depth = m->has_depth;
            bm.depth = m->depth;
        }
        list[n_list++] = bm;
    }
    qsort(list, (size_t)n_list, sizeof *list, by_count_score);
    if (!book_set_moves(out, oid, list, n_list))
        return false;
    if (games == 0)
        return true;
    char line[160];
    int len = snprintf(line, sizeof line,
                       "grow: %u games (%u by the player), value %.3f with the player to move, "
                       "%.3f with an opponent to move",
                       games, player, v->value[0][id], v->value[1][id]);
    Color side = have_pos ? pos.side : BLACK;
    uint32_t won = 0, lost = 0; /* by the side to move */
    for (int i = 0; i < p->n; i++) {
        won += p->moves[i].wins;
        lost += p->moves[i].games - p->moves[i].wins - p->moves[i].draws;
    }
    BookStats ps = {.games = games, .black_wins = side == BLACK ? won : lost, .white_wins = side == BLACK ? lost : won};
    if (!book_set_stats(out, oid, MOVE_NONE, &ps) || !book_append_comment(out, oid, MOVE_NONE, line, (size_t)len))
        return false;
    Color us = side;
    for (int i = 0; i < p->n; i++) {
        const GMove *m = &p->moves[i];
        if (m->games == 0 || !kept(t, id, m->move))
            continue;
        uint32_t losses = m->games - m->wins - m->draws;
        BookStats s = {.games = m->games,
                       .black_wins = us == BLACK ? m->wins : losses,
                       .white_wins = us == BLACK ? losses : m->wins};
        char usi[USI_MOVE_MAX];
        len = snprintf(line, sizeof line, "grow %s: %u games +%u =%u -%u, value %.3f, prior %.3f",
                       move_to_usi(m->move, usi), m->games, m->wins, m->draws, losses, m->q,
                       prior_of(m, node_mean(p, t->o.prior)));
        if (t->o.confidence > 0 && len > 0 && (size_t)len < sizeof line)
            len += snprintf(line + len, sizeof line - (size_t)len, ", lower bound %.3f", m->lcb);
        if (!book_set_stats(out, oid, m->move, &s) || !book_append_comment(out, oid, m->move, line, (size_t)len))
            return false;
    }
    return true;
}

Book *grow_tree_book(GrowTree *t) {
    size_t n = book_position_count(t->keys);
    Valuer v = {t, {calloc(n, sizeof(double)), calloc(n, sizeof(double))}, {calloc(n, 1), calloc(n, 1)}};
    Book *out = book_create();
    BookMove *list = malloc(BOOK_MAX_MOVES * sizeof *list);
    uint32_t *ids = book_sorted_ids(t->keys);
    bool ok = v.value[0] && v.value[1] && v.state[0] && v.state[1] && out && list && ids &&
              (!t->in || book_merge(out, t->in));
    uint32_t root;
    if (ok && book_find(t->keys, &t->root, &root)) /* from the root first: cycles are cut where games meet them */
        for (int role = 0; role < 2; role++)
            node_value(&v, root, role);
    /* the start position under root_moves is written even without games, so that IN's
     * moves there that are not kept leave the list */
    uint32_t in_root;
    bool root_listed = t->o.n_root_moves > 0 && t->in && book_find(t->in, &t->root, &in_root);
    for (size_t i = 0; ok && i < n; i++)
        if (t->pos[ids[i]].node && (node_games(&t->pos[ids[i]]) > 0 || (root_listed && ids[i] == t->root_id))) {
            node_value(&v, ids[i], 0);
            node_value(&v, ids[i], 1);
            ok = emit(t, &v, ids[i], out, list);
        }
    free(ids);
    free(list);
    for (int role = 0; role < 2; role++) {
        free(v.value[role]);
        free(v.state[role]);
    }
    if (!ok) {
        book_free(out);
        return NULL;
    }
    return out;
}
