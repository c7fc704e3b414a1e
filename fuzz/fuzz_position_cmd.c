/* fuzz_position_cmd.c - libFuzzer target for the arguments of the USI `position` command.
 *
 * game_set_from_usi either fails, leaving the game exactly as it was and saying why, or
 * succeeds with a consistent game whose moves all take back to its root. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "shogi/game.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    shogi_init();
    char *args = malloc(size + 1);
    if (!args)
        return 0;
    memcpy(args, data, size);
    args[size] = '\0';

    Game g;
    game_init(&g);
    char err[256];
    /* A game in progress, so that "left untouched" means something. */
    FUZZ_CHECK(game_set_from_usi(&g, "startpos moves 7g7f 3c3d 8h2b+", err, sizeof err));
    char before[SFEN_MAX], after[SFEN_MAX], root[SFEN_MAX];
    position_to_sfen(&g.pos, before, true);
    strcpy(root, g.root_sfen);
    Key key = position_key(&g.pos);

    err[0] = '\0';
    if (!game_set_from_usi(&g, args, err, sizeof err)) {
        FUZZ_CHECK(strncmp(err, "position: ", 10) == 0);
        FUZZ_CHECK(g.count == 3 && position_key(&g.pos) == key && strcmp(g.root_sfen, root) == 0);
        FUZZ_CHECK(strcmp(position_to_sfen(&g.pos, after, true), before) == 0);
        FUZZ_CHECK(position_is_consistent(&g.pos));
    } else {
        FUZZ_CHECK(position_is_consistent(&g.pos));
        /* The current SFEN parses, and undoing every move reaches the root. */
        Position pos;
        StateInfo st;
        position_to_sfen(&g.pos, after, true);
        /* The command accepts tsume positions with one king missing, so re-read the same way. */
        FUZZ_CHECK(position_from_sfen_ex(&pos, &st, after, SFEN_ALLOW_MISSING_KING, NULL, 0));
        FUZZ_CHECK(position_key(&pos) == position_key(&g.pos));
        while (g.count > 0) {
            FUZZ_CHECK(game_pop(&g));
            FUZZ_CHECK(position_is_consistent(&g.pos));
        }
        FUZZ_CHECK(strcmp(position_to_sfen(&g.pos, after, true), g.root_sfen) == 0);
    }
    game_free(&g);
    free(args);
    return 0;
}
