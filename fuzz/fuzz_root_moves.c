/* fuzz_root_moves.c - libFuzzer target for the value of `book grow --root-moves`
 * (grow_root_moves_parse, bookgen/grow.h).
 *
 * The bytes, NUL-terminated, are parsed as the list. Accepted: 1 to 30 moves (the start
 * position has 30 legal moves), each legal there and given once, and the list printed
 * back (commas between the moves' USI text) parses to the same moves. Refused: a reason. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bookgen/grow.h"
#include "fuzz_check.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static bool ready;
    if (!ready) {
        shogi_init();
        ready = true;
    }
    if (size > 1024)
        return 0;
    char text[1025], err[256] = "";
    memcpy(text, data, size);
    text[size] = '\0';
    Move16 m[MAX_MOVES], again[MAX_MOVES];
    int n = grow_root_moves_parse(text, m, err, sizeof err);
    if (n < 0) {
        FUZZ_CHECK(n == -1 && err[0] != '\0');
        return 0;
    }
    FUZZ_CHECK(n >= 1 && n <= 30);
    Position pos;
    StateInfo st;
    position_set_startpos(&pos, &st);
    char back[30 * (USI_MOVE_MAX + 1) + 1];
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        FUZZ_CHECK(position_legal_move_from16(&pos, m[i]) != MOVE_NONE);
        for (int j = 0; j < i; j++)
            FUZZ_CHECK(m[j] != m[i]);
        char usi[USI_MOVE_MAX];
        used += (size_t)snprintf(back + used, sizeof back - used, "%s%s", i ? "," : "",
                                 move_to_usi(position_legal_move_from16(&pos, m[i]), usi));
    }
    FUZZ_CHECK(grow_root_moves_parse(back, again, err, sizeof err) == n);
    FUZZ_CHECK(memcmp(m, again, (size_t)n * sizeof *m) == 0);
    return 0;
}
