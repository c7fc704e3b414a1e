/* dfpn.c - see dfpn.h. */
#include "search/dfpn.h"

#include "util/clock.h"

#include <stdlib.h>
#include <string.h>

#include "shogi/movegen.h"
#include "shogi/rules.h"

#define DFPN_INF 100000000u

typedef struct {
    Key key;
    uint32_t phi, delta;
    uint16_t length;     /* plies to mate once proven (the attacker's view), 0 otherwise */
    uint16_t generation; /* the iteration that wrote it; 0 = empty */
} Entry;

struct DfpnSolver {
    Entry *table;
    size_t mask;
    uint64_t nodes;
    uint64_t max_nodes;
    double deadline_ms;
    const atomic_bool *stop;
    bool aborted;
    Key path[1024 + 2];
    int path_len;
    int limit;           /* the longest line tried in this iteration, in plies */
    bool hit_limit;      /* some line was cut by the limit: a disproof may not be final */
    uint16_t generation; /* entries of other generations count as empty */
};

DfpnSolver *dfpn_create(size_t table_mb) {
    DfpnSolver *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    size_t n = 1;
    while (n * 2 * sizeof(Entry) <= (table_mb ? table_mb : 1) * 1024 * 1024)
        n *= 2;
    s->table = calloc(n, sizeof(Entry));
    if (!s->table) {
        free(s);
        return NULL;
    }
    s->mask = n - 1;
    return s;
}

void dfpn_destroy(DfpnSolver *s) {
    if (s) {
        free(s->table);
        free(s);
    }
}

enum { BUCKET = 4 };

/* The key distinguishes attacker and defender nodes through the side-to-move bit.
 * Entries live in buckets of four. */
static Entry *lookup(DfpnSolver *s, Key key) {
    Entry *b = &s->table[key & s->mask & ~(size_t)(BUCKET - 1)];
    for (int i = 0; i < BUCKET; i++)
        if (b[i].generation == s->generation && b[i].key == key)
            return &b[i];
    return NULL;
}

/* Always stores (the search relies on it to make progress): into the entry of the
 * same key, an empty one, or else an unfinished one, finished results being the last
 * to go. */
static void store(DfpnSolver *s, Key key, uint32_t phi, uint32_t delta, uint16_t length) {
    Entry *b = &s->table[key & s->mask & ~(size_t)(BUCKET - 1)];
    Entry *e = NULL;
    for (int i = 0; i < BUCKET && !e; i++)
        if (b[i].generation != s->generation || b[i].key == key)
            e = &b[i];
    for (int i = 0; i < BUCKET && !e; i++)
        if (b[i].phi != 0 && b[i].delta != 0)
            e = &b[i];
    if (!e)
        e = &b[key >> 62];
    e->key = key;
    e->phi = phi;
    e->delta = delta;
    e->length = length;
    e->generation = s->generation;
}

static bool on_path(const DfpnSolver *s, Key key) {
    for (int i = s->path_len - 2; i >= 0; i -= 2)
        if (s->path[i] == key)
            return true;
    return false;
}

static uint32_t add_sat(uint32_t a, uint32_t b) { return a + b >= DFPN_INF ? DFPN_INF : a + b; }

static void mid(DfpnSolver *s, Position *pos, bool or_node, uint32_t th_phi, uint32_t th_delta) {
    Key key = position_key(pos);
    if (s->aborted)
        return;
    if ((s->max_nodes && ++s->nodes > s->max_nodes) || (!s->max_nodes && ++s->nodes == 0)) {
        s->aborted = true;
        return;
    }
    if ((s->nodes & 1023) == 1) {
        if ((s->deadline_ms > 0 && clock_now_ms() >= s->deadline_ms) || (s->stop && atomic_load(s->stop))) {
            s->aborted = true;
            return;
        }
    }
    ExtMove list[MAX_MOVES];
    int n = generate_moves(pos, or_node ? GEN_CHECKS : GEN_LEGAL, list);
    if (n == 0) {
        /* No check to give, or no way out of check: the side to move has lost. */
        store(s, key, DFPN_INF, 0, 0);
        return;
    }
    if (s->path_len >= s->limit) {
        /* Out of plies: the attacker has failed to mate in time. */
        s->hit_limit = true;
        store(s, key, or_node ? DFPN_INF : 0, or_node ? 0 : DFPN_INF, 0);
        return;
    }
    if (or_node) {
        /* A mate in one settles the node without expanding it; the mated child is
         * stored too, for the read-back. */
        Move mate = position_mate_in_one(pos);
        if (mate != MOVE_NONE) {
            store(s, position_key_after(pos, mate), DFPN_INF, 0, 0);
            store(s, key, 0, DFPN_INF, 1);
            return;
        }
    }
    /* The children's keys, computed once: repetitions and table look-ups need no move
     * played. */
    s->path[s->path_len++] = key;
    Key child_keys[MAX_MOVES];
    bool repeated[MAX_MOVES];
    for (int i = 0; i < n; i++) {
        child_keys[i] = position_key_after(pos, list[i].move);
        repeated[i] = on_path(s, child_keys[i]);
    }
    for (;;) {
        uint32_t phi = DFPN_INF, delta = 0, best_delta = DFPN_INF, second_delta = DFPN_INF, best_phi = 0;
        int best = -1;
        uint16_t len_worst = 0, mate_len = 0xffff;
        for (int i = 0; i < n; i++) {
            uint32_t cphi = 1, cdelta = 1;
            uint16_t clen = 0;
            if (repeated[i]) {
                /* A repetition: the attacker gets nothing from it, the defender escapes. */
                cphi = or_node ? 0 : DFPN_INF;
                cdelta = or_node ? DFPN_INF : 0;
            } else {
                const Entry *e = lookup(s, child_keys[i]);
                if (e) {
                    cphi = e->phi;
                    cdelta = e->delta;
                    clen = e->length;
                }
            }
            if (cdelta < phi)
                phi = cdelta;
            delta = add_sat(delta, cphi);
            if (cdelta == 0 && clen < mate_len)
                mate_len = clen; /* a child in which the opponent has lost */
            if (clen > len_worst)
                len_worst = clen;
            if (cdelta < best_delta) {
                second_delta = best_delta;
                best_delta = cdelta;
                best_phi = cphi;
                best = i;
            } else if (cdelta < second_delta) {
                second_delta = cdelta;
            }
        }
        if (phi == 0) {
            /* Won: for the attacker the shortest mate, for the defender (a refutation)
             * the length does not matter. */
            store(s, key, 0, DFPN_INF, (uint16_t)(or_node ? mate_len + 1 : 0));
            break;
        }
        if (delta == 0) {
            /* Lost: every child wins for the opponent. The defender resists longest. */
            store(s, key, DFPN_INF, 0, (uint16_t)(or_node ? 0 : len_worst + 1));
            break;
        }
        if (phi >= th_phi || delta >= th_delta) {
            store(s, key, phi, delta, 0);
            break;
        }
        uint32_t child_th_phi = add_sat(th_delta - delta, best_phi);
        uint32_t child_th_delta = th_phi < second_delta + 1 ? th_phi : second_delta + 1;
        StateInfo st;
        position_do_move(pos, list[best].move, &st);
        mid(s, pos, !or_node, child_th_phi, child_th_delta);
        position_undo_move(pos, list[best].move);
        if (s->aborted)
            break;
    }
    s->path_len--;
}

/* Reads the solution back from the table within `left` plies: the shortest mate for
 * the attacker against the longest resistance, using only proven entries. Returns the
 * line's length (written to pv[depth..]) or -1 when no proven line fits, or when the
 * look-up budget runs out (*budget counts down). */
static int extract(DfpnSolver *s, Position *pos, bool or_node, Move *pv, int pv_max, int depth, int left, int *budget) {
    ExtMove list[MAX_MOVES];
    int n = generate_moves(pos, or_node ? GEN_CHECKS : GEN_LEGAL, list);
    if (n == 0)
        return or_node ? -1 : 0; /* a defender with no move is mated: the line is complete */
    if (left <= 0 || depth >= pv_max || --*budget < 0)
        return -1;
    Move line[MAX_PLY + 1], best_line[MAX_PLY + 1];
    int best = -1, best_len = -1;
    for (int i = 0; i < n; i++) {
        StateInfo st;
        position_do_move(pos, list[i].move, &st);
        Entry *e = lookup(s, position_key(pos));
        bool proven = e && (or_node ? e->delta == 0 : e->phi == 0);
        int len = -1;
        if (proven)
            len = extract(s, pos, !or_node, line, MAX_PLY, 0, left - 1, budget);
        position_undo_move(pos, list[i].move);
        if (len < 0) {
            if (or_node)
                continue;
            return -1; /* the defender escapes through this move */
        }
        if (best < 0 || (or_node ? len < best_len : len > best_len)) {
            best = i;
            best_len = len;
            memcpy(best_line, line, (size_t)len * sizeof *line);
        }
    }
    if (best < 0 || depth + 1 + best_len > pv_max)
        return -1;
    pv[depth] = list[best].move;
    memcpy(pv + depth + 1, best_line, (size_t)best_len * sizeof *pv);
    return best_len + 1;
}

DfpnStatus dfpn_solve(DfpnSolver *s, Position *pos, const DfpnLimits *limits, Move *pv, int pv_max, int *pv_len,
                      uint64_t *nodes) {
    s->nodes = 0;
    s->max_nodes = limits ? limits->max_nodes : 0;
    s->deadline_ms = limits && limits->max_time_ms > 0 ? clock_now_ms() + (double)limits->max_time_ms : 0;
    s->stop = limits ? limits->stop : NULL;
    s->aborted = false;
    s->path_len = 0;
    *pv_len = 0;
    DfpnStatus status = DFPN_UNKNOWN;
    Key root = position_key(pos);
    /* Iterative deepening on the length of the mate keeps df-pn out of endless chains
     * of checks (where every proof number stays 1) and finds short mates first. A
     * proof never depends on the limit, so a mate found is real; a disproof counts only
     * when no line was cut, or at the last limit. */
    static const int LIMITS[] = {1, 3, 5, 7, 9, 11, 13, 15, 17, 21, 25, 31, 41, 51, 71, 101, 151, 255, 511, 1023};
    for (size_t li = 0; li < sizeof LIMITS / sizeof LIMITS[0] && status == DFPN_UNKNOWN && !s->aborted; li++) {
        s->limit = LIMITS[li];
        /* A new generation empties the table without touching it. */
        if (++s->generation == 0) {
            memset(s->table, 0, (s->mask + 1) * sizeof(Entry));
            s->generation = 1;
        }
        s->hit_limit = false;
        s->path_len = 0;
        mid(s, pos, true, DFPN_INF - 1, DFPN_INF - 1);
        Entry *e = lookup(s, root);
        if (e && e->phi == 0) {
            /* Read the line back within the limit first (the shortest), and failing that
             * (transpositions may have lent the proof a longer line) without it. */
            int max = pv_max < MAX_PLY ? pv_max : MAX_PLY;
            int budget = 200000;
            int len = extract(s, pos, true, pv, max, 0, s->limit, &budget);
            if (len < 0) {
                budget = 200000;
                len = extract(s, pos, true, pv, max, 0, max, &budget);
            }
            if (len > 0) {
                *pv_len = len;
                status = DFPN_MATE;
            }
        } else if (e && e->delta == 0 && (!s->hit_limit || li + 1 == sizeof LIMITS / sizeof LIMITS[0])) {
            status = DFPN_NO_MATE;
        }
    }
    if (nodes)
        *nodes = s->nodes;
    return status;
}
