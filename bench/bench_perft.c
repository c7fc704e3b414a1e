/* bench_perft.c - perft speed, one thread, against fairy-stockfish in the same run.
 * Positions: the start position at depth 5 and bench_tactical of
 * shared/refdata/usi/rsshogi/perft_expectations.json at depth 3. Medians of several runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "shogi/perft.h"

#define FAIRY "/usr/games/fairy-stockfish"

static const struct {
    const char *name;
    const char *sfen;
    int depth;
} CASES[] = {
    {"startpos", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", 5},
    {"bench_tactical", "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1", 3},
};

enum { OUR_RUNS = 5, PEER_RUNS = 3 };

int main(void) {
    bench_print_machine("perft, 1 thread");
    BenchPeer peer;
    bool have_peer = bench_peer_start(&peer, FAIRY);
    char line[4096];
    if (have_peer) {
        bench_peer_send(&peer, "usi");
        have_peer = bench_peer_wait(&peer, "usiok", line, sizeof line);
    }
    if (!have_peer)
        printf("(fairy-stockfish not found at %s: peer columns skipped)\n", FAIRY);
    printf("%-16s %5s %12s %14s %14s %8s\n", "position", "depth", "nodes", "hayanagi nps", "fairy nps", "ratio");
    for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++) {
        Position pos;
        StateInfo st;
        position_from_sfen(&pos, &st, CASES[c].sfen, NULL, 0);
        double nps[OUR_RUNS];
        uint64_t nodes = 0;
        for (int r = 0; r < OUR_RUNS; r++) {
            double t0 = bench_now_ms();
            nodes = perft_run(&pos, CASES[c].depth, false).nodes;
            double ms = bench_now_ms() - t0;
            nps[r] = nodes / (ms / 1000.0);
        }
        double ours = bench_median(nps, OUR_RUNS);
        double theirs = 0;
        if (have_peer) {
            double pn[PEER_RUNS];
            char cmd[256];
            snprintf(cmd, sizeof cmd, "position sfen %s", CASES[c].sfen);
            for (int r = 0; r < PEER_RUNS; r++) {
                bench_peer_send(&peer, cmd);
                bench_peer_send(&peer, "isready");
                bench_peer_wait(&peer, "readyok", line, sizeof line);
                snprintf(line, sizeof line, "go perft %d", CASES[c].depth);
                double t0 = bench_now_ms();
                bench_peer_send(&peer, line);
                if (!bench_peer_wait(&peer, "Nodes searched:", line, sizeof line))
                    break;
                double ms = bench_now_ms() - t0;
                pn[r] = strtod(line + strlen("Nodes searched:"), NULL) / (ms / 1000.0);
            }
            theirs = bench_median(pn, PEER_RUNS);
        }
        printf("%-16s %5d %12llu %11.2f M/s", CASES[c].name, CASES[c].depth, (unsigned long long)nodes, ours / 1e6);
        if (have_peer)
            printf(" %11.2f M/s %7.1fx\n", theirs / 1e6, ours / theirs);
        else
            printf(" %14s %8s\n", "-", "-");
    }
    printf("(medians of %d runs for hayanagi and %d for fairy-stockfish; fairy's time includes pipe latency)\n",
           OUR_RUNS, PEER_RUNS);
    if (have_peer)
        bench_peer_stop(&peer);

    /* Depth 6 of the start position: too slow for the test suite, so it is checked here. */
    Position pos;
    StateInfo st;
    position_set_startpos(&pos, &st);
    double t0 = bench_now_ms();
    uint64_t nodes = perft_run(&pos, 6, false).nodes;
    double ms = bench_now_ms() - t0;
    printf("startpos depth 6: %llu nodes (%s the published 547581517), %.2f M nodes/s, one run\n",
           (unsigned long long)nodes, nodes == 547581517ull ? "matches" : "DIFFERS FROM", nodes / ms / 1000.0);
    return nodes == 547581517ull ? 0 : 1;
}
