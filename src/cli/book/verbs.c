/* verbs.c - `hayanagi book <verb>`: the one table of the book verbs (name, entry, synopsis,
 * summary), the usage printed from it, and the dispatch. Each verb lives in its own file
 * (verbs.h); docs/architecture.md, "The command line", has the layout. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/book/verbs.h"
#include "cli/commands.h"
#include "shogi/game.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *synopsis; /* after "hayanagi book NAME " in the usage; NULL: a hidden verb */
    const char *summary;  /* one line on what it does, for a reader of this table */
    bool making;          /* the first of the book-making verbs opens their part of the usage */
} BookVerb;

static const BookVerb VERBS[] = {
    {"info", book_verb_info, "[--from FMT] FILE", "a book's format, size, ply range and scores", false},
    {"lookup", book_verb_lookup, "[--from FMT] [--on-the-fly] FILE (startpos | sfen <SFEN>) [moves <m>...]",
     "the book's moves at a position and the move the engine would play", false},
    {"sort", book_verb_sort, "IN OUT", "a book as DB2016 sorted by SFEN (on-the-fly ready)", false},
    {"check", book_verb_check, "[--shogihome-columns] FILE", "every move's legality, each problem listed", false},
    {"convert", book_verb_convert, "[--from FMT] [--to db|sbk] [--no-comments] [--keep-zero] IN OUT",
     "a book in another format, saying what the output cannot hold", false},
    {"build", book_verb_build, "--from RECORDS... [--max-ply N] [--min-count K] ... OUT", "a book from game records",
     true},
    {"merge", book_verb_merge, "A B ... [--weights w1,w2,...] [--policy sum|prefer-deeper|prefer-first] OUT",
     "several books into one", false},
    {"minimax", book_verb_minimax, "[--converge] [--flipped] [--threads T] IN OUT",
     "the leaves' scores backed up the book", false},
    {"think", book_verb_think, "IN OUT (--depth D | --nodes N | --movetime MS) --multipv K ...",
     "the short positions and leaves searched, in this process or by USI engines", false},
    {"expand", book_verb_expand, "IN [OUT] [--playouts P] [--top N] [--min-candidates K] [--rounds R] ...",
     "PV-MCTS book expansion", false},
    {"import-losses", book_verb_import_losses, "--opponent NAME [--max-ply N] RECORDS... BOOK",
     "the moves of lost games into a book", false},
    {"learn", book_verb_learn, "--player PATTERN [--max-ply N] [--min-games K] [--prior G] RECORDS... OUT",
     "a book learned from a player's results", false},
    {"grow", book_verb_grow, "IN OUT --records DIR --games N --opponent CMD... [options]",
     "the book grown by games against an opponent", false},
    {"rival-learn", book_verb_rival_learn,
     "(--overlay FILE | --rival-books DIR --opponent NAME) [--player P]\n"
     "                                 [--book MAIN] RECORDS...",
     "an opponent's overlay book learned from its games", false},
    {"records", book_verb_records, "[--moves] [--variations] FILES...", "one line per game of record files", false},
    {"openings", book_verb_openings, "--count N [--plies MIN-MAX] [--seed S] OUT",
     "random short start lines for `hayanagi match`", false},
    {"prune", book_verb_prune, "[--max-ply N] [--min-share PCT] [--through-legal] IN OUT",
     "a book cut by ply and share", false},
    {"report", book_verb_report, "BOOK --records FILES... [--plies-at 10,20,30] [--top N]",
     "how far games stayed in a book", false},
    {"gen-synthetic", book_verb_gen_synthetic, NULL, "a random book of N positions, for the benchmarks", false},
};

static void book_usage(FILE *f) {
    const char *lead = "usage: ";
    for (size_t k = 0; k < sizeof VERBS / sizeof VERBS[0]; k++) {
        if (!VERBS[k].synopsis)
            continue;
        if (VERBS[k].making)
            fprintf(f, "Book making (docs/book_making.md, docs/mcts.md):\n");
        fprintf(f, "%shayanagi book %s %s\n", lead, VERBS[k].name, VERBS[k].synopsis);
        lead = "       ";
    }
    fprintf(f, "FMT is db (YaneuraOu DB2016), ybb (YANE-BINBOOK-V1), apery (book.bin), sbk (ShogiGUI/ShogiHome)\n"
               "or osl (GPS Shogi's joseki.dat; --keep-zero keeps its weight-0 moves as count 0);\n"
               "every verb reads every format, recognised by its content (a file that is no book we know is\n"
               "refused). Outputs are written in the format their name says: .sbk SBK, anything else DB2016.\n"
               "Long jobs show progress on stderr. `hayanagi book VERB --help` prints a verb's options.\n");
}

int cmd_book(int argc, char **argv) {
    shogi_init();
    if (argc < 1 || !strcmp(argv[0], "help") || !strcmp(argv[0], "--help")) {
        book_usage(argc < 1 ? stderr : stdout);
        return argc < 1 ? 2 : 0;
    }
    const char *verb = argv[0];
    for (size_t k = 0; k < sizeof VERBS / sizeof VERBS[0]; k++)
        if (!strcmp(verb, VERBS[k].name))
            return VERBS[k].run(argc, argv);
    fprintf(stderr, "hayanagi book: unknown verb '%s'\n", verb);
    book_usage(stderr);
    return 2;
}
