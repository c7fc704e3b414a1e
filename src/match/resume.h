/* resume.h - `match --resume`: the games a match record already holds.
 *
 * A record `hayanagi match --out` wrote is "V2.2", then its games separated by "/" lines,
 * each with "$EVENT:hayanagi match, game I of N" and, when it finished, a
 * "'summary:WORD:BLACK RESULT:WHITE RESULT" comment. Reading it back gives, for each
 * schedule index, the game's end and outcome (what the result needs) and its text as
 * written (so that rewriting the record keeps it byte for byte, times and comments
 * included). Games without a summary (unfinished, %CHUDAN, or a summary lost) are left
 * to be played again, but their text is kept too: nothing read is dropped. Lines may end
 * in LF or CRLF.
 * The record is hostile input: every game must parse and replay as CSA, belong to a match
 * of the same number of games, appear once, and state the same time control as the
 * others; anything else refuses the whole file with the game's line and the reason.
 */
#ifndef HAYANAGI_MATCH_RESUME_H
#define HAYANAGI_MATCH_RESUME_H

#include <stdbool.h>
#include <stddef.h>

#include "record/csa_write.h"

typedef struct {
    int games;                      /* the schedule's length */
    int n_done;                     /* games read back */
    GameRecord *done;               /* [games]: end and outcome of the games read back (END_NONE else) */
    char **text;                    /* [games]: every game's text as written, counted or not,
                                     * "\n"-terminated (NULL when the record has no such game) */
    char names[2][RECORD_NAME_MAX]; /* engine 1's and engine 2's names in the record ("" if unseen) */
    /* the "'time control: " comment of the games read (the match's clocks as
     * match_time_control_describe() wrote them), "" when none has one; games that disagree
     * are refused: a match is played on one set of clocks */
    char time_control[sizeof(((GameRecord *)0)->time_control)];
} MatchResume;

/* Reads the record at path for a match of `games` games into *r (zeroed first; free it
 * with match_resume_free() whatever the answer). False with the reason in err when the
 * file cannot be read or is not such a record. */
bool match_resume_read(const char *path, int games, MatchResume *r, char *err, size_t err_len);

/* The same over len bytes of memory (need not be NUL-terminated); name is used in messages. */
bool match_resume_read_memory(const char *name, const char *buf, size_t len, int games, MatchResume *r, char *err,
                              size_t err_len);

void match_resume_free(MatchResume *r);

#endif
