"""What the GUI tests share: processes logged to the test's directory, waiting with a
deadline, and screenshots taken until the screen is still.

`Finger` writes a finger's frames into the daemon's event pipe. A test case mixes in `Session` and gives `self.directory`, `grab()` (an Image of the
whole screen now), `logs()` (what to print on failure) and, optionally, `watched`: the
name of the attribute holding the process whose exit fails a wait.
"""

import os
import struct
import subprocess
import tempfile
import time
import unittest

from tests import support  # clients/python/tests/support.py: the daemon, the binary

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


class Session:
    watched = None
    failed_prefix = "gui-failed-"

    def require(self, missing, what):
        """Skips (fails under CI) when anything is `missing`; then the binary, and a
        temporary `self.directory`."""
        if missing:
            message = f"{what} needs " + ", ".join(missing) + " (scripts/setup installs them)"
            if os.environ.get("CI"):
                self.fail(message)
            raise unittest.SkipTest(message)
        support.require_binary()
        self.directory = support.temporary_directory(self)

    def start_daemon(self):
        """The real daemon with its defaults (an empty file) reading `self.finger`'s
        swipes from its event pipe."""
        fifo = os.path.join(self.directory, "events")
        os.mkfifo(fifo, 0o600)
        config = os.path.join(self.directory, "empty.conf")
        open(config, "w").close()
        self.daemon = support.Daemon(self.directory, ["run", "--event-pipe", fifo, "--config", config])
        self.addCleanup(self.daemon.stop)
        self.finger = Finger(fifo)
        self.addCleanup(self.finger.close)

    def spawn(self, argv, name, env=None):
        """`argv` running, its output in NAME.log; stopped at cleanup."""
        log = open(os.path.join(self.directory, name + ".log"), "wb")
        self.addCleanup(log.close)
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env)
        self.addCleanup(self.stop, process)
        return process

    @staticmethod
    def stop(process):
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def read(self, name):
        try:
            with open(os.path.join(self.directory, name + ".log"), encoding="utf-8", errors="replace") as file:
                return file.read()
        except OSError:
            return ""

    def wait_for(self, predicate, timeout, what):
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                self.fail(f"no {what} within {timeout} s{self.logs()}")
            process = getattr(self, self.watched, None) if self.watched else None
            if process is not None and process.poll() is not None:
                self.fail(f"{self.watched} exited ({process.returncode}) waiting for {what}{self.logs()}")
            time.sleep(0.02)

    def shot(self, name, check, timeout=5.0):
        """Screenshots until the screen is still (two grabs alike) and `check(image)` returns
        None (it returns what is wrong otherwise); the last one is saved as NAME.png in
        $POPGESTURE_SCREENSHOTS when set, and kept elsewhere if the check never passed."""
        kept = os.environ.get("POPGESTURE_SCREENSHOTS")
        deadline = time.monotonic() + timeout
        previous = None
        while True:
            image = self.grab()
            still = previous is not None and image.rgb == previous.rgb
            problem = check(image) if still or time.monotonic() > deadline else "the screen is still changing"
            if problem is None or time.monotonic() > deadline:
                break
            previous = image
            time.sleep(0.05)
        if kept:
            os.makedirs(kept, exist_ok=True)
            image.save_png(os.path.join(kept, name + ".png"))
        if problem is not None:
            kept = kept or tempfile.mkdtemp(prefix=self.failed_prefix)
            image.save_png(os.path.join(kept, name + ".png"))
            self.fail(f"{name}: {problem} (screenshot: {os.path.join(kept, name + '.png')}){self.logs()}")
        return image
