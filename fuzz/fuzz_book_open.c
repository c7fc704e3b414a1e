/* fuzz_book_open.c - libFuzzer target for the one way into book files (book/open.h):
 * detection by content, reading, probing on disk and writing by output name.
 *
 * Byte 0 picks the file name's extension (none, .db, .sbk, .ybb, .bin: the name may only
 * break a tie, so every input is tried under every name); the rest is the file, written to
 * /dev/shm (or /tmp). Checks beyond "no crash": a refusal says why; whatever is read is
 * not empty unless the file was a warning-free DB2016 text; a prober answers the start
 * position without an error; a book read writes as DB2016 and reads back with the same
 * positions that have moves and the same moves, and writes as SBK and reads back when it
 * has a move. The committed seeds are hand-written (a DB2016 text and the SBK our writer
 * makes of it); add the refdata DB2016, SBK, YBB and Apery books of ShogiHome, each with
 * a name byte before it, as docs/book_making.md shows. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "book/open.h"
#include "fuzz_check.h"
#include "shogi/position.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void census(const Book *b, size_t *with_moves, size_t *moves) {
    *with_moves = 0;
    *moves = book_move_count(b);
    for (uint32_t id = 0; id < book_position_count(b); id++)
        *with_moves += book_position_move_count(b, id) > 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    shogi_init();
    if (size < 1)
        return 0;
    static const char *const EXT[] = {"", ".db", ".sbk", ".ybb", ".bin"};
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    char in[128], out_db[128], out_sbk[128], err[512];
    int pid = (int)getpid();
    snprintf(in, sizeof in, "%s/fuzz_book_open_%d%s", dir, pid, EXT[data[0] % 5]);
    snprintf(out_db, sizeof out_db, "%s/fuzz_book_open_%d_out.db", dir, pid);
    snprintf(out_sbk, sizeof out_sbk, "%s/fuzz_book_open_%d_out.sbk", dir, pid);
    FILE *f = fopen(in, "wb");
    if (!f)
        return 0;
    FUZZ_CHECK(fwrite(data + 1, 1, size - 1, f) == size - 1);
    fclose(f);

    err[0] = '\0';
    const BookFormat *fmt = book_format_detect(in, err, sizeof err);
    if (!fmt) {
        FUZZ_CHECK(err[0]);
        unlink(in);
        return 0;
    }
    BookReadReport rep;
    err[0] = '\0';
    Book *b = book_open_read(in, NULL, NULL, &rep, err, sizeof err);
    if (!b) {
        FUZZ_CHECK(err[0]);
    } else {
        FUZZ_CHECK(rep.format == fmt);
        FUZZ_CHECK(book_position_count(b) > 0 || rep.warnings == 0);
        size_t pos1, moves1, pos2, moves2;
        census(b, &pos1, &moves1);
        FUZZ_CHECK(book_write(out_db, NULL, b, NULL, NULL, err, sizeof err));
        Book *c = book_open_read(out_db, NULL, NULL, &rep, err, sizeof err);
        FUZZ_CHECK(c && book_format_is(rep.format, "db") && rep.warnings == 0);
        census(c, &pos2, &moves2);
        FUZZ_CHECK(pos1 == pos2 && moves1 == moves2);
        book_free(c);
        BookWriteReport wr;
        if (book_write(out_sbk, NULL, b, NULL, &wr, err, sizeof err) && moves1 > wr.illegal_moves) {
            c = book_open_read(out_sbk, NULL, NULL, &rep, err, sizeof err);
            FUZZ_CHECK(c && book_format_is(rep.format, "sbk"));
            book_free(c);
        }
        book_free(b);
    }
    for (int otf = 0; otf < 2; otf++) {
        BookProber *p = book_prober_open(in, NULL, otf, NULL, NULL, err, sizeof err);
        if (!p)
            continue;
        BookSource src = book_prober_source(p);
        Position pos;
        StateInfo st;
        position_set_startpos(&pos, &st);
        BookMoveList *list = malloc(sizeof *list);
        FUZZ_CHECK(list);
        int rc = src.probe(src.ctx, &pos, list, err, sizeof err);
        FUZZ_CHECK(rc >= 0 || err[0]);
        free(list);
        book_prober_close(p);
    }
    unlink(in);
    unlink(out_db);
    unlink(out_sbk);
    return 0;
}
