/* engine.c - driving the USI engine for the CSA client (engine.h). */
#include "csa/engine.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/error.h"

bool csa_engine_start(CsaEngine *ce, const char *cmd, const EngineOption *opts, int n_opts, bool ponder,
                      bool inherit_stderr, const EngineLog *log, char *err, size_t err_len) {
    engine_init(&ce->e);
    ce->started = false;
    snprintf(ce->e.tag, sizeof ce->e.tag, "csa");
    ce->e.log = log;
    if (!engine_start_ex(&ce->e, cmd, inherit_stderr ? ENGINE_STDERR_INHERIT : ENGINE_STDERR_NULL, err, err_len))
        return false;
    ce->started = true;
    if (!engine_usi(&ce->e, ENGINE_HANDSHAKE_MS, err, err_len))
        goto fail;
    if (engine_option_name(&ce->e, "USI_Ponder"))
        engine_setoption(&ce->e, "USI_Ponder", ponder ? "true" : "false");
    for (int i = 0; i < n_opts; i++)
        if (!engine_setoption(&ce->e, opts[i].name, opts[i].value)) {
            error_set(err, err_len, "the engine has no option '%s'", opts[i].name);
            goto fail;
        }
    /* CSA servers judge %KACHI by the 27-point rule: an engine that can declare is told
     * so, unless the user chose a rule */
    bool ekr_given = false;
    for (int i = 0; i < n_opts; i++)
        ekr_given |= !strcasecmp(opts[i].name, "EnteringKingRule");
    if (!ekr_given && engine_option_name(&ce->e, "EnteringKingRule"))
        engine_setoption(&ce->e, "EnteringKingRule", "CSARule27");
    if (!engine_isready(&ce->e, ENGINE_HANDSHAKE_MS, err, err_len))
        goto fail;
    return true;
fail:
    csa_engine_close(ce);
    return false;
}

bool csa_engine_new_game(CsaEngine *ce, const char *opponent, const char *rival_dir, char *err, size_t err_len) {
    if (engine_option_name(&ce->e, "USI_Opponent")) {
        char v[256];
        snprintf(v, sizeof v, "none none computer %s", opponent);
        engine_setoption(&ce->e, "USI_Opponent", v);
    }
    if (rival_dir && engine_option_name(&ce->e, "RivalBookDir"))
        engine_setoption(&ce->e, "RivalBookDir", rival_dir);
    if (!engine_isready(&ce->e, ENGINE_HANDSHAKE_MS, err, err_len))
        return false;
    if (!engine_send(&ce->e, "usinewgame")) {
        error_set(err, err_len, "the engine is gone");
        return false;
    }
    return true;
}

bool csa_engine_go(CsaEngine *ce, const char *position_line, const char *go_line, CsaThink *t) {
    memset(t, 0, sizeof *t);
    return engine_send(&ce->e, position_line) && engine_send(&ce->e, go_line);
}

bool csa_engine_send(CsaEngine *ce, const char *cmd) { return engine_send(&ce->e, cmd); }

int csa_engine_fd(const CsaEngine *ce) { return ce->e.from_engine; }

bool csa_engine_poll(CsaEngine *ce, Position *pos, CsaThink *t) {
    char line[ENGINE_LINE_MAX];
    for (;;) {
        EngineRead r = engine_read_line(&ce->e, line, sizeof line, 0);
        if (r == ENGINE_READ_EOF)
            return false;
        if (r != ENGINE_READ_OK)
            return true;
        if (t->done)
            continue; /* nothing after bestmove belongs to this think */
        if (!strncmp(line, "info ", 5)) {
            UsiInfo in;
            if (usi_info_parse(line, pos, &in, NULL, 0) && in.multipv == 1 && in.has_score && !in.is_string) {
                t->info = in;
                t->has_info = true;
            }
            continue;
        }
        UsiBestmove k = usi_bestmove_parse(line, pos, &t->best, &t->ponder);
        if (k != USI_BESTMOVE_NO) {
            t->kind = k;
            t->done = true;
        }
    }
}

void csa_engine_close(CsaEngine *ce) {
    if (ce->started)
        engine_close(&ce->e, ENGINE_QUIT_WAIT_MS);
    ce->started = false;
}
