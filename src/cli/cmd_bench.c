/* cmd_bench.c - `hayanagi bench`: the USI `bench` command from the command line.
 *
 * The engine runs exactly as under a GUI (default options, one thread), reading
 * "bench ..." and "quit" from memory, so the signature it prints last is the one the
 * USI command prints and the one tests/bench_signature.txt pins. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

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
    optind = 1;
    opterr = 0;
    int c;
    /* getopt_long wants argv[0] to be the program; argv[0] here is "bench". */
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        long long v;
        switch (c) {
        case 'd':
        case 'n':
            if (!parse_integer(optarg, 1, c == 'd' ? 100 : 1000000000000LL, &v)) {
                fprintf(stderr, "hayanagi bench: --%s wants a positive integer, got '%s'\n",
                        c == 'd' ? "depth" : "nodes", optarg);
                return 2;
            }
            snprintf(script, sizeof script, "bench %s %lld\nquit\n", c == 'd' ? "depth" : "nodes", v);
            break;
        case 'h': bench_usage(stdout); return 0;
        default:
            fprintf(stderr, "hayanagi bench: bad option '%s'\n", argv[optind - 1]);
            bench_usage(stderr);
            return 2;
        }
    }
    if (optind != argc) {
        bench_usage(stderr);
        return 2;
    }
    FILE *in = fmemopen(script, strlen(script), "r");
    if (!in) {
        perror("hayanagi bench");
        return 1;
    }
    int rc = usi_main(in, stdout);
    fclose(in);
    return rc;
}
