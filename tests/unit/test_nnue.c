/* test_nnue.c - the halfKP NNUE loader and evaluation.
 *
 * Nets come from a generator written here (random parameters in YaneuraOu's exact file
 * layout, header hashes and architecture strings computed independently of the engine).
 * Every evaluation is compared with a reference written plainly below: its own BonaPiece
 * table, scalar loops, int16 wrapping accumulators, clamp 0..127, ">> 6", / FV_SCALE.
 * Covered: the three sizes, the AVX2 and portable paths, incremental (random do/undo
 * walks with null moves) against from-scratch, and refusal of bad files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "eval/nnue.h"
#include "shogi/movegen.h"

#include "nnue_gen.h"

/* ---- the reference evaluation ---- */

enum {
    F_HAND_PAWN = 1,
    E_HAND_PAWN = 20,
    F_HAND_LANCE = 39,
    E_HAND_LANCE = 44,
    F_HAND_KNIGHT = 49,
    E_HAND_KNIGHT = 54,
    F_HAND_SILVER = 59,
    E_HAND_SILVER = 64,
    F_HAND_GOLD = 69,
    E_HAND_GOLD = 74,
    F_HAND_BISHOP = 79,
    E_HAND_BISHOP = 82,
    F_HAND_ROOK = 85,
    E_HAND_ROOK = 88,
    F_PAWN = 90,
    E_PAWN = 171,
    F_LANCE = 252,
    E_LANCE = 333,
    F_KNIGHT = 414,
    E_KNIGHT = 495,
    F_SILVER = 576,
    E_SILVER = 657,
    F_GOLD = 738,
    E_GOLD = 819,
    F_BISHOP = 900,
    E_BISHOP = 981,
    F_HORSE = 1062,
    E_HORSE = 1143,
    F_ROOK = 1224,
    E_ROOK = 1305,
    F_DRAGON = 1386,
    E_DRAGON = 1467,
    FE_END = 1548
};

static int ref_board_base(PieceType pt, bool friend_piece) {
    switch (pt) {
    case PAWN: return friend_piece ? F_PAWN : E_PAWN;
    case LANCE: return friend_piece ? F_LANCE : E_LANCE;
    case KNIGHT: return friend_piece ? F_KNIGHT : E_KNIGHT;
    case SILVER: return friend_piece ? F_SILVER : E_SILVER;
    case GOLD:
    case PRO_PAWN:
    case PRO_LANCE:
    case PRO_KNIGHT:
    case PRO_SILVER: return friend_piece ? F_GOLD : E_GOLD;
    case BISHOP: return friend_piece ? F_BISHOP : E_BISHOP;
    case HORSE: return friend_piece ? F_HORSE : E_HORSE;
    case ROOK: return friend_piece ? F_ROOK : E_ROOK;
    case DRAGON: return friend_piece ? F_DRAGON : E_DRAGON;
    default: fail_msg("no BonaPiece for type %d", pt);
    }
    return 0;
}
static int ref_hand_base(PieceType pt, bool friend_piece) {
    switch (pt) {
    case PAWN: return friend_piece ? F_HAND_PAWN : E_HAND_PAWN;
    case LANCE: return friend_piece ? F_HAND_LANCE : E_HAND_LANCE;
    case KNIGHT: return friend_piece ? F_HAND_KNIGHT : E_HAND_KNIGHT;
    case SILVER: return friend_piece ? F_HAND_SILVER : E_HAND_SILVER;
    case GOLD: return friend_piece ? F_HAND_GOLD : E_HAND_GOLD;
    case BISHOP: return friend_piece ? F_HAND_BISHOP : E_HAND_BISHOP;
    case ROOK: return friend_piece ? F_HAND_ROOK : E_HAND_ROOK;
    default: fail_msg("no hand BonaPiece for type %d", pt);
    }
    return 0;
}

/* The 38 BonaPieces of the piece list seen by perspective c; empty slots are 0. */
static int ref_piece_list(const Position *pos, Color c, int *list) {
    int n = 0;
    for (Square sq = 0; sq < SQ_NB; sq++) {
        Piece pc = pos->board[sq];
        if (pc == NO_PIECE || piece_type(pc) == KING)
            continue;
        int s = c == BLACK ? sq : 80 - sq;
        list[n++] = ref_board_base(piece_type(pc), piece_color(pc) == c) + s;
    }
    static const PieceType hand_types[] = {PAWN, LANCE, KNIGHT, SILVER, GOLD, BISHOP, ROOK};
    for (int owner = 0; owner < 2; owner++)
        for (int t = 0; t < 7; t++)
            for (int i = 0; i < hand_count(pos->hand[owner], hand_types[t]); i++)
                list[n++] = ref_hand_base(hand_types[t], owner == (int)c) + i;
    assert_true(n <= 38);
    while (n < 38)
        list[n++] = 0;
    return n;
}

static int ref_clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static int ref_evaluate(const GenNet *g, const Position *pos, int fv_scale) {
    int l1 = g->l1, h1 = g->h1, h2 = g->h2;
    static int16_t acc[2][1024];
    for (int c = 0; c < 2; c++) {
        int list[38];
        ref_piece_list(pos, (Color)c, list);
        int k = c == BLACK ? pos->king_sq[BLACK] : 80 - pos->king_sq[WHITE];
        for (int j = 0; j < l1; j++) {
            int32_t s = get16(g->buf + g->ft_bias_off + 2 * (size_t)j);
            for (int i = 0; i < 38; i++) {
                size_t feature = (size_t)k * FE_END + (size_t)list[i];
                s += get16(g->buf + g->ft_weight_off + 2 * (feature * (size_t)l1 + (size_t)j));
            }
            acc[c][j] = (int16_t)(uint16_t)(s & 0xffff); /* int16 arithmetic wraps */
        }
    }
    uint8_t in[2048];
    for (int j = 0; j < l1; j++) {
        in[j] = (uint8_t)ref_clamp(acc[pos->side][j], 0, 127);
        in[l1 + j] = (uint8_t)ref_clamp(acc[pos->side ^ 1][j], 0, 127);
    }
    int a1[32], a2[32];
    for (int i = 0; i < h1; i++) {
        int64_t s = get32(g->buf + g->b1_off + 4 * (size_t)i);
        for (int j = 0; j < 2 * l1; j++)
            s += (int8_t)g->buf[g->w1_off + (size_t)i * 2 * l1 + j] * in[j];
        a1[i] = ref_clamp((int32_t)s >> 6, 0, 127);
    }
    for (int i = 0; i < h2; i++) {
        int64_t s = get32(g->buf + g->b2_off + 4 * (size_t)i);
        for (int j = 0; j < h1; j++)
            s += (int8_t)g->buf[g->w2_off + (size_t)i * pad32(h1) + j] * a1[j];
        a2[i] = ref_clamp((int32_t)s >> 6, 0, 127);
    }
    int64_t out = get32(g->buf + g->b3_off);
    for (int j = 0; j < h2; j++)
        out += (int8_t)g->buf[g->w3_off + j] * a2[j];
    return ref_clamp((int)((int32_t)out / fv_scale), -27000, 27000);
}

/* ---- helpers ---- */

static NnueNet *load_gen(const GenNet *g) {
    char err[512] = "";
    NnueNet *net = nnue_load_memory(g->buf, g->len, err, sizeof err);
    if (!net)
        fail_msg("load failed: %s", err);
    return net;
}

static void set_pos(Position *pos, StateInfo *st, const char *sfen) {
    char err[128];
    if (!position_from_sfen(pos, st, sfen, err, sizeof err))
        fail_msg("bad sfen %s: %s", sfen, err);
}

static const char *const SFENS[] = {
    STARTPOS_SFEN,
    "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
    "6n1l/2+S1k4/2lp4p/1np1B2b1/3PP4/1N1S3rP/1P2+pPP+p1/1p1G5/3KG2r1 b GSN2L4Pgs2p 1",
    "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
    "4k4/9/9/9/9/9/9/9/4K4 b 18P 1",              /* missing pieces: empty slots of the list */
    "4k4/9/9/9/9/9/9/9/4K4 w 2R2B4G4S4N4L9P9p 1", /* full hands */
    "+R+B2k4/9/+P+P+P6/9/9/9/9/9/4K3+r w - 1",
};

/* Compares engine (portable and SIMD) with the reference on a few fixed positions. */
static void check_fixed_positions(const GenNet *g, NnueNet *net) {
    for (size_t i = 0; i < sizeof SFENS / sizeof SFENS[0]; i++) {
        Position pos;
        StateInfo st;
        set_pos(&pos, &st, SFENS[i]);
        int want = ref_evaluate(g, &pos, 16);
        nnue_set_simd(false);
        int portable = nnue_evaluate_full(net, &pos, 16);
        nnue_set_simd(true);
        int simd = nnue_evaluate_full(net, &pos, 16);
        if (portable != want || simd != want)
            fail_msg("l1 %d sfen %s: reference %d portable %d simd %d", g->l1, SFENS[i], want, portable, simd);
        assert_int_equal(nnue_evaluate_full(net, &pos, 24), ref_evaluate(g, &pos, 24));
    }
}

enum { WALK_MAX_DEPTH = 48 };

/* A random walk of do/undo (with null moves) from sfen: at each node the incremental
 * evaluation (sometimes skipped, so that updates chain over several plies) must equal
 * the from-scratch one, and every few nodes the reference too. Returns nodes evaluated. */
static int random_walk(const GenNet *g, NnueNet *net, const char *sfen, int steps, uint64_t seed, bool simd) {
    nnue_set_simd(simd);
    rng_state = seed;
    Position pos;
    StateInfo states[WALK_MAX_DEPTH + 2];
    Move moves[WALK_MAX_DEPTH + 2];
    set_pos(&pos, &states[0], sfen);
    EvalStack *s = eval_stack_new();
    assert_non_null(s);
    eval_stack_reset(s, &pos);
    int depth = 0, evaluated = 0, distinct = 0;
    static bool seen[2 * 27000 + 1];
    memset(seen, 0, sizeof seen);
    for (int step = 0; step < steps; step++) {
        ExtMove list[MAX_MOVES];
        int n = generate_moves(&pos, GEN_LEGAL, list);
        bool down = depth < WALK_MAX_DEPTH && n > 0 && (depth == 0 || rnd() % 100 < 65);
        if (depth == 0 && n == 0)
            break;
        if (down) {
            bool null_ok = !position_in_check(&pos) && depth > 0 && moves[depth - 1] != MOVE_NULL;
            if (null_ok && rnd() % 100 < 6) {
                position_do_null_move(&pos, &states[depth + 1]);
                moves[depth++] = MOVE_NULL;
            } else {
                Move m = list[rnd() % (uint64_t)n].move;
                position_do_move(&pos, m, &states[depth + 1]);
                moves[depth++] = m;
            }
            eval_stack_push(s, &pos);
        } else {
            Move m = moves[--depth];
            if (m == MOVE_NULL)
                position_undo_null_move(&pos);
            else
                position_undo_move(&pos, m);
            eval_stack_pop(s);
        }
        if (rnd() % 100 < 70) {
            int inc = nnue_evaluate_incremental(s, &pos);
            int full = nnue_evaluate_full(net, &pos, 16);
            if (inc != full) {
                char buf[SFEN_MAX];
                fail_msg("l1 %d step %d depth %d: incremental %d, full %d at %s", g->l1, step, depth, inc, full,
                         position_to_sfen(&pos, buf, true));
            }
            if (step % 16 == 0)
                assert_int_equal(full, ref_evaluate(g, &pos, 16));
            evaluated++;
            distinct += !seen[full + 27000];
            seen[full + 27000] = true;
        }
    }
    NnueStackStats stats = nnue_stack_stats(s);
    if (distinct < evaluated / 10)
        fail_msg("l1 %d: only %d distinct values in %d evaluations: the random net is degenerate", g->l1, distinct,
                 evaluated);
    assert_int_equal(stats.fallbacks, 0);
    assert_true(stats.incremental > stats.refreshes);
    eval_stack_free(s);
    nnue_set_simd(true);
    return evaluated;
}

static void run_size(int l1, int h1, uint64_t seed, const char *first_layer) {
    GenNet g = gen_net(l1, h1, seed, first_layer);
    NnueNet *net = load_gen(&g);
    assert_int_equal(nnue_net_arch(net)->l1, l1);
    assert_int_equal(nnue_net_arch(net)->h1, h1);
    check_fixed_positions(&g, net);
    nnue_set_current(net, 16);
    int evaluated = 0;
    for (size_t i = 0; i < 4; i++) {
        const char *sfen = SFENS[i == 3 ? 4 : i];
        evaluated += random_walk(&g, net, sfen, 1500, seed + i + 1, true);
        if (nnue_simd_available())
            evaluated += random_walk(&g, net, sfen, 500, seed + i + 101, false);
    }
    assert_true(evaluated > 3000);
    nnue_set_current(NULL, 16);
    free(g.buf);
}

/* ---- tests ---- */

static void test_hashes(void **state) {
    (void)state;
    /* The well-known header hash of halfKP_256x2-32-32 nets (Stockfish and YaneuraOu alike). */
    assert_int_equal(ref_ft_hash(256) ^ ref_net_hash(256, 32, 32), 0x3E5AA6EEu);
    assert_int_equal(nnue_arch_count(), 3);
    static const int shapes[3][2] = {{256, 32}, {512, 16}, {1024, 8}};
    for (int i = 0; i < 3; i++) {
        const NnueArch *a = nnue_arch_get(i);
        assert_int_equal(a->l1, shapes[i][0]);
        assert_int_equal(a->h1, shapes[i][1]);
        assert_int_equal(a->h2, 32);
        assert_int_equal(a->hash, ref_ft_hash(a->l1) ^ ref_net_hash(a->l1, a->h1, 32));
        char mine[1024], ours[1024];
        ref_arch_string(mine, sizeof mine, a->l1, a->h1, 32, "AffineTransform");
        nnue_arch_string(a, ours, sizeof ours);
        assert_string_equal(mine, ours);
    }
    char s[1024];
    ref_arch_string(s, sizeof s, 256, 32, 32, "AffineTransform");
    assert_string_equal(s, "Features=HalfKP(Friend)[125388->256x2],Network=AffineTransform[1<-32](ClippedReLU[32]("
                           "AffineTransform[32<-32](ClippedReLU[32](AffineTransform[32<-512](InputSlice[512(0:512)]"
                           ")))))");
}

static void test_features(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof SFENS / sizeof SFENS[0]; i++) {
        Position pos;
        StateInfo st;
        set_pos(&pos, &st, SFENS[i]);
        for (int c = 0; c < 2; c++) {
            uint32_t idx[64];
            int list[38];
            assert_int_equal(nnue_active_features(&pos, (Color)c, idx), 38);
            ref_piece_list(&pos, (Color)c, list);
            int k = c == BLACK ? pos.king_sq[BLACK] : 80 - pos.king_sq[WHITE];
            /* the same multiset */
            int count[FE_END] = {0};
            for (int j = 0; j < 38; j++) {
                assert_true(idx[j] / FE_END == (uint32_t)k);
                count[idx[j] % FE_END]++;
                count[list[j]]--;
            }
            for (int j = 0; j < FE_END; j++)
                assert_int_equal(count[j], 0);
        }
    }
    /* Black's first hand pawn is f_hand_pawn, the start position's 7g pawn f_pawn + 6*9+6. */
    Position pos;
    StateInfo st;
    set_pos(&pos, &st, "4k4/9/9/9/9/9/9/9/4K4 b P 1");
    uint32_t idx[38];
    nnue_active_features(&pos, BLACK, idx);
    bool found = false;
    for (int j = 0; j < 38; j++)
        found |= idx[j] == (uint32_t)pos.king_sq[BLACK] * FE_END + F_HAND_PAWN;
    assert_true(found);
    nnue_active_features(&pos, WHITE, idx);
    found = false;
    for (int j = 0; j < 38; j++)
        found |= idx[j] == (uint32_t)(80 - pos.king_sq[WHITE]) * FE_END + E_HAND_PAWN;
    assert_true(found);
}

static void test_256(void **state) {
    (void)state;
    run_size(256, 32, 11, NULL);
}
static void test_512(void **state) {
    (void)state;
    run_size(512, 16, 12, "AffineTransformSparseInput");
}
static void test_1024(void **state) {
    (void)state;
    run_size(1024, 8, 13, NULL);
}

static void expect_refusal(const uint8_t *data, size_t len, const char *needle) {
    char err[512] = "";
    NnueNet *net = nnue_load_memory(data, len, err, sizeof err);
    if (net) {
        nnue_free(net);
        fail_msg("accepted a bad file (expected \"%s\")", needle);
    }
    if (!strstr(err, needle))
        fail_msg("message \"%s\" lacks \"%s\"", err, needle);
}

static void test_refusals(void **state) {
    (void)state;
    GenNet g = gen_net(256, 32, 5, NULL);
    expect_refusal(g.buf, 0, "truncated");
    expect_refusal(NULL, 0, "truncated");
    expect_refusal(g.buf, 11, "truncated");
    expect_refusal(g.buf, 100, "truncated");
    expect_refusal(g.buf, g.len - 1, "truncated");
    expect_refusal(g.buf, g.len / 2, "truncated");
    uint8_t *big = malloc(g.len + 1);
    memcpy(big, g.buf, g.len);
    big[g.len] = 0;
    expect_refusal(big, g.len + 1, "oversized");
    free(big);
    g.buf[5] ^= 0x10; /* top hash */
    expect_refusal(g.buf, g.len, "hash mismatch");
    g.buf[5] ^= 0x10;
    g.buf[0] ^= 1; /* version */
    expect_refusal(g.buf, g.len, "version");
    g.buf[0] ^= 1;
    uint32_t alen = (uint32_t)get32(g.buf + 8);
    g.buf[12 + alen] ^= 1; /* transformer hash */
    expect_refusal(g.buf, g.len, "feature transformer hash");
    g.buf[12 + alen] ^= 1;
    g.buf[g.b1_off - 4] ^= 1; /* network hash */
    expect_refusal(g.buf, g.len, "network hash");
    g.buf[g.b1_off - 4] ^= 1;
    put32(g.buf + 8, 0xFFFFFFF0u); /* absurd string length */
    expect_refusal(g.buf, g.len, "architecture string of");
    put32(g.buf + 8, alen);
    /* the good file still loads */
    NnueNet *net = load_gen(&g);
    nnue_free(net);
    /* an unsupported architecture is quoted */
    char arch[1024];
    int n = ref_arch_string(arch, sizeof arch, 256, 32, 64, "AffineTransform");
    uint8_t head[1200];
    put32(head, 0x7AF32F16u);
    put32(head + 4, 0x12345678u);
    put32(head + 8, (uint32_t)n);
    memcpy(head + 12, arch, (size_t)n);
    expect_refusal(head, 12 + (size_t)n, "unsupported architecture \"Features=HalfKP(Friend)[125388->256x2]");
    char err[512];
    assert_null(nnue_load_memory(head, 12 + (size_t)n, err, sizeof err));
    assert_non_null(strstr(err, "AffineTransform[1<-64]"));
    free(g.buf);
}

static void test_files_and_selection(void **state) {
    (void)state;
    GenNet g = gen_net(256, 32, 7, NULL);
    char dir[] = "/tmp/hayanagi_nnue_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/nn.bin", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(g.buf, 1, g.len, f), g.len);
    fclose(f);
    char msg[1024];
    /* a missing file: the embedded evaluation stays */
    assert_false(nnue_load_and_select(dir, "missing.bin", 16, msg, sizeof msg));
    assert_non_null(strstr(msg, "embedded"));
    assert_ptr_equal(eval_current(), &eval_classic);
    assert_null(nnue_current());
    /* the good file */
    assert_true(nnue_load_and_select(dir, "nn.bin", 24, msg, sizeof msg));
    assert_non_null(strstr(msg, "halfKP_256x2-32-32"));
    assert_ptr_equal(eval_current(), &eval_nnue);
    assert_int_equal(nnue_current_fv_scale(), 24);
    Position pos;
    StateInfo st[2];
    set_pos(&pos, &st[0], SFENS[1]);
    assert_int_equal(evaluate(&pos), ref_evaluate(&g, &pos, 24));
    /* evaluate() through a bound stack */
    EvalStack *s = eval_stack_new();
    eval_stack_reset(s, &pos);
    eval_stack_bind_thread(s);
    ExtMove list[MAX_MOVES];
    assert_true(generate_moves(&pos, GEN_LEGAL, list) > 0);
    assert_int_equal(evaluate(&pos), ref_evaluate(&g, &pos, 24));
    position_do_move(&pos, list[0].move, &st[1]);
    eval_stack_push(s, &pos);
    assert_int_equal(evaluate(&pos), ref_evaluate(&g, &pos, 24));
    assert_true(nnue_stack_stats(s).incremental >= 1);
    eval_stack_bind_thread(NULL);
    eval_stack_free(s);
    /* a position without a king goes to the embedded evaluation */
    Position tsume;
    StateInfo tst;
    char err[128];
    assert_true(
        position_from_sfen_ex(&tsume, &tst, "4k4/9/4P4/9/9/9/9/9/9 b G 1", SFEN_ALLOW_MISSING_KING, err, sizeof err));
    assert_int_equal(evaluate(&tsume), eval_classic.evaluate(&tsume));
    /* a truncated file: refused, back to the embedded evaluation */
    f = fopen(path, "wb");
    assert_int_equal(fwrite(g.buf, 1, g.len - 3, f), g.len - 3);
    fclose(f);
    assert_false(nnue_load_and_select(dir, "nn.bin", 16, msg, sizeof msg));
    assert_non_null(strstr(msg, "truncated"));
    assert_ptr_equal(eval_current(), &eval_classic);
    unlink(path);
    rmdir(dir);
    free(g.buf);
}

/* A net loaded in place (nnue_load_memory_borrowed, what the fuzz target uses) evaluates
 * as the copied one, aligned or not, and the caller's buffer is what it reads. */
static void test_borrowed(void **state) {
    (void)state;
    GenNet g = gen_net(256, 32, 5, NULL);
    uint8_t *block = malloc(g.len + 64);
    assert_non_null(block);
    for (int shift = 0; shift < 2; shift++) {
        uint8_t *buf = block + (32 - ((uintptr_t)(block + g.ft_weight_off) & 31)) % 32 + (size_t)shift;
        memcpy(buf, g.buf, g.len);
        char err[512] = "";
        NnueNet *copied = load_gen(&g), *borrowed = nnue_load_memory_borrowed(buf, g.len, err, sizeof err);
        if (!borrowed)
            fail_msg("%s", err);
        for (size_t i = 0; i < sizeof SFENS / sizeof SFENS[0]; i++) {
            Position pos;
            StateInfo st;
            set_pos(&pos, &st, SFENS[i]);
            for (int simd = 0; simd < 2; simd++) {
                nnue_set_simd(simd);
                assert_int_equal(nnue_evaluate_full(borrowed, &pos, 16), nnue_evaluate_full(copied, &pos, 16));
            }
        }
        nnue_free(borrowed);
        nnue_free(copied);
    }
    nnue_set_simd(true);
    free(block);
    free(g.buf);
}

int main(void) {
    shogi_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hashes),   cmocka_unit_test(test_features),
        cmocka_unit_test(test_refusals), cmocka_unit_test(test_files_and_selection),
        cmocka_unit_test(test_borrowed), cmocka_unit_test(test_256),
        cmocka_unit_test(test_512),      cmocka_unit_test(test_1024),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
