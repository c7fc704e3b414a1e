/* minimax_sweep_settle.c - steps 1-4 of minimax.h out of core, for minimax_sweep.c (which
 * says how the files are made): step 1 by sweeps over sorted files, steps 2-4 on the
 * positions step 1 leaves (the core), loaded into a graph for minimax_propagate(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bookgen/minimax.h"
#include "bookgen/minimax_internal.h"
#include "util/error.h"
#include "util/interrupt.h"

typedef struct {
    const SweepEnv *env;
    MinimaxStats *stats;
    char *err;
    size_t err_len;
} Settle;

static int cmp_val(const void *a, const void *b) {
    const ValRec *x = a, *y = b;
    if (x->ord != y->ord)
        return x->ord < y->ord ? -1 : 1;
    if (x->vd.value != y->vd.value)
        return x->vd.value < y->vd.value ? -1 : 1;
    return x->vd.depth < y->vd.depth ? -1 : x->vd.depth > y->vd.depth;
}

static void progress_begin(Settle *s, const char *label, uint64_t total) {
    if (s->env->opt->progress)
        progress_start(s->env->opt->progress, s->env->opt->progress->out, label, total, s->env->opt->progress->quiet);
}

static void progress_end(Settle *s) {
    if (s->env->opt->progress)
        progress_finish(s->env->opt->progress);
}

bool minimax_sweep_tick(const SweepEnv *env, uint64_t i, char *err, size_t err_len) {
    if ((i & 65535) == 0) {
        if (env->opt->progress)
            progress_update(env->opt->progress, i);
        if (interrupt_requested())
            return error_set(err, err_len, "interrupted");
    }
    return true;
}

static bool tick_records(Settle *s, uint64_t i) { return minimax_sweep_tick(s->env, i, s->err, s->err_len); }

RecordSort *minimax_sweep_open_sort(const SweepEnv *env, size_t size, RecordCompare cmp, char *err, size_t err_len) {
    RecordSortOptions o = {
        .size = size, .cmp = cmp, .memory = env->memory / 4, .tmpdir = env->tmpdir, .near = env->near};
    RecordSort *rs = record_sort_open(&o);
    if (!rs)
        error_set(err, err_len, "out of memory");
    return rs;
}

static RecordSort *open_sort(Settle *s, size_t size, RecordCompare cmp) {
    return minimax_sweep_open_sort(s->env, size, cmp, s->err, s->err_len);
}

/* One sweep: edges (by child) joined with vals (by ordinal) into the next edges and the
 * resolved values; those merged into open into the next open and next vals; every value
 * of vals also to fin. */
static bool sweep(Settle *s, RecordFile *edges, RecordFile *vals, RecordFile *open, RecordFile *edges2,
                  RecordFile *vals2, RecordFile *open2, RecordSort *fin, int number) {
    char label[48];
    snprintf(label, sizeof label, "minimax: sweep %d", number);
    progress_begin(s, label, edges->n);
    RecordSort *res = open_sort(s, sizeof(ValRec), cmp_val);
    if (!res)
        return false;
    bool ok = record_file_rewind(edges, s->err, s->err_len) && record_file_rewind(vals, s->err, s->err_len) &&
              record_file_rewind(open, s->err, s->err_len);
    EdgeRec e;
    ValRec v;
    int vr = ok ? record_file_get(vals, &v, s->err, s->err_len) : -1, er = 0;
    if (vr == 1) {
        FinRec fr = {v.ord, v.vd, 0};
        ok = record_sort_add(fin, &fr, s->err, s->err_len);
    }
    uint64_t i = 0;
    while (ok && vr >= 0 && (er = record_file_get(edges, &e, s->err, s->err_len)) == 1) {
        while (ok && vr == 1 && v.ord < e.child) {
            vr = record_file_get(vals, &v, s->err, s->err_len);
            if (vr == 1) {
                FinRec fr = {v.ord, v.vd, 0};
                ok = record_sort_add(fin, &fr, s->err, s->err_len);
            }
        }
        if (vr == 1 && v.ord == e.child) {
            ValRec r = {e.parent, v.vd};
            ok = ok && record_sort_add(res, &r, s->err, s->err_len);
        } else
            ok = ok && record_file_put(edges2, &e, s->err, s->err_len);
        ok = ok && tick_records(s, ++i);
    }
    while (ok && vr == 1) {
        vr = record_file_get(vals, &v, s->err, s->err_len);
        if (vr == 1) {
            FinRec fr = {v.ord, v.vd, 0};
            ok = record_sort_add(fin, &fr, s->err, s->err_len);
        }
    }
    ok = ok && vr == 0 && er == 0 && record_sort_finish(res, s->err, s->err_len);
    /* the resolved values into the open positions */
    const void *rp;
    int rr = ok ? record_sort_next(res, &rp, s->err, s->err_len) : -1, orr = 0;
    OpenRec o;
    while (ok && rr >= 0 && (orr = record_file_get(open, &o, s->err, s->err_len)) == 1) {
        while (rr == 1 && ((const ValRec *)rp)->ord == o.ord) {
            bool has = o.flags & OPEN_HAS_BEST;
            vd_fold(&o.best, &has, ((const ValRec *)rp)->vd);
            o.flags |= OPEN_HAS_BEST;
            o.remaining--;
            rr = record_sort_next(res, &rp, s->err, s->err_len);
        }
        if (o.remaining == 0) {
            ValRec nv = {o.ord, vd_settled(o.best, true)};
            ok = record_file_put(vals2, &nv, s->err, s->err_len);
        } else
            ok = record_file_put(open2, &o, s->err, s->err_len);
    }
    ok = ok && rr == 0 && orr == 0;
    record_sort_close(res);
    progress_end(s);
    return ok;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static uint32_t core_id(const uint32_t *ords, size_t k, uint32_t ord) {
    const uint32_t *p = bsearch(&ord, ords, k, sizeof *ords, cmp_u32);
    return p ? (uint32_t)(p - ords) : NO_NEXT;
}

/* Steps 2-4 over the positions never settled (open, by ordinal) and the edges between
 * them (edges, by child); their final values into fin. Node id i < k is the i-th open
 * position, node k + i the settled child holding the best of its settled and leaf moves
 * (settled, so steps 3-4 leave it alone, whether it is used or not; built when the
 * position has such moves). The fold keeps the exact best of those moves, not bounded by
 * best_for_parent()'s start value, since the loops' search (dfs_loop) starts from
 * another one. An edge is placed
 * under its parent with its question number in the unused move field, then each node's
 * edges are put in question order, which is the order minimax_node_edges() made them in. */
static bool core(Settle *s, RecordFile *open, RecordFile *edges, RecordSort *fin) {
    size_t k = (size_t)open->n, ne = (size_t)edges->n;
    /* ords, the nodes, the folded edge, and what minimax_propagate() takes: its open list
     * and its loop candidates */
    uint64_t need = (uint64_t)k * (4 + 2 * sizeof(Node) + sizeof(Edge) + 4 + 8) + (uint64_t)ne * sizeof(Edge);
    if (need > s->env->memory / 4 * 3)
        return error_set(s->err, s->err_len,
                         "the positions on or above cycles (%zu, with %zu moves between them) need about %llu KiB, "
                         "more than three quarters of --memory: raise --memory",
                         k, ne, (unsigned long long)(need >> 10) + 1);
    s->stats->settled = s->env->total - k;
    /* an empty core too goes through minimax_propagate(), which counts its one round */
    uint32_t *ords = malloc((k ? k : 1) * sizeof *ords);
    Graph g = {calloc(k ? 2 * k : 1, sizeof(Node)), malloc((ne + k + 1) * sizeof(Edge))};
    bool ok = ords && g.nodes && g.edges;
    if (!ok)
        error_set(s->err, s->err_len, "out of memory");
    ok = ok && record_file_rewind(open, s->err, s->err_len);
    OpenRec o;
    for (size_t i = 0; ok && i < k; i++) {
        ok = record_file_get(open, &o, s->err, s->err_len) == 1;
        if (!ok)
            break;
        ords[i] = o.ord;
        g.nodes[i].checked = (o.flags & OPEN_CHECKED) != 0;
        /* built marks the folded edge's node as used */
        g.nodes[k + i] = (Node){.vd = o.best, .settled = true, .built = (o.flags & OPEN_HAS_BEST) != 0};
        g.nodes[i].n = (o.flags & OPEN_HAS_BEST) != 0; /* the folded edge, counted below */
    }
    /* count each node's edges, then place them */
    EdgeRec e;
    for (int round = 0; ok && round < 2; round++) {
        ok = record_file_rewind(edges, s->err, s->err_len);
        if (round == 1) {
            uint32_t first = 0;
            for (size_t i = 0; i < k; i++) {
                g.nodes[i].first = first;
                first += g.nodes[i].n;
                g.nodes[i].n = 0;
            }
        }
        for (size_t i = 0; ok && i < ne; i++) {
            ok = record_file_get(edges, &e, s->err, s->err_len) == 1;
            uint32_t p = ok ? core_id(ords, k, e.parent) : NO_NEXT, c = ok ? core_id(ords, k, e.child) : NO_NEXT;
            if (ok && (p == NO_NEXT || c == NO_NEXT))
                ok = error_set(s->err, s->err_len, "an open move between settled positions (a bug)");
            if (!ok)
                break;
            if (round == 1)
                g.edges[g.nodes[p].first + g.nodes[p].n] = (Edge){.next = c, .leaf = 0, .move = (Move16)e.q};
            g.nodes[p].n++;
        }
    }
    for (size_t i = 0; ok && i < k; i++) {
        Node *nd = &g.nodes[i];
        Edge *ed = &g.edges[nd->first];
        for (uint32_t a = 1; a < nd->n; a++) /* a few edges a node: insertion */
            for (uint32_t b = a; b > 0 && ed[b - 1].move > ed[b].move; b--) {
                Edge t = ed[b];
                ed[b] = ed[b - 1];
                ed[b - 1] = t;
            }
        if (g.nodes[k + i].built)
            ed[nd->n++] = (Edge){.next = (uint32_t)(k + i), .leaf = 0, .move = 0};
        nd->built = true;
    }
    if (ok) {
        MinimaxStats st = {0};
        ok = minimax_propagate(&g, 2 * k, &st);
        if (!ok)
            error_set(s->err, s->err_len, "out of memory");
        s->stats->check_loop = st.check_loop;
        s->stats->rounds = st.rounds;
        for (uint32_t id = 0; ok && id < k; id++) {
            FinRec fr = {ords[id], g.nodes[id].vd, g.nodes[id].loop && g.nodes[id].checked};
            ok = record_sort_add(fin, &fr, s->err, s->err_len);
        }
    }
    free(ords);
    free(g.nodes);
    free(g.edges);
    return ok;
}

bool minimax_sweep_settle(const SweepEnv *env, RecordFile *edges, RecordFile *settled, RecordFile *open,
                          RecordSort *fin, MinimaxStats *stats, uint64_t *sweeps, char *err, size_t err_len) {
    Settle z = {.env = env, .stats = stats, .err = err, .err_len = err_len};
    Settle *s = &z;
    /* e[c], v[c], o[c] are the current files; the edges start as the caller's, which stay */
    RecordFile e[2], v[2], o[2];
    memset(e, 0, sizeof e);
    memset(v, 0, sizeof v);
    memset(o, 0, sizeof o);
    v[0] = *settled;
    o[0] = *open;
    *settled = (RecordFile){0};
    *open = (RecordFile){0};
    RecordFile *ce = edges, *cv = &v[0], *co = &o[0];
    int c = 0;
    bool ok = record_file_rewind(cv, err, err_len) && record_file_rewind(co, err, err_len);
    *sweeps = 0;
    while (ok && cv->n > 0) {
        int nx = 1 - c;
        ok = record_file_create(&e[nx], sizeof(EdgeRec), env->tmpdir, env->near, err, err_len) &&
             record_file_create(&v[nx], sizeof(ValRec), env->tmpdir, env->near, err, err_len) &&
             record_file_create(&o[nx], sizeof(OpenRec), env->tmpdir, env->near, err, err_len) &&
             sweep(s, ce, cv, co, &e[nx], &v[nx], &o[nx], fin, (int)*sweeps + 1);
        if (!ok)
            break;
        ++*sweeps;
        if (ce != edges)
            record_file_close(ce);
        record_file_close(cv);
        record_file_close(co);
        c = nx;
        ce = &e[c];
        cv = &v[c];
        co = &o[c];
        ok = record_file_rewind(ce, err, err_len) && record_file_rewind(cv, err, err_len) &&
             record_file_rewind(co, err, err_len);
    }
    ok = ok && core(s, co, ce, fin);
    for (int i = 0; i < 2; i++) {
        record_file_close(&e[i]);
        record_file_close(&v[i]);
        record_file_close(&o[i]);
    }
    return ok;
}
