/* log_file.h - the one rule for a log a job writes as it runs (`match --log`, `csa --log`):
 * the dialogue with engines and servers, for reading after the fact.
 *
 * A log is not an output in util/atomic_file.h's sense. An output is written whole or not
 * at all; a log must hold every line up to the moment a job crashes, hangs or is killed,
 * so it is written to FILE directly, each line flushed by its writer. And it is appended
 * to, never truncated: a run never destroys an earlier run's log (or a file named by
 * mistake); runs follow each other in the file. "-" is the standard error, as for reading
 * a log as it is written. docs/match.md and docs/csa.md, `--log`. */
#ifndef HAYANAGI_UTIL_LOG_FILE_H
#define HAYANAGI_UTIL_LOG_FILE_H

#include <stddef.h>
#include <stdio.h>

/* Opens path for appending, creating it (mode 0666 less the umask) when missing; "-" is
 * the standard error (a copy of its descriptor: the fclose leaves stderr open), never a
 * file named "-" (./- names that one). Returns the stream (the caller closes it with
 * fclose), or NULL with "PATH: reason" in err (a directory, no permission, ...). */
FILE *log_file_open(const char *path, char *err, size_t err_len);

enum { LOG_TIME_OF_DAY_MAX = 16 }; /* "HH:MM:SS.mmm" and its NUL */

/* Writes the current UTC time of day, "HH:MM:SS.mmm", into buf (len >= LOG_TIME_OF_DAY_MAX):
 * the time a `csa --log` line starts with. Returns buf. */
char *log_time_of_day(char *buf, size_t len);

#endif
