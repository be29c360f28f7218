"""Reading what a sandboxed program sent, so that nothing it sends can make the reader fail.

- ``read_streams`` reads several pipes at once until each ends or the deadline passes, keeping
  at most a cap of bytes from each and closing a pipe that goes past it (the program cannot
  lift a cap kept by the reader, nor make it read more);
- ``parse_json`` parses text only after checking its size and its nesting depth (a program can
  nest ``[[[[…]]]]`` past the recursion limit of ``json``), and never raises;
- ``clean`` replaces what cannot be written as UTF-8 (lone surrogates, from a program or a
  JSON escape such as ``"\\ud800"``) by U+FFFD and counts the replacements, and cuts values
  nested deeper than a limit, so that traces, the response cache and checkpoints can always
  write a result.
"""

from __future__ import annotations

import json
import os
import selectors
import time
from typing import Any

from docqa.runtime import unicode_safe
from docqa.runtime.unicode_safe import REPLACEMENT, clean_text

__all__ = ["clean", "clean_text", "decode", "parse_json", "read_streams"]
#: deeper JSON values come back as a note (``json`` and the trace writers recurse)
MAX_DEPTH = 32


def read_streams(
    streams: dict[str, tuple[int, int]], deadline: float
) -> tuple[dict[str, bytes], dict[str, int], bool]:
    """Read ``name → (fd, cap)`` until every stream ends or ``time.monotonic()`` reaches
    ``deadline``. Returns (the first ``cap`` bytes of each, the bytes dropped from each,
    whether the deadline came first).

    A stream that goes past its cap is read no further: its descriptor is closed (the writer
    gets EPIPE), and its count of dropped bytes is what the last read brought past the cap, at
    least 1. A program flooding a pipe thus costs the reader one read past the cap, not a copy
    of everything it writes. Every descriptor is closed before this returns."""
    kept = {name: bytearray() for name in streams}
    dropped = dict.fromkeys(streams, 0)
    selector = selectors.DefaultSelector()
    open_fds = set()
    try:
        for name, (fd, _) in streams.items():
            open_fds.add(fd)
            os.set_blocking(fd, False)
            selector.register(fd, selectors.EVENT_READ, name)
        while open_fds:
            left = deadline - time.monotonic()
            if left <= 0:
                return {k: bytes(v) for k, v in kept.items()}, dropped, True
            for key, _ in selector.select(timeout=min(left, 1.0)):
                name = key.data
                try:
                    chunk = os.read(key.fd, 1 << 16)
                except BlockingIOError:
                    continue
                room = max(0, streams[name][1] - len(kept[name]))
                kept[name] += chunk[:room]
                dropped[name] += max(0, len(chunk) - room)
                if not chunk or dropped[name]:
                    selector.unregister(key.fd)
                    open_fds.discard(key.fd)
                    os.close(key.fd)
    finally:
        selector.close()
        for fd in open_fds:
            os.close(fd)
    return {k: bytes(v) for k, v in kept.items()}, dropped, False


def depth_of(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` in JSON text (strings skipped)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def parse_json(text: str, max_chars: int, max_depth: int = MAX_DEPTH) -> tuple[Any, str]:
    """(value, "") for JSON text within the limits, else (None, why not). Never raises."""
    if not isinstance(text, str):
        return None, f"not text but {type(text).__name__}"
    if len(text) > max_chars:
        return None, f"longer than {max_chars} characters"
    try:
        deepest = depth_of(text)
        if deepest > max_depth:
            return None, f"nested {deepest} levels deep (the limit is {max_depth})"
        return json.loads(text), ""
    except (ValueError, RecursionError, MemoryError) as error:
        return None, f"not valid JSON ({type(error).__name__}: {str(error)[:100]})"


def clean(value: Any, max_depth: int = MAX_DEPTH) -> tuple[Any, int]:
    """``unicode_safe.clean`` with the sandbox's depth limit."""
    return unicode_safe.clean(value, max_depth)


def decode(data: bytes) -> tuple[str, int]:
    """UTF-8 bytes as text, invalid sequences replaced (and counted)."""
    text = data.decode("utf-8", "replace")
    strict = data.decode("utf-8", "ignore")
    return text, max(0, text.count(REPLACEMENT) - strict.count(REPLACEMENT))
