/* position.c - SFEN in and out, do/undo with incremental keys, check information and
 * move legality. */
#include "shogi/position.h"
#include "util/error.h"
#include "util/random.h"

#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const int HAND_SHIFT[PIECE_TYPE_NB] = {0, 0, 8, 12, 16, 20, 24, 28, 0, 0, 0, 0, 0, 0, 0};
const uint32_t HAND_MASK[PIECE_TYPE_NB] = {0, 0x1f, 0x7, 0x7, 0x7, 0x3, 0x3, 0x7, 0, 0, 0, 0, 0, 0, 0};
const int PIECE_TYPE_TOTAL[PIECE_TYPE_NB] = {0, 18, 4, 4, 4, 2, 2, 4, 2, 0, 0, 0, 0, 0, 0};

const Key ZOBRIST_SIDE = 1;

/* Read-only after shogi_init(). */
static struct {
    Key piece[PIECE_NB][SQ_NB];
    Key hand[COLOR_NB][PIECE_TYPE_NB];
} zobrist;

Key zobrist_piece(Piece pc, Square sq) { return zobrist.piece[pc][sq]; }
Key zobrist_hand(Color c, PieceType pt) { return zobrist.hand[c][pt]; }

static void init_once(void) {
    bitboard_init();
    uint64_t seed = 20261202; /* fixed: keys are part of the bench signature */
    for (int pc = 0; pc < PIECE_NB; pc++)
        for (Square sq = 0; sq < SQ_NB; sq++)
            zobrist.piece[pc][sq] = pc == NO_PIECE ? 0 : random_splitmix64(&seed) & ~ZOBRIST_SIDE;
    for (Color c = BLACK; c <= WHITE; c++)
        for (PieceType pt = PAWN; pt <= GOLD; pt++)
            zobrist.hand[c][pt] = random_splitmix64(&seed) & ~ZOBRIST_SIDE;
}

void shogi_init(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, init_once);
}

/* ---- attacks and check information ---- */

/* Pieces of either colour that attack sq the same way for both: king steps (king,
 * horse, dragon) and bishop and rook lines. */
static inline Bitboard symmetric_attackers_to(const Position *pos, Square sq, Bitboard occ) {
    Bitboard diag = pos->by_type[BISHOP] | pos->by_type[HORSE], orth = pos->by_type[ROOK] | pos->by_type[DRAGON];
    Bitboard b = bb_king_attacks(sq) & (pos->by_type[KING] | pos->by_type[HORSE] | pos->by_type[DRAGON]);
    /* a slider line is looked at only when a slider stands on it on the empty board */
    if (bitboard_tables.step[BISHOP][sq] & diag)
        b |= bb_bishop_attacks(sq, occ) & diag;
    if (bitboard_tables.step[ROOK][sq] & orth)
        b |= bb_rook_attacks(sq, occ) & orth;
    return b;
}

/* Pieces whose attack depends on their colour (pawn, lance, knight, silver, gold and the
 * gold-movers), of any colour, that would attack sq if they were c's: a piece of c
 * attacks sq iff a piece of the other colour on sq would attack it back. */
static inline Bitboard directed_attackers_to(const Position *pos, Color c, Square sq, Bitboard occ) {
    Color t = color_flip(c);
    Bitboard golds = pos->by_type[GOLD] | pos->by_type[PRO_PAWN] | pos->by_type[PRO_LANCE] | pos->by_type[PRO_KNIGHT] |
                     pos->by_type[PRO_SILVER];
    Bitboard b = (bb_pawn_attacks(t, sq) & pos->by_type[PAWN]) | (bb_knight_attacks(t, sq) & pos->by_type[KNIGHT]) |
                 (bb_silver_attacks(t, sq) & pos->by_type[SILVER]) | (bb_gold_attacks(t, sq) & golds);
    if (bitboard_tables.step[piece_make(t, LANCE)][sq] & pos->by_type[LANCE])
        b |= bb_lance_attacks(t, sq, occ) & pos->by_type[LANCE];
    return b;
}

Bitboard position_attackers_to(const Position *pos, Color c, Square sq, Bitboard occ) {
    return (directed_attackers_to(pos, c, sq, occ) | symmetric_attackers_to(pos, sq, occ)) & pos->by_color[c];
}

Bitboard position_attackers_to_both(const Position *pos, Square sq, Bitboard occ) {
    return symmetric_attackers_to(pos, sq, occ) | (directed_attackers_to(pos, BLACK, sq, occ) & pos->by_color[BLACK]) |
           (directed_attackers_to(pos, WHITE, sq, occ) & pos->by_color[WHITE]);
}

/* Pieces shielding c's king from the other side's sliders; the sliders doing the
 * pinning (when the shield is c's own piece) go to *pinners. */
static Bitboard slider_blockers(const Position *pos, Color c, Bitboard *pinners) {
    Color them = color_flip(c);
    Square ksq = pos->king_sq[c];
    Bitboard occ = position_occupied(pos);
    Bitboard snipers =
        ((bitboard_tables.step[piece_make(c, LANCE)][ksq] & pos->by_type[LANCE]) |
         (bitboard_tables.step[piece_make(c, BISHOP)][ksq] & (pos->by_type[BISHOP] | pos->by_type[HORSE])) |
         (bitboard_tables.step[piece_make(c, ROOK)][ksq] & (pos->by_type[ROOK] | pos->by_type[DRAGON]))) &
        pos->by_color[them];
    Bitboard blockers = 0;
    *pinners = 0;
    while (snipers) {
        Square s = bb_pop(&snipers);
        Bitboard b = bb_between(ksq, s) & occ;
        if (b && !bb_more_than_one(b)) {
            blockers |= b;
            if (b & pos->by_color[c])
                *pinners |= bb_square(s);
        }
    }
    return blockers;
}

static void set_check_info(Position *pos) {
    StateInfo *st = pos->st;
    Color us = pos->side, them = color_flip(us);
    Bitboard occ = position_occupied(pos);
    st->checkers = position_attackers_to(pos, them, pos->king_sq[us], occ);
    st->blockers_for_king[BLACK] = slider_blockers(pos, BLACK, &st->pinners[WHITE]);
    st->blockers_for_king[WHITE] = slider_blockers(pos, WHITE, &st->pinners[BLACK]);
    Square ksq = pos->king_sq[them];
    st->check_squares[PAWN] = bb_pawn_attacks(them, ksq);
    st->check_squares[LANCE] = bb_lance_attacks(them, ksq, occ);
    st->check_squares[KNIGHT] = bb_knight_attacks(them, ksq);
    st->check_squares[SILVER] = bb_silver_attacks(them, ksq);
    st->check_squares[BISHOP] = bb_bishop_attacks(ksq, occ);
    st->check_squares[ROOK] = bb_rook_attacks(ksq, occ);
    st->check_squares[GOLD] = bb_gold_attacks(them, ksq);
    st->check_squares[KING] = 0;
    for (PieceType pt = PRO_PAWN; pt <= PRO_SILVER; pt++)
        st->check_squares[pt] = st->check_squares[GOLD];
    st->check_squares[HORSE] = st->check_squares[BISHOP] | bb_king_attacks(ksq);
    st->check_squares[DRAGON] = st->check_squares[ROOK] | bb_king_attacks(ksq);
}

/* ---- board editing ---- */

static void put_piece(Position *pos, Piece pc, Square sq) {
    Bitboard b = bb_square(sq);
    pos->board[sq] = pc;
    pos->by_type[piece_type(pc)] |= b;
    pos->by_type[NO_PIECE_TYPE] |= b;
    pos->by_color[piece_color(pc)] |= b;
    if (piece_type(pc) == KING)
        pos->king_sq[piece_color(pc)] = sq;
}

static void remove_piece(Position *pos, Square sq) {
    Piece pc = pos->board[sq];
    Bitboard b = bb_square(sq);
    pos->board[sq] = NO_PIECE;
    pos->by_type[piece_type(pc)] ^= b;
    pos->by_type[NO_PIECE_TYPE] ^= b;
    pos->by_color[piece_color(pc)] ^= b;
}

static Key compute_board_key(const Position *pos) {
    Key k = pos->side == WHITE ? ZOBRIST_SIDE : 0;
    for (Square sq = 0; sq < SQ_NB; sq++)
        k ^= zobrist.piece[pos->board[sq]][sq];
    return k;
}

static Key compute_hand_key(const Position *pos) {
    Key k = 0;
    for (Color c = BLACK; c <= WHITE; c++)
        for (PieceType pt = PAWN; pt <= GOLD; pt++)
            k += zobrist.hand[c][pt] * (Key)hand_count(pos->hand[c], pt);
    return k;
}

/* The keys and check information of a freshly set up position (no history). */
static void finish_setup(Position *pos) {
    StateInfo *st = pos->st;
    st->board_key = compute_board_key(pos);
    st->hand_key = compute_hand_key(pos);
    st->hand_of_mover = pos->hand[pos->side];
    set_check_info(pos);
}

/* ---- SFEN ---- */

static const char PIECE_LETTERS[] = " PLNSBRGK"; /* index = unpromoted piece type */

static PieceType piece_type_from_letter(char ch) {
    const char *p = strchr(PIECE_LETTERS + 1, toupper((unsigned char)ch));
    return (ch && p) ? (PieceType)(p - PIECE_LETTERS) : NO_PIECE_TYPE;
}

bool position_from_sfen(Position *pos, StateInfo *st, const char *sfen, char *err, size_t err_len) {
    return position_from_sfen_ex(pos, st, sfen, 0, err, err_len);
}

bool position_from_sfen_ex(Position *pos, StateInfo *st, const char *sfen, int flags, char *err, size_t err_len) {
    shogi_init();
    memset(pos, 0, sizeof *pos);
    memset(st, 0, sizeof *st);
    pos->st = st;
    pos->king_sq[BLACK] = pos->king_sq[WHITE] = SQ_NONE;
    const char *p = sfen;
    int counts[PIECE_TYPE_NB] = {0};
    int kings[COLOR_NB] = {0};

    while (*p == ' ')
        p++;
    int rank = 0, file = 8;
    for (;; p++) {
        int col = (int)(p - sfen) + 1;
        char ch = *p;
        if (ch == '/' || ch == ' ' || ch == '\0') {
            if (file != -1)
                return error_set(err, err_len, "column %d: rank %d has %d squares, expected 9", col, rank + 1,
                                 8 - file);
            if (ch != '/') {
                if (rank != 8)
                    return error_set(err, err_len, "column %d: board has %d ranks, expected 9", col, rank + 1);
                break;
            }
            if (++rank > 8)
                return error_set(err, err_len, "column %d: more than 9 ranks", col);
            file = 8;
        } else if (ch >= '1' && ch <= '9') {
            file -= ch - '0';
            if (file < -1)
                return error_set(err, err_len, "column %d: rank %d has more than 9 squares", col, rank + 1);
        } else {
            bool promoted = false;
            if (ch == '+') {
                promoted = true;
                ch = *++p;
                col++;
            }
            PieceType pt = piece_type_from_letter(ch);
            if (pt == NO_PIECE_TYPE)
                return error_set(err, err_len, "column %d: unknown piece '%c'", col, ch ? ch : '?');
            if (promoted && !piece_type_can_promote(pt))
                return error_set(err, err_len, "column %d: '%c' cannot be promoted", col, ch);
            if (file < 0)
                return error_set(err, err_len, "column %d: rank %d has more than 9 squares", col, rank + 1);
            Color c = isupper((unsigned char)ch) ? BLACK : WHITE;
            if (pt == KING && ++kings[c] > 1)
                return error_set(err, err_len, "column %d: %s has more than one king", col,
                                 c == BLACK ? "black" : "white");
            if (pt != KING && ++counts[pt] > PIECE_TYPE_TOTAL[pt])
                return error_set(err, err_len, "column %d: more than %d pieces of type '%c'", col, PIECE_TYPE_TOTAL[pt],
                                 PIECE_LETTERS[pt]);
            put_piece(pos, piece_make(c, promoted ? (PieceType)(pt + PROMOTED) : pt), square_make(file, rank));
            file--;
        }
    }
    bool allow_missing = (flags & SFEN_ALLOW_MISSING_KING) && (kings[BLACK] || kings[WHITE]);
    if ((!kings[BLACK] || !kings[WHITE]) && !allow_missing)
        return error_set(err, err_len, "column %d: %s king is missing", (int)(p - sfen) + 1,
                         !kings[BLACK] ? "black" : "white");

    while (*p == ' ')
        p++;
    if (*p == 'b' || *p == 'w')
        pos->side = *p++ == 'b' ? BLACK : WHITE;
    else
        return error_set(err, err_len, "column %d: side to move must be 'b' or 'w'", (int)(p - sfen) + 1);
    if (*p != ' ')
        return error_set(err, err_len, "column %d: expected a space after the side to move", (int)(p - sfen) + 1);
    while (*p == ' ')
        p++;

    if (*p == '-') {
        p++;
    } else {
        bool seen[COLOR_NB][PIECE_TYPE_NB] = {{false}};
        if (*p == '\0')
            return error_set(err, err_len, "column %d: hands are missing", (int)(p - sfen) + 1);
        while (*p && *p != ' ') {
            int col = (int)(p - sfen) + 1;
            int n = 1;
            if (isdigit((unsigned char)*p)) {
                n = 0;
                while (isdigit((unsigned char)*p) && n < 100)
                    n = n * 10 + (*p++ - '0');
                if (n < 1 || n > 18 || isdigit((unsigned char)*p))
                    return error_set(err, err_len, "column %d: bad hand count", col);
            }
            PieceType pt = piece_type_from_letter(*p);
            if (pt == NO_PIECE_TYPE || pt == KING)
                return error_set(err, err_len, "column %d: unknown hand piece '%c'", (int)(p - sfen) + 1,
                                 *p ? *p : '?');
            Color c = isupper((unsigned char)*p) ? BLACK : WHITE;
            if (seen[c][pt])
                return error_set(err, err_len, "column %d: hand piece '%c' given twice", (int)(p - sfen) + 1, *p);
            seen[c][pt] = true;
            counts[pt] += n;
            if (counts[pt] > PIECE_TYPE_TOTAL[pt])
                return error_set(err, err_len, "column %d: more than %d pieces of type '%c'", (int)(p - sfen) + 1,
                                 PIECE_TYPE_TOTAL[pt], PIECE_LETTERS[pt]);
            pos->hand[c] += (Hand)n << HAND_SHIFT[pt];
            p++;
        }
    }

    pos->ply = 1;
    while (*p == ' ')
        p++;
    if (*p) {
        int col = (int)(p - sfen) + 1;
        long n = 0;
        if (!isdigit((unsigned char)*p))
            return error_set(err, err_len, "column %d: move number must be a number", col);
        while (isdigit((unsigned char)*p)) {
            n = n * 10 + (*p++ - '0');
            if (n > 1000000)
                return error_set(err, err_len, "column %d: move number too large", col);
        }
        while (*p == ' ')
            p++;
        if (*p)
            return error_set(err, err_len, "column %d: unexpected text after the move number", (int)(p - sfen) + 1);
        pos->ply = n > 0 ? (int)n : 1;
    }

    finish_setup(pos);
    return true;
}

bool position_from_parts(Position *pos, StateInfo *st, const Piece board[SQ_NB], const Hand hand[COLOR_NB], Color side,
                         int ply, char *err, size_t err_len) {
    shogi_init();
    memset(pos, 0, sizeof *pos);
    memset(st, 0, sizeof *st);
    pos->st = st;
    pos->king_sq[BLACK] = pos->king_sq[WHITE] = SQ_NONE;
    int counts[PIECE_TYPE_NB] = {0};
    for (Square sq = 0; sq < SQ_NB; sq++) {
        Piece pc = board[sq];
        if (pc == NO_PIECE)
            continue;
        PieceType pt = piece_type(pc);
        if (pc < 0 || pc >= PIECE_NB || pt == NO_PIECE_TYPE || pt > DRAGON)
            return error_set(err, err_len, "square %d: not a piece (%d)", sq, pc);
        Color c = piece_color(pc);
        if (pt == KING) {
            if (pos->king_sq[c] != SQ_NONE)
                return error_set(err, err_len, "%s has more than one king", c == BLACK ? "black" : "white");
        } else if (++counts[piece_type_demote(pt)] > PIECE_TYPE_TOTAL[piece_type_demote(pt)]) {
            return error_set(err, err_len, "more than %d pieces of type '%c'", PIECE_TYPE_TOTAL[piece_type_demote(pt)],
                             PIECE_LETTERS[piece_type_demote(pt)]);
        }
        put_piece(pos, pc, sq);
    }
    if (pos->king_sq[BLACK] == SQ_NONE || pos->king_sq[WHITE] == SQ_NONE)
        return error_set(err, err_len, "%s king is missing", pos->king_sq[BLACK] == SQ_NONE ? "black" : "white");
    for (Color c = BLACK; c <= WHITE; c++)
        for (PieceType pt = PAWN; pt <= GOLD; pt++) {
            counts[pt] += hand_count(hand[c], pt);
            if (counts[pt] > PIECE_TYPE_TOTAL[pt])
                return error_set(err, err_len, "more than %d pieces of type '%c'", PIECE_TYPE_TOTAL[pt],
                                 PIECE_LETTERS[pt]);
            pos->hand[c] += (Hand)hand_count(hand[c], pt) << HAND_SHIFT[pt];
        }
    if (side != BLACK && side != WHITE)
        return error_set(err, err_len, "side to move %d is neither black nor white", (int)side);
    if (ply > 1000000)
        return error_set(err, err_len, "move number %d too large", ply);
    pos->side = side;
    pos->ply = ply > 0 ? ply : 1;
    finish_setup(pos);
    return true;
}

void position_set_startpos(Position *pos, StateInfo *st) {
    bool ok = position_from_sfen(pos, st, STARTPOS_SFEN, NULL, 0);
    (void)ok;
}

char *position_to_sfen(const Position *pos, char *buf, bool with_ply) {
    char *p = buf;
    for (int r = 0; r < 9; r++) {
        int empty = 0;
        for (int f = 8; f >= 0; f--) {
            Piece pc = pos->board[square_make(f, r)];
            if (pc == NO_PIECE) {
                empty++;
                continue;
            }
            if (empty)
                *p++ = (char)('0' + empty), empty = 0;
            PieceType pt = piece_type(pc);
            if (piece_type_is_promoted(pt))
                *p++ = '+';
            char ch = PIECE_LETTERS[piece_type_demote(pt)];
            *p++ = piece_color(pc) == BLACK ? ch : (char)tolower((unsigned char)ch);
        }
        if (empty)
            *p++ = (char)('0' + empty);
        if (r < 8)
            *p++ = '/';
    }
    *p++ = ' ';
    *p++ = pos->side == BLACK ? 'b' : 'w';
    *p++ = ' ';
    static const PieceType ORDER[] = {ROOK, BISHOP, GOLD, SILVER, KNIGHT, LANCE, PAWN};
    bool any = false;
    for (Color c = BLACK; c <= WHITE; c++)
        for (int i = 0; i < 7; i++) {
            int n = hand_count(pos->hand[c], ORDER[i]);
            if (!n)
                continue;
            any = true;
            if (n > 1)
                p += sprintf(p, "%d", n);
            char ch = PIECE_LETTERS[ORDER[i]];
            *p++ = c == BLACK ? ch : (char)tolower((unsigned char)ch);
        }
    if (!any)
        *p++ = '-';
    if (with_ply)
        p += sprintf(p, " %d", pos->ply);
    *p = '\0';
    return buf;
}

bool position_legality_report(const Position *pos, char *err, size_t err_len) {
    for (Square sq = 0; sq < SQ_NB; sq++) {
        Piece pc = pos->board[sq];
        if (pc == NO_PIECE)
            continue;
        Color c = piece_color(pc);
        int r = rank_relative(c, square_rank(sq));
        PieceType pt = piece_type(pc);
        if ((pt == PAWN || pt == LANCE) && r == 0)
            return error_set(err, err_len, "%s %s on square %d%c cannot move", c == BLACK ? "black" : "white",
                             pt == PAWN ? "pawn" : "lance", square_file(sq) + 1, 'a' + square_rank(sq));
        if (pt == KNIGHT && r < 2)
            return error_set(err, err_len, "%s knight on square %d%c cannot move", c == BLACK ? "black" : "white",
                             square_file(sq) + 1, 'a' + square_rank(sq));
    }
    for (Color c = BLACK; c <= WHITE; c++)
        for (int f = 0; f < 9; f++)
            if (bb_more_than_one(position_pieces(pos, c, PAWN) & bitboard_tables.file[f]))
                return error_set(err, err_len, "%s has two pawns on file %d (nifu)", c == BLACK ? "black" : "white",
                                 f + 1);
    Color them = color_flip(pos->side);
    if (position_attacked(pos, pos->side, pos->king_sq[them]))
        return error_set(err, err_len, "the side not to move (%s) is in check", them == BLACK ? "black" : "white");
    return true;
}

/* ---- do / undo ---- */

/* The board and hand keys after the pseudo-legal move m (side to move flipped), read
 * from pos before the move is made. */
static void keys_after(const Position *pos, Move m, Key *board_key, Key *hand_key) {
    Color us = pos->side;
    Square to = move_to(m);
    Key bk = pos->st->board_key, hk = pos->st->hand_key;
    if (move_is_drop(m)) {
        PieceType pt = move_dropped_type(m);
        hk -= zobrist.hand[us][pt];
        bk ^= zobrist.piece[piece_make(us, pt)][to];
    } else {
        Square from = move_from(m);
        Piece pc = pos->board[from], captured = pos->board[to];
        if (captured != NO_PIECE) {
            bk ^= zobrist.piece[captured][to];
            hk += zobrist.hand[us][piece_type_demote(piece_type(captured))];
        }
        bk ^= zobrist.piece[pc][from] ^ zobrist.piece[move_is_promotion(m) ? pc + PROMOTED : pc][to];
    }
    *board_key = bk ^ ZOBRIST_SIDE;
    *hand_key = hk;
}

Key position_key_after(const Position *pos, Move m) {
    Key bk, hk;
    keys_after(pos, m, &bk, &hk);
    return bk + hk;
}

void position_do_move(Position *pos, Move m, StateInfo *new_st) {
    StateInfo *st = pos->st;
    Color us = pos->side, them = color_flip(us);
    Square to = move_to(m);
    keys_after(pos, m, &new_st->board_key, &new_st->hand_key);
    new_st->plies_from_null = st->plies_from_null + 1;
    new_st->continuous_check[0] = st->continuous_check[0];
    new_st->continuous_check[1] = st->continuous_check[1];
    new_st->previous = st;
    new_st->last_move = m;

    if (move_is_drop(m)) {
        PieceType pt = move_dropped_type(m);
        pos->hand[us] = hand_sub(pos->hand[us], pt);
        put_piece(pos, piece_make(us, pt), to);
        new_st->captured = NO_PIECE;
    } else {
        Square from = move_from(m);
        Piece pc = pos->board[from];
        Piece captured = pos->board[to];
        if (captured != NO_PIECE) {
            remove_piece(pos, to);
            pos->hand[us] = hand_add(pos->hand[us], piece_type_demote(piece_type(captured)));
        }
        new_st->captured = captured;
        remove_piece(pos, from);
        put_piece(pos, move_is_promotion(m) ? pc + PROMOTED : pc, to);
    }
    pos->side = them;
    pos->ply++;
    pos->st = new_st;
    new_st->hand_of_mover = pos->hand[them];
    set_check_info(pos);
    new_st->continuous_check[us] = new_st->checkers ? st->continuous_check[us] + 2 : 0;
}

void position_undo_move(Position *pos, Move m) {
    StateInfo *st = pos->st;
    Color them = pos->side, us = color_flip(them);
    Square to = move_to(m);
    if (move_is_drop(m)) {
        remove_piece(pos, to);
        pos->hand[us] = hand_add(pos->hand[us], move_dropped_type(m));
    } else {
        Square from = move_from(m);
        Piece after = pos->board[to];
        Piece pc = move_is_promotion(m) ? after - PROMOTED : after;
        remove_piece(pos, to);
        put_piece(pos, pc, from);
        if (st->captured != NO_PIECE) {
            put_piece(pos, st->captured, to);
            pos->hand[us] = hand_sub(pos->hand[us], piece_type_demote(piece_type(st->captured)));
        }
    }
    pos->side = us;
    pos->ply--;
    pos->st = st->previous;
}

void position_do_null_move(Position *pos, StateInfo *new_st) {
    StateInfo *st = pos->st;
    *new_st = *st;
    new_st->previous = st;
    new_st->board_key ^= ZOBRIST_SIDE;
    new_st->plies_from_null = 0;
    new_st->captured = NO_PIECE;
    new_st->last_move = MOVE_NULL;
    pos->side = color_flip(pos->side);
    pos->st = new_st;
    new_st->hand_of_mover = pos->hand[pos->side];
    set_check_info(pos);
}

void position_undo_null_move(Position *pos) {
    pos->side = color_flip(pos->side);
    pos->st = pos->st->previous;
}

/* ---- legality ---- */

bool position_is_legal(const Position *pos, Move m) {
    if (move_is_drop(m))
        return true;
    Color us = pos->side;
    Square from = move_from(m), to = move_to(m);
    if (piece_type(pos->board[from]) == KING)
        return !position_attackers_to(pos, color_flip(us), to, position_occupied(pos) ^ bb_square(from));
    return !bb_test(pos->st->blockers_for_king[us], from) || bb_aligned(from, to, pos->king_sq[us]);
}

bool position_gives_check(const Position *pos, Move m) {
    Square to = move_to(m);
    const StateInfo *st = pos->st;
    PieceType after;
    if (move_is_drop(m))
        after = move_dropped_type(m);
    else {
        Square from = move_from(m);
        after = piece_type(pos->board[from]) + (move_is_promotion(m) ? PROMOTED : 0);
        Color them = color_flip(pos->side);
        if (bb_test(st->blockers_for_king[them], from) && !bb_aligned(from, to, pos->king_sq[them]))
            return true;
    }
    return bb_test(st->check_squares[after], to);
}

bool position_pawn_drop_mates(const Position *pos, Square sq) {
    Color us = pos->side, them = color_flip(us);
    Square ksq = pos->king_sq[them];
    Bitboard occ = position_occupied(pos) | bb_square(sq);
    /* Can a piece other than the king take the pawn without exposing the king? */
    Bitboard takers = position_attackers_to(pos, them, sq, occ) & ~bb_square(ksq);
    Bitboard pinned = pos->st->blockers_for_king[them] & pos->by_color[them];
    while (takers) {
        Square from = bb_pop(&takers);
        if (!bb_test(pinned, from) || bb_aligned(from, sq, ksq))
            return false;
    }
    /* Can the king step out (or take the pawn) to a square we do not attack? */
    Bitboard escapes = bb_king_attacks(ksq) & ~pos->by_color[them];
    Bitboard occ_wo_king = occ ^ bb_square(ksq);
    while (escapes) {
        Square to = bb_pop(&escapes);
        if (!position_attackers_to(pos, us, to, occ_wo_king))
            return false;
    }
    return true;
}

Move position_legal_move_from16(const Position *pos, Move16 m16) {
    Color us = pos->side, them = color_flip(us);
    Square to = move_to(m16);
    if (to >= SQ_NB)
        return MOVE_NONE;
    const StateInfo *st = pos->st;
    Square ksq = pos->king_sq[us];
    int r = rank_relative(us, square_rank(to));
    Move m;

    if (move_is_drop(m16)) {
        PieceType pt = move_dropped_type(m16);
        if (move_is_promotion(m16) || pt < PAWN || pt > GOLD || !hand_has(pos->hand[us], pt) ||
            pos->board[to] != NO_PIECE)
            return MOVE_NONE;
        if (((pt == PAWN || pt == LANCE) && r == 0) || (pt == KNIGHT && r < 2))
            return MOVE_NONE;
        if (st->checkers && (bb_more_than_one(st->checkers) || !bb_test(bb_between(ksq, bb_lsb(st->checkers)), to)))
            return MOVE_NONE;
        if (pt == PAWN) {
            if (position_pieces(pos, us, PAWN) & bitboard_tables.file[square_file(to)])
                return MOVE_NONE;
            if (bb_test(bb_pawn_attacks(us, to), pos->king_sq[them]) && position_pawn_drop_mates(pos, to))
                return MOVE_NONE;
        }
        return move_make_drop(pt, to, us);
    }

    Square from = move_from(m16);
    if (from >= SQ_NB)
        return MOVE_NONE;
    Piece pc = pos->board[from];
    if (pc == NO_PIECE || piece_color(pc) != us)
        return MOVE_NONE;
    if (pos->board[to] != NO_PIECE && piece_color(pos->board[to]) == us)
        return MOVE_NONE;
    if (!bb_test(bb_piece_attacks(pc, from, position_occupied(pos)), to))
        return MOVE_NONE;
    PieceType pt = piece_type(pc);
    if (move_is_promotion(m16)) {
        if (!piece_type_can_promote(pt) || !(square_in_zone(us, from) || square_in_zone(us, to)))
            return MOVE_NONE;
    } else if (((pt == PAWN || pt == LANCE) && r == 0) || (pt == KNIGHT && r < 2)) {
        return MOVE_NONE;
    }
    m = move_make(from, to, move_is_promotion(m16), move_is_promotion(m16) ? pc + PROMOTED : pc);
    if (st->checkers && pt != KING) {
        if (bb_more_than_one(st->checkers))
            return MOVE_NONE;
        Square checker = bb_lsb(st->checkers);
        if (!bb_test(bb_between(ksq, checker) | st->checkers, to))
            return MOVE_NONE;
    }
    return position_is_legal(pos, m) ? m : MOVE_NONE;
}

int position_count_pieces(const Position *pos, Color c, PieceType unpromoted) {
    int n = hand_count(pos->hand[c], unpromoted);
    Bitboard b = pos->by_color[c];
    while (b) {
        Square sq = bb_pop(&b);
        n += piece_type_demote(piece_type(pos->board[sq])) == unpromoted;
    }
    return n;
}

char *position_to_diagram(const Position *pos, char *buf) {
    char *p = buf;
    char sfen[SFEN_MAX];
    p += sprintf(p, "  9  8  7  6  5  4  3  2  1\n");
    for (int r = 0; r < 9; r++) {
        for (int f = 8; f >= 0; f--) {
            Piece pc = pos->board[square_make(f, r)];
            if (pc == NO_PIECE) {
                p += sprintf(p, "  .");
                continue;
            }
            PieceType pt = piece_type(pc);
            char ch = PIECE_LETTERS[piece_type_demote(pt)];
            if (piece_color(pc) == WHITE)
                ch = (char)tolower((unsigned char)ch);
            p += sprintf(p, " %c%c", piece_type_is_promoted(pt) ? '+' : ' ', ch);
        }
        p += sprintf(p, "  %c\n", 'a' + r);
    }
    p += sprintf(p, "sfen %s\n", position_to_sfen(pos, sfen, true));
    p += sprintf(p, "side to move: %s%s\n", pos->side == BLACK ? "black" : "white",
                 position_in_check(pos) ? " (in check)" : "");
    return buf;
}

bool position_is_consistent(const Position *pos) {
    Bitboard by_type[PIECE_TYPE_NB] = {0}, by_color[COLOR_NB] = {0};
    for (Square sq = 0; sq < SQ_NB; sq++) {
        Piece pc = pos->board[sq];
        if (pc == NO_PIECE)
            continue;
        if (piece_type(pc) == NO_PIECE_TYPE || (pc & ~31))
            return false;
        by_type[piece_type(pc)] |= bb_square(sq);
        by_type[NO_PIECE_TYPE] |= bb_square(sq);
        by_color[piece_color(pc)] |= bb_square(sq);
        if (piece_type(pc) == KING && pos->king_sq[piece_color(pc)] != sq)
            return false;
    }
    for (int i = 0; i < PIECE_TYPE_NB; i++)
        if (by_type[i] != pos->by_type[i])
            return false;
    if (by_color[0] != pos->by_color[0] || by_color[1] != pos->by_color[1])
        return false;
    if (compute_board_key(pos) != pos->st->board_key || compute_hand_key(pos) != pos->st->hand_key)
        return false;
    return pos->st->checkers ==
           position_attackers_to(pos, color_flip(pos->side), pos->king_sq[pos->side], position_occupied(pos));
}
