/* log_file.c - see log_file.h. */
#include "util/log_file.h"
#include "util/error.h"

#include <errno.h>
#include <string.h>

FILE *log_file_open(const char *path, char *err, size_t err_len) {
    FILE *f = fopen(path, "a"); /* O_APPEND: each line lands at the end, whatever else writes there */
    if (!f)
        error_set(err, err_len, "%s: %s", path, strerror(errno));
    return f;
}
