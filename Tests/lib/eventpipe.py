"""A finger on the daemon's event pipe (`popgestured run --event-pipe FIFO`, docs/
CONFIGURATION.md): evdev frames of the pipe's touchscreen, 217 mm wide at 20 units a
millimetre, each stamped with CLOCK_MONOTONIC now. Shared by the GUI tests (Tests/GUI)
and the desktops tier (Tests/Desktops, where this folder is /testlib)."""

import os
import struct
import time

# The event pipe's touchscreen (docs/CONFIGURATION.md, "--event-pipe").
PANEL_MM = 217.0
UNITS_PER_MM = 20
EV_SYN, EV_KEY, EV_ABS = 0, 1, 3
SYN_REPORT, BTN_TOUCH = 0, 0x14A
ABS_X, ABS_Y, ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID = 0x00, 0x01, 0x2F, 0x35, 0x36, 0x39


class Finger:
    """One finger on the event pipe's touchscreen: each frame stamped with CLOCK_MONOTONIC now."""

    def __init__(self, fifo):
        self.fd = os.open(fifo, os.O_WRONLY)  # the daemon holds it open read-write: no wait
        self.x_mm = self.y_mm = 0.0
        self.tracking_id = 0

    def close(self):
        os.close(self.fd)

    def _frame(self, *events):
        now = time.clock_gettime(time.CLOCK_MONOTONIC)
        seconds, microseconds = int(now), int((now % 1) * 1_000_000)
        records = [struct.pack("llHHi", seconds, microseconds, kind, code, value)
                   for kind, code, value in (*events, (EV_SYN, SYN_REPORT, 0))]
        os.write(self.fd, b"".join(records))

    def _position(self):
        x, y = round(self.x_mm * UNITS_PER_MM), round(self.y_mm * UNITS_PER_MM)
        return ((EV_ABS, ABS_MT_POSITION_X, x), (EV_ABS, ABS_MT_POSITION_Y, y), (EV_ABS, ABS_X, x), (EV_ABS, ABS_Y, y))

    def down(self, x_mm, y_mm):
        self.x_mm, self.y_mm = x_mm, y_mm
        self.tracking_id += 1
        self._frame((EV_ABS, ABS_MT_SLOT, 0), (EV_ABS, ABS_MT_TRACKING_ID, self.tracking_id), *self._position(),
                    (EV_KEY, BTN_TOUCH, 1))

    def move_to(self, x_mm, step_mm=4.0, frame_s=0.01):
        """Toward x_mm in steps of step_mm, one frame every frame_s (4 mm / 10 ms: 400 mm/s)."""
        while self.x_mm < x_mm:
            time.sleep(frame_s)
            self.x_mm = min(x_mm, self.x_mm + step_mm)
            self._frame((EV_ABS, ABS_MT_SLOT, 0), *self._position())

    def up(self, frame_s=0.01):
        time.sleep(frame_s)
        self._frame((EV_ABS, ABS_MT_SLOT, 0), (EV_ABS, ABS_MT_TRACKING_ID, -1), (EV_KEY, BTN_TOUCH, 0))
