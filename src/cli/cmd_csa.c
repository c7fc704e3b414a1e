#define _DEFAULT_SOURCE /* realpath */
/* cmd_csa.c - `hayanagi csa`: play on a CSA server (csa/client.h); the options, the
 * default engine (this very binary's USI loop) and Ctrl-C. docs/csa.md. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "book/overlay.h"
#include "bookgen/rival.h"
#include "cli/commands.h"
#include "csa/client.h"
#include "match/match.h"
#include "util/cli_opts.h"
#include "util/log_file.h"
#include "util/long_job.h"
#include "util/path.h"
#include "util/secret_file.h"

static void usage(FILE *f) {
    fprintf(f, "usage: hayanagi csa --host H --id ID (--password-file FILE | --password PW) [options]\n"
               "Plays games on a CSA server (floodgate, WCSC, shogi-server); see docs/csa.md.\n"
               "  --host H               the server (name or address)\n"
               "  --port P               its port (default 4081)\n"
               "  --id ID                our login name\n"
               "  --password-file FILE   the password: the first line of FILE, which group and others\n"
               "                         may not access (chmod 600), or a pipe such as <(pass show csa)\n"
               "  --password PW          the password on the command line, where every user of this\n"
               "                         machine sees it (ps); floodgate: any trip string\n"
               "                         (with neither option: $HAYANAGI_CSA_PASSWORD, kept from the engine)\n"
               "  --game NAME            game name to ask for, e.g. floodgate-300-10F\n"
               "                         (sent as LOGIN ID NAME,PW)\n"
               "  --games N              games to play (default 1; 0: until stopped with Ctrl-C)\n"
               "  --engine CMD           a USI engine (default: this program's own engine)\n"
               "  --option NAME=VALUE    setoption for the engine (repeatable; NAME alone: a button)\n"
               "  --records DIR          write each game there as CSA, named after its Game_ID\n"
               "  --margin-ms M          network margin taken off the engine's time (default 300)\n"
               "  --ponder               think on the opponent's time\n"
               "  --floodgate-comments   send our score and PV with each move (',\\'* 30 -3334FU')\n"
               "  --resign SCORE         resign when our score is at or below -SCORE (default 0: never,\n"
               "                         the engine resigns itself)\n"
               "  --keepalive S          an empty line after S seconds of silence (default 30; 0: off)\n"
               "  --log FILE             log the server and engine dialogue (appended; - for stderr)\n"
               "  --rival-books DIR      RivalBookDir for the engine (opponent overlay books; created\n"
               "                         when missing, given to the engine as an absolute path)\n"
               "  --learn                after each game, update the opponent's overlay in DIR from\n"
               "                         its record (book rival-learn's rule; needs --rival-books and\n"
               "                         --records)\n"
               "  --main-book FILE       the engine's main book, for --learn's alternatives (default:\n"
               "                         the bundled book beside this program, with its own engine)\n"
               "  --engine-stderr        let the engine write to our stderr\n"
               "  --max-failures N       give up after N failed connections or games in a row\n"
               "                         (default 10; 0: never)\n");
}

enum {
    C_HOST = 256,
    C_PORT,
    C_ID,
    C_PASSWORD,
    C_PASSWORD_FILE,
    C_GAME,
    C_GAMES,
    C_ENGINE,
    C_OPTION,
    C_RECORDS,
    C_MARGIN,
    C_PONDER,
    C_COMMENTS,
    C_RESIGN,
    C_KEEPALIVE,
    C_LOG,
    C_RIVAL,
    C_LEARN,
    C_MAIN_BOOK,
    C_ENGINE_STDERR,
    C_MAX_FAILURES,
    C_HELP
};

enum { MAX_OPTIONS = 64 };

/* --learn: after each game, the opponent's overlay learns from the game's record by
 * bookgen/rival.h's rule (our login is the player; the opponent is named exactly). */
typedef struct {
    bool on;
    const char *dir;       /* the overlays (absolute) */
    const char *main_book; /* may be NULL */
    const char *player;    /* our login id */
} Learn;

static void learn_after_game(void *ctx, const char *record_path, const char *opponent, Color my_color,
                             CsaEndWord result, CsaEndWord reason) {
    const Learn *l = ctx;
    (void)my_color, (void)reason;
    if (!record_path || !opponent || !*opponent || result == CSA_END_CENSORED || result == CSA_END_CHUDAN)
        return;
    char overlay[PATH_MAX];
    if (book_overlay_find(l->dir, opponent, overlay, sizeof overlay) == BOOK_OVERLAY_BAD_NAME) {
        fprintf(stderr, "hayanagi csa: learn: the opponent's name '%s' has no overlay file\n", opponent);
        return;
    }
    RivalLearnOptions o = {.overlay = overlay, .main_book = l->main_book, .player = l->player, .opponent = opponent};
    RivalLearnReport rep;
    char err[512];
    if (!rival_learn_record(&o, record_path, &rep, err, sizeof err)) {
        fprintf(stderr, "hayanagi csa: learn: %s (the overlay is untouched)\n", err);
        return;
    }
    if (rep.demoted)
        fprintf(stderr, "hayanagi csa: learn: %s: our %s demoted at %s\n", overlay, rep.demoted_move, rep.demoted_sfen);
    else if (rep.imported)
        fprintf(stderr, "hayanagi csa: learn: %s: the opponent's losing line imported (%llu positions)\n", overlay,
                (unsigned long long)rep.positions_imported);
    else
        fprintf(stderr, "hayanagi csa: learn: %s: nothing to learn from this game\n", overlay);
}

/* The password's source, in this order (docs/csa.md, "The password"): --password or
 * --password-file (both: a usage error), else HAYANAGI_CSA_PASSWORD when set and not
 * empty. The variable is removed from our environment once read, so the engine (a child)
 * does not inherit it. Sets *password (to --password's text, or to buf) and *from (how to
 * name the source in messages); returns -1 to go on, or the exit status after a message. */
static int choose_password(const char *prog, const char *file, char *buf, size_t buf_len, const char **password,
                           const char **from) {
    static const char env_name[] = "HAYANAGI_CSA_PASSWORD";
    if (*password && file) {
        fprintf(stderr, "%s: --password and --password-file are exclusive: give one\n", prog);
        return CLI_USAGE_ERROR;
    }
    const char *env = getenv(env_name);
    if (!*password && !file && env && *env) {
        if (strlen(env) >= buf_len) {
            fprintf(stderr, "%s: %s is too long for a password\n", prog, env_name);
            return CLI_USAGE_ERROR;
        }
        snprintf(buf, buf_len, "%s", env);
        *password = buf;
        *from = env_name;
    }
    unsetenv(env_name); /* whichever source won: never the engine's */
    if (file) {
        char err[PATH_MAX + 256];
        if (!secret_read_file(file, buf, buf_len, err, sizeof err)) {
            fprintf(stderr, "%s: --password-file %s\n", prog, err);
            return CLI_USAGE_ERROR;
        }
        *password = buf;
        *from = "--password-file";
    }
    if (!*password) {
        fprintf(stderr,
                "%s: no password: give --password-file FILE, set %s, or give --password PW\n"
                "Try '%s --help' for more information.\n",
                prog, env_name, prog);
        return CLI_USAGE_ERROR;
    }
    return -1;
}

int cmd_csa(int argc, char **argv) {
    static const char prog[] = "hayanagi csa";
    static const struct option longopts[] = {{"host", required_argument, NULL, C_HOST},
                                             {"port", required_argument, NULL, C_PORT},
                                             {"id", required_argument, NULL, C_ID},
                                             {"password", required_argument, NULL, C_PASSWORD},
                                             {"password-file", required_argument, NULL, C_PASSWORD_FILE},
                                             {"game", required_argument, NULL, C_GAME},
                                             {"games", required_argument, NULL, C_GAMES},
                                             {"engine", required_argument, NULL, C_ENGINE},
                                             {"option", required_argument, NULL, C_OPTION},
                                             {"records", required_argument, NULL, C_RECORDS},
                                             {"margin-ms", required_argument, NULL, C_MARGIN},
                                             {"ponder", no_argument, NULL, C_PONDER},
                                             {"floodgate-comments", no_argument, NULL, C_COMMENTS},
                                             {"resign", required_argument, NULL, C_RESIGN},
                                             {"keepalive", required_argument, NULL, C_KEEPALIVE},
                                             {"log", required_argument, NULL, C_LOG},
                                             {"rival-books", required_argument, NULL, C_RIVAL},
                                             {"learn", no_argument, NULL, C_LEARN},
                                             {"main-book", required_argument, NULL, C_MAIN_BOOK},
                                             {"engine-stderr", no_argument, NULL, C_ENGINE_STDERR},
                                             {"max-failures", required_argument, NULL, C_MAX_FAILURES},
                                             {"help", no_argument, NULL, C_HELP},
                                             {NULL, 0, NULL, 0}};
    CsaClientConfig cfg = {.port = 4081,
                           .games = 1,
                           .connect_timeout_ms = 15000,
                           .max_backoff_s = 60,
                           .max_failures = 10,
                           .play = {.margin_ms = 300, .keepalive_ms = 30000, .silence_ms = 60000}};
    EngineOption opts[MAX_OPTIONS];
    char *storage[MAX_OPTIONS];
    int n_opts = 0;
    const char *log_path = NULL, *password_file = NULL;
    Learn learn = {0};
    char **av = cli_opts_begin(prog, argc, argv);
    if (!av)
        return 1;
    int c, rc = -1;
    long v;
    while (rc < 0 && (c = getopt_long(argc, av, "", longopts, NULL)) != -1) {
        switch (c) {
        case C_HOST: cfg.host = optarg; break;
        case C_PORT:
            if (!cli_opts_int(prog, longopts, c, optarg, 1, 65535, &v))
                rc = CLI_USAGE_ERROR;
            cfg.port = (int)v;
            break;
        case C_ID: cfg.id = optarg; break;
        case C_PASSWORD: cfg.password = optarg; break;
        case C_PASSWORD_FILE: password_file = optarg; break;
        case C_GAME: cfg.game = optarg; break;
        case C_GAMES:
            if (!cli_opts_int(prog, longopts, c, optarg, 0, 1000000, &v))
                rc = CLI_USAGE_ERROR;
            cfg.games = (int)v;
            break;
        case C_ENGINE: cfg.engine_cmd = optarg; break;
        case C_OPTION: {
            const char *why;
            if (n_opts >= MAX_OPTIONS) {
                rc = cli_opts_bad_value(prog, longopts, c, optarg, "at most 64 options");
                break;
            }
            if (!engine_option_from_arg(optarg, &opts[n_opts], &storage[n_opts], &why)) {
                rc = cli_opts_bad_value(prog, longopts, c, optarg, why);
                break;
            }
            n_opts++;
            break;
        }
        case C_RECORDS: cfg.records_dir = optarg; break;
        case C_MARGIN:
            if (!cli_opts_int(prog, longopts, c, optarg, 0, 60000, &v))
                rc = CLI_USAGE_ERROR;
            cfg.play.margin_ms = v;
            break;
        case C_PONDER: cfg.play.ponder = true; break;
        case C_COMMENTS: cfg.play.floodgate_comments = true; break;
        case C_RESIGN:
            if (!cli_opts_int(prog, longopts, c, optarg, 0, 100000, &v))
                rc = CLI_USAGE_ERROR;
            cfg.play.resign_score = (int)v;
            break;
        case C_KEEPALIVE:
            if (!cli_opts_int(prog, longopts, c, optarg, 0, 3600, &v))
                rc = CLI_USAGE_ERROR;
            cfg.play.keepalive_ms = v * 1000;
            break;
        case C_LOG: log_path = optarg; break;
        case C_RIVAL: cfg.play.rival_books = optarg; break;
        case C_LEARN: learn.on = true; break;
        case C_MAIN_BOOK: learn.main_book = optarg; break;
        case C_ENGINE_STDERR: cfg.engine_stderr = true; break;
        case C_MAX_FAILURES:
            if (!cli_opts_int(prog, longopts, c, optarg, 0, 1000000, &v))
                rc = CLI_USAGE_ERROR;
            cfg.max_failures = (int)v;
            break;
        case C_HELP:
            usage(stdout);
            rc = 0;
            break;
        default: rc = cli_opts_unknown(prog); break;
        }
    }
    if (rc < 0 && optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\nTry '%s --help' for more information.\n", prog, av[optind],
                prog);
        rc = CLI_USAGE_ERROR;
    }
    char password[256];
    const char *pw_from = "--password";
    if (rc < 0)
        rc = choose_password(prog, password_file, password, sizeof password, &cfg.password, &pw_from);
    if (rc < 0 && (!cfg.host || !cfg.id)) {
        fprintf(stderr, "%s: --host and --id are required\nTry '%s --help' for more information.\n", prog, prog);
        rc = CLI_USAGE_ERROR;
    }
    if (rc < 0 && (strpbrk(cfg.id, " \t,\r\n") || (cfg.game && strpbrk(cfg.game, " \t,\r\n")))) {
        fprintf(stderr, "%s: --id and --game may not hold blanks nor a comma\n", prog);
        rc = CLI_USAGE_ERROR;
    }
    if (rc < 0 && strpbrk(cfg.password, " \t\r\n")) { /* LOGIN's fields are blank-separated */
        fprintf(stderr, "%s: the password (%s) may not hold blanks\n", prog, pw_from);
        rc = CLI_USAGE_ERROR;
    }
    if (rc < 0 && learn.on && (!cfg.play.rival_books || !cfg.records_dir)) {
        fprintf(stderr,
                "%s: --learn needs --rival-books (the overlays) and --records (the games it learns from)\n"
                "Try '%s --help' for more information.\n",
                prog, prog);
        rc = CLI_USAGE_ERROR;
    }
    /* one directory for the engine and the learner, whatever the engine's own resolution of
     * a relative RivalBookDir would be */
    char rival_abs[PATH_MAX], derr[PATH_MAX + 128];
    if (rc < 0 && cfg.play.rival_books) {
        if (!path_make_dirs(cfg.play.rival_books, NULL, derr, sizeof derr)) {
            fprintf(stderr, "%s: --rival-books %s\n", prog, derr);
            rc = 1;
        } else if (!realpath(cfg.play.rival_books, rival_abs)) {
            fprintf(stderr, "%s: --rival-books %s: %s\n", prog, cfg.play.rival_books, strerror(errno));
            rc = 1;
        } else
            cfg.play.rival_books = rival_abs;
    }
    if (rc < 0 && cfg.records_dir && !path_make_dirs(cfg.records_dir, NULL, derr, sizeof derr)) {
        fprintf(stderr, "%s: --records %s\n", prog, derr);
        rc = 1;
    }
    char bundled[PATH_MAX];
    if (rc < 0 && learn.on && !learn.main_book && !cfg.engine_cmd &&
        path_resolve("book", "standard_book.db", bundled, sizeof bundled) && access(bundled, R_OK) == 0)
        learn.main_book = bundled;
    if (rc < 0 && learn.on) {
        learn.dir = cfg.play.rival_books;
        learn.player = cfg.id;
        cfg.on_game_end = learn_after_game;
        cfg.on_game_end_ctx = &learn;
    }
    char *self = NULL;
    if (rc < 0 && !cfg.engine_cmd) {
        if (!(self = engine_self_command())) {
            fprintf(stderr, "%s: cannot find this program's own path for its engine; use --engine\n", prog);
            rc = 1;
        }
        cfg.engine_cmd = self;
    }
    FILE *log = NULL;
    if (rc < 0 && log_path) {
        char lerr[PATH_MAX + 256];
        log = log_file_open(log_path, lerr, sizeof lerr);
        if (!log) {
            fprintf(stderr, "%s: --log %s\n", prog, lerr);
            rc = 1;
        }
    }
    if (rc < 0) {
        cfg.log = log;
        cfg.options = opts;
        cfg.n_options = n_opts;
        /* Ctrl-C resigns the game in progress; an engine that died is a failed write to
         * its pipe, which ends the game, not this process (util/long_job.h) */
        LongJob job;
        long_job_begin(&job);
        cfg.play.stop = interrupt_flag();
        CsaClientStats st;
        rc = csa_client_run(&cfg, &st);
        long_job_end(&job);
        fprintf(stderr, "hayanagi csa: %d game%s: %d won, %d lost, %d drawn, %d aborted, %d rejected\n", st.played,
                st.played == 1 ? "" : "s", st.wins, st.losses, st.draws, st.aborted, st.rejected);
    }
    if (log)
        fclose(log);
    for (int i = 0; i < n_opts; i++)
        free(storage[i]);
    free(self);
    free(av);
    memset(password, 0, sizeof password);
    return rc;
}
