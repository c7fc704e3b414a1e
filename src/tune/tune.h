/* tune.h - `hayanagi tune`: training data for the embedded evaluation and the fit of
 * its weights by logistic regression (see docs/eval.md). */
#ifndef HAYANAGI_TUNE_TUNE_H
#define HAYANAGI_TUNE_TUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One line of training data, "<result> [<score>] <sfen>", as tune generate, records and
 * label write it. */
typedef struct {
    float result;     /* black's result: 1, 0.5 or 0 */
    bool has_score;   /* an engine's score stood between result and SFEN */
    int score;        /* that score from black's side, |score| < 100000 */
    const char *sfen; /* points into the parsed line; not checked here */
} TuneLine;

typedef enum { TUNE_LINE_OK, TUNE_LINE_BLANK, TUNE_LINE_BAD } TuneLineStatus;

/* Parses line in place (its line ending is cut off). Blank lines and '#' comments give
 * TUNE_LINE_BLANK; on TUNE_LINE_BAD the reason is written to err. */
TuneLineStatus tune_parse_line(char *line, TuneLine *out, char *err, size_t err_len);

/* Reads the next data line of f (named path) into buf (cap bytes) and parses it into
 * *out, skipping blank lines and reporting malformed or over-long ones on stderr as
 * "path:line: reason (skipped)", each counted in *bad. *lineno counts the lines read.
 * Returns false at the end of the file (or on a read error: check ferror(f)). */
bool tune_next_line(FILE *f, const char *path, long *lineno, char *buf, size_t cap, TuneLine *out, int *bad);

/* Runs `hayanagi tune generate|records|openings|fit ...`; returns the exit status. */
int tune_main(int argc, char **argv);

/* Runs `hayanagi tune fit ...` (src/tune/tune_fit.c); argv[0] is "fit". Returns the exit
 * status. */
int tune_fit_main(int argc, char **argv);

/* Runs `hayanagi tune label ...` (src/tune/tune_label.c); argv[0] is "label". Returns the
 * exit status. */
int tune_label_main(int argc, char **argv);

#endif
