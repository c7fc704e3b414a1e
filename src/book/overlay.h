/* overlay.h - where an opponent's overlay book lives: the file name an opponent's name
 * maps to, and the file found for it in a directory (docs/usi.md, "Rival overlays"). The
 * engine (RivalBookDir + USI_Opponent), the learning rule (bookgen/rival.h) and any client
 * that knows the opponent use this one rule, so they agree on the file.
 *
 * The name is hostile input (a server sends it). It becomes a file stem by this mapping,
 * which is one-to-one, so two names never share a file:
 *   - the bytes A-Z a-z 0-9 '_' '-' are kept, and '.' except as the first byte;
 *   - every other byte (space, '/', '%', control bytes, a leading '.', each byte of a
 *     UTF-8 character) becomes '%' and two upper-case hex digits.
 * The result holds no '/', cannot be "." or "..", and never starts with '.'. An empty name
 * or one whose stem would pass BOOK_OVERLAY_STEM_MAX bytes has no file.
 */
#ifndef HAYANAGI_BOOK_OVERLAY_H
#define HAYANAGI_BOOK_OVERLAY_H

#include <stdbool.h>
#include <stddef.h>

/* Longest stem: with ".db" it stays well inside NAME_MAX (255). */
enum { BOOK_OVERLAY_STEM_MAX = 200 };

/* Writes the stem of name (the mapping above) into out (out_len bytes, caller-owned).
 * Returns false (out "") when name is empty, the stem is longer than
 * BOOK_OVERLAY_STEM_MAX, or it does not fit in out. */
bool book_overlay_stem(const char *name, char *out, size_t out_len);

typedef enum {
    BOOK_OVERLAY_FOUND,   /* *path is an existing DIR/<stem>.db, else DIR/<stem>.sbk */
    BOOK_OVERLAY_ABSENT,  /* neither exists; *path is DIR/<stem>.db, where one is created */
    BOOK_OVERLAY_BAD_NAME /* the name has no file (see above) or the path does not fit */
} BookOverlayLookup;

/* The overlay of the opponent name in dir, dir resolved as BookDir is (util/path.h: a
 * relative dir beside the executable first). Writes the path into out (out_len bytes). */
BookOverlayLookup book_overlay_find(const char *dir, const char *name, char *out, size_t out_len);

#endif
