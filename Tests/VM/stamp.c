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
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "client") == 0) return client(argv[2]);
    if (argc != 1) {
        fprintf(stderr, "usage: stamp | stamp client SOCKET\n");
        return 2;
    }
    printf("%lld\n", now_us());
    return 0;
}
