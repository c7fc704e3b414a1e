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
    Progress pr;
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

bool cli_check_output(const char *verb, const char *path) {
    char err[512];
    if (!book_format_for_output(path, err, sizeof err)) {
        fprintf(stderr, "hayanagi book %s: %s\n", verb, err);
        return false;
    }
    if (record_format_from_path(path) != REC_FMT_AUTO) {
        fprintf(stderr, "hayanagi book %s: the output %s is named like a game record; name the book .db or .sbk\n",
                verb, path);
        return false;
    }
    return true;
}

static bool write_book(const char *path, const Book *b, bool quiet, bool comments) {
    char err[512];
    BookWriteOptions wo = {.log = stderr, .quiet = quiet, .write_comments = comments};
    bool ok = book_write(path, NULL, b, &wo, NULL, err, sizeof err);
    if (!ok)
        fprintf(stderr, "hayanagi book: %s (%s is untouched)\n", err, path);
    return ok;
}

bool cli_write_book(const char *path, const Book *b, bool quiet) { return write_book(path, b, quiet, false); }

/* cli_write_book() with the comments as "#" lines. */
static bool cli_write_book_comments(const char *path, const Book *b, bool quiet) {
    return write_book(path, b, quiet, true);
}

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

/* Reads every file through on_game; returns 0, or 1 when a file could not be read. */
static int read_records(char **files, int n, RecordGameFn on_game, Ctx *c, bool variations, const char *label) {
    uint64_t total = 0;
    for (int i = 0; i < n; i++)
        total += file_size(files[i]);
    progress_start(&c->pr, stderr, label, total, c->quiet);
    RecordStats st = {0};
    int rc = 0;
    for (int i = 0; i < n && !c->oom; i++) {
        char err[512];
        RecordReadOptions ro = {.on_game = on_game,
                                .on_error = rec_error,
                                .ctx = c,
                                .variations = variations,
                                .progress = &c->pr,
                                .progress_base = st.bytes};
        if (!record_read_file(files[i], REC_FMT_AUTO, &ro, &st, err, sizeof err)) {
            fprintf(stderr, "hayanagi book: %s\n", err);
            rc = 1;
        }
        progress_update(&c->pr, st.bytes);
    }
    progress_finish(&c->pr);
    fprintf(stderr, "%llu games, %llu moves, %llu bad records skipped\n", (unsigned long long)st.games,
            (unsigned long long)st.moves, (unsigned long long)st.errors);
    if (c->oom) {
        fprintf(stderr, "hayanagi book: out of memory\n");
        rc = 1;
    }
    return rc;
}

static int verb_records(int argc, char **argv) {
    Ctx c = {.quiet = true};
    bool variations = false;
    int i = 0;
    for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
        if (!strcmp(argv[i], "--moves"))
            c.print_moves = true;
        else if (!strcmp(argv[i], "--variations"))
            variations = true;
        else {
            fprintf(stderr, "hayanagi book records: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "usage: hayanagi book records [--moves] [--variations] FILES...\n");
        return 2;
    }
    return read_records(argv + i, argc - i, print_game, &c, variations, "reading records");
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

static int verb_build(int argc, char **argv) {
    Ctx c = {0};
    c.bo.min_rating = REC_NO_RATING;
    long min_count = 1, v;
    bool variations = false;
    const char *out = NULL;
    char **files = malloc(sizeof(char *) * (size_t)(argc + 1));
    int nfiles = 0;
    if (!files)
        return 1;
    bool from = false;
    int rc = 2;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool has = i + 1 < argc;
        if (!strcmp(a, "--from"))
            from = true;
        else if (!strcmp(a, "--max-ply") && has && cli_parse_int(argv[i + 1], 0, 100000, &v))
            c.bo.max_ply = (int)v, i++;
        else if (!strcmp(a, "--min-count") && has && cli_parse_int(argv[i + 1], 1, 1L << 30, &v))
            min_count = v, i++;
        else if (!strcmp(a, "--side") && has) {
            const char *s = argv[++i];
            if (!strcmp(s, "black"))
                c.bo.side = BUILD_SIDE_BLACK;
            else if (!strcmp(s, "white"))
                c.bo.side = BUILD_SIDE_WHITE;
            else if (!strcmp(s, "both"))
                c.bo.side = BUILD_SIDE_BOTH;
            else {
                fprintf(stderr, "hayanagi book build: --side takes black, white or both\n");
                goto done;
            }
        } else if (!strcmp(a, "--winner-only"))
            c.bo.winner_only = true;
        else if (!strcmp(a, "--variations"))
            variations = true;
        else if (!strcmp(a, "--quiet"))
            c.quiet = true;
        else if (!strcmp(a, "--min-rating") && has && cli_parse_int(argv[i + 1], -100000, 100000, &v))
            c.bo.min_rating = (int32_t)v, i++;
        else if (!strcmp(a, "--player") && has)
            c.bo.player = argv[++i];
        else if (!strcmp(a, "--scores-from-comments") && !c.bo.scores) {
            c.bo.scores = build_scores_create();
            if (!c.bo.scores) {
                rc = 1;
                goto done;
            }
        } else if (!strncmp(a, "--", 2)) {
            fprintf(stderr, "hayanagi book build: bad option %s\n", a);
            goto done;
        } else if (from)
            files[nfiles++] = argv[i];
        else {
            fprintf(stderr, "hayanagi book build: records come after --from\n");
            goto done;
        }
    }
    if (nfiles < 2) {
        fprintf(stderr, "usage: hayanagi book build --from FILES... [--max-ply N] [--min-count K] "
                        "[--side black|white|both] [--winner-only] [--min-rating R] [--player NAME] "
                        "[--scores-from-comments] [--variations] [--quiet] OUT\n");
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
    rc = read_records(files, nfiles, build_game, &c, variations, "reading records");
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
    if (!(c.bo.scores ? cli_write_book_comments(out, c.book, c.quiet) : cli_write_book(out, c.book, c.quiet))) {
        rc = 1;
        goto done;
    }
    printf("wrote %s: %zu positions, %zu moves from %llu games (%llu used, %llu moves counted)\n", out,
           book_position_count(c.book), book_move_count(c.book), (unsigned long long)c.bs.games,
           (unsigned long long)c.bs.games_used, (unsigned long long)c.bs.moves_counted);
    if (c.bo.scores)
        printf("scores from comments: %llu moves scored from %llu samples\n", (unsigned long long)scored,
               (unsigned long long)samples);
done:
    free(files);
    free(c.st);
    book_free(c.book);
    build_scores_free(c.bo.scores);
    return rc;
}

/* ---- merge ---- */

static int verb_merge(int argc, char **argv) {
    MergePolicy policy = MERGE_SUM;
    double weights[256];
    int nweights = 0;
    bool quiet = false;
    char *paths[256];
    int n = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--policy") && i + 1 < argc) {
            const char *p = argv[++i];
            if (!strcmp(p, "sum"))
                policy = MERGE_SUM;
            else if (!strcmp(p, "prefer-deeper"))
                policy = MERGE_PREFER_DEEPER;
            else if (!strcmp(p, "prefer-first"))
                policy = MERGE_PREFER_FIRST;
            else {
                fprintf(stderr, "hayanagi book merge: --policy takes sum, prefer-deeper or prefer-first\n");
                return 2;
            }
        } else if (!strcmp(a, "--weights") && i + 1 < argc) {
            char *s = argv[++i];
            while (*s && nweights < 256) {
                char *e;
                double w = strtod(s, &e);
                if (e == s || w < 0 || w > 1e6) {
                    fprintf(stderr, "hayanagi book merge: bad weight list\n");
                    return 2;
                }
                weights[nweights++] = w;
                s = *e == ',' ? e + 1 : e;
                if (*e && *e != ',') {
                    fprintf(stderr, "hayanagi book merge: bad weight list\n");
                    return 2;
                }
            }
        } else if (!strcmp(a, "--quiet"))
            quiet = true;
        else if (!strncmp(a, "--", 2)) {
            fprintf(stderr, "hayanagi book merge: bad option %s\n", a);
            return 2;
        } else if (n < 256)
            paths[n++] = argv[i];
    }
    if (n < 3) {
        fprintf(stderr, "usage: hayanagi book merge A B ... [--weights w1,w2,...] "
                        "[--policy sum|prefer-deeper|prefer-first] OUT\n");
        return 2;
    }
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
        Book *b = cli_read_book(paths[i], quiet);
        if (!b) {
            book_free(acc);
            return 1;
        }
        bool ok = book_merge_policy(&acc, b, nweights ? weights[i] : 1.0, policy);
        book_free(b);
        if (!ok) {
            fprintf(stderr, "hayanagi book merge: out of memory\n");
            book_free(acc);
            return 1;
        }
    }
    bool ok = cli_write_book(paths[nin], acc, quiet);
    if (ok)
        printf("wrote %s: %zu positions, %zu moves\n", paths[nin], book_position_count(acc), book_move_count(acc));
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

static int verb_import_losses(int argc, char **argv) {
    Ctx c = {0};
    char **files = malloc(sizeof(char *) * (size_t)(argc + 1));
    int n = 0;
    long v;
    if (!files)
        return 1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--opponent") && i + 1 < argc)
            c.opponent = argv[++i];
        else if (!strcmp(a, "--max-ply") && i + 1 < argc && cli_parse_int(argv[i + 1], 0, 100000, &v))
            c.max_ply = (int)v, i++;
        else if (!strcmp(a, "--quiet"))
            c.quiet = true;
        else if (!strncmp(a, "--", 2)) {
            fprintf(stderr, "hayanagi book import-losses: bad option %s\n", a);
            free(files);
            return 2;
        } else
            files[n++] = argv[i];
    }
    if (!c.opponent || n < 2) {
        fprintf(stderr, "usage: hayanagi book import-losses --opponent NAME [--max-ply N] RECORDS... BOOK\n");
        free(files);
        return 2;
    }
    const char *bookp = files[--n];
    if (!cli_check_output("import-losses", bookp)) {
        free(files);
        return 2;
    }
    struct stat sb;
    c.book = stat(bookp, &sb) == 0 ? cli_read_book(bookp, c.quiet) : book_create();
    int rc = 1;
    if (c.book) {
        rc = read_records(files, n, loss_game, &c, false, "reading records");
        if (rc || c.oom) { /* a run that failed writes nothing */
            fprintf(stderr, "hayanagi book import-losses: %s not written\n", bookp);
            rc = 1;
        } else if (cli_write_book(bookp, c.book, c.quiet)) {
            if (!c.is.named)
                fprintf(stderr,
                        "warning: no game was played by '%s' (an exact, case-sensitive player name): "
                        "check the --opponent spelling\n",
                        c.opponent);
            printf("%s: %llu lost games of %s imported, %llu positions rewritten\n", bookp,
                   (unsigned long long)c.is.games, c.opponent, (unsigned long long)c.is.positions);
        } else
            rc = 1;
    }
    free(files);
    free(c.st);
    book_free(c.book);
    return rc;
}

/* ---- minimax ---- */

static int verb_minimax(int argc, char **argv) {
    MinimaxOptions mo = {0};
    bool quiet = false;
    const char *paths[2];
    int n = 0;
    long v;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--converge"))
            mo.converge = true;
        else if (!strcmp(argv[i], "--flipped"))
            mo.flipped = true;
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc && cli_parse_int(argv[i + 1], 1, 64, &v))
            mo.threads = (int)v, i++;
        else if (!strcmp(argv[i], "--quiet"))
            quiet = true;
        else if (!strncmp(argv[i], "--", 2) || n == 2) {
            fprintf(stderr, "hayanagi book minimax: bad argument %s\n", argv[i]);
            return 2;
        } else
            paths[n++] = argv[i];
    }
    if (n != 2) {
        fprintf(stderr, "usage: hayanagi book minimax [--converge] [--flipped] [--threads T] [--quiet] IN OUT\n");
        return 2;
    }
    if (!cli_check_output("minimax", paths[1]))
        return 2;
    /* comments in and out: the provenance `think` writes survives the usual think-minimax round */
    Book *in = cli_read_thought_book(paths[0], quiet);
    if (!in)
        return 1;
    Progress pr;
    pr.out = stderr;
    pr.quiet = quiet;
    mo.progress = &pr;
    MinimaxStats ms;
    char err[256];
    Book *out = in; /* the result is written back into the book read: no second copy */
    if (!book_minimax_in_place(out, &mo, &ms, err, sizeof err)) {
        fprintf(stderr, "hayanagi book minimax: %s\n", err);
        book_free(out);
        return 1;
    }
    bool ok = cli_write_thought_book(paths[1], out, quiet);
    if (ok)
        printf("wrote %s: %llu positions, %llu settled without cycles, %llu on perpetual-check loops, "
               "%llu converging moves added, %llu propagation rounds\n",
               paths[1], (unsigned long long)ms.positions, (unsigned long long)ms.settled,
               (unsigned long long)ms.check_loop, (unsigned long long)ms.converged_moves,
               (unsigned long long)ms.rounds);
    if (ok && mo.flipped)
        printf("flipped: %llu positions with their mirror in the book, %llu moves copied from a mirror, %llu moves "
               "into a mirror\n",
               (unsigned long long)ms.flipped_twins, (unsigned long long)ms.flipped_moves,
               (unsigned long long)ms.flipped_edges);
    book_free(out);
    return ok ? 0 : 1;
}

/* ---- openings: random short start lines for `hayanagi match` ---- */

static int verb_openings(int argc, char **argv) {
    long count = 0, v;
    long long lo = 2, hi = 4;
    uint64_t seed = 0;
    const char *out = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool has = i + 1 < argc;
        if (!strcmp(a, "--count") && has && cli_parse_int(argv[i + 1], 1, 1000000, &v))
            count = v, i++;
        else if (!strcmp(a, "--plies") && has && parse_range(argv[i + 1], 1, 40, &lo, &hi))
            i++;
        else if (!strcmp(a, "--seed") && has && cli_parse_int(argv[i + 1], 0, 2000000000L, &v))
            seed = (uint64_t)v, i++;
        else if (!strncmp(a, "--", 2) || out) {
            fprintf(stderr, "hayanagi book openings: bad argument %s\n", a);
            return 2;
        } else
            out = a;
    }
    if (!count || !out) {
        fprintf(stderr, "usage: hayanagi book openings --count N [--plies MIN-MAX] [--seed S] OUT\n");
        return 2;
    }
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
    printf("wrote %s: %d openings\n", out, written);
    return 0;
}

int cmd_book_make(int argc, char **argv) {
    const char *verb = argv[0];
    if (!strcmp(verb, "records"))
        return verb_records(argc - 1, argv + 1);
    if (!strcmp(verb, "build"))
        return verb_build(argc - 1, argv + 1);
    if (!strcmp(verb, "merge"))
        return verb_merge(argc - 1, argv + 1);
    if (!strcmp(verb, "minimax"))
        return verb_minimax(argc - 1, argv + 1);
    if (!strcmp(verb, "think"))
        return cmd_book_think(argc - 1, argv + 1);
    if (!strcmp(verb, "openings"))
        return verb_openings(argc - 1, argv + 1);
    if (!strcmp(verb, "expand"))
        return cmd_book_expand(argc - 1, argv + 1);
    if (!strcmp(verb, "import-losses"))
        return verb_import_losses(argc - 1, argv + 1);
    if (!strcmp(verb, "prune"))
        return cmd_book_prune(argc, argv);
    if (!strcmp(verb, "report"))
        return cmd_book_report(argc, argv);
    return -1;
}
