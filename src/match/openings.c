/* openings.c - see openings.h. */
#include "match/openings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shogi/game.h"
#include "shogi/rules.h"
#include "util/random.h"
#include "util/error.h"
#include "util/file_text.h"

static char *dup_range(const char *s, size_t n) {
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

OpeningParse opening_parse_line(const char *line, char **out, char *err, size_t err_len) {
    *out = NULL;
    const char *s = line;
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        n--;
    if (n == 0 || s[0] == '#')
        return OPENING_SKIP;
    if (n > 9 && strncmp(s, "position ", 9) == 0) {
        s += 9;
        n -= 9;
        while (n > 0 && *s == ' ')
            s++, n--;
    }
    size_t first = strcspn(s, " \t");
    if (first > n)
        first = n;
    bool keyword = (first == 8 && strncmp(s, "startpos", 8) == 0) || (first == 4 && strncmp(s, "sfen", 4) == 0);
    bool bare_sfen = !keyword && memchr(s, '/', first) != NULL;
    if (!keyword && !bare_sfen) {
        error_set(err, err_len, "expected 'startpos', 'sfen' or an SFEN, got '%.*s'", (int)(first < 40 ? first : 40),
                  s);
        return OPENING_ERROR;
    }
    char *text = malloc(n + 6);
    if (!text) {
        error_set(err, err_len, "out of memory");
        return OPENING_ERROR;
    }
    snprintf(text, n + 6, "%s%.*s", bare_sfen ? "sfen " : "", (int)n, s);
    Game g;
    game_init(&g);
    char why[256];
    OpeningParse result = OPENING_OK;
    if (!game_set_from_usi(&g, text, why, sizeof why)) {
        error_set(err, err_len, "%s", why);
        result = OPENING_ERROR;
    } else {
        Position root;
        StateInfo st;
        if (!position_from_sfen(&root, &st, g.root_sfen, why, sizeof why) ||
            !position_legality_report(&root, why, sizeof why)) {
            error_set(err, err_len, "illegal start position: %s", why);
            result = OPENING_ERROR;
        } else if (position_game_state(&g.pos, 0) != GAME_ONGOING) {
            error_set(err, err_len, "the game is already over in this position");
            result = OPENING_ERROR;
        }
    }
    game_free(&g);
    if (result != OPENING_OK) {
        free(text);
        return result;
    }
    *out = text;
    return OPENING_OK;
}

void openings_free(Openings *o) {
    for (int i = 0; i < o->n; i++)
        free(o->lines[i]);
    free(o->lines);
    o->lines = NULL;
    o->n = 0;
}

bool openings_parse_text(Openings *o, const char *text, const char *source, char *err, size_t err_len) {
    o->lines = NULL;
    o->n = 0;
    if (strncmp(text, "\xEF\xBB\xBF", 3) == 0)
        text += 3;
    int cap = 0;
    int line_no = 0;
    for (const char *p = text; *p;) {
        line_no++;
        size_t len = strcspn(p, "\n");
        char *line = dup_range(p, len);
        if (!line) {
            error_set(err, err_len, "out of memory");
            openings_free(o);
            return false;
        }
        char *norm;
        char why[256];
        OpeningParse r = opening_parse_line(line, &norm, why, sizeof why);
        free(line);
        if (r == OPENING_ERROR) {
            error_set(err, err_len, "%s:%d: %s", source, line_no, why);
            openings_free(o);
            return false;
        }
        if (r == OPENING_OK) {
            if (o->n == cap) {
                cap = cap ? cap * 2 : 16;
                char **grown = realloc(o->lines, (size_t)cap * sizeof *grown);
                if (!grown) {
                    free(norm);
                    error_set(err, err_len, "out of memory");
                    openings_free(o);
                    return false;
                }
                o->lines = grown;
            }
            o->lines[o->n++] = norm;
        }
        p += len;
        if (*p == '\n')
            p++;
    }
    if (o->n == 0) {
        return error_set(err, err_len, "%s: no openings in the file", source);
    }
    return true;
}

bool openings_load(Openings *o, const char *path, char *err, size_t err_len) {
    o->lines = NULL;
    o->n = 0;
    size_t len;
    char *buf = file_read_text(path, 0, &len, err, err_len);
    if (!buf)
        return false;
    if (memchr(buf, '\0', len)) {
        error_set(err, err_len, "%s: binary data (NUL byte) in an openings file", path);
        free(buf);
        return false;
    }
    bool ok = openings_parse_text(o, buf, path, err, err_len);
    free(buf);
    return ok;
}

void openings_shuffle(Openings *o, uint64_t seed) {
    uint64_t state = seed;
    for (int i = o->n - 1; i > 0; i--) {
        int j = (int)(random_splitmix64(&state) % (uint64_t)(i + 1));
        char *t = o->lines[i];
        o->lines[i] = o->lines[j];
        o->lines[j] = t;
    }
}
