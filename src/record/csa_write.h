/* csa_write.h - the CSA writer, beside the CSA reader (csa.c, reader.h): one played
 * game as the match runner keeps it (root position, moves, move times, how it ended)
 * and its CSA v2.2 text.
 *
 * CSA facts used (CSA standard record format V2.2, checked against the files in
 * ../shared/refdata/csa/): a first line "V2.2"; "N+" / "N-" names; "$EVENT:",
 * "$START_TIME:YYYY/MM/DD HH:MM:SS", "$END_TIME:"; the start position as "PI" for the
 * standard one, else nine "P1".."P9" rows (files 9..1, " * " for empty) plus "P+" / "P-"
 * hand lines of "00XX" entries, then "+" or "-" for the side to move; moves such as
 * "+7776FU" (from-square, to-square, the piece AFTER the move, so a promotion writes the
 * promoted name and a drop has from-square 00); "T<seconds>" after each move; comments
 * start with "'"; the game ends with a "%" word; games in one file are separated by a
 * line holding only "/" (the version line is written once, at the top).
 *
 * Ownership: a GameRecord owns its move, time and score arrays (game_record_free()).
 */
#ifndef HAYANAGI_RECORD_CSA_WRITE_H
#define HAYANAGI_RECORD_CSA_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "record/time_control.h"
#include "shogi/position.h"

/* Why a game ended. */
typedef enum {
    END_NONE,              /* not finished (interrupted): not counted */
    END_RESIGN,            /* `bestmove resign` */
    END_MATE,              /* the side to move has no legal move */
    END_REPETITION,        /* fourfold repetition: draw */
    END_PERPETUAL_CHECK,   /* fourfold repetition by perpetual check: the checker loses */
    END_DECLARATION,       /* a correct `bestmove win` (or, under TryRule, the try) */
    END_FALSE_DECLARATION, /* `bestmove win` when the rule's conditions do not hold */
    END_MAX_MOVES,         /* the move limit: draw */
    END_TIME,              /* over the time limit (or no answer in nodes mode) */
    END_ILLEGAL,           /* an illegal or malformed move */
    END_CRASH,             /* the engine died or stopped answering the protocol */
    END_NB
} GameEnd;

typedef enum { OUTCOME_NONE, OUTCOME_BLACK_WINS, OUTCOME_WHITE_WINS, OUTCOME_DRAW } GameOutcome;

enum { RECORD_NAME_MAX = 128, RECORD_NO_SCORE = INT32_MIN, CSA_MOVE_MAX = 8 };

typedef struct {
    char black[RECORD_NAME_MAX], white[RECORD_NAME_MAX];
    char event[160];        /* "$EVENT:" text; may be empty */
    char time_control[128]; /* written as a comment; may be empty */
    /* each side's clock (by colour), written as CSA V3.0's "$TIME:" when the sides' are the
     * same, else "$TIME+:" / "$TIME-:" for each side that has one (record/time_control.h);
     * nothing for a side without (.set false: a side on fixed nodes) */
    RecordTimeControl clock[COLOR_NB];
    time_t start_time, end_time;
    char root_sfen[SFEN_MAX]; /* the position before the first move */
    Move *moves;              /* every move, opening moves first */
    int32_t *ms;              /* thinking time per move, -1 for opening moves */
    int32_t *score;           /* last reported score, centipawns from black's side, or RECORD_NO_SCORE */
    int n_moves, n_opening, capacity;
    GameEnd end;
    GameOutcome outcome;
    char detail[160]; /* e.g. the illegal move text; written as a comment */
} GameRecord;

void game_record_init(GameRecord *r);
void game_record_free(GameRecord *r);
/* Appends a move; returns false when memory runs out. */
bool game_record_push(GameRecord *r, Move m, int32_t ms, int32_t score);

/* The CSA piece names by PieceType ("FU" .. "RY"; "OU" for KING). */
const char *csa_piece_name(PieceType pt);

/* Writes the CSA text of m, legal in pos, into buf (CSA_MOVE_MAX bytes), e.g. "+7776FU",
 * "-0055KA", "+2822RY". The piece written is read from pos (the piece on the origin
 * square, promoted when m promotes; the dropped type for a drop). Returns buf. */
char *csa_move(const Position *pos, Move m, char *buf);

/* Reads CSA move text t (n bytes, at least the 7 of "+7776FU"; what follows is ignored)
 * as a move legal in pos: the sign must be the side to move's, the piece named is the one
 * after the move (so "+2822RY" from a rook promotes), a drop has from-square 00. Returns
 * the move, or MOVE_NONE with a static reason in *why ("malformed move", "illegal move",
 * ...). The one reader of a CSA move, for records (csa.c) and the CSA client. */
Move csa_move_parse(const Position *pos, const char *t, size_t n, const char **why);

/* The "%" word that ends a game, as documented in docs/match.md. loser is the colour
 * that lost (ignored for draws), side_to_move the side to move at the end of the
 * recorded moves (an illegal move or a move after the time limit is not recorded):
 * %TORYO (resignation), %TSUMI (mate, and the TryRule king move), %SENNICHITE,
 * %+ILLEGAL_ACTION / %-ILLEGAL_ACTION (perpetual check, sign of the checker; an engine
 * that died while not to move), %KACHI (a correct declaration), %ILLEGAL_MOVE (an
 * illegal move or a false declaration), %JISHOGI (the move limit), %TIME_UP, and
 * %CHUDAN (interrupted). */
const char *csa_end_marker(GameEnd end, Color loser, Color side_to_move);

/* Formats games[0..n) as one CSA v2.2 file ("V2.2", the games separated by "/" lines);
 * where raw (may be NULL) has raw[i], that text is written for game i as it is (a game's
 * text as this function wrote it before, "\n"-terminated: `match --resume` keeps the games
 * it reads back so). Returns a malloc'd NUL-terminated text (caller frees) and its length
 * in *len, or NULL when memory runs out or a record does not replay (reason in err). */
char *csa_format_games(const GameRecord *games, const char *const *raw, int n, size_t *len, char *err, size_t err_len);

/* csa_format_games() written to path atomically (util/atomic_file.h: what sits at path
 * decides, docs/book_making.md "Output files"). Returns false with the reason in err; the
 * old file is then untouched. The one way every command writes a record file (match --out,
 * book grow, the CSA client). */
bool csa_write_games_file(const char *path, const GameRecord *games, const char *const *raw, int n, char *err,
                          size_t err_len);

/* The end a 'summary comment's word names ("toryo", "time up", ...; len bytes, as
 * csa_format_games() writes them); END_NONE for "chudan" or an unknown word. */
GameEnd csa_summary_end(const char *word, size_t len);

#endif
