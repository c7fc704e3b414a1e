/* grow_play.c - the games of `hayanagi book grow` (grow_play.h). */
#include "cli/book/grow_play.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "match/match.h"
#include "match/node_jitter.h"
#include "record/csa_write.h"
#include "util/interrupt.h"
#include "util/long_job.h"
#include "util/progress.h"

static const char PROG[] = "hayanagi book grow";

typedef struct {
    pthread_mutex_t lock;
    GrowPlayTarget t; /* the caller's, copied: next_file and have advance as games are written */
    uint64_t base;    /* games in DIR when the match running started */
    int opponent;     /* the opponent of the match running */
    int n_games;      /* its games */
    int first_open;   /* its first game not dealt with yet */
    int concurrency;
    bool *handled;   /* per game of the match: finished and dealt with */
    uint8_t *picked; /* per game and ply < max_ply: the tree chose that move */
    uint64_t this_run;
    int kept, dropped; /* in the match running */
    int score[GROW_MAX_OPPONENTS][3];
    char names[GROW_MAX_OPPONENTS][RECORD_NAME_MAX];
    bool write_failed;
    Progress progress; /* this run's games; those in DIR before it as "before" */
} Play;

static bool book_move(void *ctx, int k, int idx, const Game *g, Move *out) {
    Play *p = ctx;
    if (k != 0 || g->count >= p->t.max_ply || strcmp(g->root_sfen, STARTPOS_SFEN) != 0)
        return false;
    pthread_mutex_lock(&p->lock);
    bool hit = grow_tree_choose(p->t.tree, g->moves, g->count, out);
    if (hit)
        p->picked[(size_t)idx * (size_t)p->t.max_ply + (size_t)g->count] = 1;
    pthread_mutex_unlock(&p->lock);
    return hit;
}

/* MatchConfig.game_nodes: game idx of the match running is game base + idx + 1 of DIR's
 * schedule; k 0 is the player, 1 the opponent. Reads only what play() set before the match. */
static int64_t game_nodes(void *ctx, int k, int idx, int64_t nodes) {
    const Play *p = ctx;
    return match_jittered_nodes(nodes, p->t.jitter, p->t.seed, p->base + (uint64_t)idx + 1, k);
}

/* MatchConfig.search_moves: progressive widening at the player's turn in the tree. */
static int search_moves(void *ctx, int k, int idx, const Game *g, Move *out) {
    Play *p = ctx;
    (void)idx;
    if (k != 0 || g->count >= p->t.max_ply || strcmp(g->root_sfen, STARTPOS_SFEN) != 0)
        return 0;
    pthread_mutex_lock(&p->lock);
    int n = grow_tree_widen(p->t.tree, g->moves, g->count, out);
    pthread_mutex_unlock(&p->lock);
    return n;
}

/* Takes the games in progress that the tree counted for game idx back (lock held). */
static void release_picks(Play *p, int idx, const GameRecord *r) {
    uint8_t *row = &p->picked[(size_t)idx * (size_t)p->t.max_ply];
    for (int i = 0; i < p->t.max_ply && i < r->n_moves; i++)
        if (row[i]) {
            grow_tree_release(p->t.tree, r->moves, i, r->moves[i]);
            row[i] = 0;
        }
}

static RecordResult result_of(GameOutcome o) {
    return o == OUTCOME_BLACK_WINS ? REC_BLACK_WIN : o == OUTCOME_WHITE_WINS ? REC_WHITE_WIN : REC_DRAW;
}

/* Writes one game to its own file, its event GROW_EVENT and its number (which marks it
 * as book grow's own: widening counts it), the event also in *copy; false (reason on
 * stderr, above the bar) when it could not be. */
static bool write_game(Play *p, const GameRecord *r, GameRecord *copy) {
    *copy = *r; /* shallow: only the event changes */
    snprintf(copy->event, sizeof copy->event, GROW_EVENT "%llu", (unsigned long long)p->t.have + 1);
    char err[512], path[PATH_MAX];
    snprintf(path, sizeof path, "%s/grow-%06d.csa", p->t.dir, p->t.next_file);
    bool ok = csa_write_games_file(path, copy, NULL, 1, err, sizeof err);
    if (!ok)
        progress_line(&p->progress, "%s: writing %s: %s; stopping", PROG, path, err);
    else
        p->t.next_file++;
    return ok;
}

/* The progress line's status (util/progress.h): the book so far and this run's score
 * against each opponent; called under p->lock, or after the games. */
static void grow_status(void *ctx, char *buf, size_t len) {
    Play *p = ctx;
    GrowSummary s;
    grow_tree_summary(p->t.tree, &s);
    size_t used = (size_t)snprintf(buf, len, "book %llu positions, %.2f plies in book per game",
                                   (unsigned long long)s.nodes, s.games ? (double)s.book_plies / (double)s.games : 0.0);
    for (int j = 0; j < GROW_MAX_OPPONENTS && p->names[j][0] && used < len; j++)
        used += (size_t)snprintf(buf + used, len - used, " | vs %s +%d =%d -%d", p->names[j], p->score[j][0],
                                 p->score[j][1], p->score[j][2]);
}

/* MatchConfig.print_line: the runner's game lines and warnings, above the bar (the
 * runner's lock held; p->lock for the status the redrawn bar shows). */
static void print_line(void *ctx, const char *line) {
    Play *p = ctx;
    pthread_mutex_lock(&p->lock);
    progress_line(&p->progress, "%s", line);
    pthread_mutex_unlock(&p->lock);
}

/* MatchConfig.on_game: each newly finished game is written to its file, then added to
 * the tree; a game an engine crashed or hung in is dropped. */
static void on_game(void *ctx, const MatchResult *res) {
    Play *p = ctx;
    pthread_mutex_lock(&p->lock);
    if (!p->names[p->opponent][0])
        snprintf(p->names[p->opponent], sizeof p->names[p->opponent], "%s", res->names[1]);
    /* Games start in index order and at most `concurrency` are in flight, so past the first
     * game not dealt with, concurrency + 1 records not yet filled in (zero) mean that no
     * later game has started: the scan stays short however long the match is. */
    while (p->first_open < p->n_games && p->handled[p->first_open])
        p->first_open++;
    int open = 0;
    for (int i = p->first_open; i < res->n_records && i < p->n_games && open <= p->concurrency; i++) {
        const GameRecord *r = &res->records[i];
        open += !r->root_sfen[0];
        if (p->handled[i] || r->end == END_NONE)
            continue;
        p->handled[i] = true;
        release_picks(p, i, r);
        /* a crash, or a hang (no answer even to stop: the runner killed it), says nothing
         * about the opening; a slow move on the clock is a real loss and stays */
        if (r->end == END_CRASH || (r->end == END_TIME && strstr(r->detail, "no answer to stop"))) {
            progress_line(&p->progress, "%s: game dropped (an engine crashed or hung; it was restarted): %s", PROG,
                          r->detail);
            p->dropped++;
            continue;
        }
        if (p->write_failed || p->t.have >= p->t.goal)
            continue;
        GameRecord written;
        if (!write_game(p, r, &written)) {
            p->write_failed = true;
            *interrupt_flag() = 1; /* the runner's stop: finish nothing new */
            continue;
        }
        p->t.have++;
        p->this_run++;
        p->kept++;
        bool player_black = !strcmp(r->black, res->names[0]);
        int w = r->outcome == OUTCOME_DRAW ? 1 : (r->outcome == OUTCOME_BLACK_WINS) == player_black ? 0 : 2;
        p->score[p->opponent][w]++;
        /* as the file reads back (its event included), so the tree in play is the tree
         * the next run loads */
        if (grow_tree_add_game(p->t.tree, r->root_sfen, r->moves, r->n_moves, result_of(r->outcome), r->black, r->white,
                               written.event) == GROW_OOM) {
            progress_line(&p->progress, "%s: out of memory", PROG);
            p->write_failed = true;
            *interrupt_flag() = 1;
        }
        progress_update(&p->progress, p->this_run);
    }
    pthread_mutex_unlock(&p->lock);
}

/* The rounds of matches of grow_play(). */
static int play_rounds(const GrowPlaySetup *ps, Play *p) {
    int chunk = 8 * ps->concurrency < 32 ? 32 : 8 * ps->concurrency;
    int status = 0;
    for (int round = 0; status == 0 && p->t.have < p->t.goal && !interrupt_requested(); round++) {
        for (int j = 0; j < ps->n_opponents && status == 0 && p->t.have < p->t.goal && !interrupt_requested(); j++) {
            uint64_t left = p->t.goal - p->t.have;
            /* one opponent: one match of every game (no round costs a restart); several: a
             * round gives each of them `chunk` games, so that they take turns */
            int games = ps->n_opponents == 1 ? (left > INT_MAX / 64 ? INT_MAX / 64 : (int)left)
                                             : (left < (uint64_t)chunk ? (int)left : chunk);
            MatchConfig cfg;
            memset(&cfg, 0, sizeof cfg);
            for (int k = 0; k < 2; k++) {
                cfg.engines[k].cmd = ps->cmd[k == 0 ? 0 : 1 + j];
                cfg.engines[k].options = ps->opts[k];
                cfg.engines[k].n_options = ps->n_opts[k];
                cfg.engines[k].go_extra = ps->go_extra[1 + k] ? ps->go_extra[1 + k] : ps->go_extra[0];
                cfg.engines[k].tc = ps->tc[k];
                cfg.engines[k].grace_ms = ps->grace[k];
                cfg.engines[k].swap_clocks = ps->swap_clocks[k];
            }
            cfg.engines[0].name = ps->player_name;
            cfg.games = games;
            cfg.concurrency = ps->concurrency;
            cfg.max_moves = ps->max_moves;
            cfg.move_timeout_ms = ps->move_timeout;
            cfg.ekr = EKR_27;
            cfg.openings = ps->startmoves.n > 0 ? &ps->startmoves : NULL;
            cfg.inherit_stderr = ps->engine_stderr;
            cfg.out = stderr;
            cfg.print_line = print_line; /* the game lines go above the bar */
            cfg.print_line_ctx = p;
            cfg.stop_flag = interrupt_flag();
            cfg.on_game = on_game;
            cfg.on_game_ctx = p;
            cfg.book_move = book_move;
            cfg.book_move_ctx = p;
            if (p->t.widen) {
                cfg.search_moves = search_moves;
                cfg.search_moves_ctx = p;
            }
            if (p->t.jitter > 0) {
                cfg.game_nodes = game_nodes;
                cfg.game_nodes_ctx = p;
            }
            p->base = p->t.have;
            p->handled = calloc((size_t)games, sizeof *p->handled);
            p->picked = calloc((size_t)games * (size_t)p->t.max_ply, 1);
            if (!p->handled || !p->picked) {
                fprintf(stderr, "%s: out of memory\n", PROG);
                free(p->handled);
                free(p->picked);
                return 1;
            }
            p->opponent = j;
            p->n_games = games;
            p->first_open = 0;
            p->concurrency = ps->concurrency;
            p->kept = p->dropped = 0;
            MatchResult res;
            char err[768];
            bool ok = match_run(&cfg, &res, err, sizeof err);
            if (ok || res.names[1][0])
                snprintf(p->names[j], sizeof p->names[j], "%s", res.names[1]);
            pthread_mutex_lock(&p->lock);
            for (int i = 0; i < res.n_records && i < games; i++)
                if (!p->handled[i]) /* unfinished: its moves leave the policy's count */
                    release_picks(p, i, &res.records[i]);
            pthread_mutex_unlock(&p->lock);
            if (!ok) {
                fprintf(stderr, "%s: %s\n", PROG, err);
                status = 1;
            } else if (p->write_failed)
                status = 1;
            else if (p->kept == 0 && p->dropped > 0) {
                fprintf(stderr, "%s: every game against %s was dropped (the engine crashes); stopping\n", PROG,
                        ps->cmd[1 + j]);
                status = 1;
            }
            match_result_free(&res);
            free(p->handled);
            free(p->picked);
            p->handled = NULL;
            p->picked = NULL;
        }
    }
    if (status == 0 && interrupt_requested())
        status = INTERRUPT_EXIT_STATUS;
    return status;
}

int grow_play(const GrowPlaySetup *ps, const GrowPlayTarget *t, uint64_t *played) {
    Play *p = calloc(1, sizeof *p);
    if (!p) {
        fprintf(stderr, "%s: out of memory\n", PROG);
        return 1;
    }
    pthread_mutex_init(&p->lock, NULL);
    p->t = *t;
    progress_start(&p->progress, stderr, "grow", p->t.goal - p->t.have, p->t.quiet);
    progress_set_rate(&p->progress, "games", p->t.have);
    progress_set_status(&p->progress, grow_status, p);
    LongJob job;
    long_job_begin(&job);
    int status = play_rounds(ps, p);
    long_job_end(&job);
    progress_finish(&p->progress);
    *played = p->this_run;
    pthread_mutex_destroy(&p->lock);
    free(p);
    return status;
}
