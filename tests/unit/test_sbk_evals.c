/* test_sbk_evals.c - engine analyses (SBookEval lists) through the book IR: the IR's
 * side table, SBK -> IR -> SBK on the seven real files and on hand-made books with every
 * field (zeros stored or omitted, extremes), DB2016 keeping the first line as score and
 * depth, and the patch writer replacing, keeping and refusing analyses, plus its
 * explicit plies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "book/db2016.h"
#include "book/sbk.h"
#include "proto/sbk.pb-c.h"
#include "shogi/notation.h"

#define SBK_DIR    "../shared/refdata/sbk/shogihome/"
#define AFTER_7G7F "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"

static const char *const FILES[] = {"shogigui01.sbk", "shogigui01-copy.sbk", "shogigui01-copy-otf.sbk",
                                    "shogigui02.sbk", "shogigui02-copy.sbk", "shogigui02-copy-otf.sbk",
                                    "sbk-merge.sbk"};
enum { NFILES = sizeof FILES / sizeof FILES[0] };

static char tmpdir[] = "/tmp/test_sbk_evals.XXXXXX";

static void tmp_path(char *out, size_t len, const char *name) { snprintf(out, len, "%s/%s", tmpdir, name); }

static SbkBook *open_path(const char *path, SbkOpenStats *st) {
    char err[512];
    SbkBook *b = sbk_open(path, NULL, st, err, sizeof err);
    if (!b)
        fail_msg("%s", err);
    return b;
}

static void write_bytes(const char *name, const void *data, size_t len) {
    char path[600];
    tmp_path(path, sizeof path, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

static SBook *read_msg(const char *name) {
    char path[600];
    tmp_path(path, sizeof path, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static uint8_t buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    SBook *m = sbook__unpack(NULL, n, buf);
    assert_non_null(m);
    return m;
}

static Move16 usi(const char *text) {
    Move16 m;
    assert_true(move16_from_usi(text, strlen(text), &m));
    return m;
}

static BookKey key_of(const char *sfen) {
    BookKey k;
    assert_true(book_key_from_sfen(sfen, &k, NULL, NULL, 0));
    return k;
}

static bool same_str(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

/* Field for field, presence included. */
static void assert_same_evals(const SbkEval *a, size_t na, const SbkEval *b, size_t nb) {
    assert_int_equal(na, nb);
    for (size_t i = 0; i < na; i++) {
        assert_int_equal(a[i].value, b[i].value);
        assert_int_equal(a[i].depth, b[i].depth);
        assert_int_equal(a[i].sel_depth, b[i].sel_depth);
        assert_int_equal(a[i].nodes, b[i].nodes);
        assert_true(same_str(a[i].variation, b[i].variation));
        assert_true(same_str(a[i].engine_name, b[i].engine_name));
        assert_int_equal(a[i].present, b[i].present);
    }
}

/* ---- the IR's table ---- */

static void test_ir_table(void **state) {
    (void)state;
    Book *b = book_create();
    uint32_t id, other;
    BookKey k = key_of(STARTPOS_SFEN), k2 = key_of(AFTER_7G7F);
    assert_true(book_add_position(b, &k, 1, &id));
    assert_true(book_add_position(b, &k2, 2, &other));
    size_t empty_bytes = book_memory_bytes(b);
    char pv[] = "7g7f 3c3d", name[] = "engine";
    BookEval ev[2] = {{.value = 30, .depth = 12, .sel_depth = 20, .nodes = 1000, .variation = pv, .engine_name = name},
                      {.present = BOOK_EVAL_HAS_VALUE}};
    assert_true(book_set_evals(b, id, ev, 2));
    pv[0] = 'X', name[0] = 'X'; /* the book holds copies */
    const BookEval *got;
    assert_int_equal(book_get_evals(b, id, &got), 2);
    assert_string_equal(got[0].variation, "7g7f 3c3d");
    assert_string_equal(got[0].engine_name, "engine");
    assert_int_equal(got[0].nodes, 1000);
    assert_null(got[1].variation);
    assert_int_equal(got[1].present, BOOK_EVAL_HAS_VALUE);
    assert_int_equal(book_get_evals(b, other, &got), 0);
    assert_null(got);
    assert_int_equal(book_eval_count(b), 2);
    assert_true(book_memory_bytes(b) > empty_bytes);
    /* analyses alone are not statistics */
    BookStats s;
    assert_false(book_has_stats(b));
    assert_false(book_get_stats(b, id, MOVE_NONE, &s));
    BookStats games = {.games = 3};
    assert_true(book_set_stats(b, id, MOVE_NONE, &games));
    assert_true(book_has_stats(b));
    assert_true(book_get_stats(b, id, MOVE_NONE, &s));
    assert_int_equal(s.games, 3);
    assert_int_equal(book_get_evals(b, id, NULL), 2); /* statistics do not touch them */
    /* merging carries them; replacing and removing keep the count right */
    Book *m = book_create();
    assert_true(book_merge(m, b));
    uint32_t mid;
    assert_true(book_find(m, &k, &mid));
    assert_int_equal(book_get_evals(m, mid, &got), 2);
    assert_string_equal(got[0].engine_name, "engine");
    assert_true(book_set_evals(b, id, ev + 1, 1));
    assert_int_equal(book_eval_count(b), 1);
    assert_true(book_set_evals(b, other, ev, 1));
    assert_int_equal(book_eval_count(b), 2);
    assert_true(book_set_evals(b, id, NULL, 0));
    assert_true(book_set_evals(b, id, NULL, 0));
    assert_int_equal(book_eval_count(b), 1);
    assert_int_equal(book_get_evals(b, id, NULL), 0);
    book_free(m);
    book_free(b);
}

/* ---- real files ---- */

/* Every state of src has the analyses of the state of its position in out. */
static size_t expect_evals_kept(const SbkBook *src, const SbkBook *out) {
    char err[256];
    size_t seen = 0;
    for (size_t k = 0; k < sbk_indexed_count(src); k++) {
        SbkEntry e, f;
        assert_int_equal(sbk_entry_at(src, k, &e, err, sizeof err), 1);
        Position pos;
        StateInfo st;
        assert_true(position_from_sfen(&pos, &st, e.sfen, NULL, 0));
        if (sbk_lookup_position(out, &pos, &f, err, sizeof err) == 1) {
            assert_same_evals(e.evals, e.n_evals, f.evals, f.n_evals);
            sbk_entry_clear(&f);
        } else {
            assert_int_equal(e.n_evals, 0); /* the writer drops empty leaves only */
        }
        seen += e.n_evals;
        sbk_entry_clear(&e);
    }
    return seen;
}

static void test_real_files_round_trip(void **state) {
    (void)state;
    char err[256];
    for (int f = 0; f < NFILES; f++) {
        char path[600], out[600], patched[600];
        snprintf(path, sizeof path, SBK_DIR "%s", FILES[f]);
        tmp_path(out, sizeof out, "direct.sbk");
        tmp_path(patched, sizeof patched, "patched.sbk");
        SbkOpenStats st0;
        SbkBook *src = open_path(path, &st0);
        Book *book = book_create();
        SbkImportStats is;
        assert_true(sbk_to_book(src, book, NULL, &is, err, sizeof err));
        assert_int_equal(book_eval_count(book), is.evals);
        SbkWriteReport rep;
        if (!sbk_write_file(out, book, NULL, &rep, err, sizeof err))
            fail_msg("%s", err);
        /* scores and depths come back from the analyses: nothing is unsupported */
        assert_int_equal(rep.scores + rep.depths + rep.ponders + rep.counts, 0);
        SbkBook *direct = open_path(out, NULL);
        size_t n = expect_evals_kept(src, direct);
        assert_int_equal(n, is.evals);
        if (f < 3)
            assert_int_equal(n, 3); /* shogigui01 and its copies: state 42 */

        /* every position put back from the IR through the patch writer */
        SbkPatch *p = sbk_patch_create();
        for (uint32_t id = 0; id < book_position_count(book); id++)
            if (sbk_patch_put_from_book(p, book, id, err, sizeof err) != SBK_OK)
                fail_msg("%s", err);
        assert_int_equal(sbk_write_with_patch(src, p, patched, NULL, NULL, err, sizeof err), SBK_OK);
        SbkOpenStats st;
        SbkBook *again = open_path(patched, &st);
        assert_int_equal(st.states, sbk_state_count(src));
        assert_int_equal(st.roots, st0.roots); /* no SFEN filled in: every put ply holds */
        assert_int_equal(st.unresolved, 0);
        assert_int_equal(expect_evals_kept(src, again), n);
        sbk_close(again);
        sbk_patch_free(p);
        sbk_close(direct);
        book_free(book);
        sbk_close(src);
    }
}

/* DB2016 keeps the first analysis as the score and depth of the moves leading there. */
static void test_first_line_into_db2016(void **state) {
    (void)state;
    char err[256], db[600];
    tmp_path(db, sizeof db, "first.db");
    SbkBook *src = open_path(SBK_DIR "shogigui01.sbk", NULL);
    Book *book = book_create();
    assert_true(sbk_to_book(src, book, NULL, NULL, err, sizeof err));
    assert_true(db2016_write_file(db, book, NULL, err, sizeof err));
    Book *back = book_create();
    assert_true(db2016_read_file(db, back, NULL, NULL, err, sizeof err));
    /* the moves into state 42 (first analysis: value 5 from black's view, depth 28) */
    SbkEntry e42;
    bool found = false;
    for (size_t k = 0; k < sbk_indexed_count(src) && !found; k++) {
        assert_int_equal(sbk_entry_at(src, k, &e42, err, sizeof err), 1);
        found = e42.index == 42;
        if (!found)
            sbk_entry_clear(&e42);
    }
    assert_true(found);
    assert_int_equal(e42.evals[0].value, 5);
    int parents = 0;
    BookMoveList *list = malloc(sizeof *list);
    for (uint32_t id = 0; id < book_position_count(back); id++) {
        BookKey k;
        Position pos;
        StateInfo st, ns;
        book_position_key(back, id, &k);
        assert_true(book_key_to_position(&k, &pos, &st, 1));
        book_position_moves(back, id, list);
        for (int i = 0; i < list->n; i++) {
            Move m = position_legal_move_from16(&pos, list->moves[i].move);
            position_do_move(&pos, m, &ns);
            BookKey ck;
            book_key_from_position(&pos, &ck);
            position_undo_move(&pos, m);
            if (memcmp(ck.data, e42.key.data, 32))
                continue;
            parents++;
            assert_true(list->moves[i].has_score && list->moves[i].has_depth);
            assert_int_equal(list->moves[i].score, pos.side == BLACK ? 5 : -5);
            assert_int_equal(list->moves[i].depth, 28);
        }
    }
    assert_true(parents >= 1);
    free(list);
    sbk_entry_clear(&e42);
    book_free(back);
    book_free(book);
    sbk_close(src);
}

/* ---- hand-made books ---- */

static int32_t word_of(const char *sfen, const char *move) {
    Position pos;
    StateInfo st;
    assert_true(position_from_sfen(&pos, &st, sfen, NULL, 0));
    int32_t w;
    assert_true(sbk_move_encode(&pos, usi(move), &w));
    return w;
}

/* start --7g7f--> A (white to move, four analyses) --3c3d--> B (one analysis). The
 * analyses of A: every field; stored zeros (ShogiGUI style); nothing at all; extremes. */
static uint8_t *hand_made(size_t *len, SBookEval *ev_a, size_t n_a) {
    SBookMove m0 = SBOOK_MOVE__INIT, m1 = SBOOK_MOVE__INIT;
    m0.has_move = true, m0.move = word_of(STARTPOS_SFEN, "7g7f"), m0.has_nextstateid = true, m0.nextstateid = 1;
    m1.has_move = true, m1.move = word_of(AFTER_7G7F, "3c3d"), m1.has_nextstateid = true, m1.nextstateid = 2;
    SBookMove *mp0[] = {&m0}, *mp1[] = {&m1};
    SBookEval eb = SBOOK_EVAL__INIT;
    eb.has_value = true, eb.value = 40, eb.has_depth = true, eb.depth = 9;
    SBookEval *pa[8], *pb[] = {&eb};
    for (size_t i = 0; i < n_a; i++)
        pa[i] = &ev_a[i];
    SBookState s0 = SBOOK_STATE__INIT, s1 = SBOOK_STATE__INIT, s2 = SBOOK_STATE__INIT;
    s0.position = STARTPOS_SFEN, s0.n_moves = 1, s0.moves = mp0;
    s1.has_id = true, s1.id = 1, s1.n_moves = 1, s1.moves = mp1, s1.n_evals = n_a, s1.evals = pa;
    s2.has_id = true, s2.id = 2, s2.n_evals = 1, s2.evals = pb;
    SBookState *sp[] = {&s0, &s1, &s2};
    SBook book = SBOOK__INIT;
    book.n_state = 3, book.state = sp;
    *len = sbook__get_packed_size(&book);
    uint8_t *out = malloc(*len);
    sbook__pack(&book, out);
    return out;
}

static size_t four_evals(SBookEval *ev) {
    for (int i = 0; i < 4; i++)
        sbook_eval__init(&ev[i]);
    ev[0].has_value = true, ev[0].value = -120, ev[0].has_depth = true, ev[0].depth = 20;
    ev[0].has_seldepth = true, ev[0].seldepth = 31, ev[0].has_nodes = true, ev[0].nodes = 123456789012345;
    ev[0].variation = "△3四歩(33) ▲2六歩(27)", ev[0].enginename = "Engine X 1.0";
    ev[1].has_value = true, ev[1].has_depth = true, ev[1].has_seldepth = true, ev[1].has_nodes = true; /* zeros */
    ev[1].variation = "";
    /* ev[2]: nothing */
    ev[3].has_value = true, ev[3].value = INT32_MIN, ev[3].has_depth = true, ev[3].depth = INT32_MAX;
    ev[3].has_nodes = true, ev[3].nodes = INT64_MIN;
    return 4;
}

static void expect_message_evals(const SBookState *s, const SBookEval *want, size_t n) {
    assert_int_equal(s->n_evals, n);
    for (size_t i = 0; i < n; i++) {
        const SBookEval *a = s->evals[i], *b = &want[i];
        assert_int_equal(a->has_value, b->has_value);
        assert_int_equal(a->value, b->value);
        assert_int_equal(a->has_depth, b->has_depth);
        assert_int_equal(a->depth, b->depth);
        assert_int_equal(a->has_seldepth, b->has_seldepth);
        assert_int_equal(a->seldepth, b->seldepth);
        assert_int_equal(a->has_nodes, b->has_nodes);
        assert_int_equal(a->nodes, b->nodes);
        assert_true(same_str(a->variation, b->variation));
        assert_true(same_str(a->enginename, b->enginename));
    }
}

static void test_hand_made_round_trip(void **state) {
    (void)state;
    char err[256], in[600], out[600];
    SBookEval ev[4];
    size_t n_ev = four_evals(ev), len;
    uint8_t *bytes = hand_made(&len, ev, n_ev);
    write_bytes("hand.sbk", bytes, len);
    tmp_path(in, sizeof in, "hand.sbk");
    tmp_path(out, sizeof out, "hand-out.sbk");
    SbkBook *src = open_path(in, NULL);
    Book *book = book_create();
    SbkImportStats is;
    assert_true(sbk_to_book(src, book, NULL, &is, err, sizeof err));
    assert_int_equal(is.evals, 5);
    /* the move scores: 7g7f (black) gets A's first value as it is, 3c3d (white) B's negated */
    BookMoveList list;
    Position pos;
    StateInfo st;
    position_set_startpos(&pos, &st);
    assert_true(book_lookup(book, &pos, &list));
    assert_int_equal(list.n, 1);
    assert_int_equal(list.moves[0].score, -120);
    assert_int_equal(list.moves[0].depth, 20);
    assert_true(position_from_sfen(&pos, &st, AFTER_7G7F, NULL, 0));
    assert_true(book_lookup(book, &pos, &list));
    assert_int_equal(list.moves[0].score, -40);
    assert_int_equal(list.moves[0].depth, 9);
    SbkWriteReport rep;
    assert_true(sbk_write_file(out, book, NULL, &rep, err, sizeof err));
    assert_int_equal(rep.scores + rep.depths, 0);
    SBook *msg = read_msg("hand-out.sbk");
    assert_int_equal(msg->n_state, 3);
    expect_message_evals(msg->state[1], ev, n_ev);
    assert_int_equal(msg->state[2]->n_evals, 1);
    assert_int_equal(msg->state[2]->evals[0]->value, 40);
    sbook__free_unpacked(msg, NULL);

    /* a child whose first value is INT32_MIN: no overflow, and the IR's range */
    SBookEval first_min[1];
    sbook_eval__init(&first_min[0]);
    first_min[0].has_value = true, first_min[0].value = INT32_MIN;
    free(bytes);
    bytes = hand_made(&len, first_min, 1);
    write_bytes("min.sbk", bytes, len);
    tmp_path(in, sizeof in, "min.sbk");
    SbkBook *minb = open_path(in, NULL);
    Book *mb = book_create();
    assert_true(sbk_to_book(minb, mb, NULL, NULL, err, sizeof err));
    position_set_startpos(&pos, &st);
    assert_true(book_lookup(mb, &pos, &list));
    assert_true(list.moves[0].has_score);
    assert_int_equal(list.moves[0].score, -INT32_MAX);
    book_free(mb);
    sbk_close(minb);

    /* a score the analyses do not give back is reported */
    uint32_t id;
    BookKey k = key_of(STARTPOS_SFEN);
    assert_true(book_find(book, &k, &id));
    BookMove bm = {.move = usi("7g7f"), .score = 99, .has_score = true};
    assert_true(book_add_move(book, id, &bm, NULL));
    assert_true(sbk_write_file(out, book, NULL, &rep, err, sizeof err));
    assert_int_equal(rep.scores, 1);
    assert_int_equal(rep.depths, 0);
    SbkPatch *p = sbk_patch_create();
    assert_int_equal(sbk_patch_put_from_book(p, book, id, err, sizeof err), SBK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err, "score"));
    sbk_patch_free(p);
    free(bytes);
    book_free(book);
    sbk_close(src);
}

/* ---- the patch writer ---- */

/* Appends unknown field 15 (varint 5) to every analysis of state 1 of a packed book. */
static uint8_t *with_unknown_eval_field(size_t *len) {
    SBookEval ev[4];
    size_t n_ev = four_evals(ev);
    static uint8_t extra[] = {0x05};
    ProtobufCMessageUnknownField uf = {.tag = 15, .wire_type = PROTOBUF_C_WIRE_TYPE_VARINT, .len = 1, .data = extra};
    ev[2].base.n_unknown_fields = 1;
    ev[2].base.unknown_fields = &uf;
    return hand_made(len, ev, n_ev);
}

static SbkPatchEntry put_of_a(SbkPatchMove *mv, const SbkEval *evals, size_t n) {
    mv[0] = (SbkPatchMove){usi("3c3d"), 0, 0};
    return (SbkPatchEntry){
        .key = key_of(AFTER_7G7F), .n_moves = 1, .moves = mv, .set_evals = true, .n_evals = n, .evals = evals};
}

static void test_patch_evals(void **state) {
    (void)state;
    char err[256], in[600], out[600];
    size_t len;
    SBookEval ev[4];
    size_t n_ev = four_evals(ev);
    uint8_t *bytes = hand_made(&len, ev, n_ev);
    write_bytes("p.sbk", bytes, len);
    free(bytes);
    tmp_path(in, sizeof in, "p.sbk");
    tmp_path(out, sizeof out, "p-out.sbk");
    SbkBook *src = open_path(in, NULL);
    SbkPatchMove mv[1];
    /* replaced with two new analyses */
    SbkEval repl[2] = {{.value = 7, .depth = 3, .engine_name = "new"}, {.value = 0, .present = BOOK_EVAL_HAS_VALUE}};
    SbkPatch *p = sbk_patch_create();
    SbkPatchEntry pe = put_of_a(mv, repl, 2);
    assert_true(sbk_patch_put(p, &pe));
    assert_int_equal(sbk_write_with_patch(src, p, out, NULL, NULL, err, sizeof err), SBK_OK);
    SBook *msg = read_msg("p-out.sbk");
    assert_int_equal(msg->state[1]->n_evals, 2);
    assert_int_equal(msg->state[1]->evals[0]->value, 7);
    assert_string_equal(msg->state[1]->evals[0]->enginename, "new");
    assert_false(msg->state[1]->evals[0]->has_nodes);
    assert_true(msg->state[1]->evals[1]->has_value);
    assert_int_equal(msg->state[1]->evals[1]->value, 0);
    sbook__free_unpacked(msg, NULL);
    sbk_patch_free(p);
    /* set_evals false: the state keeps its own */
    p = sbk_patch_create();
    pe = put_of_a(mv, NULL, 0);
    pe.set_evals = false;
    pe.comment = "kept";
    assert_true(sbk_patch_put(p, &pe));
    assert_int_equal(sbk_write_with_patch(src, p, out, NULL, NULL, err, sizeof err), SBK_OK);
    msg = read_msg("p-out.sbk");
    assert_string_equal(msg->state[1]->comment, "kept");
    expect_message_evals(msg->state[1], ev, n_ev);
    sbook__free_unpacked(msg, NULL);
    sbk_patch_free(p);
    /* a new state with analyses (after 2g2f, not in the source) */
    p = sbk_patch_create();
    SbkEval fresh[1] = {{.value = -3, .depth = 5, .sel_depth = 6, .nodes = 7, .variation = "8c8d"}};
    SbkPatchEntry np = {.key = key_of("lnsgkgsnl/1r5b1/ppppppppp/9/9/7P1/PPPPPPP1P/1B5R1/LNSGKGSNL w - 2"),
                        .set_evals = true,
                        .n_evals = 1,
                        .evals = fresh};
    assert_true(sbk_patch_put(p, &np));
    assert_int_equal(sbk_write_with_patch(src, p, out, NULL, NULL, err, sizeof err), SBK_OK);
    msg = read_msg("p-out.sbk");
    assert_int_equal(msg->n_state, 4);
    assert_int_equal(msg->state[3]->n_evals, 1);
    assert_int_equal(msg->state[3]->evals[0]->nodes, 7);
    assert_string_equal(msg->state[3]->evals[0]->variation, "8c8d");
    sbook__free_unpacked(msg, NULL);
    sbk_patch_free(p);
    sbk_close(src);

    /* analyses with unknown fields: kept as they are when the known values stay ... */
    bytes = with_unknown_eval_field(&len);
    write_bytes("u.sbk", bytes, len);
    free(bytes);
    tmp_path(in, sizeof in, "u.sbk");
    src = open_path(in, NULL);
    SbkEntry e;
    Position pos;
    StateInfo st;
    assert_true(position_from_sfen(&pos, &st, AFTER_7G7F, NULL, 0));
    assert_int_equal(sbk_lookup_position(src, &pos, &e, err, sizeof err), 1);
    p = sbk_patch_create();
    pe = put_of_a(mv, e.evals, e.n_evals);
    pe.comment = "same values";
    assert_true(sbk_patch_put(p, &pe));
    assert_int_equal(sbk_write_with_patch(src, p, out, NULL, NULL, err, sizeof err), SBK_OK);
    msg = read_msg("p-out.sbk");
    assert_string_equal(msg->state[1]->comment, "same values");
    assert_int_equal(msg->state[1]->evals[2]->base.n_unknown_fields, 1);
    expect_message_evals(msg->state[1], ev, n_ev);
    sbook__free_unpacked(msg, NULL);
    sbk_patch_free(p);
    /* ... and a change to them is refused, the destination untouched */
    write_bytes("p-out.sbk", "untouched", 9);
    SbkEval changed[4];
    memcpy(changed, e.evals, sizeof changed);
    changed[1].depth = 1;
    p = sbk_patch_create();
    pe = put_of_a(mv, changed, 4);
    assert_true(sbk_patch_put(p, &pe));
    assert_int_equal(sbk_write_with_patch(src, p, out, NULL, NULL, err, sizeof err), SBK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err, "unknown fields"));
    FILE *f = fopen(out, "rb");
    char keep[16] = "";
    assert_int_equal(fread(keep, 1, sizeof keep, f), 9);
    fclose(f);
    assert_memory_equal(keep, "untouched", 9);
    sbk_patch_free(p);
    sbk_entry_clear(&e);
    sbk_close(src);
}

/* A put's ply the output graph would not give gets an SFEN that carries it; a ply past
 * u16 is refused. */
static void test_patch_explicit_ply(void **state) {
    (void)state;
    char err[256], in[600], out[600];
    SBookEval ev[4];
    size_t n_ev = four_evals(ev), len;
    uint8_t *bytes = hand_made(&len, ev, n_ev);
    write_bytes("ply.sbk", bytes, len);
    free(bytes);
    tmp_path(in, sizeof in, "ply.sbk");
    tmp_path(out, sizeof out, "ply-out.sbk");
    SbkBook *src = open_path(in, NULL);
    SbkPatchMove mv[1];
    Position after;
    StateInfo st0, st1;
    assert_true(position_from_sfen(&after, &st0, AFTER_7G7F, NULL, 0));
    position_do_move(&after, position_legal_move_from16(&after, usi("3c3d")), &st1);
    static const int PLIES[] = {0, 2, 3, 40, SBK_MAX_PLY - 1}; /* 0: none given; 2: what the graph gives */
    for (size_t i = 0; i < sizeof PLIES / sizeof PLIES[0]; i++) {
        int ply = PLIES[i];
        SbkPatch *p = sbk_patch_create();
        SbkPatchEntry pe = put_of_a(mv, NULL, 0);
        pe.set_evals = false;
        pe.ply = ply;
        assert_true(sbk_patch_put(p, &pe));
        assert_int_equal(sbk_write_with_patch(src, p, out, NULL, NULL, err, sizeof err), SBK_OK);
        SBook *msg = read_msg("ply-out.sbk");
        if (ply <= 2) {
            assert_null(msg->state[1]->position);
        } else {
            char want[SFEN_MAX + 8];
            snprintf(want, sizeof want, "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - %d", ply);
            assert_string_equal(msg->state[1]->position, want);
        }
        SbkOpenStats st;
        SbkBook *o = open_path(out, &st);
        assert_int_equal(st.unresolved, 0);
        SbkEntry child;
        assert_int_equal(sbk_lookup_position(o, &after, &child, err, sizeof err), 1);
        assert_int_equal(child.ply, (ply ? ply : 2) + 1); /* the child follows its parent's ply */
        sbk_entry_clear(&child);
        sbk_close(o);
        sbook__free_unpacked(msg, NULL);
        sbk_patch_free(p);
    }
    SbkPatch *p = sbk_patch_create();
    SbkPatchEntry pe = put_of_a(mv, NULL, 0);
    pe.ply = SBK_MAX_PLY + 1;
    assert_true(sbk_patch_put(p, &pe));
    assert_int_equal(sbk_write_with_patch(src, p, out, NULL, NULL, err, sizeof err), SBK_ERR_INVALID_DATA);
    sbk_patch_free(p);
    sbk_close(src);
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
        cmocka_unit_test(test_ir_table),
        cmocka_unit_test(test_real_files_round_trip),
        cmocka_unit_test(test_first_line_into_db2016),
        cmocka_unit_test(test_hand_made_round_trip),
        cmocka_unit_test(test_patch_evals),
        cmocka_unit_test(test_patch_explicit_ply),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
