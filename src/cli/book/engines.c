/* engines.c - see engines.h. */
#include "cli/book/engines.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book/open.h"
#include "cli/book/io.h"
#include "util/cli_opts.h"
#include "match/match.h"
#include "record/reader.h"

static bool push_cmd(CliEngines *ce, const char *cmd, size_t len) {
    char **c = realloc(ce->cmds, (size_t)(ce->n_cmds + 1) * sizeof *c);
    if (!c)
        return false;
    ce->cmds = c;
    char *s = malloc(len + 1);
    if (!s)
        return false;
    memcpy(s, cmd, len);
    s[len] = '\0';
    ce->cmds[ce->n_cmds++] = s;
    return true;
}

/* One command per line; blank lines and '#' comments skipped. */
static bool read_engine_file(CliEngines *ce, const char *path, const char *verb) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "hayanagi book %s: %s: %s\n", verb, path, strerror(errno));
        return false;
    }
    char line[4096];
    int lineno = 0, got = 0;
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            fprintf(stderr, "hayanagi book %s: %s:%d: line too long\n", verb, path, lineno);
            ok = false;
            break;
        }
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
            line[--len] = '\0';
        const char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p || *p == '#')
            continue;
        ok = push_cmd(ce, p, strlen(p));
        got++;
    }
    fclose(f);
    if (ok && !got) {
        fprintf(stderr, "hayanagi book %s: %s: no engine command in the file\n", verb, path);
        ok = false;
    }
    return ok;
}

bool cli_engines_option(CliEngines *ce, int c, const char *arg, const char *verb) {
    static const struct option names[] = {CLI_ENGINE_LONGOPTS, {NULL, 0, NULL, 0}};
    char prog[64];
    snprintf(prog, sizeof prog, "hayanagi book %s", verb);
    bool ok = false;
    long v = 0;
    switch (c) {
    case OPT_ENGINE:
        if (!*arg || strchr(arg, '\n'))
            cli_opts_bad_value(prog, names, c, arg, "a command, not empty, one line");
        else if (!(ok = push_cmd(ce, arg, strlen(arg))))
            fprintf(stderr, "%s: out of memory\n", prog);
        return ok;
    case OPT_ENGINE_FILE:
        if (!(ok = read_engine_file(ce, arg, verb)))
            cli_opts_unknown(prog);
        return ok;
    case OPT_ENGINE_OPTION: {
        EngineOption *o = realloc(ce->opts, (size_t)(ce->n_opts + 1) * sizeof *o);
        char **st = o ? realloc(ce->opt_storage, (size_t)(ce->n_opts + 1) * sizeof *st) : NULL;
        if (o)
            ce->opts = o;
        if (!st) {
            fprintf(stderr, "%s: out of memory\n", prog);
            return false;
        }
        ce->opt_storage = st;
        const char *why;
        if (!engine_option_from_arg(arg, &ce->opts[ce->n_opts], &ce->opt_storage[ce->n_opts], &why)) {
            cli_opts_bad_value(prog, names, c, arg, why);
            return false;
        }
        ce->n_opts++;
        return true;
    }
    case OPT_ENGINE_TIMEOUT: /* milliseconds */
        if ((ok = cli_opts_int(prog, names, c, arg, 1, 2000000000L, &v)))
            ce->timeout_ms = v;
        return ok;
    case OPT_ENGINE_STARTUP: /* milliseconds */
        if ((ok = cli_opts_int(prog, names, c, arg, 1, 2000000000L, &v)))
            ce->startup_ms = v;
        return ok;
    case OPT_ENGINE_NEWGAME: ce->newgame_each = true; return true;
    case OPT_GO:
        if (!*arg || strchr(arg, '\n')) {
            cli_opts_bad_value(prog, names, c, arg, "the arguments of a USI go command, not empty, one line");
            return false;
        }
        ce->go_raw = arg;
        return true;
    case OPT_MULTIPV_MARGIN: /* centipawns */
        if ((ok = cli_opts_int(prog, names, c, arg, 1, 100000, &v)))
            ce->multipv_margin = (int)v;
        return ok;
    case OPT_MULTIPV_MAX:
        if ((ok = cli_opts_int(prog, names, c, arg, 1, SEARCHER_MAX_PV, &v)))
            ce->multipv_max = (int)v;
        return ok;
    default: cli_opts_unknown(prog); return false;
    }
}

Searcher *cli_engines_pool(CliEngines *ce, bool quiet, const char *verb, bool *none) {
    *none = ce->n_cmds == 0;
    if (*none)
        return NULL;
    EnginePoolOptions po = {.cmds = (const char *const *)ce->cmds,
                            .n_cmds = ce->n_cmds,
                            .options = ce->opts,
                            .n_options = ce->n_opts,
                            .timeout_ms = ce->timeout_ms,
                            .startup_ms = ce->startup_ms,
                            .newgame_each = ce->newgame_each,
                            .warn = stderr,
                            .quiet = quiet};
    char err[256];
    Searcher *s = engine_pool_create(&po, err, sizeof err);
    if (!s)
        fprintf(stderr, "hayanagi book %s: %s\n", verb, err);
    return s;
}

void cli_engines_free(CliEngines *ce) {
    for (int i = 0; i < ce->n_cmds; i++)
        free(ce->cmds[i]);
    free(ce->cmds);
    for (int i = 0; i < ce->n_opts; i++)
        free(ce->opt_storage[i]);
    free(ce->opt_storage);
    free(ce->opts);
    memset(ce, 0, sizeof *ce);
}
