/* fuzz_csa_summary.c - libFuzzer target for what a CSA server says (csa/message.h): the
 * bytes are lines (cut at NUL bytes), fed to the Game_Summary parser until it finishes or
 * refuses, the rest read as game lines. Checks: a finished summary has both names, a
 * colour, a position that parses and moves legal in sequence within the limit, and a
 * clock whose budgets and `go` times are never negative; a refusal says why; a game line
 * read as a move has the move's shape and a time in range. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csa/clock.h"
#include "csa/message.h"
#include "fuzz_check.h"
#include "shogi/game.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static bool init;
    if (!init) {
        shogi_init();
        init = true;
    }
    CsaSummaryParser *p = malloc(sizeof *p);
    CsaSummary *s = malloc(sizeof *s);
    FUZZ_CHECK(p && s);
    csa_summary_begin(p, s);
    char line[CSA_LINE_MAX * 2 + 1];
    size_t i = 0;
    CsaFeed state = CSA_FEED_MORE;
    while (i < size) {
        size_t n = 0;
        while (i < size && data[i] != '\n' && data[i] != 0) {
            if (n < sizeof line - 1)
                line[n++] = (char)data[i];
            i++;
        }
        i++;
        line[n] = 0;
        if (state == CSA_FEED_MORE) {
            char err[256] = "";
            state = csa_summary_feed(p, line, err, sizeof err);
            if (state == CSA_FEED_ERROR)
                FUZZ_CHECK(err[0] != 0);
            if (state == CSA_FEED_DONE) {
                FUZZ_CHECK(s->name[BLACK][0] && s->name[WHITE][0]);
                FUZZ_CHECK(s->my_color == BLACK || s->my_color == WHITE);
                FUZZ_CHECK(s->n_moves >= 0 && s->n_moves <= CSA_MOVES_MAX);
                Game g;
                game_init(&g);
                FUZZ_CHECK(game_set_sfen(&g, s->root_sfen, NULL, 0));
                for (int k = 0; k < s->n_moves; k++) {
                    FUZZ_CHECK(position_is_legal(&g.pos, s->moves[k]));
                    FUZZ_CHECK(game_push(&g, s->moves[k]));
                }
                game_free(&g);
                CsaClock c;
                csa_clock_init(&c, s);
                for (int side = 0; side < COLOR_NB; side++) {
                    FUZZ_CHECK(c.remaining_ms[side] >= 0);
                    FUZZ_CHECK(csa_clock_budget_ms(&c, (Color)side, 300) >= 0);
                    char go[160];
                    csa_clock_go(&c, (Color)side, 300, go, sizeof go);
                    FUZZ_CHECK(strchr(go, '-') == NULL);
                }
            }
            continue;
        }
        CsaMsg m;
        char why[128] = "";
        if (csa_message_parse(line, &m, why, sizeof why)) {
            FUZZ_CHECK(m.units >= -1 && m.units <= CSA_TIME_UNITS_MAX);
            if (m.type == CSA_MSG_MOVE)
                FUZZ_CHECK(strlen(m.move) == 7 && (m.move[0] == '+' || m.move[0] == '-'));
            if (m.type == CSA_MSG_END)
                FUZZ_CHECK(m.word < CSA_END_NB);
        } else {
            FUZZ_CHECK(why[0] != 0);
        }
    }
    free(p);
    free(s);
    return 0;
}
