/* tune.h - `hayanagi tune`: training data for the embedded evaluation and the fit of
 * its weights by logistic regression (see docs/eval.md). */
#ifndef HAYANAGI_EVAL_TUNE_H
#define HAYANAGI_EVAL_TUNE_H

/* Runs `hayanagi tune generate|records|openings|fit ...`; returns the exit status. */
int tune_main(int argc, char **argv);

/* Runs `hayanagi tune fit ...` (src/eval/tune_fit.c); returns the exit status. */
int tune_fit_main(int argc, char **argv);

#endif
