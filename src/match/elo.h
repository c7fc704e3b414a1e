/* elo.h - the Elo estimate of a match result, its 95% interval and the likelihood of
 * superiority. Pure functions. */
#ifndef HAYANAGI_MATCH_ELO_H
#define HAYANAGI_MATCH_ELO_H

#include <stddef.h>

/* From the first engine's W/D/L: score p = (W + D/2) / N; the per-game standard
 * deviation s of the scores {1, 1/2, 0} around p, and the standard error se = s / sqrt(N);
 * Elo = -400 log10(1/p - 1), the 95% interval is the same function at p -+ 1.96 se
 * (clamped to [0, 1]); LOS = (1 + erf((W - L) / sqrt(2 (W + L)))) / 2. At p = 0 or 1
 * (and at interval ends reaching 0 or 1) the Elo is -INFINITY or +INFINITY. With no games
 * everything is NaN. */
typedef struct {
    double score, se, elo, elo_lo, elo_hi, los;
} EloEstimate;

double elo_from_score(double p);
EloEstimate elo_estimate(int wins, int draws, int losses);
/* "+34.9", "-120.0", "+inf", "-inf", "n/a" into buf (at least 16 bytes). Returns buf. */
char *elo_format(double elo, char *buf, size_t len);

#endif
