/* elo.c - see elo.h. */
#include "match/elo.h"

#include <math.h>
#include <stdio.h>

double elo_from_score(double p) {
    if (isnan(p))
        return NAN;
    if (p <= 0.0)
        return -INFINITY;
    if (p >= 1.0)
        return INFINITY;
    return -400.0 * log10(1.0 / p - 1.0) + 0.0; /* + 0.0 turns -0.0 (p = 1/2) into 0.0 */
}

EloEstimate elo_estimate(int wins, int draws, int losses) {
    EloEstimate e = {NAN, NAN, NAN, NAN, NAN, NAN};
    int n = wins + draws + losses;
    if (n <= 0)
        return e;
    double p = (wins + 0.5 * draws) / n;
    double var = (wins * (1.0 - p) * (1.0 - p) + draws * (0.5 - p) * (0.5 - p) + losses * p * p) / n;
    double se = sqrt(var / n);
    e.score = p;
    e.se = se;
    e.elo = elo_from_score(p);
    double lo = p - 1.96 * se, hi = p + 1.96 * se;
    e.elo_lo = elo_from_score(lo < 0.0 ? 0.0 : lo);
    e.elo_hi = elo_from_score(hi > 1.0 ? 1.0 : hi);
    e.los = wins + losses > 0 ? 0.5 * (1.0 + erf((wins - losses) / sqrt(2.0 * (wins + losses)))) : 0.5;
    return e;
}

char *elo_format(double elo, char *buf, size_t len) {
    if (isnan(elo))
        snprintf(buf, len, "n/a");
    else if (isinf(elo))
        snprintf(buf, len, "%sinf", elo > 0 ? "+" : "-");
    else
        snprintf(buf, len, "%+.1f", elo);
    return buf;
}
