/* reader.h - game records in, one game at a time: CSA (v2.2 / v3.0), KIF, KI2 and USI
 * ("position startpos moves ..." lines, .sfen lists).
 *
 * Streaming. A file is read line by line through a fixed buffer; every finished game is
 * handed to the caller's callback (root SFEN, the moves played, result, names, ratings)
 * and forgotten, so a file of a million games needs the memory of one.
 *
 * Text encodings. UTF-8 (with or without BOM) is used as is; otherwise a sample of the
 * file decides between Shift_JIS (CP932) and EUC-JP, or an "encoding=" header says it,
 * and every line is converted to UTF-8 with iconv. Bytes that do not convert become "?".
 * UTF-16 text (a byte order mark, or every other byte zero) is refused with a fatal error
 * that names it.
 *
 * Errors. A fatal error (cannot open or read the file) makes the function return false
 * with the reason in err. A bad record (a move that does not parse or is illegal, a bad
 * initial position) is reported through on_error as file:line: reason, counted, and
 * skipped; the reader goes on with the next game (for KIF/KI2, the next variation).
 */
#ifndef HAYANAGI_RECORD_READER_H
#define HAYANAGI_RECORD_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/time_control.h"
#include "shogi/position.h"
#include "util/progress.h"

typedef enum { REC_FMT_AUTO, REC_FMT_CSA, REC_FMT_KIF, REC_FMT_KI2, REC_FMT_USI } RecordFormat;

typedef enum { REC_RESULT_UNKNOWN, REC_BLACK_WIN, REC_WHITE_WIN, REC_DRAW } RecordResult;

enum { REC_NAME_MAX = 128, REC_EVENT_MAX = 160, REC_NO_RATING = INT32_MIN, REC_NO_SCORE = INT32_MIN };

/* One game as the callback sees it. Everything points into the reader and is valid only
 * during the callback. */
typedef struct {
    const char *file;
    uint64_t line;         /* where the game (or variation) starts */
    const char *root_sfen; /* the position before the first move, with its move number */
    const Move *moves;     /* legal moves from the root, in order */
    int n_moves;
    RecordResult result;
    const char *end;   /* the end marker as written ("TORYO", "投了", ...), "" when none */
    const char *black; /* player names, "" when unknown (KIF 下手/上手 map to black/white) */
    const char *white;
    /* the event (title) the record names: CSA "$EVENT:", KIF/KI2 "棋戦："; "" when none (USI
     * lists have none). Trimmed; cut to REC_EVENT_MAX - 1 bytes. */
    const char *event;
    int32_t black_rating; /* REC_NO_RATING when the record has none (floodgate "'black_rate:") */
    int32_t white_rating;
    /* each side's time control (by colour), as CSA V3.0's "$TIME:" and "$TIME+:" / "$TIME-:"
     * state it (record/time_control.h); .set false when the record says nothing (always for
     * KIF, KI2 and USI) or the value does not read */
    RecordTimeControl time[COLOR_NB];
    int variation; /* 0 for the main line, 1, 2, ... for KIF/KI2 variations (変化) */
    /* scores[i]: the evaluation a comment after moves[i] gives, in centipawns from black's
     * view (see record_comment_score()), REC_NO_SCORE when there is none; NULL when the
     * format carries no comments (USI) */
    const int32_t *scores;
} RecordGame;

/* Returns false to stop reading (the read then returns true: stopping is not an error). */
typedef bool (*RecordGameFn)(void *ctx, const RecordGame *g);
typedef void (*RecordErrorFn)(void *ctx, const char *file, uint64_t line, const char *reason);

typedef struct {
    RecordGameFn on_game;   /* may be NULL (count and check only) */
    RecordErrorFn on_error; /* may be NULL */
    void *ctx;
    bool variations;        /* also report KIF/KI2 variations (off: main lines only) */
    Progress *progress;     /* may be NULL; updated with progress_base + the bytes read */
    uint64_t progress_base; /* bytes of earlier files, for one bar over several files */
} RecordReadOptions;

typedef struct {
    uint64_t games;  /* games (and variations) reported */
    uint64_t moves;  /* moves in them */
    uint64_t errors; /* bad records skipped */
    uint64_t bytes;  /* bytes read */
} RecordStats;

/* The format a path's extension names (.csa, .kif/.kifu, .ki2/.ki2u, .sfen/.usi), else
 * REC_FMT_AUTO. */
RecordFormat record_format_from_path(const char *path);

/* The format the text looks like (CSA, KIF, KI2 or USI); REC_FMT_AUTO when unknown. */
RecordFormat record_format_sniff(const char *data, size_t len);

/* Reads every game of the file at path. fmt REC_FMT_AUTO picks by extension, then by
 * content. stats (may be NULL) is added to, not reset. */
bool record_read_file(const char *path, RecordFormat fmt, const RecordReadOptions *opt, RecordStats *stats, char *err,
                      size_t err_len);

/* The same over len bytes of memory; name is used in messages. */
bool record_read_memory(const char *name, const char *data, size_t len, RecordFormat fmt, const RecordReadOptions *opt,
                        RecordStats *stats, char *err, size_t err_len);

const char *record_result_name(RecordResult r);

/* The evaluation a record comment carries, text being the comment without the record's
 * own marker (CSA "'*", KIF/KI2 "*"). Recognised, as ShogiHome reads them
 * (src/renderer/store/record.ts: restoreCustomData):
 *   "* <score> [pv]"  floodgate's engine comment (CSA "'** <score> <pv>"),
 *   "*評価値=<score>"  the player's evaluation as ShogiHome writes it,
 *   "#評価値=<score>"  ShogiHome's analysis (research) evaluation,
 *   "*詰み=先手勝ち[:N手]", "#詰み=後手勝ち[:N手]"  a mate found (black / white wins).
 * All of them are from black's view (ShogiHome: "先手から見た評価値"; floodgate's lines
 * of both engines turn negative together when white wins). Returns true and the score,
 * clamped to +-32000 (a mate in N is +-(32000 - N), +-32000 without N), or false. */
bool record_comment_score(const char *text, int32_t *black_view);

#endif
