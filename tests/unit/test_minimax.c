/* test_minimax.c - the peta_shock back-propagation against rshogi's fixtures in
 * ../shared/refdata/db/rshogi (book_backprop_yo_* is a transposition plus a converging
 * move; book_backprop_check_* a perpetual-check loop whose expected file is real
 * YaneuraOu output, compared on values as book_backprop_check.md says), plus small
 * hand-made graphs: a tree, a plain repetition cycle (a draw) and a pure perpetual check.
 * The streamed path (book_minimax_file()) and the out-of-core one (book_minimax_sweep(), at
 * its smallest memory) write the IR path's bytes and counts on hand and random books. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "book/db2016.h"
#include "bookgen/minimax.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"

#define RS "../shared/refdata/db/rshogi/"

static Book *load(const char *path) {
    Book *b = book_create();
    char err[256];
    if (!db2016_read_file(path, b, NULL, NULL, err, sizeof err))
        fail_msg("%s", err);
    return b;
}

static Book *load_text(const char *text) {
    Book *b = book_create();
    char err[256];
    if (!db2016_read_memory("mem", text, strlen(text), b, NULL, NULL, err, sizeof err))
        fail_msg("%s", err);
    return b;
}

/* Every position of want is in got with the same moves and scores (and depths). */
static void same_book(const Book *got, const Book *want, bool depths) {
    BookMoveList *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    assert_int_equal(book_position_count(got), book_position_count(want));
    for (uint32_t id = 0; id < book_position_count(want); id++) {
        BookKey k;
        book_position_key(want, id, &k);
        uint32_t gid;
        assert_true(book_find(got, &k, &gid));
        book_position_moves(want, id, b);
        book_position_moves(got, gid, a);
        assert_int_equal(a->n, b->n);
        for (int i = 0; i < b->n; i++) {
            bool found = false;
            for (int j = 0; j < a->n; j++) {
                if (a->moves[j].move != b->moves[i].move)
                    continue;
                found = true;
                char u[8];
                if (a->moves[j].score != b->moves[i].score)
                    fail_msg("position %u move %s: score %d, expected %d", id, move_to_usi(b->moves[i].move, u),
                             a->moves[j].score, b->moves[i].score);
                if (depths)
                    assert_int_equal(a->moves[j].depth, b->moves[i].depth);
            }
            assert_true(found);
        }
    }
    free(a);
    free(b);
}

static Book *run(const Book *in, bool converge, MinimaxStats *st) {
    char err[128];
    MinimaxOptions o = {.converge = converge};
    Book *out = book_minimax(in, &o, st, err, sizeof err);
    if (!out)
        fail_msg("%s", err);
    return out;
}

static void test_yo_fixture(void **state) {
    (void)state;
    Book *in = load(RS "book_backprop_yo_in.db"), *want = load(RS "book_backprop_yo_expected.db");
    MinimaxStats st;
    Book *out = run(in, true, &st);
    same_book(out, want, true);
    assert_int_equal(st.converged_moves, 1); /* 2g2f reaches a book position */
    book_free(out);
    /* without converge 2g2f is not added */
    out = run(in, false, &st);
    assert_int_equal(book_move_count(out), 4);
    book_free(out);
    book_free(in);
    book_free(want);
}

static void test_check_fixture(void **state) {
    (void)state;
    Book *in = load(RS "book_backprop_check_in.db"), *want = load(RS "book_backprop_check_expected.db");
    MinimaxStats st;
    Book *out = run(in, true, &st);
    same_book(out, want, false);
    assert_int_equal(st.check_loop, 4);
    book_free(out);
    out = run(in, false, &st); /* every loop move is a book move: the same result */
    same_book(out, want, false);
    book_free(out);
    book_free(in);
    book_free(want);
}

static long long score_of(const Book *b, const char *sfen, const char *usi) {
    BookKey k;
    char err[64];
    assert_true(book_key_from_sfen(sfen, &k, NULL, err, sizeof err));
    uint32_t id;
    assert_true(book_find(b, &k, &id));
    BookMoveList *l = malloc(sizeof *l);
    book_position_moves(b, id, l);
    Move16 m;
    assert_true(move16_from_usi(usi, strlen(usi), &m));
    long long s = 99999;
    for (int i = 0; i < l->n; i++)
        if (l->moves[i].move == m)
            s = (long long)l->moves[i].score * 100000 + l->moves[i].depth;
    free(l);
    return s;
}

/* The score part of score_of() (depth is 0..9999). */
static long long sc(long long s) {
    long long d = s % 100000;
    if (d < 0)
        d += 100000;
    return (s - d) / 100000;
}

#define START       "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
#define AFTER_76    "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"
#define AFTER_76_34 "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3"

static void test_tree_negamax(void **state) {
    (void)state;
    /* root: 7g7f leads to a node whose best reply 3c3d leads to a node with leaf +30;
     * 2g2f is a leaf at +100 */
    Book *in = load_text("sfen " START "\n7g7f none 0 10\n2g2f none 100 10\nsfen " AFTER_76
                         "\n3c3d none 0 10\n8c8d none -500 10\nsfen " AFTER_76_34 "\n2g2f none 30 10\n");
    Book *out = run(in, false, NULL);
    /* 3c3d: -(30) at depth 1; 8c8d leaf -500; the node's value for 7g7f: -(-30) = 30, depth 2 */
    assert_int_equal(score_of(out, AFTER_76, "3c3d"), -30 * 100000 + 1);
    assert_int_equal(score_of(out, START, "7g7f"), 30 * 100000 + 2);
    assert_int_equal(score_of(out, START, "2g2f"), 100 * 100000 + 0);
    book_free(in);
    book_free(out);
}

/* A plain repetition (no checks): kings walking back and forth is scored as a draw
 * unless a side has a better exit. */
static void test_repetition_is_draw(void **state) {
    (void)state;
    Book *in = load_text("sfen 4k4/9/9/9/9/9/9/9/4K4 b - 1\n5i4i none 0 1\n5i5h none -300 1\n"
                         "sfen 4k4/9/9/9/9/9/9/9/5K3 w - 2\n5a4a none 0 1\n5a5b none -300 1\n"
                         "sfen 5k3/9/9/9/9/9/9/9/5K3 b - 3\n4i5i none 0 1\n4i4h none -300 1\n"
                         "sfen 5k3/9/9/9/9/9/9/9/4K4 w - 4\n4a5a none 0 1\n4a4b none -300 1\n");
    MinimaxStats st;
    Book *out = run(in, false, &st);
    assert_int_equal(st.check_loop, 0);
    assert_int_equal(sc(score_of(out, "4k4/9/9/9/9/9/9/9/4K4 b - 1", "5i4i")), 0);
    assert_int_equal(score_of(out, "4k4/9/9/9/9/9/9/9/4K4 b - 1", "5i4i") % 100000, MINIMAX_DEPTH_MAX);
    assert_int_equal(score_of(out, "4k4/9/9/9/9/9/9/9/4K4 b - 1", "5i5h"), -300 * 100000);
    book_free(in);
    book_free(out);
}

/* A pure perpetual check (no exits for the checker): the checker loses. */
static void test_pure_perpetual_check(void **state) {
    (void)state;
    Book *in = load_text("sfen 4k4/9/4R4/9/9/9/9/9/K8 w - 1\n5a4a none 0 1\n"
                         "sfen 5k3/9/4R4/9/9/9/9/9/K8 b - 2\n5c4c none 0 1\n"
                         "sfen 5k3/9/5R3/9/9/9/9/9/K8 w - 3\n4a5a none 0 1\n"
                         "sfen 4k4/9/5R3/9/9/9/9/9/K8 b - 4\n4c5c none 0 1\n");
    Book *out = run(in, false, NULL);
    assert_int_equal(sc(score_of(out, "5k3/9/4R4/9/9/9/9/9/K8 b - 2", "5c4c")), -32000);
    assert_int_equal(sc(score_of(out, "4k4/9/4R4/9/9/9/9/9/K8 w - 1", "5a4a")), 32000);
    book_free(in);
    book_free(out);
}

/* Colour-flipped twins (hand-worked). S is the start position, W the same board with
 * white to move (S's mirror), M the position after 3c3d from W, i.e. the mirror of the
 * position after 7g7f from S (which the book lacks). */
#define START_W   "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"
#define MIRROR_76 "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 2"

static void test_flipped_twins(void **state) {
    (void)state;
    Book *in = load_text("sfen " START "\n7g7f none 30 10\n2g2f none 10 10\nsfen " START_W
                         "\n1c1d none 100 10\nsfen " MIRROR_76 "\n2g2f none -40 10\n");
    char err[128];
    MinimaxStats st;
    MinimaxOptions o = {.flipped = true};
    Book *out = book_minimax(in, &o, &st, err, sizeof err);
    assert_non_null(out);
    /* S and W are twins: each gets the other's moves mirrored (1c1d -> 9g9f; 7g7f and 2g2f
     * -> 3c3d and 8c8d); S's 7g7f reaches M's mirror, W's 3c3d reaches M itself: both
     * take -(-40) = 40 at depth 1 */
    assert_int_equal(st.flipped_twins, 2);
    assert_int_equal(st.flipped_moves, 3);
    assert_int_equal(st.flipped_edges, 1);
    assert_int_equal(score_of(out, START, "9g9f"), 100 * 100000 + 0);
    assert_int_equal(score_of(out, START, "7g7f"), 40 * 100000 + 1);
    assert_int_equal(score_of(out, START, "2g2f"), 10 * 100000 + 0);
    assert_int_equal(score_of(out, START_W, "1c1d"), 100 * 100000 + 0);
    assert_int_equal(score_of(out, START_W, "3c3d"), 40 * 100000 + 1);
    assert_int_equal(score_of(out, START_W, "8c8d"), 10 * 100000 + 0);
    assert_int_equal(book_move_count(out), 7);
    book_free(out);
    /* without the option nothing is joined */
    out = run(in, false, &st);
    assert_int_equal(score_of(out, START, "7g7f"), 30 * 100000 + 0);
    assert_int_equal(score_of(out, START, "9g9f"), 99999);
    assert_int_equal(book_move_count(out), 4);
    book_free(out);
    book_free(in);
}

/* A random book (playouts from the start position, 1-3 scored candidates per position,
 * one of them played on) of a few thousand positions. */
static Book *random_book(int positions) {
    Book *b = book_create();
    ExtMove *moves = malloc(sizeof(ExtMove) * MAX_MOVES);
    StateInfo *st = malloc(sizeof(StateInfo) * 128);
    uint64_t s = 12345;
    while ((int)book_position_count(b) < positions) {
        Position pos;
        position_set_startpos(&pos, &st[0]);
        for (int ply = 0; ply < 60; ply++) {
            int n = generate_moves(&pos, GEN_LEGAL, moves);
            if (!n)
                break;
            BookKey k;
            uint32_t id;
            book_key_from_position(&pos, &k);
            assert_true(book_add_position(b, &k, pos.ply, &id));
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            int pick = (int)((s >> 33) % (uint64_t)(n < 3 ? n : 3)); /* the first moves repeat: transpositions */
            for (int c = 0; c <= pick; c++) {
                BookMove bm = {.move = move_to_move16(moves[c].move),
                               .score = (int)((s >> (8 + c)) % 400) - 200,
                               .has_score = true,
                               .count = 1};
                assert_true(book_add_move(b, id, &bm, NULL));
            }
            position_do_move(&pos, moves[pick].move, &st[ply + 1]);
        }
    }
    free(moves);
    free(st);
    return b;
}

/* Finding the edges on several threads (and walking from decoded positions) gives what
 * one thread gives, with and without converge. */
static void test_threads_same_result(void **state) {
    (void)state;
    Book *in = random_book(6000);
    for (int conv = 0; conv < 2; conv++) {
        char err[128];
        MinimaxStats s1, s3;
        MinimaxOptions o1 = {.converge = conv, .threads = 1}, o3 = {.converge = conv, .threads = 3};
        Book *a = book_minimax(in, &o1, &s1, err, sizeof err), *b = book_minimax(in, &o3, &s3, err, sizeof err);
        assert_non_null(a);
        assert_non_null(b);
        assert_int_equal(s1.settled, s3.settled);
        assert_int_equal(s1.converged_moves, s3.converged_moves);
        assert_int_equal(book_move_count(a), book_move_count(b));
        same_book(b, a, true);
        book_free(a);
        book_free(b);
    }
    book_free(in);
}

/* A random book whose odd games are stored colour-flipped (keys and moves), so that lines
 * meet their mirrors: twins, twin moves and mirror edges all occur. */
static Book *mixed_book(int positions) {
    Book *b = book_create();
    ExtMove *moves = malloc(sizeof(ExtMove) * MAX_MOVES);
    StateInfo *st = malloc(sizeof(StateInfo) * 128);
    uint64_t s = 777;
    for (int game = 0; (int)book_position_count(b) < positions; game++) {
        Position pos;
        position_set_startpos(&pos, &st[0]);
        for (int ply = 0; ply < 50; ply++) {
            int n = generate_moves(&pos, GEN_LEGAL, moves);
            if (!n)
                break;
            BookKey k, fk;
            uint32_t id;
            book_key_from_position(&pos, &k);
            assert_true(book_key_flip(&k, &fk));
            assert_true(book_add_position(b, game & 1 ? &fk : &k, pos.ply, &id));
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            int pick = (int)((s >> 33) % (uint64_t)(n < 4 ? n : 4));
            for (int c = 0; c <= pick; c++) {
                Move16 m = move_to_move16(moves[c].move);
                BookMove bm = {.move = game & 1 ? book_move_flip(m) : m,
                               .score = (int)((s >> (8 + c)) % 400) - 200,
                               .has_score = true,
                               .count = 1};
                assert_true(book_add_move(b, id, &bm, NULL));
            }
            position_do_move(&pos, moves[pick].move, &st[ply + 1]);
        }
    }
    free(moves);
    free(st);
    return b;
}

/* FNV-1a over every position's key and written moves (move, score, depth) in id order. */
static uint64_t book_digest(const Book *b) {
    BookMoveList *l = malloc(sizeof *l);
    uint64_t h = 1469598103934665603ull;
    for (uint32_t id = 0; id < book_position_count(b); id++) {
        BookKey k;
        book_position_key(b, id, &k);
        book_position_moves(b, id, l);
        for (int i = 0; i < 32; i++)
            h = (h ^ k.data[i]) * 1099511628211ull;
        for (int i = 0; i < l->n; i++) {
            uint64_t v = (uint64_t)l->moves[i].move << 48 ^ (uint64_t)(uint32_t)l->moves[i].score << 16 ^
                         (uint64_t)(uint16_t)l->moves[i].depth;
            h = (h ^ v) * 1099511628211ull;
        }
    }
    free(l);
    return h;
}

/* --converge --flipped on a book with mirrored lines: the counts and the written book are
 * those the first implementation (SFEN-text flips, a flip and a lookup for every legal
 * move leaving the book) gave, on one thread and on three. */
static void test_converge_flipped_counts(void **state) {
    (void)state;
    Book *in = mixed_book(8000);
    for (int threads = 1; threads <= 3; threads += 2) {
        char err[128];
        MinimaxStats st;
        MinimaxOptions o = {.converge = true, .flipped = true, .threads = threads};
        Book *out = book_minimax(in, &o, &st, err, sizeof err);
        assert_non_null(out);
        print_message("threads %d: %llu positions, %llu settled, %llu converged, %llu twins, %llu twin moves, "
                      "%llu mirror edges, %llu rounds, %zu moves, digest %016llx\n",
                      threads, (unsigned long long)st.positions, (unsigned long long)st.settled,
                      (unsigned long long)st.converged_moves, (unsigned long long)st.flipped_twins,
                      (unsigned long long)st.flipped_moves, (unsigned long long)st.flipped_edges,
                      (unsigned long long)st.rounds, book_move_count(out), (unsigned long long)book_digest(out));
        assert_int_equal(st.positions, 8012);
        assert_int_equal(st.settled, 8012);
        assert_int_equal(st.converged_moves, 241);
        assert_int_equal(st.flipped_twins, 304);
        assert_int_equal(st.flipped_moves, 165);
        assert_int_equal(st.flipped_edges, 406);
        assert_int_equal(book_move_count(out), 20523);
        assert_int_equal(book_digest(out), 0x9227f118ecc724ebull);
        book_free(out);
    }
    book_free(in);
}

/* ---- book_minimax_file(): the same bytes as the IR path ---- */

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *d = malloc((size_t)n + 1);
    assert_int_equal(fread(d, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return d;
}

/* Writes b sorted (comments kept) to a new temporary file whose name goes to path. */
static void write_sorted(const Book *b, char *path) {
    char err[256];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    Db2016WriteOptions wo = {.write_comments = true};
    if (!db2016_write_file(path, b, &wo, err, sizeof err))
        fail_msg("%s", err);
}

/* The files got and want hold the same bytes. */
static void assert_same_bytes(const char *got, const char *want) {
    size_t la, lb;
    char *a = slurp(got, &la), *w = slurp(want, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(a, w, la);
    free(a);
    free(w);
}

/* The out-of-core path on in at its smallest memory (every sort in runs on disk once the
 * book has a few thousand positions) writes want's bytes with the counts of s1 (the IR
 * path's) and, when s2 is non-null, what s2 (the streamed path's) says it wrote. */
static void sweep_vs(const char *in, const char *want, MinimaxOptions o, const MinimaxStats *s1,
                     const MinimaxStats *s2) {
    char got[] = "/tmp/hayanagi_test_mmswp_XXXXXX", err[256];
    int fd = mkstemp(got);
    close(fd);
    MinimaxStats s3;
    uint64_t sweeps;
    if (book_minimax_sweep(in, got, &o, 0, NULL, &s3, &sweeps, err, sizeof err) != 1)
        fail_msg("book_minimax_sweep: %s", err);
    assert_same_bytes(got, want);
    assert_int_equal(s1->positions, s3.positions);
    assert_int_equal(s1->settled, s3.settled);
    assert_int_equal(s1->check_loop, s3.check_loop);
    assert_int_equal(s1->converged_moves, s3.converged_moves);
    assert_int_equal(s1->flipped_twins, s3.flipped_twins);
    assert_int_equal(s1->flipped_moves, s3.flipped_moves);
    assert_int_equal(s1->flipped_edges, s3.flipped_edges);
    assert_int_equal(s1->rounds, s3.rounds);
    if (s2) {
        assert_int_equal(s2->written_positions, s3.written_positions);
        assert_int_equal(s2->written_moves, s3.written_moves);
    }
    assert_int_equal(sweeps > 0, s3.settled > 0); /* a sweep runs when something settled */
    unlink(got);
}

/* Runs the IR path (read with comments, minimax in place, write) and the streaming path
 * on the sorted file of b with options o: the output bytes and the counts agree, and so do
 * the out-of-core path's. Returns book_minimax_file()'s result (0: not applicable, the IR
 * path and the out-of-core one compared). */
static int file_vs_ir(const Book *b, MinimaxOptions o) {
    char in[] = "/tmp/hayanagi_test_mmin_XXXXXX", want[] = "/tmp/hayanagi_test_mmwant_XXXXXX",
         got[] = "/tmp/hayanagi_test_mmgot_XXXXXX", err[256];
    write_sorted(b, in);
    Book *r = book_create();
    Db2016ReadOptions ro = {.keep_comments = true};
    assert_true(db2016_read_file(in, r, &ro, NULL, err, sizeof err));
    MinimaxStats s1, s2;
    assert_true(book_minimax_in_place(r, &o, &s1, err, sizeof err));
    write_sorted(r, want);
    book_free(r);
    int fd = mkstemp(got);
    close(fd);
    int rc = book_minimax_file(in, got, &o, &s2, err, sizeof err);
    if (rc > 0) {
        assert_same_bytes(got, want);
        assert_int_equal(s1.positions, s2.positions);
        assert_int_equal(s1.settled, s2.settled);
        assert_int_equal(s1.check_loop, s2.check_loop);
        assert_int_equal(s1.converged_moves, s2.converged_moves);
        assert_int_equal(s1.flipped_edges, s2.flipped_edges);
        assert_int_equal(s1.rounds, s2.rounds);
        sweep_vs(in, want, o, &s1, &s2);
    } else {
        assert_int_equal(rc, 0); /* never a failure on a good file */
        assert_true(s1.flipped_twins > 0);
        sweep_vs(in, want, o, &s1, NULL); /* out of core the twins are joined */
    }
    unlink(in);
    unlink(want);
    unlink(got);
    return rc;
}

static const MinimaxOptions OPTION_SETS[] = {
    {0}, {.converge = true}, {.flipped = true}, {.converge = true, .flipped = true}};

static void all_options(const Book *b) {
    for (size_t i = 0; i < sizeof OPTION_SETS / sizeof *OPTION_SETS; i++)
        assert_int_equal(file_vs_ir(b, OPTION_SETS[i]), 1);
}

static void test_file_hand_books(void **state) {
    (void)state;
    static const char *texts[] = {
        /* a tree, with position and move comments and a position without moves that a
         * converging move reaches */
        "sfen " START "\n#root note\n7g7f none 0 10 5\n#why 7g7f\n2g2f none 100 10\nsfen " AFTER_76
        "\n3c3d none 0 10\n8c8d none -500 10\nsfen " AFTER_76_34 "\n2g2f none 30 10\n"
        "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/7P1/PPPPPPP1P/1B5R1/LNSGKGSNL w - 2\n",
        /* a repetition */
        "sfen 4k4/9/9/9/9/9/9/9/4K4 b - 1\n5i4i none 0 1\n5i5h none -300 1\n"
        "sfen 4k4/9/9/9/9/9/9/9/5K3 w - 2\n5a4a none 0 1\n5a5b none -300 1\n"
        "sfen 5k3/9/9/9/9/9/9/9/5K3 b - 3\n4i5i none 0 1\n4i4h none -300 1\n"
        "sfen 5k3/9/9/9/9/9/9/9/4K4 w - 4\n4a5a none 0 1\n4a4b none -300 1\n",
        /* a perpetual check */
        "sfen 4k4/9/4R4/9/9/9/9/9/K8 w - 1\n5a4a none 0 1\n"
        "sfen 5k3/9/4R4/9/9/9/9/9/K8 b - 2\n5c4c none 0 1\n"
        "sfen 5k3/9/5R3/9/9/9/9/9/K8 w - 3\n4a5a none 0 1\n"
        "sfen 4k4/9/5R3/9/9/9/9/9/K8 b - 4\n4c5c none 0 1\n",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        Book *b = load_text(texts[i]);
        all_options(b);
        book_free(b);
    }
    const char *files[] = {RS "book_backprop_yo_in.db", RS "book_backprop_check_in.db"};
    for (size_t i = 0; i < 2; i++) {
        Book *b = load(files[i]);
        all_options(b);
        book_free(b);
    }
}

static void test_file_random_books(void **state) {
    (void)state;
    Book *b = random_book(3000);
    all_options(b);
    book_free(b);
    /* twins: the streaming path declines with flipped (the IR joins them), and agrees
     * without; the out-of-core path joins them as the IR does */
    b = mixed_book(3000);
    assert_int_equal(file_vs_ir(b, OPTION_SETS[0]), 1);
    assert_int_equal(file_vs_ir(b, OPTION_SETS[1]), 1);
    assert_int_equal(file_vs_ir(b, OPTION_SETS[2]), 0);
    assert_int_equal(file_vs_ir(b, OPTION_SETS[3]), 0);
    book_free(b);
}

/* Twins whose moves differ, out of core: the hand-worked book of test_flipped_twins (S
 * and W share their moves, S's 7g7f reaches M's mirror), and the same with ponders,
 * counts and a comment on the moves, a move both twins hold (each keeps its own), and a
 * second pair of twins (the position after 7g7f, which now holds a move, and M). */
static void test_sweep_twins(void **state) {
    (void)state;
    static const char *texts[] = {
        "sfen " START "\n7g7f none 30 10\n2g2f none 10 10\nsfen " START_W "\n1c1d none 100 10\nsfen " MIRROR_76
        "\n2g2f none -40 10\n",
        "sfen " START "\n7g7f 3c3d 30 10 4\n2g2f none 10 10 2\nsfen " START_W
        "\n1c1d 9g9f 100 10 7\n3c3d none -5 3 1\n#why 3c3d\nsfen " MIRROR_76 "\n2g2f 8c8d -40 10 3\nsfen " AFTER_76
        "\n3c3d none 0 10\n",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        Book *b = load_text(texts[i]);
        assert_int_equal(file_vs_ir(b, OPTION_SETS[0]), 1);
        assert_int_equal(file_vs_ir(b, OPTION_SETS[1]), 1);
        assert_int_equal(file_vs_ir(b, OPTION_SETS[2]), 0);
        assert_int_equal(file_vs_ir(b, OPTION_SETS[3]), 0);
        book_free(b);
    }
}

/* An unsorted file is declined, a missing one is a failure; neither writes the output. */
static void test_file_declines(void **state) {
    (void)state;
    char in[] = "/tmp/hayanagi_test_mmuns_XXXXXX", err[256];
    int fd = mkstemp(in);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "sfen %s\n7g7f none 0 10\nsfen %s\n3c3d none 0 10\n", START, AFTER_76); /* "9/9/9" > "9/9/2P6" */
    fclose(f);
    const char *out = "/tmp/hayanagi_test_mm_never.db";
    unlink(out);
    assert_int_equal(book_minimax_file(in, out, NULL, NULL, err, sizeof err), 0);
    assert_non_null(strstr(err, "not sorted"));
    assert_int_equal(access(out, F_OK), -1);
    /* out of core an unsorted file is a failure (the caller sorts it first) */
    assert_int_equal(book_minimax_sweep(in, out, NULL, 0, NULL, NULL, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "not sorted"));
    assert_int_equal(access(out, F_OK), -1);
    MinimaxOptions fl = {.flipped = true};
    assert_int_equal(book_minimax_sweep(in, out, &fl, 0, NULL, NULL, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "not sorted"));
    assert_int_equal(access(out, F_OK), -1);
    unlink(in);
    assert_int_equal(book_minimax_file(in, out, NULL, NULL, err, sizeof err), -1);
    assert_int_equal(access(out, F_OK), -1);
    assert_int_equal(book_minimax_sweep(in, out, NULL, 0, NULL, NULL, NULL, err, sizeof err), -1);
    assert_int_equal(access(out, F_OK), -1);
}

int main(void) {
    shogi_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_yo_fixture),           cmocka_unit_test(test_check_fixture),
        cmocka_unit_test(test_tree_negamax),         cmocka_unit_test(test_repetition_is_draw),
        cmocka_unit_test(test_pure_perpetual_check), cmocka_unit_test(test_flipped_twins),
        cmocka_unit_test(test_threads_same_result),  cmocka_unit_test(test_converge_flipped_counts),
        cmocka_unit_test(test_file_hand_books),      cmocka_unit_test(test_file_random_books),
        cmocka_unit_test(test_sweep_twins),          cmocka_unit_test(test_file_declines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
