/* bench.h - the `bench` command: fixed positions searched to a fixed depth or node
 * count, with total nodes, NPS and hashfull, and a node-count signature last. */
#ifndef HAYANAGI_USI_BENCH_H
#define HAYANAGI_USI_BENCH_H

#include <stddef.h>

#include "search/search.h"

/* Runs the benchmark described by args ("" | "depth N" | "nodes N" | "current" [...]),
 * writing each output line through write(ctx, line). current is the position used by
 * "current". Clears the searcher first so that, at Threads 1, the node count is
 * deterministic. Returns false with a reason for bad arguments. */
bool usi_bench(Search *s, const SearchOptions *opt, const char *args, const Game *current,
               void (*write)(void *ctx, const char *line), void *ctx, char *err, size_t err_len);

/* The default search depth of `bench`. */
enum { BENCH_DEFAULT_DEPTH = 10 };

#endif
