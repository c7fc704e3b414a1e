/* game.c - a position with its history. */
#include "shogi/game.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shogi/notation.h"
#include "util/error.h"

enum { GAME_MAX_MOVES = 100000 };

/* After the state array moves in memory, the chain of previous pointers is rebuilt. */
static void relink(Game *g) {
    g->states[0].previous = NULL;
    for (int i = 1; i <= g->count; i++)
        g->states[i].previous = &g->states[i - 1];
    g->pos.st = &g->states[g->count];
}

static bool reserve(Game *g, int moves) {
    if (moves + 1 <= g->capacity)
        return true;
    if (moves > GAME_MAX_MOVES)
        return false;
    int cap = g->capacity ? g->capacity : 64;
    while (cap < moves + 1)
        cap *= 2;
    StateInfo *s = realloc(g->states, (size_t)cap * sizeof *s);
    if (!s)
        return false;
    g->states = s;
    Move *m = realloc(g->moves, (size_t)cap * sizeof *m);
    if (!m) {
        relink(g);
        return false;
    }
    g->moves = m;
    g->capacity = cap;
    relink(g);
    return true;
}

void game_init(Game *g) {
    memset(g, 0, sizeof *g);
    bool ok = reserve(g, 0);
    if (!ok) {
        fprintf(stderr, "hayanagi: out of memory\n");
        abort();
    }
    position_set_startpos(&g->pos, &g->states[0]);
    strcpy(g->root_sfen, STARTPOS_SFEN);
}

void game_free(Game *g) {
    free(g->states);
    free(g->moves);
    memset(g, 0, sizeof *g);
}

bool game_set_sfen(Game *g, const char *sfen, char *err, size_t err_len) {
    return game_set_sfen_ex(g, sfen, 0, err, err_len);
}

/* Makes pos (set up on st) the game's root, with no moves. */
static void set_root(Game *g, const Position *pos, const StateInfo *st) {
    g->count = 0;
    g->states[0] = *st;
    g->pos = *pos;
    g->pos.st = &g->states[0];
    position_to_sfen(&g->pos, g->root_sfen, true);
}

bool game_set_sfen_ex(Game *g, const char *sfen, int flags, char *err, size_t err_len) {
    Position pos;
    StateInfo st;
    if (!position_from_sfen_ex(&pos, &st, sfen, flags, err, err_len))
        return false;
    set_root(g, &pos, &st);
    return true;
}

bool game_set_position(Game *g, const Position *from, char *err, size_t err_len) {
    Position pos;
    StateInfo st;
    if (!position_from_parts(&pos, &st, from->board, from->hand, from->side, from->ply, err, err_len))
        return false;
    set_root(g, &pos, &st);
    return true;
}

bool game_push(Game *g, Move m) {
    if (!reserve(g, g->count + 1))
        return false;
    g->moves[g->count] = m;
    position_do_move(&g->pos, m, &g->states[g->count + 1]);
    g->count++;
    return true;
}

bool game_pop(Game *g) {
    if (g->count == 0)
        return false;
    g->count--;
    position_undo_move(&g->pos, g->moves[g->count]);
    return true;
}

bool game_copy(Game *dst, const Game *src) {
    memset(dst, 0, sizeof *dst);
    if (!reserve(dst, src->count)) {
        game_free(dst);
        return false;
    }
    memcpy(dst->states, src->states, (size_t)(src->count + 1) * sizeof *dst->states);
    if (src->count)
        memcpy(dst->moves, src->moves, (size_t)src->count * sizeof *dst->moves);
    dst->count = src->count;
    dst->pos = src->pos;
    memcpy(dst->root_sfen, src->root_sfen, sizeof dst->root_sfen);
    relink(dst);
    return true;
}

void game_swap(Game *a, Game *b) {
    Game t = *a;
    *a = *b;
    *b = t;
    if (a->states)
        relink(a);
    if (b->states)
        relink(b);
}

/* Copies the next space-separated token of *s into tok (truncated to tok_len - 1). */
static bool next_token(const char **s, char *tok, size_t tok_len) {
    const char *p = *s;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p)
        return false;
    size_t n = 0;
    while (*p && *p != ' ' && *p != '\t') {
        if (n + 1 < tok_len)
            tok[n++] = *p;
        p++;
    }
    tok[n] = '\0';
    *s = p;
    return true;
}

/* The whitespace before the first "moves" token of s (a token: whitespace on both
 * sides, or the end after it); NULL when there is none. GUIs separate with spaces, but
 * a tab must not turn the keyword into part of the SFEN. */
static const char *find_moves_keyword(const char *s) {
    for (const char *p = s; *p; p++) {
        bool starts = (*p == ' ' || *p == '\t') && strncmp(p + 1, "moves", 5) == 0;
        if (starts && (p[6] == '\0' || p[6] == ' ' || p[6] == '\t'))
            return p;
    }
    return NULL;
}

bool game_set_from_usi(Game *g, const char *args, char *err, size_t err_len) {
    Game tmp;
    game_init(&tmp);
    char tok[64];
    const char *p = args;
    bool ok = false;
    if (!next_token(&p, tok, sizeof tok)) {
        error_set(err, err_len, "position: expected 'startpos' or 'sfen'");
        goto done;
    }
    if (strcmp(tok, "sfen") == 0) {
        /* The SFEN runs up to the keyword "moves" or the end. */
        const char *start = p;
        const char *moves = find_moves_keyword(start);
        size_t len = moves ? (size_t)(moves - start) : strlen(start);
        char sfen[256];
        if (len >= sizeof sfen) {
            error_set(err, err_len, "position: SFEN too long");
            goto done;
        }
        memcpy(sfen, start, len);
        sfen[len] = '\0';
        char why[128];
        if (!game_set_sfen_ex(&tmp, sfen, SFEN_ALLOW_MISSING_KING, why, sizeof why)) {
            error_set(err, err_len, "position: bad sfen: %s", why);
            goto done;
        }
        p = start + len;
    } else if (strcmp(tok, "startpos") != 0) {
        error_set(err, err_len, "position: expected 'startpos' or 'sfen', got '%s'", tok);
        goto done;
    }
    if (next_token(&p, tok, sizeof tok)) {
        if (strcmp(tok, "moves") != 0) {
            error_set(err, err_len, "position: expected 'moves', got '%s'", tok);
            goto done;
        }
        for (int i = 1; next_token(&p, tok, sizeof tok); i++) {
            Move m = position_parse_usi_move(&tmp.pos, tok);
            if (m == MOVE_NONE) {
                Move16 m16;
                error_set(err, err_len, "position: move %d '%s' is %s", i, tok,
                          move16_from_usi(tok, strlen(tok), &m16) ? "illegal" : "malformed");
                goto done;
            }
            if (!game_push(&tmp, m)) {
                error_set(err, err_len, "position: too many moves");
                goto done;
            }
        }
    }
    game_swap(g, &tmp);
    ok = true;
done:
    game_free(&tmp);
    return ok;
}
