#!/usr/bin/env python3
"""A bare evdev reader: the floor the VM measurements compare against.

Reads raw ``struct input_event`` from /dev/input/eventN with the event clock set
to CLOCK_MONOTONIC (EVIOCSCLOCKID), so the kernel timestamps compare directly with
``clock_gettime(CLOCK_MONOTONIC)`` in other processes. Prints one line per event
of interest, flushed at once, all times in microseconds of CLOCK_MONOTONIC:

  ready                          the device is open (start playing after this)
  up <event_us> <read_us>        a frame in which the last finger lifted
  frame <event_us> <read_us>     every frame (only with --frames)
  dropped <event_us> <read_us>   SYN_DROPPED
  key <code> <value> <event_us>  every EV_KEY event (only with --keys; codes in
                                 decimal, as linux/input-event-codes.h: 56 is
                                 KEY_LEFTALT, 105 KEY_LEFT, 0x113 = 275 BTN_SIDE)
  syn <event_us>                 every SYN_REPORT (only with --keys)

<read_us> is taken right after read() returns the frame, so read_us - event_us is
this reader's own latency. Usage: evread.py /dev/input/eventN [--frames] [--keys]
"""
import fcntl
import os
import struct
import sys
import time

EVENT = struct.Struct("llHHi")  # struct input_event on 64-bit: timeval, type, code, value
EVIOCSCLOCKID = 0x400445A0  # _IOW('E', 0xa0, int)
EV_SYN, EV_KEY, EV_ABS = 0, 1, 3
SYN_REPORT, SYN_MT_REPORT, SYN_DROPPED = 0, 2, 3
BTN_TOUCH = 0x14A
ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID = 0x2F, 0x35, 0x36, 0x39


def main():
    node = sys.argv[1]
    frames = "--frames" in sys.argv[2:]
    keys = "--keys" in sys.argv[2:]
    fd = os.open(node, os.O_RDONLY)
    fcntl.ioctl(fd, EVIOCSCLOCKID, struct.pack("i", time.CLOCK_MONOTONIC))
    out = sys.stdout
    out.write("ready\n")
    out.flush()

    # Which fingers are down, from BTN_TOUCH when the device has it, else from the
    # MT state (slots for protocol B, contact reports for protocol A).
    touching = False
    slot, slots = 0, {}
    contacts_in_frame, mt_data, saw_btn_touch = 0, False, False
    lifted_in_frame = False
    while True:
        data = os.read(fd, EVENT.size * 64)
        read_us = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
        for off in range(0, len(data), EVENT.size):
            sec, usec, type_, code, value = EVENT.unpack_from(data, off)
            event_us = sec * 1_000_000 + usec
            if keys and type_ == EV_KEY:
                out.write(f"key {code} {value} {event_us}\n")
            elif keys and type_ == EV_SYN and code == SYN_REPORT:
                out.write(f"syn {event_us}\n")
            if type_ == EV_KEY and code == BTN_TOUCH:
                saw_btn_touch = True
                if touching and value == 0:
                    lifted_in_frame = True
                touching = value != 0
            elif type_ == EV_ABS and code == ABS_MT_SLOT:
                slot = value
            elif type_ == EV_ABS and code == ABS_MT_TRACKING_ID:
                slots[slot] = value >= 0
            elif type_ == EV_ABS and code in (ABS_MT_POSITION_X, ABS_MT_POSITION_Y):
                mt_data = True
            elif type_ == EV_SYN and code == SYN_MT_REPORT:
                # An empty report (no MT data before it) says no contact is left.
                contacts_in_frame += 1 if mt_data else 0
                mt_data = False
            elif type_ == EV_SYN and code == SYN_DROPPED:
                out.write(f"dropped {event_us} {read_us}\n")
            elif type_ == EV_SYN and code == SYN_REPORT:
                if not saw_btn_touch:
                    # No BTN_TOUCH: a lift is the moment no slot / no contact is left.
                    down = any(slots.values()) if slots else contacts_in_frame > 0
                    if touching and not down:
                        lifted_in_frame = True
                    touching = down
                if lifted_in_frame:
                    out.write(f"up {event_us} {read_us}\n")
                if frames:
                    out.write(f"frame {event_us} {read_us}\n")
                out.flush()
                lifted_in_frame, contacts_in_frame = False, 0


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
