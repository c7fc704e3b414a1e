/* cli_opts.c - getopt_long conventions shared by the `hayanagi` verbs (cli_opts.h). */
#include "util/cli_opts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"

char **cli_opts_begin(const char *prog, int argc, char **argv) {
    char **av = malloc((size_t)(argc > 0 ? argc + 1 : 2) * sizeof *av);
    if (!av) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return NULL;
    }
    av[0] = (char *)prog; /* getopt never writes to the strings */
    for (int i = 1; i < argc; i++)
        av[i] = argv[i];
    av[argc > 0 ? argc : 1] = NULL;
    optind = 0; /* 0, not 1: glibc then also forgets a half-scanned argument and its permutation */
    opterr = 1;
    return av;
}

int cli_opts_unknown(const char *prog) {
    fprintf(stderr, "Try '%s --help' for more information.\n", prog);
    return CLI_USAGE_ERROR;
}

int cli_opts_bad_value(const char *prog, const struct option *longopts, int c, const char *arg, const char *want) {
    const char *name = "?";
    for (const struct option *o = longopts; o->name; o++)
        if (!o->flag && o->val == c) {
            name = o->name;
            break;
        }
    fprintf(stderr, "%s: --%s: bad value '%s' (%s)\n", prog, name, arg ? arg : "", want);
    return cli_opts_unknown(prog);
}

bool cli_opts_int(const char *prog, const struct option *longopts, int c, const char *arg, long lo, long hi,
                  long *out) {
    long long v;
    if (parse_integer(arg, lo, hi, &v)) {
        *out = (long)v;
        return true;
    }
    char want[96];
    snprintf(want, sizeof want, "an integer from %ld to %ld", lo, hi);
    cli_opts_bad_value(prog, longopts, c, arg, want);
    return false;
}

bool cli_opts_keyword(const char *prog, const struct option *longopts, int c, const char *arg, const char *const *words,
                      int n, const char *want, int *out) {
    for (int i = 0; i < n; i++)
        if (!strcmp(arg, words[i])) {
            *out = i;
            return true;
        }
    cli_opts_bad_value(prog, longopts, c, arg, want);
    return false;
}
