/* book.h - the book IR: normalised positions mapped to candidate moves with statistics.
 *
 * Every book format (DB2016, YBB, Apery, SBK) reads into and writes from this one
 * representation, and every book algorithm works on it.
 *
 * Identity. A position is keyed by its 32-byte PackedSfen (board, hands, side to move),
 * which ignores the SFEN move number, so transpositions reached after a different number
 * of moves share an entry. The smallest ply seen is kept beside the key. The key is
 * computed in exactly one place, book_key_from_position().
 *
 * Layout. Positions live in one array of 40-byte records (key, first move, move count,
 * ply) indexed by an open-addressing hash table of 64-bit slots (a 32-bit id and 32 bits of
 * the key's hash, so a miss rarely touches the records); the candidate moves of all
 * positions live in one pool (12 bytes per move plus a 2-byte depth). A 12-million
 * position book with 3.5 moves per position costs about 95 bytes per position. The
 * SBK-style statistics (games, wins, comment, evaluation symbol, weight) and engine
 * analyses (BookEval lists) sit in a separate sparse table that costs nothing when no
 * entry has them.
 *
 * Ids. book_add_position() returns a dense id (0, 1, 2, ... in insertion order) that
 * stays valid for the life of the book: positions are never removed or renumbered.
 *
 * Threads. A Book has no global state. Concurrent readers are fine; a writer needs
 * exclusive access.
 */
#ifndef HAYANAGI_BOOK_BOOK_H
#define HAYANAGI_BOOK_BOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shogi/packed_sfen.h"
#include "shogi/position.h"

/* Most candidate moves one position may hold. Only 593 legal moves are known in any
 * position; the rest of the room tolerates books with junk moves until `book check`. */
enum { BOOK_MAX_MOVES = 1024 };

/* The depth and count ranges the compact storage keeps; larger values saturate. */
#define BOOK_DEPTH_MAX 32767
#define BOOK_COUNT_MAX UINT32_MAX

typedef PackedSfen BookKey;

/* One candidate move, as callers see it (the storage inside is packed). */
typedef struct {
    Move16 move;
    Move16 ponder;  /* the expected reply, MOVE_NONE when the book has none */
    int32_t score;  /* centipawns from the mover's view; 0 when !has_score */
    int32_t depth;  /* search depth; 0 when !has_depth; clamped to +-BOOK_DEPTH_MAX */
    uint64_t count; /* times chosen; saturates at BOOK_COUNT_MAX */
    bool has_score; /* false when the source had no score (DB2016 "none" or missing) */
    bool has_depth;
} BookMove;

/* The candidates of one position, filled by lookups. Large (24 KiB): keep one per caller,
 * not one per stack frame of a recursion. */
typedef struct {
    int n;   /* moves in moves[] */
    int ply; /* smallest SFEN ply seen for the position, 0 when unknown */
    BookMove moves[BOOK_MAX_MOVES];
} BookMoveList;

/* SBK-style statistics for a position (move == MOVE_NONE) or one of its moves. */
typedef struct {
    uint32_t games;
    uint32_t black_wins;
    uint32_t white_wins;
    int32_t weight;
    uint8_t eval_symbol; /* SBK evaluation mark, 0 = none */
    const char *comment; /* NUL-terminated; NULL when none. In book_get_stats() results it
                            points into the book and stays valid until the book changes */
} BookStats;

/* One engine analysis of a position, as SBK stores them (SBookEval): a book position may
 * hold a list of them (e.g. MultiPV lines). Sparse like BookStats: nothing when unused. */
typedef struct {
    int32_t value; /* as the source stored it (SBK: centipawns from black's view) */
    int32_t depth, sel_depth;
    int64_t nodes;
    const char *variation;   /* the principal variation as text, NULL when none */
    const char *engine_name; /* NULL when none */
    uint8_t present;         /* BOOK_EVAL_HAS_* bits: numbers the source stored even when 0 */
} BookEval;

enum { BOOK_EVAL_HAS_VALUE = 1, BOOK_EVAL_HAS_DEPTH = 2, BOOK_EVAL_HAS_SEL_DEPTH = 4, BOOK_EVAL_HAS_NODES = 8 };

typedef struct Book Book;

/* Returns a new empty book, or NULL when memory runs out. The caller owns it and
 * releases it with book_free(). */
Book *book_create(void);

/* Releases the book and everything it owns. NULL is a no-op. */
void book_free(Book *b);

/* The normalised key of pos: its canonical PackedSfen. The only place a key is made. */
void book_key_from_position(const Position *pos, BookKey *key);

/* The key of the position legal move m leads to from pos; pos is as it was on return. */
void book_key_after_move(Position *pos, Move m, BookKey *key);

/* The key of the colour-flipped twin of the position legal move m leads to from pos
 * (book_key_flip() of book_key_after_move()'s key, without decoding); pos is as it was on
 * return. */
void book_key_flipped_after_move(Position *pos, Move m, BookKey *key);

/* Parses sfen ("board side hands [ply]") and fills *key and, when ply is non-null, the
 * move number (1 when absent). Returns false with the reason in err for anything
 * position_from_sfen() rejects. */
bool book_key_from_sfen(const char *sfen, BookKey *key, int *ply, char *err, size_t err_len);

/* Rebuilds the position of a key into caller-owned *pos and *st, with move number ply.
 * Returns false when the key does not decode (a corrupt key from a hostile file). */
bool book_key_to_position(const BookKey *key, Position *pos, StateInfo *st, int ply);

/* The key of the colour-flipped position (board rotated 180 degrees, colours and hands
 * swapped, other side to move), used by FlippedBook. Returns false when key does not
 * decode. */
bool book_key_flip(const BookKey *key, BookKey *flipped);

/* The move seen from the other side of the board (squares rotated 180 degrees). */
Move16 book_move_flip(Move16 m);

/* Empties the book (positions, moves, statistics, analyses) and keeps its capacity, so a
 * scratch book reused for one entry after another allocates nothing once warm. */
void book_clear(Book *b);

/* Number of positions and of candidate moves over all positions. */
size_t book_position_count(const Book *b);
size_t book_move_count(const Book *b);

/* Bytes of heap the book holds right now (arrays at their capacity, statistics included). */
size_t book_memory_bytes(const Book *b);

/* Sizes the hash index for about positions entries so a bulk load does not rehash. A
 * hint: returns false (nothing changed) when memory runs out. */
bool book_reserve(Book *b, size_t positions);

/* Hints that key will be looked up or added soon (prefetches its hash slot). */
void book_prefetch(const Book *b, const BookKey *key);

/* Finds the position with this key. Returns true and its id in *id, false when absent. */
bool book_find(const Book *b, const BookKey *key, uint32_t *id);

/* The hash the index files key under (64 bits, well mixed; the same for equal keys in any
 * book), for callers that probe several tables with one key. */
uint64_t book_key_hash(const BookKey *key);

/* book_find() with hash == book_key_hash(key) already computed. */
bool book_find_hashed(const Book *b, const BookKey *key, uint64_t hash, uint32_t *id);

/* Finds or inserts the position with this key. ply (the SFEN move number, 0 when
 * unknown) lowers the stored ply when it is smaller and known. Returns true and the id in
 * *id (when non-null); false only when memory runs out or the book holds 2^32-2
 * positions. */
bool book_add_position(Book *b, const BookKey *key, int ply, uint32_t *id);

/* Adds a candidate move to position id. A move already present is merged the way
 * YaneuraOu's MemoryBook::insert does: counts are summed (saturating), and the ponder,
 * score and depth of the new entry replace the old ones when the new entry has them.
 * Returns true when the move was added or merged (*merged, when non-null, says which);
 * false when memory runs out or the position already holds BOOK_MAX_MOVES moves. */
bool book_add_move(Book *b, uint32_t id, const BookMove *m, bool *merged);

/* Replaces all candidates of position id with moves[0..n-1], in that order (moves are
 * taken as given, not merged; statistics attached to moves stay). In place when the new
 * list is not longer, else at the end of the pool. Returns false when memory runs out or
 * n exceeds BOOK_MAX_MOVES, leaving the old list. */
bool book_set_moves(Book *b, uint32_t id, const BookMove *moves, int n);

/* Copies the candidates of position id, in the order they were added, into *out.
 * Returns the number of moves. */
int book_position_moves(const Book *b, uint32_t id, BookMoveList *out);

/* Number of candidate moves of position id. */
int book_position_move_count(const Book *b, uint32_t id);

/* The key and the smallest ply (0 = unknown) of position id. */
void book_position_key(const Book *b, uint32_t id, BookKey *key);
int book_position_ply(const Book *b, uint32_t id);

/* Looks pos up. Returns true and fills *out (moves in insertion order) on a hit; false
 * with out->n == 0 on a miss. */
bool book_lookup(const Book *b, const Position *pos, BookMoveList *out);

/* Merges every position and move of src into dst (see book_add_move for how moves
 * combine; statistics and analyses of src replace those of dst). Returns false when memory runs out,
 * leaving dst holding part of src. */
bool book_merge(Book *dst, const Book *src);

/* Returns a new array of all position ids ordered by key bytes (memcmp of the
 * PackedSfen), or NULL when memory runs out or the book is empty. The caller frees it. */
uint32_t *book_sorted_ids(const Book *b);

/* Releases the slack of the growing arrays and rebuilds the move pool without holes.
 * Call after a bulk load. Returns false (book unchanged and still valid) when memory runs
 * out. */
bool book_shrink(Book *b);

/* Sorts a move list as YaneuraOu does before use and before writing: by count, then by
 * score, both descending, keeping the original order of ties. */
void book_sort_moves(BookMove *moves, int n);

/* Attaches statistics to position id (move == MOVE_NONE) or to one of its moves; the
 * comment is copied. Returns false when memory runs out. */
bool book_set_stats(Book *b, uint32_t id, Move16 move, const BookStats *s);

/* Appends one line to the comment of position id or of one of its moves (a newline
 * separates lines), creating zeroed statistics when there were none. Returns false when
 * memory runs out. */
bool book_append_comment(Book *b, uint32_t id, Move16 move, const char *line, size_t len);

/* Fills *out and returns true when statistics are attached to (id, move); false
 * otherwise. out->comment points into the book (valid until the book changes). */
bool book_get_stats(const Book *b, uint32_t id, Move16 move, BookStats *out);

/* True when any statistics are attached, comments included. */
bool book_has_stats(const Book *b);

/* Copies what src holds about its position sid beside the moves (the position's
 * statistics and comment, its analyses, and the statistics and comments of those of its
 * moves that dst's position did has) onto dst's position did: a verb that builds a new
 * book from an old one (prune) keeps think's provenance and learn's evidence with it.
 * Returns false when memory runs out. */
bool book_copy_notes(Book *dst, uint32_t did, const Book *src, uint32_t sid);

/* True when some statistics hold game or win totals, an evaluation mark or a negative
 * weight (what DB2016 cannot carry: a positive weight is the move's count, and a comment
 * alone is none of them). */
bool book_has_totals(const Book *b);

/* Replaces the analyses of position id with a copy of evals[0..n) (strings included);
 * n == 0 removes them. Returns false when memory runs out (the old list then stays). */
bool book_set_evals(Book *b, uint32_t id, const BookEval *evals, size_t n);

/* The analyses of position id: returns their number and points *evals (when non-null) at
 * them, inside the book and valid until the book changes; 0 when it has none. */
size_t book_get_evals(const Book *b, uint32_t id, const BookEval **evals);

/* A deep copy of evals[0..n) in one malloc'd block (strings included) that free()
 * releases; *bytes (when non-null) gets its size. NULL when n == 0 or memory runs out. */
BookEval *book_evals_copy(const BookEval *evals, size_t n, size_t *bytes);

/* Number of analyses held over all positions (formats that cannot carry them may warn). */
size_t book_eval_count(const Book *b);

#endif
