/* test_dfpn.c - the df-pn tsume solver against an exhaustive search on hand-checked
 * problems: every answer must be a real mate (each attacker move a check, the last
 * position without a legal reply), no shorter than the true shortest mate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mate_brute.h"
#include "search/dfpn.h"
#include "shogi/notation.h"

/* Problems found by exhaustive search (shortest mate in plies). The first is also a
 * classic head-gold mate; several give the defender a full hand to interpose with. */
static const struct {
    const char *sfen;
    int shortest;
} PROBLEMS[] = {
    {"4k4/9/4P4/9/9/9/9/9/9 b G 1", 1},
    {"3sks3/9/4S4/9/1+B7/9/9/9/9 b S2rb4g4n4l18p 1", 3},
    {"8k/9/6L2/9/8g/9/9/9/9 b GR 1", 3},
    {"7k1/9/6B2/9/4p4/9/9/9/9 b BR 1", 5},
    {"8k/9/6R2/9/9/9/9/9/9 b R 1", 5},
    {"9/7k1/9/6LG1/9/9/9/9/9 b SN 1", 5},
    {"9/7k1/9/6LG1/9/9/9/9/9 b SN2r2b3g3s3n3l18p 1", 5},
    {"5l3/8k/5g3/7P1/9/9/9/9/9 b GR 1", 5},
};

static void load(Position *pos, StateInfo *st, const char *sfen) {
    char err[128];
    if (!position_from_sfen_ex(pos, st, sfen, SFEN_ALLOW_MISSING_KING, err, sizeof err))
        fail_msg("%s: %s", sfen, err);
}

/* Plays the line and checks it is a mate: attacker moves check, the end has no reply. */
static void check_line(Position *pos, const Move *pv, int len) {
    StateInfo st[MAX_PLY];
    assert_true(len % 2 == 1);
    for (int i = 0; i < len; i++) {
        Move m = position_legal_move_from16(pos, (Move16)pv[i]);
        assert_int_not_equal(m, MOVE_NONE);
        if (i % 2 == 0)
            assert_true(position_gives_check(pos, m));
        position_do_move(pos, m, &st[i]);
    }
    assert_false(position_has_legal_move(pos));
    for (int i = len - 1; i >= 0; i--)
        position_undo_move(pos, pv[i]);
}

static void test_problems(void **state) {
    (void)state;
    DfpnSolver *s = dfpn_create(16);
    assert_non_null(s);
    for (size_t i = 0; i < sizeof PROBLEMS / sizeof PROBLEMS[0]; i++) {
        Position pos;
        StateInfo st;
        load(&pos, &st, PROBLEMS[i].sfen);
        assert_int_equal(brute_shortest_mate(&pos, 7), PROBLEMS[i].shortest);
        Move pv[MAX_PLY];
        int len = 0;
        DfpnLimits lim = {2000000, 0, NULL};
        assert_int_equal(dfpn_solve(s, &pos, &lim, pv, MAX_PLY, &len, NULL), DFPN_MATE);
        assert_true(len >= PROBLEMS[i].shortest);
        check_line(&pos, pv, len);
        assert_true(position_is_consistent(&pos));
    }
    dfpn_destroy(s);
}

static void test_no_mate(void **state) {
    (void)state;
    DfpnSolver *s = dfpn_create(16);
    static const char *const NONE[] = {
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", /* no check at all */
        "7nl/7k1/9/7P1/9/9/9/9/9 b GS2r2b3g3s3n3l17p 1",
        "4k4/9/9/9/9/9/9/9/9 b P 1", /* the pawn drop checks, the king takes it */
    };
    for (size_t i = 0; i < sizeof NONE / sizeof NONE[0]; i++) {
        Position pos;
        StateInfo st;
        load(&pos, &st, NONE[i]);
        assert_int_equal(brute_shortest_mate(&pos, 5), -1);
        Move pv[MAX_PLY];
        int len = 0;
        DfpnLimits lim = {2000000, 0, NULL};
        assert_int_equal(dfpn_solve(s, &pos, &lim, pv, MAX_PLY, &len, NULL), DFPN_NO_MATE);
        assert_int_equal(len, 0);
    }
    dfpn_destroy(s);
}

/* A node budget too small to finish gives "unknown", never a false answer; a raised
 * stop flag ends the solve at once. */
static void test_limits(void **state) {
    (void)state;
    DfpnSolver *s = dfpn_create(16);
    Position pos;
    StateInfo st;
    load(&pos, &st, "9/7k1/9/6LG1/9/9/9/9/9 b SN2r2b3g3s3n3l18p 1");
    Move pv[MAX_PLY];
    int len = 0;
    DfpnLimits lim = {10, 0, NULL};
    assert_int_equal(dfpn_solve(s, &pos, &lim, pv, MAX_PLY, &len, NULL), DFPN_UNKNOWN);
    atomic_bool stop = true;
    DfpnLimits stopped = {0, 0, &stop};
    uint64_t nodes = 0;
    assert_int_equal(dfpn_solve(s, &pos, &stopped, pv, MAX_PLY, &len, &nodes), DFPN_UNKNOWN);
    assert_true(nodes <= 1024);
    dfpn_destroy(s);
}

/* Random tsume-like positions: whenever the exhaustive search finds a mate within 5
 * plies, df-pn must find one too, and its "no mate" must never contradict it. */
static void test_random_against_brute_force(void **state) {
    (void)state;
    DfpnSolver *s = dfpn_create(16);
    uint64_t rng = 4242;
    int mates = 0, tried = 0;
    static const char PIECES[] = "PLNSGBRplnsg";
    static const char HAND[] = "NSGBR";
    for (int t = 0; t < 3000 && tried < 150; t++) {
        char board[9][9];
        memset(board, 0, sizeof board);
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        board[rng % 2][(rng >> 8) % 3] = 'k';
        for (int k = 0; k < 3; k++) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            int f = (int)(rng % 5), r = (int)((rng >> 8) % 5);
            if (!board[r][f])
                board[r][f] = PIECES[(rng >> 16) % 12];
        }
        char sfen[128], *p = sfen;
        for (int r = 0; r < 9; r++) {
            int e = 0;
            for (int f = 8; f >= 0; f--) {
                if (!board[r][f]) {
                    e++;
                    continue;
                }
                if (e)
                    *p++ = (char)('0' + e), e = 0;
                *p++ = board[r][f];
            }
            if (e)
                *p++ = (char)('0' + e);
            if (r < 8)
                *p++ = '/';
        }
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        sprintf(p, " b %c%c 1", HAND[rng % 5], HAND[(rng >> 8) % 5]);
        Position pos;
        StateInfo st;
        char err[128];
        if (!position_from_sfen_ex(&pos, &st, sfen, SFEN_ALLOW_MISSING_KING, err, sizeof err) ||
            !position_legality_report(&pos, err, sizeof err))
            continue;
        tried++;
        int shortest = brute_shortest_mate(&pos, 5);
        Move pv[MAX_PLY];
        int len = 0;
        DfpnLimits lim = {50000, 0, NULL};
        DfpnStatus r = dfpn_solve(s, &pos, &lim, pv, MAX_PLY, &len, NULL);
        if (shortest > 0) {
            mates++;
            if (r != DFPN_MATE)
                fail_msg("df-pn missed a mate in %d at %s", shortest, sfen);
        }
        if (r == DFPN_MATE)
            check_line(&pos, pv, len);
    }
    assert_true(tried >= 150);
    assert_true(mates >= 10);
    dfpn_destroy(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_problems),
        cmocka_unit_test(test_no_mate),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_random_against_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
