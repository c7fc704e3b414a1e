/* test_usi_eval.c - the USI `eval` command prints the active evaluation: with an NNUE net loaded through EvalFile,
 * "nnue <N>" where N is the net's static value from the side to move's view at FV_SCALE (YaneuraOu's `e`, "eval = N");
 * without one, the embedded evaluation. The net is a random one in YaneuraOu's exact layout (nnue_gen.h); N is checked
 * against the net loaded on its own, which test_nnue checks against an independent scalar reference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "eval/nnue.h"
#include "nnue_gen.h"
#include "shogi/position.h"
#include "usi/usi.h"

static const char *const SFENS[] = {
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
};

/* Runs usi_main on script; returns its whole output (caller frees). */
static char *run_usi(const char *script) {
    FILE *in = fmemopen((void *)script, strlen(script), "r");
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(in);
    assert_non_null(out);
    assert_int_equal(usi_main(in, out), 0);
    fclose(in);
    fclose(out);
    return buf;
}

/* The value printed after "info string eval nnue " on the n-th eval line (from 0), or
 * INT32_MIN when that line has no nnue value. */
static int nnue_value(const char *output, int n) {
    const char *p = output;
    for (int i = 0; i <= n; i++) {
        p = strstr(p, "info string eval ");
        if (!p)
            return INT32_MIN;
        p += strlen("info string eval ");
    }
    int v;
    return sscanf(p, "nnue %d", &v) == 1 ? v : INT32_MIN;
}

static void test_eval_prints_the_active_evaluation(void **state) {
    (void)state;
    char dir[] = "/tmp/hayanagi_usi_eval_XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/nn.bin", dir);
    GenNet g = gen_net(256, 32, 77, NULL);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(g.buf, 1, g.len, f), g.len);
    assert_int_equal(fclose(f), 0);
    char err[256];
    NnueNet *net = nnue_load_file(path, err, sizeof err);
    assert_non_null(net);

    char script[2048];
    snprintf(script, sizeof script,
             "setoption name USI_OwnBook value false\n"
             "setoption name EvalFile value %s\n"
             "isready\nposition sfen %s\neval\nposition sfen %s\neval\n"
             "setoption name FV_SCALE value 24\nisready\neval\n"
             "setoption name EvalFile value <empty>\nisready\neval\nquit\n",
             path, SFENS[0], SFENS[1]);
    char *out = run_usi(script);
    int want[3];
    for (int i = 0; i < 3; i++) {
        Position pos;
        StateInfo st;
        assert_true(position_from_sfen(&pos, &st, SFENS[i ? 1 : 0], err, sizeof err));
        want[i] = nnue_evaluate_full(net, &pos, i == 2 ? 24 : 16);
    }
    assert_int_not_equal(want[1], want[2]); /* FV_SCALE 16 and 24 differ here */
    for (int i = 0; i < 3; i++)
        if (nnue_value(out, i) != want[i])
            fail_msg("eval %d: want nnue %d in:\n%s", i, want[i], out);
    /* Without a net the embedded evaluation speaks again. */
    assert_int_equal(nnue_value(out, 3), INT32_MIN);
    assert_non_null(strstr(out, "NNUE in use"));

    free(out);
    nnue_free(net);
    free(g.buf);
    unlink(path);
    rmdir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eval_prints_the_active_evaluation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
