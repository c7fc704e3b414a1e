/* sort.c - see sort.h. Bottom-up merge sort with insertion-sorted runs. */
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

enum { RUN = 16 };

bool sort_ids(uint32_t *ids, size_t n, SortIdCompare cmp, const void *ctx) {
    if (n < 2)
        return true;
    uint32_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return false;
    for (size_t lo = 0; lo < n; lo += RUN) {
        size_t hi = lo + RUN < n ? lo + RUN : n;
        for (size_t i = lo + 1; i < hi; i++) {
            uint32_t v = ids[i];
            size_t j = i;
            for (; j > lo && cmp(ctx, ids[j - 1], v) > 0; j--)
                ids[j] = ids[j - 1];
            ids[j] = v;
        }
    }
    uint32_t *src = ids, *dst = tmp;
    for (size_t width = RUN; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] = cmp(ctx, src[j], src[i]) < 0 ? src[j++] : src[i++];
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != ids)
        memcpy(ids, src, n * sizeof *ids);
    free(tmp);
    return true;
}
