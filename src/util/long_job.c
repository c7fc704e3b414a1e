/* long_job.c - see long_job.h. */
#include "util/long_job.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void long_job_begin(LongJob *j) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPIPE, &sa, &j->old_pipe);
    interrupt_begin(&j->scope, NULL);
}

void long_job_end(LongJob *j) {
    interrupt_end(&j->scope);
    sigaction(SIGPIPE, &j->old_pipe, NULL);
}

bool long_job_side_path(const char *out, const char *suffix, char *buf, size_t len) {
    int n = snprintf(buf, len, "%s%s", out, suffix);
    if (n < 0 || (size_t)n >= len) {
        if (len)
            buf[0] = '\0';
        return false;
    }
    return true;
}

int long_job_interrupted(const char *prog, const char *fmt, ...) {
    fprintf(stderr, "%s: interrupted after ", prog);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, ", run the same command again to resume\n");
    return INTERRUPT_EXIT_STATUS;
}
