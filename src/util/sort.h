/* sort.h - a stable sort of 32-bit ids with a comparator that gets a context pointer
 * (C11 qsort has none), for sorting book positions by keys kept elsewhere. */
#ifndef HAYANAGI_UTIL_SORT_H
#define HAYANAGI_UTIL_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Returns a negative value, zero or a positive value when id a sorts before, equal to or
 * after id b. */
typedef int (*SortIdCompare)(const void *ctx, uint32_t a, uint32_t b);

/* Sorts ids[0..n) stably (merge sort, O(n log n), n * 4 bytes of scratch). Returns false,
 * leaving ids untouched, when the scratch cannot be allocated. */
bool sort_ids(uint32_t *ids, size_t n, SortIdCompare cmp, const void *ctx);

#endif
