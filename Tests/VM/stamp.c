/*
 * The measuring end of Tests/VM/measure.sh, in C so that no interpreter start-up
 * is counted. Built by Tests/VM/run into the log folder; never committed.
 *
 *   stamp                 prints CLOCK_MONOTONIC in microseconds (lisgd's command)
 *   stamp client SOCKET   a popgestured client: hello, a navigator "bench" with
 *                         pages home and detail; on each "back" it prints
 *                         "back <monotonic_us> <line>" at once and pushes "detail"
 *                         again so the next swipe can go back too. Every other line
 *                         is printed as "msg <line>".
 *   stamp read NODE       a bare evdev reader (EVIOCSCLOCKID = CLOCK_MONOTONIC): prints
 *                         "ready", then for every frame (SYN_REPORT)
 *                         "f <event_us> <read_us> <y> <events>": the kernel's time of the
 *                         frame, CLOCK_MONOTONIC right after the read() that returned it,
 *                         the frame's last ABS_MT_POSITION_Y (-1: none) and how many
 *                         events came before its SYN_REPORT; "dropped <event_us> <read_us>"
 *                         for SYN_DROPPED. Output is flushed after each read(), never
 *                         between a read() and its timestamp.
 *   stamp play NODE FILE REPEAT GAP_MS
 *                         plays the E: lines of an evemu events file into NODE (an evdev
 *                         node: what evemu-play does), REPEAT times with GAP_MS between
 *                         the plays, on the file's own timing (absolute deadlines, so
 *                         lateness does not add up), each frame in one write(). When
 *                         done, prints per frame "p <before_us> <after_us> <y>":
 *                         CLOCK_MONOTONIC just before and just after its write() (the
 *                         kernel stamps the frame between the two) and the frame's last
 *                         ABS_MT_POSITION_Y (-1: none).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static void send_line(int fd, const char *line) {
    size_t len = strlen(line);
    if (write(fd, line, len) != (ssize_t)len || write(fd, "\n", 1) != 1) {
        perror("stamp: write");
        exit(1);
    }
}

static int client(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
        perror("stamp: connect");
        return 1;
    }
    send_line(fd, "{\"type\":\"hello\",\"version\":1,\"name\":\"stamp\"}");
    send_line(fd, "{\"type\":\"create\",\"id\":\"create\",\"navigator\":\"bench\","
                  "\"pages\":[{\"id\":\"home\"},{\"id\":\"detail\"}]}");

    char buf[65536];
    size_t used = 0;
    for (;;) {
        ssize_t n = read(fd, buf + used, sizeof buf - used - 1);
        long long t = now_us(); /* first thing after the bytes arrive */
        if (n <= 0) {
            fprintf(stderr, "stamp: the daemon closed the connection\n");
            return n == 0 ? 0 : 1;
        }
        used += (size_t)n;
        buf[used] = '\0';
        char *start = buf, *nl;
        while ((nl = strchr(start, '\n')) != NULL) {
            *nl = '\0';
            if (strstr(start, "\"type\":\"back\"")) {
                printf("back %lld %s\n", t, start);
                fflush(stdout);
                send_line(fd, "{\"type\":\"push\",\"navigator\":\"bench\",\"page\":{\"id\":\"detail\"}}");
            } else {
                printf("msg %s\n", start);
                fflush(stdout);
            }
            start = nl + 1;
        }
        used = strlen(start);
        memmove(buf, start, used);
        if (used == sizeof buf - 1) used = 0; /* an absurd line: drop it */
    }
}

static long long event_us(const struct input_event *ev) {
    return (long long)ev->input_event_sec * 1000000LL + ev->input_event_usec;
}

static int reader(const char *node) {
    int fd = open(node, O_RDONLY | O_CLOEXEC);
    int clock = CLOCK_MONOTONIC;
    if (fd < 0 || ioctl(fd, EVIOCSCLOCKID, &clock) < 0) {
        fprintf(stderr, "stamp read: %s: %s\n", node, strerror(errno));
        return 1;
    }
    printf("ready\n");
    fflush(stdout);
    struct input_event evs[256];
    int y = -1, events = 0;
    for (;;) {
        ssize_t n = read(fd, evs, sizeof evs);
        long long t = now_us(); /* first thing after the frame arrives */
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            fprintf(stderr, "stamp read: %s: %s\n", node, n == 0 ? "end of file" : strerror(errno));
            return 1;
        }
        for (size_t i = 0; i < (size_t)n / sizeof evs[0]; i++) {
            const struct input_event *ev = &evs[i];
            if (ev->type == EV_SYN && ev->code == SYN_REPORT) {
                printf("f %lld %lld %d %d\n", event_us(ev), t, y, events);
                y = -1, events = 0;
            } else if (ev->type == EV_SYN && ev->code == SYN_DROPPED) {
                printf("dropped %lld %lld\n", event_us(ev), t);
                y = -1, events = 0;
            } else {
                if (ev->type == EV_ABS && ev->code == ABS_MT_POSITION_Y) y = ev->value;
                events++;
            }
        }
        fflush(stdout);
    }
}

struct frame {
    long long at_us; /* the file's time of the frame */
    int first, count, y;
    long long before, after;
};

static int player(const char *node, const char *path, int repeat, int gap_ms) {
    FILE *f = fopen(path, "r");
    int fd = open(node, O_WRONLY | O_CLOEXEC);
    if (!f || fd < 0) {
        fprintf(stderr, "stamp play: %s: %s\n", f ? node : path, strerror(errno));
        return 1;
    }
    struct input_event *evs = NULL;
    struct frame *frames = NULL;
    size_t nev = 0, capev = 0, nframes = 0, capframes = 0, first = 0;
    int y = -1;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        long sec, usec;
        unsigned type, code;
        int value;
        if (sscanf(line, "E: %ld.%ld %x %x %d", &sec, &usec, &type, &code, &value) != 5) continue;
        if (nev == capev) evs = realloc(evs, (capev = capev ? 2 * capev : 1024) * sizeof *evs);
        evs[nev] = (struct input_event){.type = type, .code = code, .value = value};
        nev++;
        if (type == EV_ABS && code == ABS_MT_POSITION_Y) y = value;
        if (type == EV_SYN && code == SYN_REPORT) {
            if (nframes == capframes) frames = realloc(frames, (capframes = capframes ? 2 * capframes : 256) * sizeof *frames);
            frames[nframes++] = (struct frame){.at_us = sec * 1000000LL + usec, .first = (int)first,
                                               .count = (int)(nev - first), .y = y};
            first = nev, y = -1;
        }
    }
    fclose(f);
    if (nframes == 0 || !evs) {
        fprintf(stderr, "stamp play: %s: no frame\n", path);
        return 1;
    }
    long long span = frames[nframes - 1].at_us - frames[0].at_us;
    struct frame *log = calloc(nframes * (size_t)repeat, sizeof *log);
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    long long start_us = (long long)start.tv_sec * 1000000LL + start.tv_nsec / 1000 + 100000;
    size_t k = 0;
    for (int r = 0; r < repeat; r++) {
        long long base = start_us + r * (span + gap_ms * 1000LL);
        for (size_t i = 0; i < nframes; i++) {
            long long due = base + frames[i].at_us - frames[0].at_us;
            struct timespec ts = {.tv_sec = due / 1000000, .tv_nsec = (due % 1000000) * 1000};
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {}
            size_t size = (size_t)frames[i].count * sizeof *evs;
            log[k] = frames[i];
            log[k].before = now_us();
            ssize_t w = write(fd, evs + frames[i].first, size);
            log[k].after = now_us();
            if (w != (ssize_t)size) {
                fprintf(stderr, "stamp play: write %s: %s\n", node, w < 0 ? strerror(errno) : "short write");
                return 1;
            }
            k++;
        }
    }
    for (size_t i = 0; i < k; i++) printf("p %lld %lld %d\n", log[i].before, log[i].after, log[i].y);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "client") == 0) return client(argv[2]);
    if (argc == 3 && strcmp(argv[1], "read") == 0) return reader(argv[2]);
    if (argc == 6 && strcmp(argv[1], "play") == 0) return player(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]));
    if (argc != 1) {
        fprintf(stderr, "usage: stamp | stamp client SOCKET | stamp read NODE | stamp play NODE FILE REPEAT GAP_MS\n");
        return 2;
    }
    printf("%lld\n", now_us());
    return 0;
}
