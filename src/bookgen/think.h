/* think.h - `book think`: grow a book with the engine's own search.
 *
 * Targets are the positions of the book with fewer than multipv candidate moves and the
 * leaves (positions a book move leads to that the book does not hold), skipping
 * positions without a legal move. Each is searched with search_run() (one Search per
 * worker thread, each searching single-threaded with MultiPV = multipv) and its best
 * multipv moves are added with their score (centipawns, mate as +-(32000 - plies)),
 * search depth and the PV's reply as ponder.
 *
 * Scope. With start positions given (starts, e.g. from `--startmoves` lines), only the
 * subtree below them is considered: the book positions reachable from a start through
 * book moves, the leaves those positions lead to, and a start position the book does
 * not hold yet. Without starts the whole book is.
 *
 * Checkpoints. Every finished position is appended to the journal (DB2016 lines,
 * flushed and fsync'ed) before the next is taken, so a kill loses only the positions in
 * flight. On start an existing journal is read back: its positions count as done and its
 * moves are added. The caller writes the output and removes the journal at the end.
 */
#ifndef HAYANAGI_BOOKGEN_THINK_H
#define HAYANAGI_BOOKGEN_THINK_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "book/book.h"
#include "util/progress.h"

typedef struct {
    int depth; /* search limits: one of them (0 = unset) */
    uint64_t nodes;
    int64_t movetime;       /* milliseconds */
    int multipv;            /* candidates wanted per position, 1..32 */
    int threads;            /* worker threads, 1..128 */
    size_t hash_mb;         /* per worker */
    uint64_t max_positions; /* 0 = every target */
    int max_ply;            /* skip targets deeper than this ply (0 = no limit) */
    const BookKey *starts;  /* roots of the subtree to think (n_starts of them); NULL = the whole book */
    const int *start_plies; /* their SFEN move numbers */
    size_t n_starts;
    /* When non-NULL: think exactly these positions (only_count keys, with their plies in
     * only_plies, which may be NULL) instead of the book's short positions and leaves. */
    const BookKey *only_keys;
    const int *only_plies;
    size_t only_count;
    const char *journal;
    Progress *progress;          /* may be NULL */
    volatile sig_atomic_t *stop; /* set asynchronously (a signal) to stop after the positions in flight */
} ThinkOptions;

typedef struct {
    uint64_t targets;  /* positions that needed a search */
    uint64_t resumed;  /* of them, done by an earlier run (journal) */
    uint64_t searched; /* searched now */
    uint64_t moves_added;
    bool interrupted;
} ThinkStats;

/* Grows b as described above. Returns false with the reason in err when the journal
 * cannot be read or written or memory runs out; stats->interrupted is set when *stop
 * ended the run early (the journal then holds everything finished). */
bool book_think(Book *b, const ThinkOptions *opt, ThinkStats *stats, char *err, size_t err_len);

#endif
