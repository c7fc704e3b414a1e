/* fuzz_osl.c - libFuzzer target for the OSL WeightedBook reader (joseki.dat).
 *
 * The first byte picks keep_zero; the rest is the file. Checks beyond "no crash": every
 * rejection names a byte offset; a file the reader accepts passes osl_probe_header()
 * (positive evidence and the reader agree); whatever loads survives a DB2016 round trip
 * with the same moves and positions (those
 * with at least one move: DB2016 cannot hold the others). The reader allocates from counts only after
 * checking them against the input length, so memory stays bounded by the input. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book/db2016.h"
#include "book/osl.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    shogi_init();
    if (size < 1)
        return 0;
    OslReadOptions o = {.keep_zero = data[0] & 1};
    Book *b = book_create();
    char err[256] = "";
    OslStats st;
    if (!osl_read_memory("fuzz", data + 1, size - 1, b, &o, &st, err, sizeof err)) {
        FUZZ_CHECK(strstr(err, "fuzz: byte ") == err || strstr(err, "out of memory"));
        book_free(b);
        return 0;
    }
    FUZZ_CHECK(osl_probe_header(data + 1, size - 1, size - 1));
    FUZZ_CHECK(st.positions <= st.states && st.book_moves <= st.moves);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    FUZZ_CHECK(f && db2016_write_stream(f, b, &(Db2016WriteOptions){0}, err, sizeof err));
    fclose(f);
    Book *c = book_create();
    Db2016Stats dst;
    FUZZ_CHECK(db2016_read_memory("rt", text, len, c, &(Db2016ReadOptions){.strict = true}, &dst, err, sizeof err));
    size_t with_moves = 0; /* DB2016 has no room for a position without moves (keep_zero) */
    for (uint32_t id = 0; id < book_position_count(b); id++)
        with_moves += book_position_move_count(b, id) > 0;
    FUZZ_CHECK(book_position_count(c) == with_moves && book_move_count(c) == book_move_count(b));
    free(text);
    book_free(c);
    book_free(b);
    return 0;
}
