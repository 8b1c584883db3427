"""The library's bounds and its hello, against a fake server of the test's own (a
loopback Unix socket): a 2 MiB line, a flood of events, garbage lines."""

import json
import os
import socket
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tests import support  # noqa: E402

import popgesture  # noqa: E402
from tests.test_blocking import events_until  # noqa: E402


class FakeServer:
    """Answers each connection's hello, then runs `behaviour(connection, number)`."""

    def __init__(self, testcase, behaviour):
        self.path = os.path.join(support.temporary_directory(testcase), "fake.sock")
        self.behaviour = behaviour
        self.hellos = []
        self.connections = []
        self.closing = False
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(8)
        self.listener.settimeout(0.1)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()
        testcase.addCleanup(self.close)

    def _serve(self):
        while not self.closing:
            try:
                connection, _ = self.listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            self.connections.append(connection)
            try:
                connection.settimeout(5)
                line = b""
                while not line.endswith(b"\n"):
                    chunk = connection.recv(1)
                    if not chunk:
                        break
                    line += chunk
                hello = json.loads(line)
                self.hellos.append(hello)
                connection.sendall(json.dumps({"type": "hello", "version": 1, "server": "fake",
                                               "client": len(self.hellos), "id": hello.get("id")}).encode() + b"\n")
                self.behaviour(connection, len(self.hellos))
            except (OSError, ValueError):
                pass  # the client dropped us: what some tests want

    def close(self):
        self.closing = True
        self.listener.close()
        self.thread.join(5)
        for connection in self.connections:
            connection.close()


def lines(*messages):
    return b"".join(json.dumps(m).encode() + b"\n" for m in messages)


class BoundsTests(unittest.TestCase):
    def test_hello_says_app_name_and_version(self):
        server = FakeServer(self, lambda connection, number: None)
        client = popgesture.BlockingClient(server.path, app="org.example.Files", name="files")
        self.addCleanup(client.close)
        self.assertEqual(server.hellos[0], {"type": "hello", "version": 1, "name": "files",
                                            "app": "org.example.Files", "id": 1})
        self.assertEqual((client.client.server, client.client.client_id), ("fake", 1))
        several = popgesture.BlockingClient(server.path, versions=(2, 1))
        self.addCleanup(several.close)
        self.assertEqual(server.hellos[1], {"type": "hello", "version": 1, "versions": [1, 2], "id": 1})

    def test_a_line_over_1_mib_drops_the_connection_and_the_library_reconnects(self):
        def behaviour(connection, number):
            if number == 1:
                connection.sendall(b'{"type":"bar","navigator":"' + b"x" * (2 << 20) + b'"}\n')
            else:
                connection.sendall(lines({"type": "bar", "navigator": "m", "page": "p", "hidden": False}))
        server = FakeServer(self, behaviour)
        with self.assertLogs("popgesture", "WARNING") as logs:
            client = popgesture.BlockingClient(server.path, app="org.example.Files", timeout=10)
            self.addCleanup(client.close)
            seen = events_until(client, lambda e: isinstance(e, popgesture.Bar), 10)
        self.assertIn("a line from popgestured passed 1048576 bytes", "\n".join(logs.output))
        kinds = [type(e) for e in seen]
        self.assertEqual(kinds, [popgesture.Connected, popgesture.Disconnected, popgesture.Connected, popgesture.Bar])
        self.assertIn("1048576-byte limit", seen[1].reason)
        self.assertTrue(seen[2].reconnected)
        self.assertEqual(len(server.hellos), 2)
        self.assertEqual(server.hellos[1]["app"], "org.example.Files")

    def test_a_long_line_under_the_bound_is_accepted(self):
        page = "p" * 900_000
        server = FakeServer(self, lambda c, n: c.sendall(lines({"type": "bar", "navigator": "m", "page": page})))
        client = popgesture.BlockingClient(server.path)
        self.addCleanup(client.close)
        bar = events_until(client, lambda e: isinstance(e, popgesture.Bar))[-1]
        self.assertEqual(len(bar.page), 900_000)
        self.assertEqual(len(server.hellos), 1)

    def test_the_bound_is_configurable(self):
        server = FakeServer(self, lambda c, n: c.sendall(lines({"type": "bar", "navigator": "m", "page": "p" * 5000})
                                                          if n == 1 else b""))
        with self.assertLogs("popgesture", "WARNING"):
            client = popgesture.BlockingClient(server.path, max_line_bytes=4096)
            self.addCleanup(client.close)
            events_until(client, lambda e: isinstance(e, popgesture.Connected) and e.reconnected, 10)

    def test_a_flood_of_progress_is_merged_not_queued_without_bound(self):
        swipe = [{"type": "pop-began", "navigator": "m", "page": "d", "progress": 0.01, "time_us": 1}]
        swipe += [{"type": "pop-progress", "navigator": "m", "page": "d", "progress": i / 1000, "time_us": 1 + i}
                  for i in range(2, 1001)]
        swipe += [{"type": "pop-finished", "navigator": "m", "page": "d", "reason": "progress", "time_us": 2000},
                  {"type": "back", "navigator": "m", "popped": "d", "top": "home", "time_us": 2000}]
        server = FakeServer(self, lambda c, n: (time.sleep(0.2), c.sendall(lines(*swipe))) if n == 1 else None)
        client = popgesture.BlockingClient(server.path, max_queued_events=8)
        self.addCleanup(client.close)
        time.sleep(0.5)  # everything arrives before the application takes any of it
        seen = events_until(client, lambda e: isinstance(e, popgesture.Back))
        self.assertLessEqual(client.client.pending_events(), 8)
        gesture = [e for e in seen if not isinstance(e, popgesture.Connected)]
        self.assertIsInstance(gesture[0], popgesture.PopBegan)
        self.assertIsInstance(gesture[-2], popgesture.PopFinished)
        self.assertIsInstance(gesture[-1], popgesture.Back)
        progress = [e.progress for e in gesture if isinstance(e, popgesture.PopProgress)]
        self.assertEqual(progress[-1], 1.0)             # the latest progress is never lost
        self.assertEqual(progress, sorted(progress))
        self.assertLess(len(gesture), 20)
        self.assertEqual(len(server.hellos), 1)          # no reconnect was needed

    def test_a_user_switch_pauses_and_resumes_the_same_connection(self):
        # Issue 28: the daemon pauses a client whose user left the seat, and resumes it.
        def switch(connection, number):
            if number == 1:
                connection.sendall(lines({"type": "paused", "reason": "uid 1000 is not the active user of a seat now"}))
                time.sleep(0.3)
                connection.sendall(lines({"type": "resumed"}))
        server = FakeServer(self, switch)
        client = popgesture.BlockingClient(server.path)
        self.addCleanup(client.close)
        paused = events_until(client, lambda e: isinstance(e, popgesture.Paused))
        self.assertEqual(paused[-1].reason, "uid 1000 is not the active user of a seat now")
        self.assertTrue(client.client.paused)
        self.assertTrue(client.client.ready, "the connection stays")
        events_until(client, lambda e: isinstance(e, popgesture.Resumed))
        self.assertFalse(client.client.paused)
        self.assertEqual(len(server.hellos), 1, "nothing reconnected")

    def test_events_nobody_takes_drop_the_connection_as_the_daemon_would(self):
        bars = [{"type": "bar", "navigator": "m", "page": f"p{i}", "hidden": False} for i in range(20)]
        server = FakeServer(self, lambda c, n: c.sendall(lines(*bars)) if n == 1 else None)
        with self.assertLogs("popgesture", "WARNING") as logs:
            client = popgesture.BlockingClient(server.path, max_queued_events=8)
            self.addCleanup(client.close)
            deadline = time.monotonic() + 10
            while len(server.hellos) < 2 and time.monotonic() < deadline:
                client.poll()
                time.sleep(0.02)
        self.assertEqual(len(server.hellos), 2, "the library did not reconnect")
        self.assertIn("events wait for the application", "\n".join(logs.output))
        self.assertLessEqual(client.client.pending_events(), 8)

    def test_at_most_64_requests_await_their_replies(self):
        received = []

        def behaviour(connection, number):  # answers nothing after hello
            connection.settimeout(10)
            buffer = b""
            while buffer.count(b"\n") < 64:
                chunk = connection.recv(65536)
                if not chunk:
                    return
                buffer += chunk
            received.extend(json.loads(line) for line in buffer.splitlines())
        server = FakeServer(self, behaviour)
        client = popgesture.BlockingClient(server.path)
        self.addCleanup(client.close)
        handles = [client.client.stack(f"n{i}") for i in range(64)]
        refused = client.client.stack("one-too-many")
        self.assertIsInstance(refused.exception(), popgesture.TooManyPendingError)
        self.assertEqual(refused.exception().code, "too-many-pending")
        deadline = time.monotonic() + 10
        while len(received) < 64 and time.monotonic() < deadline:
            client.poll()
            time.sleep(0.01)
        self.assertEqual([m["navigator"] for m in received], [f"n{i}" for i in range(64)])
        self.assertEqual([m["id"] for m in received], [h.id for h in handles])

    def test_lines_that_are_not_json_objects_are_skipped(self):
        def behaviour(connection, number):
            connection.sendall(b"not json\n[1,2]\n\r\n\n" + lines(
                {"type": "error", "code": "line-timeout", "message": "a line was started but not ended"},
                {"type": "novel", "x": 1},
                {"type": "bar", "navigator": "m", "page": "p", "hidden": True}))
        server = FakeServer(self, behaviour)
        with self.assertLogs("popgesture", "WARNING") as logs:
            client = popgesture.BlockingClient(server.path)
            self.addCleanup(client.close)
            seen = events_until(client, lambda e: isinstance(e, popgesture.Bar))
        self.assertEqual(len(logs.output), 2)
        error, novel = seen[-3], seen[-2]
        self.assertEqual((type(error), error.code), (popgesture.Error, "line-timeout"))
        self.assertEqual((type(novel), novel.type, novel.raw["x"]), (popgesture.Event, "novel", 1))
        self.assertEqual(len(server.hellos), 1)


if __name__ == "__main__":
    unittest.main()
