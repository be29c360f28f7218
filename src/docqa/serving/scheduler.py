"""Step-level (continuous) batching for a served text model, as vLLM and TGI do it.

One worker thread runs the batch one decoding step at a time. Between two steps, requests join
(up to ``max_batch_size`` rows; the batch is then read again, ``Decoder.rebuild``) and leave:
a request ends at its end-of-sequence token, a stop string, its ``max_tokens``, the model's
context window (``length``), the server's per-request wall-clock limit (``time_limit``, counted
from its arrival), or when its client disconnects (``cancelled``). A row that leaves frees its
slot for the next waiting request at once, so a long request holds one slot, never the batch:
short requests keep being answered beside it.

``close(grace_s)`` refuses new requests, lets the admitted ones run for up to ``grace_s``, then
ends the rest with an error (the client retries against a restarted server).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Protocol

from docqa.backends.request import ChatRequest
from docqa.serving.text_stream import TextStream
from docqa.serving.tickets import Outcome, Ticket

log = logging.getLogger(__name__)


class Decoder(Protocol):
    """The model side (``docqa.backends.lm_steps.StepDecoder``)."""

    context: int
    eos_ids: frozenset[int]

    def prompt(self, request: ChatRequest, *, raw: bool = False) -> tuple[list[int], int]: ...
    def decode(self, ids: list[int]) -> str: ...
    def rebuild(self, sequences: list[list[int]], temperatures: list[float]) -> list[int]: ...
    def step(self, tokens: list[int]) -> list[int]: ...
    def keep(self, rows: list[int]) -> None: ...
    def release(self) -> None: ...


class ShuttingDown(RuntimeError):
    """The server stops: the request was refused, or ended by the shutdown's grace period."""


@dataclass
class SchedulerStats:
    """What the scheduler has done: answered requests, decoding steps, batch rebuilds (someone
    joined), the largest batch, requests ended by the wall-clock limit, cancelled by their
    client or failed; and how many requests wait and run now."""

    requests: int = 0
    steps: int = 0
    rebuilds: int = 0
    largest_batch: int = 0
    timed_out: int = 0
    cancelled: int = 0
    failed: int = 0
    queued: int = 0
    running: int = 0


@dataclass(eq=False)
class _Row:
    """A request in the scheduler: its prompt, what it generated, its stream of text."""

    ticket: Ticket
    prompt: list[int]
    truncated: int
    max_tokens: int
    temperature: float
    deadline: float
    text: TextStream
    watch_text: bool  # stream it, or look for stop strings: decode after every step
    generated: list[int] = field(default_factory=list)


class StepScheduler:
    """Answers ``submit``ted requests through ``decoder``, a decoding step at a time."""

    def __init__(self, decoder: Decoder, max_batch_size: int, timeout_s: float) -> None:
        if max_batch_size < 1:
            raise ValueError(f"max_batch_size must be at least 1, not {max_batch_size}")
        self.decoder = decoder
        self.max_batch_size = max_batch_size
        self.timeout_s = timeout_s
        self.stats = SchedulerStats()
        self._lock = threading.Condition()
        self._waiting: deque[_Row] = deque()
        self._running: list[_Row] = []
        self._closing = False
        self._give_up_at = float("inf")
        self._worker = threading.Thread(target=self._run, name="step-scheduler", daemon=True)
        self._worker.start()

    @property
    def closed(self) -> bool:
        return self._closing

    def submit(self, request: ChatRequest, *, raw: bool = False, stream: bool = False) -> Ticket:
        """Queue ``request``; its events arrive on the returned ticket. ``ValueError`` (a
        ``ContextError`` among them) when the model cannot answer it, ``ShuttingDown`` when the
        server stops."""
        prompt, truncated = self.decoder.prompt(request, raw=raw)
        generation = request.generation
        row = _Row(
            Ticket(),
            prompt,
            truncated,
            generation.max_new_tokens,
            generation.temperature,
            time.monotonic() + self.timeout_s,
            TextStream(generation.stop),
            watch_text=stream or bool(generation.stop),
        )
        with self._lock:
            if self._closing:
                raise ShuttingDown("the server is shutting down")
            self._waiting.append(row)
            self._lock.notify()
        return row.ticket

    def close(self, grace_s: float) -> None:
        """Refuse new requests; give the admitted ones ``grace_s`` seconds, end the rest."""
        with self._lock:
            self._closing = True
            self._give_up_at = time.monotonic() + grace_s
            self._lock.notify()
        self._worker.join()

    def snapshot(self) -> SchedulerStats:
        with self._lock:
            return SchedulerStats(
                **{**vars(self.stats), "queued": len(self._waiting), "running": len(self._running)}
            )

    def _run(self) -> None:
        while True:
            with self._lock:
                while not (self._waiting or self._running or self._closing):
                    self._lock.wait()
                if self._closing and time.monotonic() >= self._give_up_at:
                    self._end_all(ShuttingDown("the server stopped before the request finished"))
                if self._closing and not (self._waiting or self._running):
                    return
                joined = self._admit()
            try:
                self._step(joined)
            except Exception as error:  # the batch's error ends every row of it
                log.exception("a decoding step failed")
                with self._lock:
                    self.stats.failed += len(self._running)
                    for row in self._running:
                        row.ticket.put(error)
                    self._running = []
                self.decoder.release()

    def _admit(self) -> bool:
        """Move waiting requests into free slots (under the lock); whether any joined."""
        now = time.monotonic()
        for row in [r for r in self._waiting if r.ticket.cancelled.is_set() or now >= r.deadline]:
            self._waiting.remove(row)
            self._finish(row, "cancelled" if row.ticket.cancelled.is_set() else "time_limit")
        joined = False
        while self._waiting and len(self._running) < self.max_batch_size:
            self._running.append(self._waiting.popleft())
            joined = True
        self.stats.largest_batch = max(self.stats.largest_batch, len(self._running))
        return joined

    def _step(self, joined: bool) -> None:
        """Drop the rows that must end now, then run one decoding step for the rest."""
        now = time.monotonic()
        ending = {}
        for row in self._running:
            if row.ticket.cancelled.is_set():
                ending[id(row)] = "cancelled"
            elif now >= row.deadline:
                ending[id(row)] = "time_limit"
        if ending:
            self._leave(ending, in_cache=not joined)
        if not self._running:
            self.decoder.release()
            return
        if joined:
            tokens = self.decoder.rebuild(
                [row.prompt + row.generated for row in self._running],
                [row.temperature for row in self._running],
            )
            with self._lock:
                self.stats.rebuilds += 1
        else:
            tokens = self.decoder.step([row.generated[-1] for row in self._running])
        with self._lock:
            self.stats.steps += 1
        done = {}
        for row, token in zip(self._running, tokens, strict=True):
            reason = self._take(row, token)
            if reason is not None:
                done[id(row)] = reason
        if done:
            self._leave(done, in_cache=True)

    def _take(self, row: _Row, token: int) -> str | None:
        """Append ``token`` to ``row``; the reason it ends now, if it does."""
        row.generated.append(token)
        if row.watch_text:
            delta, stopped = row.text.update(self.decoder.decode(row.generated))
            if delta:
                row.ticket.put(delta)
            if stopped:
                return "stop"
        if token in self.decoder.eos_ids:
            return "stop"
        if len(row.generated) >= row.max_tokens:
            return "length"
        if len(row.prompt) + len(row.generated) >= self.decoder.context:
            return "length"
        return None

    def _leave(self, reasons: dict[int, str], *, in_cache: bool) -> None:
        """End the rows named in ``reasons`` (by id); when the decoder's cache holds the batch
        (``in_cache``: no row joined since the last step), drop them from it too."""
        kept = [i for i, row in enumerate(self._running) if id(row) not in reasons]
        ended = [row for row in self._running if id(row) in reasons]
        with self._lock:
            if kept and in_cache:
                self.decoder.keep(kept)
            self._running = [self._running[i] for i in kept]
            for row in ended:
                self._finish(row, reasons[id(row)])

    def _finish(self, row: _Row, reason: str) -> None:
        """Send ``row``'s last delta and outcome (under the lock)."""
        delta, text = row.text.finish(self.decoder.decode(row.generated))
        if delta:
            row.ticket.put(delta)
        row.ticket.put(Outcome(text, reason, len(row.prompt), len(row.generated), row.truncated))
        if reason in ("time_limit", "cancelled"):
            why = "its wall-clock limit" if reason == "time_limit" else "its client left"
            log.info("a request ended at %s after %d tokens", why, len(row.generated))
        self.stats.requests += 1
        self.stats.timed_out += reason == "time_limit"
        self.stats.cancelled += reason == "cancelled"

    def _end_all(self, error: Exception) -> None:
        """End every waiting and running request with ``error`` (under the lock)."""
        for row in [*self._waiting, *self._running]:
            row.ticket.put(error)
        self._waiting.clear()
        self._running = []
