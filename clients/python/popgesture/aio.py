"""The asyncio front end: the socket on the running loop through ``loop.add_reader``.

::

    async with AsyncClient(app="org.example.Files") as client:
        await client.create("main", ["home", "detail"])
        async for event in client.events():
            ...

No thread and no task of its own: the loop calls the client when the socket is
readable (or writable, while output waits), and a ``call_later`` timer runs the
reconnect attempts.
"""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator, Callable, Dict, Iterable, List, Optional

from .core import Client, PageLike, Request
from .errors import NotConnectedError, RequestTimeoutError
from .events import Event

__all__ = ["AsyncClient"]

_DEFAULT: Any = object()


class AsyncClient:
    """A client for asyncio: ``await`` requests, ``async for`` events.

    ``AsyncClient(socket_path=None, app=None, name=None, timeout=5.0, **core options)``
    (see :class:`popgesture.Client`). Call :meth:`connect` (or use ``async with``)
    from a coroutine on the loop that will drive it; it waits up to ``timeout``
    for ``hello`` and raises :class:`~popgesture.NotConnectedError` otherwise.

    Each request coroutine waits (up to its ``timeout``, default the client's) for
    the connection and then for the reply: it returns the reply dict, or raises
    the :class:`~popgesture.RequestError` (``e.code`` is the daemon's code).
    Cancelling it does not unsend the request.

    Where a caller can go wrong: use it from its loop's thread only; only change
    your own navigators (``not-owner``); gesture events come only while you are
    focused and your navigator is in front; keep consuming :meth:`events` (unread,
    more than ``max_queued_events`` make the library drop the connection); on a
    :class:`~popgesture.Back` pop your page, do not call :meth:`pop`.
    """

    def __init__(self, socket_path: Optional[str] = None, *, app: Optional[str] = None,
                 name: Optional[str] = None, timeout: Optional[float] = 5.0, **options: Any):
        self.client = Client(socket_path, app=app, name=name, **options)
        self.timeout = timeout
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._reader: int = -1
        self._writer: int = -1
        self._timer: Optional[asyncio.TimerHandle] = None
        self._timer_at: Optional[float] = None
        self._wakeups: List[asyncio.Future] = []
        self.client.on_io_change = self._sync
        self.client.on_closing_fd = self._forget_fd

    # ---------------------------------------------------------------- loop glue

    async def connect(self, timeout: Optional[float] = _DEFAULT) -> "AsyncClient":
        """Attach to the running loop, connect, and wait for ``hello`` (``timeout`` s)."""
        self._loop = asyncio.get_running_loop()
        self.client.connect()
        self._after()
        if not await self.wait_ready(timeout):
            self.close()
            raise NotConnectedError(f"popgestured did not answer at {self.client.socket_path} within "
                                    f"{self.timeout if timeout is _DEFAULT else timeout} s")
        return self

    async def __aenter__(self) -> "AsyncClient":
        return await self.connect()

    async def __aexit__(self, *exc: Any) -> None:
        self.close()

    def fileno(self) -> int:
        return self.client.fileno()

    @property
    def ready(self) -> bool:
        return self.client.ready

    def _forget_fd(self, fd: int) -> None:
        loop = self._loop
        if loop is None:
            return
        if self._reader == fd:
            loop.remove_reader(fd)
            self._reader = -1
        if self._writer == fd:
            loop.remove_writer(fd)
            self._writer = -1

    def _sync(self) -> None:
        """Make the loop's watches match what the client wants now."""
        loop = self._loop
        if loop is None:
            return
        client = self.client
        fd = client.fileno()
        if self._reader != fd:
            if self._reader >= 0:
                self._forget_fd(self._reader)
            if fd >= 0:
                loop.add_reader(fd, self._on_readable)
                self._reader = fd
        want_writer = fd if fd >= 0 and client.wants_write() else -1
        if self._writer != want_writer:
            if self._writer >= 0:
                loop.remove_writer(self._writer)
            if want_writer >= 0:
                loop.add_writer(want_writer, self._on_writable)
            self._writer = want_writer
        delay = client.timeout()
        at = None if delay is None else loop.time() + delay
        if at is None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = self._timer_at = None
        elif self._timer is None or self._timer_at is None or abs(self._timer_at - at) > 0.001:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = loop.call_at(at, self._on_timer)
            self._timer_at = at

    def _on_readable(self) -> None:
        self.client.on_readable()
        self._after()

    def _on_writable(self) -> None:
        self.client.on_writable()
        self._after()

    def _on_timer(self) -> None:
        self._timer = self._timer_at = None
        self.client.on_timeout()
        self._after()

    def _after(self) -> None:
        try:
            self.client.dispatch()  # done callbacks resolve futures; events wait for events()
        finally:
            self._sync()
            wakeups, self._wakeups = self._wakeups, []
            for future in wakeups:
                if not future.done():
                    future.set_result(None)

    async def _until(self, condition: Callable[[], bool], timeout: Optional[float]) -> bool:
        loop = self._loop or asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while not condition():
            if self.client.closed and self.client.fileno() < 0:
                return condition()
            future = loop.create_future()
            self._wakeups.append(future)
            try:
                if deadline is None:
                    await future
                else:
                    left = deadline - loop.time()
                    if left <= 0:
                        return condition()
                    await asyncio.wait_for(future, left)
            except asyncio.TimeoutError:
                return condition()
        return True

    async def wait_ready(self, timeout: Optional[float] = _DEFAULT) -> bool:
        """Wait until ``hello`` is answered; False after ``timeout`` seconds."""
        timeout = self.timeout if timeout is _DEFAULT else timeout
        return await self._until(lambda: self.client.ready or self.client.closed, timeout) and self.client.ready

    async def next_event(self, timeout: Optional[float] = None) -> Optional[Event]:
        """The next event, or None after ``timeout`` seconds (None: wait for ever) or once closed."""
        if await self._until(lambda: self.client.pending_events() > 0, timeout):
            return self.client.take_event()
        return None

    async def events(self) -> AsyncIterator[Event]:
        """``async for event in client.events()``: every event, until the client is closed.

        Includes the library's :class:`~popgesture.Connected` and
        :class:`~popgesture.Disconnected` around a daemon restart.
        """
        while True:
            event = await self.next_event()
            if event is None:
                return
            yield event

    def close(self) -> None:
        """Close for good (no reconnect); wakes :meth:`events`, which then ends."""
        self.client.close()
        self._after()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = self._timer_at = None

    # ---------------------------------------------------------------- requests

    async def _call(self, make: Callable[[], Request], timeout: Optional[float]) -> Dict[str, Any]:
        timeout = self.timeout if timeout is _DEFAULT else timeout
        loop = self._loop or asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        if not self.client.ready and not await self.wait_ready(timeout):
            raise NotConnectedError(f"not connected to popgestured at {self.client.socket_path}")
        handle = make()
        future: asyncio.Future = loop.create_future()

        def settled(request: Request) -> None:
            if future.done():
                return
            error = request.exception()
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(request.result())
        handle.add_done_callback(settled)
        self._after()
        left = None if deadline is None else max(0.0, deadline - loop.time())
        try:
            return await asyncio.wait_for(asyncio.shield(future), left)
        except asyncio.TimeoutError:
            raise RequestTimeoutError(request=handle.type, id=handle.id) from None

    async def create(self, navigator: str, pages: Iterable[PageLike], *, layout: Optional[str] = None,
                     bar_follows_top_page: Optional[bool] = None, timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        """Create one of your navigators (see :meth:`popgesture.Client.create`)."""
        return await self._call(lambda: self.client.create(navigator, pages, layout=layout,
                                                           bar_follows_top_page=bar_follows_top_page), timeout)

    async def push(self, navigator: str, page: PageLike, *, animated: bool = False,
                   timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        """Push onto one of your navigators; animated: ``settle`` when the animation ends."""
        return await self._call(lambda: self.client.push(navigator, page, animated=animated), timeout)

    async def pop(self, navigator: str, *, animated: bool = False, timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        """Your own back button; never for a swipe's Back (the daemon popped already)."""
        return await self._call(lambda: self.client.pop(navigator, animated=animated), timeout)

    async def replace(self, navigator: str, pages: Iterable[PageLike], *, animated: bool = False,
                      timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        return await self._call(lambda: self.client.replace(navigator, pages, animated=animated), timeout)

    async def update(self, navigator: str, page: PageLike, *, timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        return await self._call(lambda: self.client.update(navigator, page), timeout)

    async def configure(self, navigator: str, *, layout: Optional[str] = None,
                        bar_follows_top_page: Optional[bool] = None,
                        timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        return await self._call(lambda: self.client.configure(navigator, layout=layout,
                                                              bar_follows_top_page=bar_follows_top_page), timeout)

    async def settle(self, navigator: str, *, timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        return await self._call(lambda: self.client.settle(navigator), timeout)

    async def front(self, navigator: str, *, timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        return await self._call(lambda: self.client.front(navigator), timeout)

    async def remove(self, navigator: str, *, timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        return await self._call(lambda: self.client.remove(navigator), timeout)

    async def focus(self, focused: bool, *, timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        """Report focus in/out; remembered and re-sent on reconnect (returns at once while disconnected)."""
        handle = self.client.focus(focused)
        future: asyncio.Future = (self._loop or asyncio.get_running_loop()).create_future()

        def settled(request: Request) -> None:
            if not future.done():
                error = request.exception()
                future.set_exception(error) if error is not None else future.set_result(request.result())
        handle.add_done_callback(settled)
        self._after()
        try:
            return await asyncio.wait_for(asyncio.shield(future), self.timeout if timeout is _DEFAULT else timeout)
        except asyncio.TimeoutError:
            raise RequestTimeoutError(request="focus", id=handle.id) from None

    async def subscribe(self, *, timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        return await self._call(self.client.subscribe, timeout)

    async def unsubscribe(self, *, timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        return await self._call(self.client.unsubscribe, timeout)

    async def stack(self, navigator: str, *, timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        return await self._call(lambda: self.client.stack(navigator), timeout)

    async def status(self, *, timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        return await self._call(self.client.status, timeout)

    async def request(self, message: Dict[str, Any], *, timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        return await self._call(lambda: self.client.request(message), timeout)

    def navigators(self) -> Dict[str, Any]:
        """Your navigators and their page ids as the daemon confirmed them (front-most last)."""
        return self.client.navigators()
