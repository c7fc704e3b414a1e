/* node_jitter.c - the per-game node budgets of `match --nodes-jitter` and `book grow
 * --nodes-jitter` (match/node_jitter.h). */
#include "match/node_jitter.h"

#include <stdint.h>

#include "util/random.h"

int64_t match_jittered_nodes(int64_t nodes, int percent, uint64_t seed, uint64_t game, int side) {
    if (nodes < 1)
        nodes = 1;
    if (percent <= 0)
        return nodes;
    if (percent > 100)
        percent = 100;
    /* nodes * percent overflows only past 2^63 / 100 nodes: divide first there */
    int64_t d = nodes > INT64_MAX / 100 ? nodes / 100 * percent : nodes * percent / 100;
    if (d > INT64_MAX - nodes)
        d = INT64_MAX - nodes;
    uint64_t s = seed;
    s = random_splitmix64(&s) ^ game;
    s = random_splitmix64(&s) ^ (uint64_t)side;
    uint64_t h = random_splitmix64(&s);
    int64_t v = nodes - d + (int64_t)(h % ((uint64_t)d * 2 + 1));
    return v < 1 ? 1 : v;
}
