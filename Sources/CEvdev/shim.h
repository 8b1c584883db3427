#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <errno.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <linux/input.h>

/* The kernel's state now, for grab mode's "grab only at idle" (EVIOCGMTSLOTS and
 * EVIOCGKEY are function-like macros, which Swift cannot call). */

/* How many of the first `slots` slots (at most 64) have a tracking id >= 0, or -errno. */
static inline int popgestured_slots_down(int fd, unsigned slots) {
    int32_t values[1 + 64] = { ABS_MT_TRACKING_ID };
    if (slots > 64) slots = 64;
    if (ioctl(fd, EVIOCGMTSLOTS(sizeof(int32_t) * (1 + slots)), values) < 0) return -errno;
    int down = 0;
    for (unsigned i = 0; i < slots; i++) down += values[1 + i] >= 0;
    return down;
}

/* Whether key `code` (at most KEY_MAX) is down: 1 or 0, or -errno. */
static inline int popgestured_key_down(int fd, unsigned code) {
    enum { bits_per_long = 8 * sizeof(unsigned long) };
    unsigned long bits[KEY_MAX / bits_per_long + 1] = { 0 };
    if (code > KEY_MAX) return -EINVAL;
    if (ioctl(fd, EVIOCGKEY(sizeof bits), bits) < 0) return -errno;
    return (int)((bits[code / bits_per_long] >> (code % bits_per_long)) & 1);
}

#include <linux/uinput.h>

/* UI_SET_PHYS before UI_DEV_CREATE: libevdev's uinput code never sets phys.
 * Returns 0 or -errno. */
static inline int popgestured_uinput_set_phys(int fd, const char *phys) {
    return ioctl(fd, UI_SET_PHYS, phys) < 0 ? -errno : 0;
}
