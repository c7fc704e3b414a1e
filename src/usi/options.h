/* options.h - the USI option table: declaration, `usi` listing, `setoption` parsing
 * with validation, and typed read access. */
#ifndef HAYANAGI_USI_OPTIONS_H
#define HAYANAGI_USI_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef enum { OPT_CHECK, OPT_SPIN, OPT_COMBO, OPT_STRING, OPT_FILENAME, OPT_BUTTON } OptionType;

enum { OPTION_MAX = 64, OPTION_VALUE_MAX = 1024, OPTION_VARS_MAX = 8 };

typedef struct {
    const char *name;
    OptionType type;
    const char *default_value;
    int64_t min, max;                  /* spin */
    const char *vars[OPTION_VARS_MAX]; /* combo, NULL-terminated */
    char value[OPTION_VALUE_MAX];
    bool changed; /* set by option_set, cleared by the reader */
} Option;

typedef struct {
    Option items[OPTION_MAX];
    int count;
} OptionTable;

/* Adds an option (its value starts at the default). Names are case-insensitive for
 * setoption, as GUIs differ. Returns the new option. */
Option *options_add(OptionTable *t, const char *name, OptionType type, const char *def, int64_t min, int64_t max,
                    const char *const *vars);
/* Writes the `option name ... type ...` lines for `usi`. */
void options_print(const OptionTable *t, FILE *out);
/* Applies the arguments of `setoption` ("name <id> [value <x>]"; both may contain
 * spaces). Returns the option changed, or NULL with the reason in err. */
Option *options_set_from_usi(OptionTable *t, const char *args, char *err, size_t err_len);

Option *options_find(OptionTable *t, const char *name);
int64_t options_int(OptionTable *t, const char *name);
bool options_bool(OptionTable *t, const char *name);
const char *options_string(OptionTable *t, const char *name);
/* True once after each change of the option (for reloads at isready). */
bool options_take_changed(OptionTable *t, const char *name);

#endif
