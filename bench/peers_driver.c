/* peers_driver.c - perft and fixed-depth search rates of USI engines side by side, per
 * CPU-second of the engine process, in one run (bench/peers.sh builds the peers and calls it).
 *
 *   peers_driver [--runs=N] [--search-depth=D] [--perft-only | --search-only] NAME=CMD...
 *
 * Each engine is started once (`sh -c "exec CMD"`, so the pid is the engine's) and kept for
 * all its measurements. A measurement is one command (or a repetition of it) timed by the
 * user + system time the kernel accounts to the engine process (/proc/PID/stat, all its
 * threads, 10 ms ticks), so a busy machine slows it down much less than wall time would;
 * each case is measured `runs` times (3 by default) per engine, the engines taking turns,
 * and the median is printed with the ratio of the first engine's rate to each other's.
 *
 * Dialects: an engine named "hayanagi" runs perft with `perft D` and answers `nodes N ...`;
 * the others (YaneuraOu, fairy-stockfish) with `go perft D` and `Nodes searched: N`. Search
 * is `go depth D` everywhere, its node count read from the last `info ... nodes N` before
 * `bestmove`. The perft counts of the engines must agree (a mismatch is reported and the
 * exit status is 1). The first engine is the one the ratios are about (ours). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

enum { ENGINES_MAX = 4, RUNS_MAX = 15 };

typedef struct {
    const char *name;
    const char *sfen; /* NULL for the start position */
    int depth;
    int repeat; /* commands per measurement, so that a fast case lasts ~1 s against 10 ms ticks */
} Case;

/* The benchmark positions: the start position, a middle game with many pieces in hand
 * and the "matsuri" position; the search set adds two more middle games. */
#define MIDGAME1  "l4S2l/4g1gs1/5p1p1/pr2N1pkp/4Gn3/PP3PPPP/2GPP4/1K7/L3r+s2L w BS2N5Pb 1"
#define MATSURI   "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1"
#define MIDGAME2  "6n1l/2+S1k4/2lp4p/1np1B2b1/3PP4/1N1S3rP/1P2+pPP+p1/1p1G5/3KG2r1 b GSN2L4Pgs2p 1"
#define HABU_KATO "ln1g5/1r2S1k2/p2pppn2/2ps2p2/1p7/2P6/PPSPPPPLP/2G2K1pr/LN4G1b w BGSLPnp 62"
#define OPENING   "lnsgkgsnl/1r7/p1ppp1bpp/1p3pp2/7P1/2P6/PP1PPPP1P/1B3S1R1/LNSGKG1NL b - 9"

static const Case PERFT_CASES[] = {
    {"startpos", NULL, 5, 10},
    {"startpos", NULL, 6, 1},
    {"midgame1 (hands)", MIDGAME1, 4, 3},
    {"matsuri", MATSURI, 3, 60},
};

static const Case SEARCH_CASES[] = {
    {"startpos", NULL, 0, 1},     {"opening", OPENING, 0, 1},     {"midgame1", MIDGAME1, 0, 1},
    {"midgame2", MIDGAME2, 0, 1}, {"habu_kato", HABU_KATO, 0, 1},
};

typedef struct {
    const char *name;
    const char *cmd;
    BenchPeer peer;
    bool ours; /* hayanagi's perft dialect */
} Engine;

/* The engine process's user + system CPU seconds so far (all threads), -1 on error. */
static double process_cpu_seconds(pid_t pid) {
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    if (!p)
        return -1;
    unsigned long utime = 0, stime = 0;
    /* after ") ": state(3) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime(14) stime(15) */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2)
        return -1;
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

static bool start_engine(Engine *e) {
    char *argv0 = malloc(strlen(e->cmd) + 8);
    if (!argv0)
        return false;
    sprintf(argv0, "exec %s", e->cmd);
    int in[2], out[2];
    if (pipe(in) || pipe(out)) {
        free(argv0);
        return false;
    }
    e->peer.pid = fork();
    if (e->peer.pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[1]);
        close(out[0]);
        execl("/bin/sh", "sh", "-c", argv0, (char *)NULL);
        _exit(127);
    }
    free(argv0);
    close(in[0]);
    close(out[1]);
    e->peer.to = fdopen(in[1], "w");
    e->peer.from = fdopen(out[0], "r");
    if (e->peer.pid < 0 || !e->peer.to || !e->peer.from)
        return false;
    char line[4096];
    bench_peer_send(&e->peer, "usi");
    if (!bench_peer_wait(&e->peer, "usiok", line, sizeof line))
        return false;
    bench_peer_send(&e->peer, "setoption name Threads value 1");
    bench_peer_send(&e->peer, "setoption name USI_Hash value 64");
    bench_peer_send(&e->peer, "setoption name Hash value 64");
    bench_peer_send(&e->peer, "setoption name USI_OwnBook value false");
    bench_peer_send(&e->peer, "setoption name BookFile value no_book");
    bench_peer_send(&e->peer, "setoption name USI_Ponder value false");
    bench_peer_send(&e->peer, "setoption name UCI_Variant value shogi");
    bench_peer_send(&e->peer, "isready");
    return bench_peer_wait(&e->peer, "readyok", line, sizeof line);
}

static void set_position(Engine *e, const Case *c) {
    char cmd[512];
    if (c->sfen)
        snprintf(cmd, sizeof cmd, "position sfen %s", c->sfen);
    else
        snprintf(cmd, sizeof cmd, "position startpos");
    bench_peer_send(&e->peer, cmd);
}

/* Runs case c's perft `repeat` times; returns CPU seconds (-1 on failure), nodes of one. */
static double run_perft(Engine *e, const Case *c, unsigned long long *nodes) {
    char cmd[64], line[4096];
    /* isready first: YaneuraOu sets the start position again on isready */
    bench_peer_send(&e->peer, "isready");
    if (!bench_peer_wait(&e->peer, "readyok", line, sizeof line))
        return -1;
    set_position(e, c);
    snprintf(cmd, sizeof cmd, e->ours ? "perft %d" : "go perft %d", c->depth);
    const char *answer = e->ours ? "nodes " : "Nodes searched:";
    double t0 = process_cpu_seconds(e->peer.pid);
    for (int k = 0; k < c->repeat; k++) {
        bench_peer_send(&e->peer, cmd);
        if (!bench_peer_wait(&e->peer, answer, line, sizeof line))
            return -1;
    }
    double t1 = process_cpu_seconds(e->peer.pid);
    *nodes = strtoull(line + strlen(answer), NULL, 10);
    return t0 < 0 || t1 < 0 ? -1 : t1 - t0;
}

/* Runs case c's search to depth; returns CPU seconds (-1 on failure) and the nodes. */
static double run_search(Engine *e, const Case *c, int depth, unsigned long long *nodes) {
    char cmd[64], line[4096];
    bench_peer_send(&e->peer, "isready");
    if (!bench_peer_wait(&e->peer, "readyok", line, sizeof line))
        return -1;
    bench_peer_send(&e->peer, "usinewgame");
    set_position(e, c);
    snprintf(cmd, sizeof cmd, "go depth %d", depth);
    double t0 = process_cpu_seconds(e->peer.pid);
    bench_peer_send(&e->peer, cmd);
    *nodes = 0;
    while (fgets(line, sizeof line, e->peer.from)) {
        if (strncmp(line, "bestmove", 8) == 0) {
            double t1 = process_cpu_seconds(e->peer.pid);
            return t0 < 0 || t1 < 0 ? -1 : t1 - t0;
        }
        const char *p = strstr(line, " nodes ");
        if (strncmp(line, "info", 4) == 0 && p)
            *nodes = strtoull(p + 7, NULL, 10);
    }
    return -1;
}

static void usage(FILE *out) {
    fprintf(out, "usage: peers_driver [--runs=N] [--search-depth=D] [--perft-only | --search-only] NAME=CMD...\n"
                 "  The first engine is ours; ratios are its rate over each other engine's.\n");
}

int main(int argc, char **argv) {
    int runs = 3, search_depth = 9;
    bool do_perft = true, do_search = true;
    static const struct option LONG[] = {
        {"runs", required_argument, NULL, 'r'}, {"search-depth", required_argument, NULL, 'd'},
        {"perft-only", no_argument, NULL, 'p'}, {"search-only", no_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},       {NULL, 0, NULL, 0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "", LONG, NULL)) != -1) {
        switch (opt) {
        case 'r': runs = atoi(optarg); break;
        case 'd': search_depth = atoi(optarg); break;
        case 'p': do_search = false; break;
        case 's': do_perft = false; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (runs < 1 || runs > RUNS_MAX || search_depth < 1 || search_depth > 64 || optind >= argc ||
        argc - optind > ENGINES_MAX) {
        usage(stderr);
        return 2;
    }
    Engine eng[ENGINES_MAX];
    int ne = 0;
    for (int i = optind; i < argc; i++, ne++) {
        char *eq = strchr(argv[i], '=');
        if (!eq) {
            usage(stderr);
            return 2;
        }
        *eq = '\0';
        eng[ne] = (Engine){.name = argv[i], .cmd = eq + 1, .ours = strcmp(argv[i], "hayanagi") == 0};
        if (!start_engine(&eng[ne])) {
            fprintf(stderr, "peers_driver: cannot start %s (%s)\n", eng[ne].name, eng[ne].cmd);
            return 1;
        }
    }
    bench_print_machine("peers, one thread each, per CPU-second of the engine process");
    bench_print_load("at start");
    int status = 0;
    if (do_perft) {
        printf("perft: leaf nodes per CPU-second, median of %d runs\n", runs);
        printf("%-18s %5s %12s", "position", "depth", "nodes");
        for (int k = 0; k < ne; k++)
            printf(" %14s", eng[k].name);
        for (int k = 1; k < ne; k++)
            printf(" %9s", "ratio");
        printf("\n");
        for (size_t c = 0; c < sizeof PERFT_CASES / sizeof PERFT_CASES[0]; c++) {
            const Case *pc = &PERFT_CASES[c];
            double rate[ENGINES_MAX][RUNS_MAX];
            unsigned long long nodes[ENGINES_MAX] = {0};
            for (int r = 0; r < runs; r++)
                for (int k = 0; k < ne; k++) {
                    double cpu = run_perft(&eng[k], pc, &nodes[k]);
                    rate[k][r] = cpu > 0 ? (double)nodes[k] * pc->repeat / cpu : 0;
                }
            printf("%-18s %5d %12llu", pc->name, pc->depth, nodes[0]);
            double med[ENGINES_MAX];
            for (int k = 0; k < ne; k++) {
                med[k] = bench_median(rate[k], runs);
                printf(" %10.1f M/s", med[k] / 1e6);
            }
            for (int k = 1; k < ne; k++)
                printf(" %9.2f", med[k] > 0 ? med[0] / med[k] : 0.0);
            for (int k = 1; k < ne; k++)
                if (nodes[k] != nodes[0]) {
                    printf("  NODE COUNTS DIFFER: %s %llu", eng[k].name, nodes[k]);
                    status = 1;
                }
            printf("\n");
            fflush(stdout);
        }
    }
    if (do_search) {
        printf("search: go depth %d, nodes per CPU-second, median of %d runs (nodes: the last run's)\n", search_depth,
               runs);
        printf("%-18s", "position");
        for (int k = 0; k < ne; k++)
            printf(" %12s %11s", "nodes", eng[k].name);
        for (int k = 1; k < ne; k++)
            printf(" %9s", "ratio");
        printf("\n");
        for (size_t c = 0; c < sizeof SEARCH_CASES / sizeof SEARCH_CASES[0]; c++) {
            const Case *sc = &SEARCH_CASES[c];
            double rate[ENGINES_MAX][RUNS_MAX];
            unsigned long long nodes[ENGINES_MAX] = {0};
            for (int r = 0; r < runs; r++)
                for (int k = 0; k < ne; k++) {
                    double cpu = run_search(&eng[k], sc, search_depth, &nodes[k]);
                    rate[k][r] = cpu > 0 ? (double)nodes[k] / cpu : 0;
                }
            printf("%-18s", sc->name);
            double med[ENGINES_MAX];
            for (int k = 0; k < ne; k++) {
                med[k] = bench_median(rate[k], runs);
                printf(" %12llu %7.0f k/s", nodes[k], med[k] / 1e3);
            }
            for (int k = 1; k < ne; k++)
                printf(" %9.2f", med[k] > 0 ? med[0] / med[k] : 0.0);
            printf("\n");
            fflush(stdout);
        }
    }
    bench_print_load("at end");
    for (int k = 0; k < ne; k++)
        bench_peer_stop(&eng[k].peer);
    return status;
}
