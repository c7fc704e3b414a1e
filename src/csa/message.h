/* message.h - what a CSA server says, read as hostile input: the Game_Summary block and
 * the lines of a game (CSA protocol 1.2.1, with floodgate's and shogi-server's
 * extensions). docs/csa.md lists what is covered.
 *
 * The Game_Summary is fed one line at a time (lines come off a socket): the parser keeps
 * the position block's text, bounded, and reads it at "END Position" with the record
 * reader (record/reader.h), so a CSA position means the same here as in a record file.
 * Every refusal names the summary line and the reason. Limits: CSA_LINE_MAX bytes a
 * line (the connection cuts longer ones), CSA_SUMMARY_LINES_MAX lines, CSA_MOVES_MAX
 * moves already played, CSA_FIELD_MAX bytes for a name or a game id.
 *
 * No allocation: a CsaSummaryParser and a CsaSummary are plain values (large ones: put
 * them on the heap).
 */
#ifndef HAYANAGI_CSA_MESSAGE_H
#define HAYANAGI_CSA_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shogi/position.h"

enum {
    CSA_LINE_MAX = 1024,           /* longest line accepted from a server, without the newline */
    CSA_SUMMARY_LINES_MAX = 4200,  /* lines in one Game_Summary block */
    CSA_MOVES_MAX = 4000,          /* moves already played in the position block */
    CSA_FIELD_MAX = 128,           /* a name or Game_ID, NUL included */
    CSA_POSITION_TEXT_MAX = 98304, /* bytes of the position block kept for the reader */
    CSA_TIME_UNITS_MAX = 100000000 /* largest time value accepted (in its Time_Unit) */
};

/* One side's clock as the Time section gives it, in milliseconds. */
typedef struct {
    int64_t total_ms;     /* Total_Time */
    int64_t byoyomi_ms;   /* Byoyomi */
    int64_t increment_ms; /* Increment (Fischer) */
    int64_t least_ms;     /* Least_Time_Per_Move: the least a move is charged */
    int64_t remaining_ms; /* Remaining_Time+/- (shogi-server, a resumed game), -1 when absent */
    bool roundup;         /* Time_Roundup:YES: a started unit counts whole (else floored) */
} CsaSideTime;

typedef struct {
    char game_id[CSA_FIELD_MAX];
    char name[COLOR_NB][CSA_FIELD_MAX]; /* Name+ and Name- */
    Color my_color;                     /* Your_Turn */
    Color to_move;                      /* To_Move */
    int max_moves;                      /* Max_Moves, 0 when absent or 0 (no limit) */
    int64_t time_unit_ms;               /* Time_Unit (1sec when absent; 1msec, 1min, 10sec, ...) */
    CsaSideTime time[COLOR_NB];         /* "BEGIN Time" sets both, "BEGIN Time+" / "Time-" one */
    char root_sfen[SFEN_MAX];           /* the position block's position, before its moves */
    int n_moves;                        /* moves already played (in the position block) */
    Move moves[CSA_MOVES_MAX];
    int64_t move_units[CSA_MOVES_MAX]; /* each move's ",T<n>" in Time_Unit, -1 when it had none */
} CsaSummary;

typedef enum { CSA_FEED_MORE, CSA_FEED_DONE, CSA_FEED_ERROR } CsaFeed;

typedef struct {
    CsaSummary *out;
    int lines;
    int section; /* where the next line belongs (message.c) */
    unsigned seen;
    Color time_side; /* for the per-side Time sections; COLOR_NB for both */
    int pos_moves;   /* move lines seen in the position block */
    size_t pos_len;
    char pos_text[CSA_POSITION_TEXT_MAX];
} CsaSummaryParser;

/* Starts a parse that fills *out (cleared here; both owned by the caller). The first
 * line fed must be "BEGIN Game_Summary". */
void csa_summary_begin(CsaSummaryParser *p, CsaSummary *out);

/* Feeds one line (no newline). Returns CSA_FEED_MORE until "END Game_Summary", then
 * CSA_FEED_DONE with *out complete and checked (names, Your_Turn, a legal position with
 * legal moves, times in range); CSA_FEED_ERROR with "summary line N: reason" in err. Feeding
 * after DONE or ERROR is an error. */
CsaFeed csa_summary_feed(CsaSummaryParser *p, const char *line, char *err, size_t err_len);

/* The words a game ends with ("#WIN" ...), in the order of csa_end_word_name(). */
typedef enum {
    CSA_END_WIN,
    CSA_END_LOSE,
    CSA_END_DRAW,
    CSA_END_CENSORED,
    CSA_END_CHUDAN,
    CSA_END_RESIGN,
    CSA_END_TIME_UP,
    CSA_END_ILLEGAL_MOVE,
    CSA_END_SENNICHITE,
    CSA_END_OUTE_SENNICHITE,
    CSA_END_JISHOGI,
    CSA_END_MAX_MOVES,
    CSA_END_NB
} CsaEndWord;

/* "WIN", "LOSE", ... (without the "#"). */
const char *csa_end_word_name(CsaEndWord w);

/* True for the words that close a game (#WIN #LOSE #DRAW #CENSORED #CHUDAN); the others
 * give the reason and come before one of them. */
bool csa_end_word_is_final(CsaEndWord w);

typedef enum {
    CSA_MSG_EMPTY,   /* an empty line (a keep-alive) */
    CSA_MSG_MOVE,    /* "+7776FU[,T12][,'comment]": move[] and units */
    CSA_MSG_SPECIAL, /* "%TORYO", "%KACHI", "%CHUDAN" [,T12]: special[] and units */
    CSA_MSG_END      /* "#WORD": word */
} CsaMsgType;

typedef struct {
    CsaMsgType type;
    char move[8];     /* "+7776FU" for CSA_MSG_MOVE */
    char special[16]; /* "%TORYO" ... for CSA_MSG_SPECIAL */
    int64_t units;    /* the ",T<n>" time in Time_Unit, -1 when absent */
    CsaEndWord word;
} CsaMsg;

/* Reads one line of a game. Returns false with the reason in why for anything else (an
 * unknown "#" or "%" word, a malformed move or time, trailing garbage); the move is only
 * checked for its shape here, its legality is the game's business. */
bool csa_message_parse(const char *line, CsaMsg *out, char *why, size_t why_len);

#endif
