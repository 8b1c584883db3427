"""The GLib/GTK front end: the socket on the GLib main loop, callbacks on it.

::

    from popgesture.glib import GLibClient, follow_window_focus

    client = GLibClient(app="org.example.Files", on_event=on_event)
    client.create("main", ["home", "detail"])
    follow_window_focus(client, window)   # focus in/out from the window, GTK3 or GTK4

The socket is watched with ``GLib.unix_fd_add_full`` (``GLib.io_add_watch`` on an
older PyGObject), the reconnect timer is a ``GLib.timeout_add``; every callback
(events, replies, errors) runs on the default main context, from the loop that
``Gtk.main()``, ``Gtk.Application.run()`` or a ``GLib.MainLoop`` runs. ``gi`` is
imported when this module is, so importing :mod:`popgesture` alone never needs it
(Debian: ``apt install python3-gi gir1.2-glib-2.0``).
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Dict, Iterable, Optional

import gi

gi.require_version("GLib", "2.0")
from gi.repository import GLib, GObject  # noqa: E402

from .core import Client, PageLike, Request  # noqa: E402
from .errors import RequestError  # noqa: E402
from .events import Event  # noqa: E402

__all__ = ["GLibClient", "follow_window_focus", "FocusFollower"]

log = logging.getLogger("popgesture")

ReplyCallback = Callable[[Dict[str, Any]], Any]
ErrorCallback = Callable[[RequestError], Any]


class GLibClient:
    """A client on the GLib main loop. Events go to ``on_event(event)``.

    ``GLibClient(socket_path=None, app=None, name=None, on_event=None, on_error=None,
    priority=GLib.PRIORITY_DEFAULT, connect=True, **core options)`` (see
    :class:`popgesture.Client`). It connects at once (``connect=False``: call
    :meth:`connect` later) and reconnects by itself; ``on_event`` also gets the
    library's :class:`~popgesture.Connected` and :class:`~popgesture.Disconnected`.

    Request methods return at once with a :class:`popgesture.Request`; the reply
    goes to ``on_reply(reply_dict)`` and a failure to ``on_error(error)`` (a
    :class:`~popgesture.RequestError`, ``error.code`` being the daemon's code), both
    on the main loop. A failure without an ``on_error`` goes to the client's
    ``on_error(request, error)``, else to the log as a warning: it is never lost.
    Made while disconnected, a request fails (``not-connected``) on the next turn
    of the loop; ``focus`` is remembered instead and sent on connecting.

    Where a caller can go wrong: use it from the main loop's thread only; only
    change your own navigators (``not-owner``); gesture events come only while you
    are focused (see :func:`follow_window_focus`) and your navigator is in front;
    on a :class:`~popgesture.Back` pop your page, do not call :meth:`pop`.
    """

    def __init__(self, socket_path: Optional[str] = None, *, app: Optional[str] = None,
                 name: Optional[str] = None, on_event: Optional[Callable[[Event], Any]] = None,
                 on_error: Optional[Callable[[Request, RequestError], Any]] = None,
                 priority: int = GLib.PRIORITY_DEFAULT, connect: bool = True, **options: Any):
        self.client = Client(socket_path, app=app, name=name, on_event=self._deliver, **options)
        #: Called with each event on the main loop.
        self.on_event = on_event
        #: Called as ``on_error(request, error)`` for a failed request that had no ``on_error`` of its own.
        self.on_error = on_error
        self.priority = priority
        self._read_source: Optional[int] = None
        self._read_fd = -1
        self._write_source: Optional[int] = None
        self._timer_source: Optional[int] = None
        self._timer_due: Optional[float] = None
        self._idle_source: Optional[int] = None
        self.client.on_io_change = self._sync
        self.client.on_closing_fd = self._forget_fd
        if connect:
            self.connect()

    def connect(self) -> None:
        """Start connecting (returns at once); failures are retried with backoff."""
        self.client.connect()
        self._after()

    @property
    def ready(self) -> bool:
        return self.client.ready

    def fileno(self) -> int:
        return self.client.fileno()

    def close(self) -> None:
        """Close for good (no reconnect) and remove every GLib source of this client."""
        self.client.close()
        self._after()
        for name in ("_read_source", "_write_source", "_timer_source", "_idle_source"):
            source = getattr(self, name)
            if source is not None:
                GLib.source_remove(source)
                setattr(self, name, None)

    # ---------------------------------------------------------------- GLib glue

    def _deliver(self, event: Event) -> None:
        if self.on_event is not None:
            self.on_event(event)

    def _watch(self, fd: int, condition: GLib.IOCondition, callback: Callable[..., bool]) -> int:
        if hasattr(GLib, "unix_fd_add_full"):
            return GLib.unix_fd_add_full(self.priority, fd, condition, callback)
        return GLib.io_add_watch(fd, self.priority, condition, callback)

    def _forget_fd(self, fd: int) -> None:
        if self._read_fd == fd and self._read_source is not None:
            GLib.source_remove(self._read_source)
            self._read_source = None
            self._read_fd = -1
        if self._write_source is not None:
            GLib.source_remove(self._write_source)
            self._write_source = None

    def _sync(self) -> None:
        """Make the main loop's sources match what the client wants now.

        Callbacks always return True; sources go only through source_remove here,
        which GLib allows from inside the source's own callback.
        """
        client = self.client
        fd = client.fileno()
        if self._read_fd != fd:
            if self._read_source is not None:
                GLib.source_remove(self._read_source)
                self._read_source = None
            self._read_fd = -1
            if fd >= 0:
                self._read_source = self._watch(
                    fd, GLib.IOCondition.IN | GLib.IOCondition.HUP | GLib.IOCondition.ERR, self._on_readable)
                self._read_fd = fd
        if fd >= 0 and client.wants_write():
            if self._write_source is None:
                self._write_source = self._watch(fd, GLib.IOCondition.OUT, self._on_writable)
        elif self._write_source is not None:
            GLib.source_remove(self._write_source)
            self._write_source = None
        delay = client.timeout()
        if delay is None:
            if self._timer_source is not None:
                GLib.source_remove(self._timer_source)
                self._timer_source = self._timer_due = None
        else:
            due = GLib.get_monotonic_time() / 1e6 + delay
            if self._timer_source is None or self._timer_due is None or abs(self._timer_due - due) > 0.002:
                if self._timer_source is not None:
                    GLib.source_remove(self._timer_source)
                self._timer_source = GLib.timeout_add(max(0, int(delay * 1000 + 0.999)), self._on_timer,
                                                      priority=self.priority)
                self._timer_due = due
        if client.needs_dispatch() and self._idle_source is None:
            # Completions made outside a loop callback (a request that failed at once)
            # are delivered on the next turn of the loop, never inside the request call.
            self._idle_source = GLib.idle_add(self._on_idle, priority=self.priority)

    def _on_readable(self, *args: Any) -> bool:
        self.client.on_readable()
        self._after()
        return True

    def _on_writable(self, *args: Any) -> bool:
        self.client.on_writable()
        self._after()
        return True

    def _on_timer(self, *args: Any) -> bool:
        self._timer_source = self._timer_due = None
        self.client.on_timeout()
        self._after()
        return False  # one-shot: _sync made a new one if needed

    def _on_idle(self, *args: Any) -> bool:
        self._idle_source = None
        self._after()
        return False

    def _after(self) -> None:
        try:
            self.client.dispatch()
        except Exception:
            # PyGObject would only print it, and drop the source whose callback raised:
            # log it, keep the sources, deliver the rest on the next turn of the loop.
            log.exception("popgesture: a callback raised")
        finally:
            self._sync()

    # ---------------------------------------------------------------- requests

    def _call(self, handle: Request, on_reply: Optional[ReplyCallback], on_error: Optional[ErrorCallback]) -> Request:
        def settled(request: Request) -> None:
            error = request.exception()
            if error is None:
                if on_reply is not None:
                    on_reply(request.result())
            elif on_error is not None:
                on_error(error)
            elif self.on_error is not None:
                self.on_error(request, error)
            else:
                log.warning("popgesture: %s%s failed: %s: %s", request.type,
                            f" {request.navigator}" if request.navigator else "", error.code, error.message)
        handle.add_done_callback(settled)
        self._sync()
        return handle

    def create(self, navigator: str, pages: Iterable[PageLike], *, layout: Optional[str] = None,
               bar_follows_top_page: Optional[bool] = None, on_reply: Optional[ReplyCallback] = None,
               on_error: Optional[ErrorCallback] = None) -> Request:
        """Create one of your navigators (see :meth:`popgesture.Client.create`)."""
        return self._call(self.client.create(navigator, pages, layout=layout,
                                             bar_follows_top_page=bar_follows_top_page), on_reply, on_error)

    def push(self, navigator: str, page: PageLike, *, animated: bool = False,
             on_reply: Optional[ReplyCallback] = None, on_error: Optional[ErrorCallback] = None) -> Request:
        """Push onto one of your navigators; animated: ``settle`` when the animation ends."""
        return self._call(self.client.push(navigator, page, animated=animated), on_reply, on_error)

    def pop(self, navigator: str, *, animated: bool = False, on_reply: Optional[ReplyCallback] = None,
            on_error: Optional[ErrorCallback] = None) -> Request:
        """Your own back button; never for a swipe's Back (the daemon popped already)."""
        return self._call(self.client.pop(navigator, animated=animated), on_reply, on_error)

    def replace(self, navigator: str, pages: Iterable[PageLike], *, animated: bool = False,
                on_reply: Optional[ReplyCallback] = None, on_error: Optional[ErrorCallback] = None) -> Request:
        return self._call(self.client.replace(navigator, pages, animated=animated), on_reply, on_error)

    def update(self, navigator: str, page: PageLike, *, on_reply: Optional[ReplyCallback] = None,
               on_error: Optional[ErrorCallback] = None) -> Request:
        return self._call(self.client.update(navigator, page), on_reply, on_error)

    def configure(self, navigator: str, *, layout: Optional[str] = None, bar_follows_top_page: Optional[bool] = None,
                  on_reply: Optional[ReplyCallback] = None, on_error: Optional[ErrorCallback] = None) -> Request:
        return self._call(self.client.configure(navigator, layout=layout, bar_follows_top_page=bar_follows_top_page),
                          on_reply, on_error)

    def settle(self, navigator: str, *, on_reply: Optional[ReplyCallback] = None,
               on_error: Optional[ErrorCallback] = None) -> Request:
        return self._call(self.client.settle(navigator), on_reply, on_error)

    def front(self, navigator: str, *, on_reply: Optional[ReplyCallback] = None,
              on_error: Optional[ErrorCallback] = None) -> Request:
        return self._call(self.client.front(navigator), on_reply, on_error)

    def remove(self, navigator: str, *, on_reply: Optional[ReplyCallback] = None,
               on_error: Optional[ErrorCallback] = None) -> Request:
        return self._call(self.client.remove(navigator), on_reply, on_error)

    def focus(self, focused: bool, *, on_reply: Optional[ReplyCallback] = None,
              on_error: Optional[ErrorCallback] = None) -> Request:
        """Report focus in/out (remembered and re-sent on reconnect). See :func:`follow_window_focus`."""
        return self._call(self.client.focus(focused), on_reply, on_error)

    def subscribe(self, *, on_reply: Optional[ReplyCallback] = None, on_error: Optional[ErrorCallback] = None) -> Request:
        return self._call(self.client.subscribe(), on_reply, on_error)

    def unsubscribe(self, *, on_reply: Optional[ReplyCallback] = None,
                    on_error: Optional[ErrorCallback] = None) -> Request:
        return self._call(self.client.unsubscribe(), on_reply, on_error)

    def stack(self, navigator: str, *, on_reply: Optional[ReplyCallback] = None,
              on_error: Optional[ErrorCallback] = None) -> Request:
        return self._call(self.client.stack(navigator), on_reply, on_error)

    def status(self, *, on_reply: Optional[ReplyCallback] = None, on_error: Optional[ErrorCallback] = None) -> Request:
        return self._call(self.client.status(), on_reply, on_error)

    def request(self, message: Dict[str, Any], *, on_reply: Optional[ReplyCallback] = None,
                on_error: Optional[ErrorCallback] = None) -> Request:
        return self._call(self.client.request(message), on_reply, on_error)

    def navigators(self) -> Dict[str, Any]:
        """Your navigators and their page ids as the daemon confirmed them (front-most last)."""
        return self.client.navigators()


class FocusFollower:
    """What :func:`follow_window_focus` connected; :meth:`disconnect` undoes it."""

    def __init__(self, window: GObject.Object, handler_ids: Iterable[int]):
        self.window = window
        self.handler_ids = list(handler_ids)

    def disconnect(self) -> None:
        for handler_id in self.handler_ids:
            if self.window.handler_is_connected(handler_id):
                self.window.disconnect(handler_id)
        self.handler_ids = []


def follow_window_focus(client: GLibClient, window: GObject.Object) -> FocusFollower:
    """Report ``window``'s focus to the daemon from now on: focus in and out, automatically.

    GTK4 (and any object with an ``is-active`` property and no ``focus-in-event``
    signal): follows ``notify::is-active``. GTK3: follows ``focus-in-event`` and
    ``focus-out-event`` (the handlers let the event propagate). The current state
    is reported at once, and only changes after that. The library re-sends the
    last report after a reconnect by itself.

    Where a caller can go wrong: with several windows, follow each and note that
    the daemon knows one focus per client (the last report wins); while a focus
    bridge (``popgesturectl bridge``) runs, the shell decides and these reports do
    not count, so give the client your ``app`` id as well.
    """
    last: Dict[str, Optional[bool]] = {"focused": None}

    def report(focused: bool) -> None:
        if last["focused"] is not focused:
            last["focused"] = focused
            client.focus(focused)

    def is_active() -> Optional[bool]:
        try:
            return bool(window.get_property("is-active"))
        except (TypeError, AttributeError):
            return None

    handlers = []
    if GObject.signal_lookup("focus-in-event", type(window)):
        # GTK3: the window's focus events (the handlers return False: let them propagate).
        handlers.append(window.connect("focus-in-event", lambda *args: report(True) or False))
        handlers.append(window.connect("focus-out-event", lambda *args: report(False) or False))
    else:
        # GTK4: focus is the read-only is-active property.
        handlers.append(window.connect("notify::is-active", lambda *args: report(bool(is_active()))))
    current = is_active()
    if current is not None:
        report(current)
    return FocusFollower(window, handlers)
