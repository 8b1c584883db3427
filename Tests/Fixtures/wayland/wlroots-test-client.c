/* The wlroots bridge's test helper (Tests/PopGestureDaemonTests/WlrootsBridgeTests.swift),
 * built by the test with the glue wayland-scanner makes from the protocol XMLs:
 *
 *   wlroots-test-client seat            a virtual pointer, so that a headless phoc (no
 *                                       input devices, so no wl_seat) makes its seat; prints
 *                                       "ready" and holds it until its stdin closes
 *   wlroots-test-client activate APP    activates the window whose app_id is APP through
 *                                       zwlr_foreign_toplevel_handle_v1.activate, as a
 *                                       task switcher does; exit 1 when there is none
 *   wlroots-test-client exists APP      exit 0 when a window's app_id is APP, else 1
 *   wlroots-test-client title APP       prints the title of the window whose app_id is APP
 *                                       (Tests/VM's Phosh session: phoc has no IPC); exit 1
 *                                       when there is none
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-client.h>
#include "wlr-foreign-toplevel-management-unstable-v1-client-protocol.h"
#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"

static struct wl_seat *seat;
static struct zwlr_foreign_toplevel_manager_v1 *toplevels;
static struct zwlr_virtual_pointer_manager_v1 *pointers;
static const char *wanted;
static struct zwlr_foreign_toplevel_handle_v1 *found;
static char found_title[512];

/* A window's title until its app_id is known: the protocol may send either first. */
struct window { char title[512]; };

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    if (strcmp(interface, "wl_seat") == 0 && !seat)
        seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
    else if (strcmp(interface, "zwlr_foreign_toplevel_manager_v1") == 0)
        toplevels = wl_registry_bind(registry, name, &zwlr_foreign_toplevel_manager_v1_interface, 1);
    else if (strcmp(interface, "zwlr_virtual_pointer_manager_v1") == 0)
        pointers = wl_registry_bind(registry, name, &zwlr_virtual_pointer_manager_v1_interface, 1);
}
static void global_remove(void *data, struct wl_registry *registry, uint32_t name) {}
static const struct wl_registry_listener registry_listener = {global, global_remove};

static void title(void *d, struct zwlr_foreign_toplevel_handle_v1 *h, const char *t) {
    struct window *w = d;
    snprintf(w->title, sizeof w->title, "%s", t);
    if (h == found) snprintf(found_title, sizeof found_title, "%s", t);
}
static void app_id(void *d, struct zwlr_foreign_toplevel_handle_v1 *h, const char *id) {
    struct window *w = d;
    if (wanted && strcmp(id, wanted) == 0) {
        found = h;
        snprintf(found_title, sizeof found_title, "%s", w->title);
    }
}
static void output_enter(void *d, struct zwlr_foreign_toplevel_handle_v1 *h, struct wl_output *o) {}
static void output_leave(void *d, struct zwlr_foreign_toplevel_handle_v1 *h, struct wl_output *o) {}
static void state(void *d, struct zwlr_foreign_toplevel_handle_v1 *h, struct wl_array *s) {}
static void done(void *d, struct zwlr_foreign_toplevel_handle_v1 *h) {}
static void closed(void *d, struct zwlr_foreign_toplevel_handle_v1 *h) {}
static const struct zwlr_foreign_toplevel_handle_v1_listener handle_listener = {
    title, app_id, output_enter, output_leave, state, done, closed,
};

static void toplevel(void *d, struct zwlr_foreign_toplevel_manager_v1 *m, struct zwlr_foreign_toplevel_handle_v1 *h) {
    struct window *w = calloc(1, sizeof *w);
    if (!w) abort();
    zwlr_foreign_toplevel_handle_v1_add_listener(h, &handle_listener, w);
}
static void finished(void *d, struct zwlr_foreign_toplevel_manager_v1 *m) {}
static const struct zwlr_foreign_toplevel_manager_v1_listener manager_listener = {toplevel, finished};

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    struct wl_display *display = wl_display_connect(NULL);
    if (!display) { fprintf(stderr, "cannot connect to the Wayland display\n"); return 2; }
    struct wl_registry *registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registry_listener, NULL);
    wl_display_roundtrip(display);

    if (strcmp(argv[1], "seat") == 0) {
        if (!pointers) { fprintf(stderr, "no zwlr_virtual_pointer_manager_v1\n"); return 1; }
        zwlr_virtual_pointer_manager_v1_create_virtual_pointer(pointers, NULL);
        wl_display_roundtrip(display);
        printf("ready\n");
        fflush(stdout);
        char byte;
        while (read(0, &byte, 1) > 0) {}
        return 0;
    }
    if ((strcmp(argv[1], "activate") == 0 || strcmp(argv[1], "exists") == 0 || strcmp(argv[1], "title") == 0) &&
        argc == 3) {
        if (!toplevels || !seat) { fprintf(stderr, "no foreign-toplevel manager or no seat\n"); return 1; }
        wanted = argv[2];
        zwlr_foreign_toplevel_manager_v1_add_listener(toplevels, &manager_listener, NULL);
        wl_display_roundtrip(display);
        wl_display_roundtrip(display);
        if (!found) { fprintf(stderr, "no window with app_id %s\n", wanted); return 1; }
        if (strcmp(argv[1], "exists") == 0) return 0;
        if (strcmp(argv[1], "title") == 0) { printf("%s\n", found_title); return 0; }
        zwlr_foreign_toplevel_handle_v1_activate(found, seat);
        wl_display_roundtrip(display);
        return 0;
    }
    return 2;
}
