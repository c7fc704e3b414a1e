/* cmd_book_make.c - the book-making verbs of `hayanagi book`: build, merge, minimax,
 * think, import-losses, and records (list the games a set of record files holds).
 * Dispatched from cmd_book.c through cmd_book_make(). docs/book_making.md has the guide. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "book/book.h"
#include "book/open.h"
#include "bookgen/make.h"
#include "bookgen/minimax.h"
#include "bookgen/think.h"
#include "cli/book_engines.h"
#include "util/cli_opts.h"
#include "cli/commands.h"
#include "match/match.h"
#include "record/reader.h"
#include "shogi/game.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"
#include "util/atomic_file.h"
#include "util/progress.h"
#include "util/random.h"
#include "util/interrupt.h"
#include "util/parse.h"
#include "match/openings_gen.h"

/* What the record callbacks share. */
typedef struct {
    bool print_moves;
    bool quiet;
    Book *book;
    BookBuildOptions bo;
    BookBuildStats bs;
    const char *opponent;
    int max_ply;
    ImportLossStats is;
    StateInfo *st;
    size_t cap;
    bool oom;
} Ctx;

static void rec_error(void *ctx, const char *file, uint64_t line, const char *reason) {
    (void)ctx;
    fprintf(stderr, "warning: %s:%llu: %s (record skipped)\n", file, (unsigned long long)line, reason);
}

static uint64_t file_size(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
}

bool cli_parse_int(const char *s, long lo, long hi, long *out) {
    long long v;
    if (!parse_integer(s, lo, hi, &v))
        return false;
    *out = (long)v;
    return true;
}

Book *cli_read_book_ex(const char *path, bool quiet, bool keep_comments) {
    char err[512];
    BookReadOptions ro = {.keep_comments = keep_comments, .log = stderr, .quiet = quiet};
    BookReadReport rep;
    Book *b = book_open_read(path, NULL, &ro, &rep, err, sizeof err);
    if (!b) {
        fprintf(stderr, "hayanagi book: %s\n", err);
        if (record_format_from_path(path) != REC_FMT_AUTO)
            fprintf(stderr, "hayanagi book: %s looks like a game record, not a book: is the BOOK argument missing?\n",
                    path);
        return NULL;
    }
    if (rep.note[0] && !quiet)
        fprintf(stderr, "%s\n", rep.note);
    return b;
}

Book *cli_read_book(const char *path, bool quiet) { return cli_read_book_ex(path, quiet, false); }

/* ---- records: read the files, print one line per game ---- */

static bool print_game(void *ctx, const RecordGame *g) {
    Ctx *c = ctx;
    printf("%s:%llu", g->file, (unsigned long long)g->line);
    if (g->variation)
        printf(" variation %d", g->variation);
    printf("\t%d moves\t%s\t%s\t%s vs %s", g->n_moves, record_result_name(g->result), g->end[0] ? g->end : "-",
           g->black[0] ? g->black : "?", g->white[0] ? g->white : "?");
    if (g->black_rating != REC_NO_RATING || g->white_rating != REC_NO_RATING)
        printf(" (%d vs %d)", (int)g->black_rating, (int)g->white_rating);
    printf("\t%s", g->root_sfen);
    if (c->print_moves) {
        printf("\tmoves");
        for (int i = 0; i < g->n_moves; i++) {
            char buf[USI_MOVE_MAX];
            printf(" %s", move_to_usi(g->moves[i], buf));
        }
    }
    printf("\n");
    return true;
}

int cli_read_records(char **files, int n, RecordGameFn on_game, void *ctx, const bool *oom, bool variations, bool quiet,
                     RecordStats *stats) {
    uint64_t total = 0;
    for (int i = 0; i < n; i++)
        total += file_size(files[i]);
    Progress pr;
    progress_start(&pr, stderr, "reading records", total, quiet);
    RecordStats st = {0};
    int rc = 0;
    for (int i = 0; i < n && !*oom; i++) {
        char err[512];
        RecordReadOptions ro = {.on_game = on_game,
                                .on_error = rec_error,
                                .ctx = ctx,
                                .variations = variations,
                                .progress = &pr,
                                .progress_base = st.bytes};
        if (!record_read_file(files[i], REC_FMT_AUTO, &ro, &st, err, sizeof err)) {
            fprintf(stderr, "hayanagi book: %s\n", err);
            rc = 1;
        }
        progress_update(&pr, st.bytes);
    }
    progress_finish(&pr);
    fprintf(stderr, "%llu games, %llu moves, %llu bad records skipped\n", (unsigned long long)st.games,
            (unsigned long long)st.moves, (unsigned long long)st.errors);
    if (*oom) {
        fprintf(stderr, "hayanagi book: out of memory\n");
        rc = 1;
    }
    if (stats)
        *stats = st;
    return rc;
}

static void records_usage(FILE *f) {
    fprintf(f, "usage: hayanagi book records [--moves] [--variations] FILES...\n"
               "Prints one line per game the record files hold: file:line, moves, result, end marker,\n"
               "players, ratings and root SFEN.\n"
               "  --moves       also print the moves (USI)\n"
               "  --variations  also list the KIF/KI2 variations as games\n");
}

static int verb_records(int argc, char **argv) {
    static const char prog[] = "hayanagi book records";
    static const struct option longopts[] = {{"moves", no_argument, NULL, 'm'},
                                             {"variations", no_argument, NULL, 'v'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    Ctx c = {.quiet = true};
    bool variations = false;
    char **av = cli_opts_begin(prog, argc, argv);
    if (!av)
        return 1;
    int opt, rc = -1;
    while (rc < 0 && (opt = getopt_long(argc, av, "", longopts, NULL)) != -1) {
        switch (opt) {
        case 'm': c.print_moves = true; break;
        case 'v': variations = true; break;
        case 'h':
            records_usage(stdout);
            rc = 0;
            break;
        default: rc = cli_opts_unknown(prog); break;
        }
    }
    if (rc < 0 && optind >= argc) {
        records_usage(stderr);
        rc = CLI_USAGE_ERROR;
    }
    if (rc < 0)
        rc = cli_read_records(av + optind, argc - optind, print_game, &c, &c.oom, variations, c.quiet, NULL);
    free(av);
    return rc;
}

/* ---- build ---- */

static bool build_game(void *ctx, const RecordGame *g) {
    Ctx *c = ctx;
    if (!book_build_add_game(c->book, g, &c->bo, &c->bs, &c->st, &c->cap)) {
        c->oom = true;
        return false;
    }
    return true;
}

static void build_usage(FILE *f) {
    fprintf(f, "usage: hayanagi book build --from FILES... [--max-ply N] [--min-count K] [--side black|white|both]\n"
               "                          [--winner-only] [--min-rating R] [--player NAME] [--scores-from-comments]\n"
               "                          [--variations] [--quiet] OUT\n"
               "Counts the moves the game records FILES play into a book OUT (.sbk SBK, else DB2016);\n"
               "--from=FILE names one record, --from alone says the records follow.\n"
               "  --max-ply N             count game plies 1..N only (0, the default: all)\n"
               "  --min-count K           drop moves counted fewer than K times\n"
               "  --side S                count the moves of black, white or both (default)\n"
               "  --winner-only           count only the winner's moves\n"
               "  --min-rating R          count only movers rated R or more\n"
               "  --player NAME           count only the moves of the player NAME (exact)\n"
               "  --scores-from-comments  score moves with the evaluations in the records' comments\n"
               "  --variations            read KIF/KI2 variations as games too\n"
               "  --quiet                 no progress display\n");
}

static int verb_build(int argc, char **argv) {
    static const char prog[] = "hayanagi book build";
    enum {
        B_FROM = 1,
        B_MAXPLY,
        B_MINCOUNT,
        B_SIDE,
        B_WINNER,
        B_VARIATIONS,
        B_QUIET,
        B_RATING,
        B_PLAYER,
        B_SCORES,
        B_HELP
    };
    static const struct option longopts[] = {{"from", optional_argument, NULL, B_FROM},
                                             {"max-ply", required_argument, NULL, B_MAXPLY},
                                             {"min-count", required_argument, NULL, B_MINCOUNT},
                                             {"side", required_argument, NULL, B_SIDE},
                                             {"winner-only", no_argument, NULL, B_WINNER},
                                             {"variations", no_argument, NULL, B_VARIATIONS},
                                             {"quiet", no_argument, NULL, B_QUIET},
                                             {"min-rating", required_argument, NULL, B_RATING},
                                             {"player", required_argument, NULL, B_PLAYER},
                                             {"scores-from-comments", no_argument, NULL, B_SCORES},
                                             {"help", no_argument, NULL, B_HELP},
                                             {NULL, 0, NULL, 0}};
    Ctx c = {0};
    c.bo.min_rating = REC_NO_RATING;
    long min_count = 1, v = 0;
    bool variations = false, from = false;
    const char *out = NULL;
    char **files = malloc(sizeof(char *) * (size_t)(argc + 1));
    char **av = cli_opts_begin(prog, argc, argv);
    int nfiles = 0, rc = -1, opt;
    if (!files || !av) {
        free(files);
        free(av);
        return 1;
    }
    while (rc < 0 && (opt = getopt_long(argc, av, "", longopts, NULL)) != -1) {
        switch (opt) {
        case B_FROM:
            from = true;
            if (optarg)
                files[nfiles++] = optarg;
            break;
        case B_MAXPLY:
            if (!cli_opts_int(prog, longopts, opt, optarg, 0, 100000, &v))
                rc = CLI_USAGE_ERROR;
            c.bo.max_ply = (int)v;
            break;
        case B_MINCOUNT:
            if (!cli_opts_int(prog, longopts, opt, optarg, 1, 1L << 30, &min_count))
                rc = CLI_USAGE_ERROR;
            break;
        case B_SIDE:
            if (!strcmp(optarg, "black"))
                c.bo.side = BUILD_SIDE_BLACK;
            else if (!strcmp(optarg, "white"))
                c.bo.side = BUILD_SIDE_WHITE;
            else if (!strcmp(optarg, "both"))
                c.bo.side = BUILD_SIDE_BOTH;
            else
                rc = cli_opts_bad_value(prog, longopts, opt, optarg, "black, white or both");
            break;
        case B_WINNER: c.bo.winner_only = true; break;
        case B_VARIATIONS: variations = true; break;
        case B_QUIET: c.quiet = true; break;
        case B_RATING:
            if (!cli_opts_int(prog, longopts, opt, optarg, -100000, 100000, &v))
                rc = CLI_USAGE_ERROR;
            c.bo.min_rating = (int32_t)v;
            break;
        case B_PLAYER: c.bo.player = optarg; break;
        case B_SCORES:
            if (!c.bo.scores && !(c.bo.scores = build_scores_create()))
                rc = 1;
            break;
        case B_HELP:
            build_usage(stdout);
            rc = 0;
            break;
        default: rc = cli_opts_unknown(prog); break;
        }
    }
    if (rc >= 0)
        goto done;
    rc = CLI_USAGE_ERROR;
    for (int i = optind; i < argc; i++)
        files[nfiles++] = av[i];
    if (!from) {
        fprintf(stderr, "%s: name the records with --from FILES...\n", prog);
        build_usage(stderr);
        goto done;
    }
    if (nfiles < 2) {
        build_usage(stderr);
        goto done;
    }
    out = files[--nfiles];
    if (!cli_check_output("build", out))
        goto done;
    c.book = book_create();
    if (!c.book) {
        rc = 1;
        goto done;
    }
    rc = cli_read_records(files, nfiles, build_game, &c, &c.oom, variations, c.quiet, NULL);
    if (rc || c.oom) { /* a run that failed writes nothing */
        fprintf(stderr, "hayanagi book build: %s not written\n", out);
        rc = 1;
        goto done;
    }
    uint64_t scored = 0, samples = 0;
    if (c.bo.scores && !build_scores_apply(c.bo.scores, c.book, &scored, &samples)) {
        fprintf(stderr, "hayanagi book build: out of memory\n");
        rc = 1;
        goto done;
    }
    if (min_count > 1) {
        Book *f = book_filter_min_count(c.book, (uint64_t)min_count);
        if (!f) {
            fprintf(stderr, "hayanagi book build: out of memory\n");
            rc = 1;
            goto done;
        }
        book_free(c.book);
        c.book = f;
    }
    BookWriteReport wr;
    if (!(c.bo.scores ? cli_write_book_with_comments(out, c.book, c.quiet, &wr)
                      : cli_write_book(out, c.book, c.quiet, &wr))) {
        rc = 1;
        goto done;
    }
    fprintf(cli_say_wrote(out, &wr), " from %llu games (%llu used, %llu moves counted)\n",
            (unsigned long long)c.bs.games, (unsigned long long)c.bs.games_used,
            (unsigned long long)c.bs.moves_counted);
    if (c.bo.scores)
        fprintf(cli_report_file(out), "scores from comments: %llu moves scored from %llu samples\n",
                (unsigned long long)scored, (unsigned long long)samples);
done:
    free(av);
    free(files);
    free(c.st);
    book_free(c.book);
    build_scores_free(c.bo.scores);
    return rc;
}

/* ---- merge ---- */

static int merge_books(char **paths, int n, MergePolicy policy, const double *weights, int nweights, bool quiet);

static void merge_usage(FILE *f) {
    fprintf(f, "usage: hayanagi book merge A B ... [--weights w1,w2,...] [--policy sum|prefer-deeper|prefer-first]\n"
               "                          [--quiet] OUT\n"
               "Merges the books A B ... (any format) into OUT (.sbk SBK, else DB2016).\n"
               "  --weights W,...  multiply each book's counts by its weight (one per book, 0-1000000)\n"
               "  --policy P       sum (default): add the counts of a move found in several books;\n"
               "                   prefer-deeper: keep the move list searched deepest; prefer-first: the earliest\n"
               "  --quiet          no progress display\n");
}

/* Parses "w1,w2,..." (each 0..1e6) into weights; the count, or -1 when the list is bad. */
static int parse_weights(const char *s, double *weights, int max) {
    int n = 0;
    while (*s) {
        char *e;
        double w = strtod(s, &e);
        if (n == max || e == s || !(w >= 0 && w <= 1e6) || (*e && *e != ','))
            return -1;
        weights[n++] = w;
        s = *e == ',' ? e + 1 : e;
    }
    return n;
}

static int verb_merge(int argc, char **argv) {
    static const char prog[] = "hayanagi book merge";
    static const struct option longopts[] = {{"policy", required_argument, NULL, 'p'},
                                             {"weights", required_argument, NULL, 'w'},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    MergePolicy policy = MERGE_SUM;
    double weights[256];
    int nweights = 0;
    bool quiet = false;
    char **av = cli_opts_begin(prog, argc, argv);
    if (!av)
        return 1;
    int opt, rc = -1;
    while (rc < 0 && (opt = getopt_long(argc, av, "", longopts, NULL)) != -1) {
        switch (opt) {
        case 'p':
            if (!strcmp(optarg, "sum"))
                policy = MERGE_SUM;
            else if (!strcmp(optarg, "prefer-deeper"))
                policy = MERGE_PREFER_DEEPER;
            else if (!strcmp(optarg, "prefer-first"))
                policy = MERGE_PREFER_FIRST;
            else
                rc = cli_opts_bad_value(prog, longopts, opt, optarg, "sum, prefer-deeper or prefer-first");
            break;
        case 'w':
            if ((nweights = parse_weights(optarg, weights, 256)) < 0)
                rc = cli_opts_bad_value(prog, longopts, opt, optarg, "a comma-separated list of numbers 0-1000000");
            break;
        case 'q': quiet = true; break;
        case 'h':
            merge_usage(stdout);
            rc = 0;
            break;
        default: rc = cli_opts_unknown(prog); break;
        }
    }
    char **paths = av + optind;
    int n = argc - optind;
    if (rc < 0 && n < 3) {
        merge_usage(stderr);
        rc = CLI_USAGE_ERROR;
    }
    if (rc < 0)
        rc = merge_books(paths, n, policy, nweights ? weights : NULL, nweights, quiet);
    free(av);
    return rc;
}

/* Moves whose count sits at BOOK_COUNT_MAX: sums and weights saturate there (book.h). */
static uint64_t saturated_moves(const Book *b) {
    BookMoveList *list = malloc(sizeof *list);
    uint64_t n = 0;
    for (uint32_t id = 0; list && id < book_position_count(b); id++) {
        book_position_moves(b, id, list);
        for (int i = 0; i < list->n; i++)
            n += list->moves[i].count >= BOOK_COUNT_MAX;
    }
    free(list);
    return n;
}

/* Merges paths[0..n-2] into paths[n-1]; the exit status. */
static int merge_books(char **paths, int n, MergePolicy policy, const double *weights, int nweights, bool quiet) {
    int nin = n - 1;
    if (nweights && nweights != nin) {
        fprintf(stderr, "hayanagi book merge: %d weights for %d books\n", nweights, nin);
        return 2;
    }
    if (!cli_check_output("merge", paths[nin]))
        return 2;
    Book *acc = book_create();
    if (!acc)
        return 1;
    for (int i = 0; i < nin; i++) {
        /* comments kept: a thought position's "#think engine=...; depth=..." provenance is
         * what a later `think --rethink-if` on the merged book decides by */
        Book *b = cli_read_book_ex(paths[i], quiet, true);
        if (!b) {
            book_free(acc);
            return 1;
        }
        bool ok = book_merge_policy(&acc, b, weights ? weights[i] : 1.0, policy);
        book_free(b);
        if (!ok) {
            fprintf(stderr, "hayanagi book merge: out of memory\n");
            book_free(acc);
            return 1;
        }
    }
    uint64_t capped = saturated_moves(acc);
    if (capped)
        fprintf(stderr,
                "warning: %llu move counts reached the largest count a book keeps (%llu) and stay there: "
                "their order among themselves is lost (use smaller --weights)\n",
                (unsigned long long)capped, (unsigned long long)BOOK_COUNT_MAX);
    BookWriteReport wr;
    bool ok = cli_write_book_with_comments(paths[nin], acc, quiet, &wr);
    if (ok)
        fprintf(cli_say_wrote(paths[nin], &wr), "\n");
    book_free(acc);
    return ok ? 0 : 1;
}

/* ---- import-losses ---- */

static bool loss_game(void *ctx, const RecordGame *g) {
    Ctx *c = ctx;
    if (!book_import_loss(c->book, g, c->opponent, c->max_ply, &c->is, &c->st, &c->cap)) {
        c->oom = true;
        return false;
    }
    return true;
}

static void import_losses_usage(FILE *f) {
    fprintf(f, "usage: hayanagi book import-losses --opponent NAME [--max-ply N] [--quiet] RECORDS... BOOK\n"
               "For every game in RECORDS that NAME (exact) lost, makes the winner's moves the first choices\n"
               "of BOOK (read when it exists, any format, and rewritten in its own format).\n"
               "  --opponent NAME  the player whose losses are imported\n"
               "  --max-ply N      only game plies 1..N (0, the default: all)\n"
               "  --quiet          no progress display\n");
}

static int verb_import_losses(int argc, char **argv) {
    static const char prog[] = "hayanagi book import-losses";
    static const struct option longopts[] = {{"opponent", required_argument, NULL, 'o'},
                                             {"max-ply", required_argument, NULL, 'p'},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    Ctx c = {0};
    long v = 0;
    char **av = cli_opts_begin(prog, argc, argv);
    if (!av)
        return 1;
    int opt, rc = -1;
    while (rc < 0 && (opt = getopt_long(argc, av, "", longopts, NULL)) != -1) {
        switch (opt) {
        case 'o': c.opponent = optarg; break;
        case 'p':
            if (!cli_opts_int(prog, longopts, opt, optarg, 0, 100000, &v))
                rc = CLI_USAGE_ERROR;
            c.max_ply = (int)v;
            break;
        case 'q': c.quiet = true; break;
        case 'h':
            import_losses_usage(stdout);
            rc = 0;
            break;
        default: rc = cli_opts_unknown(prog); break;
        }
    }
    char **files = av + optind;
    int n = argc - optind;
    if (rc < 0 && (!c.opponent || n < 2)) {
        import_losses_usage(stderr);
        rc = CLI_USAGE_ERROR;
    }
    if (rc >= 0) {
        free(av);
        return rc;
    }
    const char *bookp = files[--n];
    if (!cli_check_output("import-losses", bookp)) {
        free(av);
        return 2;
    }
    struct stat sb;
    /* The book's comments (think's provenance, learn's evidence) stay: --rethink-if and
     * learn select on them later. */
    c.book = stat(bookp, &sb) == 0 ? cli_read_book_ex(bookp, c.quiet, true) : book_create();
    rc = 1;
    if (c.book) {
        rc = cli_read_records(files, n, loss_game, &c, &c.oom, false, c.quiet, NULL);
        if (rc || c.oom) { /* a run that failed writes nothing */
            fprintf(stderr, "hayanagi book import-losses: %s not written\n", bookp);
            rc = 1;
        } else if (cli_write_book_with_comments(bookp, c.book, c.quiet, NULL)) {
            if (!c.is.named)
                fprintf(stderr,
                        "warning: no game was played by '%s' (an exact, case-sensitive player name): "
                        "check the --opponent spelling\n",
                        c.opponent);
            fprintf(cli_report_file(bookp), "%s: %llu lost games of %s imported, %llu positions rewritten\n", bookp,
                    (unsigned long long)c.is.games, c.opponent, (unsigned long long)c.is.positions);
        } else
            rc = 1;
    }
    free(av);
    free(c.st);
    book_free(c.book);
    return rc;
}

/* ---- minimax ---- */

static void minimax_usage(FILE *f) {
    fprintf(f, "usage: hayanagi book minimax [--converge] [--flipped] [--threads T] [--in-memory] [--quiet] IN OUT\n"
               "Back-propagates the book IN's scores over its graph (negamax, transpositions shared) into OUT\n"
               "(IN may be OUT; .sbk SBK, else DB2016, comments kept).\n"
               "  --converge   add the moves that lead between book positions (peta_shock's converging moves)\n"
               "  --flipped    share values with the colour-flipped twins of positions\n"
               "  --threads T  propagate on T threads (1-64)\n"
               "  --in-memory  load the whole book even when IN is a sorted DB2016 book, which is otherwise\n"
               "               streamed through a compact graph (the same output in a third of the memory)\n"
               "  --quiet      no progress display\n");
}

static int verb_minimax(int argc, char **argv) {
    static const char prog[] = "hayanagi book minimax";
    static const struct option longopts[] = {{"converge", no_argument, NULL, 'c'},
                                             {"flipped", no_argument, NULL, 'f'},
                                             {"threads", required_argument, NULL, 't'},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"in-memory", no_argument, NULL, 'm'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    MinimaxOptions mo = {0};
    bool quiet = false, in_memory = false;
    long v = 0;
    char **av = cli_opts_begin(prog, argc, argv);
    if (!av)
        return 1;
    int opt, rc = -1;
    while (rc < 0 && (opt = getopt_long(argc, av, "", longopts, NULL)) != -1) {
        switch (opt) {
        case 'c': mo.converge = true; break;
        case 'f': mo.flipped = true; break;
        case 't':
            if (!cli_opts_int(prog, longopts, opt, optarg, 1, 64, &v))
                rc = CLI_USAGE_ERROR;
            mo.threads = (int)v;
            break;
        case 'q': quiet = true; break;
        case 'm': in_memory = true; break;
        case 'h':
            minimax_usage(stdout);
            rc = 0;
            break;
        default: rc = cli_opts_unknown(prog); break;
        }
    }
    if (rc < 0 && argc - optind != 2) {
        minimax_usage(stderr);
        rc = CLI_USAGE_ERROR;
    }
    const char *paths[2] = {rc < 0 ? av[optind] : NULL, rc < 0 ? av[optind + 1] : NULL};
    free(av);
    if (rc >= 0)
        return rc;
    if (!cli_check_output("minimax", paths[1]))
        return 2;
    Progress pr;
    pr.out = stderr;
    pr.quiet = quiet;
    mo.progress = &pr;
    MinimaxStats ms = {0};
    char err[512];
    /* DB2016 to DB2016 streams the file through a compact graph (no IR); other formats,
     * unsorted files and books with colour-flipped twins go through the IR */
    const BookFormat *fin = book_format_detect(paths[0], err, sizeof err);
    const BookFormat *fout = book_format_for_output(paths[1], err, sizeof err);
    int streamed = 0;
    if (!in_memory && fin && fout && book_format_is(fin, "db") && book_format_is(fout, "db")) {
        streamed = book_minimax_file(paths[0], paths[1], &mo, &ms, err, sizeof err);
        if (streamed < 0) {
            fprintf(stderr, "hayanagi book minimax: %s (%s is untouched)\n", err, paths[1]);
            return 1;
        }
        if (!streamed && !quiet)
            fprintf(stderr, "hayanagi book minimax: %s: the book is loaded in memory\n", err);
    }
    Book *out = NULL;
    bool ok = streamed > 0;
    BookWriteReport wr = {.positions = ms.written_positions, .moves = ms.written_moves};
    if (!streamed) {
        /* comments in and out: the provenance `think` writes survives the usual think-minimax round */
        out = cli_read_thought_book(paths[0], quiet);
        if (!out)
            return 1;
        /* the result is written back into the book read: no second copy */
        if (!book_minimax_in_place(out, &mo, &ms, err, sizeof err)) {
            fprintf(stderr, "hayanagi book minimax: %s\n", err);
            book_free(out);
            return 1;
        }
        ok = cli_write_thought_book(paths[1], out, quiet, &wr);
    }
    if (ok)
        fprintf(cli_say_wrote(paths[1], &wr),
                "; %llu settled without cycles, %llu on perpetual-check loops, %llu converging moves added, %llu "
                "propagation rounds\n",
                (unsigned long long)ms.settled, (unsigned long long)ms.check_loop,
                (unsigned long long)ms.converged_moves, (unsigned long long)ms.rounds);
    if (ok && mo.flipped)
        fprintf(cli_report_file(paths[1]),
                "flipped: %llu positions with their mirror in the book, %llu moves copied from a mirror, %llu moves "
                "into a mirror\n",
                (unsigned long long)ms.flipped_twins, (unsigned long long)ms.flipped_moves,
                (unsigned long long)ms.flipped_edges);
    book_free(out);
    return ok ? 0 : 1;
}

/* ---- openings: random short start lines for `hayanagi match` ---- */

static void openings_usage(FILE *f) {
    fprintf(f, "usage: hayanagi book openings --count N [--plies MIN-MAX] [--seed S] OUT\n"
               "Writes N distinct random start lines (startpos moves ...) for `hayanagi match --openings`.\n"
               "  --count N          how many lines (1-1000000)\n"
               "  --plies MIN-MAX    random legal plies per line (1-40, default 2-4)\n"
               "  --seed S           random seed (0-2000000000, default 0): the same seed, the same lines\n");
}

static int verb_openings(int argc, char **argv) {
    static const char prog[] = "hayanagi book openings";
    static const struct option longopts[] = {{"count", required_argument, NULL, 'c'},
                                             {"plies", required_argument, NULL, 'p'},
                                             {"seed", required_argument, NULL, 's'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    long count = 0, v = 0;
    long long lo = 2, hi = 4;
    uint64_t seed = 0;
    char **av = cli_opts_begin(prog, argc, argv);
    if (!av)
        return 1;
    int opt, rc = -1;
    while (rc < 0 && (opt = getopt_long(argc, av, "", longopts, NULL)) != -1) {
        switch (opt) {
        case 'c':
            if (!cli_opts_int(prog, longopts, opt, optarg, 1, 1000000, &count))
                rc = CLI_USAGE_ERROR;
            break;
        case 'p':
            if (!parse_range(optarg, 1, 40, &lo, &hi))
                rc = cli_opts_bad_value(prog, longopts, opt, optarg, "MIN-MAX with 1 <= MIN <= MAX <= 40");
            break;
        case 's':
            if (!cli_opts_int(prog, longopts, opt, optarg, 0, 2000000000L, &v))
                rc = CLI_USAGE_ERROR;
            seed = (uint64_t)v;
            break;
        case 'h':
            openings_usage(stdout);
            rc = 0;
            break;
        default: rc = cli_opts_unknown(prog); break;
        }
    }
    if (rc < 0 && (!count || argc - optind != 1)) {
        openings_usage(stderr);
        rc = CLI_USAGE_ERROR;
    }
    const char *out = rc < 0 ? av[optind] : NULL;
    free(av);
    if (rc >= 0)
        return rc;
    if (!cli_check_record_output("hayanagi book openings", out))
        return 1;
    /* The generator shared with `tune openings` (match/openings_gen.h): distinct lines. */
    OpeningsGenOptions go = {
        .count = (int)count, .min_plies = (int)lo, .max_plies = (int)hi, .seed = seed, .tries_per_line = 100};
    Openings lines;
    char err[512];
    AtomicFile af;
    if (!openings_generate(&go, &lines, NULL)) {
        fprintf(stderr, "hayanagi book openings: out of memory\n");
        return 1;
    }
    if (!atomic_file_open(&af, out, err, sizeof err)) {
        fprintf(stderr, "hayanagi book openings: %s\n", err);
        openings_free(&lines);
        return 1;
    }
    fprintf(af.f, "# %ld random openings of %lld-%lld plies, seed %llu (hayanagi book openings)\n", count, lo, hi,
            (unsigned long long)seed);
    for (int i = 0; i < lines.n; i++)
        fprintf(af.f, "%s\n", lines.lines[i]);
    int written = lines.n;
    openings_free(&lines);
    if (!atomic_file_commit(&af, err, sizeof err)) {
        fprintf(stderr, "hayanagi book openings: %s\n", err);
        return 1;
    }
    fprintf(cli_report_file(out), "wrote %s: %d openings\n", out, written);
    return 0;
}

int cmd_book_make(int argc, char **argv) {
    const char *verb = argv[0];
    if (!strcmp(verb, "records"))
        return verb_records(argc, argv);
    if (!strcmp(verb, "build"))
        return verb_build(argc, argv);
    if (!strcmp(verb, "merge"))
        return verb_merge(argc, argv);
    if (!strcmp(verb, "minimax"))
        return verb_minimax(argc, argv);
    if (!strcmp(verb, "think"))
        return cmd_book_think(argc, argv);
    if (!strcmp(verb, "openings"))
        return verb_openings(argc, argv);
    if (!strcmp(verb, "expand"))
        return cmd_book_expand(argc, argv);
    if (!strcmp(verb, "import-losses"))
        return verb_import_losses(argc, argv);
    if (!strcmp(verb, "prune"))
        return cmd_book_prune(argc, argv);
    if (!strcmp(verb, "report"))
        return cmd_book_report(argc, argv);
    if (!strcmp(verb, "learn"))
        return cmd_book_learn(argc, argv);
    if (!strcmp(verb, "grow"))
        return cmd_book_grow(argc, argv);
    if (!strcmp(verb, "rival-learn"))
        return cmd_book_rival(argc, argv);
    return -1;
}
