"""The text of a growing sequence as deltas that never need taking back.

A streamed request gets its text piece by piece, each piece final: so a delta never shows the
start of a stop string that the next tokens complete (the last ``len(longest stop) - 1``
characters wait), nor half of a character whose bytes span two tokens (a trailing U+FFFD
waits). The deltas joined are the non-streamed reply's text.
"""

from __future__ import annotations

from docqa.backends.request import cut_at_stop

REPLACEMENT = "\ufffd"


class TextStream:
    """Turns the decoded text after every step into the delta that is safe to send."""

    def __init__(self, stops: tuple[str, ...]) -> None:
        self.stops = stops
        self.hold = max((len(stop) for stop in stops), default=1) - 1
        self.sent = 0

    def update(self, text: str) -> tuple[str, bool]:
        """The new delta of ``text`` (the whole decoded text so far), and whether a stop
        string ended it."""
        cut = cut_at_stop(text, self.stops)
        stopped = len(cut) < len(text)
        end = len(cut) if stopped else max(len(text) - self.hold, 0)
        while not stopped and end > self.sent and text[end - 1] == REPLACEMENT:
            end -= 1
        return self._take(cut, end), stopped

    def finish(self, text: str) -> tuple[str, str]:
        """The last delta and the whole final text (cut at its first stop string)."""
        cut = cut_at_stop(text, self.stops)
        return self._take(cut, len(cut)), cut

    def _take(self, text: str, end: int) -> str:
        if end <= self.sent:
            return ""
        delta = text[self.sent : end]
        self.sent = end
        return delta
