/* client.c - a session on a CSA server (client.h). */
#include "csa/client.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/clock.h"

enum { LOGIN_WAIT_MS = 30000, LOGOUT_WAIT_MS = 2000 };

static bool stopped(const CsaClientConfig *cfg) { return cfg->play.stop && *cfg->play.stop; }

/* Sleeps s seconds, waking early when stopped. */
static void backoff_sleep(const CsaClientConfig *cfg, int s) {
    int64_t until = clock_now_us() + (int64_t)s * 1000000;
    while (!stopped(cfg) && clock_now_us() < until) {
        struct timespec ts = {0, 100 * 1000000L};
        nanosleep(&ts, NULL);
    }
}

/* 1 logged in, 0 the connection failed (retry), -1 refused (give up). */
static int login(CsaConn *c, const CsaClientConfig *cfg) {
    char line[CSA_LINE_MAX + 1];
    if (cfg->game)
        snprintf(line, sizeof line, "LOGIN %s %s,%s", cfg->id, cfg->game, cfg->password);
    else
        snprintf(line, sizeof line, "LOGIN %s %s", cfg->id, cfg->password);
    if (!csa_conn_send(c, line)) {
        fprintf(stderr, "hayanagi csa: the server closed the connection at LOGIN\n");
        return 0;
    }
    int64_t until = clock_now_us() + LOGIN_WAIT_MS * 1000LL;
    while (clock_now_us() < until && !stopped(cfg)) {
        CsaRead r = csa_conn_read_line(c, line, clock_now_us() + 200000);
        if (r == CSA_READ_TIMEOUT)
            continue;
        if (r != CSA_READ_OK) {
            fprintf(stderr, "hayanagi csa: the connection ended before the LOGIN answer\n");
            return 0;
        }
        if (!strncmp(line, "LOGIN:", 6)) {
            size_t n = strlen(line);
            if (n >= 3 && !strcmp(line + n - 3, " OK"))
                return 1;
            fprintf(stderr, "hayanagi csa: login refused: %.200s\n", line);
            return -1;
        }
    }
    fprintf(stderr, "hayanagi csa: no answer to LOGIN within %d s\n", LOGIN_WAIT_MS / 1000);
    return 0;
}

static void logout(CsaConn *c) {
    if (c->fd >= 0 && csa_conn_send(c, "LOGOUT")) {
        char line[CSA_LINE_MAX + 1];
        int64_t until = clock_now_us() + LOGOUT_WAIT_MS * 1000LL;
        while (clock_now_us() < until) {
            CsaRead r = csa_conn_read_line(c, line, until);
            if (r != CSA_READ_OK || !strncmp(line, "LOGOUT:", 7))
                break;
        }
    }
    csa_conn_close(c);
}

/* Writes the record; returns its path (malloc'd) or NULL (reason on stderr). */
static char *write_record(const CsaClientConfig *cfg, const CsaGameResult *g, int index) {
    char name[CSA_FIELD_MAX + 32];
    if (g->game_id[0]) {
        size_t i = 0;
        for (; i < sizeof name - 5 && g->game_id[i]; i++) {
            char ch = g->game_id[i];
            bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                      ch == '_' || ch == '+' || ch == '-';
            name[i] = ok && !(i == 0 && ch == '.') ? ch : '_';
        }
        name[i] = 0;
    } else {
        struct tm tm;
        time_t now = time(NULL);
        gmtime_r(&now, &tm);
        char when[32];
        strftime(when, sizeof when, "%Y%m%d-%H%M%S", &tm);
        snprintf(name, sizeof name, "game-%s-%d", when, index);
    }
    size_t plen = strlen(cfg->records_dir) + strlen(name) + 8;
    char *path = malloc(plen);
    if (!path)
        return NULL;
    snprintf(path, plen, "%s/%s.csa", cfg->records_dir, name);
    char err[256];
    if (!csa_write_games_file(path, &g->record, NULL, 1, err, sizeof err)) {
        fprintf(stderr, "hayanagi csa: %s: %s\n", path, err);
        free(path);
        return NULL;
    }
    return path;
}

static void report(const CsaGameResult *g, const char *path) {
    char left[32];
    snprintf(left, sizeof left, "%lld.%03llds", (long long)(g->my_remaining_ms / 1000),
             (long long)(g->my_remaining_ms % 1000));
    fprintf(stderr, "hayanagi csa: game %s vs %s as %s: %s%s%s, %d moves, %s left%s%s\n",
            g->game_id[0] ? g->game_id : "?", g->opponent, g->my_color == BLACK ? "black" : "white",
            csa_end_word_name(g->result), g->reason != CSA_END_NB ? " by " : "",
            g->reason != CSA_END_NB ? csa_end_word_name(g->reason) : "", g->moves, left, path ? ", " : "",
            path ? path : "");
    if (g->error[0])
        fprintf(stderr, "hayanagi csa: game %s: %s\n", g->game_id[0] ? g->game_id : "?", g->error);
}

int csa_client_run(const CsaClientConfig *cfg, CsaClientStats *stats) {
    memset(stats, 0, sizeof *stats);
    CsaEngine ce;
    char err[320];
    pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;                            /* engine_proc logs under a lock */
    EngineLog elog = {.file = cfg->log, .lock = &log_lock, .utc_time_of_day = true}; /* as the server lines */
    if (!csa_engine_start(&ce, cfg->engine_cmd, cfg->options, cfg->n_options, cfg->play.ponder, cfg->engine_stderr,
                          cfg->log ? &elog : NULL, err, sizeof err)) {
        fprintf(stderr, "hayanagi csa: engine '%s': %s\n", cfg->engine_cmd, err);
        return 1;
    }
    CsaConn conn;
    csa_conn_init(&conn, cfg->log);
    int failures = 0, backoff = 1, rc = 0;
    while ((cfg->games == 0 || stats->played < cfg->games) && !stopped(cfg)) {
        if (failures > 0) {
            if (cfg->max_failures > 0 && failures >= cfg->max_failures) {
                fprintf(stderr, "hayanagi csa: giving up after %d failures in a row\n", failures);
                rc = 1;
                break;
            }
            fprintf(stderr, "hayanagi csa: reconnecting in %d s\n", backoff);
            backoff_sleep(cfg, backoff);
            backoff = backoff * 2 > cfg->max_backoff_s ? cfg->max_backoff_s : backoff * 2;
            if (stopped(cfg))
                break;
        }
        if (!csa_conn_open(&conn, cfg->host, cfg->port, cfg->connect_timeout_ms, err, sizeof err)) {
            fprintf(stderr, "hayanagi csa: cannot connect: %s\n", err);
            failures++;
            continue;
        }
        int lr = login(&conn, cfg);
        if (lr <= 0) {
            csa_conn_close(&conn);
            if (lr < 0) {
                rc = 1;
                break;
            }
            failures++;
            continue;
        }
        if (ce.e.eof) {
            /* the engine died in the last game: a new one for this game */
            csa_engine_close(&ce);
            if (!csa_engine_start(&ce, cfg->engine_cmd, cfg->options, cfg->n_options, cfg->play.ponder,
                                  cfg->engine_stderr, cfg->log ? &elog : NULL, err, sizeof err)) {
                fprintf(stderr, "hayanagi csa: engine '%s' (restart): %s\n", cfg->engine_cmd, err);
                csa_conn_close(&conn);
                return 1;
            }
        }
        CsaGameResult g;
        csa_game_result_init(&g);
        CsaGameStatus st = csa_play_game(&conn, &ce, &cfg->play, &g);
        if (st == CSA_GAME_NONE || st == CSA_GAME_REJECTED) {
            if (st == CSA_GAME_REJECTED)
                stats->rejected++;
            if (!stopped(cfg))
                fprintf(stderr, "hayanagi csa: %s%s\n", st == CSA_GAME_REJECTED ? "no game: " : "no game",
                        g.error[0] ? g.error : "");
            csa_game_result_free(&g);
            logout(&conn);
            failures++;
            continue;
        }
        logout(&conn);
        char *path = cfg->records_dir ? write_record(cfg, &g, stats->played + 1) : NULL;
        report(&g, path);
        stats->played++;
        stats->wins += g.result == CSA_END_WIN;
        stats->losses += g.result == CSA_END_LOSE;
        stats->draws += g.result == CSA_END_DRAW || g.result == CSA_END_CENSORED;
        stats->aborted += st == CSA_GAME_ABORTED;
        if (cfg->on_game_end)
            cfg->on_game_end(cfg->on_game_end_ctx, path, g.opponent, g.my_color, g.result, g.reason);
        free(path);
        csa_game_result_free(&g);
        if (st == CSA_GAME_ABORTED) {
            failures++;
        } else {
            failures = 0;
            backoff = 1;
        }
    }
    csa_conn_close(&conn);
    csa_engine_close(&ce);
    if (rc == 0 && stopped(cfg))
        rc = 130;
    return rc;
}
