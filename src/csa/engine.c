/* engine.c - driving the USI engine for the CSA client (engine.h). */
#include "csa/engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "match/usi_client.h"
#include "util/error.h"

/* The options the user gave must all exist: a typo must not go unnoticed. */
typedef struct {
    const EngineOption *user;
    int n_user;
    const char *missing; /* the first user option the engine did not declare */
} MissingCheck;

static void note_missing(void *ctx, const char *name) {
    MissingCheck *mc = ctx;
    for (int i = 0; i < mc->n_user && !mc->missing; i++)
        if (!strcasecmp(mc->user[i].name, name))
            mc->missing = mc->user[i].name;
}

bool csa_engine_start(CsaEngine *ce, const char *cmd, const EngineOption *opts, int n_opts, bool ponder,
                      bool inherit_stderr, const EngineLog *log, char *err, size_t err_len) {
    engine_init(&ce->e);
    ce->started = false;
    snprintf(ce->e.tag, sizeof ce->e.tag, "csa");
    ce->e.log = log;
    EngineOption *all = malloc(((size_t)n_opts + 2) * sizeof *all);
    if (!all)
        return error_set(err, err_len, "out of memory");
    int n = 0;
    all[n++] = (EngineOption){"USI_Ponder", ponder ? "true" : "false"};
    /* CSA servers judge %KACHI by the 27-point rule: an engine that can declare is told
     * so, unless the user chose a rule */
    bool ekr_given = false;
    ce->user_max_moves = false;
    for (int i = 0; i < n_opts; i++) {
        ekr_given |= !strcasecmp(opts[i].name, "EnteringKingRule");
        ce->user_max_moves |= !strcasecmp(opts[i].name, "MaxMovesToDraw");
        all[n++] = opts[i];
    }
    if (!ekr_given)
        all[n++] = (EngineOption){"EnteringKingRule", "CSARule27"};
    MissingCheck mc = {opts, n_opts, NULL};
    UsiClientConfig cfg = {.cmd = cmd,
                           .stderr_mode = inherit_stderr ? ENGINE_STDERR_INHERIT : ENGINE_STDERR_NULL,
                           .options = all,
                           .n_options = n,
                           .missing_option = note_missing,
                           .ctx = &mc};
    bool ok = usi_client_start(&ce->e, &cfg, NULL, err, err_len);
    free(all);
    if (!ok)
        return false;
    ce->started = true;
    if (mc.missing) {
        error_set(err, err_len, "the engine has no option '%s'", mc.missing);
        csa_engine_close(ce);
        return false;
    }
    return true;
}

bool csa_engine_new_game(CsaEngine *ce, const char *opponent, const char *rival_dir, int max_moves, char *err,
                         size_t err_len) {
    if (engine_option_name(&ce->e, "USI_Opponent")) {
        char v[256];
        snprintf(v, sizeof v, "none none computer %s", opponent);
        engine_setoption(&ce->e, "USI_Opponent", v);
    }
    if (rival_dir && engine_option_name(&ce->e, "RivalBookDir"))
        engine_setoption(&ce->e, "RivalBookDir", rival_dir);
    /* a game the server ends at Max_Moves is a draw there: the engine's search and time
     * plan should know (MaxMovesToDraw counts plies from the start, as Max_Moves does) */
    if (max_moves > 0 && !ce->user_max_moves && engine_option_name(&ce->e, "MaxMovesToDraw")) {
        char v[16];
        snprintf(v, sizeof v, "%d", max_moves);
        engine_setoption(&ce->e, "MaxMovesToDraw", v);
    }
    return usi_client_newgame(&ce->e, USI_HANDSHAKE_MS, err, err_len);
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
