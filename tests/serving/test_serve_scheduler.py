"""The step scheduler of ``docqa serve`` and its streamed text, on a scripted decoder (it counts
up from each row's last token and records the batches): these tests are about the control flow
(who joins and leaves between steps, what ends a request, shutdown), not a model."""

from __future__ import annotations

import threading
import time

import pytest

from docqa.backends.request import ChatRequest, Generation
from docqa.serving.scheduler import ShuttingDown, StepScheduler
from docqa.serving.text_stream import TextStream
from docqa.serving.tickets import Outcome, Ticket


class Counter:
    """Token ``t`` is the letter ``chr(97 + t % 26)``; every row's next token is its last plus
    one; no end-of-sequence token. Each step sleeps ``step_s``."""

    def __init__(self, context: int = 10**6, step_s: float = 0.002) -> None:
        self.context = context
        self.eos_ids = frozenset({-1})
        self.step_s = step_s
        self.rows: list[int] = []  # the last token of each row in the cache
        self.batch_sizes: list[int] = []

    def prompt(self, request: ChatRequest, *, raw: bool = False) -> tuple[list[int], int]:
        return [ord(c) - 97 for c in request.messages[0].text], 0

    def decode(self, ids: list[int]) -> str:
        return "".join(chr(97 + t % 26) for t in ids)

    def rebuild(self, sequences: list[list[int]], temperatures: list[float]) -> list[int]:
        self.rows = [ids[-1] for ids in sequences]
        return self._next()

    def step(self, tokens: list[int]) -> list[int]:
        assert len(tokens) == len(self.rows)
        self.rows = tokens
        return self._next()

    def keep(self, rows: list[int]) -> None:
        self.rows = [self.rows[row] for row in rows]

    def release(self) -> None:
        self.rows = []

    def _next(self) -> list[int]:
        time.sleep(self.step_s)
        self.batch_sizes.append(len(self.rows))
        return [token + 1 for token in self.rows]


def outcome(ticket: Ticket, timeout_s: float = 30.0) -> tuple[str, Outcome | Exception]:
    """The deltas of ``ticket`` joined, and its last event."""
    deltas = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        event = ticket.next_event(0.1)
        if isinstance(event, str):
            deltas.append(event)
        elif event is not None:
            return "".join(deltas), event
    raise AssertionError("the request did not end")


def ask(text: str, max_tokens: int, stop: tuple[str, ...] = ()) -> ChatRequest:
    return ChatRequest.prompt(text, Generation(max_new_tokens=max_tokens, stop=stop))


def test_deltas_hold_back_what_a_stop_string_or_a_split_character_may_take_back() -> None:
    stream = TextStream(("STOP",))
    assert stream.update("ab") == ("", False)  # the last 3 characters wait
    assert stream.update("abcdS") == ("ab", False)
    assert stream.update("abcdST\ufffd") == ("cd", False)  # "ST\ufffd" may begin STOP
    assert stream.update("abcdSTOP and on") == ("", True)
    assert stream.finish("abcdSTOP and on") == ("", "abcd")
    plain = TextStream(())
    assert plain.update("ab\ufffd") == ("ab", False)  # half a character waits
    assert plain.update("ab\u00e9c") == ("\u00e9c", False)
    assert plain.finish("ab\u00e9c!") == ("!", "ab\u00e9c!")


def test_a_long_request_holds_one_slot_while_short_ones_come_and_go() -> None:
    decoder = Counter()
    scheduler = StepScheduler(decoder, max_batch_size=2, timeout_s=1.5)
    try:
        long = scheduler.submit(ask("a", 10**5))
        short = [scheduler.submit(ask("b", 3, stop=("zz",)), stream=True) for _ in range(6)]
        answers = [outcome(ticket) for ticket in short]
        assert scheduler.snapshot().running == 1  # the long one, still going
        text, last = outcome(long)
    finally:
        scheduler.close(grace_s=5)
    assert answers == [("cde", Outcome("cde", "length", 1, 3))] * 6
    assert isinstance(last, Outcome)
    assert last.finish_reason == "time_limit"
    assert last.completion_tokens == len(last.text) > 3
    assert max(decoder.batch_sizes) == 2
    stats = scheduler.snapshot()
    assert (stats.requests, stats.timed_out, stats.largest_batch) == (7, 1, 2)


def test_a_stop_string_or_the_context_window_ends_a_request() -> None:
    scheduler = StepScheduler(Counter(context=8), max_batch_size=4, timeout_s=30)
    try:
        stopped = scheduler.submit(ask("a", 100, stop=("de",)), stream=True)
        full = scheduler.submit(ask("abc", 100))
        assert outcome(stopped) == ("bc", Outcome("bc", "stop", 1, 4))
        assert outcome(full) == ("defgh", Outcome("defgh", "length", 3, 5))
    finally:
        scheduler.close(grace_s=5)


def test_a_cancelled_request_leaves_the_batch_between_two_steps() -> None:
    decoder = Counter()
    scheduler = StepScheduler(decoder, max_batch_size=4, timeout_s=60)
    try:
        gone = scheduler.submit(ask("a", 10**5))
        stays = scheduler.submit(ask("a", 10**5))
        deadline = time.monotonic() + 30
        while decoder.batch_sizes[-1:] != [2] and time.monotonic() < deadline:
            time.sleep(0.01)
        gone.cancel()
        _, last = outcome(gone)
        assert isinstance(last, Outcome)
        assert last.finish_reason == "cancelled"
        steps = len(decoder.batch_sizes)
        while len(decoder.batch_sizes) < steps + 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert decoder.batch_sizes[-1] == 1  # the other row goes on alone
        stays.cancel()
        outcome(stays)
    finally:
        scheduler.close(grace_s=5)
    assert scheduler.snapshot().cancelled == 2


def test_closing_refuses_new_requests_and_ends_what_outlives_the_grace_period() -> None:
    scheduler = StepScheduler(Counter(), max_batch_size=2, timeout_s=600)
    short = scheduler.submit(ask("a", 5))
    long = scheduler.submit(ask("a", 10**6))
    closer = threading.Thread(target=scheduler.close, args=(1.0,))
    started = time.monotonic()
    closer.start()
    while not scheduler.closed:
        time.sleep(0.01)
    with pytest.raises(ShuttingDown, match="shutting down"):
        scheduler.submit(ask("a", 1))
    assert outcome(short)[1] == Outcome("bcdef", "length", 1, 5)
    _, last = outcome(long)
    closer.join(30)
    assert isinstance(last, ShuttingDown)
    assert 1.0 <= time.monotonic() - started < 30
