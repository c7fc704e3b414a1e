/* csa_write.c - see csa_write.h. */
#include "record/csa_write.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shogi/game.h"
#include "util/atomic_file.h"
#include "util/error.h"

void game_record_init(GameRecord *r) { memset(r, 0, sizeof *r); }

void game_record_free(GameRecord *r) {
    free(r->moves);
    free(r->ms);
    free(r->score);
    memset(r, 0, sizeof *r);
}

bool game_record_push(GameRecord *r, Move m, int32_t ms, int32_t score) {
    if (r->n_moves == r->capacity) {
        int cap = r->capacity ? r->capacity * 2 : 128;
        Move *mv = realloc(r->moves, (size_t)cap * sizeof *mv);
        if (!mv)
            return false;
        r->moves = mv;
        int32_t *t = realloc(r->ms, (size_t)cap * sizeof *t);
        if (!t)
            return false;
        r->ms = t;
        int32_t *s = realloc(r->score, (size_t)cap * sizeof *s);
        if (!s)
            return false;
        r->score = s;
        r->capacity = cap;
    }
    r->moves[r->n_moves] = m;
    r->ms[r->n_moves] = ms;
    r->score[r->n_moves] = score;
    r->n_moves++;
    return true;
}

static const char *const CSA_PIECE[PIECE_TYPE_NB] = {"",   "FU", "KY", "KE", "GI", "KA", "HI", "KI",
                                                     "OU", "TO", "NY", "NK", "NG", "UM", "RY"};

const char *csa_piece_name(PieceType pt) { return pt > NO_PIECE_TYPE && pt < PIECE_TYPE_NB ? CSA_PIECE[pt] : "??"; }

char *csa_move(const Position *pos, Move m, char *buf) {
    char sign = pos->side == BLACK ? '+' : '-';
    Square to = move_to(m);
    int from_file = 0, from_rank = 0;
    PieceType pt;
    if (move_is_drop(m)) {
        pt = move_dropped_type(m);
    } else {
        Square from = move_from(m);
        from_file = square_file(from) + 1;
        from_rank = square_rank(from) + 1;
        pt = piece_type(position_piece_on(pos, from));
        if (move_is_promotion(m))
            pt = (PieceType)(pt + PROMOTED);
    }
    const char *name = csa_piece_name(pt);
    buf[0] = sign;
    buf[1] = (char)('0' + from_file);
    buf[2] = (char)('0' + from_rank);
    buf[3] = (char)('0' + square_file(to) + 1);
    buf[4] = (char)('0' + square_rank(to) + 1);
    buf[5] = name[0];
    buf[6] = name[1];
    buf[7] = '\0';
    return buf;
}

static int csa_square(char f, char r) {
    if (f < '1' || f > '9' || r < '1' || r > '9')
        return -1;
    return square_make(f - '1', r - '1');
}

Move csa_move_parse(const Position *pos, const char *t, size_t n, const char **why) {
    if (n < 7 || (t[0] != '+' && t[0] != '-')) {
        *why = "malformed move";
        return MOVE_NONE;
    }
    Color c = t[0] == '+' ? BLACK : WHITE;
    if (c != pos->side) {
        *why = "move by the side not to move";
        return MOVE_NONE;
    }
    PieceType pt = NO_PIECE_TYPE;
    for (int k = PAWN; k < PIECE_TYPE_NB; k++)
        if (t[5] == CSA_PIECE[k][0] && t[6] == CSA_PIECE[k][1])
            pt = (PieceType)k;
    int to = csa_square(t[3], t[4]);
    bool drop = t[1] == '0' && t[2] == '0';
    int from = drop ? -1 : csa_square(t[1], t[2]);
    if (!pt || to < 0 || (!drop && from < 0)) {
        *why = "malformed move";
        return MOVE_NONE;
    }
    Move16 m16;
    if (drop) {
        if (pt > GOLD) {
            *why = "drop of a promoted piece";
            return MOVE_NONE;
        }
        m16 = (Move16)(to | (pt << 7) | MOVE_DROP);
    } else {
        Piece pc = position_piece_on(pos, from);
        PieceType before = piece_type(pc);
        bool promote = false;
        if (pc == NO_PIECE || piece_color(pc) != c) {
            *why = "no piece of the mover on the from-square";
            return MOVE_NONE;
        }
        if (before != pt) {
            if (piece_type_can_promote(before) && pt == (PieceType)(before + PROMOTED))
                promote = true;
            else {
                *why = "piece mismatch";
                return MOVE_NONE;
            }
        }
        m16 = (Move16)(to | (from << 7) | (promote ? MOVE_PROMOTE : 0));
    }
    Move m = position_legal_move_from16(pos, m16);
    if (m == MOVE_NONE)
        *why = "illegal move";
    return m;
}

const char *csa_end_marker(GameEnd end, Color loser, Color side_to_move) {
    switch (end) {
    case END_RESIGN: return "%TORYO";
    case END_MATE: return "%TSUMI";
    case END_REPETITION: return "%SENNICHITE";
    case END_PERPETUAL_CHECK: return loser == BLACK ? "%+ILLEGAL_ACTION" : "%-ILLEGAL_ACTION";
    case END_DECLARATION: return loser == side_to_move ? "%TSUMI" : "%KACHI";
    case END_FALSE_DECLARATION:
    case END_ILLEGAL: return "%ILLEGAL_MOVE";
    case END_MAX_MOVES: return "%JISHOGI";
    case END_TIME: return "%TIME_UP";
    case END_CRASH:
        if (loser == side_to_move)
            return "%TORYO";
        return loser == BLACK ? "%+ILLEGAL_ACTION" : "%-ILLEGAL_ACTION";
    default: return "%CHUDAN";
    }
}

/* shogi-server's words for the 'summary comment (csa_summary_end() reads them back). */
static const char *summary_word(GameEnd end) {
    switch (end) {
    case END_RESIGN: return "toryo";
    case END_MATE: return "tsumi";
    case END_REPETITION: return "sennichite";
    case END_PERPETUAL_CHECK: return "oute_sennichite";
    case END_DECLARATION: return "kachi";
    case END_FALSE_DECLARATION: return "illegal kachi";
    case END_MAX_MOVES: return "max_moves";
    case END_TIME: return "time up";
    case END_ILLEGAL: return "illegal move";
    case END_CRASH: return "abnormal";
    default: return "chudan";
    }
}

GameEnd csa_summary_end(const char *word, size_t len) {
    for (int e = END_RESIGN; e < END_NB; e++) {
        const char *w = summary_word((GameEnd)e);
        if (strlen(w) == len && !memcmp(w, word, len))
            return (GameEnd)e;
    }
    return END_NONE;
}

typedef struct {
    char *data;
    size_t len, cap;
    bool failed;
} TextBuf;

static void put(TextBuf *b, const char *fmt, ...) {
    if (b->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->len;
        int n = vsnprintf(b->data ? b->data + b->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = true;
            return;
        }
        if ((size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap - b->len <= (size_t)n)
            cap *= 2;
        char *d = realloc(b->data, cap);
        if (!d) {
            b->failed = true;
            return;
        }
        b->data = d;
        b->cap = cap;
    }
}

static void put_time(TextBuf *b, const char *key, time_t t) {
    if (t == 0)
        return;
    struct tm tm;
    if (!localtime_r(&t, &tm))
        return;
    put(b, "%s%04d/%02d/%02d %02d:%02d:%02d\n", key, tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
        tm.tm_min, tm.tm_sec);
}

/* Writes a name with line breaks turned into spaces (a name is one line in CSA). */
static void put_name(TextBuf *b, const char *key, const char *name) {
    put(b, "%s", key);
    for (const char *p = name; *p; p++)
        put(b, "%c", *p == '\n' || *p == '\r' ? ' ' : *p);
    put(b, "\n");
}

static void put_position(TextBuf *b, const Position *pos) {
    char sfen[SFEN_MAX];
    position_to_sfen(pos, sfen, false);
    if (strcmp(sfen, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -") == 0) {
        put(b, "PI\n+\n");
        return;
    }
    for (int rank = 0; rank < RANK_NB; rank++) {
        put(b, "P%d", rank + 1);
        for (int file = FILE_NB - 1; file >= 0; file--) {
            Piece pc = position_piece_on(pos, square_make(file, rank));
            if (pc == NO_PIECE)
                put(b, " * ");
            else
                put(b, "%c%s", piece_color(pc) == BLACK ? '+' : '-', csa_piece_name(piece_type(pc)));
        }
        put(b, "\n");
    }
    static const PieceType ORDER[] = {ROOK, BISHOP, GOLD, SILVER, KNIGHT, LANCE, PAWN};
    for (int c = BLACK; c <= WHITE; c++) {
        Hand h = pos->hand[c];
        if (h == 0)
            continue;
        put(b, "P%c", c == BLACK ? '+' : '-');
        for (size_t i = 0; i < sizeof ORDER / sizeof ORDER[0]; i++)
            for (int k = 0; k < hand_count(h, ORDER[i]); k++)
                put(b, "00%s", csa_piece_name(ORDER[i]));
        put(b, "\n");
    }
    put(b, "%c\n", pos->side == BLACK ? '+' : '-');
}

static bool put_game(TextBuf *b, const GameRecord *r, char *err, size_t err_len) {
    Game g;
    game_init(&g);
    if (!game_set_sfen(&g, r->root_sfen, err, err_len)) {
        game_free(&g);
        return false;
    }
    put_name(b, "N+", r->black);
    put_name(b, "N-", r->white);
    if (r->event[0])
        put(b, "$EVENT:%s\n", r->event);
    put_time(b, "$START_TIME:", r->start_time);
    put_time(b, "$END_TIME:", r->end_time);
    char tc[RECORD_TIME_CONTROL_MAX];
    if (r->clock[BLACK].set && record_time_control_equal(&r->clock[BLACK], &r->clock[WHITE]))
        put(b, "$TIME:%s\n", record_time_control_format(&r->clock[BLACK], tc, sizeof tc));
    else
        for (int c = BLACK; c <= WHITE; c++)
            if (r->clock[c].set)
                put(b, "$TIME%c:%s\n", c == BLACK ? '+' : '-', record_time_control_format(&r->clock[c], tc, sizeof tc));
    if (r->time_control[0])
        put(b, "'time control: %s\n", r->time_control);
    put_position(b, &g.pos);
    for (int i = 0; i < r->n_moves; i++) {
        Move m = position_legal_move_from16(&g.pos, move_to_move16(r->moves[i]));
        if (m == MOVE_NONE) {
            error_set(err, err_len, "move %d does not replay", i + 1);
            game_free(&g);
            return false;
        }
        if (i == r->n_opening && r->n_opening > 0)
            put(b, "'end of opening (%d moves)\n", r->n_opening);
        char mv[CSA_MOVE_MAX];
        put(b, "%s\n", csa_move(&g.pos, m, mv));
        if (i >= r->n_opening && r->ms[i] >= 0)
            put(b, "T%d\n", r->ms[i] / 1000);
        if (r->score[i] != RECORD_NO_SCORE)
            put(b, "'** %d\n", r->score[i]);
        if (!game_push(&g, m)) {
            error_set(err, err_len, "out of memory");
            game_free(&g);
            return false;
        }
    }
    if (r->n_opening > 0 && r->n_moves == r->n_opening)
        put(b, "'end of opening (%d moves)\n", r->n_opening);
    Color stm = g.pos.side;
    Color loser = r->outcome == OUTCOME_BLACK_WINS ? WHITE : BLACK;
    put(b, "%s\n", csa_end_marker(r->end, loser, stm));
    const char *res_b = "draw", *res_w = "draw";
    if (r->outcome == OUTCOME_BLACK_WINS)
        res_b = "win", res_w = "lose";
    else if (r->outcome == OUTCOME_WHITE_WINS)
        res_b = "lose", res_w = "win";
    if (r->outcome != OUTCOME_NONE)
        put(b, "'summary:%s:%s %s:%s %s\n", summary_word(r->end), r->black, res_b, r->white, res_w);
    if (r->detail[0])
        put(b, "'%s\n", r->detail);
    game_free(&g);
    return true;
}

char *csa_format_games(const GameRecord *games, const char *const *raw, int n, size_t *len, char *err, size_t err_len) {
    TextBuf b = {0};
    put(&b, "V2.2\n");
    for (int i = 0; i < n; i++) {
        if (i > 0)
            put(&b, "/\n");
        char why[128];
        if (raw && raw[i])
            put(&b, "%s", raw[i]);
        else if (!put_game(&b, &games[i], why, sizeof why)) {
            error_set(err, err_len, "game %d: %s", i + 1, why);
            free(b.data);
            return NULL;
        }
    }
    if (b.failed) {
        error_set(err, err_len, "out of memory");
        free(b.data);
        return NULL;
    }
    *len = b.len;
    return b.data;
}

bool csa_write_games_file(const char *path, const GameRecord *games, const char *const *raw, int n, char *err,
                          size_t err_len) {
    size_t len = 0;
    char *text = csa_format_games(games, raw, n, &len, err, err_len);
    if (!text)
        return false;
    AtomicFile af;
    bool ok = atomic_file_open(&af, path, err, err_len);
    if (ok) {
        fwrite(text, 1, len, af.f);
        ok = atomic_file_commit(&af, err, err_len);
    }
    free(text);
    return ok;
}
