/* fuzz_sbk.c - libFuzzer target for the SBK reader (index build, lookups, child entries),
 * the import into the IR, the writer and the patch writer.
 *
 * The input is the file. Checks beyond "no crash": a failed open must say why; indexed
 * entries must decode and be found again by their own position; child entries must be
 * the position their move leads to; whatever imports must write and read back with every
 * position the writer kept and no bad edge; a source the patch writer accepts must come
 * back byte for byte from an empty patch (when its ids are its indices and its first
 * state has an SFEN), and a patch that deletes one position, replaces
 * another and adds a third must give a file that opens with every state resolved.
 *
 * Speed (a few thousand inputs a second on the seed corpus instead of ~90): files go to
 * /dev/shm when it exists, since the patch writer's atomic write fsyncs and an fsync on a
 * disk costs milliseconds; the page cache is one 64 KiB page instead of 4 MiB, which
 * also makes eviction happen on small inputs; and at most MAX_CHECKED entries get the
 * per-entry checks, which otherwise decode every state several times over.
 * The seed corpus is ../shared/refdata/sbk/shogihome/ (fuzz/corpus/fuzz_sbk). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "book/sbk.h"
#include "fuzz_check.h"
#include "shogi/movegen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_CHECKED = 48, MAX_CHILDREN = 8, MAX_FILE = 1 << 20 };

static char in_path[96], out_path[96];

static void write_file(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    FUZZ_CHECK(f && (!size || fwrite(data, 1, size, f) == size));
    fclose(f);
}

static SbkBook *open_file(const char *path, SbkOpenStats *st) {
    char err[256] = "";
    SbkOpenOptions opt = {.cache_bytes = 1}; /* one page */
    SbkBook *b = sbk_open(path, &opt, st, err, sizeof err);
    FUZZ_CHECK(b || err[0]); /* every refusal says why */
    return b;
}

static void check_entries(const SbkBook *b) {
    char err[256];
    for (size_t k = 0; k < sbk_indexed_count(b) && k < MAX_CHECKED; k++) {
        SbkEntry e, again;
        if (sbk_entry_at(b, k, &e, err, sizeof err) != 1)
            continue; /* a state the light scanner took but protobuf-c refuses */
        Position pos;
        StateInfo si;
        FUZZ_CHECK(position_from_sfen(&pos, &si, e.sfen, NULL, 0));
        int r = sbk_lookup_position(b, &pos, &again, err, sizeof err);
        FUZZ_CHECK(r != 1 || memcmp(again.key.data, e.key.data, 32) == 0);
        sbk_entry_clear(&again);
        for (size_t i = 0; i < e.n_moves && i < MAX_CHILDREN; i++) {
            SbkEntry c;
            if (sbk_child_entry(b, &e, i, &c, err, sizeof err) == 1) {
                StateInfo ns;
                Move m = position_legal_move_from16(&pos, e.moves[i].move);
                FUZZ_CHECK(m);
                position_do_move(&pos, m, &ns);
                BookKey key;
                book_key_from_position(&pos, &key);
                position_undo_move(&pos, m);
                FUZZ_CHECK(memcmp(key.data, c.key.data, 32) == 0);
            }
            sbk_entry_clear(&c);
        }
        sbk_entry_clear(&e);
    }
}

/* Up to cap bytes of path (one more than expected shows a longer file). */
static uint8_t *slurp(const char *path, size_t cap, size_t *len) {
    FILE *f = fopen(path, "rb");
    uint8_t *d = malloc(cap ? cap : 1);
    FUZZ_CHECK(f && d);
    *len = fread(d, 1, cap, f);
    fclose(f);
    return d;
}

/* A position one legal move from e that the book does not hold, or false. */
static bool new_neighbour(const SbkBook *b, const SbkEntry *e, BookKey *key) {
    Position pos;
    StateInfo si, ns;
    FUZZ_CHECK(book_key_to_position(&e->key, &pos, &si, 1));
    ExtMove moves[MAX_MOVES];
    int n = generate_moves(&pos, GEN_LEGAL, moves);
    for (int i = 0; i < n; i++) {
        position_do_move(&pos, moves[i].move, &ns);
        SbkEntry probe;
        char err[256];
        int r = sbk_lookup_position(b, &pos, &probe, err, sizeof err);
        sbk_entry_clear(&probe);
        if (r == 0)
            book_key_from_position(&pos, key);
        position_undo_move(&pos, moves[i].move);
        if (r == 0)
            return true;
    }
    return false;
}

/* The patch writer, on sources it accepts. */
static void check_patch_writer(const SbkBook *b, const uint8_t *data, size_t size, const SbkOpenStats *st) {
    char err[256];
    SbkError rc = sbk_write_with_patch(b, NULL, out_path, NULL, NULL, err, sizeof err);
    if (rc != SBK_OK)
        return;
    /* An empty patch reproduces the file, unless it must renumber ids or fill in the
     * SFEN of a first state that relies on BookConv's start-position convention. */
    bool first_has_sfen = false;
    for (size_t k = 0; k < sbk_indexed_count(b); k++) {
        SbkEntry e;
        FUZZ_CHECK(sbk_entry_at(b, k, &e, err, sizeof err) == 1); /* the patch writer decoded them all */
        if (e.index == 0)
            first_has_sfen = e.explicit_position;
        sbk_entry_clear(&e);
    }
    size_t len;
    uint8_t *out = slurp(out_path, size + 1, &len);
    FUZZ_CHECK(!st->ids_are_indices || !first_has_sfen || (len == size && memcmp(out, data, size) == 0));
    free(out);
    if (st->indexed < 2)
        return;
    SbkEntry first, second;
    FUZZ_CHECK(sbk_entry_at(b, 0, &first, err, sizeof err) == 1); /* the patch writer decoded them all */
    FUZZ_CHECK(sbk_entry_at(b, 1, &second, err, sizeof err) == 1);
    SbkPatch *p = sbk_patch_create();
    SbkPatchMove moves[16];
    size_t nm = 0;
    for (size_t i = 0; i < second.n_moves && nm < 16; i++)
        if (second.moves[i].legal)
            moves[nm++] = (SbkPatchMove){second.moves[i].move, second.moves[i].weight + 1, 0};
    SbkPatchEntry put = {.key = second.key, .comment = "fuzz", .n_moves = nm, .moves = moves};
    SbkPatchEntry fresh = {.ply = 0, .games = 1};
    bool has_fresh = new_neighbour(b, &second, &fresh.key);
    FUZZ_CHECK(p && sbk_patch_delete(p, &first.key) && sbk_patch_put(p, &put));
    FUZZ_CHECK(!has_fresh || sbk_patch_put(p, &fresh));
    rc = sbk_write_with_patch(b, p, out_path, NULL, NULL, err, sizeof err);
    if (rc == SBK_OK) {
        SbkOpenStats st2;
        SbkBook *o = open_file(out_path, &st2);
        FUZZ_CHECK(o && !st2.unresolved && st2.states == st->states - 1 + has_fresh);
        sbk_close(o);
    } else {
        FUZZ_CHECK(rc == SBK_ERR_INVALID_DATA && err[0]); /* only an output ply past u16 can refuse it */
    }
    sbk_patch_free(p);
    sbk_entry_clear(&first);
    sbk_entry_clear(&second);
}

static void remove_files(void) {
    unlink(in_path);
    unlink(out_path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!in_path[0]) {
        shogi_init();
        atexit(remove_files);
        const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(in_path, sizeof in_path, "%s/fuzz_sbk.%d.sbk", dir, (int)getpid());
        snprintf(out_path, sizeof out_path, "%s/fuzz_sbk.%d.out.sbk", dir, (int)getpid());
    }
    if (size > MAX_FILE)
        return 0;
    write_file(in_path, data, size);
    SbkOpenStats st;
    SbkBook *b = open_file(in_path, &st);
    if (!b)
        return 0;
    FUZZ_CHECK(st.indexed + st.unresolved == st.states && sbk_indexed_count(b) == st.indexed);
    check_entries(b);
    char err[256];
    Book *book = book_create();
    if (book && sbk_to_book(b, book, NULL, NULL, err, sizeof err) && book_position_count(book)) {
        uint8_t *out;
        size_t len;
        SbkWriteReport rep;
        FUZZ_CHECK(sbk_write_memory(book, NULL, &rep, &out, &len, err, sizeof err));
        write_file(out_path, out, len);
        SbkOpenStats st2;
        SbkBook *b2 = open_file(out_path, &st2);
        FUZZ_CHECK(b2 && st2.indexed == rep.states && !st2.bad_edges && !st2.bad_moves && !st2.contradictions);
        sbk_close(b2);
        free(out);
    }
    book_free(book);
    check_patch_writer(b, data, size, &st);
    sbk_close(b);
    return 0;
}
