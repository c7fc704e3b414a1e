/* fuzz_tune_line.c - libFuzzer target for the training-data line parser that tune fit
 * and tune label share ("<result> [<score>] <sfen>").
 *
 * Whatever the bytes (taken line by line), tune_parse_line must either refuse a line
 * with a reason, call it blank, or return a result of 1, 0.5 or 0, a score below 100000
 * in magnitude and an SFEN pointer inside the line, which the SFEN parser then accepts
 * or refuses without harm. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "tune/tune.h"
#include "shogi/position.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    shogi_init();
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *line = text;
    while (line) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        size_t len = strlen(line);
        TuneLine tl;
        char err[128];
        memset(err, 0x55, sizeof err);
        TuneLineStatus st = tune_parse_line(line, &tl, err, sizeof err);
        if (st == TUNE_LINE_BAD) {
            FUZZ_CHECK(memchr(err, '\0', sizeof err) != NULL && err[0]);
        } else if (st == TUNE_LINE_OK) {
            FUZZ_CHECK(tl.result == 0.0f || tl.result == 0.5f || tl.result == 1.0f);
            FUZZ_CHECK(!tl.has_score || (tl.score > -100000 && tl.score < 100000));
            FUZZ_CHECK(tl.sfen > line && tl.sfen <= line + len);
            Position pos;
            StateInfo si;
            if (position_from_sfen(&pos, &si, tl.sfen, err, sizeof err))
                FUZZ_CHECK(position_is_consistent(&pos));
        }
        line = next;
    }
    free(text);
    return 0;
}
