/* fuzz_nnue.c - libFuzzer target for the NNUE loader (and, through it, the inference).
 *
 * The first byte picks a mode:
 *  - even: the remaining bytes are a whole file. No supported net fits in a fuzz input,
 *    so the loader must refuse it with a message, whatever the header says.
 *  - odd: the bytes patch a valid random halfKP_256x2-32-32 file (tests/unit/nnue_gen.h):
 *    byte 1 shortens or lengthens it by a few bytes, then each 4-byte record
 *    (region, offset, offset, value) xors one byte in the header, the transformer biases
 *    or the network layers. A file the loader accepts is evaluated on a few positions:
 *    the AVX2 and portable paths must agree and stay within +-NNUE_VALUE_MAX_EVAL, and
 *    UBSan watches the arithmetic with any weights. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "../tests/unit/nnue_gen.h"
#include "eval/nnue.h"

static GenNet tmpl;
static uint8_t *work_block; /* what was allocated */
static uint8_t *work;       /* the template with 16 spare bytes, its transformer weights 32-byte aligned */

static const char *const SFENS[] = {
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
    "4k4/9/9/9/9/9/9/9/4K4 b 18P 1",
};

static void check_refused(NnueNet *net, const char *err) {
    FUZZ_CHECK(net == NULL);
    FUZZ_CHECK(err[0] != '\0');
    FUZZ_CHECK(memchr(err, '\0', 512) != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!work) {
        shogi_init();
        tmpl = gen_net(256, 32, 77, NULL);
        /* Loads borrow the 64 MB of transformer weights in place (nnue_load_memory_borrowed)
         * instead of copying them into fresh pages on every run, which made this target
         * run at ~20-60 executions a second; the patches never touch those weights. */
        work_block = calloc(tmpl.len + 16 + 32, 1);
        FUZZ_CHECK(work_block);
        work = work_block + (32 - ((uintptr_t)(work_block + tmpl.ft_weight_off) & 31)) % 32;
        memcpy(work, tmpl.buf, tmpl.len);
    }
    if (size == 0)
        return 0;
    char err[512];
    memset(err, 0, sizeof err);
    if ((data[0] & 1) == 0) {
        check_refused(nnue_load_memory(data + 1, size - 1, err, sizeof err), err);
        return 0;
    }
    size_t len = tmpl.len;
    if (size > 1)
        len = (size_t)((long)tmpl.len + (int8_t)data[1] % 9); /* -8..+8 bytes */
    size_t arch_end = tmpl.ft_bias_off;
    enum { MAX_PATCHES = 64 };
    size_t offs[MAX_PATCHES];
    uint8_t vals[MAX_PATCHES];
    int np = 0;
    for (size_t i = 2; i + 4 <= size && np < MAX_PATCHES; i += 4) {
        size_t r = ((size_t)data[i + 1] << 8) | data[i + 2], off;
        switch (data[i] % 3) {
        case 0: off = r % (arch_end + 64); break;                          /* header, hashes, first biases */
        case 1: off = tmpl.ft_bias_off + r % (2 * 256); break;             /* transformer biases */
        default: off = tmpl.b1_off - 4 + r % (tmpl.len - tmpl.b1_off + 4); /* network hash and layers */
        }
        offs[np] = off;
        vals[np] = data[i + 3];
        work[off] ^= vals[np];
        np++;
    }
    NnueNet *net = nnue_load_memory_borrowed(work, len, err, sizeof err);
    if (!net) {
        for (int i = np - 1; i >= 0; i--)
            work[offs[i]] ^= vals[i];
        check_refused(net, err);
        return 0;
    }
    FUZZ_CHECK(len == tmpl.len);
    for (size_t i = 0; i < sizeof SFENS / sizeof SFENS[0]; i++) {
        Position pos;
        StateInfo st;
        FUZZ_CHECK(position_from_sfen(&pos, &st, SFENS[i], NULL, 0));
        nnue_set_simd(false);
        Value a = nnue_evaluate_full(net, &pos, 16);
        nnue_set_simd(true);
        Value b = nnue_evaluate_full(net, &pos, 16);
        FUZZ_CHECK(a == b);
        FUZZ_CHECK(a >= -NNUE_VALUE_MAX_EVAL && a <= NNUE_VALUE_MAX_EVAL);
    }
    nnue_free(net);
    for (int i = np - 1; i >= 0; i--) /* after the net: it may point into work */
        work[offs[i]] ^= vals[i];
    return 0;
}
