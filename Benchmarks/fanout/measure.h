/*
 * What fanout.c and floor.c measure alike, so their figures compare: CLOCK_MONOTONIC in
 * nanoseconds, an absolute sleep to a slot, and the nearest-rank percentile.
 */
#ifndef FANOUT_MEASURE_H
#define FANOUT_MEASURE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

static inline uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Sleeps until CLOCK_MONOTONIC reads `t`, however often a signal interrupts. */
static inline void sleep_until_ns(uint64_t t) {
    struct timespec ts = {.tv_sec = (time_t)(t / 1000000000ull), .tv_nsec = (long)(t % 1000000000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {}
}

/* For qsort: ascending doubles. */
static inline int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest rank: the value at rank ceil(p/100 × n) of `sorted`, 0 for none. */
static inline double percentile(const double *sorted, size_t n, double p) {
    if (n == 0) return 0;
    size_t rank = (size_t)(p / 100.0 * (double)n + 0.999999);
    if (rank < 1) rank = 1;
    if (rank > n) rank = n;
    return sorted[rank - 1];
}

#endif
