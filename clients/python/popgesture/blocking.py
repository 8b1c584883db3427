"""The blocking front end: for scripts, tools and apps with a loop of their own.

Nothing happens behind your back: the connection is served only while you are in a
call of this client (``next_event``, a request, ``wait_ready``). Between calls the
daemon's lines wait in the kernel (and the library's bounded queue), so call
``next_event`` regularly; ``fileno()`` lets a ``select``/``poll`` loop of yours know
when to.
"""

from __future__ import annotations

import select
import time
from typing import Any, Callable, Dict, Iterable, Iterator, Optional

from .core import Client, PageLike, Request
from .errors import NotConnectedError, RequestTimeoutError
from .events import Event

__all__ = ["BlockingClient"]

_DEFAULT: Any = object()


class BlockingClient:
    """A client whose requests wait for their replies, and ``next_event(timeout)``.

    ``BlockingClient(socket_path=None, app=None, name=None, timeout=5.0, connect=True,
    **core options)``: see :class:`popgesture.Client` for the options. With
    ``connect``, the constructor waits up to ``timeout`` for the daemon to answer
    ``hello`` and raises :class:`~popgesture.NotConnectedError` if it does not (it
    closes the client first). A request waits up to its ``timeout`` (default the
    client's) for the connection and then its reply, and returns the reply dict or
    raises the :class:`~popgesture.RequestError` (``e.code`` is the daemon's code).

    Where a caller can go wrong: only change navigators you created (``not-owner``);
    gesture events come only while you are focused and your navigator is in front;
    take events with :meth:`next_event` (unread, more than ``max_queued_events`` of
    them make the library drop the connection); on a :class:`~popgesture.Back`, pop
    your page but do not call :meth:`pop`.
    """

    def __init__(self, socket_path: Optional[str] = None, *, app: Optional[str] = None,
                 name: Optional[str] = None, timeout: Optional[float] = 5.0, connect: bool = True,
                 **options: Any):
        self.client = Client(socket_path, app=app, name=name, **options)
        self.timeout = timeout
        self._poll = select.poll()
        self._polled: int = -1
        self.client.on_closing_fd = self._forget_fd
        if connect:
            self.client.connect()
            if not self.wait_ready(timeout):
                self.client.close()
                raise NotConnectedError(f"popgestured did not answer at {self.client.socket_path} "
                                        f"within {timeout} s")

    # ---------------------------------------------------------------- loop

    def fileno(self) -> int:
        """The socket's fd (-1 while reconnecting); it changes on each reconnect."""
        return self.client.fileno()

    @property
    def ready(self) -> bool:
        return self.client.ready

    def _forget_fd(self, fd: int) -> None:
        if self._polled == fd:
            try:
                self._poll.unregister(fd)
            except (KeyError, ValueError):
                pass
            self._polled = -1

    def _step(self, wait: Optional[float]) -> None:
        """Wait at most ``wait`` seconds (None: until something happens) and serve the socket."""
        client = self.client
        timer = client.timeout()
        if timer is not None:
            wait = timer if wait is None else min(wait, timer)
        fd = client.fileno()
        if fd < 0:
            if wait is None:
                return  # closed: nothing will ever happen
            time.sleep(wait)
        else:
            mask = select.POLLIN | (select.POLLOUT if client.wants_write() else 0)
            if self._polled != fd:
                if self._polled >= 0:
                    self._forget_fd(self._polled)
                self._poll.register(fd, mask)
                self._polled = fd
            else:
                self._poll.modify(fd, mask)
            ready = self._poll.poll(None if wait is None else max(0, int(wait * 1000 + 0.999)))
            for _, revents in ready:
                if revents & select.POLLOUT:
                    client.on_writable()
                if revents & (select.POLLIN | select.POLLHUP | select.POLLERR | select.POLLNVAL):
                    client.on_readable()
        timer = client.timeout()
        if timer is not None and timer <= 0:
            client.on_timeout()
        client.dispatch()

    def _pump(self, until: Callable[[], bool], timeout: Optional[float]) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            self.client.dispatch()
            if until():
                return True
            if self.client.closed and self.client.fileno() < 0:
                return until()
            if deadline is None:
                self._step(None)
            else:
                left = deadline - time.monotonic()
                if left <= 0:
                    return until()
                self._step(left)

    def wait_ready(self, timeout: Optional[float] = _DEFAULT) -> bool:
        """Serve the connection until ``hello`` is answered; False after ``timeout`` seconds."""
        timeout = self.timeout if timeout is _DEFAULT else timeout
        if self.client.closed:
            return False
        return self._pump(lambda: self.client.ready or self.client.closed, timeout) and self.client.ready

    def next_event(self, timeout: Optional[float] = None) -> Optional[Event]:
        """The next event, waiting up to ``timeout`` seconds (None: for ever); None on timeout.

        Includes the library's :class:`~popgesture.Connected` and
        :class:`~popgesture.Disconnected`.
        """
        if self._pump(lambda: self.client.pending_events() > 0, timeout):
            return self.client.take_event()
        return None

    def events(self, timeout: Optional[float] = None) -> Iterator[Event]:
        """Iterate over events; stops after ``timeout`` seconds without one (None: never)."""
        while True:
            event = self.next_event(timeout)
            if event is None:
                return
            yield event

    def poll(self) -> None:
        """Serve the socket without waiting (for a loop of yours that saw ``fileno()`` readable)."""
        self._step(0)

    def close(self) -> None:
        """Close for good (no reconnect)."""
        self.client.close()

    def __enter__(self) -> "BlockingClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ---------------------------------------------------------------- requests

    def _call(self, make: Callable[[], Request], timeout: Optional[float]) -> Dict[str, Any]:
        timeout = self.timeout if timeout is _DEFAULT else timeout
        deadline = None if timeout is None else time.monotonic() + timeout
        if not self.client.ready:
            if not self.wait_ready(timeout):
                raise NotConnectedError(f"not connected to popgestured at {self.client.socket_path}")
        handle = make()
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        if not self._pump(handle.done, left):
            raise RequestTimeoutError(request=handle.type, id=handle.id)
        return handle.result()

    def create(self, navigator: str, pages: Iterable[PageLike], *, layout: Optional[str] = None,
               bar_follows_top_page: Optional[bool] = None, timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        """Create one of your navigators (see :meth:`popgesture.Client.create`)."""
        return self._call(lambda: self.client.create(navigator, pages, layout=layout,
                                                     bar_follows_top_page=bar_follows_top_page), timeout)

    def push(self, navigator: str, page: PageLike, *, animated: bool = False,
             timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        """Push onto one of your navigators; animated: call :meth:`settle` when the animation ends."""
        return self._call(lambda: self.client.push(navigator, page, animated=animated), timeout)

    def pop(self, navigator: str, *, animated: bool = False, timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        """Your own back button; never for a swipe's Back (the daemon popped already)."""
        return self._call(lambda: self.client.pop(navigator, animated=animated), timeout)

    def replace(self, navigator: str, pages: Iterable[PageLike], *, animated: bool = False,
                timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        return self._call(lambda: self.client.replace(navigator, pages, animated=animated), timeout)

    def update(self, navigator: str, page: PageLike, *, timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        return self._call(lambda: self.client.update(navigator, page), timeout)

    def configure(self, navigator: str, *, layout: Optional[str] = None, bar_follows_top_page: Optional[bool] = None,
                  timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        return self._call(lambda: self.client.configure(navigator, layout=layout,
                                                        bar_follows_top_page=bar_follows_top_page), timeout)

    def settle(self, navigator: str, *, timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        return self._call(lambda: self.client.settle(navigator), timeout)

    def front(self, navigator: str, *, timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        return self._call(lambda: self.client.front(navigator), timeout)

    def remove(self, navigator: str, *, timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        return self._call(lambda: self.client.remove(navigator), timeout)

    def focus(self, focused: bool, *, timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        """Report focus in/out. Remembered and re-sent on reconnect; while disconnected it
        returns at once (``"deferred": true``) instead of waiting."""
        handle = self.client.focus(focused)
        if not self._pump(handle.done, self.timeout if timeout is _DEFAULT else timeout):
            raise RequestTimeoutError(request="focus", id=handle.id)
        return handle.result()

    def subscribe(self, *, timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        return self._call(self.client.subscribe, timeout)

    def unsubscribe(self, *, timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        return self._call(self.client.unsubscribe, timeout)

    def stack(self, navigator: str, *, timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        return self._call(lambda: self.client.stack(navigator), timeout)

    def status(self, *, timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        return self._call(self.client.status, timeout)

    def request(self, message: Dict[str, Any], *, timeout: Optional[float] = _DEFAULT) -> Dict[str, Any]:
        return self._call(lambda: self.client.request(message), timeout)

    def navigators(self) -> Dict[str, Any]:
        """Your navigators and their page ids as the daemon confirmed them (front-most last)."""
        return self.client.navigators()
