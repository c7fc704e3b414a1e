/* tt.c - see tt.h. */
#define _DEFAULT_SOURCE /* madvise and MADV_HUGEPAGE (Linux) */
#include "search/tt.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The table is aligned to 2 MiB and offered to the kernel as huge pages: probes are
 * random over hundreds of megabytes, so with 4 KiB pages nearly every probe also
 * misses the TLB. */
enum { TT_ALIGN = 2 * 1024 * 1024 };

bool tt_resize(TranspositionTable *tt, size_t mb) {
    if (mb < 1)
        mb = 1;
    size_t count = mb * 1024 * 1024 / sizeof(TTCluster);
    TTCluster *t = NULL;
    size_t bytes = count * sizeof *t;
    if (posix_memalign((void **)&t, TT_ALIGN, bytes) != 0)
        return false;
#ifdef MADV_HUGEPAGE
    madvise(t, bytes, MADV_HUGEPAGE); /* advice only: a refusal changes nothing */
#endif
    free(tt->table);
    tt->table = t;
    tt->cluster_count = count;
    tt_clear(tt);
    return true;
}

void tt_free(TranspositionTable *tt) {
    free(tt->table);
    tt->table = NULL;
    tt->cluster_count = 0;
}

void tt_clear(TranspositionTable *tt) {
    memset(tt->table, 0, tt->cluster_count * sizeof *tt->table);
    tt->generation = 0;
}

void tt_new_search(TranspositionTable *tt) { tt->generation += 8; }

static TTCluster *cluster_of(const TranspositionTable *tt, Key key) {
    __extension__ typedef unsigned __int128 u128;
    return &tt->table[(size_t)(((u128)key * tt->cluster_count) >> 64)];
}

void tt_prefetch(const TranspositionTable *tt, Key key) { __builtin_prefetch(cluster_of(tt, key)); }

TTEntry *tt_probe(TranspositionTable *tt, Key key, bool *found) {
    TTCluster *c = cluster_of(tt, key);
    uint16_t key16 = (uint16_t)key;
    for (int i = 0; i < TT_CLUSTER_SIZE; i++) {
        TTEntry *e = &c->entry[i];
        if (e->key16 == key16 && e->depth8) {
            e->genbound = (uint8_t)(tt->generation | (e->genbound & 7)); /* refresh */
            *found = true;
            return e;
        }
        if (!e->depth8) {
            *found = false;
            return e;
        }
    }
    /* Replace the entry worth least: shallow and old. */
    TTEntry *replace = &c->entry[0];
    for (int i = 1; i < TT_CLUSTER_SIZE; i++) {
        TTEntry *e = &c->entry[i];
        int age_r = (uint8_t)(tt->generation - replace->genbound) & 0xf8;
        int age_e = (uint8_t)(tt->generation - e->genbound) & 0xf8;
        if (replace->depth8 - age_r / 2 > e->depth8 - age_e / 2)
            replace = e;
    }
    *found = false;
    return replace;
}

void tt_save(TranspositionTable *tt, TTEntry *e, Key key, Value v, bool pv, Bound b, int depth, Move16 m, Value ev) {
    uint16_t key16 = (uint16_t)key;
    if (m || key16 != e->key16)
        e->move16 = m;
    if (b == BOUND_EXACT || key16 != e->key16 || depth + DEPTH_OFFSET + 2 * pv > e->depth8 - 4) {
        e->key16 = key16;
        e->value = (int16_t)v;
        e->eval = (int16_t)ev;
        e->depth8 = (uint8_t)(depth + DEPTH_OFFSET);
        e->genbound = (uint8_t)(tt->generation | (pv ? 4 : 0) | b);
    }
}

int tt_hashfull(const TranspositionTable *tt) {
    int n = 0;
    size_t sample = tt->cluster_count < 1000 ? tt->cluster_count : 1000;
    for (size_t i = 0; i < sample; i++)
        for (int j = 0; j < TT_CLUSTER_SIZE; j++) {
            const TTEntry *e = &tt->table[i].entry[j];
            n += e->depth8 && (e->genbound & 0xf8) == tt->generation;
        }
    return sample ? (int)(n * 1000 / (sample * TT_CLUSTER_SIZE)) : 0;
}
