"""The GLib front end on a GLib.MainLoop, against the real daemon; and
follow_window_focus with stand-ins for a GTK4 window (an is-active property) and a
GTK3 one (focus-in-event/focus-out-event), since the tests have no display.

Needs PyGObject (Debian: python3-gi, gir1.2-glib-2.0). When the interpreter running
the tests has no `gi` but /usr/bin/python3 has (a pyenv or venv python on a Debian
host), the tests run there, in a subprocess; with neither, they skip and say so.
"""

import os
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tests import support  # noqa: E402

try:
    import gi
    gi.require_version("GLib", "2.0")
    from gi.repository import GLib, GObject
    HAVE_GI = True
except (ImportError, ValueError):
    HAVE_GI = False

SYSTEM_PYTHON = "/usr/bin/python3"


def system_python_with_gi():
    if os.environ.get("POPGESTURE_GLIB_SUBPROCESS"):
        return None  # already the delegate: do not recurse
    if not os.access(SYSTEM_PYTHON, os.X_OK):
        return None
    if os.path.realpath(SYSTEM_PYTHON) == os.path.realpath(sys.executable):
        return None
    probe = subprocess.run([SYSTEM_PYTHON, "-c", "import gi; gi.require_version('GLib', '2.0')"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return SYSTEM_PYTHON if probe.returncode == 0 else None


if HAVE_GI:
    import popgesture  # noqa: E402
    from popgesture.glib import GLibClient, follow_window_focus  # noqa: E402

    class FakeGtk4Window(GObject.Object):
        """A GTK4 window as follow_window_focus sees it: the is-active property."""
        is_active = GObject.Property(type=bool, default=False)

    class FakeGtk3Window(GObject.Object):
        """A GTK3 window as follow_window_focus sees it: focus-in/out-event signals."""
        __gsignals__ = {
            "focus-in-event": (GObject.SignalFlags.RUN_LAST, bool, (object,)),
            "focus-out-event": (GObject.SignalFlags.RUN_LAST, bool, (object,)),
        }
        is_active = GObject.Property(type=bool, default=True)

    class Loop:
        """A GLib.MainLoop with a timeout; `until(predicate)` runs it until the predicate holds."""

        def __init__(self, testcase):
            self.testcase = testcase
            self.loop = GLib.MainLoop()

        def until(self, predicate, timeout=10.0, what="the condition"):
            if predicate():
                return
            deadline = time.monotonic() + timeout

            def check():
                if predicate() or time.monotonic() > deadline:
                    self.loop.quit()
                    return False
                return True
            source = GLib.timeout_add(10, check)
            self.loop.run()
            if GLib.MainContext.default().find_source_by_id(source):
                GLib.source_remove(source)
            self.testcase.assertTrue(predicate(), f"{what} did not happen within {timeout} s")

        def spin(self, seconds):
            """Run the loop for `seconds`, whatever happens."""
            GLib.timeout_add(int(seconds * 1000), lambda: self.loop.quit() or False)
            self.loop.run()

    class GLibTests(unittest.TestCase):
        def setUp(self):
            self.daemon = support.start_daemon(self)
            self.loop = Loop(self)
            self.events = []

        def client(self, **options):
            client = GLibClient(self.daemon.socket, on_event=self.events.append, **options)
            self.addCleanup(client.close)
            return client

        def of(self, kind):
            return [e for e in self.events if isinstance(e, kind)]

        def test_replies_errors_and_events_on_the_main_loop(self):
            client = self.client(app="org.example.Glib", name="glib")
            self.loop.until(lambda: client.ready, what="connecting")
            self.assertEqual(self.of(popgesture.Connected)[0].reconnected, False)
            replies, errors = [], []
            client.create("main", ["home", "detail"], on_reply=replies.append, on_error=errors.append)
            client.push("main", "detail", on_reply=replies.append, on_error=errors.append)
            client.push("main", "photo", on_reply=replies.append, on_error=errors.append)
            self.assertEqual((replies, errors), ([], []), "callbacks ran inside the request call")
            self.loop.until(lambda: len(replies) + len(errors) == 3, what="the replies")
            self.assertEqual([r["request"] for r in replies], ["create", "push"])
            self.assertEqual(len(errors), 1)
            self.assertIsInstance(errors[0], popgesture.RequestError)
            self.assertEqual((errors[0].code, errors[0].request), ("duplicate-page", "push"))
            self.loop.until(lambda: len(self.of(popgesture.Bar)) == 2, what="the bar events")
            self.assertEqual([b.page for b in self.of(popgesture.Bar)], ["detail", "photo"])
            stacks = []
            client.stack("main", on_reply=stacks.append)
            self.loop.until(lambda: stacks, what="the stack reply")
            self.assertEqual(stacks[0]["pages"], ["home", "detail", "photo"])

        def test_an_error_without_a_callback_goes_to_the_client_handler_or_the_log(self):
            failures = []
            client = self.client(on_error=lambda request, error: failures.append((request.type, error.code)))
            self.loop.until(lambda: client.ready, what="connecting")
            client.pop("nowhere")
            self.loop.until(lambda: failures, what="the error")
            self.assertEqual(failures, [("pop", "unknown-navigator")])
            client.on_error = None
            with self.assertLogs("popgesture", "WARNING") as logs:
                client.pop("nowhere")
                self.loop.until(lambda: logs.output, what="the logged error")
            self.assertIn("unknown-navigator", logs.output[0])

        def test_a_callback_that_raises_is_logged_and_the_client_keeps_going(self):
            def on_event(event):
                self.events.append(event)
                if isinstance(event, popgesture.Bar) and event.page == "detail":
                    raise RuntimeError("a bug in the app")
            client = GLibClient(self.daemon.socket, on_event=on_event)
            self.addCleanup(client.close)
            with self.assertLogs("popgesture", "ERROR") as logs:
                client.create("main", ["home", "detail"])
                client.push("main", "photo")
                self.loop.until(lambda: any(isinstance(e, popgesture.Bar) and e.page == "photo" for e in self.events),
                                what="the event after the one whose callback raised")
            self.assertIn("a bug in the app", "\n".join(logs.output))
            replies = []
            client.push("main", "more", on_reply=replies.append)
            self.loop.until(lambda: replies, what="a reply after the exception")

        def test_requests_while_disconnected_fail_on_the_next_turn_of_the_loop(self):
            self.daemon.stop()
            errors = []
            with self.assertLogs("popgesture", "INFO"):
                client = self.client()
            client.push("main", "x", on_error=errors.append)
            self.assertEqual(errors, [])
            self.loop.until(lambda: errors, what="the not-connected error")
            self.assertEqual(errors[0].code, "not-connected")

        def test_follow_window_focus_gtk4(self):
            client = self.client(name="gtk4")
            observer = self.client(name="observer")
            observer.subscribe()
            self.loop.until(lambda: client.ready and observer.client.subscribed, what="connecting")
            client.create("g4", ["home", "detail"])
            self.loop.until(lambda: any(e.navigator == "g4" for e in self.of(popgesture.FocusChanged)),
                            what="g4 in front")
            window = FakeGtk4Window()
            follower = follow_window_focus(client, window)  # inactive: reports focus out at once
            self.loop.until(lambda: self.of(popgesture.FocusChanged)[-1].navigator is None, what="focus out")
            self.assertIs(client.client.focused, False)
            window.props.is_active = True
            self.loop.until(lambda: self.of(popgesture.FocusChanged)[-1].navigator == "g4", what="focus in")
            self.assertIs(client.client.focused, True)
            follower.disconnect()
            window.props.is_active = False
            self.loop.spin(0.2)
            self.assertIs(client.client.focused, True, "still following after disconnect()")

        def test_follow_window_focus_gtk3(self):
            client = self.client(name="gtk3")
            observer = self.client(name="observer")
            observer.subscribe()
            self.loop.until(lambda: client.ready and observer.client.subscribed, what="connecting")
            client.create("g3", ["home", "detail"])
            window = FakeGtk3Window()
            follow_window_focus(client, window)  # active: reports focus in at once
            self.assertIs(client.client.focused, True)
            propagated = window.emit("focus-out-event", None)
            self.assertFalse(propagated, "the handler must let the event propagate")
            self.loop.until(lambda: self.of(popgesture.FocusChanged) and
                            self.of(popgesture.FocusChanged)[-1].navigator is None, what="focus out")
            window.emit("focus-in-event", None)
            self.loop.until(lambda: self.of(popgesture.FocusChanged)[-1].navigator == "g3", what="focus in")

        def test_reconnects_on_the_main_loop(self):
            client = self.client(name="glib-survivor")
            self.loop.until(lambda: client.ready, what="connecting")
            client.create("main", ["home", "detail"])
            client.focus(False)
            self.loop.until(lambda: client.navigators() == {"main": ["home", "detail"]}, what="create")
            self.daemon.stop()
            self.loop.until(lambda: self.of(popgesture.Disconnected), what="the disconnection")
            self.assertEqual(client.fileno(), -1)
            time.sleep(0.3)
            self.daemon.start()
            self.loop.until(lambda: any(e.reconnected for e in self.of(popgesture.Connected)), timeout=15,
                            what="the reconnection")
            self.assertGreaterEqual(client.fileno(), 0)
            stacks = []
            client.stack("main", on_reply=stacks.append)
            self.loop.until(lambda: stacks, what="the stack reply")
            self.assertEqual(stacks[0]["pages"], ["home", "detail"])
            self.assertEqual(stacks[0]["owner"], client.client.client_id)
            self.assertFalse(stacks[0]["front"], "the focus report was not re-sent")

    class DemoGLibTests(unittest.TestCase):
        def test_a_swipe_on_the_main_loop(self):
            daemon = support.start_daemon(self, ["demo", "--rounds", "0"])
            support.wait_for_demo(self, daemon.socket)
            events = []
            client = GLibClient(daemon.socket, name="glib-swipe", on_event=events.append)
            self.addCleanup(client.close)
            client.create("gswipe", ["home", "detail"])
            Loop(self).until(lambda: any(isinstance(e, popgesture.Back) for e in events), timeout=60, what="a back")
            kinds = [type(e) for e in events if isinstance(e, (popgesture.PopBegan, popgesture.PopProgress,
                                                               popgesture.PopFinished, popgesture.Back))]
            last_began = len(kinds) - 1 - kinds[::-1].index(popgesture.PopBegan)
            swipe = kinds[last_began:]
            self.assertEqual(swipe[-2:], [popgesture.PopFinished, popgesture.Back])
            self.assertEqual(set(swipe[1:-2]), {popgesture.PopProgress})

else:
    class GLibTests(unittest.TestCase):
        def test_glib_front_end(self):
            python = system_python_with_gi()
            if python is None:
                self.skipTest("PyGObject (gi) is not importable here and /usr/bin/python3 has none either: "
                              "apt install python3-gi gir1.2-glib-2.0 (scripts/setup does) to test popgesture.glib")
            support.require_binary()
            env = dict(os.environ, POPGESTURE_GLIB_SUBPROCESS="1", POPGESTURED_BINARY=support.BINARY)
            result = subprocess.run([python, "-m", "unittest", "-v", "tests.test_glib"], cwd=support.PACKAGE_ROOT,
                                    env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
            sys.stderr.write(f"\n[{python} (gi is not importable in {sys.executable})]\n{result.stdout}")
            self.assertEqual(result.returncode, 0, result.stdout)


if __name__ == "__main__":
    unittest.main()
