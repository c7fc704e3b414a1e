/* interrupt.c - see interrupt.h. */
#include "util/interrupt.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The module's singleton: all a signal handler may touch. */
static volatile sig_atomic_t interrupted;
static char remove_path[4096];
static volatile sig_atomic_t remove_armed;

static void on_signal(int sig) {
    interrupted = 1;
    if (remove_armed) {
        unlink(remove_path); /* async-signal-safe */
        signal(sig, SIG_DFL);
        raise(sig);
    }
}

void interrupt_begin(InterruptScope *scope, const char *remove_on_signal) {
    interrupted = 0;
    remove_armed = 0;
    if (remove_on_signal && strlen(remove_on_signal) < sizeof remove_path) {
        memcpy(remove_path, remove_on_signal, strlen(remove_on_signal) + 1);
        remove_armed = 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &scope->old_int);
    sigaction(SIGTERM, &sa, &scope->old_term);
}

void interrupt_end(InterruptScope *scope) {
    sigaction(SIGINT, &scope->old_int, NULL);
    sigaction(SIGTERM, &scope->old_term, NULL);
    remove_armed = 0;
    remove_path[0] = '\0';
}

bool interrupt_requested(void) { return interrupted != 0; }

volatile sig_atomic_t *interrupt_flag(void) { return &interrupted; }
