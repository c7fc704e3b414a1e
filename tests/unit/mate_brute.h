/* mate_brute.h - an exhaustive mate search for tests: independent of df-pn and of the
 * alpha-beta search, slow, and exact within its depth. Under tsume rules the attacker
 * must check on every move; under game rules any move will do (in shogi a side left
 * without a legal move loses, in check or not). Header-only, test use only. */
#ifndef HAYANAGI_TESTS_MATE_BRUTE_H
#define HAYANAGI_TESTS_MATE_BRUTE_H

#include "shogi/movegen.h"

static inline bool brute_attacker_rule(Position *pos, int plies, bool checks_only);

/* The defender to move: mated now, or mated within plies whatever it does. */
static inline bool brute_defender_rule(Position *pos, int plies, bool checks_only) {
    ExtMove l[MAX_MOVES];
    int n = generate_moves(pos, GEN_LEGAL, l);
    if (n == 0)
        return true;
    if (plies <= 0)
        return false;
    StateInfo st;
    for (int i = 0; i < n; i++) {
        position_do_move(pos, l[i].move, &st);
        bool r = brute_attacker_rule(pos, plies - 1, checks_only);
        position_undo_move(pos, l[i].move);
        if (!r)
            return false;
    }
    return true;
}

/* The attacker to move: some move (a check, under tsume rules) mates within plies. */
static inline bool brute_attacker_rule(Position *pos, int plies, bool checks_only) {
    if (plies <= 0)
        return false;
    ExtMove l[MAX_MOVES];
    int n = generate_moves(pos, GEN_LEGAL, l);
    StateInfo st;
    for (int i = 0; i < n; i++) {
        if (checks_only && !position_gives_check(pos, l[i].move))
            continue;
        position_do_move(pos, l[i].move, &st);
        bool r = brute_defender_rule(pos, plies - 1, checks_only);
        position_undo_move(pos, l[i].move);
        if (r)
            return true;
    }
    return false;
}

static inline bool brute_attacker(Position *pos, int plies) { return brute_attacker_rule(pos, plies, true); }
static inline bool brute_defender(Position *pos, int plies) { return brute_defender_rule(pos, plies, true); }
static inline bool brute_game_defender(Position *pos, int plies) { return brute_defender_rule(pos, plies, false); }

/* The shortest tsume mate up to max plies, or -1. */
static inline int brute_shortest_mate(Position *pos, int max) {
    for (int k = 1; k <= max; k += 2)
        if (brute_attacker(pos, k))
            return k;
    return -1;
}

#endif
