/* lookup.c - `hayanagi book lookup`: the book's moves at a position and the move the engine
 * would play. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int book_verb_lookup(int argc, char **argv) {
    LoadOptions lo = {.unreg_depth = 1, .quiet = true, .keep_comments = true};
    const BookFormat *from = NULL;
    bool otf = false;
    const FlagVerb *v = cli_flag_verb("lookup");
    int i, pst;
    char **av = cli_parse_flags(v, argc, argv, &lo, &from, NULL, &otf, &i, &pst);
    if (!av)
        return pst;
    if (i + 1 >= argc)
        return cli_positional_error(v, av);
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
    BookReadOptions ro = cli_book_read_options(&lo);
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
