/* usi.c - the USI engine: command loop, options, the search thread and the single
 * output writer (every line goes through usi_write under one lock, so the search
 * thread and the command loop never interleave). */
#include "usi/usi.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eval/eval.h"
#include "eval/nnue.h"
#include "search/search.h"
#include "shogi/game.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"
#include "shogi/perft.h"
#include "book/overlay.h"
#include "usi/info_text.h"
#include "usi/bench.h"
#include "usi/engine_book.h"
#include "usi/options.h"
#include "usi/usi_mcts.h"
#include "util/parse.h"
#include "usi/version.h"

enum { LINE_MAX_LEN = 1 << 16 };

typedef struct {
    FILE *out;
    pthread_mutex_t out_lock;
    Game game;
    Search *search;
    OptionTable options;
    atomic_bool suppress_bestmove; /* gameover/quit during a search: no bestmove wanted */
    bool ponder_enabled;           /* USI_Ponder, copied at go */
    EngineBook *book;
    bool unbounded;          /* the last go was infinite, ponder or mate infinite: it ends on stop only */
    uint64_t book_rng;       /* BookSeed, or the clock when it is 0 */
    MctsSearch *mcts;        /* UseMCTS: go searches with it */
    int64_t pending_hash_mb; /* Hash set during a search: resized when it has ended (0 = none) */
    UsiMctsProviders mcts_providers;
    bool book_pending;  /* go ponder found a book move: it is the bestmove at ponderhit or stop */
    BookChoice pending; /* that move (valid while book_pending) */
} UsiEngine;

/* Both searchers answer stop, ponderhit and wait; only the one that runs reacts. */
static void engine_stop(UsiEngine *e) {
    search_stop(e->search);
    mcts_stop(e->mcts);
}
static void engine_wait(UsiEngine *e) {
    search_wait(e->search);
    mcts_wait(e->mcts);
}
/* Applies a Hash value set while a search ran, once no search runs. */
static void apply_pending_hash(UsiEngine *e);

static void engine_ponderhit(UsiEngine *e) {
    search_ponderhit(e->search);
    mcts_ponderhit(e->mcts);
}

static void usi_write(UsiEngine *e, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&e->out_lock);
    vfprintf(e->out, fmt, ap);
    fputc('\n', e->out);
    fflush(e->out);
    pthread_mutex_unlock(&e->out_lock);
    va_end(ap);
}

/* Every searcher report reaches the GUI through the one formatter (usi/info_text.h). */
static void on_info(void *ctx, const SearchInfo *info) {
    char line[USI_INFO_TEXT_MAX];
    usi_write(ctx, "%s", usi_info_text(info, line, sizeof line));
}

/* The one bestmove writer (searches and book hits): a ponder move only when USI_Ponder
 * was on at `go` (the copy in ponder_enabled) and both moves are real moves. */
static void write_bestmove(UsiEngine *e, Move best, Move ponder) {
    char b[USI_MOVE_MAX], p[USI_MOVE_MAX];
    move_to_usi(best, b);
    if (e->ponder_enabled && ponder && move_is_ok(best) && move_is_ok(ponder))
        usi_write(e, "bestmove %s ponder %s", b, move_to_usi(ponder, p));
    else
        usi_write(e, "bestmove %s", b);
}

static void on_bestmove(void *ctx, Move best, Move ponder) {
    UsiEngine *e = ctx;
    if (atomic_load(&e->suppress_bestmove))
        return;
    write_bestmove(e, best, ponder);
}

static void search_options_from(UsiEngine *e, SearchOptions *o) {
    search_options_default(o);
    OptionTable *t = &e->options;
    o->multipv = (int)options_int(t, OPTION_MultiPV);
    o->threads = (int)options_int(t, OPTION_Threads);
    o->max_moves_to_draw = (int)options_int(t, OPTION_MaxMovesToDraw);
    o->resign_value = (int)options_int(t, OPTION_ResignValue);
    o->time.minimum_thinking_ms = (int)options_int(t, OPTION_MinimumThinkingTime);
    o->time.network_delay_ms = (int)options_int(t, OPTION_NetworkDelay);
    o->time.network_delay2_ms = (int)options_int(t, OPTION_NetworkDelay2);
    o->time.slow_mover = (int)options_int(t, OPTION_SlowMover);
    EnteringKingRule r;
    if (entering_king_rule_parse(options_string(t, OPTION_EnteringKingRule), &r))
        o->entering_king_rule = r;
}

/* Parses a non-negative integer token (digits only, util/parse.h) clamped to 10^12, also
 * when it has more digits than 64 bits hold; false for anything else. */
static bool parse_count(const char *tok, int64_t *out) {
    uint64_t v;
    if (!parse_unsigned(tok, &v)) {
        if (!tok || !tok[0] || tok[strspn(tok, "0123456789")])
            return false;
        v = UINT64_MAX; /* only digits, too many of them */
    }
    *out = v > 1000000000000ULL ? 1000000000000LL : (int64_t)v;
    return true;
}

static void on_checkmate(void *ctx, const Move *pv, int len, int status) {
    UsiEngine *e = ctx;
    if (atomic_load(&e->suppress_bestmove))
        return;
    if (status == 1) {
        usi_write(e, "checkmate nomate");
    } else if (status == 2) {
        usi_write(e, "checkmate timeout");
    } else {
        char line[4096], *p = line;
        p += sprintf(p, "checkmate");
        for (int i = 0; i < len && p - line < (long)sizeof line - 16; i++) {
            char buf[USI_MOVE_MAX];
            p += sprintf(p, " %s", move_to_usi(pv[i], buf));
        }
        usi_write(e, "%s", line);
    }
}

static void book_options_from(UsiEngine *e, BookSelectOptions *b) {
    OptionTable *t = &e->options;
    book_select_defaults(b);
    b->book_moves = (int)options_int(t, OPTION_BookMoves);
    b->ignore_rate = (int)options_int(t, OPTION_BookIgnoreRate);
    b->eval_diff = (int)options_int(t, OPTION_BookEvalDiff);
    b->eval_black_limit = (int)options_int(t, OPTION_BookEvalBlackLimit);
    b->eval_white_limit = (int)options_int(t, OPTION_BookEvalWhiteLimit);
    b->depth_limit = (int)options_int(t, OPTION_BookDepthLimit);
    b->consider_count = options_bool(t, OPTION_ConsiderBookMoveCount);
    b->pv_moves = (int)options_int(t, OPTION_BookPvMoves);
    b->ignore_book_ply = options_bool(t, OPTION_IgnoreBookPly);
    b->flipped_book = options_bool(t, OPTION_FlippedBook);
    b->narrow_book = options_bool(t, OPTION_NarrowBook);
}

/* Reports what the book loader has to say (at isready, or later when it finished in
 * the background). */
static void flush_book_message(UsiEngine *e) {
    char msg[5000];
    if (engine_book_take_message(e->book, msg, sizeof msg))
        usi_write(e, "info string %s", msg);
}

/* isready: (re)load the book named by the options, waiting a few seconds at most so that
 * a huge book cannot make the GUI give up; the rest of the load goes on behind. */
static void cmd_isready(UsiEngine *e) {
    char path[8400];
    OptionTable *t = &e->options;
    if (mcts_is_running(e->mcts)) {
        usi_write(e, "readyok"); /* the MCTS search reads the book and the net: no reload now */
        return;
    }
    if ((options_bool(t, OPTION_USI_OwnBook) || options_bool(t, OPTION_Use_Book_Policy)) &&
        engine_book_resolve(options_string(t, OPTION_BookDir), options_string(t, OPTION_BookFile), path, sizeof path))
        engine_book_request(e->book, path, options_bool(t, OPTION_BookOnTheFly));
    else
        engine_book_request(e->book, NULL, false);
    if (!engine_book_wait(e->book, 5000))
        usi_write(e, "info string book still loading; it will be used once ready");
    flush_book_message(e);
    char nnue_msg[9000];
    /* The net is swapped only while no search runs (a ponder may be under way). */
    if (!search_is_running(e->search)) {
        apply_pending_hash(e);
        search_clear(e->search); /* the hash is cleared before the game, not at usinewgame */
        nnue_load_and_select(options_string(t, OPTION_EvalDir), options_string(t, OPTION_EvalFile),
                             (int)options_int(t, OPTION_FV_SCALE), nnue_msg, sizeof nnue_msg);
        usi_write(e, "info string %s", nnue_msg);
    }
    usi_write(e, "readyok");
}

/* The opponent overlay (docs/usi.md, "Rival overlays"): DIR/<name>.db or .sbk by
 * book/overlay.h's rule when RivalBookDir and USI_Opponent are both set, else none. Read
 * again on every call, so an overlay learned between games is used in the next. Says
 * what it did in an info string when both options are set. */
static void choose_overlay(UsiEngine *e) {
    const char *dir = options_string(&e->options, OPTION_RivalBookDir);
    char name[OPTION_VALUE_MAX], path[8400], msg[9000];
    if (!dir[0] || !engine_book_opponent_name(options_string(&e->options, OPTION_USI_Opponent), name, sizeof name)) {
        engine_book_set_overlay(e->book, NULL, msg, sizeof msg);
        return;
    }
    switch (book_overlay_find(dir, name, path, sizeof path)) {
    case BOOK_OVERLAY_FOUND:
        engine_book_set_overlay(e->book, path, msg, sizeof msg);
        usi_write(e, "info string %s", msg);
        break;
    case BOOK_OVERLAY_ABSENT:
        engine_book_set_overlay(e->book, NULL, msg, sizeof msg);
        /* the path, not the name: the name is the server's text, the path is escaped */
        usi_write(e, "info string rival overlay none: no %s (nor .sbk)", path);
        break;
    case BOOK_OVERLAY_BAD_NAME:
        engine_book_set_overlay(e->book, NULL, msg, sizeof msg);
        usi_write(e, "info string rival overlay none: the opponent name is too long for a file name");
        break;
    }
}

/* The book's answer for the position: its info lines, then bestmove. */
static void write_book_answer(UsiEngine *e, const BookChoice *c) {
    char m[USI_MOVE_MAX];
    usi_write(e, "info string %s hit %s score %d depth %d count %llu", c->from_overlay ? "rival overlay" : "book",
              move_to_usi(c->move, m), c->entry.score, c->entry.depth, (unsigned long long)c->entry.count);
    /* The closing info line every bestmove gets, through the one formatter: nothing was
     * searched, the book's move (and its reply, when the book has one) is the PV. */
    Move pv[2] = {c->move, c->ponder};
    SearchInfo in = search_info_empty();
    in.seldepth = 0;
    in.score_kind = INFO_SCORE_CP;
    in.score = c->entry.score;
    in.nps = in.time_ms = 0;
    in.hashfull = 0;
    in.pv = pv;
    in.pv_length = c->ponder ? 2 : 1;
    on_info(e, &in);
    write_bestmove(e, c->move, c->ponder);
}

/* Answers from the book when it can. A plain go gets the book's bestmove at once (true).
 * A go ponder on a book position holds the book's move (true, nothing written): USI wants
 * no bestmove before ponderhit or stop, and at ponderhit the book move is the answer, as
 * it would have been had the opponent's move come with a plain go (answer_pending_book()).
 * False: search. */
static bool try_book(UsiEngine *e, const SearchLimits *lim) {
    if (!options_bool(&e->options, OPTION_USI_OwnBook) || lim->infinite || lim->mate || lim->searchmoves_count)
        return false;
    flush_book_message(e);
    BookSelectOptions bo;
    book_options_from(e, &bo);
    BookChoice c;
    char reason[256];
    if (engine_book_select(e->book, &e->game.pos, &bo, &e->book_rng, &c, reason, sizeof reason) != BOOK_SELECT_HIT)
        return false;
    if (lim->ponder) {
        e->pending = c;
        e->book_pending = true;
        return true;
    }
    write_book_answer(e, &c);
    return true;
}

/* The bestmove a go ponder answered from the book owes (at ponderhit, stop, or a new go
 * or quit without either); nothing when suppress is set (gameover: no bestmove is owed). */
static void answer_pending_book(UsiEngine *e, bool suppress) {
    if (!e->book_pending)
        return;
    e->book_pending = false;
    if (!suppress)
        write_book_answer(e, &e->pending);
}

enum { GO_TOKENS_MAX = 1024 };

static bool is_go_keyword(const char *t) {
    static const char *const KEYWORDS[] = {"ponder", "infinite",  "btime",       "wtime", "binc",
                                           "winc",   "byoyomi",   "movetime",    "depth", "nodes",
                                           "mate",   "movestogo", "searchmoves", NULL};
    for (int i = 0; KEYWORDS[i]; i++)
        if (strcmp(t, KEYWORDS[i]) == 0)
            return true;
    return false;
}

/* Reads the number after field tok[*i]. A missing, malformed or negative value is named
 * in an info string and gives least (the field's least value: 0 ms of time, one ply, one
 * node), so that every go still gets its answer; a value that is really the next keyword
 * is left for it. */
static int64_t go_value(UsiEngine *e, char **tok, int n, int *i, int64_t least, const char *meaning) {
    const char *field = tok[*i];
    int64_t v;
    if (*i + 1 < n && parse_count(tok[*i + 1], &v)) {
        ++*i;
        return v;
    }
    if (*i + 1 < n && !is_go_keyword(tok[*i + 1])) {
        ++*i;
        usi_write(e, "info string go: %s: '%.32s' is not a non-negative number; using %s", field, tok[*i], meaning);
    } else {
        usi_write(e, "info string go: %s needs a number; using %s", field, meaning);
    }
    return least;
}

/* Parses go's fields into lim. Never refuses: a bad field is reported and replaced by
 * its least value, zero time is the least time and only infinite, ponder and mate
 * infinite wait for stop. */
static void parse_go(UsiEngine *e, char *args, SearchLimits *lim) {
    char *tok[GO_TOKENS_MAX], *save = NULL;
    int n = 0;
    for (char *t = strtok_r(args, " \t", &save); t && n < GO_TOKENS_MAX; t = strtok_r(NULL, " \t", &save))
        tok[n++] = t;
    for (int i = 0; i < n; i++) {
        const char *t = tok[i];
        int64_t *slot = NULL;
        if (strcmp(t, "ponder") == 0)
            lim->ponder = true;
        else if (strcmp(t, "infinite") == 0)
            lim->infinite = true;
        else if (strcmp(t, "btime") == 0)
            slot = &lim->time[BLACK];
        else if (strcmp(t, "wtime") == 0)
            slot = &lim->time[WHITE];
        else if (strcmp(t, "binc") == 0)
            slot = &lim->inc[BLACK];
        else if (strcmp(t, "winc") == 0)
            slot = &lim->inc[WHITE];
        else if (strcmp(t, "byoyomi") == 0)
            slot = &lim->byoyomi;
        else if (strcmp(t, "movetime") == 0)
            slot = &lim->movetime;
        else if (strcmp(t, "movestogo") == 0)
            (void)go_value(e, tok, n, &i, 0, "nothing (ignored)");
        else if (strcmp(t, "depth") == 0) {
            int64_t v = go_value(e, tok, n, &i, 1, "depth 1");
            lim->depth = v < 1 ? 1 : v > MAX_PLY - 1 ? MAX_PLY - 1 : (int)v; /* depth 0: the least search */
        } else if (strcmp(t, "nodes") == 0) {
            int64_t v = go_value(e, tok, n, &i, 1, "1 node");
            lim->nodes = v < 1 ? 1 : (uint64_t)v; /* nodes 0: the least search */
        } else if (strcmp(t, "mate") == 0) {
            lim->mate = true;
            if (i + 1 < n && strcmp(tok[i + 1], "infinite") == 0) {
                i++;
                lim->mate_ms = 0; /* until stop */
            } else {
                int64_t v = go_value(e, tok, n, &i, 1, "1 ms");
                lim->mate_ms = v < 1 ? 1 : v; /* mate 0: the least time, not infinite */
            }
        } else if (strcmp(t, "searchmoves") == 0) {
            for (; i + 1 < n && !is_go_keyword(tok[i + 1]); i++) {
                Move mv = position_parse_usi_move(&e->game.pos, tok[i + 1]);
                if (mv && lim->searchmoves_count < MAX_MOVES)
                    lim->searchmoves[lim->searchmoves_count++] = (Move16)mv;
                else
                    usi_write(e, "info string go: searchmoves: '%.32s' is not a legal move here", tok[i + 1]);
            }
        } else {
            usi_write(e, "info string go: unknown token '%.32s' ignored", t);
        }
        if (slot) {
            lim->timed = true;
            *slot = go_value(e, tok, n, &i, 0, "0 ms (the least time)");
        }
    }
}

/* When the book has no move to play here but the opponent's overlay demotes some (moves
 * that lost to this opponent, bookgen/rival.h), the search looks at the other legal moves
 * only: without this the search finds the demoted move again and the same line is walked
 * into twice. Nothing changes when the GUI gave searchmoves, or every legal move is
 * demoted. */
static void keep_search_off_demoted(UsiEngine *e, SearchLimits *lim) {
    if (!options_bool(&e->options, OPTION_USI_OwnBook) || lim->searchmoves_count || lim->mate)
        return;
    BookSelectOptions bo;
    book_options_from(e, &bo);
    Move16 demoted[MAX_MOVES];
    int nd = engine_book_demoted(e->book, &e->game.pos, &bo, demoted, MAX_MOVES);
    if (nd == 0)
        return;
    ExtMove legal[MAX_MOVES];
    int n = generate_moves(&e->game.pos, GEN_LEGAL, legal), k = 0;
    for (int i = 0; i < n; i++) {
        Move16 m = move_to_move16(legal[i].move);
        bool out = false;
        for (int j = 0; j < nd && !out; j++)
            out = demoted[j] == m;
        if (!out)
            lim->searchmoves[k++] = m;
    }
    if (k == 0 || k == n)
        return;
    lim->searchmoves_count = k;
    char mv[USI_MOVE_MAX];
    usi_write(e, "info string rival overlay: %d demoted move(s) left out of the search (first %s)", nd,
              move_to_usi(position_legal_move_from16(&e->game.pos, demoted[0]), mv));
}

static void cmd_go(UsiEngine *e, char *args) {
    SearchLimits lim;
    memset(&lim, 0, sizeof lim);
    lim.received_ms = search_now_ms();
    parse_go(e, args, &lim);
    answer_pending_book(e, false);
    engine_stop(e);
    engine_wait(e);
    apply_pending_hash(e);
    e->unbounded = lim.infinite || lim.ponder || (lim.mate && lim.mate_ms == 0);
    e->ponder_enabled = options_bool(&e->options, OPTION_USI_Ponder); /* the copy the bestmove writer reads */
    if (try_book(e, &lim))
        return;
    keep_search_off_demoted(e, &lim);
    SearchOptions opt;
    search_options_from(e, &opt);
    atomic_store(&e->suppress_bestmove, false);
    SearchReporter rep = {on_info, on_bestmove, on_checkmate, e};
    if (options_bool(&e->options, OPTION_UseMCTS) && !lim.mate) {
        MctsOptions mo;
        MctsProvider p = usi_mcts_setup(&e->options, &opt, engine_book_memory(e->book), &mo, &e->mcts_providers);
        mcts_go(e->mcts, &e->game, &lim, &mo, p, &rep);
        return;
    }
    search_go(e->search, &e->game, &lim, &opt, &rep);
}

static void write_divide_line(void *ctx, Move m, uint64_t nodes) {
    char buf[USI_MOVE_MAX];
    usi_write(ctx, "%s: %llu", move_to_usi(m, buf), (unsigned long long)nodes);
}

static void cmd_perft(UsiEngine *e, const char *args) {
    int depth = 0;
    char mode[16] = "";
    if (sscanf(args, "%d %15s", &depth, mode) < 1 || depth < 1 || depth > 12) {
        usi_write(e, "info string perft: expected 'perft <depth 1-12> [divide]'");
        return;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint64_t total = 0;
    Position *pos = &e->game.pos;
    if (strcmp(mode, "divide") == 0) {
        total = perft_divide(pos, depth, false, write_divide_line, e).nodes;
    } else {
        total = perft_run(pos, depth, false).nodes;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (t1.tv_sec - t0.tv_sec) * 1000.0 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
    usi_write(e, "nodes %llu time %.0f nps %.0f", (unsigned long long)total, ms, ms > 0 ? total * 1000.0 / ms : 0.0);
}

static void cmd_setoption(UsiEngine *e, const char *args) {
    char err[256];
    Option *o = options_set_from_usi(&e->options, args, err, sizeof err);
    if (!o) {
        usi_write(e, "info string %s", err);
        return;
    }
    if (o->id == OPTION_BookSeed && options_int(&e->options, OPTION_BookSeed) != 0)
        e->book_rng = (uint64_t)options_int(&e->options, OPTION_BookSeed);
    if (o->id == OPTION_RivalBookDir || o->id == OPTION_USI_Opponent)
        choose_overlay(e);
    if (o->id == OPTION_USI_Hash || o->id == OPTION_Hash) {
        /* Both names set one table. A running search is never cut short for it (its GUI
         * waits for the bestmove of its go): the table is resized once it has ended. */
        Option *twin = options_get(&e->options, o->id == OPTION_USI_Hash ? OPTION_Hash : OPTION_USI_Hash);
        memcpy(twin->value, o->value, sizeof twin->value);
        e->pending_hash_mb = options_int(&e->options, OPTION_Hash);
        if (search_is_running(e->search))
            usi_write(e, "info string hash: %s MB once the running search has ended", o->value);
        else
            apply_pending_hash(e);
    }
}

static void apply_pending_hash(UsiEngine *e) {
    if (!e->pending_hash_mb || search_is_running(e->search))
        return;
    if (!search_set_hash(e->search, (size_t)e->pending_hash_mb))
        usi_write(e, "info string hash: cannot allocate %lld MB, keeping the old table", (long long)e->pending_hash_mb);
    e->pending_hash_mb = 0;
}

static void bench_write(void *ctx, const char *line) { usi_write(ctx, "%s", line); }

/* eval: the active evaluation of the current position from the side to move's view.
 * With an NNUE net: "nnue <N>", the static value at FV_SCALE as YaneuraOu's `e` prints
 * it (eval = N); otherwise the embedded evaluation with its terms. */
static void cmd_eval(UsiEngine *e) {
    const NnueNet *net = nnue_current();
    const Position *pos = &e->game.pos;
    if (net && eval_current() == &eval_nnue && pos->king_sq[BLACK] != SQ_NONE && pos->king_sq[WHITE] != SQ_NONE) {
        int fv = nnue_current_fv_scale();
        usi_write(e, "info string eval nnue %d (FV_SCALE %d)", (int)nnue_evaluate_full(net, pos, fv), fv);
        return;
    }
    char buf[1024];
    eval_classic_explain(pos, buf, sizeof buf);
    usi_write(e, "info string eval %s", buf);
}

int usi_main(FILE *in, FILE *out) {
    UsiEngine *e = calloc(1, sizeof *e);
    char *line = malloc(LINE_MAX_LEN);
    if (!e || !line) {
        free(e);
        free(line);
        fprintf(stderr, "hayanagi: out of memory\n");
        return 1;
    }
    e->out = out;
    pthread_mutex_init(&e->out_lock, NULL);
    game_init(&e->game);
    options_init(&e->options);
    e->search = search_create((size_t)options_int(&e->options, OPTION_Hash));
    e->book = engine_book_create();
    e->mcts = mcts_create();
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    e->book_rng = (uint64_t)now.tv_nsec * 6364136223846793005ull + (uint64_t)now.tv_sec;
    if (!e->search || !e->book || !e->mcts) {
        fprintf(stderr, "hayanagi: cannot allocate the hash table\n");
        mcts_destroy(e->mcts);
        search_destroy(e->search);
        engine_book_destroy(e->book);
        game_free(&e->game);
        free(line);
        free(e);
        return 1;
    }

    while (fgets(line, LINE_MAX_LEN, in)) {
        size_t len = strlen(line);
        if (len == LINE_MAX_LEN - 1 && line[len - 1] != '\n') {
            int ch;
            while ((ch = fgetc(in)) != EOF && ch != '\n') {
            }
            usi_write(e, "info string command longer than %d bytes ignored", LINE_MAX_LEN - 2);
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
            pthread_mutex_lock(&e->out_lock);
            fprintf(out, "id name Hayanagi %s\nid author the Hayanagi developers\n", HAYANAGI_VERSION);
            options_print(&e->options, out);
            fprintf(out, "usiok\n");
            fflush(out);
            pthread_mutex_unlock(&e->out_lock);
        } else if (strcmp(cmd, "isready") == 0) {
            cmd_isready(e);
        } else if (strcmp(cmd, "setoption") == 0) {
            cmd_setoption(e, args);
        } else if (strcmp(cmd, "usinewgame") == 0) {
            search_clear(e->search);
            mcts_clear(e->mcts);
            choose_overlay(e);
        } else if (strcmp(cmd, "position") == 0) {
            char err[256];
            if (!game_set_from_usi(&e->game, args, err, sizeof err))
                usi_write(e, "info string %s", err);
        } else if (strcmp(cmd, "go") == 0) {
            cmd_go(e, args);
        } else if (strcmp(cmd, "stop") == 0) {
            answer_pending_book(e, false);
            engine_stop(e);
        } else if (strcmp(cmd, "ponderhit") == 0) {
            answer_pending_book(e, false);
            engine_ponderhit(e);
        } else if (strcmp(cmd, "gameover") == 0) {
            answer_pending_book(e, true);
            atomic_store(&e->suppress_bestmove, true);
            engine_stop(e);
            engine_wait(e);
            apply_pending_hash(e);
            search_clear(e->search); /* now, not at usinewgame, where the next clock may run */
        } else if (strcmp(cmd, "quit") == 0) {
            answer_pending_book(e, false);
            engine_stop(e);
            break;
        } else if (strcmp(cmd, "perft") == 0) {
            engine_stop(e);
            engine_wait(e);
            cmd_perft(e, args);
        } else if (strcmp(cmd, "bench") == 0) {
            engine_stop(e);
            engine_wait(e);
            SearchOptions opt;
            search_options_from(e, &opt);
            char err[128];
            if (!usi_bench(e->search, &opt, args, &e->game, bench_write, e, err, sizeof err))
                usi_write(e, "info string bench: %s", err);
        } else if (strcmp(cmd, "d") == 0) {
            char buf[1024];
            position_to_diagram(&e->game.pos, buf);
            buf[strcspn(buf, "\0")] = '\0';
            size_t n = strlen(buf);
            if (n && buf[n - 1] == '\n')
                buf[n - 1] = '\0';
            usi_write(e, "%s", buf);
        } else if (strcmp(cmd, "sfen") == 0) {
            char buf[SFEN_MAX];
            usi_write(e, "sfen %s", position_to_sfen(&e->game.pos, buf, true));
        } else if (strcmp(cmd, "eval") == 0) {
            cmd_eval(e);
        } else {
            usi_write(e, "info string unknown command '%.64s'", cmd);
        }
    }
    /* quit stops a running search (which still gives its answer). At the end of input a
     * bounded search is allowed to finish, so `echo "go depth 8" | hayanagi` works. */
    answer_pending_book(e, false);
    if (e->unbounded)
        engine_stop(e);
    engine_wait(e);
    mcts_destroy(e->mcts);
    search_destroy(e->search);
    engine_book_destroy(e->book);
    free(line);
    game_free(&e->game);
    pthread_mutex_destroy(&e->out_lock);
    free(e);
    return 0;
}
