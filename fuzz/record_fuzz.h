/* record_fuzz.h - the checks shared by the record-reader fuzz targets (fuzz_csa.c,
 * fuzz_kif.c): beyond "no crash", every game handed out replays legally from its root,
 * reported errors come with a line inside the input, and a fatal error always has a
 * message, and book learn (bookgen/learn.h) over the games chooses only legal moves.
 * Header-only, fuzz use only. */
#ifndef HAYANAGI_FUZZ_RECORD_FUZZ_H
#define HAYANAGI_FUZZ_RECORD_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bookgen/learn.h"
#include "fuzz_check.h"
#include "record/reader.h"
#include "shogi/game.h"

typedef struct {
    uint64_t lines;
    BookLearn *learn;
} Ctx;

static bool on_game(void *ctx, const RecordGame *g) {
    Ctx *c = ctx;
    FUZZ_CHECK(book_learn_add_game(c->learn, g));
    Game game;
    game_init(&game);
    FUZZ_CHECK(game_set_sfen_ex(&game, g->root_sfen, SFEN_ALLOW_MISSING_KING, NULL, 0));
    for (int i = 0; i < g->n_moves; i++) {
        FUZZ_CHECK(position_legal_move_from16(&game.pos, (Move16)g->moves[i]) != MOVE_NONE);
        FUZZ_CHECK(game_push(&game, g->moves[i]));
    }
    game_free(&game);
    return true;
}

static void on_error(void *ctx, const char *file, uint64_t line, const char *reason) {
    const Ctx *c = ctx;
    (void)file;
    FUZZ_CHECK(line != 0 && line <= c->lines + 1 && reason[0]);
}

/* Reads data (after its first byte, which the caller used to choose) as fmt. */
static inline int record_fuzz_one(const uint8_t *data, size_t size, RecordFormat fmt, bool variations) {
    shogi_init();
    if (size < 1)
        return 0;
    BookLearnOptions lo = {.player = "*", .max_ply = 8, .min_games = 1, .prior = 1};
    Ctx c = {1, book_learn_create(&lo)};
    FUZZ_CHECK(c.learn);
    for (size_t i = 1; i < size; i++)
        c.lines += data[i] == '\n';
    RecordReadOptions o = {.on_game = on_game, .on_error = on_error, .ctx = &c, .variations = variations};
    char err[256] = "";
    FUZZ_CHECK(record_read_memory("fuzz", (const char *)data + 1, size - 1, fmt, &o, NULL, err, sizeof err) || err[0]);
    BookLearnStats st;
    Book *b = book_learn_finish(c.learn, &st);
    FUZZ_CHECK(b && st.chosen == book_position_count(b) && st.chosen <= st.positions);
    BookMoveList list;
    for (uint32_t id = 0; id < book_position_count(b); id++) {
        BookKey key;
        Position pos;
        StateInfo si;
        book_position_key(b, id, &key);
        FUZZ_CHECK(book_key_to_position(&key, &pos, &si, 1));
        FUZZ_CHECK(book_position_moves(b, id, &list) == 1);
        FUZZ_CHECK(position_legal_move_from16(&pos, list.moves[0].move) != MOVE_NONE);
    }
    book_free(b);
    book_learn_free(c.learn);
    return 0;
}

#endif
