/* grow.c - `hayanagi book grow` (bookgen/grow.h): the options, the records directory,
 * the games (grow_play.h) and OUT. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bookgen/grow.h"
#include "cli/book/grow_play.h"
#include "cli/book/io.h"
#include "cli/book/options.h"
#include "cli/book/verbs.h"
#include "match/match.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"
#include "util/cli_opts.h"
#include "util/path.h"

static const char PROG[] = "hayanagi book grow";

static void grow_usage(FILE *f) {
    fprintf(f, "usage: hayanagi book grow IN OUT --records DIR --games N --opponent CMD [--opponent CMD]... [options]\n"
               "Grows the opening book IN into OUT by playing games (meta-MCTS: the book is the tree, each\n"
               "playout is a whole game; docs/book_making.md, section grow). Every finished game is one\n"
               "CSA file in DIR; OUT is made from IN and DIR alone, so the same command resumes, and\n"
               "--games 0 rebuilds OUT without playing.\n"
               "  --records DIR          the games (created when missing; other record files there count)\n"
               "  --games N              play until DIR holds N games from the start position (0: no play)\n"
               "  --opponent CMD         an opponent (repeatable; games go to each in turn)\n"
               "  --player CMD           the side grown for (default: this program, its own book off)\n"
               "  --player-name NAME     its name in the records, how OUT tells its moves (default grow-player)\n"
               "  --player-option N=V, --opponent-option N=V   setoption for that side (repeatable)\n"
               "  --byoyomi MS, --time MS, --inc MS, --nodes N   the clock, as for match (default byoyomi 1000)\n"
               "  --player-nodes N, --opponent-nodes N           that side alone at N nodes per move\n"
               "  --player-byoyomi MS, --player-time MS, --player-inc MS, --opponent-byoyomi MS,\n"
               "  --opponent-time MS, --opponent-inc MS   that side's own clock (time odds), each\n"
               "                         overriding the common option of its kind for that side\n"
               "  --nodes-jitter P       at fixed nodes, each side's budget for a game is drawn from\n"
               "                         N(1 +- P/100) by a hash of --seed, the game and the side (default 10;\n"
               "                         0: every game at N; the budgets are in each record's comments)\n"
               "  --go-extra TEXT, --player-go-extra TEXT, --opponent-go-extra TEXT\n"
               "  --grace MS (50), --move-timeout MS (60000), --max-moves N (320)\n"
               "  --player-grace MS, --opponent-grace MS   that side's own allowance over its clock\n"
               "  --player-swap-clocks, --opponent-swap-clocks   send that side btime/wtime and binc/winc\n"
               "                         swapped, for an engine that reads them the wrong way round\n"
               "                         (fairy-stockfish in USI mode; docs/match.md)\n"
               "  --concurrency C        games at once (default 1)\n"
               "  --max-ply P            plies the tree covers (default 32)\n"
               "  --expand-after K       games that must leave the tree at a position to add it (default 2)\n"
               "  --prior G              a book score counts as G games (default 4)\n"
               "  --explore X            UCB exploration constant (default 0.5)\n"
               "  --confidence Z         score a learned move by its value less Z standard errors, and\n"
               "                         value a player's node by that move (default 0: by the value)\n"
               "  --widen W              progressive widening: a player's node with k < W sqrt(N) moves, N its\n"
               "                         games played by book grow, has the player search the moves it does\n"
               "                         not list (default 0: off)\n"
               "  --root-moves LIST      the only first moves the player may play and OUT list at the start\n"
               "                         position, USI, separated by commas (7g7f,2g2f); every game still counts\n"
               "  --keep-root            the same with the moves IN lists at the start position: growing\n"
               "                         from a book keeps its first moves whatever DIR's games opened with\n"
               "  --seed S               the policy's tie-breaks (default 0)\n"
               "  --startmoves FILE      forced first moves, one 'startpos moves ...' line each\n"
               "  --engine-stderr        let the engines write to our stderr\n"
               "  --quiet                no progress display\n");
}

/* ---- The records directory ---- */

typedef struct {
    GrowTree *tree;
    uint64_t added, skipped;
    bool oom;
} Load;

static bool load_game(void *ctx, const RecordGame *g) {
    Load *l = ctx;
    GrowAddResult r =
        grow_tree_add_game(l->tree, g->root_sfen, g->moves, g->n_moves, g->result, g->black, g->white, g->event);
    if (r == GROW_OOM) {
        l->oom = true;
        return false;
    }
    if (r == GROW_ADDED) {
        l->added++;
        return true;
    }
    l->skipped++;
    fprintf(stderr, "%s: %s:%llu: skipped: %s\n", PROG, g->file, (unsigned long long)g->line,
            r == GROW_NOT_ROOT ? "the game does not start at the start position" : "the game has no result");
    return true;
}

static void load_error(void *ctx, const char *file, uint64_t line, const char *reason) {
    Load *l = ctx;
    l->skipped++;
    fprintf(stderr, "%s: %s:%llu: skipped: %s\n", PROG, file, (unsigned long long)line, reason);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Reads every record file of dir into the tree, in name order, naming what is skipped;
 * *next gets the number after the largest grow-NNNNNN.csa. A missing dir holds nothing.
 * False (reason on stderr) when the directory cannot be listed or memory runs out. */
static bool load_dir(const char *dir, GrowTree *tree, Load *l, int *next) {
    memset(l, 0, sizeof *l);
    l->tree = tree;
    *next = 0;
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT)
            return true;
        fprintf(stderr, "%s: %s: %s\n", PROG, dir, strerror(errno));
        return false;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    bool ok = true;
    for (struct dirent *e; ok && (e = readdir(d));) {
        if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp."))
            continue; /* hidden files, and what a killed atomic write left */
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **more = realloc(names, cap * sizeof *more);
            ok = more != NULL;
            if (ok)
                names = more;
        }
        if (ok && !(names[n] = strdup(e->d_name)))
            ok = false;
        n += ok;
    }
    closedir(d);
    if (ok && n)
        qsort(names, n, sizeof *names, by_name);
    RecordReadOptions ro = {.on_game = load_game, .on_error = load_error, .ctx = l};
    for (size_t i = 0; ok && i < n; i++) {
        int num;
        char tail;
        if (sscanf(names[i], "grow-%d.cs%c", &num, &tail) == 2 && tail == 'a' && num >= *next)
            *next = num + 1;
        size_t len = strlen(dir) + strlen(names[i]) + 2;
        char *path = malloc(len);
        if (!path) {
            ok = false;
            break;
        }
        snprintf(path, len, "%s/%s", dir, names[i]);
        struct stat sb;
        char err[512];
        if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
            /* not a file: nothing to read */
        } else if (record_format_from_path(path) == REC_FMT_AUTO) {
            fprintf(stderr, "%s: %s: skipped: not a game record (.csa, .kif, .ki2, .sfen)\n", PROG, path);
            l->skipped++;
        } else if (!record_read_file(path, REC_FMT_AUTO, &ro, NULL, err, sizeof err)) {
            fprintf(stderr, "%s: %s: skipped: %s\n", PROG, path, err);
            l->skipped++;
        }
        free(path);
        ok = !l->oom;
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (!ok)
        fprintf(stderr, "%s: out of memory\n", PROG);
    return ok;
}

/* The player's and the opponents' clocks (tc[0], tc[1]) from the common clock options and
 * each side's own ([0] common, [1] player, [2] opponents; -1 when not given): the match's
 * one policy, match/clock.h. False (the reason on stderr) on a usage error. */
static bool grow_clocks(const long time[3], const long inc[3], const long byoyomi[3], const long nodes[3],
                        TimeControl tc[2]) {
    static const char *const flags[3][4] = {
        {"--time", "--inc", "--byoyomi", "--nodes"},
        {"--player-time", "--player-inc", "--player-byoyomi", "--player-nodes"},
        {"--opponent-time", "--opponent-inc", "--opponent-byoyomi", "--opponent-nodes"}};
    for (int k = 0; k < 2; k++) {
        ClockArgs args[2];
        for (int j = 0; j < 2; j++) {
            int i = j == 0 ? 0 : k + 1;
            args[j] = (ClockArgs){
                {time[i], flags[i][0]}, {inc[i], flags[i][1]}, {byoyomi[i], flags[i][2]}, {nodes[i], flags[i][3]}};
        }
        char why[256];
        if (!time_control_resolve(&args[0], &args[1], k == 0 ? "the player" : "the opponents", &tc[k], why,
                                  sizeof why)) {
            fprintf(stderr, "%s: %s\n", PROG, why);
            return false;
        }
    }
    return true;
}

/* ---- The verb ---- */

static bool add_option(GrowPlaySetup *ps, int side, const char *arg, const char *flag) {
    if (ps->n_opts[side] >= GROW_MAX_OPTIONS) {
        fprintf(stderr, "%s: too many %s arguments\n", PROG, flag);
        return false;
    }
    char *copy;
    const char *why;
    if (!engine_option_from_arg(arg, &ps->opts[side][ps->n_opts[side]], &copy, &why)) {
        fprintf(stderr, "%s: %s %s, got '%s'\n", PROG, flag, why, arg);
        return false;
    }
    ps->storage[ps->n_storage++] = copy;
    ps->n_opts[side]++;
    return true;
}

/* True when every line of o opens with one of keep[0..n) (or with no move); otherwise
 * false, the line named on stderr with the option that keeps the root's moves: a forced
 * first move the player may not play. */
static bool startmoves_kept(const Openings *o, const Move16 *keep, int n, const char *path, const char *flag) {
    for (int i = 0; i < o->n; i++) {
        Game g;
        game_init(&g);
        char err[256];
        bool ok = !game_set_from_usi(&g, o->lines[i], err, sizeof err) || g.count == 0;
        for (int j = 0; j < n && !ok; j++)
            ok = keep[j] == move_to_move16(g.moves[0]);
        if (!ok) {
            char usi[USI_MOVE_MAX];
            fprintf(stderr, "%s: --startmoves: %s: line %d opens with %s, which %s does not keep\n", PROG, path, i + 1,
                    move_to_usi(g.moves[0], usi), flag);
        }
        game_free(&g);
        if (!ok)
            return false;
    }
    return true;
}

/* Makes the tree of IN and DIR. NULL (reason on stderr) on failure. */
static GrowTree *tree_of(const Book *in, const GrowOptions *go, const char *dir, Load *l, int *next) {
    GrowTree *t = grow_tree_create(in, go);
    if (!t) {
        fprintf(stderr, "%s: out of memory\n", PROG);
        return NULL;
    }
    if (!load_dir(dir, t, l, next)) {
        grow_tree_free(t);
        return NULL;
    }
    return t;
}

int book_verb_grow(int argc, char **argv) {
    enum {
        O_RECORDS = 1,
        O_GAMES,
        O_OPP,
        O_PLAYER,
        O_PNAME,
        O_POPT,
        O_OOPT,
        O_BYO,
        O_PBYO,
        O_OBYO,
        O_TIME,
        O_PTIME,
        O_OTIME,
        O_INC,
        O_PINC,
        O_OINC,
        O_NODES,
        O_PNODES,
        O_ONODES,
        O_GO,
        O_PGO,
        O_OGO,
        O_GRACE,
        O_PGRACE,
        O_OGRACE,
        O_TIMEOUT,
        O_MAXMOVES,
        O_CONC,
        O_MAXPLY,
        O_EXPAND,
        O_PRIOR,
        O_EXPLORE,
        O_SEED,
        O_START,
        O_STDERR,
        O_QUIET,
        O_JITTER,
        O_WIDEN,
        O_CONFIDENCE,
        O_ROOT_MOVES,
        O_KEEP_ROOT,
        O_PSWAP,
        O_OSWAP,
        O_HELP = 'h'
    };
    static const struct option longopts[] = {{"records", required_argument, NULL, O_RECORDS},
                                             {"games", required_argument, NULL, O_GAMES},
                                             {"opponent", required_argument, NULL, O_OPP},
                                             {"player", required_argument, NULL, O_PLAYER},
                                             {"player-name", required_argument, NULL, O_PNAME},
                                             {"player-option", required_argument, NULL, O_POPT},
                                             {"opponent-option", required_argument, NULL, O_OOPT},
                                             {"byoyomi", required_argument, NULL, O_BYO},
                                             {"player-byoyomi", required_argument, NULL, O_PBYO},
                                             {"opponent-byoyomi", required_argument, NULL, O_OBYO},
                                             {"time", required_argument, NULL, O_TIME},
                                             {"player-time", required_argument, NULL, O_PTIME},
                                             {"opponent-time", required_argument, NULL, O_OTIME},
                                             {"inc", required_argument, NULL, O_INC},
                                             {"player-inc", required_argument, NULL, O_PINC},
                                             {"opponent-inc", required_argument, NULL, O_OINC},
                                             {"nodes", required_argument, NULL, O_NODES},
                                             {"player-nodes", required_argument, NULL, O_PNODES},
                                             {"opponent-nodes", required_argument, NULL, O_ONODES},
                                             {"go-extra", required_argument, NULL, O_GO},
                                             {"player-go-extra", required_argument, NULL, O_PGO},
                                             {"opponent-go-extra", required_argument, NULL, O_OGO},
                                             {"grace", required_argument, NULL, O_GRACE},
                                             {"player-grace", required_argument, NULL, O_PGRACE},
                                             {"opponent-grace", required_argument, NULL, O_OGRACE},
                                             {"move-timeout", required_argument, NULL, O_TIMEOUT},
                                             {"max-moves", required_argument, NULL, O_MAXMOVES},
                                             {"concurrency", required_argument, NULL, O_CONC},
                                             {"max-ply", required_argument, NULL, O_MAXPLY},
                                             {"expand-after", required_argument, NULL, O_EXPAND},
                                             {"prior", required_argument, NULL, O_PRIOR},
                                             {"explore", required_argument, NULL, O_EXPLORE},
                                             {"seed", required_argument, NULL, O_SEED},
                                             {"startmoves", required_argument, NULL, O_START},
                                             {"engine-stderr", no_argument, NULL, O_STDERR},
                                             {"quiet", no_argument, NULL, O_QUIET},
                                             {"nodes-jitter", required_argument, NULL, O_JITTER},
                                             {"widen", required_argument, NULL, O_WIDEN},
                                             {"confidence", required_argument, NULL, O_CONFIDENCE},
                                             {"root-moves", required_argument, NULL, O_ROOT_MOVES},
                                             {"keep-root", no_argument, NULL, O_KEEP_ROOT},
                                             {"player-swap-clocks", no_argument, NULL, O_PSWAP},
                                             {"opponent-swap-clocks", no_argument, NULL, O_OSWAP},
                                             {"help", no_argument, NULL, O_HELP},
                                             {NULL, 0, NULL, 0}};
    GrowPlaySetup *ps = calloc(1, sizeof *ps);
    char *self = NULL;
    if (!ps)
        return 1;
    const char *dir = NULL, *startmoves = NULL;
    long games = -1;
    /* the clock options, -1 when not given: [0] the common ones, [1] the player's, [2] the opponents' */
    long byoyomi[3] = {-1, -1, -1}, main_time[3] = {-1, -1, -1}, inc[3] = {-1, -1, -1}, nodes[3] = {-1, -1, -1};
    long move_timeout = 60000, max_moves = 320, concurrency = 1, max_ply = 32, expand_after = 2;
    long grace[3] = {50, -1, -1}; /* common, the player's, the opponents' (-1: the common one) */
    long seed = 0, jitter = 10;
    double prior = 4, explore = 0.5, widen = 0, confidence = 0;
    bool quiet = false, keep_root = false;
    Move16 root_moves[MAX_MOVES];
    int n_root_moves = 0;
    ps->player_name = "grow-player";
    char **av = cli_opts_begin(PROG, argc, argv);
    int c, rc = av ? -1 : 1;
    while (rc < 0 && (c = getopt_long(argc, av, "", longopts, NULL)) != -1) {
        long *target = NULL, lo = 0, hi = 0;
        switch (c) {
        case O_RECORDS: dir = optarg; break;
        case O_OPP:
            if (ps->n_opponents == GROW_MAX_OPPONENTS || !*optarg)
                rc = cli_opts_bad_value(PROG, longopts, c, optarg, "a command (at most 16 opponents)");
            else
                ps->cmd[1 + ps->n_opponents++] = optarg;
            break;
        case O_PLAYER:
            if (!*optarg)
                rc = cli_opts_bad_value(PROG, longopts, c, optarg, "a command");
            ps->cmd[0] = optarg;
            break;
        case O_PNAME:
            if (!*optarg || strchr(optarg, '\n'))
                rc = cli_opts_bad_value(PROG, longopts, c, optarg, "a name on one line");
            ps->player_name = optarg;
            break;
        case O_POPT:
        case O_OOPT:
            if (!add_option(ps, c == O_POPT ? 0 : 1, optarg, c == O_POPT ? "--player-option" : "--opponent-option"))
                rc = 2;
            break;
        case O_GO:
        case O_PGO:
        case O_OGO:
            if (strchr(optarg, '\n'))
                rc = cli_opts_bad_value(PROG, longopts, c, optarg, "one line");
            ps->go_extra[c - O_GO] = optarg;
            break;
        case O_PRIOR:
        case O_WIDEN:
        case O_CONFIDENCE:
        case O_EXPLORE: {
            char *end;
            double x = strtod(optarg, &end);
            if (end == optarg || *end || !(x >= 0 && x <= 1e6))
                rc = cli_opts_bad_value(PROG, longopts, c, optarg, "a number in 0..1000000");
            else if (c == O_PRIOR)
                prior = x;
            else if (c == O_WIDEN)
                widen = x;
            else if (c == O_CONFIDENCE)
                confidence = x;
            else
                explore = x;
            break;
        }
        case O_ROOT_MOVES: {
            char why[128];
            if ((n_root_moves = grow_root_moves_parse(optarg, root_moves, why, sizeof why)) < 0)
                rc = cli_opts_bad_value(PROG, longopts, c, optarg, why);
            break;
        }
        case O_KEEP_ROOT: keep_root = true; break;
        case O_PSWAP:
        case O_OSWAP: ps->swap_clocks[c == O_PSWAP ? 0 : 1] = true; break;
        case O_START: startmoves = optarg; break;
        case O_STDERR: ps->engine_stderr = true; break;
        case O_QUIET: quiet = true; break;
        case O_HELP:
            grow_usage(stdout);
            rc = 0;
            break;
        case O_GAMES: target = &games, lo = 0, hi = 100000000; break;
        case O_BYO:
        case O_PBYO:
        case O_OBYO: target = &byoyomi[c - O_BYO], lo = 1, hi = 86400000; break;
        case O_TIME:
        case O_PTIME:
        case O_OTIME: target = &main_time[c - O_TIME], lo = 1, hi = 360000000; break;
        case O_INC:
        case O_PINC:
        case O_OINC: target = &inc[c - O_INC], lo = 0, hi = 86400000; break;
        case O_NODES:
        case O_PNODES:
        case O_ONODES: target = &nodes[c - O_NODES], lo = 1, hi = LONG_MAX; break;
        case O_GRACE:
        case O_PGRACE:
        case O_OGRACE: target = &grace[c - O_GRACE], lo = 0, hi = 60000; break;
        case O_TIMEOUT: target = &move_timeout, lo = 1, hi = 86400000; break;
        case O_MAXMOVES: target = &max_moves, lo = 0, hi = 10000; break;
        case O_CONC: target = &concurrency, lo = 1, hi = 64; break;
        case O_MAXPLY: target = &max_ply, lo = 1, hi = 1000; break;
        case O_EXPAND: target = &expand_after, lo = 1, hi = 1000000; break;
        case O_SEED: target = &seed, lo = 0, hi = LONG_MAX; break;
        case O_JITTER: target = &jitter, lo = 0, hi = 100; break;
        default: rc = cli_opts_unknown(PROG);
        }
        if (target && !cli_opts_int(PROG, longopts, c, optarg, lo, hi, target))
            rc = 2;
    }
    const char *in_path = NULL, *out_path = NULL;
    if (rc < 0) {
        if (argc - optind != 2)
            rc = 2, fprintf(stderr, "%s: expects IN and OUT (--help for the options)\n", PROG);
        else if (!dir || games < 0)
            rc = 2, fprintf(stderr, "%s: --records DIR and --games N are required\n", PROG);
        else if (games > 0 && ps->n_opponents == 0)
            rc = 2, fprintf(stderr, "%s: --opponent CMD is required to play games\n", PROG);
        else if (!grow_clocks(main_time, inc, byoyomi, nodes, ps->tc))
            rc = 2;
        else if (keep_root && n_root_moves > 0)
            rc = 2, fprintf(stderr, "%s: --root-moves and --keep-root exclude each other\n", PROG);
        else {
            in_path = av[optind];
            out_path = av[optind + 1];
            if (!cli_check_output("grow", out_path))
                rc = 2;
        }
    }
    free(av);
    Book *in = NULL;
    GrowTree *tree = NULL;
    uint64_t played = 0;
    bool made_dir = false;
    if (rc >= 0)
        goto out;
    rc = 1;
    char err[512];
    if (startmoves) {
        if (!openings_load(&ps->startmoves, startmoves, err, sizeof err)) {
            fprintf(stderr, "%s: --startmoves: %s\n", PROG, err);
            goto out;
        }
        for (int i = 0; i < ps->startmoves.n; i++) {
            Game g;
            game_init(&g);
            bool from_start =
                game_set_from_usi(&g, ps->startmoves.lines[i], err, sizeof err) && !strcmp(g.root_sfen, STARTPOS_SFEN);
            game_free(&g);
            if (!from_start) {
                fprintf(stderr, "%s: --startmoves: %s: line %d does not start at the start position\n", PROG,
                        startmoves, i + 1);
                goto out;
            }
        }
    }
    if (!(in = cli_read_book(in_path, NULL, &(BookReadOptions){.log = stderr, .quiet = quiet}, NULL)))
        goto out;
    if (keep_root && (n_root_moves = grow_root_moves_of_book(in, root_moves)) <= 0) {
        if (n_root_moves < 0)
            fprintf(stderr, "%s: out of memory\n", PROG);
        else
            rc = 2, fprintf(stderr, "%s: --keep-root: %s lists no legal move at the start position\n", PROG, in_path);
        goto out;
    }
    if (n_root_moves > 0 && !startmoves_kept(&ps->startmoves, root_moves, n_root_moves, startmoves,
                                             keep_root ? "--keep-root" : "--root-moves")) {
        rc = 2;
        goto out;
    }
    GrowOptions go = {.max_ply = (int)max_ply,
                      .expand_after = (int)expand_after,
                      .prior = prior,
                      .explore = explore,
                      .widen = widen,
                      .confidence = confidence,
                      .seed = (uint64_t)seed,
                      .player = ps->player_name,
                      .root_moves = root_moves,
                      .n_root_moves = n_root_moves};
    Load l;
    int next_file = 0;
    if (!(tree = tree_of(in, &go, dir, &l, &next_file)))
        goto out;
    GrowSummary loaded;
    grow_tree_summary(tree, &loaded);
    fprintf(stderr,
            "%s: %s holds %llu games from the start position (%llu played by book grow, %llu skipped); goal %ld\n",
            PROG, dir, (unsigned long long)l.added, (unsigned long long)loaded.grow_games,
            (unsigned long long)l.skipped, games);
    int status = 0;
    if ((uint64_t)games > l.added) {
        if (!ps->cmd[0] && !(ps->cmd[0] = self = engine_self_command())) {
            fprintf(stderr, "%s: cannot find this program's path (/proc/self/exe); give --player\n", PROG);
            goto out;
        }
        /* the player's own book would answer before the tree does: off, unless told otherwise */
        bool own_book_set = false;
        for (int i = 0; i < ps->n_opts[0]; i++)
            own_book_set |= !strcasecmp(ps->opts[0][i].name, "USI_OwnBook");
        if (!own_book_set && ps->n_opts[0] < GROW_MAX_OPTIONS)
            ps->opts[0][ps->n_opts[0]++] = (EngineOption){.name = "USI_OwnBook", .value = "false"};
        ps->concurrency = (int)concurrency;
        ps->max_moves = (int)max_moves;
        for (int k = 0; k < 2; k++)
            ps->grace[k] = grace[1 + k] >= 0 ? grace[1 + k] : grace[0];
        ps->move_timeout = move_timeout;
        char derr[PATH_MAX + 128];
        if (!path_make_dirs(dir, &made_dir, derr, sizeof derr)) {
            fprintf(stderr, "%s: the records directory %s\n", PROG, derr);
            goto out;
        }
        GrowPlayTarget t = {.tree = tree,
                            .dir = dir,
                            .next_file = next_file,
                            .max_ply = (int)max_ply,
                            .jitter = (int)jitter,
                            .widen = widen > 0 || n_root_moves > 0,
                            .seed = (uint64_t)seed,
                            .have = l.added,
                            .goal = (uint64_t)games,
                            .quiet = quiet};
        status = grow_play(ps, &t, &played);
        if (made_dir && played == 0)
            rmdir(dir); /* a run that played nothing leaves no trace */
        if (status == 1) {
            fprintf(stderr, "%s: %s not written (%llu games of this run are in %s; the same command resumes)\n", PROG,
                    out_path, (unsigned long long)played, dir);
            goto out;
        }
        /* OUT is made from the files alone, as --games 0 makes it */
        grow_tree_free(tree);
        if (!(tree = tree_of(in, &go, dir, &l, &next_file)))
            goto out;
    }
    Book *b = grow_tree_book(tree);
    if (!b) {
        fprintf(stderr, "%s: out of memory\n", PROG);
        goto out;
    }
    BookWriteReport wr;
    if (cli_write_book(out_path, NULL, b, &(BookWriteOptions){.write_comments = true, .log = stderr, .quiet = quiet},
                       &wr)) {
        GrowSummary s;
        grow_tree_summary(tree, &s);
        fprintf(cli_say_wrote(out_path, &wr),
                " (%llu grown from the games), %llu games from %s, %.2f plies in book per game\n",
                (unsigned long long)s.grown, (unsigned long long)s.games, dir,
                s.games ? (double)s.book_plies / (double)s.games : 0.0);
        rc = status;
    }
    book_free(b);
out:
    grow_tree_free(tree);
    book_free(in);
    openings_free(&ps->startmoves);
    for (int i = 0; i < ps->n_storage; i++)
        free(ps->storage[i]);
    free(ps);
    free(self);
    return rc;
}
