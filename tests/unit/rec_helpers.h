/* rec_helpers.h - shared by the record reader tests: collect the games and errors a
 * read reports. */
#ifndef HAYANAGI_TESTS_REC_HELPERS_H
#define HAYANAGI_TESTS_REC_HELPERS_H

#include <stdio.h>
#include <string.h>

#include "record/reader.h"
#include "shogi/notation.h"

#define REF "../shared/refdata/"

typedef struct {
    int n_moves;
    RecordResult result;
    char end[48];
    char black[REC_NAME_MAX], white[REC_NAME_MAX];
    char event[REC_EVENT_MAX];
    int32_t black_rating, white_rating;
    char root[SFEN_MAX];
    char moves[4096]; /* USI text of the first moves, space separated */
    int variation;
    uint64_t line;
} GotGame;

typedef struct {
    int games, errors;
    GotGame g[64];
    uint64_t err_line[16];
    char err[16][256];
} Got;

static inline bool got_game(void *ctx, const RecordGame *rg) {
    Got *got = ctx;
    if (got->games < 64) {
        GotGame *g = &got->g[got->games];
        g->n_moves = rg->n_moves;
        g->result = rg->result;
        snprintf(g->end, sizeof g->end, "%s", rg->end);
        snprintf(g->black, sizeof g->black, "%s", rg->black);
        snprintf(g->white, sizeof g->white, "%s", rg->white);
        snprintf(g->event, sizeof g->event, "%s", rg->event);
        g->black_rating = rg->black_rating;
        g->white_rating = rg->white_rating;
        snprintf(g->root, sizeof g->root, "%s", rg->root_sfen);
        g->variation = rg->variation;
        g->line = rg->line;
        size_t p = 0;
        g->moves[0] = 0;
        for (int i = 0; i < rg->n_moves && p + 10 < sizeof g->moves; i++) {
            char b[USI_MOVE_MAX];
            p +=
                (size_t)snprintf(g->moves + p, sizeof g->moves - p, "%s%s", i ? " " : "", move_to_usi(rg->moves[i], b));
        }
    }
    got->games++;
    return true;
}

static inline void got_error(void *ctx, const char *file, uint64_t line, const char *reason) {
    (void)file;
    Got *got = ctx;
    if (got->errors < 16) {
        got->err_line[got->errors] = line;
        snprintf(got->err[got->errors], sizeof got->err[0], "%s", reason);
    }
    got->errors++;
}

static inline void read_into(const char *path, Got *got, bool variations) {
    memset(got, 0, sizeof *got);
    RecordReadOptions o = {.on_game = got_game, .on_error = got_error, .ctx = got, .variations = variations};
    char err[256];
    if (!record_read_file(path, REC_FMT_AUTO, &o, NULL, err, sizeof err))
        fail_msg("%s", err);
}

static inline void read_mem(const char *text, RecordFormat fmt, Got *got, bool variations) {
    memset(got, 0, sizeof *got);
    RecordReadOptions o = {.on_game = got_game, .on_error = got_error, .ctx = got, .variations = variations};
    char err[256];
    if (!record_read_memory("mem", text, strlen(text), fmt, &o, NULL, err, sizeof err))
        fail_msg("%s", err);
}

static inline bool starts_with(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

#endif
