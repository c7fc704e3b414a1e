/* tune.h - `hayanagi tune`: fits the embedded evaluation's weights by logistic
 * regression on the engine's own self-play games (see docs/eval.md). */
#ifndef HAYANAGI_EVAL_TUNE_H
#define HAYANAGI_EVAL_TUNE_H

/* Runs `hayanagi tune generate ...` or `hayanagi tune fit ...`; returns the exit status. */
int tune_main(int argc, char **argv);

#endif
