/* reader.c - the common part of the record readers: format and encoding detection, the
 * line source, the game builder, and the USI / .sfen list reader. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "record/internal.h"
#include "shogi/notation.h"
#include "util/error.h"

const char *record_result_name(RecordResult r) {
    return r == REC_BLACK_WIN ? "black" : r == REC_WHITE_WIN ? "white" : r == REC_DRAW ? "draw" : "unknown";
}

RecordFormat record_format_from_path(const char *path) {
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return REC_FMT_AUTO;
    dot++;
    if (!strcasecmp(dot, "csa"))
        return REC_FMT_CSA;
    if (!strcasecmp(dot, "kif") || !strcasecmp(dot, "kifu"))
        return REC_FMT_KIF;
    if (!strcasecmp(dot, "ki2") || !strcasecmp(dot, "ki2u"))
        return REC_FMT_KI2;
    if (!strcasecmp(dot, "sfen") || !strcasecmp(dot, "usi"))
        return REC_FMT_USI;
    return REC_FMT_AUTO;
}

static bool has_prefix(const char *s, size_t len, const char *p) {
    size_t n = strlen(p);
    return len >= n && !memcmp(s, p, n);
}

static bool contains(const char *s, size_t len, const char *p) {
    size_t n = strlen(p);
    for (size_t i = 0; i + n <= len; i++)
        if (!memcmp(s + i, p, n))
            return true;
    return false;
}

RecordFormat record_format_sniff(const char *data, size_t len) {
    bool kif_moves = false, ki2_moves = false;
    size_t pos = 0;
    if (len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3))
        pos = 3;
    for (int lines = 0; pos < len && lines < 200; lines++) {
        const char *nl = memchr(data + pos, '\n', len - pos);
        size_t l = nl ? (size_t)(nl - (data + pos)) : len - pos;
        const char *s = data + pos;
        pos += l + 1;
        while (l && (*s == ' ' || *s == '\t')) {
            s++;
            l--;
        }
        if (!l)
            continue;
        if (has_prefix(s, l, "position ") || has_prefix(s, l, "startpos") || has_prefix(s, l, "sfen ") ||
            (s[0] != '#' && (contains(s, l, "| position ") || contains(s, l, "| startpos"))))
            return REC_FMT_USI;
        if (has_prefix(s, l, "V2") || has_prefix(s, l, "V3") || has_prefix(s, l, "PI") || has_prefix(s, l, "P1") ||
            has_prefix(s, l, "N+") || has_prefix(s, l, "N-") ||
            ((s[0] == '+' || s[0] == '-') && l >= 7 && s[1] >= '0' && s[1] <= '9'))
            return REC_FMT_CSA;
        /* 手数---- (UTF-8 E6 89 8B E6 95 B0, Shift_JIS 8E E8 90 94) or a numbered move line */
        if (has_prefix(s, l, "\xE6\x89\x8B\xE6\x95\xB0-") || has_prefix(s, l, "\x8E\xE8\x90\x94-"))
            kif_moves = true;
        if (s[0] >= '1' && s[0] <= '9')
            kif_moves = true;
        /* ▲ △ (UTF-8 E2 96 B2 / E2 96 B3, Shift_JIS 81 A3 / 81 A2), ☗ ☖ */
        if (has_prefix(s, l, "\xE2\x96\xB2") || has_prefix(s, l, "\xE2\x96\xB3") || has_prefix(s, l, "\x81\xA3") ||
            has_prefix(s, l, "\x81\xA2") || has_prefix(s, l, "\xE2\x98\x97") || has_prefix(s, l, "\xE2\x98\x96"))
            ki2_moves = true;
    }
    if (kif_moves)
        return REC_FMT_KIF;
    if (ki2_moves)
        return REC_FMT_KI2;
    return REC_FMT_AUTO;
}

/* ---- encodings ---- */

static bool valid_utf8(const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        int k = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : -1;
        if (k < 0 || (k == 1 && c < 0xC2))
            return false;
        if (i + (size_t)k >= n && k > 0)
            return true; /* cut at the end of the sample */
        for (int j = 1; j <= k; j++)
            if ((s[i + j] & 0xC0) != 0x80)
                return false;
        i += (size_t)k + 1;
    }
    return true;
}

/* True when iconv converts the sample without an invalid sequence. */
static bool converts(const char *from, const char *s, size_t n) {
    iconv_t cd = iconv_open("UTF-8", from);
    if (cd == (iconv_t)-1)
        return false;
    char out[4096];
    char *in = (char *)s;
    size_t left = n;
    bool ok = true;
    while (left) {
        char *o = out;
        size_t ol = sizeof out;
        if (iconv(cd, &in, &left, &o, &ol) == (size_t)-1) {
            if (errno == E2BIG)
                continue;
            ok = errno == EINVAL; /* incomplete at the end of the sample */
            break;
        }
    }
    iconv_close(cd);
    return ok;
}

/* "UTF-16LE" or "UTF-16BE" when the sample is UTF-16 text (a byte order mark, or ASCII
 * with every other byte zero), else NULL. Lines are split on the byte '\n', which UTF-16
 * does not have, so such a file is refused by name rather than read as no game. */
static const char *utf16_kind(const unsigned char *s, size_t n) {
    if (n >= 2 && s[0] == 0xFF && s[1] == 0xFE)
        return "UTF-16LE";
    if (n >= 2 && s[0] == 0xFE && s[1] == 0xFF)
        return "UTF-16BE";
    size_t zero_even = 0, zero_odd = 0, m = n < 1024 ? n & ~(size_t)1 : 1024;
    for (size_t i = 0; i < m; i += 2) {
        zero_even += s[i] == 0;
        zero_odd += s[i + 1] == 0;
    }
    if (m >= 16 && zero_odd * 10 >= m / 2 * 8 && zero_even * 10 <= m / 2)
        return "UTF-16LE";
    if (m >= 16 && zero_even * 10 >= m / 2 * 8 && zero_odd * 10 <= m / 2)
        return "UTF-16BE";
    return NULL;
}

/* True when the rem bytes at h start with word, case-insensitively (h is not NUL-terminated). */
static bool starts_ci(const char *h, size_t rem, const char *word) {
    size_t k = strlen(word);
    return rem >= k && !strncasecmp(h, word, k);
}

/* Picks the source encoding from a sample: NULL for UTF-8 / ASCII. */
static const char *detect_encoding(const char *s, size_t n) {
    if (n >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3))
        return NULL;
    if (valid_utf8((const unsigned char *)s, n))
        return NULL;
    const char *h = NULL;
    for (size_t i = 0; i + 9 < n && i < 4096; i++)
        if (!memcmp(s + i, "encoding=", 9)) {
            h = s + i + 9;
            break;
        }
    if (h) {
        /* the sample is not NUL-terminated: compare only what it holds (fuzz_csa found a read
         * past the end of "...encoding=s") */
        size_t rem = n - (size_t)(h - s);
        if (starts_ci(h, rem, "Shift_JIS") || starts_ci(h, rem, "SJIS") || starts_ci(h, rem, "cp932"))
            return "CP932";
        if (starts_ci(h, rem, "EUC-JP") || starts_ci(h, rem, "EUC_JP"))
            return "EUC-JP";
        /* a UTF-8 claim is wrong here: the bytes are not UTF-8 (Kifu for Windows does this) */
    }
    bool sjis = converts("CP932", s, n), euc = converts("EUC-JP", s, n);
    if (euc && !sjis)
        return "EUC-JP";
    if (sjis && euc) {
        /* Both decode: EUC-JP uses lead bytes 0xA1-0xFE (and 0x8E kana); Shift_JIS kanji
         * leads are mostly 0x81-0x9F, which EUC-JP never uses except 0x8E/0x8F. */
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)s[i];
            if (c >= 0x80 && c <= 0xA0 && c != 0x8E && c != 0x8F)
                return "CP932";
        }
        return "EUC-JP";
    }
    return "CP932";
}

static bool ensure(char **buf, size_t *cap, size_t need) {
    if (*cap >= need)
        return true;
    size_t c = *cap ? *cap : 256;
    while (c < need)
        c *= 2;
    char *p = realloc(*buf, c);
    if (!p)
        return false;
    *buf = p;
    *cap = c;
    return true;
}

bool ls_next(LineSrc *s, bool *oom) {
    const char *raw;
    size_t n;
    if (s->f) {
        ssize_t r = getline(&s->raw, &s->raw_cap, s->f);
        if (r < 0)
            return false;
        raw = s->raw;
        n = (size_t)r;
    } else {
        if (s->mem_pos >= s->mem_len)
            return false;
        raw = s->mem + s->mem_pos;
        const char *nl = memchr(raw, '\n', s->mem_len - s->mem_pos);
        n = nl ? (size_t)(nl - raw) + 1 : s->mem_len - s->mem_pos;
        s->mem_pos += n;
    }
    s->bytes += n;
    s->lineno++;
    if (s->progress)
        progress_update(s->progress, s->progress_base + s->bytes);
    while (n && (raw[n - 1] == '\n' || raw[n - 1] == '\r'))
        n--;
    if (s->lineno == 1 && n >= 3 && !memcmp(raw, "\xEF\xBB\xBF", 3)) {
        raw += 3;
        n -= 3;
    }
    if (s->cd == (iconv_t)-1) {
        if (!ensure(&s->line, &s->line_cap, n + 1)) {
            *oom = true;
            return false;
        }
        memcpy(s->line, raw, n);
        s->len = n;
    } else {
        if (!ensure(&s->line, &s->line_cap, n * 3 + 8)) {
            *oom = true;
            return false;
        }
        char *in = (char *)raw, *out = s->line;
        size_t il = n, ol = n * 3 + 4;
        iconv(s->cd, NULL, NULL, NULL, NULL);
        while (il) {
            if (iconv(s->cd, &in, &il, &out, &ol) != (size_t)-1)
                break;
            if (errno == E2BIG || ol < 2)
                break;
            *out++ = '?';
            ol--;
            in++;
            il--;
        }
        s->len = (size_t)(out - s->line);
    }
    /* NUL bytes would cut the line short silently: make them visible junk instead. */
    for (size_t i = 0; i < s->len; i++)
        if (!s->line[i])
            s->line[i] = '?';
    s->line[s->len] = 0;
    return true;
}

/* ---- the game builder ---- */

void gb_init(GameBuilder *b, const char *file, const RecordReadOptions *opt, RecordStats *st) {
    memset(b, 0, sizeof *b);
    b->file = file;
    b->opt = opt;
    b->st = st;
    game_init(&b->g);
    b->black_rating = b->white_rating = REC_NO_RATING;
}

void gb_free(GameBuilder *b) {
    game_free(&b->g);
    free(b->scores);
}

bool gb_push(GameBuilder *b, Move m) {
    if (b->g.count >= b->scores_cap) {
        int cap = b->scores_cap ? b->scores_cap * 2 : 256;
        int32_t *p = realloc(b->scores, (size_t)cap * sizeof *p);
        if (!p)
            return false;
        b->scores = p, b->scores_cap = cap;
    }
    if (!game_push(&b->g, m))
        return false;
    b->scores[b->g.count - 1] = REC_NO_SCORE;
    b->scores_n = b->g.count;
    return true;
}

void gb_comment(GameBuilder *b, const char *text) {
    int32_t v;
    if (b->active && b->g.count > 0 && record_comment_score(text, &v))
        b->scores[b->g.count - 1] = v;
}

static bool starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* A number as ShogiHome's [+-]?[.0-9]+ reads it, rounded; false when there is none. */
static bool comment_number(const char *s, double *out) {
    char *end;
    if (!((*s >= '0' && *s <= '9') || *s == '.' ||
          ((*s == '+' || *s == '-') && (s[1] == '.' || (s[1] >= '0' && s[1] <= '9')))))
        return false;
    *out = strtod(s, &end);
    return end != s;
}

bool record_comment_score(const char *text, int32_t *black_view) {
    double v;
    const char *p = NULL;
    if (starts_with(text, "*評価値=") || starts_with(text, "#評価値="))
        p = text + strlen("*評価値=");
    else if (starts_with(text, "*詰み=") || starts_with(text, "#詰み=")) {
        const char *q = text + strlen("*詰み=");
        int sign = starts_with(q, "先手勝ち") ? 1 : starts_with(q, "後手勝ち") ? -1 : 0;
        if (!sign)
            return false;
        q += strlen("先手勝ち");
        long n = 0;
        if (*q == ':')
            n = strtol(q + 1, NULL, 10);
        if (n < 0 || n > 32000)
            n = 0;
        *black_view = sign * (int32_t)(32000 - n);
        return true;
    } else if (text[0] == '*') {
        p = text + 1;
        while (*p == ' ')
            p++;
    }
    if (!p || !comment_number(p, &v))
        return false;
    v = v > 32000 ? 32000 : v < -32000 ? -32000 : v;
    *black_view = (int32_t)(v < 0 ? v - 0.5 : v + 0.5);
    return true;
}

void gb_error(GameBuilder *b, uint64_t line, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!b->bad) {
        b->st->errors++;
        if (b->opt->on_error)
            b->opt->on_error(b->opt->ctx, b->file, line, msg);
    }
    b->bad = true;
}

bool gb_set_root(GameBuilder *b, const char *sfen, uint64_t line) {
    char err[160];
    if (!game_set_sfen_ex(&b->g, sfen, SFEN_ALLOW_MISSING_KING, err, sizeof err)) {
        gb_error(b, line, "bad initial position: %s", err);
        return false;
    }
    b->active = true;
    return true;
}

void gb_emit(GameBuilder *b) {
    if (b->bad || !b->active || b->stop)
        return;
    b->st->games++;
    b->st->moves += (uint64_t)b->g.count;
    if (!b->opt->on_game)
        return;
    RecordGame rg = {.file = b->file,
                     .line = b->start_line,
                     .root_sfen = b->g.root_sfen,
                     .moves = b->g.moves,
                     .n_moves = b->g.count,
                     .result = b->result,
                     .end = b->end,
                     .black = b->black,
                     .white = b->white,
                     .event = b->event,
                     .black_rating = b->black_rating,
                     .white_rating = b->white_rating,
                     .variation = b->variation,
                     .time = {b->time_side[BLACK].set ? b->time_side[BLACK] : b->time_both,
                              b->time_side[WHITE].set ? b->time_side[WHITE] : b->time_both},
                     .scores = b->scores_n >= b->g.count && b->g.count ? b->scores : NULL};
    if (!b->opt->on_game(b->opt->ctx, &rg))
        b->stop = true;
}

void gb_reset(GameBuilder *b, bool clear_names) {
    b->active = b->bad = false;
    b->result = REC_RESULT_UNKNOWN;
    b->end[0] = 0;
    b->variation = 0;
    b->scores_n = 0;
    game_set_sfen(&b->g, STARTPOS_SFEN, NULL, 0);
    if (clear_names) {
        b->black[0] = b->white[0] = b->event[0] = 0;
        b->black_rating = b->white_rating = REC_NO_RATING;
        b->time_both = b->time_side[BLACK] = b->time_side[WHITE] = (RecordTimeControl){0};
    }
}

void rec_copy_trim(char *dst, size_t cap, const char *s, size_t len) {
    while (len && (*s == ' ' || *s == '\t')) {
        s++;
        len--;
    }
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    /* full-width spaces (E3 80 80) at the end, as KIF headers have */
    while (len >= 3 && !memcmp(s + len - 3, "\xE3\x80\x80", 3))
        len -= 3;
    if (len >= cap)
        len = cap - 1;
    memcpy(dst, s, len);
    dst[len] = 0;
}

void rec_make_sfen(const Piece board[SQ_NB], int hands[COLOR_NB][8], Color side, int ply, char *out) {
    static const char letters[] = " PLNSBRGK";
    char *p = out;
    for (int rank = 0; rank < 9; rank++) {
        int empty = 0;
        for (int file = 8; file >= 0; file--) {
            Piece pc = board[square_make(file, rank)];
            if (pc == NO_PIECE) {
                empty++;
                continue;
            }
            if (empty)
                *p++ = (char)('0' + empty);
            empty = 0;
            PieceType pt = piece_type(pc);
            if (piece_type_is_promoted(pt)) {
                *p++ = '+';
                pt = piece_type_demote(pt);
            }
            char ch = letters[pt];
            *p++ = piece_color(pc) == WHITE ? (char)(ch - 'A' + 'a') : ch;
        }
        if (empty)
            *p++ = (char)('0' + empty);
        if (rank < 8)
            *p++ = '/';
    }
    *p++ = ' ';
    *p++ = side == BLACK ? 'b' : 'w';
    *p++ = ' ';
    static const PieceType order[] = {ROOK, BISHOP, GOLD, SILVER, KNIGHT, LANCE, PAWN};
    bool any = false;
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 7; i++) {
            int n = hands[c][order[i]];
            if (n <= 0)
                continue;
            if (n > 1)
                p += sprintf(p, "%d", n > 18 ? 18 : n);
            char ch = letters[order[i]];
            *p++ = c == WHITE ? (char)(ch - 'A' + 'a') : ch;
            any = true;
        }
    if (!any)
        *p++ = '-';
    sprintf(p, " %d", ply < 1 ? 1 : ply);
}

/* ---- USI lines and .sfen lists ---- */

bool usi_read(LineSrc *src, GameBuilder *b) {
    bool oom = false;
    while (!b->stop && ls_next(src, &oom)) {
        char *s = src->line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (s[0] == '#')
            continue;
        /* "name | position ..." (rsshogi's test lists): take what follows the last bar */
        char *bar = strrchr(s, '|');
        if (bar)
            s = bar + 1;
        while (*s == ' ' || *s == '\t')
            s++;
        size_t n = strlen(s);
        while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
            s[--n] = 0;
        if (!n || s[0] == '#' || (s[0] == '/' && s[1] == '/'))
            continue;
        if (!strncmp(s, "position ", 9))
            s += 9;
        char buf[1024];
        const char *args = s;
        /* a bare SFEN ("board side hands [ply] [moves ...]") */
        if (strncmp(s, "startpos", 8) && strncmp(s, "sfen ", 5)) {
            if (strlen(s) + 6 >= sizeof buf) {
                gb_reset(b, true);
                b->start_line = src->lineno;
                gb_error(b, src->lineno, "line too long for a bare SFEN");
                continue;
            }
            snprintf(buf, sizeof buf, "sfen %s", s);
            args = buf;
        }
        gb_reset(b, true);
        b->start_line = src->lineno;
        char err[256];
        if (!game_set_from_usi(&b->g, args, err, sizeof err)) {
            gb_error(b, src->lineno, "%s", err);
            continue;
        }
        b->active = true;
        gb_emit(b);
    }
    return !oom;
}

/* ---- entry points ---- */

static bool read_src(LineSrc *src, const char *name, RecordFormat fmt, const char *sample, size_t sample_len,
                     const RecordReadOptions *opt, RecordStats *stats, char *err, size_t err_len) {
    RecordReadOptions none = {0};
    RecordStats dummy = {0};
    if (!opt)
        opt = &none;
    if (!stats)
        stats = &dummy;
    const char *wide = utf16_kind((const unsigned char *)sample, sample_len);
    if (wide) {
        snprintf(err, err_len, "%s: the text is %s, which is not supported: save the record as UTF-8 or Shift_JIS",
                 name, wide);
        return false;
    }
    if (fmt == REC_FMT_AUTO)
        fmt = record_format_from_path(name);
    if (fmt == REC_FMT_AUTO)
        fmt = record_format_sniff(sample, sample_len);
    if (fmt == REC_FMT_AUTO) {
        /* the sniffing looks at raw bytes; a KIF in another encoding may need conversion */
        fmt = REC_FMT_KIF;
    }
    const char *enc = detect_encoding(sample, sample_len);
    src->name = name;
    src->cd = (iconv_t)-1;
    if (enc) {
        src->cd = iconv_open("UTF-8", enc);
        if (src->cd == (iconv_t)-1) {
            return error_set(err, err_len, "%s: no iconv conversion from %s", name, enc);
        }
    }
    src->progress = opt->progress;
    src->progress_base = opt->progress_base;
    GameBuilder b;
    gb_init(&b, name, opt, stats);
    bool ok = fmt == REC_FMT_CSA   ? csa_read(src, &b)
              : fmt == REC_FMT_USI ? usi_read(src, &b)
                                   : kif_read(src, &b, fmt == REC_FMT_KI2);
    gb_free(&b);
    stats->bytes += src->bytes;
    if (src->cd != (iconv_t)-1)
        iconv_close(src->cd);
    free(src->raw);
    free(src->line);
    if (!ok)
        error_set(err, err_len, "%s: out of memory", name);
    return ok;
}

bool record_read_memory(const char *name, const char *data, size_t len, RecordFormat fmt, const RecordReadOptions *opt,
                        RecordStats *stats, char *err, size_t err_len) {
    LineSrc src = {0};
    src.mem = data;
    src.mem_len = len;
    return read_src(&src, name, fmt, data, len < 65536 ? len : 65536, opt, stats, err, err_len);
}

bool record_read_file(const char *path, RecordFormat fmt, const RecordReadOptions *opt, RecordStats *stats, char *err,
                      size_t err_len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        return error_set(err, err_len, "%s: %s", path, strerror(errno));
    }
    char *sample = malloc(65536);
    if (!sample) {
        fclose(f);
        return error_set(err, err_len, "%s: out of memory", path);
    }
    size_t n = fread(sample, 1, 65536, f);
    if (ferror(f) || fseek(f, 0, SEEK_SET) != 0) {
        error_set(err, err_len, "%s: %s", path, strerror(errno));
        free(sample);
        fclose(f);
        return false;
    }
    LineSrc src = {0};
    src.f = f;
    bool ok = read_src(&src, path, fmt, sample, n, opt, stats, err, err_len);
    if (ok && ferror(f)) {
        error_set(err, err_len, "%s: read error", path);
        ok = false;
    }
    free(sample);
    fclose(f);
    return ok;
}
