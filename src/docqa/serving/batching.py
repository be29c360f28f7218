"""Concurrent requests to a served model become batched ``generate`` calls (vision models;
text models are served a decoding step at a time by ``docqa.serving.scheduler``).

Each HTTP request waits in its own handler thread; one worker thread takes the first waiting
request, collects more for up to ``wait_s`` (or until ``max_batch_size``), and hands them to
``generate`` together. While a batch runs, new requests queue up and form the next one, so a
busy server fills its batches without waiting at all.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

from docqa.backends.base import Completion
from docqa.backends.request import ChatRequest

Generate = Callable[[list[ChatRequest]], list[Completion]]


@dataclass
class BatchStats:
    """What the queue has done: answered requests, ``generate`` calls, the largest batch,
    requests whose batch failed; and how many requests wait now."""

    requests: int = 0
    batches: int = 0
    largest_batch: int = 0
    failed: int = 0
    queued: int = 0


class BatchQueue:
    """Answers ``submit``ted requests through ``generate``, up to ``max_batch_size`` at a time."""

    def __init__(self, generate: Generate, max_batch_size: int, wait_s: float = 0.005) -> None:
        if max_batch_size < 1:
            raise ValueError(f"max_batch_size must be at least 1, not {max_batch_size}")
        self.generate = generate
        self.max_batch_size = max_batch_size
        self.wait_s = wait_s
        self.stats = BatchStats()
        self._lock = threading.Lock()
        self._closed = False
        self._pending: queue.Queue[tuple[ChatRequest, Future[Completion]] | None] = queue.Queue()
        self._worker = threading.Thread(target=self._run, name="batch-queue", daemon=True)
        self._worker.start()

    def submit(self, request: ChatRequest) -> Completion:
        """The completion of ``request``, once its batch has run (its error, if it failed)."""
        return self.enqueue(request).result()

    def enqueue(self, request: ChatRequest) -> Future[Completion]:
        """Queue ``request``; the future completes once its batch has run."""
        future: Future[Completion] = Future()
        with self._lock:  # nothing joins the queue behind close()'s end marker
            if self._closed:
                raise RuntimeError("the server is shutting down")
            self._pending.put((request, future))
        return future

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Answer what is queued, then stop the worker."""
        with self._lock:
            self._closed = True
            self._pending.put(None)
        self._worker.join()

    def _run(self) -> None:
        while True:
            first = self._pending.get()
            if first is None:
                return
            batch = [first]
            deadline = time.monotonic() + self.wait_s
            stop = False
            while len(batch) < self.max_batch_size:
                try:
                    item = self._pending.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    break
                if item is None:
                    stop = True
                    break
                batch.append(item)
            self._answer(batch)
            if stop:
                return

    def _answer(self, batch: list[tuple[ChatRequest, Future[Completion]]]) -> None:
        requests = [request for request, _ in batch]
        try:
            completions = self.generate(requests)
            if len(completions) != len(requests):
                raise RuntimeError(
                    f"generate returned {len(completions)} completions for {len(requests)} requests"
                )
        except Exception as error:  # every request of the batch gets the batch's error
            with self._lock:
                self.stats.failed += len(batch)
            for _, future in batch:
                future.set_exception(error)
            return
        with self._lock:
            self.stats.requests += len(batch)
            self.stats.batches += 1
            self.stats.largest_batch = max(self.stats.largest_batch, len(batch))
        for (_, future), completion in zip(batch, completions, strict=True):
            future.set_result(completion)

    def snapshot(self) -> BatchStats:
        with self._lock:
            return BatchStats(**{**vars(self.stats), "queued": self._pending.qsize()})
