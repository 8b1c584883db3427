#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora: small inputs made here, never copies of recordings.

Run from anywhere: python3 Fuzz/Corpus/make-seeds.py. The FuzzEngine seeds follow the
byte layout ArbitraryInput (Sources/PopGestureCore/Synthesis/ArbitraryInput.swift) decodes.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def write(target, name, data):
    os.makedirs(os.path.join(HERE, target), exist_ok=True)
    with open(os.path.join(HERE, target, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


# --- FuzzRequestParser: one line each, a request or a daemon message.
requests = {
    "hello": '{"type":"hello","version":1,"name":"files","id":7}',
    "subscribe": '{"type":"subscribe"}',
    "status": '{"type":"status","id":"s"}',
    "create": '{"type":"create","navigator":"main","pages":[{"id":"root"},{"id":"detail","prefers_bar_hidden":true}]}',
    "push": '{"type":"push","navigator":"n","page":{"id":"p","exclusion_zones":[{"x":0,"y":0,"width":0.1,"height":1}]},"animated":true}',
    "pop": '{"type":"pop","navigator":"n","animated":false,"id":1.5}',
    "numbers": '{"type":"hello","version":1e400,"id":-0.0}',
    "escapes": '{"type":"hello","name":"\\u00e9\\ud83d\\ude00\\n","version":1}',
    "hello-versions": '{"type":"hello","version":1,"versions":[1,2,-3]}',
    # The daemon's lines: the same target decodes each input as a message too.
    "reply-status": '{"type":"status","version":1,"devices":[{"device":0,"name":"t","path":"/dev/input/event5","kind":"touchscreen"}],"deviceCount":2,"navigators":[],"navigatorCount":0,"clients":[{"client":3,"pid":1,"uid":0,"gid":0,"observer":true}],"clientCount":1,"truncated":true,"id":2}',
    "reply-error": '{"type":"error","code":"unsupported-version","message":"m","request":"hello","supported":[1],"id":"h"}',
    "event-pop-began": '{"type":"pop-began","navigator":"main","page":"detail","progress":0.018,"time_us":1000010000}',
    "event-rejected": '{"type":"rejected","reason":"too-steep","device":0,"time_us":1000020000}',
    # Issue 9: who a client is, focus, and the back input.
    "hello-shell": '{"type":"hello","version":1,"name":"bridge","app":"org.gnome.Nautilus","role":"shell"}',
    "focus": '{"type":"focus","focused":false,"id":3}',
    "focused-window": '{"type":"focused-window","app":"firefox","pid":4321}',
    "reply-status-focus": '{"type":"status","version":1,"devices":[],"navigators":[],"clients":[],"focus":{"source":"shell","app":"firefox","pid":4321},"lastBack":{"target":"input","app":"firefox","input":"alt+left"}}',
    "event-back-input": '{"type":"back-input","app":"firefox","input":"alt+left","reason":"fling","time_us":5}',
    "event-focus-changed": '{"type":"focus-changed","source":"clients","navigator":"main"}',
    # Issue 27: the shell's outputs.
    "outputs": '{"type":"outputs","outputs":[{"name":"eDP-1","rotation":90,"widthMillimetres":256,"heightMillimetres":144,"builtIn":true,"inputs":["1267:10780:ELAN_Touchscreen"]},{"name":"HDMI-A-1","rotation":0}],"id":2}',
}
# Issue 7 defect 1: 513 '[' (or 512 '{"a":' and a '[') killed the daemon inside Foundation's
# JSON parser. Kept as seeds, and in Tests/Fixtures/fuzz-regressions/FuzzRequestParser/.
requests["nesting-513-brackets"] = "[" * 513
requests["nesting-512-objects"] = '{"a":' * 512 + "["
for name, line in requests.items():
    write("FuzzRequestParser", name, line + "\n")

# --- FuzzRecordings: an evemu recording and a libinput record, both tiny.
evemu = """# EVEMU 1.3
N: Seed Touchscreen
I: 0018 03eb 8a03 0001
P: 02 00 00 00 00 00 00 00
B: 00 0b 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 04 00 00 00 00 00 00
B: 03 03 00 00 00 00 80 60 02
A: 00 0 4095 0 0 16
A: 01 0 4095 0 0 16
A: 2f 0 9 0 0 0
A: 35 0 4095 0 0 16
A: 36 0 4095 0 0 16
A: 39 0 65535 0 0 0
"""
events = []
t = 0
events.append((t, [(3, 0x2F, 0), (3, 0x39, 1), (3, 0x35, 100), (3, 0x36, 2000), (1, 0x14A, 1)]))
for step in range(1, 12):
    t += 10000
    events.append((t, [(3, 0x35, 100 + step * 150)]))
t += 10000
events.append((t, [(3, 0x39, -1), (1, 0x14A, 0)]))
lines = []
for t, frame in events:
    stamp = "%d.%06d" % (1 + t // 1000000, t % 1000000)
    for type_, code, value in frame:
        lines.append("E: %s %04x %04x %d" % (stamp, type_, code, value))
    lines.append("E: %s 0000 0000 0000\t# ------------ SYN_REPORT (0) ----------" % stamp)
write("FuzzRecordings", "evemu-swipe", evemu + "\n".join(lines) + "\n")
write("FuzzRecordings", "evemu-description", evemu)

frames = []
for t, frame in events:
    sec, usec = 1 + t // 1000000, t % 1000000
    evs = ", ".join("[%d, %d, %d, %d, %d]" % (sec, usec, ty, co, va) for ty, co, va in frame + [(0, 0, 0)])
    frames.append("  - evdev: [%s]" % evs)
libinput = """version: 1
ndevices: 1
devices:
- node: /dev/input/event7
  evdev:
    name: Seed Touchscreen
    id: [24, 1003, 35331, 1]
    codes:
      0: [0, 1, 3]
      1: [330]
      3: [0, 1, 47, 53, 54, 57]
    absinfo:
      0: [0, 4095, 0, 0, 16]
      1: [0, 4095, 0, 0, 16]
      47: [0, 9, 0, 0, 0]
      53: [0, 4095, 0, 0, 16]
      54: [0, 4095, 0, 0, 16]
      57: [0, 65535, 0, 0, 0]
    properties: [1]
  udev:
    properties:
    - ID_INPUT_WIDTH_MM=256
    - ID_INPUT_HEIGHT_MM=256
  events:
""" + "\n".join(frames) + "\n"
write("FuzzRecordings", "libinput-swipe", libinput)

# --- FuzzEngine: device header + 6-byte events (see ArbitraryInput).
ABS_X, ABS_Y, SLOT, PX, PY, TID, MAJOR, TOOL, PRESSURE = range(9)  # indices into absCodes
BTN_TOUCH, TOOL_FINGER, DOUBLETAP = 0, 1, 2  # indices into keyCodes


def axis(min_pick, max_pick, resolution):
    return bytes([min_pick, max_pick, resolution])


def event(kind, selector, value):
    # kind bit 0x80 marks a raw 32-bit value; otherwise the low 16 bits, signed.
    return bytes([kind | 0x80, selector]) + struct.pack("<i", value)


def syn():
    return event(0, 0, 0)


def absolute(code_index, value):
    return event(3, code_index, value)


def key(code_index, value):
    return event(2, code_index, value)


def swipe(codes, touch_key=None, start_x=100, slots=True):
    out = b""
    land = ([absolute(SLOT, 0), absolute(TID, 1)] if slots else []) + [absolute(codes[0], start_x), absolute(codes[1], 2000)]
    if touch_key is not None:
        land.append(key(touch_key, 1))
    out += b"".join(land) + syn()
    for step in range(1, 15):
        out += absolute(codes[0], start_x + step * 150) + syn()
    out += (absolute(TID, -1) if slots else b"") + (key(touch_key, 0) if touch_key is not None else b"") + syn()
    return out


# Axes 0...4095 (pick 64 * 64 = 4096 → use raw picks): min pick 2 (= 0), max pick 64 (= 4096), resolution 16.
xy = axis(2, 64, 16) + axis(2, 64, 16)
protocol_b = bytes([0x04 | 0x10]) + xy + bytes([9])  # direct, BTN_TOUCH, 10 slots
write("FuzzEngine", "protocol-b-swipe", protocol_b + swipe((PX, PY), BTN_TOUCH))
protocol_a = bytes([0x01 | 0x04 | 0x10]) + xy
mt_report = event(0, 2, 0)
a_events = b""
for step in range(15):
    a_events += absolute(PX, 100 + step * 150) + absolute(PY, 2000) + mt_report + syn()
a_events += syn()
write("FuzzEngine", "protocol-a-swipe", protocol_a + a_events)
single = bytes([0x02 | 0x04 | 0x10]) + xy
write("FuzzEngine", "single-touch-swipe", single + swipe((ABS_X, ABS_Y), BTN_TOUCH, slots=False))
touchpad = bytes([0x08 | 0x10]) + xy + bytes([3])  # touchpad keys, 4 slots
pad = key(DOUBLETAP, 1) + syn() + key(DOUBLETAP, 0) + syn()
pad += absolute(SLOT, 0) + absolute(TID, 1) + absolute(PX, 100) + absolute(SLOT, 1) + absolute(TID, 2) + absolute(PX, 300) + key(DOUBLETAP, 1) + syn()
for step in range(1, 10):
    pad += absolute(SLOT, 0) + absolute(PX, 100 + step * 100) + absolute(SLOT, 1) + absolute(PX, 300 + step * 100) + syn()
pad += absolute(SLOT, 0) + absolute(TID, -1) + absolute(SLOT, 1) + absolute(TID, -1) + key(DOUBLETAP, 0) + syn()
write("FuzzEngine", "touchpad-two-finger", touchpad + pad)

# --- FuzzEDID: EDID base blocks as panels write them (the layout of Sources/PopGestureSynthesis/
# EDIDBlock.swift): a size in the first detailed timing and in bytes 21/22, and the checksum.


def edid(max_cm, detailed_mm, pixels=(1280, 800), extensions=b""):
    block = bytearray(128)
    block[0:8] = bytes([0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00])
    block[8:12] = bytes([0x09, 0xE5, 0x4B, 0x0A])  # BOE, product 0x0a4b
    block[16:20] = bytes([12, 31, 1, 4])  # week 12 of 2021, EDID 1.4
    block[20:25] = bytes([0xA5, max_cm[0], max_cm[1], 120, 0x02])
    block[38:54] = bytes([1, 1] * 8)
    if detailed_mm is not None:
        w, h = detailed_mm
        px, py = pixels
        block[54:72] = bytes([0xC6, 0x1B, px & 0xFF, 160, (px >> 8) << 4, py & 0xFF, 23, (py >> 8) << 4,
                              48, 32, 0x36, 0, w & 0xFF, h & 0xFF, (w >> 8) << 4 | (h >> 8), 0, 0, 0x18])
    else:
        block[54:72] = bytes([0, 0, 0, 0xFC, 0]) + b"Panel\n" + b" " * 7
    block[72:90] = bytes([0, 0, 0, 0xFC, 0]) + b"Panel\n" + b" " * 7
    block[126] = len(extensions) // 128
    block[127] = (-sum(block[:127])) % 256
    return bytes(block) + extensions


write("FuzzEDID", "tablet-217x136", edid((22, 14), (217, 136)))
write("FuzzEDID", "dsi-4.3-inch", edid((10, 5), (95, 54), (800, 480)))
write("FuzzEDID", "portrait-phone", edid((7, 14), (68, 136), (720, 1440)))
write("FuzzEDID", "hdmi-bridge-1600x900", edid((160, 90), (1600, 900), (1920, 1080)))
write("FuzzEDID", "projector-no-size", edid((0, 0), (0, 0), (1920, 1080)))
write("FuzzEDID", "name-first", edid((26, 16), None))
write("FuzzEDID", "with-extension", edid((34, 19), (344, 194), (1920, 1080), bytes([0x02, 0x03]) + bytes(126)))

# --- Hand-made FuzzEngine inputs for the traps issue 7 found (defects 6 and 7), in the
# fuzz target's format, kept as regression inputs beside the ones the fuzzer finds.
REGRESSIONS = os.path.join(HERE, "..", "..", "Tests", "Fixtures", "fuzz-regressions", "FuzzEngine")


def regression(name, data):
    os.makedirs(REGRESSIONS, exist_ok=True)
    with open(os.path.join(REGRESSIONS, name), "wb") as f:
        f.write(data)


# Axes from -2^31 to 2^31-1 (picks 0 and 1): AbsoluteAxis.span overflowed.
full = axis(0, 1, 0) + axis(0, 1, 0)
regression("issue7-axis-span-overflow", bytes([0x04 | 0x10]) + full + bytes([9]) + swipe((PX, PY), BTN_TOUCH))
# ABS_MT_SLOT up to 2^31-1 (slot pick 0): 60 GB of slots.
regression("issue7-slot-axis-2-31", protocol_b[:-1] + bytes([0]) + swipe((PX, PY), BTN_TOUCH))
# A timestamp near Int64.max (kind 0x60 jumps the clock, selector 0 to the top).
jump = bytes([0x60 | 0x06, 0]) + struct.pack("<i", 5)
regression("issue7-timestamp-int64-max", protocol_b + jump + swipe((PX, PY), BTN_TOUCH))
# An ABS code above ABS_MAX (selector 0xff) on a protocol A device: crashed inside libmtdev.
regression("issue7-protocol-a-abs-above-max", protocol_a + event(3, 0xFF, 1) + mt_report + syn() + a_events)
# BTN_TOOL_DOUBLETAP pressed and released with no contact in any slot: index -1 in PanRecognizer.
regression("issue7-doubletap-without-contacts", touchpad + key(DOUBLETAP, 1) + syn() + key(DOUBLETAP, 0) + syn())
# One frame of 1100 events before its SYN_REPORT.
regression("issue7-frame-over-1024-events", protocol_b + event(6, 0, 0) * 1100 + syn() + swipe((PX, PY), BTN_TOUCH))
# Issue 28: one protocol A frame of 40 contacts, then a swipe: libmtdev 1.1.6 never returned
# from a frame of 32 or more (ProtocolAConverter.maximumContactsPerFrame).
# The frame after it lifts every contact (one empty contact), so the swipe that follows is a
# touch of its own.
crowd = b"".join(absolute(PX, 300 + i * 90) + absolute(PY, 2000) + mt_report for i in range(40)) + syn() + mt_report + syn()
regression("issue28-protocol-a-40-contacts", protocol_a + crowd + a_events)
write("FuzzEngine", "protocol-a-many-contacts", protocol_a + crowd + crowd + a_events)
