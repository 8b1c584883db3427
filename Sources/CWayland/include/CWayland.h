/* libwayland-client and the protocols the bridges read: the wlroots ones (popgesturectl
 * bridge wlroots) and KWin's kde-output-device-v2 (bridge kde, for the outputs). The
 * protocol glue is generated: see ../generate. */
#include <wayland-client.h>
#include "wlr-foreign-toplevel-management-unstable-v1-client-protocol.h"
#include "wlr-output-management-unstable-v1-client-protocol.h"
#include "kde-output-device-v2-client-protocol.h"

/* The interfaces' addresses, for wl_registry_bind: Swift sees the generated
 * `const struct wl_interface` globals as values, and a copy's address would not do
 * (each proxy keeps the pointer for its whole life). */
static inline const struct wl_interface *popgesture_foreign_toplevel_manager_interface(void) {
    return &zwlr_foreign_toplevel_manager_v1_interface;
}
static inline const struct wl_interface *popgesture_output_manager_interface(void) {
    return &zwlr_output_manager_v1_interface;
}
static inline const struct wl_interface *popgesture_kde_output_device_interface(void) {
    return &kde_output_device_v2_interface;
}
