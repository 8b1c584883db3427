/*
 * popgesture.h: libpopgesture, a client of popgestured for C and C++ apps
 * (Qt, GTK, SDL, or a plain poll() loop).
 *
 * popgestured recognises the iOS swipe-back gesture on a Linux tablet and tells
 * the app in front over a Unix socket (newline-delimited JSON; the protocol is
 * docs/PROTOCOL.md in the popgestured repository). This library speaks that
 * protocol for you:
 *
 *   - It never blocks and has no thread of its own. Your event loop watches one
 *     file descriptor (pg_client_fd(), for pg_client_events()) and one timeout
 *     (pg_client_next_timeout_ms()), and calls pg_client_dispatch() when either
 *     fires. Dispatch reads, writes, and calls your callbacks.
 *   - It says hello (with your app id and name) and agrees on a protocol version.
 *   - It keeps its own record of the navigators you created (their pages, layout,
 *     bar setting and front order), of your last focus report and of whether you
 *     subscribed. When the connection drops (the daemon restarted, or the daemon
 *     sent a line over the limit) it reconnects with a backoff (100 ms, doubling,
 *     at most 5 s), says hello again, re-creates those navigators with their
 *     stacks, sends the focus report and the subscription again, and then sends
 *     the requests of yours that had not been answered, in order.
 *   - It is bounded: a line from the daemon may be at most 1 MiB (past that, the
 *     connection is dropped, reported through on_connection, and made again),
 *     and the requests waiting to be sent or answered may take at most 256 KiB
 *     (past that, request functions fail with ENOBUFS).
 *
 * Threads: a pg_client has no global state, and two clients are independent. One
 * client is not thread-safe: call every function of one client from one thread,
 * or hold your own lock around every call (callbacks then run under that lock).
 *
 * Strings: every string this library takes is copied before the function returns
 * (you keep ownership of yours) and must be NUL-terminated UTF-8; invalid UTF-8 is
 * refused with EINVAL, since the daemon would refuse the whole line. Every string
 * the library passes to a callback, or returns, belongs to the library: it is
 * valid until the callback returns (or, for pg_client_last_error(), until the
 * next call on that client). Copy what you keep.
 *
 * Link with `pkg-config --cflags --libs popgesture` (json-c comes along for the
 * static library).
 */
#ifndef POPGESTURE_H
#define POPGESTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define PG_API __attribute__((visibility("default")))
#else
#define PG_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version, and the protocol versions it speaks. */
#define PG_VERSION_MAJOR 0
#define PG_VERSION_MINOR 1
#define PG_VERSION_PATCH 0
/* The highest protocol version this library speaks; it offers 1 up to this one. */
#define PG_PROTOCOL_VERSION 1

/* Defaults, used where a pg_options field is 0. */
#define PG_DEFAULT_SOCKET "/run/popgestured/popgestured.sock"
#define PG_DEFAULT_MAX_LINE_BYTES ((size_t)1 << 20)          /* 1 MiB */
#define PG_DEFAULT_MAX_QUEUE_BYTES ((size_t)256 << 10)       /* 256 KiB */
#define PG_DEFAULT_RECONNECT_MIN_MS 100u
#define PG_DEFAULT_RECONNECT_MAX_MS 5000u
/* How long the library waits for the daemon's answer to hello before it drops
 * the connection and tries again. */
#define PG_HELLO_TIMEOUT_MS 10000u
/* The daemon refuses a request line over 64 KiB; the library refuses to send one
 * (EMSGSIZE) rather than lose the reply's match. */
#define PG_MAX_REQUEST_BYTES ((size_t)64 << 10)

/* One connection to popgestured. Opaque; made by pg_client_new(). */
typedef struct pg_client pg_client;

/* A rectangle in screen fractions (0...1), origin top-left: an exclusion zone. */
typedef struct pg_rect {
    double x, y, width, height;
} pg_rect;

/*
 * A page of a navigator, with its properties (docs/PROTOCOL.md, "Navigation
 * model"). Zero-initialise it and set `id`: every other field's zero is the
 * protocol's default.
 *
 *   id                   required, non-empty, unique in its navigator, at most
 *                        256 bytes of UTF-8 (the daemon checks the last two).
 *   pop_disabled         true: no back gesture while this page is on top.
 *   prefers_bar_hidden   the bar state reported in on_bar while this page is on top.
 *   max_start_distance   in mm from the leading edge; a swipe starting farther
 *                        away does not go back. 0: no limit. Must be finite (EINVAL)
 *                        and not negative (the daemon answers invalid-value).
 *   exclusion_zones      up to 16 rectangles where a swipe may not start; NULL
 *   exclusion_zone_count when the count is 0. Values must be finite (EINVAL).
 */
typedef struct pg_page {
    const char *id;
    bool pop_disabled;
    bool prefers_bar_hidden;
    double max_start_distance;
    const pg_rect *exclusion_zones;
    size_t exclusion_zone_count;
} pg_page;

/* A navigator's layout: which side is leading. UNSET: the daemon's default
 * (pg_create) or unchanged (pg_configure). */
typedef enum pg_layout {
    PG_LAYOUT_UNSET = 0,
    PG_LAYOUT_LTR,
    PG_LAYOUT_RTL
} pg_layout;

/* Whether the navigator's bar follows its top page's prefers_bar_hidden (the
 * protocol's barFollowsTopPage). UNSET: the default, which follows (pg_create),
 * or unchanged (pg_configure). */
typedef enum pg_bar_mode {
    PG_BAR_UNSET = 0,
    PG_BAR_FOLLOWS_TOP_PAGE,
    PG_BAR_INDEPENDENT
} pg_bar_mode;

/* Settings of a navigator, for pg_create() and pg_configure(). */
typedef struct pg_navigator_settings {
    pg_layout layout;
    pg_bar_mode bar;
} pg_navigator_settings;

/*
 * The daemon's answer to one request, passed to on_reply.
 *
 *   request       the id the request function returned. 0: an answer to none of
 *                 your requests: a request the library made itself failed (it
 *                 re-creates your navigators after a reconnect; if one of those
 *                 fails, `navigator` names it and the library forgets that
 *                 navigator), or the daemon sent an error for the connection
 *                 (too-many-clients, not-permitted, line-timeout),
 *                 which usually precedes its closing the connection.
 *   request_type  the request's type as the protocol names it ("push", "status"),
 *                 or NULL when unknown.
 *   navigator     the navigator the request named, or NULL.
 *   ok            true for "ok", "stack" and "status" replies.
 *   code          the error code when !ok ("duplicate-page", "not-owner", ...;
 *                 the list is docs/PROTOCOL.md, "Errors"); NULL when ok. Codes are
 *                 stable: compare them, not the message.
 *   message       the daemon's message when !ok, for people; NULL when ok.
 *   json          the whole reply line as the daemon sent it (no newline): read
 *                 `stack` and `status` replies from it with your JSON library.
 */
typedef struct pg_reply {
    uint64_t request;
    const char *request_type;
    const char *navigator;
    bool ok;
    const char *code;
    const char *message;
    const char *json;
} pg_reply;

/*
 * Callbacks. Any of them may be NULL. Zero-initialise the struct and set the ones
 * you want; pg_client_new() copies it.
 *
 * When they run: only inside pg_client_dispatch(), on the thread that called it,
 * except on_watch, which also runs inside request functions (see there). None
 * runs inside pg_client_new() or pg_client_free().
 *
 * What a callback may do: call request functions (pg_push() from on_back is the
 * usual case), the query functions, and pg_client_free() on its own client (the
 * client is then freed when dispatch returns, and no further callback runs).
 * It must not call pg_client_dispatch() (that returns -1 with EBUSY).
 *
 * Every callback gets the client and the options' user_data first. Strings are
 * valid only until the callback returns. time_us is the kernel's timestamp of the
 * input frame, in microseconds on CLOCK_MONOTONIC (docs/PROTOCOL.md, "Events").
 */
typedef struct pg_callbacks {
    /*
     * The file descriptor to watch, or the events wanted on it, changed: stop
     * watching the old one and watch `fd` for `events` (POLLIN and/or POLLOUT).
     * fd == -1: there is no connection; the library is waiting for its reconnect
     * timer, so call pg_client_dispatch() after pg_client_next_timeout_ms().
     * It is called with -1 *before* the library closes the old descriptor (so
     * you can still unregister it, e.g. from epoll), and with the new one after
     * it is opened. The new descriptor may have the same number as the old one.
     *
     * Runs inside pg_client_dispatch(), and inside a request function when that
     * request makes the library want POLLOUT (the socket's buffer is full). It
     * must only change your watch: call no function of this library other than
     * pg_client_fd(), pg_client_events() and pg_client_next_timeout_ms().
     *
     * Without this callback, re-read pg_client_fd() and pg_client_events() before
     * each wait, as a poll() loop does anyway (a loop that registers the fd once,
     * such as GLib's or Qt's, needs the callback).
     */
    void (*on_watch)(pg_client *client, void *user_data, int fd, short events);

    /*
     * connected: the daemon answered hello; the navigators of the record are being
     * re-created (their requests are already queued before any of yours) and the
     * focus report re-sent. Not connected: the connection ended or could not be
     * made; `reason` says why in words ("popgestured closed the connection",
     * "a line from popgestured passed 1048576 bytes", "cannot connect to PATH:
     * No such file or directory"). reason is NULL when connected.
     * Called on changes only: repeated failed reconnect attempts are not reported
     * again. While disconnected, requests are queued (within the queue bound) and
     * sent after the next hello.
     */
    void (*on_connection)(pg_client *client, void *user_data, bool connected, const char *reason);

    /* The answer to a request; see pg_reply. Each id a request function returned
     * gets exactly one reply, in the order of the requests, unless the client is
     * freed first. */
    void (*on_reply)(pg_client *client, void *user_data, const pg_reply *reply);

    /* The interactive pop started: `page` is the page leaving. progress 0...1. */
    void (*on_pop_began)(pg_client *client, void *user_data, const char *navigator, const char *page,
                         double progress, int64_t time_us);
    /* The finger moved: follow it. */
    void (*on_pop_progress)(pg_client *client, void *user_data, const char *navigator, const char *page,
                            double progress, int64_t time_us);
    /* The release committed the pop (reason "progress" or "fling"); on_back follows. */
    void (*on_pop_finished)(pg_client *client, void *user_data, const char *navigator, const char *page,
                            const char *reason, int64_t time_us);
    /* The pop will not happen: animate the page back. reason: "released",
     * "flung-back", "extra-finger", "palm", "events-dropped", "device-removed",
     * "stack-changed". */
    void (*on_pop_cancelled)(pg_client *client, void *user_data, const char *navigator, const char *page,
                             const char *reason, int64_t time_us);
    /* The daemon popped `popped`; `top` is the new top page. The library has
     * already popped its record; pop your own stack (no pg_pop() needed). */
    void (*on_back)(pg_client *client, void *user_data, const char *navigator, const char *popped,
                    const char *top, int64_t time_us);
    /* Show or hide the navigator's bar, as its top page prefers. */
    void (*on_bar)(pg_client *client, void *user_data, const char *navigator, const char *page, bool hidden);
    /* Observers only (pg_subscribe()): who has focus changed. source is "shell" or
     * "clients"; app (or NULL) and pid (or 0) describe the shell's window;
     * navigator (or NULL) is where a back would go now. */
    void (*on_focus_changed)(pg_client *client, void *user_data, const char *source, const char *app,
                             long pid, const char *navigator);
    /* Any other event: observers' "rejected", "refused", "input-began", "input-progress",
     * "input-cancelled", "back-input", "paused" and "resumed" (a user switch away and
     * back: see pg_client_paused()), and types newer than this library. json is the
     * whole line. */
    void (*on_event)(pg_client *client, void *user_data, const char *type, const char *json);
} pg_callbacks;

/*
 * Options for pg_client_new(). Zero-initialise the struct: a zero or NULL field
 * takes its default. The library copies everything it keeps.
 *
 *   socket_path       NULL: $POPGESTURED_SOCKET if set and non-empty, else
 *                     PG_DEFAULT_SOCKET. At most 107 bytes (ENAMETOOLONG).
 *   app_id            the app id of your windows, as Wayland's app_id or X11's
 *                     WM_CLASS names it ("org.gnome.Nautilus"): a focus bridge
 *                     matches the focused window against it. NULL: none given
 *                     (the daemon then matches by pid). At most 256 bytes.
 *   name              a name shown in `popgesturectl status`. NULL: none.
 *                     At most 256 bytes.
 *   callbacks         copied; NULL: no callbacks.
 *   user_data         passed to every callback.
 *   max_line_bytes    the longest line accepted from the daemon (default 1 MiB;
 *                     the daemon's largest reply is under 200 KiB).
 *   max_queue_bytes   the bound on requests waiting to be sent or answered
 *                     (default 256 KiB).
 *   reconnect_min_ms, reconnect_max_ms
 *                     the reconnect backoff: the first attempt after a drop waits
 *                     min, each failure doubles it, up to max (100 and 5000).
 */
typedef struct pg_options {
    const char *socket_path;
    const char *app_id;
    const char *name;
    const pg_callbacks *callbacks;
    void *user_data;
    size_t max_line_bytes;
    size_t max_queue_bytes;
    unsigned reconnect_min_ms;
    unsigned reconnect_max_ms;
} pg_options;

/* ---- The client and its event loop --------------------------------------- */

/*
 * Makes a client and starts connecting (a non-blocking connect; a daemon that is
 * not there yet is not an error: the client keeps trying, with the backoff).
 * No callback runs here. Afterwards, watch pg_client_fd() for pg_client_events()
 * and wake after pg_client_next_timeout_ms(); on_watch tells you of changes.
 * Requests may be made at once: they are sent after hello.
 *
 * Returns NULL and sets errno: EINVAL (options NULL, a string not UTF-8, app_id
 * or name over 256 bytes, reconnect_min_ms > reconnect_max_ms, max_line_bytes
 * under 1024), ENAMETOOLONG (socket path), ENOMEM.
 */
PG_API pg_client *pg_client_new(const pg_options *options);

/*
 * Closes the connection and frees the client, with every request still queued
 * (those get no reply). No callback runs. Does not tell your event loop: remove
 * your watch first. NULL is a no-op. Called from inside a callback, the client is
 * freed when pg_client_dispatch() returns; do not use it after this call.
 */
PG_API void pg_client_free(pg_client *client);

/*
 * The file descriptor to watch, or -1 while there is no connection (then only the
 * timeout matters; poll() ignores a negative fd, so a poll loop can pass it as
 * is). It changes when the client reconnects: either set on_watch, or read it
 * again after every pg_client_dispatch() and before every wait. The library owns
 * it: do not read, write or close it.
 */
PG_API int pg_client_fd(const pg_client *client);

/* The poll() events wanted on pg_client_fd(): POLLIN, plus POLLOUT while there are
 * bytes to send that the socket did not take (only POLLOUT while a connect is in
 * progress). 0 when the fd is -1. POLLHUP and POLLERR need not be asked for: call
 * pg_client_dispatch() when poll() reports them. */
PG_API short pg_client_events(const pg_client *client);

/*
 * Milliseconds until the client needs pg_client_dispatch() even if its fd stays
 * quiet, or -1 when it does not (it then waits only on its fd). Timers: the
 * reconnect backoff, and the wait for hello's answer. 0: dispatch now. Read it
 * again after every dispatch. Suitable as poll()'s timeout.
 */
PG_API int pg_client_next_timeout_ms(const pg_client *client);

/*
 * Does the client's work: connects when the backoff timer has passed, reads what
 * the daemon sent and calls the callbacks for it, writes queued requests, and
 * notices a dropped connection. Call it when the fd is ready (any of POLLIN,
 * POLLOUT, POLLHUP, POLLERR) or the timeout passed; calling it at other times is
 * harmless (it never blocks). Use a level-triggered watch (poll, GLib, Qt and SDL
 * loops are).
 *
 * Returns 0, or -1 with errno EINVAL (client NULL) or EBUSY (called from one of
 * this client's callbacks). A connection that fails is not an error of dispatch:
 * it is reported through on_connection, and the client reconnects.
 */
PG_API int pg_client_dispatch(pg_client *client);

/* Whether the daemon has answered hello on the current connection. */
PG_API bool pg_client_connected(const pg_client *client);

/* Whether the daemon paused this connection: its user is not a seat's active user
 * now (another user switched in). The connection and the navigators stay, no events
 * come, and status, stack and a shell's reports get "seat-inactive"; nothing needs
 * doing. "paused" and "resumed" also reach on_event. False while not connected. */
PG_API bool pg_client_paused(const pg_client *client);

/* The protocol version agreed with the daemon, or 0 while not connected. */
PG_API int pg_client_protocol_version(const pg_client *client);

/* Bytes of requests waiting to be sent or answered (what max_queue_bytes bounds). */
PG_API size_t pg_client_queued_bytes(const pg_client *client);

/*
 * Why the last request function on this client returned 0, in words (e.g.
 * "the outgoing queue is full: 262100 bytes wait for popgestured, the limit is
 * 262144"). Owned by the client; valid until the next call on it. "" if none.
 */
PG_API const char *pg_client_last_error(const pg_client *client);

/* ---- Requests --------------------------------------------------------------
 *
 * Each request function queues one request, tries to write it at once, and
 * returns its id (> 0), which on_reply's pg_reply.request will carry. It returns
 * 0 and sets errno (and pg_client_last_error()) when the request is refused
 * before being queued:
 *   EINVAL    client or a required argument is NULL, a string is not UTF-8, a
 *             number is not finite, pages is NULL with a count > 0;
 *   EMSGSIZE  the request would be a line over 64 KiB, which the daemon refuses;
 *   ENOBUFS   the outgoing queue is full (max_queue_bytes): the daemon is not
 *             reading, or you sent far too much at once. Nothing was queued; try
 *             again after replies arrived.
 *   ENOMEM    out of memory.
 * Everything else (unknown navigator, duplicate page, not-owner, too many pages)
 * the daemon decides, and its error comes through on_reply: check pg_reply.ok.
 *
 * Requests made while disconnected are queued and sent after the next hello.
 * The library changes its record of your navigators when the daemon answers "ok"
 * (and on each back), so a request that failed changes nothing there either.
 *
 * Where a caller can go wrong:
 *   - The daemon only takes requests for navigators this connection created: do
 *     not create a navigator with raw socket code alongside the library.
 *   - A gesture pops the daemon's stack by itself (on_back): do not pg_pop() after
 *     on_back, or a second page goes.
 *   - After an animated push, pop or replace, call pg_settle() when your animation
 *     ends, or the gesture stays blocked for up to 1 s.
 *   - pg_update() replaces all of a page's properties: pass them all, not only
 *     the one that changed.
 */

/* A navigator with its stack (pages[0] is the root, pages[count-1] the top). It
 * comes to the front. settings may be NULL (the defaults). At most 16 per client,
 * 64 pages each. */
PG_API uint64_t pg_create(pg_client *client, const char *navigator, const pg_page *pages, size_t page_count,
                          const pg_navigator_settings *settings);
/* Pushes one page. animated: the navigator is transitioning until pg_settle(). */
PG_API uint64_t pg_push(pg_client *client, const char *navigator, const pg_page *page, bool animated);
/* Pops the top page, as your own back button would. */
PG_API uint64_t pg_pop(pg_client *client, const char *navigator, bool animated);
/* Replaces the whole stack (UIKit's setViewControllers:animated:). */
PG_API uint64_t pg_replace(pg_client *client, const char *navigator, const pg_page *pages, size_t page_count,
                           bool animated);
/* Replaces the properties of the page with page->id, which must be on the stack. */
PG_API uint64_t pg_update(pg_client *client, const char *navigator, const pg_page *page);
/* Your push/pop/replace animation finished: the gesture may begin again. */
PG_API uint64_t pg_settle(pg_client *client, const char *navigator);
/* This navigator gets the back gesture while your app has focus. */
PG_API uint64_t pg_front(pg_client *client, const char *navigator);
/* Forgets the navigator. */
PG_API uint64_t pg_remove(pg_client *client, const char *navigator);
/* Changes the layout and/or bar mode; an UNSET field keeps its value. */
PG_API uint64_t pg_configure(pg_client *client, const char *navigator, const pg_navigator_settings *settings);
/* Your window gained (true) or lost (false) focus. Without a focus bridge, a
 * client that never reports counts as focused; after a reconnect the last report
 * is sent again. Gaining focus brings your navigators to the front. */
PG_API uint64_t pg_focus(pg_client *client, bool focused);
/* Become an observer: receive every event (on_focus_changed, on_event for
 * "rejected" and the back-input events). Kept across reconnects. */
PG_API uint64_t pg_subscribe(pg_client *client);
PG_API uint64_t pg_unsubscribe(pg_client *client);
/* Read-only queries: the reply's json is the daemon's "stack" or "status" line. */
PG_API uint64_t pg_stack(pg_client *client, const char *navigator);
PG_API uint64_t pg_status(pg_client *client);

#ifdef __cplusplus
}
#endif

#endif /* POPGESTURE_H */
