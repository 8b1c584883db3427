#include <xcb/xcb.h>
#include <xcb/randr.h>

/* RandR's extension data (its first event number), without Swift touching the mutable
 * global `xcb_randr_id` that libxcb-randr exports. */
static inline const xcb_query_extension_reply_t *popgesture_randr_extension(xcb_connection_t *connection) {
    return xcb_get_extension_data(connection, &xcb_randr_id);
}
