/*
 * Hotplug churn for Tests/VM/scenarios/70-hotplug-churn.sh, in C because
 * evemu-device started 1,000 times under QEMU's software emulation would measure
 * process start-up, not the daemon. Built by Tests/VM/run into the log folder.
 *
 *   churn DESC CYCLES [--pid PID] [--pause MS] [--every N]
 *
 * Reads an evemu description (the N:, I:, P:, B: and A: lines), then CYCLES
 * times: creates a uinput device with exactly those capabilities, waits until
 * udev has processed it (its /run/udev/data entry exists) and, with --pid, until
 * that process has the event node open; pauses MS milliseconds (default 10);
 * destroys the device, waits until udev has processed the removal and the process
 * has closed the node; pauses again. Every N cycles (default 100) and at the end
 * it prints the cycle, the seconds so far and, with --pid, the process's open fds
 * and VmRSS. Any wait longer than 30 s is a failure (exit 1) naming the cycle and
 * what it waited for.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/uinput.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

/* A wait for udev or the daemon longer than this is a failure: 30 s, far more
 * than one add or remove takes even under TCG on a busy host. */
#define WAIT_LIMIT_US (30LL * 1000000LL)
/* How often the waits look again: 5 ms, small next to one stage of a cycle (a few
 * hundred ms under TCG), and rare enough to leave the CPU to udev and the daemon. */
#define POLL_US 5000
/* Bytes of one type's bitmask in the description: enough for KEY_MAX. */
#define MASK_BYTES ((KEY_MAX + 8) / 8)

struct description {
    char name[UINPUT_MAX_NAME_SIZE];
    struct input_id id;
    unsigned char props[MASK_BYTES];
    size_t props_len;
    unsigned char bits[EV_CNT][MASK_BYTES];
    size_t bits_len[EV_CNT];
    struct uinput_abs_setup abs[ABS_CNT];
    int abs_count;
};

static int cycle;

static void die(const char *format, ...) {
    va_list args;
    va_start(args, format);
    fprintf(stderr, "churn: cycle %d: ", cycle);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(1);
}

static long long now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static void sleep_us(long long us) {
    struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
}

/* Appends the hex bytes after "X: " (and, for B:, after the type) to a mask. */
static void append_bytes(const char *text, unsigned char *mask, size_t *len) {
    char *end;
    for (;;) {
        unsigned long byte = strtoul(text, &end, 16);
        if (end == text) return;
        if (*len >= MASK_BYTES) die("a bitmask in the description is longer than %d bytes", MASK_BYTES);
        mask[(*len)++] = (unsigned char)byte;
        text = end;
    }
}

static void parse(const char *path, struct description *d) {
    FILE *file = fopen(path, "r");
    if (!file) die("cannot open %s: %s", path, strerror(errno));
    memset(d, 0, sizeof *d);
    char line[4096];
    while (fgets(line, sizeof line, file)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '\0' || line[1] != ':' || line[2] != ' ') continue;
        const char *rest = line + 3;
        unsigned a, b, c, e;
        int code, min, max, fuzz, flat, res = 0;
        switch (line[0]) {
        case 'N':
            snprintf(d->name, sizeof d->name, "%.*s", (int)sizeof d->name - 1, rest);
            break;
        case 'I':
            if (sscanf(rest, "%x %x %x %x", &a, &b, &c, &e) != 4) die("bad I: line: %s", line);
            d->id = (struct input_id){.bustype = a, .vendor = b, .product = c, .version = e};
            break;
        case 'P':
            append_bytes(rest, d->props, &d->props_len);
            break;
        case 'B': {
            char *end;
            unsigned long type = strtoul(rest, &end, 16);
            if (end == rest || type >= EV_CNT) die("bad B: line: %s", line);
            append_bytes(end, d->bits[type], &d->bits_len[type]);
            break;
        }
        case 'A':
            if (sscanf(rest, "%x %d %d %d %d %d", &code, &min, &max, &fuzz, &flat, &res) < 5 ||
                code < 0 || code >= ABS_CNT)
                die("bad A: line: %s", line);
            d->abs[d->abs_count++] = (struct uinput_abs_setup){
                .code = (unsigned short)code,
                .absinfo = {.minimum = min, .maximum = max, .fuzz = fuzz, .flat = flat, .resolution = res},
            };
            break;
        }
    }
    fclose(file);
    if (d->name[0] == '\0') die("%s has no N: line: not an evemu description", path);
}

static int has_bit(const unsigned char *mask, size_t len, unsigned bit) {
    return bit / 8 < len && (mask[bit / 8] >> (bit % 8)) & 1;
}

static void set_bit(int fd, unsigned long request, unsigned bit, const char *what) {
    if (ioctl(fd, request, bit) < 0) die("uinput %s %u: %s", what, bit, strerror(errno));
}

/* The ioctl that enables one code of an event type, or 0 for types uinput takes whole. */
static unsigned long code_request(unsigned type) {
    switch (type) {
    case EV_KEY: return UI_SET_KEYBIT;
    case EV_REL: return UI_SET_RELBIT;
    case EV_ABS: return UI_SET_ABSBIT;
    case EV_MSC: return UI_SET_MSCBIT;
    case EV_LED: return UI_SET_LEDBIT;
    case EV_SND: return UI_SET_SNDBIT;
    case EV_FF: return UI_SET_FFBIT;
    case EV_SW: return UI_SET_SWBIT;
    default: return 0;
    }
}

/* Creates the device; returns the uinput fd and writes its node (/dev/input/eventN)
 * and its udev database entry (/run/udev/data/c13:MINOR, made when udev has
 * processed the add, deleted when it has processed the removal). */
static int create(const struct description *d, char *node, size_t node_size, char *entry, size_t entry_size) {
    int fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) die("open /dev/uinput: %s", strerror(errno));
    for (unsigned type = 1; type < EV_CNT; type++) {
        if (!has_bit(d->bits[EV_SYN], d->bits_len[EV_SYN], type)) continue;
        set_bit(fd, UI_SET_EVBIT, type, "EVBIT");
        unsigned long request = code_request(type);
        for (unsigned bit = 0; request && bit < d->bits_len[type] * 8; bit++) {
            if (has_bit(d->bits[type], d->bits_len[type], bit)) set_bit(fd, request, bit, "code");
        }
    }
    for (unsigned bit = 0; bit < d->props_len * 8; bit++) {
        if (has_bit(d->props, d->props_len, bit)) set_bit(fd, UI_SET_PROPBIT, bit, "PROPBIT");
    }
    for (int i = 0; i < d->abs_count; i++) {
        if (ioctl(fd, UI_ABS_SETUP, &d->abs[i]) < 0) die("UI_ABS_SETUP %#x: %s", d->abs[i].code, strerror(errno));
    }
    struct uinput_setup setup = {.id = d->id};
    snprintf(setup.name, sizeof setup.name, "%s", d->name);
    if (ioctl(fd, UI_DEV_SETUP, &setup) < 0) die("UI_DEV_SETUP: %s", strerror(errno));
    if (ioctl(fd, UI_DEV_CREATE) < 0) die("UI_DEV_CREATE: %s", strerror(errno));

    char sysname[64], dir[128];
    if (ioctl(fd, UI_GET_SYSNAME(sizeof sysname), sysname) < 0) die("UI_GET_SYSNAME: %s", strerror(errno));
    snprintf(dir, sizeof dir, "/sys/devices/virtual/input/%s", sysname);
    DIR *sys = opendir(dir);
    if (!sys) die("opendir %s: %s", dir, strerror(errno));
    char event[32] = "";
    for (struct dirent *child; (child = readdir(sys)) != NULL;) {
        if (strncmp(child->d_name, "event", 5) == 0) snprintf(event, sizeof event, "%.*s", (int)sizeof event - 1, child->d_name);
    }
    closedir(sys);
    if (event[0] == '\0') die("%s has no event node", dir);
    snprintf(node, node_size, "/dev/input/%s", event);

    char dev_path[192], dev[32] = "";
    snprintf(dev_path, sizeof dev_path, "%s/%s/dev", dir, event);
    FILE *file = fopen(dev_path, "r");
    if (!file || !fgets(dev, sizeof dev, file)) die("cannot read %s", dev_path);
    fclose(file);
    dev[strcspn(dev, "\n")] = '\0';
    snprintf(entry, entry_size, "/run/udev/data/c%s", dev);
    return fd;
}

/* Whether PID has NODE open (a removed node reads back as "NODE (deleted)"). */
static int holds(pid_t pid, const char *node) {
    char dir[64], link[PATH_MAX], target[PATH_MAX];
    snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
    DIR *fds = opendir(dir);
    if (!fds) die("process %d is gone (%s: %s)", (int)pid, dir, strerror(errno));
    size_t len = strlen(node);
    int found = 0;
    for (struct dirent *entry; !found && (entry = readdir(fds)) != NULL;) {
        snprintf(link, sizeof link, "%s/%s", dir, entry->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0) continue;
        target[n] = '\0';
        found = strncmp(target, node, len) == 0 && (target[len] == '\0' || target[len] == ' ');
    }
    closedir(fds);
    return found;
}

static int count_fds(pid_t pid) {
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
    DIR *fds = opendir(dir);
    if (!fds) die("process %d is gone", (int)pid);
    int n = 0;
    for (struct dirent *entry; (entry = readdir(fds)) != NULL;) n += entry->d_name[0] != '.';
    closedir(fds);
    return n;
}

static long rss_kib(pid_t pid) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *file = fopen(path, "r");
    if (!file) die("process %d is gone", (int)pid);
    long kib = -1;
    while (fgets(line, sizeof line, file)) {
        if (sscanf(line, "VmRSS: %ld", &kib) == 1) break;
    }
    fclose(file);
    return kib;
}

/* The stages of a cycle, and the time spent waiting in each. */
enum stage { UDEV_ADD, DAEMON_OPEN, UDEV_REMOVE, DAEMON_CLOSE, STAGES };
static const char *stage_names[STAGES] = {"udev add", "daemon open", "udev remove", "daemon close"};
static long long stage_us[STAGES];

/* Waits until exists(path) == want, or for PID's hold on NODE when path is NULL. */
static void await(enum stage stage, const char *what, const char *path, pid_t pid, const char *node, int want) {
    long long begin = now_us(), deadline = begin + WAIT_LIMIT_US;
    for (;;) {
        int now = path ? access(path, F_OK) == 0 : holds(pid, node);
        if (now == want) {
            stage_us[stage] += now_us() - begin;
            return;
        }
        if (now_us() > deadline) die("timed out after 30 s waiting for %s (%s)", what, node);
        sleep_us(POLL_US);
    }
}

static void report(pid_t pid, long long start) {
    printf("cycle %d elapsed %.1f s", cycle, (now_us() - start) / 1e6);
    if (pid > 0) printf(" fds %d rss_kib %ld", count_fds(pid), rss_kib(pid));
    printf("\n");
    fflush(stdout);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: churn DESC CYCLES [--pid PID] [--pause MS] [--every N]\n");
        return 2;
    }
    const char *desc_path = argv[1];
    int cycles = atoi(argv[2]), every = 100;
    long long pause_us = 10000;
    pid_t pid = 0;
    for (int i = 3; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--pid") == 0) pid = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--pause") == 0) pause_us = atoll(argv[i + 1]) * 1000;
        else if (strcmp(argv[i], "--every") == 0) every = atoi(argv[i + 1]);
        else { fprintf(stderr, "churn: unknown option %s\n", argv[i]); return 2; }
    }
    static struct description d;
    parse(desc_path, &d);
    printf("churn: \"%s\" (%s), %d cycles, pause %lld ms%s\n", d.name, desc_path, cycles, pause_us / 1000,
           pid > 0 ? ", following the daemon's fds" : "");

    long long start = now_us();
    for (cycle = 1; cycle <= cycles; cycle++) {
        char node[64], entry[64];
        int fd = create(&d, node, sizeof node, entry, sizeof entry);
        await(UDEV_ADD, "udev to process the add", entry, 0, node, 1);
        if (pid > 0) await(DAEMON_OPEN, "the daemon to open the device", NULL, pid, node, 1);
        sleep_us(pause_us);

        if (ioctl(fd, UI_DEV_DESTROY) < 0) die("UI_DEV_DESTROY: %s", strerror(errno));
        close(fd);
        await(UDEV_REMOVE, "udev to process the removal", entry, 0, node, 0);
        if (pid > 0) await(DAEMON_CLOSE, "the daemon to close the removed device", NULL, pid, node, 0);
        sleep_us(pause_us);
        if (cycle % every == 0 || cycle == cycles) report(pid, start);
    }
    cycle = cycles;
    long long total = now_us() - start;
    printf("done %d cycles in %.1f s (%.1f ms a cycle); waits a cycle:", cycles, total / 1e6,
           cycles ? total / 1e3 / cycles : 0.0);
    for (int i = 0; i < STAGES; i++) printf(" %s %.1f ms", stage_names[i], cycles ? stage_us[i] / 1e3 / cycles : 0.0);
    printf("\n");
    return 0;
}
