/* resume.c - see resume.h. */
#include "match/resume.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/reader.h"
#include "util/error.h"
#include "util/file_text.h"

enum { RECORD_FILE_MAX = 1 << 30 }; /* a record larger than 1 GiB is refused */

/* The value after "key" at the start of a line of text[0..len), up to the line's end
 * (*vlen bytes); NULL when no line starts so. */
static const char *line_value(const char *text, size_t len, const char *key, size_t *vlen) {
    size_t k = strlen(key);
    for (size_t i = 0; i + k <= len;) {
        const char *eol = memchr(text + i, '\n', len - i);
        size_t end = eol ? (size_t)(eol - text) : len;
        if (end - i >= k && !memcmp(text + i, key, k)) {
            *vlen = end - i - k;
            if (*vlen && text[i + k + *vlen - 1] == '\r')
                (*vlen)--;
            return text + i + k;
        }
        i = end + 1;
    }
    return NULL;
}

/* Counts the games of one chunk and checks they replay (the reader reports errors). */
typedef struct {
    int games, errors;
    char why[256];
    uint64_t line;
} ChunkCheck;

static bool chunk_game(void *ctx, const RecordGame *g) {
    ((ChunkCheck *)ctx)->games++;
    (void)g;
    return true;
}

static void chunk_error(void *ctx, const char *file, uint64_t line, const char *reason) {
    ChunkCheck *c = ctx;
    (void)file;
    if (!c->errors++) {
        snprintf(c->why, sizeof c->why, "%s", reason);
        c->line = line;
    }
}

/* One game's text (chunk[0..len), starting at line first_line of the file): checks it and
 * files it under its schedule index. */
static bool take_game(MatchResume *r, const char *path, const char *chunk, size_t len, unsigned long first_line,
                      char *err, size_t err_len) {
    size_t vlen;
    const char *ev = line_value(chunk, len, "$EVENT:", &vlen);
    int idx = 0, n = 0;
    char event[200];
    snprintf(event, sizeof event, "%.*s", (int)(vlen < 199 ? vlen : 199), ev ? ev : "");
    const char *g = ev ? strstr(event, ", game ") : NULL;
    if (!g || sscanf(g, ", game %d of %d", &idx, &n) != 2)
        return error_set(err, err_len,
                         "%s:%lu: a game without \"$EVENT:... game I of N\": not a record `hayanagi match` wrote", path,
                         first_line);
    if (n != r->games)
        return error_set(err, err_len, "%s:%lu: a game of a match of %d games, not %d (--games)", path, first_line, n,
                         r->games);
    if (idx < 1 || idx > n)
        return error_set(err, err_len, "%s:%lu: game %d of %d", path, first_line, idx, n);
    if (r->text[idx - 1])
        return error_set(err, err_len, "%s:%lu: game %d twice", path, first_line, idx);
    if (memchr(chunk, '\0', len))
        return error_set(err, err_len, "%s:%lu: game %d holds a NUL byte", path, first_line, idx);
    const char *tc = line_value(chunk, len, "'time control: ", &vlen);
    if (tc) {
        char text[sizeof r->time_control];
        snprintf(text, sizeof text, "%.*s", (int)(vlen < sizeof text - 1 ? vlen : sizeof text - 1), tc);
        if (!r->time_control[0])
            snprintf(r->time_control, sizeof r->time_control, "%s", text);
        else if (strcmp(text, r->time_control))
            return error_set(err, err_len, "%s:%lu: game %d was played at '%s', an earlier game at '%s'", path,
                             first_line, idx, text, r->time_control);
    }
    ChunkCheck cc = {0};
    RecordReadOptions ro = {.on_game = chunk_game, .on_error = chunk_error, .ctx = &cc};
    char rerr[256] = "";
    if (!record_read_memory(path, chunk, len, REC_FMT_CSA, &ro, NULL, rerr, sizeof rerr) || cc.errors || cc.games != 1)
        return error_set(err, err_len, "%s:%lu: game %d does not read back as one CSA game (%s)", path,
                         first_line + (cc.line ? cc.line - 1 : 0), idx,
                         rerr[0]     ? rerr
                         : cc.errors ? cc.why
                                     : "no game");
    /* Every game read is kept as written, counted or not: rewriting the record must never
     * drop what it held (an unfinished game stays until a replay of it finishes). */
    char *copy = malloc(len + 2);
    if (!copy)
        return error_set(err, err_len, "out of memory");
    memcpy(copy, chunk, len);
    size_t copy_len = len;
    if (len == 0 || chunk[len - 1] != '\n')
        copy[copy_len++] = '\n';
    copy[copy_len] = '\0';
    r->text[idx - 1] = copy;
    const char *sum = line_value(chunk, len, "'summary:", &vlen);
    if (!sum)
        return true; /* unfinished, or no summary to count it by: played again */
    const char *colon = memchr(sum, ':', vlen);
    GameEnd end = colon ? csa_summary_end(sum, (size_t)(colon - sum)) : END_NONE;
    const char *last = sum + vlen;
    while (last > sum && last[-1] != ' ')
        last--;
    size_t rl = (size_t)(sum + vlen - last);
    GameOutcome outcome = rl == 3 && !memcmp(last, "win", 3)    ? OUTCOME_WHITE_WINS
                          : rl == 4 && !memcmp(last, "lose", 4) ? OUTCOME_BLACK_WINS
                          : rl == 4 && !memcmp(last, "draw", 4) ? OUTCOME_DRAW
                                                                : OUTCOME_NONE;
    if (end == END_NONE || outcome == OUTCOME_NONE)
        return true; /* no result to count: played again */
    r->done[idx - 1].end = end;
    r->done[idx - 1].outcome = outcome;
    r->n_done++;
    int k = (idx - 1) % 2; /* even schedule indices: engine 1 black */
    const char *b = line_value(chunk, len, "N+", &vlen);
    if (b && !r->names[k][0])
        snprintf(r->names[k], sizeof r->names[k], "%.*s", (int)vlen, b);
    return true;
}

bool match_resume_read_memory(const char *name, const char *buf, size_t len, int games, MatchResume *r, char *err,
                              size_t err_len) {
    memset(r, 0, sizeof *r);
    if (err_len)
        err[0] = '\0';
    if (games < 1)
        return error_set(err, err_len, "no games");
    r->games = games;
    r->done = calloc((size_t)games, sizeof *r->done);
    r->text = calloc((size_t)games, sizeof *r->text);
    if (!r->done || !r->text)
        return error_set(err, err_len, "out of memory");
    bool ok = true;
    size_t pos = 0;
    unsigned long line = 1, chunk_line = 1;
    /* Lines may end in CRLF (a copy made on Windows): "V2.2\r" and "/\r" count too. */
    if (len >= 5 && !memcmp(buf, "V2.2\n", 5)) {
        pos = 5;
        line = chunk_line = 2;
    } else if (len >= 6 && !memcmp(buf, "V2.2\r\n", 6)) {
        pos = 6;
        line = chunk_line = 2;
    } else if (len) {
        ok = error_set(err, err_len, "%s:1: no \"V2.2\" line: not a record `hayanagi match` wrote", name);
    }
    size_t start = pos;
    while (ok && pos <= len) {
        const char *eol = pos < len ? memchr(buf + pos, '\n', len - pos) : NULL;
        size_t end = eol ? (size_t)(eol - buf) : len;
        bool sep = (end - pos == 1 || (end - pos == 2 && buf[pos + 1] == '\r')) && buf[pos] == '/';
        bool last = end >= len;
        if (sep || last) {
            size_t stop = sep ? pos : len;
            bool blank = true;
            for (size_t i = start; i < stop && blank; i++)
                blank = buf[i] == '\n' || buf[i] == '\r' || buf[i] == ' ';
            if (!blank)
                ok = take_game(r, name, buf + start, stop - start, chunk_line, err, err_len);
            start = end + 1;
            chunk_line = line + 1;
        }
        if (last)
            break;
        pos = end + 1;
        line++;
    }
    return ok;
}

bool match_resume_read(const char *path, int games, MatchResume *r, char *err, size_t err_len) {
    memset(r, 0, sizeof *r);
    size_t len;
    char *buf = file_read_text(path, RECORD_FILE_MAX, &len, err, err_len);
    if (!buf)
        return false;
    bool ok = match_resume_read_memory(path, buf, len, games, r, err, err_len);
    free(buf);
    return ok;
}

void match_resume_free(MatchResume *r) {
    if (r->text)
        for (int i = 0; i < r->games; i++)
            free(r->text[i]);
    free(r->text);
    free(r->done);
    memset(r, 0, sizeof *r);
}
