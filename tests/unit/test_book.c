/* test_book.c - the book IR (keys, merge rules, stats, memory), move selection with
 * YaneuraOu's options, and the read-only YBB and Apery readers on ShogiHome's samples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "book/apery.h"
#include "book/book.h"
#include "book/select.h"
#include "book/ybb.h"
#include "shogi/game.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"
#include "util/random.h"

#define AFTER_76 "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"

static Move16 m16(const char *usi) {
    Move16 m;
    if (!move16_from_usi(usi, strlen(usi), &m))
        fail_msg("bad move %s", usi);
    return m;
}

static BookMove bm(const char *usi, const char *ponder, int score, int depth, uint64_t count) {
    BookMove m = {
        .move = m16(usi), .score = score, .has_score = true, .depth = depth, .has_depth = true, .count = count};
    m.ponder = ponder ? m16(ponder) : MOVE_NONE;
    return m;
}

static uint32_t add_sfen(Book *b, const char *sfen) {
    BookKey k;
    int ply;
    uint32_t id;
    char err[128];
    if (!book_key_from_sfen(sfen, &k, &ply, err, sizeof err))
        fail_msg("%s: %s", sfen, err);
    assert_true(book_add_position(b, &k, ply, &id));
    return id;
}

static void test_key_ignores_ply_and_hand_order(void **state) {
    (void)state;
    BookKey a, b, c;
    int ply;
    assert_true(book_key_from_sfen("4k4/9/9/9/9/9/9/9/4K4 b 2PS2p 7", &a, &ply, NULL, 0));
    assert_int_equal(ply, 7);
    assert_true(book_key_from_sfen("4k4/9/9/9/9/9/9/9/4K4 b S2P2p 31", &b, &ply, NULL, 0));
    assert_memory_equal(a.data, b.data, 32);
    assert_true(book_key_from_sfen("4k4/9/9/9/9/9/9/9/4K4 w S2P2p 31", &c, NULL, NULL, 0));
    assert_memory_not_equal(a.data, c.data, 32);
    char err[128];
    assert_false(book_key_from_sfen("4k4/9/9/9 b - 1", &c, NULL, err, sizeof err));
}

/* A transposition: 7g7f 3c3d 2g2f and 2g2f 3c3d 7g7f meet; a later ply still hits. */
static void test_transposition_hits(void **state) {
    (void)state;
    Book *b = book_create();
    uint32_t id = add_sfen(b, "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P4P1/PP1PPPP1P/1B5R1/LNSGKGSNL w - 4");
    BookMove m = bm("8c8d", NULL, 10, 20, 3);
    assert_true(book_add_move(b, id, &m, NULL));
    Position pos;
    StateInfo st;
    assert_true(position_from_sfen(&pos, &st, "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P4P1/PP1PPPP1P/1B5R1/LNSGKGSNL w - 40",
                                   NULL, 0));
    BookMoveList *list = malloc(sizeof *list);
    assert_true(book_lookup(b, &pos, list));
    assert_int_equal(list->n, 1);
    assert_int_equal(list->ply, 4);
    assert_int_equal(list->moves[0].move, m16("8c8d"));
    /* A smaller ply lowers the stored one, a larger one does not. */
    assert_int_equal(add_sfen(b, "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P4P1/PP1PPPP1P/1B5R1/LNSGKGSNL w - 2"), id);
    assert_int_equal(add_sfen(b, "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P4P1/PP1PPPP1P/1B5R1/LNSGKGSNL w - 9"), id);
    assert_int_equal(book_position_ply(b, id), 2);
    assert_int_equal(book_position_count(b), 1);
    free(list);
    book_free(b);
}

/* Duplicate moves merge as YaneuraOu's insert(overwrite): counts summed, the newer
 * ponder/score/depth win when present. */
static void test_duplicate_moves_merge(void **state) {
    (void)state;
    Book *b = book_create();
    uint32_t id = add_sfen(b, STARTPOS_SFEN);
    BookMove first = bm("7g7f", "3c3d", 50, 16, 10);
    BookMove second = {.move = m16("7g7f"), .count = 5}; /* no ponder, score or depth */
    BookMove third = bm("7g7f", "8c8d", 40, 20, 1);
    bool merged;
    assert_true(book_add_move(b, id, &first, &merged));
    assert_false(merged);
    assert_true(book_add_move(b, id, &second, &merged));
    assert_true(merged);
    BookMoveList *list = malloc(sizeof *list);
    book_position_moves(b, id, list);
    assert_int_equal(list->n, 1);
    assert_int_equal(list->moves[0].count, 15);
    assert_int_equal(list->moves[0].score, 50);
    assert_int_equal(list->moves[0].ponder, m16("3c3d"));
    assert_true(book_add_move(b, id, &third, NULL));
    book_position_moves(b, id, list);
    assert_int_equal(list->moves[0].count, 16);
    assert_int_equal(list->moves[0].score, 40);
    assert_int_equal(list->moves[0].depth, 20);
    assert_int_equal(list->moves[0].ponder, m16("8c8d"));
    /* Counts saturate instead of wrapping. */
    BookMove huge = bm("2g2f", NULL, 0, 0, UINT64_MAX);
    assert_true(book_add_move(b, id, &huge, NULL));
    assert_true(book_add_move(b, id, &huge, NULL));
    book_position_moves(b, id, list);
    assert_int_equal(list->moves[1].count, BOOK_COUNT_MAX);
    assert_int_equal(book_move_count(b), 2);
    free(list);
    book_free(b);
}

/* Interleaved additions relocate move lists; compaction and shrinking keep every list. */
static void test_relocation_and_shrink(void **state) {
    (void)state;
    Book *b = book_create();
    uint32_t ids[3] = {add_sfen(b, STARTPOS_SFEN), add_sfen(b, AFTER_76),
                       add_sfen(b, "lnsgkgsnl/1r5b1/ppppppppp/9/9/7P1/PPPPPPP1P/1B5R1/LNSGKGSNL w - 2")};
    const char *black[] = {"7g7f", "2g2f", "5g5f", "6g6f", "1g1f", "9g9f", "3g3f", "4g4f"};
    const char *white[] = {"3c3d", "8c8d", "5c5d", "4c4d", "1c1d", "9c9d", "7c7d", "6c6d"};
    for (int i = 0; i < 8; i++)
        for (int p = 0; p < 3; p++) {
            BookMove m = bm(p == 0 ? black[i] : white[i], NULL, i, i, (uint64_t)(p + 1));
            assert_true(book_add_move(b, ids[p], &m, NULL));
        }
    assert_true(book_shrink(b));
    BookMoveList *list = malloc(sizeof *list);
    for (int p = 0; p < 3; p++) {
        assert_int_equal(book_position_moves(b, ids[p], list), 8);
        for (int i = 0; i < 8; i++) {
            assert_int_equal(list->moves[i].move, m16(p == 0 ? black[i] : white[i]));
            assert_int_equal(list->moves[i].score, i);
            assert_int_equal(list->moves[i].count, p + 1);
        }
    }
    uint32_t *sorted = book_sorted_ids(b);
    assert_non_null(sorted);
    for (int i = 1; i < 3; i++) {
        BookKey x, y;
        book_position_key(b, sorted[i - 1], &x);
        book_position_key(b, sorted[i], &y);
        assert_true(memcmp(x.data, y.data, 32) < 0);
    }
    free(sorted);
    free(list);
    book_free(b);
}

/* book_shrink leaves a one-position book with a capacity of one, and the
 * old growth rule (cap + cap / 2) kept it at one and wrote the next position past the
 * block (ASan: heap-buffer-overflow; the release build trampled the next allocation).
 * Every position and move added after the shrink must read back. */
static void test_grow_after_shrink_to_one(void **state) {
    (void)state;
    Book *b = book_create();
    uint32_t first = add_sfen(b, STARTPOS_SFEN);
    BookMove m = bm("7g7f", NULL, 10, 1, 1);
    assert_true(book_add_move(b, first, &m, NULL));
    assert_true(book_shrink(b));
    uint32_t ids[40];
    Game g;
    game_init(&g);
    char why[128];
    const char *line[] = {"7g7f", "3c3d", "2g2f", "8c8d", "2f2e", "8d8e",  "6i7h", "4a3b", "2e2d", "2c2d",
                          "2h2d", "8e8f", "8g8f", "8b8f", "2d3d", "2b8h+", "7i8h", "3a2b", "3d3e", "P*2c"};
    int n = 0;
    char usi[512] = "startpos moves";
    for (int i = 0; i < 20; i++) {
        strcat(usi, " ");
        strcat(usi, line[i]);
        if (!game_set_from_usi(&g, usi, why, sizeof why))
            fail_msg("%s: %s", usi, why);
        char sfen[SFEN_MAX];
        position_to_sfen(&g.pos, sfen, false);
        ids[n++] = add_sfen(b, sfen);
        BookMove r = bm(i + 1 < 20 ? line[i + 1] : "1g1f", NULL, i, 2, (uint64_t)i + 2);
        assert_true(book_add_move(b, ids[n - 1], &r, NULL));
    }
    assert_int_equal(book_position_count(b), 21);
    BookMoveList *list = malloc(sizeof *list);
    assert_int_equal(book_position_moves(b, first, list), 1);
    assert_int_equal(list->moves[0].count, 1);
    for (int i = 0; i < n; i++) {
        assert_int_equal(book_position_moves(b, ids[i], list), 1);
        assert_int_equal(list->moves[0].count, (uint64_t)i + 2);
    }
    free(list);
    game_free(&g);
    book_free(b);
}

static void test_sort_moves_order(void **state) {
    (void)state;
    BookMove v[4] = {bm("7g7f", NULL, 10, 0, 5), bm("2g2f", NULL, 30, 0, 5), bm("5g5f", NULL, 99, 0, 1),
                     bm("6g6f", NULL, 30, 0, 5)};
    book_sort_moves(v, 4);
    assert_int_equal(v[0].move, m16("2g2f")); /* count 5, score 30, first of the tie */
    assert_int_equal(v[1].move, m16("6g6f"));
    assert_int_equal(v[2].move, m16("7g7f"));
    assert_int_equal(v[3].move, m16("5g5f"));
}

static void test_stats_and_comments(void **state) {
    (void)state;
    Book *b = book_create();
    uint32_t id = add_sfen(b, STARTPOS_SFEN);
    BookStats s;
    assert_false(book_has_stats(b));
    assert_false(book_get_stats(b, id, MOVE_NONE, &s));
    BookStats in = {
        .games = 7, .black_wins = 4, .white_wins = 2, .weight = 2000, .eval_symbol = 3, .comment = "joseki"};
    assert_true(book_set_stats(b, id, m16("7g7f"), &in));
    assert_true(book_append_comment(b, id, MOVE_NONE, "line 1", 6));
    assert_true(book_append_comment(b, id, MOVE_NONE, "line 2", 6));
    assert_true(book_get_stats(b, id, m16("7g7f"), &s));
    assert_int_equal(s.games, 7);
    assert_int_equal(s.black_wins, 4);
    assert_int_equal(s.weight, 2000);
    assert_string_equal(s.comment, "joseki");
    assert_true(book_get_stats(b, id, MOVE_NONE, &s));
    assert_string_equal(s.comment, "line 1\nline 2");
    assert_false(book_get_stats(b, id, m16("2g2f"), &s));
    Book *c = book_create();
    assert_true(book_merge(c, b));
    assert_true(book_get_stats(c, 0, m16("7g7f"), &s));
    assert_string_equal(s.comment, "joseki");
    book_free(c);
    book_free(b);
}

/* The compact layout: at most 100 bytes per position for 3.5 moves per position. */
static void test_memory_per_position(void **state) {
    (void)state;
    Book *b = book_create();
    uint64_t seed = 12345;
    ExtMove moves[MAX_MOVES];
    StateInfo st[130];
    size_t want = 200000;
    while (book_position_count(b) < want) {
        Position pos;
        position_set_startpos(&pos, &st[0]);
        for (int ply = 0; ply < 120; ply++) {
            int n = generate_moves(&pos, GEN_LEGAL, moves);
            if (!n)
                break;
            BookKey k;
            uint32_t id;
            book_key_from_position(&pos, &k);
            assert_true(book_add_position(b, &k, pos.ply, &id));
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            int cand = 2 + (int)((seed >> 33) % 4);
            for (int c = 0; c < cand && c < n && book_position_move_count(b, id) < cand; c++) {
                BookMove m = {.move = move_to_move16(moves[(c * 7 + (int)(seed >> 40)) % n].move), .count = 1};
                assert_true(book_add_move(b, id, &m, NULL));
            }
            position_do_move(&pos, moves[(seed >> 20) % (uint64_t)n].move, &st[ply + 1]);
        }
    }
    assert_true(book_shrink(b));
    double per = (double)book_memory_bytes(b) / (double)book_position_count(b);
    double moves_per = (double)book_move_count(b) / (double)book_position_count(b);
    print_message("%zu positions, %.2f moves each, %.1f bytes per position\n", book_position_count(b), moves_per, per);
    assert_true(moves_per > 3.0);
    assert_true(per <= 100.0);
    book_free(b);
}

static void test_flip(void **state) {
    (void)state;
    BookKey k, f, ff;
    assert_true(
        book_key_from_sfen("lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P4P1/PP1PPPP1P/1B5R1/LNSGKGSNL w - 4", &k, NULL, NULL, 0));
    assert_true(book_key_flip(&k, &f));
    assert_true(book_key_flip(&f, &ff));
    assert_memory_equal(k.data, ff.data, 32);
    Position pos;
    StateInfo st;
    assert_true(book_key_to_position(&f, &pos, &st, 1));
    char sfen[SFEN_MAX];
    assert_string_equal(position_to_sfen(&pos, sfen, false),
                        "lnsgkgsnl/1r5b1/p1pppp1pp/1p4p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b -");
    /* Promoted pieces and hands survive the flip both ways. */
    assert_true(
        book_key_from_sfen("lnsgk2nl/1r4g2/p1ppppspp/9/9/2P6/PP1PPPP+bP/7R1/LNSGKGSNL b Bp 12", &k, NULL, NULL, 0));
    assert_true(book_key_flip(&k, &f));
    assert_true(book_key_to_position(&f, &pos, &st, 1));
    assert_string_equal(position_to_sfen(&pos, sfen, false),
                        "lnsgkgsnl/1r7/p+Bpppp1pp/6p2/9/9/PPSPPPP1P/2G4R1/LN2KGSNL w Pb");
    assert_true(book_key_flip(&f, &ff));
    assert_memory_equal(k.data, ff.data, 32);
    assert_int_equal(book_move_flip(m16("7g7f")), m16("3c3d"));
    assert_int_equal(book_move_flip(m16("8h2b+")), m16("2b8h+"));
    assert_int_equal(book_move_flip(m16("P*5e")), m16("P*5e"));
    assert_int_equal(book_move_flip(m16("B*1a")), m16("B*9i"));
    assert_int_equal(book_move_flip(MOVE_NONE), MOVE_NONE);
}

/* The first book_key_flip(), kept as the reference the direct one is held to: decode the
 * key, print SFEN, reverse the cells and swap the case, parse again. */
static bool flip_via_sfen_text(const BookKey *key, BookKey *flipped) {
    Position pos;
    StateInfo st;
    if (!book_key_to_position(key, &pos, &st, 1))
        return false;
    char sfen[SFEN_MAX], out[SFEN_MAX + 8];
    position_to_sfen(&pos, sfen, false);
    char cells[SQ_NB][3];
    int ncell = 0;
    const char *p = sfen;
    for (; *p && *p != ' '; p++) {
        if (*p == '/')
            continue;
        if (*p >= '1' && *p <= '9') {
            for (int k = 0; k < *p - '0' && ncell < SQ_NB; k++)
                cells[ncell++][0] = '\0';
        } else if (ncell < SQ_NB) {
            int len = 0;
            if (*p == '+')
                cells[ncell][len++] = *p++;
            cells[ncell][len++] = (char)(*p >= 'a' ? *p - 32 : *p + 32);
            cells[ncell++][len] = '\0';
        }
    }
    assert_int_equal(ncell, SQ_NB);
    char *o = out;
    for (int r = 0; r < 9; r++) {
        int empty = 0;
        for (int f = 0; f < 9; f++) {
            const char *c = cells[SQ_NB - 1 - (r * 9 + f)];
            if (!*c) {
                empty++;
                continue;
            }
            if (empty)
                *o++ = (char)('0' + empty);
            empty = 0;
            o += sprintf(o, "%s", c);
        }
        if (empty)
            *o++ = (char)('0' + empty);
        if (r < 8)
            *o++ = '/';
    }
    p++; /* " side hands" */
    *o++ = ' ';
    *o++ = *p++ == 'b' ? 'w' : 'b';
    *o++ = *p++;
    for (; *p; p++)
        *o++ = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p >= 'a' && *p <= 'z' ? *p - 32 : *p);
    *o = '\0';
    return book_key_from_sfen(out, flipped, NULL, NULL, 0);
}

/* book_key_flip() flips the PackedSfen directly (and packed_sfen_encode_flipped() encodes
 * the flip from the position); on every position of random games
 * (drops, promotions, captures, full hands late in the games) it must give the bytes the
 * SFEN-text route gives, and twice flipped the key itself; on random bytes it must refuse
 * exactly what the text route refuses. */
static void test_flip_matches_sfen_text(void **state) {
    (void)state;
    uint64_t seed = 20261206;
    StateInfo *st = malloc(sizeof *st * 301);
    ExtMove moves[MAX_MOVES];
    int checked = 0, with_hands = 0;
    for (int game = 0; game < 60; game++) {
        Position pos;
        position_set_startpos(&pos, &st[0]);
        for (int ply = 0; ply < 300; ply++) {
            BookKey k, direct, text, back;
            book_key_from_position(&pos, &k);
            assert_true(book_key_flip(&k, &direct));
            assert_true(flip_via_sfen_text(&k, &text));
            assert_memory_equal(direct.data, text.data, sizeof direct.data);
            PackedSfen from_position; /* the flip encoded straight from the position */
            packed_sfen_encode_flipped(&pos, &from_position);
            assert_memory_equal(from_position.data, text.data, sizeof text.data);
            assert_true(book_key_flip(&direct, &back));
            assert_memory_equal(back.data, k.data, sizeof k.data);
            checked++;
            with_hands += pos.hand[BLACK] != 0 && pos.hand[WHITE] != 0;
            int n = generate_moves(&pos, GEN_LEGAL, moves);
            if (!n)
                break;
            position_do_move(&pos, moves[random_xorshift64star(&seed) % (uint64_t)n].move, &st[ply + 1]);
        }
    }
    free(st);
    print_message("%d positions flipped, %d with pieces in both hands\n", checked, with_hands);
    assert_true(checked > 10000);
    assert_true(with_hands > 1000);
    int refused = 0;
    for (int i = 0; i < 20000; i++) {
        BookKey k, direct, text;
        for (int j = 0; j < 32; j += 8) {
            uint64_t r = random_xorshift64star(&seed);
            memcpy(k.data + j, &r, 8);
        }
        bool a = book_key_flip(&k, &direct), b = flip_via_sfen_text(&k, &text);
        assert_int_equal(a, b);
        if (a)
            assert_memory_equal(direct.data, text.data, sizeof direct.data);
        refused += !a;
    }
    assert_true(refused > 0);
}

/* ---- selection ---- */

static Book *select_book(void) {
    Book *b = book_create();
    uint32_t id = add_sfen(b, STARTPOS_SFEN);
    BookMove moves[] = {bm("2g2f", "8c8d", 60, 20, 50), bm("7g7f", NULL, 40, 20, 30), bm("5g5f", NULL, 20, 20, 20),
                        bm("1g1f", NULL, -10, 20, 10), bm("1i1g", NULL, 100, 20, 0) /* illegal: own pawn on 1g */};
    for (size_t i = 0; i < sizeof moves / sizeof moves[0]; i++)
        assert_true(book_add_move(b, id, &moves[i], NULL));
    /* After 7g7f: an entry, so 7g7f gets its ponder from there. */
    id = add_sfen(b, AFTER_76);
    BookMove reply = bm("3c3d", NULL, -40, 20, 9);
    assert_true(book_add_move(b, id, &reply, NULL));
    return b;
}

static void test_select_filters(void **state) {
    (void)state;
    Book *b = select_book();
    BookSource src = book_source_memory(b);
    BookSelectOptions o;
    book_select_defaults(&o);
    Position pos;
    StateInfo st;
    position_set_startpos(&pos, &st);
    BookChoice ch;
    uint64_t rng = 42;
    char why[256];
    /* Sorted by count: 2g2f (60) first; BookEvalDiff 30 keeps scores >= 30: 2g2f, 7g7f. */
    int seen2g = 0, seen7g = 0;
    for (int i = 0; i < 200; i++) {
        assert_int_equal(book_select(&src, &pos, &o, &rng, &ch, why, sizeof why), BOOK_SELECT_HIT);
        assert_int_equal(ch.candidates, 2);
        char u[USI_MOVE_MAX];
        move_to_usi(ch.move, u);
        if (!strcmp(u, "2g2f")) {
            seen2g++;
            assert_int_equal(move_to_move16(ch.ponder), m16("8c8d"));
        } else {
            assert_string_equal(u, "7g7f");
            seen7g++;
            assert_int_equal(move_to_move16(ch.ponder), m16("3c3d")); /* from the next entry */
        }
    }
    assert_true(seen2g > 50 && seen7g > 50);
    /* BookEvalDiff 0: only the first. */
    o.eval_diff = 0;
    assert_int_equal(book_select(&src, &pos, &o, &rng, &ch, NULL, 0), BOOK_SELECT_HIT);
    assert_int_equal(ch.candidates, 1);
    assert_int_equal(move_to_move16(ch.move), m16("2g2f"));
    /* A black limit above every score filters everything. */
    book_select_defaults(&o);
    o.eval_black_limit = 70;
    assert_int_equal(book_select(&src, &pos, &o, &rng, &ch, why, sizeof why), BOOK_SELECT_FILTERED);
    /* A large diff and low limit keep the four legal moves; 1i1g never appears. */
    o.eval_black_limit = -1000;
    o.eval_diff = 1000;
    assert_int_equal(book_select(&src, &pos, &o, &rng, &ch, NULL, 0), BOOK_SELECT_HIT);
    assert_int_equal(ch.candidates, 4);
    /* NarrowBook drops 1g1f (10 of 110 < 10%? no: 9.09%). */
    o.narrow_book = true;
    assert_int_equal(book_select(&src, &pos, &o, &rng, &ch, NULL, 0), BOOK_SELECT_HIT);
    assert_int_equal(ch.candidates, 3);
    /* BookDepthLimit above the first move's depth refuses the hit; 0 ignores depth. */
    book_select_defaults(&o);
    o.depth_limit = 21;
    assert_int_equal(book_select(&src, &pos, &o, &rng, &ch, NULL, 0), BOOK_SELECT_FILTERED);
    o.depth_limit = 0;
    assert_int_equal(book_select(&src, &pos, &o, &rng, &ch, NULL, 0), BOOK_SELECT_HIT);
    /* BookIgnoreRate 100 always thinks; BookMoves below the ply stops the book. */
    o.ignore_rate = 100;
    assert_int_equal(book_select(&src, &pos, &o, &rng, &ch, NULL, 0), BOOK_SELECT_IGNORED);
    o.ignore_rate = 0;
    o.book_moves = 0;
    assert_int_equal(book_select(&src, &pos, &o, &rng, &ch, NULL, 0), BOOK_SELECT_PLY_LIMIT);
    /* A position that is not in the book. */
    book_select_defaults(&o);
    StateInfo st2;
    Move m = position_parse_usi_move(&pos, "9g9f");
    position_do_move(&pos, m, &st2);
    assert_int_equal(book_select(&src, &pos, &o, &rng, &ch, NULL, 0), BOOK_SELECT_MISS);
    position_undo_move(&pos, m);
    book_free(b);
}

/* The most played move is not the best scored one: BookEvalDiff counts from the best. */
static void test_select_eval_diff_from_best(void **state) {
    (void)state;
    Book *b = book_create();
    uint32_t id = add_sfen(b, STARTPOS_SFEN);
    BookMove moves[] = {bm("2g2f", NULL, -50, 20, 100), bm("7g7f", NULL, 60, 20, 1), bm("5g5f", NULL, 35, 20, 2)};
    for (size_t i = 0; i < sizeof moves / sizeof moves[0]; i++)
        assert_true(book_add_move(b, id, &moves[i], NULL));
    BookSource src = book_source_memory(b);
    BookSelectOptions o;
    book_select_defaults(&o);
    o.eval_black_limit = -1000;
    Position pos;
    StateInfo st;
    position_set_startpos(&pos, &st);
    BookChoice ch;
    uint64_t rng = 3;
    for (int i = 0; i < 50; i++) {
        assert_int_equal(book_select(&src, &pos, &o, &rng, &ch, NULL, 0), BOOK_SELECT_HIT);
        assert_int_equal(ch.candidates, 2); /* 7g7f (60) and 5g5f (35), not 2g2f (-50) */
        assert_int_not_equal(move_to_move16(ch.move), m16("2g2f"));
    }
    book_free(b);
}

static void test_select_reproducible_and_weighted(void **state) {
    (void)state;
    Book *b = select_book();
    BookSource src = book_source_memory(b);
    BookSelectOptions o;
    book_select_defaults(&o);
    o.eval_diff = 1000;
    o.eval_black_limit = -1000;
    o.consider_count = true;
    Position pos;
    StateInfo st;
    position_set_startpos(&pos, &st);
    int counts[4] = {0};
    const char *names[4] = {"2g2f", "7g7f", "5g5f", "1g1f"};
    Move first[64];
    uint64_t rng = 7;
    for (int i = 0; i < 11000; i++) {
        BookChoice ch;
        assert_int_equal(book_select(&src, &pos, &o, &rng, &ch, NULL, 0), BOOK_SELECT_HIT);
        if (i < 64)
            first[i] = ch.move;
        for (int k = 0; k < 4; k++)
            counts[k] += move_to_move16(ch.move) == m16(names[k]);
    }
    /* Counts 50:30:20:10 of 110: expect about 5000, 3000, 2000, 1000. */
    assert_true(counts[0] > 4500 && counts[0] < 5500);
    assert_true(counts[1] > 2600 && counts[1] < 3400);
    assert_true(counts[2] > 1700 && counts[2] < 2300);
    assert_true(counts[3] > 800 && counts[3] < 1200);
    rng = 7;
    for (int i = 0; i < 64; i++) {
        BookChoice ch;
        book_select(&src, &pos, &o, &rng, &ch, NULL, 0);
        assert_int_equal(ch.move, first[i]);
    }
    book_free(b);
}

static void test_select_flipped_and_ply(void **state) {
    (void)state;
    /* Only black's view of a position is stored; white to move in the mirror image hits
     * through FlippedBook, with the move mirrored. */
    Book *b = book_create();
    uint32_t id = add_sfen(b, "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3");
    BookMove m = bm("2g2f", "8c8d", 50, 20, 1);
    assert_true(book_add_move(b, id, &m, NULL));
    BookSource src = book_source_memory(b);
    BookSelectOptions o;
    book_select_defaults(&o);
    Position pos;
    StateInfo st;
    assert_true(
        position_from_sfen(&pos, &st, "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 2", NULL, 0));
    BookChoice ch;
    uint64_t rng = 1;
    assert_int_equal(book_select(&src, &pos, &o, &rng, &ch, NULL, 0), BOOK_SELECT_HIT);
    assert_true(ch.flipped);
    assert_int_equal(move_to_move16(ch.move), m16("8c8d"));
    assert_int_equal(move_to_move16(ch.ponder), m16("2g2f"));
    o.flipped_book = false;
    assert_int_equal(book_select(&src, &pos, &o, &rng, &ch, NULL, 0), BOOK_SELECT_MISS);
    /* IgnoreBookPly false wants the stored ply. */
    book_select_defaults(&o);
    o.ignore_book_ply = false;
    assert_true(
        position_from_sfen(&pos, &st, "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 5", NULL, 0));
    assert_int_equal(book_select(&src, &pos, &o, &rng, &ch, NULL, 0), BOOK_SELECT_MISS);
    assert_true(
        position_from_sfen(&pos, &st, "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3", NULL, 0));
    assert_int_equal(book_select(&src, &pos, &o, &rng, &ch, NULL, 0), BOOK_SELECT_HIT);
    book_free(b);
}

static void test_select_illegal_ponder_dropped(void **state) {
    (void)state;
    Book *b = book_create();
    uint32_t id = add_sfen(b, STARTPOS_SFEN);
    BookMove m = bm("7g7f", "7g7f", 50, 20, 1); /* ponder illegal for white */
    assert_true(book_add_move(b, id, &m, NULL));
    BookSource src = book_source_memory(b);
    BookSelectOptions o;
    book_select_defaults(&o);
    Position pos;
    StateInfo st;
    position_set_startpos(&pos, &st);
    BookChoice ch;
    uint64_t rng = 3;
    assert_int_equal(book_select(&src, &pos, &o, &rng, &ch, NULL, 0), BOOK_SELECT_HIT);
    assert_int_equal(ch.ponder, MOVE_NONE);
    Move pv[8];
    assert_int_equal(book_build_pv(&src, &pos, &o, ch.move, 8, pv), 1);
    char sfen[SFEN_MAX];
    assert_string_equal(position_to_sfen(&pos, sfen, true), STARTPOS_SFEN);
    book_free(b);
}

/* ---- YBB and Apery samples ---- */

static void test_ybb_sample(void **state) {
    (void)state;
    Book *b = book_create();
    char err[256];
    if (!ybb_read_file("../shared/refdata/ybb/shogihome/yaneuraou.ybb", b, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(book_position_count(b), 5);
    assert_int_equal(book_move_count(b), 18);
    Position pos;
    StateInfo st;
    position_set_startpos(&pos, &st);
    BookMoveList *list = malloc(sizeof *list);
    assert_true(book_lookup(b, &pos, list));
    assert_int_equal(list->n, 5);
    assert_int_equal(list->ply, 1);
    assert_int_equal(list->moves[0].move, m16("2g2f"));
    assert_int_equal(list->moves[0].score, 63);
    assert_int_equal(list->moves[0].depth, 27);
    assert_int_equal(list->moves[4].move, m16("3g3f"));
    assert_int_equal(list->moves[4].score, -74);
    assert_int_equal(list->moves[4].depth, 18);
    assert_int_equal(list->moves[0].ponder, MOVE_NONE); /* YBB has no ponder */
    book_free(b);
    /* The edited sample reads too; truncated and bad-magic data are refused. */
    b = book_create();
    if (!ybb_read_file("../shared/refdata/ybb/shogihome/yaneuraou-edit.ybb", b, err, sizeof err))
        fail_msg("%s", err);
    assert_true(book_position_count(b) >= 5);
    book_free(b);
    FILE *f = fopen("../shared/refdata/ybb/shogihome/yaneuraou.ybb", "rb");
    assert_non_null(f);
    unsigned char data[512];
    size_t n = fread(data, 1, sizeof data, f);
    fclose(f);
    for (size_t cut = 0; cut < n; cut += 7) {
        b = book_create();
        bool ok = ybb_read_memory("cut", data, cut, b, err, sizeof err);
        assert_false(ok && cut < 32);
        book_free(b);
    }
    /* A move that is no move (found by fuzz_book_open: a drop with the promotion bit, which
     * DB2016 then wrote as text nobody can read back) is refused. The first move entry
     * follows the 32-byte header and the 5 records of 44 bytes. */
    unsigned char bad[512];
    memcpy(bad, data, n);
    bad[32 + 5 * 44] = 0x08, bad[32 + 5 * 44 + 1] = 0xb3;
    b = book_create();
    assert_false(ybb_read_memory("bad move", bad, n, b, err, sizeof err));
    assert_non_null(strstr(err, "is no move"));
    book_free(b);
    data[3] = 'X';
    b = book_create();
    assert_false(ybb_read_memory("magic", data, n, b, err, sizeof err));
    assert_non_null(strstr(err, "not a YBB book"));
    book_free(b);
    free(list);
}

static void test_apery_sample(void **state) {
    (void)state;
    char err[256];
    AperyBook *ab = apery_open("../shared/refdata/apery/shogihome/apery.bin", err, sizeof err);
    if (!ab)
        fail_msg("%s", err);
    assert_int_equal(apery_entry_count(ab), 21);
    assert_int_equal(apery_key_count(ab), 19);
    Position pos;
    StateInfo st;
    position_set_startpos(&pos, &st);
    /* The start position's entry is at byte 0x110 of the file. */
    assert_true(apery_key(ab, &pos) == 0xeebe8ee7e1ad7e15ull);
    BookMoveList *list = malloc(sizeof *list);
    assert_true(apery_lookup(ab, &pos, list));
    assert_int_equal(list->n, 1);
    assert_int_equal(list->moves[0].move, m16("2g2f"));
    assert_int_equal(list->moves[0].score, 30);
    assert_int_equal(list->moves[0].count, 100);
    /* After 2g2f 3c3d 7g7f: three moves 4c4d 69, 3d3e 23, 2c2d 8. */
    Game g;
    game_init(&g);
    assert_true(game_set_from_usi(&g, "startpos moves 2g2f 3c3d 7g7f", err, sizeof err));
    assert_true(apery_lookup(ab, &g.pos, list));
    assert_int_equal(list->n, 3);
    assert_int_equal(list->moves[0].move, m16("4c4d"));
    assert_int_equal(list->moves[0].count, 69);
    assert_int_equal(list->moves[0].score, -30);
    assert_int_equal(list->moves[2].move, m16("2c2d"));
    assert_int_equal(list->moves[2].count, 8);
    game_free(&g);
    /* Conversion recovers every key from the start position, without collisions. */
    Book *b = book_create();
    AperyConvertStats cs;
    assert_true(apery_to_book(ab, 1, b, &cs, err, sizeof err));
    assert_int_equal(cs.positions, 19);
    assert_int_equal(cs.collisions, 0);
    assert_int_equal(cs.unreached, 0);
    assert_int_equal(book_move_count(b), 21);
    /* Ponder filled from the next position's best move: 2g2f -> 3c3d. */
    assert_true(book_lookup(b, &pos, list));
    assert_int_equal(list->moves[0].ponder, m16("3c3d"));
    assert_int_equal(list->moves[0].count, 100);
    book_free(b);
    apery_free(ab);
    /* The merged sample, and a size that is not a multiple of 16. */
    ab = apery_open("../shared/refdata/apery/shogihome/apery-merge.bin", err, sizeof err);
    assert_non_null(ab);
    assert_int_equal(apery_entry_count(ab), 22);
    apery_free(ab);
    assert_null(apery_open_memory("odd", "0123456789abcdefX", 17, err, sizeof err));
    assert_non_null(strstr(err, "multiple of 16"));
    free(list);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_ignores_ply_and_hand_order),
        cmocka_unit_test(test_transposition_hits),
        cmocka_unit_test(test_duplicate_moves_merge),
        cmocka_unit_test(test_relocation_and_shrink),
        cmocka_unit_test(test_grow_after_shrink_to_one),
        cmocka_unit_test(test_sort_moves_order),
        cmocka_unit_test(test_stats_and_comments),
        cmocka_unit_test(test_memory_per_position),
        cmocka_unit_test(test_flip),
        cmocka_unit_test(test_flip_matches_sfen_text),
        cmocka_unit_test(test_select_filters),
        cmocka_unit_test(test_select_eval_diff_from_best),
        cmocka_unit_test(test_select_reproducible_and_weighted),
        cmocka_unit_test(test_select_flipped_and_ply),
        cmocka_unit_test(test_select_illegal_ponder_dropped),
        cmocka_unit_test(test_ybb_sample),
        cmocka_unit_test(test_apery_sample),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
