/* A Wayland server that offers no global at all: a compositor without the wlroots
 * protocols, for the wlroots bridge's test of one (WlrootsBridgeTests.swift).
 *   bare-wayland-server SOCKET-NAME    serves $XDG_RUNTIME_DIR/SOCKET-NAME until killed */
#include <stdio.h>
#include <wayland-server.h>

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    struct wl_display *display = wl_display_create();
    if (!display || wl_display_add_socket(display, argv[1]) != 0) {
        fprintf(stderr, "cannot serve %s\n", argv[1]);
        return 1;
    }
    wl_display_run(display);
    return 0;
}
