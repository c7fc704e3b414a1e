/* db2016_internal.h - what the DB2016 reader (db2016.c) shares with its move-line parser
 * (db2016_line.c). Not for use outside src/book/db2016*.c. */
#ifndef HAYANAGI_BOOK_DB2016_INTERNAL_H
#define HAYANAGI_BOOK_DB2016_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "book/db2016.h"

/* A blank inside a line: space or tab. */
static inline bool db2016i_is_blank(char c) { return c == ' ' || c == '\t'; }

/* db2016_parse_move_line(), also saying in *clamped whether a number was out of range
 * (and kept saturated). Returns true and fills *m; false with the reason in err. */
bool db2016i_parse_move_line(const char *line, size_t len, bool shogihome_columns, BookMove *m, bool *ambiguous,
                             bool *clamped, char *err, size_t err_len);

/* The text after the fifth field of a move line when it is a comment ("#..." or "//..."),
 * without its marker: true with *c and *clen pointing into line. */
bool db2016i_trailing_comment(const char *line, size_t len, const char **c, size_t *clen);

#endif
