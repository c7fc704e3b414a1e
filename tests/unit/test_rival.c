/* test_rival.c - opponent overlays: the selection order over a hand-built main book and
 * overlay (book/select.h), the opponent-name-to-file rule (book/overlay.h) and
 * USI_Opponent's value (usi/engine_book.h), and the learning rule (bookgen/rival.h) on
 * hand-written CSA games whose expected effect is worked out in the comments.
 *
 * The position after 7g7f 3c3d (AFTER_76_34) is the one every loss below is about: the
 * main book gives 7g7f at the start and 2g2f (count 5) or 6g6f (count 3) after 3c3d.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "book/open.h"
#include "book/overlay.h"
#include "book/select.h"
#include "bookgen/rival.h"
#include "shogi/notation.h"
#include "usi/engine_book.h"

#define STARTPOS    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
#define AFTER_76_34 "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3"

static Move16 mv(const Position *pos, const char *usi) {
    Move m = position_parse_usi_move(pos, usi);
    assert_int_not_equal(m, MOVE_NONE);
    return move_to_move16(m);
}

typedef struct {
    Position pos;
    StateInfo st;
} Pos;

static void set_pos(Pos *p, const char *sfen) {
    char err[128];
    assert_true(position_from_sfen(&p->pos, &p->st, sfen, err, sizeof err));
}

/* Adds (move, score or none, count) to b at sfen. */
static void put(Book *b, const char *sfen, const char *usi, bool has_score, int score, uint64_t count) {
    Pos p;
    set_pos(&p, sfen);
    BookKey key;
    book_key_from_position(&p.pos, &key);
    uint32_t id;
    assert_true(book_add_position(b, &key, p.pos.ply, &id));
    BookMove m = {.move = mv(&p.pos, usi), .ponder = MOVE_NONE, .count = count, .has_score = has_score};
    m.score = has_score ? score : 0;
    assert_true(book_add_move(b, id, &m, NULL));
}

/* The move book_select_overlay() chooses at sfen with seed, as USI text ("-" for none). */
static const char *choose(const Book *over, const Book *main, const char *sfen, const BookSelectOptions *o,
                          uint64_t seed, bool *from_overlay, char *buf) {
    Pos p;
    set_pos(&p, sfen);
    BookSource so = book_source_memory(over), sm = book_source_memory(main);
    BookChoice c;
    uint64_t rng = seed;
    BookSelectResult r = book_select_overlay(over ? &so : NULL, main ? &sm : NULL, &p.pos, o, &rng, &c, NULL, 0);
    if (from_overlay)
        *from_overlay = c.from_overlay;
    if (r != BOOK_SELECT_HIT)
        return strcpy(buf, "-");
    return move_to_usi(c.move, buf);
}

/* Main: 7g7f (10) and 6g6f (3), unscored. Overlay: 2g2f (1) and 7g7f demoted. */
static void test_overlay_order(void **state) {
    (void)state;
    Book *main = book_create(), *over = book_create();
    put(main, STARTPOS, "7g7f", false, 0, 10);
    put(main, STARTPOS, "6g6f", false, 0, 3);
    put(over, STARTPOS, "2g2f", false, 0, 1);
    put(over, STARTPOS, "7g7f", true, BOOK_SCORE_DEMOTED, 0);
    BookSelectOptions o;
    book_select_defaults(&o);

    /* The candidate list: the overlay's two (sorted by count), then the main book's 6g6f;
     * the main book's 7g7f is hidden by the overlay's entry. */
    Pos p;
    set_pos(&p, STARTPOS);
    BookSource so = book_source_memory(over), sm = book_source_memory(main);
    BookMoveList *l = malloc(sizeof *l);
    int nov = -1;
    assert_int_equal(book_probe_overlay(&so, &sm, &p.pos, &o, l, &nov, NULL, NULL, 0), 1);
    assert_int_equal(nov, 2);
    assert_int_equal(l->n, 3);
    char b[3][USI_MOVE_MAX];
    assert_int_equal(l->moves[0].move, mv(&p.pos, "2g2f"));
    assert_int_equal(l->moves[1].move, mv(&p.pos, "7g7f"));
    assert_true(book_move_demoted(&l->moves[1]));
    assert_int_equal(l->moves[2].move, mv(&p.pos, "6g6f"));
    assert_false(book_move_demoted(&l->moves[2]));

    /* The overlay's live move is chosen whatever the draw; without the overlay both main
     * moves come up. */
    bool seen76 = false, seen66 = false, from;
    for (uint64_t seed = 1; seed <= 64; seed++) {
        assert_string_equal(choose(over, main, STARTPOS, &o, seed, &from, b[0]), "2g2f");
        assert_true(from);
        choose(NULL, main, STARTPOS, &o, seed, &from, b[1]);
        assert_false(from);
        seen76 |= !strcmp(b[1], "7g7f");
        seen66 |= !strcmp(b[1], "6g6f");
        assert_true(!strcmp(b[1], "7g7f") || !strcmp(b[1], "6g6f"));
    }
    assert_true(seen76 && seen66);

    /* An overlay holding only the demoted move: the main book fills in with 6g6f, never
     * 7g7f, even with limits that would let any score through. */
    Book *only = book_create();
    put(only, STARTPOS, "7g7f", true, BOOK_SCORE_DEMOTED, 0);
    BookSelectOptions loose = o;
    loose.eval_diff = 99999;
    loose.eval_black_limit = -99999;
    loose.consider_count = true;
    for (uint64_t seed = 1; seed <= 64; seed++) {
        assert_string_equal(choose(only, main, STARTPOS, &o, seed, &from, b[0]), "6g6f");
        assert_false(from);
        assert_string_equal(choose(only, main, STARTPOS, &loose, seed, NULL, b[0]), "6g6f");
        assert_string_equal(choose(only, NULL, STARTPOS, &loose, seed, NULL, b[0]), "-");
    }

    /* The overlay's move is filtered out (score -500 below BookEvalBlackLimit 0): the
     * main book's moves get their turn. */
    Book *bad = book_create();
    put(bad, STARTPOS, "2g2f", true, -500, 1);
    for (uint64_t seed = 1; seed <= 16; seed++) {
        choose(bad, main, STARTPOS, &o, seed, &from, b[0]);
        assert_true(!strcmp(b[0], "7g7f") || !strcmp(b[0], "6g6f"));
        assert_false(from);
    }

    /* A position the overlay lacks is the main book's; one only the overlay has is the
     * overlay's. */
    put(main, AFTER_76_34, "2g2f", false, 0, 5);
    assert_string_equal(choose(over, main, AFTER_76_34, &o, 7, &from, b[0]), "2g2f");
    assert_false(from);
    put(over, "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/7P1/PPPPPPP1P/1B5R1/LNSGKGSNL b - 3", "7g7f", false, 0, 1);
    assert_string_equal(
        choose(over, main, "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/7P1/PPPPPPP1P/1B5R1/LNSGKGSNL b - 3", &o, 7, &from, b[0]),
        "7g7f");
    assert_true(from);

    free(l);
    book_free(main);
    book_free(over);
    book_free(only);
    book_free(bad);
}

static void stem_is(const char *name, const char *want) {
    char out[BOOK_OVERLAY_STEM_MAX + 1];
    if (!want) {
        assert_false(book_overlay_stem(name, out, sizeof out));
        assert_string_equal(out, "");
        return;
    }
    assert_true(book_overlay_stem(name, out, sizeof out));
    assert_string_equal(out, want);
    assert_null(strchr(out, '/'));
    assert_true(out[0] != '.');
}

static void test_name_mapping(void **state) {
    (void)state;
    stem_is("gpsfish", "gpsfish");
    stem_is("Suisho5-1.0_x", "Suisho5-1.0_x");
    stem_is("a b", "a%20b");
    stem_is("a_b", "a_b"); /* not a%20b's file: the mapping is one-to-one */
    stem_is("a%20b", "a%2520b");
    stem_is("a/b", "a%2Fb");
    stem_is("..", "%2E.");
    stem_is(".", "%2E");
    stem_is("../../etc/passwd", "%2E.%2F..%2Fetc%2Fpasswd");
    stem_is(".hidden", "%2Ehidden");
    stem_is("x\x01\x1b[2J\x7f", "x%01%1B%5B2J%7F");
    stem_is("tab\tcr\r", "tab%09cr%0D");
    stem_is("\xe5\xb0\x86\xe6\xa3\x8b", "%E5%B0%86%E6%A3%8B"); /* 将棋 in UTF-8 */
    stem_is("", NULL);
    char longname[300];
    memset(longname, 'a', 200);
    longname[200] = '\0';
    stem_is(longname, longname); /* exactly BOOK_OVERLAY_STEM_MAX */
    longname[200] = 'a';
    longname[201] = '\0';
    stem_is(longname, NULL);
    memset(longname, ' ', 67); /* 67 * 3 = 201 bytes of stem */
    longname[67] = '\0';
    stem_is(longname, NULL);
    char small[4];
    assert_false(book_overlay_stem("abcd", small, sizeof small));

    /* Finding the file: .db first, then .sbk; absent names the .db to create. */
    char dir[] = "/tmp/hayanagi_rival_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[4096], want[4096];
    assert_int_equal(book_overlay_find(dir, "a b", path, sizeof path), BOOK_OVERLAY_ABSENT);
    snprintf(want, sizeof want, "%s/a%%20b.db", dir);
    assert_string_equal(path, want);
    assert_int_equal(book_overlay_find(dir, "", path, sizeof path), BOOK_OVERLAY_BAD_NAME);
    char sbk[4096];
    snprintf(sbk, sizeof sbk, "%s/a%%20b.sbk", dir);
    fclose(fopen(sbk, "w"));
    assert_int_equal(book_overlay_find(dir, "a b", path, sizeof path), BOOK_OVERLAY_FOUND);
    assert_string_equal(path, sbk);
    fclose(fopen(want, "w"));
    assert_int_equal(book_overlay_find(dir, "a b", path, sizeof path), BOOK_OVERLAY_FOUND);
    assert_string_equal(path, want);
    unlink(sbk);
    unlink(want);
    rmdir(dir);
}

static void name_is(const char *value, const char *want) {
    char out[256];
    if (!want) {
        assert_false(engine_book_opponent_name(value, out, sizeof out));
        return;
    }
    assert_true(engine_book_opponent_name(value, out, sizeof out));
    assert_string_equal(out, want);
}

static void test_opponent_value(void **state) {
    (void)state;
    name_is("none none computer gpsfish", "gpsfish");
    name_is("GM 2800 human Magnus Carlsen", "Magnus Carlsen");
    name_is("none none Computer   Foo  Bar  ", "Foo  Bar");
    name_is("gpsfish", "gpsfish");
    name_is("  spaced name  ", "spaced name");
    name_is("two words", "two words");
    name_is("none none computer", NULL);
    name_is("none none computer   ", NULL);
    name_is("", NULL);
    name_is("   ", NULL);
    name_is("<empty>", NULL);
    char tiny[4];
    assert_false(engine_book_opponent_name("gpsfish", tiny, sizeof tiny));
}

/* ---- the learning rule ---- */

typedef struct {
    char dir[64];
    char main[128], overlay[128], game[128];
} Files;

static void files_init(Files *f) {
    snprintf(f->dir, sizeof f->dir, "/tmp/hayanagi_rival_XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->main, sizeof f->main, "%s/main.db", f->dir);
    snprintf(f->overlay, sizeof f->overlay, "%s/gpsfish.db", f->dir);
    snprintf(f->game, sizeof f->game, "%s/game.csa", f->dir);
}

static void files_free(Files *f) {
    unlink(f->main);
    unlink(f->overlay);
    unlink(f->game);
    rmdir(f->dir);
}

static void write_text(const char *path, const char *text) {
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static char *read_text(const char *path) {
    FILE *fp = fopen(path, "r");
    if (!fp)
        return NULL;
    char *s = calloc(1, 1 << 16);
    size_t n = fread(s, 1, (1 << 16) - 1, fp);
    s[n] = '\0';
    fclose(fp);
    return s;
}

/* The main book: 7g7f at the start; 2g2f (count 5, score 40) and 6g6f (count 3, score 0)
 * after 7g7f 3c3d; a single move (8c8d) for white after 7g7f. */
static const char MAIN_BOOK[] = "#YANEURAOU-DB2016 1.00\n"
                                "sfen " STARTPOS "\n"
                                "7g7f 3c3d 0 32 10\n"
                                "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2\n"
                                "3c3d none 0 32 4\n"
                                "sfen " AFTER_76_34 "\n"
                                "2g2f 8c8d 40 32 5\n"
                                "6g6f none 0 32 3\n";

/* Black hayanagi, white gpsfish, black resigns after 7g7f 3c3d 2g2f 8c8d: our loss. */
static const char WE_LOST[] = "V2.2\nN+hayanagi-1.0\nN-gpsfish\nPI\n+\n+7776FU\n-3334FU\n+2726FU\n-8384FU\n%TORYO\n";
/* The same players; white resigns after 7g7f 3c3d 2g2f 8c8d 2f2e: the opponent's loss. */
static const char THEY_LOST[] =
    "V2.2\nN+hayanagi-1.0\nN-gpsfish\nPI\n+\n+7776FU\n-3334FU\n+2726FU\n-8384FU\n+2625FU\n%TORYO\n";

static void lookup(const char *book_path, const char *sfen, BookMoveList *out) {
    char err[512];
    BookReadOptions ro = {.keep_comments = true};
    Book *b = book_open_read(book_path, NULL, &ro, NULL, err, sizeof err);
    assert_non_null(b);
    Pos p;
    set_pos(&p, sfen);
    book_lookup(b, &p.pos, out);
    book_free(b);
}

static void test_learn_our_loss(void **state) {
    (void)state;
    Files f;
    files_init(&f);
    write_text(f.main, MAIN_BOOK);
    write_text(f.game, WE_LOST);
    /* The overlay exists with a comment on an unrelated position: it must survive. */
    write_text(f.overlay, "#YANEURAOU-DB2016 1.00\nsfen " STARTPOS "\n#kept note\n5g5f none 0 0 1\n");
    RivalLearnOptions o = {.overlay = f.overlay, .main_book = f.main, .player = "hayanagi*"};
    RivalLearnReport r;
    char err[512];
    assert_true(rival_learn_record(&o, f.game, &r, err, sizeof err));
    /* Black's positions: the start (overlay 5g5f + main 7g7f: 7g7f was played, 5g5f is the
     * alternative) and AFTER_76_34 (2g2f played, 6g6f the alternative): the last wins. */
    assert_int_equal(r.games, 1);
    assert_int_equal(r.demoted, 1);
    assert_int_equal(r.already_demoted, 0);
    assert_int_equal(r.imported, 0);
    assert_string_equal(r.demoted_move, "2g2f");
    assert_string_equal(r.demoted_sfen, AFTER_76_34);

    BookMoveList *l = malloc(sizeof *l);
    lookup(f.overlay, AFTER_76_34, l);
    Pos p;
    set_pos(&p, AFTER_76_34);
    assert_int_equal(l->n, 2);
    assert_int_equal(l->moves[0].move, mv(&p.pos, "6g6f"));
    assert_int_equal(l->moves[0].count, 3);
    assert_int_equal(l->moves[1].move, mv(&p.pos, "2g2f"));
    assert_int_equal(l->moves[1].count, 0);
    assert_int_equal(l->moves[1].score, BOOK_SCORE_DEMOTED);
    char *text = read_text(f.overlay);
    assert_non_null(strstr(text, "#kept note"));
    assert_non_null(strstr(text, "rival: 2g2f demoted after a loss to gpsfish"));

    /* The engine's choice there, overlay over main, is now 6g6f whatever the draw; the
     * main book alone plays 2g2f (6g6f is 40 below it: BookEvalDiff 30). */
    char e2[512];
    Book *main = book_open_read(f.main, NULL, NULL, NULL, e2, sizeof e2);
    Book *over = book_open_read(f.overlay, NULL, NULL, NULL, e2, sizeof e2);
    BookSelectOptions so;
    book_select_defaults(&so);
    char b[USI_MOVE_MAX];
    for (uint64_t seed = 1; seed <= 32; seed++) {
        assert_string_equal(choose(over, main, AFTER_76_34, &so, seed, NULL, b), "6g6f");
        assert_string_equal(choose(NULL, main, AFTER_76_34, &so, seed, NULL, b), "2g2f");
    }
    book_free(over);

    /* A second application changes nothing in the file and says the move was demoted. */
    assert_true(rival_learn_record(&o, f.game, &r, err, sizeof err));
    assert_int_equal(r.demoted, 1);
    assert_int_equal(r.already_demoted, 1);
    char *again = read_text(f.overlay);
    assert_string_equal(text, again);
    free(again);
    free(text);

    /* A loss where our book move had no alternative: 2g2f at the start is no book move
     * (the main book has 7g7f alone there): nothing qualifies, the overlay is unchanged. */
    write_text(f.game, "V2.2\nN+hayanagi-1.0\nN-gpsfish\nPI\n+\n+2726FU\n-8384FU\n%TORYO\n");
    text = read_text(f.overlay);
    assert_true(rival_learn_record(&o, f.game, &r, err, sizeof err));
    assert_int_equal(r.demoted, 0);
    assert_int_equal(r.no_alternative, 1);
    again = read_text(f.overlay);
    assert_string_equal(text, again);
    free(again);
    free(text);
    book_free(main);
    free(l);
    files_free(&f);
}

static void test_learn_their_loss(void **state) {
    (void)state;
    Files f;
    files_init(&f);
    write_text(f.main, MAIN_BOOK);
    write_text(f.game, THEY_LOST);
    unlink(f.overlay); /* created */
    RivalLearnOptions o = {.overlay = f.overlay, .main_book = f.main, .player = "hayanagi*"};
    RivalLearnReport r;
    char err[512];
    assert_true(rival_learn_record(&o, f.game, &r, err, sizeof err));
    assert_int_equal(r.imported, 1);
    assert_int_equal(r.positions_imported, 3); /* black to move at plies 1, 3, 5 */
    assert_int_equal(r.demoted, 0);
    BookMoveList *l = malloc(sizeof *l);
    Pos p;
    set_pos(&p, AFTER_76_34);
    lookup(f.overlay, AFTER_76_34, l);
    assert_int_equal(l->n, 1);
    assert_int_equal(l->moves[0].move, mv(&p.pos, "2g2f"));
    set_pos(&p, STARTPOS);
    lookup(f.overlay, STARTPOS, l);
    assert_int_equal(l->n, 1);
    assert_int_equal(l->moves[0].move, mv(&p.pos, "7g7f"));
    /* Again: the winner's counts grow by one, nothing else. */
    assert_true(rival_learn_record(&o, f.game, &r, err, sizeof err));
    assert_int_equal(r.imported, 1);
    lookup(f.overlay, STARTPOS, l);
    assert_int_equal(l->n, 1);
    assert_int_equal(l->moves[0].count, 2);

    /* A draw and a game between two others change nothing; without a player pattern but
     * with the opponent named, its loss to anyone is imported. */
    char *before = read_text(f.overlay);
    write_text(f.game, "V2.2\nN+hayanagi-1.0\nN-gpsfish\nPI\n+\n+7776FU\n-3334FU\n%HIKIWAKE\n/\n"
                       "V2.2\nN+someone\nN-else\nPI\n+\n+7776FU\n-3334FU\n%TORYO\n");
    assert_true(rival_learn_record(&o, f.game, &r, err, sizeof err));
    assert_int_equal(r.games, 2);
    assert_int_equal(r.draws, 1);
    assert_int_equal(r.skipped, 1);
    char *after = read_text(f.overlay);
    assert_string_equal(before, after);
    free(before);
    free(after);
    write_text(f.game, "V2.2\nN+someone\nN-gpsfish\nPI\n+\n+5756FU\n-3334FU\n+2726FU\n-8384FU\n%TORYO\n");
    RivalLearnOptions theirs = {.overlay = f.overlay, .opponent = "gpsfish"};
    assert_true(rival_learn_record(&theirs, f.game, &r, err, sizeof err));
    assert_int_equal(r.imported, 0); /* gpsfish won that one (black resigned) */
    assert_int_equal(r.skipped, 1);

    /* A login holding glob characters matches itself exactly. */
    write_text(f.game, "V2.2\nN+hay[1]\nN-gpsfish\nPI\n+\n+7776FU\n-3334FU\n+2726FU\n%TORYO\n");
    RivalLearnOptions glob = {.overlay = f.overlay, .player = "hay[1]"};
    assert_true(rival_learn_record(&glob, f.game, &r, err, sizeof err));
    assert_int_equal(r.imported, 1);

    /* Errors: no pattern and no opponent; an unreadable record; an output we cannot write. */
    RivalLearnOptions none = {.overlay = f.overlay};
    assert_false(rival_learn_record(&none, f.game, &r, err, sizeof err));
    assert_false(rival_learn_record(&o, "/nonexistent/x.csa", &r, err, sizeof err));
    RivalLearnOptions ybb = {.overlay = "/tmp/x.ybb", .player = "h*"};
    assert_false(rival_learn_record(&ybb, f.game, &r, err, sizeof err));
    RivalLearnOptions sbk = {.overlay = "/tmp/x.sbk", .player = "h*"};
    assert_false(rival_learn_record(&sbk, f.game, &r, err, sizeof err));
    assert_non_null(strstr(err, "SBK cannot carry a demoted score"));
    free(l);
    files_free(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overlay_order),    cmocka_unit_test(test_name_mapping),
        cmocka_unit_test(test_opponent_value),   cmocka_unit_test(test_learn_our_loss),
        cmocka_unit_test(test_learn_their_loss),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
