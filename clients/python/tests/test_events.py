"""Typed events, pages and arguments: no daemon needed."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tests import support  # noqa: E402,F401  (puts the source tree first on sys.path)

import popgesture  # noqa: E402
from popgesture import events  # noqa: E402


class DecodeTests(unittest.TestCase):
    def test_owner_events_are_typed(self):
        cases = [
            ({"type": "pop-began", "navigator": "m", "page": "d", "progress": 0.018, "time_us": 1000010000},
             popgesture.PopBegan(navigator="m", page="d", progress=0.018, time_us=1000010000)),
            ({"type": "pop-progress", "navigator": "m", "page": "d", "progress": 1, "time_us": 2},
             popgesture.PopProgress(navigator="m", page="d", progress=1, time_us=2)),
            ({"type": "pop-finished", "navigator": "m", "page": "d", "reason": "fling", "time_us": 3},
             popgesture.PopFinished(navigator="m", page="d", reason="fling", time_us=3)),
            ({"type": "pop-cancelled", "navigator": "m", "page": "d", "reason": "released", "time_us": 4},
             popgesture.PopCancelled(navigator="m", page="d", reason="released", time_us=4)),
            ({"type": "back", "navigator": "m", "popped": "d", "top": "home", "time_us": 5},
             popgesture.Back(navigator="m", popped="d", top="home", time_us=5)),
            ({"type": "bar", "navigator": "m", "page": "home", "hidden": False},
             popgesture.Bar(navigator="m", page="home", hidden=False)),
            ({"type": "focus-changed", "source": "shell", "app": "firefox", "pid": 4321},
             popgesture.FocusChanged(source="shell", app="firefox", pid=4321, navigator=None)),
            ({"type": "screen-changed", "rotation": 90, "rotationSource": "shell", "output": "DSI-1",
              "direction": "rtl", "directionSource": "shell"},
             popgesture.ScreenChanged(rotation=90, rotationSource="shell", output="DSI-1", direction="rtl",
                                      directionSource="shell")),
            ({"type": "rejected", "reason": "too-steep", "device": 0, "time_us": 6},
             popgesture.Rejected(reason="too-steep", device=0, time_us=6)),
            ({"type": "refused", "reason": "stack-too-shallow", "device": 1, "time_us": 6},
             popgesture.Refused(reason="stack-too-shallow", device=1, time_us=6)),
            ({"type": "back-input", "app": "firefox", "input": "alt+left", "reason": "fling", "time_us": 7},
             popgesture.BackInput(app="firefox", input="alt+left", reason="fling", time_us=7)),
            ({"type": "error", "code": "line-timeout", "message": "m"},
             popgesture.Error(code="line-timeout", message="m")),
            ({"type": "paused", "reason": "uid 1000 is not the active user of a seat now"},
             popgesture.Paused(reason="uid 1000 is not the active user of a seat now")),
            ({"type": "resumed"}, popgesture.Resumed()),
        ]
        for raw, expected in cases:
            with self.subTest(raw["type"]):
                event = popgesture.decode_event(raw)
                self.assertEqual(event, expected)
                self.assertIs(type(event), type(expected))
                self.assertEqual(event.type, raw["type"])
                self.assertEqual(event.raw, raw)
                self.assertIsInstance(event, popgesture.Event)

    def test_unknown_or_misshapen_events_are_generic_never_an_exception(self):
        for raw in ({"type": "teleported", "navigator": "m"},
                    {"type": "back", "navigator": "m"},                       # missing popped/top
                    {"type": "pop-began", "navigator": "m", "page": "d", "progress": "far"},
                    {"type": "bar", "navigator": 7, "page": "p"},
                    {"type": "pop-progress", "navigator": "m", "page": "d", "progress": True},
                    {"no": "type"}):
            with self.subTest(raw=raw):
                event = popgesture.decode_event(raw)
                self.assertIs(type(event), popgesture.Event)
                self.assertEqual(event.raw, raw)

    def test_input_progress_carries_progress_and_commit(self):
        event = popgesture.decode_event({"type": "input-progress", "app": "foot", "progress": 0.15, "commit": 0.3,
                                         "time_us": 5})
        self.assertIsInstance(event, popgesture.InputProgress)
        self.assertEqual((event.app, event.progress, event.commit), ("foot", 0.15, 0.3))

    def test_extra_fields_are_kept_in_raw(self):
        event = popgesture.decode_event({"type": "bar", "navigator": "m", "page": "p", "hidden": True, "new": 1})
        self.assertIsInstance(event, popgesture.Bar)
        self.assertEqual(event.raw["new"], 1)

    def test_schema_covers_the_documented_events(self):
        documented = {"pop-began", "pop-progress", "pop-finished", "back", "pop-cancelled", "bar", "rejected", "refused",
                      "input-began", "input-progress", "input-cancelled", "back-input", "focus-changed",
                      "screen-changed", "paused", "resumed", "error"}
        self.assertEqual(set(events._SCHEMA), documented)


class ArgumentTests(unittest.TestCase):
    def test_pages_to_wire(self):
        page = popgesture.Page("photo", pop_disabled=True, prefers_bar_hidden=True, max_start_distance=12,
                               exclusion_zones=[(0, 0.5, 1, 0.5)])
        self.assertEqual(page.to_wire(), {"id": "photo", "popDisabled": True, "prefersBarHidden": True,
                                          "maxStartDistance": 12, "exclusionZones": [[0, 0.5, 1, 0.5]]})
        self.assertEqual(popgesture.Page("home").to_wire(), {"id": "home"})

    def test_default_socket_path(self):
        saved = os.environ.pop("POPGESTURED_SOCKET", None)
        try:
            self.assertEqual(popgesture.Client().socket_path, "/run/popgestured/popgestured.sock")
            os.environ["POPGESTURED_SOCKET"] = "/tmp/elsewhere.sock"
            self.assertEqual(popgesture.Client().socket_path, "/tmp/elsewhere.sock")
            self.assertEqual(popgesture.Client("/x.sock").socket_path, "/x.sock")
        finally:
            os.environ.pop("POPGESTURED_SOCKET", None)
            if saved is not None:
                os.environ["POPGESTURED_SOCKET"] = saved

    def test_bad_arguments_raise_at_once(self):
        client = popgesture.Client("/nonexistent/s.sock")
        with self.assertRaises(ValueError):
            client.create("", ["home"])
        with self.assertRaises(TypeError):
            client.create("main", "home")           # a str is not a list of pages
        with self.assertRaises(ValueError):
            client.push("main", "x" * 257)          # the daemon's 256-byte limit
        with self.assertRaises(ValueError):
            popgesture.Client(app="a" * 300)

    def test_requests_while_disconnected_fail_with_not_connected(self):
        client = popgesture.Client("/nonexistent/s.sock")
        handle = client.push("main", "detail")
        self.assertTrue(handle.done())
        self.assertIsInstance(handle.exception(), popgesture.NotConnectedError)
        self.assertEqual(handle.exception().code, "not-connected")
        with self.assertRaises(popgesture.NotConnectedError):
            handle.result()
        # focus is state: remembered, and answered at once.
        focus = client.focus(False)
        self.assertEqual(focus.result()["deferred"], True)
        self.assertIs(client.focused, False)

    def test_connect_failure_schedules_a_backed_off_retry(self):
        client = popgesture.Client("/nonexistent/s.sock")
        with self.assertLogs("popgesture", "INFO") as logs:
            client.connect()
        self.assertEqual(client.fileno(), -1)
        self.assertIsNotNone(client.timeout())
        self.assertLessEqual(client.timeout(), 0.1)
        self.assertIn("retrying in 0.1 s", "\n".join(logs.output))
        client.close()
        self.assertIsNone(client.timeout())
        self.assertTrue(client.closed)


if __name__ == "__main__":
    unittest.main()
