/* fuzz_think_predictions.c - libFuzzer target for the file of predictions
 * (bookgen/think_predictions.h), read for K 2 and depth 6 (the corpus holds such a file).
 * Checks beyond "no crash": a refusal says why; whatever is accepted carries the stamp on
 * every position, and writes back into text that reads as the same positions and moves,
 * in the same order. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bookgen/think_predictions.h"
#include "fuzz_check.h"
#include "shogi/position.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    shogi_init();
    Book *p = book_create();
    FUZZ_CHECK(p);
    char err[1024] = "";
    if (!think_predictions_parse("fuzz", (const char *)data, size, p, 2, 6, err, sizeof err)) {
        FUZZ_CHECK(err[0]);
        book_free(p);
        return 0;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    FUZZ_CHECK(f);
    FUZZ_CHECK(think_predictions_write(f, p, err, sizeof err));
    FUZZ_CHECK(fclose(f) == 0);
    Book *again = book_create();
    FUZZ_CHECK(again);
    FUZZ_CHECK(think_predictions_parse("again", text, len, again, 2, 6, err, sizeof err));
    FUZZ_CHECK(book_position_count(again) == book_position_count(p));
    BookMoveList *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    FUZZ_CHECK(a && b);
    for (uint32_t id = 0; id < book_position_count(p); id++) {
        BookKey k;
        uint32_t aid;
        book_position_key(p, id, &k);
        FUZZ_CHECK(book_find(again, &k, &aid));
        int n = book_position_moves(p, id, a);
        FUZZ_CHECK(book_position_moves(again, aid, b) == n);
        for (int i = 0; i < n; i++)
            FUZZ_CHECK(a->moves[i].move == b->moves[i].move);
    }
    free(a);
    free(b);
    free(text);
    book_free(again);
    book_free(p);
    return 0;
}
