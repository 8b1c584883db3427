"""Typed events: what popgestured sends without being asked, and what the library
itself says about its connection.

Every event is a dataclass with the wire ``type`` and the whole decoded line in
``raw`` (so a field a later daemon adds is never lost). A line whose ``type`` the
library does not know, or a known type whose fields are not what this version
expects, becomes a plain :class:`Event`: never an exception. Dispatch with
``isinstance`` (or on ``event.type``) and ignore what you do not handle.

Owner events (:class:`PopBegan`, :class:`PopProgress`, :class:`PopFinished`,
:class:`PopCancelled`, :class:`Back`, :class:`Bar`) come only to the client that
owns the navigator, and the gesture ones only while that client is focused and its
navigator is the one in front (docs/PROTOCOL.md, "Focus"). A committed swipe comes
as ``PopBegan, PopProgress..., PopFinished, Back, Bar``; a cancelled one as
``PopBegan, PopProgress..., PopCancelled, Bar``. Observer events
(:class:`Rejected`, :class:`Refused`, :class:`InputBegan`, :class:`InputProgress`, :class:`InputCancelled`,
:class:`BackInput`, :class:`FocusChanged`) come only after ``subscribe``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

__all__ = [
    "Event", "PopBegan", "PopProgress", "PopFinished", "PopCancelled", "Back", "Bar",
    "Rejected", "Refused", "InputBegan", "InputProgress", "InputCancelled", "BackInput", "FocusChanged", "ScreenChanged", "Paused", "Resumed", "Error",
    "Connected", "Disconnected", "decode_event",
]


@dataclass
class Event:
    """An event of a type this library does not know (or with unexpected fields).

    ``type`` is the wire type, ``raw`` the whole decoded JSON object. Typed events
    below are subclasses, so ``isinstance(event, Event)`` holds for every event.
    """

    type: str
    raw: Dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)


def _typed(wire_type: str):
    """The ``type`` field of a typed event: fixed, not an argument."""
    return field(default=wire_type, init=False)


@dataclass
class PopBegan(Event):
    """An interactive pop started: start moving ``page`` (the page leaving) with the finger.

    Comes only to the navigator's owner, and only while that client is focused and
    the navigator is in front. ``progress`` is 0...1 of the screen width.
    """

    type: str = _typed("pop-began")
    navigator: str = ""
    page: str = ""
    progress: float = 0.0
    time_us: int = 0


@dataclass
class PopProgress(Event):
    """The finger moved: set the leaving page's offset to ``progress`` (0...1).

    Sent when progress changes by at least 0.001; a library queue that fills up may
    merge consecutive progress events of one pop (only the latest matters).
    """

    type: str = _typed("pop-progress")
    navigator: str = ""
    page: str = ""
    progress: float = 0.0
    time_us: int = 0


@dataclass
class PopFinished(Event):
    """The release commits the pop (``reason``: ``progress`` or ``fling``); a :class:`Back` follows."""

    type: str = _typed("pop-finished")
    navigator: str = ""
    page: str = ""
    reason: str = ""
    time_us: int = 0


@dataclass
class PopCancelled(Event):
    """The pop will not happen: animate ``page`` back into place. See docs/PROTOCOL.md for reasons."""

    type: str = _typed("pop-cancelled")
    navigator: str = ""
    page: str = ""
    reason: str = ""
    time_us: int = 0


@dataclass
class Back(Event):
    """The daemon popped ``popped`` off its copy of the stack; ``top`` is the new top page.

    Pop your own page now. The library's record of the stack (which it re-creates
    after a daemon restart) already dropped ``popped``: do not call ``pop()`` for it,
    that would pop a second page.
    """

    type: str = _typed("back")
    navigator: str = ""
    popped: str = ""
    top: str = ""
    time_us: int = 0


@dataclass
class Bar(Event):
    """The navigator's bar follows its top page ``page``: show it unless ``hidden``."""

    type: str = _typed("bar")
    navigator: str = ""
    page: str = ""
    hidden: bool = False


@dataclass
class Rejected(Event):
    """(Observers only.) A pan was refused, with the arbiter's ``reason``."""

    type: str = _typed("rejected")
    reason: str = ""
    device: int = 0
    time_us: int = 0


@dataclass
class Refused(Event):
    """(Observers only.) That rejected pan went on like a back (from the edge zone, or half
    the commit distance in fullscreen mode): at most once a pan, for an indicator's "no"."""

    type: str = _typed("refused")
    reason: str = ""
    device: int = 0
    time_us: int = 0


@dataclass
class InputBegan(Event):
    """(Observers only.) A pan goes to the daemon's back input: the focused app has no navigator."""

    type: str = _typed("input-began")
    app: Optional[str] = None
    time_us: int = 0


@dataclass
class InputProgress(Event):
    """(Observers only.) The finger of a pan toward the back input moved: ``progress``
    0…1 across the screen, ``commit`` the progress that commits it on release."""

    type: str = _typed("input-progress")
    app: Optional[str] = None
    progress: float = 0.0
    commit: float = 0.0
    time_us: int = 0


@dataclass
class InputCancelled(Event):
    """(Observers only.) The pan that went to the back input will not go back."""

    type: str = _typed("input-cancelled")
    app: Optional[str] = None
    reason: str = ""
    time_us: int = 0


@dataclass
class BackInput(Event):
    """(Observers only.) The daemon's virtual device sent the back ``input`` (``alt+left``)."""

    type: str = _typed("back-input")
    app: Optional[str] = None
    input: str = ""
    reason: str = ""
    time_us: int = 0


@dataclass
class FocusChanged(Event):
    """(Observers only.) Who has focus changed, or which navigator a back would reach.

    ``navigator`` is None when a back would go to the back input, or nowhere.
    """

    type: str = _typed("focus-changed")
    source: str = ""
    app: Optional[str] = None
    pid: Optional[int] = None
    navigator: Optional[str] = None


@dataclass
class Error(Event):
    """An ``error`` line that answers none of this client's requests.

    The daemon sends these on its own (``too-many-clients``, ``not-permitted`` or
    ``line-timeout`` before closing), and the library turns the failure of a
    request it made by itself (re-creating a navigator after a reconnect, whose id
    another client took meanwhile: ``navigator-exists``) into one too. A failed
    request of yours never comes as an event: it reaches you the way the request
    was made (an exception, a failed future, an error callback).
    """

    type: str = _typed("error")
    code: str = ""
    message: str = ""
    request: Optional[str] = None
    id: Any = None
    supported: Optional[List[int]] = None


@dataclass
class Connected(Event):
    """(From the library.) The connection is up and ``hello`` was answered.

    ``client`` is this connection's number (the ``owner`` of its navigators),
    ``version`` the protocol version agreed. With ``reconnected`` true, the daemon
    had gone away; the library has already re-sent, in this order, ``subscribe``
    (if you had subscribed), a ``create`` for each navigator it owns as its record
    has them (the one in front last) and your last focus report.
    """

    type: str = _typed("connected")
    client: int = 0
    version: int = 0
    server: str = ""
    reconnected: bool = False


@dataclass
class Disconnected(Event):
    """(From the library.) The connection was lost (``reason`` says why).

    Requests in flight failed with :class:`~popgesture.ConnectionLostError`;
    requests made now fail with :class:`~popgesture.NotConnectedError` (except
    ``focus``, which is remembered). With ``will_reconnect``, the library tries
    again by itself after ``retry_in`` seconds, then backs off to at most 5 s.
    """

    type: str = _typed("disconnected")
    reason: str = ""
    will_reconnect: bool = True
    retry_in: Optional[float] = None


@dataclass
class ScreenChanged(Event):
    """(Observers only.) The touchscreens' rotation or the text direction in force changed.

    ``rotation`` is clockwise degrees (None: from the configuration, no touchscreen);
    ``rotationSource`` is ``shell``, ``sensor`` or ``configuration``; ``output`` the
    shell's output name; ``direction`` ``ltr`` or ``rtl``, from ``directionSource``
    ``shell`` or ``configuration`` (the wire's names).
    """

    type: str = _typed("screen-changed")
    rotation: Optional[int] = None
    rotationSource: str = ""
    output: Optional[str] = None
    direction: str = ""
    directionSource: str = ""


@dataclass
class Paused(Event):
    """This client's user is not a seat's active user now (a user switch).

    The connection and its navigators stay; no events come, and ``status``, ``stack``
    and a shell's reports fail with ``seat-inactive`` until :class:`Resumed`. Nothing
    needs doing (``Client.paused`` says it).
    """

    type: str = _typed("paused")
    reason: str = ""


@dataclass
class Resumed(Event):
    """This client's user is back at the seat: events and every request as before."""

    type: str = _typed("resumed")


# Wire type -> (class, ((wire key, attribute, accepted types, required), ...)).
_NUMBER = (int, float)
_SCHEMA = {
    "pop-began": (PopBegan, (("navigator", str, True), ("page", str, True), ("progress", _NUMBER, True), ("time_us", int, False))),
    "pop-progress": (PopProgress, (("navigator", str, True), ("page", str, True), ("progress", _NUMBER, True), ("time_us", int, False))),
    "pop-finished": (PopFinished, (("navigator", str, True), ("page", str, True), ("reason", str, False), ("time_us", int, False))),
    "pop-cancelled": (PopCancelled, (("navigator", str, True), ("page", str, True), ("reason", str, False), ("time_us", int, False))),
    "back": (Back, (("navigator", str, True), ("popped", str, True), ("top", str, True), ("time_us", int, False))),
    "bar": (Bar, (("navigator", str, True), ("page", str, True), ("hidden", bool, False))),
    "rejected": (Rejected, (("reason", str, True), ("device", int, False), ("time_us", int, False))),
    "refused": (Refused, (("reason", str, True), ("device", int, False), ("time_us", int, False))),
    "input-began": (InputBegan, (("app", str, False), ("time_us", int, False))),
    "input-progress": (InputProgress, (("app", str, False), ("progress", _NUMBER, True), ("commit", _NUMBER, True), ("time_us", int, False))),
    "input-cancelled": (InputCancelled, (("app", str, False), ("reason", str, False), ("time_us", int, False))),
    "back-input": (BackInput, (("app", str, False), ("input", str, False), ("reason", str, False), ("time_us", int, False))),
    "focus-changed": (FocusChanged, (("source", str, False), ("app", str, False), ("pid", int, False), ("navigator", str, False))),
    "screen-changed": (ScreenChanged, (("rotation", int, False), ("rotationSource", str, False), ("output", str, False),
                                       ("direction", str, False), ("directionSource", str, False))),
    "paused": (Paused, (("reason", str, False),)),
    "resumed": (Resumed, ()),
    "error": (Error, (("code", str, True), ("message", str, False), ("request", str, False), ("id", (int, str), False))),
}


def _accepts(value: Any, kinds) -> bool:
    if isinstance(value, bool) and kinds is not bool:
        return False  # JSON true is not a number
    return isinstance(value, kinds)


def decode_event(message: Dict[str, Any]) -> Event:
    """The typed event for a decoded line; a plain :class:`Event` when it does not fit.

    Never raises for a dict: an unknown ``type``, a missing required field or a
    field of the wrong type gives ``Event(type, raw=message)``.
    """
    wire_type = message.get("type")
    if not isinstance(wire_type, str):
        wire_type = ""
    entry = _SCHEMA.get(wire_type)
    event: Event
    if entry is None:
        event = Event(wire_type)
    else:
        cls, fields = entry
        values = {}
        fits = True
        for key, kinds, required in fields:
            value = message.get(key)
            if value is None:
                if required:
                    fits = False
                    break
                continue
            if not _accepts(value, kinds):
                fits = False
                break
            values[key] = value
        if fits and wire_type == "error":
            supported = message.get("supported")
            if isinstance(supported, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in supported):
                values["supported"] = list(supported)
        event = cls(**values) if fits else Event(wire_type)
    event.raw = message
    return event
