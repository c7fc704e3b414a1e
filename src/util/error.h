/* error.h - the one way readers report a failure: a formatted reason in a caller-owned
 * buffer. */
#ifndef HAYANAGI_UTIL_ERROR_H
#define HAYANAGI_UTIL_ERROR_H

#include <stdbool.h>
#include <stddef.h>

/* Writes the printf-style reason into err (truncated to err_len; nothing when err is
 * NULL or err_len is 0) and returns false, so that `return error_set(...)` reports and
 * fails in one statement. */
bool error_set(char *err, size_t err_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
