/* secret_file.h - a secret (a password) read from the first line of a file, so that it
 * never has to stand on a command line, where every user of the machine sees it (`ps`,
 * /proc/PID/cmdline). The file rule is ssh's for private keys: a regular file that its
 * group or others may read, write or execute (any bit of 077 in its mode) is refused, so a
 * secret left world-readable is noticed instead of used. A FIFO or a character device
 * (`--password-file <(pass show csa)`, /dev/stdin) is read without that check: its mode
 * says nothing about who else sees the bytes. docs/csa.md, "The password". */
#ifndef HAYANAGI_UTIL_SECRET_FILE_H
#define HAYANAGI_UTIL_SECRET_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* Reads the first line of the file at path into out (out_len bytes, caller-owned, NUL-
 * terminated), without its line end ("\n", "\r\n" or a lone trailing "\r"); what follows the
 * first line is ignored. Returns true, or false with "PATH: reason" in err and out cleared:
 * the file cannot be opened or read, is a directory or a socket, is a regular file with any
 * group or other permission ("permissions 0644 are too open ..."), its first line is empty,
 * holds a NUL byte or does not fit in out_len - 1 bytes. */
bool secret_read_file(const char *path, char *out, size_t out_len, char *err, size_t err_len);

#endif
