/* message.c - the Game_Summary parser and the reader of a game's lines (message.h). */
#include "csa/message.h"

#include <string.h>

#include "record/reader.h"
#include "util/error.h"
#include "util/parse.h"

enum { SEC_TOP, SEC_TIME, SEC_POSITION, SEC_DONE, SEC_FAILED };

/* Fields a summary must have. */
enum { SEEN_NAME_B = 1, SEEN_NAME_W = 2, SEEN_YOUR_TURN = 4, SEEN_POSITION = 8, SEEN_BEGIN = 16 };

static const char *const END_WORDS[CSA_END_NB] = {
    "WIN",     "LOSE",         "DRAW",       "CENSORED",        "CHUDAN",  "RESIGN",
    "TIME_UP", "ILLEGAL_MOVE", "SENNICHITE", "OUTE_SENNICHITE", "JISHOGI", "MAX_MOVES"};

const char *csa_end_word_name(CsaEndWord w) { return w < CSA_END_NB ? END_WORDS[w] : "?"; }

bool csa_end_word_is_final(CsaEndWord w) { return w <= CSA_END_CHUDAN; }

void csa_summary_begin(CsaSummaryParser *p, CsaSummary *out) {
    memset(out, 0, sizeof *out);
    out->time_unit_ms = 1000;
    out->my_color = COLOR_NB;
    out->to_move = COLOR_NB;
    for (int c = 0; c < COLOR_NB; c++)
        out->time[c].remaining_ms = -1;
    p->out = out;
    p->lines = 0;
    p->section = SEC_TOP;
    p->seen = 0;
    p->time_side = COLOR_NB;
    p->pos_moves = 0;
    p->pos_len = 0;
    p->pos_text[0] = 0;
}

static CsaFeed fail(CsaSummaryParser *p, char *err, size_t err_len, const char *why, const char *line) {
    p->section = SEC_FAILED;
    error_set(err, err_len, "summary line %d: %s: '%.60s'", p->lines, why, line);
    return CSA_FEED_ERROR;
}

static bool parse_units(const char *v, int64_t *out) {
    long long x;
    if (!parse_integer(v, 0, CSA_TIME_UNITS_MAX, &x))
        return false;
    *out = x;
    return true;
}

/* "1sec", "1min", "1msec", "10sec": a whole count and a unit. */
static bool parse_time_unit(const char *v, int64_t *ms) {
    char num[16];
    size_t n = 0;
    while (v[n] >= '0' && v[n] <= '9' && n < sizeof num - 1) {
        num[n] = v[n];
        n++;
    }
    num[n] = 0;
    long long k;
    if (!n || !parse_integer(num, 1, 3600, &k))
        return false;
    const char *u = v + n;
    int64_t per = !strcmp(u, "msec") ? 1 : !strcmp(u, "sec") ? 1000 : !strcmp(u, "min") ? 60000 : 0;
    if (!per)
        return false;
    *ms = k * per;
    return true;
}

static bool copy_field(char *dst, const char *v) {
    size_t n = strlen(v);
    if (n == 0 || n >= CSA_FIELD_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
            return false;
    memcpy(dst, v, n + 1);
    return true;
}

/* A Time section key: applies to p->time_side (both when COLOR_NB). */
static bool time_field(CsaSummaryParser *p, const char *key, const char *v, const char **why) {
    CsaSummary *s = p->out;
    int64_t u;
    if (!strcmp(key, "Time_Unit")) {
        if (!parse_time_unit(v, &s->time_unit_ms)) {
            *why = "bad Time_Unit";
            return false;
        }
        return true;
    }
    if (!strcmp(key, "Time_Roundup")) {
        bool yes = !strcmp(v, "YES");
        if (!yes && strcmp(v, "NO")) {
            *why = "Time_Roundup is neither YES nor NO";
            return false;
        }
        for (int c = 0; c < COLOR_NB; c++)
            if (p->time_side == COLOR_NB || (int)p->time_side == c)
                s->time[c].roundup = yes;
        return true;
    }
    if (!strcmp(key, "Remaining_Time+") || !strcmp(key, "Remaining_Time-")) {
        if (!parse_units(v, &u)) {
            *why = "bad remaining time";
            return false;
        }
        s->time[key[14] == '+' ? BLACK : WHITE].remaining_ms = u; /* in units until the end */
        return true;
    }
    size_t off;
    if (!strcmp(key, "Total_Time"))
        off = offsetof(CsaSideTime, total_ms);
    else if (!strcmp(key, "Byoyomi"))
        off = offsetof(CsaSideTime, byoyomi_ms);
    else if (!strcmp(key, "Increment"))
        off = offsetof(CsaSideTime, increment_ms);
    else if (!strcmp(key, "Least_Time_Per_Move"))
        off = offsetof(CsaSideTime, least_ms);
    else
        return true; /* Last_Move, Current_Turn, ...: informational */
    if (!parse_units(v, &u)) {
        *why = "bad time value";
        return false;
    }
    for (int c = 0; c < COLOR_NB; c++)
        if (p->time_side == COLOR_NB || (int)p->time_side == c)
            *(int64_t *)(void *)((char *)&s->time[c] + off) = u; /* in units until the end */
    return true;
}

static bool top_field(CsaSummaryParser *p, const char *key, const char *v, const char **why) {
    CsaSummary *s = p->out;
    if (!strcmp(key, "Name+") || !strcmp(key, "Name-")) {
        bool b = key[4] == '+';
        if (!copy_field(s->name[b ? BLACK : WHITE], v)) {
            *why = "bad name (empty, too long or with control characters)";
            return false;
        }
        p->seen |= b ? SEEN_NAME_B : SEEN_NAME_W;
    } else if (!strcmp(key, "Game_ID")) {
        if (!copy_field(s->game_id, v)) {
            *why = "bad Game_ID";
            return false;
        }
    } else if (!strcmp(key, "Your_Turn") || !strcmp(key, "To_Move")) {
        if (strcmp(v, "+") && strcmp(v, "-")) {
            *why = "the side is neither + nor -";
            return false;
        }
        Color c = v[0] == '+' ? BLACK : WHITE;
        if (key[0] == 'Y') {
            s->my_color = c;
            p->seen |= SEEN_YOUR_TURN;
        } else
            s->to_move = c;
    } else if (!strcmp(key, "Max_Moves")) {
        int m;
        if (!parse_int(v, 0, 1000000, &m)) {
            *why = "bad Max_Moves";
            return false;
        }
        s->max_moves = m;
    }
    /* Protocol_Version, Protocol_Mode, Format, Declaration, Rematch_On_Draw and unknown
     * keys carry nothing the client acts on. */
    return true;
}

typedef struct {
    CsaSummary *s;
    bool got;
    char why[160];
} ReadCtx;

static bool on_game(void *ctx, const RecordGame *g) {
    ReadCtx *r = ctx;
    if (r->got)
        return false;
    r->got = true;
    if (g->n_moves > CSA_MOVES_MAX) {
        error_set(r->why, sizeof r->why, "more than %d moves", CSA_MOVES_MAX);
        return false;
    }
    snprintf(r->s->root_sfen, sizeof r->s->root_sfen, "%s", g->root_sfen);
    memcpy(r->s->moves, g->moves, (size_t)g->n_moves * sizeof *g->moves);
    r->s->n_moves = g->n_moves;
    return false;
}

static void on_error(void *ctx, const char *file, uint64_t line, const char *reason) {
    (void)file;
    ReadCtx *r = ctx;
    if (!r->why[0])
        error_set(r->why, sizeof r->why, "position block line %llu: %s", (unsigned long long)line, reason);
}

/* Reads the position block's text; fills root_sfen and moves. */
static bool read_position(CsaSummaryParser *p, char *err, size_t err_len) {
    ReadCtx r = {.s = p->out};
    RecordReadOptions opt = {.on_game = on_game, .on_error = on_error, .ctx = &r};
    char rerr[160] = "";
    if (!record_read_memory("Game_Summary", p->pos_text, p->pos_len, REC_FMT_CSA, &opt, NULL, rerr, sizeof rerr)) {
        error_set(err, err_len, "summary line %d: position block: %s", p->lines, rerr);
        return false;
    }
    if (r.why[0] || !r.got) {
        error_set(err, err_len, "summary line %d: %s", p->lines, r.why[0] ? r.why : "position block holds no position");
        return false;
    }
    /* records may hold tsume positions with one king; a game needs both, legally placed */
    Position pos;
    StateInfo st;
    char why[128];
    if (!position_from_sfen(&pos, &st, r.s->root_sfen, why, sizeof why) ||
        !position_legality_report(&pos, why, sizeof why)) {
        error_set(err, err_len, "summary line %d: the position cannot start a game: %s", p->lines, why);
        return false;
    }
    if (r.s->n_moves != p->pos_moves) {
        error_set(err, err_len, "summary line %d: position block: %d of its %d moves read", p->lines, r.s->n_moves,
                  p->pos_moves);
        return false;
    }
    return true;
}

static bool append_pos(CsaSummaryParser *p, const char *line, size_t n) {
    if (p->pos_len + n + 2 > sizeof p->pos_text)
        return false;
    memcpy(p->pos_text + p->pos_len, line, n);
    p->pos_len += n;
    p->pos_text[p->pos_len++] = '\n';
    p->pos_text[p->pos_len] = 0;
    return true;
}

/* A position-block line: kept for the reader; a move's ",T<n>" is taken off here. */
static bool position_line(CsaSummaryParser *p, const char *line, const char **why) {
    size_t n = strlen(line);
    if ((line[0] == '+' || line[0] == '-') && n > 1) {
        if (p->pos_moves >= CSA_MOVES_MAX) {
            *why = "too many moves in the position block";
            return false;
        }
        CsaMsg m;
        char mwhy[96];
        if (!csa_message_parse(line, &m, mwhy, sizeof mwhy) || m.type != CSA_MSG_MOVE) {
            *why = "malformed move in the position block";
            return false;
        }
        p->out->move_units[p->pos_moves++] = m.units;
        if (!append_pos(p, m.move, 7)) {
            *why = "position block too long";
            return false;
        }
        return true;
    }
    if (line[0] == '%' || line[0] == '#' || line[0] == '/' || line[0] == 'N' || line[0] == '$') {
        *why = "unexpected statement in the position block";
        return false;
    }
    if (!append_pos(p, line, n)) {
        *why = "position block too long";
        return false;
    }
    return true;
}

static CsaFeed finish(CsaSummaryParser *p, const char *line, char *err, size_t err_len) {
    CsaSummary *s = p->out;
    const unsigned need = SEEN_BEGIN | SEEN_NAME_B | SEEN_NAME_W | SEEN_YOUR_TURN | SEEN_POSITION;
    if ((p->seen & need) != need) {
        const char *what = !(p->seen & (SEEN_NAME_B | SEEN_NAME_W)) ? "Name+/Name-"
                           : !(p->seen & SEEN_NAME_B)               ? "Name+"
                           : !(p->seen & SEEN_NAME_W)               ? "Name-"
                           : !(p->seen & SEEN_YOUR_TURN)            ? "Your_Turn"
                                                                    : "the position block";
        char why[64];
        error_set(why, sizeof why, "the summary has no %s", what);
        return fail(p, err, err_len, why, line);
    }
    /* To_Move names the side to move of the position block's position (CSA 1.2.1), or,
     * as shogi-server writes it for a game with moves already played, after them */
    const char *sp = strchr(s->root_sfen, ' ');
    Color root_side = sp && sp[1] == 'w' ? WHITE : BLACK;
    Color now_side = (s->n_moves & 1) ? (Color)!root_side : root_side;
    if (s->to_move != COLOR_NB && s->to_move != root_side && s->to_move != now_side)
        return fail(p, err, err_len, "To_Move is not the side to move", line);
    /* Times were kept in units; now milliseconds, with overflow impossible: units are at
     * most CSA_TIME_UNITS_MAX and a unit at most an hour. */
    for (int c = 0; c < COLOR_NB; c++) {
        CsaSideTime *t = &s->time[c];
        t->total_ms *= s->time_unit_ms;
        t->byoyomi_ms *= s->time_unit_ms;
        t->increment_ms *= s->time_unit_ms;
        t->least_ms *= s->time_unit_ms;
        if (t->remaining_ms >= 0)
            t->remaining_ms *= s->time_unit_ms;
    }
    p->section = SEC_DONE;
    return CSA_FEED_DONE;
}

CsaFeed csa_summary_feed(CsaSummaryParser *p, const char *line, char *err, size_t err_len) {
    if (p->section == SEC_DONE || p->section == SEC_FAILED)
        return fail(p, err, err_len, "line after the end of the summary", line);
    p->lines++;
    if (p->lines > CSA_SUMMARY_LINES_MAX)
        return fail(p, err, err_len, "summary too long", line);
    if (strlen(line) > CSA_LINE_MAX)
        return fail(p, err, err_len, "line too long", line);
    if (!(p->seen & SEEN_BEGIN)) {
        if (strcmp(line, "BEGIN Game_Summary"))
            return fail(p, err, err_len, "expected BEGIN Game_Summary", line);
        p->seen |= SEEN_BEGIN;
        return CSA_FEED_MORE;
    }
    const char *why = NULL;
    if (p->section == SEC_POSITION) {
        if (!strcmp(line, "END Position")) {
            if (!read_position(p, err, err_len)) {
                p->section = SEC_FAILED;
                return CSA_FEED_ERROR;
            }
            p->seen |= SEEN_POSITION;
            p->section = SEC_TOP;
            return CSA_FEED_MORE;
        }
        if (!position_line(p, line, &why))
            return fail(p, err, err_len, why, line);
        return CSA_FEED_MORE;
    }
    if (line[0] == 0)
        return CSA_FEED_MORE; /* a keep-alive between lines */
    if (!strncmp(line, "BEGIN ", 6) || !strncmp(line, "END ", 4)) {
        bool begin = line[0] == 'B';
        const char *what = line + (begin ? 6 : 4);
        bool time = !strcmp(what, "Time") || !strcmp(what, "Time+") || !strcmp(what, "Time-");
        if (begin && p->section == SEC_TOP && time) {
            p->section = SEC_TIME;
            p->time_side = what[4] == '+' ? BLACK : what[4] == '-' ? WHITE : COLOR_NB;
        } else if (!begin && p->section == SEC_TIME && time) {
            p->section = SEC_TOP;
        } else if (begin && p->section == SEC_TOP && !strcmp(what, "Position")) {
            if (p->seen & SEEN_POSITION)
                return fail(p, err, err_len, "a second position block", line);
            p->section = SEC_POSITION;
        } else if (!begin && p->section == SEC_TOP && !strcmp(what, "Game_Summary")) {
            return finish(p, line, err, err_len);
        } else {
            return fail(p, err, err_len, "unexpected BEGIN/END", line);
        }
        return CSA_FEED_MORE;
    }
    const char *colon = strchr(line, ':');
    if (!colon || colon == line || colon - line > 40)
        return fail(p, err, err_len, "not a Key:Value line", line);
    char key[48];
    memcpy(key, line, (size_t)(colon - line));
    key[colon - line] = 0;
    bool ok = p->section == SEC_TIME ? time_field(p, key, colon + 1, &why) : top_field(p, key, colon + 1, &why);
    if (!ok)
        return fail(p, err, err_len, why, line);
    return CSA_FEED_MORE;
}

/* ",T<n>" and ",'comment" after a move or special word. */
static bool parse_tail(const char *t, CsaMsg *out, char *why, size_t why_len) {
    out->units = -1;
    while (*t) {
        if (t[0] != ',') {
            error_set(why, why_len, "trailing text '%.20s'", t);
            return false;
        }
        if (t[1] == '\'')
            return true; /* a comment runs to the end of the line */
        if (t[1] != 'T' || out->units >= 0) {
            error_set(why, why_len, "unknown field '%.20s'", t + 1);
            return false;
        }
        const char *d = t + 2;
        size_t n = 0;
        while (d[n] >= '0' && d[n] <= '9')
            n++;
        char num[16];
        long long u;
        if (n == 0 || n >= sizeof num) {
            error_set(why, why_len, "bad time '%.20s'", t + 1);
            return false;
        }
        memcpy(num, d, n);
        num[n] = 0;
        if (!parse_integer(num, 0, CSA_TIME_UNITS_MAX, &u)) {
            error_set(why, why_len, "time out of range '%.20s'", t + 1);
            return false;
        }
        out->units = u;
        t = d + n;
    }
    return true;
}

bool csa_message_parse(const char *line, CsaMsg *out, char *why, size_t why_len) {
    memset(out, 0, sizeof *out);
    out->units = -1;
    size_t len = strlen(line);
    if (len > CSA_LINE_MAX) {
        error_set(why, why_len, "line too long");
        return false;
    }
    if (len == 0) {
        out->type = CSA_MSG_EMPTY;
        return true;
    }
    if (line[0] == '+' || line[0] == '-') {
        bool shape = len >= 7;
        for (int i = 1; shape && i < 5; i++)
            shape = line[i] >= '0' && line[i] <= '9';
        for (int i = 5; shape && i < 7; i++)
            shape = line[i] >= 'A' && line[i] <= 'Z';
        if (!shape) {
            error_set(why, why_len, "malformed move '%.20s'", line);
            return false;
        }
        out->type = CSA_MSG_MOVE;
        memcpy(out->move, line, 7);
        out->move[7] = 0;
        return parse_tail(line + 7, out, why, why_len);
    }
    if (line[0] == '%') {
        static const char *const words[] = {"%TORYO", "%KACHI", "%CHUDAN"};
        for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
            size_t n = strlen(words[i]);
            if (!strncmp(line, words[i], n) && (line[n] == 0 || line[n] == ',')) {
                out->type = CSA_MSG_SPECIAL;
                memcpy(out->special, words[i], n + 1);
                return parse_tail(line + n, out, why, why_len);
            }
        }
        error_set(why, why_len, "unknown special move '%.20s'", line);
        return false;
    }
    if (line[0] == '#') {
        for (int w = 0; w < CSA_END_NB; w++)
            if (!strcmp(line + 1, END_WORDS[w])) {
                out->type = CSA_MSG_END;
                out->word = (CsaEndWord)w;
                return true;
            }
        error_set(why, why_len, "unknown result '%.20s'", line);
        return false;
    }
    error_set(why, why_len, "not a CSA game message '%.20s'", line);
    return false;
}
