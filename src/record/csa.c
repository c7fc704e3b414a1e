/* csa.c - CSA standard records, V2.2 and V3.0 (also the older unversioned files).
 *
 * Statements: "V2.2" version; "N+" / "N-" names; "$KEY:value" information (of which
 * "$EVENT:" is kept as the game's event, and V3.0's "$TIME:", "$TIME+:" and "$TIME-:" as
 * the sides' time controls, record/time_control.h); "'" comments
 * (floodgate "'black_rate:NAME+hash:3049.0" and "'white_rate:..." give ratings); the
 * initial position as "PI" (optionally followed by removed pieces "82HI22KA"), nine
 * "P1".."P9" rows or "P+" / "P-" piece lists ("00AL" = every remaining piece), closed by
 * "+" or "-" for the side to move; moves "+7776FU" (the piece after the move); "T<sec>"
 * times (fractions in V3.0); "%TORYO" and the other end markers. Several statements may
 * share a line separated by ","; games in one file are separated by a "/" line. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "record/csa_write.h"
#include "record/internal.h"
#include "shogi/rules.h"

static const char *const CSA_NAMES[PIECE_TYPE_NB] = {"",   "FU", "KY", "KE", "GI", "KA", "HI", "KI",
                                                     "OU", "TO", "NY", "NK", "NG", "UM", "RY"};

static PieceType csa_piece(const char *s) {
    for (int pt = PAWN; pt < PIECE_TYPE_NB; pt++)
        if (s[0] == CSA_NAMES[pt][0] && s[1] == CSA_NAMES[pt][1])
            return (PieceType)pt;
    return NO_PIECE_TYPE;
}

typedef struct {
    Piece board[SQ_NB];
    int hands[COLOR_NB][8];
    bool any; /* a P line was seen */
} Setup;

static void setup_hirate(Setup *s) {
    memset(s, 0, sizeof *s);
    static const char *rows[9] = {"lnsgkgsnl", "1r5b1", "ppppppppp", "9", "9", "9", "PPPPPPPPP", "1B5R1", "LNSGKGSNL"};
    static const char letters[] = " PLNSBRGK";
    for (int r = 0; r < 9; r++) {
        int file = 8;
        for (const char *p = rows[r]; *p; p++) {
            if (*p >= '1' && *p <= '9') {
                file -= *p - '0';
                continue;
            }
            char up = (char)(*p >= 'a' ? *p - 'a' + 'A' : *p);
            PieceType pt = (PieceType)(strchr(letters, up) - letters);
            s->board[square_make(file, r)] = piece_make(*p >= 'a' ? WHITE : BLACK, pt);
            file--;
        }
    }
    s->any = true;
}

static int square_of(const char *s) {
    if (s[0] < '1' || s[0] > '9' || s[1] < '1' || s[1] > '9')
        return -1;
    return square_make(s[0] - '1', s[1] - '1');
}

/* Counts of each type on the board and in hands, for "00AL". */
static void add_all_remaining(Setup *s, Color c) {
    int used[PIECE_TYPE_NB] = {0};
    for (int sq = 0; sq < SQ_NB; sq++)
        if (s->board[sq])
            used[piece_type_demote(piece_type(s->board[sq]))]++;
    for (int cc = 0; cc < 2; cc++)
        for (int pt = PAWN; pt <= GOLD; pt++)
            used[pt] += s->hands[cc][pt];
    for (int pt = PAWN; pt <= GOLD; pt++)
        if (used[pt] < PIECE_TYPE_TOTAL[pt])
            s->hands[c][pt] += PIECE_TYPE_TOTAL[pt] - used[pt];
}

/* One P statement; returns false with a reason. */
static bool parse_p(Setup *s, const char *t, size_t n, const char **why) {
    if (n >= 2 && t[1] == 'I') {
        setup_hirate(s);
        for (size_t i = 2; i + 4 <= n; i += 4) {
            int sq = square_of(t + i);
            PieceType pt = csa_piece(t + i + 2);
            if (sq < 0 || !pt || piece_type(s->board[sq]) != pt) {
                *why = "bad PI removal";
                return false;
            }
            s->board[sq] = NO_PIECE;
        }
        return true;
    }
    if (n >= 2 && t[1] >= '1' && t[1] <= '9') {
        int rank = t[1] - '1';
        s->any = true;
        for (int i = 0; i < 9; i++) {
            size_t o = 2 + (size_t)i * 3;
            int file = 8 - i;
            if (o >= n) /* trailing empty cells trimmed */
                break;
            char c[3] = {t[o], o + 1 < n ? t[o + 1] : ' ', o + 2 < n ? t[o + 2] : ' '};
            if (c[1] == '*' || (c[0] == ' ' && c[1] == ' ')) {
                s->board[square_make(file, rank)] = NO_PIECE;
                continue;
            }
            PieceType pt = csa_piece(c + 1);
            if ((c[0] != '+' && c[0] != '-') || !pt) {
                *why = "bad piece in P row";
                return false;
            }
            s->board[square_make(file, rank)] = piece_make(c[0] == '+' ? BLACK : WHITE, pt);
        }
        return true;
    }
    if (n >= 2 && (t[1] == '+' || t[1] == '-')) {
        Color c = t[1] == '+' ? BLACK : WHITE;
        s->any = true;
        for (size_t i = 2; i + 4 <= n; i += 4) {
            if (!memcmp(t + i, "00AL", 4)) {
                add_all_remaining(s, c);
                continue;
            }
            int sq = square_of(t + i);
            PieceType pt = csa_piece(t + i + 2);
            if (!pt) {
                *why = "bad piece in P+/P- line";
                return false;
            }
            if (t[i] == '0' && t[i + 1] == '0') {
                if (pt > GOLD) {
                    *why = "promoted piece in hand";
                    return false;
                }
                s->hands[c][pt]++;
            } else if (sq >= 0) {
                s->board[sq] = piece_make(c, pt);
            } else {
                *why = "bad square in P+/P- line";
                return false;
            }
        }
        return true;
    }
    *why = "unknown P statement";
    return false;
}

static void set_result_from_end(GameBuilder *b, const char *m) {
    Color us = b->g.pos.side;
    RecordResult win_us = us == BLACK ? REC_BLACK_WIN : REC_WHITE_WIN;
    RecordResult lose_us = us == BLACK ? REC_WHITE_WIN : REC_BLACK_WIN;
    if (!strcmp(m, "TORYO") || !strcmp(m, "TIME_UP") || !strcmp(m, "ILLEGAL_MOVE") || !strcmp(m, "TSUMI"))
        b->result = lose_us;
    else if (!strcmp(m, "KACHI"))
        b->result = win_us;
    else if (!strcmp(m, "+ILLEGAL_ACTION"))
        b->result = REC_WHITE_WIN;
    else if (!strcmp(m, "-ILLEGAL_ACTION"))
        b->result = REC_BLACK_WIN;
    else if (!strcmp(m, "SENNICHITE") || !strcmp(m, "OUTE_SENNICHITE")) {
        RepetitionState r = position_sennichite(&b->g.pos);
        b->result = r == REPETITION_WIN ? win_us : r == REPETITION_LOSE ? lose_us : REC_DRAW;
    } else if (!strcmp(m, "JISHOGI") || !strcmp(m, "HIKIWAKE") || !strcmp(m, "MAX_MOVES"))
        b->result = REC_DRAW;
    else
        b->result = REC_RESULT_UNKNOWN; /* CHUDAN, MATTA, FUZUMI, ERROR, unknown words */
}

/* The verdict of one "NAME win|lose|draw" part of a summary for the player named name:
 * 1 win, -1 lose, 0 draw, 2 when the part is about someone else or unreadable. */
static int summary_verdict(const char *part, size_t len, const char *name) {
    const char *sp = NULL;
    for (size_t i = 0; i < len; i++)
        if (part[i] == ' ')
            sp = part + i;
    if (!sp || !name[0] || (size_t)(sp - part) != strlen(name) || memcmp(part, name, strlen(name)) != 0)
        return 2;
    size_t n = len - (size_t)(sp + 1 - part);
    return n == 3 && !memcmp(sp + 1, "win", 3)    ? 1
           : n == 4 && !memcmp(sp + 1, "lose", 4) ? -1
           : n == 4 && !memcmp(sp + 1, "draw", 4) ? 0
                                                  : 2;
}

/* The server's own verdict, "'summary:REASON:NAME1 win|lose|draw:NAME2 win|lose|draw"
 * (shogi-server), overrides what the end marker implies: a %KACHI the server judged
 * illegal ("illegal kachi") is a loss for the declarer. Ignored unless both parts name
 * the two players (different names) with matching verdicts. */
static void apply_summary(GameBuilder *b, const char *s) {
    const char *c1 = strchr(s, ':');
    const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c2 || !strcmp(b->black, b->white))
        return;
    const char *p1 = c1 + 1, *p2 = c2 + 1;
    size_t l1 = (size_t)(c2 - p1), l2 = strcspn(p2, "\r\n");
    while (l2 && p2[l2 - 1] == ' ')
        l2--;
    int vb = summary_verdict(p1, l1, b->black), vw = summary_verdict(p2, l2, b->white);
    if (vb == 2 || vw == 2) {
        vb = summary_verdict(p2, l2, b->black);
        vw = summary_verdict(p1, l1, b->white);
    }
    if (vb == 2 || vw == 2 || vb != -vw)
        return;
    b->result = vb > 0 ? REC_BLACK_WIN : vb < 0 ? REC_WHITE_WIN : REC_DRAW;
}

static int32_t parse_rate(const char *s) {
    const char *c = strrchr(s, ':');
    if (!c)
        return REC_NO_RATING;
    char *end;
    double v = strtod(c + 1, &end);
    if (end == c + 1 || !(v > -100000 && v < 100000))
        return REC_NO_RATING;
    return (int32_t)lround(v);
}

static void read_move(GameBuilder *b, const char *t, size_t n, uint64_t line) {
    const char *why = NULL;
    Move m = csa_move_parse(&b->g.pos, t, n, &why);
    if (m == MOVE_NONE) {
        gb_error(b, line, "%s '%.*s'", why, n < 7 ? (int)n : 7, t);
        return;
    }
    if (!gb_push(b, m))
        gb_error(b, line, "too many moves");
}

bool csa_read(LineSrc *src, GameBuilder *b) {
    Setup setup;
    memset(&setup, 0, sizeof setup);
    bool in_game = false, have_moves = false, oom = false;
    gb_reset(b, true);
    while (!b->stop && ls_next(src, &oom)) {
        char *line = src->line;
        uint64_t ln = src->lineno;
        if (!in_game && line[0]) {
            in_game = true;
            b->start_line = ln;
        }
        if (line[0] == '/' && (line[1] == 0 || line[1] == ' ')) {
            if (b->active)
                gb_emit(b);
            gb_reset(b, true);
            memset(&setup, 0, sizeof setup);
            in_game = have_moves = false;
            continue;
        }
        if (line[0] == '\'') {
            if (!strncmp(line, "'black_rate:", 12))
                b->black_rating = parse_rate(line);
            else if (!strncmp(line, "'white_rate:", 12))
                b->white_rating = parse_rate(line);
            else if (!strncmp(line, "'summary:", 9) && b->active && b->end[0])
                apply_summary(b, line + 9);
            else if (line[1] == '*')
                gb_comment(b, line + 2);
            continue;
        }
        if (line[0] == 'N' && (line[1] == '+' || line[1] == '-')) {
            char *dst = line[1] == '+' ? b->black : b->white;
            rec_copy_trim(dst, REC_NAME_MAX, line + 2, strlen(line + 2));
            char *q = strchr(dst, '\''); /* a comment on the same line */
            if (q)
                *q = 0;
            continue;
        }
        if (!strncmp(line, "$EVENT:", 7)) {
            rec_copy_trim(b->event, sizeof b->event, line + 7, strlen(line + 7));
            continue;
        }
        if (!strncmp(line, "$TIME", 5)) {
            /* a value that does not read states nothing: the game itself is fine */
            const char *v = line + 5;
            RecordTimeControl *dst = v[0] == ':'                  ? &b->time_both
                                     : v[0] == '+' && v[1] == ':' ? &b->time_side[BLACK]
                                     : v[0] == '-' && v[1] == ':' ? &b->time_side[WHITE]
                                                                  : NULL;
            if (dst) {
                v += v[0] == ':' ? 1 : 2;
                if (!record_time_control_parse(v, strlen(v), dst))
                    *dst = (RecordTimeControl){0};
            }
            continue;
        }
        if (line[0] == '$' || line[0] == 'V' || line[0] == 0)
            continue;
        /* statements separated by commas; a "'" starts a comment to the end of the line */
        char *p = line;
        while (*p && !b->stop) {
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p == '\'' || !*p)
                break;
            char *e = strchr(p, ',');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
                n--;
            if (b->bad) {
                /* skip to the next game */
            } else if (p[0] == 'P') {
                const char *why = NULL;
                if (b->active || have_moves)
                    gb_error(b, ln, "P statement after the moves began");
                else if (!parse_p(&setup, p, n, &why))
                    gb_error(b, ln, "%s", why);
            } else if ((p[0] == '+' || p[0] == '-') && n == 1) {
                if (!b->active) {
                    char sfen[SFEN_MAX + 16];
                    if (!setup.any)
                        setup_hirate(&setup);
                    rec_make_sfen(setup.board, setup.hands, p[0] == '+' ? BLACK : WHITE, 1, sfen);
                    gb_set_root(b, sfen, ln);
                }
            } else if ((p[0] == '+' || p[0] == '-') && n > 1) {
                if (!b->active)
                    gb_error(b, ln, "move before the initial position");
                else {
                    have_moves = true;
                    read_move(b, p, n, ln);
                }
            } else if (p[0] == 'T') {
                /* time spent: accepted, not used */
            } else if (p[0] == '%') {
                if (b->active) {
                    rec_copy_trim(b->end, sizeof b->end, p + 1, n - 1);
                    set_result_from_end(b, b->end);
                }
            } else {
                gb_error(b, ln, "unknown statement '%.*s'", (int)(n > 20 ? 20 : n), p);
            }
            if (!e)
                break;
            p = e + 1;
        }
    }
    if (b->active && !oom)
        gb_emit(b);
    return !oom;
}
