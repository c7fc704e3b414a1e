/* options.h - the USI option table: every option the engine offers, declared once in
 * USI_OPTION_LIST below, the `usi` listing, `setoption` parsing with validation, and typed
 * read access by OptionId, so a misspelled option name in the code is a compile error
 * (OPTION_Hahs does not exist), not a silent 0. */
#ifndef HAYANAGI_USI_OPTIONS_H
#define HAYANAGI_USI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum { OPT_CHECK, OPT_SPIN, OPT_COMBO, OPT_STRING, OPT_FILENAME, OPT_BUTTON } OptionType;

/* Every USI option, in the order `usi` lists them: X(name, type, default, min, max, vars).
 * name is the USI spelling and, prefixed with OPTION_, its OptionId; min and max bound a
 * spin; vars names a NULL-terminated list of combo values (defined in options.c). The
 * meaning of each option is documented in docs/usi.md (MCTS ones in usi_mcts.h). */
#define USI_OPTION_LIST(X)                                                                                             \
    X(USI_Ponder, OPT_CHECK, "false", 0, 0, NULL)                                                                      \
    X(USI_Hash, OPT_SPIN, "256", 1, 65536, NULL)                                                                       \
    X(Hash, OPT_SPIN, "256", 1, 65536, NULL)                                                                           \
    X(Threads, OPT_SPIN, "1", 1, MAX_THREADS, NULL)                                                                    \
    X(MultiPV, OPT_SPIN, "1", 1, MAX_MULTIPV, NULL)                                                                    \
    X(MinimumThinkingTime, OPT_SPIN, "1000", 0, 100000, NULL)                                                          \
    X(NetworkDelay, OPT_SPIN, "120", 0, 10000, NULL)                                                                   \
    X(NetworkDelay2, OPT_SPIN, "1120", 0, 10000, NULL)                                                                 \
    X(SlowMover, OPT_SPIN, "100", 1, 1000, NULL)                                                                       \
    X(ResignValue, OPT_SPIN, "99999", 0, 99999, NULL)                                                                  \
    X(EnteringKingRule, OPT_COMBO, "CSARule27", 0, 0, EKR_VARS)                                                        \
    X(MaxMovesToDraw, OPT_SPIN, "0", 0, 100000, NULL)                                                                  \
    X(USI_OwnBook, OPT_CHECK, "true", 0, 0, NULL)                                                                      \
    X(BookDir, OPT_STRING, "book", 0, 0, NULL)                                                                         \
    X(BookFile, OPT_STRING, "standard_book.db", 0, 0, NULL)                                                            \
    X(BookOnTheFly, OPT_CHECK, "false", 0, 0, NULL)                                                                    \
    X(BookMoves, OPT_SPIN, "16", 0, 10000, NULL)                                                                       \
    X(BookIgnoreRate, OPT_SPIN, "0", 0, 100, NULL)                                                                     \
    X(BookEvalDiff, OPT_SPIN, "30", 0, 99999, NULL)                                                                    \
    X(BookEvalBlackLimit, OPT_SPIN, "0", -99999, 99999, NULL)                                                          \
    X(BookEvalWhiteLimit, OPT_SPIN, "-140", -99999, 99999, NULL)                                                       \
    X(BookDepthLimit, OPT_SPIN, "0", 0, 99999, NULL)                                                                   \
    X(ConsiderBookMoveCount, OPT_CHECK, "false", 0, 0, NULL)                                                           \
    X(BookPvMoves, OPT_SPIN, "8", 1, 246, NULL)                                                                        \
    X(IgnoreBookPly, OPT_CHECK, "true", 0, 0, NULL)                                                                    \
    X(FlippedBook, OPT_CHECK, "true", 0, 0, NULL)                                                                      \
    X(NarrowBook, OPT_CHECK, "false", 0, 0, NULL)                                                                      \
    X(BookSeed, OPT_SPIN, "0", 0, INT32_MAX, NULL)                                                                     \
    X(RivalBookDir, OPT_STRING, "", 0, 0, NULL)                                                                        \
    X(USI_Opponent, OPT_STRING, "", 0, 0, NULL)                                                                        \
    X(EvalDir, OPT_STRING, "eval", 0, 0, NULL)                                                                         \
    X(EvalFile, OPT_STRING, "nn.bin", 0, 0, NULL)                                                                      \
    X(FV_SCALE, OPT_SPIN, "16", 1, 128, NULL)                                                                          \
    X(UseMCTS, OPT_CHECK, "false", 0, 0, NULL)                                                                         \
    X(C_init, OPT_SPIN, "144", 0, 500, NULL)                                                                           \
    X(C_base, OPT_SPIN, "28288", 10000, 100000, NULL)                                                                  \
    X(C_fpu_reduction, OPT_SPIN, "27", 0, 100, NULL)                                                                   \
    X(C_init_root, OPT_SPIN, "116", 0, 500, NULL)                                                                      \
    X(C_base_root, OPT_SPIN, "25617", 10000, 100000, NULL)                                                             \
    X(C_fpu_reduction_root, OPT_SPIN, "0", 0, 100, NULL)                                                               \
    X(PolicyTemperature, OPT_SPIN, "100", 1, 10000, NULL)                                                              \
    X(Use_Book_Policy, OPT_CHECK, "false", 0, 0, NULL)                                                                 \
    X(BookPolicyAlpha, OPT_SPIN, "50", 0, 100, NULL)                                                                   \
    X(UCT_Hash, OPT_SPIN, "256", 1, 65536, NULL)                                                                       \
    X(ReuseSubtree, OPT_CHECK, "true", 0, 0, NULL)

typedef enum {
#define OPTION_ID(name, type, def, min, max, vars) OPTION_##name,
    USI_OPTION_LIST(OPTION_ID)
#undef OPTION_ID
        OPTION_COUNT
} OptionId;

enum { OPTION_VALUE_MAX = 1024, OPTION_VARS_MAX = 8 };

typedef struct {
    OptionId id;
    const char *name; /* the USI spelling */
    OptionType type;
    const char *default_value;
    int64_t min, max;                  /* spin */
    const char *vars[OPTION_VARS_MAX]; /* combo, NULL-terminated */
    char value[OPTION_VALUE_MAX];
    bool changed; /* set by option_set, cleared by the reader */
} Option;

typedef struct {
    Option items[OPTION_COUNT]; /* indexed by OptionId */
} OptionTable;

/* Fills t with every option of USI_OPTION_LIST at its default value. */
void options_init(OptionTable *t);
/* Writes the `option name ... type ...` lines for `usi`. */
void options_print(const OptionTable *t, FILE *out);
/* Applies the arguments of `setoption` ("name <id> [value <x>]"; both may contain
 * spaces). Names are case-insensitive, as GUIs differ. Returns the option changed (inside
 * t), or NULL with the reason in err. */
Option *options_set_from_usi(OptionTable *t, const char *args, char *err, size_t err_len);

/* The option of that USI name (case-insensitive) inside t, or NULL: for text from outside
 * (setoption); the code names options by OptionId. */
Option *options_find(OptionTable *t, const char *name);
/* The option id inside t. */
Option *options_get(OptionTable *t, OptionId id);
/* A spin's value (0 for other types' text that is not a number). */
int64_t options_int(const OptionTable *t, OptionId id);
/* A check's value. */
bool options_bool(const OptionTable *t, OptionId id);
/* A string, filename or combo value; owned by t. */
const char *options_string(const OptionTable *t, OptionId id);
/* True once after each change of the option (for reloads at isready). */
bool options_take_changed(OptionTable *t, OptionId id);

#endif
