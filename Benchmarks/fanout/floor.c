/*
 * The floor under scripts/bench-fanout: the same fan-out with no daemon at all.
 *
 * One thread stands for an ideal server: at the benchmark's pace (17 frames 10 ms
 * apart, then the gap), it stamps CLOCK_MONOTONIC and writes one line the length of
 * a pop-progress line, carrying the stamp, to each of N connected Unix stream
 * sockets (socketpairs) with one plain write(2) each, in order. A second thread reads
 * the other ends exactly as fanout.c's reader does (epoll, level-triggered, 64 KiB
 * reads, the time taken after each read). For each frame: the read time of the last
 * socket minus the stamp, and of the first.
 *
 * What it measures is the kernel (a Unix socket write and the reader's wake-up, N
 * times) and the reader's own loop on this machine: no server can get the line to the
 * last of N readers sooner. Prints key=value lines, as fanout.c does.
 *
 *   floor [--observers N] [--swipes N] [--warmup N] [--gap-ms MS]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "measure.h"

enum { FRAMES_PER_SWIPE = 17, FRAME_NS = 10 * 1000 * 1000, READ_SIZE = 1 << 16 };

static int count = 1000;
static int *server_fds, *reader_fds;
static int epfd;
static _Atomic int stop;
/* Per frame: the stamp, and each socket's read time of that frame's line. */
static uint64_t *stamps;
static uint64_t *read_ns; /* frame * count + socket */
static uint32_t *lines_read; /* per socket */

static void die(const char *what) {
    fprintf(stderr, "floor: %s: %s\n", what, strerror(errno));
    exit(2);
}

static void *reader_main(void *arg) {
    (void)arg;
    struct epoll_event events[1024];
    char *buf = malloc(READ_SIZE);
    while (!atomic_load(&stop)) {
        int n = epoll_wait(epfd, events, 1024, 20);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) die("epoll_wait");
        for (int i = 0; i < n; i++) {
            int s = (int)events[i].data.u32;
            ssize_t got = read(reader_fds[s], buf, READ_SIZE);
            uint64_t t = now_ns();
            if (got <= 0) continue;
            for (ssize_t k = 0; k < got; k++)
                if (buf[k] == '\n') read_ns[(size_t)lines_read[s]++ * (size_t)count + (size_t)s] = t;
        }
    }
    free(buf);
    return NULL;
}

int main(int argc, char **argv) {
    int swipes = 20, warmup = 20, gap_ms = 50;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--observers")) count = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--swipes")) swipes = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--warmup")) warmup = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--gap-ms")) gap_ms = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "usage: floor [--observers N] [--swipes N] [--warmup N] [--gap-ms MS]\n");
            return 2;
        }
    }
    struct rlimit files;
    getrlimit(RLIMIT_NOFILE, &files);
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
    int frames = (swipes + warmup) * FRAMES_PER_SWIPE;
    server_fds = calloc((size_t)count, sizeof *server_fds);
    reader_fds = calloc((size_t)count, sizeof *reader_fds);
    lines_read = calloc((size_t)count, sizeof *lines_read);
    stamps = calloc((size_t)frames, sizeof *stamps);
    read_ns = calloc((size_t)frames * (size_t)count, sizeof *read_ns);
    if (!server_fds || !reader_fds || !lines_read || !stamps || !read_ns) die("calloc");
    epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0) die("epoll_create1");
    for (int s = 0; s < count; s++) {
        int pair[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, pair) < 0) die("socketpair");
        server_fds[s] = pair[0];
        reader_fds[s] = pair[1];
        struct epoll_event e = {.events = EPOLLIN, .data.u32 = (uint32_t)s};
        if (epoll_ctl(epfd, EPOLL_CTL_ADD, pair[1], &e) < 0) die("epoll_ctl");
    }
    pthread_t reader;
    pthread_create(&reader, NULL, reader_main, NULL);

    /* The writer: the daemon's pop-progress line, its time_us the frame's stamp. */
    uint64_t next = now_ns() + 50 * 1000000ull;
    int frame = 0, short_writes = 0;
    for (int swipe = 0; swipe < swipes + warmup; swipe++) {
        for (int f = 0; f < FRAMES_PER_SWIPE; f++, frame++) {
            sleep_until_ns(next);
            uint64_t t = now_ns();
            stamps[frame] = t;
            char line[160];
            int len = snprintf(line, sizeof line,
                               "{\"type\":\"pop-progress\",\"navigator\":\"main\",\"page\":\"detail\","
                               "\"progress\":0.%03d,\"time_us\":%llu}\n",
                               f * 50, (unsigned long long)(t / 1000));
            for (int s = 0; s < count; s++)
                if (write(server_fds[s], line, (size_t)len) != len) short_writes++;
            next += FRAME_NS;
        }
        next += (uint64_t)gap_ms * 1000000ull;
    }
    /* Wait for the reader to have every line. */
    for (int tries = 0; tries < 500; tries++) {
        int done = 1;
        for (int s = 0; s < count && done; s++) done = lines_read[s] >= (uint32_t)frames;
        if (done) break;
        sleep_until_ns(now_ns() + 10 * 1000000ull);
    }
    atomic_store(&stop, 1);
    pthread_join(reader, NULL);

    int measured = swipes * FRAMES_PER_SWIPE, missing = 0;
    double *last = calloc((size_t)measured, sizeof *last), *first = calloc((size_t)measured, sizeof *first);
    for (int m = 0; m < measured; m++) {
        int fr = warmup * FRAMES_PER_SWIPE + m;
        uint64_t lo = UINT64_MAX, hi = 0;
        for (int s = 0; s < count; s++) {
            uint64_t t = read_ns[(size_t)fr * (size_t)count + (size_t)s];
            if (!t) { missing++; continue; }
            if (t < lo) lo = t;
            if (t > hi) hi = t;
        }
        last[m] = (double)(hi - stamps[fr]) / 1e6;
        first[m] = (double)(lo - stamps[fr]) / 1e6;
    }
    qsort(last, (size_t)measured, sizeof *last, cmp_double);
    qsort(first, (size_t)measured, sizeof *first, cmp_double);
    printf("observers=%d\nframes_measured=%d\nshort_writes=%d\nmissing_lines=%d\n", count, measured, short_writes,
           missing);
    printf("last_p50_ms=%.3f\nlast_p99_ms=%.3f\nlast_max_ms=%.3f\n", percentile(last, (size_t)measured, 50),
           percentile(last, (size_t)measured, 99), last[measured - 1]);
    printf("first_p50_ms=%.3f\nfirst_p99_ms=%.3f\nfirst_max_ms=%.3f\n", percentile(first, (size_t)measured, 50),
           percentile(first, (size_t)measured, 99), first[measured - 1]);
    printf("ok=%d\n", short_writes == 0 && missing == 0);
    return short_writes == 0 && missing == 0 ? 0 : 1;
}
