/* rival_learn.c - `hayanagi book rival-learn`: an opponent's overlay book learned from
 * games (bookgen/rival.h; docs/book_making.md, "Rival overlays"). */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "book/overlay.h"
#include "bookgen/rival.h"
#include "cli/book/io.h"
#include "cli/book/options.h"
#include "cli/book/verbs.h"
#include "util/cli_opts.h"

static void rival_usage(FILE *f) {
    fprintf(f, "usage: hayanagi book rival-learn (--overlay FILE | --rival-books DIR --opponent NAME)\n"
               "                                [--player PATTERN] [--opponent NAME] [--book MAIN] [--max-ply N]\n"
               "                                [--quiet] RECORDS...\n"
               "Updates an opponent's overlay book (created when missing) from game records: where the opponent\n"
               "lost, the winner's moves become the overlay's first choices (as import-losses); where we lost,\n"
               "our book move at the last position where the book had an alternative is demoted, so the engine\n"
               "never plays it there against that opponent again. A RECORDS argument that is a directory stands\n"
               "for its record files (.csa .kif .kifu .ki2 .ki2u .sfen .usi, not recursive).\n"
               "  --overlay FILE        the overlay, written as DB2016 (a .sbk name is refused)\n"
               "  --rival-books DIR     the engine's RivalBookDir: the overlay is DIR/<NAME>.db, NAME mapped to\n"
               "                        a file name as the engine does (docs/usi.md)\n"
               "  --opponent NAME       the opponent (exact name); without it, the other side of our games\n"
               "  --player PATTERN      our name, a glob pattern ('hayanagi*'); needed to learn from our losses\n"
               "  --book MAIN           the engine's main book: its moves count as the alternatives\n"
               "  --max-ply N           only game plies 1..N (0, the default: all)\n"
               "  --quiet               no progress display\n");
}

typedef struct {
    RivalLearn *l;
    bool oom;
} Ctx;

static bool on_game(void *ctx, const RecordGame *g) {
    Ctx *c = ctx;
    if (!rival_learn_add_game(c->l, g))
        c->oom = true;
    return !c->oom;
}

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

typedef struct {
    char **v;
    int n, cap;
} Names;

static bool names_add(Names *s, const char *path) {
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 16;
        char **v = realloc(s->v, (size_t)cap * sizeof *v);
        if (!v)
            return false;
        s->v = v;
        s->cap = cap;
    }
    if (!(s->v[s->n] = strdup(path)))
        return false;
    s->n++;
    return true;
}

static void names_free(Names *s) {
    for (int i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
}

/* Adds path, or the record files of the directory path in name order. False (reason on
 * stderr) when a directory cannot be read or memory runs out. */
static bool add_records(Names *s, const char *path) {
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return names_add(s, path); /* the reader reports a missing file */
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "hayanagi book rival-learn: cannot read the directory %s\n", path);
        return false;
    }
    int first = s->n;
    bool ok = true;
    struct dirent *e;
    while (ok && (e = readdir(d))) {
        char full[8192];
        if (e->d_name[0] == '.' || record_format_from_path(e->d_name) == REC_FMT_AUTO)
            continue;
        if (snprintf(full, sizeof full, "%s/%s", path, e->d_name) >= (int)sizeof full)
            continue;
        ok = stat(full, &sb) != 0 || !S_ISREG(sb.st_mode) || names_add(s, full);
    }
    closedir(d);
    if (ok)
        qsort(s->v + first, (size_t)(s->n - first), sizeof *s->v, compare_names);
    else
        fprintf(stderr, "hayanagi book rival-learn: out of memory\n");
    return ok;
}

static void print_report(const char *overlay, const RivalLearnReport *r) {
    printf("%s: %llu games: %llu opponent losses imported (%llu positions), %llu of our losses demoted a move "
           "(%llu already demoted), %llu without a book alternative, %llu draws or unknown results, %llu not "
           "between the players\n",
           overlay, (unsigned long long)r->games, (unsigned long long)r->imported,
           (unsigned long long)r->positions_imported, (unsigned long long)r->demoted,
           (unsigned long long)r->already_demoted, (unsigned long long)r->no_alternative, (unsigned long long)r->draws,
           (unsigned long long)r->skipped);
    if (r->demoted)
        printf("last demoted: %s at sfen %s (%s:%llu)\n", r->demoted_move, r->demoted_sfen, r->demoted_file,
               (unsigned long long)r->demoted_line);
}

int book_verb_rival_learn(int argc, char **argv) {
    static const char prog[] = "hayanagi book rival-learn";
    static const struct option longopts[] = {{"overlay", required_argument, NULL, 'o'},
                                             {"rival-books", required_argument, NULL, 'r'},
                                             {"opponent", required_argument, NULL, 'n'},
                                             {"player", required_argument, NULL, 'p'},
                                             {"book", required_argument, NULL, 'b'},
                                             {"max-ply", required_argument, NULL, 'm'},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    RivalLearnOptions o = {0};
    const char *dir = NULL;
    bool quiet = false;
    long v = 0;
    char **av = cli_opts_begin(prog, argc, argv);
    int c, rc = av ? -1 : 1;
    while (rc < 0 && (c = getopt_long(argc, av, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': o.overlay = optarg; break;
        case 'r': dir = optarg; break;
        case 'n': o.opponent = optarg; break;
        case 'p': o.player = optarg; break;
        case 'b': o.main_book = optarg; break;
        case 'm':
            if (!cli_opts_int(prog, longopts, c, optarg, 0, 100000, &v))
                rc = CLI_USAGE_ERROR;
            o.max_ply = (int)v;
            break;
        case 'q': quiet = true; break;
        case 'h':
            rival_usage(stdout);
            rc = 0;
            break;
        default: rc = cli_opts_unknown(prog); break;
        }
    }
    int n = rc < 0 ? argc - optind : 0;
    if (rc < 0 && (n < 1 || !o.overlay == !dir || (dir && !o.opponent) || (!o.player && !o.opponent))) {
        rival_usage(stderr);
        rc = CLI_USAGE_ERROR;
    }
    char path[8400];
    if (rc < 0 && dir) {
        if (book_overlay_find(dir, o.opponent, path, sizeof path) == BOOK_OVERLAY_BAD_NAME)
            rc = cli_opts_bad_value(prog, longopts, 'n', o.opponent, "a name that maps to a file name");
        o.overlay = path;
    }
    if (rc < 0 && !cli_check_output("rival-learn", o.overlay))
        rc = CLI_USAGE_ERROR;
    if (rc >= 0) {
        free(av);
        return rc;
    }
    Names files = {0};
    rc = 1;
    bool listed = true;
    for (int i = 0; i < n && listed; i++)
        listed = add_records(&files, av[optind + i]);
    char err[1024];
    Ctx ctx = {0};
    if (listed && !files.n)
        fprintf(stderr, "hayanagi book rival-learn: no record file in the arguments\n");
    else if (listed && !(ctx.l = rival_learn_open(&o, err, sizeof err)))
        fprintf(stderr, "hayanagi book rival-learn: %s\n", err);
    else if (listed && cli_read_records(files.v, files.n, on_game, &ctx, &ctx.oom, false, quiet, NULL) == 0 &&
             !ctx.oom) {
        if (rival_learn_commit(ctx.l, err, sizeof err)) {
            print_report(o.overlay, rival_learn_report(ctx.l));
            rc = 0;
        } else {
            fprintf(stderr, "hayanagi book rival-learn: %s\n", err);
        }
    }
    if (ctx.oom)
        fprintf(stderr, "hayanagi book rival-learn: out of memory\n");
    if (rc)
        fprintf(stderr, "hayanagi book rival-learn: %s not written\n", o.overlay);
    rival_learn_close(ctx.l);
    names_free(&files);
    free(av);
    return rc;
}
