/* openings_gen.c - see openings_gen.h. */
#include "match/openings_gen.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "shogi/movegen.h"
#include "shogi/notation.h"
#include "shogi/rules.h"
#include "util/random.h"

/* The end-position keys of the lines kept: open addressing, grown at half load. */
typedef struct {
    uint64_t *slots; /* 0 = empty; a key of 0 is stored as 1 */
    size_t cap, n;
} KeySet;

static bool keyset_grow(KeySet *s) {
    size_t cap = s->cap ? s->cap * 2 : 1024;
    uint64_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < s->cap; i++) {
        uint64_t k = s->slots[i];
        if (!k)
            continue;
        size_t j = (size_t)(k * 0x9E3779B97F4A7C15ull) & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = k;
    }
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
    return true;
}

static size_t keyset_home(const KeySet *s, uint64_t k) { return (size_t)(k * 0x9E3779B97F4A7C15ull) & (s->cap - 1); }

static bool keyset_has(const KeySet *s, uint64_t k) {
    if (!k)
        k = 1;
    for (size_t j = s->cap ? keyset_home(s, k) : 0; s->cap && s->slots[j]; j = (j + 1) & (s->cap - 1))
        if (s->slots[j] == k)
            return true;
    return false;
}

/* Adds k; *added says whether it was new. False when out of memory. */
static bool keyset_add(KeySet *s, uint64_t k, bool *added) {
    if (!k)
        k = 1;
    if ((s->n + 1) * 2 > s->cap && !keyset_grow(s))
        return false;
    size_t j = keyset_home(s, k);
    while (s->slots[j] && s->slots[j] != k)
        j = (j + 1) & (s->cap - 1);
    *added = !s->slots[j];
    if (*added) {
        s->slots[j] = k;
        s->n++;
    }
    return true;
}

bool openings_generate(const OpeningsGenOptions *opt, Openings *out, int *tries) {
    memset(out, 0, sizeof *out);
    if (tries)
        *tries = 0;
    out->lines = calloc((size_t)(opt->count > 0 ? opt->count : 1), sizeof *out->lines);
    if (!out->lines)
        return false;
    KeySet seen = {NULL, 0, 0};
    uint64_t rng = opt->seed * 0x9E3779B97F4A7C15ull + 1;
    long long max_tries = (long long)opt->count * (opt->tries_per_line > 0 ? opt->tries_per_line : 1);
    bool ok = true;
    int attempt = 0;
    for (; ok && out->n < opt->count && attempt < max_tries; attempt++) {
        if (opt->stop && *opt->stop)
            break;
        Game g;
        game_init(&g);
        int span = opt->max_plies - opt->min_plies + 1;
        int plies = opt->min_plies + (int)(random_xorshift64star(&rng) % (uint64_t)span);
        char line[32 + OPENINGS_GEN_MAX_PLIES * 8] = "startpos moves";
        bool playable = true;
        for (int p = 0; p < plies && playable; p++) {
            ExtMove list[MAX_MOVES];
            int n = generate_moves(&g.pos, GEN_LEGAL, list);
            if (n == 0) {
                playable = false;
                break;
            }
            Move m = list[random_xorshift64star(&rng) % (uint64_t)n].move;
            char buf[USI_MOVE_MAX];
            strcat(line, " ");
            strcat(line, move_to_usi(m, buf));
            playable = game_push(&g, m);
        }
        bool added = false;
        if (playable && position_game_state(&g.pos, 0) == GAME_ONGOING) {
            /* Distinct first (cheap), then the caller's test (maybe a search). */
            uint64_t key = (uint64_t)position_key(&g.pos);
            if (!keyset_has(&seen, key) && (!opt->keep || opt->keep(opt->ctx, &g))) {
                ok = keyset_add(&seen, key, &added);
                if (ok && added) {
                    if (plies == 0)
                        strcpy(line, "startpos");
                    out->lines[out->n] = strdup(line);
                    ok = out->lines[out->n] != NULL;
                    if (ok)
                        out->n++;
                    if (ok && opt->progress)
                        progress_update(opt->progress, (uint64_t)out->n);
                }
            }
        }
        game_free(&g);
    }
    free(seen.slots);
    if (tries)
        *tries = attempt;
    if (!ok) {
        openings_free(out);
        return false;
    }
    return true;
}
