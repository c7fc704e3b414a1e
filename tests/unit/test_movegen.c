/* test_movegen.c - the move generators against the independent move validator and
 * against each other, do/undo round trips, check detection, and the drop rules
 * (uchifuzume, nifu, dead pieces) on hand-made and reference positions.
 *
 * The positions come from random playouts with fixed seeds, so a failure always
 * reproduces; the failing SFEN is printed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "shogi/game.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

enum { PLAYOUT_MAX_PLIES = 300 };

static uint64_t rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void parse_or_fail(Position *pos, StateInfo *st, const char *sfen) {
    char err[128];
    if (!position_from_sfen(pos, st, sfen, err, sizeof err))
        fail_msg("rejected '%s': %s", sfen, err);
}

static bool is_capture(const Position *pos, Move m) {
    return !move_is_drop(m) && position_piece_on(pos, move_to(m)) != NO_PIECE;
}

static int cmp_move(const void *a, const void *b) {
    Move x = ((const ExtMove *)a)->move, y = ((const ExtMove *)b)->move;
    return (x > y) - (x < y);
}

static int sorted_moves(const Position *pos, GenType type, ExtMove *list) {
    int n = generate_moves(pos, type, list);
    qsort(list, (size_t)n, sizeof *list, cmp_move);
    return n;
}

static bool list_has(const ExtMove *list, int n, Move m) {
    for (int i = 0; i < n; i++)
        if (list[i].move == m)
            return true;
    return false;
}

static void fail_at(const Position *pos, const char *what, Move m) {
    char sfen[SFEN_MAX], text[USI_MOVE_MAX];
    fail_msg("%s: move %s (%#x) in %s", what, move_to_usi(m, text), (unsigned)m, position_to_sfen(pos, sfen, true));
}

/* Totals over every position checked, to prove the playouts reached what they must. */
static struct {
    int positions, in_check, double_check, with_hand, big_hand, drops, promotions, checks_given;
    long legal_moves;
} seen;

/* (a) GEN_LEGAL equals the set of Move16 values the validator accepts, by brute force
 * over all 65536 of them, and the validator rebuilds the same 32-bit moves. */
static void check_against_validator(const Position *pos, const ExtMove *legal, int n) {
    static uint8_t generated[1 << 16];
    memset(generated, 0, sizeof generated);
    for (int i = 0; i < n; i++) {
        Move16 m16 = move_to_move16(legal[i].move);
        if (generated[m16])
            fail_at(pos, "generated twice", legal[i].move);
        generated[m16] = 1;
        if (position_legal_move_from16(pos, m16) != legal[i].move)
            fail_at(pos, "generated but the validator disagrees", legal[i].move);
    }
    int accepted = 0;
    for (uint32_t v = 0; v < (1u << 16); v++) {
        Move m = position_legal_move_from16(pos, (Move16)v);
        if (m == MOVE_NONE)
            continue;
        accepted++;
        if (!generated[v])
            fail_at(pos, "validator accepts a move not generated", m);
    }
    if (accepted != n) {
        char sfen[SFEN_MAX];
        fail_msg("validator accepts %d moves, generator %d, in %s", accepted, n, position_to_sfen(pos, sfen, true));
    }
}

/* (b) and the evasion generator: the pseudo-legal kinds add up as documented. */
static void check_generator_kinds(const Position *pos, const ExtMove *legal, int n) {
    static ExtMove caps[MAX_MOVES], quiets[MAX_MOVES], both[2 * MAX_MOVES], non_ev[MAX_MOVES];
    if (position_in_check(pos)) {
        static ExtMove ev[MAX_MOVES];
        int ne = sorted_moves(pos, GEN_EVASIONS, ev), k = 0;
        for (int i = 0; i < ne; i++)
            if (position_is_legal(pos, ev[i].move))
                ev[k++] = ev[i];
        if (k != n)
            fail_msg("legal evasions %d, legal moves %d", k, n);
        for (int i = 0; i < k; i++)
            if (ev[i].move != legal[i].move)
                fail_at(pos, "evasions and legal moves differ", ev[i].move);
        return;
    }
    int nc = sorted_moves(pos, GEN_CAPTURES, caps);
    int nq = sorted_moves(pos, GEN_QUIETS, quiets);
    int nn = sorted_moves(pos, GEN_NON_EVASIONS, non_ev);
    for (int i = 0; i < nc; i++)
        if (!is_capture(pos, caps[i].move))
            fail_at(pos, "GEN_CAPTURES gave a non-capture", caps[i].move);
    for (int i = 0; i < nq; i++)
        if (is_capture(pos, quiets[i].move))
            fail_at(pos, "GEN_QUIETS gave a capture", quiets[i].move);
    memcpy(both, caps, (size_t)nc * sizeof *caps);
    memcpy(both + nc, quiets, (size_t)nq * sizeof *quiets);
    qsort(both, (size_t)(nc + nq), sizeof *both, cmp_move);
    if (nc + nq != nn) {
        char sfen[SFEN_MAX];
        fail_msg("captures %d + quiets %d != non-evasions %d in %s", nc, nq, nn, position_to_sfen(pos, sfen, true));
    }
    for (int i = 0; i < nn; i++)
        if (both[i].move != non_ev[i].move)
            fail_at(pos, "captures + quiets differ from non-evasions", non_ev[i].move);
    /* Filtering the pseudo-legal list must give exactly the legal list. */
    int k = 0;
    for (int i = 0; i < nn; i++)
        if (position_is_legal(pos, non_ev[i].move))
            non_ev[k++] = non_ev[i];
    if (k != n)
        fail_msg("legal non-evasions %d, legal moves %d", k, n);
    for (int i = 0; i < k; i++)
        if (non_ev[i].move != legal[i].move)
            fail_at(pos, "filtered non-evasions differ from legal moves", non_ev[i].move);
}

/* The drop rules, checked directly rather than through the validator. */
static void check_drop_rules(const Position *pos, const ExtMove *legal, int n) {
    Color us = pos->side;
    for (int i = 0; i < n; i++) {
        Move m = legal[i].move;
        if (!move_is_drop(m))
            continue;
        PieceType pt = move_dropped_type(m);
        Square to = move_to(m);
        int r = rank_relative(us, square_rank(to));
        if (!hand_has(pos->hand[us], pt) || position_piece_on(pos, to) != NO_PIECE)
            fail_at(pos, "drop without the piece or onto a piece", m);
        if (((pt == PAWN || pt == LANCE) && r == 0) || (pt == KNIGHT && r < 2))
            fail_at(pos, "drop onto a square it could never leave", m);
        if (pt == PAWN && (position_pieces(pos, us, PAWN) & bitboard_tables.file[square_file(to)]))
            fail_at(pos, "nifu drop generated", m);
        if (pt == PAWN && bb_test(bb_pawn_attacks(us, to), pos->king_sq[color_flip(us)]) &&
            position_pawn_drop_mates(pos, to))
            fail_at(pos, "uchifuzume drop generated", m);
    }
}

/* (c), (d), (e): every legal move played and taken back. */
static void check_do_undo(Position *pos, const ExtMove *legal, int n) {
    static ExtMove quiet_checks[MAX_MOVES], checks[MAX_MOVES];
    bool in_check = position_in_check(pos);
    int nqc = in_check ? 0 : sorted_moves(pos, GEN_QUIET_CHECKS, quiet_checks);
    int nc = sorted_moves(pos, GEN_CHECKS, checks);
    int quiet_checks_found = 0, checks_found = 0;
    char before[SFEN_MAX], after[SFEN_MAX], err[128];
    position_to_sfen(pos, before, true);
    Key key = position_key(pos);
    Hand hands[COLOR_NB] = {pos->hand[BLACK], pos->hand[WHITE]};
    for (int i = 0; i < n; i++) {
        Move m = legal[i].move;
        bool quiet = !is_capture(pos, m);
        bool gives = position_gives_check(pos, m);
        Key predicted = position_key_after(pos, m);
        StateInfo st;
        position_do_move(pos, m, &st);
        if (position_key(pos) != predicted)
            fail_at(pos, "position_key_after differs from the key after do_move", m);
        if (!position_is_consistent(pos))
            fail_at(pos, "inconsistent after do_move", m);
        if (!position_legality_report(pos, err, sizeof err))
            fail_msg("after %#x the position breaks a rule: %s (from %s)", (unsigned)m, err, before);
        if (position_key(pos) == key)
            fail_at(pos, "key unchanged by a move", m);
        if (gives != position_in_check(pos))
            fail_msg("gives_check %d but in check %d after %#x from %s", gives, position_in_check(pos), (unsigned)m,
                     before);
        seen.checks_given += gives;
        seen.drops += move_is_drop(m);
        seen.promotions += move_is_promotion(m);
        position_undo_move(pos, m);
        if (position_key(pos) != key || !position_is_consistent(pos))
            fail_msg("undo of %#x did not restore %s", (unsigned)m, before);
        if (strcmp(position_to_sfen(pos, after, true), before) != 0)
            fail_msg("undo of %#x gave %s instead of %s", (unsigned)m, after, before);
        if (pos->hand[BLACK] != hands[BLACK] || pos->hand[WHITE] != hands[WHITE])
            fail_msg("undo of %#x changed the hands in %s", (unsigned)m, before);
        if (gives) {
            checks_found++;
            if (!list_has(checks, nc, m))
                fail_at(pos, "legal check missing from GEN_CHECKS", m);
        }
        if (!in_check && quiet && gives) {
            quiet_checks_found++;
            if (!list_has(quiet_checks, nqc, m))
                fail_at(pos, "legal quiet check missing from GEN_QUIET_CHECKS", m);
        }
    }
    if (nc != checks_found)
        fail_msg("GEN_CHECKS has %d moves, %d legal checks exist in %s", nc, checks_found, before);
    if (nqc != quiet_checks_found)
        fail_msg("GEN_QUIET_CHECKS has %d moves, %d legal quiet checks exist in %s", nqc, quiet_checks_found, before);
}

static void check_position(Position *pos) {
    static ExtMove legal[MAX_MOVES];
    int n = sorted_moves(pos, GEN_LEGAL, legal);
    if (position_has_legal_move(pos) != (n > 0))
        fail_msg("has_legal_move disagrees with %d legal moves", n);
    check_against_validator(pos, legal, n);
    check_generator_kinds(pos, legal, n);
    check_drop_rules(pos, legal, n);
    check_do_undo(pos, legal, n);
    seen.positions++;
    seen.legal_moves += n;
    seen.in_check += position_in_check(pos);
    seen.double_check += bb_more_than_one(pos->st->checkers);
    int in_hand = 0;
    for (PieceType pt = PAWN; pt <= GOLD; pt++)
        in_hand += hand_count(pos->hand[pos->side], pt);
    seen.with_hand += in_hand > 0;
    seen.big_hand += in_hand >= 5;
}

typedef enum { PLAY_UNIFORM, PLAY_CAPTURES, PLAY_CHECKS } PlayStyle;

/* Picks a move: uniformly, or preferring captures (to fill the hands) or checks (to
 * reach positions in check, where the evasion paths run). */
static Move pick_move(const Position *pos, const ExtMove *list, int n, PlayStyle style, uint64_t *rng) {
    if (style != PLAY_UNIFORM && rng_next(rng) % 10 < 8) {
        int idx[MAX_MOVES], k = 0;
        for (int i = 0; i < n; i++) {
            bool want =
                style == PLAY_CAPTURES ? is_capture(pos, list[i].move) : position_gives_check(pos, list[i].move);
            if (want)
                idx[k++] = i;
        }
        if (k)
            return list[idx[rng_next(rng) % (uint64_t)k]].move;
    }
    return list[rng_next(rng) % (uint64_t)n].move;
}

/* Plays one game from sfen, checking every position met on the way. */
static void playout(const char *sfen, uint64_t seed, PlayStyle style, int plies) {
    static Position pos;
    static StateInfo states[PLAYOUT_MAX_PLIES + 1];
    static ExtMove list[MAX_MOVES];
    uint64_t rng = seed;
    parse_or_fail(&pos, &states[0], sfen);
    if (plies > PLAYOUT_MAX_PLIES)
        plies = PLAYOUT_MAX_PLIES;
    for (int ply = 0; ply < plies; ply++) {
        check_position(&pos);
        int n = generate_moves(&pos, GEN_LEGAL, list);
        if (n == 0)
            break;
        position_do_move(&pos, pick_move(&pos, list, n, style, &rng), &states[ply + 1]);
    }
}

static void test_playouts(void **state) {
    (void)state;
    memset(&seen, 0, sizeof seen);
    /* Three styles from the start and from a position with full hands. */
    for (uint64_t g = 0; g < 30; g++) {
        playout(STARTPOS_SFEN, 1000 + g, PLAY_UNIFORM, 140);
        playout(STARTPOS_SFEN, 2000 + g, PLAY_CAPTURES, 140);
        playout(STARTPOS_SFEN, 3000 + g, PLAY_CHECKS, 100);
    }
    for (uint64_t g = 0; g < 8; g++) {
        playout("4k4/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L18P 1", 4000 + g, PLAY_CHECKS, 60);
        playout("l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1", 5000 + g, PLAY_CAPTURES, 80);
    }
    printf("checked %d positions (%ld legal moves): %d in check (%d double), %d with pieces in hand (%d with 5+), "
           "%d drops, %d promotions, %d checking moves\n",
           seen.positions, seen.legal_moves, seen.in_check, seen.double_check, seen.with_hand, seen.big_hand,
           seen.drops, seen.promotions, seen.checks_given);
    /* The coverage the playouts are there for. */
    assert_true(seen.positions >= 3000);
    assert_true(seen.in_check >= 200);
    assert_true(seen.big_hand >= 300);
}

/* Positions of known character: the reference list of ../shared/refdata/usi/rsshogi
 * (sfen_positions.txt), pins, double checks, the 593-move maximum. */
static void test_reference_positions(void **state) {
    (void)state;
    static const char *const sfens[] = {
        STARTPOS_SFEN,
        "lnsgkgsnl/1r7/p1ppp1bpp/1p3pp2/7P1/2P6/PP1PPPP1P/1B3S1R1/LNSGKG1NL b - 9",
        "l4S2l/4g1gs1/5p1p1/pr2N1pkp/4Gn3/PP3PPPP/2GPP4/1K7/L3r+s2L w BS2N5Pb 1",
        "6n1l/2+S1k4/2lp4p/1np1B2b1/3PP4/1N1S3rP/1P2+pPP+p1/1p1G5/3KG2r1 b GSN2L4Pgs2p 1",
        "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        "ln1g5/1r2S1k2/p2pppn2/2ps2p2/1p7/2P6/PPSPPPPLP/2G2K1pr/LN4G1b w BGSLPnp 62",
        "ln3gsn1/7kl/3+B1p1p1/p4s2p/2P6/P2B3PP/1PNP+rPP2/2G3SK1/L4G1NL b G3Prs3p 65",
        "ln2+r1r2/5s+Pkl/3+B1p1p1/p4B2p/2P6/P6PP/1PNP1P3/2G3SK1/L4G1NL w 2GSN3Ps3p 76",
        "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1",
        "lr5nl/3gk1g2/2nsppsp1/p1pp2p1p/1p5P1/P1PPSPP1P/1PS1P1N2/2GK1G3/LN5RL w Bb 50",
        /* A rook and a bishop pin pieces that may still move along the pin. */
        "4k4/9/4r4/9/2b6/4L4/4S4/4K4/9 b - 1",
        "4k4/4l4/9/9/9/4R4/3b5/4K4/9 b P 1",
        /* Double checks: gold and rook; lance and knight. */
        "4k4/9/9/9/9/9/9/3g5/4K1r2 b - 1",
        "4k4/9/9/9/4l4/9/3n5/9/4K4 b G 1",
    };
    for (size_t i = 0; i < ARRAY_LEN(sfens); i++) {
        Position pos;
        StateInfo st;
        parse_or_fail(&pos, &st, sfens[i]);
        check_position(&pos);
    }
    Position pos;
    StateInfo st;
    ExtMove list[MAX_MOVES];
    parse_or_fail(&pos, &st, sfens[8]);
    assert_int_equal(generate_moves(&pos, GEN_LEGAL, list), 593);
    static const int double_checks[] = {7, 12, 13};
    for (size_t i = 0; i < ARRAY_LEN(double_checks); i++) {
        parse_or_fail(&pos, &st, sfens[double_checks[i]]);
        assert_true(bb_more_than_one(pos.st->checkers));
    }
}

/* The mirror image of an SFEN: board turned half a turn, colours and side swapped, so a
 * black drop rule becomes the same white drop rule. */
static void flip_sfen(const char *in, char *out) {
    char board[128], side[4], hands[64], tokens[SQ_NB + RANK_NB][3]; /* squares and separators */
    int nt = 0;
    if (sscanf(in, "%127s %3s %63s", board, side, hands) != 3)
        fail_msg("cannot flip '%s'", in);
    char *o = out;
    /* Tokenise into squares (digits expanded to '1's) so the reversal is a plain one. */
    for (const char *p = board; *p; p++) {
        if (*p == '/') {
            strcpy(tokens[nt++], "/");
        } else if (*p >= '1' && *p <= '9') {
            for (int k = 0; k < *p - '0'; k++)
                strcpy(tokens[nt++], "1");
        } else if (*p == '+') {
            tokens[nt][0] = '+', tokens[nt][1] = p[1], tokens[nt][2] = '\0', nt++, p++;
        } else {
            tokens[nt][0] = *p, tokens[nt][1] = '\0', nt++;
        }
    }
    int empty = 0;
    for (int i = nt - 1; i >= 0; i--) {
        if (strcmp(tokens[i], "1") == 0) {
            empty++;
            continue;
        }
        if (empty)
            *o++ = (char)('0' + empty), empty = 0;
        for (const char *t = tokens[i]; *t; t++)
            *o++ = *t >= 'a' && *t <= 'z' ? (char)(*t - 32) : *t >= 'A' && *t <= 'Z' ? (char)(*t + 32) : *t;
    }
    if (empty)
        *o++ = (char)('0' + empty);
    *o++ = ' ';
    *o++ = side[0] == 'b' ? 'w' : 'b';
    *o++ = ' ';
    for (const char *t = hands; *t; t++)
        *o++ = *t >= 'a' && *t <= 'z' ? (char)(*t - 32) : *t >= 'A' && *t <= 'Z' ? (char)(*t + 32) : *t;
    strcpy(o, " 1");
}

/* Checks that the pawn drop on `to` (given for black; the flipped position is checked
 * too) is or is not uchifuzume, and that generator and validator agree with that. */
static void check_pawn_drop(const char *sfen, const char *usi_drop, bool mates) {
    char flipped[SFEN_MAX], flipped_drop[8];
    flip_sfen(sfen, flipped);
    /* 1b seen from the other side is 9h. */
    snprintf(flipped_drop, sizeof flipped_drop, "P*%c%c", '9' - (usi_drop[2] - '1'), 'i' - (usi_drop[3] - 'a'));
    const char *const variants[2][2] = {{sfen, usi_drop}, {flipped, flipped_drop}};
    for (int v = 0; v < 2; v++) {
        Position pos;
        StateInfo st;
        ExtMove list[MAX_MOVES];
        char err[128];
        parse_or_fail(&pos, &st, variants[v][0]);
        if (!position_legality_report(&pos, err, sizeof err))
            fail_msg("%s: %s", variants[v][0], err);
        Move16 m16;
        assert_true(move16_from_usi(variants[v][1], 4, &m16));
        Square to = move_to(m16);
        assert_true(bb_test(bb_pawn_attacks(pos.side, to), pos.king_sq[color_flip(pos.side)]));
        if (position_pawn_drop_mates(&pos, to) != mates)
            fail_msg("%s %s: pawn_drop_mates should be %d", variants[v][0], variants[v][1], mates);
        int n = generate_moves(&pos, GEN_LEGAL, list);
        Move m = move_make_drop(PAWN, to, pos.side);
        if (list_has(list, n, m) == mates)
            fail_msg("%s %s: generated %d, expected %d", variants[v][0], variants[v][1], !mates, mates);
        if ((position_legal_move_from16(&pos, m16) != MOVE_NONE) == mates)
            fail_msg("%s %s: validator wrong", variants[v][0], variants[v][1]);
        /* A checking pawn drop is always a quiet check, when legal. */
        n = generate_moves(&pos, GEN_QUIET_CHECKS, list);
        assert_true(list_has(list, n, m) == !mates);
        check_position(&pos);
    }
}

/* (f) hand-made uchifuzume positions, white king on 1a, black to drop on 1b. */
static void test_uchifuzume_hand_made(void **state) {
    (void)state;
    /* Gold on 2c guards 1b and 2b, knight on 3c guards 2a: mate, so illegal. */
    check_pawn_drop("8k/9/6NG1/9/9/9/9/9/4K4 b P 1", "P*1b", true);
    /* Without the knight the king escapes to 2a: only check, legal. */
    check_pawn_drop("8k/9/7G1/9/9/9/9/9/4K4 b P 1", "P*1b", false);
    /* The gold on 2b could take the pawn, but the bishop pins it to the king: mate. */
    check_pawn_drop("8k/7g1/7SN/9/4B4/9/9/9/4K4 b P 1", "P*1b", true);
    /* Without the bishop the gold takes: legal. */
    check_pawn_drop("8k/7g1/7SN/9/9/9/9/9/4K4 b P 1", "P*1b", false);
    /* The bishop on 5f guards the pawn from afar, the gold on 3b takes 2a and 2b away. */
    check_pawn_drop("8k/6G2/9/9/9/4B4/9/9/4K4 b P 1", "P*1b", true);
    /* A white pawn on 3d cuts the bishop off, so the king takes the pawn: legal. */
    check_pawn_drop("8k/6G2/9/6p2/9/4B4/9/9/4K4 b P 1", "P*1b", false);
    /* The king's own lance on 2a blocks its flight square, the gold on 1c guards 1b and 2b. */
    check_pawn_drop("7lk/9/8G/9/9/9/9/9/4K4 b P 1", "P*1b", true);
    /* The gold on 1c is pinned by the lance on 1e, but taking on 1b keeps it on the pin
     * line; the silver on 2c keeps the king from taking. The drop is only check, legal. */
    check_pawn_drop("8k/6G2/7Sg/9/8L/9/9/9/4K4 b P 1", "P*1b", false);
    /* Pushing a pawn to give mate is legal (only the drop is forbidden). */
    Position pos;
    StateInfo st;
    ExtMove list[MAX_MOVES];
    parse_or_fail(&pos, &st, "8k/9/6NGP/9/9/9/9/9/4K4 b - 1");
    Move push = position_parse_usi_move(&pos, "1c1b");
    assert_true(push != MOVE_NONE);
    int n = generate_moves(&pos, GEN_LEGAL, list);
    assert_true(list_has(list, n, push));
    StateInfo st2;
    position_do_move(&pos, push, &st2);
    assert_true(position_in_check(&pos));
    assert_false(position_has_legal_move(&pos));
}

/* (f) the reference sequences of ../shared/refdata/usi/rsshogi/move_sequences.txt that
 * end in an illegal pawn drop: the whole command fails at that move, the prefix plays,
 * and in the final position the drop is neither generated nor validated. */
static const char NIFU_SEQ[] =
    "startpos moves 2g2f 8c8d 2f2e 8d8e 7g7f 4a3b 8h7g 3c3d 7i8h 2b7g+ 8h7g 3a2b 1g1f 9c9d 9g9f 1c1d 3i3h "
    "2b3c 3g3f 7a6b 2i3g 6c6d 4g4f 6b6c 6i7h 5a4b 5i6h 7c7d 3h4g 8a7c 4i4h 6a6b 2h2i 8b8a 4g5f 4b5b 6g6f "
    "5b4b 6h7i 6c5d 3g4e 3c2b 7f7e 7d7e 4e5c+ 4b5c P*7d 4c4d 7d7c+ 6b7c 6f6e 6d6e 4f4e N*6d 2i6i 6d5f 5g5f "
    "7c6d 4e4d 2b3c P*6f 6e6f 5f5e B*4f N*5g 5d5e 7g6f P*6h 6i6h P*6g 7h6g 3c4d P*4e S*5i 4e4d 5i6h+ 7i6h "
    "5e6f 6g6f P*6e 6f5f 4f1i+ S*7c P*6g";
static const char UCHIFUZUME_SEQ[] =
    "startpos moves 2g2f 8c8d 2f2e 8d8e 7g7f 4a3b 8h7g 3c3d 7i8h 2b7g+ 8h7g 3a2b 1g1f 9c9d 9g9f 1c1d 3i3h "
    "2b3c 3g3f 7a6b 2i3g 6c6d 4g4f 6b6c 6i7h 5a4b 5i6h 7c7d 3h4g 8a7c 4i4h 6a6b 2h2i 8b8a 4g5f 4b5b 6g6f "
    "5b4b 6h7i 6c5d 3g4e 3c2b 7f7e 7d7e 4e5c+ 4b5c P*7d 4c4d 7d7c+ 6b7c 6f6e 6d6e 4f4e N*6d 2i6i 6d5f 5g5f "
    "7c6d 4e4d 2b3c P*6f 6e6f 5f5e B*4f N*5g 5d5e 7g6f P*6h 6i6h P*6g 7h6g 3c4d P*4e S*5i 4e4d 5i6h+ 7i6h "
    "5e6f 6g6f P*6e 6f5f 4f1i+ S*7c 6d5d P*5e 5c4b 5e5d 4b3a 5d5c+ 1i7c 5g6e R*2g S*4g P*6g 6h5g P*5e 6e7c "
    "5e5f 5g5f S*6d 7c8a+ L*5e 5f6g S*7f 6g6f P*6e";

static void check_sequence(const char *seq, const char *reason, int prefix_moves, bool uchifuzume) {
    Game g;
    game_init(&g);
    char err[256];
    assert_false(game_set_from_usi(&g, seq, err, sizeof err));
    if (!strstr(err, reason))
        fail_msg("reason '%s', expected '%s'", err, reason);
    assert_int_equal(g.count, 0); /* the failed command left the fresh game alone */
    char prefix[2048];
    snprintf(prefix, sizeof prefix, "%s", seq);
    char *last = strrchr(prefix, ' ');
    *last++ = '\0';
    if (!game_set_from_usi(&g, prefix, err, sizeof err))
        fail_msg("prefix rejected: %s", err);
    assert_int_equal(g.count, prefix_moves);
    Move16 m16;
    assert_true(move16_from_usi(last, strlen(last), &m16));
    assert_true(move_is_drop(m16) && move_dropped_type(m16) == PAWN);
    Position *pos = &g.pos;
    Square to = move_to(m16);
    assert_true(hand_has(pos->hand[pos->side], PAWN));
    assert_int_equal(position_piece_on(pos, to), NO_PIECE);
    bool nifu = (position_pieces(pos, pos->side, PAWN) & bitboard_tables.file[square_file(to)]) != 0;
    assert_true(nifu == !uchifuzume);
    if (uchifuzume)
        assert_true(position_pawn_drop_mates(pos, to));
    assert_int_equal(position_legal_move_from16(pos, m16), MOVE_NONE);
    ExtMove list[MAX_MOVES];
    int n = generate_moves(pos, GEN_LEGAL, list);
    assert_false(list_has(list, n, move_make_drop(PAWN, to, pos->side)));
    check_position(pos);
    game_free(&g);
}

static void test_reference_sequences(void **state) {
    (void)state;
    check_sequence(NIFU_SEQ, "move 84 'P*6g' is illegal", 83, false);
    check_sequence(UCHIFUZUME_SEQ, "move 106 'P*6e' is illegal", 105, true);
}

int main(void) {
    shogi_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_positions),
        cmocka_unit_test(test_uchifuzume_hand_made),
        cmocka_unit_test(test_reference_sequences),
        cmocka_unit_test(test_playouts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
