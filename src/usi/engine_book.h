/* engine_book.h - the book the engine plays from: resolves BookDir/BookFile, loads the
 * file (DB2016 in memory or on the fly, YBB, Apery) on a background thread so that a
 * large book cannot make isready time out, and serves lookups to the USI loop.
 *
 * Ownership: an EngineBook owns the loaded book and its loader thread; destroy joins.
 */
#ifndef HAYANAGI_USI_ENGINE_BOOK_H
#define HAYANAGI_USI_ENGINE_BOOK_H

#include <stdbool.h>
#include <stddef.h>

#include "book/select.h"

typedef struct EngineBook EngineBook;

EngineBook *engine_book_create(void);
void engine_book_destroy(EngineBook *b);

/* The file BookDir/BookFile names, by util/path.h's rule (the one EvalDir/EvalFile use):
 * a relative BookDir is looked up next to the running executable first, as YaneuraOu
 * does. Writes it to out; returns false when BookFile is "no_book" or empty, or the path
 * does not fit. */
bool engine_book_resolve(const char *book_dir, const char *book_file, char *out, size_t out_len);

/* Makes path (NULL: no book) the book, loading it in the background unless it is
 * already loaded with the same mode. Returns at once. */
void engine_book_request(EngineBook *b, const char *path, bool on_the_fly);

/* Waits up to ms milliseconds for a pending load; true when none is pending. */
bool engine_book_wait(EngineBook *b, int ms);

/* Takes the message of the last finished load ("book loaded <path> (<N> positions)",
 * "book not found <path>", ...), once. Returns false when there is none. */
bool engine_book_take_message(EngineBook *b, char *out, size_t out_len);

/* Chooses a book move for pos as book_select_overlay() does, over the overlay (when one
 * is set) and the main book (when loaded). Returns BOOK_SELECT_MISS when neither is
 * there (or the main book is still loading and there is no overlay). */
BookSelectResult engine_book_select(EngineBook *b, Position *pos, const BookSelectOptions *opt, uint64_t *rng,
                                    BookChoice *out, char *reason, size_t reason_len);

/* The moves the overlay (when one is set) demotes at pos (book/select.h,
 * BOOK_SCORE_DEMOTED: "this move lost against this opponent"), those legal in pos, into
 * out[0..max) as 16-bit moves. Returns how many: 0 without an overlay or when it does not
 * list pos. The engine keeps its search off them when the book has no move to play. */
int engine_book_demoted(EngineBook *b, Position *pos, const BookSelectOptions *opt, Move16 *out, int max);

/* Makes the book at path (NULL: none) the opponent overlay (book/select.h, "Opponent
 * overlays") for the lookups that follow, read now and held in memory (an overlay is
 * small); the file is read again on every call, so one rewritten between games is seen.
 * A file that cannot be read leaves no overlay. Writes what happened to msg ("rival
 * overlay loaded <path> (<N> positions, <format>)" or "rival overlay error: <reason
 * naming the path>"; "" for path NULL). Returns true when an overlay is set. */
bool engine_book_set_overlay(EngineBook *b, const char *path, char *msg, size_t msg_len);

/* The opponent's name in a USI_Opponent value, UCI_Opponent's format "<title|none>
 * <rating|none> <computer|human> <name...>": the text after the third word when the
 * third word is "computer" or "human" (any case) and the first two are single words;
 * otherwise the whole value is the name (a bare name). Leading and trailing blanks are
 * dropped, inner ones kept. Writes it to out; returns false when there is no name (empty
 * value, "<empty>", or the three words without a name) or it does not fit. */
bool engine_book_opponent_name(const char *value, char *out, size_t out_len);

/* The loaded book when it is held in memory in the book IR (DB2016 in memory, SBK,
 * YBB), else NULL (no book, on the fly, Apery, or a load under way). The book stays valid
 * until the next engine_book_request() or engine_book_destroy(). */
const Book *engine_book_memory(EngineBook *b);

#endif
