/* fuzz_usi_info.c - libFuzzer target for the USI info/bestmove parser (match/usi_info.h).
 *
 * The bytes are one line (cut at the first NUL), parsed as an info line and as a
 * bestmove line on a few fixed positions. Checks: the position is unchanged afterwards,
 * every PV move kept is legal in sequence, the counts are within their documented
 * ranges, and a bestmove move is legal. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "match/usi_info.h"
#include "shogi/notation.h"

static const char *const SFENS[] = {
    STARTPOS_SFEN,
    "ln2+r1r2/5s+Pkl/3+B1p1p1/p4B2p/2P6/P6PP/1PNP1P3/2G3SK1/L4G1NL w 2GSN3Ps3p 76",
    "4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p 1",
};
enum { NPOS = sizeof SFENS / sizeof SFENS[0] };

static Position positions[NPOS];
static StateInfo states[NPOS];
static char sfens[NPOS][SFEN_MAX];

static void setup(void) {
    static bool done;
    if (done)
        return;
    shogi_init();
    for (int i = 0; i < NPOS; i++) {
        FUZZ_CHECK(position_from_sfen(&positions[i], &states[i], SFENS[i], NULL, 0));
        position_to_sfen(&positions[i], sfens[i], true);
    }
    done = true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    setup();
    char *line = malloc(size + 1);
    if (!line)
        return 0;
    memcpy(line, data, size);
    line[size] = '\0';
    for (int i = 0; i < NPOS; i++) {
        Position *pos = &positions[i];
        UsiInfo in;
        char why[128];
        if (usi_info_parse(line, pos, &in, why, sizeof why)) {
            FUZZ_CHECK(in.multipv >= 1 && in.multipv <= USI_INFO_MULTIPV_MAX);
            FUZZ_CHECK(in.pv_len >= 0 && in.pv_len <= USI_INFO_PV_MAX);
            FUZZ_CHECK(in.score >= -1000000 && in.score <= 1000000);
            StateInfo st[USI_INFO_PV_MAX];
            for (int k = 0; k < in.pv_len; k++) {
                FUZZ_CHECK(position_legal_move_from16(pos, move_to_move16(in.pv[k])) == in.pv[k]);
                position_do_move(pos, in.pv[k], &st[k]);
            }
            for (int k = in.pv_len - 1; k >= 0; k--)
                position_undo_move(pos, in.pv[k]);
        } else
            FUZZ_CHECK(why[0] != '\0');
        Move b, p;
        if (usi_bestmove_parse(line, pos, &b, &p) == USI_BESTMOVE_MOVE)
            FUZZ_CHECK(position_legal_move_from16(pos, move_to_move16(b)) == b);
        char now[SFEN_MAX];
        position_to_sfen(pos, now, true);
        FUZZ_CHECK(strcmp(now, sfens[i]) == 0);
    }
    free(line);
    return 0;
}
