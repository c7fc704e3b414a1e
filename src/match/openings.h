/* openings.h - the start positions of a match: one USI position argument a line, read
 * from a file, checked by replaying it, optionally shuffled.
 *
 * Ownership: Openings owns its lines (openings_free()). */
#ifndef HAYANAGI_MATCH_OPENINGS_H
#define HAYANAGI_MATCH_OPENINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    char **lines; /* USI `position` arguments: "startpos [moves ...]" or "sfen ... [moves ...]" */
    int n;
} Openings;

typedef enum { OPENING_OK, OPENING_SKIP, OPENING_ERROR } OpeningParse;

/* Normalises one line of an openings file into a USI position argument (malloc'd into
 * *out, caller frees). Accepted: "startpos [moves ...]", "sfen <SFEN> [moves ...]", the
 * same with a leading "position ", and a bare SFEN (optionally followed by
 * "moves ..."). Blank lines and lines starting with '#' are OPENING_SKIP. The line must
 * replay (legal SFEN, legal moves) and must not be a finished game; otherwise
 * OPENING_ERROR with the reason in err. */
OpeningParse opening_parse_line(const char *line, char **out, char *err, size_t err_len);

/* Parses a whole openings text (a UTF-8 BOM and CRLF line ends are accepted); errors
 * name "source:line". An empty result is an error. */
bool openings_parse_text(Openings *o, const char *text, const char *source, char *err, size_t err_len);
/* Reads and parses a file. */
bool openings_load(Openings *o, const char *path, char *err, size_t err_len);
void openings_free(Openings *o);
/* Reorders the openings with a Fisher-Yates shuffle driven by seed (deterministic). */
void openings_shuffle(Openings *o, uint64_t seed);

#endif
