/* test_sfen.c - SFEN in and out, the legality report, USI move text and the USI
 * `position` command. Parsers face outside input, so most of this file is about what
 * they must refuse and the reason they give. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "shogi/game.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static void parse_or_fail(Position *pos, StateInfo *st, const char *sfen) {
    char err[128];
    if (!position_from_sfen(pos, st, sfen, err, sizeof err))
        fail_msg("rejected '%s': %s", sfen, err);
}

/* Every valid line of ../shared/refdata/usi/rsshogi/sfen_positions.txt, in file order. */
static const struct {
    const char *name;
    const char *sfen;
} REF_POSITIONS[] = {
    {"startpos", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"},
    {"startpos_white", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 2"},
    {"after_76fu", "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"},
    {"bench_opening", "lnsgkgsnl/1r7/p1ppp1bpp/1p3pp2/7P1/2P6/PP1PPPP1P/1B3S1R1/LNSGKG1NL b - 9"},
    {"bench_midgame1", "l4S2l/4g1gs1/5p1p1/pr2N1pkp/4Gn3/PP3PPPP/2GPP4/1K7/L3r+s2L w BS2N5Pb 1"},
    {"bench_midgame2", "6n1l/2+S1k4/2lp4p/1np1B2b1/3PP4/1N1S3rP/1P2+pPP+p1/1p1G5/3KG2r1 b GSN2L4Pgs2p 1"},
    {"bench_tactical", "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1"},
    {"habu_kato", "ln1g5/1r2S1k2/p2pppn2/2ps2p2/1p7/2P6/PPSPPPPLP/2G2K1pr/LN4G1b w BGSLPnp 62"},
    {"pin_checker_test", "ln3gsn1/7kl/3+B1p1p1/p4s2p/2P6/P2B3PP/1PNP+rPP2/2G3SK1/L4G1NL b G3Prs3p 65"},
    {"double_check", "ln2+r1r2/5s+Pkl/3+B1p1p1/p4B2p/2P6/P6PP/1PNP1P3/2G3SK1/L4G1NL w 2GSN3Ps3p 76"},
    {"max_legal_moves", "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1"},
    {"zobrist_test1", "lr5nl/3gk1g2/2nsppsp1/p1pp2p1p/1p5P1/P1PPSPP1P/1PS1P1N2/2GK1G3/LN5RL w Bb 50"},
    {"zobrist_test2", "lr5nl/3gk1g2/2nsppsp1/p1pp2p1p/1p5P1/P1PPSPP1P/1PS1P1N2/2G1KG3/LN5RL w Bb 50"},
};

/* The same file's two `invalid_*` lines, with the reason each must be refused for. The
 * first is named after pawns but actually holds three bishops (B2b). */
static const struct {
    const char *name;
    const char *sfen;
    const char *reason;
} REF_INVALID[] = {
    {"invalid_too_many_pawns", "lr5nl/3gk1g2/2nsppsp1/p1pp2p1p/1p5P1/P1PPSPP1P/1PS1P1N2/2GK1G3/LN5RL w B2b 50",
     "more than 2 pieces of type 'B'"},
    {"invalid_extra_lance", "lr5nl/3gk1g2/2nsppsp1/p1pp2p1p/1p5P1/P1PPSPP1P/1PS1P1N2/2GK1G2L/LN5RL w Bb 50",
     "more than 4 pieces of type 'L'"},
};

static void test_reference_round_trip(void **state) {
    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(REF_POSITIONS); i++) {
        Position pos;
        StateInfo st;
        char out[SFEN_MAX], err[128];
        parse_or_fail(&pos, &st, REF_POSITIONS[i].sfen);
        position_to_sfen(&pos, out, true);
        if (strcmp(out, REF_POSITIONS[i].sfen) != 0)
            fail_msg("%s: wrote '%s'", REF_POSITIONS[i].name, out);
        if (!position_legality_report(&pos, err, sizeof err))
            fail_msg("%s: reported illegal: %s", REF_POSITIONS[i].name, err);
        if (!position_is_consistent(&pos))
            fail_msg("%s: inconsistent after parsing", REF_POSITIONS[i].name);
        /* Without the ply the text must still parse back to the same position, at ply 1. */
        position_to_sfen(&pos, out, false);
        const char *full = REF_POSITIONS[i].sfen;
        size_t stem = (size_t)(strrchr(full, ' ') - full);
        if (strlen(out) != stem || strncmp(out, full, stem) != 0)
            fail_msg("%s: without ply wrote '%s'", REF_POSITIONS[i].name, out);
        Position again;
        StateInfo st2;
        parse_or_fail(&again, &st2, out);
        assert_int_equal(again.ply, 1);
        assert_true(position_key(&again) == position_key(&pos));
    }
}

static void test_reference_invalid_rejected(void **state) {
    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(REF_INVALID); i++) {
        Position pos;
        StateInfo st;
        char err[128] = "";
        if (position_from_sfen(&pos, &st, REF_INVALID[i].sfen, err, sizeof err))
            fail_msg("%s was accepted", REF_INVALID[i].name);
        if (!strstr(err, REF_INVALID[i].reason))
            fail_msg("%s: reason '%s', expected '%s'", REF_INVALID[i].name, err, REF_INVALID[i].reason);
    }
}

/* The two positions differ only by the black king's square (6h against 5h). */
static void test_zobrist_keys_differ(void **state) {
    (void)state;
    Position a, b;
    StateInfo sa, sb;
    parse_or_fail(&a, &sa, REF_POSITIONS[11].sfen);
    parse_or_fail(&b, &sb, REF_POSITIONS[12].sfen);
    assert_string_equal(REF_POSITIONS[11].name, "zobrist_test1");
    assert_string_equal(REF_POSITIONS[12].name, "zobrist_test2");
    assert_true(position_key(&a) != position_key(&b));
    assert_true(sa.board_key != sb.board_key);
    assert_true(sa.hand_key == sb.hand_key);
    /* Side to move is part of the key, the move number is not. */
    Position c, d;
    StateInfo sc, sd;
    parse_or_fail(&c, &sc, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    parse_or_fail(&d, &sd, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1");
    assert_true(position_key(&c) != position_key(&d));
    parse_or_fail(&d, &sd, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 77");
    assert_true(position_key(&c) == position_key(&d));
}

/* Input in any hand order, with optional ply, "1P" counts and extra spaces, comes out
 * canonical: R B G S N L P, black first, counts only above one. */
static void test_canonical_output(void **state) {
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"lnsgkgsnl/1+r7/ppppppppp/9/9/9/PPPPPP3/7R1/LNSGKGSNL b p2PbB 1",
         "lnsgkgsnl/1+r7/ppppppppp/9/9/9/PPPPPP3/7R1/LNSGKGSNL b B2Pbp 1"},
        {"4k4/9/9/9/9/9/9/9/4K4 w pPlLnNsSgGbBrR 3", "4k4/9/9/9/9/9/9/9/4K4 w RBGSNLPrbgsnlp 3"},
        {"4k4/9/9/9/9/9/9/9/4K4 b 9p9P2L2l 12", "4k4/9/9/9/9/9/9/9/4K4 b 2L9P2l9p 12"},
        {"4k4/9/9/9/9/9/9/9/4K4 b 1P1p", "4k4/9/9/9/9/9/9/9/4K4 b Pp 1"},
        {"  4k4/9/9/9/9/9/9/9/4K4   b   18P   5  ", "4k4/9/9/9/9/9/9/9/4K4 b 18P 5"},
        {"4k4/9/9/9/9/9/9/9/4K4 b 4G4S4N4L2R2B", "4k4/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L 1"},
        {"4k4/9/9/9/9/9/9/9/4K4 b - 0", "4k4/9/9/9/9/9/9/9/4K4 b - 1"},
        {"+l+n+s1k1+S+N+L/1+r5+b1/+p+p+p+p+p+p+p+p+p/9/9/9/+P+P+P+P+P+P+P+P+P/1+B5+R1/4K4 b 4G 1",
         "+l+n+s1k1+S+N+L/1+r5+b1/+p+p+p+p+p+p+p+p+p/9/9/9/+P+P+P+P+P+P+P+P+P/1+B5+R1/4K4 b 4G 1"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        Position pos;
        StateInfo st;
        char out[SFEN_MAX];
        parse_or_fail(&pos, &st, cases[i].in);
        if (strcmp(position_to_sfen(&pos, out, true), cases[i].out) != 0)
            fail_msg("'%s' wrote '%s', expected '%s'", cases[i].in, out, cases[i].out);
        assert_true(strlen(out) < SFEN_MAX);
    }
    /* The hand counts behind the first case, read through the hand accessors. */
    Position pos;
    StateInfo st;
    parse_or_fail(&pos, &st, cases[0].in);
    assert_int_equal(hand_count(pos.hand[BLACK], BISHOP), 1);
    assert_int_equal(hand_count(pos.hand[BLACK], PAWN), 2);
    assert_int_equal(hand_count(pos.hand[WHITE], BISHOP), 1);
    assert_int_equal(hand_count(pos.hand[WHITE], PAWN), 1);
    assert_int_equal(hand_count(pos.hand[WHITE], ROOK), 0);
    assert_int_equal(position_piece_on(&pos, square_make(7, 1)), piece_make(WHITE, DRAGON));
}

/* Malformed SFENs and the substring their error must contain. */
#define SP   "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL" /* the start board */
#define BARE "4k4/9/9/9/9/9/9/9/4K4"                                     /* kings only */
static const struct {
    const char *sfen;
    const char *reason;
} MALFORMED[] = {
    /* board shape */
    {"", "rank 1 has 0 squares, expected 9"},
    {"     ", "rank 1 has 0 squares, expected 9"},
    {"lnsgkgsn/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "column 9: rank 1 has 8 squares, expected 9"},
    {"lnsgkgsnll/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "rank 1 has more than 9 squares"},
    {"lnsgkgsnl/1r5b2/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "rank 2 has more than 9 squares"},
    {"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSN b - 1", "rank 9 has 8 squares, expected 9"},
    {"lnsgkgsnl//ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "rank 2 has 0 squares, expected 9"},
    {SP "/9 b - 1", "more than 9 ranks"},
    {SP "/ b - 1", "more than 9 ranks"},
    {"lnsgkgsnl/1r5b1/ppppppppp/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "board has 8 ranks, expected 9"},
    {"lnsgkgsnl b - 1", "board has 1 ranks, expected 9"},
    {"99999999999999999999/9/9/9/9/9/9/9/9 b - 1", "rank 1 has more than 9 squares"},
    {"4k4/9/9/9/9/9/9/9/5K5 b - 1", "rank 9 has more than 9 squares"},
    /* pieces */
    {"lnsgxgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "column 5: unknown piece 'x'"},
    {"lnsgkgsnl/1r5b1/ppppppppp/09/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "unknown piece '0'"},
    {"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL\tb - 1", "unknown piece '\t'"},
    {"+", "column 2: unknown piece '?'"},
    {"4k3+/9/9/9/9/9/9/9/4K4 b - 1", "unknown piece '/'"},
    {"4k3+ b - 1", "unknown piece ' '"},
    {"4k2++p/9/9/9/9/9/9/9/4K4 b - 1", "unknown piece '+'"},
    {"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNS+GKGSNL b - 1", "'G' cannot be promoted"},
    {"lnsg+kgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "'k' cannot be promoted"},
    {"4k4/9/9/9/9/9/9/9/3+K4 b - 1", "'K' cannot be promoted"},
    {"\x01\x02\x7f\xff\xfe\x80 b - 1", "column 1: unknown piece"},
    {"lnsgkgsnl/1r5b1/ppppppppp/9/4P4/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "more than 18 pieces of type 'P'"},
    {"lnsgkgsnl/1r5b1/ppppppppp/9/4+p4/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "more than 18 pieces of type 'P'"},
    {"lnsgkgsnl/1r5b1/ppppppppp/9/4B4/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "more than 2 pieces of type 'B'"},
    {"lnsgkgsnl/1r5b1/ppppppppp/9/4+R4/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "more than 2 pieces of type 'R'"},
    {"lnsgkgsnl/1r5b1/ppppppppp/9/3SN4/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "more than 4 pieces of type 'S'"},
    /* kings */
    {"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSG1GSNL b - 1", "black king is missing"},
    {"lnsg1gsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "white king is missing"},
    {"9/9/9/9/9/9/9/9/9 b - 1", "black king is missing"},
    {"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKKSNL b - 1", "black has more than one king"},
    {"lnsgkksnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "white has more than one king"},
    /* side to move */
    {SP, "column 58: side to move must be 'b' or 'w'"},
    {SP " x - 1", "side to move must be 'b' or 'w'"},
    {SP " B - 1", "side to move must be 'b' or 'w'"},
    {SP " - 1", "side to move must be 'b' or 'w'"},
    {SP " bw - 1", "expected a space after the side to move"},
    {SP " b", "expected a space after the side to move"},
    {SP " b-", "expected a space after the side to move"},
    /* hands */
    {SP " b ", "hands are missing"},
    {SP " w    ", "hands are missing"},
    {SP " b 0P 1", "bad hand count"},
    {BARE " b 19P 1", "bad hand count"},
    {BARE " b 100P 1", "bad hand count"},
    {BARE " b 99999999999999999999999P 1", "bad hand count"},
    {BARE " b 00P 1", "bad hand count"},
    {BARE " b 2", "unknown hand piece '?'"},
    {BARE " b K 1", "unknown hand piece 'K'"},
    {BARE " b +P 1", "unknown hand piece '+'"},
    {BARE " b P-p 1", "unknown hand piece '-'"},
    {BARE " b Px 1", "unknown hand piece 'x'"},
    {BARE " b \xe6\xad\xa9 1", "unknown hand piece"},
    {BARE " b PP 1", "hand piece 'P' given twice"},
    {BARE " b P2P 1", "hand piece 'P' given twice"},
    {BARE " b pbp 1", "hand piece 'p' given twice"},
    {BARE " b 2R2B4G4S4N4L18P2G", "hand piece 'G' given twice"},
    {SP " b P 1", "more than 18 pieces of type 'P'"},
    {SP " b B 1", "more than 2 pieces of type 'B'"},
    {BARE " b 2Bb 1", "more than 2 pieces of type 'B'"},
    {BARE " b 3G2g 1", "more than 4 pieces of type 'G'"},
    {BARE " b 10P9p 1", "more than 18 pieces of type 'P'"},
    {BARE " b 5N 1", "more than 4 pieces of type 'N'"},
    /* move number and what follows it */
    {SP " b - x", "move number must be a number"},
    {SP " b - -1", "move number must be a number"},
    {SP " b - +1", "move number must be a number"},
    {SP " b - 99999999999999999999", "move number too large"},
    {SP " b - 1000001", "move number too large"},
    {SP " b - 1 x", "unexpected text after the move number"},
    {SP " b - 1x", "unexpected text after the move number"},
    {SP " b - 1 2", "unexpected text after the move number"},
    {SP " b - 1 moves 7g7f", "unexpected text after the move number"},
    {SP " b - 1\n", "unexpected text after the move number"},
    {SP " b -P 1", "move number must be a number"},
};

static void test_malformed_rejected(void **state) {
    (void)state;
    assert_true(ARRAY_LEN(MALFORMED) >= 40);
    for (size_t i = 0; i < ARRAY_LEN(MALFORMED); i++) {
        Position pos;
        StateInfo st;
        char err[128] = "";
        if (position_from_sfen(&pos, &st, MALFORMED[i].sfen, err, sizeof err))
            fail_msg("case %zu accepted: '%s'", i, MALFORMED[i].sfen);
        if (!strstr(err, MALFORMED[i].reason))
            fail_msg("case %zu '%s': reason '%s', expected '%s'", i, MALFORMED[i].sfen, err, MALFORMED[i].reason);
        /* Errors are always of the form "column N: ...". */
        if (strncmp(err, "column ", 7) != 0)
            fail_msg("case %zu: reason '%s' does not name a column", i, err);
    }
}

/* Tsume problems have no king for the attacker: accepted only when asked for, and never
 * with both kings gone. The USI `position` command asks for it. */
static void test_missing_king_mode(void **state) {
    (void)state;
    Position pos;
    StateInfo st;
    char err[128], out[SFEN_MAX];
    const char *tsume = "7nk/9/7P1/9/9/9/9/9/9 b 2G2r2b2g4s3n4l17p 1";
    assert_false(position_from_sfen(&pos, &st, tsume, err, sizeof err));
    assert_non_null(strstr(err, "black king is missing"));
    assert_true(position_from_sfen_ex(&pos, &st, tsume, SFEN_ALLOW_MISSING_KING, err, sizeof err));
    assert_int_equal(pos.king_sq[BLACK], SQ_NONE);
    assert_int_equal(pos.king_sq[WHITE], square_make(0, 0));
    assert_string_equal(position_to_sfen(&pos, out, true), tsume);
    assert_true(position_legality_report(&pos, err, sizeof err));
    assert_false(position_from_sfen_ex(&pos, &st, "9/9/9/9/9/9/9/9/9 b - 1", SFEN_ALLOW_MISSING_KING, err, sizeof err));
    assert_non_null(strstr(err, "king is missing"));
    /* The other rules still hold in that mode. */
    assert_false(
        position_from_sfen_ex(&pos, &st, "7nk/9/7P1/9/9/9/9/9/9 b 19P 1", SFEN_ALLOW_MISSING_KING, err, sizeof err));
    assert_non_null(strstr(err, "bad hand count"));
    Game g;
    game_init(&g);
    assert_true(game_set_from_usi(&g, "sfen 7nk/9/7P1/9/9/9/9/9/9 b G moves G*2b", err, sizeof err));
    assert_int_equal(g.count, 1);
    assert_false(position_has_legal_move(&g.pos)); /* G*2b mates */
    game_free(&g);
}

/* A short buffer truncates the reason, a null one is allowed, and neither may overrun. */
static void test_error_buffer_handling(void **state) {
    (void)state;
    Position pos;
    StateInfo st;
    char small[8];
    memset(small, 'x', sizeof small);
    assert_false(position_from_sfen(&pos, &st, "junk", small, 6));
    assert_int_equal(strlen(small), 5);
    assert_int_equal(small[6], 'x');
    assert_false(position_from_sfen(&pos, &st, "junk", NULL, 0));
    assert_false(position_from_sfen(&pos, &st, "junk", small, 0));
    assert_int_equal(small[0], 'c'); /* untouched since the first call */
}

/* Well-formed positions that break a rule, and the reason position_legality_report gives. */
static void test_legality_report(void **state) {
    (void)state;
    static const struct {
        const char *sfen;
        const char *reason; /* NULL: legal */
    } cases[] = {
        {"4k3P/9/9/9/9/9/9/9/4K4 b - 1", "black pawn on square 1a cannot move"},
        {"4k4/9/9/9/9/9/9/9/p3K4 b - 1", "white pawn on square 9i cannot move"},
        {"L3k4/9/9/9/9/9/9/9/4K4 w - 1", "black lance on square 9a cannot move"},
        {"4k4/9/9/9/9/9/9/9/4K3l b - 1", "white lance on square 1i cannot move"},
        {"4k4/N8/9/9/9/9/9/9/4K4 b - 1", "black knight on square 9b cannot move"},
        {"4k3N/9/9/9/9/9/9/9/4K4 b - 1", "black knight on square 1a cannot move"},
        {"4k4/9/9/9/9/9/9/8n/4K4 b - 1", "white knight on square 1h cannot move"},
        {"4k4/9/9/9/4P4/9/4P4/9/4K4 b - 1", "black has two pawns on file 5 (nifu)"},
        {"4k4/p8/9/9/p8/9/9/9/4K4 w - 1", "white has two pawns on file 9 (nifu)"},
        {"4k4/4P4/9/9/9/9/9/9/4K4 b - 1", "the side not to move (white) is in check"},
        {"4k4/9/9/9/9/9/9/9/r3K4 w - 1", "the side not to move (black) is in check"},
        {"4k4/9/9/9/9/9/9/9/B3K3b b - 1", NULL}, /* the bishops face each other, no king */
        {"4k4/9/9/9/9/9/5n3/9/4K4 w - 1", "the side not to move (black) is in check"},
        /* Promoted pieces may stand anywhere and a tokin is no pawn for nifu. */
        {"+P3k3+L/+N8/9/9/4+P4/9/4P4/9/4K4 b - 1", NULL},
        /* The side to move may be in check, even doubly. */
        {"4k4/9/9/9/9/9/9/3g5/4K1r2 b - 1", NULL},
        {"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", NULL},
        {"8k/9/9/9/9/9/9/9/K8 b 2R2B4G4S4N4L18P 1", NULL},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        Position pos;
        StateInfo st;
        char err[128] = "";
        parse_or_fail(&pos, &st, cases[i].sfen);
        bool legal = position_legality_report(&pos, err, sizeof err);
        if (!cases[i].reason) {
            if (!legal)
                fail_msg("'%s' reported illegal: %s", cases[i].sfen, err);
        } else {
            if (legal)
                fail_msg("'%s' reported legal", cases[i].sfen);
            if (!strstr(err, cases[i].reason))
                fail_msg("'%s': reason '%s', expected '%s'", cases[i].sfen, err, cases[i].reason);
        }
    }
}

/* Writes the legal moves as text, reads them back without and with the position. */
static void check_usi_round_trip(const char *sfen) {
    Position pos;
    StateInfo st;
    parse_or_fail(&pos, &st, sfen);
    ExtMove list[MAX_MOVES];
    int n = generate_moves(&pos, GEN_LEGAL, list);
    assert_true(n > 0);
    for (int i = 0; i < n; i++) {
        Move m = list[i].move;
        char text[USI_MOVE_MAX];
        move_to_usi(m, text);
        size_t len = strlen(text);
        assert_true(len == 4 || len == 5);
        Move16 m16 = 0;
        if (!move16_from_usi(text, len, &m16))
            fail_msg("%s: '%s' does not parse back", sfen, text);
        if (m16 != move_to_move16(m))
            fail_msg("%s: '%s' parses to %#x, expected %#x", sfen, text, m16, move_to_move16(m));
        if (position_parse_usi_move(&pos, text) != m)
            fail_msg("%s: '%s' is not accepted as the same 32-bit move", sfen, text);
        /* A promotion suffix on a move that has none, or a drop made into a board move,
         * may be well-formed but must then be illegal unless the generator has it too. */
        if (!move_is_drop(m) && !move_is_promotion(m)) {
            char plus[8];
            snprintf(plus, sizeof plus, "%s+", text);
            Move p = position_parse_usi_move(&pos, plus);
            bool generated = false;
            for (int j = 0; j < n; j++)
                generated |= list[j].move == p;
            if (p != MOVE_NONE && !generated)
                fail_msg("%s: '%s' accepted but not generated", sfen, plus);
        }
    }
}

static void test_usi_move_round_trip(void **state) {
    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(REF_POSITIONS); i++)
        check_usi_round_trip(REF_POSITIONS[i].sfen);
    /* Both colours dropping every kind of piece, next to promotions of every kind. */
    check_usi_round_trip("k8/1P1L5/5N1S1/9/9/9/1s1n5/5l1p1/8K w RBGSNLPrbgsnlp 1");
    check_usi_round_trip("k8/1P1L5/5N1S1/9/9/9/1s1n5/5l1p1/8K b RBGSNLPrbgsnlp 1");
}

static void test_usi_move_text(void **state) {
    (void)state;
    static const char *const bad[] = {
        "7g7",    "7g7f++", "P*5",  "K*5e",  "0a1b", "7j7f", "7g7g",  "+7g7f", "",        "7g7f ",
        " 7g7f",  "7G7F",   "p*5e", "P*5e+", "P*0e", "P*5j", "P+5e",  "P*5e5", "7g7f-",   "7g7f=",
        "resign", "win",    "0000", "none",  "5e*P", "**5e", "10a1b", "a7g7f", "7g7f+\n",
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        Move16 m16 = 0xdead;
        if (move16_from_usi(bad[i], strlen(bad[i]), &m16))
            fail_msg("'%s' parsed as %#x", bad[i], m16);
        assert_int_equal(m16, 0xdead); /* untouched on failure */
        Position pos;
        StateInfo st;
        position_set_startpos(&pos, &st);
        assert_int_equal(position_parse_usi_move(&pos, bad[i]), MOVE_NONE);
    }
    /* An embedded NUL inside the given length is not a move either. */
    Move16 m16;
    static const char nul_inside[] = {'7', 'g', '\0', '7', 'f'};
    assert_false(move16_from_usi(nul_inside, sizeof nul_inside, &m16));
    assert_false(move16_from_usi("\0*5e", 4, &m16));

    /* The encoding of a few well-formed texts. */
    assert_true(move16_from_usi("7g7f", 4, &m16));
    assert_int_equal(m16, square_make(6, 5) | (square_make(6, 6) << 7));
    assert_true(move16_from_usi("8h2b+", 5, &m16));
    assert_int_equal(m16, square_make(1, 1) | (square_make(7, 7) << 7) | MOVE_PROMOTE);
    assert_true(move16_from_usi("P*5e", 4, &m16));
    assert_int_equal(m16, square_make(4, 4) | (PAWN << 7) | MOVE_DROP);
    assert_true(move16_from_usi("G*1a", 4, &m16));
    assert_int_equal(m16, 0 | (GOLD << 7) | MOVE_DROP);
    assert_true(move16_from_usi("R*9i", 4, &m16));
    assert_int_equal(m16, 80 | (ROOK << 7) | MOVE_DROP);
    /* The length argument rules, not the NUL. */
    assert_true(move16_from_usi("7g7f+xyz", 4, &m16));
    assert_int_equal(m16, square_make(6, 5) | (square_make(6, 6) << 7));

    /* The special words are written but never read as moves. */
    char buf[USI_MOVE_MAX];
    assert_string_equal(move_to_usi(MOVE_NONE, buf), "none");
    assert_string_equal(move_to_usi(MOVE_NULL, buf), "0000");
    assert_string_equal(move_to_usi(MOVE_RESIGN, buf), "resign");
    assert_string_equal(move_to_usi(MOVE_WIN, buf), "win");

    /* Well-formed but illegal in the start position. */
    Position pos;
    StateInfo st;
    position_set_startpos(&pos, &st);
    static const char *const illegal[] = {"7g7e", "7c7d", "P*5e", "8h2b+", "7g7f+", "2h2a", "5i4i", "1i1h+"};
    for (size_t i = 0; i < ARRAY_LEN(illegal); i++) {
        assert_true(move16_from_usi(illegal[i], strlen(illegal[i]), &m16));
        if (position_parse_usi_move(&pos, illegal[i]) != MOVE_NONE)
            fail_msg("'%s' accepted in the start position", illegal[i]);
    }
    Move m = position_parse_usi_move(&pos, "7g7f");
    assert_int_equal(move_to_move16(m), square_make(6, 5) | (square_make(6, 6) << 7));
    assert_int_equal(move_moved_piece_after(m), piece_make(BLACK, PAWN));
}

static void sfen_of(const Game *g, char *buf) { position_to_sfen(&g->pos, buf, true); }

static void test_position_command(void **state) {
    (void)state;
    Game g;
    game_init(&g);
    char err[256], sfen[SFEN_MAX];

    assert_true(game_set_from_usi(&g, "startpos", err, sizeof err));
    sfen_of(&g, sfen);
    assert_string_equal(sfen, STARTPOS_SFEN);
    assert_int_equal(g.count, 0);

    assert_true(game_set_from_usi(&g, "startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e", err, sizeof err));
    sfen_of(&g, sfen);
    assert_string_equal(sfen, "lnsgkg1nl/1r5s1/pppppp1pp/6p2/5B3/2P6/PP1PPPPPP/7R1/LNSGKGSNL w b 6");
    assert_int_equal(g.count, 5);
    assert_string_equal(g.root_sfen, STARTPOS_SFEN);
    assert_int_equal(g.moves[2] & 0xffff, square_make(1, 1) | (square_make(7, 7) << 7) | MOVE_PROMOTE);

    /* Extra blanks between tokens, and "moves" with nothing after it. */
    assert_true(game_set_from_usi(&g, "  startpos   moves   7g7f\t3c3d  ", err, sizeof err));
    assert_int_equal(g.count, 2);
    assert_true(game_set_from_usi(&g, "startpos moves", err, sizeof err));
    assert_int_equal(g.count, 0);

    assert_true(game_set_from_usi(&g, "sfen 4k4/9/9/9/9/9/9/9/4K4 b 2P 7 moves P*5b 5a5b 5i5h", err, sizeof err));
    sfen_of(&g, sfen);
    assert_string_equal(sfen, "9/4k4/9/9/9/9/9/4K4/9 w Pp 10");
    assert_string_equal(g.root_sfen, "4k4/9/9/9/9/9/9/9/4K4 b 2P 7");
    /* Without a ply and without moves; the root is stored in canonical form. */
    assert_true(game_set_from_usi(&g, "sfen 4k4/9/9/9/9/9/9/9/4K4 w pP", err, sizeof err));
    assert_string_equal(g.root_sfen, "4k4/9/9/9/9/9/9/9/4K4 w Pp 1");
    assert_int_equal(g.count, 0);
    /* A tab before "moves" still ends the SFEN; "movesX" does not. */
    assert_true(game_set_from_usi(&g, "sfen 4k4/9/9/9/9/9/9/9/4K4 b 2P 7\tmoves P*5b", err, sizeof err));
    assert_int_equal(g.count, 1);
    assert_false(game_set_from_usi(&g, "sfen 4k4/9/9/9/9/9/9/9/4K4 b 2P 7 movesX P*5b", err, sizeof err));
    /* Without a ply but with moves. */
    assert_true(game_set_from_usi(&g, "sfen 4k4/9/9/9/9/9/9/9/4K4 w pP moves P*5h", err, sizeof err));
    sfen_of(&g, sfen);
    assert_string_equal(sfen, "4k4/9/9/9/9/9/9/4p4/4K4 b P 2");
    /* The white start position given as an SFEN. */
    assert_true(game_set_from_usi(&g, "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1 moves 3c3d",
                                  err, sizeof err));
    assert_int_equal(g.count, 1);
    game_free(&g);
}

static void test_position_command_errors(void **state) {
    (void)state;
    static const struct {
        const char *args;
        const char *reason;
    } cases[] = {
        {"", "expected 'startpos' or 'sfen'"},
        {"   ", "expected 'startpos' or 'sfen'"},
        {"foo", "expected 'startpos' or 'sfen', got 'foo'"},
        {"Startpos", "got 'Startpos'"},
        {"moves 7g7f", "got 'moves'"},
        {"startpos 7g7f", "expected 'moves', got '7g7f'"},
        {"startpos move 7g7f", "expected 'moves', got 'move'"},
        {"startpos movesx 7g7f", "expected 'moves', got 'movesx'"},
        {"startpos moves 7g7f 7g7f", "move 2 '7g7f' is illegal"},
        {"startpos moves 7g7e", "move 1 '7g7e' is illegal"},
        {"startpos moves 7g7f 3c3d B*5e", "move 3 'B*5e' is illegal"}, /* nothing in hand yet */
        {"startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e 2b3a+", "move 6 '2b3a+' is illegal"},
        {"startpos moves 7g7f 7g", "move 2 '7g' is malformed"},
        {"startpos moves 7g7f 3c3d resign", "move 3 'resign' is malformed"},
        {"startpos moves 0000", "move 1 '0000' is malformed"},
        {"startpos moves 7g7f++", "move 1 '7g7f++' is malformed"},
        {"startpos moves K*5e", "move 1 'K*5e' is malformed"},
        {"startpos moves P*5e", "move 1 'P*5e' is illegal"},
        {"sfen", "bad sfen"},
        {"sfen moves 7g7f", "bad sfen"},
        {"sfen 4k4/9/9/9/9/9/9/9/4K4", "bad sfen: column 23: side to move must be 'b' or 'w'"},
        {"sfen 4k4/9/9/9/9/9/9/9/4K4 b - 1 foo", "bad sfen"},
        {"sfen 4k4/9/9/9/9/9/9/9/4K4 b - 1 moves 5i5h 5a5b 5h5i 5b5a 5i5i", "move 5 '5i5i' is malformed"},
        {"sfen 4k4/9/9/9/9/9/9/9/4K4 b P moves P*5a", "move 1 'P*5a' is illegal"},
        {"sfen 4k4/9/9/9/9/9/9/9/4K4 b - moves 5i5h 5a5b 5h5g 5b5c 5g5f 5c5d 5f5e", "move 7 '5f5e' is illegal"},
    };
    Game g;
    game_init(&g);
    char err[256], before[SFEN_MAX], after[SFEN_MAX], root_before[SFEN_MAX];
    /* A game in progress that every failing command must leave as it was. */
    assert_true(game_set_from_usi(&g, "startpos moves 2g2f 8c8d 2f2e", err, sizeof err));
    sfen_of(&g, before);
    strcpy(root_before, g.root_sfen);
    Key key_before = position_key(&g.pos);
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        strcpy(err, "");
        if (game_set_from_usi(&g, cases[i].args, err, sizeof err))
            fail_msg("'%s' accepted", cases[i].args);
        if (!strstr(err, cases[i].reason))
            fail_msg("'%s': reason '%s', expected '%s'", cases[i].args, err, cases[i].reason);
        sfen_of(&g, after);
        if (strcmp(before, after) != 0)
            fail_msg("'%s' changed the game to '%s'", cases[i].args, after);
        assert_int_equal(g.count, 3);
        assert_string_equal(g.root_sfen, root_before);
        assert_true(position_key(&g.pos) == key_before);
        assert_true(position_is_consistent(&g.pos));
    }
    /* A checking pawn drop the king can answer by taking is legal. */
    assert_true(game_set_from_usi(&g, "sfen 4k4/9/9/9/9/9/9/9/4K4 b P moves P*5b", err, sizeof err));
    assert_int_equal(g.count, 1);
    /* The game still works after all the failures: undo and replay. */
    assert_true(game_set_from_usi(&g, "startpos moves 2g2f 8c8d 2f2e", err, sizeof err));
    assert_true(game_pop(&g));
    assert_true(game_pop(&g));
    assert_true(game_pop(&g));
    assert_false(game_pop(&g));
    sfen_of(&g, after);
    assert_string_equal(after, STARTPOS_SFEN);
    game_free(&g);
}

/* The move sequences of ../shared/refdata/usi/rsshogi/move_sequences.txt that end in an
 * illegal drop: the whole command fails at that move, the prefix is accepted. */
static void test_reference_sequences(void **state) {
    (void)state;
    static const char NIFU[] =
        "startpos moves 2g2f 8c8d 2f2e 8d8e 7g7f 4a3b 8h7g 3c3d 7i8h 2b7g+ 8h7g 3a2b 1g1f 9c9d 9g9f 1c1d 3i3h "
        "2b3c 3g3f 7a6b 2i3g 6c6d 4g4f 6b6c 6i7h 5a4b 5i6h 7c7d 3h4g 8a7c 4i4h 6a6b 2h2i 8b8a 4g5f 4b5b 6g6f "
        "5b4b 6h7i 6c5d 3g4e 3c2b 7f7e 7d7e 4e5c+ 4b5c P*7d 4c4d 7d7c+ 6b7c 6f6e 6d6e 4f4e N*6d 2i6i 6d5f 5g5f "
        "7c6d 4e4d 2b3c P*6f 6e6f 5f5e B*4f N*5g 5d5e 7g6f P*6h 6i6h P*6g 7h6g 3c4d P*4e S*5i 4e4d 5i6h+ 7i6h "
        "5e6f 6g6f P*6e 6f5f 4f1i+ S*7c P*6g";
    static const char UCHIFUZUME[] =
        "startpos moves 2g2f 8c8d 2f2e 8d8e 7g7f 4a3b 8h7g 3c3d 7i8h 2b7g+ 8h7g 3a2b 1g1f 9c9d 9g9f 1c1d 3i3h "
        "2b3c 3g3f 7a6b 2i3g 6c6d 4g4f 6b6c 6i7h 5a4b 5i6h 7c7d 3h4g 8a7c 4i4h 6a6b 2h2i 8b8a 4g5f 4b5b 6g6f "
        "5b4b 6h7i 6c5d 3g4e 3c2b 7f7e 7d7e 4e5c+ 4b5c P*7d 4c4d 7d7c+ 6b7c 6f6e 6d6e 4f4e N*6d 2i6i 6d5f 5g5f "
        "7c6d 4e4d 2b3c P*6f 6e6f 5f5e B*4f N*5g 5d5e 7g6f P*6h 6i6h P*6g 7h6g 3c4d P*4e S*5i 4e4d 5i6h+ 7i6h "
        "5e6f 6g6f P*6e 6f5f 4f1i+ S*7c 6d5d P*5e 5c4b 5e5d 4b3a 5d5c+ 1i7c 5g6e R*2g S*4g P*6g 6h5g P*5e 6e7c "
        "5e5f 5g5f S*6d 7c8a+ L*5e 5f6g S*7f 6g6f P*6e";
    static const struct {
        const char *moves;
        const char *reason;
        int count;
    } cases[] = {
        {NIFU, "move 84 'P*6g' is illegal", 83},
        {UCHIFUZUME, "move 106 'P*6e' is illegal", 105},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        Game g;
        game_init(&g);
        char err[256];
        assert_false(game_set_from_usi(&g, cases[i].moves, err, sizeof err));
        if (!strstr(err, cases[i].reason))
            fail_msg("reason '%s', expected '%s'", err, cases[i].reason);
        char prefix[2048];
        snprintf(prefix, sizeof prefix, "%s", cases[i].moves);
        *strrchr(prefix, ' ') = '\0';
        if (!game_set_from_usi(&g, prefix, err, sizeof err))
            fail_msg("prefix rejected: %s", err);
        assert_int_equal(g.count, cases[i].count);
        assert_true(position_is_consistent(&g.pos));
        game_free(&g);
    }
}

int main(void) {
    /* One test a line, which clang-format would pack two by two. */
    /* clang-format off */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_round_trip),
        cmocka_unit_test(test_reference_invalid_rejected),
        cmocka_unit_test(test_zobrist_keys_differ),
        cmocka_unit_test(test_canonical_output),
        cmocka_unit_test(test_malformed_rejected),
        cmocka_unit_test(test_missing_king_mode),
        cmocka_unit_test(test_error_buffer_handling),
        cmocka_unit_test(test_legality_report),
        cmocka_unit_test(test_usi_move_round_trip),
        cmocka_unit_test(test_usi_move_text),
        cmocka_unit_test(test_position_command),
        cmocka_unit_test(test_position_command_errors),
        cmocka_unit_test(test_reference_sequences),
    };
    /* clang-format on */
    return cmocka_run_group_tests(tests, NULL, NULL);
}
