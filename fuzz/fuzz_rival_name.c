/* fuzz_rival_name.c - libFuzzer target for the opponent name a server or GUI sends: the
 * USI_Opponent value parser (usi/engine_book.h) and the name-to-file mapping
 * (book/overlay.h).
 *
 * The bytes, NUL-terminated, are read as a USI_Opponent value; a name found must be a
 * non-empty part of the value without blanks at either end. Every accepted stem must hold
 * only [A-Za-z0-9._%-], no '/', never start with '.', and decode back to the name (the
 * mapping is one-to-one); a refused one is empty. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "book/overlay.h"
#include "fuzz_check.h"
#include "usi/engine_book.h"

static int hexval(char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1; }

static void check_stem(const char *name) {
    char stem[BOOK_OVERLAY_STEM_MAX + 1];
    if (!book_overlay_stem(name, stem, sizeof stem)) {
        FUZZ_CHECK(stem[0] == '\0');
        return;
    }
    FUZZ_CHECK(stem[0] != '\0' && stem[0] != '.' && strlen(stem) <= BOOK_OVERLAY_STEM_MAX);
    char back[BOOK_OVERLAY_STEM_MAX + 1];
    size_t k = 0;
    for (size_t i = 0; stem[i]; i++) {
        char c = stem[i];
        FUZZ_CHECK(c != '/');
        if (c == '%') {
            int hi = hexval(stem[i + 1]), lo = hi < 0 ? -1 : hexval(stem[i + 2]);
            FUZZ_CHECK(hi >= 0 && lo >= 0);
            back[k++] = (char)(hi * 16 + lo);
            i += 2;
        } else {
            FUZZ_CHECK((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
                       c == '_' || c == '-');
            back[k++] = c;
        }
    }
    back[k] = '\0';
    FUZZ_CHECK(strcmp(back, name) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 1024)
        return 0;
    char text[1025];
    memcpy(text, data, size);
    text[size] = '\0';
    char name[1025];
    if (engine_book_opponent_name(text, name, sizeof name)) {
        size_t n = strlen(name);
        FUZZ_CHECK(n > 0 && strstr(text, name) != NULL);
        FUZZ_CHECK(name[0] != ' ' && name[0] != '\t' && name[n - 1] != ' ' && name[n - 1] != '\t');
    }
    check_stem(text);
    return 0;
}
