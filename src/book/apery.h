/* apery.h - read-only support for Apery's book.bin (also read by YaneuraOu and
 * ShogiHome).
 *
 * The file is a sequence of 16-byte little-endian entries: key u64, move u16, count u16,
 * score i32, with one entry per candidate move and the entries of one position adjacent
 * (ShogiHome and YaneuraOu write them sorted by key). The key is not a position but
 * Apery's own Zobrist hash, so a position can be looked up (compute its key, binary-search
 * the entries) but a key can never be turned back into a position. Conversion to another
 * format therefore walks the game tree from the start position, as YaneuraOu's
 * read_apery_book does: every position whose key has entries is kept, provided every
 * stored move is legal there (otherwise the hit is a hash collision and is counted).
 * Positions reachable only from a non-start root, or only through more than unreg_depth
 * plies outside the book, are not recovered.
 *
 * The hash (facts from YaneuraOu's source/book/apery_book.cpp): a std::mt19937_64 with its
 * default seed 5489 fills, in this order, piece[31][81] (piece codes as in types.h, square
 * sq = file * 9 + rank; the NO_PIECE row is drawn but used as 0), hand[7][19] (Apery's hand
 * order pawn, lance, knight, silver, gold, bishop, rook; index = how many) and one side
 * value. key = XOR of piece[board[sq]][sq] over all squares, XOR hand[t][count] over the
 * seven types of the side to move's hand only, XOR side when white is to move. Moves:
 * bits 0-6 destination, bits 7-13 origin or 81 + piece type - 1 for a drop, bit 14
 * promotion. Apery stores no ponder and no depth; lookups report depth 256 as YaneuraOu does,
 * so BookDepthLimit never rejects an Apery entry.
 */
#ifndef HAYANAGI_BOOK_APERY_H
#define HAYANAGI_BOOK_APERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "book/book.h"

typedef struct AperyBook AperyBook;

/* Apery's hash of pos (see above). */
uint64_t apery_key(const AperyBook *ab, const Position *pos);

/* Converts an Apery move to a Move16 (not validated: check it in its position). */
Move16 apery_move_to_move16(uint16_t m);

/* Reads the file at path (its size must be a multiple of 16). Returns the book (the
 * caller owns it: apery_free()) or NULL with the reason in err. */
AperyBook *apery_open(const char *path, char *err, size_t err_len);

/* The same over a copy of len bytes of memory. */
AperyBook *apery_open_memory(const char *name, const void *data, size_t len, char *err, size_t err_len);

void apery_free(AperyBook *ab);

/* Number of 16-byte entries and of distinct keys. */
size_t apery_entry_count(const AperyBook *ab);
size_t apery_key_count(const AperyBook *ab);

/* Looks pos up. Returns true and fills *out (file order, count as stored, no ponder, no
 * depth) on a hit (depth 256); false on a miss. Moves are not checked for legality here. */
bool apery_lookup(const AperyBook *ab, const Position *pos, BookMoveList *out);

typedef struct {
    uint64_t positions;  /* positions added to the book */
    uint64_t collisions; /* key hits rejected because a stored move was illegal there */
    uint64_t unreached;  /* distinct keys never reached by the walk */
} AperyConvertStats;

/* Walks the tree from the start position (every legal move, going up to unreg_depth plies
 * beyond the last book position; YaneuraOu uses 1) and adds every book position found to
 * book, ply set to the walk's depth, ponder set to the best book move of the next position
 * when there is one. Returns false when memory runs out. */
bool apery_to_book(const AperyBook *ab, int unreg_depth, Book *book, AperyConvertStats *stats, char *err,
                   size_t err_len);

#endif
