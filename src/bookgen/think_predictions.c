/* think_predictions.c - the predicted frontier's file of predictions (think_predictions.h). */
#include "bookgen/think_predictions.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "book/db2016.h"
#include "util/error.h"

/* The comment naming how a position was predicted, into buf. */
static void stamp(char *buf, size_t len, int k, int depth) {
    snprintf(buf, len, "predicted multipv=%d depth=%d", k, depth);
}

bool think_predictions_mark(Book *predictions, uint32_t id, int k, int depth) {
    char s[64];
    stamp(s, sizeof s, k, depth);
    return book_append_comment(predictions, id, MOVE_NONE, s, strlen(s));
}

/* Checks the positions of predictions from id before on, just read from name with stats
 * st: each must carry the stamp of K and depth. */
static bool check_read(const char *name, const Book *predictions, size_t before, const Db2016Stats *st, int k,
                       int depth, char *err, size_t err_len) {
    if (!st->had_header)
        return error_set(err, err_len, "%s: not a file of predictions (no DB2016 header)", name);
    char want[64];
    stamp(want, sizeof want, k, depth);
    size_t n = book_position_count(predictions);
    for (uint32_t id = (uint32_t)before; id < n; id++) {
        BookStats s;
        if (!book_get_stats(predictions, id, MOVE_NONE, &s))
            s.comment = NULL;
        if (s.comment && !strcmp(s.comment, want))
            continue;
        BookKey key;
        Position pos;
        StateInfo sti;
        char sfen[SFEN_MAX] = "(a corrupt key)";
        book_position_key(predictions, id, &key);
        if (book_key_to_position(&key, &pos, &sti, 1))
            position_to_sfen(&pos, sfen, false);
        if (!s.comment || strncmp(s.comment, "predicted ", 10))
            return error_set(err, err_len, "%s: not a file of predictions (the position %s has no '%s' comment)", name,
                             sfen, want);
        return error_set(err, err_len,
                         "%s: the position %s was predicted as '%s', not '%s' (another --predict or "
                         "--predict-depth: name another file)",
                         name, sfen, s.comment, want);
    }
    return true;
}

static const Db2016ReadOptions READ = {.strict = true, .keep_comments = true};

bool think_predictions_load(const char *path, Book *predictions, int k, int depth, char *err, size_t err_len) {
    struct stat sb;
    if (stat(path, &sb) != 0 && errno == ENOENT)
        return true;
    size_t before = book_position_count(predictions);
    Db2016Stats st;
    return db2016_read_file(path, predictions, &READ, &st, err, err_len) &&
           check_read(path, predictions, before, &st, k, depth, err, err_len);
}

bool think_predictions_parse(const char *name, const char *data, size_t len, Book *predictions, int k, int depth,
                             char *err, size_t err_len) {
    size_t before = book_position_count(predictions);
    Db2016Stats st;
    return db2016_read_memory(name, data, len, predictions, &READ, &st, err, err_len) &&
           check_read(name, predictions, before, &st, k, depth, err, err_len);
}

static const Db2016WriteOptions WRITE = {.write_comments = true, .as_read = true};

bool think_predictions_save(const char *path, const Book *predictions, char *err, size_t err_len) {
    return db2016_write_file(path, predictions, &WRITE, err, err_len);
}

bool think_predictions_write(FILE *f, const Book *predictions, char *err, size_t err_len) {
    return db2016_write_stream(f, predictions, &WRITE, err, err_len);
}
