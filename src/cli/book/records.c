/* records.c - `hayanagi book records`: list the games a set of record files holds, one line
 * each (docs/book_making.md). */
#include <stdio.h>
#include <stdlib.h>

#include "book/book.h"
#include "bookgen/make.h"
#include "util/cli_opts.h"
#include "cli/book/io.h"
#include "cli/book/verbs.h"
#include "match/match.h"
#include "record/reader.h"
#include "shogi/notation.h"
#include "util/atomic_file.h"

/* What the record callback shares with the verb. */
typedef struct {
    bool print_moves;
    bool quiet;
    bool oom;
} Ctx;

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

static void records_usage(FILE *f) {
    fprintf(f, "usage: hayanagi book records [--moves] [--variations] FILES...\n"
               "Prints one line per game the record files hold: file:line, moves, result, end marker,\n"
               "players, ratings and root SFEN.\n"
               "  --moves       also print the moves (USI)\n"
               "  --variations  also list the KIF/KI2 variations as games\n");
}

int book_verb_records(int argc, char **argv) {
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
