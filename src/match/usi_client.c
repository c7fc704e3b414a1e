/* usi_client.c - the one client of another USI engine (usi_client.h). */
#include "match/usi_client.h"

#include <string.h>

int64_t usi_client_handshake_ms(const UsiClientConfig *cfg) {
    return cfg->handshake_ms > 0 ? cfg->handshake_ms : USI_HANDSHAKE_MS;
}

bool usi_client_ready(EngineProc *e, int64_t handshake_ms, int64_t *ready_us, char *err, size_t err_len) {
    int64_t t0 = engine_now_us();
    if (!engine_isready(e, handshake_ms, err, err_len))
        return false;
    if (ready_us)
        *ready_us = engine_now_us() - t0;
    return true;
}

bool usi_client_start(EngineProc *e, const UsiClientConfig *cfg, int64_t *ready_us, char *err, size_t err_len) {
    int64_t wait = usi_client_handshake_ms(cfg);
    if (!engine_start_ex(e, cfg->cmd, cfg->stderr_mode, err, err_len))
        return false;
    if (!engine_usi(e, wait, err, err_len)) {
        engine_close(e, 200);
        return false;
    }
    for (int i = 0; i < cfg->n_options; i++)
        if (!engine_setoption(e, cfg->options[i].name, cfg->options[i].value) && cfg->missing_option)
            cfg->missing_option(cfg->ctx, cfg->options[i].name);
    if (!usi_client_ready(e, wait, ready_us, err, err_len)) {
        engine_close(e, 200);
        return false;
    }
    return true;
}

bool usi_client_newgame(EngineProc *e, int64_t handshake_ms, char *err, size_t err_len) {
    if (!usi_client_ready(e, handshake_ms, NULL, err, err_len))
        return false;
    if (!engine_send(e, "usinewgame")) {
        snprintf(err, err_len, "cannot write 'usinewgame': engine gone");
        return false;
    }
    return true;
}

/* After a timeout or an abort: `stop`, then the bestmove within ENGINE_STOP_WAIT_MS (read
 * even when the abort flag is up, so that the engine is left idle). True when it came. */
static bool stop_and_collect(EngineProc *e) {
    if (!engine_send(e, "stop"))
        return false;
    int64_t deadline = engine_now_us() + (int64_t)ENGINE_STOP_WAIT_MS * 1000;
    const volatile sig_atomic_t *flag = e->abort_flag;
    e->abort_flag = NULL;
    char line[ENGINE_LINE_MAX];
    bool got = false;
    while (!got && engine_read_line(e, line, sizeof line, deadline) == ENGINE_READ_OK) {
        Move b, p;
        got = usi_bestmove_parse(line, NULL, &b, &p) != USI_BESTMOVE_NO;
    }
    e->abort_flag = flag;
    return got;
}

/* The word after `bestmove`, cut to cap bytes. */
static void bestmove_word(const char *line, char *out, size_t cap) {
    const char *p = line + strlen("bestmove");
    while (*p == ' ' || *p == '\t')
        p++;
    size_t n = strcspn(p, " \t");
    if (n >= cap)
        n = cap - 1;
    memcpy(out, p, n);
    out[n] = '\0';
}

void usi_client_go(EngineProc *e, const UsiGo *go, UsiGoResult *out) {
    memset(out, 0, sizeof *out);
    out->best = out->ponder = MOVE_NONE;
    engine_drain(e); /* a late bestmove from an earlier stop must not answer this go */
    if (!engine_send(e, go->position_line)) {
        out->status = USI_GO_EOF;
        return;
    }
    /* the clock starts before `go` is written: once written, the engine may already be
     * thinking (and a fake that sleeps 400 ms must never be measured at 399.9) */
    int64_t t0 = engine_now_us();
    if (!engine_send(e, go->go_line)) {
        out->status = USI_GO_EOF;
        return;
    }
    int64_t deadline_us = t0 + go->limit_us;
    char line[ENGINE_LINE_MAX];
    int junk = 0;
    for (;;) {
        EngineRead r = engine_read_line(e, line, sizeof line, deadline_us);
        if (r != ENGINE_READ_OK) {
            out->elapsed_us = engine_now_us() - t0;
            if (r == ENGINE_READ_EOF) {
                out->status = USI_GO_EOF;
                return;
            }
            out->status = r == ENGINE_READ_ABORTED ? USI_GO_ABORTED : USI_GO_TIMEOUT;
            out->hung = !stop_and_collect(e);
            return;
        }
        UsiInfo in;
        char why[160] = "";
        if (usi_info_parse(line, go->pos, &in, why, sizeof why)) {
            if (in.has_score && !in.is_string) {
                out->has_score = true;
                out->scored = in;
            }
            if (go->on_info)
                go->on_info(go->ctx, &in, line);
            continue;
        }
        UsiBestmove bm = usi_bestmove_parse(line, go->pos, &out->best, &out->ponder);
        if (bm != USI_BESTMOVE_NO) {
            out->elapsed_us = engine_now_us() - t0;
            out->status = USI_GO_BESTMOVE;
            out->kind = bm;
            bestmove_word(line, out->bestmove, sizeof out->bestmove);
            if (bm == USI_BESTMOVE_BAD && go->on_bad_line)
                go->on_bad_line(go->ctx, line, "not a legal move");
            return;
        }
        if (!strncmp(line, "info", 4)) {
            if (go->on_bad_line)
                go->on_bad_line(go->ctx, line, why[0] ? why : "malformed");
        } else if (++junk > USI_JUNK_MAX) {
            out->elapsed_us = engine_now_us() - t0;
            out->status = USI_GO_JUNK;
            return;
        }
    }
}
