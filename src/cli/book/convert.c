/* convert.c - `hayanagi book convert` and `hayanagi book sort` (convert to DB2016 sorted by
 * SFEN, in memory or by book/extsort.h): one body, the two verbs differ by a flag. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book/book.h"
#include "book/db2016.h"
#include "book/extsort.h"
#include "book/open.h"
#include "book/sbk.h"
#include "book/select.h"
#include "cli/book/io.h"
#include "cli/book/options.h"
#include "cli/book/verbs.h"
#include "shogi/movegen.h"
#include "util/progress.h"

/* sort --memory, and convert --memory of a DB2016 book into DB2016 (which is a sort):
 * book_extsort_db2016(), with what the in-memory verb prints (a DB2016 input has nothing
 * for the "Unsupported" lines). */
static int sort_external(const char *in, const char *out, const LoadOptions *lo) {
    ErrorPrinter ep = {"warning: ", 0};
    Progress pr = {.out = stderr, .quiet = lo->quiet};
    ExtSortOptions eo = {.memory = lo->memory,
                         .tmpdir = lo->tmpdir,
                         .keep_comments = lo->keep_comments,
                         .shogihome_columns = lo->shogihome_columns,
                         .on_error = cli_print_book_error,
                         .ctx = &ep,
                         .progress = &pr};
    ExtSortStats st;
    char err[512];
    if (!book_extsort_db2016(in, out, &eo, &st, err, sizeof err)) {
        cli_say_not_written("hayanagi book", err, out);
        return 1;
    }
    BookWriteReport wr = {.positions = st.positions, .moves = st.moves};
    fprintf(cli_say_wrote(out, &wr), "\n");
    if (!lo->quiet)
        fprintf(stderr, "sorted in %llu run(s) of at most %llu bytes\n", (unsigned long long)st.runs,
                (unsigned long long)lo->memory);
    return 0;
}

static int book_convert(int argc, char **argv, bool sort_only) {
    LoadOptions lo = {.keep_comments = true, .unreg_depth = 1};
    const BookFormat *from = NULL, *to = NULL;
    const FlagVerb *v = cli_flag_verb(sort_only ? "sort" : "convert");
    int i, pst;
    char **av = cli_parse_flags(v, argc, argv, &lo, &from, &to, NULL, &i, &pst);
    if (!av)
        return pst;
    if (i != argc - 2)
        return cli_positional_error(v, av);
    const char *in = av[i], *out = av[i + 1];
    free(av);
    FILE *say = cli_report_file(out);
    char err[512];
    if (sort_only)
        from = to = book_format_by_id("db");
    if (!to && !(to = book_format_for_output(out, err, sizeof err))) {
        fprintf(stderr, "hayanagi book convert: %s\n", err);
        return 2;
    }
    if (!book_format_is(to, "db") && !book_format_is(to, "sbk")) {
        fprintf(stderr, "hayanagi book convert: writing %s is not supported (db or sbk)\n", book_format_name(to));
        return 2;
    }
    if (sort_only && lo.memory)
        return sort_external(in, out, &lo);
    char *inputs[1] = {(char *)in};
    if (lo.memory && !cli_fits_memory(inputs, 1, lo.memory)) { /* out of core: DB2016 to DB2016 is a sort */
        if ((from && !book_format_is(from, "db")) || !book_format_is(to, "db")) {
            fprintf(stderr,
                    "hayanagi book convert: --memory: %s is %s from a whole book in memory; out of core a book is "
                    "converted from DB2016 to DB2016 (sorted)\n",
                    from && !book_format_is(from, "db") ? book_format_name(from) : book_format_name(to),
                    from && !book_format_is(from, "db") ? "read" : "written");
            return 2;
        }
        if (!cli_out_of_core_ok("convert", inputs, 1, out))
            return 2;
        return sort_external(in, out, &lo);
    }
    BookReadReport rep;
    Book *b = cli_load_book(in, from, &lo, &rep);
    if (!b)
        return 1;
    const BookFormat *fin = rep.format;
    BookWriteOptions wo = {.write_comments = lo.keep_comments, .log = stderr, .quiet = lo.quiet};
    char *author = NULL, *description = NULL;
    if (book_format_is(to, "sbk") && book_format_is(fin, "sbk")) { /* carry the header over */
        SbkBook *sb = sbk_open(in, NULL, NULL, err, sizeof err);
        if (sb) {
            author = sbk_author(sb) ? strdup(sbk_author(sb)) : NULL;
            description = sbk_description(sb) ? strdup(sbk_description(sb)) : NULL;
            sbk_close(sb);
        }
        wo.author = author;
        wo.description = description;
    }
    if (book_format_is(to, "db")) {
        if (book_has_totals(b))
            fprintf(
                say,
                "Unsupported: game and win totals and evaluation marks are not kept in DB2016 (move counts are%s)\n",
                lo.keep_comments ? ", comments as # lines" : "");
        if (book_eval_count(b))
            fprintf(say,
                    "Unsupported: %zu engine analyses (SBookEval) are not kept in DB2016: the first of each "
                    "position is the score and depth of the moves leading there\n",
                    book_eval_count(b));
    }
    BookWriteReport wr;
    bool ok = cli_write_book(out, to, b, &wo, &wr); /* says why it failed */
    free(author);
    free(description);
    if (ok && book_format_is(to, "sbk")) {
        if (wr.ponders)
            fprintf(say, "Unsupported: %llu ponder move(s) dropped (SBK has no ponder)\n",
                    (unsigned long long)wr.ponders);
        if (wr.depths)
            fprintf(say, "Unsupported: %llu depth(s) dropped (SBK moves have no depth)\n",
                    (unsigned long long)wr.depths);
        if (wr.scores)
            fprintf(say, "Unsupported: %llu score(s) dropped (SBK moves have no score)\n",
                    (unsigned long long)wr.scores);
        if (wr.counts)
            fprintf(say, "Unsupported: %llu count(s) differ from the weight written (SBK has no count)\n",
                    (unsigned long long)wr.counts);
        if (wr.clamped)
            fprintf(say, "Unsupported: %llu count(s) above INT32_MAX written as INT32_MAX\n",
                    (unsigned long long)wr.clamped);
        if (wr.illegal_moves)
            fprintf(say, "Unsupported: %llu illegal move(s) not written\n", (unsigned long long)wr.illegal_moves);
        if (book_format_is(fin, "db") && rep.db.had_header)
            fprintf(say, "Unsupported: the DB2016 header and comments outside entries are not kept\n");
    }
    if (ok)
        fprintf(cli_say_wrote(out, &wr), "\n");
    book_free(b);
    return ok ? 0 : 1;
}

int book_verb_sort(int argc, char **argv) { return book_convert(argc, argv, true); }

int book_verb_convert(int argc, char **argv) { return book_convert(argc, argv, false); }
