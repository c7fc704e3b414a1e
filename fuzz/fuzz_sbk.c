/* fuzz_sbk.c - libFuzzer target for the SBK reader, the import into the IR and the writer.
 *
 * The input is the file. Checks beyond "no crash": a failed open must say why; every
 * indexed entry must decode and be found again by its own position; every child entry
 * must be the position its move leads to; and whatever imports must write and read back
 * with every position the writer kept and no bad edge. The seed corpus is
 * ../shared/refdata/sbk/shogihome/ (fuzz/corpus/fuzz_sbk). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "book/sbk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static SbkBook *open_bytes(const char *path, const void *data, size_t size, SbkOpenStats *st) {
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size))
        abort();
    fclose(f);
    char err[256] = "";
    SbkBook *b = sbk_open(path, NULL, st, err, sizeof err);
    if (!b && !err[0])
        abort();
    return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static char path[64];
    if (!path[0]) {
        shogi_init();
        snprintf(path, sizeof path, "/tmp/fuzz_sbk.%d.sbk", (int)getpid());
    }
    SbkOpenStats st;
    SbkBook *b = open_bytes(path, data, size, &st);
    if (!b)
        return 0;
    if (st.indexed + st.unresolved != st.states || sbk_indexed_count(b) != st.indexed)
        abort();
    char err[256];
    for (size_t k = 0; k < sbk_indexed_count(b); k++) {
        SbkEntry e, again;
        if (sbk_entry_at(b, k, &e, err, sizeof err) != 1)
            continue; /* a state the light scanner took but protobuf-c refuses */
        Position pos;
        StateInfo si;
        if (!position_from_sfen(&pos, &si, e.sfen, NULL, 0))
            abort();
        int r = sbk_lookup_position(b, &pos, &again, err, sizeof err);
        if (r == 1 && memcmp(again.key.data, e.key.data, 32))
            abort();
        sbk_entry_clear(&again);
        for (size_t i = 0; i < e.n_moves && i < 8; i++) {
            SbkEntry c;
            if (sbk_child_entry(b, &e, i, &c, err, sizeof err) == 1) {
                StateInfo ns;
                Move m = position_legal_move_from16(&pos, e.moves[i].move);
                if (!m)
                    abort();
                position_do_move(&pos, m, &ns);
                BookKey key;
                book_key_from_position(&pos, &key);
                position_undo_move(&pos, m);
                if (memcmp(key.data, c.key.data, 32))
                    abort();
            }
            sbk_entry_clear(&c);
        }
        sbk_entry_clear(&e);
    }
    Book *book = book_create();
    if (book && sbk_to_book(b, book, NULL, NULL, err, sizeof err) && book_position_count(book)) {
        uint8_t *out;
        size_t len;
        SbkWriteReport rep;
        if (!sbk_write_memory(book, NULL, &rep, &out, &len, err, sizeof err))
            abort();
        SbkOpenStats st2;
        SbkBook *b2 = open_bytes(path, out, len, &st2);
        if (!b2 || st2.indexed != rep.states || st2.bad_edges || st2.bad_moves || st2.contradictions)
            abort();
        sbk_close(b2);
        free(out);
    }
    book_free(book);
    sbk_close(b);
    return 0;
}
