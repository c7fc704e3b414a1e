/* fuzz_think_journal.c - libFuzzer target for `book think`'s journal reader
 * (bookgen/think_journal.h). The input is the journal text; the header it must carry to
 * get past the first block names "positions=0 moves=0 hash=0" and the options "x" (the
 * corpus holds such a journal). Checks beyond "no crash": a refusal says why; whatever is
 * read is whole (each entry counted is a position of done, every move legal in it); the
 * point where appending resumes lies in the text, and reading only the text before it
 * finds the same entries with no cut tail (a prefix of whole blocks is itself whole). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bookgen/think_journal.h"
#include "fuzz_check.h"
#include "shogi/position.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_legal(const Book *b) {
    BookMoveList *list = malloc(sizeof *list);
    FUZZ_CHECK(list);
    for (uint32_t id = 0; id < book_position_count(b); id++) {
        BookKey k;
        Position pos;
        StateInfo st;
        book_position_key(b, id, &k);
        FUZZ_CHECK(book_key_to_position(&k, &pos, &st, 1));
        int n = book_position_moves(b, id, list);
        for (int i = 0; i < n; i++)
            FUZZ_CHECK(position_legal_move_from16(&pos, list->moves[i].move) != MOVE_NONE);
    }
    free(list);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    shogi_init();
    ThinkJournalId id = {.input_name = "fuzz.db", .options = "x"};
    snprintf(id.input, sizeof id.input, "positions=0 moves=0 hash=0");
    Book *done = book_create();
    FUZZ_CHECK(done);
    ThinkJournalScan scan;
    char err[1024] = "";
    if (!think_journal_parse((const char *)data, size, "fuzz", &id, done, NULL, NULL, &scan, err, sizeof err)) {
        FUZZ_CHECK(err[0]);
        book_free(done);
        return 0;
    }
    FUZZ_CHECK(scan.entries == book_position_count(done));
    FUZZ_CHECK(scan.good_end <= size);
    FUZZ_CHECK(scan.cut_tail == (scan.good_end < size) || (!scan.has_header && scan.good_end == 0));
    check_legal(done);
    Book *again = book_create();
    FUZZ_CHECK(again);
    ThinkJournalScan s2;
    FUZZ_CHECK(
        think_journal_parse((const char *)data, scan.good_end, "fuzz", &id, again, NULL, NULL, &s2, err, sizeof err));
    FUZZ_CHECK(s2.entries == scan.entries && !(s2.cut_tail && s2.has_header));
    FUZZ_CHECK(book_move_count(again) == book_move_count(done));
    book_free(again);
    book_free(done);
    return 0;
}
