#!/usr/bin/env python3
"""Which known page a screenshot shows, for apps whose window title stays the same on
every page (GNOME 48's own apps in Tests/VM/scenarios/99-real-apps.sh): their header
bar shows the page's title and, below the first page, a back button.

    page-of.py SHOT NAME=REFERENCE...

SHOT and each REFERENCE are binary PPM (P6) crops of the same region (grim -t ppm -g).
Prints the NAME whose reference is nearest, then the distance (the percentage of
pixels where a channel differs by more than 40 of 255: a page's title and its back
button are a few hundred pixels of a header bar's 60,000, and the same page drawn
again by pixman differs in none), then how much nearer it is than the next one (the
margin): a tie or a crop of another size prints "none". Exit 0 when a page was named.
"""
import os
import sys

# The PPM reader of the tests' screenshots, Tests/lib (grim's format there too).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import screenshot  # noqa: E402


def read_ppm(path):
    with open(path, "rb") as f:
        image = screenshot.read_ppm(f.read())
    return (image.width, image.height), image.rgb


def distance(a, b):
    differing = sum(1 for i in range(0, len(a) - 2, 3)
                    if max(abs(a[i] - b[i]), abs(a[i + 1] - b[i + 1]), abs(a[i + 2] - b[i + 2])) > 40)
    return 100 * differing / max(1, len(a) // 3)


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    size, shot = read_ppm(argv[1])
    scores = []
    for arg in argv[2:]:
        name, _, path = arg.partition("=")
        ref_size, ref = read_ppm(path)
        if ref_size == size:
            scores.append((distance(shot, ref), name))
    scores.sort()
    if not scores or (len(scores) > 1 and scores[0][0] == scores[1][0]):
        print("none")
        return 1
    margin = scores[1][0] - scores[0][0] if len(scores) > 1 else float("inf")
    print(f"{scores[0][1]} {scores[0][0]:.3f} {margin:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
