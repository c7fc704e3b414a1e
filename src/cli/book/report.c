/* report.c - `hayanagi book report BOOK --records FILES...` (bookgen/report.h). */
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bookgen/report.h"
#include "util/cli_opts.h"
#include "cli/book/io.h"
#include "cli/book/options.h"
#include "cli/book/verbs.h"
#include "record/reader.h"
#include "util/atomic_file.h"

static void report_usage(FILE *f) {
    fprintf(f, "usage: hayanagi book report BOOK --records FILE [FILE...] [--plies-at 10,20,30] [--top N]\n"
               "                            [--no-flipped] [--variations] [--margin M] [--min-games G]\n"
               "                            [--disagreements FILE] [--player PATTERN]\n"
               "Replays every game of the records (CSA, KIF, KI2, USI) through the book as the engine\n"
               "probes it and prints how far the games stay in it: plies in book (mean, median), book\n"
               "moves for each side, each side's own exit (the plies before its first move not from the\n"
               "book, past the opponent's deviations the book answers), the share of games still in the\n"
               "book at the given plies, who left it and how, the book's score at the exit (black's view)\n"
               "and the N most common exits. --player PATTERN (a glob on the records' player names,\n"
               "'hayanagi*') also gives that player's own exit, as black and as white.\n"
               "Then the disagreements: book moves played in G games or more (default 5) whose mean\n"
               "result and the expected score of their book score (600 cp logistic scale) differ by more\n"
               "than M (default 0.15), most games first; --disagreements FILE writes their positions as\n"
               "'sfen ...' lines for `book think --startmoves-file FILE`.\n");
}

typedef struct {
    BookReport *r;
    const char *player; /* --player's pattern, NULL when not given */
    uint64_t errors, player_both;
} Ctx;

/* The side whose name matches --player: -1 when there is no pattern, no name matches, or
 * both do (a game against itself is not the player's). */
static int player_side(Ctx *c, const RecordGame *g) {
    if (!c->player)
        return -1;
    bool b = fnmatch(c->player, g->black, 0) == 0, w = fnmatch(c->player, g->white, 0) == 0;
    c->player_both += b && w;
    return b == w ? -1 : b ? BLACK : WHITE;
}

static bool on_game(void *ctx, const RecordGame *g) {
    Ctx *c = ctx;
    char err[256];
    if (!book_report_add_result(c->r, g->root_sfen, g->moves, g->n_moves, g->result, player_side(c, g), err,
                                sizeof err)) {
        fprintf(stderr, "%s:%llu: %s\n", g->file, (unsigned long long)g->line, err);
        c->errors++;
    }
    return true;
}

static void on_error(void *ctx, const char *file, uint64_t line, const char *reason) {
    Ctx *c = ctx;
    c->errors++;
    fprintf(stderr, "warning: %s:%llu: %s\n", file, (unsigned long long)line, reason);
}

/* Parses "10,20,30" into at[]; returns the count, -1 when malformed. */
static int parse_plies(const char *s, int *at) {
    int n = 0;
    while (*s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 0 || v > 10000 || n == REPORT_MAX_AT || (*end && *end != ','))
            return -1;
        at[n++] = (int)v;
        s = *end ? end + 1 : end;
    }
    return n;
}

int book_verb_report(int argc, char **argv) {
    static const struct option longopts[] = {{"records", required_argument, NULL, 'r'},
                                             {"plies-at", required_argument, NULL, 'p'},
                                             {"top", required_argument, NULL, 't'},
                                             {"no-flipped", no_argument, NULL, 'f'},
                                             {"variations", no_argument, NULL, 'v'},
                                             {"margin", required_argument, NULL, 'm'},
                                             {"min-games", required_argument, NULL, 'g'},
                                             {"disagreements", required_argument, NULL, 'd'},
                                             {"player", required_argument, NULL, 'P'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char **records = calloc((size_t)argc + 1, sizeof *records);
    if (!records)
        return 1;
    int n_records = 0, at[REPORT_MAX_AT] = {10, 20, 30}, n_at = 3, c;
    long top = 10, min_games = 5;
    double margin = 0.15;
    const char *dis_path = NULL, *player = NULL;
    BookSelectOptions so;
    book_select_defaults(&so);
    RecordReadOptions ro = {.on_game = on_game, .on_error = on_error};
    static const char prog[] = "hayanagi book report";
    char **av = cli_opts_begin(prog, argc, argv);
    int rc = av ? -1 : 1;
    while (rc < 0 && (c = getopt_long(argc, av, "", longopts, NULL)) != -1) {
        if (c == 'r')
            records[n_records++] = optarg;
        else if (c == 'p') {
            if ((n_at = parse_plies(optarg, at)) < 0)
                rc = cli_opts_bad_value(prog, longopts, c, optarg, "plies 0-10000 separated by commas");
        } else if (c == 't') {
            if (!cli_opts_int(prog, longopts, c, optarg, 0, 100000, &top))
                rc = 2;
        } else if (c == 'f')
            so.flipped_book = false;
        else if (c == 'v')
            ro.variations = true;
        else if (c == 'm') {
            char *end;
            margin = strtod(optarg, &end);
            if (end == optarg || *end || !(margin >= 0 && margin <= 1))
                rc =
                    cli_opts_bad_value(prog, longopts, c, optarg, "a number in 0..1 (a difference of expected scores)");
        } else if (c == 'g') {
            if (!cli_opts_int(prog, longopts, c, optarg, 1, 1000000000, &min_games))
                rc = 2;
        } else if (c == 'd')
            dis_path = optarg;
        else if (c == 'P')
            player = optarg;
        else if (c == 'h') {
            report_usage(stdout);
            rc = 0;
        } else
            rc = cli_opts_unknown(prog);
    }
    const char *bookp = rc < 0 && optind < argc ? av[optind] : NULL;
    for (int i = optind + 1; rc < 0 && i < argc; i++) /* files after BOOK are records too */
        records[n_records++] = av[i];
    free(av);
    if (rc < 0 && (!bookp || n_records == 0)) {
        report_usage(stderr);
        rc = 2;
    }
    if (rc >= 0) {
        free(records);
        return rc;
    }
    Book *b = cli_read_book(bookp, NULL, &(BookReadOptions){.log = stderr, .quiet = true}, NULL);
    if (!b) {
        free(records);
        return 1;
    }
    BookSource src = book_source_memory(b);
    Ctx ctx = {.r = book_report_create(&src, &so, at, n_at), .player = player};
    ro.ctx = &ctx;
    bool ok = ctx.r != NULL;
    RecordStats rs = {0};
    for (int i = 0; ok && i < n_records; i++) {
        char err[512];
        if (!record_read_file(records[i], REC_FMT_AUTO, &ro, &rs, err, sizeof err)) {
            fprintf(stderr, "hayanagi book report: %s\n", err);
            ok = false;
        }
    }
    if (ok) {
        printf("book             %s: %zu positions, %zu moves\n", bookp, book_position_count(b), book_move_count(b));
        printf("records          %d file(s), %llu games, %llu bad records skipped\n", n_records,
               (unsigned long long)rs.games, (unsigned long long)ctx.errors);
        if (ctx.player_both)
            printf("player           %llu game(s) where both names match '%s' are not the player's\n",
                   (unsigned long long)ctx.player_both, player);
        book_report_print(ctx.r, stdout, (int)top);
        AtomicFile af;
        char err[512];
        bool dis_open = dis_path && atomic_file_open(&af, dis_path, err, sizeof err);
        if (dis_path && !dis_open) {
            fprintf(stderr, "hayanagi book report: %s\n", err);
            ok = false;
        } else if (book_report_print_disagreements(ctx.r, stdout, margin, (int)min_games, (int)top,
                                                   dis_open ? af.f : NULL) < 0) {
            fprintf(stderr, "hayanagi book report: out of memory\n");
            ok = false;
            if (dis_open)
                atomic_file_abort(&af);
        } else if (dis_open && !atomic_file_commit(&af, err, sizeof err)) {
            fprintf(stderr, "hayanagi book report: %s\n", err);
            ok = false;
        }
    }
    book_report_free(ctx.r);
    book_free(b);
    free(records);
    return ok ? 0 : 1;
}
