/* test_osl.c - the OSL WeightedBook reader: small books written here byte by byte (the
 * layout of osl/book/openingBook.h and compactBoard.h), each hostile variant refused with
 * its byte offset, and GPS Shogi's real joseki.dat (package gpsshogi-data) against what
 * gpsusi itself prints for it with Verbose=1 and BookDepth=100: at the start position
 * "book 18.0518% (c.f. 81.9482 +7776FU)" for 2g2f, state 0 -> 3 after 7g7f and 0 -> 195
 * after 2g2f, then 3c3d at 59.2559% and 8c8d at 51.8952%. */
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
#include "book/osl.h"
#include "book/sbk.h"
#include "shogi/game.h"
#include "shogi/notation.h"

#define JOSEKI "/usr/share/gpsshogi-data/data/joseki.dat"

/* Our piece type -> OSL ptype. */
static const int OSL_OF[PIECE_TYPE_NB] = {0, 10, 11, 12, 13, 14, 15, 9, 8, 2, 3, 4, 5, 6, 7};

static void put32(uint8_t *p, int32_t v) {
    uint32_t u = (uint32_t)v;
    p[0] = (uint8_t)(u >> 24), p[1] = (uint8_t)(u >> 16), p[2] = (uint8_t)(u >> 8), p[3] = (uint8_t)u;
}

static int sq_bits(Square sq) { return (square_file(sq) + 1) << 4 | (square_rank(sq) + 1); }

static int32_t piece_word(Color c, PieceType pt, int bits) {
    return (int32_t)((c == WHITE ? 0xfff00000u : 0u) | (uint32_t)OSL_OF[pt] << 16 | (uint32_t)bits);
}

typedef struct {
    const char *usi;
    int child, weight;
} TMove;

typedef struct {
    const char *sfen;
    int bw, ww;
    int n;
    TMove m[4];
} TState;

typedef struct {
    uint8_t *d;
    size_t len;
    size_t states_at, moves_at, boards_at;
} TFile;

static void set_position(Position *pos, StateInfo *st, const char *sfen) {
    char err[128];
    if (!position_from_sfen(pos, st, sfen, err, sizeof err))
        fail_msg("%s: %s", sfen, err);
}

/* Writes an OSL book of n states as OSL would (pieces sorted does not matter to readers). */
static TFile build(const TState *s, int n, int start) {
    int moves = 0;
    for (int i = 0; i < n; i++)
        moves += s[i].n;
    TFile f;
    f.len = 16 + (size_t)n * 180 + (size_t)moves * 12;
    f.d = calloc(1, f.len);
    assert_non_null(f.d);
    f.states_at = 16, f.moves_at = 16 + 16 * (size_t)n, f.boards_at = f.moves_at + 12 * (size_t)moves;
    put32(f.d, 1), put32(f.d + 4, n), put32(f.d + 8, moves), put32(f.d + 12, start);
    int mi = 0;
    for (int i = 0; i < n; i++) {
        Position pos;
        StateInfo st;
        set_position(&pos, &st, s[i].sfen);
        uint8_t *sp = f.d + f.states_at + 16 * (size_t)i;
        put32(sp, mi), put32(sp + 4, s[i].n), put32(sp + 8, s[i].bw), put32(sp + 12, s[i].ww);
        for (int k = 0; k < s[i].n; k++, mi++) {
            Move16 m16;
            assert_true(move16_from_usi(s[i].m[k].usi, strlen(s[i].m[k].usi), &m16));
            Move m = position_legal_move_from16(&pos, m16);
            assert_int_not_equal(m, MOVE_NONE);
            Square to = move_to(m);
            uint32_t w = (uint32_t)sq_bits(to) << 8 | (pos.side == WHITE ? 0xf0000000u : 0u);
            if (move_is_drop(m)) {
                w |= (uint32_t)OSL_OF[move_dropped_type(m)] << 24;
            } else {
                Piece moved = position_piece_on(&pos, move_from(m)), cap = position_piece_on(&pos, to);
                PieceType after = piece_type(moved) + (move_is_promotion(m) ? PROMOTED : 0);
                w |= (uint32_t)sq_bits(move_from(m)) | (move_is_promotion(m) ? 1u << 19 : 0) |
                     (uint32_t)(cap ? OSL_OF[piece_type(cap)] : 0) << 20 | (uint32_t)OSL_OF[after] << 24;
            }
            uint8_t *mp = f.d + f.moves_at + 12 * (size_t)mi;
            put32(mp, (int32_t)w), put32(mp + 4, s[i].m[k].child), put32(mp + 8, s[i].m[k].weight);
        }
        uint8_t *bp = f.d + f.boards_at + 164 * (size_t)i;
        int w = 0;
        for (Square sq = 0; sq < SQ_NB; sq++) {
            Piece p = position_piece_on(&pos, sq);
            if (p != NO_PIECE)
                put32(bp + 4 * w++, piece_word(piece_color(p), piece_type(p), sq_bits(sq)));
        }
        for (int c = 0; c < COLOR_NB; c++)
            for (PieceType pt = PAWN; pt <= GOLD; pt++)
                for (int k = 0; k < hand_count(pos.hand[c], pt); k++)
                    put32(bp + 4 * w++, piece_word((Color)c, pt, 0));
        assert_int_equal(w, 40);
        put32(bp + 160, pos.side == WHITE ? -1 : 0);
    }
    return f;
}

#define START   "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
#define A76     "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"
#define A26     "lnsgkgsnl/1r5b1/ppppppppp/9/9/7P1/PPPPPPP1P/1B5R1/LNSGKGSNL w - 2"
#define A76_34  "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3"
#define A76_84  "lnsgkgsnl/1r5b1/p1ppppppp/1p7/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3"
#define A26_84  "lnsgkgsnl/1r5b1/p1ppppppp/1p7/9/7P1/PPPPPPP1P/1B5R1/LNSGKGSNL b - 3"
#define BX      "lnsgkgsnl/1r5+B1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL w B 4"
#define BX_XX   "lnsgkg1nl/1r5s1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL b Bb 5"
#define BX_DROP "lnsgkg1nl/1r5s1/pppppp1pp/6p2/4B4/2P6/PP1PPPPPP/7R1/LNSGKGSNL w b 6"

/* A small good book: 7g7f (70) and 2g2f (30) from the start, a weight-0 third move,
 * replies, a capture with promotion, a recapture and a drop. */
static const TState GOOD[] = {
    {START, 7, 5, 3, {{"7g7f", 1, 70}, {"2g2f", 2, 30}, {"5i4h", 8, 0}}},
    {A76, 6, 4, 2, {{"3c3d", 3, 60}, {"8c8d", 4, 40}}},
    {A26, 1, 1, 1, {{"8c8d", 5, 0}}},
    {A76_34, 2, 2, 1, {{"8h2b+", 6, 5}}},
    {A76_84, 0, 0, 0, {{0, 0, 0}}},
    {A26_84, 0, 0, 0, {{0, 0, 0}}},
    {BX, 0, 0, 1, {{"3a2b", 7, 9}}},
    {BX_XX, 0, 0, 1, {{"B*5e", 9, 1}}},
    {"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B3K1R1/LNSG1GSNL w - 2", 0, 0, 0, {{0, 0, 0}}},
    {BX_DROP, 0, 0, 0, {{0, 0, 0}}},
};
enum { NGOOD = sizeof GOOD / sizeof GOOD[0] };

static bool read_buf(const TFile *f, Book *b, bool keep_zero, OslStats *st, char *err, size_t err_len) {
    OslReadOptions o = {.keep_zero = keep_zero};
    return osl_read_memory("t.dat", f->d, f->len, b, &o, st, err, err_len);
}

static void lookup(const Book *b, const char *sfen, BookMoveList *out) {
    Position pos;
    StateInfo st;
    set_position(&pos, &st, sfen);
    book_lookup(b, &pos, out);
}

/* The start position's statistics (its games and wins), which must be there. */
static void start_stats(const Book *b, BookStats *s) {
    BookKey k;
    uint32_t id;
    assert_true(book_key_from_sfen(START, &k, NULL, NULL, 0));
    assert_true(book_find(b, &k, &id));
    assert_true(book_get_stats(b, id, MOVE_NONE, s));
}

static Move16 u(const char *usi) {
    Move16 m;
    assert_true(move16_from_usi(usi, strlen(usi), &m));
    return m;
}

static void test_good_book(void **state) {
    (void)state;
    TFile f = build(GOOD, NGOOD, 0);
    assert_true(osl_probe_header(f.d, 16, f.len));
    Book *b = book_create();
    OslStats st;
    char err[256] = "";
    assert_true(read_buf(&f, b, false, &st, err, sizeof err));
    assert_int_equal(st.states, NGOOD);
    assert_int_equal(st.moves, 9);
    /* states 2 (only a weight-0 move) and 4, 5, 8, 9 (no moves) are left out */
    assert_int_equal(st.positions, 5);
    assert_int_equal(book_position_count(b), 5);
    assert_int_equal(st.book_moves, 7);
    assert_int_equal(st.zero_moves_dropped, 2);
    assert_int_equal(st.positions_dropped, 5);
    assert_int_equal(st.unreached, 0);
    BookMoveList *l = malloc(sizeof *l);
    lookup(b, START, l);
    assert_int_equal(l->n, 2);
    assert_int_equal(l->ply, 1);
    assert_int_equal(l->moves[0].move, u("7g7f"));
    assert_int_equal(l->moves[0].count, 70);
    assert_int_equal(l->moves[0].ponder, u("3c3d"));
    assert_false(l->moves[0].has_score);
    assert_int_equal(l->moves[1].move, u("2g2f"));
    assert_int_equal(l->moves[1].count, 30);
    assert_int_equal(l->moves[1].ponder, MOVE_NONE); /* its child has only a weight-0 move */
    lookup(b, A76_34, l);
    assert_int_equal(l->n, 1);
    assert_int_equal(l->ply, 3);
    assert_int_equal(l->moves[0].move, u("8h2b+"));
    assert_int_equal(l->moves[0].ponder, u("3a2b"));
    lookup(b, BX_XX, l);
    assert_int_equal(l->moves[0].move, u("B*5e"));
    lookup(b, A26, l);
    assert_int_equal(l->n, 0);
    /* win counts as statistics of the position */
    BookStats s;
    start_stats(b, &s);
    assert_int_equal(s.games, 12);
    assert_int_equal(s.black_wins, 7);
    assert_int_equal(s.white_wins, 5);
    book_free(b);

    /* keep_zero keeps every state and move, weight 0 as count 0 */
    b = book_create();
    assert_true(read_buf(&f, b, true, &st, err, sizeof err));
    assert_int_equal(book_position_count(b), NGOOD);
    assert_int_equal(book_move_count(b), 9);
    lookup(b, START, l);
    assert_int_equal(l->n, 3);
    assert_int_equal(l->moves[2].move, u("5i4h"));
    assert_int_equal(l->moves[2].count, 0);
    free(l);
    book_free(b);
    free(f.d);
}

/* A repetition cycle (2h3h 8b7b 3h2h 7b8b) is a legal book: the read ends and plies stay
 * the distances from the start. */
static void test_cycle(void **state) {
    (void)state;
    static const TState C[] = {
        {START, 0, 0, 1, {{"2h3h", 1, 1}}},
        {"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B4R2/LNSGKGSNL w - 2", 0, 0, 1, {{"8b7b", 2, 1}}},
        {"lnsgkgsnl/2r4b1/ppppppppp/9/9/9/PPPPPPPPP/1B4R2/LNSGKGSNL b - 3", 0, 0, 1, {{"3h2h", 3, 1}}},
        {"lnsgkgsnl/2r4b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 4", 0, 0, 1, {{"7b8b", 0, 1}}},
    };
    TFile f = build(C, 4, 0);
    Book *b = book_create();
    OslStats st;
    char err[256] = "";
    assert_true(read_buf(&f, b, false, &st, err, sizeof err));
    assert_int_equal(book_position_count(b), 4);
    BookMoveList *l = malloc(sizeof *l);
    lookup(b, C[3].sfen, l);
    assert_int_equal(l->ply, 4);
    assert_int_equal(l->moves[0].ponder, u("2h3h"));
    free(l);
    book_free(b);
    free(f.d);
}

/* Applies one corruption to a copy of the good book and expects a refusal naming the byte. */
static void expect_refused(const TFile *good, size_t at, int32_t value, const char *want_offset, const char *want) {
    TFile f = *good;
    f.d = malloc(good->len);
    memcpy(f.d, good->d, good->len);
    put32(f.d + at, value);
    Book *b = book_create();
    char err[256] = "";
    bool ok = read_buf(&f, b, false, NULL, err, sizeof err);
    if (ok || !strstr(err, want_offset) || !strstr(err, want))
        fail_msg("corruption at %zu = %d: ok %d, err '%s' (want '%s' and '%s')", at, (int)value, ok, err, want_offset,
                 want);
    book_free(b);
    free(f.d);
}

static void test_hostile(void **state) {
    (void)state;
    TFile g = build(GOOD, NGOOD, 0);
    char at[32];
    /* header */
    expect_refused(&g, 0, 2, "byte 0:", "version 2");
    expect_refused(&g, 4, NGOOD + 1, "byte 4:", "need");
    expect_refused(&g, 4, -1, "byte 4:", "bad counts");
    expect_refused(&g, 8, 10, "byte 4:", "need");
    expect_refused(&g, 8, 0x7fffffff, "byte 4:", "need");
    expect_refused(&g, 12, NGOOD, "byte 4:", "bad counts");
    /* states: move ranges, shared records, win counts */
    size_t s1 = g.states_at + 16;
    snprintf(at, sizeof at, "byte %zu:", s1);
    expect_refused(&g, s1, 9, at, "outside the 9 move records");
    expect_refused(&g, s1, -3, at, "outside");
    expect_refused(&g, s1 + 4, 0x7fffffff, at, "outside");
    expect_refused(&g, s1, 0, at, "belongs to another state");
    expect_refused(&g, s1 + 8, -1, at, "negative win count");
    /* moves: child index, a state as its own child, weights, move words */
    size_t m0 = g.moves_at;
    snprintf(at, sizeof at, "byte %zu:", m0 + 4);
    expect_refused(&g, m0 + 4, NGOOD, at, "child state 10 out of range");
    expect_refused(&g, m0 + 4, -1, at, "out of range");
    expect_refused(&g, m0 + 4, 0, at, "not the position the move leads to");
    expect_refused(&g, m0 + 4, 2, at, "not the position the move leads to");
    snprintf(at, sizeof at, "byte %zu:", m0 + 8);
    expect_refused(&g, m0 + 8, -5, at, "negative weight");
    snprintf(at, sizeof at, "byte %zu:", m0);
    expect_refused(&g, m0, 0x0a007577, at, "illegal move");              /* 7g7e */
    expect_refused(&g, m0, (int32_t)0xfa007677, at, "side not to move"); /* white's 7g7f */
    expect_refused(&g, m0, 0x09007677, at, "not the one on its square");
    expect_refused(&g, m0, 0x0aa07677, at, "capture");
    expect_refused(&g, m0, 0x01007677, at, "bad piece code");
    expect_refused(&g, m0, 0x0a00a677, at, "malformed");
    expect_refused(&g, m0, 0x0a005500, at, "illegal move"); /* a pawn drop with none in hand */
    expect_refused(&g, m0, 0x08005500, at, "bad drop");     /* a king drop */
    expect_refused(&g, m0, 0x0a0f7677, at, "malformed");
    /* boards: piece codes, squares, hands, two pieces on a square, side, legality */
    size_t b0 = g.boards_at;
    snprintf(at, sizeof at, "byte %zu:", b0);
    expect_refused(&g, b0, 0x00010011, at, "bad piece code 1");
    expect_refused(&g, b0, 0x00000011, at, "bad piece code 0");
    expect_refused(&g, b0, 0x000b00a1, at, "bad square");
    expect_refused(&g, b0, 0x000b0010, at, "bad square");
    expect_refused(&g, b0, 0x000b0111, at, "bad piece word");
    expect_refused(&g, b0, 0x000b0000 | (1 << 20), at, "bad piece word");
    expect_refused(&g, b0, 0x00020000, at, "cannot be in hand");
    expect_refused(&g, b0, 0x00080000, at, "cannot be in hand");
    snprintf(at, sizeof at, "byte %zu:", b0 + 4);
    /* the first words are the pieces of file 1 from rank a: lance 1a, pawn 1c, ... */
    expect_refused(&g, b0 + 4, (int32_t)(0xfff00000u | 11u << 16 | 0x11), at, "two pieces");
    snprintf(at, sizeof at, "byte %zu:", b0);
    expect_refused(&g, b0, 0x000b0011, at, "not a legal position"); /* a black lance on 1a */
    expect_refused(&g, b0, (int32_t)(0xfff00000u | 8u << 16 | 0x11), at, "not a legal position"); /* 3 kings */
    snprintf(at, sizeof at, "byte %zu:", b0 + 160);
    expect_refused(&g, b0 + 160, 1, at, "bad side to move");
    snprintf(at, sizeof at, "byte %zu:", m0);                 /* the start position with white to move is legal, */
    expect_refused(&g, b0 + 160, -1, at, "side not to move"); /* black's 7g7f there is not */
    free(g.d);
}

static void test_size_mismatch_and_probe(void **state) {
    (void)state;
    TFile g = build(GOOD, NGOOD, 0);
    char err[256];
    Book *b = book_create();
    assert_false(osl_read_memory("t", g.d, g.len - 1, b, NULL, NULL, err, sizeof err));
    assert_non_null(strstr(err, "the file has"));
    assert_false(osl_read_memory("t", g.d, 15, b, NULL, NULL, err, sizeof err));
    assert_non_null(strstr(err, "too short"));
    assert_false(osl_probe_header(g.d, 16, g.len + 1));
    assert_false(osl_probe_header(g.d, 15, g.len));
    assert_false(osl_probe_header(NULL, 0, 0));
    const char *db = "#YANEURAOU-DB2016 1.00\nsfen " START "\n7g7f none 0 0 1\n";
    assert_false(osl_probe_header(db, strlen(db), strlen(db)));
    uint8_t zeros[64] = {0};
    assert_false(osl_probe_header(zeros, sizeof zeros, sizeof zeros));
    book_free(b);
    free(g.d);
}

/* GPS Shogi's book: the counts of the issue, the start position as gpsusi plays it, and a
 * round trip through DB2016. */
static void test_joseki_dat(void **state) {
    (void)state;
    Book *b = book_create();
    OslStats st;
    char err[256] = "";
    if (!osl_read_file(JOSEKI, b, NULL, &st, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(st.states, 58818);
    assert_int_equal(st.moves, 73498);
    assert_int_equal(st.start, 0);
    assert_int_equal(st.zero_moves_dropped, 73498 - 37233);
    assert_int_equal(book_position_count(b), 30298);
    assert_int_equal(book_move_count(b), 37233);
    BookMoveList *l = malloc(sizeof *l);
    lookup(b, START, l);
    assert_int_equal(l->n, 2);
    assert_int_equal(l->moves[0].move, u("7g7f"));
    assert_int_equal(l->moves[0].count, 8194); /* 81.9482% of 9999 */
    assert_int_equal(l->moves[1].move, u("2g2f"));
    assert_int_equal(l->moves[1].count, 1805); /* 18.0518% */
    lookup(b, A76, l);
    assert_int_equal(l->moves[0].move, u("3c3d"));
    assert_int_equal(l->moves[0].count, 5925); /* 59.2559% */
    lookup(b, A26, l);
    assert_int_equal(l->moves[0].move, u("8c8d"));
    assert_int_equal(l->moves[0].count, 5189); /* 51.8952% */
    BookStats s;
    start_stats(b, &s);
    assert_int_equal(s.black_wins, 13669);
    assert_int_equal(s.white_wins, 11368);

    /* DB2016 round trip: every position, move, count and ponder survives */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_true(db2016_write_stream(f, b, &(Db2016WriteOptions){0}, err, sizeof err));
    fclose(f);
    Book *c = book_create();
    Db2016Stats dst;
    assert_true(db2016_read_memory("rt", text, len, c, &(Db2016ReadOptions){.strict = true}, &dst, err, sizeof err));
    assert_int_equal(book_position_count(c), 30298);
    assert_int_equal(book_move_count(c), 37233);
    BookMoveList *l2 = malloc(sizeof *l2);
    for (uint32_t i = 0; i < book_position_count(b); i++) {
        BookKey key;
        uint32_t j;
        book_position_key(b, i, &key);
        assert_true(book_find(c, &key, &j));
        int n = book_position_moves(b, i, l);
        assert_int_equal(book_position_moves(c, j, l2), n);
        book_sort_moves(l->moves, n);
        for (int m = 0; m < n; m++) {
            assert_int_equal(l->moves[m].move, l2->moves[m].move);
            assert_int_equal(l->moves[m].count, l2->moves[m].count);
            assert_int_equal(l->moves[m].ponder, l2->moves[m].ponder);
        }
    }
    free(text);
    free(l);
    free(l2);
    book_free(c);

    /* SBK keeps the win counts: games, wonBlack, wonWhite of the start position */
    char path[] = "/tmp/test_osl_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_true(sbk_write_file(path, b, &(SbkWriteOptions){0}, NULL, err, sizeof err));
    SbkBook *sb = sbk_open(path, NULL, NULL, err, sizeof err);
    assert_non_null(sb);
    c = book_create();
    assert_true(sbk_to_book(sb, c, NULL, NULL, err, sizeof err));
    start_stats(c, &s);
    assert_int_equal(s.games, 13669 + 11368);
    assert_int_equal(s.black_wins, 13669);
    assert_int_equal(s.white_wins, 11368);
    sbk_close(sb);
    unlink(path);
    book_free(c);
    book_free(b);

    b = book_create();
    assert_true(osl_read_file(JOSEKI, b, &(OslReadOptions){.keep_zero = true}, &st, err, sizeof err));
    assert_int_equal(book_position_count(b), 58818);
    assert_int_equal(book_move_count(b), 73498);
    assert_int_equal(st.unreached, 58818 - 43563);
    book_free(b);
}

static void test_file_errors(void **state) {
    (void)state;
    char err[256] = "";
    Book *b = book_create();
    assert_false(osl_read_file("/nonexistent/joseki.dat", b, NULL, NULL, err, sizeof err));
    assert_non_null(strstr(err, "cannot open"));
    assert_false(osl_read_file("Makefile", b, NULL, NULL, err, sizeof err));
    assert_non_null(strstr(err, "Makefile: byte 0: OSL book version"));
    assert_int_equal(book_position_count(b), 0);
    book_free(b);
}

int main(void) {
    shogi_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_book),  cmocka_unit_test(test_cycle),
        cmocka_unit_test(test_hostile),    cmocka_unit_test(test_size_mismatch_and_probe),
        cmocka_unit_test(test_joseki_dat), cmocka_unit_test(test_file_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
