/* think_provenance.h - the provenance line `book think` gives every position it thinks
 * (docs/book_making.md, "Provenance"), written and read here side by side:
 *     think engine=NAME; budget=nodes 100000; depth=D; nodes=N; date=YYYY-MM-DDTHH:MM:SSZ
 * It is the position's comment in the journal and in OUT (a "#" line in DB2016), so that
 * `--rethink-if` can select on it later. No allocation. */
#ifndef HAYANAGI_BOOKGEN_THINK_PROVENANCE_H
#define HAYANAGI_BOOKGEN_THINK_PROVENANCE_H

#include <stdbool.h>
#include <stddef.h>

#include "bookgen/searcher.h"

/* What a provenance line says. */
typedef struct {
    char engine[SEARCHER_NAME_MAX];
    char budget[96];
    char date[32];
    int depth;
    unsigned long long nodes;
} ThinkProvenance;

/* The date of a line written now: the current UTC time, or the environment's
 * SOURCE_DATE_EPOCH (seconds since 1970, the reproducible-builds.org convention) when set,
 * so that a rerun with the same inputs writes the same bytes. */
void think_provenance_date(char *buf, size_t len);

/* Writes p as one line without its line end into buf (len bytes, NUL-terminated,
 * truncated to fit). The separators "; ", and line ends, cannot occur inside a field: ';',
 * CR and LF in the engine name and the budget are written as ','. Returns buf. */
char *think_provenance_format(const ThinkProvenance *p, char *buf, size_t len);

/* Reads the last "think engine=..." line of a position comment (lines start after '\n')
 * into *p; fields it lacks stay empty or 0. Returns false when there is none. */
bool think_provenance_parse(const char *comment, ThinkProvenance *p);

#endif
