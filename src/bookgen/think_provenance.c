/* think_provenance.c - the provenance line of `book think` (think_provenance.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bookgen/think_provenance.h"
#include "util/parse.h"

void think_provenance_date(char *buf, size_t len) {
    time_t t = time(NULL);
    const char *epoch = getenv("SOURCE_DATE_EPOCH");
    long long fixed;
    if (epoch && parse_integer(epoch, 0, 253402300799LL, &fixed))
        t = (time_t)fixed;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Copies text into out (len bytes) with the characters that would end a field as ','. */
static void field(const char *text, char *out, size_t len) {
    snprintf(out, len, "%s", text);
    for (char *c = out; *c; c++)
        if (*c == ';' || *c == '\n' || *c == '\r')
            *c = ',';
}

char *think_provenance_format(const ThinkProvenance *p, char *buf, size_t len) {
    char engine[sizeof p->engine], budget[sizeof p->budget];
    field(p->engine, engine, sizeof engine);
    field(p->budget, budget, sizeof budget);
    snprintf(buf, len, "think engine=%s; budget=%s; depth=%d; nodes=%llu; date=%s", engine, budget, p->depth, p->nodes,
             p->date);
    return buf;
}

bool think_provenance_parse(const char *comment, ThinkProvenance *p) {
    memset(p, 0, sizeof *p);
    const char *last = NULL;
    for (const char *s = comment; s && (s = strstr(s, "think engine=")) != NULL; s++)
        if (s == comment || s[-1] == '\n')
            last = s;
    if (!last)
        return false;
    size_t len = strcspn(last, "\n");
    char line[512];
    if (len >= sizeof line)
        len = sizeof line - 1;
    memcpy(line, last, len);
    line[len] = '\0';
    for (char *f = line + 6; f && *f;) {
        char *end = strstr(f, "; ");
        if (end)
            *end = '\0';
        char *eq = strchr(f, '=');
        if (eq) {
            *eq = '\0';
            const char *v = eq + 1;
            uint64_t u;
            if (!strcmp(f, "engine"))
                snprintf(p->engine, sizeof p->engine, "%s", v);
            else if (!strcmp(f, "budget"))
                snprintf(p->budget, sizeof p->budget, "%s", v);
            else if (!strcmp(f, "date"))
                snprintf(p->date, sizeof p->date, "%s", v);
            else if (!strcmp(f, "depth") && !parse_int(v, -1000000, 1000000, &p->depth))
                p->depth = 0;
            else if (!strcmp(f, "nodes") && parse_unsigned(v, &u))
                p->nodes = u;
        }
        f = end ? end + 2 : NULL;
    }
    return true;
}
