/* game.c - one game on a CSA server (game.h). */
#include "csa/game.h"

#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shogi/game.h"
#include "shogi/notation.h"
#include "shogi/rules.h"
#include "util/clock.h"
#include "util/error.h"

/* floodgate and shogi-server judge declarations by the CSA 27-point rule
 * ("Declaration:Jishogi 1.1"). */
static const EnteringKingRule SERVER_EKR = EKR_27;

enum {
    MATE_SCORE = 32000,    /* a mate in n is reported as +-(MATE_SCORE - n), as records read it */
    TICK_MS = 200,         /* the loop wakes at least this often (stop flag, keep-alive) */
    ENDING_WAIT_MS = 30000 /* how long the result may take after %TORYO / %KACHI */
};

typedef enum {
    ST_IDLE,        /* the opponent's turn, not pondering */
    ST_THINK,       /* our turn, the engine thinks */
    ST_STOPPING,    /* our time is nearly up: stop sent, the bestmove will be played */
    ST_WAIT_ECHO,   /* our move sent, waiting for the server to repeat it with its time */
    ST_PONDER,      /* the opponent's turn, the engine ponders ponder_move */
    ST_PONDER_STOP, /* the opponent played something else: stop sent, bestmove to discard */
    ST_ENDING       /* we resigned or declared: waiting for the result */
} State;

typedef struct {
    CsaConn *conn;
    CsaEngine *ce;
    const CsaPlayConfig *cfg;
    CsaGameResult *out;
    CsaSummary *sum;
    Game g;
    CsaClock clock;
    Color me;
    State st;
    bool engine_dead;
    bool over;
    CsaThink think;
    int64_t think_start_us, deadline_us; /* deadline: stop (ST_THINK) or give up (stopping states) */
    int64_t last_server_us;
    char pending[CSA_MOVE_MAX];
    Move pending_move, ponder_move;
    int32_t pending_score; /* black's view, RECORD_NO_SCORE when none */
    char line[CSA_LINE_MAX + 1];
} Play;

void csa_game_result_init(CsaGameResult *r) {
    memset(r, 0, sizeof *r);
    r->reason = CSA_END_NB;
    r->result = CSA_END_CHUDAN;
    game_record_init(&r->record);
}

void csa_game_result_free(CsaGameResult *r) { game_record_free(&r->record); }

static void fault(Play *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fault(Play *p, const char *fmt, ...) {
    if (!p->out->error[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->out->error, sizeof p->out->error, fmt, ap);
        va_end(ap);
    }
    p->out->status = CSA_GAME_ABORTED;
    p->out->result = CSA_END_CHUDAN;
    p->over = true;
}

/* A note that does not end the game (the engine misbehaved, we resigned for it). */
static void note(Play *p, const char *what) {
    if (!p->out->error[0])
        snprintf(p->out->error, sizeof p->out->error, "%s", what);
}

static bool send(Play *p, const char *line) {
    if (!csa_conn_send(p->conn, line)) {
        fault(p, "the server closed the connection (sending '%.40s')", line);
        return false;
    }
    return true;
}

/* The engine's score from the side to move's view, as a record keeps it. */
static int think_score(const CsaThink *t, bool *ok) {
    *ok = t->has_info && t->info.has_score;
    if (!*ok)
        return 0;
    if (t->info.score_mate) {
        int n = t->info.score < 0 ? -t->info.score : t->info.score;
        bool we_mate = !t->info.mated && t->info.score >= 0;
        return we_mate ? MATE_SCORE - n : -(MATE_SCORE - n);
    }
    return t->info.score;
}

/* "position sfen ROOT moves ..." (or startpos) for the game so far plus extra (may be
 * MOVE_NONE). Returns a malloc'd line (caller frees) or NULL when memory runs out. */
static char *position_line(const Game *g, Move extra) {
    size_t cap = 64 + SFEN_MAX + (size_t)(g->count + 1) * (USI_MOVE_MAX + 1);
    char *s = malloc(cap);
    if (!s)
        return NULL;
    size_t n;
    if (!strcmp(g->root_sfen, STARTPOS_SFEN))
        n = (size_t)snprintf(s, cap, "position startpos");
    else
        n = (size_t)snprintf(s, cap, "position sfen %s", g->root_sfen);
    if (g->count > 0 || extra != MOVE_NONE)
        n += (size_t)snprintf(s + n, cap - n, " moves");
    char mb[USI_MOVE_MAX];
    for (int i = 0; i < g->count; i++)
        n += (size_t)snprintf(s + n, cap - n, " %s", move_to_usi(g->moves[i], mb));
    if (extra != MOVE_NONE)
        snprintf(s + n, cap - n, " %s", move_to_usi(extra, mb));
    return s;
}

static bool engine_go(Play *p, Move extra, bool ponder) {
    char *pos = position_line(&p->g, extra);
    if (!pos) {
        fault(p, "out of memory");
        return false;
    }
    char go[160], t[128];
    snprintf(go, sizeof go, "go %s%s", ponder ? "ponder " : "",
             csa_clock_go(&p->clock, p->me, p->cfg->margin_ms, t, sizeof t));
    bool ok = csa_engine_go(p->ce, pos, go, &p->think);
    free(pos);
    if (!ok)
        p->engine_dead = true;
    return ok;
}

static void resign(Play *p, const char *why) {
    if (why)
        note(p, why);
    if (p->st == ST_THINK || p->st == ST_PONDER)
        csa_engine_send(p->ce, "stop");
    if (send(p, "%TORYO"))
        p->st = ST_ENDING;
    p->deadline_us = clock_now_us() + ENDING_WAIT_MS * 1000LL;
}

static void set_think_deadline(Play *p) {
    p->think_start_us = clock_now_us();
    p->deadline_us = p->think_start_us + csa_clock_budget_ms(&p->clock, p->me, p->cfg->margin_ms) * 1000;
}

static void start_think(Play *p) {
    if (p->cfg->stop && *p->cfg->stop) {
        resign(p, "interrupted: resigned");
        return;
    }
    if (position_declaration(&p->g.pos, SERVER_EKR) != MOVE_NONE) {
        if (send(p, "%KACHI"))
            p->st = ST_ENDING;
        p->deadline_us = clock_now_us() + ENDING_WAIT_MS * 1000LL;
        return;
    }
    if (p->engine_dead || !engine_go(p, MOVE_NONE, false)) {
        resign(p, "the engine is gone: resigned");
        return;
    }
    p->st = ST_THINK;
    set_think_deadline(p);
}

/* "'* <score> <pv>" after our move: the score from black's view, the PV in CSA from the
 * reply to our move on (floodgate's convention). */
static void append_comment(Play *p, Move best, int score_black, char *buf, size_t cap) {
    size_t n = strlen(buf);
    n += (size_t)snprintf(buf + n, cap - n, ",'* %d", score_black);
    const UsiInfo *in = &p->think.info;
    int k = 0;
    if (in->pv_len > 0 && in->pv[0] == best)
        k = 1;
    else if (in->pv_len > 0)
        return; /* the PV is not about the move played */
    Position *pos = &p->g.pos;
    StateInfo st[USI_INFO_PV_MAX + 1];
    position_do_move(pos, best, &st[0]);
    int done = 0;
    for (int i = k; i < in->pv_len && n + 12 < cap && i < 16; i++) {
        if (!position_is_legal(pos, in->pv[i]))
            break;
        char mv[CSA_MOVE_MAX];
        n += (size_t)snprintf(buf + n, cap - n, " %s", csa_move(pos, in->pv[i], mv));
        position_do_move(pos, in->pv[i], &st[1 + done]);
        done++;
    }
    while (done > 0)
        position_undo_move(pos, in->pv[k + --done]);
    position_undo_move(pos, best);
}

static void play_bestmove(Play *p) {
    CsaThink *t = &p->think;
    bool has;
    int score = think_score(t, &has);
    if (t->kind == USI_BESTMOVE_RESIGN) {
        resign(p, NULL);
        return;
    }
    if (t->kind == USI_BESTMOVE_WIN) {
        if (position_declaration(&p->g.pos, SERVER_EKR) == MOVE_NONE) {
            resign(p, "the engine declared a win the 27-point rule does not give: resigned");
            return;
        }
        if (send(p, "%KACHI"))
            p->st = ST_ENDING;
        p->deadline_us = clock_now_us() + ENDING_WAIT_MS * 1000LL;
        return;
    }
    if (t->kind != USI_BESTMOVE_MOVE) {
        resign(p, "the engine's bestmove was malformed or illegal: resigned");
        return;
    }
    if (p->cfg->resign_score > 0 && has && score <= -p->cfg->resign_score) {
        resign(p, NULL);
        return;
    }
    char line[CSA_LINE_MAX];
    csa_move(&p->g.pos, t->best, line);
    memcpy(p->pending, line, CSA_MOVE_MAX);
    int32_t black = has ? (p->me == BLACK ? score : -score) : RECORD_NO_SCORE;
    if (p->cfg->floodgate_comments && has)
        append_comment(p, t->best, (int)black, line, sizeof line);
    if (!send(p, line))
        return;
    p->pending_move = t->best;
    p->pending_score = black;
    p->ponder_move = t->ponder;
    p->st = ST_WAIT_ECHO;
}

static bool push_move(Play *p, Move m, int64_t units, int32_t score) {
    Color side = p->g.pos.side;
    csa_clock_charge(&p->clock, side, units);
    int64_t ms = units < 0 ? 0 : units * p->clock.unit_ms;
    if (ms > INT32_MAX)
        ms = INT32_MAX;
    if (!game_push(&p->g, m) || !game_record_push(&p->out->record, m, (int32_t)ms, score)) {
        fault(p, "out of memory");
        return false;
    }
    return true;
}

static void on_server_move(Play *p, const CsaMsg *msg) {
    Color side = msg->move[0] == '+' ? BLACK : WHITE;
    if (side != p->g.pos.side) {
        fault(p, "move '%s' by the side not to move: '%.80s'", msg->move, p->line);
        return;
    }
    if (side == p->me) {
        if (p->st != ST_WAIT_ECHO || strcmp(msg->move, p->pending)) {
            fault(p, "the server reports a move of ours we did not play: '%.80s'", p->line);
            return;
        }
        if (!push_move(p, p->pending_move, msg->units, p->pending_score))
            return;
        p->st = ST_IDLE;
        if (p->cfg->ponder && !p->engine_dead && p->ponder_move != MOVE_NONE &&
            position_is_legal(&p->g.pos, p->ponder_move) && !(p->cfg->stop && *p->cfg->stop)) {
            if (engine_go(p, p->ponder_move, true))
                p->st = ST_PONDER;
        }
        return;
    }
    const char *why = NULL;
    Move m = csa_move_parse(&p->g.pos, msg->move, 7, &why);
    if (m == MOVE_NONE) {
        fault(p, "the opponent's move is not legal here (%s): '%.80s'", why, p->line);
        return;
    }
    if (!push_move(p, m, msg->units, RECORD_NO_SCORE))
        return;
    if (p->st == ST_PONDER && m == p->ponder_move) {
        if (!csa_engine_send(p->ce, "ponderhit")) {
            p->engine_dead = true;
            resign(p, "the engine is gone: resigned");
            return;
        }
        p->st = ST_THINK;
        set_think_deadline(p);
        return;
    }
    if (p->st == ST_PONDER) {
        csa_engine_send(p->ce, "stop");
        p->st = ST_PONDER_STOP;
        p->deadline_us = clock_now_us() + ENGINE_STOP_WAIT_MS * 1000LL;
        return;
    }
    start_think(p);
}

static void on_server_line(Play *p) {
    p->last_server_us = clock_now_us();
    if (!strncmp(p->line, "##", 2)) {
        fprintf(stderr, "hayanagi csa: the server says: %.200s\n", p->line);
        return;
    }
    CsaMsg msg;
    char why[128];
    if (!csa_message_parse(p->line, &msg, why, sizeof why)) {
        fault(p, "protocol error: %s: '%.80s'", why, p->line);
        return;
    }
    switch (msg.type) {
    case CSA_MSG_EMPTY: return;
    case CSA_MSG_MOVE: on_server_move(p, &msg); return;
    case CSA_MSG_SPECIAL:
        /* the server repeats %TORYO / %KACHI (ours or the opponent's); the "#" lines follow */
        if (p->st == ST_THINK || p->st == ST_PONDER)
            csa_engine_send(p->ce, "stop");
        if (p->st != ST_ENDING)
            p->st = ST_ENDING;
        p->deadline_us = clock_now_us() + ENDING_WAIT_MS * 1000LL;
        return;
    case CSA_MSG_END:
        if (!csa_end_word_is_final(msg.word)) {
            p->out->reason = msg.word;
            return;
        }
        p->out->result = msg.word;
        p->out->status = msg.word == CSA_END_CHUDAN ? CSA_GAME_ABORTED : CSA_GAME_PLAYED;
        if (msg.word == CSA_END_CHUDAN)
            note(p, "the server ended the game (#CHUDAN)");
        p->over = true;
        return;
    }
}

static void on_engine(Play *p) {
    if (p->engine_dead)
        return;
    if (!csa_engine_poll(p->ce, &p->g.pos, &p->think)) {
        p->engine_dead = true;
        if (p->st == ST_THINK || p->st == ST_STOPPING)
            resign(p, "the engine died: resigned");
        else
            note(p, "the engine died");
        return;
    }
    if (!p->think.done)
        return;
    switch (p->st) {
    case ST_THINK:
    case ST_STOPPING: play_bestmove(p); break;
    case ST_PONDER: p->st = ST_IDLE; break; /* it gave up pondering on its own */
    case ST_PONDER_STOP: start_think(p); break;
    default: break;
    }
}

static void on_timers(Play *p) {
    int64_t now = clock_now_us();
    if (p->cfg->stop && *p->cfg->stop && (p->st == ST_THINK || p->st == ST_STOPPING)) {
        resign(p, "interrupted: resigned");
        return;
    }
    if (p->st == ST_THINK && now >= p->deadline_us) {
        /* the engine kept thinking past our share of the clock */
        csa_engine_send(p->ce, "stop");
        p->st = ST_STOPPING;
        int64_t last = p->think_start_us + csa_clock_budget_ms(&p->clock, p->me, 0) * 1000;
        p->deadline_us = last > now + ENGINE_STOP_WAIT_MS * 1000LL ? now + ENGINE_STOP_WAIT_MS * 1000LL : last;
        return;
    }
    if (p->st == ST_STOPPING && now >= p->deadline_us) {
        resign(p, "the engine did not answer stop in time: resigned");
        return;
    }
    if (p->st == ST_PONDER_STOP && now >= p->deadline_us) {
        p->engine_dead = true;
        resign(p, "the engine did not answer stop after pondering: resigned");
        return;
    }
    if (p->st == ST_ENDING && now >= p->deadline_us) {
        fault(p, "no result from the server %d s after our %%TORYO/%%KACHI", ENDING_WAIT_MS / 1000);
        return;
    }
    if (p->cfg->silence_ms > 0 && p->st != ST_THINK && p->st != ST_STOPPING) {
        /* the opponent may use all its time; past that and the grace, the server is gone */
        Color them = (Color)!p->me;
        int64_t allowed = p->cfg->silence_ms * 1000;
        if (p->g.pos.side == them)
            allowed += csa_clock_budget_ms(&p->clock, them, 0) * 1000;
        if (now - p->last_server_us > allowed)
            fault(p, "the server said nothing for %lld s", (long long)((now - p->last_server_us) / 1000000));
    }
    if (!csa_conn_keepalive(p->conn, p->cfg->keepalive_ms))
        fault(p, "the server closed the connection (keep-alive)");
}

static void game_loop(Play *p) {
    p->last_server_us = clock_now_us();
    if (p->g.pos.side == p->me)
        start_think(p);
    while (!p->over) {
        if (!csa_conn_has_line(p->conn)) {
            struct pollfd fds[2] = {{.fd = p->conn->fd, .events = POLLIN},
                                    {.fd = p->engine_dead ? -1 : csa_engine_fd(p->ce), .events = POLLIN}};
            int timeout = TICK_MS;
            if (p->st == ST_THINK || p->st == ST_STOPPING || p->st == ST_PONDER_STOP || p->st == ST_ENDING) {
                int64_t left = (p->deadline_us - clock_now_us() + 999) / 1000;
                if (left < timeout)
                    timeout = left < 0 ? 0 : (int)left;
            }
            poll(fds, 2, timeout);
        }
        on_engine(p);
        if (p->over)
            break;
        for (;;) {
            CsaRead r = csa_conn_read_line(p->conn, p->line, 0);
            if (r == CSA_READ_TIMEOUT)
                break;
            if (r == CSA_READ_EOF) {
                fault(p, "the server closed the connection");
                break;
            }
            if (r == CSA_READ_TOO_LONG) {
                fault(p, "protocol error: a line longer than %d bytes", CSA_LINE_MAX);
                break;
            }
            on_server_line(p);
            if (p->over)
                break;
            on_engine(p); /* a bestmove that came meanwhile goes out before more is read */
            if (p->over)
                break;
        }
        if (!p->over)
            on_timers(p);
    }
    /* the engine may still be thinking or pondering */
    if (!p->engine_dead &&
        (p->st == ST_THINK || p->st == ST_STOPPING || p->st == ST_PONDER || p->st == ST_PONDER_STOP)) {
        if (p->st == ST_THINK || p->st == ST_PONDER)
            csa_engine_send(p->ce, "stop");
        int64_t until = clock_now_us() + ENGINE_STOP_WAIT_MS * 1000LL;
        while (!p->think.done && clock_now_us() < until) {
            struct pollfd f = {.fd = csa_engine_fd(p->ce), .events = POLLIN};
            poll(&f, 1, 50);
            if (!csa_engine_poll(p->ce, &p->g.pos, &p->think)) {
                p->engine_dead = true;
                break;
            }
        }
    }
    if (!p->engine_dead) {
        const char *r = p->out->result == CSA_END_WIN    ? "gameover win"
                        : p->out->result == CSA_END_LOSE ? "gameover lose"
                                                         : "gameover draw";
        csa_engine_send(p->ce, r);
    }
}

/* The record's end and outcome from the server's words. */
static void fill_end(Play *p) {
    CsaGameResult *o = p->out;
    GameRecord *r = &o->record;
    Color them = (Color)!p->me;
    r->outcome = o->result == CSA_END_WIN    ? (p->me == BLACK ? OUTCOME_BLACK_WINS : OUTCOME_WHITE_WINS)
                 : o->result == CSA_END_LOSE ? (them == BLACK ? OUTCOME_BLACK_WINS : OUTCOME_WHITE_WINS)
                 : o->result == CSA_END_DRAW || o->result == CSA_END_CENSORED ? OUTCOME_DRAW
                                                                              : OUTCOME_NONE;
    GameEnd e = END_NONE;
    if (r->outcome != OUTCOME_NONE) {
        switch (o->reason) {
        case CSA_END_RESIGN: e = END_RESIGN; break;
        case CSA_END_TIME_UP: e = END_TIME; break;
        case CSA_END_ILLEGAL_MOVE: e = END_ILLEGAL; break;
        case CSA_END_SENNICHITE: e = END_REPETITION; break;
        case CSA_END_OUTE_SENNICHITE: e = END_PERPETUAL_CHECK; break;
        case CSA_END_JISHOGI: e = END_DECLARATION; break;
        case CSA_END_MAX_MOVES: e = END_MAX_MOVES; break;
        default: e = r->outcome == OUTCOME_DRAW ? END_MAX_MOVES : END_RESIGN; break;
        }
    }
    r->end = e;
    if (o->error[0])
        snprintf(r->detail, sizeof r->detail, "%.150s", o->error);
    r->end_time = time(NULL);
    o->moves = r->n_moves;
    o->my_remaining_ms = p->clock.remaining_ms[p->me];
}

static void describe_clock(const CsaSummary *s, char *buf, size_t cap) {
    const CsaSideTime *t = &s->time[s->my_color];
    snprintf(buf, cap, "total %lld ms, %s %lld ms, least %lld ms%s", (long long)t->total_ms,
             t->increment_ms > 0 ? "increment" : "byoyomi",
             (long long)(t->increment_ms > 0 ? t->increment_ms : t->byoyomi_ms), (long long)t->least_ms,
             t->roundup ? ", rounded up" : "");
}

/* Reads up to END Game_Summary. Returns 1 done, 0 no summary (closed, waited out, stopped),
 * -1 a bad summary (reason in out->error). */
static int read_summary(Play *p, CsaSummaryParser *sp) {
    bool in = false;
    int64_t until = p->cfg->summary_wait_ms > 0 ? clock_now_us() + p->cfg->summary_wait_ms * 1000 : 0;
    int64_t last_line = clock_now_us();
    for (;;) {
        if (in && p->cfg->silence_ms > 0 && clock_now_us() - last_line > p->cfg->silence_ms * 1000) {
            snprintf(p->out->error, sizeof p->out->error, "the server stopped inside the Game_Summary");
            return -1;
        }
        if (p->cfg->stop && *p->cfg->stop && !in)
            return 0;
        if (until && clock_now_us() > until && !in) {
            snprintf(p->out->error, sizeof p->out->error, "no Game_Summary within %lld s",
                     (long long)(p->cfg->summary_wait_ms / 1000));
            return 0;
        }
        CsaRead r = csa_conn_read_line(p->conn, p->line, clock_now_us() + TICK_MS * 1000);
        if (r == CSA_READ_EOF) {
            snprintf(p->out->error, sizeof p->out->error, "the server closed the connection%s",
                     in ? " inside the Game_Summary" : "");
            return in ? -1 : 0;
        }
        if (r == CSA_READ_TOO_LONG) {
            snprintf(p->out->error, sizeof p->out->error, "protocol error: a line longer than %d bytes", CSA_LINE_MAX);
            return -1;
        }
        if (!csa_conn_keepalive(p->conn, p->cfg->keepalive_ms))
            return 0;
        if (r != CSA_READ_OK)
            continue;
        last_line = clock_now_us();
        if (!in) {
            if (strcmp(p->line, "BEGIN Game_Summary"))
                continue; /* keep-alive echoes, ##[...] notices while waiting for a pairing */
            in = true;
        }
        CsaFeed f = csa_summary_feed(sp, p->line, p->out->error, sizeof p->out->error);
        if (f == CSA_FEED_DONE)
            return 1;
        if (f == CSA_FEED_ERROR)
            return -1;
    }
}

/* After AGREE: START:<id> plays, REJECT:<id> by <name> does not. */
static bool wait_start(Play *p) {
    int64_t until = clock_now_us() + 600 * 1000000LL;
    while (clock_now_us() < until && !(p->cfg->stop && *p->cfg->stop)) {
        CsaRead r = csa_conn_read_line(p->conn, p->line, clock_now_us() + TICK_MS * 1000);
        if (r == CSA_READ_EOF || r == CSA_READ_TOO_LONG) {
            snprintf(p->out->error, sizeof p->out->error, "the connection ended before START");
            return false;
        }
        if (!csa_conn_keepalive(p->conn, p->cfg->keepalive_ms))
            return false;
        if (r != CSA_READ_OK || !p->line[0])
            continue;
        if (!strncmp(p->line, "START:", 6))
            return true;
        if (!strncmp(p->line, "REJECT:", 7)) {
            snprintf(p->out->error, sizeof p->out->error, "the game was rejected: %.200s", p->line);
            return false;
        }
        if (!strncmp(p->line, "##", 2))
            continue;
        snprintf(p->out->error, sizeof p->out->error, "protocol error: expected START: '%.80s'", p->line);
        return false;
    }
    snprintf(p->out->error, sizeof p->out->error, "no START from the server");
    return false;
}

CsaGameStatus csa_play_game(CsaConn *conn, CsaEngine *ce, const CsaPlayConfig *cfg, CsaGameResult *out) {
    Play *p = calloc(1, sizeof *p);
    CsaSummaryParser *sp = malloc(sizeof *sp);
    CsaSummary *sum = malloc(sizeof *sum);
    if (!p || !sp || !sum) {
        free(p);
        free(sp);
        free(sum);
        snprintf(out->error, sizeof out->error, "out of memory");
        return out->status = CSA_GAME_NONE;
    }
    p->conn = conn;
    p->ce = ce;
    p->cfg = cfg;
    p->out = out;
    p->sum = sum;
    game_init(&p->g);
    csa_summary_begin(sp, sum);
    out->status = CSA_GAME_NONE;
    int rs = read_summary(p, sp);
    if (rs <= 0) {
        if (rs < 0) {
            csa_conn_send(conn, "REJECT");
            out->status = CSA_GAME_REJECTED;
        }
        goto done;
    }
    out->my_color = p->me = sum->my_color;
    snprintf(out->opponent, sizeof out->opponent, "%s", sum->name[!p->me]);
    snprintf(out->game_id, sizeof out->game_id, "%s", sum->game_id);
    char err[256];
    bool ok = game_set_sfen(&p->g, sum->root_sfen, err, sizeof err);
    for (int i = 0; ok && i < sum->n_moves; i++)
        ok = game_push(&p->g, sum->moves[i]);
    if (ok && position_game_state(&p->g.pos, 0) != GAME_ONGOING) {
        ok = false;
        snprintf(err, sizeof err, "the game is already over in the summary's position");
    }
    if (ok && !csa_engine_new_game(ce, out->opponent, cfg->rival_books, sum->max_moves, err, sizeof err))
        ok = false;
    if (!ok) {
        snprintf(out->error, sizeof out->error, "cannot play this game: %s", err);
        csa_conn_send(conn, "REJECT");
        out->status = CSA_GAME_REJECTED;
        goto done;
    }
    char agree[16 + CSA_FIELD_MAX];
    snprintf(agree, sizeof agree, "AGREE%s%s", sum->game_id[0] ? " " : "", sum->game_id);
    if (!csa_conn_send(conn, agree) || !wait_start(p)) {
        out->status = CSA_GAME_REJECTED;
        goto done;
    }
    /* the record: the summary's moves first, with the times the server gave them */
    GameRecord *r = &out->record;
    snprintf(r->black, sizeof r->black, "%s", sum->name[BLACK]);
    snprintf(r->white, sizeof r->white, "%s", sum->name[WHITE]);
    snprintf(r->event, sizeof r->event, "%s", sum->game_id);
    describe_clock(sum, r->time_control, sizeof r->time_control);
    for (int c = 0; c < COLOR_NB; c++) /* each side's clock as the server set it: $TIME+ / $TIME- */
        r->clock[c] =
            (RecordTimeControl){true, sum->time[c].total_ms, sum->time[c].byoyomi_ms, sum->time[c].increment_ms};
    snprintf(r->root_sfen, sizeof r->root_sfen, "%s", sum->root_sfen);
    r->start_time = time(NULL);
    for (int i = 0; i < sum->n_moves; i++) {
        int64_t ms = sum->move_units[i] < 0 ? -1 : sum->move_units[i] * sum->time_unit_ms;
        if (!game_record_push(r, sum->moves[i], ms > INT32_MAX ? INT32_MAX : (int32_t)ms, RECORD_NO_SCORE))
            break;
    }
    r->n_opening = r->n_moves;
    csa_clock_init(&p->clock, sum);
    p->st = ST_IDLE;
    out->status = CSA_GAME_PLAYED;
    game_loop(p);
    fill_end(p);
done:
    game_free(&p->g);
    free(p);
    free(sp);
    free(sum);
    return out->status;
}
