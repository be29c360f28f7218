"""One request in flight inside ``docqa serve``: what the HTTP handler waits on.

The engine (step scheduler or batch queue) puts events on the ticket as the request goes: text
deltas while it generates, then one ``Outcome`` (or the error that ended it). The handler reads
them, and sets ``cancelled`` when its client has gone, so that the engine stops spending decoding
steps on it.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass

#: why a request ended, as its reply's ``finish_reason`` says: ``stop`` (end of sequence or a
#: stop string), ``length`` (max_tokens or the context window), ``time_limit`` (the server's
#: per-request wall-clock limit), ``cancelled`` (its client disconnected: nobody reads it)
FINISH_REASONS = ("stop", "length", "time_limit", "cancelled")


@dataclass(frozen=True)
class Outcome:
    """A finished request: its whole text and token counts."""

    text: str
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    truncated_tokens: int = 0


Event = str | Outcome | Exception


class Ticket:
    """The events of one request: ``str`` deltas, then an ``Outcome`` or an ``Exception``."""

    def __init__(self) -> None:
        self.cancelled = threading.Event()
        self._events: queue.Queue[Event] = queue.Queue()

    def put(self, event: Event) -> None:
        self._events.put(event)

    def next_event(self, timeout_s: float) -> Event | None:
        """The next event, or ``None`` when none came within ``timeout_s``."""
        try:
            return self._events.get(timeout=timeout_s)
        except queue.Empty:
            return None

    def cancel(self) -> None:
        self.cancelled.set()
