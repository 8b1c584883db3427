/*
 * libpopgesture's tests, against the real popgestured binary ($POPGESTURED_BINARY)
 * on Unix sockets in a temporary directory, plus a fake server of our own for what
 * the daemon never does (a 2 MiB line, a refused version).
 *
 *   test_popgesture [NAME...]    run the named tests (default: all)
 */
#include "popgesture.h"

#include <errno.h>
#include <fcntl.h>
#include <json.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

/* ---- a tiny harness ------------------------------------------------------- */

static int failures;
static const char *current_test = "";

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "FAIL %s (%s:%d): %s: ", current_test, __FILE__, __LINE__, #cond);     \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/* A failed REQUIRE ends the test: what follows depends on it. */
#define REQUIRE(cond, ...)                                                                         \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            CHECK(cond, __VA_ARGS__);                                                              \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

static char *xstrdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (!d)
        abort();
    memcpy(d, s, n);
    return d;
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
}

static const char *daemon_binary;
/* popgestured-demo, built beside the daemon: the generated swipes. */
static char demo_binary[4096];
static char root[PATH_MAX]; /* the temporary directory of the whole run */

/* out = a + b, or the run stops: test paths are short. */
static void join(char *out, size_t size, const char *a, const char *b)
{
    int n = snprintf(out, size, "%s%s", a, b);
    if (n < 0 || (size_t)n >= size) {
        fprintf(stderr, "path too long: %s%s\n", a, b);
        exit(2);
    }
}

/* ---- what a client received ----------------------------------------------- */

typedef struct {
    uint64_t id;
    bool ok;
    char *code, *message, *type, *navigator, *json;
} reply_rec;

typedef struct {
    const char *label;
    bool connected;
    int ups, downs;
    char *reason;         /* of the last down */
    char *reports;        /* "U", "D", in order */
    reply_rec *replies;
    size_t n_replies, cap_replies;
    char **events;        /* "pop-began main detail 0.020" ... */
    size_t n_events, cap_events;
    int watch_calls;
    int watch_fd;
    short watch_events;
    bool saw_watch_minus_one;
    bool saw_pollout;
    /* on_event */
    char *event_type;
    size_t event_json_len;
    /* behaviours */
    bool push_again_on_back;
    bool dispatch_in_callback;
    int dispatch_in_callback_result, dispatch_in_callback_errno;
    bool free_in_callback;
    bool freed;
} rec;

static void rec_init(rec *r, const char *label)
{
    memset(r, 0, sizeof *r);
    r->label = label;
    r->watch_fd = -2;
    r->reports = xstrdup("");
}

static void rec_clear(rec *r)
{
    for (size_t i = 0; i < r->n_replies; i++) {
        reply_rec *p = &r->replies[i];
        free(p->code);
        free(p->message);
        free(p->type);
        free(p->navigator);
        free(p->json);
    }
    free(r->replies);
    for (size_t i = 0; i < r->n_events; i++)
        free(r->events[i]);
    free(r->events);
    free(r->reason);
    free(r->reports);
    free(r->event_type);
}

static void add_event(rec *r, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (r->n_events == r->cap_events) {
        r->cap_events = r->cap_events ? r->cap_events * 2 : 64;
        r->events = realloc(r->events, r->cap_events * sizeof *r->events);
        if (!r->events)
            abort();
    }
    r->events[r->n_events++] = xstrdup(line);
}

static void cb_watch(pg_client *c, void *u, int fd, short events)
{
    rec *r = u;
    r->watch_calls++;
    r->watch_fd = fd;
    r->watch_events = events;
    if (fd == -1)
        r->saw_watch_minus_one = true;
    if (events & POLLOUT)
        r->saw_pollout = true;
    /* Only the queries are allowed here. */
    (void)pg_client_fd(c);
    (void)pg_client_events(c);
    (void)pg_client_next_timeout_ms(c);
}

static void cb_connection(pg_client *c, void *u, bool connected, const char *reason)
{
    rec *r = u;
    r->connected = connected;
    size_t n = strlen(r->reports);
    r->reports = realloc(r->reports, n + 2);
    if (!r->reports)
        abort();
    r->reports[n] = connected ? 'U' : 'D';
    r->reports[n + 1] = '\0';
    if (connected) {
        r->ups++;
        if (reason)
            fprintf(stderr, "[%s] connected with a reason: %s\n", r->label, reason);
    } else {
        r->downs++;
        free(r->reason);
        r->reason = xstrdup(reason ? reason : "(null)");
    }
    if (r->dispatch_in_callback) {
        r->dispatch_in_callback_result = pg_client_dispatch(c);
        r->dispatch_in_callback_errno = errno;
    }
    if (r->free_in_callback) {
        pg_client_free(c);
        r->freed = true;
    }
}

static void cb_reply(pg_client *c, void *u, const pg_reply *reply)
{
    rec *r = u;
    (void)c;
    if (r->n_replies == r->cap_replies) {
        r->cap_replies = r->cap_replies ? r->cap_replies * 2 : 64;
        r->replies = realloc(r->replies, r->cap_replies * sizeof *r->replies);
        if (!r->replies)
            abort();
    }
    reply_rec *p = &r->replies[r->n_replies++];
    p->id = reply->request;
    p->ok = reply->ok;
    p->code = xstrdup(reply->code);
    p->message = xstrdup(reply->message);
    p->type = xstrdup(reply->request_type);
    p->navigator = xstrdup(reply->navigator);
    p->json = xstrdup(reply->json);
    if (reply->ok && (reply->code || reply->message))
        fprintf(stderr, "[%s] ok reply with an error code\n", r->label);
}

static void cb_pop_began(pg_client *c, void *u, const char *nav, const char *page, double progress, int64_t t)
{
    (void)c, (void)t;
    add_event(u, "pop-began %s %s %.3f", nav, page, progress);
}

static void cb_pop_progress(pg_client *c, void *u, const char *nav, const char *page, double progress, int64_t t)
{
    (void)c, (void)t;
    add_event(u, "pop-progress %s %s %.3f", nav, page, progress);
}

static void cb_pop_finished(pg_client *c, void *u, const char *nav, const char *page, const char *reason, int64_t t)
{
    (void)c, (void)t;
    add_event(u, "pop-finished %s %s %s", nav, page, reason);
}

static void cb_pop_cancelled(pg_client *c, void *u, const char *nav, const char *page, const char *reason,
                             int64_t t)
{
    (void)c, (void)t;
    add_event(u, "pop-cancelled %s %s %s", nav, page, reason);
}

static void cb_back(pg_client *c, void *u, const char *nav, const char *popped, const char *top, int64_t t)
{
    rec *r = u;
    add_event(r, "back %s %s %s %s", nav, popped, top, t > 0 ? "timed" : "untimed");
    if (r->push_again_on_back) {
        pg_page page = {.id = popped};
        uint64_t id = pg_push(c, nav, &page, false); /* a request from inside a callback */
        add_event(r, "pushed-again %llu", (unsigned long long)id);
    }
}

static void cb_bar(pg_client *c, void *u, const char *nav, const char *page, bool hidden)
{
    (void)c;
    add_event(u, "bar %s %s %s", nav, page, hidden ? "hidden" : "shown");
}

static void cb_focus_changed(pg_client *c, void *u, const char *source, const char *app, long pid,
                             const char *nav)
{
    (void)c;
    add_event(u, "focus-changed %s %s %ld %s", source, app ? app : "-", pid, nav ? nav : "-");
}

static void cb_event(pg_client *c, void *u, const char *type, const char *json)
{
    rec *r = u;
    (void)c;
    free(r->event_type);
    r->event_type = xstrdup(type);
    r->event_json_len = strlen(json);
    add_event(r, "event %s", type);
}

static const pg_callbacks callbacks = {
    .on_watch = cb_watch,
    .on_connection = cb_connection,
    .on_reply = cb_reply,
    .on_pop_began = cb_pop_began,
    .on_pop_progress = cb_pop_progress,
    .on_pop_finished = cb_pop_finished,
    .on_pop_cancelled = cb_pop_cancelled,
    .on_back = cb_back,
    .on_bar = cb_bar,
    .on_focus_changed = cb_focus_changed,
    .on_event = cb_event,
};

static pg_client *client_new(rec *r, const char *socket_path, const char *app)
{
    pg_options o = {
        .socket_path = socket_path,
        .app_id = app,
        .name = r->label,
        .callbacks = &callbacks,
        .user_data = r,
    };
    pg_client *c = pg_client_new(&o);
    if (c)
        r->watch_fd = pg_client_fd(c);
    return c;
}

static const reply_rec *find_reply(const rec *r, uint64_t id)
{
    for (size_t i = 0; i < r->n_replies; i++)
        if (r->replies[i].id == id)
            return &r->replies[i];
    return NULL;
}

static bool has_event_prefix(const rec *r, const char *prefix)
{
    for (size_t i = 0; i < r->n_events; i++)
        if (strncmp(r->events[i], prefix, strlen(prefix)) == 0)
            return true;
    return false;
}

/* ---- the event loop ------------------------------------------------------- */

typedef bool (*predicate)(void *arg);

/* Runs the clients' loop until done(arg) or the timeout; a poll() loop as an app
 * would write it, with the fds and timeouts re-read every turn. A client may
 * watch through on_watch instead: the fd must agree. */
static bool pump(pg_client **cs, rec **rs, int n, int timeout_ms, predicate done, void *arg)
{
    uint64_t end = now_ms() + (uint64_t)timeout_ms;
    for (;;) {
        if (done && done(arg))
            return true;
        uint64_t now = now_ms();
        if (now >= end)
            return done == NULL;
        int wait = (int)(end - now);
        struct pollfd p[8];
        for (int i = 0; i < n; i++) {
            p[i].fd = pg_client_fd(cs[i]);
            p[i].events = pg_client_events(cs[i]);
            p[i].revents = 0;
            if (rs && rs[i] && rs[i]->watch_fd != p[i].fd) {
                fprintf(stderr, "FAIL %s: on_watch said fd %d, pg_client_fd says %d\n", current_test,
                        rs[i]->watch_fd, p[i].fd);
                failures++;
                rs[i]->watch_fd = p[i].fd;
            }
            int t = pg_client_next_timeout_ms(cs[i]);
            if (t >= 0 && t < wait)
                wait = t;
        }
        poll(p, (nfds_t)n, wait);
        for (int i = 0; i < n; i++)
            if (pg_client_dispatch(cs[i]) != 0) {
                fprintf(stderr, "FAIL %s: pg_client_dispatch: %s\n", current_test, strerror(errno));
                failures++;
            }
    }
}

struct want_reply {
    rec *r;
    uint64_t id;
};
static bool reply_arrived(void *arg)
{
    struct want_reply *w = arg;
    return find_reply(w->r, w->id) != NULL;
}

/* Runs one client until the reply to id arrives. */
static const reply_rec *await(pg_client *c, rec *r, uint64_t id)
{
    struct want_reply w = {r, id};
    pg_client *cs[1] = {c};
    rec *rs[1] = {r};
    if (id == 0 || !pump(cs, rs, 1, 10000, reply_arrived, &w))
        return NULL;
    return find_reply(r, id);
}

static bool is_up(void *arg) { return ((rec *)arg)->connected; }
static bool is_down(void *arg) { return ((rec *)arg)->downs > 0 && !((rec *)arg)->connected; }

static bool wait_up(pg_client *c, rec *r, int timeout_ms)
{
    pg_client *cs[1] = {c};
    rec *rs[1] = {r};
    return pump(cs, rs, 1, timeout_ms, is_up, r);
}

/* ---- the daemon ----------------------------------------------------------- */

typedef struct {
    pid_t pid;
    char dir[PATH_MAX];
    char sock[PATH_MAX];
    char log[PATH_MAX];
} daemon_t;

static bool connects(const char *path)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    join(a.sun_path, sizeof a.sun_path, path, "");
    bool ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

static void show_log(const daemon_t *d)
{
    FILE *f = fopen(d->log, "r");
    if (!f)
        return;
    fprintf(stderr, "---- %s (last lines)\n", d->log);
    char lines[20][512];
    int n = 0;
    while (fgets(lines[n % 20], sizeof lines[0], f))
        n++;
    for (int i = n > 20 ? n - 20 : 0; i < n; i++)
        fputs(lines[i % 20], stderr);
    fclose(f);
}

/* Makes a directory for one test under the run's root. */
static void test_dir(char *out, const char *name)
{
    char sub[PATH_MAX];
    join(sub, sizeof sub, "/", name);
    join(out, PATH_MAX, root, sub);
    mkdir(out, 0700);
}

/* `popgestured run --socket DIR/s.sock --config DIR/empty.conf`, or `demo
 * --rounds 0 --socket DIR/s.sock`; waits until it accepts. */
static bool daemon_start(daemon_t *d, const char *dir, bool demo)
{
    memset(d, 0, sizeof *d);
    join(d->dir, sizeof d->dir, dir, "");
    join(d->sock, sizeof d->sock, dir, "/s.sock");
    join(d->log, sizeof d->log, dir, "/daemon.log");
    char config[PATH_MAX];
    join(config, sizeof config, dir, "/empty.conf");
    int cf = open(config, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (cf >= 0)
        close(cf);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive a crashed test */
        if (getppid() != parent)
            _exit(127);
        int log = open(d->log, O_WRONLY | O_CREAT | O_APPEND, 0600);
        int null = open("/dev/null", O_RDONLY);
        if (log < 0 || null < 0)
            _exit(127);
        dup2(null, 0);
        dup2(log, 1);
        dup2(log, 2);
        if (demo)
            execl(demo_binary, demo_binary, "--rounds", "0", "--socket", d->sock, (char *)NULL);
        else
            execl(daemon_binary, daemon_binary, "run", "--socket", d->sock, "--config", config, (char *)NULL);
        _exit(127);
    }
    d->pid = pid;
    uint64_t end = now_ms() + 15000;
    while (now_ms() < end) {
        if (connects(d->sock))
            return true;
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            d->pid = 0;
            fprintf(stderr, "popgestured exited before listening (status %d)\n", status);
            show_log(d);
            return false;
        }
        sleep_ms(20);
    }
    fprintf(stderr, "popgestured did not listen within 15 s\n");
    show_log(d);
    return false;
}

static void daemon_stop(daemon_t *d)
{
    if (d->pid <= 0)
        return;
    kill(d->pid, SIGTERM);
    uint64_t end = now_ms() + 10000;
    int status;
    while (waitpid(d->pid, &status, WNOHANG) == 0) {
        if (now_ms() >= end) {
            kill(d->pid, SIGKILL);
            waitpid(d->pid, &status, 0);
            break;
        }
        sleep_ms(10);
    }
    d->pid = 0;
}

/* A second, raw connection: hello, then one request; returns its parsed reply. */
static json_object *raw_query(const char *sock, const char *request_without_brace_end)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    join(a.sun_path, sizeof a.sun_path, sock, "");
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    char out[4096];
    int n = snprintf(out, sizeof out, "{\"type\":\"hello\",\"version\":1,\"name\":\"raw\"}\n%s,\"id\":4242}\n",
                     request_without_brace_end);
    if (send(fd, out, (size_t)n, MSG_NOSIGNAL) != n) {
        close(fd);
        return NULL;
    }
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap);
    json_object *result = NULL;
    uint64_t end = now_ms() + 5000;
    while (!result && now_ms() < end && len < cap - 1) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 200) <= 0)
            continue;
        ssize_t got = read(fd, buf + len, cap - 1 - len);
        if (got <= 0)
            break;
        len += (size_t)got;
        buf[len] = '\0';
        char *line = buf, *nl;
        while ((nl = strchr(line, '\n'))) {
            *nl = '\0';
            json_object *obj = json_tokener_parse(line);
            json_object *id;
            if (obj && json_object_object_get_ex(obj, "id", &id) && json_object_get_int(id) == 4242) {
                result = obj;
                break;
            }
            json_object_put(obj);
            line = nl + 1;
        }
        memmove(buf, line, strlen(line) + 1);
        len = strlen(buf);
    }
    free(buf);
    close(fd);
    return result;
}

static const char *jstr(json_object *obj, const char *key)
{
    json_object *v;
    return obj && json_object_object_get_ex(obj, key, &v) ? json_object_get_string(v) : NULL;
}

static bool jbool(json_object *obj, const char *key)
{
    json_object *v;
    return obj && json_object_object_get_ex(obj, key, &v) && json_object_get_boolean(v);
}

/* The pages of a stack reply, joined by spaces. */
static void stack_pages(json_object *stack, char *out, size_t size)
{
    out[0] = '\0';
    json_object *pages;
    if (!stack || !json_object_object_get_ex(stack, "pages", &pages))
        return;
    size_t used = 0;
    for (size_t i = 0; i < json_object_array_length(pages); i++)
        used += (size_t)snprintf(out + used, used < size ? size - used : 0, "%s%s", i ? " " : "",
                                 json_object_get_string(json_object_array_get_idx(pages, i)));
}

/* ---- tests: requests and replies ------------------------------------------ */

static void test_requests(void)
{
    char dir[PATH_MAX];
    test_dir(dir, "requests");
    daemon_t d;
    rec r;
    rec_init(&r, "c-test");
    pg_client *c = NULL;
    json_object *stack = NULL, *status = NULL;
    uint64_t ids[64];
    size_t n_ids = 0;
#define SENT(expr) (ids[n_ids++] = (expr))
    REQUIRE(daemon_start(&d, dir, false), "the daemon did not start");
    c = client_new(&r, d.sock, "org.example.libpopgesture-test");
    REQUIRE(c, "pg_client_new: %s", strerror(errno));
    REQUIRE(wait_up(c, &r, 5000), "no hello within 5 s: %s", r.reason ? r.reason : "");
    CHECK(pg_client_protocol_version(c) == 1, "version %d", pg_client_protocol_version(c));
    CHECK(pg_client_connected(c), "not connected");

    pg_page home = {.id = "home"}, detail = {.id = "detail"};
    pg_page two[] = {home, detail};
    const reply_rec *rr = await(c, &r, SENT(pg_create(c, "main", two, 2, NULL)));
    REQUIRE(rr && rr->ok, "create: %s", rr ? rr->code : "no reply");
    CHECK(strcmp(rr->type, "create") == 0 && strcmp(rr->navigator, "main") == 0, "reply %s %s", rr->type,
          rr->navigator);
    CHECK(has_event_prefix(&r, "bar main detail shown"), "no bar event after create");

    rr = await(c, &r, SENT(pg_push(c, "main", &detail, false)));
    REQUIRE(rr, "no reply to the duplicate push");
    CHECK(!rr->ok && rr->code && strcmp(rr->code, "duplicate-page") == 0, "duplicate push: %s",
          rr->code ? rr->code : "ok");
    CHECK(rr->message && strstr(rr->message, "detail"), "message: %s", rr->message ? rr->message : "(null)");
    CHECK(rr->json && strstr(rr->json, "\"type\":\"error\""), "json: %s", rr->json ? rr->json : "");

    pg_rect zones[] = {{0, 0, 0.25, 0.5}, {0.5, 0.5, 0.5, 0.5}};
    pg_page photo = {.id = "photo", .prefers_bar_hidden = true, .max_start_distance = 12.5,
                     .exclusion_zones = zones, .exclusion_zone_count = 2};
    rr = await(c, &r, SENT(pg_push(c, "main", &photo, true)));
    CHECK(rr && rr->ok, "push photo: %s", rr ? rr->code : "no reply");
    CHECK(has_event_prefix(&r, "bar main photo hidden"), "no hidden bar after pushing photo");
    rr = await(c, &r, SENT(pg_settle(c, "main")));
    CHECK(rr && rr->ok, "settle: %s", rr ? rr->code : "no reply");
    rr = await(c, &r, SENT(pg_pop(c, "main", false)));
    CHECK(rr && rr->ok, "pop: %s", rr ? rr->code : "no reply");
    rr = await(c, &r, SENT(pg_push(c, "main", &photo, false)));
    CHECK(rr && rr->ok, "push photo again: %s", rr ? rr->code : "no reply");
    photo.pop_disabled = true;
    rr = await(c, &r, SENT(pg_update(c, "main", &photo)));
    CHECK(rr && rr->ok, "update: %s", rr ? rr->code : "no reply");
    pg_page ghost = {.id = "ghost"};
    rr = await(c, &r, SENT(pg_update(c, "main", &ghost)));
    CHECK(rr && !rr->ok && strcmp(rr->code, "unknown-page") == 0, "update ghost: %s", rr ? rr->code : "none");
    pg_navigator_settings rtl = {.layout = PG_LAYOUT_RTL, .bar = PG_BAR_INDEPENDENT};
    rr = await(c, &r, SENT(pg_configure(c, "main", &rtl)));
    CHECK(rr && rr->ok, "configure: %s", rr ? rr->code : "no reply");
    rr = await(c, &r, SENT(pg_front(c, "main")));
    CHECK(rr && rr->ok, "front: %s", rr ? rr->code : "no reply");
    rr = await(c, &r, SENT(pg_stack(c, "main")));
    REQUIRE(rr && rr->ok && rr->json, "stack: %s", rr ? rr->code : "no reply");
    stack = json_tokener_parse(rr->json);
    char pages[1024];
    stack_pages(stack, pages, sizeof pages);
    CHECK(strcmp(pages, "home detail photo") == 0, "stack pages: %s", pages);
    CHECK(jbool(stack, "front"), "not in front: %s", rr->json);

    rr = await(c, &r, SENT(pg_replace(c, "main", &home, 1, true)));
    CHECK(rr && rr->ok, "replace: %s", rr ? rr->code : "no reply");
    rr = await(c, &r, SENT(pg_pop(c, "main", false)));
    CHECK(rr && !rr->ok && strcmp(rr->code, "cannot-pop-root") == 0, "pop root: %s", rr ? rr->code : "none");
    rr = await(c, &r, SENT(pg_push(c, "nowhere", &home, false)));
    CHECK(rr && !rr->ok && strcmp(rr->code, "unknown-navigator") == 0, "unknown: %s", rr ? rr->code : "none");
    pg_page empty = {.id = ""};
    rr = await(c, &r, SENT(pg_push(c, "main", &empty, false)));
    CHECK(rr && !rr->ok && rr->code, "an empty page id was taken");
    pg_page negative = {.id = "neg", .max_start_distance = -1};
    rr = await(c, &r, SENT(pg_push(c, "main", &negative, false)));
    CHECK(rr && !rr->ok && strcmp(rr->code, "invalid-value") == 0, "negative: %s", rr ? rr->code : "none");
    rr = await(c, &r, SENT(pg_status(c)));
    REQUIRE(rr && rr->ok && rr->json, "status: %s", rr ? rr->code : "no reply");
    status = json_tokener_parse(rr->json);
    CHECK(strstr(rr->json, "\"name\":\"c-test\""), "status lacks our name: %s", rr->json);

    /* Strings that need escaping, both ways: quotes, backslash, control characters,
     * a slash, and UTF-8 of 2, 3 and 4 bytes. */
    const char *weird = "we\"ird\\nav/\n\t\x01 é ✓ 😀";
    pg_page weird_page = {.id = weird};
    rr = await(c, &r, SENT(pg_create(c, weird, &weird_page, 1, NULL)));
    CHECK(rr && rr->ok, "create weird: %s", rr ? rr->code : "no reply");
    CHECK(rr && rr->navigator && strcmp(rr->navigator, weird) == 0, "reply navigator differs");
    char bar[256];
    snprintf(bar, sizeof bar, "bar %s %s shown", weird, weird);
    CHECK(has_event_prefix(&r, bar), "no bar event for the weird navigator");
    rr = await(c, &r, SENT(pg_stack(c, weird)));
    REQUIRE(rr && rr->ok, "stack weird: %s", rr ? rr->code : "no reply");
    json_object_put(stack);
    stack = json_tokener_parse(rr->json);
    CHECK(jstr(stack, "navigator") && strcmp(jstr(stack, "navigator"), weird) == 0, "navigator: %s", rr->json);
    stack_pages(stack, pages, sizeof pages);
    CHECK(strcmp(pages, weird) == 0, "pages: %s", rr->json);
    rr = await(c, &r, SENT(pg_remove(c, weird)));
    CHECK(rr && rr->ok, "remove weird: %s", rr ? rr->code : "no reply");
    rr = await(c, &r, SENT(pg_remove(c, "main")));
    CHECK(rr && rr->ok, "remove: %s", rr ? rr->code : "no reply");
    rr = await(c, &r, SENT(pg_stack(c, "main")));
    CHECK(rr && !rr->ok && strcmp(rr->code, "unknown-navigator") == 0, "stack after remove: %s",
          rr ? rr->code : "none");

    /* Every id answered exactly once, in the order of the requests. */
    CHECK(r.n_replies == n_ids, "%zu replies to %zu requests", r.n_replies, n_ids);
    for (size_t i = 0; i < n_ids && i < r.n_replies; i++)
        CHECK(r.replies[i].id == ids[i] && ids[i] != 0, "reply %zu is to %llu, not %llu", i,
              (unsigned long long)r.replies[i].id, (unsigned long long)ids[i]);

    /* Refused before being queued. */
    errno = 0;
    CHECK(pg_create(c, "bad\xff", &home, 1, NULL) == 0 && errno == EINVAL, "invalid UTF-8 navigator");
    CHECK(strstr(pg_client_last_error(c), "UTF-8"), "last error: %s", pg_client_last_error(c));
    pg_page overlong = {.id = "\xc0\xaf"};
    CHECK(pg_push(c, "main", &overlong, false) == 0 && errno == EINVAL, "overlong UTF-8 page id");
    pg_page surrogate = {.id = "\xed\xa0\x80"};
    CHECK(pg_push(c, "main", &surrogate, false) == 0 && errno == EINVAL, "surrogate in a page id");
    pg_page nan_page = {.id = "n", .max_start_distance = NAN};
    CHECK(pg_push(c, "main", &nan_page, false) == 0 && errno == EINVAL, "NaN accepted");
    pg_rect inf_zone = {0, 0, INFINITY, 1};
    pg_page inf_page = {.id = "i", .exclusion_zones = &inf_zone, .exclusion_zone_count = 1};
    CHECK(pg_update(c, "main", &inf_page) == 0 && errno == EINVAL, "infinite zone accepted");
    pg_page no_zones = {.id = "z", .exclusion_zone_count = 3};
    CHECK(pg_push(c, "main", &no_zones, false) == 0 && errno == EINVAL, "NULL zones accepted");
    CHECK(pg_create(c, "main", NULL, 2, NULL) == 0 && errno == EINVAL, "NULL pages accepted");
    CHECK(pg_push(c, NULL, &home, false) == 0 && errno == EINVAL, "NULL navigator accepted");
    CHECK(pg_push(c, "main", NULL, false) == 0 && errno == EINVAL, "NULL page accepted");
    CHECK(pg_settle(NULL, "main") == 0 && errno == EINVAL, "NULL client accepted");
    pg_navigator_settings bad_layout = {.layout = (pg_layout)7};
    CHECK(pg_configure(c, "main", &bad_layout) == 0 && errno == EINVAL, "layout 7 accepted");
    /* 64 pages of 16 zones each: over the daemon's 64 KiB line. */
    static pg_page big[64];
    static pg_rect big_zones[16];
    static char big_ids[64][16];
    for (int i = 0; i < 16; i++)
        big_zones[i] = (pg_rect){0.123456789, 0.987654321, 0.111111111, 0.333333333};
    for (int i = 0; i < 64; i++) {
        snprintf(big_ids[i], sizeof big_ids[i], "p%d", i);
        big[i] = (pg_page){.id = big_ids[i], .exclusion_zones = big_zones, .exclusion_zone_count = 16};
    }
    CHECK(pg_create(c, "big", big, 64, NULL) == 0 && errno == EMSGSIZE, "a line over 64 KiB was queued");
    CHECK(strstr(pg_client_last_error(c), "65536"), "last error: %s", pg_client_last_error(c));
    CHECK(pg_client_queued_bytes(c) == 0, "%zu bytes queued after the refusals", pg_client_queued_bytes(c));
    CHECK(r.downs == 0, "disconnected: %s", r.reason ? r.reason : "");
out:
    json_object_put(stack);
    json_object_put(status);
    pg_client_free(c);
    if (failures)
        show_log(&d);
    daemon_stop(&d);
    rec_clear(&r);
#undef SENT
}

/* ---- tests: the outgoing queue's bound ------------------------------------ */

static void test_queue_bound(void)
{
    char dir[PATH_MAX];
    test_dir(dir, "queue");
    daemon_t d;
    rec r;
    rec_init(&r, "c-queue");
    pg_client *c = NULL;
    uint64_t *ids = NULL;
    REQUIRE(daemon_start(&d, dir, false), "the daemon did not start");
    c = client_new(&r, d.sock, NULL);
    REQUIRE(c && wait_up(c, &r, 5000), "no connection");
    pg_page root = {.id = "root"};
    const reply_rec *rr = await(c, &r, pg_create(c, "main", &root, 1, NULL));
    REQUIRE(rr && rr->ok, "create failed");
    size_t before = r.n_replies;

    /* Far more than the daemon lets a client have unanswered (64) and than the
     * queue takes, without dispatching in between. */
    size_t cap = 20000, n = 0;
    ids = calloc(cap, sizeof *ids);
    uint64_t id;
    while (n < cap && (id = pg_settle(c, "main")) != 0)
        ids[n++] = id;
    CHECK(n < cap, "the queue took %zu requests", n);
    CHECK(errno == ENOBUFS, "errno %d, not ENOBUFS", errno);
    CHECK(strstr(pg_client_last_error(c), "queue is full"), "last error: %s", pg_client_last_error(c));
    CHECK(pg_client_queued_bytes(c) <= PG_DEFAULT_MAX_QUEUE_BYTES, "%zu bytes queued", pg_client_queued_bytes(c));
    CHECK(pg_client_queued_bytes(c) > PG_DEFAULT_MAX_QUEUE_BYTES - 100, "only %zu bytes queued",
          pg_client_queued_bytes(c));
    CHECK(n > 1000, "only %zu requests fit", n);
    fprintf(stderr, "  queue: %zu requests (%zu bytes) taken, then ENOBUFS: %s\n", n, pg_client_queued_bytes(c),
            pg_client_last_error(c));

    rr = await(c, &r, ids[n - 1]);
    REQUIRE(rr, "the last request got no reply (%zu of %zu replies)", r.n_replies - before, n);
    CHECK(r.n_replies - before == n, "%zu replies to %zu requests", r.n_replies - before, n);
    size_t bad = 0;
    for (size_t i = 0; i < n && before + i < r.n_replies; i++)
        if (r.replies[before + i].id != ids[i] || !r.replies[before + i].ok)
            bad++;
    CHECK(bad == 0, "%zu replies out of order or failed", bad);
    CHECK(r.downs == 0, "the daemon dropped us: %s", r.reason ? r.reason : "");
    CHECK(pg_client_queued_bytes(c) == 0, "%zu bytes still queued", pg_client_queued_bytes(c));
    rr = await(c, &r, pg_settle(c, "main"));
    CHECK(rr && rr->ok, "a request after the queue drained failed");
out:
    free(ids);
    pg_client_free(c);
    daemon_stop(&d);
    rec_clear(&r);
}

/* ---- tests: focus ------------------------------------------------------------ */

static bool has_two_focus_events(void *arg)
{
    rec *r = arg;
    int n = 0;
    for (size_t i = 0; i < r->n_events; i++)
        n += strncmp(r->events[i], "focus-changed", 13) == 0;
    return n >= 2;
}

static void test_focus(void)
{
    char dir[PATH_MAX];
    test_dir(dir, "focus");
    daemon_t d;
    rec ra, rb;
    rec_init(&ra, "c-app");
    rec_init(&rb, "c-observer");
    pg_client *a = NULL, *b = NULL;
    json_object *stack = NULL;
    REQUIRE(daemon_start(&d, dir, false), "the daemon did not start");
    a = client_new(&ra, d.sock, "org.example.app");
    b = client_new(&rb, d.sock, NULL);
    REQUIRE(a && b && wait_up(a, &ra, 5000) && wait_up(b, &rb, 5000), "no connection");
    pg_page pages[] = {{.id = "home"}, {.id = "detail"}};
    const reply_rec *rr = await(a, &ra, pg_create(a, "main", pages, 2, NULL));
    REQUIRE(rr && rr->ok, "create failed");
    rr = await(b, &rb, pg_subscribe(b));
    REQUIRE(rr && rr->ok, "subscribe failed");

    rr = await(a, &ra, pg_focus(a, false));
    CHECK(rr && rr->ok, "focus false: %s", rr ? rr->code : "no reply");
    stack = raw_query(d.sock, "{\"type\":\"stack\",\"navigator\":\"main\"");
    REQUIRE(stack, "no stack reply");
    CHECK(!jbool(stack, "front"), "main still in front after focus false");
    json_object_put(stack);

    rr = await(a, &ra, pg_focus(a, true));
    CHECK(rr && rr->ok, "focus true: %s", rr ? rr->code : "no reply");
    stack = raw_query(d.sock, "{\"type\":\"stack\",\"navigator\":\"main\"");
    REQUIRE(stack, "no stack reply");
    CHECK(jbool(stack, "front"), "main not in front after focus true");

    pg_client *both[2] = {a, b};
    rec *rs[2] = {&ra, &rb};
    CHECK(pump(both, rs, 2, 5000, has_two_focus_events, &rb), "the observer saw %zu events", rb.n_events);
    /* focus-changed: none in front while the app is unfocused, then main. */
    const char *first = NULL, *second = NULL;
    for (size_t i = 0; i < rb.n_events; i++) {
        if (strncmp(rb.events[i], "focus-changed", 13) != 0)
            continue;
        if (!first)
            first = rb.events[i];
        else if (!second)
            second = rb.events[i];
    }
    CHECK(first && strcmp(first, "focus-changed clients - 0 -") == 0, "first: %s", first ? first : "none");
    CHECK(second && strcmp(second, "focus-changed clients - 0 main") == 0, "second: %s", second ? second : "none");
    CHECK(!has_event_prefix(&ra, "focus-changed"), "a non-observer got focus-changed");
out:
    json_object_put(stack);
    pg_client_free(a);
    pg_client_free(b);
    daemon_stop(&d);
    rec_clear(&ra);
    rec_clear(&rb);
}

/* ---- tests: reconnect after the daemon restarts ----------------------------- */

struct reconnected {
    rec *r;
    uint64_t id;
};
static bool reconnected_and_answered(void *arg)
{
    struct reconnected *w = arg;
    return w->r->connected && find_reply(w->r, w->id);
}

static void test_reconnect(void)
{
    char dir[PATH_MAX];
    test_dir(dir, "reconnect");
    daemon_t d;
    rec r;
    rec_init(&r, "c-reconnect");
    pg_client *c = NULL;
    json_object *stack = NULL, *status = NULL;
    REQUIRE(daemon_start(&d, dir, false), "the daemon did not start");
    c = client_new(&r, d.sock, "org.example.reconnect");
    REQUIRE(c && wait_up(c, &r, 5000), "no connection");
    int first_fd = pg_client_fd(c);

    pg_page pages[] = {{.id = "home"}, {.id = "detail"}};
    pg_rect zone = {0, 0, 0.5, 0.25};
    pg_page photo = {.id = "photo", .prefers_bar_hidden = true, .exclusion_zones = &zone, .exclusion_zone_count = 1};
    pg_page side_root = {.id = "a"};
    pg_navigator_settings rtl = {.layout = PG_LAYOUT_RTL, .bar = PG_BAR_INDEPENDENT};
    uint64_t ids[] = {
        pg_create(c, "main", pages, 2, NULL),
        pg_push(c, "main", &photo, false),
        pg_create(c, "side", &side_root, 1, &rtl),
        pg_front(c, "main"),
        pg_focus(c, false),
        pg_subscribe(c),
    };
    const reply_rec *rr = await(c, &r, ids[5]);
    REQUIRE(rr, "no replies");
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        rr = find_reply(&r, ids[i]);
        CHECK(rr && rr->ok, "request %zu: %s", i, rr ? rr->code : "no reply");
    }

    daemon_stop(&d);
    pg_client *cs[1] = {c};
    rec *rs[1] = {&r};
    REQUIRE(pump(cs, rs, 1, 5000, is_down, &r), "the drop was not reported");
    CHECK(r.reason && strstr(r.reason, "closed"), "reason: %s", r.reason ? r.reason : "");
    CHECK(r.saw_watch_minus_one, "on_watch never said -1");
    CHECK(pg_client_fd(c) == -1, "fd %d while disconnected", pg_client_fd(c));
    CHECK(pg_client_next_timeout_ms(c) >= 0, "no reconnect timer");
    CHECK(pg_client_protocol_version(c) == 0, "a version while disconnected");

    /* Made while the daemon is away: queued, sent after the new hello. */
    pg_page extra = {.id = "extra"};
    uint64_t extra_id = pg_push(c, "main", &extra, false);
    CHECK(extra_id != 0, "a request while disconnected was refused: %s", pg_client_last_error(c));
    pump(cs, rs, 1, 700, NULL, NULL); /* a few failed attempts: ENOENT */
    CHECK(r.downs == 1, "%d down reports for one outage", r.downs);

    uint64_t restarted = now_ms();
    REQUIRE(daemon_start(&d, dir, false), "the daemon did not start again");
    struct reconnected w = {&r, extra_id};
    REQUIRE(pump(cs, rs, 1, 15000, reconnected_and_answered, &w), "no reconnect within 15 s (%s)", r.reports);
    uint64_t took = now_ms() - restarted;
    fprintf(stderr, "  reconnect: connected and answered %llu ms after the daemon came back\n",
            (unsigned long long)took);
    CHECK(took < 6000, "took %llu ms; the backoff is at most 5 s", (unsigned long long)took);
    CHECK(strcmp(r.reports, "UDU") == 0, "reports: %s", r.reports);
    rr = find_reply(&r, extra_id);
    CHECK(rr && rr->ok, "the queued push: %s", rr ? rr->code : "no reply");
    CHECK(pg_client_fd(c) >= 0 && r.watch_fd == pg_client_fd(c), "watch fd %d, fd %d", r.watch_fd,
          pg_client_fd(c));
    (void)first_fd;

    /* The new daemon has the navigators, their stacks, the focus report and the
     * subscription, from the library's record; checked over a second connection. */
    stack = raw_query(d.sock, "{\"type\":\"stack\",\"navigator\":\"main\"");
    REQUIRE(stack, "no stack reply for main");
    char pages_text[256];
    stack_pages(stack, pages_text, sizeof pages_text);
    CHECK(strcmp(pages_text, "home detail photo extra") == 0, "main: %s", pages_text);
    CHECK(!jbool(stack, "front"), "main in front although the app said it has no focus");
    int64_t owner = 0;
    json_object *v;
    if (json_object_object_get_ex(stack, "owner", &v))
        owner = json_object_get_int64(v);
    json_object_put(stack);
    stack = raw_query(d.sock, "{\"type\":\"stack\",\"navigator\":\"side\"");
    stack_pages(stack, pages_text, sizeof pages_text);
    CHECK(strcmp(pages_text, "a") == 0, "side: %s", pages_text);
    status = raw_query(d.sock, "{\"type\":\"status\"");
    REQUIRE(status, "no status");
    const char *text = json_object_to_json_string_ext(status, JSON_C_TO_STRING_PLAIN);
    char expect[128];
    snprintf(expect, sizeof expect, "\"client\":%lld,\"name\":\"c-reconnect\"", (long long)owner);
    CHECK(strstr(text, expect), "status lacks %s: %s", expect, text);
    CHECK(strstr(text, "\"observer\":true"), "the subscription was not re-sent: %s", text);

    /* Focus again: main comes to the front (it was created after side in the
     * record's front order, since `front main` came last). */
    rr = await(c, &r, pg_focus(c, true));
    CHECK(rr && rr->ok, "focus: %s", rr ? rr->code : "no reply");
    json_object_put(stack);
    stack = raw_query(d.sock, "{\"type\":\"stack\",\"navigator\":\"main\"");
    CHECK(jbool(stack, "front"), "main is not in front after focus");
    json_object_put(stack);
    stack = raw_query(d.sock, "{\"type\":\"stack\",\"navigator\":\"side\"");
    CHECK(stack && !jbool(stack, "front"), "side is in front");
out:
    json_object_put(stack);
    json_object_put(status);
    pg_client_free(c);
    if (failures)
        show_log(&d);
    daemon_stop(&d);
    rec_clear(&r);
}

/* ---- tests: a fake server: the line bound and version negotiation ---------- */

static int listen_on(const char *path)
{
    unlink(path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    join(a.sun_path, sizeof a.sun_path, path, "");
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 4) != 0)
        return -1;
    return fd;
}

/* Reads one line (blocking), into a static buffer. NULL at EOF. */
static char *read_line(int fd)
{
    static char line[1 << 16];
    size_t n = 0;
    while (n < sizeof line - 1) {
        char ch;
        ssize_t got = read(fd, &ch, 1);
        if (got <= 0)
            return NULL;
        if (ch == '\n')
            break;
        line[n++] = ch;
    }
    line[n] = '\0';
    return line;
}

static bool write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        len -= (size_t)n;
    }
    return true;
}

#define FAKE_FAIL(...)                                                                              \
    do {                                                                                            \
        fprintf(stderr, "fake server: " __VA_ARGS__);                                               \
        fputc('\n', stderr);                                                                        \
        _exit(1);                                                                                   \
    } while (0)

/* Checks a hello line and returns its id. */
static int64_t fake_hello(int fd)
{
    char *line = read_line(fd);
    if (!line)
        FAKE_FAIL("no hello");
    json_object *hello = json_tokener_parse(line);
    json_object *v;
    if (!hello || strcmp(jstr(hello, "type") ? jstr(hello, "type") : "", "hello") != 0)
        FAKE_FAIL("first line is not hello: %s", line);
    if (!json_object_object_get_ex(hello, "version", &v) || json_object_get_int(v) != 1)
        FAKE_FAIL("hello without version 1: %s", line);
    if (!json_object_object_get_ex(hello, "versions", &v) || json_object_array_length(v) != 1 ||
        json_object_get_int(json_object_array_get_idx(v, 0)) != 1)
        FAKE_FAIL("hello without versions [1]: %s", line);
    if (!jstr(hello, "app") || strcmp(jstr(hello, "app"), "org.example.fake") != 0 || !jstr(hello, "name") ||
        strcmp(jstr(hello, "name"), "c-fake") != 0)
        FAKE_FAIL("hello without our app and name: %s", line);
    int64_t id = json_object_object_get_ex(hello, "id", &v) ? json_object_get_int64(v) : -1;
    json_object_put(hello);
    return id;
}

/* Connection 1 refuses the version; connection 2 sends a 2 MiB line after hello;
 * connection 3 sends a 900 KiB line (under the bound) and answers requests. */
/* A fake server's exit status, waiting 5 s for it to end by itself, then killing it. */
static int reap_fake_server(pid_t pid)
{
    int status = 0;
    uint64_t end = now_ms() + 5000;
    while (waitpid(pid, &status, WNOHANG) == 0 && now_ms() < end)
        sleep_ms(10);
    if (now_ms() >= end) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    return status;
}

static void fake_server(int lfd)
{
    char buf[512];
    /* 1 */
    int fd = accept(lfd, NULL, NULL);
    int64_t id = fake_hello(fd);
    int n = snprintf(buf, sizeof buf,
                     "{\"type\":\"error\",\"code\":\"unsupported-version\",\"message\":\"protocol version 1 is not "
                     "supported; supported: 7\",\"request\":\"hello\",\"supported\":[7],\"id\":%lld}\n",
                     (long long)id);
    write_all(fd, buf, (size_t)n);
    while (read_line(fd)) { /* until the client hangs up */
    }
    close(fd);
    /* 2 */
    fd = accept(lfd, NULL, NULL);
    id = fake_hello(fd);
    n = snprintf(buf, sizeof buf, "{\"type\":\"hello\",\"version\":1,\"server\":\"fake\",\"client\":2,\"id\":%lld}\n",
                 (long long)id);
    write_all(fd, buf, (size_t)n);
    size_t big = (size_t)2 << 20;
    char *line = malloc(big + 64);
    if (!line)
        FAKE_FAIL("out of memory");
    n = snprintf(line, 64, "{\"type\":\"x-huge\",\"data\":\"");
    memset(line + n, 'a', big);
    memcpy(line + n + big, "\"}\n", 3);
    write_all(fd, line, (size_t)n + big + 3); /* fails part-way once the client hangs up */
    while (read_line(fd)) {
    }
    close(fd);
    /* 3 */
    fd = accept(lfd, NULL, NULL);
    id = fake_hello(fd);
    n = snprintf(buf, sizeof buf, "{\"type\":\"hello\",\"version\":1,\"server\":\"fake\",\"client\":3,\"id\":%lld}\n",
                 (long long)id);
    write_all(fd, buf, (size_t)n);
    size_t under = (size_t)900 << 10;
    n = snprintf(line, 64, "{\"type\":\"x-big\",\"data\":\"");
    memset(line + n, 'b', under);
    memcpy(line + n + under, "\"}\n", 3);
    if (!write_all(fd, line, (size_t)n + under + 3))
        FAKE_FAIL("the 900 KiB line was not read");
    free(line);
    char *request;
    while ((request = read_line(fd))) {
        json_object *obj = json_tokener_parse(request);
        json_object *v;
        if (!obj || !json_object_object_get_ex(obj, "id", &v))
            FAKE_FAIL("request without id: %s", request);
        n = snprintf(buf, sizeof buf, "{\"type\":\"ok\",\"request\":\"%s\",\"id\":%lld}\n", jstr(obj, "type"),
                     (long long)json_object_get_int64(v));
        json_object_put(obj);
        write_all(fd, buf, (size_t)n);
    }
    close(fd);
    _exit(0);
}

struct fake_progress {
    rec *r;
    uint64_t id;
};
static bool fake_done(void *arg)
{
    struct fake_progress *w = arg;
    return w->r->ups >= 2 && w->id && find_reply(w->r, w->id);
}
static bool third_up_and_big(void *arg)
{
    rec *r = arg;
    return r->ups >= 2 && r->event_type && strcmp(r->event_type, "x-big") == 0;
}

/* Forks `server` on a socket of its own in the test folder `name`, and makes a client
 * of it recording into `r`. NULL when either fails; the server's pid (or -1) in *pid. */
static pg_client *client_of_fake(const char *name, void (*server)(int lfd), rec *r, pid_t *pid)
{
    char dir[PATH_MAX], sock[PATH_MAX];
    test_dir(dir, name);
    join(sock, sizeof sock, dir, "/fake.sock");
    *pid = -1;
    int lfd = listen_on(sock);
    if (lfd < 0)
        return NULL;
    *pid = fork();
    if (*pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        server(lfd);
    }
    close(lfd);
    if (*pid < 0)
        return NULL;
    pg_options o = {.socket_path = sock, .app_id = "org.example.fake", .name = "c-fake",
                    .callbacks = &callbacks, .user_data = r};
    pg_client *c = pg_client_new(&o);
    if (c)
        r->watch_fd = pg_client_fd(c);
    return c;
}

static void test_line_bound(void)
{
    rec r;
    rec_init(&r, "c-fake");
    pid_t pid;
    pg_client *c = client_of_fake("fake", fake_server, &r, &pid);
    REQUIRE(c, "a fake server and a client of it");
    pg_client *cs[1] = {c};
    rec *rs[1] = {&r};
    uint64_t started = now_ms();
    REQUIRE(pump(cs, rs, 1, 10000, third_up_and_big, &r), "reports %s, last reason %s", r.reports,
            r.reason ? r.reason : "");
    uint64_t took = now_ms() - started;
    /* refused version (down), hello (up), the 2 MiB line (down), hello (up) */
    CHECK(strcmp(r.reports, "DUDU") == 0, "reports: %s", r.reports);
    CHECK(took < 3000, "three connections took %llu ms; the backoff starts at 100 ms", (unsigned long long)took);
    CHECK(r.event_json_len > (size_t)900 << 10, "the 900 KiB line arrived as %zu bytes", r.event_json_len);
    CHECK(!has_event_prefix(&r, "event x-huge"), "the 2 MiB line was delivered");
    CHECK(r.reason && strstr(r.reason, "passed 1048576 bytes"), "reason: %s", r.reason ? r.reason : "");
    /* The first reason is gone from r.reason; it was in the first report. */
    struct fake_progress w = {&r, pg_settle(c, "main")};
    CHECK(pump(cs, rs, 1, 5000, fake_done, &w), "no reply from the fake server");
    fprintf(stderr, "  line bound: %s in %llu ms\n", r.reports, (unsigned long long)took);
out:
    pg_client_free(c);
    if (pid > 0) {
        int status = reap_fake_server(pid);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the fake server failed (status %d)", status);
    }
    rec_clear(&r);
}

/* The first report's reason, for the refused version: a separate short run. */
static void test_version_refused(void)
{
    rec r;
    rec_init(&r, "c-fake");
    pid_t pid;
    /* Only the fake server's first connection matters here. */
    pg_client *c = client_of_fake("version", fake_server, &r, &pid);
    REQUIRE(c, "a fake server and a client of it");
    pg_client *cs[1] = {c};
    rec *rs[1] = {&r};
    REQUIRE(pump(cs, rs, 1, 5000, is_down, &r), "no report");
    CHECK(r.reason && strstr(r.reason, "unsupported-version") && strstr(r.reason, "[7]"), "reason: %s",
          r.reason ? r.reason : "");
    CHECK(!pg_client_connected(c) && pg_client_protocol_version(c) == 0, "connected after a refused hello");
out:
    pg_client_free(c);
    if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
    rec_clear(&r);
}

/* ---- tests: a user switch (issue 28): paused and resumed, one connection ------ */

/* Says hello, then "paused"; after the client's settle is answered (so the client has
 * read the pause), "resumed"; then answers what comes until the client hangs up. */
static void fake_user_switch(int lfd)
{
    char buf[512];
    int fd = accept(lfd, NULL, NULL);
    int64_t id = fake_hello(fd);
    int n = snprintf(buf, sizeof buf, "{\"type\":\"hello\",\"version\":1,\"server\":\"fake\",\"client\":1,\"id\":%lld}\n"
                     "{\"type\":\"paused\",\"reason\":\"uid 1000 is not the active user of a seat now\"}\n",
                     (long long)id);
    write_all(fd, buf, (size_t)n);
    char *request;
    bool resumed = false;
    while ((request = read_line(fd))) {
        json_object *obj = json_tokener_parse(request);
        json_object *v;
        if (!obj || !json_object_object_get_ex(obj, "id", &v))
            FAKE_FAIL("request without id: %s", request);
        n = snprintf(buf, sizeof buf, "{\"type\":\"ok\",\"request\":\"%s\",\"id\":%lld}\n%s", jstr(obj, "type"),
                     (long long)json_object_get_int64(v), resumed ? "" : "{\"type\":\"resumed\"}\n");
        resumed = true;
        json_object_put(obj);
        write_all(fd, buf, (size_t)n);
    }
    close(fd);
    /* The client hung up when freed: it must not have connected again before, as it never left. */
    struct pollfd again = {.fd = lfd, .events = POLLIN};
    if (poll(&again, 1, 0) > 0)
        FAKE_FAIL("the client connected again");
    _exit(0);
}

static bool is_paused_event(void *arg)
{
    rec *r = arg;
    return r->event_type && strcmp(r->event_type, "paused") == 0;
}
static bool is_resumed_event(void *arg)
{
    rec *r = arg;
    return r->event_type && strcmp(r->event_type, "resumed") == 0;
}

static void test_user_switch(void)
{
    rec r;
    rec_init(&r, "c-fake");
    pid_t pid;
    pg_client *c = client_of_fake("switch", fake_user_switch, &r, &pid);
    REQUIRE(c, "a fake server and a client of it");
    pg_client *cs[1] = {c};
    rec *rs[1] = {&r};
    REQUIRE(pump(cs, rs, 1, 5000, is_paused_event, &r), "no paused event");
    CHECK(pg_client_paused(c) && pg_client_connected(c), "paused %d, connected %d", pg_client_paused(c),
          pg_client_connected(c));
    pg_settle(c, "main");
    REQUIRE(pump(cs, rs, 1, 5000, is_resumed_event, &r), "no resumed event");
    CHECK(!pg_client_paused(c) && pg_client_connected(c), "still paused after resumed");
    CHECK(r.ups == 1 && r.downs == 0, "the connection went down: ups %d, downs %d", r.ups, r.downs);
out:
    pg_client_free(c);
    if (pid > 0) {
        int status = reap_fake_server(pid);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the fake server failed (status %d)", status);
    }
    rec_clear(&r);
}

/* ---- tests: a daemon that does not read for a while: partial writes --------- */

/* Says hello, reads nothing for 500 ms, then answers every line; each line must be
 * whole JSON, with ids one after the other. */
static void fake_slow_reader(int lfd, int expected)
{
    int fd = accept(lfd, NULL, NULL);
    int64_t id = fake_hello(fd);
    char buf[256];
    int n = snprintf(buf, sizeof buf, "{\"type\":\"hello\",\"version\":1,\"server\":\"slow\",\"client\":1,\"id\":%lld}\n",
                     (long long)id);
    write_all(fd, buf, (size_t)n);
    sleep_ms(500);
    FILE *in = fdopen(dup(fd), "r");
    char *line = NULL;
    size_t cap = 0;
    int64_t last = -1;
    int seen = 0;
    while (getline(&line, &cap, in) > 0) {
        json_object *obj = json_tokener_parse(line);
        json_object *v;
        if (!obj || !json_object_object_get_ex(obj, "id", &v))
            FAKE_FAIL("not a whole request: %.80s", line);
        int64_t got = json_object_get_int64(v);
        if (last >= 0 && got != last + 1)
            FAKE_FAIL("id %lld after %lld", (long long)got, (long long)last);
        last = got;
        n = snprintf(buf, sizeof buf, "{\"type\":\"ok\",\"request\":\"create\",\"id\":%lld}\n", (long long)got);
        json_object_put(obj);
        write_all(fd, buf, (size_t)n);
        seen++;
    }
    free(line);
    fclose(in);
    close(fd);
    if (seen != expected)
        FAKE_FAIL("%d requests, not %d", seen, expected);
    _exit(0);
}

static bool all_answered(void *arg)
{
    struct want_reply *w = arg;
    return w->r->n_replies >= w->id;
}

static void test_backpressure(void)
{
    enum { REQUESTS = 12 };
    char dir[PATH_MAX], sock[PATH_MAX];
    test_dir(dir, "backpressure");
    join(sock, sizeof sock, dir, "/slow.sock");
    rec r;
    rec_init(&r, "c-fake");
    pg_client *c = NULL;
    int lfd = listen_on(sock);
    pid_t pid = -1;
    REQUIRE(lfd >= 0, "cannot listen");
    pid = fork();
    REQUIRE(pid >= 0, "fork");
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        fake_slow_reader(lfd, REQUESTS);
    }
    close(lfd);
    pg_options o = {.socket_path = sock, .app_id = "org.example.fake", .name = "c-fake",
                    .callbacks = &callbacks, .user_data = &r, .max_queue_bytes = (size_t)4 << 20};
    c = pg_client_new(&o);
    REQUIRE(c, "pg_client_new");
    r.watch_fd = pg_client_fd(c);
    r.watch_events = pg_client_events(c);
    REQUIRE(wait_up(c, &r, 5000), "no hello");
    /* Requests of about 40 KB each: 64 pages of 250-byte ids with 8 zones. */
    static char page_ids[64][251];
    static pg_page pages[64];
    static pg_rect zones[8];
    for (int i = 0; i < 8; i++)
        zones[i] = (pg_rect){0.123456789, 0.25, 0.987654321, 0.5};
    for (int i = 0; i < 64; i++) {
        memset(page_ids[i], 'a' + i % 26, 250);
        page_ids[i][0] = (char)('A' + i % 26);
        page_ids[i][1] = (char)('A' + i / 26);
        page_ids[i][250] = '\0';
        pages[i] = (pg_page){.id = page_ids[i], .exclusion_zones = zones, .exclusion_zone_count = 8};
    }
    uint64_t ids[REQUESTS];
    for (int i = 0; i < REQUESTS; i++) {
        char nav[16];
        snprintf(nav, sizeof nav, "n%d", i % 100);
        ids[i] = pg_create(c, nav, pages, 64, NULL);
        CHECK(ids[i] != 0, "request %d: %s", i, pg_client_last_error(c));
    }
    size_t queued = pg_client_queued_bytes(c);
    CHECK(queued > (size_t)400 << 10, "only %zu bytes queued", queued);
    /* Without a dispatch in between, the socket took part: on_watch asked for POLLOUT. */
    CHECK(r.saw_pollout && (r.watch_events & POLLOUT), "on_watch never asked for POLLOUT");
    CHECK(pg_client_events(c) & POLLOUT, "POLLOUT not wanted with %zu bytes queued", queued);
    struct want_reply w = {&r, REQUESTS};
    pg_client *cs[1] = {c};
    rec *rs[1] = {&r};
    CHECK(pump(cs, rs, 1, 10000, all_answered, &w), "%zu of %d replies", r.n_replies, REQUESTS);
    for (size_t i = 0; i < r.n_replies; i++)
        CHECK(r.replies[i].ok && i < REQUESTS && r.replies[i].id == ids[i], "reply %zu: id %llu", i,
              (unsigned long long)r.replies[i].id);
    CHECK(pg_client_events(c) == POLLIN && r.watch_events == POLLIN, "still wanting POLLOUT");
    CHECK(pg_client_queued_bytes(c) == 0, "%zu bytes left", pg_client_queued_bytes(c));
    fprintf(stderr, "  backpressure: %zu bytes queued behind a full socket, all answered\n", queued);
out:
    pg_client_free(c);
    if (pid > 0) {
        int status = reap_fake_server(pid);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the fake server failed (status %d)", status);
    }
    rec_clear(&r);
}

/* ---- tests: a real gesture from popgestured-demo ----------------------------- */

static bool has_back(void *arg)
{
    return has_event_prefix(arg, "back ");
}

static bool demo_navigator_exists(const char *sock)
{
    json_object *status = raw_query(sock, "{\"type\":\"status\"");
    bool ok = status && strstr(json_object_to_json_string(status), "\"navigator\":\"demo\"");
    json_object_put(status);
    return ok;
}

static bool pushed_again_answered(void *arg)
{
    rec *r = arg;
    for (size_t i = 0; i < r->n_events; i++) {
        unsigned long long id;
        if (sscanf(r->events[i], "pushed-again %llu", &id) == 1 && id && find_reply(r, id))
            return true;
    }
    return false;
}

/* The README's example against the same demo: its first line is the back. */
static void run_poll_example(const char *sock)
{
    const char *example = getenv("POLL_EXAMPLE");
    if (!example || !*example) {
        fprintf(stderr, "  (POLL_EXAMPLE not set: the README example is not run)\n");
        return;
    }
    int out[2];
    if (pipe(out) != 0)
        return;
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        dup2(out[1], 1);
        close(out[0]);
        close(out[1]);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 2);
        setenv("POPGESTURED_SOCKET", sock, 1);
        execl(example, example, (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    char line[256] = "";
    size_t n = 0;
    uint64_t end = now_ms() + 40000;
    while (now_ms() < end && n < sizeof line - 1) {
        struct pollfd p = {out[0], POLLIN, 0};
        if (poll(&p, 1, 200) <= 0)
            continue;
        ssize_t got = read(out[0], line + n, 1);
        if (got <= 0 || line[n] == '\n')
            break;
        n++;
    }
    line[n] = '\0';
    close(out[0]);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    CHECK(strcmp(line, "back: detail -> home") == 0, "the poll example printed \"%s\"", line);
}

static void test_gesture(void)
{
    char dir[PATH_MAX];
    test_dir(dir, "gesture");
    daemon_t d;
    rec r;
    rec_init(&r, "c-gesture");
    r.push_again_on_back = true;
    pg_client *c = NULL;
    json_object *status = NULL;
    REQUIRE(daemon_start(&d, dir, true), "popgestured-demo did not start");
    /* Ours must come after the demo's own navigator to be in front. */
    uint64_t end = now_ms() + 10000;
    while (!demo_navigator_exists(d.sock) && now_ms() < end)
        sleep_ms(50);
    status = raw_query(d.sock, "{\"type\":\"status\"");
    REQUIRE(status, "no status from the demo");
    const char *text = json_object_to_json_string(status);
    if (strstr(text, "\"kind\":\"touchscreen\"") && !strstr(text, "(virtual)")) {
        fprintf(stderr, "  SKIP gesture: a real touchscreen is present, so the demo waits for a finger\n");
        goto out;
    }
    c = client_new(&r, d.sock, "org.example.gesture");
    REQUIRE(c && wait_up(c, &r, 5000), "no connection");
    pg_page pages[] = {{.id = "home"}, {.id = "detail"}};
    const reply_rec *rr = await(c, &r, pg_create(c, "main", pages, 2, NULL));
    REQUIRE(rr && rr->ok, "create: %s", rr ? rr->code : "no reply");
    size_t from = r.n_events;

    pg_client *cs[1] = {c};
    rec *rs[1] = {&r};
    REQUIRE(pump(cs, rs, 1, 40000, has_back, &r), "no back within 40 s (%zu events)", r.n_events - from);
    CHECK(pump(cs, rs, 1, 5000, pushed_again_answered, &r), "the push from on_back got no reply");

    /* The committed gesture: the last pop-began before the back, then only
     * pop-progress, then pop-finished, then back, then the bar. */
    size_t back = from;
    while (back < r.n_events && strncmp(r.events[back], "back ", 5) != 0)
        back++;
    size_t began = back;
    while (began > from && strncmp(r.events[began], "pop-began ", 10) != 0)
        began--;
    REQUIRE(strncmp(r.events[began], "pop-began main detail ", 22) == 0, "no pop-began before the back: %s",
            r.events[began]);
    size_t progresses = 0;
    double last = 0;
    sscanf(r.events[began], "pop-began main detail %lf", &last);
    CHECK(last > 0 && last <= 1, "pop-began progress %f", last);
    size_t i = began + 1;
    for (; i < back && strncmp(r.events[i], "pop-progress main detail ", 25) == 0; i++) {
        double p = -1;
        sscanf(r.events[i], "pop-progress main detail %lf", &p);
        CHECK(p >= 0 && p <= 1, "progress %f", p);
        progresses++;
    }
    CHECK(progresses >= 1, "no pop-progress between pop-began and back");
    CHECK(i == back - 1 && strncmp(r.events[i], "pop-finished main detail ", 25) == 0,
          "expected pop-finished just before back, got: %s", r.events[i]);
    CHECK(strcmp(r.events[back], "back main detail home timed") == 0, "back: %s", r.events[back]);
    size_t after = back + 1; /* the test's own note of the push it made in on_back aside */
    while (after < r.n_events && strncmp(r.events[after], "pushed-again ", 13) == 0)
        after++;
    CHECK(after < r.n_events && strcmp(r.events[after], "bar main home shown") == 0, "after back: %s",
          after < r.n_events ? r.events[after] : "nothing");
    for (size_t k = began; k <= back; k++)
        CHECK(strncmp(r.events[k], "pop-cancelled", 13) != 0, "cancelled inside a committed gesture");
    fprintf(stderr, "  gesture: pop-began, %zu pop-progress, %s, %s\n", progresses, r.events[back - 1],
            r.events[back]);

    /* The record popped too: the stack the daemon has is home, detail (pushed again). */
    rr = await(c, &r, pg_stack(c, "main"));
    REQUIRE(rr && rr->ok, "stack");
    CHECK(strstr(rr->json, "\"pages\":[\"home\",\"detail\"]"), "stack: %s", rr->json);

    /* Its navigator goes with it, so that the example's "main" can be created. */
    pg_client_free(c);
    c = NULL;
    run_poll_example(d.sock);
out:
    json_object_put(status);
    pg_client_free(c);
    if (failures)
        show_log(&d);
    daemon_stop(&d);
    rec_clear(&r);
}

/* ---- tests: misuse ---------------------------------------------------------- */

static void test_misuse(void)
{
    char dir[PATH_MAX], sock[PATH_MAX];
    test_dir(dir, "misuse");
    join(sock, sizeof sock, dir, "/nobody.sock");
    rec r;
    rec_init(&r, "c-misuse");
    pg_client *c = NULL;

    errno = 0;
    CHECK(pg_client_new(NULL) == NULL && errno == EINVAL, "NULL options");
    char long_path[300];
    memset(long_path, 'x', sizeof long_path - 1);
    long_path[0] = '/';
    long_path[sizeof long_path - 1] = '\0';
    pg_options o = {.socket_path = long_path};
    CHECK(pg_client_new(&o) == NULL && errno == ENAMETOOLONG, "a 299-byte socket path");
    char long_app[300];
    memset(long_app, 'a', sizeof long_app - 1);
    long_app[sizeof long_app - 1] = '\0';
    o = (pg_options){.socket_path = sock, .app_id = long_app};
    CHECK(pg_client_new(&o) == NULL && errno == EINVAL, "a 299-byte app id");
    o = (pg_options){.socket_path = sock, .name = "bad\xfe"};
    CHECK(pg_client_new(&o) == NULL && errno == EINVAL, "a name not UTF-8");
    o = (pg_options){.socket_path = sock, .reconnect_min_ms = 500, .reconnect_max_ms = 100};
    CHECK(pg_client_new(&o) == NULL && errno == EINVAL, "min backoff over max");
    CHECK(pg_client_dispatch(NULL) == -1 && errno == EINVAL, "dispatch NULL");
    CHECK(pg_client_fd(NULL) == -1 && pg_client_events(NULL) == 0, "queries on NULL");
    pg_client_free(NULL);

    /* Nobody listening: not an error; one report however many attempts. */
    o = (pg_options){.socket_path = sock, .callbacks = &callbacks, .user_data = &r};
    r.dispatch_in_callback = true;
    c = pg_client_new(&o);
    REQUIRE(c, "pg_client_new without a daemon: %s", strerror(errno));
    r.watch_fd = pg_client_fd(c);
    CHECK(pg_client_fd(c) == -1, "an fd without a daemon");
    CHECK(pg_client_next_timeout_ms(c) == 0, "the failure is reported at the first dispatch");
    pg_client *cs[1] = {c};
    rec *rs[1] = {&r};
    pump(cs, rs, 1, 1000, NULL, NULL); /* attempts at 100, 300 and 700 ms */
    CHECK(r.downs == 1, "%d reports", r.downs);
    CHECK(r.reason && strstr(r.reason, "cannot connect") && strstr(r.reason, "No such file"), "reason: %s",
          r.reason ? r.reason : "");
    CHECK(r.dispatch_in_callback_result == -1 && r.dispatch_in_callback_errno == EBUSY,
          "dispatch inside a callback: %d (%s)", r.dispatch_in_callback_result,
          strerror(r.dispatch_in_callback_errno));
    int t = pg_client_next_timeout_ms(c);
    CHECK(t > 0 && t <= 800, "next timeout %d ms (backoff 800)", t);
    pg_page home = {.id = "home"};
    CHECK(pg_create(c, "main", &home, 1, NULL) != 0, "queued while disconnected");
    CHECK(pg_client_queued_bytes(c) > 0, "nothing queued");
    pg_client_free(c); /* with a request queued: no leak (ASan) */
    c = NULL;

    /* pg_client_free from inside a callback: freed when dispatch returns. */
    rec r2;
    rec_init(&r2, "c-free");
    r2.free_in_callback = true;
    o = (pg_options){.socket_path = sock, .callbacks = &callbacks, .user_data = &r2};
    pg_client *c2 = pg_client_new(&o);
    CHECK(c2 != NULL, "pg_client_new");
    if (c2) {
        CHECK(pg_client_dispatch(c2) == 0, "dispatch that frees");
        CHECK(r2.freed, "on_connection did not run");
    }
    rec_clear(&r2);
out:
    pg_client_free(c);
    rec_clear(&r);
}

/* A connected client freed with requests in flight, and events unread. */
static void test_free_busy(void)
{
    char dir[PATH_MAX];
    test_dir(dir, "free");
    daemon_t d;
    rec r;
    rec_init(&r, "c-free-busy");
    pg_client *c = NULL;
    REQUIRE(daemon_start(&d, dir, false), "the daemon did not start");
    c = client_new(&r, d.sock, NULL);
    REQUIRE(c && wait_up(c, &r, 5000), "no connection");
    pg_page pages[] = {{.id = "home"}, {.id = "detail"}};
    for (int i = 0; i < 100; i++) {
        char nav[16];
        snprintf(nav, sizeof nav, "n%d", i % 20);
        pg_create(c, nav, pages, 2, NULL);
    }
    sleep_ms(200);
    pg_client *cs[1] = {c};
    pump(cs, NULL, 1, 50, NULL, NULL);
out:
    pg_client_free(c);
    daemon_stop(&d);
    rec_clear(&r);
}

/* ---- main ------------------------------------------------------------------ */

static void remove_tree(const char *path)
{
    DIR *dir = opendir(path);
    if (dir) {
        struct dirent *e;
        while ((e = readdir(dir))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char child[PATH_MAX], sub[PATH_MAX];
            join(sub, sizeof sub, "/", e->d_name);
            join(child, sizeof child, path, sub);
            struct stat st;
            if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
                remove_tree(child);
            else
                unlink(child);
        }
        closedir(dir);
    }
    rmdir(path);
}

static const struct {
    const char *name;
    void (*run)(void);
} tests[] = {
    {"misuse", test_misuse},
    {"requests", test_requests},
    {"queue", test_queue_bound},
    {"focus", test_focus},
    {"reconnect", test_reconnect},
    {"version", test_version_refused},
    {"user-switch", test_user_switch},
    {"line-bound", test_line_bound},
    {"backpressure", test_backpressure},
    {"free", test_free_busy},
    {"gesture", test_gesture},
};

/* Qt and GTK apps call setlocale(LC_ALL, ""): under a decimal-comma locale, printf
 * writes 0,5. Run every test that way when such a locale exists or can be made. */
static void use_comma_locale(void)
{
    const char *name = "de_DE.UTF-8";
    if (!setlocale(LC_NUMERIC, name)) {
        char dir[PATH_MAX], cmd[PATH_MAX * 2];
        join(dir, sizeof dir, root, "/locale");
        mkdir(dir, 0700);
        int n = snprintf(cmd, sizeof cmd, "localedef -i de_DE -f UTF-8 '%s/%s' >/dev/null 2>&1", dir, name);
        if (n > 0 && (size_t)n < sizeof cmd && system(cmd) == 0) {
            setenv("LOCPATH", dir, 1);
            setlocale(LC_NUMERIC, name);
            unsetenv("LOCPATH"); /* loaded; the daemon and the example need none of it */
        }
    }
    char text[16];
    snprintf(text, sizeof text, "%.1f", 0.5);
    if (strcmp(text, "0,5") == 0)
        fprintf(stderr, "tests run with LC_NUMERIC=%s (0.5 prints as %s)\n", name, text);
    else
        fprintf(stderr, "note: no decimal-comma locale; tests run with LC_NUMERIC=C\n");
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN); /* the test's own raw sockets; the library needs none */
    const char *bin = getenv("POPGESTURED_BINARY");
    daemon_binary = bin && *bin ? bin : "../../.build/debug/popgestured";
    if (access(daemon_binary, X_OK) != 0) {
        fprintf(stderr, "test_popgesture: popgestured not found at %s (set POPGESTURED_BINARY)\n", daemon_binary);
        return 2;
    }
    const char *slash = strrchr(daemon_binary, '/');
    snprintf(demo_binary, sizeof demo_binary, "%.*spopgestured-demo", slash ? (int)(slash - daemon_binary + 1) : 0,
             daemon_binary);
    const char *tmp = getenv("TMPDIR");
    join(root, sizeof root, tmp && *tmp ? tmp : "/tmp", "/popgesture-c.XXXXXX");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 2;
    }
    use_comma_locale();
    int ran = 0;
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        bool wanted = argc < 2;
        for (int a = 1; a < argc; a++)
            wanted |= strcmp(argv[a], tests[i].name) == 0;
        if (!wanted)
            continue;
        current_test = tests[i].name;
        int before = failures;
        uint64_t t0 = now_ms();
        fprintf(stderr, "test %s\n", tests[i].name);
        tests[i].run();
        fprintf(stderr, "%s %s (%llu ms)\n", failures == before ? "ok  " : "FAIL", tests[i].name,
                (unsigned long long)(now_ms() - t0));
        ran++;
    }
    remove_tree(root);
    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    else
        fprintf(stderr, "all %d tests passed (popgestured: %s)\n", ran, daemon_binary);
    return failures ? 1 : 0;
}
