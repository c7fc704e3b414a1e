/* record_file.c - see record_file.h. */
#include "util/record_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/error.h"

bool record_file_create(RecordFile *r, size_t size, const char *tmpdir, const char *near, char *err, size_t err_len) {
    r->size = size;
    r->n = 0;
    return temp_file_create(&r->t, tmpdir, near, err, err_len);
}

bool record_file_put(RecordFile *r, const void *rec, char *err, size_t err_len) {
    if (fwrite(rec, r->size, 1, r->t.f) != 1)
        return error_set(err, err_len, "cannot write to the scratch file %s: %s", r->t.path, strerror(errno));
    r->n++;
    return true;
}

bool record_file_rewind(RecordFile *r, char *err, size_t err_len) {
    if (fflush(r->t.f) != 0 || ferror(r->t.f) || fseek(r->t.f, 0, SEEK_SET) != 0)
        return error_set(err, err_len, "cannot write to the scratch file %s: %s", r->t.path, strerror(errno));
    return true;
}

int record_file_get(RecordFile *r, void *rec, char *err, size_t err_len) {
    if (fread(rec, r->size, 1, r->t.f) == 1)
        return 1;
    if (ferror(r->t.f)) {
        error_set(err, err_len, "cannot read the scratch file %s: %s", r->t.path, strerror(errno));
        return -1;
    }
    return 0;
}

void record_file_close(RecordFile *r) { temp_file_remove(&r->t); }
