/* info.c - `hayanagi book info`: a book's format, size, ply range and scores. */
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
#include "shogi/movegen.h"

/* ---- info ---- */

int book_verb_info(int argc, char **argv) {
    LoadOptions lo = {.unreg_depth = 1};
    const BookFormat *from = NULL;
    const FlagVerb *v = cli_flag_verb("info");
    int i, pst;
    char **av = cli_parse_flags(v, argc, argv, &lo, &from, NULL, NULL, &i, &pst);
    if (!av)
        return pst;
    if (i != argc - 1)
        return cli_positional_error(v, av);
    const char *path = av[i];
    free(av);
    BookReadReport rep;
    Book *b = cli_load_book(path, from, &lo, &rep);
    if (!b)
        return 1;
    const BookFormat *fmt = rep.format;
    const Db2016Stats dbst = rep.db;
    size_t n = book_position_count(b), moves = book_move_count(b);
    int ply_min = 0, ply_max = 0, unknown = 0;
    static const int edges[] = {-1000, -300, -100, -30, 30, 100, 300, 1000};
    enum { BUCKETS = sizeof edges / sizeof edges[0] + 1 };
    uint64_t hist[BUCKETS] = {0}, no_score = 0;
    BookMoveList *list = malloc(sizeof *list);
    for (uint32_t id = 0; list && id < n; id++) {
        int ply = book_position_ply(b, id);
        if (!ply)
            unknown++;
        else {
            if (!ply_min || ply < ply_min)
                ply_min = ply;
            if (ply > ply_max)
                ply_max = ply;
        }
        book_position_moves(b, id, list);
        for (int k = 0; k < list->n; k++) {
            if (!list->moves[k].has_score) {
                no_score++;
                continue;
            }
            int bucket = 0;
            while (bucket < BUCKETS - 1 && list->moves[k].score >= edges[bucket])
                bucket++;
            hist[bucket]++;
        }
    }
    free(list);
    printf("file       %s\n", path);
    printf("format     %s\n", book_format_name(fmt));
    printf("positions  %zu\n", n);
    printf("moves      %zu (%.2f per position)\n", moves, n ? (double)moves / (double)n : 0.0);
    if (ply_min)
        printf("ply range  %d..%d%s\n", ply_min, ply_max, unknown ? " (some unknown)" : "");
    else
        printf("ply range  unknown\n");
    printf("memory     %zu bytes (%.1f per position)\n", book_memory_bytes(b),
           n ? (double)book_memory_bytes(b) / (double)n : 0.0);
    if (rep.warnings)
        printf("warnings   %llu (lines, records or moves skipped or changed)\n", (unsigned long long)rep.warnings);
    if (book_format_is(fmt, "db")) {
        printf("header     %s\n", dbst.had_header ? DB2016_HEADER : "none");
        printf("sorted     %s\n", dbst.sorted ? "yes (on-the-fly ready)" : "no (run `hayanagi book sort`)");
        printf("lines      %llu, errors %llu, duplicate positions %llu, merged moves %llu, ambiguous lines %llu\n",
               (unsigned long long)dbst.lines, (unsigned long long)dbst.errors,
               (unsigned long long)dbst.duplicate_positions, (unsigned long long)dbst.duplicate_moves,
               (unsigned long long)dbst.ambiguous_lines);
    }
    if (book_format_is(fmt, "sbk")) {
        char err[512];
        SbkOpenStats os;
        SbkBook *sb = sbk_open(path, NULL, &os, err, sizeof err);
        if (sb) {
            printf("author     %s\n", sbk_author(sb) ? sbk_author(sb) : "(none)");
            printf("descript.  %s\n", sbk_description(sb) ? sbk_description(sb) : "(none)");
            printf("states     %llu (%llu indexed, %llu roots, %llu not reached), ids %s\n",
                   (unsigned long long)os.states, (unsigned long long)os.indexed, (unsigned long long)os.roots,
                   (unsigned long long)os.unresolved, os.ids_are_indices ? "== index" : "remapped");
            printf("problems   %llu bad edge(s), %llu bad move(s), %llu bad position(s), %llu contradictory "
                   "edge(s), %llu duplicate id(s), %llu duplicate position(s)\n",
                   (unsigned long long)os.bad_edges, (unsigned long long)os.bad_moves,
                   (unsigned long long)os.bad_positions, (unsigned long long)os.contradictions,
                   (unsigned long long)os.duplicate_ids, (unsigned long long)os.duplicate_keys);
            printf("analyses   %zu engine analysis record(s) (SBookEval)\n", book_eval_count(b));
            sbk_close(sb);
        }
    }
    printf("scores     (moves per range, mover's view)\n");
    for (int k = 0; k < BUCKETS; k++) {
        char range[32];
        if (k == 0)
            snprintf(range, sizeof range, "< %d", edges[0]);
        else if (k == BUCKETS - 1)
            snprintf(range, sizeof range, ">= %d", edges[BUCKETS - 2]);
        else
            snprintf(range, sizeof range, "%d..%d", edges[k - 1], edges[k] - 1);
        uint64_t max = 1;
        for (int j = 0; j < BUCKETS; j++)
            max = hist[j] > max ? hist[j] : max;
        int bar = (int)(40 * hist[k] / max);
        printf("  %12s %10llu %.*s\n", range, (unsigned long long)hist[k], bar,
               "########################################");
    }
    printf("  %12s %10llu\n", "no score", (unsigned long long)no_score);
    book_free(b);
    return 0;
}
