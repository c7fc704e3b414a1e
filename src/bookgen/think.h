/* think.h - `book think`: grow a book with a searcher (bookgen/searcher.h): Hayanagi's
 * own search in this process, or a pool of external USI engines (engine_pool.h).
 *
 * Targets (think_targets.c), computed on the book as given, before anything of an
 * earlier run's journal is merged (so a resumed run thinks the very positions an
 * uninterrupted one would):
 *  - by default the positions of the book with fewer than multipv legal candidate moves
 *    (illegal book moves do not count) and the leaves (positions a legal book move leads
 *    to that the book does not hold), skipping positions without a legal move;
 *  - with frontier THINK_FRONTIER_REPLIES, the same and also every position one legal move
 *    (listed or not) from a book position that the book lacks, up to max_ply (which the
 *    caller must set: the children of a book are some 80 times its size): the answers to
 *    every move an opponent may play, one ply out of the book;
 *  - with frontier THINK_FRONTIER_EVAL_WINDOW, only within the tree reached from the
 *    root (or each start) following the frontier side's best moves and every move of
 *    the other side within eval_diff centipawns of its best (YaneuraOu's peta_next idea);
 *  - with frontier THINK_FRONTIER_LINE_REPLIES, that tree, and at the other side's
 *    positions in it every position one legal move away that the book lacks, up to
 *    max_ply: the replies frontier on the lines the frontier side plays, so that an
 *    opponent's deviations from them are answered without covering every book position;
 *  - with frontier THINK_FRONTIER_PREDICTED, the lines the frontier side plays followed
 *    past the book: at the frontier side's positions its best book moves; at the other
 *    side's positions its listed moves within eval_diff and, in the book or not, every move
 *    into a position the book holds (a replies layer's answers), and the
 *    predict moves Hayanagi's own search ranks first there (MultiPV predict, to depth
 *    predict_depth, one thread a position, the hash cleared: the same moves on every run;
 *    threads positions at a time; with a file of predictions those it holds are not
 *    searched again), or up to SFEN move all_replies_to every legal move instead of the
 *    predicted ones; every position
 *    of the frontier side on those lines that the book lacks is a target, up to max_ply.
 *    Only the frontier side's positions are targets: a prediction is never stored, since
 *    the book plays both colours and would play it. Each run answers one more level;
 *  - with rethink conditions, also the book positions whose provenance matches one;
 *  - with only_keys, exactly those positions.
 * Scope. With start positions given (starts, e.g. from `--startmoves` lines), only the
 * subtree below them is considered.
 *
 * Each target is analysed (searcher_analyse) and its candidates are added with score,
 * depth and the PV's reply as ponder, plus a provenance line as the position's comment:
 * "think engine=NAME; budget=nodes 100000; depth=D; nodes=N; date=YYYY-MM-DDTHH:MM:SSZ".
 *
 * Faults. A slot whose engine fails puts its position back in the queue (and takes new
 * work itself, so the position goes to another engine); a position that THINK_POSITION_FAILS
 * failures hit is skipped; when every slot is retired before the queue is empty,
 * book_think fails naming the engines and why.
 *
 * Checkpoints. Every finished position is appended to the journal (think_journal.h: DB2016
 * lines with the provenance as a "#" comment and a checksummed end line, fsync'ed) before
 * the next is taken, so a kill loses only the positions in flight. The journal is locked
 * for the run, and its header binds it to the book as given and to the options: on start
 * an existing journal of another input or other options is refused; otherwise its whole,
 * valid entries count as done and their moves are added, and cut or invalid ones are
 * reported and searched again. The caller writes the output and removes the journal at the
 * end.
 */
#ifndef HAYANAGI_BOOKGEN_THINK_H
#define HAYANAGI_BOOKGEN_THINK_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "book/book.h"
#include "bookgen/searcher.h"
#include "bookgen/think_journal.h"
#include "bookgen/think_provenance.h"
#include "util/progress.h"

typedef enum {
    THINK_FRONTIER_LEAVES,
    THINK_FRONTIER_EVAL_WINDOW,
    THINK_FRONTIER_REPLIES,
    THINK_FRONTIER_LINE_REPLIES,
    THINK_FRONTIER_PREDICTED,
    THINK_FRONTIER_COUNT /* the number of frontiers, not one */
} ThinkFrontier;

/* Which side the eval-window frontier follows by its best moves (the other side gets the
 * window); BLACK and WHITE are the Color values. */
typedef enum {
    THINK_SIDE_ROOT = -1, /* the side to move at the root */
    THINK_SIDE_BLACK = 0,
    THINK_SIDE_WHITE = 1,
    THINK_SIDE_BOTH = 2 /* both sides take the window */
} ThinkFrontierSide;

/* The fields and operators of a --rethink-if condition, in the order they are matched
 * when parsed (the two-character operators before their one-character prefixes). */
typedef enum { THINK_FIELD_ENGINE, THINK_FIELD_DEPTH, THINK_FIELD_NODES, THINK_FIELD_DATE } ThinkRethinkField;
typedef enum { THINK_OP_NE, THINK_OP_LE, THINK_OP_GE, THINK_OP_EQ, THINK_OP_LT, THINK_OP_GT } ThinkRethinkOp;

/* One --rethink-if condition: FIELD OP VALUE (dates compare as text on VALUE's length). */
typedef struct {
    ThinkRethinkField field;
    ThinkRethinkOp op;
    char value[128];
    uint64_t number; /* depth and nodes: the value as a number */
} ThinkRethink;

typedef struct {
    BookKey key;
    int ply;
} ThinkTarget;

/* The predicted frontier's defaults: moves predicted per position, and their search depth. */
enum { THINK_PREDICT_DEFAULT = 3, THINK_PREDICT_DEPTH_DEFAULT = 10 };

/* Engine failures on one position after which it is skipped (not journaled, so a later
 * run tries it again): a position that crashes every engine must not retire them all. */
enum { THINK_POSITION_FAILS = 3 };

typedef struct {
    int depth; /* search limits: one of them (0 = unset) */
    uint64_t nodes;
    int64_t movetime;   /* milliseconds */
    const char *go_raw; /* raw `go` arguments for external engines */
    int multipv;        /* candidates wanted per position, 1..32 */
    int multipv_margin; /* dynamic MultiPV (searcher.h); 0 = off */
    int multipv_max;
    Searcher *searcher; /* NULL: an in-process one with threads and hash_mb */
    int threads;        /* worker threads of the in-process searcher, 1..128 */
    size_t hash_mb;     /* per worker */
    ThinkFrontier frontier;
    int eval_diff;                   /* eval-window: the other side's window in centipawns */
    ThinkFrontierSide frontier_side; /* eval-window: whose best moves the frontier follows */
    const ThinkRethink *rethink;     /* re-think positions whose provenance matches any of these */
    size_t n_rethink;
    uint64_t max_positions;  /* 0 = every target */
    int max_ply;             /* skip targets deeper than this ply (0 = no limit) */
    int predict;             /* predicted frontier: the other side's moves predicted per position (MultiPV);
                                0 = THINK_PREDICT_DEFAULT */
    int predict_depth;       /* predicted frontier: the prediction's depth; 0 = THINK_PREDICT_DEPTH_DEFAULT */
    int all_replies_to;      /* predicted frontier: up to this SFEN move the other side's every legal move is
                                followed instead of its predicted ones (0 = none) */
    const char *predictions; /* predicted frontier: the file of predictions (think_predictions.h), read at
                                the start, written after each pass of predictions; NULL = none */
    const BookKey *starts;   /* roots of the subtree to think (n_starts of them); NULL = the whole book */
    const int *start_plies;  /* their SFEN move numbers */
    size_t n_starts;
    /* When non-NULL: think exactly these positions (only_count keys, with their plies in
     * only_plies, which may be NULL) instead of the book's short positions and leaves. */
    const BookKey *only_keys;
    const int *only_plies;
    size_t only_count;
    const char *journal;
    const char *input_name;      /* the input's name for journal messages; may be NULL */
    const char *journal_options; /* the options that change results, as the caller spells them (the journal's
                                    header holds them); NULL: the budget and MultiPV as book_think sees them */
    ThinkJournal **keep_journal; /* non-NULL: on success the locked journal is handed over here (the caller
                                    closes it after writing OUT and removing the journal); else closed */
    Progress *progress;          /* may be NULL */
    volatile sig_atomic_t *stop; /* set asynchronously (a signal) to stop after the positions in flight */
} ThinkOptions;

typedef struct {
    uint64_t targets;  /* positions that needed a search */
    uint64_t resumed;  /* of them, done by an earlier run (journal) */
    uint64_t searched; /* searched now */
    uint64_t moves_added;
    uint64_t warnings;             /* malformed or illegal engine output ignored */
    uint64_t retries;              /* positions put back in the queue after an engine failed */
    uint64_t skipped;              /* positions given up after THINK_POSITION_FAILS engine failures on them */
    uint64_t unscored;             /* answers that were a bare bestmove (no info line): an engine's own book? */
    uint64_t predictions_read;     /* predicted frontier: positions whose predictions came from the file */
    uint64_t predictions_searched; /* predicted frontier: positions searched for predictions */
    bool interrupted;
} ThinkStats;

/* The targets of b for opt (see above) into a new array *out (caller frees) of *n, with
 * the predictions' counts in stats. Returns false with the reason in err when memory runs
 * out or the file of predictions cannot be read, is refused or cannot be written. */
bool think_collect_targets(const Book *b, const ThinkOptions *opt, ThinkTarget **out, size_t *n, ThinkStats *stats,
                           char *err, size_t err_len);

/* Distinct legal moves among the first cnt of list in pos. */
int think_legal_candidates(const Position *pos, const BookMoveList *list, int cnt);

/* Parses one --rethink-if condition ("engine!=YaneuraOu", "depth<20", "date<2026-01"):
 * a field, an operator and a value, which for depth and nodes is a whole non-negative
 * decimal number (util/parse.h's parse_unsigned: no sign, fraction or trailing text).
 * false with the reason, naming --rethink-if, in err. */
bool think_rethink_parse(const char *text, ThinkRethink *r, char *err, size_t err_len);

/* True when provenance p satisfies r. */
bool think_rethink_matches(const ThinkRethink *r, const ThinkProvenance *p);

/* Grows b as described above. Returns false with the reason in err when the journal
 * cannot be read or written, memory runs out or every engine failed; stats->interrupted is set when *stop
 * ended the run early (the journal then holds everything finished). */
bool book_think(Book *b, const ThinkOptions *opt, ThinkStats *stats, char *err, size_t err_len);

#endif
