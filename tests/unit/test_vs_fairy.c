/* test_vs_fairy.c - our perft against the peer engine fairy-stockfish on positions from
 * random playouts, as an outside check on the move generator.
 *
 * Fairy-stockfish treats a mating pawn drop (uchifuzume) as a game result rather than an
 * illegal move, so at the last ply of `go perft N` it counts such drops as leaves; earlier
 * plies are unaffected (../shared/PEERS.md). The expected peer count is therefore our
 * count plus the uchifuzume drops available in the positions at the last ply.
 *
 * The peer runs as a child process on two pipes; every read is bounded by poll() so a
 * hung or dead peer fails the test instead of hanging it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "shogi/movegen.h"
#include "shogi/notation.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const char FAIRY_PATH[] = "/usr/games/fairy-stockfish";
enum {
    STARTUP_TIMEOUT_MS = 10000,
    PERFT_TIMEOUT_MS = 30000, /* per command; the largest perft here takes the peer well under a second */
    MAX_TEST_POSITIONS = 128,
    PLAYOUT_MAX_PLIES = 200,
};

/* ---- the peer process ---- */

typedef struct {
    pid_t pid;
    int to_fd, from_fd;
    char buf[1 << 16];
    size_t len; /* bytes buffered but not yet returned as lines */
} Peer;

static Peer peer = {.pid = -1, .to_fd = -1, .from_fd = -1};

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static bool peer_start(Peer *p, const char *path) {
    int in[2], out[2];
    if (pipe(in) != 0)
        return false;
    if (pipe(out) != 0) {
        close(in[0]);
        close(in[1]);
        return false;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        return false;
    }
    if (pid == 0) {
        dup2(in[0], STDIN_FILENO);
        dup2(out[1], STDOUT_FILENO);
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        execl(path, path, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    /* Our ends must not leak into any later child. */
    fcntl(in[1], F_SETFD, FD_CLOEXEC);
    fcntl(out[0], F_SETFD, FD_CLOEXEC);
    p->pid = pid;
    p->to_fd = in[1];
    p->from_fd = out[0];
    p->len = 0;
    return true;
}

static bool peer_send(Peer *p, const char *line) {
    char msg[512];
    int n = snprintf(msg, sizeof msg, "%s\n", line);
    if (n < 0 || (size_t)n >= sizeof msg)
        return false;
    for (size_t off = 0; off < (size_t)n;) {
        ssize_t w = write(p->to_fd, msg + off, (size_t)n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false; /* EPIPE: the peer is gone (SIGPIPE is ignored) */
        off += (size_t)w;
    }
    return true;
}

/* Reads one line (without the newline) into line, waiting until deadline (in now_ms()
 * time). Returns false on timeout, EOF or error. */
static bool peer_read_line(Peer *p, char *line, size_t cap, double deadline) {
    for (;;) {
        char *nl = memchr(p->buf, '\n', p->len);
        if (nl) {
            size_t n = (size_t)(nl - p->buf);
            size_t copy = n < cap - 1 ? n : cap - 1;
            memcpy(line, p->buf, copy);
            line[copy] = '\0';
            if (copy && line[copy - 1] == '\r')
                line[copy - 1] = '\0';
            p->len -= n + 1;
            memmove(p->buf, nl + 1, p->len);
            return true;
        }
        if (p->len == sizeof p->buf)
            p->len = 0; /* a line longer than the buffer: drop it, no USI line is that long */
        int wait = (int)(deadline - now_ms());
        if (wait <= 0)
            return false;
        struct pollfd pfd = {.fd = p->from_fd, .events = POLLIN};
        int r = poll(&pfd, 1, wait);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        ssize_t got = read(p->from_fd, p->buf + p->len, sizeof p->buf - p->len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return false;
        p->len += (size_t)got;
    }
}

/* Reads lines until one equals (or, with prefix, starts with) want. */
static bool peer_wait_for(Peer *p, const char *want, bool prefix, char *line, size_t cap, int timeout_ms) {
    double deadline = now_ms() + timeout_ms;
    while (peer_read_line(p, line, cap, deadline))
        if (prefix ? strncmp(line, want, strlen(want)) == 0 : strcmp(line, want) == 0)
            return true;
    return false;
}

static void peer_stop(Peer *p) {
    if (p->pid <= 0)
        return;
    peer_send(p, "quit");
    close(p->to_fd);
    close(p->from_fd);
    /* Give it two seconds to leave on its own, then kill this one child by its pid. */
    int status;
    for (int i = 0; i < 200; i++) {
        if (waitpid(p->pid, &status, WNOHANG) == p->pid) {
            p->pid = -1;
            return;
        }
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    kill(p->pid, SIGKILL);
    waitpid(p->pid, &status, 0);
    p->pid = -1;
}

/* A peer divide line "7g7f: 30" or "P*5e: 12". */
typedef struct {
    char move[8];
    uint64_t nodes;
} DivideEntry;

/* Runs `go perft depth` on sfen; fills *nodes and the divide lines. */
static bool peer_perft(Peer *p, const char *sfen, int depth, uint64_t *nodes, DivideEntry *div, int *ndiv) {
    char cmd[256], line[512];
    int len = snprintf(cmd, sizeof cmd, "position sfen %s", sfen);
    if (len < 0 || (size_t)len >= sizeof cmd || !peer_send(p, cmd))
        return false;
    snprintf(cmd, sizeof cmd, "go perft %d", depth);
    if (!peer_send(p, cmd))
        return false;
    double deadline = now_ms() + PERFT_TIMEOUT_MS;
    *ndiv = 0;
    while (peer_read_line(p, line, sizeof line, deadline)) {
        unsigned long long n;
        char mv[16];
        if (sscanf(line, "Nodes searched: %llu", &n) == 1) {
            *nodes = n;
            return true;
        }
        if (sscanf(line, "%15[^:]: %llu", mv, &n) == 2 && *ndiv < MAX_MOVES && strlen(mv) < sizeof div->move) {
            strcpy(div[*ndiv].move, mv);
            div[(*ndiv)++].nodes = n;
        }
    }
    return false;
}

/* ---- our side ---- */

static uint64_t rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Pawn drops that every rule allows except uchifuzume: the ones the peer counts at its
 * last ply and we do not. Only the square in front of the enemy king can be one. */
static int uchifuzume_drops(const Position *pos) {
    Color us = pos->side, them = color_flip(us);
    if (!hand_has(pos->hand[us], PAWN))
        return 0;
    Bitboard front = bb_pawn_attacks(them, pos->king_sq[them]);
    if (!front)
        return 0;
    Square sq = bb_lsb(front);
    if (position_piece_on(pos, sq) != NO_PIECE || rank_relative(us, square_rank(sq)) == 0 ||
        (position_pieces(pos, us, PAWN) & bitboard_tables.file[square_file(sq)]))
        return 0;
    Bitboard checkers = pos->st->checkers;
    if (checkers && (bb_more_than_one(checkers) || !bb_test(bb_between(pos->king_sq[us], bb_lsb(checkers)), sq)))
        return 0;
    return position_pawn_drop_mates(pos, sq) ? 1 : 0;
}

typedef struct {
    uint64_t nodes, uchifuzume;
} Count;

static void count_leaves(Position *pos, int depth, Count *c) {
    ExtMove list[MAX_MOVES];
    int n = generate_moves(pos, GEN_LEGAL, list);
    if (depth == 1) {
        c->nodes += (uint64_t)n;
        c->uchifuzume += (uint64_t)uchifuzume_drops(pos);
        return;
    }
    StateInfo st;
    for (int i = 0; i < n; i++) {
        position_do_move(pos, list[i].move, &st);
        count_leaves(pos, depth - 1, c);
        position_undo_move(pos, list[i].move);
    }
}

/* What the peer should print for `go perft depth` in pos. */
static uint64_t expected_peer_count(Position *pos, int depth, uint64_t *ours, uint64_t *ufz) {
    Count c = {0, 0};
    count_leaves(pos, depth, &c);
    *ours = c.nodes;
    *ufz = c.uchifuzume;
    return c.nodes + c.uchifuzume;
}

/* On a mismatch, the moves whose subtree counts differ point at the bug. */
static void report_divide(Position *pos, int depth, const DivideEntry *div, int ndiv) {
    ExtMove list[MAX_MOVES];
    int n = generate_moves(pos, GEN_LEGAL, list);
    StateInfo st;
    for (int i = 0; i < n; i++) {
        char text[USI_MOVE_MAX];
        move_to_usi(list[i].move, text);
        uint64_t ours = 1, ufz = 0;
        if (depth > 1) {
            position_do_move(pos, list[i].move, &st);
            expected_peer_count(pos, depth - 1, &ours, &ufz);
            position_undo_move(pos, list[i].move);
        }
        int j = 0;
        while (j < ndiv && strcmp(div[j].move, text) != 0)
            j++;
        if (j == ndiv)
            print_message("  %s: ours %llu, missing at the peer\n", text, (unsigned long long)ours);
        else if (div[j].nodes != ours + ufz)
            print_message("  %s: ours %llu + %llu uchifuzume, peer %llu\n", text, (unsigned long long)ours,
                          (unsigned long long)ufz, (unsigned long long)div[j].nodes);
    }
    for (int j = 0; j < ndiv; j++) {
        Move m = position_parse_usi_move(pos, div[j].move);
        if (m == MOVE_NONE)
            print_message("  %s: peer %llu, not legal for us\n", div[j].move, (unsigned long long)div[j].nodes);
    }
}

/* ---- the test positions ---- */

typedef struct {
    char sfen[SFEN_MAX];
    int depth;
} TestPosition;

static TestPosition positions[MAX_TEST_POSITIONS];
static int npositions;
static struct { int in_check, big_hand; } picked;

static void add_position(const Position *pos, int depth) {
    if (npositions == MAX_TEST_POSITIONS)
        return;
    position_to_sfen(pos, positions[npositions].sfen, true);
    positions[npositions].depth = depth;
    npositions++;
}

static int pieces_in_hand(const Position *pos) {
    int n = 0;
    for (Color c = BLACK; c <= WHITE; c++)
        for (PieceType pt = PAWN; pt <= GOLD; pt++)
            n += hand_count(pos->hand[c], pt);
    return n;
}

/* Depth 3 where the tree stays small, else 2. */
static int depth_for(Position *pos) {
    Count c = {0, 0};
    count_leaves(pos, 2, &c);
    return c.nodes <= 4000 ? 3 : 2;
}

/* Plays a game with a fixed seed; prefer_captures fills the hands. Every few plies, and
 * at every position in check or with a big hand, the position joins the test list. */
static void collect_playout(uint64_t seed, bool prefer_captures, int plies, int every) {
    static Position pos;
    static StateInfo states[PLAYOUT_MAX_PLIES + 1];
    ExtMove list[MAX_MOVES];
    uint64_t rng = seed;
    position_set_startpos(&pos, &states[0]);
    for (int ply = 0; ply < plies && ply < PLAYOUT_MAX_PLIES; ply++) {
        int n = generate_moves(&pos, GEN_LEGAL, list);
        if (n == 0)
            break;
        bool check = position_in_check(&pos), big = pieces_in_hand(&pos) >= 6;
        if ((ply > 0 && ply % every == 0) || (check && picked.in_check < 24) ||
            (big && picked.big_hand < 24 && ply % 3 == 0)) {
            add_position(&pos, depth_for(&pos));
            picked.in_check += check;
            picked.big_hand += big;
        }
        Move m = list[rng_next(&rng) % (uint64_t)n].move;
        if (prefer_captures && rng_next(&rng) % 4 != 0) {
            int caps[MAX_MOVES], k = 0;
            for (int i = 0; i < n; i++)
                if (!move_is_drop(list[i].move) && position_piece_on(&pos, move_to(list[i].move)) != NO_PIECE)
                    caps[k++] = i;
            if (k)
                m = list[caps[rng_next(&rng) % (uint64_t)k]].move;
        }
        position_do_move(&pos, m, &states[ply + 1]);
    }
}

static int group_setup(void **state) {
    (void)state;
    shogi_init();
    /* A dead peer must show up as a failed write, not kill the test with SIGPIPE. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    peer_stop(&peer);
    return 0;
}

static void test_perft_matches_fairy(void **state) {
    (void)state;
    if (access(FAIRY_PATH, X_OK) != 0) {
        print_message("%s not found (Debian package fairy-stockfish): skipped\n", FAIRY_PATH);
        skip();
    }
    char line[512];
    assert_true(peer_start(&peer, FAIRY_PATH));
    assert_true(peer_send(&peer, "usi"));
    if (!peer_wait_for(&peer, "usiok", false, line, sizeof line, STARTUP_TIMEOUT_MS))
        fail_msg("no usiok from %s", FAIRY_PATH);
    assert_true(peer_send(&peer, "isready"));
    if (!peer_wait_for(&peer, "readyok", false, line, sizeof line, STARTUP_TIMEOUT_MS))
        fail_msg("no readyok from %s", FAIRY_PATH);

    npositions = 0;
    memset(&picked, 0, sizeof picked);
    for (uint64_t g = 0; g < 4; g++) {
        collect_playout(7100 + g, false, 120, 12);
        collect_playout(7200 + g, true, 120, 12);
    }
    int from_playouts = npositions;
    /* Hand-made positions where the quirk shows: a mating pawn drop at the last ply (the
     * uchifuzume position of test_movegen and its pinned-defender variant). */
    static const struct {
        const char *sfen;
        int depth;
    } extra[] = {
        {"8k/9/6NG1/9/9/9/9/9/4K4 b P 1", 1},
        {"8k/9/6NG1/9/9/9/9/9/4K4 b P 1", 3},
        {"8k/7g1/7SN/9/4B4/9/9/9/4K4 b P 1", 1},
        {"8k/7g1/7SN/9/4B4/9/9/9/4K4 b P 1", 3},
        {"4k4/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L18P 1", 2},
    };
    for (size_t i = 0; i < ARRAY_LEN(extra) && npositions < MAX_TEST_POSITIONS; i++) {
        snprintf(positions[npositions].sfen, SFEN_MAX, "%s", extra[i].sfen);
        positions[npositions++].depth = extra[i].depth;
    }

    int compared = 0, mismatches = 0, in_check = 0, big_hand = 0, corrected = 0, deep = 0;
    uint64_t total_nodes = 0, total_ufz = 0;
    for (int i = 0; i < npositions; i++) {
        Position pos;
        StateInfo st;
        char err[128];
        if (!position_from_sfen(&pos, &st, positions[i].sfen, err, sizeof err))
            fail_msg("%s: %s", positions[i].sfen, err);
        uint64_t ours, ufz, peer_nodes = 0;
        uint64_t expected = expected_peer_count(&pos, positions[i].depth, &ours, &ufz);
        static DivideEntry div[MAX_MOVES];
        int ndiv = 0;
        if (!peer_perft(&peer, positions[i].sfen, positions[i].depth, &peer_nodes, div, &ndiv))
            fail_msg("no perft answer from the peer for %s (timeout or exit)", positions[i].sfen);
        compared++;
        deep += positions[i].depth >= 3;
        in_check += position_in_check(&pos);
        big_hand += pieces_in_hand(&pos) >= 6;
        corrected += ufz > 0;
        total_nodes += ours;
        total_ufz += ufz;
        if (peer_nodes != expected) {
            mismatches++;
            print_message("MISMATCH %s depth %d: ours %llu + %llu uchifuzume = %llu, peer %llu\n", positions[i].sfen,
                          positions[i].depth, (unsigned long long)ours, (unsigned long long)ufz,
                          (unsigned long long)expected, (unsigned long long)peer_nodes);
            report_divide(&pos, positions[i].depth, div, ndiv);
        }
    }
    print_message("compared %d positions with fairy-stockfish (%d from playouts, %d at depth 3, %d in check, %d with "
                  "6+ pieces in hand): %llu leaves, %llu uchifuzume drops added for the peer in %d positions\n",
                  compared, from_playouts, deep, in_check, big_hand, (unsigned long long)total_nodes,
                  (unsigned long long)total_ufz, corrected);
    peer_stop(&peer);
    assert_int_equal(mismatches, 0);
    assert_true(from_playouts >= 60);
    assert_true(in_check >= 5);
    assert_true(big_hand >= 5);
    assert_true(corrected >= 2); /* the quirk correction was really exercised */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_perft_matches_fairy),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
