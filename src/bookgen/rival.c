/* rival.c - see rival.h. */
#include "bookgen/rival.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "book/open.h"
#include "book/select.h"
#include "bookgen/make.h"
#include "shogi/notation.h"

struct RivalLearn {
    RivalLearnOptions o;
    const BookFormat *out_format;
    Book *overlay;
    BookProber *main; /* NULL: no main book */
    BookSelectOptions probe_opt;
    RivalLearnReport rep;
    StateInfo *st;
    size_t cap;
    BookMoveList *list, *found; /* scratch: a position's candidates, the last qualifying one's */
};

RivalLearn *rival_learn_open(const RivalLearnOptions *o, char *err, size_t err_len) {
    bool player = o->player && o->player[0], opponent = o->opponent && o->opponent[0];
    if (!o->overlay || !o->overlay[0] || (!player && !opponent)) {
        snprintf(err, err_len, "rival learning needs an overlay path and a player pattern or an opponent name");
        return NULL;
    }
    const BookFormat *fmt = book_format_for_output(o->overlay, err, err_len);
    if (!fmt)
        return NULL;
    if (!book_format_is(fmt, "db")) {
        /* SBK keeps a move's score only as its child's analysis: a demotion would be lost */
        snprintf(err, err_len, "%s: an overlay is learned into DB2016 (a .db name): SBK cannot carry a demoted score",
                 o->overlay);
        return NULL;
    }
    RivalLearn *l = calloc(1, sizeof *l);
    if (!l || !(l->list = malloc(sizeof *l->list)) || !(l->found = malloc(sizeof *l->found))) {
        snprintf(err, err_len, "out of memory");
        rival_learn_close(l);
        return NULL;
    }
    l->o = *o;
    l->out_format = fmt;
    book_select_defaults(&l->probe_opt);
    struct stat sb;
    BookReadOptions ro = {.keep_comments = true};
    if (stat(o->overlay, &sb) == 0)
        l->overlay = book_open_read(o->overlay, NULL, &ro, NULL, err, err_len);
    else if (!(l->overlay = book_create()))
        snprintf(err, err_len, "out of memory");
    if (l->overlay && o->main_book) {
        l->main = book_prober_open(o->main_book, NULL, false, NULL, NULL, err, err_len);
        if (!l->main) {
            rival_learn_close(l);
            return NULL;
        }
    }
    if (!l->overlay) {
        rival_learn_close(l);
        return NULL;
    }
    return l;
}

void rival_learn_close(RivalLearn *l) {
    if (!l)
        return;
    book_free(l->overlay);
    book_prober_close(l->main);
    free(l->st);
    free(l->list);
    free(l->found);
    free(l);
}

const RivalLearnReport *rival_learn_report(const RivalLearn *l) { return &l->rep; }

static bool ours(const RivalLearn *l, const char *name) {
    /* the exact name too: a server's login may hold glob characters ("[x]") */
    return l->o.player && l->o.player[0] && name[0] && (!strcmp(l->o.player, name) || !fnmatch(l->o.player, name, 0));
}

/* The candidates of pos as the engine sees them (overlay first); false on a miss. */
static bool candidates(RivalLearn *l, const Position *pos, int *n_overlay) {
    BookSource over = book_source_memory(l->overlay);
    BookSource main = l->main ? book_prober_source(l->main) : (BookSource){0};
    bool flipped;
    return book_probe_overlay(&over, l->main ? &main : NULL, pos, &l->probe_opt, l->list, n_overlay, &flipped, NULL,
                              0) > 0;
}

/* Writes the demotion of found's move `lost` at key into the overlay. */
static bool demote(RivalLearn *l, const BookKey *key, int ply, Move16 lost, const char *opponent, const RecordGame *g) {
    BookMove *moves = malloc(sizeof(BookMove) * (size_t)(l->found->n));
    if (!moves)
        return false;
    int n = 0;
    bool was_demoted = false;
    BookMove last = {0};
    for (int i = 0; i < l->found->n; i++) {
        if (l->found->moves[i].move == lost) {
            last = l->found->moves[i];
            was_demoted = book_move_demoted(&last);
        } else {
            moves[n++] = l->found->moves[i];
        }
    }
    last.ponder = MOVE_NONE;
    last.count = 0;
    last.has_score = true;
    last.score = BOOK_SCORE_DEMOTED;
    moves[n++] = last;
    uint32_t id;
    bool ok = book_add_position(l->overlay, key, ply, &id) && book_set_moves(l->overlay, id, moves, n);
    free(moves);
    if (!ok)
        return false;
    char line[400], mv[USI_MOVE_MAX];
    move_to_usi((Move)lost, mv);
    int len = snprintf(line, sizeof line, "rival: %s demoted after a loss to %s", mv, opponent);
    if (len < 0 || (size_t)len >= sizeof line)
        len = (int)strlen(line);
    BookStats s;
    bool noted = book_get_stats(l->overlay, id, MOVE_NONE, &s) && s.comment && strstr(s.comment, line);
    if (!noted && !book_append_comment(l->overlay, id, MOVE_NONE, line, (size_t)len))
        return false;
    l->rep.demoted++;
    l->rep.already_demoted += was_demoted;
    snprintf(l->rep.demoted_move, sizeof l->rep.demoted_move, "%s", mv);
    snprintf(l->rep.demoted_file, sizeof l->rep.demoted_file, "%s", g->file ? g->file : "");
    l->rep.demoted_line = g->line;
    return true;
}

/* Our loss: find the last position where our move was a book candidate beside another
 * candidate that is not demoted, and demote it there. */
static bool learn_loss(RivalLearn *l, const RecordGame *g, Color us, const char *opponent) {
    Position pos;
    if (!book_replay_start(g, &pos, &l->st, &l->cap))
        return l->cap > (size_t)g->n_moves;
    int limit = l->o.max_ply > 0 && l->o.max_ply < g->n_moves ? l->o.max_ply : g->n_moves;
    BookKey key;
    memset(&key, 0, sizeof key);
    int ply = 0;
    Move16 lost = MOVE_NONE;
    char sfen[SFEN_MAX] = "";
    for (int i = 0; i < limit; i++) {
        Move16 m16 = move_to_move16(g->moves[i]);
        int nov = 0;
        if (pos.side == us && candidates(l, &pos, &nov)) {
            bool listed = false, other = false;
            for (int j = 0; j < l->list->n; j++) {
                if (l->list->moves[j].move == m16)
                    listed = true;
                else if (!(j < nov && book_move_demoted(&l->list->moves[j])))
                    other = true;
            }
            if (listed && other) {
                BookMoveList *t = l->found;
                l->found = l->list;
                l->list = t;
                book_key_from_position(&pos, &key);
                ply = pos.ply;
                lost = m16;
                position_to_sfen(&pos, sfen, true);
            }
        }
        position_do_move(&pos, g->moves[i], &l->st[i + 1]);
    }
    if (lost == MOVE_NONE) {
        l->rep.no_alternative++;
        return true;
    }
    if (!demote(l, &key, ply, lost, opponent, g))
        return false;
    snprintf(l->rep.demoted_sfen, sizeof l->rep.demoted_sfen, "%s", sfen);
    return true;
}

bool rival_learn_add_game(RivalLearn *l, const RecordGame *g) {
    l->rep.games++;
    bool b_ours = ours(l, g->black), w_ours = ours(l, g->white);
    Color us = COLOR_NB;
    if (b_ours != w_ours)
        us = b_ours ? BLACK : WHITE;
    const char *opponent = l->o.opponent;
    if (!opponent && us != COLOR_NB)
        opponent = us == BLACK ? g->white : g->black;
    if (!opponent || !opponent[0] || (strcmp(g->black, opponent) && strcmp(g->white, opponent))) {
        l->rep.skipped++;
        return true;
    }
    if (g->result != REC_BLACK_WIN && g->result != REC_WHITE_WIN) {
        l->rep.draws++;
        return true;
    }
    Color loser = g->result == REC_BLACK_WIN ? WHITE : BLACK;
    const char *loser_name = loser == BLACK ? g->black : g->white;
    if (!strcmp(loser_name, opponent)) {
        ImportLossStats is = {0};
        if (!book_import_loss(l->overlay, g, opponent, l->o.max_ply, &is, &l->st, &l->cap))
            return false;
        l->rep.imported += is.games;
        l->rep.positions_imported += is.positions;
        return true;
    }
    if (loser == us)
        return learn_loss(l, g, us, opponent);
    l->rep.skipped++;
    return true;
}

bool rival_learn_commit(RivalLearn *l, char *err, size_t err_len) {
    BookWriteOptions wo = {.write_comments = true};
    return book_write(l->o.overlay, l->out_format, l->overlay, &wo, NULL, err, err_len);
}

typedef struct {
    RivalLearn *l;
    bool oom;
} RecordCtx;

static bool on_game(void *ctx, const RecordGame *g) {
    RecordCtx *c = ctx;
    if (!rival_learn_add_game(c->l, g))
        c->oom = true;
    return !c->oom;
}

bool rival_learn_record(const RivalLearnOptions *o, const char *record_path, RivalLearnReport *rep, char *err,
                        size_t err_len) {
    RivalLearn *l = rival_learn_open(o, err, err_len);
    if (!l)
        return false;
    RecordCtx c = {l, false};
    RecordReadOptions ro = {.on_game = on_game, .ctx = &c};
    bool ok = record_read_file(record_path, REC_FMT_AUTO, &ro, NULL, err, err_len);
    if (ok && c.oom) {
        snprintf(err, err_len, "out of memory");
        ok = false;
    }
    if (ok)
        ok = rival_learn_commit(l, err, err_len);
    if (rep)
        *rep = l->rep;
    rival_learn_close(l);
    return ok;
}
