/* rival.h - learning an opponent's overlay book from games against it (docs/book_making.md,
 * "Rival overlays"). An overlay is an ordinary book the engine lays over its main book
 * for the games against one opponent (book/select.h, "Opponent overlays"; its file by
 * book/overlay.h). After each game, or before a round over the opponent's own records:
 *
 *   - the opponent lost: its losing line is imported into the overlay by
 *     book_import_loss() (bookgen/make.h, `book import-losses`): at every position where
 *     the winner was to move, the winner's move becomes the overlay's first choice, so
 *     the same line is answered the same way next time;
 *   - we lost: at the last position of the game where we were to move, our move was a
 *     candidate of the book (the overlay's candidates, then the main book's others, as the
 *     engine sees them: book_probe_overlay() with the default options) and the book had
 *     another candidate that is not demoted, the overlay's entry for that position becomes
 *     the whole candidate list with our move demoted: the other candidates first, as the
 *     book gave them (move, ponder, score, depth, count), then our move with count 0, no
 *     ponder and score BOOK_SCORE_DEMOTED. The engine never chooses a demoted overlay
 *     move; any other DB2016 reader sees it last by count and 32000 below the rest. A
 *     position comment records it. When no position qualifies, nothing changes;
 *   - a draw, an unknown result, or a game that is not between the two players: nothing.
 *
 * Applying the same game again is harmless: a loss demotes the same move at the same
 * position again (the comment is not repeated); an import adds one to the winner's
 * counts.
 *
 * Who is who: "we" are the side whose name matches the player pattern (fnmatch(3), as
 * `book learn --player`, or equals it, for logins holding glob characters); the opponent is the side of the exact name
 * given, or, without one, the other side of a game we played. A game where both or neither side matches the pattern has
 * no "we"; with an opponent named, its losses to anyone are imported (its own records before a round), and a game we
 * lost counts only when it was against it.
 */
#ifndef HAYANAGI_BOOKGEN_RIVAL_H
#define HAYANAGI_BOOKGEN_RIVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/reader.h"
#include "shogi/position.h"

typedef struct {
    const char *overlay;   /* the overlay's path: read when it exists (any format), created
                              when missing, written as DB2016 (a .sbk name is refused: SBK
                              cannot carry the demoted score) */
    const char *main_book; /* the engine's main book (any format), NULL: none */
    const char *player;    /* fnmatch(3) pattern on our player names; NULL: none (then only
                              the named opponent's losses are imported) */
    const char *opponent;  /* the opponent's exact name; NULL: the other side of our games.
                              One of player and opponent is required */
    int max_ply;           /* only positions before game plies 1..max_ply; 0 = all */
} RivalLearnOptions;

typedef struct {
    uint64_t games;              /* games seen */
    uint64_t skipped;            /* not between us and the opponent, or whose loser is neither */
    uint64_t draws;              /* draws and unknown results: nothing learned */
    uint64_t imported;           /* opponent losses imported */
    uint64_t positions_imported; /* winner-to-move positions rewritten by them */
    uint64_t demoted;            /* our losses that demoted a move */
    uint64_t already_demoted;    /* of them, where that move was demoted before */
    uint64_t no_alternative;     /* our losses where no position qualified */
    /* The last demotion (demoted > 0): the position (SFEN with its move number), the
     * demoted move (USI) and the game it came from. */
    char demoted_sfen[SFEN_MAX];
    char demoted_move[8];
    char demoted_file[512];
    uint64_t demoted_line;
} RivalLearnReport;

typedef struct RivalLearn RivalLearn;

/* Reads the overlay (comments kept; an empty book when the file does not exist) and opens
 * the main book for lookups. o is copied; its strings must outlive the learner. Returns
 * the learner (the caller frees it with rival_learn_close()) or NULL with the reason in
 * err: neither a player pattern nor an opponent, an overlay name that is not DB2016's, an unreadable overlay or main
 * book, no memory. */
RivalLearn *rival_learn_open(const RivalLearnOptions *o, char *err, size_t err_len);

/* Applies one game by the rule above. Returns false only when memory runs out. */
bool rival_learn_add_game(RivalLearn *l, const RecordGame *g);

/* Writes the overlay atomically (util/atomic_file.h through book_write(); comments kept),
 * even when nothing changed, so that it exists afterwards. Returns false with the reason
 * in err; the old file is then untouched. */
bool rival_learn_commit(RivalLearn *l, char *err, size_t err_len);

/* What has been learned so far; owned by l. */
const RivalLearnReport *rival_learn_report(const RivalLearn *l);

void rival_learn_close(RivalLearn *l);

/* The whole rule for one record file (CSA, KIF, ... as record/reader.h reads it; every game
 * in it): open, add each game, commit, close. This is what a client calls after each game
 * with the game's record. *rep (may be NULL) gets the report. Returns false with the
 * reason in err when the overlay, the main book or the record cannot be read, or the
 * overlay cannot be written (then it is untouched); bad records inside the file are
 * skipped, not errors. */
bool rival_learn_record(const RivalLearnOptions *o, const char *record_path, RivalLearnReport *rep, char *err,
                        size_t err_len);

#endif
