/* options.c - see options.h. */
#include "usi/options.h"

#include "search/search.h" /* MAX_THREADS, MAX_MULTIPV */
#include "util/parse.h"
#include "util/error.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const TYPE_NAMES[] = {"check", "spin", "combo", "string", "filename", "button"};

static const char *const EKR_VARS[] = {"NoEnteringKing", "CSARule24", "CSARule24H", "CSARule27",
                                       "CSARule27H",     "TryRule",   NULL};

void options_init(OptionTable *t) {
    static const struct {
        const char *name;
        OptionType type;
        const char *def;
        int64_t min, max;
        const char *const *vars;
    } LIST[OPTION_COUNT] = {
#define OPTION_ROW(name, type, def, min, max, vars) {#name, type, def, min, max, vars},
        USI_OPTION_LIST(OPTION_ROW)
#undef OPTION_ROW
    };
    for (int id = 0; id < OPTION_COUNT; id++) {
        Option *o = &t->items[id];
        memset(o, 0, sizeof *o);
        o->id = (OptionId)id;
        o->name = LIST[id].name;
        o->type = LIST[id].type;
        o->default_value = LIST[id].def;
        o->min = LIST[id].min;
        o->max = LIST[id].max;
        for (int i = 0; LIST[id].vars && LIST[id].vars[i] && i < OPTION_VARS_MAX - 1; i++)
            o->vars[i] = LIST[id].vars[i];
        snprintf(o->value, sizeof o->value, "%s", o->default_value);
    }
}

void options_print(const OptionTable *t, FILE *out) {
    for (int i = 0; i < OPTION_COUNT; i++) {
        const Option *o = &t->items[i];
        fprintf(out, "option name %s type %s", o->name, TYPE_NAMES[o->type]);
        if (o->type != OPT_BUTTON)
            fprintf(out, " default %s", o->default_value[0] ? o->default_value : "<empty>");
        if (o->type == OPT_SPIN)
            fprintf(out, " min %lld max %lld", (long long)o->min, (long long)o->max);
        for (int k = 0; o->type == OPT_COMBO && o->vars[k]; k++)
            fprintf(out, " var %s", o->vars[k]);
        fputc('\n', out);
    }
}

Option *options_find(OptionTable *t, const char *name) {
    for (int i = 0; i < OPTION_COUNT; i++)
        if (strcasecmp(t->items[i].name, name) == 0)
            return &t->items[i];
    return NULL;
}

static void trim(char *s) {
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    size_t k = 0;
    while (isspace((unsigned char)s[k]))
        k++;
    memmove(s, s + k, n - k + 1);
}

Option *options_set_from_usi(OptionTable *t, const char *args, char *err, size_t err_len) {
    while (isspace((unsigned char)*args))
        args++;
    if (strncmp(args, "name", 4) != 0 || !isspace((unsigned char)args[4])) {
        error_set(err, err_len, "setoption: expected 'name <id> [value <x>]'");
        return NULL;
    }
    args += 5;
    /* The name runs to the word "value"; the value is everything after it. */
    char name[256], value[OPTION_VALUE_MAX];
    const char *v = strstr(args, " value");
    while (v && v[6] && !isspace((unsigned char)v[6]))
        v = strstr(v + 1, " value");
    size_t nlen = v ? (size_t)(v - args) : strlen(args);
    if (nlen >= sizeof name) {
        error_set(err, err_len, "setoption: option name too long");
        return NULL;
    }
    memcpy(name, args, nlen);
    name[nlen] = '\0';
    trim(name);
    value[0] = '\0';
    if (v) {
        if (strlen(v + 6) >= sizeof value) {
            error_set(err, err_len, "setoption: value too long");
            return NULL;
        }
        strcpy(value, v + 6);
        trim(value);
    }
    Option *o = options_find(t, name);
    if (!o) {
        error_set(err, err_len, "setoption: unknown option '%.64s'", name);
        return NULL;
    }
    switch (o->type) {
    case OPT_CHECK:
        if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0) {
            error_set(err, err_len, "setoption: %s expects true or false, got '%.64s'", o->name, value);
            return NULL;
        }
        break;
    case OPT_SPIN: {
        long long n;
        if (!parse_integer(value, LLONG_MIN, LLONG_MAX, &n)) {
            error_set(err, err_len, "setoption: %s expects an integer, got '%.64s'", o->name, value);
            return NULL;
        }
        if (n < o->min || n > o->max) {
            error_set(err, err_len, "setoption: %s must be within %lld..%lld, got %lld", o->name, (long long)o->min,
                      (long long)o->max, n);
            return NULL;
        }
        snprintf(value, sizeof value, "%lld", n);
        break;
    }
    case OPT_COMBO: {
        bool ok = false;
        for (int k = 0; o->vars[k] && !ok; k++)
            if (strcasecmp(o->vars[k], value) == 0) {
                snprintf(value, sizeof value, "%s", o->vars[k]);
                ok = true;
            }
        if (!ok) {
            error_set(err, err_len, "setoption: '%.64s' is not a value of %s", value, o->name);
            return NULL;
        }
        break;
    }
    case OPT_STRING:
    case OPT_FILENAME:
        if (strcmp(value, "<empty>") == 0)
            value[0] = '\0';
        break;
    case OPT_BUTTON: break;
    }
    memcpy(o->value, value, sizeof o->value);
    o->changed = true;
    return o;
}

Option *options_get(OptionTable *t, OptionId id) { return &t->items[id]; }

int64_t options_int(const OptionTable *t, OptionId id) { return strtoll(t->items[id].value, NULL, 10); }

bool options_bool(const OptionTable *t, OptionId id) { return strcmp(t->items[id].value, "true") == 0; }

const char *options_string(const OptionTable *t, OptionId id) { return t->items[id].value; }

bool options_take_changed(OptionTable *t, OptionId id) {
    Option *o = &t->items[id];
    if (!o->changed)
        return false;
    o->changed = false;
    return true;
}
