/* engines.h - the options `book think` and `book expand` share for choosing their
 * searcher (--engine, --engine-file, --engine-option, --engine-timeout, --engine-startup,
 * --engine-newgame, --go, --multipv-margin, --multipv-max) (the thought books are
 * written by io.h's cli_write_book() with their comments, the provenance). A helper: includes
 * no verb. */
#ifndef HAYANAGI_CLI_BOOK_ENGINES_H
#define HAYANAGI_CLI_BOOK_ENGINES_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include "book/book.h"
#include "book/open.h"
#include "bookgen/engine_pool.h"

enum {
    OPT_ENGINE = 1000,
    OPT_ENGINE_FILE,
    OPT_ENGINE_OPTION,
    OPT_ENGINE_TIMEOUT,
    OPT_GO,
    OPT_MULTIPV_MARGIN,
    OPT_MULTIPV_MAX,
    OPT_ENGINE_NEWGAME,
    OPT_ENGINE_STARTUP,
};

/* getopt_long entries for the options above (to copy into a verb's table). */
#define CLI_ENGINE_LONGOPTS                                                                                            \
    {"engine", required_argument, NULL, OPT_ENGINE}, {"engine-file", required_argument, NULL, OPT_ENGINE_FILE},        \
        {"engine-option", required_argument, NULL, OPT_ENGINE_OPTION},                                                 \
        {"engine-timeout", required_argument, NULL, OPT_ENGINE_TIMEOUT}, {"go", required_argument, NULL, OPT_GO},      \
        {"multipv-margin", required_argument, NULL, OPT_MULTIPV_MARGIN},                                               \
        {"multipv-max", required_argument, NULL, OPT_MULTIPV_MAX},                                                     \
        {"engine-newgame", no_argument, NULL, OPT_ENGINE_NEWGAME}, {                                                   \
        "engine-startup", required_argument, NULL, OPT_ENGINE_STARTUP                                                  \
    }

/* What the options said. Owns cmds, the option storage and the pool (cli_engines_free). */
typedef struct {
    char **cmds;
    int n_cmds;
    EngineOption *opts;
    char **opt_storage;
    int n_opts;
    int64_t timeout_ms, startup_ms;
    bool newgame_each; /* --engine-newgame */
    const char *go_raw;
    int multipv_margin, multipv_max;
} CliEngines;

/* Handles option c (one of OPT_ENGINE...) with argument arg. false when the argument is
 * bad (or memory runs out), with the message printed, prefixed by "hayanagi book VERB" and
 * naming the option, and the --help hint (util/cli_opts.h): the caller exits with
 * CLI_USAGE_ERROR. */
bool cli_engines_option(CliEngines *ce, int c, const char *arg, const char *verb);

/* The pool of the --engine commands, or NULL with a message when none was given or it
 * cannot be made (*none tells which). */
Searcher *cli_engines_pool(CliEngines *ce, bool quiet, const char *verb, bool *none);

/* Frees everything the options hold. */
void cli_engines_free(CliEngines *ce);

#endif
