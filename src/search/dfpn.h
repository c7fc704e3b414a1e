/* dfpn.h - a df-pn (depth-first proof-number search) tsume solver, for `go mate` and
 * for mate checks by the search and the book tools.
 *
 * Nagai's df-pn in the phi/delta form over a private hash table. The attacker's moves
 * are checks only; the defender's are all legal evasions. A position repeated on the
 * current path counts as a failure for the attacker (perpetual check does not win).
 * The solution is read back from the table and checked move by move before it is
 * returned, so a returned mate is always a real one (not always the shortest).
 */
#ifndef HAYANAGI_SEARCH_DFPN_H
#define HAYANAGI_SEARCH_DFPN_H

#include <stdatomic.h>
#include <stddef.h>

#include "shogi/position.h"

typedef enum { DFPN_MATE, DFPN_NO_MATE, DFPN_UNKNOWN } DfpnStatus;

typedef struct DfpnSolver DfpnSolver;

/* A solver with a table of about table_mb megabytes; NULL when out of memory. */
DfpnSolver *dfpn_create(size_t table_mb);
void dfpn_destroy(DfpnSolver *s);

typedef struct {
    uint64_t max_nodes;      /* 0 = no limit */
    int64_t max_time_ms;     /* 0 = no limit */
    const atomic_bool *stop; /* polled; may be NULL */
} DfpnLimits;

/* Tries to prove that the side to move mates. On DFPN_MATE writes the mating line
 * (attacker and defender moves alternately, ending in mate) to pv (room for pv_max
 * moves) and its length to *pv_len. pos is restored before returning. *nodes (may be
 * NULL) receives the nodes searched. */
DfpnStatus dfpn_solve(DfpnSolver *s, Position *pos, const DfpnLimits *limits, Move *pv, int pv_max, int *pv_len,
                      uint64_t *nodes);

#endif
