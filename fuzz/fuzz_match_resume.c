/* fuzz_match_resume.c - libFuzzer target for reading a match record back (`match
 * --resume`, match/resume.h). The first byte chooses the match's number of games (1-8),
 * the rest is the record. Checks: a refused record has a message; an accepted one keeps
 * every game it read as a non-empty line-terminated copy, counts those with an end and an
 * outcome (a counted game always has its text), and reads the same when every LF is made
 * CRLF (a copy of the record made on Windows). */
#include <stdint.h>
#include <stdlib.h>
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
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    MatchResume r;
    char err[512];
    bool ok = match_resume_read_memory("fuzz", text, len, games, &r, err, sizeof err);
    if (!ok)
        FUZZ_CHECK(err[0]);
    else {
        int n = 0;
        for (int i = 0; i < games; i++) {
            if (r.done[i].end != END_NONE) {
                FUZZ_CHECK(r.text[i] && r.done[i].outcome != OUTCOME_NONE);
                n++;
            }
            if (r.text[i]) {
                size_t tl = strlen(r.text[i]);
                FUZZ_CHECK(tl > 0 && r.text[i][tl - 1] == '\n');
            }
        }
        FUZZ_CHECK(n == r.n_done);
    }
    /* The CRLF copy of a record without CRs of its own reads to the same games. */
    if (!memchr(text, '\r', len)) {
        char *crlf = malloc(2 * len + 1);
        size_t m = 0;
        for (size_t i = 0; crlf && i < len; i++) {
            if (text[i] == '\n')
                crlf[m++] = '\r';
            crlf[m++] = text[i];
        }
        MatchResume c;
        char cerr[512];
        bool cok = crlf && match_resume_read_memory("fuzz", crlf, m, games, &c, cerr, sizeof cerr);
        if (crlf && ok) {
            FUZZ_CHECK(cok && c.n_done == r.n_done);
            for (int i = 0; cok && i < games; i++) {
                FUZZ_CHECK(c.done[i].end == r.done[i].end && c.done[i].outcome == r.done[i].outcome);
                FUZZ_CHECK(!c.text[i] == !r.text[i]);
            }
        }
        if (crlf)
            match_resume_free(&c);
        free(crlf);
    }
    match_resume_free(&r);
    return 0;
}
