/* match.c - the match runner: openings, schedule, clock, adjudication, statistics. */
#include "match/match.h"
#include "match/usi_client.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "shogi/game.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"
#include "util/error.h"

/* ---- Engine options ---- */

bool engine_option_from_arg(const char *arg, EngineOption *out, char **storage, const char **why) {
    *storage = NULL;
    const char *eq = strchr(arg, '=');
    size_t name_len = eq ? (size_t)(eq - arg) : strlen(arg);
    while (name_len > 0 && arg[name_len - 1] == ' ')
        name_len--;
    if (name_len == 0 || strchr(arg, '\n')) {
        *why = "expects NAME=VALUE";
        return false;
    }
    char *copy = malloc(strlen(arg) + 1);
    if (!copy) {
        *why = "out of memory";
        return false;
    }
    strcpy(copy, arg);
    copy[name_len] = '\0';
    out->name = copy;
    out->value = eq ? copy + (eq - arg) + 1 : NULL;
    *storage = copy;
    return true;
}

/* ---- The match ---- */

typedef struct {
    const MatchConfig *cfg;
    MatchResult *res;
    pthread_mutex_t lock;
    int next_game;
    bool fatal;
    char fatal_msg[768];
    char tc_text[128];
} Shared;

typedef struct {
    Shared *sh;
    int id;
    EngineProc eng[2];
    bool started[2];
    bool need_restart[2];
    bool played[2]; /* the process has begun a game since it started */
    pthread_t thread;
} Worker;

static bool stop_requested(const Shared *sh) { return sh->cfg->stop_flag && *sh->cfg->stop_flag; }

/* The engine (0 or 1) playing black in game idx of the schedule: colours alternate. */
static int black_engine(int idx) { return idx % 2 == 0 ? 0 : 1; }

/* True when game idx was played before and is read back from a resumed record. */
static bool played_before(const MatchConfig *cfg, int idx) {
    return cfg->resumed && cfg->resumed[idx].end != END_NONE && cfg->resumed[idx].outcome != OUTCOME_NONE;
}

/* An option engine k does not declare: reported once (by worker 0, at the first start). */
typedef struct {
    Worker *w;
    int k;
} MissingCtx;

static void missing_option(void *ctx, const char *name) {
    MissingCtx *m = ctx;
    Worker *w = m->w;
    if (w->id != 0 || w->started[m->k])
        return;
    const MatchConfig *cfg = w->sh->cfg;
    const EngineProc *e = &w->eng[m->k];
    char line[512];
    snprintf(line, sizeof line, "warning: engine %d (%s) has no option '%s'; not sent", m->k + 1,
             e->name[0] ? e->name : cfg->engines[m->k].cmd, name);
    pthread_mutex_lock(&w->sh->lock);
    if (cfg->print_line)
        cfg->print_line(cfg->print_line_ctx, line);
    else
        fprintf(cfg->out, "%s\n", line);
    pthread_mutex_unlock(&w->sh->lock);
}

/* Starts engine k of worker w and brings it to readyok with its options set. */
static bool start_engine(Worker *w, int k, char *err, size_t err_len) {
    const MatchConfig *cfg = w->sh->cfg;
    const MatchEngineSpec *spec = &cfg->engines[k];
    EngineProc *e = &w->eng[k];
    char why[256];
    MissingCtx mc = {w, k};
    UsiClientConfig uc = {.cmd = spec->cmd,
                          .stderr_mode = cfg->inherit_stderr ? ENGINE_STDERR_INHERIT : ENGINE_STDERR_NULL,
                          .options = spec->options,
                          .n_options = spec->n_options,
                          .missing_option = missing_option,
                          .ctx = &mc};
    /* Three round trips: the first one may include the engine's own set-up. */
    int64_t best = -1;
    for (int i = 0; i < 3; i++) {
        int64_t dt;
        bool ok = i == 0 ? usi_client_start(e, &uc, &dt, why, sizeof why)
                         : usi_client_ready(e, USI_HANDSHAKE_MS, &dt, why, sizeof why);
        if (!ok) {
            error_set(err, err_len, "engine %d (%s): %s", k + 1, spec->cmd, why);
            engine_close(e, 200);
            return false;
        }
        if (best < 0 || dt < best)
            best = dt;
    }
    if (w->id == 0 && !w->started[k])
        w->sh->res->rtt_us[k] = best;
    w->started[k] = true;
    w->need_restart[k] = false;
    w->played[k] = false;
    return true;
}

/* "position startpos moves ..." or "position sfen ... moves ..." for the game so far. */
static char *position_command(const Game *g) {
    size_t cap = SFEN_MAX + 32 + (size_t)g->count * (USI_MOVE_MAX + 1);
    char *s = malloc(cap);
    if (!s)
        return NULL;
    size_t len;
    if (strcmp(g->root_sfen, STARTPOS_SFEN) == 0)
        len = (size_t)snprintf(s, cap, "position startpos");
    else
        len = (size_t)snprintf(s, cap, "position sfen %s", g->root_sfen);
    if (g->count > 0)
        len += (size_t)snprintf(s + len, cap - len, " moves");
    for (int i = 0; i < g->count; i++) {
        char mv[USI_MOVE_MAX];
        len += (size_t)snprintf(s + len, cap - len, " %s", move_to_usi(g->moves[i], mv));
    }
    return s;
}

char *match_time_control_describe(const MatchConfig *cfg, char *buf, size_t len) {
    const TimeControl tc[2] = {cfg->engines[0].tc, cfg->engines[1].tc};
    return time_controls_describe(tc, buf, len);
}

/* The engine's score as centipawns from black's side, mates as +-(100000 - plies). */
static int32_t black_view_score(const UsiGoResult *t, Color us) {
    if (!t->has_score)
        return RECORD_NO_SCORE;
    int32_t v;
    if (t->scored.score_mate) {
        if (t->scored.score == 0)
            return RECORD_NO_SCORE;
        v = t->scored.score > 0 ? 100000 - t->scored.score : -100000 - t->scored.score;
    } else {
        v = t->scored.score;
    }
    return us == BLACK ? v : -v;
}

static void set_winner(GameRecord *r, GameEnd end, Color winner) {
    r->end = end;
    r->outcome = winner == BLACK ? OUTCOME_BLACK_WINS : OUTCOME_WHITE_WINS;
}

static void set_draw(GameRecord *r, GameEnd end) {
    r->end = end;
    r->outcome = OUTCOME_DRAW;
}

/* Per-game counters gathered while playing, merged into the result under the lock. */
typedef struct {
    int time_losses[2], illegal[2], false_declarations[2], crashes[2];
    int thinks[2];
    double think_ms_sum[2], think_ms_max[2];
} GameCounters;

/* Prepares engine k for a new game: restarted if it died or hung, or (restart_each_game)
 * when it has played a game, then isready and usinewgame. Returns 0 when ready, 1 when
 * the engine failed (it loses the game), -1 when it could not be restarted (fatal). */
static int prepare_engine(Worker *w, int k) {
    EngineProc *e = &w->eng[k];
    char err[512];
    /* a failed engine is restarted and counted; restart_each_game starts a new process
     * for every game after its first, which is no failure */
    bool failed = w->need_restart[k];
    if (failed || (w->sh->cfg->engines[k].restart_each_game && w->played[k])) {
        engine_close(e, failed ? 500 : 2000);
        if (!start_engine(w, k, err, sizeof err)) {
            pthread_mutex_lock(&w->sh->lock);
            if (!w->sh->fatal) {
                w->sh->fatal = true;
                snprintf(w->sh->fatal_msg, sizeof w->sh->fatal_msg, "restart failed: %s", err);
            }
            pthread_mutex_unlock(&w->sh->lock);
            return -1;
        }
        if (failed) {
            pthread_mutex_lock(&w->sh->lock);
            w->sh->res->restarts[k]++;
            pthread_mutex_unlock(&w->sh->lock);
        }
    }
    w->played[k] = true;
    if (!usi_client_newgame(e, USI_HANDSHAKE_MS, err, sizeof err)) {
        w->need_restart[k] = true;
        return 1;
    }
    return 0;
}

/* Plays game idx into rec. Returns false when the match must stop (fatal error). */
static bool play_game(Worker *w, int idx, GameRecord *rec, GameCounters *cnt) {
    const MatchConfig *cfg = w->sh->cfg;
    MatchResult *res = w->sh->res;
    int black_k = black_engine(idx);
    const char *opening =
        cfg->openings && cfg->openings->n > 0 ? cfg->openings->lines[(idx / 2) % cfg->openings->n] : "startpos";

    game_record_init(rec);
    snprintf(rec->black, sizeof rec->black, "%s", res->names[black_k]);
    snprintf(rec->white, sizeof rec->white, "%s", res->names[1 - black_k]);
    snprintf(rec->event, sizeof rec->event, "hayanagi match, game %d of %d", idx + 1, cfg->games);
    snprintf(rec->time_control, sizeof rec->time_control, "%s", w->sh->tc_text);
    rec->start_time = time(NULL);
    TimeControl own[2]; /* per engine for this game */
    int64_t nodes[2];   /* their node budgets, 0: the clock */
    for (int k = 0; k < 2; k++) {
        own[k] = cfg->engines[k].tc;
        nodes[k] = own[k].nodes;
        if (nodes[k] > 0 && cfg->game_nodes) {
            int64_t n = cfg->game_nodes(cfg->game_nodes_ctx, k, idx, nodes[k]);
            nodes[k] = n > 0 ? n : 1;
        }
        own[k].nodes = nodes[k];
    }
    rec->clock[BLACK] = time_control_for_record(&own[black_k]);
    rec->clock[WHITE] = time_control_for_record(&own[1 - black_k]);
    if (cfg->game_nodes && (nodes[0] > 0 || nodes[1] > 0)) {
        size_t used = strlen(rec->time_control);
        snprintf(rec->time_control + used, sizeof rec->time_control - used, "; this game:");
        for (int c = 0; c < 2; c++) { /* black first */
            int k = c == 0 ? black_k : 1 - black_k;
            used = strlen(rec->time_control);
            if (nodes[k] > 0)
                snprintf(rec->time_control + used, sizeof rec->time_control - used, "%s %s nodes %lld",
                         used > 0 && rec->time_control[used - 1] == ':' ? "" : ",", c == 0 ? "black" : "white",
                         (long long)nodes[k]);
        }
    }

    Game g;
    game_init(&g);
    char err[256];
    if (!game_set_from_usi(&g, opening, err, sizeof err)) { /* validated when loaded */
        game_free(&g);
        return true;
    }
    snprintf(rec->root_sfen, sizeof rec->root_sfen, "%s", g.root_sfen);
    for (int i = 0; i < g.count; i++)
        if (!game_record_push(rec, g.moves[i], -1, RECORD_NO_SCORE))
            goto oom;
    rec->n_opening = g.count;

    for (int k = 0; k < 2; k++) {
        int r = prepare_engine(w, k);
        if (r < 0) {
            game_free(&g);
            return false;
        }
        if (r > 0) {
            Color loser = k == black_k ? BLACK : WHITE;
            set_winner(rec, END_CRASH, color_flip(loser));
            snprintf(rec->detail, sizeof rec->detail, "%s did not answer isready before the game", res->names[k]);
            cnt->crashes[k]++;
            goto done;
        }
    }

    MatchClock clock;
    match_clock_start(&clock, &own[black_k], &own[1 - black_k]);
    for (;;) {
        if (stop_requested(w->sh))
            break;
        GameState st = position_game_state(&g.pos, cfg->max_moves);
        Color us = g.pos.side;
        if (st == GAME_MATED) {
            set_winner(rec, END_MATE, color_flip(us));
            break;
        }
        if (st == GAME_REPETITION) {
            set_draw(rec, END_REPETITION);
            break;
        }
        if (st == GAME_PERPETUAL_WIN || st == GAME_PERPETUAL_LOSS) {
            set_winner(rec, END_PERPETUAL_CHECK, st == GAME_PERPETUAL_WIN ? us : color_flip(us));
            snprintf(rec->detail, sizeof rec->detail, "fourfold repetition with %s giving perpetual check",
                     st == GAME_PERPETUAL_WIN ? (us == BLACK ? "white" : "black") : (us == BLACK ? "black" : "white"));
            break;
        }
        if (st == GAME_MAX_MOVES) {
            set_draw(rec, END_MAX_MOVES);
            snprintf(rec->detail, sizeof rec->detail, "draw by the move limit (%d)", cfg->max_moves);
            break;
        }
        int k = us == BLACK ? black_k : 1 - black_k;
        Move book = MOVE_NONE;
        if (cfg->book_move && cfg->book_move(cfg->book_move_ctx, k, idx, &g, &book) &&
            (book = position_legal_move_from16(&g.pos, move_to_move16(book))) != MOVE_NONE) {
            if (!game_push(&g, book) || !game_record_push(rec, book, 0, RECORD_NO_SCORE))
                goto oom;
            match_clock_charge(&clock, us, 0); /* a completed move of 0 ms */
            continue;                          /* played at once: no think */
        }
        EngineProc *e = &w->eng[k];
        char *pos_cmd = position_command(&g);
        if (!pos_cmd)
            goto oom;
        char go[512 + MAX_MOVES * 7];
        bool by_nodes = match_clock_by_nodes(&clock, us);
        match_clock_go(&clock, us, cfg->engines[k].swap_clocks, go, sizeof go);
        const char *extra = cfg->engines[k].go_extra;
        if (extra && *extra) {
            size_t used = strlen(go);
            snprintf(go + used, sizeof go - used, " %s", extra);
        }
        Move only[MAX_MOVES];
        int n_only = cfg->search_moves ? cfg->search_moves(cfg->search_moves_ctx, k, idx, &g, only) : 0;
        for (int i = 0; i < n_only && i < MAX_MOVES; i++) {
            size_t used = strlen(go);
            char mv[USI_MOVE_MAX];
            snprintf(go + used, sizeof go - used, "%s %s", i == 0 ? " searchmoves" : "", move_to_usi(only[i], mv));
        }
        int64_t allowed_ms = by_nodes ? cfg->move_timeout_ms : match_clock_allowed_ms(&clock, us);
        int64_t limit_ms = by_nodes ? cfg->move_timeout_ms : allowed_ms + cfg->engines[k].grace_ms;
        UsiGoResult t;
        UsiGo ask = {.position_line = pos_cmd, .go_line = go, .limit_us = limit_ms * 1000, .pos = &g.pos};
        usi_client_go(e, &ask, &t);
        free(pos_cmd);
        if (t.status == USI_GO_ABORTED) {
            if (t.hung)
                w->need_restart[k] = true;
            break;
        }
        if (t.status == USI_GO_EOF || t.status == USI_GO_JUNK) {
            set_winner(rec, END_CRASH, color_flip(us));
            if (t.status == USI_GO_EOF)
                snprintf(rec->detail, sizeof rec->detail, "%s exited or closed its output while thinking",
                         res->names[k]);
            else
                snprintf(rec->detail, sizeof rec->detail,
                         "%s printed more than %d lines that are no USI while thinking", res->names[k], USI_JUNK_MAX);
            cnt->crashes[k]++;
            w->need_restart[k] = true;
            break;
        }
        double elapsed_ms = t.elapsed_us / 1000.0;
        cnt->thinks[k]++;
        cnt->think_ms_sum[k] += elapsed_ms;
        if (elapsed_ms > cnt->think_ms_max[k])
            cnt->think_ms_max[k] = elapsed_ms;
        if (t.status == USI_GO_TIMEOUT || (!by_nodes && t.elapsed_us > limit_ms * 1000)) {
            set_winner(rec, END_TIME, color_flip(us));
            if (t.status == USI_GO_TIMEOUT)
                snprintf(rec->detail, sizeof rec->detail,
                         "%s: no bestmove within %lld ms (%lld ms allowed + %lld ms grace)%s", res->names[k],
                         (long long)limit_ms, (long long)(by_nodes ? limit_ms : allowed_ms),
                         (long long)(by_nodes ? 0 : cfg->engines[k].grace_ms),
                         t.hung ? "; no answer to stop, killed" : "");
            else
                snprintf(rec->detail, sizeof rec->detail, "%s: bestmove after %.1f ms, %lld ms allowed + %lld ms grace",
                         res->names[k], elapsed_ms, (long long)allowed_ms, (long long)cfg->engines[k].grace_ms);
            cnt->time_losses[k]++;
            if (t.hung)
                w->need_restart[k] = true;
            break;
        }
        if (t.kind == USI_BESTMOVE_RESIGN) {
            set_winner(rec, END_RESIGN, color_flip(us));
            break;
        }
        if (t.kind == USI_BESTMOVE_WIN) {
            Move decl = position_declaration(&g.pos, cfg->ekr);
            if (cfg->ekr == EKR_TRY && decl != MOVE_NONE) {
                if (!game_push(&g, decl) || !game_record_push(rec, decl, (int32_t)elapsed_ms, RECORD_NO_SCORE))
                    goto oom;
                set_winner(rec, END_DECLARATION, us);
                snprintf(rec->detail, sizeof rec->detail, "try: the king reached the try square");
            } else if (decl == MOVE_WIN) {
                set_winner(rec, END_DECLARATION, us);
                snprintf(rec->detail, sizeof rec->detail, "entering-king declaration (%s)",
                         entering_king_rule_name(cfg->ekr));
            } else {
                set_winner(rec, END_FALSE_DECLARATION, color_flip(us));
                snprintf(rec->detail, sizeof rec->detail, "%s declared a win the rule (%s) does not grant",
                         res->names[k], entering_king_rule_name(cfg->ekr));
                cnt->false_declarations[k]++;
            }
            break;
        }
        Move m = t.kind == USI_BESTMOVE_MOVE ? t.best : MOVE_NONE;
        if (m == MOVE_NONE) {
            set_winner(rec, END_ILLEGAL, color_flip(us));
            snprintf(rec->detail, sizeof rec->detail, "%s played an illegal move: 'bestmove %s'", res->names[k],
                     t.bestmove);
            cnt->illegal[k]++;
            break;
        }
        if (!game_push(&g, m) || !game_record_push(rec, m, (int32_t)elapsed_ms, black_view_score(&t, us)))
            goto oom;
        match_clock_charge(&clock, us, (int64_t)elapsed_ms);
        if (cfg->ekr == EKR_TRY && g.pos.king_sq[us] == (us == BLACK ? square_make(4, 0) : square_make(4, 8))) {
            set_winner(rec, END_DECLARATION, us);
            snprintf(rec->detail, sizeof rec->detail, "try: the king reached the try square");
            break;
        }
    }
done:
    rec->end_time = time(NULL);
    for (int k = 0; k < 2 && rec->end != END_NONE; k++) {
        if (w->need_restart[k])
            continue;
        Color c = k == black_k ? BLACK : WHITE;
        const char *word = rec->outcome == OUTCOME_DRAW                           ? "gameover draw"
                           : (rec->outcome == OUTCOME_BLACK_WINS) == (c == BLACK) ? "gameover win"
                                                                                  : "gameover lose";
        if (!engine_send(&w->eng[k], word))
            w->need_restart[k] = true;
    }
    game_free(&g);
    return true;
oom:
    game_free(&g);
    pthread_mutex_lock(&w->sh->lock);
    if (!w->sh->fatal) {
        w->sh->fatal = true;
        snprintf(w->sh->fatal_msg, sizeof w->sh->fatal_msg, "out of memory");
    }
    pthread_mutex_unlock(&w->sh->lock);
    return false;
}

static const char *end_word(GameEnd e) {
    static const char *const WORDS[END_NB] = {
        "unfinished", "resign", "mate",         "repetition", "perpetual check", "declaration", "false declaration",
        "move limit", "time",   "illegal move", "crash"};
    return e >= 0 && e < END_NB ? WORDS[e] : "?";
}

/* Counts a finished game's end and outcome into the result (lock held); returns the
 * outcome's words ("black wins", "draw"). */
static const char *tally_outcome(MatchResult *res, int idx, const GameRecord *rec) {
    int black_k = black_engine(idx);
    res->played++;
    res->ends[rec->end]++;
    if (rec->outcome == OUTCOME_DRAW) {
        res->draws++;
        return "draw";
    }
    bool black_won = rec->outcome == OUTCOME_BLACK_WINS;
    if (black_won)
        res->black_wins++;
    else
        res->white_wins++;
    bool first_won = black_won == (black_k == 0);
    if (first_won)
        res->wins++;
    else
        res->losses++;
    return black_won ? "black wins" : "white wins";
}

/* Merges a finished game into the result and prints its progress line (lock held). */
static void record_finished(Shared *sh, int idx, const GameRecord *rec, const GameCounters *cnt) {
    MatchResult *res = sh->res;
    const MatchConfig *cfg = sh->cfg;
    for (int k = 0; k < 2; k++) {
        res->time_losses[k] += cnt->time_losses[k];
        res->illegal[k] += cnt->illegal[k];
        res->false_declarations[k] += cnt->false_declarations[k];
        res->crashes[k] += cnt->crashes[k];
        res->thinks[k] += cnt->thinks[k];
        res->think_ms_sum[k] += cnt->think_ms_sum[k];
        if (cnt->think_ms_max[k] > res->think_ms_max[k])
            res->think_ms_max[k] = cnt->think_ms_max[k];
    }
    if (rec->end == END_NONE)
        return;
    const char *what = tally_outcome(res, idx, rec);
    char line[600];
    snprintf(line, sizeof line, "game %d/%d: %s (black) - %s (white): %s by %s after %d moves | %s: +%d =%d -%d",
             idx + 1, cfg->games, rec->black, rec->white, what, end_word(rec->end), rec->n_moves, res->names[0],
             res->wins, res->draws, res->losses);
    if (cfg->print_line)
        cfg->print_line(cfg->print_line_ctx, line); /* e.g. above the caller's bar */
    else if (cfg->tty)
        fprintf(cfg->out, "\r\033[K[%d/%d done] %s", res->played, cfg->games, line);
    else
        fprintf(cfg->out, "%s\n", line);
    fflush(cfg->out);
}

/* Counts the games a resumed match played before (MatchConfig.resumed): their outcomes,
 * and the time losses, illegal moves, false declarations and crashes their ends name. */
static void tally_resumed(MatchResult *res, const MatchConfig *cfg) {
    for (int idx = 0; idx < cfg->games; idx++) {
        if (!played_before(cfg, idx))
            continue;
        const GameRecord *rec = &cfg->resumed[idx];
        tally_outcome(res, idx, rec);
        if (rec->outcome == OUTCOME_DRAW)
            continue;
        int black_k = black_engine(idx);
        int loser = (rec->outcome == OUTCOME_BLACK_WINS) ? 1 - black_k : black_k;
        res->time_losses[loser] += rec->end == END_TIME;
        res->illegal[loser] += rec->end == END_ILLEGAL;
        res->false_declarations[loser] += rec->end == END_FALSE_DECLARATION;
        res->crashes[loser] += rec->end == END_CRASH;
    }
}

/* The next game of the schedule not played before (lock held); -1 when none is left. */
static int next_unplayed(Shared *sh) {
    const MatchConfig *cfg = sh->cfg;
    while (sh->next_game < cfg->games && played_before(cfg, sh->next_game))
        sh->next_game++;
    return sh->next_game < cfg->games ? sh->next_game++ : -1;
}

static void *worker_main(void *arg) {
    Worker *w = arg;
    Shared *sh = w->sh;
    char err[512];
    for (int k = 0; k < 2; k++) {
        if (w->started[k])
            continue;
        if (!start_engine(w, k, err, sizeof err)) {
            pthread_mutex_lock(&sh->lock);
            if (!sh->fatal) {
                sh->fatal = true;
                snprintf(sh->fatal_msg, sizeof sh->fatal_msg, "%s", err);
            }
            pthread_mutex_unlock(&sh->lock);
            goto out;
        }
    }
    for (;;) {
        pthread_mutex_lock(&sh->lock);
        int idx = -1;
        if (!sh->fatal && !stop_requested(sh))
            idx = next_unplayed(sh);
        pthread_mutex_unlock(&sh->lock);
        if (idx < 0)
            break;
        GameRecord rec;
        GameCounters cnt;
        memset(&cnt, 0, sizeof cnt);
        bool go_on = play_game(w, idx, &rec, &cnt);
        pthread_mutex_lock(&sh->lock);
        sh->res->records[idx] = rec;
        /* the record first, then the progress line: a game announced is a game kept */
        if (sh->cfg->on_game && rec.end != END_NONE)
            sh->cfg->on_game(sh->cfg->on_game_ctx, sh->res);
        record_finished(sh, idx, &rec, &cnt);
        pthread_mutex_unlock(&sh->lock);
        if (!go_on)
            break;
    }
out:
    for (int k = 0; k < 2; k++)
        engine_close(&w->eng[k], ENGINE_QUIT_WAIT_MS);
    return NULL;
}

bool match_run(const MatchConfig *cfg, MatchResult *res, char *err, size_t err_len) {
    memset(res, 0, sizeof *res);
    if (cfg->games < 1) {
        return error_set(err, err_len, "no games to play");
    }
    res->records = calloc((size_t)cfg->games, sizeof *res->records);
    if (!res->records) {
        return error_set(err, err_len, "out of memory");
    }
    res->n_records = cfg->games;
    int workers_n = cfg->concurrency < 1 ? 1 : cfg->concurrency;
    if (workers_n > cfg->games)
        workers_n = cfg->games;
    Worker *workers = calloc((size_t)workers_n, sizeof *workers);
    if (!workers) {
        return error_set(err, err_len, "out of memory");
    }
    Shared sh;
    memset(&sh, 0, sizeof sh);
    sh.cfg = cfg;
    sh.res = res;
    pthread_mutex_init(&sh.lock, NULL);
    match_time_control_describe(cfg, sh.tc_text, sizeof sh.tc_text);
    for (int i = 0; i < workers_n; i++) {
        workers[i].sh = &sh;
        workers[i].id = i;
        for (int k = 0; k < 2; k++) {
            engine_init(&workers[i].eng[k]);
            workers[i].eng[k].log = cfg->log;
            workers[i].eng[k].abort_flag = cfg->stop_flag;
            snprintf(workers[i].eng[k].tag, sizeof workers[i].eng[k].tag, "w%d e%d", i + 1, k + 1);
        }
    }

    /* Worker 0's engines start here, before any thread: a bad command fails at once, and
     * the names are known before the first record is made. */
    bool ok = true;
    for (int k = 0; k < 2 && ok; k++)
        ok = start_engine(&workers[0], k, err, err_len);
    if (ok) {
        for (int k = 0; k < 2; k++) {
            const char *name = cfg->engines[k].name;
            if (!name || !*name)
                name = workers[0].eng[k].name[0] ? workers[0].eng[k].name : cfg->engines[k].cmd;
            snprintf(res->names[k], sizeof res->names[k], "%s", name);
        }
        if (strcmp(res->names[0], res->names[1]) == 0) {
            size_t n = strlen(res->names[1]);
            if (n > sizeof res->names[1] - 4)
                n = sizeof res->names[1] - 4;
            snprintf(res->names[1] + n, sizeof res->names[1] - n, " #2");
        }
        tally_resumed(res, cfg);
        int launched = 1;
        for (int i = 1; i < workers_n; i++) {
            if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) != 0)
                break;
            launched++;
        }
        worker_main(&workers[0]);
        for (int i = 1; i < launched; i++)
            pthread_join(workers[i].thread, NULL);
        if (cfg->tty && !cfg->print_line && res->played > 0)
            fprintf(cfg->out, "\n");
        if (sh.fatal) {
            error_set(err, err_len, "%s", sh.fatal_msg);
            ok = false;
        }
    } else {
        for (int k = 0; k < 2; k++)
            engine_close(&workers[0].eng[k], 500);
    }
    res->interrupted = stop_requested(&sh);
    pthread_mutex_destroy(&sh.lock);
    free(workers);
    return ok;
}

void match_print_summary(const MatchResult *res, FILE *out) {
    const char *a = res->names[0], *b = res->names[1];
    EloEstimate e = elo_estimate(res->wins, res->draws, res->losses);
    char elo[16], lo[16], hi[16];
    if (res->interrupted)
        fprintf(out, "Interrupted: %d game(s) finished\n", res->played);
    if (res->played == 0) {
        fprintf(out, "Result: %s vs %s: no games finished\n", a, b);
    } else {
        fprintf(out, "Result: %s vs %s: +%d =%d -%d (%d game%s), score %.1f%%, Elo %s [%s, %s] (95%%), LOS %.1f%%\n", a,
                b, res->wins, res->draws, res->losses, res->played, res->played == 1 ? "" : "s", 100.0 * e.score,
                elo_format(e.elo, elo, sizeof elo), elo_format(e.elo_lo, lo, sizeof lo),
                elo_format(e.elo_hi, hi, sizeof hi), 100.0 * e.los);
        fprintf(out, "By colour: black won %d, white won %d, draws %d\n", res->black_wins, res->white_wins, res->draws);
    }
    fprintf(out, "Time losses: %s %d, %s %d\n", a, res->time_losses[0], b, res->time_losses[1]);
    if (res->thinks[0] + res->thinks[1] > 0) {
        fprintf(out, "Move time:");
        for (int k = 0; k < 2; k++)
            fprintf(out, "%s %s mean %.1f ms, longest %.1f ms (%d move%s)", k ? ";" : "", res->names[k],
                    res->thinks[k] ? res->think_ms_sum[k] / res->thinks[k] : 0.0, res->think_ms_max[k], res->thinks[k],
                    res->thinks[k] == 1 ? "" : "s");
        fprintf(out, "\n");
    }
    fprintf(out, "Illegal moves: %s %d, %s %d\n", a, res->illegal[0], b, res->illegal[1]);
    fprintf(out, "False declarations: %s %d, %s %d\n", a, res->false_declarations[0], b, res->false_declarations[1]);
    fprintf(out, "Crashes: %s %d, %s %d (restarts %d, %d)\n", a, res->crashes[0], b, res->crashes[1], res->restarts[0],
            res->restarts[1]);
    fprintf(out, "Game ends:");
    bool first = true;
    for (int i = 1; i < END_NB; i++) {
        if (res->ends[i] == 0)
            continue;
        fprintf(out, "%s %s %d", first ? "" : ",", end_word((GameEnd)i), res->ends[i]);
        first = false;
    }
    fprintf(out, "%s\n", first ? " none" : "");
    fprintf(out, "Pipe round trip (isready -> readyok, best of 3): %s %.3f ms, %s %.3f ms\n", a,
            res->rtt_us[0] / 1000.0, b, res->rtt_us[1] / 1000.0);
}

void match_result_free(MatchResult *res) {
    for (int i = 0; i < res->n_records; i++)
        game_record_free(&res->records[i]);
    free(res->records);
    res->records = NULL;
    res->n_records = 0;
}
