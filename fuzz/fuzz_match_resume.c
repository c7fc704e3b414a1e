/* fuzz_match_resume.c - libFuzzer target for reading a match record back (`match
 * --resume`, match/resume.h). The first byte chooses the match's number of games (1-8),
 * the rest is the record. Checks: a refused record has a message; an accepted one files
 * each game under one schedule index with an end and an outcome, its text a non-empty
 * line-terminated copy, and counts them. */
#include <stdint.h>
#include <string.h>

#include "fuzz_check.h"
#include "match/resume.h"
#include "shogi/position.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    shogi_init();
    if (size < 1)
        return 0;
    int games = 1 + data[0] % 8;
    MatchResume r;
    char err[512];
    bool ok = match_resume_read_memory("fuzz", (const char *)data + 1, size - 1, games, &r, err, sizeof err);
    if (!ok)
        FUZZ_CHECK(err[0]);
    else {
        int n = 0;
        for (int i = 0; i < games; i++) {
            if (!r.text[i]) {
                FUZZ_CHECK(r.done[i].end == END_NONE);
                continue;
            }
            n++;
            size_t len = strlen(r.text[i]);
            FUZZ_CHECK(len > 0 && r.text[i][len - 1] == '\n');
            FUZZ_CHECK(r.done[i].end != END_NONE && r.done[i].outcome != OUTCOME_NONE);
        }
        FUZZ_CHECK(n == r.n_done);
    }
    match_resume_free(&r);
    return 0;
}
