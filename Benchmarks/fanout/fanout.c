/*
 * fanout: issue 12's fan-out benchmark, the client side (built and run by
 * scripts/bench-fanout; see BENCHMARKS.md, "Fan-out: 1,000 observers on the host").
 *
 * Against a running `popgestured run --event-pipe FIFO`:
 *   - one owner client creates navigator "main" (pages home, detail), so a swipe is a back;
 *   - N observer clients say hello and subscribe (each reply checked);
 *   - optionally one more observer subscribes and then never reads (--stalled);
 *   - the main thread writes generated back swipes into the FIFO as raw input_event
 *     records, each frame stamped with CLOCK_MONOTONIC when it is written, at the
 *     swipe's real pace (10 ms frames); after each back the owner pushes detail again;
 *   - a reader thread epolls the N observer sockets and records, for every line each
 *     observer receives, CLOCK_MONOTONIC right after the read(2) that brought it.
 *
 * At the end: every observer's byte stream must be identical (same lines, same order);
 * per event line with a time_us, latency = read time of the last observer to get it
 * - time_us (and of the first); p50/p99/max over the measured swipes. The daemon's
 * utime+stime and VmHWM are read from /proc/PID (--pid). Results are printed as
 * `key=value` lines, which scripts/bench-fanout turns into a table.
 *
 * Plain C11 + pthreads, Linux only. gcc -O2 -pthread -o fanout fanout.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/input.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "measure.h"

/* EventPipe.description: 4340 x 2720 units (0...4339, 0...2719), 20 units/mm. */
#define AXIS_X_SPAN 4339.0
#define AXIS_Y_SPAN 2719.0
#define UNITS_PER_MM 20.0
#define FRAME_NS 10000000LL /* 10 ms frames: a 100 Hz touchscreen */

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fanout: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

static void sleep_ms(int ms) { sleep_until_ns(now_ns() + (uint64_t)ms * 1000000ull); }

/* ---------------------------------------------------------------- sockets */

static const char *socket_path;
/* How long any reply or line may take (longer under valgrind). */
static int timeout_ms = 5000;

static int connect_socket(void) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) die("socket: %s", strerror(errno));
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(socket_path) >= sizeof addr.sun_path) die("socket path too long");
    strcpy(addr.sun_path, socket_path);
    for (int attempt = 0;; attempt++) {
        if (connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0) return fd;
        /* The listen backlog is 64: wait for the daemon to accept. */
        if ((errno == EAGAIN || errno == ECONNREFUSED) && attempt < 2000) { sleep_ms(1); continue; }
        die("connect %s: %s", socket_path, strerror(errno));
    }
}

static void write_all(int fd, const void *data, size_t size) {
    const char *p = data;
    while (size > 0) {
        ssize_t n = write(fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) {
            struct pollfd pfd = {.fd = fd, .events = POLLOUT};
            poll(&pfd, 1, 1000);
            continue;
        }
        if (n <= 0) die("write: %s", strerror(errno));
        p += n;
        size -= (size_t)n;
    }
}

/* A blocking line reader for the setup phase and the owner. */
struct line_reader {
    int fd;
    char buf[1 << 16];
    size_t len;
    char line[1 << 16];
};

/* Next line into r->line (without '\n'); dies after timeout_ms without one. */
static const char *read_line(struct line_reader *r, int timeout_ms) {
    uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;
    for (;;) {
        char *nl = memchr(r->buf, '\n', r->len);
        if (nl) {
            size_t n = (size_t)(nl - r->buf);
            memcpy(r->line, r->buf, n);
            r->line[n] = 0;
            memmove(r->buf, nl + 1, r->len - n - 1);
            r->len -= n + 1;
            return r->line;
        }
        if (r->len == sizeof r->buf) die("line too long");
        uint64_t t = now_ns();
        if (t >= deadline) die("no line from the daemon within %d ms (fd %d)", timeout_ms, r->fd);
        struct pollfd pfd = {.fd = r->fd, .events = POLLIN};
        int pr = poll(&pfd, 1, (int)((deadline - t) / 1000000ull) + 1);
        if (pr < 0 && errno == EINTR) continue;
        if (pr <= 0) continue;
        ssize_t n = read(r->fd, r->buf + r->len, sizeof r->buf - r->len);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n == 0) die("the daemon closed the connection (fd %d)", r->fd);
        if (n < 0) die("read: %s", strerror(errno));
        r->len += (size_t)n;
    }
}

/* Reads lines until one starts with `a` or `b`; returns it. */
static const char *expect_either(struct line_reader *r, const char *a, const char *b, int timeout_ms) {
    for (;;) {
        const char *line = read_line(r, timeout_ms);
        if (strncmp(line, a, strlen(a)) == 0 || strncmp(line, b, strlen(b)) == 0) return line;
        if (strncmp(line, "{\"type\":\"error\"", 15) == 0) die("daemon: %s", line);
    }
}

/* Reads lines until one starts with `prefix`; returns it. */
static const char *expect_line(struct line_reader *r, const char *prefix, int timeout_ms) {
    for (;;) {
        const char *line = read_line(r, timeout_ms);
        if (strncmp(line, prefix, strlen(prefix)) == 0) return line;
        if (strncmp(line, "{\"type\":\"error\"", 15) == 0) die("daemon: %s", line);
    }
}

/* ---------------------------------------------------------------- observers */

struct observer {
    int fd;
    char *buf; /* everything received since subscribe's ok */
    size_t len, cap;
    size_t scanned;
    uint32_t *line_end; /* offset just past each line's '\n' */
    uint64_t *line_ns;  /* CLOCK_MONOTONIC after the read that completed the line */
    size_t lines, line_cap;
    _Atomic uint32_t line_count;
    _Atomic uint32_t back_count; /* lines that end a swipe: back or pop-cancelled */
    _Atomic int closed;
};

static struct observer *observers;
static int observer_count;
static int epfd;
static _Atomic int reader_stop;
static _Atomic int reader_error;

static void observer_grow(struct observer *o, size_t need) {
    if (o->cap - o->len >= need) return;
    size_t cap = o->cap ? o->cap : 1 << 16;
    while (cap - o->len < need) cap *= 2;
    o->buf = realloc(o->buf, cap);
    if (!o->buf) die("out of memory");
    o->cap = cap;
}

static void observer_lines(struct observer *o, uint64_t t) {
    for (;;) {
        char *start = o->buf + o->scanned;
        char *nl = memchr(start, '\n', o->len - o->scanned);
        if (!nl) break;
        if (o->lines == o->line_cap) {
            o->line_cap = o->line_cap ? o->line_cap * 2 : 1024;
            o->line_end = realloc(o->line_end, o->line_cap * sizeof *o->line_end);
            o->line_ns = realloc(o->line_ns, o->line_cap * sizeof *o->line_ns);
            if (!o->line_end || !o->line_ns) die("out of memory");
        }
        if (strncmp(start, "{\"type\":\"back\"", 14) == 0 || strncmp(start, "{\"type\":\"pop-cancelled\"", 23) == 0)
            atomic_fetch_add(&o->back_count, 1);
        o->scanned = (size_t)(nl + 1 - o->buf);
        o->line_end[o->lines] = (uint32_t)o->scanned;
        o->line_ns[o->lines] = t;
        o->lines++;
        atomic_store(&o->line_count, (uint32_t)o->lines);
    }
}

static void *reader_main(void *arg) {
    (void)arg;
    enum { MAX_EVENTS = 1024 };
    struct epoll_event *events = calloc(MAX_EVENTS, sizeof *events);
    while (!atomic_load(&reader_stop)) {
        int n = epoll_wait(epfd, events, MAX_EVENTS, 20);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) die("epoll_wait: %s", strerror(errno));
        for (int i = 0; i < n; i++) {
            struct observer *o = &observers[events[i].data.u32];
            observer_grow(o, 1 << 16);
            ssize_t got = read(o->fd, o->buf + o->len, o->cap - o->len);
            uint64_t t = now_ns();
            if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
            if (got <= 0) {
                atomic_store(&o->closed, 1);
                atomic_store(&reader_error, 1);
                epoll_ctl(epfd, EPOLL_CTL_DEL, o->fd, NULL);
                continue;
            }
            o->len += (size_t)got;
            observer_lines(o, t);
        }
    }
    free(events);
    return NULL;
}

/* Connects, says hello and subscribes; checks both replies. */
static int subscribe_client(const char *name) {
    int fd = connect_socket();
    char request[256];
    int n = snprintf(request, sizeof request,
                     "{\"type\":\"hello\",\"version\":1,\"name\":\"%s\"}\n{\"type\":\"subscribe\"}\n", name);
    write_all(fd, request, (size_t)n);
    static struct line_reader r;
    r.fd = fd;
    r.len = 0;
    const char *line = read_line(&r, timeout_ms);
    static const char hello[] = "{\"type\":\"hello\",\"version\":1,\"server\":\"popgestured\",\"client\":";
    if (strncmp(line, hello, sizeof hello - 1) != 0)
        die("%s: unexpected hello reply: %s", name, line);
    line = read_line(&r, timeout_ms);
    if (strcmp(line, "{\"type\":\"ok\",\"request\":\"subscribe\"}") != 0)
        die("%s: unexpected subscribe reply: %s", name, line);
    if (r.len != 0) die("%s: unexpected bytes after the subscribe reply", name);
    return fd;
}

/* ---------------------------------------------------------------- the swipe */

static int fifo_fd;
static int tracking_id = 100;
/* How late the writer was for its frames (preempted past the frame's due time). */
static uint64_t writer_late_max_ns;
static int writer_late_frames; /* more than 2 ms late */
static bool measuring;

static void wait_frame(uint64_t due) {
    sleep_until_ns(due);
    uint64_t late = now_ns() - due;
    if (!measuring) return;
    if (late > writer_late_max_ns) writer_late_max_ns = late;
    if (late > 2000000ull) writer_late_frames++;
}

static void put(struct input_event *e, int *n, uint64_t t, uint16_t type, uint16_t code, int32_t value) {
    e[*n].time.tv_sec = (time_t)(t / 1000000000ull);
    e[*n].time.tv_usec = (suseconds_t)((t % 1000000000ull) / 1000ull);
    e[*n].type = type;
    e[*n].code = code;
    e[*n].value = value;
    (*n)++;
}

/* One protocol B frame as TouchScript writes it for EventPipe.description (one slot,
 * no touch size, no tool type), stamped now and written in one write(2). */
static void write_frame(int kind /* 0 down, 1 move, 2 up */, int32_t x, int32_t y) {
    struct input_event e[8];
    int n = 0;
    uint64_t t = now_ns();
    put(e, &n, t, EV_ABS, ABS_MT_SLOT, 0);
    if (kind == 2) {
        put(e, &n, t, EV_ABS, ABS_MT_TRACKING_ID, -1);
        put(e, &n, t, EV_KEY, BTN_TOUCH, 0);
    } else {
        if (kind == 0) put(e, &n, t, EV_ABS, ABS_MT_TRACKING_ID, tracking_id++);
        put(e, &n, t, EV_ABS, ABS_MT_POSITION_X, x);
        put(e, &n, t, EV_ABS, ABS_MT_POSITION_Y, y);
        put(e, &n, t, EV_ABS, ABS_X, x);
        put(e, &n, t, EV_ABS, ABS_Y, y);
        if (kind == 0) put(e, &n, t, EV_KEY, BTN_TOUCH, 1);
    }
    put(e, &n, t, EV_SYN, SYN_REPORT, 0);
    write_all(fifo_fd, e, (size_t)n * sizeof e[0]);
}

static int32_t units(double fraction, double span) {
    double v = fraction * span;
    if (v < 0) v = 0;
    if (v > span) v = span;
    return (int32_t)(v + 0.5); /* Swift's rounded(): half away from zero */
}

/* Down at 2 % of the width (half-way down), 60 mm right over 150 ms in 10 ms frames, up. */
static void swipe(void) {
    const double width_mm = AXIS_X_SPAN / UNITS_PER_MM;
    const int steps = 15;
    double x = 0.02, y = 0.5;
    uint64_t t = now_ns();
    write_frame(0, units(x, AXIS_X_SPAN), units(y, AXIS_Y_SPAN));
    for (int i = 0; i < steps; i++) {
        t += FRAME_NS;
        wait_frame(t);
        x += 60.0 / width_mm / steps;
        write_frame(1, units(x, AXIS_X_SPAN), units(y, AXIS_Y_SPAN));
    }
    t += FRAME_NS;
    wait_frame(t);
    write_frame(2, 0, 0);
}

/* ---------------------------------------------------------------- /proc */

static long daemon_pid;

static long long proc_cpu_ticks(void) {
    if (!daemon_pid) return -1;
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%ld/stat", daemon_pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')'); /* the name may hold spaces */
    if (!p) return -1;
    unsigned long long utime = 0, stime = 0;
    /* After ")": state(3) ... utime(14) stime(15). */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2) return -1;
    return (long long)(utime + stime);
}

static long proc_status_kib(const char *key) {
    if (!daemon_pid) return -1;
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", daemon_pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long value = -1;
    size_t keylen = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, keylen) == 0 && line[keylen] == ':') { value = strtol(line + keylen + 1, NULL, 10); break; }
    fclose(f);
    return value;
}

/* Busy jiffies of the whole machine (every CPU), from /proc/stat. */
static long long host_busy_ticks(void) {
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return -1;
    unsigned long long v[8] = {0};
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
                   &v[7]);
    fclose(f);
    if (n < 8) return -1;
    return (long long)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]); /* all but idle and iowait */
}

static long long self_cpu_ticks(void) {
    long saved = daemon_pid;
    daemon_pid = (long)getpid();
    long long t = proc_cpu_ticks();
    daemon_pid = saved;
    return t;
}

/* ---------------------------------------------------------------- waiting */

static uint32_t min_backs(void) {
    uint32_t m = UINT32_MAX;
    for (int i = 0; i < observer_count; i++) {
        uint32_t b = atomic_load(&observers[i].back_count);
        if (b < m) m = b;
    }
    return m;
}

/* Until every observer has the same number of lines, unchanged for quiet_ms. */
static uint32_t wait_quiet(int quiet_ms, int timeout_ms) {
    uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;
    uint32_t last = UINT32_MAX;
    uint64_t since = now_ns();
    for (;;) {
        uint32_t first = atomic_load(&observers[0].line_count);
        bool same = true;
        for (int i = 1; i < observer_count && same; i++) same = atomic_load(&observers[i].line_count) == first;
        uint64_t t = now_ns();
        if (!same || first != last) { last = same ? first : UINT32_MAX; since = t; }
        else if (t - since >= (uint64_t)quiet_ms * 1000000ull) return first;
        if (t > deadline) die("observers did not settle within %d ms", timeout_ms);
        if (atomic_load(&reader_error)) die("an observer was disconnected");
        sleep_ms(1);
    }
}

/* ---------------------------------------------------------------- statistics */

static void report(const char *name, double *values, size_t n) {
    qsort(values, n, sizeof *values, cmp_double);
    printf("%s_p50_ms=%.3f\n%s_p99_ms=%.3f\n%s_max_ms=%.3f\n", name, percentile(values, n, 50), name,
           percentile(values, n, 99), name, n ? values[n - 1] : 0.0);
}

static bool line_time_us(const char *line, size_t len, long long *out) {
    const char *key = memmem(line, len, "\"time_us\":", 10);
    if (!key) return false;
    *out = strtoll(key + 10, NULL, 10);
    return true;
}

/* ---------------------------------------------------------------- main */

static void usage(void) {
    fprintf(stderr,
            "usage: fanout --socket PATH --fifo PATH [--observers N] [--swipes N] [--warmup N]\n"
            "              [--stalled] [--pid DAEMON_PID] [--gap-ms MS] [--timeout-ms MS] [--dump FILE]\n"
            "              [--on-measure SHELL-COMMAND] [--on-end SHELL-COMMAND]\n");
    exit(2);
}

int main(int argc, char **argv) {
    const char *fifo_path = NULL;
    int swipes = 20, warmup = 15, gap_ms = 50;
    bool stalled = false;
    const char *dump_path = NULL; /* one line per measured event: type, time_us, first and last latency */
    const char *on_measure = NULL, *on_end = NULL; /* shell commands: e.g. callgrind_control -i on */
    observer_count = 1000;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--socket") && v) socket_path = argv[++i];
        else if (!strcmp(a, "--fifo") && v) fifo_path = argv[++i];
        else if (!strcmp(a, "--observers") && v) observer_count = atoi(argv[++i]);
        else if (!strcmp(a, "--swipes") && v) swipes = atoi(argv[++i]);
        else if (!strcmp(a, "--warmup") && v) warmup = atoi(argv[++i]);
        else if (!strcmp(a, "--gap-ms") && v) gap_ms = atoi(argv[++i]);
        else if (!strcmp(a, "--pid") && v) daemon_pid = atol(argv[++i]);
        else if (!strcmp(a, "--timeout-ms") && v) timeout_ms = atoi(argv[++i]);
        else if (!strcmp(a, "--dump") && v) dump_path = argv[++i];
        else if (!strcmp(a, "--on-measure") && v) on_measure = argv[++i];
        else if (!strcmp(a, "--on-end") && v) on_end = argv[++i];
        else if (!strcmp(a, "--stalled")) stalled = true;
        else usage();
    }
    if (!socket_path || !fifo_path || observer_count < 1 || swipes < 1 || warmup < 0) usage();

    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_cur < (rlim_t)observer_count + 64) {
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur < (rlim_t)observer_count + 64)
            die("need %d open files; the hard limit is %llu", observer_count + 64, (unsigned long long)rl.rlim_max);
    }

    fifo_fd = open(fifo_path, O_WRONLY | O_CLOEXEC);
    if (fifo_fd < 0) die("open %s: %s", fifo_path, strerror(errno));

    /* The owner: a navigator in front, so that a swipe is a back. */
    static struct line_reader owner;
    owner.fd = connect_socket();
    const char *create =
        "{\"type\":\"hello\",\"version\":1,\"name\":\"fanout-owner\"}\n"
        "{\"type\":\"create\",\"navigator\":\"main\",\"pages\":[{\"id\":\"home\"},{\"id\":\"detail\"}]}\n";
    write_all(owner.fd, create, strlen(create));
    expect_line(&owner, "{\"type\":\"hello\"", timeout_ms);
    expect_line(&owner, "{\"type\":\"ok\",\"request\":\"create\"}", timeout_ms);

    /* The observers. The one that never reads connects first, so that in each batch the
     * daemon deals with it before any other observer. */
    uint64_t connect_start = now_ns();
    long long cpu_connect_start = proc_cpu_ticks();
    int stalled_fd = stalled ? subscribe_client("stalled-observer") : -1;
    observers = calloc((size_t)observer_count, sizeof *observers);
    epfd = epoll_create1(EPOLL_CLOEXEC);
    for (int i = 0; i < observer_count; i++) {
        char name[32];
        snprintf(name, sizeof name, "observer-%d", i);
        struct observer *o = &observers[i];
        o->fd = subscribe_client(name);
        fcntl(o->fd, F_SETFL, fcntl(o->fd, F_GETFL) | O_NONBLOCK);
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        if (epoll_ctl(epfd, EPOLL_CTL_ADD, o->fd, &ev) != 0) die("epoll_ctl: %s", strerror(errno));
    }
    double connect_ms = (double)(now_ns() - connect_start) / 1e6;
    long long cpu_connect_end = proc_cpu_ticks();

    pthread_t reader;
    if (pthread_create(&reader, NULL, reader_main, NULL) != 0) die("pthread_create");
    uint32_t base_lines = wait_quiet(50, timeout_ms);
    if (base_lines != 0) fprintf(stderr, "fanout: note: %u lines before the first swipe\n", base_lines);

    /* The swipes: warm-up ones first (not measured: caches, buffers, and the stalled
     * observer's socket filling up), then the measured ones. */
    uint32_t measured_from = 0;
    long long cpu_start = 0, host_start = 0, self_start = 0;
    uint64_t run_start = 0;
    struct rusage ru_start, ru_end;
    int stalled_full_after = -1;
    int prev_inq = -1;
    for (int s = 0; s < warmup + swipes; s++) {
        if (s == warmup) {
            measured_from = wait_quiet(20, timeout_ms);
            if (on_measure && system(on_measure) != 0) die("--on-measure failed: %s", on_measure);
            cpu_start = proc_cpu_ticks();
            host_start = host_busy_ticks();
            self_start = self_cpu_ticks();
            run_start = now_ns();
            getrusage(RUSAGE_SELF, &ru_start);
            measuring = true;
        }
        swipe();
        uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;
        while (min_backs() < (uint32_t)(s + 1)) {
            if (now_ns() > deadline) {
                int behind = 0, first_behind = -1;
                for (int i = 0; i < observer_count; i++)
                    if (atomic_load(&observers[i].back_count) < (uint32_t)(s + 1)) {
                        if (first_behind < 0) first_behind = i;
                        behind++;
                    }
                die("swipe %d: %d observers (the first: observer-%d, %u lines; observer-0: %u lines) did not get "
                    "their back within %d ms",
                    s + 1, behind, first_behind, atomic_load(&observers[first_behind].line_count),
                    atomic_load(&observers[0].line_count), timeout_ms);
            }
            if (atomic_load(&reader_error)) die("an observer was disconnected");
            sleep_ms(1);
        }
        /* The owner got pop-began ... back too; it pushes detail again. A swipe the
         * engine cancelled (the writer was preempted before the release, so no fling
         * and 60 mm is short of the commit progress) leaves detail on top. */
        const char *end = expect_either(&owner, "{\"type\":\"back\"", "{\"type\":\"pop-cancelled\"", timeout_ms);
        if (strncmp(end, "{\"type\":\"back\"", 14) == 0) {
            const char *push = "{\"type\":\"push\",\"navigator\":\"main\",\"page\":{\"id\":\"detail\"}}\n";
            write_all(owner.fd, push, strlen(push));
            expect_line(&owner, "{\"type\":\"ok\",\"request\":\"push\"}", timeout_ms);
        } else {
            fprintf(stderr, "fanout: swipe %d cancelled: %s\n", s + 1, end);
        }
        wait_quiet(20, timeout_ms);
        if (stalled) {
            int inq = 0;
            ioctl(stalled_fd, FIONREAD, &inq);
            if (inq == prev_inq && stalled_full_after < 0) stalled_full_after = s; /* full before swipe s+1 */
            prev_inq = inq;
        }
        sleep_ms(gap_ms);
    }
    uint32_t total_lines = wait_quiet(50, timeout_ms);
    if (on_end && system(on_end) != 0) die("--on-end failed: %s", on_end);
    uint64_t run_end = now_ns();
    long long cpu_end = proc_cpu_ticks();
    long long host_end = host_busy_ticks(), self_end = self_cpu_ticks();
    getrusage(RUSAGE_SELF, &ru_end);
    long hwm = proc_status_kib("VmHWM"), rss = proc_status_kib("VmRSS");
    atomic_store(&reader_stop, 1);
    pthread_join(reader, NULL);

    /* Every observer: exactly the same bytes, so the same lines in the same order. */
    const struct observer *ref = &observers[0];
    int differing = 0;
    for (int i = 1; i < observer_count; i++) {
        const struct observer *o = &observers[i];
        if (o->len != ref->len || o->lines != ref->lines || memcmp(o->buf, ref->buf, ref->len) != 0) differing++;
    }
    if (ref->len && ref->buf[ref->len - 1] != '\n') differing = observer_count; /* a cut line */

    /* The line mix of one measured run, and the latencies. */
    size_t n_events = 0, n_lines_measured = 0;
    double *last = malloc(ref->lines * sizeof *last), *first = malloc(ref->lines * sizeof *first),
           *obs0 = malloc(ref->lines * sizeof *obs0);
    int begans = 0, progresses = 0, finisheds = 0, backs = 0, cancels = 0, bars = 0, others = 0;
    double worst = -1;
    char worst_type[32] = "";
    /* By kind: pop-began, pop-progress, pop-finished, back. */
    static const char *kinds[] = {"pop-began", "pop-progress", "pop-finished", "back"};
    double *by_kind[4];
    size_t by_kind_n[4] = {0};
    for (int k = 0; k < 4; k++) by_kind[k] = malloc(ref->lines * sizeof(double) + 1);
    FILE *dump = dump_path ? fopen(dump_path, "w") : NULL;
    if (dump) fprintf(dump, "type time_us first_ms last_ms\n");
    for (size_t i = measured_from; i < ref->lines; i++) {
        size_t start = i ? ref->line_end[i - 1] : 0, len = ref->line_end[i] - start;
        const char *line = ref->buf + start;
        n_lines_measured++;
        if (!strncmp(line, "{\"type\":\"pop-began\"", 19)) begans++;
        else if (!strncmp(line, "{\"type\":\"pop-progress\"", 22)) progresses++;
        else if (!strncmp(line, "{\"type\":\"pop-finished\"", 22)) finisheds++;
        else if (!strncmp(line, "{\"type\":\"back\"", 14)) backs++;
        else if (!strncmp(line, "{\"type\":\"pop-cancelled\"", 23)) cancels++;
        else if (!strncmp(line, "{\"type\":\"bar\"", 13)) bars++;
        else others++;
        long long time_us;
        if (!line_time_us(line, len, &time_us)) continue;
        uint64_t lo = UINT64_MAX, hi = 0;
        for (int o = 0; o < observer_count; o++) {
            if (i >= observers[o].lines) continue; /* only when streams differ (reported) */
            uint64_t t = observers[o].line_ns[i];
            if (t < lo) lo = t;
            if (t > hi) hi = t;
        }
        last[n_events] = (double)hi / 1e6 - (double)time_us / 1e3;
        first[n_events] = (double)lo / 1e6 - (double)time_us / 1e3;
        obs0[n_events] = (double)ref->line_ns[i] / 1e6 - (double)time_us / 1e3;
        int kind = -1;
        for (int k = 0; k < 4; k++) {
            char prefix[48];
            snprintf(prefix, sizeof prefix, "{\"type\":\"%s\"", kinds[k]);
            if (!strncmp(line, prefix, strlen(prefix))) kind = k;
        }
        if (kind >= 0) by_kind[kind][by_kind_n[kind]++] = last[n_events];
        if (dump)
            fprintf(dump, "%s %lld %.3f %.3f\n", kind >= 0 ? kinds[kind] : "other", time_us, first[n_events],
                    last[n_events]);
        if (last[n_events] > worst) {
            worst = last[n_events];
            const char *q = line + 9;
            size_t k = 0;
            while (q[k] && q[k] != '"' && k < sizeof worst_type - 1) { worst_type[k] = q[k]; k++; }
            worst_type[k] = 0;
        }
        n_events++;
    }

    /* The stalled observer: what it holds unread, and whether the daemon let it go.
     * Reading it only now: it must get a prefix of the others' stream (all of it if
     * the daemon kept it), and EOF if it was disconnected. */
    int stalled_inq = -1, stalled_disconnected = 0, stalled_prefix_ok = 1;
    size_t stalled_got = 0;
    if (stalled) {
        ioctl(stalled_fd, FIONREAD, &stalled_inq);
        char *sbuf = malloc(ref->len + (1 << 20));
        size_t cap = ref->len + (1 << 20);
        fcntl(stalled_fd, F_SETFL, fcntl(stalled_fd, F_GETFL) | O_NONBLOCK);
        uint64_t quiet_since = now_ns();
        while (now_ns() - quiet_since < 300000000ull && stalled_got < cap) {
            struct pollfd pfd = {.fd = stalled_fd, .events = POLLIN};
            if (poll(&pfd, 1, 50) <= 0) continue;
            ssize_t n = read(stalled_fd, sbuf + stalled_got, cap - stalled_got);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) { stalled_disconnected = 1; break; }
            if (n > 0) { stalled_got += (size_t)n; quiet_since = now_ns(); }
        }
        stalled_prefix_ok = stalled_got <= ref->len && memcmp(sbuf, ref->buf, stalled_got) == 0;
        free(sbuf);
    }

    long ticks = sysconf(_SC_CLK_TCK);
    double run_s = (double)(run_end - run_start) / 1e9;
    printf("observers=%d\nswipes=%d\nwarmup=%d\nstalled=%d\n", observer_count, swipes, warmup, stalled ? 1 : 0);
    printf("connect_ms=%.0f\n", connect_ms);
    printf("lines_per_observer_total=%u\nlines_per_observer_measured=%zu\nbytes_per_observer_total=%zu\n", total_lines,
           n_lines_measured, ref->len);
    printf("mix_pop_began=%d\nmix_pop_progress=%d\nmix_pop_finished=%d\nmix_back=%d\nmix_pop_cancelled=%d\nmix_bar=%d\nmix_other=%d\n",
           begans, progresses, finisheds, backs, cancels, bars, others);
    printf("writer_late_max_ms=%.3f\nwriter_late_frames=%d\n", (double)writer_late_max_ns / 1e6, writer_late_frames);
    printf("observers_differing=%d\n", differing);
    printf("events_measured=%zu\n", n_events);
    printf("worst_event_type=%s\n", worst_type);
    for (int k = 0; k < 4; k++) {
        char name[48];
        snprintf(name, sizeof name, "last_%s", kinds[k]);
        report(name, by_kind[k], by_kind_n[k]);
    }
    if (dump) fclose(dump);
    report("last", last, n_events);
    report("first", first, n_events);
    report("observer0", obs0, n_events);
    printf("run_s=%.3f\n", run_s);
    if (cpu_start >= 0 && cpu_end >= 0) {
        printf("daemon_cpu_ms=%.0f\n", (double)(cpu_end - cpu_start) * 1000.0 / (double)ticks);
        printf("daemon_cpu_ms_per_swipe=%.1f\n", (double)(cpu_end - cpu_start) * 1000.0 / (double)ticks / swipes);
        printf("daemon_cpu_connect_ms=%.0f\n", (double)(cpu_connect_end - cpu_connect_start) * 1000.0 / (double)ticks);
        printf("daemon_cpu_total_ms=%.0f\n", (double)cpu_end * 1000.0 / (double)ticks);
        /* What the rest of the machine used meanwhile: the noise on a shared host. */
        long long others = (host_end - host_start) - (cpu_end - cpu_start) - (self_end - self_start);
        printf("other_cpu_ms=%.0f\n", (double)(others < 0 ? 0 : others) * 1000.0 / (double)ticks);
    }
    double reader_cpu = (double)(ru_end.ru_utime.tv_sec - ru_start.ru_utime.tv_sec + ru_end.ru_stime.tv_sec -
                                 ru_start.ru_stime.tv_sec) * 1000.0 +
                        (double)(ru_end.ru_utime.tv_usec - ru_start.ru_utime.tv_usec + ru_end.ru_stime.tv_usec -
                                 ru_start.ru_stime.tv_usec) / 1000.0;
    printf("client_cpu_ms=%.0f\n", reader_cpu);
    printf("daemon_vmhwm_kib=%ld\ndaemon_vmrss_kib=%ld\n", hwm, rss);
    if (stalled) {
        printf("stalled_full_after_swipe=%d\n", stalled_full_after);
        printf("stalled_unread_kernel_bytes=%d\n", stalled_inq);
        printf("stalled_received_bytes=%zu\n", stalled_got);
        printf("stalled_disconnected=%d\n", stalled_disconnected);
        printf("stalled_prefix_ok=%d\n", stalled_prefix_ok);
    }
    /* Every swipe a pop, and a back unless the writer was preempted (reported). */
    bool ok = differing == 0 && n_events > 0 && begans == swipes && backs + cancels == swipes &&
              finisheds == backs && (cancels == 0 || writer_late_frames > 0) && stalled_prefix_ok;
    printf("ok=%d\n", ok ? 1 : 0);
    return ok ? 0 : 1;
}
