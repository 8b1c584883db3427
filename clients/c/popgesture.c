/*
 * libpopgesture: see popgesture.h for the interface and its rules.
 *
 * Inside: one non-blocking Unix stream socket; a read buffer bounded by
 * max_line_bytes + 1; two request queues (unsent, then in flight: written and
 * awaiting their reply); and a record of the navigators the daemon confirmed,
 * which is replayed after a reconnect. Every JSON text is parsed and built with
 * json-c.
 */
#include "popgesture.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <json.h>

/* The daemon disconnects a client with 64 requests awaiting their replies
 * (docs/PROTOCOL.md, "Limits"); the library keeps well under that. */
#define MAX_IN_FLIGHT 32
/* Longest app id, name, navigator or page id the daemon takes. */
#define MAX_ID_BYTES 256
/* Reads per dispatch at most; a level-triggered loop calls again for the rest. */
#define MAX_READS_PER_DISPATCH 64
#define READ_CHUNK 65536
#define REASON_BYTES 512

static const int supported_versions[] = {1};

enum kind {
    K_HELLO, K_CREATE, K_PUSH, K_POP, K_REPLACE, K_UPDATE, K_SETTLE, K_FRONT, K_REMOVE,
    K_CONFIGURE, K_FOCUS, K_SUBSCRIBE, K_UNSUBSCRIBE, K_STACK, K_STATUS
};

static const char *const kind_names[] = {
    "hello", "create", "push", "pop", "replace", "update", "settle", "front", "remove",
    "configure", "focus", "subscribe", "unsubscribe", "stack", "status"
};

struct request {
    struct request *next;
    uint64_t id;
    enum kind kind;
    bool internal; /* made by the library: hello, and the replay after a reconnect */
    size_t len;    /* of line, with its '\n' */
    char line[];   /* NUL-terminated */
};

struct queue {
    struct request *head, *tail;
    size_t count;
};

/* A navigator as the daemon confirmed it. The list's order is the front order:
 * the tail is the one most recently created or brought to the front. */
struct nav {
    struct nav *next;
    char *id;
    json_object *pages; /* array of page objects, as sent */
    char *layout;       /* "ltr", "rtl", or NULL: unset */
    int bar;            /* -1 unset, else barFollowsTopPage */
};

enum state { S_WAITING, S_CONNECTING, S_HELLO, S_READY };
enum report { R_UNKNOWN, R_UP, R_DOWN };

struct pg_client {
    /* options */
    char *socket_path, *app_id, *name;
    pg_callbacks cb;
    void *user;
    size_t max_line, max_queue;
    unsigned backoff_min, backoff_max;

    /* connection */
    enum state state;
    int fd;
    int version;
    uint64_t deadline_ms;  /* S_WAITING: reconnect at; S_CONNECTING/S_HELLO: give up at */
    unsigned backoff_ms;   /* the next wait after a failure */
    bool broken;           /* noticed outside dispatch; torn down by the next dispatch */
    char broken_reason[REASON_BYTES];
    char server_error[REASON_BYTES]; /* an error without id, said before a close */
    enum report reported;
    bool report_pending;   /* a failure in pg_client_new, reported at the first dispatch */
    char pending_reason[REASON_BYTES];
    int watch_fd;          /* what on_watch last said (or what pg_client_new left) */
    short watch_events;

    /* input */
    char *in;
    size_t in_len, in_cap, in_scanned;
    json_tokener *tok;

    /* output */
    struct queue unsent, in_flight;
    size_t write_offset;   /* into unsent.head */
    size_t queued_bytes;   /* user requests in both queues */
    uint64_t next_id;

    /* the record */
    struct nav *navs;
    int focus;             /* -1 never reported, else the last confirmed report */
    bool paused;           /* "paused" on this connection and no "resumed" yet (a user switch) */
    bool subscribed;

    /* dispatch */
    bool in_dispatch, free_requested;
    char last_error[REASON_BYTES];
};

/* ---- small helpers ------------------------------------------------------- */

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static char *dup_string(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static void format(char *buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, REASON_BYTES, fmt, ap);
    va_end(ap);
}

/* Well-formed UTF-8: no overlong forms, surrogates or code points past U+10FFFF. */
static bool valid_utf8(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        if (*p < 0x80) {
            p++;
            continue;
        }
        int n;
        uint32_t cp;
        if ((*p & 0xE0) == 0xC0) {
            n = 1;
            cp = *p & 0x1Fu;
        } else if ((*p & 0xF0) == 0xE0) {
            n = 2;
            cp = *p & 0x0Fu;
        } else if ((*p & 0xF8) == 0xF0) {
            n = 3;
            cp = *p & 0x07u;
        } else {
            return false;
        }
        for (int i = 1; i <= n; i++) {
            if ((p[i] & 0xC0) != 0x80) /* also stops at the NUL */
                return false;
            cp = (cp << 6) | (p[i] & 0x3Fu);
        }
        if ((n == 1 && cp < 0x80) || (n == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
            (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
            return false;
        p += n + 1;
    }
    return true;
}

static const char *get_string(json_object *obj, const char *key)
{
    json_object *v;
    if (!json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

static bool get_number(json_object *obj, const char *key, double *out)
{
    json_object *v;
    if (!json_object_object_get_ex(obj, key, &v))
        return false;
    if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
        return false;
    *out = json_object_get_double(v);
    return true;
}

static int64_t get_int64(json_object *obj, const char *key)
{
    json_object *v;
    if (!json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_int))
        return 0;
    return json_object_get_int64(v);
}

static bool get_bool(json_object *obj, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(obj, key, &v) && json_object_is_type(v, json_type_boolean) &&
           json_object_get_boolean(v);
}

/* ---- the watch ------------------------------------------------------------ */

PG_API int pg_client_fd(const pg_client *c)
{
    return c ? c->fd : -1;
}

static bool can_write_more(const pg_client *c)
{
    const struct request *r = c->unsent.head;
    if (!r || c->fd < 0 || c->broken)
        return false;
    if (c->state == S_HELLO && r->kind != K_HELLO)
        return false;
    if (c->state != S_HELLO && c->state != S_READY)
        return false;
    return c->write_offset > 0 || c->in_flight.count < MAX_IN_FLIGHT;
}


PG_API short pg_client_events(const pg_client *c)
{
    if (!c || c->fd < 0)
        return 0;
    if (c->state == S_CONNECTING)
        return POLLOUT;
    if (c->broken)
        return POLLIN | POLLOUT;
    return (short)(POLLIN | (can_write_more(c) ? POLLOUT : 0));
}

PG_API int pg_client_next_timeout_ms(const pg_client *c)
{
    if (!c)
        return -1;
    if (c->broken || c->report_pending)
        return 0;
    if (c->state == S_READY)
        return -1;
    uint64_t now = now_ms();
    if (c->deadline_ms <= now)
        return 0;
    uint64_t left = c->deadline_ms - now;
    return left > 60000 ? 60000 : (int)left;
}

/* Tells on_watch when the fd or the wanted events changed since it last spoke. */
static void update_watch(pg_client *c)
{
    int fd = c->fd;
    short events = pg_client_events(c);
    if (fd == c->watch_fd && events == c->watch_events)
        return;
    c->watch_fd = fd;
    c->watch_events = events;
    if (c->cb.on_watch)
        c->cb.on_watch(c, c->user, fd, events);
}

/* ---- queues --------------------------------------------------------------- */

static void queue_push_back(struct queue *q, struct request *r)
{
    r->next = NULL;
    if (q->tail)
        q->tail->next = r;
    else
        q->head = r;
    q->tail = r;
    q->count++;
}

static void queue_push_front(struct queue *q, struct request *r)
{
    r->next = q->head;
    q->head = r;
    if (!q->tail)
        q->tail = r;
    q->count++;
}

static struct request *queue_pop_front(struct queue *q)
{
    struct request *r = q->head;
    if (!r)
        return NULL;
    q->head = r->next;
    if (!q->head)
        q->tail = NULL;
    q->count--;
    r->next = NULL;
    return r;
}

/* Removes the request with this id, wherever it is (the daemon answers in order,
 * so it is the head in practice). */
static struct request *queue_take(struct queue *q, uint64_t id)
{
    struct request *prev = NULL;
    for (struct request *r = q->head; r; prev = r, r = r->next) {
        if (r->id != id)
            continue;
        if (prev)
            prev->next = r->next;
        else
            q->head = r->next;
        if (q->tail == r)
            q->tail = prev;
        q->count--;
        r->next = NULL;
        return r;
    }
    return NULL;
}

static void queue_free(struct queue *q)
{
    struct request *r;
    while ((r = queue_pop_front(q)))
        free(r);
}

/* ---- the record ----------------------------------------------------------- */

static struct nav *nav_find(pg_client *c, const char *id, struct nav ***link)
{
    struct nav **l = &c->navs;
    for (; *l; l = &(*l)->next) {
        if (strcmp((*l)->id, id) == 0) {
            if (link)
                *link = l;
            return *l;
        }
    }
    return NULL;
}

static void nav_free(struct nav *n)
{
    if (!n)
        return;
    free(n->id);
    free(n->layout);
    json_object_put(n->pages);
    free(n);
}

static void nav_unlink(pg_client *c, const char *id)
{
    struct nav **link;
    struct nav *n = nav_find(c, id, &link);
    if (n) {
        *link = n->next;
        nav_free(n);
    }
}

static void nav_append(pg_client *c, struct nav *n)
{
    struct nav **l = &c->navs;
    while (*l)
        l = &(*l)->next;
    n->next = NULL;
    *l = n;
}

/* A new array holding the same (immutable) page objects. */
static json_object *copy_pages(json_object *pages)
{
    if (!pages || !json_object_is_type(pages, json_type_array))
        return NULL;
    json_object *copy = json_object_new_array();
    if (!copy)
        return NULL;
    size_t n = json_object_array_length(pages);
    for (size_t i = 0; i < n; i++)
        json_object_array_add(copy, json_object_get(json_object_array_get_idx(pages, i)));
    return copy;
}

static void set_layout(struct nav *n, json_object *req)
{
    const char *layout = get_string(req, "layout");
    if (layout) {
        char *copy = dup_string(layout);
        if (copy) {
            free(n->layout);
            n->layout = copy;
        }
    }
    json_object *bar;
    if (json_object_object_get_ex(req, "barFollowsTopPage", &bar) && json_object_is_type(bar, json_type_boolean))
        n->bar = json_object_get_boolean(bar);
}

/* The daemon said "ok" to a request of ours: the record follows. */
static void apply(pg_client *c, const struct request *r, json_object *req)
{
    const char *id = req ? get_string(req, "navigator") : NULL;
    struct nav **link = NULL;
    struct nav *n = id ? nav_find(c, id, &link) : NULL;
    json_object *v;
    switch (r->kind) {
    case K_CREATE: {
        if (!id || !json_object_object_get_ex(req, "pages", &v))
            return;
        if (n)
            nav_unlink(c, id);
        struct nav *fresh = calloc(1, sizeof *fresh);
        if (!fresh)
            return;
        fresh->id = dup_string(id);
        fresh->pages = copy_pages(v);
        fresh->bar = -1;
        if (!fresh->id || !fresh->pages) {
            nav_free(fresh);
            return;
        }
        set_layout(fresh, req);
        nav_append(c, fresh);
        break;
    }
    case K_PUSH:
        if (n && json_object_object_get_ex(req, "page", &v))
            json_object_array_add(n->pages, json_object_get(v));
        break;
    case K_POP: {
        size_t len = n ? json_object_array_length(n->pages) : 0;
        if (len > 1)
            json_object_array_del_idx(n->pages, len - 1, 1);
        break;
    }
    case K_REPLACE:
        if (n && json_object_object_get_ex(req, "pages", &v)) {
            json_object *pages = copy_pages(v);
            if (pages) {
                json_object_put(n->pages);
                n->pages = pages;
            }
        }
        break;
    case K_UPDATE:
        if (n && json_object_object_get_ex(req, "page", &v)) {
            const char *page = get_string(v, "id");
            size_t len = json_object_array_length(n->pages);
            for (size_t i = 0; page && i < len; i++) {
                const char *have = get_string(json_object_array_get_idx(n->pages, i), "id");
                if (have && strcmp(have, page) == 0) {
                    json_object_array_put_idx(n->pages, i, json_object_get(v));
                    break;
                }
            }
        }
        break;
    case K_CONFIGURE:
        if (n)
            set_layout(n, req);
        break;
    case K_FRONT:
        if (n && n->next) { /* to the tail: the front */
            *link = n->next;
            nav_append(c, n);
        }
        break;
    case K_REMOVE:
        if (n)
            nav_unlink(c, id);
        break;
    case K_FOCUS:
        c->focus = get_bool(req, "focused");
        break;
    case K_SUBSCRIBE:
        c->subscribed = true;
        break;
    case K_UNSUBSCRIBE:
        c->subscribed = false;
        break;
    default:
        break;
    }
}

/* ---- building requests ---------------------------------------------------- */

static void set_error(pg_client *c, int err, const char *fmt, ...)
{
    if (c) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->last_error, sizeof c->last_error, fmt, ap);
        va_end(ap);
    }
    errno = err;
}

static bool add_string(json_object *obj, const char *key, const char *value)
{
    json_object *s = json_object_new_string(value);
    if (!s)
        return false;
    if (json_object_object_add(obj, key, s) != 0) {
        json_object_put(s);
        return false;
    }
    return true;
}

static bool add_value(json_object *obj, const char *key, json_object *value)
{
    if (!value)
        return false;
    if (json_object_object_add(obj, key, value) != 0) {
        json_object_put(value);
        return false;
    }
    return true;
}

/* Checks a string argument; sets the error. */
static bool check_string(pg_client *c, const char *what, const char *s)
{
    if (!s) {
        set_error(c, EINVAL, "%s is NULL", what);
        return false;
    }
    if (!valid_utf8(s)) {
        set_error(c, EINVAL, "%s is not valid UTF-8", what);
        return false;
    }
    return true;
}

static bool check_finite(pg_client *c, const char *what, double v)
{
    if (!isfinite(v)) {
        set_error(c, EINVAL, "%s is not a finite number", what);
        return false;
    }
    return true;
}

/* A page object: only the properties that differ from the defaults. */
static json_object *page_json(pg_client *c, const pg_page *page)
{
    if (!page) {
        set_error(c, EINVAL, "page is NULL");
        return NULL;
    }
    if (!check_string(c, "page id", page->id) || !check_finite(c, "maxStartDistance", page->max_start_distance))
        return NULL;
    if (page->exclusion_zone_count > 0 && !page->exclusion_zones) {
        set_error(c, EINVAL, "exclusion_zones is NULL with a count of %zu", page->exclusion_zone_count);
        return NULL;
    }
    for (size_t i = 0; i < page->exclusion_zone_count; i++) {
        const pg_rect *z = &page->exclusion_zones[i];
        if (!isfinite(z->x) || !isfinite(z->y) || !isfinite(z->width) || !isfinite(z->height)) {
            set_error(c, EINVAL, "exclusion zone %zu of page \"%.64s\" is not finite", i, page->id);
            return NULL;
        }
    }
    json_object *obj = json_object_new_object();
    if (!obj)
        goto nomem;
    if (!add_string(obj, "id", page->id))
        goto nomem;
    if (page->pop_disabled && !add_value(obj, "popDisabled", json_object_new_boolean(1)))
        goto nomem;
    if (page->prefers_bar_hidden && !add_value(obj, "prefersBarHidden", json_object_new_boolean(1)))
        goto nomem;
    if (page->max_start_distance != 0 &&
        !add_value(obj, "maxStartDistance", json_object_new_double(page->max_start_distance)))
        goto nomem;
    if (page->exclusion_zone_count > 0) {
        json_object *zones = json_object_new_array();
        if (!add_value(obj, "exclusionZones", zones))
            goto nomem;
        for (size_t i = 0; i < page->exclusion_zone_count; i++) {
            const pg_rect *z = &page->exclusion_zones[i];
            json_object *rect = json_object_new_array();
            if (!rect || json_object_array_add(zones, rect) != 0) {
                json_object_put(rect);
                goto nomem;
            }
            double values[4] = {z->x, z->y, z->width, z->height};
            for (int k = 0; k < 4; k++) {
                json_object *d = json_object_new_double(values[k]);
                if (!d || json_object_array_add(rect, d) != 0) {
                    json_object_put(d);
                    goto nomem;
                }
            }
        }
    }
    return obj;
nomem:
    json_object_put(obj);
    set_error(c, ENOMEM, "out of memory");
    return NULL;
}

static json_object *pages_json(pg_client *c, const pg_page *pages, size_t count)
{
    if (count > 0 && !pages) {
        set_error(c, EINVAL, "pages is NULL with a count of %zu", count);
        return NULL;
    }
    json_object *array = json_object_new_array();
    if (!array) {
        set_error(c, ENOMEM, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < count; i++) {
        json_object *page = page_json(c, &pages[i]);
        if (!page || json_object_array_add(array, page) != 0) {
            json_object_put(page);
            json_object_put(array);
            return NULL;
        }
    }
    return array;
}

static bool add_settings(pg_client *c, json_object *obj, const pg_navigator_settings *s)
{
    if (!s)
        return true;
    const char *layout = s->layout == PG_LAYOUT_LTR ? "ltr" : s->layout == PG_LAYOUT_RTL ? "rtl" : NULL;
    if (s->layout != PG_LAYOUT_UNSET && !layout) {
        set_error(c, EINVAL, "layout %d is not a pg_layout", (int)s->layout);
        return false;
    }
    if (s->bar != PG_BAR_UNSET && s->bar != PG_BAR_FOLLOWS_TOP_PAGE && s->bar != PG_BAR_INDEPENDENT) {
        set_error(c, EINVAL, "bar %d is not a pg_bar_mode", (int)s->bar);
        return false;
    }
    if (layout && !add_string(obj, "layout", layout))
        goto nomem;
    if (s->bar != PG_BAR_UNSET &&
        !add_value(obj, "barFollowsTopPage", json_object_new_boolean(s->bar == PG_BAR_FOLLOWS_TOP_PAGE)))
        goto nomem;
    return true;
nomem:
    set_error(c, ENOMEM, "out of memory");
    return false;
}

/* A request object with its type and, when given, its navigator. */
static json_object *start(pg_client *c, enum kind kind, const char *navigator, bool needs_navigator)
{
    if (!c) {
        set_error(NULL, EINVAL, "client is NULL");
        return NULL;
    }
    if (needs_navigator && !check_string(c, "navigator", navigator))
        return NULL;
    json_object *obj = json_object_new_object();
    if (!obj || !add_string(obj, "type", kind_names[kind]) ||
        (needs_navigator && !add_string(obj, "navigator", navigator))) {
        json_object_put(obj);
        set_error(c, ENOMEM, "out of memory");
        return NULL;
    }
    return obj;
}

static bool can_flush(const pg_client *c)
{
    return c->fd >= 0 && !c->broken && (c->state == S_HELLO || c->state == S_READY);
}

static void flush_output(pg_client *c);
static void release_big_buffer(pg_client *c);

/*
 * Gives the request its id, serialises it (json-c escapes the strings), checks
 * the bounds and queues it. Takes ownership of obj. Returns the id, or 0.
 */
static uint64_t submit_object(pg_client *c, json_object *obj, enum kind kind, bool internal, bool front)
{
    uint64_t id = c->next_id;
    if (!add_value(obj, "id", json_object_new_int64((int64_t)id))) {
        json_object_put(obj);
        set_error(c, ENOMEM, "out of memory");
        return 0;
    }
    size_t len = 0;
    const char *text =
        json_object_to_json_string_length(obj, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
    if (!text) {
        json_object_put(obj);
        set_error(c, ENOMEM, "out of memory");
        return 0;
    }
    if (len + 1 > PG_MAX_REQUEST_BYTES) {
        set_error(c, EMSGSIZE, "the %s request would be %zu bytes; popgestured takes lines of at most %zu",
                  kind_names[kind], len + 1, (size_t)PG_MAX_REQUEST_BYTES);
        json_object_put(obj);
        return 0;
    }
    if (!internal && c->queued_bytes + len + 1 > c->max_queue) {
        set_error(c, ENOBUFS,
                  "the outgoing queue is full: %zu bytes of requests wait for popgestured, the limit is %zu",
                  c->queued_bytes, c->max_queue);
        json_object_put(obj);
        return 0;
    }
    struct request *r = malloc(sizeof *r + len + 2);
    if (!r) {
        json_object_put(obj);
        set_error(c, ENOMEM, "out of memory");
        return 0;
    }
    memcpy(r->line, text, len);
    json_object_put(obj);
    r->line[len] = '\n';
    r->line[len + 1] = '\0';
    r->len = len + 1;
    r->id = id;
    r->kind = kind;
    r->internal = internal;
    c->next_id++;
    if (!internal)
        c->queued_bytes += r->len;
    if (front)
        queue_push_front(&c->unsent, r);
    else
        queue_push_back(&c->unsent, r);
    return id;
}

/* A user's request: queued, written at once if it can be, and the watch told. */
static uint64_t submit(pg_client *c, json_object *obj, enum kind kind)
{
    uint64_t id = submit_object(c, obj, kind, false, false);
    if (id == 0)
        return 0;
    c->last_error[0] = '\0';
    if (can_flush(c))
        flush_output(c);
    if (!c->in_dispatch)
        update_watch(c);
    return id;
}

/* ---- connection ----------------------------------------------------------- */

static void report(pg_client *c, bool up, const char *reason)
{
    enum report now = up ? R_UP : R_DOWN;
    if (c->reported == now)
        return;
    c->reported = now;
    if (c->cb.on_connection)
        c->cb.on_connection(c, c->user, up, up ? NULL : reason);
}

static void schedule_retry(pg_client *c)
{
    c->state = S_WAITING;
    c->deadline_ms = now_ms() + c->backoff_ms;
    unsigned next = c->backoff_ms * 2;
    c->backoff_ms = next > c->backoff_max || next < c->backoff_ms ? c->backoff_max : next;
}

/* Closes the connection: internal requests go (they are made again after the
 * next hello), the user's unanswered ones go back to the front of the queue, in
 * order, and the reconnect timer starts. */
static void drop(pg_client *c, const char *reason)
{
    char why[REASON_BYTES];
    if (c->server_error[0] && strcmp(reason, "popgestured closed the connection") == 0)
        format(why, "popgestured closed the connection after: %s", c->server_error);
    else
        format(why, "%s", reason);
    if (c->fd >= 0) {
        int old = c->fd;
        c->fd = -1;
        update_watch(c); /* on_watch(-1) while the old descriptor still exists */
        close(old);
    }
    struct queue keep = {0};
    struct request *r;
    while ((r = queue_pop_front(&c->in_flight))) {
        if (r->internal)
            free(r);
        else
            queue_push_back(&keep, r);
    }
    struct queue rest = {0};
    while ((r = queue_pop_front(&c->unsent))) {
        if (r->internal)
            free(r);
        else
            queue_push_back(&rest, r);
    }
    while ((r = queue_pop_front(&rest)))
        queue_push_back(&keep, r);
    c->unsent = keep;
    c->write_offset = 0;
    c->in_len = c->in_scanned = 0;
    release_big_buffer(c);
    c->version = 0;
    c->broken = false;
    c->broken_reason[0] = '\0';
    c->server_error[0] = '\0';
    schedule_retry(c);
    report(c, false, why);
}

static void mark_broken(pg_client *c, const char *fmt, ...)
{
    if (c->broken)
        return;
    c->broken = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->broken_reason, sizeof c->broken_reason, fmt, ap);
    va_end(ap);
}

static bool queue_hello(pg_client *c)
{
    json_object *obj = json_object_new_object();
    json_object *versions = json_object_new_array();
    bool ok = obj && versions && add_string(obj, "type", "hello") &&
              add_value(obj, "version", json_object_new_int(supported_versions[0]));
    if (ok) {
        for (size_t i = 0; ok && i < sizeof supported_versions / sizeof supported_versions[0]; i++) {
            json_object *v = json_object_new_int(supported_versions[i]);
            ok = v && json_object_array_add(versions, v) == 0;
            if (!ok)
                json_object_put(v);
        }
        ok = ok && add_value(obj, "versions", versions);
        versions = NULL;
    }
    ok = ok && (!c->name || add_string(obj, "name", c->name));
    ok = ok && (!c->app_id || add_string(obj, "app", c->app_id));
    json_object_put(versions);
    if (!ok) {
        json_object_put(obj);
        return false;
    }
    return submit_object(c, obj, K_HELLO, true, true) != 0;
}

/* Starts a connection attempt; on failure, schedules the next. Returns whether a
 * socket is open (connected, or connecting). */
static bool try_connect(pg_client *c, char *why)
{
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    memcpy(addr.sun_path, c->socket_path, strlen(c->socket_path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        format(why, "cannot make a socket: %s", strerror(errno));
        schedule_retry(c);
        return false;
    }
    int rc;
    do
        rc = connect(fd, (struct sockaddr *)&addr, sizeof addr);
    while (rc < 0 && errno == EINTR);
    if (rc < 0 && errno != EINPROGRESS) {
        format(why, "cannot connect to %s: %s", c->socket_path, strerror(errno));
        close(fd);
        schedule_retry(c);
        return false;
    }
    c->fd = fd;
    c->server_error[0] = '\0';
    if (rc < 0) {
        c->state = S_CONNECTING;
        c->deadline_ms = now_ms() + PG_HELLO_TIMEOUT_MS;
        return true;
    }
    c->state = S_HELLO;
    c->deadline_ms = now_ms() + PG_HELLO_TIMEOUT_MS;
    if (!queue_hello(c)) {
        format(why, "out of memory");
        c->fd = -1;
        close(fd);
        schedule_retry(c);
        return false;
    }
    return true;
}

/* A connect that was in progress: finished? */
static void check_connecting(pg_client *c)
{
    struct pollfd p = {.fd = c->fd, .events = POLLOUT};
    if (poll(&p, 1, 0) <= 0) {
        if (now_ms() >= c->deadline_ms)
            mark_broken(c, "connecting to %s timed out", c->socket_path);
        return;
    }
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
        err = errno;
    if (err) {
        mark_broken(c, "cannot connect to %s: %s", c->socket_path, strerror(err));
        return;
    }
    c->state = S_HELLO;
    c->deadline_ms = now_ms() + PG_HELLO_TIMEOUT_MS;
    if (!queue_hello(c))
        mark_broken(c, "out of memory");
}

/* After hello: the record again, before any request of the user's. */
static void replay_record(pg_client *c)
{
    /* pushed to the front in reverse: subscribe, focus, then navigators back to front */
    if (c->subscribed) {
        json_object *obj = start(c, K_SUBSCRIBE, NULL, false);
        if (obj)
            submit_object(c, obj, K_SUBSCRIBE, true, true);
    }
    if (c->focus >= 0) {
        json_object *obj = start(c, K_FOCUS, NULL, false);
        if (obj && add_value(obj, "focused", json_object_new_boolean(c->focus)))
            submit_object(c, obj, K_FOCUS, true, true);
        else
            json_object_put(obj);
    }
    size_t count = 0;
    for (struct nav *n = c->navs; n; n = n->next)
        count++;
    for (size_t i = count; i-- > 0;) {
        struct nav *n = c->navs;
        for (size_t k = 0; k < i; k++)
            n = n->next;
        json_object *obj = start(c, K_CREATE, n->id, true);
        if (!obj)
            continue;
        bool ok = add_value(obj, "pages", json_object_get(n->pages)) &&
                  (!n->layout || add_string(obj, "layout", n->layout)) &&
                  (n->bar < 0 || add_value(obj, "barFollowsTopPage", json_object_new_boolean(n->bar)));
        if (ok)
            submit_object(c, obj, K_CREATE, true, true);
        else
            json_object_put(obj);
    }
}

static void flush_output(pg_client *c)
{
    while (can_write_more(c)) {
        struct request *r = c->unsent.head;
        ssize_t n = send(c->fd, r->line + c->write_offset, r->len - c->write_offset, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                mark_broken(c, "writing to popgestured failed: %s", strerror(errno));
            return;
        }
        c->write_offset += (size_t)n;
        if (c->write_offset == r->len) {
            c->write_offset = 0;
            queue_push_back(&c->in_flight, queue_pop_front(&c->unsent));
        }
    }
}

/* ---- input ---------------------------------------------------------------- */

static void deliver_reply(pg_client *c, struct request *r, json_object *msg, const char *type, const char *line)
{
    bool ok = strcmp(type, "error") != 0;
    const char *code = ok ? NULL : get_string(msg, "code");
    json_object *req = json_tokener_parse(r->line);
    if (ok)
        apply(c, r, req);
    else if (r->internal && r->kind == K_CREATE && req) {
        const char *id = get_string(req, "navigator");
        if (id)
            nav_unlink(c, id); /* the daemon would not take it back: forget it */
    }
    if (!r->internal)
        c->queued_bytes -= r->len;
    if (c->cb.on_reply && (!r->internal || !ok)) {
        pg_reply reply = {
            .request = r->internal ? 0 : r->id,
            .request_type = kind_names[r->kind],
            .navigator = req ? get_string(req, "navigator") : NULL,
            .ok = ok,
            .code = code,
            .message = ok ? NULL : get_string(msg, "message"),
            .json = line,
        };
        c->cb.on_reply(c, c->user, &reply);
    }
    json_object_put(req);
    free(r);
}

static bool version_supported(int64_t v)
{
    for (size_t i = 0; i < sizeof supported_versions / sizeof supported_versions[0]; i++)
        if (supported_versions[i] == v)
            return true;
    return false;
}

static void handle_hello_state(pg_client *c, json_object *msg, const char *type, const char *line)
{
    struct request *hello = c->in_flight.head;
    if (strcmp(type, "hello") == 0) {
        int64_t version = get_int64(msg, "version");
        if (!version_supported(version)) {
            mark_broken(c, "popgestured chose protocol version %lld, which this library does not speak",
                        (long long)version);
            return;
        }
        if (hello && hello->kind == K_HELLO)
            free(queue_pop_front(&c->in_flight));
        c->version = (int)version;
        c->state = S_READY;
        c->paused = false;
        c->backoff_ms = c->backoff_min;
        replay_record(c);
        report(c, true, NULL);
        return;
    }
    if (strcmp(type, "error") == 0) {
        const char *code = get_string(msg, "code");
        const char *message = get_string(msg, "message");
        json_object *supported;
        if (json_object_object_get_ex(msg, "supported", &supported))
            mark_broken(c, "popgestured refused hello: %s: %s (it speaks %s)", code ? code : "?",
                        message ? message : "", json_object_to_json_string_ext(supported, JSON_C_TO_STRING_PLAIN));
        else
            mark_broken(c, "popgestured refused hello: %s: %s", code ? code : "?", message ? message : "");
        return;
    }
    (void)line; /* anything else before hello's answer is ignored */
}

static void handle_message(pg_client *c, json_object *msg, const char *type, const char *line)
{
    if (c->state == S_HELLO) {
        handle_hello_state(c, msg, type, line);
        return;
    }
    bool is_reply = !strcmp(type, "ok") || !strcmp(type, "error") || !strcmp(type, "stack") ||
                    !strcmp(type, "status");
    json_object *idv;
    if (is_reply && json_object_object_get_ex(msg, "id", &idv) && json_object_is_type(idv, json_type_int)) {
        struct request *r = queue_take(&c->in_flight, (uint64_t)json_object_get_int64(idv));
        if (r)
            deliver_reply(c, r, msg, type, line);
        return;
    }
    if (is_reply) {
        /* No id: an error about the connection itself, said before a close. */
        if (!strcmp(type, "error")) {
            const char *code = get_string(msg, "code");
            const char *message = get_string(msg, "message");
            format(c->server_error, "%s: %s", code ? code : "?", message ? message : "");
            if (c->cb.on_reply) {
                pg_reply reply = {.request = 0, .request_type = get_string(msg, "request"), .ok = false,
                                  .code = code, .message = message, .json = line};
                c->cb.on_reply(c, c->user, &reply);
            }
        }
        return;
    }
    const char *navigator = get_string(msg, "navigator");
    const char *page = get_string(msg, "page");
    int64_t time_us = get_int64(msg, "time_us");
    double progress = 0;
    get_number(msg, "progress", &progress);
    if (!strcmp(type, "pop-began") || !strcmp(type, "pop-progress")) {
        void (*f)(pg_client *, void *, const char *, const char *, double, int64_t) =
            type[4] == 'b' ? c->cb.on_pop_began : c->cb.on_pop_progress;
        if (f && navigator && page)
            f(c, c->user, navigator, page, progress, time_us);
    } else if (!strcmp(type, "pop-finished") || !strcmp(type, "pop-cancelled")) {
        void (*f)(pg_client *, void *, const char *, const char *, const char *, int64_t) =
            type[4] == 'f' ? c->cb.on_pop_finished : c->cb.on_pop_cancelled;
        const char *reason = get_string(msg, "reason");
        if (f && navigator && page)
            f(c, c->user, navigator, page, reason ? reason : "", time_us);
    } else if (!strcmp(type, "back")) {
        const char *popped = get_string(msg, "popped");
        const char *top = get_string(msg, "top");
        struct nav *n = navigator ? nav_find(c, navigator, NULL) : NULL;
        size_t len = n ? json_object_array_length(n->pages) : 0;
        if (len > 1 && popped) {
            const char *have = get_string(json_object_array_get_idx(n->pages, len - 1), "id");
            if (have && strcmp(have, popped) == 0)
                json_object_array_del_idx(n->pages, len - 1, 1);
        }
        if (c->cb.on_back && navigator && popped && top)
            c->cb.on_back(c, c->user, navigator, popped, top, time_us);
    } else if (!strcmp(type, "bar")) {
        if (c->cb.on_bar && navigator && page)
            c->cb.on_bar(c, c->user, navigator, page, get_bool(msg, "hidden"));
    } else if (!strcmp(type, "focus-changed")) {
        const char *source = get_string(msg, "source");
        if (c->cb.on_focus_changed)
            c->cb.on_focus_changed(c, c->user, source ? source : "", get_string(msg, "app"),
                                   (long)get_int64(msg, "pid"), navigator);
    } else {
        /* A user switch: the connection and the navigators stay (docs/PROTOCOL.md). */
        if (!strcmp(type, "paused"))
            c->paused = true;
        else if (!strcmp(type, "resumed"))
            c->paused = false;
        if (c->cb.on_event && strcmp(type, "hello") != 0)
            c->cb.on_event(c, c->user, type, line);
    }
}

/* One line, without its newline, NUL-terminated in place. */
static void handle_line(pg_client *c, char *line, size_t len)
{
    json_tokener_reset(c->tok);
    json_object *msg = json_tokener_parse_ex(c->tok, line, (int)len);
    enum json_tokener_error err = json_tokener_get_error(c->tok);
    if (!msg || err != json_tokener_success || json_tokener_get_parse_end(c->tok) != len) {
        json_object_put(msg);
        mark_broken(c, "popgestured sent a line that is not JSON (%s)",
                    err == json_tokener_success ? "trailing characters" : json_tokener_error_desc(err));
        return;
    }
    const char *type = json_object_is_type(msg, json_type_object) ? get_string(msg, "type") : NULL;
    if (!type)
        mark_broken(c, "popgestured sent a line that is not an object with a \"type\"");
    else
        handle_message(c, msg, type, line);
    json_object_put(msg);
}

/* Handles every complete line in the buffer, then keeps the rest. */
static void process_lines(pg_client *c)
{
    size_t start = 0;
    while (!c->broken && !c->free_requested && c->fd >= 0) {
        char *nl = memchr(c->in + c->in_scanned, '\n', c->in_len - c->in_scanned);
        if (!nl) {
            c->in_scanned = c->in_len;
            break;
        }
        size_t end = (size_t)(nl - c->in);
        size_t line_end = end;
        if (line_end > start && c->in[line_end - 1] == '\r')
            line_end--;
        c->in[line_end] = '\0';
        c->in_scanned = end + 1;
        size_t line_start = start;
        start = end + 1;
        if (line_end > line_start)
            handle_line(c, c->in + line_start, line_end - line_start);
    }
    if (start > 0) {
        memmove(c->in, c->in + start, c->in_len - start);
        c->in_len -= start;
        c->in_scanned = c->in_scanned >= start ? c->in_scanned - start : 0;
    }
}

/* After a big line, the buffer goes back to its small size once it is empty. */
static void release_big_buffer(pg_client *c)
{
    if (c->in_len == 0 && c->in_cap > READ_CHUNK) {
        free(c->in);
        c->in = NULL;
        c->in_cap = 0;
    }
}

static void read_input(pg_client *c)
{
    for (int reads = 0; reads < MAX_READS_PER_DISPATCH; reads++) {
        if (c->in_len == c->in_cap) {
            if (c->in_cap >= c->max_line + 1) {
                mark_broken(c, "a line from popgestured passed %zu bytes", c->max_line);
                return;
            }
            size_t cap = c->in_cap ? c->in_cap * 2 : 4096;
            if (cap > c->max_line + 1)
                cap = c->max_line + 1;
            char *in = realloc(c->in, cap);
            if (!in) {
                mark_broken(c, "out of memory for a line from popgestured");
                return;
            }
            c->in = in;
            c->in_cap = cap;
        }
        size_t room = c->in_cap - c->in_len;
        ssize_t n = read(c->fd, c->in + c->in_len, room > READ_CHUNK ? READ_CHUNK : room);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                mark_broken(c, "reading from popgestured failed: %s", strerror(errno));
            return;
        }
        if (n == 0) {
            process_lines(c);
            mark_broken(c, "popgestured closed the connection");
            return;
        }
        c->in_len += (size_t)n;
        process_lines(c);
        if (c->broken || c->free_requested || c->fd < 0)
            return;
        release_big_buffer(c);
        if (c->in_len == c->in_cap && c->in_cap >= c->max_line + 1) {
            mark_broken(c, "a line from popgestured passed %zu bytes", c->max_line);
            return;
        }
    }
}

/* ---- public: lifecycle ---------------------------------------------------- */

static void destroy(pg_client *c)
{
    if (c->fd >= 0)
        close(c->fd);
    queue_free(&c->unsent);
    queue_free(&c->in_flight);
    while (c->navs) {
        struct nav *n = c->navs;
        c->navs = n->next;
        nav_free(n);
    }
    if (c->tok)
        json_tokener_free(c->tok);
    free(c->in);
    free(c->socket_path);
    free(c->app_id);
    free(c->name);
    free(c);
}

PG_API pg_client *pg_client_new(const pg_options *o)
{
    if (!o) {
        errno = EINVAL;
        return NULL;
    }
    const char *path = o->socket_path;
    if (!path) {
        path = getenv("POPGESTURED_SOCKET");
        if (!path || !*path)
            path = PG_DEFAULT_SOCKET;
    }
    struct sockaddr_un addr;
    if (!*path) {
        errno = EINVAL;
        return NULL;
    }
    if (strlen(path) >= sizeof addr.sun_path) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    if ((o->app_id && (!valid_utf8(o->app_id) || strlen(o->app_id) > MAX_ID_BYTES)) ||
        (o->name && (!valid_utf8(o->name) || strlen(o->name) > MAX_ID_BYTES))) {
        errno = EINVAL;
        return NULL;
    }
    unsigned lo = o->reconnect_min_ms ? o->reconnect_min_ms : PG_DEFAULT_RECONNECT_MIN_MS;
    unsigned hi = o->reconnect_max_ms ? o->reconnect_max_ms : PG_DEFAULT_RECONNECT_MAX_MS;
    size_t max_line = o->max_line_bytes ? o->max_line_bytes : PG_DEFAULT_MAX_LINE_BYTES;
    if (lo > hi || max_line < 1024 || max_line > ((size_t)1 << 30)) {
        errno = EINVAL;
        return NULL;
    }
    pg_client *c = calloc(1, sizeof *c);
    if (!c) {
        errno = ENOMEM;
        return NULL;
    }
    c->fd = -1;
    c->watch_fd = -1;
    c->focus = -1;
    c->next_id = 1;
    c->user = o->user_data;
    if (o->callbacks)
        c->cb = *o->callbacks;
    c->max_line = max_line;
    c->max_queue = o->max_queue_bytes ? o->max_queue_bytes : PG_DEFAULT_MAX_QUEUE_BYTES;
    c->backoff_min = lo;
    c->backoff_max = hi;
    c->backoff_ms = lo;
    c->socket_path = dup_string(path);
    c->app_id = dup_string(o->app_id);
    c->name = dup_string(o->name);
    c->tok = json_tokener_new();
    if (!c->socket_path || (o->app_id && !c->app_id) || (o->name && !c->name) || !c->tok) {
        destroy(c);
        errno = ENOMEM;
        return NULL;
    }
    json_tokener_set_flags(c->tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    char why[REASON_BYTES];
    int saved = errno;
    if (try_connect(c, why)) {
        if (c->state == S_HELLO)
            flush_output(c);
    } else {
        c->report_pending = true;
        format(c->pending_reason, "%s", why);
    }
    c->watch_fd = c->fd;
    c->watch_events = pg_client_events(c);
    errno = saved;
    return c;
}

PG_API void pg_client_free(pg_client *c)
{
    if (!c)
        return;
    if (c->in_dispatch) {
        c->free_requested = true;
        return;
    }
    destroy(c);
}

PG_API int pg_client_dispatch(pg_client *c)
{
    if (!c) {
        errno = EINVAL;
        return -1;
    }
    if (c->in_dispatch) {
        errno = EBUSY;
        return -1;
    }
    c->in_dispatch = true;
    if (c->report_pending) {
        c->report_pending = false;
        report(c, false, c->pending_reason);
    }
    if (!c->free_requested && c->state == S_WAITING && now_ms() >= c->deadline_ms) {
        char why[REASON_BYTES];
        if (!try_connect(c, why))
            report(c, false, why);
    }
    if (!c->free_requested && c->state == S_CONNECTING && !c->broken)
        check_connecting(c);
    if (!c->free_requested && (c->state == S_HELLO || c->state == S_READY)) {
        if (!c->broken)
            read_input(c);
        if (!c->free_requested && !c->broken)
            flush_output(c);
        if (!c->free_requested && !c->broken && c->state == S_HELLO && now_ms() >= c->deadline_ms)
            mark_broken(c, "popgestured did not answer hello within %u ms", PG_HELLO_TIMEOUT_MS);
    }
    if (!c->free_requested && c->broken)
        drop(c, c->broken_reason);
    if (!c->free_requested)
        update_watch(c);
    c->in_dispatch = false;
    if (c->free_requested)
        destroy(c);
    return 0;
}

/* ---- public: queries ------------------------------------------------------ */

PG_API bool pg_client_connected(const pg_client *c)
{
    return c && c->state == S_READY && !c->broken;
}

PG_API bool pg_client_paused(const pg_client *c)
{
    return pg_client_connected(c) && c->paused;
}

PG_API int pg_client_protocol_version(const pg_client *c)
{
    return pg_client_connected(c) ? c->version : 0;
}

PG_API size_t pg_client_queued_bytes(const pg_client *c)
{
    return c ? c->queued_bytes : 0;
}

PG_API const char *pg_client_last_error(const pg_client *c)
{
    return c ? c->last_error : "client is NULL";
}

/* ---- public: requests ----------------------------------------------------- */

PG_API uint64_t pg_create(pg_client *c, const char *navigator, const pg_page *pages, size_t page_count,
                          const pg_navigator_settings *settings)
{
    json_object *obj = start(c, K_CREATE, navigator, true);
    if (!obj)
        return 0;
    json_object *array = pages_json(c, pages, page_count);
    if (!array) {
        json_object_put(obj);
        return 0;
    }
    if (!add_value(obj, "pages", array)) {
        json_object_put(obj);
        set_error(c, ENOMEM, "out of memory");
        return 0;
    }
    if (!add_settings(c, obj, settings)) {
        json_object_put(obj);
        return 0;
    }
    return submit(c, obj, K_CREATE);
}

/* The tail of pg_push, pg_pop and pg_replace: `animated` when asked, then submit. */
static uint64_t submit_animated(pg_client *c, json_object *obj, enum kind kind, bool animated)
{
    if (animated && !add_value(obj, "animated", json_object_new_boolean(1))) {
        json_object_put(obj);
        set_error(c, ENOMEM, "out of memory");
        return 0;
    }
    return submit(c, obj, kind);
}

PG_API uint64_t pg_push(pg_client *c, const char *navigator, const pg_page *page, bool animated)
{
    json_object *obj = start(c, K_PUSH, navigator, true);
    if (!obj)
        return 0;
    json_object *p = page_json(c, page);
    if (!p) {
        json_object_put(obj);
        return 0;
    }
    if (!add_value(obj, "page", p)) {
        json_object_put(obj);
        set_error(c, ENOMEM, "out of memory");
        return 0;
    }
    return submit_animated(c, obj, K_PUSH, animated);
}

PG_API uint64_t pg_pop(pg_client *c, const char *navigator, bool animated)
{
    json_object *obj = start(c, K_POP, navigator, true);
    if (!obj)
        return 0;
    return submit_animated(c, obj, K_POP, animated);
}

PG_API uint64_t pg_replace(pg_client *c, const char *navigator, const pg_page *pages, size_t page_count,
                           bool animated)
{
    json_object *obj = start(c, K_REPLACE, navigator, true);
    if (!obj)
        return 0;
    json_object *array = pages_json(c, pages, page_count);
    if (!array) {
        json_object_put(obj);
        return 0;
    }
    if (!add_value(obj, "pages", array)) {
        json_object_put(obj);
        set_error(c, ENOMEM, "out of memory");
        return 0;
    }
    return submit_animated(c, obj, K_REPLACE, animated);
}

PG_API uint64_t pg_update(pg_client *c, const char *navigator, const pg_page *page)
{
    json_object *obj = start(c, K_UPDATE, navigator, true);
    if (!obj)
        return 0;
    json_object *p = page_json(c, page);
    if (!p) {
        json_object_put(obj);
        return 0;
    }
    if (!add_value(obj, "page", p)) {
        json_object_put(obj);
        set_error(c, ENOMEM, "out of memory");
        return 0;
    }
    return submit(c, obj, K_UPDATE);
}

static uint64_t simple(pg_client *c, enum kind kind, const char *navigator, bool needs_navigator)
{
    json_object *obj = start(c, kind, navigator, needs_navigator);
    return obj ? submit(c, obj, kind) : 0;
}

PG_API uint64_t pg_settle(pg_client *c, const char *navigator)
{
    return simple(c, K_SETTLE, navigator, true);
}

PG_API uint64_t pg_front(pg_client *c, const char *navigator)
{
    return simple(c, K_FRONT, navigator, true);
}

PG_API uint64_t pg_remove(pg_client *c, const char *navigator)
{
    return simple(c, K_REMOVE, navigator, true);
}

PG_API uint64_t pg_stack(pg_client *c, const char *navigator)
{
    return simple(c, K_STACK, navigator, true);
}

PG_API uint64_t pg_status(pg_client *c)
{
    return simple(c, K_STATUS, NULL, false);
}

PG_API uint64_t pg_subscribe(pg_client *c)
{
    return simple(c, K_SUBSCRIBE, NULL, false);
}

PG_API uint64_t pg_unsubscribe(pg_client *c)
{
    return simple(c, K_UNSUBSCRIBE, NULL, false);
}

PG_API uint64_t pg_configure(pg_client *c, const char *navigator, const pg_navigator_settings *settings)
{
    json_object *obj = start(c, K_CONFIGURE, navigator, true);
    if (!obj)
        return 0;
    if (!add_settings(c, obj, settings)) {
        json_object_put(obj);
        return 0;
    }
    return submit(c, obj, K_CONFIGURE);
}

PG_API uint64_t pg_focus(pg_client *c, bool focused)
{
    json_object *obj = start(c, K_FOCUS, NULL, false);
    if (!obj)
        return 0;
    if (!add_value(obj, "focused", json_object_new_boolean(focused))) {
        json_object_put(obj);
        set_error(c, ENOMEM, "out of memory");
        return 0;
    }
    return submit(c, obj, K_FOCUS);
}
