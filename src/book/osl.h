/* osl.h - read-only support for OSL's WeightedBook (GPS Shogi's joseki.dat, shipped by
 * the Debian package gpsshogi-data).
 *
 * Layout (facts from OSL's osl/book/openingBook.h and compactBoard.h), every number a
 * big-endian 32-bit signed integer:
 *   header, 16 bytes: version (1), state count S, move count M, start state index;
 *   S states of 16 bytes: first move index, move count, black wins, white wins;
 *   M moves of 12 bytes: OSL move word, child state index, weight (the mover's view);
 *   S boards of 164 bytes (CompactBoard): 40 piece words, then the side to move
 *   (0 black, -1 white).
 * So a file is exactly 16 + 180 S + 12 M bytes long. A piece word is owner << 20 |
 * ptype << 16 | x << 4 | y (owner 0 or -1, x the file and y the rank 1..9, x = y = 0 for
 * a piece in hand); a move word is from (x << 4 | y, 0 for a drop) | to << 8 |
 * promotion << 19 | captured ptype << 20 | ptype after the move << 24 | player << 28.
 * OSL ptypes: 2-7 promoted pawn..rook, 8 king, 9 gold, 10-15 pawn, lance, knight,
 * silver, bishop, rook.
 *
 * Reading checks everything and refuses the whole file on the first fault, with its
 * byte offset: the counts against the file size, every piece word (codes, squares,
 * two pieces on a square, a full 40-piece set), every board as a legal position, every
 * move (indices in range, move records not shared, the move word consistent with the
 * board and legal there) and every child (its board must be the position the move
 * leads to, which also rules out a state that is its own child). Genuine cycles
 * (repetitions, which joseki.dat holds) are harmless: states are read in file order and
 * the one walk (for the ply) marks what it visits.
 *
 * Into the Book IR: each state is a position keyed by its board; its moves become
 * candidates with count = weight, no score, the ponder set to the child's best weighted
 * move; the win counts go to the position's BookStats (games = black + white wins).
 * Weight-0 moves are dropped, and so are positions left without moves, unless
 * keep_zero. The ply is 1 + the distance from the start state (0 when unreached).
 */
#ifndef HAYANAGI_BOOK_OSL_H
#define HAYANAGI_BOOK_OSL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "book/book.h"

enum { OSL_HEADER_SIZE = 16, OSL_STATE_SIZE = 16, OSL_MOVE_SIZE = 12, OSL_BOARD_SIZE = 164 };

typedef struct {
    bool keep_zero; /* keep weight-0 moves (count 0) and positions without moves */
} OslReadOptions;

typedef struct {
    uint32_t states, moves, start; /* from the header */
    uint64_t positions;            /* positions added to the book */
    uint64_t book_moves;           /* candidate moves added */
    uint64_t zero_moves_dropped;   /* weight-0 moves left out */
    uint64_t positions_dropped;    /* states left out for having no weighted move */
    uint64_t unreached;            /* states the walk from the start state never reaches */
} OslStats;

/* Positive content evidence for the format: head holds the first n bytes of a file of
 * file_size bytes. True when n >= 16, the version is 1, the counts are positive and in
 * range, the start index is below the state count and 16 + 180 S + 12 M == file_size. */
bool osl_probe_header(const void *head, size_t n, uint64_t file_size);

/* Reads the WeightedBook in data[0..len) into book (see above). Returns true on success
 * with *stats (when non-null) filled; false with "name: byte OFFSET: reason" in err,
 * the book then unspecified (free it). Memory: the reader allocates O(S + M) from the
 * counts only after they have been checked against len. */
bool osl_read_memory(const char *name, const void *data, size_t len, Book *book, const OslReadOptions *opt,
                     OslStats *stats, char *err, size_t err_len);

/* The same for the file at path, read whole into a temporary buffer of its size. */
bool osl_read_file(const char *path, Book *book, const OslReadOptions *opt, OslStats *stats, char *err, size_t err_len);

#endif
