"""Exceptions. A failed request carries the daemon's error ``code`` (stable, listed in
docs/PROTOCOL.md, "Errors") and ``message`` (for people); the library's own
failures use codes of their own: ``not-connected``, ``connection-lost``,
``timeout``, ``too-many-pending`` and ``line-too-long``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

__all__ = [
    "PopGestureError", "RequestError", "NotConnectedError", "ConnectionLostError",
    "RequestTimeoutError", "TooManyPendingError",
]


class PopGestureError(Exception):
    """Base of every exception this library raises."""


class RequestError(PopGestureError):
    """A request failed. ``code`` is machine-readable, ``message`` is for people.

    ``request`` is the request's type (``"push"``), ``id`` the id the library gave
    it, ``reply`` the daemon's whole ``error`` line (None for the library's own
    failures) and ``supported`` the daemon's versions (``unsupported-version`` only).
    """

    def __init__(self, code: str, message: str, *, request: Optional[str] = None, id: Any = None,
                 reply: Optional[Dict[str, Any]] = None, supported: Optional[List[int]] = None):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.request = request
        self.id = id
        self.reply = reply
        self.supported = supported

    @classmethod
    def from_reply(cls, reply: Dict[str, Any]) -> "RequestError":
        code = reply.get("code")
        message = reply.get("message")
        supported = reply.get("supported")
        return cls(code if isinstance(code, str) else "unknown",
                   message if isinstance(message, str) else "",
                   request=reply.get("request") if isinstance(reply.get("request"), str) else None,
                   id=reply.get("id"), reply=reply,
                   supported=supported if isinstance(supported, list) else None)


class NotConnectedError(RequestError):
    """The request was not sent: the client is not connected (or was closed).

    While the daemon is away the library reconnects by itself; wait for
    :class:`~popgesture.Connected` (or let the blocking and asyncio front ends wait
    for you, up to their timeout) and make the request again.
    """

    def __init__(self, message: str = "not connected to popgestured", **kwargs: Any):
        super().__init__("not-connected", message, **kwargs)


class ConnectionLostError(RequestError):
    """The connection went away before the reply came.

    The daemon may or may not have carried the request out before it went, but a
    daemon that restarted has forgotten it anyway, and the library's record (what
    it re-creates) does not hold it: make it again after reconnecting.
    """

    def __init__(self, message: str = "the connection to popgestured was lost", **kwargs: Any):
        super().__init__("connection-lost", message, **kwargs)


class RequestTimeoutError(RequestError, TimeoutError):
    """No reply within the timeout (blocking and asyncio front ends).

    The request stays in flight: if its ``ok`` comes later, the library's record
    takes the change in as usual.
    """

    def __init__(self, message: str = "no reply from popgestured in time", **kwargs: Any):
        super().__init__("timeout", message, **kwargs)


class TooManyPendingError(RequestError):
    """Already 64 requests await their replies (the daemon disconnects a client past that)."""

    def __init__(self, message: str = "64 requests already await their replies", **kwargs: Any):
        super().__init__("too-many-pending", message, **kwargs)
