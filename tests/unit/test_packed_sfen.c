/* test_packed_sfen.c - PackedSfen: round trips over random games, a published vector and a
 * hand-derived one, the piece box, old hand order, and hostile input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "shogi/movegen.h"
#include "shogi/packed_sfen.h"

enum { PLAYOUT_GAMES = 24, PLAYOUT_PLIES = 200, MIN_ROUND_TRIPS = 2000 };

static uint64_t xorshift64(uint64_t *state) {
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

static int stream_bit(const PackedSfen *p, int i) { return (p->data[i / 8] >> (i % 8)) & 1; }
static void set_stream_bit(PackedSfen *p, int i, int bit) {
    p->data[i / 8] = (uint8_t)((p->data[i / 8] & ~(1u << (i % 8))) | ((unsigned)bit << (i % 8)));
}

/* Packs a string of '0'/'1' in stream order (first digit = bit 0 of byte 0); spaces only
 * separate fields for the reader. The digits must make exactly 256 bits. */
static void pack_bit_string(const char *bits, PackedSfen *out) {
    memset(out, 0, sizeof *out);
    int n = 0;
    for (const char *p = bits; *p; p++) {
        if (*p == ' ')
            continue;
        assert_true(*p == '0' || *p == '1');
        assert_true(n < 256);
        set_stream_bit(out, n++, *p == '1');
    }
    assert_int_equal(n, 256);
}

static void set_position(Position *pos, StateInfo *st, const char *sfen) {
    char err[128];
    if (!position_from_sfen(pos, st, sfen, err, sizeof err))
        fail_msg("bad sfen %s: %s", sfen, err);
}

static void assert_bytes(const PackedSfen *got, const uint8_t want[32], const char *what) {
    if (memcmp(got->data, want, 32) != 0) {
        char hex[65];
        for (int i = 0; i < 32; i++)
            snprintf(hex + 2 * i, 3, "%02x", got->data[i]);
        fail_msg("%s: encoding %s differs from the expected bytes", what, hex);
    }
}

/* Every field of two positions and of their current states, history pointers aside. */
static void assert_same_position(const Position *a, const Position *b, const char *what) {
    bool same = !memcmp(a->board, b->board, sizeof a->board) && !memcmp(a->by_type, b->by_type, sizeof a->by_type) &&
                !memcmp(a->by_color, b->by_color, sizeof a->by_color) && !memcmp(a->hand, b->hand, sizeof a->hand) &&
                !memcmp(a->king_sq, b->king_sq, sizeof a->king_sq) && a->side == b->side && a->ply == b->ply;
    const StateInfo *x = a->st, *y = b->st;
    same = same && x->board_key == y->board_key && x->hand_key == y->hand_key &&
           x->plies_from_null == y->plies_from_null &&
           !memcmp(x->continuous_check, y->continuous_check, sizeof x->continuous_check) &&
           x->hand_of_mover == y->hand_of_mover && x->captured == y->captured && x->last_move == y->last_move &&
           x->checkers == y->checkers &&
           !memcmp(x->blockers_for_king, y->blockers_for_king, sizeof x->blockers_for_king) &&
           !memcmp(x->pinners, y->pinners, sizeof x->pinners) &&
           !memcmp(x->check_squares, y->check_squares, sizeof x->check_squares) && x->previous == NULL &&
           y->previous == NULL;
    if (!same) {
        char sa[SFEN_MAX], sb[SFEN_MAX];
        fail_msg("%s: the direct and the SFEN decoder disagree: %s / %s", what, position_to_sfen(a, sa, true),
                 position_to_sfen(b, sb, true));
    }
}

/* Both decoders on one input: the same verdict, and on success the same position. */
static bool check_both_decoders(const PackedSfen *input, int ply) {
    Position direct, via_sfen;
    StateInfo direct_st, via_sfen_st;
    char err[256] = "", err2[256] = "";
    bool ok = packed_sfen_decode(input, &direct, &direct_st, ply, err, sizeof err);
    bool ok2 = packed_sfen_decode_via_sfen(input, &via_sfen, &via_sfen_st, ply, err2, sizeof err2);
    if (ok != ok2)
        fail_msg("ply %d: direct decoder %s (%s), SFEN decoder %s (%s)", ply, ok ? "accepts" : "refuses", err,
                 ok2 ? "accepts" : "refuses", err2);
    if (ok)
        assert_same_position(&direct, &via_sfen, "decode");
    else
        assert_true(err[0] != '\0' && err2[0] != '\0');
    return ok;
}

/* Encode, decode, compare the SFEN (with move number) and the re-encoded bytes. */
static void check_round_trip(const Position *pos) {
    PackedSfen packed, again;
    packed_sfen_encode(pos, &packed);
    Position decoded;
    StateInfo st;
    char err[256], want[SFEN_MAX], got[SFEN_MAX];
    position_to_sfen(pos, want, true);
    if (!packed_sfen_decode(&packed, &decoded, &st, pos->ply, err, sizeof err))
        fail_msg("%s: decode failed: %s", want, err);
    position_to_sfen(&decoded, got, true);
    if (strcmp(want, got) != 0)
        fail_msg("round trip changed %s into %s", want, got);
    assert_true(position_is_consistent(&decoded));
    packed_sfen_encode(&decoded, &again);
    assert_int_equal(packed_sfen_compare(&packed, &again), 0);
    assert_true(check_both_decoders(&packed, pos->ply));
}

/* What any decode result must satisfy, valid input or not: on success a position that
 * position_from_sfen() accepts again and that survives a round trip; on failure a reason. */
static bool check_decode_outcome(const PackedSfen *input) {
    Position pos;
    StateInfo st;
    char err[256] = "";
    bool agreed = check_both_decoders(input, 1);
    if (!packed_sfen_decode(input, &pos, &st, 1, err, sizeof err)) {
        assert_true(err[0] != '\0');
        assert_false(agreed);
        return false;
    }
    char sfen[SFEN_MAX];
    position_to_sfen(&pos, sfen, true);
    Position reparsed;
    StateInfo reparsed_st;
    if (!position_from_sfen(&reparsed, &reparsed_st, sfen, err, sizeof err))
        fail_msg("decoded %s does not parse again: %s", sfen, err);
    assert_true(position_is_consistent(&pos));
    check_round_trip(&pos);
    return true;
}

/* ---- random playouts ---- */

typedef void (*PositionVisitor)(const Position *pos, void *context);

/* Plays random legal games from the start position and shows every position to visit.
 * Captures are preferred three times in four, so hands fill up and many pieces promote. */
static int play_random_games(uint64_t seed, int games, PositionVisitor visit, void *context) {
    static StateInfo states[PLAYOUT_PLIES + 1];
    static ExtMove moves[MAX_MOVES];
    uint64_t rng = seed;
    int visited = 0;
    for (int g = 0; g < games; g++) {
        Position pos;
        position_set_startpos(&pos, &states[0]);
        for (int ply = 0; ply < PLAYOUT_PLIES; ply++) {
            visit(&pos, context);
            visited++;
            int n = generate_moves(&pos, GEN_LEGAL, moves);
            if (n == 0)
                break;
            int captures[MAX_MOVES], n_captures = 0;
            for (int i = 0; i < n; i++)
                if (!move_is_drop(moves[i].move) && position_piece_on(&pos, move_to(moves[i].move)) != NO_PIECE)
                    captures[n_captures++] = i;
            int pick = (n_captures && xorshift64(&rng) % 4 != 0) ? captures[xorshift64(&rng) % (uint64_t)n_captures]
                                                                 : (int)(xorshift64(&rng) % (uint64_t)n);
            position_do_move(&pos, moves[pick].move, &states[ply + 1]);
        }
    }
    return visited;
}

typedef struct {
    int positions;
    int most_in_hand;        /* largest total of both hands seen */
    int with_promoted_piece; /* positions with at least one promoted piece on the board */
} PlayoutStats;

static int pieces_in_hand(const Position *pos) {
    int n = 0;
    for (Color c = BLACK; c <= WHITE; c++)
        for (PieceType pt = PAWN; pt <= GOLD; pt++)
            n += hand_count(pos->hand[c], pt);
    return n;
}

static void visit_round_trip(const Position *pos, void *context) {
    PlayoutStats *stats = context;
    check_round_trip(pos);
    stats->positions++;
    int in_hand = pieces_in_hand(pos);
    if (in_hand > stats->most_in_hand)
        stats->most_in_hand = in_hand;
    for (Square sq = 0; sq < SQ_NB; sq++)
        if (piece_type_is_promoted(piece_type(position_piece_on(pos, sq)))) {
            stats->with_promoted_piece++;
            break;
        }
}

static void test_round_trip_random_games(void **state) {
    (void)state;
    PlayoutStats stats = {0, 0, 0};
    play_random_games(0x9e3779b97f4a7c15ull, PLAYOUT_GAMES, visit_round_trip, &stats);
    print_message("%d positions, at most %d pieces in hand, %d with a promoted piece\n", stats.positions,
                  stats.most_in_hand, stats.with_promoted_piece);
    assert_true(stats.positions >= MIN_ROUND_TRIPS);
    assert_true(stats.most_in_hand >= 15);
    assert_true(stats.with_promoted_piece >= 500);
}

/* ---- known vectors ---- */

/* The start position, derived by hand from the format (see packed_sfen.h), written as
 * the bit stream in stream order so that each part can be checked against the rules:
 *   side to move: black = 0;
 *   black king 5i = file 4 * 9 + rank 8 = 44 = 0101100b, low bit first: 0011010;
 *   white king 5a = file 4 * 9 + rank 0 = 36 = 0100100b, low bit first: 0010010;
 * then squares 1a..1i, 2a..2i, ..., 9a..9i (square index order), kings skipped. Board
 * codes in stream order: empty 0, pawn 10, lance 1100, knight 1101, silver 1110,
 * gold 11110, bishop 111110, rook 111111; then a promotion bit (none for gold), then the
 * colour bit (1 = white). So a white lance is 1100+0+1 = 110001, a black pawn 1000.
 *   file 1: l . p . . . P . L  = 110001 0 1001 000 1000 0 110000
 *   file 2: n b p . . . P R N  = 110101 11111001 1001 000 1000 11111100 110100
 *   file 3: s . p . . . P . S  = 111001 0 1001 000 1000 0 111000
 *   file 4: g . p . . . P . G  = 111101 0 1001 000 1000 0 111100
 *   file 5: k . p . . . P . K  = (king) 0 1001 000 1000 0 (king)
 *   files 6..9 mirror files 4..1 except that file 8 has the white rook on 8b and the
 *   black bishop on 8h.
 * The sum is 15 + 241 = 256 bits: no hand entries and an empty piece box. */
static const char *const STARTPOS_STREAM[] = {
    "0 0011010 0010010",                             /* side, black king, white king */
    "110001 0 1001 000 1000 0 110000",               /* file 1: l . p . . . P . L */
    "110101 11111001 1001 000 1000 11111100 110100", /* file 2: n b p . . . P R N */
    "111001 0 1001 000 1000 0 111000",               /* file 3: s . p . . . P . S */
    "111101 0 1001 000 1000 0 111100",               /* file 4: g . p . . . P . G */
    "0 1001 000 1000 0",                             /* file 5: (k) . p . . . P . (K) */
    "111101 0 1001 000 1000 0 111100",               /* file 6 */
    "111001 0 1001 000 1000 0 111000",               /* file 7 */
    "110101 11111101 1001 000 1000 11111000 110100", /* file 8: n r p . . . P B N */
    "110001 0 1001 000 1000 0 110000",               /* file 9 */
};

/* The same stream as bytes, so that a change to the helper above cannot hide a change. */
static const uint8_t STARTPOS_BYTES[32] = {0x58, 0xa4, 0x51, 0x22, 0x0c, 0xeb, 0x67, 0x22, 0x7e, 0x96, 0x53,
                                           0x22, 0x1c, 0xaf, 0x44, 0x78, 0x24, 0xc2, 0x2b, 0x11, 0x9e, 0x53,
                                           0x22, 0x1c, 0xeb, 0x6f, 0x22, 0x3e, 0x96, 0x51, 0x22, 0x0c};

static void test_startpos_hand_derived(void **state) {
    (void)state;
    char bits[512] = "";
    for (size_t i = 0; i < sizeof STARTPOS_STREAM / sizeof STARTPOS_STREAM[0]; i++) {
        strcat(bits, STARTPOS_STREAM[i]);
        strcat(bits, " ");
    }
    PackedSfen derived, encoded;
    pack_bit_string(bits, &derived);
    assert_bytes(&derived, STARTPOS_BYTES, "hand-derived stream");

    Position pos;
    StateInfo st;
    position_set_startpos(&pos, &st);
    packed_sfen_encode(&pos, &encoded);
    assert_bytes(&encoded, STARTPOS_BYTES, "startpos");

    char err[128], sfen[SFEN_MAX];
    assert_true(packed_sfen_decode(&derived, &pos, &st, 1, err, sizeof err));
    assert_string_equal(position_to_sfen(&pos, sfen, true), STARTPOS_SFEN);

    /* White to move differs in the first bit only. */
    set_position(&pos, &st, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1");
    packed_sfen_encode(&pos, &encoded);
    uint8_t white_to_move[32];
    memcpy(white_to_move, STARTPOS_BYTES, 32);
    white_to_move[0] |= 1;
    assert_bytes(&encoded, white_to_move, "startpos, white to move");
}

/* Published by cshogi (TadaoYamaoka/cshogi, test/test.cpp, TEST(TestBoard,
 * to_psfen_issue17)): the two-piece handicap position, whose missing white rook and
 * bishop go to the piece box. YaneuraOu's sfen_packer.cpp says it matches cshogi here. */
static void test_cshogi_handicap_vector(void **state) {
    (void)state;
    static const char *const SFEN = "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1";
    static const uint8_t CSHOGI_BYTES[32] = {89,  164, 81, 34, 12,  171, 68, 252, 44,  167, 68, 56, 94,  137, 240, 72,
                                             132, 87,  34, 60, 167, 68,  56, 86,  137, 248, 88, 70, 137, 48,  188, 126};
    Position pos;
    StateInfo st;
    set_position(&pos, &st, SFEN);
    PackedSfen encoded, published;
    packed_sfen_encode(&pos, &encoded);
    assert_bytes(&encoded, CSHOGI_BYTES, "cshogi handicap");

    memcpy(published.data, CSHOGI_BYTES, 32);
    char err[128], sfen[SFEN_MAX];
    if (!packed_sfen_decode(&published, &pos, &st, 1, err, sizeof err))
        fail_msg("cshogi vector rejected: %s", err);
    assert_string_equal(position_to_sfen(&pos, sfen, true), SFEN);
}

/* ---- piece box and hand order ---- */

static void test_piece_box_fixed_positions(void **state) {
    (void)state;
    static const char *const SFENS[] = {
        "4k4/9/9/9/9/9/9/9/4K4 b - 1",                                 /* everything boxed */
        "4k4/9/9/9/9/9/9/9/4K4 w 2R2B4G4S4N4L18P 1",                   /* nothing boxed */
        "4k4/9/9/9/9/9/9/9/4K4 b r2b4g4s4n4l18p 1",                    /* white hand, one boxed rook */
        "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1", /* two-piece handicap */
        "3gkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",     /* six-piece handicap */
        "7nl/5+P1gk/6sp1/8p/9/9/9/9/K8 b RBGS2P 1",                    /* a tsume-like corner */
        "+R+B+S+N+LK3/9/9/9/9/9/9/9/4k4 w - 123",                      /* promoted, rest boxed */
    };
    for (size_t i = 0; i < sizeof SFENS / sizeof SFENS[0]; i++) {
        Position pos;
        StateInfo st;
        set_position(&pos, &st, SFENS[i]);
        check_round_trip(&pos);
    }
}

/* Golds have no promotion bit, so a boxed gold is written as a white promoted silver:
 * silver hand code 110, promotion 1, colour 1 = 11011 (YaneuraOu's table: 0x1b, 5 bits). */
static void test_boxed_gold_code(void **state) {
    (void)state;
    Position pos;
    StateInfo st;
    set_position(&pos, &st, "lns1k1snl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNS1K1SNL b - 1");
    PackedSfen packed;
    packed_sfen_encode(&pos, &packed);
    char tail[21] = "";
    for (int i = 236; i < 256; i++)
        tail[i - 236] = (char)('0' + stream_bit(&packed, i));
    assert_string_equal(tail, "11011110111101111011");
    check_round_trip(&pos);
}

/* Random pieces removed from random game positions go to the box and must come back. */
static void visit_box_round_trip(const Position *pos, void *context) {
    uint64_t *rng = context;
    char sfen[SFEN_MAX], thinned[SFEN_MAX + 16];
    position_to_sfen(pos, sfen, true);
    size_t out = 0;
    const char *p = sfen;
    for (; *p != ' '; p++) {
        /* A removed piece becomes "1"; position_from_sfen() adds up consecutive digits. */
        bool promoted = *p == '+';
        char letter = promoted ? p[1] : *p;
        bool is_piece = (letter >= 'A' && letter <= 'Z') || (letter >= 'a' && letter <= 'z');
        if (is_piece && letter != 'k' && letter != 'K' && xorshift64(rng) % 3 == 0) {
            thinned[out++] = '1';
            p += promoted;
            continue;
        }
        thinned[out++] = *p;
        if (promoted)
            thinned[out++] = *++p; /* the letter goes with its '+', kept or removed together */
    }
    /* Side, hands and move number unchanged but for dropping some hand pieces. */
    out += (size_t)snprintf(thinned + out, sizeof thinned - out, " %c ", pos->side == BLACK ? 'b' : 'w');
    static const PieceType ORDER[] = {ROOK, BISHOP, GOLD, SILVER, KNIGHT, LANCE, PAWN};
    static const char LETTERS[] = "RBGSNLP";
    bool any = false;
    for (Color c = BLACK; c <= WHITE; c++)
        for (int i = 0; i < 7; i++) {
            int n = hand_count(pos->hand[c], ORDER[i]);
            n -= n ? (int)(xorshift64(rng) % (uint64_t)(n + 1)) : 0;
            if (!n)
                continue;
            any = true;
            out += (size_t)snprintf(thinned + out, sizeof thinned - out, "%d%c", n,
                                    c == BLACK ? LETTERS[i] : (char)(LETTERS[i] - 'A' + 'a'));
        }
    snprintf(thinned + out, sizeof thinned - out, "%s %d", any ? "" : "-", pos->ply);

    Position fewer;
    StateInfo st;
    set_position(&fewer, &st, thinned);
    check_round_trip(&fewer);
}

static void test_piece_box_random(void **state) {
    (void)state;
    uint64_t rng = 12345;
    int n = play_random_games(0x0123456789abcdefull, 8, visit_box_round_trip, &rng);
    assert_true(n >= 500);
}

/* Older YaneuraOu wrote hands as ... silver, bishop, rook, gold; the decoder must read
 * that order too. Here black holds a gold and a bishop: current order writes the gold
 * (1110 + colour 0) then the bishop (11110 + promotion 0 + colour 0); swap them. */
static void test_old_hand_order_accepted(void **state) {
    (void)state;
    static const char *const SFEN = "lnsgk1snl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/7R1/LNSGKGSNL b BG 1";
    Position pos;
    StateInfo st;
    set_position(&pos, &st, SFEN);
    PackedSfen packed;
    packed_sfen_encode(&pos, &packed);
    char tail[13] = "";
    for (int i = 244; i < 256; i++)
        tail[i - 244] = (char)('0' + stream_bit(&packed, i));
    assert_string_equal(tail, "111001111000");
    static const char OLD_ORDER[] = "111100011100";
    for (int i = 0; i < 12; i++)
        set_stream_bit(&packed, 244 + i, OLD_ORDER[i] == '1');
    char err[128], sfen[SFEN_MAX];
    if (!packed_sfen_decode(&packed, &pos, &st, 1, err, sizeof err))
        fail_msg("old hand order rejected: %s", err);
    assert_string_equal(position_to_sfen(&pos, sfen, true), SFEN);
}

/* ---- hostile input ---- */

static void expect_rejection(const PackedSfen *input, const char *reason_part) {
    Position pos;
    StateInfo st;
    char err[256] = "";
    assert_false(packed_sfen_decode(input, &pos, &st, 1, err, sizeof err));
    if (!strstr(err, reason_part))
        fail_msg("expected a message containing \"%s\", got \"%s\"", reason_part, err);
}

static void test_specific_rejections(void **state) {
    (void)state;
    PackedSfen input;
    memset(&input, 0, sizeof input);
    expect_rejection(&input, "both kings"); /* both kings on square 0 */
    memset(&input, 0xff, sizeof input);
    expect_rejection(&input, "off the board"); /* king square 127 */

    memcpy(input.data, STARTPOS_BYTES, 32);
    for (int i = 0; i < 7; i++) /* black king square := 81, YaneuraOu's "no king" */
        set_stream_bit(&input, 1 + i, (81 >> i) & 1);
    expect_rejection(&input, "no black king");

    /* The handicap vector ends with a boxed bishop (11110 1 0) and rook (111111 1 0);
     * a white boxed rook has no meaning. */
    Position pos;
    StateInfo st;
    set_position(&pos, &st, "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1");
    packed_sfen_encode(&pos, &input);
    assert_int_equal(stream_bit(&input, 255), 0);
    set_stream_bit(&input, 255, 1);
    expect_rejection(&input, "not a piece-box code");

    /* Turning an empty square of the start position (1b, the first board bit after the
     * lance on 1a) into the start of a pawn code shifts the rest of the stream. */
    memcpy(input.data, STARTPOS_BYTES, 32);
    assert_int_equal(stream_bit(&input, 21), 0);
    set_stream_bit(&input, 21, 1);
    assert_false(check_decode_outcome(&input));

    /* Messages are truncated to err_len, and a null err is allowed. */
    memset(&input, 0, sizeof input);
    char small[8];
    memset(small, 'x', sizeof small);
    assert_false(packed_sfen_decode(&input, &pos, &st, 1, small, sizeof small));
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_false(packed_sfen_decode(&input, &pos, &st, 1, NULL, 0));
}

static void test_ply_argument(void **state) {
    (void)state;
    PackedSfen packed;
    memcpy(packed.data, STARTPOS_BYTES, 32);
    Position pos;
    StateInfo st;
    char err[256];
    assert_true(packed_sfen_decode(&packed, &pos, &st, 77, err, sizeof err));
    assert_int_equal(pos.ply, 77);
    assert_true(packed_sfen_decode(&packed, &pos, &st, 0, err, sizeof err));
    assert_int_equal(pos.ply, 1);
    assert_true(packed_sfen_decode(&packed, &pos, &st, -5, err, sizeof err));
    assert_int_equal(pos.ply, 1);
    assert_false(packed_sfen_decode(&packed, &pos, &st, 2000000000, err, sizeof err));
}

static void test_random_bytes(void **state) {
    (void)state;
    uint64_t rng = 0xdeadbeefcafef00dull;
    int accepted = 0;
    for (int n = 0; n < 100000; n++) {
        PackedSfen input;
        for (int i = 0; i < 32; i += 8) {
            uint64_t r = xorshift64(&rng);
            memcpy(input.data + i, &r, 8);
        }
        accepted += check_decode_outcome(&input);
    }
    print_message("random bytes: %d of 100000 decoded\n", accepted);
}

typedef struct {
    uint64_t rng;
    int accepted, rejected;
} FlipStats;

/* Every single-bit flip of the encoding, plus a few random multi-bit flips. */
static void visit_bit_flips(const Position *pos, void *context) {
    FlipStats *stats = context;
    if (xorshift64(&stats->rng) % 8 != 0) /* a sample of the positions is plenty */
        return;
    PackedSfen valid;
    packed_sfen_encode(pos, &valid);
    for (int bit = 0; bit < 256; bit++) {
        PackedSfen flipped = valid;
        set_stream_bit(&flipped, bit, !stream_bit(&valid, bit));
        if (check_decode_outcome(&flipped))
            stats->accepted++;
        else
            stats->rejected++;
    }
    for (int k = 0; k < 32; k++) {
        PackedSfen flipped = valid;
        int flips = 2 + (int)(xorshift64(&stats->rng) % 3);
        for (int f = 0; f < flips; f++) {
            int bit = (int)(xorshift64(&stats->rng) % 256);
            set_stream_bit(&flipped, bit, !stream_bit(&flipped, bit));
        }
        if (check_decode_outcome(&flipped))
            stats->accepted++;
        else
            stats->rejected++;
    }
}

static void test_bit_flips(void **state) {
    (void)state;
    FlipStats stats = {0x5eed5eed5eedull, 0, 0};
    play_random_games(0xfeedfacefeedfaceull, 6, visit_bit_flips, &stats);
    print_message("bit flips: %d decoded, %d rejected\n", stats.accepted, stats.rejected);
    /* Colour, promotion and side bits flip into other valid positions; most others must
     * be caught. Both outcomes must occur, or the test is not testing anything. */
    assert_true(stats.accepted > 0);
    assert_true(stats.rejected > 0);
}

/* A random placement of the full set: two kings on distinct squares, every other piece on
 * an empty square (either colour, promoted half the time when it can be), in either hand
 * or in the box. Pawns on the last rank, nifu and checks are left in: neither decoder
 * judges the rules. Written as SFEN text, so position_from_sfen() is the independent
 * judge of what the position is. */
static void random_placement_sfen(uint64_t *rng, char *sfen, size_t len) {
    static const char LETTERS[] = " PLNSBRG";
    Piece board[SQ_NB] = {0};
    int hand[COLOR_NB][PIECE_TYPE_NB] = {{0}};
    Square bk = (Square)(xorshift64(rng) % SQ_NB), wk;
    do
        wk = (Square)(xorshift64(rng) % SQ_NB);
    while (wk == bk);
    board[bk] = piece_make(BLACK, KING);
    board[wk] = piece_make(WHITE, KING);
    int on_board_percent = (int)(xorshift64(rng) % 101);
    for (PieceType pt = PAWN; pt <= GOLD; pt++)
        for (int k = 0; k < PIECE_TYPE_TOTAL[pt]; k++) {
            Color c = (Color)(xorshift64(rng) & 1);
            int where = (int)(xorshift64(rng) % 100);
            if (where < on_board_percent) {
                Square sq;
                do
                    sq = (Square)(xorshift64(rng) % SQ_NB);
                while (board[sq] != NO_PIECE);
                bool promote = piece_type_can_promote(pt) && (xorshift64(rng) & 1);
                board[sq] = piece_make(c, promote ? (PieceType)(pt + PROMOTED) : pt);
            } else if (where < on_board_percent + (100 - on_board_percent) * 3 / 4) {
                hand[c][pt]++;
            } /* else boxed */
        }
    size_t n = 0;
    for (int rank = 0; rank < RANK_NB; rank++) {
        int empty = 0;
        for (int file = FILE_NB - 1; file >= 0; file--) {
            Piece pc = board[square_make(file, rank)];
            if (pc == NO_PIECE) {
                empty++;
                continue;
            }
            if (empty)
                n += (size_t)snprintf(sfen + n, len - n, "%d", empty);
            empty = 0;
            PieceType pt = piece_type(pc);
            char letter = pt == KING ? 'K' : LETTERS[piece_type_demote(pt)];
            n += (size_t)snprintf(sfen + n, len - n, "%s%c", piece_type_is_promoted(pt) ? "+" : "",
                                  piece_color(pc) == BLACK ? letter : (char)(letter - 'A' + 'a'));
        }
        if (empty)
            n += (size_t)snprintf(sfen + n, len - n, "%d", empty);
        if (rank < RANK_NB - 1)
            n += (size_t)snprintf(sfen + n, len - n, "/");
    }
    n += (size_t)snprintf(sfen + n, len - n, " %c ", xorshift64(rng) & 1 ? 'w' : 'b');
    bool any = false;
    for (Color c = BLACK; c <= WHITE; c++)
        for (PieceType pt = PAWN; pt <= GOLD; pt++)
            if (hand[c][pt]) {
                any = true;
                n += (size_t)snprintf(sfen + n, len - n, "%d%c", hand[c][pt],
                                      c == BLACK ? LETTERS[pt] : (char)(LETTERS[pt] - 'A' + 'a'));
            }
    snprintf(sfen + n, len - n, "%s 1", any ? "" : "-");
}

/* The direct decoder against the SFEN route on random placements and move numbers (both
 * must refuse a move number past 1000000), and on every one-bit corruption of a sample. */
static void test_direct_decoder_matches_sfen_route(void **state) {
    (void)state;
    uint64_t rng = 0x5bd1e9955bd1e995ull;
    static const int PLIES[] = {1, 0, -7, 2, 513, 65535, 65536, 1000000, 1000001, 2000000000};
    int decoded = 0, refused = 0;
    for (int n = 0; n < 20000; n++) {
        char sfen[SFEN_MAX + 64];
        random_placement_sfen(&rng, sfen, sizeof sfen);
        Position pos;
        StateInfo st;
        set_position(&pos, &st, sfen);
        PackedSfen packed;
        packed_sfen_encode(&pos, &packed);
        int ply = PLIES[xorshift64(&rng) % (sizeof PLIES / sizeof PLIES[0])];
        if (check_both_decoders(&packed, ply)) {
            Position direct;
            StateInfo direct_st;
            assert_true(packed_sfen_decode(&packed, &direct, &direct_st, 1, NULL, 0));
            Position want;
            StateInfo want_st;
            set_position(&want, &want_st, sfen);
            assert_same_position(&direct, &want, sfen);
            decoded++;
        } else {
            assert_true(ply > 1000000);
            refused++;
        }
        if (n % 16 == 0)
            for (int bit = 0; bit < 256; bit++) {
                PackedSfen flipped = packed;
                set_stream_bit(&flipped, bit, !stream_bit(&packed, bit));
                check_both_decoders(&flipped, ply);
            }
    }
    print_message("random placements: %d decoded, %d refused for their move number\n", decoded, refused);
    assert_true(decoded > 15000 && refused > 0);
}

static void test_compare(void **state) {
    (void)state;
    PackedSfen a, b;
    memcpy(a.data, STARTPOS_BYTES, 32);
    b = a;
    assert_int_equal(packed_sfen_compare(&a, &b), 0);
    b.data[31] = (uint8_t)(a.data[31] + 1);
    assert_int_equal(packed_sfen_compare(&a, &b), -1);
    assert_int_equal(packed_sfen_compare(&b, &a), 1);
    b = a;
    b.data[0] = 0xff; /* the first byte decides, as in memcmp */
    a.data[31] = 0xff;
    assert_true(packed_sfen_compare(&a, &b) < 0);
}

int main(void) {
    shogi_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_random_games),
        cmocka_unit_test(test_startpos_hand_derived),
        cmocka_unit_test(test_cshogi_handicap_vector),
        cmocka_unit_test(test_piece_box_fixed_positions),
        cmocka_unit_test(test_boxed_gold_code),
        cmocka_unit_test(test_piece_box_random),
        cmocka_unit_test(test_old_hand_order_accepted),
        cmocka_unit_test(test_specific_rejections),
        cmocka_unit_test(test_ply_argument),
        cmocka_unit_test(test_random_bytes),
        cmocka_unit_test(test_bit_flips),
        cmocka_unit_test(test_direct_decoder_matches_sfen_route),
        cmocka_unit_test(test_compare),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
