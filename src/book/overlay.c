/* overlay.c - see overlay.h. */
#include "book/overlay.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "util/path.h"

static bool kept(unsigned char c, bool first) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           (c == '.' && !first);
}

bool book_overlay_stem(const char *name, char *out, size_t out_len) {
    static const char hex[] = "0123456789ABCDEF";
    size_t k = 0;
    bool ok = name[0] != '\0' && out_len > 0;
    for (size_t i = 0; ok && name[i]; i++) {
        unsigned char c = (unsigned char)name[i];
        size_t need = kept(c, i == 0) ? 1 : 3;
        if (k + need > BOOK_OVERLAY_STEM_MAX || k + need >= out_len) {
            ok = false;
            break;
        }
        if (need == 1) {
            out[k++] = (char)c;
        } else {
            out[k++] = '%';
            out[k++] = hex[c >> 4];
            out[k++] = hex[c & 15];
        }
    }
    if (out_len > 0)
        out[ok ? k : 0] = '\0';
    return ok;
}

static bool exists(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

BookOverlayLookup book_overlay_find(const char *dir, const char *name, char *out, size_t out_len) {
    char stem[BOOK_OVERLAY_STEM_MAX + 1], file[BOOK_OVERLAY_STEM_MAX + 8];
    if (!book_overlay_stem(name, stem, sizeof stem))
        return BOOK_OVERLAY_BAD_NAME;
    snprintf(file, sizeof file, "%s.db", stem);
    if (path_resolve(dir, file, out, out_len) && exists(out))
        return BOOK_OVERLAY_FOUND;
    snprintf(file, sizeof file, "%s.sbk", stem);
    if (path_resolve(dir, file, out, out_len) && exists(out))
        return BOOK_OVERLAY_FOUND;
    snprintf(file, sizeof file, "%s.db", stem);
    return path_resolve(dir, file, out, out_len) ? BOOK_OVERLAY_ABSENT : BOOK_OVERLAY_BAD_NAME;
}
