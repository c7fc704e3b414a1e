/* common.h - timing, medians and peer-process helpers shared by the benchmarks. */
#ifndef HAYANAGI_BENCH_COMMON_H
#define HAYANAGI_BENCH_COMMON_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/* Monotonic milliseconds. */
double bench_now_ms(void);
/* Median of n values (sorts them in place). */
double bench_median(double *v, int n);
/* The p-th percentile (0 < p <= 100) of n > 0 values by nearest rank: the smallest value
 * with at least p% of the values at or below it (sorts them in place). */
double bench_percentile(double *v, int n, double p);
/* Prints the machine line every benchmark starts with: cores and CPU model. */
void bench_print_machine(const char *name);
/* Prints "load average WHEN: " and /proc/loadavg (a shared machine's figures need it). */
void bench_print_load(const char *when);

/* A field of /proc/self/status in kB ("VmRSS:" now, "VmHWM:" the peak), -1 if absent. */
long bench_status_kb(const char *field);

/* The synthetic DB2016 book of n positions (`hayanagi book gen-synthetic`), made once and
 * cached as /tmp/hayanagi_bench_book_<n>.db; its path goes to path. Returns the file's
 * size in bytes, or -1 when it cannot be made. */
long long bench_synthetic_book(long n, char *path, size_t len);

/* Runs fn(path, fd) in a forked child (which must _exit) so that its peak RSS is its
 * own, and reads what it writes to fd into out (NUL-terminated). True when it wrote
 * something and exited with status 0. */
typedef void (*BenchChildFn)(const char *path, int fd);
bool bench_run_child(BenchChildFn fn, const char *path, char *out, size_t len);

/* A peer engine on two pipes. */
typedef struct {
    pid_t pid;
    FILE *to;
    FILE *from;
} BenchPeer;

/* Starts path with no arguments; returns false when it cannot be started. */
bool bench_peer_start(BenchPeer *p, const char *path);
/* Sends one line (a newline is added). */
void bench_peer_send(BenchPeer *p, const char *line);
/* Reads lines until one starts with prefix; copies it into buf. False on EOF. */
bool bench_peer_wait(BenchPeer *p, const char *prefix, char *buf, size_t len);
void bench_peer_stop(BenchPeer *p);

#endif
