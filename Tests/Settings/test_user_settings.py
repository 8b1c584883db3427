"""A user's settings for their seat (`user-settings`, issue 32), through the real daemon
binary: its socket, its event pipe's touchscreen, and the system file's `user-locked`.

    POPGESTURED_BINARY=.build/debug/popgestured python3 Tests/Settings/test_user_settings.py -v
"""

import json
import os
import socket
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "clients", "python"))
sys.path.insert(0, os.path.join(REPO, "Tests", "lib"))

from eventpipe import PANEL_MM, Finger  # noqa: E402
from tests import support  # noqa: E402

# Back input in edge mode (the default): the system's zone is 4.8 mm.
SYSTEM = """\
back-input = alt+left
user-locked = commit-progress
[back-input]
foot = none
"""


class Client:
    """A raw protocol client: hello, requests with ids, events kept as they come."""

    def __init__(self, path, name):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(path)
        self.buffer, self.events, self.next_id = b"", [], 0
        self.request({"type": "hello", "version": 1, "name": name})

    def close(self):
        self.sock.close()

    def _line(self):
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise AssertionError("the daemon closed the connection")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def request(self, body):
        self.next_id += 1
        self.sock.sendall(json.dumps(dict(body, id=self.next_id)).encode() + b"\n")
        while True:
            message = self._line()
            if message.get("id") == self.next_id:
                return message
            self.events.append(message)

    def wait_event(self, kind, timeout=10.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for event in self.events:
                if event.get("type") == kind:
                    self.events.remove(event)
                    return event
            self.sock.settimeout(max(0.05, deadline - time.monotonic()))
            try:
                self.events.append(self._line())
            except socket.timeout:
                break
        raise AssertionError(f"no {kind} event; got {[e.get('type') for e in self.events]}")

    def settings(self):
        return self.request({"type": "status"})["settings"]


class UserSettingsTest(unittest.TestCase):
    def setUp(self):
        support.require_binary()
        self.directory = support.temporary_directory(self)
        fifo = os.path.join(self.directory, "events")
        os.mkfifo(fifo, 0o600)
        config = os.path.join(self.directory, "popgestured.conf")
        with open(config, "w") as file:
            file.write(SYSTEM)
        self.daemon = support.Daemon(self.directory, ["run", "--event-pipe", fifo, "--config", config])
        self.addCleanup(self.daemon.stop)
        self.finger = Finger(fifo)
        self.addCleanup(self.finger.close)

    def client(self, name):
        client = Client(self.daemon.socket, name)
        self.addCleanup(client.close)
        return client

    def swipe_from(self, observer, x_mm):
        """A finger down `x_mm` from the left edge, 60 mm to the right, up: the observer's verdict."""
        self.finger.down(x_mm, 60.0)
        self.finger.move_to(x_mm + 60.0)
        self.finger.up()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            for event in list(observer.events):
                if event.get("type") in ("back-input", "rejected"):
                    observer.events.clear()
                    return event
            observer.sock.settimeout(0.2)
            try:
                observer.events.append(observer._line())
            except socket.timeout:
                pass
        self.fail(f"no verdict for the swipe from {x_mm} mm\n{self.daemon.log}")

    def test_a_20_mm_edge_takes_a_swipe_from_10_mm_and_status_says_whose(self):
        observer = self.client("observer")
        self.assertEqual(observer.request({"type": "subscribe"})["type"], "ok")
        before = observer.settings()
        self.assertEqual((before["edgeWidthMm"], before["user"], before["locked"]), (4.8, [], ["commit-progress"]))
        self.assertEqual(self.swipe_from(observer, 10.0).get("reason"), "outside-edge-zone")

        app = self.client("popgestured-settings")
        reply = app.request({"type": "user-settings", "text": "# the settings app's\nedge-width-mm = 20\n"})
        self.assertEqual(reply["type"], "ok", reply)
        after = observer.settings()
        self.assertEqual((after["edgeWidthMm"], after["user"], after["seat"]), (20, ["edge-width-mm"], "seat0"))
        self.assertEqual(self.swipe_from(observer, 10.0)["type"], "back-input", "the user's 20 mm edge")

        # The app leaves; the observer, the same user, is still here: they stay.
        app.close()
        time.sleep(0.3)
        self.assertEqual(observer.settings()["edgeWidthMm"], 20)
        # The empty text puts the system's back.
        self.assertEqual(observer.request({"type": "user-settings", "text": ""})["type"], "ok")
        self.assertEqual(observer.settings()["edgeWidthMm"], 4.8)

    def test_refused_with_the_reason_and_nothing_changes(self):
        client = self.client("settings")
        for text, code, words in [
            ("commit-progress = 0.5\n", "not-permitted", "commit-progress is locked by the administrator"),
            ("grab = on\n", "not-permitted", "grab is not a user's to set"),
            ("edge-width-mm = wide\n", "invalid-value", "popgestured.conf:1: edge-width-mm"),
            ("[back-input]\nfoot = side\n", "not-permitted", "the back input device sends only"),
            ("x" * (16 * 1024 + 1), "too-long", "at most 16384"),
        ]:
            reply = client.request({"type": "user-settings", "text": text})
            self.assertEqual(reply.get("code"), code, reply)
            self.assertIn(words, reply.get("message", ""), reply)
            self.assertEqual(reply.get("request"), "user-settings", reply)
        self.assertEqual(client.settings()["user"], [], "nothing was taken")

    def test_gone_when_the_user_has_no_client_left(self):
        app = self.client("settings")
        self.assertEqual(app.request({"type": "user-settings", "text": "mode = edge\nedge-width-mm = 9\n"})["type"], "ok")
        app.close()
        deadline = time.monotonic() + 10
        while True:
            probe = support.raw_query(self.daemon.socket, {"type": "status"})
            # The probe itself is a client of the same user: the settings were forgotten before it came.
            if probe["settings"]["edgeWidthMm"] == 4.8 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        self.assertEqual((probe["settings"]["edgeWidthMm"], probe["settings"]["user"]), (4.8, []))


if __name__ == "__main__":
    unittest.main()
