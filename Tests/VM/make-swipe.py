#!/usr/bin/env python3
"""Writes an evemu events file (``E:`` lines) for a one-finger gesture on a real
device description, for ``evemu-play`` in the VM tier.

The project's own synthesizer (PopGestureCore's TouchScript) has no evemu writer and
no command line, so the VM tier generates its fixtures here, from the ``A:`` (axis
ranges) and ``B:`` (event bits) lines of an evemu description or recording. The
frames follow the device's own protocol, as TouchScript writes them: slots
(protocol B), ``SYN_MT_REPORT`` (protocol A, for mtdev) or ``ABS_X``/``BTN_TOUCH``.

Shapes (x and y are fractions of the axis range, left/top = 0):

  swipe  down at (--from, --y), straight to (--to, --to-y) in --duration-ms, lift.
         The back gesture; with --to-y, a slanted one.
  hold   down at --from, move to --hold-at in 300 ms, rest --hold-ms with no
         events, then finish the swipe and lift: a pop that has begun and is still
         under the finger for a long time (unplug it meanwhile).
  flood  like hold (rest --hold-ms), then --flood-ms of dense 2 ms frames wiggling
         toward --to, and lift: enough events to overflow the kernel's evdev buffer
         of a reader that is stopped (SYN_DROPPED).
  press  down at --from, straight to --to in --duration-ms, and stays down: the
         device keeps the finger (uinput keeps its state after evemu-play exits).
  drag   a finger already down (a press) moves from --from to --to and stays down.
  release  the same, then lifts.

--slot and --tracking-id choose the finger's slot and id (protocol B). drag and
release select their slot with ABS_MT_SLOT, which the kernel passes on only when
the slot is not already the current one; protocol A sends the contact in every
frame, as that protocol does.

Example: make-swipe.py ../shared/recordings/elan-touchscreen.desc > swipe.events
"""
import argparse
import math
import sys

EV_SYN, EV_KEY, EV_ABS = 0x00, 0x01, 0x03
SYN_REPORT, SYN_MT_REPORT = 0x00, 0x02
BTN_TOUCH, BTN_TOOL_FINGER = 0x14A, 0x145
ABS_X, ABS_Y = 0x00, 0x01
ABS_MT_SLOT, ABS_MT_TOUCH_MAJOR, ABS_MT_TOUCH_MINOR = 0x2F, 0x30, 0x31
ABS_MT_POSITION_X, ABS_MT_POSITION_Y = 0x35, 0x36
ABS_MT_TOOL_TYPE, ABS_MT_TRACKING_ID = 0x37, 0x39
MT_TOOL_FINGER = 0


class Device:
    """The parts of an evemu description the generator needs."""

    def __init__(self, path):
        self.axes = {}  # code -> (min, max, resolution)
        bits = {}  # event type -> bytes of its code bitmask
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                fields = line.split()
                if not fields:
                    continue
                if fields[0] == "A:":
                    code, lo, hi = int(fields[1], 16), int(fields[2]), int(fields[3])
                    res = int(fields[6]) if len(fields) > 6 else 0
                    self.axes[code] = (lo, hi, res)
                elif fields[0] == "B:":
                    # Several B: lines of one type continue its bitmask.
                    bits.setdefault(int(fields[1], 16), []).extend(int(b, 16) for b in fields[2:])
        self.keys = bits.get(EV_KEY, [])
        if ABS_MT_SLOT in self.axes and ABS_MT_TRACKING_ID in self.axes:
            self.protocol = "B"
        elif ABS_MT_POSITION_X in self.axes:
            self.protocol = "A"
        elif ABS_X in self.axes:
            self.protocol = "single"
        else:
            raise SystemExit(f"{path}: no A: lines for a position axis; is it an evemu description?")

    def has_key(self, code):
        return code // 8 < len(self.keys) and self.keys[code // 8] & (1 << (code % 8)) != 0

    def units(self, code, fraction):
        lo, hi, _ = self.axes[code]
        return max(lo, min(hi, round(lo + fraction * (hi - lo))))

    def contact_size(self, code):
        """About 8 mm across: mtdev takes a touch of major 0 as lifted."""
        lo, hi, res = self.axes[code]
        return min(hi, lo + (8 * res if res > 0 else max(1, (hi - lo) // 30)))


class Writer:
    def __init__(self, device, out, slot=0, tracking_id=100):
        self.dev, self.out = device, out
        self.slot, self.tracking_id = slot, tracking_id
        self.t_us = 1_000_000  # evemu-play only uses the differences
        self.down = False
        self.select_slot = False  # the next frame writes ABS_MT_SLOT

    def emit(self, type_, code, value):
        s, us = divmod(self.t_us, 1_000_000)
        self.out.write(f"E: {s}.{us:06d} {type_:04x} {code:04x} {value}\n")

    def frame(self, x, y, began=False, ended=False):
        d = self.dev
        if d.protocol == "B":
            if (began or self.select_slot) and ABS_MT_SLOT in d.axes:
                self.emit(EV_ABS, ABS_MT_SLOT, self.slot)
                self.select_slot = False
            if ended:
                self.emit(EV_ABS, ABS_MT_TRACKING_ID, -1)
            else:
                if began:
                    self.emit(EV_ABS, ABS_MT_TRACKING_ID, self.tracking_id)
                self.position(x, y, mt=True)
        elif d.protocol == "A":
            if not ended:
                self.position(x, y, mt=True)
            self.emit(EV_SYN, SYN_MT_REPORT, 0)
        # Pointer emulation, as the kernel's input_mt_report_pointer_emulation does.
        if not ended and ABS_X in d.axes:
            self.emit(EV_ABS, ABS_X, d.units(ABS_X, x))
            self.emit(EV_ABS, ABS_Y, d.units(ABS_Y, y))
        for key in (BTN_TOUCH, BTN_TOOL_FINGER):
            if (began or ended) and d.has_key(key):
                self.emit(EV_KEY, key, 0 if ended else 1)
        self.emit(EV_SYN, SYN_REPORT, 0)

    def position(self, x, y, mt):
        d = self.dev
        self.emit(EV_ABS, ABS_MT_POSITION_X, d.units(ABS_MT_POSITION_X, x))
        self.emit(EV_ABS, ABS_MT_POSITION_Y, d.units(ABS_MT_POSITION_Y, y))
        for code in (ABS_MT_TOUCH_MAJOR, ABS_MT_TOUCH_MINOR):
            if code in d.axes:
                self.emit(EV_ABS, code, d.contact_size(code))
        if ABS_MT_TOOL_TYPE in d.axes:
            self.emit(EV_ABS, ABS_MT_TOOL_TYPE, MT_TOOL_FINGER)

    def move(self, x0, y0, x1, y1, duration_ms, frame_ms, wiggle=0.0):
        steps = max(1, round(duration_ms / frame_ms))
        for i in range(1, steps + 1):
            self.t_us += round(frame_ms * 1000)
            f = i / steps
            dy = wiggle * math.sin(2 * math.pi * i / 25) if wiggle else 0.0
            self.frame(x0 + (x1 - x0) * f, y0 + (y1 - y0) * f + dy)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("description", help="evemu .desc, or a recording with its header")
    p.add_argument("--shape", choices=["swipe", "hold", "flood", "press", "drag", "release"], default="swipe")
    p.add_argument("--from", dest="x0", type=float, default=0.02, help="start x (default 0.02)")
    p.add_argument("--to", dest="x1", type=float, default=0.60, help="end x (default 0.60)")
    p.add_argument("--y", type=float, default=0.5, help="height of the swipe (default 0.5)")
    p.add_argument("--to-y", dest="y1", type=float, default=None, help="swipe: end y (default: --y)")
    p.add_argument("--duration-ms", type=float, default=200, help="swipe time (default 200)")
    p.add_argument("--frame-ms", type=float, default=10, help="frame interval (default 10: 100 Hz)")
    p.add_argument("--hold-at", type=float, default=0.20, help="hold/flood: x where the finger rests")
    p.add_argument("--hold-ms", type=float, default=8000, help="hold/flood: rest time (default 8000)")
    p.add_argument("--flood-ms", type=float, default=5000, help="flood: dense part (default 5000)")
    p.add_argument("--slot", type=int, default=0, help="protocol B slot of the finger (default 0)")
    p.add_argument("--tracking-id", type=int, default=100, help="protocol B tracking id (default 100)")
    p.add_argument("--protocol", choices=["auto", "A", "B", "single"], default="auto",
                   help="override the protocol read from the description")
    a = p.parse_args()

    dev = Device(a.description)
    if a.protocol != "auto":
        dev.protocol = a.protocol
    out = sys.stdout
    out.write(f"# generated by Tests/VM/make-swipe.py --shape {a.shape} from {a.description} "
              f"(protocol {dev.protocol})\n")
    w = Writer(dev, out, slot=a.slot, tracking_id=a.tracking_id)
    if a.shape in ("drag", "release"):
        # The finger is already down at --from.
        w.select_slot = True
        w.move(a.x0, a.y, a.x1, a.y, a.duration_ms, a.frame_ms)
        if a.shape == "release":
            w.t_us += round(a.frame_ms * 1000)
            w.frame(a.x1, a.y, ended=True)
        return
    w.frame(a.x0, a.y, began=True)
    if a.shape == "press":
        w.move(a.x0, a.y, a.x1, a.y, a.duration_ms, a.frame_ms)
        return
    y1 = a.y if a.y1 is None else a.y1
    if a.shape == "swipe":
        w.move(a.x0, a.y, a.x1, y1, a.duration_ms, a.frame_ms)
    else:
        w.move(a.x0, a.y, a.hold_at, a.y, 300, a.frame_ms)
        w.t_us += round(a.hold_ms * 1000)
        if a.shape == "hold":
            w.move(a.hold_at, a.y, a.x1, a.y, a.duration_ms, a.frame_ms)
        else:
            w.move(a.hold_at, a.y, a.x1, a.y, a.flood_ms, 2, wiggle=0.02)
    w.t_us += round(a.frame_ms * 1000)
    w.frame(a.x1, y1 if a.shape == "swipe" else a.y, ended=True)


if __name__ == "__main__":
    main()
