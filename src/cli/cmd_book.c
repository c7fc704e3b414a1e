/* cmd_book.c - `hayanagi book <verb>`: info, lookup, sort, check, convert, and the hidden
 * gen-synthetic used by the benchmarks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "book/book.h"
#include "book/db2016.h"
#include "book/extsort.h"
#include "book/open.h"
#include "book/sbk.h"
#include "book/select.h"
#include "util/cli_opts.h"
#include "cli/commands.h"
#include "shogi/game.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"
#include "util/atomic_file.h"
#include "util/parse.h"
#include "util/progress.h"
#include "util/random.h"

static bool write_db_atomic(const char *path, const Book *b, bool comments, bool quiet, BookWriteReport *wr, char *err,
                            size_t err_len) {
    BookWriteOptions wo = {.write_comments = comments, .log = stderr, .quiet = quiet};
    return book_write(path, book_format_by_id("db"), b, &wo, wr, err, err_len);
}

typedef struct {
    const char *prefix;
    uint64_t printed;
} ErrorPrinter;

static void print_error(void *ctx, const char *file, uint64_t line, const char *reason) {
    ErrorPrinter *p = ctx;
    p->printed++;
    fprintf(stderr, "%s%s:%llu: %s\n", p->prefix, file, (unsigned long long)line, reason);
}

typedef struct {
    bool keep_comments;
    bool shogihome_columns;
    bool keep_zero;
    bool quiet;
    int unreg_depth;
    uint64_t memory;    /* sort --memory: 0 = in memory */
    const char *tmpdir; /* sort --tmpdir */
} LoadOptions;

static BookReadOptions read_options(const LoadOptions *lo) {
    return (BookReadOptions){.keep_comments = lo->keep_comments,
                             .shogihome_columns = lo->shogihome_columns,
                             .unreg_depth = lo->unreg_depth,
                             .keep_zero = lo->keep_zero,
                             .log = stderr,
                             .quiet = lo->quiet};
}

/* Loads a book of any format (fmt NULL: detected) into a new book; NULL with a message on
 * stderr. */
static Book *load_book(const char *path, const BookFormat *fmt, const LoadOptions *lo, BookReadReport *rep) {
    char err[512];
    BookReadOptions ro = read_options(lo);
    BookReadReport local;
    if (!rep)
        rep = &local;
    Book *b = book_open_read(path, fmt, &ro, rep, err, sizeof err);
    if (!b)
        fprintf(stderr, "hayanagi book: %s\n", err);
    else if (rep->note[0])
        fprintf(stderr, "%s\n", rep->note);
    return b;
}

/* What each of info, lookup, sort, check and convert takes (verb_help()). */
typedef struct {
    const char *verb;
    bool from, to, otf; /* --from FMT, --to FMT, --on-the-fly */
    bool ext;           /* --memory SIZE, --tmpdir DIR */
    const char *synopsis, *what;
} FlagVerb;

static const FlagVerb FLAG_VERBS[] = {
    {"info", true, false, false, false, "[--from FMT] [READ OPTIONS] FILE",
     "Prints a book's format, size, ply range and scores (moves per score range)."},
    {"lookup", true, false, true, false,
     "[--from FMT] [--on-the-fly] [READ OPTIONS] FILE (startpos | sfen <SFEN>) [moves <m>...]",
     "Prints the book's moves at a position and the move the engine would play from it; the options come\n"
     "before FILE (exit 3: the position is not in the book). --on-the-fly looks a sorted DB2016 book up on disk."},
    {"sort", false, false, false, true, "[--memory SIZE [--tmpdir DIR]] [READ OPTIONS] IN OUT",
     "Writes the book IN as a DB2016 book OUT sorted by SFEN (on-the-fly ready)."},
    {"check", false, false, false, false, "[--shogihome-columns] FILE",
     "Reads a book checking every move's legality; lists each problem (DB2016: file:line: reason; other\n"
     "formats: what the reader skipped, SBK's graph problems, then each illegal move by position)."},
    {"convert", true, true, false, false,
     "[--from FMT] [--to db|sbk] [--no-comments] [--keep-zero] [READ OPTIONS] IN OUT",
     "Converts the book IN (any format) to OUT (--to, else by its name: .sbk SBK, else DB2016), saying what\n"
     "the output format cannot hold."},
};

static void verb_help(FILE *f, const FlagVerb *v) {
    char ids[128];
    fprintf(f, "usage: hayanagi book %s %s\n%s\n", v->verb, v->synopsis, v->what);
    if (v->from)
        fprintf(f, "  --from FMT            read the input as FMT (%s; default: recognised by content)\n",
                book_format_ids(ids, sizeof ids));
    if (v->to)
        fprintf(f, "  --to FMT              write OUT as FMT (db or sbk; default: by OUT's name)\n");
    if (v->otf)
        fprintf(f, "  --on-the-fly          look a sorted DB2016 book up on disk instead of loading it\n");
    if (v->ext)
        fprintf(f,
                "  --memory SIZE         sort in about SIZE bytes (e.g. 512M, 4G): sorted runs on disk, then a merge;\n"
                "                        the same output as in memory\n"
                "  --tmpdir DIR          where the runs go (default: OUT's directory); removed on exit and Ctrl-C\n");
    fprintf(f, "READ OPTIONS (every one of info, lookup, sort, check and convert takes them):\n"
               "  --keep-comments       keep the books' comments (the default of sort and convert)\n"
               "  --no-comments         drop them\n"
               "  --shogihome-columns   read DB2016 lines \"m p   n\" ShogiHome's way (n is the count)\n"
               "  --keep-zero           keep joseki.dat's weight-0 moves as count 0\n"
               "  --unreg-depth N       Apery: plies the walk from the start may go outside the book (0-1000)\n"
               "  --quiet               no progress display\n");
}

/* Parses the options of v (argv[0] is the verb) with getopt_long. Returns the argument
 * vector (the caller frees the array) with the positional arguments at [*first, argc), or
 * NULL with *status set: 0 after --help, 2 for a usage error, 1 out of memory. */
static char **parse_flags(const FlagVerb *v, int argc, char **argv, LoadOptions *lo, const BookFormat **from,
                          const BookFormat **to, bool *otf, int *first, int *status) {
    enum {
        F_KEEP = 1,
        F_NOCOMMENTS,
        F_SHOGIHOME,
        F_KEEPZERO,
        F_QUIET,
        F_OTF,
        F_FROM,
        F_TO,
        F_UNREG,
        F_HELP,
        F_MEMORY,
        F_TMPDIR
    };
    static const struct option all[] = {{"keep-comments", no_argument, NULL, F_KEEP},
                                        {"no-comments", no_argument, NULL, F_NOCOMMENTS},
                                        {"shogihome-columns", no_argument, NULL, F_SHOGIHOME},
                                        {"keep-zero", no_argument, NULL, F_KEEPZERO},
                                        {"quiet", no_argument, NULL, F_QUIET},
                                        {"unreg-depth", required_argument, NULL, F_UNREG},
                                        {"help", no_argument, NULL, F_HELP},
                                        {"on-the-fly", no_argument, NULL, F_OTF},
                                        {"from", required_argument, NULL, F_FROM},
                                        {"to", required_argument, NULL, F_TO},
                                        {"memory", required_argument, NULL, F_MEMORY},
                                        {"tmpdir", required_argument, NULL, F_TMPDIR}};
    struct option opts[sizeof all / sizeof all[0] + 1];
    int n = 0;
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        if ((all[k].val != F_OTF || v->otf) && (all[k].val != F_FROM || v->from) && (all[k].val != F_TO || v->to) &&
            ((all[k].val != F_MEMORY && all[k].val != F_TMPDIR) || v->ext))
            opts[n++] = all[k];
    opts[n] = (struct option){NULL, 0, NULL, 0};
    char prog[64];
    snprintf(prog, sizeof prog, "hayanagi book %s", v->verb);
    char **av = cli_opts_begin(prog, argc, argv);
    *status = 1;
    if (!av)
        return NULL;
    /* lookup: the position text after FILE is no option ("+": stop at the first argument) */
    const char *optstring = v->otf ? "+" : "";
    int c;
    long depth;
    *status = -1;
    while (*status < 0 && (c = getopt_long(argc, av, optstring, opts, NULL)) != -1) {
        switch (c) {
        case F_KEEP: lo->keep_comments = true; break;
        case F_NOCOMMENTS: lo->keep_comments = false; break;
        case F_SHOGIHOME: lo->shogihome_columns = true; break;
        case F_KEEPZERO: lo->keep_zero = true; break;
        case F_QUIET: lo->quiet = true; break;
        case F_OTF: *otf = true; break;
        case F_FROM:
        case F_TO: {
            const BookFormat *f = book_format_by_id(optarg);
            char ids[128];
            if (!f)
                *status = cli_opts_bad_value(prog, opts, c, optarg, book_format_ids(ids, sizeof ids));
            else
                *(c == F_FROM ? from : to) = f;
            break;
        }
        case F_UNREG:
            if (cli_opts_int(prog, opts, c, optarg, 0, 1000, &depth))
                lo->unreg_depth = (int)depth;
            else
                *status = CLI_USAGE_ERROR;
            break;
        case F_MEMORY:
            if (!parse_size(optarg, EXTSORT_MEMORY_MIN, UINT64_MAX, &lo->memory))
                *status = cli_opts_bad_value(prog, opts, c, optarg, "a size of at least 256K, e.g. 512M or 4G");
            break;
        case F_TMPDIR: lo->tmpdir = optarg; break;
        case F_HELP:
            verb_help(stdout, v);
            *status = 0;
            break;
        default: *status = cli_opts_unknown(prog); break;
        }
    }
    if (*status >= 0) {
        free(av);
        return NULL;
    }
    *first = optind;
    return av;
}

/* The entry of verb in FLAG_VERBS (one of them). */
static const FlagVerb *flag_verb(const char *verb) {
    size_t k = 0;
    while (k + 1 < sizeof FLAG_VERBS / sizeof FLAG_VERBS[0] && strcmp(FLAG_VERBS[k].verb, verb))
        k++;
    return &FLAG_VERBS[k];
}

/* The usage error of a verb whose positional arguments are wrong: its usage on stderr. */
static int positional_error(const FlagVerb *v, char **av) {
    verb_help(stderr, v);
    free(av);
    return CLI_USAGE_ERROR;
}

static void book_usage(FILE *f) {
    fprintf(f,
            "usage: hayanagi book info [--from FMT] FILE\n"
            "       hayanagi book lookup [--from FMT] [--on-the-fly] FILE (startpos | sfen <SFEN>) [moves <m>...]\n"
            "       hayanagi book sort IN OUT\n"
            "       hayanagi book check [--shogihome-columns] FILE\n"
            "       hayanagi book convert [--from FMT] [--to db|sbk] [--no-comments] [--keep-zero] IN OUT\n"
            "Book making (docs/book_making.md, docs/mcts.md):\n"
            "       hayanagi book build --from RECORDS... [--max-ply N] [--min-count K] ... OUT\n"
            "       hayanagi book merge A B ... [--weights w1,w2,...] [--policy sum|prefer-deeper|prefer-first] OUT\n"
            "       hayanagi book minimax [--converge] [--flipped] [--threads T] IN OUT\n"
            "       hayanagi book think IN OUT (--depth D | --nodes N | --movetime MS) --multipv K ...\n"
            "       hayanagi book expand IN [OUT] [--playouts P] [--top N] [--min-candidates K] [--rounds R] ...\n"
            "       hayanagi book import-losses --opponent NAME [--max-ply N] RECORDS... BOOK\n"
            "       hayanagi book learn --player PATTERN [--max-ply N] [--min-games K] [--prior G] RECORDS... OUT\n"
            "       hayanagi book grow IN OUT --records DIR --games N --opponent CMD... [options]\n"
            "       hayanagi book rival-learn (--overlay FILE | --rival-books DIR --opponent NAME) [--player P]\n"
            "                                 [--book MAIN] RECORDS...\n"
            "       hayanagi book records [--moves] [--variations] FILES...\n"
            "       hayanagi book openings --count N [--plies MIN-MAX] [--seed S] OUT\n"
            "       hayanagi book prune [--max-ply N] [--min-share PCT] [--through-legal] IN OUT\n"
            "       hayanagi book report BOOK --records FILES... [--plies-at 10,20,30] [--top N]\n"
            "FMT is db (YaneuraOu DB2016), ybb (YANE-BINBOOK-V1), apery (book.bin), sbk (ShogiGUI/ShogiHome)\n"
            "or osl (GPS Shogi's joseki.dat; --keep-zero keeps its weight-0 moves as count 0);\n"
            "every verb reads every format, recognised by its content (a file that is no book we know is\n"
            "refused). Outputs are written in the format their name says: .sbk SBK, anything else DB2016.\n"
            "Long jobs show progress on stderr. `hayanagi book VERB --help` prints a verb's options.\n");
}

/* ---- info ---- */

static int book_info(int argc, char **argv) {
    LoadOptions lo = {.unreg_depth = 1};
    const BookFormat *from = NULL;
    const FlagVerb *v = flag_verb("info");
    int i, pst;
    char **av = parse_flags(v, argc, argv, &lo, &from, NULL, NULL, &i, &pst);
    if (!av)
        return pst;
    if (i != argc - 1)
        return positional_error(v, av);
    const char *path = av[i];
    free(av);
    BookReadReport rep;
    Book *b = load_book(path, from, &lo, &rep);
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

/* ---- lookup ---- */

/* The statistics and comments a book in memory holds for the moves of pos (`book grow`'s
 * games and results, SBK's games and wins): one line each, after the table. */
static void print_move_stats(const Book *b, const Position *pos, const BookMoveList *list) {
    BookKey key;
    uint32_t id;
    book_key_from_position(pos, &key);
    if (!b || !book_find(b, &key, &id))
        return;
    BookStats s;
    if (book_get_stats(b, id, MOVE_NONE, &s) && s.comment)
        printf("position: %s\n", s.comment);
    for (int k = 0; k < list->n; k++) {
        if (!book_get_stats(b, id, list->moves[k].move, &s))
            continue;
        char mu[USI_MOVE_MAX];
        printf("%-6s", move_to_usi(list->moves[k].move, mu));
        if (s.games) /* SBK keeps them in fields; DB2016 only in the comment */
            printf(" games %u, black won %u, white won %u", s.games, s.black_wins, s.white_wins);
        printf("%s%s\n", s.comment ? (s.games ? "; " : " ") : "", s.comment ? s.comment : "");
    }
}

static int book_lookup_cmd(int argc, char **argv) {
    LoadOptions lo = {.unreg_depth = 1, .quiet = true, .keep_comments = true};
    const BookFormat *from = NULL;
    bool otf = false;
    const FlagVerb *v = flag_verb("lookup");
    int i, pst;
    char **av = parse_flags(v, argc, argv, &lo, &from, NULL, &otf, &i, &pst);
    if (!av)
        return pst;
    if (i + 1 >= argc)
        return positional_error(v, av);
    free(av); /* "+": getopt stopped at FILE and moved nothing, so argv[i] is FILE, the position follows */
    const char *path = argv[i++];
    size_t len = 1;
    for (int k = i; k < argc; k++)
        len += strlen(argv[k]) + 1;
    char *args = malloc(len);
    if (!args)
        return 1;
    args[0] = '\0';
    for (int k = i; k < argc; k++) {
        strcat(args, argv[k]);
        if (k + 1 < argc)
            strcat(args, " ");
    }
    Game g;
    game_init(&g);
    char err[512];
    if (!game_set_from_usi(&g, args, err, sizeof err)) {
        fprintf(stderr, "hayanagi book lookup: %s\n", err);
        free(args);
        game_free(&g);
        return 2;
    }
    free(args);
    const BookFormat *fmt = from ? from : book_format_detect(path, err, sizeof err);
    BookReadOptions ro = read_options(&lo);
    BookReadReport rep;
    /* SBK and Apery are looked up on disk, DB2016 with --on-the-fly. */
    BookProber *prober =
        fmt ? book_prober_open(path, fmt, otf || book_format_is(fmt, "sbk"), &ro, &rep, err, sizeof err) : NULL;
    if (!prober) {
        fprintf(stderr, "hayanagi book lookup: %s\n", err);
        game_free(&g);
        return 1;
    }
    if (otf && !book_prober_on_disk(prober) && rep.note[0]) { /* on the fly failed: say why, no fallback */
        fprintf(stderr, "hayanagi book lookup: %s: %s\n", path, rep.note);
        book_prober_close(prober);
        game_free(&g);
        return 1;
    }
    if (rep.note[0])
        fprintf(stderr, "%s\n", rep.note);
    BookSource src = book_prober_source(prober);
    char diagram[1024];
    printf("%s", position_to_diagram(&g.pos, diagram));
    BookSelectOptions so;
    book_select_defaults(&so);
    BookMoveList *raw = malloc(sizeof *raw), *list = malloc(sizeof *list);
    int status = 0;
    bool flipped = false;
    int rc = raw && list ? src.probe(src.ctx, &g.pos, raw, err, sizeof err) : -1;
    if (rc == 0 && raw) {
        rc = book_probe(&src, &g.pos, &so, list, &flipped, err, sizeof err);
        if (rc > 0) {
            *raw = *list;
        }
    }
    if (rc < 0) {
        fprintf(stderr, "hayanagi book lookup: %s\n", raw && list ? err : "out of memory");
        status = 1;
    } else if (rc == 0) {
        printf("not in the book\n");
        status = 3;
    } else {
        book_sort_moves(raw->moves, raw->n);
        uint64_t total = 0;
        for (int k = 0; k < raw->n; k++)
            total += raw->moves[k].count;
        printf("book entry: %d move(s)%s, ply %d\n", raw->n, flipped ? " (found as the flipped position)" : "",
               raw->ply);
        printf("  #  move   ponder  score  depth      count      %%  legal  pv\n");
        for (int k = 0; k < raw->n; k++) {
            const BookMove *m = &raw->moves[k];
            char mu[USI_MOVE_MAX], pu[USI_MOVE_MAX], score[16], depth[16];
            snprintf(score, sizeof score, m->has_score ? "%d" : "none", m->score);
            snprintf(depth, sizeof depth, m->has_depth ? "%d" : "none", m->depth);
            Move legal = position_legal_move_from16(&g.pos, m->move);
            Move pv[MAX_PLY];
            char pvtext[MAX_PLY * 7] = "";
            int npv = legal ? book_build_pv(&src, &g.pos, &so, legal, so.pv_moves, pv) : 0;
            for (int j = 1; j < npv; j++) {
                char u[USI_MOVE_MAX];
                strcat(pvtext, move_to_usi(pv[j], u));
                strcat(pvtext, " ");
            }
            printf("%3d  %-6s %-6s %6s %6s %10llu %6.2f  %-5s  %s\n", k + 1, move_to_usi(m->move, mu),
                   move_to_usi(m->ponder, pu), score, depth, (unsigned long long)m->count,
                   total ? 100.0 * (double)m->count / (double)total : 0.0, legal ? "yes" : "NO", pvtext);
        }
        if (!flipped && book_prober_memory(prober))
            print_move_stats(book_prober_memory(prober), &g.pos, raw);
        else if (!flipped && book_format_is(fmt, "sbk")) { /* probed on disk: read it for the statistics */
            Book *mem = book_open_read(path, fmt, &ro, NULL, err, sizeof err);
            print_move_stats(mem, &g.pos, raw);
            book_free(mem);
        }
        BookChoice ch;
        uint64_t rng = 1;
        char reason[256];
        BookSelectResult r = book_select(&src, &g.pos, &so, &rng, &ch, reason, sizeof reason);
        if (r == BOOK_SELECT_HIT) {
            char mu[USI_MOVE_MAX], pu[USI_MOVE_MAX];
            printf("engine would play %s (ponder %s) with the default options, %d candidate(s) after filters\n",
                   move_to_usi(ch.move, mu), move_to_usi(ch.ponder, pu), ch.candidates);
        } else {
            printf("engine would not play from the book with the default options: %s\n", reason);
        }
    }
    free(raw);
    free(list);
    book_prober_close(prober);
    game_free(&g);
    return status;
}

/* ---- sort, convert, check ---- */

/* sort --memory: book_extsort_db2016(), with what the in-memory sort prints. */
static int sort_external(const char *in, const char *out, const LoadOptions *lo) {
    ErrorPrinter ep = {"warning: ", 0};
    Progress pr;
    pr.out = stderr;
    pr.quiet = lo->quiet;
    ExtSortOptions eo = {.memory = lo->memory,
                         .tmpdir = lo->tmpdir,
                         .keep_comments = lo->keep_comments,
                         .shogihome_columns = lo->shogihome_columns,
                         .on_error = print_error,
                         .ctx = &ep,
                         .progress = &pr};
    ExtSortStats st;
    char err[512];
    if (!book_extsort_db2016(in, out, &eo, &st, err, sizeof err)) {
        fprintf(stderr, "hayanagi book: %s (%s is untouched)\n", err, out);
        return 1;
    }
    if (st.has_stats)
        printf("Unsupported: game and win totals and evaluation marks are not kept in DB2016 (move counts are%s)\n",
               lo->keep_comments ? ", comments as # lines" : "");
    printf("wrote %s: %llu positions, %llu moves\n", out, (unsigned long long)st.positions,
           (unsigned long long)st.moves);
    if (!lo->quiet)
        fprintf(stderr, "sorted in %llu run(s) of at most %llu bytes\n", (unsigned long long)st.runs,
                (unsigned long long)lo->memory);
    return 0;
}

static int book_convert(int argc, char **argv, bool sort_only) {
    LoadOptions lo = {.keep_comments = true, .unreg_depth = 1};
    const BookFormat *from = NULL, *to = NULL;
    const FlagVerb *v = flag_verb(sort_only ? "sort" : "convert");
    int i, pst;
    char **av = parse_flags(v, argc, argv, &lo, &from, &to, NULL, &i, &pst);
    if (!av)
        return pst;
    if (i != argc - 2)
        return positional_error(v, av);
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
    BookReadReport rep;
    Book *b = load_book(in, from, &lo, &rep);
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
    bool ok = book_write(out, to, b, &wo, &wr, err, sizeof err);
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
    if (!ok)
        fprintf(stderr, "hayanagi book: %s (%s is untouched)\n", err, out);
    else
        fprintf(cli_say_wrote(out, &wr), "\n");
    book_free(b);
    return ok ? 0 : 1;
}

/* `book check` of a book that is not DB2016 text (SBK, YBB, Apery, OSL): the format's reader
 * reports what it skipped or could not place (its warnings on stderr: SBK's bad edges,
 * moves and states not reached, ...), and every move of every position read is checked for
 * legality here. */
static int check_other(const char *path, const BookFormat *fmt, const LoadOptions *lo) {
    BookReadReport rep;
    LoadOptions quiet = *lo;
    quiet.quiet = true;
    Book *b = load_book(path, fmt, &quiet, &rep);
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

static int book_check(int argc, char **argv) {
    LoadOptions lo = {0};
    const FlagVerb *v = flag_verb("check");
    int i, pst;
    char **av = parse_flags(v, argc, argv, &lo, NULL, NULL, NULL, &i, &pst);
    if (!av)
        return pst;
    if (i != argc - 1)
        return positional_error(v, av);
    const char *path = av[i];
    free(av);
    char derr[512];
    const BookFormat *fmt = book_format_detect(path, derr, sizeof derr);
    if (fmt && !book_format_is(fmt, "db")) /* DB2016 goes on below, line by line */
        return check_other(path, fmt, &lo);
    Book *b = book_create();
    if (!b)
        return 1;
    ErrorPrinter ep = {"", 0};
    Db2016ReadOptions ro = {
        .check_legality = true, .shogihome_columns = lo.shogihome_columns, .on_error = print_error, .ctx = &ep};
    Db2016Stats st;
    char err[512];
    bool ok = db2016_read_file(path, b, &ro, &st, err, sizeof err);
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

/* ---- gen-synthetic (hidden, for the benchmarks) ---- */

static int book_gen_synthetic(int argc, char **argv) {
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
    char err[512];
    BookWriteReport wr;
    if (ok)
        ok = write_db_atomic(out, b, false, false, &wr, err, sizeof err);
    else
        snprintf(err, sizeof err, "out of memory");
    if (!ok)
        fprintf(stderr, "hayanagi book gen-synthetic: %s\n", err);
    else
        fprintf(cli_say_wrote(out, &wr), "\n");
    book_free(b);
    return ok ? 0 : 1;
}

int cmd_book(int argc, char **argv) {
    shogi_init();
    if (argc < 1 || !strcmp(argv[0], "help") || !strcmp(argv[0], "--help")) {
        book_usage(argc < 1 ? stderr : stdout);
        return argc < 1 ? 2 : 0;
    }
    const char *verb = argv[0];
    if (!strcmp(verb, "info"))
        return book_info(argc, argv);
    if (!strcmp(verb, "lookup"))
        return book_lookup_cmd(argc, argv);
    if (!strcmp(verb, "sort"))
        return book_convert(argc, argv, true);
    if (!strcmp(verb, "convert"))
        return book_convert(argc, argv, false);
    if (!strcmp(verb, "check"))
        return book_check(argc, argv);
    if (!strcmp(verb, "gen-synthetic"))
        return book_gen_synthetic(argc, argv);
    int made = cmd_book_make(argc, argv); /* the book-making verbs */
    if (made >= 0)
        return made;
    fprintf(stderr, "hayanagi book: unknown verb '%s'\n", verb);
    book_usage(stderr);
    return 2;
}
