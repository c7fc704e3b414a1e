/* cmd_match.c - `hayanagi match`: argument checking, signals, the record file. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "util/cli_opts.h"
#include "cli/book/io.h"
#include "cli/commands.h"
#include "match/match.h"
#include "match/node_jitter.h"
#include "match/resume.h"
#include "util/log_file.h"
#include "util/long_job.h"
#include "util/parse.h"

static void usage(FILE *f) {
    fprintf(f, "usage: hayanagi match --engine CMD --engine CMD [options]\n"
               "  --engine CMD          an engine command line (exactly two); see docs/match.md\n"
               "  --name NAME           display names, in --engine order (default: the engines' id name)\n"
               "  --games N             games to play (default: 2 per opening, or 2)\n"
               "  --byoyomi MS          byoyomi per move (default 1000 when no time control is given)\n"
               "  --time MS             main time per side, with --inc MS (Fischer) or --byoyomi MS\n"
               "  --inc MS              Fischer increment, added after each move\n"
               "  --nodes N             fixed nodes per move (`go nodes N`), no clock\n"
               "  --nodes1 N, --nodes2 N  that engine alone plays at N nodes (no clock); the other\n"
               "                        keeps the time control\n"
               "  --nodes-jitter P       at fixed nodes, each engine's budget for a game is drawn from\n"
               "                        [N - P%%, N + P%%] by --seed (default 0: N itself), so that two\n"
               "                        engines without randomness do not replay one game\n"
               "  --time1 MS, --inc1 MS, --byoyomi1 MS, --time2 MS, --inc2 MS, --byoyomi2 MS\n"
               "                        that engine's own clock (time odds): each overrides the common\n"
               "                        option of its kind for that engine alone; each engine's clock is\n"
               "                        kept, sent and enforced on its own\n"
               "  --openings FILE       one position per line: startpos [moves ...] | sfen ... | SFEN\n"
               "  --seed S              shuffle the openings with seed S; the seed of --nodes-jitter\n"
               "  --option NAME=VALUE   setoption for both engines (repeatable; NAME alone for a button)\n"
               "  --option1/--option2   setoption for the first / second engine only\n"
               "  --go-extra TEXT       appended to every go command (--go-extra1/--go-extra2: one engine)\n"
               "  --out FILE.csa        write every game to one CSA v2.2 file (rewritten after each game)\n"
               "  --resume              with --out: count the finished games FILE.csa holds (a match of\n"
               "                        the same --games) and play only the others; new games are\n"
               "                        written beside the old ones, which stay as they were\n"
               "  --concurrency N       games played at once (default 1)\n"
               "  --max-moves N         draw after move N (default 320; 0: no limit)\n"
               "  --grace MS            allowance over the clock before a time loss (default 50)\n"
               "  --grace1/--grace2 MS  the same for the first / second engine only\n"
               "  --move-timeout MS     nodes mode: longest wait for a bestmove (default 60000)\n"
               "  --log FILE            log the USI dialogue of every engine (appended; - for stderr,\n"
               "                        and then the game lines are plain lines, not one redrawn line)\n"
               "  --engine-stderr       let the engines write to our stderr (default: /dev/null)\n"
               "  --restart             a new process of each engine for every game (--restart1/--restart2:\n"
               "                        one engine only): nothing it keeps between games carries over\n"
               "  --swap-clocks1/--swap-clocks2  send that engine btime/wtime and binc/winc swapped, for\n"
               "                        one that reads them the wrong way round (fairy-stockfish)\n"
               "EnteringKingRule for judging `bestmove win` is taken from --option EnteringKingRule=...\n"
               "(default CSARule27).\n");
}

static int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "hayanagi match: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(hayanagi match --help for the options)\n");
    return 2;
}

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

/* MatchConfig.game_nodes under --nodes-jitter: game idx's budget for engine k. */
typedef struct {
    int percent;
    uint64_t seed;
} NodeJitter;

static int64_t jittered_nodes(void *ctx, int k, int idx, int64_t nodes) {
    const NodeJitter *nj = ctx;
    return match_jittered_nodes(nodes, nj->percent, nj->seed, (uint64_t)idx + 1, k);
}

enum { MAX_OPTIONS = 64 };

typedef struct {
    EngineOption shared[MAX_OPTIONS], own[2][MAX_OPTIONS], merged[2][2 * MAX_OPTIONS];
    int n_shared, n_own[2], n_merged[2];
    char *storage[3 * MAX_OPTIONS]; /* the strings behind name/value, owned */
    int n_storage;
} OptionLists;

/* Splits NAME=VALUE (VALUE may contain '='; no '=' means a button) into list. */
static bool add_option(OptionLists *ol, EngineOption *list, int *n, const char *arg, const char *flag) {
    if (*n >= MAX_OPTIONS || ol->n_storage >= 3 * MAX_OPTIONS) {
        usage_error("too many %s arguments", flag);
        return false;
    }
    char *copy;
    const char *why;
    if (!engine_option_from_arg(arg, &list[*n], &copy, &why)) {
        char msg[96];
        snprintf(msg, sizeof msg, "%s %s", flag, why);
        usage_error("%s", msg);
        return false;
    }
    ol->storage[ol->n_storage++] = copy;
    (*n)++;
    return true;
}

static void free_options(OptionLists *ol) {
    for (int i = 0; i < ol->n_storage; i++)
        free(ol->storage[i]);
}

/* Shared options first, then the engine's own; an own option replaces a shared one of
 * the same name. */
static void merge_options(OptionLists *ol) {
    for (int k = 0; k < 2; k++) {
        ol->n_merged[k] = 0;
        for (int i = 0; i < ol->n_shared; i++) {
            bool overridden = false;
            for (int j = 0; j < ol->n_own[k]; j++)
                overridden |= strcasecmp(ol->shared[i].name, ol->own[k][j].name) == 0;
            if (!overridden)
                ol->merged[k][ol->n_merged[k]++] = ol->shared[i];
        }
        for (int j = 0; j < ol->n_own[k]; j++)
            ol->merged[k][ol->n_merged[k]++] = ol->own[k][j];
    }
}

/* True when game i of this run was played to an end (not merely started). */
static bool finished_now(const MatchResult *res, int i) {
    return res->records[i].root_sfen[0] && res->records[i].end != END_NONE;
}

/* True when the record may be written now: always for a new record; for a resumed one
 * only once this run has finished a game, so that a resume that plays nothing (engines
 * that do not start, a Ctrl-C before the first game ends) leaves the file as it was. */
static bool record_changed(const MatchResult *res, const MatchResume *resumed) {
    if (!resumed)
        return true;
    for (int i = 0; i < res->n_records; i++)
        if (finished_now(res, i))
            return true;
    return false;
}

/* Writes the record in schedule order. At each place: a game this run finished; else the
 * game a resumed record held there (resumed, may be NULL), as it was written, finished or
 * not (nothing read is dropped); else a game this run started and did not finish. */
static bool write_record(const char *path, const MatchResult *res, const MatchResume *resumed, char *err,
                         size_t err_len) {
    size_t cap = (size_t)(res->n_records > 0 ? res->n_records : 1);
    GameRecord *games = malloc(cap * sizeof *games);
    const char **raw = calloc(cap, sizeof *raw);
    int n = 0;
    for (int i = 0; games && raw && i < res->n_records; i++) {
        const char *old = resumed && i < resumed->games ? resumed->text[i] : NULL;
        if (finished_now(res, i) || (!old && res->records[i].root_sfen[0]))
            games[n++] = res->records[i];
        else if (old) {
            memset(&games[n], 0, sizeof games[n]);
            raw[n++] = old;
        }
    }
    bool ok = games && raw ? csa_write_games_file(path, games, raw, n, err, err_len) : false;
    if (!games || !raw)
        snprintf(err, err_len, "out of memory");
    free(games);
    free(raw);
    return ok;
}

/* MatchConfig.on_game for --out: the record rewritten (atomically) after every game. */
typedef struct {
    const char *path;
    const MatchResume *resumed; /* --resume: the games read back, or NULL */
    bool warned;
    bool clear_line; /* the runner's redrawn game line is on the terminal stderr goes to */
} RecordSink;

static void record_after_game(void *ctx, const MatchResult *res) {
    RecordSink *s = ctx;
    char err[512];
    if (record_changed(res, s->resumed) && !write_record(s->path, res, s->resumed, err, sizeof err) && !s->warned) {
        /* on its own line, not at the end of the last game's redrawn one */
        fprintf(stderr, "%shayanagi match: writing %s: %s (retried after every game and at the end)\n",
                s->clear_line ? "\r\033[K" : "", s->path, err);
        s->warned = true;
    }
}

/* Checks early that the record's directory is writable, so a long match does not end
 * with nowhere to put its games. */
static bool out_dir_writable(const char *path) {
    const char *slash = strrchr(path, '/');
    if (!slash)
        return access(".", W_OK) == 0;
    if (slash == path)
        return access("/", W_OK) == 0;
    size_t n = (size_t)(slash - path);
    char *dir = malloc(n + 1);
    if (!dir)
        return false;
    memcpy(dir, path, n);
    dir[n] = '\0';
    bool ok = access(dir, W_OK) == 0;
    free(dir);
    return ok;
}

int cmd_match(int argc, char **argv) {
    const char *engines[2] = {NULL, NULL}, *names[2] = {NULL, NULL};
    int n_engines = 0, n_names = 0;
    long long games = -1, concurrency = 1, max_moves = 320, move_timeout = 60000;
    /* the clock options, -1 when not given: [0] the common ones, [1] and [2] each engine's own */
    long long byoyomi[3] = {-1, -1, -1}, main_time[3] = {-1, -1, -1}, inc[3] = {-1, -1, -1}, nodes[3] = {-1, -1, -1};
    long long grace[3] = {50, -1, -1}; /* common, engine 1, engine 2 (-1: the common one) */
    long long jitter = 0;
    const char *openings_path = NULL, *out_path = NULL, *log_path = NULL;
    const char *go_extra[3] = {NULL, NULL, NULL}; /* both, first, second */
    bool have_seed = false, engine_stderr = false, resume = false;
    bool restart[3] = {false, false, false}; /* --restart, --restart1, --restart2 */
    bool swap[2] = {false, false};           /* --swap-clocks1, --swap-clocks2 */
    MatchResume resumed = {0};
    uint64_t seed = 0;
    OptionLists *ol = calloc(1, sizeof *ol);
    if (!ol) {
        fprintf(stderr, "hayanagi match: out of memory\n");
        return 1;
    }
    int status = 2;
    char **av = NULL; /* the argument vector getopt_long permutes */
    Openings openings = {0};
    FILE *log_file = NULL;

    enum {
        M_ENGINE = 1,
        M_NAME,
        M_OPTION,
        M_OPTION1,
        M_OPTION2,
        M_GO,
        M_GO1,
        M_GO2,
        M_OPENINGS,
        M_OUT,
        M_RESUME,
        M_LOG,
        M_SEED,
        M_GAMES,
        M_CONC,
        M_MAXMOVES,
        M_GRACE,
        M_GRACE1,
        M_GRACE2,
        M_TIMEOUT,
        M_BYOYOMI,
        M_BYOYOMI1,
        M_BYOYOMI2,
        M_TIME,
        M_TIME1,
        M_TIME2,
        M_INC,
        M_INC1,
        M_INC2,
        M_NODES,
        M_NODES1,
        M_NODES2,
        M_JITTER,
        M_STDERR,
        M_RESTART,
        M_RESTART1,
        M_RESTART2,
        M_SWAP1,
        M_SWAP2,
        M_HELP = 'h'
    };
    static const struct option longopts[] = {{"engine", required_argument, NULL, M_ENGINE},
                                             {"name", required_argument, NULL, M_NAME},
                                             {"option", required_argument, NULL, M_OPTION},
                                             {"option1", required_argument, NULL, M_OPTION1},
                                             {"option2", required_argument, NULL, M_OPTION2},
                                             {"go-extra", required_argument, NULL, M_GO},
                                             {"go-extra1", required_argument, NULL, M_GO1},
                                             {"go-extra2", required_argument, NULL, M_GO2},
                                             {"openings", required_argument, NULL, M_OPENINGS},
                                             {"out", required_argument, NULL, M_OUT},
                                             {"resume", no_argument, NULL, M_RESUME},
                                             {"log", required_argument, NULL, M_LOG},
                                             {"seed", required_argument, NULL, M_SEED},
                                             {"games", required_argument, NULL, M_GAMES},
                                             {"concurrency", required_argument, NULL, M_CONC},
                                             {"max-moves", required_argument, NULL, M_MAXMOVES},
                                             {"grace", required_argument, NULL, M_GRACE},
                                             {"grace1", required_argument, NULL, M_GRACE1},
                                             {"grace2", required_argument, NULL, M_GRACE2},
                                             {"move-timeout", required_argument, NULL, M_TIMEOUT},
                                             {"byoyomi", required_argument, NULL, M_BYOYOMI},
                                             {"byoyomi1", required_argument, NULL, M_BYOYOMI1},
                                             {"byoyomi2", required_argument, NULL, M_BYOYOMI2},
                                             {"time", required_argument, NULL, M_TIME},
                                             {"time1", required_argument, NULL, M_TIME1},
                                             {"time2", required_argument, NULL, M_TIME2},
                                             {"inc", required_argument, NULL, M_INC},
                                             {"inc1", required_argument, NULL, M_INC1},
                                             {"inc2", required_argument, NULL, M_INC2},
                                             {"nodes", required_argument, NULL, M_NODES},
                                             {"nodes1", required_argument, NULL, M_NODES1},
                                             {"nodes2", required_argument, NULL, M_NODES2},
                                             {"nodes-jitter", required_argument, NULL, M_JITTER},
                                             {"engine-stderr", no_argument, NULL, M_STDERR},
                                             {"restart", no_argument, NULL, M_RESTART},
                                             {"restart1", no_argument, NULL, M_RESTART1},
                                             {"restart2", no_argument, NULL, M_RESTART2},
                                             {"swap-clocks1", no_argument, NULL, M_SWAP1},
                                             {"swap-clocks2", no_argument, NULL, M_SWAP2},
                                             {"help", no_argument, NULL, M_HELP},
                                             {NULL, 0, NULL, 0}};
    static const char prog[] = "hayanagi match";
    av = cli_opts_begin(prog, argc, argv);
    if (!av) {
        status = 1;
        goto out;
    }
    int ac = argc, c;
    while ((c = getopt_long(ac, av, "h", longopts, NULL)) != -1) {
        const char *v = optarg, *a = "?";
        for (const struct option *o = longopts; o->name; o++)
            if (o->val == c)
                a = o->name;
        long long *target = NULL;
        long long lo = 0, hi = 0;
        switch (c) {
        case M_HELP:
            usage(stdout);
            status = 0;
            goto out;
        case M_STDERR: engine_stderr = true; break;
        case M_RESTART:
        case M_RESTART1:
        case M_RESTART2: restart[c - M_RESTART] = true; break;
        case M_SWAP1:
        case M_SWAP2: swap[c - M_SWAP1] = true; break;
        case M_RESUME: resume = true; break;
        case M_ENGINE:
            if (n_engines == 2) {
                usage_error("%s", "exactly two --engine arguments are needed, got more");
                goto out;
            }
            if (!*v) {
                usage_error("%s", "--engine needs a command");
                goto out;
            }
            engines[n_engines++] = v;
            break;
        case M_NAME:
            if (n_names == 2) {
                usage_error("%s", "at most two --name arguments");
                goto out;
            }
            names[n_names++] = v;
            break;
        case M_OPTION:
            if (!add_option(ol, ol->shared, &ol->n_shared, v, "--option"))
                goto out;
            break;
        case M_OPTION1:
        case M_OPTION2:
            if (!add_option(ol, ol->own[c - M_OPTION1], &ol->n_own[c - M_OPTION1], v,
                            c == M_OPTION1 ? "--option1" : "--option2"))
                goto out;
            break;
        case M_GO:
        case M_GO1:
        case M_GO2:
            if (strchr(v, '\n')) {
                usage_error("--%s must be one line", a);
                goto out;
            }
            go_extra[c - M_GO] = v;
            break;
        case M_OPENINGS: openings_path = v; break;
        case M_OUT: out_path = v; break;
        case M_LOG: log_path = v; break;
        case M_SEED:
            if (!parse_unsigned(v, &seed)) {
                usage_error("--seed expects a non-negative integer, got '%s'", v);
                goto out;
            }
            have_seed = true;
            break;
        case M_GAMES: target = &games, lo = 1, hi = 1000000; break;
        case M_CONC: target = &concurrency, lo = 1, hi = 64; break;
        case M_MAXMOVES: target = &max_moves, lo = 0, hi = 10000; break;
        case M_GRACE:
        case M_GRACE1:
        case M_GRACE2: target = &grace[c - M_GRACE], lo = 0, hi = 60000; break;
        case M_TIMEOUT: target = &move_timeout, lo = 1, hi = 24LL * 3600 * 1000; break;
        case M_BYOYOMI:
        case M_BYOYOMI1:
        case M_BYOYOMI2: target = &byoyomi[c - M_BYOYOMI], lo = 1, hi = 24LL * 3600 * 1000; break;
        case M_TIME:
        case M_TIME1:
        case M_TIME2: target = &main_time[c - M_TIME], lo = 1, hi = 100LL * 3600 * 1000; break;
        case M_INC:
        case M_INC1:
        case M_INC2: target = &inc[c - M_INC], lo = 0, hi = 24LL * 3600 * 1000; break;
        case M_NODES:
        case M_NODES1:
        case M_NODES2: target = &nodes[c - M_NODES], lo = 1, hi = 1000000000000LL; break;
        case M_JITTER: target = &jitter, lo = 0, hi = 100; break;
        default: /* getopt said what was wrong */ cli_opts_unknown(prog); goto out;
        }
        if (target && !parse_integer(v, lo, hi, target)) {
            fprintf(stderr, "hayanagi match: --%s expects an integer in %lld..%lld, got '%s'\n", a, lo, hi, v);
            goto out;
        }
    }
    if (optind < ac) {
        usage_error("unexpected argument '%s'", av[optind]);
        goto out;
    }
    if (n_engines != 2) {
        usage_error("%s", "exactly two --engine arguments are needed");
        goto out;
    }
    if (jitter > 0 && nodes[0] <= 0 && nodes[1] <= 0 && nodes[2] <= 0) {
        usage_error("%s", "--nodes-jitter needs --nodes, --nodes1 or --nodes2");
        goto out;
    }
    TimeControl tc[2]; /* each engine's clock: the one policy in match/clock.h */
    for (int k = 0; k < 2; k++) {
        static const char *const flags[3][4] = {{"--time", "--inc", "--byoyomi", "--nodes"},
                                                {"--time1", "--inc1", "--byoyomi1", "--nodes1"},
                                                {"--time2", "--inc2", "--byoyomi2", "--nodes2"}};
        ClockArgs args[2];
        for (int j = 0; j < 2; j++) {
            int i = j == 0 ? 0 : k + 1;
            args[j] = (ClockArgs){
                {main_time[i], flags[i][0]}, {inc[i], flags[i][1]}, {byoyomi[i], flags[i][2]}, {nodes[i], flags[i][3]}};
        }
        char who[16], why[256];
        snprintf(who, sizeof who, "engine %d", k + 1);
        if (!time_control_resolve(&args[0], &args[1], who, &tc[k], why, sizeof why)) {
            usage_error("%s", why);
            goto out;
        }
    }
    if (out_path && !ends_with(out_path, ".csa")) {
        usage_error("--out: only .csa records are written (got '%s')", out_path);
        goto out;
    }
    if (resume && !out_path) {
        usage_error("%s", "--resume needs --out FILE.csa (the record to resume)");
        goto out;
    }
    if (out_path && !cli_check_record_output("hayanagi match", out_path)) {
        status = 1;
        goto out;
    }
    if (out_path && !out_dir_writable(out_path)) {
        fprintf(stderr, "hayanagi match: cannot write to the directory of '%s'\n", out_path);
        status = 1;
        goto out;
    }
    EnteringKingRule ekr = EKR_27;
    for (int i = 0; i < ol->n_shared; i++)
        if (strcasecmp(ol->shared[i].name, "EnteringKingRule") == 0 &&
            (!ol->shared[i].value || !entering_king_rule_parse(ol->shared[i].value, &ekr))) {
            usage_error("unknown EnteringKingRule '%s' (NoEnteringKing, CSARule24, CSARule24H, CSARule27, "
                        "CSARule27H, TryRule)",
                        ol->shared[i].value ? ol->shared[i].value : "");
            goto out;
        }
    merge_options(ol);

    char err[512];
    if (openings_path) {
        if (!openings_load(&openings, openings_path, err, sizeof err)) {
            fprintf(stderr, "hayanagi match: openings: %s\n", err);
            status = 1;
            goto out;
        }
        if (have_seed)
            openings_shuffle(&openings, seed);
    }
    if (games < 0)
        games = openings.n > 0 ? 2LL * openings.n : 2;
    if (resume && access(out_path, F_OK) == 0) {
        if (!match_resume_read(out_path, (int)games, &resumed, err, sizeof err)) {
            fprintf(stderr, "hayanagi match: --resume: %s\n", err);
            status = 1;
            goto out;
        }
        for (int k = 0; k < 2; k++)
            if (names[k] && resumed.names[k][0] && strcmp(names[k], resumed.names[k])) {
                fprintf(stderr, "hayanagi match: --resume: engine %d is '%s' in %s, not '%s' (--name)\n", k + 1,
                        resumed.names[k], out_path, names[k]);
                status = 1;
                goto out;
            }
        char now[sizeof resumed.time_control];
        MatchConfig clocks = {.engines = {{.tc = tc[0]}, {.tc = tc[1]}}};
        match_time_control_describe(&clocks, now, sizeof now);
        if (resumed.time_control[0] && strcmp(resumed.time_control, now)) {
            fprintf(stderr,
                    "hayanagi match: --resume: the games in %s were played at '%s', not '%s' (the clock options)\n",
                    out_path, resumed.time_control, now);
            status = 1;
            goto out;
        }
        printf("Resuming: %d of %lld games read back from %s\n", resumed.n_done, games, out_path);
    } else if (resume)
        printf("Resuming: %s does not exist yet, starting from game 1\n", out_path);
    if (log_path) {
        char lerr[4096 + 256];
        log_file = log_file_open(log_path, lerr, sizeof lerr);
        if (!log_file) {
            fprintf(stderr, "hayanagi match: --log %s\n", lerr);
            status = 1;
            goto out;
        }
    }

    MatchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    for (int k = 0; k < 2; k++) {
        cfg.engines[k].cmd = engines[k];
        cfg.engines[k].name = names[k];
        cfg.engines[k].options = ol->merged[k];
        cfg.engines[k].n_options = ol->n_merged[k];
        cfg.engines[k].go_extra = go_extra[k + 1] ? go_extra[k + 1] : go_extra[0];
        cfg.engines[k].tc = tc[k];
        cfg.engines[k].grace_ms = grace[k + 1] >= 0 ? grace[k + 1] : grace[0];
        cfg.engines[k].restart_each_game = restart[0] || restart[k + 1];
        cfg.engines[k].swap_clocks = swap[k];
    }
    NodeJitter nj = {(int)jitter, seed};
    if (jitter > 0) {
        cfg.game_nodes = jittered_nodes;
        cfg.game_nodes_ctx = &nj;
    }
    cfg.games = (int)games;
    cfg.concurrency = (int)concurrency;
    cfg.max_moves = (int)max_moves;
    cfg.move_timeout_ms = move_timeout;
    cfg.ekr = ekr;
    cfg.openings = openings.n > 0 ? &openings : NULL;
    cfg.inherit_stderr = engine_stderr;
    cfg.out = stdout;
    /* a log on the terminal (--log - with stderr there) would land in the redrawn line */
    cfg.tty = isatty(STDOUT_FILENO) && !(log_path && strcmp(log_path, "-") == 0 && isatty(STDERR_FILENO));
    pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
    EngineLog log = {log_file, &log_lock, engine_now_us(), false}; /* seconds since the start */
    cfg.log = log_file ? &log : NULL;
    cfg.stop_flag = interrupt_flag(); /* the runner finishes no new game and writes what it has */
    RecordSink sink = {out_path, resumed.games ? &resumed : NULL, false, cfg.tty && isatty(STDERR_FILENO)};
    cfg.resumed = resumed.games ? resumed.done : NULL;
    if (out_path) {
        cfg.on_game = record_after_game;
        cfg.on_game_ctx = &sink;
    }

    /* Ctrl-C (or SIGTERM) stops the match cleanly, a second one ends the process at once;
     * a dead engine shows up as a failed write (util/long_job.h). */
    LongJob job;
    long_job_begin(&job);

    char tc_text[128];
    printf("Match: %s vs %s, %d game(s), %s, concurrency %d, %s%s\n", engines[0], engines[1], cfg.games,
           match_time_control_describe(&cfg, tc_text, sizeof tc_text), cfg.concurrency,
           cfg.openings ? "openings from " : "from the start position", cfg.openings ? openings_path : "");
    fflush(stdout);
    MatchResult res;
    bool ok = match_run(&cfg, &res, err, sizeof err);
    long_job_end(&job);
    if (!ok)
        fprintf(stderr, "hayanagi match: %s\n", err);
    match_print_summary(&res, stdout);
    fflush(stdout);
    status = !ok ? 1 : res.interrupted ? INTERRUPT_EXIT_STATUS : 0;
    if (out_path && res.n_records > 0 && !record_changed(&res, sink.resumed))
        printf("Record: %s unchanged (no game finished in this run)\n", out_path);
    else if (out_path && res.n_records > 0) {
        char werr[512];
        if (write_record(out_path, &res, sink.resumed, werr, sizeof werr)) {
            printf("Record: %s\n", out_path);
        } else {
            fprintf(stderr, "hayanagi match: writing %s: %s\n", out_path, werr);
            if (status == 0)
                status = 1;
        }
    }
    match_result_free(&res);

out:
    match_resume_free(&resumed);
    if (log_file)
        fclose(log_file);
    openings_free(&openings);
    free_options(ol);
    free(ol);
    free(av);
    return status;
}
