"""What the back arrow looks like on a screenshot, as both of its drawers draw it (the
Python indicator, clients/indicator, and the GNOME Shell extension, desktop/gnome-shell/
arrow.js): a bubble of COLOUR at the middle of the left edge, SIZE x (MINIMUM_WIDTH +
(1 - MINIMUM_WIDTH) x fraction) wide. Shared by the GUI tests and the desktops tier."""

SIZE = 48                      # the arrow's full width in pixels (the indicator's default --size)
MINIMUM_WIDTH = 0.15           # its bubble's width at the start, as a fraction of SIZE
COLOUR = (0x33, 0x67, 0xD6)    # its default colour
REFUSAL_GREY = (0x75, 0x75, 0x75)  # the "no" of a refused swipe (`refused = on`)


def near(pixel, colour, tolerance=24):
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, colour))


def arrow(image):
    """The arrow's pixels near the left edge: (rightmost x + 1, pixel count); (0, 0) when none."""
    right, count = 0, 0
    for y in range(image.height // 2 - SIZE * 2, image.height // 2 + SIZE * 2):
        for x in range(0, SIZE * 3):
            if near(image.pixel(x, y), COLOUR):
                right, count = max(right, x + 1), count + 1
    return right, count


def expected_right(fraction):
    """How far from the left edge the bubble reaches at `fraction` of the commit point."""
    return SIZE * (MINIMUM_WIDTH + (1 - MINIMUM_WIDTH) * fraction)


def refusal(image):
    """The "no" bubble's grey pixels near the middle of the left edge: their count."""
    count = 0
    for y in range(image.height // 2 - SIZE * 2, image.height // 2 + SIZE * 2):
        for x in range(0, SIZE * 3):
            if near(image.pixel(x, y), REFUSAL_GREY, 4):
                count += 1
    return count
