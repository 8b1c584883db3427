/*
 * The C floor of scripts/profile (issue 30): what reading a back swipe's frames and
 * writing its lines to two clients costs with nothing else, in instructions under
 * callgrind, beside the daemon's.
 *
 * The same swipe as Benchmarks/fanout/fanout.c (17 frames of raw input_event records:
 * a finger down at 2 % of the width, 15 moves of 4 mm, up), written into a pipe, read
 * back with read(2) and decoded (slot, tracking id, position, SYN_REPORT); each frame
 * while the finger is down writes one pop-progress line (pop-began on the first),
 * the release writes pop-finished, back and two bar lines: the 19 lines, of the
 * daemon's shapes and lengths, that the daemon sends an owner and an observer per
 * swipe, with one send(2) per client per frame. Only the reading, decoding, formatting
 * and sending is counted (CALLGRIND_TOGGLE_COLLECT around it).
 *
 *   gcc -O2 -o floor floor.c && valgrind --tool=callgrind --collect-atstart=no ./floor 20
 *
 * Prints `floor_swipes=N`; instructions per swipe are callgrind's total over N.
 */
#define _GNU_SOURCE
#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#define AXIS_X_SPAN 4339.0 /* EventPipe.description: 4340 x 2720 units, 20 units/mm */
#define AXIS_Y_SPAN 2719.0
#define UNITS_PER_MM 20.0
#define CLIENTS 2

static void die(const char *what) {
    perror(what);
    exit(1);
}

static void event(int fd, __u16 type, __u16 code, __s32 value, long long us) {
    struct input_event e = {.time = {.tv_sec = us / 1000000, .tv_usec = us % 1000000}, .type = type, .code = code,
                            .value = value};
    if (write(fd, &e, sizeof e) != sizeof e) die("write frame");
}

/* phase 0: down, 1: move, 2: up; as fanout.c's write_frame. */
static void frame(int fd, int phase, int x, int y, long long us) {
    event(fd, EV_ABS, ABS_MT_SLOT, 0, us);
    if (phase == 0) event(fd, EV_ABS, ABS_MT_TRACKING_ID, 1, us);
    if (phase == 2) {
        event(fd, EV_ABS, ABS_MT_TRACKING_ID, -1, us);
        event(fd, EV_KEY, BTN_TOUCH, 0, us);
    } else {
        event(fd, EV_ABS, ABS_MT_POSITION_X, x, us);
        event(fd, EV_ABS, ABS_MT_POSITION_Y, y, us);
        if (phase == 0) event(fd, EV_KEY, BTN_TOUCH, 1, us);
        event(fd, EV_ABS, ABS_X, x, us);
        event(fd, EV_ABS, ABS_Y, y, us);
    }
    event(fd, EV_SYN, SYN_REPORT, 0, us);
}

static void write_swipe(int fd, long long us) {
    const double width_mm = AXIS_X_SPAN / UNITS_PER_MM;
    double x = 0.02;
    frame(fd, 0, (int)(x * AXIS_X_SPAN), (int)(0.5 * AXIS_Y_SPAN), us);
    for (int i = 0; i < 15; i++) {
        us += 10000;
        x += 60.0 / width_mm / 15;
        frame(fd, 1, (int)(x * AXIS_X_SPAN), (int)(0.5 * AXIS_Y_SPAN), us);
    }
    frame(fd, 2, 0, 0, us + 10000);
}

static int clients[CLIENTS], peers[CLIENTS];

static void send_all(const char *bytes, size_t length) {
    for (int c = 0; c < CLIENTS; c++)
        if (send(clients[c], bytes, length, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)length) die("send");
}

int main(int argc, char **argv) {
    int swipes = argc > 1 ? atoi(argv[1]) : 20;
    int frames[2];
    if (pipe(frames) != 0) die("pipe");
    for (int c = 0; c < CLIENTS; c++) {
        int pair[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0) die("socketpair");
        clients[c] = pair[0];
        peers[c] = pair[1];
    }
    char drain[65536];
    for (int s = 0; s < swipes; s++) {
        write_swipe(frames[1], 1000000LL * (s + 1));
        CALLGRIND_TOGGLE_COLLECT;
        struct input_event batch[64];
        char out[1024];
        int down = 0, began = 0, done = 0;
        double start_x = 0, x = 0;
        while (!done) {
            ssize_t got = read(frames[0], batch, sizeof batch);
            if (got <= 0) die("read");
            for (size_t i = 0; i < (size_t)got / sizeof batch[0]; i++) {
                const struct input_event *e = &batch[i];
                long long us = e->time.tv_sec * 1000000LL + e->time.tv_usec;
                if (e->type == EV_ABS && e->code == ABS_MT_TRACKING_ID) down = e->value >= 0;
                if (e->type == EV_ABS && e->code == ABS_MT_POSITION_X) x = e->value;
                if (e->type != EV_SYN || e->code != SYN_REPORT) continue;
                size_t n = 0;
                if (down && !began) {
                    start_x = x;
                    began = 1;
                    n += snprintf(out + n, sizeof out - n,
                                  "{\"type\":\"pop-began\",\"navigator\":\"main\",\"page\":\"detail\",\"progress\":%.3f,"
                                  "\"time_us\":%lld}\n", 0.0, us);
                } else if (down) {
                    n += snprintf(out + n, sizeof out - n,
                                  "{\"type\":\"pop-progress\",\"navigator\":\"main\",\"page\":\"detail\",\"progress\":%.3f,"
                                  "\"time_us\":%lld}\n", (x - start_x) / AXIS_X_SPAN, us);
                } else {
                    n += snprintf(out + n, sizeof out - n,
                                  "{\"type\":\"pop-finished\",\"navigator\":\"main\",\"page\":\"detail\",\"reason\":\"fling\","
                                  "\"time_us\":%lld}\n{\"type\":\"back\",\"navigator\":\"main\",\"popped\":\"detail\","
                                  "\"top\":\"home\",\"time_us\":%lld}\n{\"type\":\"bar\",\"navigator\":\"main\",\"page\":"
                                  "\"home\",\"hidden\":false}\n{\"type\":\"bar\",\"navigator\":\"main\",\"page\":\"detail\","
                                  "\"hidden\":false}\n", us, us);
                    done = 1;
                }
                send_all(out, n);
            }
        }
        CALLGRIND_TOGGLE_COLLECT;
        for (int c = 0; c < CLIENTS; c++)
            while (recv(peers[c], drain, sizeof drain, MSG_DONTWAIT) > 0) {
            }
    }
    printf("floor_swipes=%d\n", swipes);
    return 0;
}
