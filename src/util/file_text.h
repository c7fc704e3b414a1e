/* file_text.h - a whole file read into memory, for the small text files read at once
 * (openings lists, match records read back by `match --resume`). */
#ifndef HAYANAGI_UTIL_FILE_TEXT_H
#define HAYANAGI_UTIL_FILE_TEXT_H

#include <stddef.h>

/* The contents of the file at path, NUL-terminated (the caller frees it), its length in
 * *len. A file longer than max bytes (0: no limit) is refused. NULL with the reason
 * ("PATH: No such file or directory", "PATH: larger than N bytes", "PATH: read error",
 * "PATH: out of memory") in err. The text may hold NUL bytes: check *len. */
char *file_read_text(const char *path, size_t max, size_t *len, char *err, size_t err_len);

#endif
