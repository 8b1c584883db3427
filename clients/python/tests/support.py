"""Shared test helpers: the source tree on sys.path, the daemon binary, daemons in
temporary folders, and raw protocol queries that do not go through the library."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # clients/python
if PACKAGE_ROOT not in sys.path:
    sys.path.insert(0, PACKAGE_ROOT)
REPO = os.path.dirname(os.path.dirname(PACKAGE_ROOT))
BINARY = os.environ.get("POPGESTURED_BINARY") or os.path.join(REPO, ".build", "debug", "popgestured")


def require_binary():
    """Skip (fail under CI) when the daemon binary is missing."""
    if os.path.isfile(BINARY) and os.access(BINARY, os.X_OK):
        return
    message = (f"popgestured binary not found at {BINARY}: build it (swift build) or set POPGESTURED_BINARY")
    if os.environ.get("CI"):
        raise AssertionError(message)
    raise unittest.SkipTest(message)


def temporary_directory(testcase):
    directory = tempfile.mkdtemp(prefix="popgesture-py-")
    testcase.addCleanup(shutil.rmtree, directory, True)
    return directory


def connects(path):
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
        return True
    except OSError:
        return False
    finally:
        probe.close()


class Daemon:
    """The real daemon on a socket in `directory`: `popgestured [args] --socket PATH`;
    with `demo` first, `popgestured-demo [rest] --socket PATH` (built beside it)."""

    def __init__(self, directory, args=(), socket_name="s.sock", log_name="daemon.log"):
        require_binary()
        self.directory = directory
        self.socket = os.path.join(directory, socket_name)
        self.log_path = os.path.join(directory, log_name)
        self.args = list(args)
        self.process = None
        self.start()

    def start(self, timeout=15.0):
        with open(self.log_path, "ab") as log:
            if self.args[:1] == ["demo"]:
                command = [os.path.join(os.path.dirname(BINARY), "popgestured-demo"), *self.args[1:]]
            else:
                command = [BINARY, *self.args]
            self.process = subprocess.Popen([*command, "--socket", self.socket], stdin=subprocess.DEVNULL,
                                            stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while not connects(self.socket):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"popgestured did not start:\n{self.log}")
            time.sleep(0.02)

    def stop(self, sig=signal.SIGTERM, timeout=10.0):
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    @property
    def log(self):
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as file:
                return file.read()
        except OSError:
            return ""


def start_daemon(testcase, args=()):
    daemon = Daemon(temporary_directory(testcase), args)
    testcase.addCleanup(daemon.stop)
    return daemon


def raw_query(path, request, timeout=5.0):
    """hello, then `request`; the reply to it (raw JSON, not through the library)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(path)
        sock.sendall(json.dumps({"type": "hello", "version": 1, "name": "test-probe"}).encode() + b"\n"
                     + json.dumps(dict(request, id="probe")).encode() + b"\n")
        buffer = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                raise AssertionError(f"popgestured closed the connection before answering {request}")
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                message = json.loads(line)
                if message.get("id") == "probe":
                    return message
    finally:
        sock.close()


def wait_for_demo(testcase, path):
    """Wait until `popgestured-demo` has its virtual touchscreen; skip if a real one is present."""
    deadline = time.monotonic() + 15
    status = {}
    while time.monotonic() < deadline:
        status = raw_query(path, {"type": "status"})
        if any(device.get("path") for device in status.get("devices", [])):
            break
        time.sleep(0.05)
    devices = status.get("devices", [])
    if not devices:
        raise AssertionError(f"popgestured-demo found no device: {status}")
    if any(d.get("kind") == "touchscreen" and d.get("path") != "(virtual)" for d in devices):
        testcase.skipTest("a real touchscreen is present, so popgestured-demo waits for a finger")
    return status
