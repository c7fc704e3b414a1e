/* cli_opts.h - the command-line conventions every `hayanagi` verb follows, on top of
 * glibc's getopt_long: long options as --opt VALUE or --opt=VALUE, "--" ends the options,
 * --help prints the verb's usage on stdout (exit 0); an unknown option gets getopt's own
 * message plus a one-line hint, a bad value a message naming the option; both exit 2. */
#ifndef HAYANAGI_UTIL_CLI_OPTS_H
#define HAYANAGI_UTIL_CLI_OPTS_H

#include <getopt.h>
#include <stdbool.h>

/* The exit status of a usage error. */
#define CLI_USAGE_ERROR 2

/* Starts a verb's getopt_long parse. argv[0] is the verb; returns a NULL-terminated copy
 * of argv (argc entries) whose argv[0] is prog, e.g. "hayanagi book build", so that
 * getopt's messages name the command, and resets getopt's state (optind = 0, opterr = 1)
 * so that an earlier parse in the process does not leak in. getopt_long may permute the
 * copy; argv itself is left as it was. NULL when out of memory; the caller frees the
 * array (not the strings) with free(). */
char **cli_opts_begin(const char *prog, int argc, char **argv);

/* After getopt_long returned '?' (it has printed what was wrong): prints the hint
 * "Try 'PROG --help' for more information." on stderr. Returns CLI_USAGE_ERROR. */
int cli_opts_unknown(const char *prog);

/* A bad value for option c (its name found in longopts): prints
 * "PROG: --NAME: bad value 'ARG' (WANT)" and the hint on stderr. Returns CLI_USAGE_ERROR. */
int cli_opts_bad_value(const char *prog, const struct option *longopts, int c, const char *arg, const char *want);

/* Parses arg, the value of option c, as a whole decimal integer in [lo, hi] into *out;
 * on failure prints cli_opts_bad_value()'s message (*out unchanged) and returns false. */
bool cli_opts_int(const char *prog, const struct option *longopts, int c, const char *arg, long lo, long hi, long *out);

/* Finds arg, the value of option c, among the n keywords words[] and stores its index in
 * *out; otherwise prints cli_opts_bad_value()'s message with want (e.g. "leaves or
 * replies"), leaves *out unchanged and returns false. */
bool cli_opts_keyword(const char *prog, const struct option *longopts, int c, const char *arg, const char *const *words,
                      int n, const char *want, int *out);

#endif
