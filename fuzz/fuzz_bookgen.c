/* fuzz_bookgen.c - libFuzzer target for book making on small fuzzed books: build from
 * game records, merge, minimax, import-losses, think (a few hundred nodes) and expand (a
 * few playouts), all in process, with book_shrink() between the steps so that every verb
 * grows a book shrunk to its exact size (a one-position book overflowed).
 *
 * Input: byte 0 holds flags (bit 0: count only ply 1, which makes one-position books;
 * bits 1-2: the side counted; bit 3: winner only; bits 4-5: the merge policy; bits 6-7: 1
 * runs think, 2 runs expand, 0 and 3 neither, so that half the runs stay cheap). The rest is up to four games separated
 * by 0xFF: each byte picks the legal move byte % n from the current position (a game ends early when there is none).
 * Game k's result cycles black win, white win, draw; the players are "us" and "them" in turn.
 *
 * Checks beyond "no crash": a merge keeps every position of both books; import-losses
 * rewrites exactly the positions the loser's opponent moved in within its plies; think
 * and expand never lose a position or a move; everything written as DB2016 reads back with
 * the same positions that have moves. Speed: one thread, 1 MB hash and tree, at most three
 * positions thought at 200 nodes, 16 playouts; the expand journal lives in /dev/shm. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "book/book.h"
#include "book/db2016.h"
#include "bookgen/expand.h"
#include "bookgen/make.h"
#include "bookgen/minimax.h"
#include "bookgen/think.h"
#include "fuzz_check.h"
#include "record/reader.h"
#include "shogi/movegen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_GAMES = 4, MAX_GAME_MOVES = 32 };

typedef struct {
    Move moves[MAX_GAME_MOVES];
    int n;
} FuzzGame;

static RecordGame as_record(const FuzzGame *fg, int k) {
    static const RecordResult RESULTS[3] = {REC_BLACK_WIN, REC_WHITE_WIN, REC_DRAW};
    return (RecordGame){.file = "fuzz",
                        .line = (uint64_t)k + 1,
                        .root_sfen = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
                        .moves = fg->moves,
                        .n_moves = fg->n,
                        .result = RESULTS[k % 3],
                        .end = "",
                        .black = k & 1 ? "them" : "us",
                        .white = k & 1 ? "us" : "them",
                        .event = "",
                        .black_rating = REC_NO_RATING,
                        .white_rating = REC_NO_RATING};
}

/* Positions with at least one move, and all moves. */
static void census(const Book *b, size_t *with_moves, size_t *moves) {
    *with_moves = 0;
    *moves = book_move_count(b);
    for (uint32_t id = 0; id < book_position_count(b); id++)
        *with_moves += book_position_move_count(b, id) > 0;
}

static void check_contains(const Book *big, const Book *small) {
    for (uint32_t id = 0; id < book_position_count(small); id++) {
        BookKey k;
        uint32_t other;
        book_position_key(small, id, &k);
        FUZZ_CHECK(book_find(big, &k, &other));
        FUZZ_CHECK(book_position_move_count(big, other) >= book_position_move_count(small, id));
    }
}

static void check_db2016_round_trip(const Book *b) {
    char *text = NULL, err[256];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    FUZZ_CHECK(f && db2016_write_stream(f, b, NULL, err, sizeof err));
    fclose(f);
    Book *c = book_create();
    Db2016Stats st;
    FUZZ_CHECK(db2016_read_memory("w", text, len, c, NULL, &st, err, sizeof err) && st.errors == 0);
    size_t a_pos, a_moves, c_pos, c_moves;
    census(b, &a_pos, &a_moves);
    census(c, &c_pos, &c_moves);
    FUZZ_CHECK(a_pos == c_pos && a_moves == c_moves);
    free(text);
    book_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    shogi_init();
    if (size < 2)
        return 0;
    uint8_t flags = data[0];
    FuzzGame games[MAX_GAMES];
    int ng = 0;
    {
        StateInfo st[MAX_GAME_MOVES + 1];
        ExtMove list[MAX_MOVES];
        Position pos;
        position_set_startpos(&pos, &st[0]);
        games[0].n = 0;
        ng = 1;
        for (size_t i = 1; i < size; i++) {
            if (data[i] == 0xFF) {
                if (ng == MAX_GAMES)
                    break;
                games[ng++].n = 0;
                position_set_startpos(&pos, &st[0]);
                continue;
            }
            FuzzGame *g = &games[ng - 1];
            if (g->n == MAX_GAME_MOVES)
                continue;
            int n = generate_moves(&pos, GEN_LEGAL, list);
            if (!n)
                continue;
            g->moves[g->n] = list[data[i] % n].move;
            position_do_move(&pos, g->moves[g->n], &st[g->n + 1]);
            g->n++;
        }
    }

    /* build: book a with the fuzzed options, book b with every move up to ply 4 */
    Book *a = book_create(), *b = book_create();
    FUZZ_CHECK(a && b);
    BookBuildOptions oa = {.max_ply = flags & 1 ? 1 : 0,
                           .side = (BuildSide)((flags >> 1) % 3),
                           .winner_only = (flags >> 3) & 1,
                           .min_rating = REC_NO_RATING};
    BookBuildOptions ob = {.max_ply = 4, .side = BUILD_SIDE_BOTH, .min_rating = REC_NO_RATING};
    BookBuildStats bs = {0};
    StateInfo *st = NULL;
    size_t cap = 0;
    for (int k = 0; k < ng; k++) {
        RecordGame rg = as_record(&games[k], k);
        FUZZ_CHECK(book_build_add_game(a, &rg, &oa, &bs, &st, &cap));
        FUZZ_CHECK(book_build_add_game(b, &rg, &ob, &bs, &st, &cap));
    }
    FUZZ_CHECK(book_shrink(a) && book_shrink(b));

    /* merge b into a copy of a */
    Book *m = book_create();
    FUZZ_CHECK(m && book_merge_policy(&m, a, 1.0, MERGE_SUM));
    FUZZ_CHECK(book_shrink(m));
    FUZZ_CHECK(book_merge_policy(&m, b, 1.0, (MergePolicy)((flags >> 4) % 3)));
    check_contains(m, a);
    for (uint32_t id = 0; id < book_position_count(b); id++) {
        BookKey k;
        uint32_t other;
        book_position_key(b, id, &k);
        FUZZ_CHECK(book_find(m, &k, &other));
    }
    FUZZ_CHECK(book_shrink(m));

    /* minimax in place, then import-losses of "them" */
    MinimaxOptions mo = {.converge = (flags >> 2) & 1, .flipped = (flags >> 5) & 1, .threads = 1};
    MinimaxStats ms;
    char err[512];
    FUZZ_CHECK(book_minimax_in_place(m, &mo, &ms, err, sizeof err));
    FUZZ_CHECK(book_shrink(m));
    ImportLossStats is = {0};
    for (int k = 0; k < ng; k++) {
        RecordGame rg = as_record(&games[k], k);
        FUZZ_CHECK(book_import_loss(m, &rg, "them", 6, &is, &st, &cap));
    }
    FUZZ_CHECK(is.named == (uint64_t)ng);
    FUZZ_CHECK(book_shrink(m));
    check_db2016_round_trip(m);

    /* think a few positions at a few hundred nodes (think and expand checkpoint into a
     * journal: in memory when /dev/shm exists) */
    char journal[96];
    snprintf(journal, sizeof journal, "%s/fuzz_bookgen_%d.journal", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp",
             (int)getpid());
    unlink(journal);
    size_t before_pos = book_position_count(m), before_moves = book_move_count(m);
    if ((flags >> 6) == 1) {
        ThinkOptions to = {.nodes = 200,
                           .multipv = 1 + (flags & 1),
                           .threads = 1,
                           .hash_mb = 1,
                           .max_positions = 1,
                           .journal = journal};
        ThinkStats ts;
        FUZZ_CHECK(book_think(m, &to, &ts, err, sizeof err));
        FUZZ_CHECK(book_position_count(m) >= before_pos && book_move_count(m) >= before_moves);
        FUZZ_CHECK(book_shrink(m));
        unlink(journal);
    }

    /* expand with a few playouts */
    if ((flags >> 6) == 2) {
        ExpandOptions eo;
        memset(&eo, 0, sizeof eo);
        eo.playouts = 8;
        eo.top = 1;
        eo.min_candidates = 2;
        eo.rounds = 1;
        eo.provider = mcts_provider_uniform();
        mcts_options_default(&eo.mcts);
        eo.mcts.tree_mb = 1;
        eo.mcts.threads = 1;
        eo.think.nodes = 100;
        eo.think.threads = 1;
        eo.think.hash_mb = 1;
        eo.think.journal = journal;
        size_t p0 = book_position_count(m), m0 = book_move_count(m);
        ExpandStats es;
        FUZZ_CHECK(book_expand(m, &eo, &es, err, sizeof err));
        FUZZ_CHECK(book_position_count(m) >= p0 && book_move_count(m) >= m0);
        unlink(journal);
    }
    free(st);
    book_free(a);
    book_free(b);
    book_free(m);
    return 0;
}
