/* fuzz_usi_move.c - libFuzzer target for USI move text and Move16 validation.
 *
 * The bytes are read as move text (exact length, then as a NUL-terminated string) and,
 * separately, their first two bytes as a raw Move16, on a few fixed positions. Anything
 * accepted must be a generated legal move and must print back as the same text. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"

/* Quiet opening, the 593-move maximum (every drop), white in check, an uchifuzume trap. */
static const char *const SFENS[] = {
    STARTPOS_SFEN,
    "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1",
    "ln2+r1r2/5s+Pkl/3+B1p1p1/p4B2p/2P6/P6PP/1PNP1P3/2G3SK1/L4G1NL w 2GSN3Ps3p 76",
    "8k/9/6NG1/9/9/9/9/9/4K4 b P 1",
};
enum { NPOS = sizeof SFENS / sizeof SFENS[0] };

static Position positions[NPOS];
static StateInfo states[NPOS];
static ExtMove legal[NPOS][MAX_MOVES];
static int nlegal[NPOS];

static void setup(void) {
    static bool done;
    if (done)
        return;
    shogi_init();
    for (int i = 0; i < NPOS; i++) {
        FUZZ_CHECK(position_from_sfen(&positions[i], &states[i], SFENS[i], NULL, 0));
        nlegal[i] = generate_moves(&positions[i], GEN_LEGAL, legal[i]);
    }
    done = true;
}

static bool is_legal(int i, Move m) {
    for (int k = 0; k < nlegal[i]; k++)
        if (legal[i][k].move == m)
            return true;
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    setup();
    const char *raw = (const char *)data;
    char out[USI_MOVE_MAX];

    /* Exact-length parsing never looks past size and prints back byte for byte. */
    Move16 m16 = 0;
    bool well_formed = move16_from_usi(raw, size, &m16);
    if (well_formed) {
        FUZZ_CHECK(size == 4 || size == 5);
        move_to_usi(m16, out);
        FUZZ_CHECK(strlen(out) == size && memcmp(out, raw, size) == 0);
    }

    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    for (int i = 0; i < NPOS; i++) {
        Move m = position_parse_usi_move(&positions[i], text);
        if (m != MOVE_NONE) {
            FUZZ_CHECK(is_legal(i, m));
            FUZZ_CHECK(strcmp(move_to_usi(m, out), text) == 0);
        }
        if (size >= 2) {
            Move16 v = (Move16)(data[0] | data[1] << 8);
            Move mv = position_legal_move_from16(&positions[i], v);
            /* Accepted exactly when generated, and then as the very move generated. */
            Move gen = MOVE_NONE;
            for (int k = 0; k < nlegal[i]; k++)
                if (move_to_move16(legal[i][k].move) == v)
                    gen = legal[i][k].move;
            FUZZ_CHECK(mv == gen);
        }
    }
    free(text);
    return 0;
}
