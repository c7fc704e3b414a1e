/* bench.c - see bench.h. The positions are the start position and the public perft
 * positions of shared/refdata/usi/rsshogi (opening, two middle games, the "matsuri"
 * tactical position, Habu-Kato, a pin-and-check position). */
#include "usi/bench.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shogi/notation.h"
#include "util/parse.h"
#include "util/error.h"

static const char *const BENCH_SFENS[] = {
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    "lnsgkgsnl/1r7/p1ppp1bpp/1p3pp2/7P1/2P6/PP1PPPP1P/1B3S1R1/LNSGKG1NL b - 9",
    "l4S2l/4g1gs1/5p1p1/pr2N1pkp/4Gn3/PP3PPPP/2GPP4/1K7/L3r+s2L w BS2N5Pb 1",
    "6n1l/2+S1k4/2lp4p/1np1B2b1/3PP4/1N1S3rP/1P2+pPP+p1/1p1G5/3KG2r1 b GSN2L4Pgs2p 1",
    "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
    "ln1g5/1r2S1k2/p2pppn2/2ps2p2/1p7/2P6/PPSPPPPLP/2G2K1pr/LN4G1b w BGSLPnp 62",
};

bool usi_bench(Search *s, const SearchOptions *opt, const char *args, const Game *current,
               void (*write)(void *ctx, const char *line), void *ctx, char *err, size_t err_len) {
    SearchLimits lim;
    memset(&lim, 0, sizeof lim);
    lim.depth = BENCH_DEFAULT_DEPTH;
    bool only_current = false;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", args ? args : "");
    char *save = NULL;
    for (char *tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        if (strcmp(tok, "current") == 0) {
            only_current = true;
            continue;
        }
        char *n = strtok_r(NULL, " \t", &save);
        long long v;
        if (!parse_integer(n, 1, LLONG_MAX, &v)) {
            return error_set(err, err_len, "expected 'bench [depth N | nodes N] [current]'");
        }
        if (strcmp(tok, "depth") == 0) {
            lim.depth = v < MAX_PLY - 1 ? (int)v : MAX_PLY - 1;
        } else if (strcmp(tok, "nodes") == 0) {
            lim.depth = 0;
            lim.nodes = (uint64_t)v;
        } else {
            return error_set(err, err_len, "unknown argument '%.32s'", tok);
        }
    }
    search_clear(s);
    int count = only_current ? 1 : (int)(sizeof BENCH_SFENS / sizeof BENCH_SFENS[0]);
    uint64_t nodes = 0;
    int64_t ms = 0;
    char line[512];
    for (int i = 0; i < count; i++) {
        Game g;
        if (only_current) {
            if (!game_copy(&g, current)) {
                return error_set(err, err_len, "out of memory");
            }
        } else {
            game_init(&g);
            game_set_sfen(&g, BENCH_SFENS[i], NULL, 0);
        }
        SearchResult r = search_run(s, &g, &lim, opt, NULL);
        char mv[USI_MOVE_MAX], sfen[SFEN_MAX];
        snprintf(line, sizeof line, "bench %d/%d: nodes %llu bestmove %s sfen %s", i + 1, count,
                 (unsigned long long)r.nodes, move_to_usi(r.best, mv), position_to_sfen(&g.pos, sfen, true));
        write(ctx, line);
        nodes += r.nodes;
        ms += r.time_ms;
        game_free(&g);
    }
    snprintf(line, sizeof line, "total time %lld ms, nodes %llu, nps %llu, hashfull %d, threads %d", (long long)ms,
             (unsigned long long)nodes, (unsigned long long)(ms > 0 ? nodes * 1000 / (uint64_t)ms : nodes),
             search_hashfull(s), opt->threads);
    write(ctx, line);
    snprintf(line, sizeof line, "signature %llu", (unsigned long long)nodes);
    write(ctx, line);
    return true;
}
