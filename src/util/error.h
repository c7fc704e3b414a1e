/* error.h - the one way library code reports a failure: a function that can fail
 * returns false (or NULL) and writes a formatted reason into a caller-owned buffer
 * (char *err, size_t err_len) with error_set(); parsers put "file:line: " or the byte
 * offset first. Library code never prints; only the command line (src/cli, src/tune and
 * the USI loop) writes the reason out, to stderr or as `info string`. */
#ifndef HAYANAGI_UTIL_ERROR_H
#define HAYANAGI_UTIL_ERROR_H

#include <stdbool.h>
#include <stddef.h>

/* Writes the printf-style reason into err (truncated to err_len; nothing when err is
 * NULL or err_len is 0) and returns false, so that `return error_set(...)` reports and
 * fails in one statement. */
bool error_set(char *err, size_t err_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
