"""popgesture: a Python client for popgestured, the iOS swipe-back gesture for Linux tablets.

Three front ends over one non-blocking core (:class:`Client`), none with a thread
of its own:

- :class:`BlockingClient`: requests wait for their replies; ``next_event(timeout)``.
- :class:`AsyncClient`: ``await`` requests, ``async for event in client.events()``.
- :mod:`popgesture.glib`: ``GLibClient`` and ``follow_window_focus`` for GLib/GTK
  main loops (imports ``gi``; import it yourself: ``from popgesture.glib import ...``).

The socket: ``$POPGESTURED_SOCKET``, else ``/run/popgestured/popgestured.sock``.
The library says ``hello`` with your app id, reconnects when the daemon restarts
(0.1 s doubling to 5 s), then re-creates the navigators you own and re-sends your
focus. The protocol: docs/PROTOCOL.md in the popgestured repository.
"""

from .core import (DEFAULT_SOCKET, SUPPORTED_VERSIONS, Client, NavigatorRecord, Page, PageLike, Request,
                   default_socket_path)
from .errors import (ConnectionLostError, NotConnectedError, PopGestureError, RequestError, RequestTimeoutError,
                     TooManyPendingError)
from .events import (Back, BackInput, Bar, Connected, Disconnected, Error, Event, FocusChanged, InputBegan,
                     InputCancelled, InputProgress, PopBegan, PopCancelled, PopFinished, PopProgress, Refused, Rejected,
                     Paused, Resumed, ScreenChanged, decode_event)
from .blocking import BlockingClient
from .aio import AsyncClient

__version__ = "0.1.0"

__all__ = [
    "Client", "BlockingClient", "AsyncClient", "Request", "Page", "PageLike", "NavigatorRecord",
    "DEFAULT_SOCKET", "SUPPORTED_VERSIONS", "default_socket_path",
    "PopGestureError", "RequestError", "NotConnectedError", "ConnectionLostError", "RequestTimeoutError",
    "TooManyPendingError",
    "Event", "PopBegan", "PopProgress", "PopFinished", "PopCancelled", "Back", "Bar", "Rejected", "Refused", "InputBegan",
    "InputProgress", "InputCancelled", "BackInput", "FocusChanged", "ScreenChanged", "Paused", "Resumed", "Error", "Connected", "Disconnected",
    "decode_event",
]
