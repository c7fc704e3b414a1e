/* kif.c - KIF and KI2 records (Kifu for Windows and the formats derived from it), in
 * UTF-8 after the line source's conversion.
 *
 * Headers "key：value" (先手/下手 black, 後手/上手 white, 棋戦 the event, 手合割 the
 * handicap), an optional board diagram (BOD: "後手の持駒：", nine "|...|" rows,
 * "先手の持駒：", "後手番"), then
 * the moves: KIF numbers each move and names its origin ("   1 ７六歩(77)   ( 0:02/...)"),
 * KI2 writes "▲７六歩    △３四歩" and needs the disambiguators 右/左/直/上/引/寄 (also
 * 行, 打, 成/不成/生, 同). A KIF move line can be a terminal word (投了, 千日手, ...); the
 * "まで64手で先手の勝ち" summary gives the result. "変化：N手" starts a variation that
 * replaces move N of the line before it (Kifu for Windows writes them depth first).
 * Lines starting with "*" (comments), "&" (bookmarks) and "#" are skipped. */
#include <stdlib.h>
#include <string.h>

#include "record/internal.h"
#include "shogi/movegen.h"
#include "shogi/rules.h"

static bool starts(const char *s, const char *lit) { return !strncmp(s, lit, strlen(lit)); }

static const char *skip_sp(const char *s) {
    for (;;) {
        if (*s == ' ' || *s == '\t')
            s++;
        else if (starts(s, "　"))
            s += 3;
        else
            return s;
    }
}

/* A digit 1..9 in full width, ASCII or kanji; returns 0 when none. */
static int ja_digit(const char **s) {
    static const char *const fw[] = {"１", "２", "３", "４", "５", "６", "７", "８", "９"};
    static const char *const kj[] = {"一", "二", "三", "四", "五", "六", "七", "八", "九"};
    if (**s >= '1' && **s <= '9')
        return *(*s)++ - '0';
    for (int i = 0; i < 9; i++) {
        if (starts(*s, fw[i]) || starts(*s, kj[i])) {
            *s += 3;
            return i + 1;
        }
    }
    return 0;
}

/* A kanji count: 一..九, 十, 十一..十八. Returns 1 when no number follows. */
static int ja_count(const char **s) {
    int n = 0;
    if (starts(*s, "十")) {
        *s += 3;
        n = 10;
    }
    const char *p = *s;
    int d = 0;
    if (*p < '0' || *p > '9') /* ASCII digits are not counts here */
        d = ja_digit(&p);
    if (d) {
        *s = p;
        n += d;
    }
    return n ? n : 1;
}

typedef struct {
    const char *name;
    PieceType pt;
} JaPiece;

static const JaPiece PIECES[] = {
    {"成香", PRO_LANCE}, {"成桂", PRO_KNIGHT}, {"成銀", PRO_SILVER}, {"歩", PAWN},      {"香", LANCE},
    {"桂", KNIGHT},      {"銀", SILVER},       {"金", GOLD},         {"角", BISHOP},    {"飛", ROOK},
    {"玉", KING},        {"王", KING},         {"と", PRO_PAWN},     {"杏", PRO_LANCE}, {"圭", PRO_KNIGHT},
    {"全", PRO_SILVER},  {"馬", HORSE},        {"龍", DRAGON},       {"竜", DRAGON},
};

static PieceType ja_piece(const char **s) {
    for (size_t i = 0; i < sizeof PIECES / sizeof PIECES[0]; i++)
        if (starts(*s, PIECES[i].name)) {
            *s += strlen(PIECES[i].name);
            return PIECES[i].pt;
        }
    return NO_PIECE_TYPE;
}

typedef struct {
    const char *name;
    const char *sfen;
} Handicap;

#define HC_LOW "/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"
static const Handicap HANDICAPS[] = {
    {"平手", STARTPOS_SFEN},
    {"香落ち", "lnsgkgsn1/1r5b1" HC_LOW},
    {"右香落ち", "1nsgkgsnl/1r5b1" HC_LOW},
    {"角落ち", "lnsgkgsnl/1r7" HC_LOW},
    {"飛車落ち", "lnsgkgsnl/7b1" HC_LOW},
    {"飛落ち", "lnsgkgsnl/7b1" HC_LOW},
    {"飛香落ち", "lnsgkgsn1/7b1" HC_LOW},
    {"二枚落ち", "lnsgkgsnl/9" HC_LOW},
    {"三枚落ち", "lnsgkgsn1/9" HC_LOW},
    {"四枚落ち", "1nsgkgsn1/9" HC_LOW},
    {"五枚落ち", "2sgkgsn1/9" HC_LOW},
    {"左五枚落ち", "1nsgkgs2/9" HC_LOW},
    {"六枚落ち", "2sgkgs2/9" HC_LOW},
    {"左七枚落ち", "2sgkg3/9" HC_LOW},
    {"右七枚落ち", "3gkgs2/9" HC_LOW},
    {"八枚落ち", "3gkg3/9" HC_LOW},
    {"十枚落ち", "4k4/9" HC_LOW},
};

typedef struct {
    Piece board[SQ_NB];
    int hands[COLOR_NB][8];
    int rows;         /* board rows seen */
    int side;         /* -1 unknown, else the Color to move */
    const char *hcap; /* handicap SFEN, NULL for none named */
    bool other_hcap;  /* 手合割 named something not in the table ("その他") */
} KifSetup;

static bool parse_bod_row(KifSetup *k, const char *s) {
    if (k->rows >= 9)
        return false;
    s++; /* the '|' */
    int rank = k->rows;
    for (int i = 0; i < 9; i++) {
        int file = 8 - i;
        Color c = BLACK;
        if (*s == 'v' || *s == 'V') {
            c = WHITE;
            s++;
        } else if (*s == ' ' || *s == '^' || *s == '+') {
            s++;
        }
        if (starts(s, "・")) {
            s += 3;
            k->board[square_make(file, rank)] = NO_PIECE;
            continue;
        }
        if (starts(s, "　")) {
            s += 3;
            k->board[square_make(file, rank)] = NO_PIECE;
            continue;
        }
        PieceType pt = ja_piece(&s);
        if (!pt)
            return false;
        k->board[square_make(file, rank)] = piece_make(c, pt);
    }
    k->rows++;
    return true;
}

static bool parse_hand(KifSetup *k, Color c, const char *s) {
    s = skip_sp(s);
    if (starts(s, "なし"))
        return true;
    while (*s) {
        s = skip_sp(s);
        if (!*s)
            break;
        PieceType pt = ja_piece(&s);
        if (!pt || pt > GOLD)
            return false;
        k->hands[c][pt] += ja_count(&s);
    }
    return true;
}

/* "key：value" or "key:value": returns the value or NULL. */
static const char *header_value(const char *line, const char *key) {
    size_t n = strlen(key);
    if (strncmp(line, key, n))
        return NULL;
    if (starts(line + n, "："))
        return line + n + 3;
    if (line[n] == ':')
        return line + n + 1;
    return NULL;
}

static void set_root(GameBuilder *b, KifSetup *k, Color first_mover_hint, bool hint, uint64_t ln) {
    char sfen[SFEN_MAX + 16];
    if (k->rows == 9) {
        Color side = k->side >= 0 ? (Color)k->side : hint ? first_mover_hint : BLACK;
        if (k->side < 0 && !hint && k->hcap && k->hcap != HANDICAPS[0].sfen)
            side = WHITE;
        rec_make_sfen(k->board, k->hands, side, 1, sfen);
    } else if (k->rows > 0) {
        gb_error(b, ln, "board diagram with %d rows", k->rows);
        return;
    } else if (k->other_hcap) {
        gb_error(b, ln, "unknown handicap without a board diagram");
        return;
    } else {
        snprintf(sfen, sizeof sfen, "%s", k->hcap ? k->hcap : STARTPOS_SFEN);
    }
    gb_set_root(b, sfen, ln);
}

typedef struct {
    const char *word;
    int kind; /* 0 unknown, 1 mover loses, 2 mover wins, 3 draw, 4 repetition */
} Terminal;

static const Terminal TERMINALS[] = {
    {"投了", 1},     {"詰み", 1},   {"切れ負け", 1}, {"時間切れ", 1}, {"反則負け", 1}, {"反則勝ち", 2}, {"入玉勝ち", 2},
    {"宣言勝ち", 2}, {"千日手", 4}, {"持将棋", 3},   {"中断", 0},     {"不詰", 0},     {"封じ手", 0},   {"詰", 1},
};

static bool terminal(GameBuilder *b, const char *s) {
    for (size_t i = 0; i < sizeof TERMINALS / sizeof TERMINALS[0]; i++) {
        if (!starts(s, TERMINALS[i].word))
            continue;
        Color us = b->g.pos.side;
        RecordResult win = us == BLACK ? REC_BLACK_WIN : REC_WHITE_WIN;
        RecordResult lose = us == BLACK ? REC_WHITE_WIN : REC_BLACK_WIN;
        int k = TERMINALS[i].kind;
        snprintf(b->end, sizeof b->end, "%s", TERMINALS[i].word);
        if (k == 1)
            b->result = lose;
        else if (k == 2)
            b->result = win;
        else if (k == 3)
            b->result = REC_DRAW;
        else if (k == 4) {
            RepetitionState r = position_sennichite(&b->g.pos);
            b->result = r == REPETITION_WIN ? win : r == REPETITION_LOSE ? lose : REC_DRAW;
        } else
            b->result = REC_RESULT_UNKNOWN;
        return true;
    }
    return false;
}

/* "まで64手で先手の勝ち" and friends. */
static void summary(GameBuilder *b, const char *s) {
    if (strstr(s, "勝ち")) {
        const char *w = strstr(s, "で");
        w = w ? w : s;
        if (strstr(w, "先手") || strstr(w, "下手"))
            b->result = REC_BLACK_WIN;
        else if (strstr(w, "後手") || strstr(w, "上手"))
            b->result = REC_WHITE_WIN;
    } else if (strstr(s, "負け")) {
        const char *w = strstr(s, "で");
        w = w ? w : s;
        if (strstr(w, "先手") || strstr(w, "下手"))
            b->result = REC_WHITE_WIN;
        else if (strstr(w, "後手") || strstr(w, "上手"))
            b->result = REC_BLACK_WIN;
    } else if (strstr(s, "千日手") || strstr(s, "持将棋")) {
        b->result = REC_DRAW;
    }
}

/* Parses and plays one Japanese move (s is NUL-terminated, the move only). Returns 1 for
 * a move, 0 for a terminal word, -1 for an error (reported). */
static int ja_move(GameBuilder *b, const char *s, uint64_t ln, Square *last_to) {
    const char *start = s;
    const char *marks[] = {"▲", "△", "☗", "☖", "▽", "▼"};
    for (size_t i = 0; i < 6; i++)
        if (starts(s, marks[i])) {
            s += strlen(marks[i]);
            break;
        }
    s = skip_sp(s);
    if (terminal(b, s))
        return 0;
    Position *pos = &b->g.pos;
    Square to;
    if (starts(s, "同") || starts(s, "仝")) {
        s = skip_sp(s + 3);
        if (*last_to == SQ_NONE) {
            gb_error(b, ln, "同 with no previous move in '%s'", start);
            return -1;
        }
        to = *last_to;
    } else {
        int f = ja_digit(&s), r = ja_digit(&s);
        if (!f || !r) {
            gb_error(b, ln, "no destination in '%s'", start);
            return -1;
        }
        to = square_make(f - 1, r - 1);
        if (starts(s, "同"))
            s += 3;
        s = skip_sp(s);
    }
    PieceType pt = ja_piece(&s);
    if (!pt) {
        gb_error(b, ln, "no piece in '%s'", start);
        return -1;
    }
    bool right = false, left = false, straight = false, up = false, down = false, side = false;
    bool promote = false, drop = false;
    int from = -1;
    for (;;) {
        s = skip_sp(s);
        if (starts(s, "右"))
            right = true;
        else if (starts(s, "左"))
            left = true;
        else if (starts(s, "直"))
            straight = true;
        else if (starts(s, "上") || starts(s, "行"))
            up = true;
        else if (starts(s, "引"))
            down = true;
        else if (starts(s, "寄"))
            side = true;
        else if (starts(s, "不成")) {
            s += 6;
            continue;
        } else if (starts(s, "生"))
            ;
        else if (starts(s, "成"))
            promote = true;
        else if (starts(s, "打"))
            drop = true;
        else if (*s == '(' && s[1] >= '0' && s[1] <= '9' && s[2] >= '0' && s[2] <= '9' && s[3] == ')') {
            if (s[1] == '0' && s[2] == '0')
                drop = true;
            else if (s[1] >= '1' && s[2] >= '1')
                from = square_make(s[1] - '1', s[2] - '1');
            s += 4;
            continue;
        } else if (!*s)
            break;
        else {
            gb_error(b, ln, "unexpected text in '%s'", start);
            return -1;
        }
        s += 3;
    }
    ExtMove list[MAX_MOVES];
    int n = generate_moves(pos, GEN_LEGAL, list);
    Move cand[MAX_MOVES];
    int nb = 0, nd = 0;
    Move drops[MAX_MOVES];
    for (int i = 0; i < n; i++) {
        Move m = list[i].move;
        if (move_to(m) != to)
            continue;
        if (move_is_drop(m)) {
            if (move_dropped_type(m) == pt && !promote && from < 0)
                drops[nd++] = m;
            continue;
        }
        if (drop || piece_type(position_piece_on(pos, move_from(m))) != pt || move_is_promotion(m) != promote)
            continue;
        if (from >= 0 && move_from(m) != from)
            continue;
        cand[nb++] = m;
    }
    if (drop || nb == 0) {
        for (int i = 0; i < nd; i++)
            cand[i] = drops[i];
        nb = nd;
    } else {
        Color c = pos->side;
        int k = 0;
        for (int i = 0; i < nb; i++) {
            Square f = move_from(cand[i]);
            int fwd = c == BLACK ? square_rank(f) - square_rank(to) : square_rank(to) - square_rank(f);
            if ((up && fwd <= 0) || (down && fwd >= 0) || (side && fwd != 0))
                continue;
            if (straight && (fwd <= 0 || square_file(f) != square_file(to)))
                continue;
            cand[k++] = cand[i];
        }
        nb = k;
        if ((right || left) && nb > 1) {
            int best = right ? 99 : -1;
            for (int i = 0; i < nb; i++) {
                int x = c == BLACK ? square_file(move_from(cand[i])) : 8 - square_file(move_from(cand[i]));
                if (right ? x < best : x > best)
                    best = x;
            }
            k = 0;
            for (int i = 0; i < nb; i++) {
                int x = c == BLACK ? square_file(move_from(cand[i])) : 8 - square_file(move_from(cand[i]));
                if (x == best)
                    cand[k++] = cand[i];
            }
            nb = k;
        }
    }
    if (nb != 1) {
        gb_error(b, ln, nb ? "ambiguous move '%s'" : "illegal move '%s'", start);
        return -1;
    }
    if (!gb_push(b, cand[0])) {
        gb_error(b, ln, "too many moves");
        return -1;
    }
    *last_to = to;
    return 1;
}

static const char *const KI2_MARKS[] = {"▲", "△", "☗", "☖", "▽", "▼"};

static const char *find_mark(const char *s, size_t *mlen) {
    const char *best = NULL;
    for (size_t i = 0; i < 6; i++) {
        const char *p = strstr(s, KI2_MARKS[i]);
        if (p && (!best || p < best)) {
            best = p;
            *mlen = strlen(KI2_MARKS[i]);
        }
    }
    return best;
}

static bool is_ki2_move_line(const char *s) {
    size_t ml;
    const char *p = find_mark(s, &ml);
    return p == s;
}

bool kif_read(LineSrc *src, GameBuilder *b, bool ki2) {
    KifSetup k;
    memset(&k, 0, sizeof k);
    k.side = -1;
    bool oom = false, in_moves = false, ended = false;
    int base = 1;
    bool base_set = false;
    Square last_to = SQ_NONE;
    int variations = 0;
    /* the number of good moves the previous line had, for the next 変化 */
    gb_reset(b, true);
    b->start_line = 1;
    while (!b->stop && ls_next(src, &oom)) {
        char *line = src->line;
        uint64_t ln = src->lineno;
        const char *t = skip_sp(line);
        if (*t == '*' && in_moves)
            gb_comment(b, t + 1);
        if (!*t || *t == '#' || *t == '*' || *t == '&')
            continue;
        if (starts(t, "変化：") || starts(t, "変化:")) {
            const char *q = skip_sp(t + (starts(t, "変化：") ? 9 : 7));
            int nmove = atoi(q);
            if (!b->active && !b->bad)
                set_root(b, &k, BLACK, false, ln);
            if (!b->opt->variations) {
                ended = true;
                break;
            }
            gb_emit(b);
            variations++;
            int keep = nmove - base;
            bool was_bad = b->bad;
            b->bad = false;
            b->result = REC_RESULT_UNKNOWN;
            b->end[0] = 0;
            b->variation = variations;
            b->start_line = ln;
            if (keep < 0 || keep > b->g.count) {
                if (!was_bad)
                    gb_error(b, ln, "variation at move %d does not branch from the line before", nmove);
                b->bad = true; /* the line it branches from was bad: skip it too */
                continue;
            }
            while (b->g.count > keep)
                game_pop(&b->g);
            last_to = b->g.count ? move_to(b->g.moves[b->g.count - 1]) : SQ_NONE;
            in_moves = true;
            continue;
        }
        if (starts(t, "まで")) {
            summary(b, t);
            continue;
        }
        if (!in_moves) {
            const char *v;
            if (*t == '|') {
                if (!parse_bod_row(&k, t))
                    gb_error(b, ln, "bad board diagram row");
                continue;
            }
            if (*t == '+' || starts(t, "９ ") || starts(t, "９　") || starts(t, "  ９"))
                continue;
            if ((v = header_value(t, "先手の持駒")) || (v = header_value(t, "下手の持駒"))) {
                if (!parse_hand(&k, BLACK, v))
                    gb_error(b, ln, "bad hand");
                continue;
            }
            if ((v = header_value(t, "後手の持駒")) || (v = header_value(t, "上手の持駒"))) {
                if (!parse_hand(&k, WHITE, v))
                    gb_error(b, ln, "bad hand");
                continue;
            }
            if (starts(t, "先手番") || starts(t, "下手番")) {
                k.side = BLACK;
                continue;
            }
            if (starts(t, "後手番") || starts(t, "上手番")) {
                k.side = WHITE;
                continue;
            }
            if ((v = header_value(t, "先手")) || (v = header_value(t, "下手"))) {
                rec_copy_trim(b->black, REC_NAME_MAX, v, strlen(v));
                continue;
            }
            if ((v = header_value(t, "後手")) || (v = header_value(t, "上手"))) {
                rec_copy_trim(b->white, REC_NAME_MAX, v, strlen(v));
                continue;
            }
            if ((v = header_value(t, "棋戦"))) {
                rec_copy_trim(b->event, sizeof b->event, v, strlen(v));
                continue;
            }
            if ((v = header_value(t, "手合割")) || (v = header_value(t, "手合"))) {
                char name[64];
                rec_copy_trim(name, sizeof name, v, strlen(v));
                k.hcap = NULL;
                k.other_hcap = false;
                for (size_t i = 0; i < sizeof HANDICAPS / sizeof HANDICAPS[0]; i++)
                    if (!strcmp(name, HANDICAPS[i].name))
                        k.hcap = HANDICAPS[i].sfen;
                if (!k.hcap)
                    k.other_hcap = true;
                continue;
            }
            if (starts(t, "手数----") || starts(t, "手数－")) {
                in_moves = true;
                continue;
            }
            bool move_line = ki2 ? is_ki2_move_line(t) : (*t >= '0' && *t <= '9');
            if (!move_line)
                continue; /* other headers */
            in_moves = true;
        }
        if (b->bad)
            continue;
        if (ki2) {
            size_t ml;
            const char *p = find_mark(t, &ml);
            if (!p)
                continue;
            if (!b->active) {
                Color hint = (starts(p, "△") || starts(p, "☖") || starts(p, "▽")) ? WHITE : BLACK;
                set_root(b, &k, hint, true, ln);
                if (b->bad)
                    continue;
            }
            while (p && !b->bad) {
                size_t ml2 = 0;
                const char *q = find_mark(p + ml, &ml2);
                size_t n = q ? (size_t)(q - p) : strlen(p);
                char mv[128];
                rec_copy_trim(mv, sizeof mv, p, n);
                if (ja_move(b, mv, ln, &last_to) == 0)
                    break;
                p = q;
                ml = ml2;
            }
        } else {
            if (*t < '0' || *t > '9')
                continue; /* a stray line among the moves */
            char *e;
            long num = strtol(t, &e, 10);
            const char *mvs = skip_sp(e);
            if (!b->active) {
                set_root(b, &k, BLACK, false, ln);
                if (b->bad)
                    continue;
            }
            if (!base_set) {
                base = (int)num;
                base_set = true;
            }
            if (num != base + b->g.count) {
                gb_error(b, ln, "move number %ld where %d was expected", num, base + b->g.count);
                continue;
            }
            /* the move runs to the first ASCII space (同　歩 has a full-width one) */
            char mv[128];
            size_t n = 0;
            while (mvs[n] && mvs[n] != ' ' && mvs[n] != '\t' && n < sizeof mv - 1)
                n++;
            memcpy(mv, mvs, n);
            mv[n] = 0;
            if ((!strcmp(mv, "同") || !strcmp(mv, "仝")) && mvs[n]) {
                const char *rest = skip_sp(mvs + n);
                size_t r = 0;
                while (rest[r] && rest[r] != ' ' && rest[r] != '\t' && n + r < sizeof mv - 1)
                    r++;
                memcpy(mv + n, rest, r);
                mv[n + r] = 0;
            }
            /* a "+" marks a move that has variations */
            size_t l = strlen(mv);
            if (l && mv[l - 1] == '+')
                mv[l - 1] = 0;
            ja_move(b, mv, ln, &last_to);
        }
    }
    (void)ended;
    if (!oom) {
        if (!b->active && !b->bad && (k.rows || k.hcap))
            set_root(b, &k, BLACK, false, src->lineno);
        if (!b->active && !b->bad && variations == 0)
            gb_error(b, src->lineno ? src->lineno : 1,
                     "no game found (no moves and no position)"); /* empty input: line 1 */
        gb_emit(b);
    }
    return !oom;
}
