/* gen_synthetic.c - `hayanagi book gen-synthetic` (hidden): a random book for the
 * benchmarks. */
#include <stdio.h>
#include <stdlib.h>

#include "book/book.h"
#include "book/db2016.h"
#include "book/extsort.h"
#include "book/open.h"
#include "book/sbk.h"
#include "book/select.h"
#include "util/cli_opts.h"
#include "cli/book/io.h"
#include "cli/book/verbs.h"
#include "shogi/game.h"
#include "shogi/movegen.h"
#include "util/parse.h"
#include "util/progress.h"
#include "util/random.h"

/* ---- gen-synthetic (hidden, for the benchmarks) ---- */

int book_verb_gen_synthetic(int argc, char **argv) {
    static const char prog[] = "hayanagi book gen-synthetic";
    static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    char **av = cli_opts_begin(prog, argc, argv);
    if (!av)
        return 1;
    int c, rc = -1;
    while (rc < 0 && (c = getopt_long(argc, av, "", longopts, NULL)) != -1)
        rc = c == 'h' ? 0 : cli_opts_unknown(prog);
    if (rc < 0 && (argc - optind < 2 || argc - optind > 3))
        rc = CLI_USAGE_ERROR;
    if (rc != -1)
        fprintf(rc ? stderr : stdout, "usage: %s N OUT [SEED]   (a random book of N positions, for the benchmarks)\n",
                prog);
    const char *n_arg = rc < 0 ? av[optind] : NULL, *out = rc < 0 ? av[optind + 1] : NULL;
    const char *seed_arg = rc < 0 && argc - optind > 2 ? av[optind + 2] : NULL;
    free(av);
    if (rc >= 0)
        return rc;
    uint64_t target, seed = 20240601;
    if (!parse_unsigned(n_arg, &target) || (seed_arg && !parse_unsigned(seed_arg, &seed))) {
        fprintf(stderr, "hayanagi book gen-synthetic: N and SEED are non-negative integers\n");
        return 2;
    }
    if (!seed)
        seed = 1;
    Book *b = book_create();
    if (!b)
        return 1;
    Progress pr;
    progress_start(&pr, stderr, "generating", target, false);
    StateInfo *states = malloc(sizeof(StateInfo) * (MAX_PLY + 1));
    ExtMove *moves = malloc(sizeof(ExtMove) * MAX_MOVES), *replies = malloc(sizeof(ExtMove) * MAX_MOVES);
    bool ok = states && moves && replies;
    while (ok && book_position_count(b) < target) {
        Position pos;
        position_set_startpos(&pos, &states[0]);
        int length = 24 + (int)(random_xorshift64star(&seed) % 96);
        for (int ply = 0; ply < length && ok; ply++) {
            int n = generate_moves(&pos, GEN_LEGAL, moves);
            if (n == 0)
                break;
            BookKey key;
            uint32_t id;
            book_key_from_position(&pos, &key);
            if (!book_add_position(b, &key, pos.ply, &id)) {
                ok = false;
                break;
            }
            int k = 2 + (int)(random_xorshift64star(&seed) % 4); /* 2..5 candidates, 3.5 on average */
            if (k > n)
                k = n;
            int already = book_position_move_count(b, id);
            for (int c = 0; c < k && already == 0; c++) {
                int j = c + (int)(random_xorshift64star(&seed) % (uint64_t)(n - c));
                ExtMove t = moves[c];
                moves[c] = moves[j];
                moves[j] = t;
                BookMove bm = {.move = move_to_move16(moves[c].move),
                               .score = (int)(random_xorshift64star(&seed) % 401) - 200 - c * 20,
                               .has_score = true,
                               .depth = 8 + (int)(random_xorshift64star(&seed) % 24),
                               .has_depth = true,
                               .count = 1 + random_xorshift64star(&seed) % 1000};
                StateInfo st;
                position_do_move(&pos, moves[c].move, &st);
                int nr = generate_moves(&pos, GEN_LEGAL, replies);
                if (nr)
                    bm.ponder = move_to_move16(replies[random_xorshift64star(&seed) % (uint64_t)nr].move);
                position_undo_move(&pos, moves[c].move);
                ok = book_add_move(b, id, &bm, NULL);
            }
            position_do_move(&pos, moves[random_xorshift64star(&seed) % (uint64_t)(k ? k : 1)].move, &states[ply + 1]);
            progress_update(&pr, book_position_count(b));
        }
    }
    progress_finish(&pr);
    free(states);
    free(moves);
    free(replies);
    BookWriteReport wr;
    if (!ok)
        fprintf(stderr, "hayanagi book gen-synthetic: out of memory\n");
    else if ((ok = cli_write_book(out, book_format_by_id("db"), b, &(BookWriteOptions){.log = stderr}, &wr)))
        fprintf(cli_say_wrote(out, &wr), "\n");
    book_free(b);
    return ok ? 0 : 1;
}
