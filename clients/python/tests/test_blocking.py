"""The blocking front end against the real daemon: requests and replies, errors,
version negotiation, focus, observers and reconnecting after a daemon restart."""

import os
import signal
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tests import support  # noqa: E402

import popgesture  # noqa: E402


def events_until(client, predicate, timeout=10.0):
    """Events up to and including the first that satisfies `predicate`; fails on timeout."""
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = client.next_event(max(0.0, deadline - time.monotonic()))
        if event is None:
            break
        seen.append(event)
        if predicate(event):
            return seen
    raise AssertionError(f"no matching event within {timeout} s; saw {seen}")


class BlockingTests(unittest.TestCase):
    def setUp(self):
        self.daemon = support.start_daemon(self)

    def connect(self, **options):
        client = popgesture.BlockingClient(self.daemon.socket, **options)
        self.addCleanup(client.close)
        return client

    def test_hello_names_the_client_and_agrees_on_version_1(self):
        client = self.connect(app="org.example.Test", name="unit-test")
        self.assertTrue(client.ready)
        self.assertEqual(client.client.protocol_version, 1)
        self.assertEqual(client.client.server, "popgestured")
        status = support.raw_query(self.daemon.socket, {"type": "status"})
        names = {c["client"]: c.get("name") for c in status["clients"]}
        self.assertEqual(names[client.client.client_id], "unit-test")
        self.assertEqual(client.next_event(1), popgesture.Connected(client=client.client.client_id, version=1,
                                                                    server="popgestured", reconnected=False))

    def test_offering_several_versions_negotiates_the_common_one(self):
        client = self.connect(versions=(1, 2, 3))
        self.assertEqual(client.client.protocol_version, 1)

    def test_no_common_version_is_an_error_event_and_no_connection(self):
        client = popgesture.BlockingClient(self.daemon.socket, versions=(2, 3), connect=False)
        self.addCleanup(client.close)
        with self.assertLogs("popgesture", "WARNING") as logs:
            client.client.connect()
            event = events_until(client, lambda e: isinstance(e, popgesture.Error), 5)[-1]
        self.assertEqual(event.code, "unsupported-version")
        self.assertEqual(event.supported, [1])
        self.assertFalse(client.ready)
        self.assertIn("unsupported-version", "\n".join(logs.output))

    def test_requests_get_their_replies(self):
        client = self.connect(app="org.example.Test")
        self.assertEqual(client.create("main", ["home", "detail"]), {"type": "ok", "request": "create", "id": 2})
        self.assertEqual(client.push("main", popgesture.Page("photo", prefers_bar_hidden=True), animated=True)["type"], "ok")
        stack = support.raw_query(self.daemon.socket, {"type": "stack", "navigator": "main"})
        self.assertEqual(stack["pages"], ["home", "detail", "photo"])
        self.assertTrue(stack["transitioning"])
        client.settle("main")
        client.update("main", {"id": "photo", "popDisabled": True})
        client.configure("main", layout="rtl")
        client.create("second", ["a"])
        client.front("main")
        client.replace("second", ["a", "b", "c"])
        client.pop("second")
        own = client.stack("main")
        self.assertEqual(own["type"], "stack")
        self.assertEqual(own["owner"], client.client.client_id)
        self.assertFalse(own["transitioning"])
        self.assertTrue(own["front"])
        self.assertEqual(client.stack("second")["pages"], ["a", "b"])
        # The record follows what the daemon confirmed, front-most last.
        self.assertEqual(client.navigators(), {"second": ["a", "b"], "main": ["home", "detail", "photo"]})
        self.assertEqual(client.client.record("main").layout, "rtl")
        self.assertEqual(client.client.record("main").pages[-1], {"id": "photo", "popDisabled": True})
        client.remove("second")
        self.assertEqual(list(client.navigators()), ["main"])
        self.assertEqual(support.raw_query(self.daemon.socket, {"type": "stack", "navigator": "second"})["code"],
                         "unknown-navigator")
        # The bar events came, in order, after their replies.
        bars = [e for e in client.events(timeout=0.3) if isinstance(e, popgesture.Bar)]
        self.assertEqual(bars[0], popgesture.Bar(navigator="main", page="detail", hidden=False))
        self.assertEqual(bars[1], popgesture.Bar(navigator="main", page="photo", hidden=True))

    def test_errors_reach_the_caller_with_their_code(self):
        client = self.connect()
        client.create("main", ["home", "detail"])
        with self.assertRaises(popgesture.RequestError) as caught:
            client.push("main", "detail")
        self.assertEqual(caught.exception.code, "duplicate-page")
        self.assertEqual(caught.exception.request, "push")
        self.assertIsNotNone(caught.exception.id)
        self.assertIn("detail", caught.exception.message)
        for call, code in ((lambda: client.create("main", ["x"]), "navigator-exists"),
                           (lambda: client.push("nowhere", "x"), "unknown-navigator"),
                           (lambda: client.update("main", "nope"), "unknown-page"),
                           (lambda: client.replace("main", []), "empty-stack")):
            with self.subTest(code):
                with self.assertRaises(popgesture.RequestError) as caught:
                    call()
                self.assertEqual(caught.exception.code, code)
        client.pop("main")
        with self.assertRaises(popgesture.RequestError) as caught:
            client.pop("main")
        self.assertEqual(caught.exception.code, "cannot-pop-root")
        # A failed request changed nothing, in the daemon or the record.
        self.assertEqual(client.navigators(), {"main": ["home"]})
        self.assertEqual(client.stack("main")["pages"], ["home"])
        # A page JSON cannot encode raises in the call, and nothing is sent.
        with self.assertRaises(TypeError):
            client.push("main", {"id": "x", "unencodable": object()})
        # The connection stays usable.
        self.assertEqual(client.push("main", "detail")["type"], "ok")

    def test_only_the_owner_may_change_a_navigator(self):
        owner = self.connect(name="owner")
        other = self.connect(name="other")
        owner.create("main", ["home", "detail"])
        with self.assertRaises(popgesture.RequestError) as caught:
            other.pop("main")
        self.assertEqual(caught.exception.code, "not-owner")
        self.assertEqual(other.stack("main")["pages"], ["home", "detail"])  # anyone may read it

    def test_pipelined_requests_are_matched_to_their_replies_by_id(self):
        client = self.connect()
        core = client.client
        handles = [core.create("main", ["home"]), core.status(), core.push("main", "home"),
                   core.stack("main"), core.push("main", "two"), core.stack("nowhere")]
        self.assertEqual(len({h.id for h in handles}), len(handles))
        self.assertTrue(client._pump(lambda: all(h.done() for h in handles), 5))
        self.assertEqual(handles[0].result()["request"], "create")
        self.assertEqual(handles[1].result()["type"], "status")
        self.assertEqual(handles[2].exception().code, "duplicate-page")
        self.assertEqual(handles[3].result()["pages"], ["home"])
        self.assertEqual(handles[4].result()["request"], "push")
        self.assertEqual(handles[5].exception().code, "unknown-navigator")
        for handle in handles:
            reply = handle.exception().reply if handle.exception() else handle.result()
            self.assertEqual(reply["id"], handle.id)

    def test_focus_reports_decide_where_a_back_goes(self):
        app = self.connect(name="app")
        observer = self.connect(name="observer")
        observer.subscribe()
        app.create("main", ["home", "detail"])
        events_until(observer, lambda e: isinstance(e, popgesture.FocusChanged) and e.navigator == "main")
        self.assertEqual(app.focus(False)["request"], "focus")
        lost = events_until(observer, lambda e: isinstance(e, popgesture.FocusChanged))[-1]
        self.assertEqual((lost.source, lost.navigator), ("clients", None))
        app.focus(True)
        gained = events_until(observer, lambda e: isinstance(e, popgesture.FocusChanged))[-1]
        self.assertEqual(gained.navigator, "main")
        self.assertIs(app.client.focused, True)

    def test_an_observer_sees_other_clients_events(self):
        observer = self.connect(name="observer")
        self.assertEqual(observer.subscribe()["request"], "subscribe")
        self.assertTrue(observer.client.subscribed)
        app = self.connect(name="app")
        app.create("main", ["home", "detail"])
        bar = events_until(observer, lambda e: isinstance(e, popgesture.Bar))[-1]
        self.assertEqual(bar, popgesture.Bar(navigator="main", page="detail", hidden=False))
        observer.unsubscribe()
        self.assertFalse(observer.client.subscribed)

    def test_reconnects_after_a_restart_and_recreates_its_navigators_and_focus(self):
        client = self.connect(app="org.example.Test", name="survivor")
        client.subscribe()
        client.create("main", ["home", "detail"], layout="rtl")
        client.push("main", "photo")
        client.create("settings", ["general"])
        client.front("main")
        client.focus(False)
        first_id = client.client.client_id
        events_until(client, lambda e: isinstance(e, popgesture.FocusChanged) and e.navigator is None)

        self.daemon.stop(signal.SIGTERM)
        gone = events_until(client, lambda e: isinstance(e, popgesture.Disconnected), 10)[-1]
        self.assertTrue(gone.will_reconnect)
        self.assertFalse(client.ready)
        with self.assertRaises(popgesture.NotConnectedError):
            client.client.push("main", "later").result()     # the core does not wait
        self.assertEqual(client.focus(False)["deferred"], True)

        time.sleep(0.3)  # a few failed attempts: the backoff grows
        self.daemon.start()
        back = events_until(client, lambda e: isinstance(e, popgesture.Connected), 15)[-1]
        self.assertTrue(back.reconnected)
        self.assertEqual(back.client, client.client.client_id)

        # Seen from outside, through the protocol: the navigators are back, as they were.
        status = support.raw_query(self.daemon.socket, {"type": "status"})
        navigators = {n["navigator"]: n for n in status["navigators"]}
        self.assertEqual(set(navigators), {"main", "settings"})
        self.assertEqual({n["owner"] for n in navigators.values()}, {client.client.client_id})
        stack = support.raw_query(self.daemon.socket, {"type": "stack", "navigator": "main"})
        self.assertEqual(stack["pages"], ["home", "detail", "photo"])
        self.assertEqual(stack["owner"], client.client.client_id)
        self.assertEqual([c.get("name") for c in status["clients"] if c["client"] == client.client.client_id],
                         ["survivor"])
        # Subscribed again, and unfocused again: the last focus-changed names no navigator.
        changes = [e for e in client.events(timeout=0.5) if isinstance(e, popgesture.FocusChanged)]
        self.assertTrue(changes, "no focus-changed after reconnecting: not subscribed again?")
        self.assertIsNone(changes[-1].navigator)
        # And the navigator works as before.
        client.push("main", "more")
        self.assertEqual(client.stack("main")["pages"], ["home", "detail", "photo", "more"])
        self.assertNotEqual(first_id, None)

    def test_requests_wait_for_the_reconnection(self):
        client = self.connect()
        client.create("main", ["home"])
        self.daemon.stop()
        events_until(client, lambda e: isinstance(e, popgesture.Disconnected), 10)
        self.daemon.start()
        # The blocking front end waits for the connection (up to the timeout), then sends.
        self.assertEqual(client.push("main", "detail", timeout=15)["request"], "push")
        self.assertEqual(client.stack("main")["pages"], ["home", "detail"])

    def test_constructor_raises_when_nothing_answers(self):
        path = os.path.join(support.temporary_directory(self), "none.sock")
        with self.assertLogs("popgesture", "INFO"):
            with self.assertRaises(popgesture.NotConnectedError):
                popgesture.BlockingClient(path, timeout=0.3)


if __name__ == "__main__":
    unittest.main()
