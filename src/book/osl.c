/* osl.c - OSL WeightedBook (joseki.dat) reader; see osl.h. */
#include "book/osl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/error.h"

/* OSL ptype -> our piece type; 0 for PTYPE_EMPTY and PTYPE_EDGE. */
static const PieceType OSL_PTYPE[16] = {NO_PIECE_TYPE, NO_PIECE_TYPE, PRO_PAWN, PRO_LANCE, PRO_KNIGHT, PRO_SILVER,
                                        HORSE,         DRAGON,        KING,     GOLD,      PAWN,       LANCE,
                                        KNIGHT,        SILVER,        BISHOP,   ROOK};

static int32_t be32(const uint8_t *p) {
    return (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3]);
}

/* The file size the counts imply, or 0 when they are out of range. */
static uint64_t implied_size(int32_t version, int32_t states, int32_t moves, int32_t start) {
    if (version != 1 || states <= 0 || moves < 0 || start < 0 || start >= states)
        return 0;
    return OSL_HEADER_SIZE + (uint64_t)states * (OSL_STATE_SIZE + OSL_BOARD_SIZE) + (uint64_t)moves * OSL_MOVE_SIZE;
}

bool osl_probe_header(const void *head, size_t n, uint64_t file_size) {
    const uint8_t *h = head;
    if (!h || n < OSL_HEADER_SIZE)
        return false;
    uint64_t want = implied_size(be32(h), be32(h + 4), be32(h + 8), be32(h + 12));
    return want != 0 && want == file_size;
}

/* Square from OSL's x << 4 | y byte (1..9 each); SQ_NONE for 0 (in hand); -1 when bad. */
static int osl_square(unsigned bits) {
    if (bits == 0)
        return SQ_NONE;
    unsigned x = bits >> 4, y = bits & 15;
    if (x < 1 || x > 9 || y < 1 || y > 9)
        return -1;
    return square_make((int)x - 1, (int)y - 1);
}

typedef struct {
    const char *name;
    const uint8_t *d;
    size_t len;
    uint32_t S, M;
    size_t states_at, moves_at, boards_at;
    char *err;
    size_t err_len;
} Reader;

/* Builds the position of state i into *pos and *st. */
static bool read_board(const Reader *r, uint32_t i, Position *pos, StateInfo *st) {
    size_t at = r->boards_at + (size_t)i * OSL_BOARD_SIZE;
    Piece board[SQ_NB] = {0};
    Hand hand[COLOR_NB] = {0, 0};
    for (int k = 0; k < 40; k++) {
        size_t off = at + 4 * (size_t)k;
        int32_t v = be32(r->d + off);
        int32_t owner = v >> 20;
        unsigned ptype = ((uint32_t)v >> 16) & 15, low = (uint32_t)v & 0xffff;
        if ((owner != 0 && owner != -1) || (low >> 8) != 0)
            return error_set(r->err, r->err_len, "%s: byte %zu: state %u: bad piece word 0x%08x", r->name, off, i,
                             (unsigned)v);
        PieceType pt = OSL_PTYPE[ptype];
        if (pt == NO_PIECE_TYPE)
            return error_set(r->err, r->err_len, "%s: byte %zu: state %u: bad piece code %u", r->name, off, i, ptype);
        Color c = owner ? WHITE : BLACK;
        int sq = osl_square(low);
        if (sq < 0)
            return error_set(r->err, r->err_len, "%s: byte %zu: state %u: bad square 0x%02x", r->name, off, i, low);
        if (sq == SQ_NONE) {
            if (pt == KING || piece_type_is_promoted(pt))
                return error_set(r->err, r->err_len, "%s: byte %zu: state %u: piece code %u cannot be in hand", r->name,
                                 off, i, ptype);
            hand[c] = hand_add(hand[c], pt);
            continue;
        }
        if (board[sq] != NO_PIECE)
            return error_set(r->err, r->err_len, "%s: byte %zu: state %u: two pieces on square %d%c", r->name, off, i,
                             square_file(sq) + 1, 'a' + square_rank(sq));
        board[sq] = piece_make(c, pt);
    }
    int32_t turn = be32(r->d + at + 160);
    if (turn != 0 && turn != -1)
        return error_set(r->err, r->err_len, "%s: byte %zu: state %u: bad side to move %d", r->name, at + 160, i,
                         (int)turn);
    char why[128];
    if (!position_from_parts(pos, st, board, hand, turn ? WHITE : BLACK, 1, why, sizeof why) ||
        !position_legality_report(pos, why, sizeof why))
        return error_set(r->err, r->err_len, "%s: byte %zu: state %u: not a legal position: %s", r->name, at, i, why);
    return true;
}

/* Decodes the OSL move word at byte off for pos into a legal Move; MOVE_NONE with err set. */
static Move decode_move(const Reader *r, size_t off, uint32_t state, const Position *pos) {
    uint32_t w = (uint32_t)be32(r->d + off);
    int from = osl_square(w & 0xff), to = osl_square((w >> 8) & 0xff);
    bool promote = (w >> 19) & 1;
    unsigned cap = (w >> 20) & 15, ptype = (w >> 24) & 15, player = w >> 28;
    const char *why = NULL;
    Move16 m16 = MOVE_NONE;
    if (from < 0 || to < 0 || to == SQ_NONE || ((w >> 16) & 7) != 0 || (player != 0 && player != 15))
        why = "malformed move word";
    else if ((player ? WHITE : BLACK) != pos->side)
        why = "move of the side not to move";
    else if (OSL_PTYPE[ptype] == NO_PIECE_TYPE || (cap != 0 && OSL_PTYPE[cap] == NO_PIECE_TYPE))
        why = "bad piece code in move";
    else if (from == SQ_NONE) {
        PieceType pt = OSL_PTYPE[ptype];
        if (promote || cap || pt == KING || piece_type_is_promoted(pt))
            why = "bad drop";
        else
            m16 = (Move16)(to | pt << 7 | MOVE_DROP);
    } else {
        Piece moved = position_piece_on(pos, from), target = position_piece_on(pos, to);
        PieceType after = moved == NO_PIECE ? NO_PIECE_TYPE : piece_type(moved) + (promote ? PROMOTED : 0);
        PieceType captured = target == NO_PIECE ? NO_PIECE_TYPE : piece_type(target);
        if (after != OSL_PTYPE[ptype])
            why = "move word's piece is not the one on its square";
        else if (captured != (cap ? OSL_PTYPE[cap] : NO_PIECE_TYPE))
            why = "move word's capture is not the piece on its target";
        else
            m16 = (Move16)(to | from << 7 | (promote ? MOVE_PROMOTE : 0));
    }
    Move m = why ? MOVE_NONE : position_legal_move_from16(pos, m16);
    if (m == MOVE_NONE)
        error_set(r->err, r->err_len, "%s: byte %zu: state %u: %s (0x%08x)", r->name, off, state,
                  why ? why : "illegal move", (unsigned)w);
    return m;
}

typedef struct {
    Move16 *move;     /* per move record: the decoded move */
    uint32_t *best;   /* per state: index of its best weighted move, UINT32_MAX when none */
    int32_t *depth;   /* per state: distance from the start, -1 when unreached */
    BookKey *key;     /* per state */
    uint8_t *claimed; /* per move record: 1 once a state's range covers it */
} Scratch;

static void scratch_free(Scratch *s) {
    free(s->move);
    free(s->best);
    free(s->depth);
    free(s->key);
    free(s->claimed);
}

/* Pass 1: every board, every state record and every move, checked. */
static bool check_all(const Reader *r, Scratch *s) {
    for (uint32_t i = 0; i < r->S; i++) {
        Position pos;
        StateInfo st;
        if (!read_board(r, i, &pos, &st))
            return false;
        book_key_from_position(&pos, &s->key[i]);
    }
    for (uint32_t i = 0; i < r->S; i++) {
        size_t at = r->states_at + (size_t)i * OSL_STATE_SIZE;
        int32_t first = be32(r->d + at), n = be32(r->d + at + 4), bw = be32(r->d + at + 8), ww = be32(r->d + at + 12);
        if (first < 0 || n < 0 || (uint64_t)first + (uint64_t)n > r->M)
            return error_set(r->err, r->err_len, "%s: byte %zu: state %u: moves %d..%d outside the %u move records",
                             r->name, at, i, (int)first, (int)(first + (int64_t)n), r->M);
        if (n > BOOK_MAX_MOVES)
            return error_set(r->err, r->err_len, "%s: byte %zu: state %u: %d moves", r->name, at, i, (int)n);
        if (bw < 0 || ww < 0)
            return error_set(r->err, r->err_len, "%s: byte %zu: state %u: negative win count", r->name, at, i);
        Position pos;
        StateInfo st, st2;
        if (!read_board(r, i, &pos, &st))
            return false;
        s->best[i] = UINT32_MAX;
        int32_t best_w = 0;
        for (int32_t k = 0; k < n; k++) {
            uint32_t mi = (uint32_t)first + (uint32_t)k;
            size_t off = r->moves_at + (size_t)mi * OSL_MOVE_SIZE;
            if (s->claimed[mi])
                return error_set(r->err, r->err_len, "%s: byte %zu: state %u: move record %u belongs to another state",
                                 r->name, at, i, mi);
            s->claimed[mi] = 1;
            Move m = decode_move(r, off, i, &pos);
            if (m == MOVE_NONE)
                return false;
            int32_t child = be32(r->d + off + 4), weight = be32(r->d + off + 8);
            if (child < 0 || (uint32_t)child >= r->S)
                return error_set(r->err, r->err_len, "%s: byte %zu: state %u: child state %d out of range", r->name,
                                 off + 4, i, (int)child);
            if (weight < 0)
                return error_set(r->err, r->err_len, "%s: byte %zu: state %u: negative weight %d", r->name, off + 8, i,
                                 (int)weight);
            BookKey after;
            position_do_move(&pos, m, &st2);
            book_key_from_position(&pos, &after);
            position_undo_move(&pos, m);
            if (memcmp(&after, &s->key[child], sizeof after) != 0)
                return error_set(r->err, r->err_len,
                                 "%s: byte %zu: state %u: child state %d is not the position the move leads to",
                                 r->name, off + 4, i, (int)child);
            s->move[mi] = move_to_move16(m);
            if (weight > best_w) {
                best_w = weight;
                s->best[i] = mi;
            }
        }
    }
    return true;
}

/* Breadth-first distances from the start state (each state queued once, so cycles end). */
static bool walk(const Reader *r, Scratch *s, uint32_t start, uint64_t *unreached) {
    uint32_t *queue = malloc((size_t)r->S * sizeof *queue);
    if (!queue)
        return error_set(r->err, r->err_len, "%s: out of memory", r->name);
    for (uint32_t i = 0; i < r->S; i++)
        s->depth[i] = -1;
    size_t head = 0, tail = 0;
    s->depth[start] = 0;
    queue[tail++] = start;
    while (head < tail) {
        uint32_t i = queue[head++];
        size_t at = r->states_at + (size_t)i * OSL_STATE_SIZE;
        int32_t first = be32(r->d + at), n = be32(r->d + at + 4);
        for (int32_t k = 0; k < n; k++) {
            size_t off = r->moves_at + ((size_t)first + (size_t)k) * OSL_MOVE_SIZE;
            uint32_t child = (uint32_t)be32(r->d + off + 4);
            if (s->depth[child] < 0) {
                s->depth[child] = s->depth[i] + 1;
                queue[tail++] = child;
            }
        }
    }
    free(queue);
    *unreached = r->S - tail;
    return true;
}

/* Pass 2: the checked states into the book. */
static bool fill(const Reader *r, const Scratch *s, Book *book, bool keep_zero, OslStats *out) {
    for (uint32_t i = 0; i < r->S; i++) {
        size_t at = r->states_at + (size_t)i * OSL_STATE_SIZE;
        int32_t first = be32(r->d + at), n = be32(r->d + at + 4);
        int kept = 0;
        for (int32_t k = 0; k < n; k++)
            kept += be32(r->d + r->moves_at + ((size_t)first + (size_t)k) * OSL_MOVE_SIZE + 8) > 0;
        out->zero_moves_dropped += keep_zero ? 0 : (uint64_t)(n - kept);
        if (!kept && !keep_zero) {
            out->positions_dropped++;
            continue;
        }
        uint32_t id;
        int ply = s->depth[i] >= 0 ? s->depth[i] + 1 : 0;
        if (!book_add_position(book, &s->key[i], ply, &id))
            return error_set(r->err, r->err_len, "%s: out of memory", r->name);
        out->positions++;
        int32_t bw = be32(r->d + at + 8), ww = be32(r->d + at + 12);
        if (bw || ww) {
            BookStats st = {
                .games = (uint32_t)bw + (uint32_t)ww, .black_wins = (uint32_t)bw, .white_wins = (uint32_t)ww};
            if (!book_set_stats(book, id, MOVE_NONE, &st))
                return error_set(r->err, r->err_len, "%s: out of memory", r->name);
        }
        for (int32_t k = 0; k < n; k++) {
            uint32_t mi = (uint32_t)first + (uint32_t)k;
            const uint8_t *m = r->d + r->moves_at + (size_t)mi * OSL_MOVE_SIZE;
            int32_t weight = be32(m + 8);
            if (weight == 0 && !keep_zero)
                continue;
            uint32_t child = (uint32_t)be32(m + 4);
            BookMove bm = {.move = s->move[mi], .count = (uint64_t)weight};
            if (s->best[child] != UINT32_MAX)
                bm.ponder = s->move[s->best[child]];
            if (!book_add_move(book, id, &bm, NULL))
                return error_set(r->err, r->err_len, "%s: out of memory", r->name);
            out->book_moves++;
        }
    }
    return true;
}

/* Checks the header in d[0..n) against a file of file_size bytes; false with the reason. */
static bool check_header(const char *name, const uint8_t *d, size_t n, uint64_t file_size, char *err, size_t err_len) {
    if (n < OSL_HEADER_SIZE)
        return error_set(err, err_len, "%s: byte 0: %zu bytes is too short for an OSL book header", name, n);
    int32_t version = be32(d), S = be32(d + 4), M = be32(d + 8), start = be32(d + 12);
    if (version != 1)
        return error_set(err, err_len, "%s: byte 0: OSL book version %d (only 1 is known)", name, (int)version);
    uint64_t want = implied_size(version, S, M, start);
    if (want == 0)
        return error_set(err, err_len, "%s: byte 4: bad counts (states %d, moves %d, start %d)", name, (int)S, (int)M,
                         (int)start);
    if (want != file_size)
        return error_set(err, err_len, "%s: byte 4: %d states and %d moves need %llu bytes, the file has %llu", name,
                         (int)S, (int)M, (unsigned long long)want, (unsigned long long)file_size);
    return true;
}

bool osl_read_memory(const char *name, const void *data, size_t len, Book *book, const OslReadOptions *opt,
                     OslStats *stats, char *err, size_t err_len) {
    shogi_init();
    const uint8_t *d = data;
    OslStats local = {0};
    OslStats *out = stats ? stats : &local;
    memset(out, 0, sizeof *out);
    if (!check_header(name, d, len, len, err, err_len))
        return false;
    int32_t S = be32(d + 4), M = be32(d + 8), start = be32(d + 12);
    Reader r = {.name = name, .d = d, .len = len, .S = (uint32_t)S, .M = (uint32_t)M, .err = err, .err_len = err_len};
    r.states_at = OSL_HEADER_SIZE;
    r.moves_at = r.states_at + (size_t)r.S * OSL_STATE_SIZE;
    r.boards_at = r.moves_at + (size_t)r.M * OSL_MOVE_SIZE;
    out->states = r.S, out->moves = r.M, out->start = (uint32_t)start;
    Scratch s = {.move = calloc(r.M ? r.M : 1, sizeof *s.move),
                 .best = calloc(r.S, sizeof *s.best),
                 .depth = calloc(r.S, sizeof *s.depth),
                 .key = calloc(r.S, sizeof *s.key),
                 .claimed = calloc(r.M ? r.M : 1, 1)};
    bool ok;
    if (!s.move || !s.best || !s.depth || !s.key || !s.claimed)
        ok = error_set(err, err_len, "%s: out of memory", name);
    else
        ok = check_all(&r, &s) && walk(&r, &s, (uint32_t)start, &out->unreached);
    if (ok) {
        (void)book_reserve(book, book_position_count(book) + r.S); /* a hint only */
        ok = fill(&r, &s, book, opt && opt->keep_zero, out);
    }
    scratch_free(&s);
    return ok;
}

bool osl_read_file(const char *path, Book *book, const OslReadOptions *opt, OslStats *stats, char *err,
                   size_t err_len) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return error_set(err, err_len, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        fclose(f);
        return error_set(err, err_len, "%s: not a regular file", path);
    }
    uint8_t head[OSL_HEADER_SIZE];
    size_t got = fread(head, 1, sizeof head, f);
    if (!check_header(path, head, got, (uint64_t)sb.st_size, err, err_len)) {
        fclose(f);
        return false;
    }
    size_t len = (size_t)sb.st_size;
    uint8_t *buf = malloc(len);
    if (!buf) {
        fclose(f);
        return error_set(err, err_len, "%s: out of memory (%zu bytes)", path, len);
    }
    memcpy(buf, head, got);
    size_t r = fread(buf + got, 1, len - got, f);
    bool short_read = got + r != len || ferror(f);
    fclose(f);
    bool ok = short_read ? error_set(err, err_len, "%s: read error (file changed while reading?)", path)
                         : osl_read_memory(path, buf, len, book, opt, stats, err, err_len);
    free(buf);
    return ok;
}
