/* main.c - the `hayanagi` command: the USI engine by default, and subcommands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cli_opts.h"
#include "cli/commands.h"
#include "tune/tune.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"
#include "shogi/perft.h"
#include "usi/usi.h"
#include "util/clock.h"
#include "util/parse.h"
#include "usi/version.h"

static void usage(FILE *f) {
    fprintf(f, "usage: hayanagi [usi]                 (the USI engine: commands on stdin, answers on stdout)\n"
               "       hayanagi --version\n"
               "       hayanagi perft [--divide] [--stats] (startpos | sfen <SFEN>) <depth>\n"
               "       hayanagi book (info | lookup | sort | check | convert) ...   (hayanagi book help)\n"
               "       hayanagi book (build | merge | minimax | think | expand | import-losses | learn | records |\n"
               "                     rival-learn | openings | prune | report) ...\n"
               "       hayanagi match --engine CMD --engine CMD [options]   (hayanagi match --help)\n"
               "       hayanagi csa --host H --id ID --password-file FILE [options]   (plays on a CSA server; --help)\n"
               "       hayanagi tune (generate | records | openings | label | fit) ... (fits the embedded evaluation, "
               "docs/eval.md)\n"
               "       hayanagi bench [--depth=N | --nodes=N]   (node-count signature last)\n"
               "       hayanagi help\n"
               "Each command answers --help with its options.\n");
}

static void print_divide_line(void *ctx, Move m, uint64_t nodes) {
    (void)ctx;
    char buf[USI_MOVE_MAX];
    printf("%s: %llu\n", move_to_usi(m, buf), (unsigned long long)nodes);
}

static void perft_usage(FILE *f) {
    fprintf(f, "usage: hayanagi perft [--divide] [--stats] (startpos | sfen <SFEN>) <depth>\n"
               "Counts the leaf nodes of the legal-move tree to depth 1-12.\n"
               "  --divide  print the count under each root move\n"
               "  --stats   also count captures, promotions, checks and mates at the leaves\n");
}

/* `hayanagi perft`: argv[0] is "perft". The options come before the position (whose
 * text may hold a lone "-"). */
static int cmd_perft(int argc, char **argv) {
    static const char prog[] = "hayanagi perft";
    static const struct option longopts[] = {{"divide", no_argument, NULL, 'd'},
                                             {"stats", no_argument, NULL, 's'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    bool divide = false, stats = false;
    char **av = cli_opts_begin(prog, argc, argv);
    if (!av)
        return 1;
    int c, rc = -1;
    while (rc < 0 && (c = getopt_long(argc, av, "+", longopts, NULL)) != -1) {
        if (c == 'd')
            divide = true;
        else if (c == 's')
            stats = true;
        else if (c == 'h') {
            perft_usage(stdout);
            rc = 0;
        } else
            rc = cli_opts_unknown(prog);
    }
    int i = optind; /* "+": nothing was moved, argv[i..] is the position and the depth */
    free(av);
    if (rc >= 0)
        return rc;
    char sfen[512] = STARTPOS_SFEN;
    if (i < argc && strcmp(argv[i], "startpos") == 0) {
        i++;
    } else if (i < argc && strcmp(argv[i], "sfen") == 0) {
        /* The SFEN may come as one argument or as its space-separated fields. */
        i++;
        sfen[0] = '\0';
        for (; i < argc - 1; i++) {
            if (strlen(sfen) + strlen(argv[i]) + 2 > sizeof sfen) {
                fprintf(stderr, "hayanagi perft: SFEN too long\n");
                return 2;
            }
            if (sfen[0])
                strcat(sfen, " ");
            strcat(sfen, argv[i]);
        }
    } else {
        perft_usage(stderr);
        return 2;
    }
    if (i != argc - 1) {
        perft_usage(stderr);
        return 2;
    }
    int depth;
    if (!parse_int(argv[i], 1, 12, &depth)) {
        fprintf(stderr, "hayanagi perft: depth must be 1..12, got '%s'\n", argv[i]);
        return 2;
    }
    Position pos;
    StateInfo st;
    char err[128];
    if (!position_from_sfen(&pos, &st, sfen, err, sizeof err)) {
        fprintf(stderr, "hayanagi perft: bad SFEN: %s\n", err);
        return 1;
    }
    if (!position_legality_report(&pos, err, sizeof err)) {
        fprintf(stderr, "hayanagi perft: illegal position: %s\n", err);
        return 1;
    }
    double t0 = clock_now_ms();
    PerftCounts total = {0};
    if (divide) {
        total = perft_divide(&pos, (int)depth, stats, print_divide_line, NULL);
    } else {
        total = perft_run(&pos, (int)depth, stats);
    }
    double ms = clock_now_ms() - t0;
    if (stats)
        printf("captures %llu promotions %llu checks %llu mates %llu\n", (unsigned long long)total.captures,
               (unsigned long long)total.promotions, (unsigned long long)total.checks, (unsigned long long)total.mates);
    printf("nodes %llu time %.0f nps %.0f\n", (unsigned long long)total.nodes, ms,
           ms > 0 ? total.nodes * 1000.0 / ms : 0.0);
    return 0;
}

int main(int argc, char **argv) {
    shogi_init();
    if (argc < 2 || strcmp(argv[1], "usi") == 0)
        return usi_main(stdin, stdout);
    if (strcmp(argv[1], "book") == 0)
        return cmd_book(argc - 2, argv + 2);
    if (strcmp(argv[1], "csa") == 0)
        return cmd_csa(argc - 1, argv + 1);
    if (strcmp(argv[1], "match") == 0)
        return cmd_match(argc - 1, argv + 1);
    if (strcmp(argv[1], "tune") == 0)
        return tune_main(argc - 2, argv + 2);
    if (strcmp(argv[1], "perft") == 0)
        return cmd_perft(argc - 1, argv + 1);
    if (strcmp(argv[1], "bench") == 0)
        return cmd_bench(argc - 1, argv + 1);
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("hayanagi %s\n"
               "Copyright (C) the Hayanagi developers. License GPLv3+: GNU GPL version 3 or later\n"
               "<https://gnu.org/licenses/gpl.html>. This is free software: you are free to change\n"
               "and redistribute it. There is NO WARRANTY, to the extent permitted by law.\n",
               HAYANAGI_VERSION);
        return 0;
    }
    if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "hayanagi: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
