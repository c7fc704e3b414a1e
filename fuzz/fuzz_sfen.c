/* fuzz_sfen.c - libFuzzer target for the SFEN parser and writer.
 *
 * Whatever the bytes, position_from_sfen (strict, then in the tsume mode that allows
 * one missing king) must either refuse them with a "column N:" reason or build a
 * consistent position whose canonical SFEN parses back to itself.
 * Positions that also pass the legality report get their legal moves generated,
 * validated and played, since a parser that lets something odd through is most likely
 * to hurt the move generator. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "shogi/movegen.h"

static void check_moves(Position *pos) {
    ExtMove list[MAX_MOVES];
    int n = generate_moves(pos, GEN_LEGAL, list);
    FUZZ_CHECK(n >= 0 && n <= MAX_MOVES);
    FUZZ_CHECK(position_has_legal_move(pos) == (n > 0));
    Key key = position_key(pos);
    for (int i = 0; i < n; i++) {
        Move m = list[i].move;
        FUZZ_CHECK(position_legal_move_from16(pos, move_to_move16(m)) == m);
        bool gives = position_gives_check(pos, m);
        StateInfo st;
        position_do_move(pos, m, &st);
        FUZZ_CHECK(position_is_consistent(pos));
        FUZZ_CHECK(gives == position_in_check(pos));
        position_undo_move(pos, m);
        FUZZ_CHECK(position_key(pos) == key);
    }
}

/* Everything a parsed position must satisfy; flags are the ones it was parsed with. */
static void check_position(Position *pos, int flags) {
    FUZZ_CHECK(position_is_consistent(pos));
    char sfen[SFEN_MAX + 1], again[SFEN_MAX + 1], err[128], legal_err[128];
    sfen[SFEN_MAX] = again[SFEN_MAX] = '\0';
    position_to_sfen(pos, sfen, true);
    FUZZ_CHECK(strlen(sfen) < SFEN_MAX);
    bool legal = position_legality_report(pos, legal_err, sizeof legal_err);

    /* The canonical text is a fixed point, with and without the move number. */
    Position pos2;
    StateInfo st2;
    FUZZ_CHECK(position_from_sfen_ex(&pos2, &st2, sfen, flags, err, sizeof err));
    FUZZ_CHECK(strcmp(position_to_sfen(&pos2, again, true), sfen) == 0);
    FUZZ_CHECK(position_key(&pos2) == position_key(pos));
    FUZZ_CHECK(position_legality_report(&pos2, legal_err, sizeof legal_err) == legal);
    position_to_sfen(pos, sfen, false);
    FUZZ_CHECK(position_from_sfen_ex(&pos2, &st2, sfen, flags, err, sizeof err));
    FUZZ_CHECK(strcmp(position_to_sfen(&pos2, again, false), sfen) == 0);

    if (legal)
        check_moves(pos);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    shogi_init();
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    /* Strict first; what the strict parser accepts the tsume mode must accept identically. */
    Position pos, lenient;
    StateInfo st, st_lenient;
    char err[128];
    memset(err, 0x55, sizeof err);
    int flags = 0;
    if (position_from_sfen(&pos, &st, text, err, sizeof err)) {
        FUZZ_CHECK(position_from_sfen_ex(&lenient, &st_lenient, text, SFEN_ALLOW_MISSING_KING, err, sizeof err));
        FUZZ_CHECK(position_key(&lenient) == position_key(&pos));
    } else {
        FUZZ_CHECK(memchr(err, '\0', sizeof err) != NULL);
        FUZZ_CHECK(strncmp(err, "column ", 7) == 0);
        flags = SFEN_ALLOW_MISSING_KING;
        if (!position_from_sfen_ex(&pos, &st, text, flags, err, sizeof err)) {
            FUZZ_CHECK(strncmp(err, "column ", 7) == 0);
            free(text);
            return 0;
        }
        FUZZ_CHECK(pos.king_sq[BLACK] == SQ_NONE || pos.king_sq[WHITE] == SQ_NONE);
    }
    check_position(&pos, flags);
    free(text);
    return 0;
}
