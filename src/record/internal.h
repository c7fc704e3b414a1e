/* internal.h - what the record readers share: the line source (with encoding
 * conversion), the game under construction, and small text helpers. Not public. */
#ifndef HAYANAGI_RECORD_INTERNAL_H
#define HAYANAGI_RECORD_INTERNAL_H

#include <iconv.h>
#include <stdio.h>

#include "record/reader.h"
#include "shogi/game.h"

typedef struct {
    const char *name;
    FILE *f;         /* NULL: memory */
    const char *mem; /* memory input */
    size_t mem_len, mem_pos;
    iconv_t cd; /* (iconv_t)-1: no conversion */
    char *raw;
    size_t raw_cap;
    char *line; /* the current line, UTF-8, NUL-terminated, no CR/LF */
    size_t len, line_cap;
    uint64_t lineno;
    uint64_t bytes;
    Progress *progress;
    uint64_t progress_base;
} LineSrc;

/* Returns false at the end of the input (or when memory runs out: *oom set). */
bool ls_next(LineSrc *s, bool *oom);

typedef struct {
    const char *file;
    const RecordReadOptions *opt;
    RecordStats *st;
    Game g;
    bool active; /* a root position is set */
    bool bad;    /* an error was reported: the rest of this game is skipped */
    bool stop;   /* the callback asked to stop */
    uint64_t start_line;
    char black[REC_NAME_MAX], white[REC_NAME_MAX];
    char event[REC_EVENT_MAX];
    int32_t black_rating, white_rating;
    /* CSA "$TIME:" (both sides) and "$TIME+:" / "$TIME-:" (one side, which wins) */
    RecordTimeControl time_both, time_side[COLOR_NB];
    RecordResult result;
    char end[48];
    int variation;
    int32_t *scores; /* per move of g, REC_NO_SCORE when none */
    int scores_cap;
    int scores_n; /* moves whose score slot gb_push() set (0 after a reset) */
} GameBuilder;

void gb_init(GameBuilder *b, const char *file, const RecordReadOptions *opt, RecordStats *st);
void gb_free(GameBuilder *b);
/* Reports a bad record at line and marks the game bad. */
void gb_error(GameBuilder *b, uint64_t line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Sets the root; false (reported) when the SFEN is refused. */
bool gb_set_root(GameBuilder *b, const char *sfen, uint64_t line);
/* Hands the game to the callback unless it is bad or has no root. */
void gb_emit(GameBuilder *b);
/* Plays legal move m (game_push) and clears its score; false when memory runs out. */
bool gb_push(GameBuilder *b, Move m);
/* A comment (without the record's marker) after the last move: keeps its score, if any. */
void gb_comment(GameBuilder *b, const char *text);
/* Forgets moves, result and the root (names and event stay unless clear_names). */
void gb_reset(GameBuilder *b, bool clear_names);

/* Copies at most cap-1 bytes of s (len bytes) into dst, trimming spaces. */
void rec_copy_trim(char *dst, size_t cap, const char *s, size_t len);

/* The SFEN of a board (board[sq], sq as in types.h) with hands[c][pt] and side. */
void rec_make_sfen(const Piece board[SQ_NB], int hands[COLOR_NB][8], Color side, int ply, char *out);

bool csa_read(LineSrc *src, GameBuilder *b);
bool kif_read(LineSrc *src, GameBuilder *b, bool ki2);
bool usi_read(LineSrc *src, GameBuilder *b);

#endif
