"""The asyncio front end against the real daemon."""

import asyncio
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tests import support  # noqa: E402

import popgesture  # noqa: E402


async def event_until(client, predicate, timeout=10.0):
    seen = []

    async def collect():
        async for event in client.events():
            seen.append(event)
            if predicate(event):
                return event
        raise AssertionError(f"events() ended; saw {seen}")
    try:
        return await asyncio.wait_for(collect(), timeout)
    except asyncio.TimeoutError:
        raise AssertionError(f"no matching event within {timeout} s; saw {seen}") from None


class AsyncTests(unittest.TestCase):
    def setUp(self):
        self.daemon = support.start_daemon(self)

    def run_async(self, coroutine):
        return asyncio.run(asyncio.wait_for(coroutine, 60))

    def test_requests_replies_errors_and_events(self):
        async def scenario():
            async with popgesture.AsyncClient(self.daemon.socket, app="org.example.Async", name="async") as client:
                self.assertEqual(client.client.protocol_version, 1)
                reply = await client.create("main", ["home", "detail"])
                self.assertEqual(reply["request"], "create")
                with self.assertRaises(popgesture.RequestError) as caught:
                    await client.push("main", "detail")
                self.assertEqual(caught.exception.code, "duplicate-page")
                # Several requests at once, each future gets its own reply.
                results = await asyncio.gather(client.push("main", "photo"), client.stack("main"),
                                               client.pop("nowhere"), return_exceptions=True)
                self.assertEqual(results[0]["request"], "push")
                self.assertEqual(results[1]["pages"], ["home", "detail", "photo"])
                self.assertIsInstance(results[2], popgesture.RequestError)
                self.assertEqual(results[2].code, "unknown-navigator")
                connected = await client.next_event(1)
                self.assertIsInstance(connected, popgesture.Connected)
                bar = await event_until(client, lambda e: isinstance(e, popgesture.Bar) and e.page == "photo")
                self.assertEqual(bar.navigator, "main")
                self.assertEqual((await client.focus(False))["request"], "focus")
            self.assertTrue(client.client.closed)
            rest = [event async for event in client.events()]  # ends once closed
            self.assertEqual(rest[-1], popgesture.Disconnected(reason="closed by the application",
                                                               will_reconnect=False, retry_in=None))
            with self.assertRaises(popgesture.NotConnectedError):
                await client.stack("main")
        self.run_async(scenario())

    def test_reconnects_on_the_loop(self):
        async def scenario():
            client = popgesture.AsyncClient(self.daemon.socket, name="async-survivor")
            await client.connect()
            try:
                await client.create("main", ["home", "detail"])
                await client.subscribe()
                loop = asyncio.get_running_loop()
                await loop.run_in_executor(None, self.daemon.stop)
                gone = await event_until(client, lambda e: isinstance(e, popgesture.Disconnected))
                self.assertTrue(gone.will_reconnect)
                await loop.run_in_executor(None, self.daemon.start)
                back = await event_until(client, lambda e: isinstance(e, popgesture.Connected), 15)
                self.assertTrue(back.reconnected)
                stack = await client.stack("main")
                self.assertEqual((stack["pages"], stack["owner"]), (["home", "detail"], client.client.client_id))
                status = support.raw_query(self.daemon.socket, {"type": "status"})
                observer = [c["observer"] for c in status["clients"] if c["client"] == client.client.client_id]
                self.assertEqual(observer, [True])
            finally:
                client.close()
        self.run_async(scenario())

    def test_connect_times_out_with_not_connected(self):
        path = os.path.join(support.temporary_directory(self), "none.sock")

        async def scenario():
            with self.assertLogs("popgesture", "INFO"):
                with self.assertRaises(popgesture.NotConnectedError):
                    await popgesture.AsyncClient(path, timeout=0.3).connect()
        self.run_async(scenario())


if __name__ == "__main__":
    unittest.main()
