/* packed_sfen.c - YaneuraOu's PackedSfen: an encoder, and a decoder that trusts nothing.
 *
 * The decoder does its own bounded bit reading and piece accounting, then builds the
 * position with position_from_parts(), which applies the checks position_from_sfen()
 * applies to text. The first version printed SFEN and parsed it again; that path stays as
 * packed_sfen_decode_via_sfen(), the reference the tests hold the direct one to. */
#include "shogi/packed_sfen.h"
#include "util/error.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { PACKED_BITS = 256, KING_SQUARE_BITS = 7, LONGEST_BOARD_CODE = 6 };

/* A Huffman code as an integer whose bit 0 is the first bit in the stream. */
typedef struct {
    uint8_t code;
    uint8_t length;
} HuffmanCode;

/* Board codes by unpromoted piece type; the NO_PIECE_TYPE entry is the empty square.
 * A piece in hand or in the box uses its board code without the first bit (always 1). */
static const HuffmanCode BOARD_CODE[GOLD + 1] = {
    [NO_PIECE_TYPE] = {0x00, 1}, [PAWN] = {0x01, 2},   [LANCE] = {0x03, 4}, [KNIGHT] = {0x0b, 4},
    [SILVER] = {0x07, 4},        [BISHOP] = {0x1f, 6}, [ROOK] = {0x3f, 6},  [GOLD] = {0x0f, 5},
};

/* Current YaneuraOu (and cshogi, whose layout it adopted) writes hands and the box in
 * Apery's order, gold before bishop and rook; the encoder must match it byte for byte. */
static const PieceType PACK_ORDER[] = {PAWN, LANCE, KNIGHT, SILVER, GOLD, BISHOP, ROOK};
enum { PACK_ORDER_NB = sizeof PACK_ORDER / sizeof PACK_ORDER[0] };

static const char PIECE_LETTERS[] = " PLNSBRGK"; /* index = unpromoted piece type */
static const char *const PLURAL_NAME[] = {"", "pawns", "lances", "knights", "silvers", "bishops", "rooks", "golds"};

/* ---- encoding ---- */

/* The stream as 64-bit words, bit i of the stream being bit i % 64 of word i / 64, filled
 * through a 64-bit accumulator; whole codes go in at once. A valid position fills exactly
 * 256 bits; the spare words take what a corrupted Position might write beyond them (a
 * square code is at most 8 bits, hand counts are bounded by their masks), so no write is
 * ever checked and only the first 256 bits are kept. */
typedef struct {
    uint64_t word[32];
    uint64_t acc; /* bits not yet stored, the first one lowest */
    int used;     /* bits in acc, < 64 */
    int words;    /* words stored */
} BitWriter;

static inline void write_bits(BitWriter *w, unsigned value, int count) {
    uint64_t v = (uint64_t)value;
    w->acc |= v << w->used;
    w->used += count;
    if (w->used >= 64) {
        w->word[w->words++] = w->acc;
        w->used -= 64;
        w->acc = w->used ? v >> (count - w->used) : 0;
    }
}

/* A board square's whole code (Huffman code, promotion bit unless gold, colour bit) and
 * its length, by piece; NO_PIECE is the empty square. Kings have none (length 0). */
static HuffmanCode board_square_code(Piece pc) {
    if (pc == NO_PIECE)
        return BOARD_CODE[NO_PIECE_TYPE];
    PieceType pt = piece_type(pc), base = piece_type_demote(pt);
    if (base == KING || base > GOLD)
        return (HuffmanCode){0, 0};
    HuffmanCode h = BOARD_CODE[base];
    unsigned code = h.code, length = h.length;
    if (base != GOLD)
        code |= (unsigned)piece_type_is_promoted(pt) << length++;
    code |= (unsigned)piece_color(pc) << length++;
    return (HuffmanCode){(uint8_t)code, (uint8_t)length};
}

/* A piece in hand of colour c: its board code without the first bit, a promotion bit
 * that is 0 (not for gold: keeps the cost at board cost minus one), the colour bit. */
static HuffmanCode hand_piece_code(PieceType base, Color c) {
    HuffmanCode h = BOARD_CODE[base];
    unsigned code = (unsigned)h.code >> 1, length = h.length - 1u;
    if (base != GOLD)
        length++;
    code |= (unsigned)c << length++;
    return (HuffmanCode){(uint8_t)code, (uint8_t)length};
}

/* A boxed piece is a "promoted piece in hand" of colour 0. Gold has no promotion bit,
 * so a boxed gold borrows the otherwise unused code of a white promoted silver; both
 * cost the same number of bits as a gold in hand. */
static HuffmanCode box_piece_code(PieceType base) {
    PieceType as = base == GOLD ? SILVER : base;
    HuffmanCode h = BOARD_CODE[as];
    unsigned code = (unsigned)h.code >> 1, length = h.length - 1u;
    code |= 1u << length++;
    code |= (unsigned)(base == GOLD ? WHITE : BLACK) << length++;
    return (HuffmanCode){(uint8_t)code, (uint8_t)length};
}

/* The encoder both entry points share: board (kings included, at king_sq), hand counts by
 * colour and unpromoted type, side to move. */
/* board_square_code() by piece, built once. */
static HuffmanCode square_code_table[PIECE_NB];

static void build_square_code_table(void) {
    for (int pc = 0; pc < PIECE_NB; pc++)
        square_code_table[pc] = board_square_code((Piece)pc);
}

static void encode_parts(const Piece *board, int hand[COLOR_NB][PIECE_TYPE_NB], const Square king_sq[COLOR_NB],
                         Color side, PackedSfen *out) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, build_square_code_table);
    BitWriter w;
    w.acc = 0;
    w.used = 0;
    w.words = 0;
    int boxed[PIECE_TYPE_NB];
    for (int pt = 0; pt < PIECE_TYPE_NB; pt++)
        boxed[pt] = PIECE_TYPE_TOTAL[pt];

    /* SQ_NONE is 81, the value YaneuraOu writes for a missing king. */
    write_bits(&w,
               ((unsigned)side & 1) | ((unsigned)king_sq[BLACK] & 0x7f) << 1 |
                   ((unsigned)king_sq[WHITE] & 0x7f) << (1 + KING_SQUARE_BITS),
               1 + 2 * KING_SQUARE_BITS);
    for (Square sq = 0; sq < SQ_NB; sq++) {
        Piece pc = board[sq] & (PIECE_NB - 1);
        HuffmanCode h = square_code_table[pc];
        write_bits(&w, h.code, h.length); /* a king writes nothing */
        boxed[piece_type_demote(piece_type(pc))]--;
    }
    for (Color c = BLACK; c <= WHITE; c++)
        for (int i = 0; i < PACK_ORDER_NB; i++) {
            int n = hand[c][PACK_ORDER[i]];
            HuffmanCode h = hand_piece_code(PACK_ORDER[i], c);
            for (int k = 0; k < n; k++)
                write_bits(&w, h.code, h.length);
            boxed[PACK_ORDER[i]] -= n;
        }
    for (int i = 0; i < PACK_ORDER_NB; i++) {
        HuffmanCode h = box_piece_code(PACK_ORDER[i]);
        for (int k = 0; k < boxed[PACK_ORDER[i]]; k++)
            write_bits(&w, h.code, h.length);
    }
    w.word[w.words] = w.acc;
    for (int i = w.words + 1; i < PACKED_BITS / 64; i++)
        w.word[i] = 0;
    for (int i = 0; i < PACKED_BITS / 8; i++)
        out->data[i] = (uint8_t)(w.word[i >> 3] >> ((i & 7) * 8));
}

void packed_sfen_encode_flipped(const Position *pos, PackedSfen *out) {
    Piece board[SQ_NB];
    Square king_sq[COLOR_NB] = {SQ_NONE, SQ_NONE};
    for (Square sq = 0; sq < SQ_NB; sq++) {
        Piece pc = pos->board[SQ_NB - 1 - sq];
        if (pc != NO_PIECE) {
            pc = piece_make(color_flip(piece_color(pc)), piece_type(pc));
            if (piece_type(pc) == KING)
                king_sq[piece_color(pc)] = sq;
        }
        board[sq] = pc;
    }
    int hand[COLOR_NB][PIECE_TYPE_NB] = {{0}};
    for (Color c = BLACK; c <= WHITE; c++)
        for (int i = 0; i < PACK_ORDER_NB; i++)
            hand[color_flip(c)][PACK_ORDER[i]] = hand_count(pos->hand[c], PACK_ORDER[i]);
    encode_parts(board, hand, king_sq, color_flip(pos->side), out);
}

void packed_sfen_encode(const Position *pos, PackedSfen *out) {
    int hand[COLOR_NB][PIECE_TYPE_NB] = {{0}};
    for (Color c = BLACK; c <= WHITE; c++)
        for (int i = 0; i < PACK_ORDER_NB; i++)
            hand[c][PACK_ORDER[i]] = hand_count(pos->hand[c], PACK_ORDER[i]);
    encode_parts(pos->board, hand, pos->king_sq, pos->side, out);
}

/* ---- decoding ---- */

typedef struct {
    uint64_t word[PACKED_BITS / 64 + 2]; /* the 256 bits, bit i at bit i % 64 of word i / 64; zero words after */
    int cursor;                          /* next bit to read */
} BitReader;

static void reader_init(BitReader *r, const uint8_t *bytes) {
    memset(r->word, 0, sizeof r->word);
    for (int i = 0; i < PACKED_BITS / 8; i++)
        r->word[i >> 3] |= (uint64_t)bytes[i] << ((i & 7) * 8);
    r->cursor = 0;
}

/* The next count (1..32) bits from the cursor, first bit lowest, without moving it; bits
 * past the end read as 0. */
static unsigned peek_bits(const BitReader *r, int count) {
    int word = r->cursor >> 6, shift = r->cursor & 63;
    /* word + 1 is at most the second zero word; << 1 << (63 - shift) is << (64 - shift) without
     * the undefined shift by 64 */
    uint64_t window = r->word[word] >> shift | r->word[word + 1] << 1 << (63 - shift);
    return (unsigned)(window & ((1ull << count) - 1));
}

/* The next bit, or -1 at the end of the 256 bits (never reads past them). */
static int read_bit(BitReader *r) {
    if (r->cursor >= PACKED_BITS)
        return -1;
    int bit = (int)(r->word[r->cursor >> 6] >> (r->cursor & 63) & 1);
    r->cursor++;
    return bit;
}

/* count bits, first bit lowest, or -1 (the cursor at the end) when the stream ends first. */
static int read_bits(BitReader *r, int count) {
    if (r->cursor + count > PACKED_BITS) {
        r->cursor = PACKED_BITS;
        return -1;
    }
    int value = (int)peek_bits(r, count);
    r->cursor += count;
    return value;
}

/* Prefix tables: the next LONGEST_BOARD_CODE bits (first bit lowest) give the piece type
 * and the code length directly. Built on first use from BOARD_CODE; length 0 marks a
 * prefix no code matches (none today: both code sets are complete). */
typedef struct {
    int8_t type;
    uint8_t length;
} PrefixEntry;

static PrefixEntry board_prefix[1 << LONGEST_BOARD_CODE], hand_prefix[1 << LONGEST_BOARD_CODE];

static void build_prefix_table(PrefixEntry *table, bool in_hand) {
    for (int bits = 0; bits < 1 << LONGEST_BOARD_CODE; bits++) {
        table[bits] = (PrefixEntry){0, 0};
        for (int pt = in_hand ? PAWN : NO_PIECE_TYPE; pt <= GOLD; pt++) {
            int code = in_hand ? BOARD_CODE[pt].code >> 1 : BOARD_CODE[pt].code;
            int length = in_hand ? BOARD_CODE[pt].length - 1 : BOARD_CODE[pt].length;
            if ((bits & ((1 << length) - 1)) == code)
                table[bits] = (PrefixEntry){(int8_t)pt, (uint8_t)length};
        }
    }
}

/* Whole-entry tables: the next 8 bits (first bit lowest) give a board square's or a hand
 * entry's code, promotion bit and colour bit at once (8 bits is the longest: a 6-bit code
 * and the two bits). Length 0 marks bits no code matches (none today: both code sets are
 * complete; kept so that a table edit cannot turn into an endless loop). */
typedef struct {
    int8_t base;
    uint8_t promoted, color, length;
} WholeEntry;

static WholeEntry board_whole[256], hand_whole[256];

static void build_whole_table(WholeEntry *table, const PrefixEntry *prefix) {
    for (unsigned bits = 0; bits < 256; bits++) {
        PrefixEntry e = prefix[bits & ((1u << LONGEST_BOARD_CODE) - 1)];
        WholeEntry w = {e.type, 0, 0, e.length};
        if (e.length && e.type > NO_PIECE_TYPE) {
            if (e.type != GOLD)
                w.promoted = (uint8_t)(bits >> w.length++ & 1);
            w.color = (uint8_t)(bits >> w.length++ & 1);
        }
        table[bits] = w;
    }
}

static void build_prefix_tables(void) {
    build_prefix_table(board_prefix, false);
    build_prefix_table(hand_prefix, true);
    build_whole_table(board_whole, board_prefix);
    build_whole_table(hand_whole, hand_prefix);
}

/* What the bits say, before any of it becomes a Position. */
typedef struct {
    Color side;
    Piece board[SQ_NB];
    int hand[COLOR_NB][PIECE_TYPE_NB];
    int seen[PIECE_TYPE_NB]; /* board + hands + box, by unpromoted type */
} DecodedBits;

/* Counts one more piece of base type and refuses a count a full set cannot reach, which
 * also bounds every count the SFEN printer sees. */
static bool count_piece(DecodedBits *d, PieceType base, int bit, char *err, size_t err_len) {
    if (++d->seen[base] > PIECE_TYPE_TOTAL[base])
        return error_set(err, err_len, "bit %d: more than %d %s", bit, PIECE_TYPE_TOTAL[base], PLURAL_NAME[base]);
    return true;
}

static bool read_kings(BitReader *r, DecodedBits *d, char *err, size_t err_len) {
    Square king_sq[COLOR_NB];
    for (Color c = BLACK; c <= WHITE; c++) {
        const char *name = c == BLACK ? "black" : "white";
        king_sq[c] = read_bits(r, KING_SQUARE_BITS);
        if (king_sq[c] == SQ_NONE)
            return error_set(err, err_len, "no %s king (square 81): one-king positions are not supported", name);
        if (king_sq[c] > SQ_NONE)
            return error_set(err, err_len, "%s king square %d is off the board", name, king_sq[c]);
    }
    if (king_sq[BLACK] == king_sq[WHITE])
        return error_set(err, err_len, "both kings on square %d%c", square_file(king_sq[BLACK]) + 1,
                         'a' + square_rank(king_sq[BLACK]));
    d->board[king_sq[BLACK]] = piece_make(BLACK, KING);
    d->board[king_sq[WHITE]] = piece_make(WHITE, KING);
    return true;
}

static bool read_board(BitReader *r, DecodedBits *d, char *err, size_t err_len) {
    for (Square sq = 0; sq < SQ_NB; sq++) {
        if (d->board[sq] != NO_PIECE) /* a king, placed from the header */
            continue;
        int start = r->cursor;
        WholeEntry e = board_whole[peek_bits(r, 8)];
        if (start + e.length > PACKED_BITS || start >= PACKED_BITS)
            return error_set(err, err_len, "bit %d: square %d%c runs past the end of the 256 bits", start,
                             square_file(sq) + 1, 'a' + square_rank(sq));
        if (e.length == 0)
            return error_set(err, err_len, "bit %d: unknown board code", start);
        r->cursor += e.length;
        int base = e.base, promoted = e.promoted, color = e.color;
        if (base == NO_PIECE_TYPE)
            continue;
        if (!count_piece(d, (PieceType)base, start, err, err_len))
            return false;
        d->board[sq] = piece_make((Color)color, promoted ? (PieceType)(base + PROMOTED) : (PieceType)base);
    }
    return true;
}

/* Hand and box entries until the stream ends; the last one must end on bit 256. */
static bool read_hands_and_box(BitReader *r, DecodedBits *d, char *err, size_t err_len) {
    while (r->cursor < PACKED_BITS) {
        int start = r->cursor;
        WholeEntry e = hand_whole[peek_bits(r, 8)];
        if (start + e.length > PACKED_BITS)
            return error_set(err, err_len, "bit %d: hand entry runs past the end of the 256 bits", start);
        if (e.length == 0)
            return error_set(err, err_len, "bit %d: unknown hand code", start);
        r->cursor += e.length;
        int base = e.base, promoted = e.promoted, color = e.color;
        if (!promoted) {
            d->hand[color][base]++;
        } else if (color == WHITE) {
            if (base != SILVER)
                return error_set(err, err_len, "bit %d: promoted white %s in hand is not a piece-box code", start,
                                 PLURAL_NAME[base]);
            base = GOLD; /* the boxed-gold code, see write_box_piece() */
        }
        if (!count_piece(d, (PieceType)base, start, err, err_len))
            return false;
    }
    return true;
}

/* A bounded text buffer: output beyond its end is dropped, never written. */
typedef struct {
    char *buf;
    size_t len; /* > 0 */
    size_t used;
} TextBuffer;

static void emit(TextBuffer *t, const char *fmt, ...) {
    if (t->used + 1 >= t->len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int written = vsnprintf(t->buf + t->used, t->len - t->used, fmt, ap);
    va_end(ap);
    if (written > 0)
        t->used += (size_t)written < t->len - t->used ? (size_t)written : t->len - t->used - 1;
}

static char letter_for(Color c, PieceType base) {
    char letter = PIECE_LETTERS[base];
    return c == BLACK ? letter : (char)(letter - 'A' + 'a');
}

/* Prints the decoded bits as SFEN. count_piece() bounds every count, so the text is
 * short of SFEN_MAX plus the move number; the buffer bounds it regardless. */
static void print_sfen(const DecodedBits *d, int ply, char *buf, size_t len) {
    TextBuffer t = {buf, len, 0};
    buf[0] = '\0';
    for (int rank = 0; rank < RANK_NB; rank++) {
        int empty = 0;
        for (int file = FILE_NB - 1; file >= 0; file--) {
            Piece pc = d->board[square_make(file, rank)];
            if (pc == NO_PIECE) {
                empty++;
                continue;
            }
            if (empty)
                emit(&t, "%d", empty);
            empty = 0;
            PieceType pt = piece_type(pc);
            emit(&t, "%s%c", piece_type_is_promoted(pt) ? "+" : "", letter_for(piece_color(pc), piece_type_demote(pt)));
        }
        if (empty)
            emit(&t, "%d", empty);
        if (rank < RANK_NB - 1)
            emit(&t, "/");
    }
    emit(&t, " %c ", d->side == BLACK ? 'b' : 'w');
    static const PieceType SFEN_HAND_ORDER[] = {ROOK, BISHOP, GOLD, SILVER, KNIGHT, LANCE, PAWN};
    bool any = false;
    for (Color c = BLACK; c <= WHITE; c++)
        for (int i = 0; i < 7; i++) {
            int count = d->hand[c][SFEN_HAND_ORDER[i]];
            if (!count)
                continue;
            any = true;
            if (count > 1)
                emit(&t, "%d", count);
            emit(&t, "%c", letter_for(c, SFEN_HAND_ORDER[i]));
        }
    emit(&t, "%s %d", any ? "" : "-", ply);
}

/* Reads and checks the bits; the part both decoders share. */
static bool decode_bits(const PackedSfen *in, DecodedBits *d, char *err, size_t err_len) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, build_prefix_tables);
    BitReader r;
    reader_init(&r, in->data);
    memset(d, 0, sizeof *d);
    d->side = (Color)read_bit(&r);
    if (!read_kings(&r, d, err, err_len) || !read_board(&r, d, err, err_len) ||
        !read_hands_and_box(&r, d, err, err_len))
        return false;
    /* Every piece costs the same wherever it is, so 256 bits with no kind over its full
     * count means every kind at exactly its full count; checked anyway, as the box is
     * only meaningful if it holds precisely what the board and hands lack. */
    for (int i = 0; i < PACK_ORDER_NB; i++) {
        PieceType pt = PACK_ORDER[i];
        if (d->seen[pt] != PIECE_TYPE_TOTAL[pt])
            return error_set(err, err_len, "board, hands and box hold %d %s, a full set has %d", d->seen[pt],
                             PLURAL_NAME[pt], PIECE_TYPE_TOTAL[pt]);
    }
    return true;
}

bool packed_sfen_decode(const PackedSfen *in, Position *pos, StateInfo *st, int ply, char *err, size_t err_len) {
    DecodedBits d;
    if (!decode_bits(in, &d, err, err_len))
        return false;
    Hand hand[COLOR_NB] = {0, 0};
    for (Color c = BLACK; c <= WHITE; c++)
        for (PieceType pt = PAWN; pt <= GOLD; pt++)
            hand[c] += (Hand)d.hand[c][pt] << HAND_SHIFT[pt]; /* counts are bounded by count_piece() */
    char why[128];
    if (!position_from_parts(pos, st, d.board, hand, d.side, ply < 1 ? 1 : ply, why, sizeof why))
        return error_set(err, err_len, "decoded position rejected: %s", why);
    return true;
}

bool packed_sfen_decode_via_sfen(const PackedSfen *in, Position *pos, StateInfo *st, int ply, char *err,
                                 size_t err_len) {
    DecodedBits d;
    if (!decode_bits(in, &d, err, err_len))
        return false;
    char sfen[SFEN_MAX + 32];
    print_sfen(&d, ply < 1 ? 1 : ply, sfen, sizeof sfen);
    char why[128];
    if (!position_from_sfen(pos, st, sfen, why, sizeof why))
        return error_set(err, err_len, "decoded position \"%s\" rejected: %s", sfen, why);
    return true;
}

bool packed_sfen_flip(const PackedSfen *in, PackedSfen *out) {
    DecodedBits d;
    if (!decode_bits(in, &d, NULL, 0))
        return false;
    Piece board[SQ_NB];
    Square king_sq[COLOR_NB] = {SQ_NONE, SQ_NONE};
    for (Square sq = 0; sq < SQ_NB; sq++) {
        Piece pc = d.board[SQ_NB - 1 - sq];
        if (pc != NO_PIECE) {
            pc = piece_make(color_flip(piece_color(pc)), piece_type(pc));
            if (piece_type(pc) == KING)
                king_sq[piece_color(pc)] = sq;
        }
        board[sq] = pc;
    }
    int hand[COLOR_NB][PIECE_TYPE_NB];
    memcpy(hand[BLACK], d.hand[WHITE], sizeof hand[BLACK]);
    memcpy(hand[WHITE], d.hand[BLACK], sizeof hand[WHITE]);
    encode_parts(board, hand, king_sq, color_flip(d.side), out);
    return true;
}

bool packed_sfen_keys(const PackedSfen *in, Key *key, Key *flipped_key) {
    shogi_init(); /* the Zobrist tables */
    DecodedBits d;
    if (!decode_bits(in, &d, NULL, 0))
        return false;
    Key board = d.side == WHITE ? ZOBRIST_SIDE : 0, flipped_board = d.side == WHITE ? 0 : ZOBRIST_SIDE;
    for (Square sq = 0; sq < SQ_NB; sq++) {
        Piece pc = d.board[sq];
        if (pc == NO_PIECE)
            continue;
        board ^= zobrist_piece(pc, sq);
        flipped_board ^= zobrist_piece(piece_make(color_flip(piece_color(pc)), piece_type(pc)), SQ_NB - 1 - sq);
    }
    Key hand = 0, flipped_hand = 0;
    for (Color c = BLACK; c <= WHITE; c++)
        for (PieceType pt = PAWN; pt <= GOLD; pt++) {
            hand += zobrist_hand(c, pt) * (Key)d.hand[c][pt];
            flipped_hand += zobrist_hand(color_flip(c), pt) * (Key)d.hand[c][pt];
        }
    *key = board + hand;
    *flipped_key = flipped_board + flipped_hand;
    return true;
}

int packed_sfen_compare(const PackedSfen *a, const PackedSfen *b) {
    int order = memcmp(a->data, b->data, sizeof a->data);
    return (order > 0) - (order < 0);
}
