/* fuzz_db2016.c - libFuzzer target for the DB2016 reader, writer and on-the-fly lookup.
 *
 * The first byte picks reader options; the rest is the file. Checks beyond "no crash":
 * a fatal error must come with a message; whatever loads must survive write -> read ->
 * write unchanged (the writer's output is sorted and canonical, so a second round is a
 * fixed point); and when the written text is opened on the fly, every position of the
 * book must be found there with the same number of moves. Memory stays bounded: lines
 * are limited to 4 KiB here. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "book/db2016.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *write_text(const Book *b, size_t *len) {
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    char err[128];
    FUZZ_CHECK(f && db2016_write_stream(f, b, &(Db2016WriteOptions){.write_comments = true}, err, sizeof err));
    fclose(f);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    shogi_init();
    if (size < 1)
        return 0;
    uint8_t flags = data[0];
    Db2016ReadOptions o = {.strict = flags & 1,
                           .check_legality = (flags >> 1) & 1,
                           .keep_comments = (flags >> 2) & 1,
                           .shogihome_columns = (flags >> 3) & 1,
                           .max_line = 4096};
    Book *b = book_create();
    char err[256] = "";
    Db2016Stats st;
    if (!db2016_read_memory("fuzz", (const char *)data + 1, size - 1, b, &o, &st, err, sizeof err)) {
        FUZZ_CHECK(err[0]); /* every rejection says why */
        book_free(b);
        return 0;
    }
    size_t len1, len2;
    char *w1 = write_text(b, &len1);
    Book *c = book_create();
    Db2016ReadOptions o2 = {.keep_comments = o.keep_comments};
    FUZZ_CHECK(db2016_read_memory("w1", w1, len1, c, &o2, &st, err, sizeof err) && st.sorted && !st.errors);
    char *w2 = write_text(c, &len2);
    FUZZ_CHECK(len1 == len2 && memcmp(w1, w2, len1) == 0);
    if ((flags >> 4) & 1) {
        char path[] = "/tmp/fuzz_db2016_XXXXXX";
        int fd = mkstemp(path);
        if (fd >= 0) {
            if (write(fd, w1, len1) == (ssize_t)len1) {
                Db2016File *f = db2016_otf_open(path, err, sizeof err);
                FUZZ_CHECK(f); /* our own output is sorted */
                BookMoveList *list = malloc(sizeof *list);
                for (uint32_t id = 0; list && id < book_position_count(c); id++) {
                    BookKey k;
                    Position pos;
                    StateInfo s;
                    book_position_key(c, id, &k);
                    FUZZ_CHECK(book_key_to_position(&k, &pos, &s, 1));
                    int rc = db2016_otf_lookup(f, &pos, list, err, sizeof err);
                    FUZZ_CHECK(!book_position_move_count(c, id) ||
                               (rc == 1 && list->n == book_position_move_count(c, id)));
                }
                free(list);
                db2016_otf_close(f);
            }
            close(fd);
            unlink(path);
        }
    }
    free(w1);
    free(w2);
    book_free(b);
    book_free(c);
    return 0;
}
