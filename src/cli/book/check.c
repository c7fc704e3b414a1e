/* check.c - `hayanagi book check`: read a book checking every move's legality. */
#include <stdio.h>
#include <stdlib.h>

#include "book/book.h"
#include "book/db2016.h"
#include "book/extsort.h"
#include "book/open.h"
#include "book/sbk.h"
#include "book/select.h"
#include "cli/book/options.h"
#include "cli/book/verbs.h"
#include "shogi/game.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"
#include "util/progress.h"

/* `book check` of a book that is not DB2016 text (SBK, YBB, Apery, OSL): the format's reader
 * reports what it skipped or could not place (its warnings on stderr: SBK's bad edges,
 * moves and states not reached, ...), and every move of every position read is checked for
 * legality here. */
static int check_other(const char *path, const BookFormat *fmt, const LoadOptions *lo) {
    BookReadReport rep;
    LoadOptions quiet = *lo;
    quiet.quiet = true;
    Book *b = cli_load_book(path, fmt, &quiet, &rep);
    if (!b) {
        printf("%s: stopped at a fatal error\n", path);
        return 1;
    }
    uint64_t problems = rep.warnings, moves = 0;
    BookMoveList *list = malloc(sizeof *list);
    size_t n = book_position_count(b);
    for (uint32_t id = 0; list && id < n; id++) {
        BookKey k;
        Position pos;
        StateInfo st;
        char sfen[SFEN_MAX], mu[USI_MOVE_MAX];
        book_position_key(b, id, &k);
        int ply = book_position_ply(b, id);
        int m = book_position_moves(b, id, list);
        moves += (uint64_t)m;
        if (!book_key_to_position(&k, &pos, &st, ply > 0 ? ply : 1)) {
            printf("%s: a position that is not legal\n", path);
            problems++;
            continue;
        }
        for (int i = 0; i < m; i++)
            if (position_legal_move_from16(&pos, list->moves[i].move) == MOVE_NONE) {
                printf("%s: sfen %s: move %s is not legal\n", path, position_to_sfen(&pos, sfen, true),
                       move_to_usi(list->moves[i].move, mu));
                problems++;
            }
    }
    printf("%s (%s): %zu positions, %llu moves checked, %llu problem(s)%s\n", path, book_format_name(rep.format), n,
           (unsigned long long)moves, (unsigned long long)problems, list ? "" : ", out of memory");
    free(list);
    book_free(b);
    return list && problems == 0 ? 0 : 1;
}

static bool check_entry(void *ctx, Book *entry, const Position *pos) {
    (void)ctx, (void)entry, (void)pos;
    return true;
}

int book_verb_check(int argc, char **argv) {
    LoadOptions lo = {0};
    const FlagVerb *v = cli_flag_verb("check");
    int i, pst;
    char **av = cli_parse_flags(v, argc, argv, &lo, NULL, NULL, NULL, &i, &pst);
    if (!av)
        return pst;
    if (i != argc - 1)
        return cli_positional_error(v, av);
    const char *path = av[i];
    free(av);
    char derr[512];
    const BookFormat *fmt = book_format_detect(path, derr, sizeof derr);
    char *inputs[1] = {(char *)path};
    if (fmt && !book_format_is(fmt, "db")) { /* DB2016 goes on below, line by line */
        if (lo.memory && !cli_fits_memory(inputs, 1, lo.memory) && !cli_out_of_core_ok("check", inputs, 1, NULL))
            return 2;
        return check_other(path, fmt, &lo);
    }
    Book *b = book_create();
    if (!b)
        return 1;
    ErrorPrinter ep = {"", 0};
    Db2016ReadOptions ro = {.check_legality = true,
                            .shogihome_columns = lo.shogihome_columns,
                            .on_error = cli_print_book_error,
                            .ctx = &ep};
    Db2016Stats st;
    char err[512];
    /* --memory: entry by entry, nothing kept (the counts and problems are the same: each
     * entry is parsed and checked on its own either way) */
    bool ok = lo.memory ? db2016_read_entries(path, check_entry, NULL, &ro, &st, err, sizeof err)
                        : db2016_read_file(path, b, &ro, &st, err, sizeof err);
    if (!ok)
        fprintf(stderr, "%s\n", err);
    printf("%s: %llu positions, %llu moves checked, %llu problem(s)%s\n", path, (unsigned long long)st.positions,
           (unsigned long long)st.moves, (unsigned long long)st.errors, ok ? "" : ", stopped at a fatal error");
    if (st.ambiguous_lines)
        printf("note: %llu move line(s) have empty columns (\"m p   n\"): YaneuraOu reads n as the value, "
               "ShogiHome as the count; --shogihome-columns reads them ShogiHome's way\n",
               (unsigned long long)st.ambiguous_lines);
    if (!st.sorted)
        printf("note: not sorted by SFEN; on-the-fly lookup needs `hayanagi book sort`\n");
    book_free(b);
    return ok && st.errors == 0 ? 0 : 1;
}
