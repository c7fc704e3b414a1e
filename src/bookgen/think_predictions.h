/* think_predictions.h - the file of the predicted frontier's predictions (`book think
 * --frontier predicted --predictions FILE`), so that a resumed run and the next round do
 * not search them again.
 *
 * The file is DB2016: each predicted position, its predicted moves best first (no score,
 * depth or count), and as the position's comment how they were predicted,
 * "predicted multipv=K depth=D". A position predicted without a move (its search failed)
 * is kept without moves, as in the run.
 *
 * What the file cannot say is which build of the engine predicted: the caller checks
 * that by predicting some of its positions again (think_targets.c).
 */
#ifndef HAYANAGI_BOOKGEN_THINK_PREDICTIONS_H
#define HAYANAGI_BOOKGEN_THINK_PREDICTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "book/book.h"

/* Attaches to position id of predictions the comment that names K and depth: each
 * position added to a book that think_predictions_save() writes needs it. False when
 * memory runs out. */
bool think_predictions_mark(Book *predictions, uint32_t id, int k, int depth);

/* Adds the predictions in the file at path to predictions (positions already there get
 * the file's moves after theirs). A missing file adds nothing. Refuses, false with
 * "path:line: reason" or "path: reason" in err, a file that is not DB2016, is broken
 * anywhere, or holds a position predicted with another K or depth; predictions then holds
 * what was read, and is not to be used. */
bool think_predictions_load(const char *path, Book *predictions, int k, int depth, char *err, size_t err_len);

/* The same over len bytes of memory (tests, fuzzing); name is used in messages. */
bool think_predictions_parse(const char *name, const char *data, size_t len, Book *predictions, int k, int depth,
                             char *err, size_t err_len);

/* Writes predictions to path atomically (temporary file, fsync, rename), positions in
 * SFEN order, each one's moves in the order predicted. False with the reason in err. */
bool think_predictions_save(const char *path, const Book *predictions, char *err, size_t err_len);

/* The same text to f (tests, fuzzing); the caller checks f for write errors. */
bool think_predictions_write(FILE *f, const Book *predictions, char *err, size_t err_len);

#endif
