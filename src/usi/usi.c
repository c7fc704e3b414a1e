/* usi.c - the USI command loop.
 *
 * This first version speaks the protocol's skeleton (usi, isready, usinewgame,
 * position, go, stop, quit) plus the perft, d and sfen extensions; `go` answers with a
 * legal move chosen without search until the search module lands (issue 3).
 */
#include "usi/usi.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shogi/game.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"
#include "shogi/perft.h"

enum { LINE_MAX_LEN = 1 << 16 };

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static void cmd_perft(Game *g, const char *args, FILE *out) {
    int depth = 0;
    char mode[16] = "";
    if (sscanf(args, "%d %15s", &depth, mode) < 1 || depth < 1 || depth > 12) {
        fprintf(out, "info string perft: expected 'perft <depth 1-12> [divide]'\n");
        return;
    }
    double t0 = now_ms();
    uint64_t total = 0;
    if (strcmp(mode, "divide") == 0) {
        ExtMove list[MAX_MOVES];
        int n = generate_moves(&g->pos, GEN_LEGAL, list);
        StateInfo st;
        for (int i = 0; i < n; i++) {
            char buf[USI_MOVE_MAX];
            position_do_move(&g->pos, list[i].move, &st);
            uint64_t c = perft_run(&g->pos, depth - 1, false).nodes;
            position_undo_move(&g->pos, list[i].move);
            fprintf(out, "%s: %llu\n", move_to_usi(list[i].move, buf), (unsigned long long)c);
            total += c;
        }
    } else {
        total = perft_run(&g->pos, depth, false).nodes;
    }
    double ms = now_ms() - t0;
    fprintf(out, "nodes %llu time %.0f nps %.0f\n", (unsigned long long)total, ms, ms > 0 ? total * 1000.0 / ms : 0.0);
}

static void cmd_go(Game *g, FILE *out) {
    ExtMove list[MAX_MOVES];
    int n = generate_moves(&g->pos, GEN_LEGAL, list);
    char buf[USI_MOVE_MAX];
    if (n == 0) {
        fprintf(out, "bestmove resign\n");
        return;
    }
    /* Prefer a capture, else the first move: a placeholder until the search exists. */
    Move best = list[0].move;
    for (int i = 0; i < n; i++)
        if (!move_is_drop(list[i].move) && g->pos.board[move_to(list[i].move)] != NO_PIECE) {
            best = list[i].move;
            break;
        }
    fprintf(out, "bestmove %s\n", move_to_usi(best, buf));
}

int usi_main(FILE *in, FILE *out) {
    Game game;
    game_init(&game);
    char *line = malloc(LINE_MAX_LEN);
    if (!line)
        return 1;
    setvbuf(out, NULL, _IOLBF, 0);
    while (fgets(line, LINE_MAX_LEN, in)) {
        size_t len = strlen(line);
        if (len == LINE_MAX_LEN - 1 && line[len - 1] != '\n') {
            /* Too long to be a real command: skip to its end. */
            int ch;
            while ((ch = fgetc(in)) != EOF && ch != '\n') {
            }
            fprintf(out, "info string command longer than %d bytes ignored\n", LINE_MAX_LEN - 2);
            continue;
        }
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        char *cmd = line;
        while (*cmd == ' ' || *cmd == '\t')
            cmd++;
        char *args = cmd + strcspn(cmd, " \t");
        if (*args)
            *args++ = '\0';
        if (!*cmd)
            continue;
        if (strcmp(cmd, "usi") == 0) {
            fprintf(out, "id name Hayanagi 0.1\nid author the Hayanagi developers\nusiok\n");
        } else if (strcmp(cmd, "isready") == 0) {
            fprintf(out, "readyok\n");
        } else if (strcmp(cmd, "usinewgame") == 0 || strcmp(cmd, "setoption") == 0 || strcmp(cmd, "gameover") == 0 ||
                   strcmp(cmd, "stop") == 0 || strcmp(cmd, "ponderhit") == 0) {
            /* Nothing to do yet. */
        } else if (strcmp(cmd, "position") == 0) {
            char err[256];
            if (!game_set_from_usi(&game, args, err, sizeof err))
                fprintf(out, "info string %s\n", err);
        } else if (strcmp(cmd, "go") == 0) {
            cmd_go(&game, out);
        } else if (strcmp(cmd, "perft") == 0) {
            cmd_perft(&game, args, out);
        } else if (strcmp(cmd, "d") == 0) {
            char buf[1024];
            fputs(position_to_diagram(&game.pos, buf), out);
        } else if (strcmp(cmd, "sfen") == 0) {
            char buf[SFEN_MAX];
            fprintf(out, "sfen %s\n", position_to_sfen(&game.pos, buf, true));
        } else if (strcmp(cmd, "quit") == 0) {
            break;
        } else {
            fprintf(out, "info string unknown command '%.64s'\n", cmd);
        }
    }
    free(line);
    game_free(&game);
    return 0;
}
