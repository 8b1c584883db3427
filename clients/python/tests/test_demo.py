"""Real gestures: `popgestured-demo --rounds 0` plays generated swipes on its virtual
touchscreen (no touchscreen on the host); a navigator created after the demo's own is
in front, so its owner gets the pops. Skipped when a real touchscreen is present."""

import asyncio
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tests import support  # noqa: E402

import popgesture  # noqa: E402

OWNER_EVENTS = (popgesture.PopBegan, popgesture.PopProgress, popgesture.PopFinished, popgesture.PopCancelled,
                popgesture.Back, popgesture.Bar)
SWIPE_TIMEOUT = 60  # s: the demo plays a back every few seconds


def check_grammar(testcase, events):
    """Each gesture: began, progress..., then finished + back + bar, or cancelled + bar.
    Returns the committed gestures' event lists."""
    committed = []
    current = None
    for event in events:
        if isinstance(event, popgesture.PopBegan):
            testcase.assertIsNone(current, f"pop-began inside a gesture: {events}")
            current = [event]
        elif isinstance(event, (popgesture.PopProgress, popgesture.PopFinished, popgesture.PopCancelled)):
            testcase.assertIsNotNone(current, f"{event.type} outside a gesture: {events}")
            testcase.assertNotIsInstance(current[-1], (popgesture.PopFinished, popgesture.PopCancelled))
            testcase.assertEqual(event.page, current[0].page)
            current.append(event)
            if isinstance(event, popgesture.PopCancelled):
                current = None
        elif isinstance(event, popgesture.Back):
            testcase.assertIsNotNone(current, f"back without a pop: {events}")
            testcase.assertIsInstance(current[-1], popgesture.PopFinished, f"back not after pop-finished: {events}")
            current.append(event)
            committed.append(current)
            current = None
    testcase.assertIsNone(current, f"a gesture did not end: {events}")
    return committed


class DemoTests(unittest.TestCase):
    def setUp(self):
        self.daemon = support.start_daemon(self, ["demo", "--rounds", "0"])
        support.wait_for_demo(self, self.daemon.socket)

    def test_a_swipe_arrives_as_typed_events_in_order(self):
        client = popgesture.BlockingClient(self.daemon.socket, app="org.example.Swipe", name="swipe-test")
        self.addCleanup(client.close)
        client.create("swipe", ["home", "detail"])
        events = []
        for event in client.events(timeout=SWIPE_TIMEOUT):
            events.append(event)
            if isinstance(event, popgesture.Bar) and any(isinstance(e, popgesture.Back) for e in events):
                break
        else:
            self.fail(f"no back within {SWIPE_TIMEOUT} s:\n{events}\n{self.daemon.log}")
        owner = [e for e in events if isinstance(e, OWNER_EVENTS)]
        self.assertTrue(all(e.navigator == "swipe" for e in owner), owner)
        self.assertFalse([e for e in events if isinstance(e, popgesture.Rejected)], "observer events without subscribe")
        committed = check_grammar(self, [e for e in owner if not isinstance(e, popgesture.Bar)])
        self.assertEqual(len(committed), 1)
        swipe = committed[0]
        # began, progress..., finished, back: one swipe, in order.
        self.assertIsInstance(swipe[0], popgesture.PopBegan)
        self.assertTrue(all(isinstance(e, popgesture.PopProgress) for e in swipe[1:-2]), swipe)
        self.assertGreaterEqual(len(swipe) - 3, 1, "no pop-progress")
        finished, back = swipe[-2], swipe[-1]
        self.assertIsInstance(finished, popgesture.PopFinished)
        self.assertIn(finished.reason, ("progress", "fling"))
        self.assertEqual(back, popgesture.Back(navigator="swipe", popped="detail", top="home", time_us=back.time_us))
        self.assertEqual(owner[-1], popgesture.Bar(navigator="swipe", page="home", hidden=False))
        self.assertEqual({e.page for e in swipe[:-1]}, {"detail"})
        times = [e.time_us for e in swipe]
        self.assertEqual(times, sorted(times))
        self.assertTrue(all(0 <= e.progress <= 1 for e in swipe if isinstance(e, popgesture.PopProgress)))
        # The daemon popped its copy, and the library's record followed.
        self.assertEqual(client.navigators(), {"swipe": ["home"]})
        self.assertEqual(client.stack("swipe")["pages"], ["home"])

    def test_an_unfocused_client_gets_no_swipe(self):
        front = popgesture.BlockingClient(self.daemon.socket, name="front")
        self.addCleanup(front.close)
        front.create("front", ["home", "detail"])
        # Created later, so in front were it not for its focus report (made first, so
        # that no swipe can reach it in between).
        other = popgesture.BlockingClient(self.daemon.socket, name="background")
        self.addCleanup(other.close)
        other.focus(False)
        other.create("background", ["home", "detail"])
        self.assertEqual((other.stack("background")["front"], front.stack("front")["front"]), (False, True))
        for event in front.events(timeout=SWIPE_TIMEOUT):
            if isinstance(event, popgesture.Back):
                break
        else:
            self.fail("the focused client got no back")
        self.assertFalse([e for e in other.events(timeout=0.2) if isinstance(e, (popgesture.PopBegan, popgesture.Back))])
        self.assertEqual(other.stack("background")["pages"], ["home", "detail"])

    def test_asyncio_gets_the_swipe(self):
        async def scenario():
            async with popgesture.AsyncClient(self.daemon.socket, name="async-swipe") as client:
                await client.create("aswipe", ["home", "detail"])
                kinds = []
                async for event in client.events():
                    if isinstance(event, OWNER_EVENTS) and not isinstance(event, popgesture.Bar):
                        kinds.append(type(event))
                    if isinstance(event, popgesture.Back):
                        self.assertEqual((event.popped, event.top), ("detail", "home"))
                        break
                return kinds
        kinds = asyncio.run(asyncio.wait_for(scenario(), SWIPE_TIMEOUT))
        last_began = len(kinds) - 1 - kinds[::-1].index(popgesture.PopBegan)
        swipe = kinds[last_began:]
        self.assertEqual(swipe[0], popgesture.PopBegan)
        self.assertEqual(swipe[-2:], [popgesture.PopFinished, popgesture.Back])
        self.assertEqual(set(swipe[1:-2]), {popgesture.PopProgress})


if __name__ == "__main__":
    unittest.main()
