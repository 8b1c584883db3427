"""What the GUI tests share: processes logged to the test's directory, waiting with a
deadline, and screenshots taken until the screen is still.

`Finger` (Tests/lib/eventpipe.py) writes a finger's frames into the daemon's event pipe. A test case mixes in `Session` and gives `self.directory`, `grab()` (an Image of the
whole screen now), `logs()` (what to print on failure) and, optionally, `watched`: the
name of the attribute holding the process whose exit fails a wait.
"""

import os
import subprocess
import tempfile
import time
import unittest

from eventpipe import PANEL_MM, Finger  # noqa: F401 - Tests/lib: the tests import them from here
from tests import support  # clients/python/tests/support.py: the daemon, the binary

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
