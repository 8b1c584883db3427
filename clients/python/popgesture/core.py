"""The non-blocking core: one connection to popgestured, driven by the caller's main loop.

:class:`Client` never blocks and starts no thread. The caller (one of the front ends
in :mod:`popgesture.blocking`, :mod:`popgesture.aio` and :mod:`popgesture.glib`, or
your own loop) watches :meth:`Client.fileno` and calls:

- :meth:`Client.on_readable` when the fd is readable (or hung up),
- :meth:`Client.on_writable` when it is writable and :meth:`Client.wants_write` is true,
- :meth:`Client.on_timeout` once :meth:`Client.timeout` seconds have passed (the
  reconnect timer; None means no timer),
- :meth:`Client.dispatch` after any of these, which runs the done callbacks of
  requests and hands events to ``on_event`` in the order the daemon sent them.

The fd changes when the library reconnects. Set ``on_io_change`` to be told when
``fileno()``, ``wants_write()`` or ``timeout()`` may have changed, and
``on_closing_fd`` to be told just *before* an fd is closed (unregister it then: an
epoll-based loop must not keep a closed fd whose number the next socket may reuse).

Everything is bounded: a line from the daemon longer than ``max_line_bytes`` (1 MiB)
drops the connection (logged) and the library reconnects; at most
``max_queued_events`` (1024) events wait for the application, consecutive
``pop-progress`` events are merged once that fills, and if it is still full the
connection is dropped (logged) as the daemon drops a client that does not read; at
most 64 requests await replies (the daemon's own limit).
"""

from __future__ import annotations

import collections
import errno
import json
import logging
import os
import socket
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Deque, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from .errors import (ConnectionLostError, NotConnectedError, RequestError, TooManyPendingError)
from .events import Back, Connected, Disconnected, Error, Event, Paused, PopProgress, Resumed, decode_event

__all__ = [
    "Client", "Request", "Page", "PageLike", "NavigatorRecord",
    "DEFAULT_SOCKET", "SUPPORTED_VERSIONS", "default_socket_path",
]

log = logging.getLogger("popgesture")

#: Where the systemd socket unit puts the daemon's socket.
DEFAULT_SOCKET = "/run/popgestured/popgestured.sock"
#: The protocol versions this library speaks (docs/PROTOCOL.md, "Hello").
SUPPORTED_VERSIONS: Tuple[int, ...] = (1,)

MAX_LINE_BYTES = 1 << 20          # a line from the daemon: its largest (status) is under 200 KB
MAX_REQUEST_BYTES = 64 * 1024     # a line to the daemon: its limit (line-too-long past it)
MAX_AWAITING = 64                 # requests awaiting replies: the daemon disconnects past 64
MAX_QUEUED_EVENTS = 1024          # events waiting for the application
MAX_ID_BYTES = 256                # ids, names, app ids: the daemon's limit
RECONNECT_FIRST = 0.1             # s: the first retry after a lost connection
RECONNECT_MAX = 5.0               # s: the backoff doubles up to this
READ_CHUNK = 65536
READ_BUDGET = 1 << 20             # bytes read per on_readable call, so one client cannot hog a loop


def default_socket_path() -> str:
    """``$POPGESTURED_SOCKET``, else :data:`DEFAULT_SOCKET`."""
    return os.environ.get("POPGESTURED_SOCKET") or DEFAULT_SOCKET


# ------------------------------------------------------------------ pages


@dataclass
class Page:
    """A page of a navigator (docs/PROTOCOL.md, "Navigation model").

    ``id`` is unique within its navigator (at most 256 bytes). ``pop_disabled``
    refuses the back gesture on this page; ``prefers_bar_hidden`` hides the bar
    while it is on top; ``max_start_distance`` (mm, 0 = no limit) limits how far
    from the leading edge a swipe may start; ``exclusion_zones`` are rectangles
    ``(x, y, width, height)`` in screen fractions (origin top-left, at most 16)
    where a swipe may not start.
    """

    id: str
    pop_disabled: bool = False
    prefers_bar_hidden: bool = False
    max_start_distance: float = 0
    exclusion_zones: Sequence[Sequence[float]] = field(default_factory=tuple)

    def to_wire(self) -> Dict[str, Any]:
        page: Dict[str, Any] = {"id": self.id}
        if self.pop_disabled:
            page["popDisabled"] = True
        if self.prefers_bar_hidden:
            page["prefersBarHidden"] = True
        if self.max_start_distance:
            page["maxStartDistance"] = self.max_start_distance
        if self.exclusion_zones:
            page["exclusionZones"] = [list(zone) for zone in self.exclusion_zones]
        return page


#: A page id, a :class:`Page`, or a wire-form dict (``{"id": ..., "popDisabled": ...}``).
PageLike = Union[str, Page, Mapping[str, Any]]


def _check_id(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, not {type(value).__name__}")
    if not value:
        raise ValueError(f"{what} must not be empty")
    if len(value.encode("utf-8")) > MAX_ID_BYTES:
        raise ValueError(f"{what} is over {MAX_ID_BYTES} bytes of UTF-8")
    return value


def _wire_page(page: PageLike) -> Dict[str, Any]:
    if isinstance(page, str):
        return {"id": _check_id(page, "page id")}
    if isinstance(page, Page):
        _check_id(page.id, "page id")
        return page.to_wire()
    if isinstance(page, Mapping):
        wire = dict(page)
        _check_id(wire.get("id"), "page id")
        return wire
    raise TypeError(f"a page is a str, a Page or a dict, not {type(page).__name__}")


def _wire_pages(pages: Iterable[PageLike]) -> List[Dict[str, Any]]:
    if isinstance(pages, (str, Page, Mapping)):
        raise TypeError("pages must be a list of pages")
    return [_wire_page(page) for page in pages]


@dataclass
class NavigatorRecord:
    """The library's record of a navigator it owns, as the daemon confirmed it.

    It changes on each ``ok`` (and on each :class:`~popgesture.Back`), never
    before, so it is what the daemon holds; after a reconnect the library
    re-creates the navigator from it.
    """

    pages: List[Dict[str, Any]]
    layout: Optional[str] = None
    bar_follows_top_page: Optional[bool] = None

    @property
    def page_ids(self) -> List[str]:
        return [page["id"] for page in self.pages]

    def create_request(self, navigator: str) -> Dict[str, Any]:
        request: Dict[str, Any] = {"type": "create", "navigator": navigator, "pages": [dict(p) for p in self.pages]}
        if self.layout is not None:
            request["layout"] = self.layout
        if self.bar_follows_top_page is not None:
            request["barFollowsTopPage"] = self.bar_follows_top_page
        return request


# ------------------------------------------------------------------ requests


class Request:
    """A request in flight: a small future, completed by the client's reply matching.

    ``done()``, ``result()`` (the reply dict, or raises the
    :class:`~popgesture.RequestError`), ``exception()`` and
    ``add_done_callback(fn)``; ``fn(request)`` runs from :meth:`Client.dispatch`,
    on the caller's main loop, never from inside ``on_readable``.
    """

    __slots__ = ("type", "id", "params", "_client", "_done", "_reply", "_error", "_callbacks", "_internal", "_apply",
                 "_line")

    def __init__(self, client: "Client", request_type: str, params: Dict[str, Any]):
        self._client = client
        self.type = request_type
        self.id: Optional[int] = None
        self.params = params
        self._done = False
        self._reply: Optional[Dict[str, Any]] = None
        self._error: Optional[RequestError] = None
        self._callbacks: List[Callable[["Request"], Any]] = []
        self._internal: Optional[Callable[["Request"], None]] = None
        self._apply: Optional[Callable[[Dict[str, Any]], None]] = None
        self._line = b""

    @property
    def navigator(self) -> Optional[str]:
        return self.params.get("navigator")

    def done(self) -> bool:
        return self._done

    def result(self) -> Dict[str, Any]:
        """The reply (``{"type":"ok",...}``, ``stack``, ``status``); raises the error if it failed."""
        if not self._done:
            raise RuntimeError(f"request {self.type} has no reply yet")
        if self._error is not None:
            raise self._error
        assert self._reply is not None
        return self._reply

    def exception(self) -> Optional[RequestError]:
        if not self._done:
            raise RuntimeError(f"request {self.type} has no reply yet")
        return self._error

    def add_done_callback(self, fn: Callable[["Request"], Any]) -> None:
        if self._done:
            self._client._queue_callback(fn, self)
        else:
            self._callbacks.append(fn)

    def _settle(self, reply: Optional[Dict[str, Any]], error: Optional[RequestError]) -> None:
        if self._done:
            return
        self._done = True
        self._reply = reply
        self._error = error
        if self._internal is not None:
            self._internal(self)
        callbacks, self._callbacks = self._callbacks, []
        for fn in callbacks:
            self._client._queue_callback(fn, self)

    def __repr__(self) -> str:
        state = "pending" if not self._done else ("failed: %s" % self._error if self._error else "ok")
        return f"<Request {self.type} id={self.id} {state}>"


# ------------------------------------------------------------------ the client

_DISCONNECTED, _HELLO, _READY, _CLOSED = "disconnected", "hello", "ready", "closed"


class Client:
    """One connection to popgestured, non-blocking, for the caller's main loop.

    ``socket_path`` defaults to ``$POPGESTURED_SOCKET``, else
    ``/run/popgestured/popgestured.sock``. ``app`` is your windows' app id (Wayland
    ``app_id`` or X11 ``WM_CLASS`` class): with a focus bridge running, it is how the
    daemon knows your window has focus. ``name`` shows in ``popgesturectl status``.
    ``versions`` are the protocol versions offered in ``hello``.

    Where a caller can go wrong:

    - Only change navigators this client created: the daemon answers ``not-owner``
      for anyone else's, and ``unknown-navigator`` for one that does not exist.
    - Gesture events come only to the owner of the navigator in front, and only
      while that owner is focused: report focus with :meth:`focus` (or, in GTK,
      :func:`popgesture.glib.follow_window_focus`), or a back can never reach you
      while another app that reports focus is in front.
    - On :class:`~popgesture.Back`, pop your page; do not call :meth:`pop` for it.
    - Take events (``dispatch()`` with ``on_event`` set, or ``take_event()``): past
      ``max_queued_events`` waiting, the library drops the connection.
    - After a reconnect the library re-creates your navigators as its record has
      them (only what the daemon confirmed); a request that failed with
      ``connection-lost`` or ``not-connected`` is not in it: make it again.
    - Everything runs on one thread: call the client only from the thread of the
      loop that drives it.
    """

    def __init__(self, socket_path: Optional[str] = None, *, app: Optional[str] = None,
                 name: Optional[str] = None, versions: Sequence[int] = SUPPORTED_VERSIONS,
                 reconnect: bool = True, max_line_bytes: int = MAX_LINE_BYTES,
                 max_queued_events: int = MAX_QUEUED_EVENTS,
                 on_event: Optional[Callable[[Event], Any]] = None,
                 logger: Optional[logging.Logger] = None):
        self.socket_path = socket_path or default_socket_path()
        self.app = _check_id(app, "app") if app is not None else None
        self.name = _check_id(name, "name") if name is not None else None
        offered = sorted({int(v) for v in versions})
        if not offered or len(offered) > 16 or offered[0] < 1:
            raise ValueError("versions: 1 to 16 positive integers")
        self.versions: Tuple[int, ...] = tuple(offered)
        self.reconnect = reconnect
        self.max_line_bytes = int(max_line_bytes)
        self.max_queued_events = int(max_queued_events)
        if self.max_line_bytes < 1024 or self.max_queued_events < 1:
            raise ValueError("max_line_bytes must be at least 1024, max_queued_events at least 1")
        #: Called with each event by :meth:`dispatch`; when None, events wait for :meth:`take_event`.
        self.on_event = on_event
        #: Called (no arguments) when fileno(), wants_write() or timeout() may have changed.
        self.on_io_change: Optional[Callable[[], Any]] = None
        #: Called with the fd just before the library closes it.
        self.on_closing_fd: Optional[Callable[[int], Any]] = None
        self.log = logger or log

        self._state = _DISCONNECTED
        self._sock: Optional[socket.socket] = None
        self._inbuf = bytearray()
        self._scanned = 0
        self._outbuf = bytearray()
        self._next_id = 0
        self._awaiting: "collections.OrderedDict[int, Request]" = collections.OrderedDict()
        # Requests not sent yet: made while hello is in flight, or while 64 await replies.
        self._waiting: Deque[Request] = collections.deque()
        self._seq = 0
        self._events: Deque[Tuple[int, Event]] = collections.deque()
        self._callbacks: Deque[Tuple[int, Callable[[Request], Any], Request]] = collections.deque()
        self._retry_at: Optional[float] = None
        self._backoff = RECONNECT_FIRST
        self._ready_since: Optional[float] = None
        self._ever_ready = False
        self._failures_logged = 0
        self._generation = 0

        # What the library re-creates after a reconnect.
        self._record: "collections.OrderedDict[str, NavigatorRecord]" = collections.OrderedDict()
        self._focused: Optional[bool] = None
        self._subscribed = False

        #: This connection's client number (the ``owner`` of its navigators), once connected.
        self.client_id: Optional[int] = None
        #: The protocol version agreed in ``hello``, once connected.
        self.protocol_version: Optional[int] = None
        #: The daemon's ``server`` name from ``hello``.
        self.server: Optional[str] = None
        #: The daemon said ``paused`` on this connection and not yet ``resumed``: the
        #: user is away from the seat (a user switch). The connection and the navigators
        #: stay; no events come. False again on each new connection.
        self.paused = False

    # ---------------------------------------------------------------- state

    @property
    def ready(self) -> bool:
        """Connected and ``hello`` answered: requests go out now."""
        return self._state == _READY

    @property
    def connected(self) -> bool:
        """A socket is open (``hello`` may still be in flight)."""
        return self._sock is not None

    @property
    def closed(self) -> bool:
        """:meth:`close` was called (or the connection failed with ``reconnect=False``)."""
        return self._state == _CLOSED

    @property
    def focused(self) -> Optional[bool]:
        """The last focus reported with :meth:`focus` (None: never reported, which counts as focused)."""
        return self._focused

    @property
    def subscribed(self) -> bool:
        return self._subscribed

    def navigators(self) -> Dict[str, List[str]]:
        """The navigators this client owns and their page ids, as the daemon confirmed them.

        Front-most last. This is what the library re-creates after a reconnect.
        """
        return {name: record.page_ids for name, record in self._record.items()}

    def record(self, navigator: str) -> Optional[NavigatorRecord]:
        """The library's record of one of its navigators (a copy), or None."""
        record = self._record.get(navigator)
        if record is None:
            return None
        return NavigatorRecord([dict(p) for p in record.pages], record.layout, record.bar_follows_top_page)

    # ---------------------------------------------------------------- main loop hooks

    def fileno(self) -> int:
        """The socket's fd, or -1 while there is none (waiting to reconnect, or closed).

        It changes after each reconnect: re-register it (``on_io_change`` says when).
        """
        return self._sock.fileno() if self._sock is not None else -1

    def wants_write(self) -> bool:
        """Whether output waits: watch the fd for writability while this is true."""
        return self._sock is not None and bool(self._outbuf)

    def timeout(self) -> Optional[float]:
        """Seconds until :meth:`on_timeout` should run (0: now), or None for no timer."""
        if self._retry_at is None:
            return None
        return max(0.0, self._retry_at - time.monotonic())

    def connect(self) -> None:
        """Start connecting (non-blocking). Failures are retried with backoff.

        Calling it while connected, or after :meth:`close`, does nothing (a closed
        client stays closed; make a new one).
        """
        if self._state == _DISCONNECTED and self._sock is None:
            self._attempt()

    def on_timeout(self) -> None:
        """Run the reconnect attempt that :meth:`timeout` announced, if it is due."""
        if self._retry_at is not None and time.monotonic() >= self._retry_at and self._state == _DISCONNECTED:
            self._retry_at = None
            self._attempt()

    def on_readable(self) -> None:
        """Read what the daemon sent (up to 1 MiB a call), match replies, queue events."""
        sock = self._sock
        if sock is None:
            return
        generation = self._generation
        budget = READ_BUDGET
        while budget > 0:
            try:
                data = sock.recv(READ_CHUNK)
            except (BlockingIOError, InterruptedError):
                break
            except OSError as error:
                self._drop(f"reading from popgestured failed: {error.strerror or error}")
                return
            if not data:
                self._process_lines()
                if self._generation == generation:
                    self._drop("popgestured closed the connection")
                return
            self._inbuf += data
            budget -= len(data)
            self._process_lines()
            if self._generation != generation:
                return
        self._notify()

    def on_writable(self) -> None:
        """Send what waits; :meth:`wants_write` says whether some is left."""
        self._flush()
        self._notify()

    def dispatch(self) -> int:
        """Run done callbacks and hand events to ``on_event``, in the order they came.

        With ``on_event`` None, only the callbacks run and the events wait for
        :meth:`take_event`. Returns how many callbacks and events were delivered.
        What a callback queues meanwhile waits for the next call.
        """
        delivered = 0
        budget = len(self._events) + len(self._callbacks)
        while budget > 0:
            budget -= 1
            take_event = bool(self._events) and self.on_event is not None and (
                not self._callbacks or self._events[0][0] < self._callbacks[0][0])
            if take_event:
                _, event = self._events.popleft()
                delivered += 1
                self.on_event(event)  # type: ignore[misc]
            elif self._callbacks:
                _, fn, request = self._callbacks.popleft()
                delivered += 1
                fn(request)
            else:
                break
        return delivered

    def needs_dispatch(self) -> bool:
        """Whether :meth:`dispatch` has something to deliver now (callbacks, or events to ``on_event``)."""
        return bool(self._callbacks) or (bool(self._events) and self.on_event is not None)

    def pending_events(self) -> int:
        """How many events wait for :meth:`take_event` (or :meth:`dispatch`)."""
        return len(self._events)

    def take_event(self) -> Optional[Event]:
        """The oldest waiting event, or None (for loops that pull events themselves)."""
        if not self._events:
            return None
        return self._events.popleft()[1]

    def close(self) -> None:
        """Close for good: no reconnect. Requests in flight fail with ``connection-lost``.

        Output already queued gets one non-blocking attempt to go out first.
        """
        if self._state == _CLOSED:
            return
        if self._sock is not None:
            self._flush()
        self._retry_at = None
        self._drop("closed by the application", final=True)

    # ---------------------------------------------------------------- requests

    def create(self, navigator: str, pages: Iterable[PageLike], *, layout: Optional[str] = None,
               bar_follows_top_page: Optional[bool] = None) -> Request:
        """Create a navigator with its stack (root first); it comes to the front.

        ``layout``: ``"ltr"`` or ``"rtl"`` (default: the daemon's). Errors:
        ``navigator-exists`` (any client's, ids are global), ``empty-stack``,
        ``duplicate-page``, ``too-many-navigators`` (16 per client).
        """
        request: Dict[str, Any] = {"type": "create", "navigator": _check_id(navigator, "navigator"),
                                   "pages": _wire_pages(pages)}
        if layout is not None:
            request["layout"] = layout
        if bar_follows_top_page is not None:
            request["barFollowsTopPage"] = bool(bar_follows_top_page)

        def apply(reply: Dict[str, Any]) -> None:
            self._record[navigator] = NavigatorRecord([dict(p) for p in request["pages"]], layout,
                                                      request.get("barFollowsTopPage"))
            self._record.move_to_end(navigator)
        return self._request(request, apply)

    def push(self, navigator: str, page: PageLike, *, animated: bool = False) -> Request:
        """Push a page on one of *your* navigators (``not-owner`` otherwise).

        ``animated`` marks the navigator transitioning, which refuses the back
        gesture until you call :meth:`settle` (or 1 s passes): call it when your
        animation ends. ``duplicate-page`` if that id is already on the stack.
        """
        wire = _wire_page(page)
        request = {"type": "push", "navigator": _check_id(navigator, "navigator"), "page": wire, "animated": bool(animated)}

        def apply(reply: Dict[str, Any]) -> None:
            record = self._record.get(navigator)
            if record is not None:
                record.pages.append(dict(wire))
        return self._request(request, apply)

    def pop(self, navigator: str, *, animated: bool = False) -> Request:
        """Pop the top page: your own back button. Not for a swipe's :class:`~popgesture.Back`,
        which the daemon has already popped. ``cannot-pop-root`` with one page left."""
        request = {"type": "pop", "navigator": _check_id(navigator, "navigator"), "animated": bool(animated)}

        def apply(reply: Dict[str, Any]) -> None:
            record = self._record.get(navigator)
            if record is not None and len(record.pages) > 1:
                record.pages.pop()
        return self._request(request, apply)

    def replace(self, navigator: str, pages: Iterable[PageLike], *, animated: bool = False) -> Request:
        """Replace the whole stack (UIKit's ``setViewControllers:``); errors as for :meth:`create`."""
        wire = _wire_pages(pages)
        request = {"type": "replace", "navigator": _check_id(navigator, "navigator"), "pages": wire, "animated": bool(animated)}

        def apply(reply: Dict[str, Any]) -> None:
            record = self._record.get(navigator)
            if record is not None:
                record.pages = [dict(p) for p in wire]
        return self._request(request, apply)

    def update(self, navigator: str, page: PageLike) -> Request:
        """Set a page's properties (keys left out take their defaults); ``unknown-page`` if it is not on the stack."""
        wire = _wire_page(page)
        request = {"type": "update", "navigator": _check_id(navigator, "navigator"), "page": wire}

        def apply(reply: Dict[str, Any]) -> None:
            record = self._record.get(navigator)
            if record is not None:
                record.pages = [dict(wire) if p["id"] == wire["id"] else p for p in record.pages]
        return self._request(request, apply)

    def configure(self, navigator: str, *, layout: Optional[str] = None,
                  bar_follows_top_page: Optional[bool] = None) -> Request:
        """Change ``layout`` (``ltr``/``rtl``) or ``bar_follows_top_page``; None keeps the value."""
        request: Dict[str, Any] = {"type": "configure", "navigator": _check_id(navigator, "navigator")}
        if layout is not None:
            request["layout"] = layout
        if bar_follows_top_page is not None:
            request["barFollowsTopPage"] = bool(bar_follows_top_page)

        def apply(reply: Dict[str, Any]) -> None:
            record = self._record.get(navigator)
            if record is not None:
                if layout is not None:
                    record.layout = layout
                if bar_follows_top_page is not None:
                    record.bar_follows_top_page = bool(bar_follows_top_page)
        return self._request(request, apply)

    def settle(self, navigator: str) -> Request:
        """Your push or pop animation finished: the back gesture may begin again."""
        return self._request({"type": "settle", "navigator": _check_id(navigator, "navigator")})

    def front(self, navigator: str) -> Request:
        """Bring one of your navigators to the front: it gets the back gesture while you are focused."""
        request = {"type": "front", "navigator": _check_id(navigator, "navigator")}

        def apply(reply: Dict[str, Any]) -> None:
            if navigator in self._record:
                self._record.move_to_end(navigator)
        return self._request(request, apply)

    def remove(self, navigator: str) -> Request:
        """Forget one of your navigators (the library stops re-creating it)."""
        request = {"type": "remove", "navigator": _check_id(navigator, "navigator")}

        def apply(reply: Dict[str, Any]) -> None:
            self._record.pop(navigator, None)
        return self._request(request, apply)

    def focus(self, focused: bool) -> Request:
        """Report that your window gained (True) or lost (False) focus.

        Without a focus bridge, the daemon decides from these reports: a client that
        never reports counts as focused, and gaining focus brings your navigators to
        the front. With a bridge (``popgesturectl bridge ...``) the shell decides and
        these reports do not count; say your ``app`` id in the constructor instead.
        The value is remembered and re-sent after a reconnect; made while
        disconnected it completes at once (``{"type":"ok","request":"focus",
        "deferred":true}``) and goes out on connecting.
        """
        self._focused = bool(focused)
        request = {"type": "focus", "focused": self._focused}
        if self._state == _DISCONNECTED:
            handle = Request(self, "focus", request)
            handle._settle({"type": "ok", "request": "focus", "deferred": True}, None)
            return handle
        return self._request(request)

    def subscribe(self) -> Request:
        """Become an observer: every event, other clients' included, plus ``rejected``,
        ``input-*``, ``back-input`` and ``focus-changed``. Re-sent after a reconnect."""
        def apply(reply: Dict[str, Any]) -> None:
            self._subscribed = True
        return self._request({"type": "subscribe"}, apply)

    def unsubscribe(self) -> Request:
        def apply(reply: Dict[str, Any]) -> None:
            self._subscribed = False
        return self._request({"type": "unsubscribe"}, apply)

    def stack(self, navigator: str) -> Request:
        """Read any navigator's stack (read-only): the reply has ``owner``, ``pages``, ``front``, ``transitioning``."""
        return self._request({"type": "stack", "navigator": _check_id(navigator, "navigator")})

    def status(self) -> Request:
        """The daemon's status: devices, navigators, clients, focus, last back."""
        return self._request({"type": "status"})

    def request(self, message: Mapping[str, Any]) -> Request:
        """Send any request as a dict (``type`` required); the library adds the ``id``.

        For requests this version does not wrap. It does not touch the record: use
        the typed methods for navigators you want re-created after a reconnect.
        """
        if not isinstance(message.get("type"), str):
            raise ValueError("a request needs a string \"type\"")
        return self._request(dict(message))

    # ---------------------------------------------------------------- internals

    def _notify(self) -> None:
        if self.on_io_change is not None:
            self.on_io_change()

    def _queue_callback(self, fn: Callable[[Request], Any], request: Request) -> None:
        self._seq += 1
        self._callbacks.append((self._seq, fn, request))

    def _queue_event(self, event: Event, *, lifecycle: bool = False) -> bool:
        if len(self._events) >= self.max_queued_events:
            self._merge_progress()
        if len(self._events) >= self.max_queued_events:
            if lifecycle:
                self.log.debug("popgesture: event queue full, not queueing %s", event.type)
                return True
            return False
        self._seq += 1
        self._events.append((self._seq, event))
        return True

    def _merge_progress(self) -> None:
        """Drop each pop-progress that a later pop-progress of the same pop supersedes."""
        latest: Dict[str, int] = {}
        keep: Deque[Tuple[int, Event]] = collections.deque()
        for item in reversed(self._events):
            event = item[1]
            if isinstance(event, PopProgress):
                if latest.get(event.navigator) == 1:
                    continue
                latest[event.navigator] = 1
            elif getattr(event, "navigator", None) is not None:
                latest.pop(event.navigator, None)  # another event of that navigator: keep the one before it
            keep.appendleft(item)
        if len(keep) < len(self._events):
            self.log.debug("popgesture: merged %d pop-progress events", len(self._events) - len(keep))
            self._events = keep

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _request(self, message: Dict[str, Any], apply: Optional[Callable[[Dict[str, Any]], None]] = None,
                 *, internal: bool = False) -> Request:
        handle = Request(self, message["type"], message)
        handle._apply = apply
        if self._state == _CLOSED:
            handle._settle(None, NotConnectedError("the client is closed", request=handle.type))
            return handle
        if self._state == _DISCONNECTED or self._sock is None:
            handle._settle(None, NotConnectedError(request=handle.type))
            return handle
        if not internal and len(self._awaiting) + len(self._waiting) >= MAX_AWAITING:
            handle._settle(None, TooManyPendingError(request=handle.type))
            return handle
        handle.id = self._new_id()
        message["id"] = handle.id
        # Encoded now, so that a value JSON cannot take raises here, in the caller's call.
        handle._line = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        if len(handle._line) > MAX_REQUEST_BYTES:
            handle._settle(None, RequestError("line-too-long", f"the request is {len(handle._line)} bytes, over the "
                                              f"daemon's {MAX_REQUEST_BYTES}", request=handle.type, id=handle.id))
            return handle
        if internal and self._state == _READY:
            self._send(handle)  # the library's own (re-creating after a reconnect): first in line
        else:
            self._waiting.append(handle)
            self._send_waiting()
        return handle

    def _send_waiting(self) -> None:
        """Send waiting requests, in order, while fewer than 64 await replies (the daemon's limit)."""
        while self._waiting and self._state == _READY and len(self._awaiting) < MAX_AWAITING:
            self._send(self._waiting.popleft())

    def _send(self, handle: Request) -> None:
        line = handle._line
        assert handle.id is not None
        self._awaiting[handle.id] = handle
        was_empty = not self._outbuf
        self._outbuf += line
        if was_empty:
            self._flush()
        self._notify()

    def _flush(self) -> None:
        sock = self._sock
        while sock is not None and self._outbuf:
            try:
                sent = sock.send(self._outbuf, socket.MSG_NOSIGNAL)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:
                self._drop(f"writing to popgestured failed: {error.strerror or error}")
                return
            del self._outbuf[:sent]

    def _attempt(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            sock.connect(self.socket_path)
        except OSError as error:
            sock.close()
            if error.errno in (errno.EAGAIN, errno.EWOULDBLOCK):
                reason = "its listen queue is full"
            else:
                reason = error.strerror or str(error)
            self._schedule_retry(f"cannot connect to {self.socket_path}: {reason}")
            return
        self._sock = sock
        self._generation += 1
        self._state = _HELLO
        self._inbuf.clear()
        self._scanned = 0
        self._outbuf.clear()
        self._say_hello(list(self.versions))

    def _say_hello(self, versions: List[int]) -> None:
        # `version` alone offers one version; with `versions`, it is what a daemon older
        # than `versions` reads (docs/PROTOCOL.md, "Version negotiation").
        hello: Dict[str, Any] = {"type": "hello", "version": versions[0]}
        if len(versions) > 1:
            hello["versions"] = versions
        if self.name is not None:
            hello["name"] = self.name
        if self.app is not None:
            hello["app"] = self.app
        handle = Request(self, "hello", hello)
        handle._internal = self._hello_answered
        handle.id = self._new_id()
        hello["id"] = handle.id
        handle._line = json.dumps(hello, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        self._send(handle)

    def _hello_answered(self, handle: Request) -> None:
        if self._state != _HELLO:
            return
        error = handle._error
        if error is not None:
            if isinstance(error, ConnectionLostError):
                return
            if error.code == "unsupported-version" and error.supported:
                common = sorted(set(error.supported) & set(self.versions))
                offered = handle.params.get("versions") or [handle.params.get("version")]
                if common and common != sorted(offered):
                    self._say_hello(common)
                    return
            self._queue_event(_error_event(error), lifecycle=True)
            self.log.warning("popgesture: popgestured refused hello: %s: %s (we speak protocol versions %s)",
                             error.code, error.message, ", ".join(map(str, self.versions)))
            self._drop(f"hello refused: {error.code}")
            return
        reply = handle._reply or {}
        version = reply.get("version")
        if not isinstance(version, int) or version not in self.versions:
            self._drop(f"popgestured answered hello with protocol version {version!r}, which was not offered")
            return
        self.protocol_version = version
        self.paused = False
        self.client_id = reply.get("client") if isinstance(reply.get("client"), int) else None
        self.server = reply.get("server") if isinstance(reply.get("server"), str) else None
        self._state = _READY
        self._ready_since = time.monotonic()
        reconnected = self._ever_ready
        self._ever_ready = True
        if self._failures_logged or reconnected:
            self.log.info("popgesture: connected to %s as client %s (protocol %s)%s", self.socket_path,
                          self.client_id, version, ", re-creating %d navigator(s)" % len(self._record) if self._record else "")
        self._failures_logged = 0
        self._queue_event(Connected(client=self.client_id or 0, version=version, server=self.server or "",
                                    reconnected=reconnected), lifecycle=True)
        self._restore()
        self._send_waiting()

    def _restore(self) -> None:
        """Re-send what the app had: subscribe, its navigators (front-most last), its focus."""
        if self._subscribed:
            self._restore_request({"type": "subscribe"})
        for navigator, record in list(self._record.items()):
            if self._state != _READY:
                return
            self._restore_request(record.create_request(navigator), navigator)
        if self._focused is not None and self._state == _READY:
            self._restore_request({"type": "focus", "focused": self._focused})

    def _restore_request(self, message: Dict[str, Any], navigator: Optional[str] = None) -> None:
        def settled(handle: Request) -> None:
            error = handle._error
            if error is None or isinstance(error, (ConnectionLostError, NotConnectedError)):
                return
            if navigator is not None:
                # Not on the daemon: stop pretending it is (another client may own the id now).
                self._record.pop(navigator, None)
                self.log.warning("popgesture: could not re-create navigator %r after reconnecting: %s: %s",
                                 navigator, error.code, error.message)
            else:
                self.log.warning("popgesture: could not re-send %s after reconnecting: %s: %s",
                                 handle.type, error.code, error.message)
            self._queue_event(_error_event(error), lifecycle=True)
        handle = self._request(message, internal=True)
        handle._internal = settled
        if handle.done():
            settled(handle)

    def _schedule_retry(self, reason: str) -> None:
        if not self.reconnect:
            self._state = _CLOSED
            self.log.warning("popgesture: %s; not reconnecting (reconnect=False)", reason)
            return
        delay = self._backoff
        self._backoff = min(self._backoff * 2, RECONNECT_MAX)
        self._retry_at = time.monotonic() + delay
        if self._failures_logged == 0:
            self.log.info("popgesture: %s; retrying in %.1f s (backing off to %.0f s)", reason, delay, RECONNECT_MAX)
        else:
            self.log.debug("popgesture: %s; retrying in %.1f s", reason, delay)
        self._failures_logged += 1

    def _drop(self, reason: str, *, final: bool = False) -> None:
        """Close the socket, fail what is in flight, and (unless final) schedule a reconnect."""
        was_ready = self._state == _READY
        sock = self._sock
        self._sock = None
        self._generation += 1
        if sock is not None:
            fd = sock.fileno()
            if self.on_closing_fd is not None and fd >= 0:
                self.on_closing_fd(fd)
            sock.close()
        self._inbuf.clear()
        self._scanned = 0
        self._outbuf.clear()
        self._state = _CLOSED if final else _DISCONNECTED
        if was_ready and self._ready_since is not None and time.monotonic() - self._ready_since >= RECONNECT_MAX:
            self._backoff = RECONNECT_FIRST  # it had been up a while: a restart, not a flapping daemon
        self._ready_since = None
        self.client_id = None
        awaiting = list(self._awaiting.values()) + list(self._waiting)
        self._awaiting.clear()
        self._waiting.clear()
        for handle in awaiting:
            handle._settle(None, ConnectionLostError(f"the connection to popgestured was lost: {reason}",
                                                     request=handle.type, id=handle.id))
        if final:
            self._retry_at = None
        else:
            self._schedule_retry(reason if sock is None else f"connection lost ({reason})")
        if was_ready:
            retry_in = self.timeout() if self._retry_at is not None else None
            self._queue_event(Disconnected(reason=reason, will_reconnect=self._retry_at is not None,
                                           retry_in=retry_in), lifecycle=True)
        self._notify()

    def _process_lines(self) -> None:
        generation = self._generation
        buf = self._inbuf
        start = 0
        while True:
            newline = buf.find(b"\n", max(start, self._scanned))
            if newline < 0:
                break
            line = bytes(buf[start:newline])
            start = newline + 1
            self._scanned = start
            if len(line) > self.max_line_bytes:
                self._drop_long_line(len(line))
                return
            self._handle_line(line)
            if self._generation != generation:
                return
        if start:
            del buf[:start]
        self._scanned = len(buf)
        if len(buf) > self.max_line_bytes:
            self._drop_long_line(len(buf))

    def _drop_long_line(self, length: int) -> None:
        self.log.warning("popgesture: a line from popgestured passed %d bytes (%d so far) without ending: "
                         "dropping the connection and reconnecting", self.max_line_bytes, length)
        self._drop(f"a line from popgestured passed the {self.max_line_bytes}-byte limit")

    def _handle_line(self, line: bytes) -> None:
        line = line.rstrip(b"\r")
        if not line.strip():
            return
        try:
            message = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as error:
            self.log.warning("popgesture: ignoring a line from popgestured that is not JSON (%s): %.80r", error, line)
            return
        if not isinstance(message, dict):
            self.log.warning("popgesture: ignoring a line from popgestured that is not an object: %.80r", line)
            return
        kind = message.get("type")
        request_id = message.get("id")
        generation = self._generation
        if kind in ("ok", "error", "hello", "stack", "status") and isinstance(request_id, int) \
                and not isinstance(request_id, bool) and request_id in self._awaiting:
            handle = self._awaiting.pop(request_id)
            if kind == "error":
                handle._settle(None, RequestError.from_reply(message))
            else:
                if handle._apply is not None:
                    handle._apply(message)
                handle._settle(message, None)
            if self._waiting and self._generation == generation:
                self._send_waiting()
            return
        event = decode_event(message)
        if isinstance(event, (Paused, Resumed)):
            self.paused = isinstance(event, Paused)
            self.log.info("popgesture: %s", f"paused: {event.reason}" if isinstance(event, Paused) else "resumed")
        if isinstance(event, Back):
            record = self._record.get(event.navigator)
            if record is not None and len(record.pages) > 1 and record.pages[-1]["id"] == event.popped:
                record.pages.pop()
        if not self._queue_event(event):
            self.log.warning("popgesture: %d events wait for the application (it is not taking them: call "
                             "dispatch() with on_event set, or take_event()); dropping the connection as "
                             "popgestured drops a client that does not read", len(self._events))
            self._drop(f"over {self.max_queued_events} events waiting")


def _error_event(error: RequestError) -> Error:
    event = Error(code=error.code, message=error.message, request=error.request, id=error.id,
                  supported=error.supported)
    event.raw = error.reply or {"type": "error", "code": error.code, "message": error.message}
    return event
