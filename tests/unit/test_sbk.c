/* test_sbk.c - the SBK reader, writer and conversions on ShogiHome's seven real files in
 * ../shared/refdata/sbk, the move word in both directions on every piece type, and
 * hand-made hostile files. */
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
#include "book/sbk.h"
#include "proto/sbk.pb-c.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"

#define SBK_DIR "../shared/refdata/sbk/shogihome/"

static const char *const FILES[] = {"shogigui01.sbk", "shogigui01-copy.sbk", "shogigui01-copy-otf.sbk",
                                    "shogigui02.sbk", "shogigui02-copy.sbk", "shogigui02-copy-otf.sbk",
                                    "sbk-merge.sbk"};
static const size_t STATES[] = {69, 69, 69, 132, 132, 132, 73};
enum { NFILES = sizeof FILES / sizeof FILES[0] };

static char tmpdir[] = "/tmp/test_sbk.XXXXXX";

static void path_of(char *out, size_t len, const char *name) { snprintf(out, len, SBK_DIR "%s", name); }

static SbkBook *open_ok(const char *path, SbkOpenStats *st) {
    char err[512];
    SbkBook *b = sbk_open(path, NULL, st, err, sizeof err);
    if (!b)
        fail_msg("%s", err);
    return b;
}

static void write_bytes(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

static uint8_t *read_bytes(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc((size_t)n + 1);
    assert_int_equal(fread(d, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return d;
}

/* ---- move words ---- */

static void expect_word(int32_t word, const char *usi) {
    Move16 m;
    char buf[USI_MOVE_MAX];
    assert_true(sbk_move_decode(word, &m));
    assert_string_equal(move_to_usi(m, buf), usi);
}

static void test_move_examples(void **state) {
    (void)state;
    expect_word((int32_t)0x01002627, "2g2f");
    expect_word((int32_t)0x91003433, "3c3d");
    expect_word((int32_t)0x96688822, "2b8h+");
    expect_word((int32_t)0x94e02231, "3a2b");
    expect_word((int32_t)0x06007700, "B*7g");
    expect_word((int32_t)0x9e607788, "8h7g");
    expect_word((int32_t)0x0f503221, "2a3b");
    Move16 m;
    assert_false(sbk_move_decode(0, &m));                   /* no destination */
    assert_false(sbk_move_decode((int32_t)0x08007700, &m)); /* king drop */
    assert_false(sbk_move_decode((int32_t)0x0e007700, &m)); /* horse drop */
    assert_false(sbk_move_decode((int32_t)0x01002a27, &m)); /* rank 10 */
    assert_false(sbk_move_decode((int32_t)0x01012627, &m)); /* reserved bit 16 */
}

/* Encodes then decodes every legal move along random games (which move, capture, promote
 * and drop every piece type of both colours) and of two positions with full hands; the
 * piece and capture fields must name the right SBK index (P L N S G B R K order). */
static void check_all_moves(Position *pos, int seen_piece[16], int seen_cap[16], int seen_drop[8]) {
    static const uint8_t sbk_index[PIECE_TYPE_NB] = {0, 1, 2, 3, 4, 6, 7, 5, 8, 9, 10, 11, 12, 14, 15};
    ExtMove moves[MAX_MOVES];
    int n = generate_moves(pos, GEN_LEGAL, moves);
    for (int i = 0; i < n; i++) {
        Move16 m = move_to_move16(moves[i].move), back;
        int32_t w;
        assert_true(sbk_move_encode(pos, m, &w));
        assert_true(sbk_move_decode(w, &back));
        assert_int_equal(back, m);
        uint32_t u = (uint32_t)w;
        assert_int_equal(u >> 31, (uint32_t)pos->side);
        assert_int_equal((u >> 28) & 1, (uint32_t)pos->side);
        if (move_is_drop(moves[i].move)) {
            PieceType pt = move_dropped_type(moves[i].move);
            assert_int_equal((u >> 24) & 15, sbk_index[pt]);
            assert_int_equal((u >> 19) & 0x1f, 0);
            seen_drop[pt]++;
        } else {
            Piece pc = pos->board[move_from(moves[i].move)];
            Piece cap = pos->board[move_to(moves[i].move)];
            assert_int_equal((u >> 24) & 15, sbk_index[piece_type(pc)]);
            assert_int_equal((u >> 20) & 15, cap ? sbk_index[piece_type(cap)] : 0);
            assert_int_equal((u >> 19) & 1, move_is_promotion(moves[i].move) ? 1 : 0);
            seen_piece[sbk_index[piece_type(pc)]]++;
            if (cap)
                seen_cap[sbk_index[piece_type(cap)]]++;
        }
    }
}

static void test_move_round_trip(void **state) {
    (void)state;
    int seen_piece[16] = {0}, seen_cap[16] = {0}, seen_drop[8] = {0};
    static const char *const hands[] = {"4k4/9/9/9/9/9/9/9/4K4 b RBGSNLPrbgsnlp 1",
                                        "4k4/9/9/9/9/9/9/9/4K4 w RBGSNLPrbgsnlp 1"};
    for (int h = 0; h < 2; h++) {
        Position pos;
        StateInfo st;
        assert_true(position_from_sfen(&pos, &st, hands[h], NULL, 0));
        check_all_moves(&pos, seen_piece, seen_cap, seen_drop);
    }
    uint64_t seed = 88172645463325252ull;
    ExtMove moves[MAX_MOVES];
    StateInfo *st = malloc(sizeof *st * 201);
    for (int game = 0; game < 60; game++) {
        Position pos;
        position_set_startpos(&pos, &st[0]);
        for (int ply = 0; ply < 200; ply++) {
            check_all_moves(&pos, seen_piece, seen_cap, seen_drop);
            int n = generate_moves(&pos, GEN_LEGAL, moves);
            if (!n)
                break;
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            position_do_move(&pos, moves[seed % (uint64_t)n].move, &st[ply + 1]);
        }
    }
    free(st);
    for (int k = 1; k <= 15; k++)
        if (k != 13)
            assert_true(seen_piece[k] > 0);
    for (int k = 1; k <= 15; k++)
        if (k != 13 && k != 8)
            assert_true(seen_cap[k] > 0);
    for (int pt = PAWN; pt <= GOLD; pt++)
        assert_true(seen_drop[pt] > 0);
    /* a move that is not legal does not encode */
    Position pos;
    StateInfo s0;
    position_set_startpos(&pos, &s0);
    int32_t w;
    assert_false(sbk_move_encode(&pos, (Move16)(square_make(4, 4) | square_make(4, 3) << 7), &w));
}

/* ---- real files ---- */

/* Every entry: its moves decode, are legal, and re-encode to the stored word. */
static void check_entries(const SbkBook *b) {
    char err[256];
    for (size_t k = 0; k < sbk_indexed_count(b); k++) {
        SbkEntry e;
        assert_int_equal(sbk_entry_at(b, k, &e, err, sizeof err), 1);
        Position pos;
        StateInfo st;
        assert_true(position_from_sfen(&pos, &st, e.sfen, NULL, 0));
        for (size_t i = 0; i < e.n_moves; i++) {
            assert_true(e.moves[i].legal);
            int32_t w;
            assert_true(sbk_move_encode(&pos, e.moves[i].move, &w));
            assert_int_equal(w, e.moves[i].word);
            SbkEntry child;
            int r = sbk_child_entry(b, &e, i, &child, err, sizeof err);
            assert_true(r >= 0);
            if (e.moves[i].next_state_id >= 0)
                assert_int_equal(r, 1);
            if (r == 1) {
                StateInfo ns;
                Move m = position_legal_move_from16(&pos, e.moves[i].move);
                position_do_move(&pos, m, &ns);
                BookKey key;
                book_key_from_position(&pos, &key);
                position_undo_move(&pos, m);
                assert_memory_equal(key.data, child.key.data, 32);
                assert_int_equal(child.ply, e.ply + 1);
            }
            sbk_entry_clear(&child);
        }
        sbk_entry_clear(&e);
    }
}

static void test_real_files(void **state) {
    (void)state;
    for (int f = 0; f < NFILES; f++) {
        char path[512];
        path_of(path, sizeof path, FILES[f]);
        SbkOpenStats st;
        SbkBook *b = open_ok(path, &st);
        assert_int_equal(sbk_state_count(b), STATES[f]);
        assert_int_equal(st.states, STATES[f]);
        assert_int_equal(st.indexed + st.unresolved, st.states);
        assert_int_equal(st.unresolved, 0);
        assert_int_equal(st.bad_edges + st.bad_moves + st.bad_positions + st.contradictions + st.side_mismatches +
                             st.duplicate_ids + st.ply_overflow,
                         0);
        assert_true(st.ids_are_indices);
        check_entries(b);
        if (strstr(FILES[f], "shogigui02"))
            assert_null(sbk_author(b));
        else
            assert_string_equal(sbk_author(b), "Kubo, Ryosuke");
        sbk_close(b);
    }
}

static void test_real_file_content(void **state) {
    (void)state;
    char err[256];
    SbkBook *b = open_ok(SBK_DIR "shogigui01.sbk", NULL);
    SbkEntry e;
    assert_int_equal(sbk_lookup_sfen(b, STARTPOS_SFEN, &e, err, sizeof err), 1);
    assert_int_equal(e.index, 0);
    assert_true(e.explicit_position);
    assert_int_equal(e.n_moves, 2);
    assert_int_equal(e.moves[0].word, 0x01002627);
    assert_int_equal(e.moves[0].next_state_id, 1);
    assert_int_equal(e.games, 1);
    assert_true(e.board_key != 0);
    sbk_entry_clear(&e);
    /* state 42: three engine analyses, its child edges */
    bool found = false;
    int marks[5] = {0};
    size_t evals = 0, comments = 0;
    for (size_t k = 0; k < sbk_indexed_count(b); k++) {
        assert_int_equal(sbk_entry_at(b, k, &e, err, sizeof err), 1);
        if (e.index == 42) {
            found = true;
            assert_int_equal(e.n_evals, 3);
            assert_int_equal(e.evals[0].value, 5);
            assert_int_equal(e.evals[0].depth, 28);
            assert_int_equal(e.evals[0].sel_depth, 44);
            assert_int_equal(e.evals[0].nodes, 62668437);
            assert_string_equal(e.evals[0].engine_name, "Suisho 10beta");
        }
        evals += e.n_evals;
        comments += e.comment != NULL;
        for (size_t i = 0; i < e.n_moves; i++)
            if (e.moves[i].evaluation >= 0 && e.moves[i].evaluation < 5)
                marks[e.moves[i].evaluation]++;
        sbk_entry_clear(&e);
    }
    assert_true(found);
    assert_int_equal(evals, 3);
    assert_int_equal(comments, 1);
    for (int k = 1; k < 5; k++)
        assert_true(marks[k] > 0);
    /* a miss */
    assert_int_equal(sbk_lookup_sfen(b, "4k4/9/9/9/9/9/9/9/4K4 b - 1", &e, err, sizeof err), 0);
    sbk_close(b);
}

/* The ShogiGUI original and ShogiHome's re-saves hold the same positions and moves. */
typedef struct {
    BookKey key;
    size_t n;
    int32_t words[64], weights[64], marks[64];
    int32_t games, wb, ww;
} Snap;

static Snap *snapshot(const SbkBook *b, size_t *n) {
    char err[256];
    Snap *s = calloc(sbk_indexed_count(b), sizeof *s);
    *n = 0;
    for (size_t k = 0; k < sbk_indexed_count(b); k++) {
        SbkEntry e;
        assert_int_equal(sbk_entry_at(b, k, &e, err, sizeof err), 1);
        if (e.n_moves || e.games || e.comment || e.n_evals) {
            Snap *o = &s[(*n)++];
            o->key = e.key;
            o->n = e.n_moves;
            assert_true(e.n_moves <= 64);
            for (size_t i = 0; i < e.n_moves; i++)
                o->words[i] = e.moves[i].word, o->weights[i] = e.moves[i].weight, o->marks[i] = e.moves[i].evaluation;
            o->games = e.games, o->wb = e.won_black, o->ww = e.won_white;
        }
        sbk_entry_clear(&e);
    }
    return s;
}

static int snap_move_cmp(const Snap *a, const Snap *b, bool stats) {
    if (memcmp(a->key.data, b->key.data, 32) || a->n != b->n)
        return 1;
    for (size_t i = 0; i < a->n; i++) {
        bool hit = false;
        for (size_t j = 0; j < b->n && !hit; j++)
            hit =
                a->words[i] == b->words[j] && a->weights[i] == b->weights[j] && (!stats || a->marks[i] == b->marks[j]);
        if (!hit)
            return 1;
    }
    return stats && (a->games != b->games || a->wb != b->wb || a->ww != b->ww);
}

static void expect_same(const SbkBook *x, const SbkBook *y, bool stats) {
    size_t nx, ny;
    Snap *a = snapshot(x, &nx), *b = snapshot(y, &ny);
    assert_int_equal(nx, ny);
    for (size_t i = 0; i < nx; i++)
        assert_int_equal(snap_move_cmp(&a[i], &b[i], stats), 0);
    free(a);
    free(b);
}

/* A DB2016 move with a comment gets a statistics record (for the comment)
 * whose weight is 0; SBK's weight must still be the move's count (ShogiHome's
 * yaneuraou.db: 2g2f 3c3d 63 27 935 with a two-line comment). Before the fix 0 was
 * written. */
static void test_comment_keeps_weight(void **state) {
    (void)state;
    Book *b = book_create();
    Db2016ReadOptions ro = {.keep_comments = true};
    char err[512], out[512];
    if (!db2016_read_file("../shared/refdata/db/shogihome/yaneuraou.db", b, &ro, NULL, err, sizeof err))
        fail_msg("%s", err);
    snprintf(out, sizeof out, "%s/comment.sbk", tmpdir);
    SbkWriteReport rep;
    if (!sbk_write_file(out, b, &(SbkWriteOptions){0}, &rep, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(rep.counts, 0); /* no count differs from the weight written */
    SbkBook *sb = open_ok(out, NULL);
    SbkEntry e = {0};
    assert_int_equal(
        sbk_lookup_sfen(sb, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", &e, err, sizeof err), 1);
    Move16 m;
    assert_true(move16_from_usi("2g2f", 4, &m));
    bool found = false;
    for (size_t k = 0; k < e.n_moves; k++) {
        if (e.moves[k].move == m) {
            assert_int_equal(e.moves[k].weight, 935);
            found = true;
        }
    }
    assert_true(found);
    sbk_entry_clear(&e);
    sbk_close(sb);
    unlink(out);
    book_free(b);
}

static void test_copies_agree(void **state) {
    (void)state;
    for (int base = 0; base < 6; base += 3) {
        char p[512];
        path_of(p, sizeof p, FILES[base]);
        SbkBook *orig = open_ok(p, NULL);
        for (int c = 1; c < 3; c++) {
            path_of(p, sizeof p, FILES[base + c]);
            SbkBook *copy = open_ok(p, NULL);
            expect_same(orig, copy, true);
            sbk_close(copy);
        }
        sbk_close(orig);
    }
}

static Book *to_book(const SbkBook *b, SbkImportStats *st) {
    char err[256];
    Book *book = book_create();
    assert_true(sbk_to_book(b, book, NULL, st, err, sizeof err));
    return book;
}

/* SBK -> IR -> SBK keeps positions, moves, weights, marks and statistics; SBK -> IR ->
 * DB2016 -> IR -> SBK keeps positions, moves and weights. */
static void test_conversions(void **state) {
    (void)state;
    for (int f = 0; f < NFILES; f++) {
        char path[512], out[600], db[600], out2[600], err[256];
        path_of(path, sizeof path, FILES[f]);
        snprintf(out, sizeof out, "%s/direct.sbk", tmpdir);
        snprintf(db, sizeof db, "%s/via.db", tmpdir);
        snprintf(out2, sizeof out2, "%s/via-db.sbk", tmpdir);
        SbkBook *orig = open_ok(path, NULL);
        SbkImportStats ist;
        Book *book = to_book(orig, &ist);
        assert_int_equal(ist.illegal_moves, 0);
        assert_int_equal(ist.positions, sbk_indexed_count(orig));
        SbkWriteReport rep;
        SbkWriteOptions wo = {.author = sbk_author(orig), .description = sbk_description(orig)};
        if (!sbk_write_file(out, book, &wo, &rep, err, sizeof err))
            fail_msg("%s", err);
        assert_int_equal(rep.illegal_moves, 0);
        assert_int_equal(rep.ponders, 0);
        assert_int_equal(rep.counts, 0);
        SbkOpenStats st;
        SbkBook *direct = open_ok(out, &st);
        assert_int_equal(st.unresolved, 0);
        assert_int_equal(st.bad_edges + st.bad_moves + st.contradictions, 0);
        expect_same(orig, direct, true);
        check_entries(direct);
        /* the writer's layout: root first with its SFEN, id == index */
        SbkEntry e;
        assert_int_equal(sbk_lookup_sfen(direct, STARTPOS_SFEN, &e, err, sizeof err), 1);
        assert_int_equal(e.index, 0);
        assert_true(e.explicit_position);
        assert_int_equal(e.hand_key, 0);
        assert_int_equal(e.board_key, 0);
        sbk_entry_clear(&e);
        if (sbk_author(orig))
            assert_string_equal(sbk_author(direct), sbk_author(orig));

        if (!db2016_write_file(db, book, NULL, err, sizeof err))
            fail_msg("%s", err);
        Book *back = book_create();
        if (!db2016_read_file(db, back, NULL, NULL, err, sizeof err))
            fail_msg("%s", err);
        if (!sbk_write_file(out2, back, NULL, &rep, err, sizeof err))
            fail_msg("%s", err);
        SbkBook *via = open_ok(out2, &st);
        assert_int_equal(st.unresolved, 0);
        /* every position with moves and every move with its weight */
        size_t na, nb;
        Snap *a = snapshot(orig, &na), *b = snapshot(via, &nb);
        size_t j = 0;
        for (size_t i = 0; i < na; i++) {
            if (!a[i].n)
                continue;
            while (j < nb && memcmp(b[j].key.data, a[i].key.data, 32) < 0)
                j++;
            assert_true(j < nb);
            assert_int_equal(snap_move_cmp(&a[i], &b[j], false), 0);
        }
        free(a);
        free(b);
        sbk_close(via);
        book_free(back);
        sbk_close(direct);
        book_free(book);
        sbk_close(orig);
    }
}

static void test_resave_identical(void **state) {
    (void)state;
    for (int f = 0; f < NFILES; f++) {
        char path[512], out[600], err[256];
        path_of(path, sizeof path, FILES[f]);
        snprintf(out, sizeof out, "%s/resave.sbk", tmpdir);
        if (!sbk_resave(path, out, err, sizeof err))
            fail_msg("%s", err);
        size_t n1, n2;
        uint8_t *a = read_bytes(path, &n1), *b = read_bytes(out, &n2);
        assert_int_equal(n1, n2);
        assert_memory_equal(a, b, n1);
        free(a);
        free(b);
    }
}

/* ---- hostile input ---- */

/* A book from protobuf-c messages: states[i] gets the moves given as (usi word, next). */
typedef struct {
    const char *position;
    int32_t id;
    bool has_id;
    int nmoves;
    int32_t words[4];
    int32_t next[4];
} StateSpec;

static uint8_t *build(const StateSpec *specs, int n, size_t *len) {
    SBook book = SBOOK__INIT;
    SBookState *states = calloc((size_t)n, sizeof *states);
    SBookState **sp = calloc((size_t)n, sizeof *sp);
    SBookMove *moves = calloc((size_t)n * 4, sizeof *moves);
    SBookMove **mp = calloc((size_t)n * 4, sizeof *mp);
    for (int i = 0; i < n; i++) {
        sbook_state__init(&states[i]);
        states[i].has_id = specs[i].has_id;
        states[i].id = specs[i].id;
        states[i].position = (char *)specs[i].position;
        for (int k = 0; k < specs[i].nmoves; k++) {
            SBookMove *m = &moves[i * 4 + k];
            sbook_move__init(m);
            m->has_move = true, m->move = specs[i].words[k];
            m->has_nextstateid = true, m->nextstateid = specs[i].next[k];
            mp[i * 4 + k] = m;
        }
        states[i].n_moves = (size_t)specs[i].nmoves;
        states[i].moves = &mp[i * 4];
        sp[i] = &states[i];
    }
    book.n_state = (size_t)n;
    book.state = sp;
    *len = sbook__get_packed_size(&book);
    uint8_t *out = malloc(*len ? *len : 1);
    sbook__pack(&book, out);
    free(states);
    free(sp);
    free(moves);
    free(mp);
    return out;
}

static int32_t W(const char *sfen, const char *usi) {
    Position pos;
    StateInfo st;
    assert_true(position_from_sfen(&pos, &st, sfen, NULL, 0));
    Move16 m;
    assert_true(move16_from_usi(usi, strlen(usi), &m));
    int32_t w;
    assert_true(sbk_move_encode(&pos, m, &w));
    return w;
}

#define AFTER_7G7F "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"

static BookKey key_of_sfen(const char *sfen) {
    BookKey k;
    assert_true(book_key_from_sfen(sfen, &k, NULL, NULL, 0));
    return k;
}

static SbkBook *open_bytes(const void *d, size_t n, SbkOpenStats *st, char *err, size_t err_len) {
    char path[600];
    snprintf(path, sizeof path, "%s/hostile.sbk", tmpdir);
    write_bytes(path, d, n);
    return sbk_open(path, NULL, st, err, err_len);
}

static void test_graph_faults(void **state) {
    (void)state;
    int32_t w76 = W(STARTPOS_SFEN, "7g7f"), w34 = W(AFTER_7G7F, "3c3d"), w26 = W(STARTPOS_SFEN, "2g2f");
    /* 0 -> 1 (7g7f), 1 -> 2 (3c3d), 2 -> 1 (cycle, contradictory), 0 -> 99 (out of range),
     * 0 -> -5, 1 -> 1 with an illegal word, 3 orphan */
    StateSpec specs[] = {
        {NULL, 0, false, 3, {w76, w26, w26}, {1, 99, -5}},
        {NULL, 1, true, 2, {w34, w76}, {2, 1}},
        {NULL, 2, true, 1, {w26}, {1}},
        {NULL, 3, true, 0, {0}, {0}},
    };
    size_t n;
    uint8_t *d = build(specs, 4, &n);
    char err[256];
    SbkOpenStats st;
    SbkBook *b = open_bytes(d, n, &st, err, sizeof err);
    assert_non_null(b);
    assert_int_equal(st.states, 4);
    assert_int_equal(st.indexed, 3);
    assert_int_equal(st.unresolved, 1);
    assert_int_equal(st.bad_edges, 1);
    assert_true(st.bad_moves >= 1);
    assert_int_equal(st.contradictions, 1);
    SbkEntry e;
    assert_int_equal(sbk_lookup_sfen(b, AFTER_7G7F, &e, err, sizeof err), 1);
    assert_int_equal(e.index, 1);
    assert_int_equal(e.ply, 2);
    sbk_entry_clear(&e);
    sbk_close(b);
    free(d);

    /* ids that are not indices: reversed; an explicit root at the end */
    StateSpec rev[] = {
        {NULL, 2, true, 1, {w34}, {0}},
        {NULL, 1, true, 1, {w76}, {2}},
        {STARTPOS_SFEN, 0, false, 1, {w76}, {1}},
    };
    d = build(rev, 3, &n);
    b = open_bytes(d, n, &st, err, sizeof err);
    assert_non_null(b);
    assert_false(st.ids_are_indices);
    /* physical state 0 has no SFEN, so by convention it is the start position too: its
     * edge (3c3d) is illegal there, and so is the edge of index 1 (7g7f for white) */
    assert_int_equal(st.indexed, 3);
    assert_int_equal(st.duplicate_keys, 1);
    assert_int_equal(st.bad_moves, 2);
    uint32_t idx;
    assert_true(sbk_index_of_id(b, 2, &idx));
    assert_int_equal(idx, 0);
    assert_false(sbk_index_of_id(b, 7, &idx));
    sbk_close(b);
    free(d);

    /* a bad explicit SFEN skips its branch only */
    StateSpec bad[] = {
        {STARTPOS_SFEN, 0, false, 1, {w76}, {1}},
        {NULL, 1, true, 0, {0}, {0}},
        {"not a position", 2, true, 1, {w76}, {3}},
        {NULL, 3, true, 0, {0}, {0}},
    };
    d = build(bad, 4, &n);
    b = open_bytes(d, n, &st, err, sizeof err);
    assert_non_null(b);
    assert_int_equal(st.bad_positions, 1);
    assert_int_equal(st.indexed, 2);
    sbk_close(b);
    free(d);
}

static void test_malformed(void **state) {
    (void)state;
    char err[256];
    SbkOpenStats st;
    /* empty file, no states */
    assert_null(open_bytes("", 0, &st, err, sizeof err));
    static const uint8_t author_only[] = {0x0a, 0x01, 'x'};
    assert_null(open_bytes(author_only, sizeof author_only, &st, err, sizeof err));
    /* a length past the end, and a state claiming 2^31 bytes */
    static const uint8_t past[] = {0x1a, 0x10, 0x08, 0x00};
    assert_null(open_bytes(past, sizeof past, &st, err, sizeof err));
    assert_non_null(strstr(err, "past the end"));
    static const uint8_t huge[] = {0x1a, 0x80, 0x80, 0x80, 0x80, 0x08, 0x00};
    assert_null(open_bytes(huge, sizeof huge, &st, err, sizeof err));
    /* varint overflow */
    static const uint8_t ovf[] = {0x1a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    assert_null(open_bytes(ovf, sizeof ovf, &st, err, sizeof err));
    assert_non_null(strstr(err, "overflow"));
    /* a group at the top level */
    static const uint8_t group[] = {0x1b, 0x1c};
    assert_null(open_bytes(group, sizeof group, &st, err, sizeof err));
    /* field number 0 */
    static const uint8_t zero[] = {0x02, 0x00};
    assert_null(open_bytes(zero, sizeof zero, &st, err, sizeof err));
    /* a state whose content does not parse: skipped, not fatal */
    static const uint8_t inner[] = {0x1a, 0x02, 0x4a, 0x05, 0x1a, 0x00};
    SbkBook *b = open_bytes(inner, sizeof inner, &st, err, sizeof err);
    assert_non_null(b);
    assert_int_equal(st.states, 2);
    assert_int_equal(st.indexed, 0);
    sbk_close(b);
    /* unknown top-level fields are skipped */
    static const uint8_t unknown[] = {0x20, 0x05, 0x29, 1, 2, 3, 4, 5, 6, 7, 8, 0x1a, 0x00, 0x35, 1, 2, 3, 4};
    b = open_bytes(unknown, sizeof unknown, &st, err, sizeof err);
    assert_non_null(b);
    assert_int_equal(st.indexed, 1);
    sbk_close(b);
    /* every truncation of a real file: an error or a smaller book, never a crash */
    size_t n;
    uint8_t *d = read_bytes(SBK_DIR "shogigui01.sbk", &n);
    for (size_t cut = 0; cut < n; cut += 7) {
        b = open_bytes(d, cut, &st, err, sizeof err);
        sbk_close(b);
    }
    /* every single byte flipped in the first 600 bytes */
    for (size_t i = 0; i < 600 && i < n; i++) {
        uint8_t save = d[i];
        d[i] ^= 0xa5;
        b = open_bytes(d, n, &st, err, sizeof err);
        if (b) {
            for (size_t k = 0; k < sbk_indexed_count(b); k++) {
                SbkEntry e;
                if (sbk_entry_at(b, k, &e, err, sizeof err) == 1)
                    sbk_entry_clear(&e);
            }
            sbk_close(b);
        }
        d[i] = save;
    }
    free(d);
    assert_null(sbk_open("/nonexistent/x.sbk", NULL, NULL, err, sizeof err));
}

/* A long chain in reverse physical order: the walk takes many passes but ends. */
static void test_reverse_chain(void **state) {
    (void)state;
    enum { N = 40 };
    StateSpec *specs = calloc(N, sizeof *specs);
    Position pos;
    StateInfo st[N + 1];
    position_set_startpos(&pos, &st[0]);
    /* knights hopping back and forth would repeat; shuffle rooks instead */
    static const char *const cycle[] = {"2h3h", "8b7b", "3h2h", "7b8b"};
    for (int i = 0; i < N; i++) {
        int phys = N - 1 - i; /* position i lives at physical index phys */
        char sfen[SFEN_MAX];
        position_to_sfen(&pos, sfen, true);
        specs[phys].id = phys, specs[phys].has_id = true;
        if (i == 0)
            specs[phys].position = STARTPOS_SFEN;
        if (i + 1 < N) {
            specs[phys].nmoves = 1;
            specs[phys].words[0] = W(sfen, cycle[i % 4]);
            specs[phys].next[0] = phys - 1;
            Move m = position_parse_usi_move(&pos, cycle[i % 4]);
            assert_true(m != MOVE_NONE);
            position_do_move(&pos, m, &st[i + 1]);
        }
    }
    /* state 0 (physical) is the last of the chain and has no SFEN: it must not be taken
     * for the start position, so give it an explicit one */
    char last[SFEN_MAX];
    position_to_sfen(&pos, last, true);
    specs[0].position = last;
    size_t n;
    uint8_t *d = build(specs, N, &n);
    char err[256];
    SbkOpenStats so;
    SbkBook *b = open_bytes(d, n, &so, err, sizeof err);
    assert_non_null(b);
    assert_int_equal(so.unresolved, 0);
    assert_true(so.duplicate_keys > 0); /* the rook shuffle repeats positions */
    sbk_close(b);
    free(d);
    free(specs);
}

static SbkControl cancel_at_once(void *ctx, uint64_t done, uint64_t total) {
    (void)ctx, (void)done, (void)total;
    return SBK_CANCEL;
}

static void test_writer_and_cancel(void **state) {
    (void)state;
    /* a synthetic book: a random walk, written and read back, opened with cancellation */
    Book *book = book_create();
    Position pos;
    StateInfo st[64];
    position_set_startpos(&pos, &st[0]);
    ExtMove moves[MAX_MOVES];
    uint64_t seed = 12345;
    for (int ply = 0; ply < 60; ply++) {
        int n = generate_moves(&pos, GEN_LEGAL, moves);
        if (!n)
            break;
        BookKey key;
        uint32_t id;
        book_key_from_position(&pos, &key);
        assert_true(book_add_position(book, &key, pos.ply, &id));
        for (int k = 0; k < 3 && k < n; k++) {
            BookMove bm = {.move = move_to_move16(moves[k].move), .count = (uint64_t)(k + 1), .ponder = MOVE_NONE};
            if (k == 0)
                bm.has_depth = true, bm.depth = 10, bm.has_score = true, bm.score = 5;
            assert_true(book_add_move(book, id, &bm, NULL));
        }
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        position_do_move(&pos, moves[(seed >> 33) % (uint64_t)(n < 3 ? n : 3)].move, &st[ply + 1]);
    }
    uint8_t *data;
    size_t len;
    char err[256];
    SbkWriteReport rep;
    assert_true(sbk_write_memory(book, NULL, &rep, &data, &len, err, sizeof err));
    assert_int_equal(rep.states, book_position_count(book));
    assert_int_equal(rep.roots, 1);
    assert_true(rep.depths > 0 && rep.scores > 0);
    assert_true(rep.linked_moves >= 59);
    SbkOpenStats so;
    SbkBook *b = open_bytes(data, len, &so, err, sizeof err);
    assert_non_null(b);
    assert_int_equal(so.indexed, book_position_count(book));
    assert_int_equal(so.unresolved, 0);
    /* probe through the BookSource adapter */
    Position sp;
    StateInfo sst;
    position_set_startpos(&sp, &sst);
    BookMoveList *list = malloc(sizeof *list);
    assert_int_equal(sbk_probe(b, &sp, list, err, sizeof err), 1);
    assert_int_equal(list->n, 3);
    assert_int_equal(list->moves[2].count, 3);
    free(list);
    sbk_close(b);
    /* cancelled by the progress callback */
    char path[600];
    snprintf(path, sizeof path, "%s/hostile.sbk", tmpdir);
    SbkOpenOptions oo = {.progress = cancel_at_once};
    /* the callback runs every 1024 states; a small book finishes first, so use a big one */
    assert_true(sbk_write_file(path, book, NULL, NULL, err, sizeof err));
    b = sbk_open(path, &oo, NULL, err, sizeof err);
    sbk_close(b);
    free(data);
    /* an empty book is refused */
    Book *empty = book_create();
    assert_false(sbk_write_memory(empty, NULL, &rep, &data, &len, err, sizeof err));
    book_free(empty);
    book_free(book);
}

/* ---- the patch writer ---- */

static SbkError patch_to(const SbkBook *b, const SbkPatch *p, const char *name, char *err, size_t len) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return sbk_write_with_patch(b, p, path, NULL, NULL, err, len);
}

static SbkBook *open_tmp(const char *name, SbkOpenStats *st) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return open_ok(path, st);
}

/* An entry's moves as patch moves, with a new comment. */
static SbkPatchEntry entry_as_patch(const SbkEntry *e, SbkPatchMove *moves, const char *comment) {
    for (size_t i = 0; i < e->n_moves; i++)
        moves[i] = (SbkPatchMove){e->moves[i].move, e->moves[i].weight, e->moves[i].evaluation};
    return (SbkPatchEntry){.key = e->key,
                           .ply = e->ply,
                           .games = e->games,
                           .won_black = e->won_black,
                           .won_white = e->won_white,
                           .comment = comment,
                           .n_moves = e->n_moves,
                           .moves = moves};
}

static void test_patch_replace(void **state) {
    (void)state;
    char err[256];
    SbkBook *b = open_ok(SBK_DIR "shogigui01.sbk", NULL);
    SbkPatch *p = sbk_patch_create();
    /* state 42 (three analyses) gets a comment; nothing else changes */
    SbkEntry e;
    size_t k42 = 0;
    for (size_t k = 0; k < sbk_indexed_count(b); k++) {
        assert_int_equal(sbk_entry_at(b, k, &e, err, sizeof err), 1);
        bool hit = e.index == 42;
        sbk_entry_clear(&e);
        if (hit)
            k42 = k;
    }
    assert_int_equal(sbk_entry_at(b, k42, &e, err, sizeof err), 1);
    SbkPatchMove moves[64];
    SbkPatchEntry pe = entry_as_patch(&e, moves, "patched");
    moves[0].weight = 77;
    assert_true(sbk_patch_put(p, &pe));
    assert_int_equal(patch_to(b, p, "replaced.sbk", err, sizeof err), SBK_OK);
    SbkOpenStats st;
    SbkBook *o = open_tmp("replaced.sbk", &st);
    assert_int_equal(st.states, 69);
    assert_int_equal(st.unresolved, 0);
    SbkEntry f;
    assert_int_equal(sbk_lookup_sfen(o, e.sfen, &f, err, sizeof err), 1);
    assert_int_equal(f.index, 42);
    assert_string_equal(f.comment, "patched");
    assert_int_equal(f.board_key, 0);
    assert_int_equal(f.hand_key, 0);
    assert_int_equal(f.n_evals, 3);
    assert_int_equal(f.n_moves, e.n_moves);
    assert_int_equal(f.moves[0].weight, 77);
    assert_int_equal(f.moves[0].next_state_id, e.moves[0].next_state_id);
    sbk_entry_clear(&f);
    /* an untouched state keeps its ShogiGUI keys */
    assert_int_equal(sbk_lookup_sfen(o, STARTPOS_SFEN, &f, err, sizeof err), 1);
    assert_true(f.board_key != 0);
    sbk_entry_clear(&f);
    sbk_close(o);

    /* delete state 42: links to it become -1, its children get an SFEN (restoration
     * points), ids are renumbered */
    SbkPatch *d = sbk_patch_create();
    assert_true(sbk_patch_delete(d, &e.key));
    assert_int_equal(patch_to(b, d, "deleted.sbk", err, sizeof err), SBK_OK);
    o = open_tmp("deleted.sbk", &st);
    assert_int_equal(st.states, 68);
    assert_int_equal(st.unresolved, 0);
    assert_true(st.roots >= 2);
    assert_int_equal(sbk_lookup_sfen(o, e.sfen, &f, err, sizeof err), 0);
    check_entries(o);
    sbk_close(o);
    sbk_patch_free(d);
    sbk_entry_clear(&e);

    /* a new position after a terminal move, and the parent replaced with a move to it */
    SbkPatch *a = sbk_patch_create();
    Position pos;
    StateInfo si, ns;
    position_set_startpos(&pos, &si);
    assert_int_equal(sbk_lookup_position(b, &pos, &e, err, sizeof err), 1);
    Move m = position_parse_usi_move(&pos, "5g5f");
    position_do_move(&pos, m, &ns);
    SbkPatchEntry fresh = {.ply = 2, .comment = "new"};
    book_key_from_position(&pos, &fresh.key);
    assert_true(sbk_patch_put(a, &fresh));
    assert_int_equal(patch_to(b, a, "added-orphan.sbk", err, sizeof err), SBK_OK);
    o = open_tmp("added-orphan.sbk", &st);
    assert_int_equal(st.states, 70);
    assert_int_equal(st.unresolved, 0);
    assert_int_equal(st.roots, 2); /* not connected: it got its own SFEN */
    sbk_close(o);
    pe = entry_as_patch(&e, moves, NULL);
    moves[pe.n_moves] = (SbkPatchMove){move_to_move16(m), 5, SBK_EVAL_GOOD};
    pe.n_moves++;
    assert_true(sbk_patch_put(a, &pe));
    assert_int_equal(patch_to(b, a, "added.sbk", err, sizeof err), SBK_OK);
    o = open_tmp("added.sbk", &st);
    assert_int_equal(st.states, 70);
    assert_int_equal(st.roots, 1);
    assert_int_equal(st.unresolved, 0);
    assert_int_equal(sbk_lookup_sfen(o, STARTPOS_SFEN, &f, err, sizeof err), 1);
    assert_int_equal(f.n_moves, 3);
    assert_int_equal(f.moves[2].next_state_id, 69);
    assert_int_equal(f.moves[2].evaluation, SBK_EVAL_GOOD);
    sbk_entry_clear(&f);
    check_entries(o);
    sbk_close(o);
    sbk_entry_clear(&e);
    sbk_patch_free(a);
    sbk_patch_free(p);
    sbk_close(b);
}

static SbkControl cancel_in(void *ctx, SbkPhase phase, uint64_t done, uint64_t total) {
    (void)done, (void)total;
    return phase == *(SbkPhase *)ctx ? SBK_CANCEL : SBK_CONTINUE;
}

static void test_patch_rejections(void **state) {
    (void)state;
    char err[256], path[600];
    SbkBook *b = open_ok(SBK_DIR "shogigui02.sbk", NULL);
    snprintf(path, sizeof path, "%s/keep.sbk", tmpdir);
    write_bytes(path, "untouched", 9);
    /* every state deleted */
    SbkPatch *p = sbk_patch_create();
    for (size_t k = 0; k < sbk_indexed_count(b); k++) {
        SbkEntry e;
        assert_int_equal(sbk_entry_at(b, k, &e, err, sizeof err), 1);
        assert_true(sbk_patch_delete(p, &e.key));
        sbk_entry_clear(&e);
    }
    assert_int_equal(sbk_write_with_patch(b, p, path, NULL, NULL, err, sizeof err), SBK_ERR_INVALID_DATA);
    sbk_patch_free(p);
    /* an illegal move */
    p = sbk_patch_create();
    SbkEntry e;
    assert_int_equal(sbk_lookup_sfen(b, STARTPOS_SFEN, &e, err, sizeof err), 1);
    SbkPatchMove bad = {(Move16)(square_make(4, 4) | square_make(4, 3) << 7), 1, 0};
    SbkPatchEntry pe = {.key = e.key, .n_moves = 1, .moves = &bad};
    assert_true(sbk_patch_put(p, &pe));
    assert_int_equal(sbk_write_with_patch(b, p, path, NULL, NULL, err, sizeof err), SBK_ERR_INVALID_DATA);
    sbk_patch_free(p);
    /* cancelled in either phase */
    for (int ph = 0; ph < 2; ph++) {
        SbkPhase phase = (SbkPhase)ph;
        assert_int_equal(sbk_write_with_patch(b, NULL, path, cancel_in, &phase, err, sizeof err), SBK_ERR_CANCELLED);
    }
    size_t n;
    uint8_t *d = read_bytes(path, &n);
    assert_int_equal(n, 9);
    assert_memory_equal(d, "untouched", 9);
    free(d);
    /* ponder, depth, count: Unsupported */
    Book *book = book_create();
    uint32_t id;
    assert_true(book_add_position(book, &e.key, 1, &id));
    Move16 m76;
    assert_true(move16_from_usi("7g7f", 4, &m76));
    Move16 m34;
    assert_true(move16_from_usi("3c3d", 4, &m34));
    BookMove bm = {.move = m76, .ponder = m34, .count = 1};
    assert_true(book_add_move(book, id, &bm, NULL));
    p = sbk_patch_create();
    assert_int_equal(sbk_patch_put_from_book(p, book, id, err, sizeof err), SBK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err, "ponder"));
    sbk_patch_free(p);
    book_free(book);
    sbk_entry_clear(&e);
    sbk_close(b);
    /* a source with a contradictory edge */
    int32_t w76 = W(STARTPOS_SFEN, "7g7f"), w34 = W(AFTER_7G7F, "3c3d");
    StateSpec specs[] = {{NULL, 0, false, 1, {w76}, {1}}, {NULL, 1, true, 1, {w34}, {0}}};
    uint8_t *bytes = build(specs, 2, &n);
    SbkOpenStats st;
    b = open_bytes(bytes, n, &st, err, sizeof err);
    assert_non_null(b);
    assert_int_equal(st.contradictions, 1);
    assert_int_equal(sbk_write_with_patch(b, NULL, path, NULL, NULL, err, sizeof err), SBK_ERR_INVALID_DATA);
    sbk_close(b);
    free(bytes);
}

/* Each source rule of the patch writer (docs/formats/sbk.md, "Patch writer") on its own,
 * and the output ply bound. */
static SbkError patch_built(const StateSpec *specs, int n, const SbkPatch *p, const char *want, SbkOpenStats *st) {
    size_t len;
    char err[256] = "", path[600];
    uint8_t *bytes = build(specs, n, &len);
    SbkBook *b = open_bytes(bytes, len, st, err, sizeof err);
    free(bytes);
    assert_non_null(b);
    snprintf(path, sizeof path, "%s/rules.sbk", tmpdir);
    SbkError rc = sbk_write_with_patch(b, p, path, NULL, NULL, err, sizeof err);
    if (want && !strstr(err, want))
        fail_msg("expected \"%s\" in \"%s\"", want, err);
    sbk_close(b);
    return rc;
}

#define START_AT_65535 "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 65535"

static void test_patch_source_rules(void **state) {
    (void)state;
    int32_t w76 = W(STARTPOS_SFEN, "7g7f"), w34 = W(AFTER_7G7F, "3c3d");
    SbkOpenStats st;
    StateSpec fine[] = {{STARTPOS_SFEN, 0, false, 1, {w76}, {1}}, {NULL, 1, true, 0, {0}, {0}}};
    assert_int_equal(patch_built(fine, 2, NULL, NULL, &st), SBK_OK);
    StateSpec dup[] = {{STARTPOS_SFEN, 0, false, 0, {0}, {0}}, {STARTPOS_SFEN, 1, true, 0, {0}, {0}}};
    assert_int_equal(patch_built(dup, 2, NULL, "duplicate", &st), SBK_ERR_INVALID_DATA);
    assert_int_equal(st.duplicate_keys, 1);
    StateSpec orphan[] = {{STARTPOS_SFEN, 0, false, 0, {0}, {0}}, {NULL, 1, true, 0, {0}, {0}}};
    assert_int_equal(patch_built(orphan, 2, NULL, "unresolved", &st), SBK_ERR_INVALID_DATA);
    StateSpec illegal[] = {{STARTPOS_SFEN, 0, false, 1, {w34}, {1}}, {AFTER_7G7F, 1, true, 0, {0}, {0}}};
    assert_int_equal(patch_built(illegal, 2, NULL, "illegal", &st), SBK_ERR_INVALID_DATA);
    assert_int_equal(st.unresolved, 0);
    StateSpec missing[] = {{STARTPOS_SFEN, 0, false, 1, {w76}, {5}}};
    assert_int_equal(patch_built(missing, 1, NULL, "no state", &st), SBK_ERR_INVALID_DATA);
    /* contradictory edges: test_patch_rejections */
    StateSpec ply[] = {{START_AT_65535, 0, false, 1, {w76}, {1}}, {AFTER_7G7F, 1, true, 0, {0}, {0}}};
    assert_int_equal(patch_built(ply, 2, NULL, "ply past", &st), SBK_ERR_INVALID_DATA);
    assert_int_equal(st.ply_overflow, 1);
    /* a source at ply 65535 is fine until the patch gives it a child */
    StateSpec last[] = {{START_AT_65535, 0, false, 0, {0}, {0}}};
    assert_int_equal(patch_built(last, 1, NULL, NULL, &st), SBK_OK);
    SbkPatch *p = sbk_patch_create();
    SbkPatchMove mv = {MOVE_NONE, 1, 0};
    assert_true(move16_from_usi("7g7f", 4, &mv.move));
    SbkPatchEntry root = {.key = key_of_sfen(STARTPOS_SFEN), .n_moves = 1, .moves = &mv};
    SbkPatchEntry child = {.key = key_of_sfen(AFTER_7G7F)};
    assert_true(sbk_patch_put(p, &root) && sbk_patch_put(p, &child));
    assert_int_equal(patch_built(last, 1, p, "output reaches a ply past", &st), SBK_ERR_INVALID_DATA);
    sbk_patch_free(p);
    /* a put ply past u16 */
    p = sbk_patch_create();
    child.ply = SBK_MAX_PLY + 1;
    assert_true(sbk_patch_put(p, &child));
    assert_int_equal(patch_built(fine, 2, p, "a put gives ply", &st), SBK_ERR_INVALID_DATA);
    sbk_patch_free(p);
    /* a depth without analyses and a count the weight cannot say: Unsupported */
    Book *book = book_create();
    uint32_t id;
    BookKey k = key_of_sfen(STARTPOS_SFEN);
    assert_true(book_add_position(book, &k, 1, &id));
    BookMove bm = {.move = mv.move, .depth = 10, .has_depth = true, .count = 1};
    assert_true(book_add_move(book, id, &bm, NULL));
    char err[256];
    p = sbk_patch_create();
    assert_int_equal(sbk_patch_put_from_book(p, book, id, err, sizeof err), SBK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err, "depth"));
    book_free(book);
    book = book_create();
    assert_true(book_add_position(book, &k, 1, &id));
    bm = (BookMove){.move = mv.move, .count = 5};
    assert_true(book_add_move(book, id, &bm, NULL));
    BookStats weight = {.weight = 2};
    assert_true(book_set_stats(book, id, mv.move, &weight));
    assert_int_equal(sbk_patch_put_from_book(p, book, id, err, sizeof err), SBK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err, "count"));
    sbk_patch_free(p);
    book_free(book);
}

/* Unknown fields of a replaced state and of its moves survive. */
static void test_patch_unknown_fields(void **state) {
    (void)state;
    int32_t w76 = W(STARTPOS_SFEN, "7g7f");
    uint8_t move[16], st[64], file[80];
    size_t nm = 0, ns = 0, nf = 0;
    move[nm++] = 0x08; /* move = w76 (10-byte varint is not needed: black moves are positive) */
    for (uint32_t v = (uint32_t)w76; v; v >>= 7)
        move[nm++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
    move[nm++] = 0x20, move[nm++] = 0x01;    /* nextStateId 1 */
    move[nm++] = 0x78, move[nm++] = 0x2a;    /* unknown field 15 = 42 */
    st[ns++] = 0x4a, st[ns++] = (uint8_t)nm; /* moves */
    memcpy(st + ns, move, nm), ns += nm;
    st[ns++] = 0xa0, st[ns++] = 0x01, st[ns++] = 0x07; /* unknown field 20 = 7 */
    file[nf++] = 0x1a, file[nf++] = (uint8_t)ns;
    memcpy(file + nf, st, ns), nf += ns;
    file[nf++] = 0x1a, file[nf++] = 0x02, file[nf++] = 0x08, file[nf++] = 0x01; /* state 1: id 1 */
    char err[256];
    SbkOpenStats os;
    SbkBook *b = open_bytes(file, nf, &os, err, sizeof err);
    assert_non_null(b);
    assert_int_equal(os.indexed, 2);
    SbkEntry e;
    assert_int_equal(sbk_lookup_sfen(b, STARTPOS_SFEN, &e, err, sizeof err), 1);
    SbkPatchMove moves[4];
    SbkPatchEntry pe = entry_as_patch(&e, moves, "c");
    SbkPatch *p = sbk_patch_create();
    assert_true(sbk_patch_put(p, &pe));
    assert_int_equal(patch_to(b, p, "unknown.sbk", err, sizeof err), SBK_OK);
    char path[600];
    snprintf(path, sizeof path, "%s/unknown.sbk", tmpdir);
    size_t n;
    uint8_t *d = read_bytes(path, &n);
    SBook *msg = sbook__unpack(NULL, n, d);
    assert_non_null(msg);
    assert_int_equal(msg->n_state, 2);
    assert_int_equal(msg->state[0]->base.n_unknown_fields, 1);
    assert_int_equal(msg->state[0]->moves[0]->base.n_unknown_fields, 1);
    assert_string_equal(msg->state[0]->comment, "c");
    assert_int_equal(msg->state[0]->moves[0]->nextstateid, 1);
    sbook__free_unpacked(msg, NULL);
    free(d);
    sbk_patch_free(p);
    sbk_entry_clear(&e);
    sbk_close(b);
}

static int setup(void **state) {
    (void)state;
    shogi_init();
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_move_examples),        cmocka_unit_test(test_move_round_trip),
        cmocka_unit_test(test_real_files),           cmocka_unit_test(test_real_file_content),
        cmocka_unit_test(test_copies_agree),         cmocka_unit_test(test_comment_keeps_weight),
        cmocka_unit_test(test_conversions),          cmocka_unit_test(test_resave_identical),
        cmocka_unit_test(test_graph_faults),         cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_reverse_chain),        cmocka_unit_test(test_writer_and_cancel),
        cmocka_unit_test(test_patch_replace),        cmocka_unit_test(test_patch_rejections),
        cmocka_unit_test(test_patch_unknown_fields), cmocka_unit_test(test_patch_source_rules),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
