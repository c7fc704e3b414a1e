/* node_jitter.h - a node budget that differs from game to game (`match --nodes-jitter`,
 * `book grow --nodes-jitter`). At fixed nodes two deterministic engines play one game over
 * and over; a budget drawn per game and side by a hash, so that a seed replays it, lets the
 * games part. */
#ifndef HAYANAGI_MATCH_NODE_JITTER_H
#define HAYANAGI_MATCH_NODE_JITTER_H

#include <stdint.h>

/* The node budget of one side for one game: with d = floor(nodes * percent / 100), a value
 * in [nodes - d, nodes + d] (at least 1) chosen by h = splitmix64 chained over seed, game
 * and side:
 *     nodes - d + h mod (2 d + 1).
 * A pure function of its arguments: the same seed replays the same budgets. nodes >= 1,
 * percent in 0..100 (0: nodes itself). */
int64_t match_jittered_nodes(int64_t nodes, int percent, uint64_t seed, uint64_t game, int side);

#endif
