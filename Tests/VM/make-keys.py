#!/usr/bin/env python3
"""Writes an evemu events file of key presses for keyboard.desc (a real uinput
keyboard that the compositor reads through libinput, as a user's keyboard).

  make-keys.py ctrl+l                 a combination: modifiers down, key, up
  make-keys.py --text /tmp/a/b.html   text on a US layout (shift where needed)
  make-keys.py enter

Key names are linux/input-event-codes.h's without KEY_, in lower case. Every
press and release is its own frame, 20 ms apart (keyboard.desc has no repeat).
"""
import argparse
import string
import sys

CODES = {"esc": 1, "minus": 12, "equal": 13, "backspace": 14, "tab": 15, "enter": 28,
         "leftctrl": 29, "semicolon": 39, "apostrophe": 40, "leftshift": 42,
         "comma": 51, "dot": 52, "slash": 53, "leftalt": 56, "space": 57,
         "left": 105, "right": 106, "up": 103, "down": 108}
MODIFIERS = {"ctrl": "leftctrl", "alt": "leftalt", "shift": "leftshift"}
for row, first in (("1234567890", 2), ("qwertyuiop", 16), ("asdfghjkl", 30), ("zxcvbnm", 44)):
    for offset, char in enumerate(row):
        CODES[char] = first + offset
TEXT = {" ": ("space", False), "-": ("minus", False), "_": ("minus", True),
        "/": ("slash", False), ".": ("dot", False), ":": ("semicolon", True),
        "=": ("equal", False), ",": ("comma", False)}
for char in string.ascii_lowercase + string.digits:
    TEXT[char] = (char, False)
for char in string.ascii_uppercase:
    TEXT[char] = (char.lower(), True)


class Writer:
    def __init__(self):
        self.time = 1.0

    def key(self, name, value):
        print(f"E: {self.time:.6f} 0001 {CODES[name]:04x} {value}")
        print(f"E: {self.time:.6f} 0000 0000 0000")
        self.time += 0.02

    def combo(self, names):
        *mods, key = names
        for mod in mods:
            self.key(mod, 1)
        self.key(key, 1)
        self.key(key, 0)
        for mod in reversed(mods):
            self.key(mod, 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("combo", nargs="?")
    parser.add_argument("--text")
    args = parser.parse_args()
    out = Writer()
    if args.text is not None:
        for char in args.text:
            if char not in TEXT:
                sys.exit(f"make-keys.py: no key for {char!r}")
            name, shifted = TEXT[char]
            out.combo(["leftshift", name] if shifted else [name])
    elif args.combo:
        names = [MODIFIERS.get(part, part) for part in args.combo.lower().split("+")]
        unknown = [name for name in names if name not in CODES]
        if unknown:
            sys.exit(f"make-keys.py: unknown key {unknown[0]!r}")
        out.combo(names)
    else:
        parser.error("a combination or --text")


main()
