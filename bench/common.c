/* common.c - see common.h. */
#include "common.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"

double bench_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double bench_percentile(double *v, int n, double p) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double r = p * n / 100.0;
    int rank = (int)r; /* 1-based; rounded up unless r is an integer up to rounding */
    if (r - rank > 1e-9)
        rank++;
    return v[rank < 1 ? 0 : rank > n ? n - 1 : rank - 1];
}

void bench_print_load(const char *when) {
    char buf[128] = "?";
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (!fgets(buf, sizeof buf, f))
            snprintf(buf, sizeof buf, "?");
        fclose(f);
    }
    buf[strcspn(buf, "\n")] = '\0';
    printf("load average %s: %s\n", when, buf);
}

void bench_print_machine(const char *name) {
    char model[256] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "model name", 10) == 0) {
                char *p = strchr(line, ':');
                if (p) {
                    snprintf(model, sizeof model, "%s", p + 2);
                    model[strcspn(model, "\n")] = '\0';
                }
                break;
            }
        fclose(f);
    }
    printf("== %s == machine: %ld cores, %s\n", name, sysconf(_SC_NPROCESSORS_ONLN), model);
}

bool bench_peer_start(BenchPeer *p, const char *path) {
    if (access(path, X_OK) != 0)
        return false;
    int in[2], out[2];
    if (pipe(in) || pipe(out))
        return false;
    p->pid = fork();
    if (p->pid < 0)
        return false;
    if (p->pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[1]);
        close(out[0]);
        execl(path, path, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    p->to = fdopen(in[1], "w");
    p->from = fdopen(out[0], "r");
    return p->to && p->from;
}

void bench_peer_send(BenchPeer *p, const char *line) {
    fprintf(p->to, "%s\n", line);
    fflush(p->to);
}

bool bench_peer_wait(BenchPeer *p, const char *prefix, char *buf, size_t len) {
    while (fgets(buf, (int)len, p->from))
        if (strncmp(buf, prefix, strlen(prefix)) == 0)
            return true;
    return false;
}

void bench_peer_stop(BenchPeer *p) {
    bench_peer_send(p, "quit");
    fclose(p->to);
    fclose(p->from);
    int status;
    if (waitpid(p->pid, &status, 0) < 0)
        kill(p->pid, SIGKILL);
}

long bench_status_kb(const char *field) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, field, strlen(field)) == 0)
            kb = atol(line + strlen(field));
    if (f)
        fclose(f);
    return kb;
}

long long bench_synthetic_book(long n, char *path, size_t len) {
    char count[32];
    snprintf(path, len, "/tmp/hayanagi_bench_book_%ld.db", n);
    snprintf(count, sizeof count, "%ld", n);
    struct stat sb;
    if (stat(path, &sb) != 0) {
        printf("generating %s (%ld positions)...\n", path, n);
        fflush(stdout);
        char *argv[] = {"gen-synthetic", count, path, NULL};
        if (cmd_book(3, argv) != 0 || stat(path, &sb) != 0)
            return -1;
    }
    return (long long)sb.st_size;
}

bool bench_run_child(BenchChildFn fn, const char *path, char *out, size_t len) {
    int p[2];
    if (pipe(p))
        return false;
    fflush(stdout); /* or the child's exit would print our buffered output again */
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        fn(path, p[1]);
    }
    close(p[1]);
    ssize_t n = read(p[0], out, len - 1);
    close(p[0]);
    int status;
    waitpid(pid, &status, 0);
    out[n > 0 ? n : 0] = '\0';
    return n > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}
