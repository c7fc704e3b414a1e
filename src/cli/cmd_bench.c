/* cmd_bench.c - `hayanagi bench`: the USI `bench` command from the command line.
 *
 * The engine runs exactly as under a GUI (default options, one thread), reading
 * "bench ..." and "quit" from memory, so the signature it prints last is the one the
 * USI command prints and the one tests/bench_signature.txt pins. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cli_opts.h"
#include "cli/commands.h"
#include "usi/bench.h"
#include "usi/usi.h"
#include "util/parse.h"

static void bench_usage(FILE *f) {
    fprintf(f,
            "usage: hayanagi bench [--depth=N | --nodes=N]\n"
            "  searches the bench positions (to depth %d by default) and prints, last,\n"
            "  \"signature N\": the total node count, pinned in tests/bench_signature.txt\n",
            BENCH_DEFAULT_DEPTH);
}

int cmd_bench(int argc, char **argv) {
    static const struct option longopts[] = {
        {"depth", required_argument, NULL, 'd'},
        {"nodes", required_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    char script[128] = "bench\nquit\n";
    static const char prog[] = "hayanagi bench";
    char **av = cli_opts_begin(prog, argc, argv);
    int c, rc = av ? -1 : 1;
    while (rc < 0 && (c = getopt_long(argc, av, "h", longopts, NULL)) != -1) {
        long long v;
        switch (c) {
        case 'd':
        case 'n':
            if (!parse_integer(optarg, 1, c == 'd' ? 100 : 1000000000000LL, &v))
                rc = cli_opts_bad_value(prog, longopts, c, optarg, "a positive integer");
            else
                snprintf(script, sizeof script, "bench %s %lld\nquit\n", c == 'd' ? "depth" : "nodes", v);
            break;
        case 'h':
            bench_usage(stdout);
            rc = 0;
            break;
        default: rc = cli_opts_unknown(prog); break;
        }
    }
    if (rc < 0 && optind != argc) {
        bench_usage(stderr);
        rc = 2;
    }
    free(av);
    if (rc >= 0)
        return rc;
    FILE *in = fmemopen(script, strlen(script), "r");
    if (!in) {
        perror("hayanagi bench");
        return 1;
    }
    rc = usi_main(in, stdout);
    fclose(in);
    return rc;
}
