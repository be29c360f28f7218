"""The client methods await: a cache in front of a backend, and batching across callers.

Every answered call is noted for the trace step that made it (:mod:`docqa.backends.calls`).
Methods are plain sequential ``async`` code; the runner keeps many questions in flight. Every
``complete`` that misses the cache joins a queue, and one worker task hands the backend up to
``max_batch_size`` queued requests at a time. ``generate`` runs in a worker thread, so while a
batch runs the event loop keeps going and the requests that arrive meanwhile form the next batch.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from docqa.backends.base import Backend, Completion
from docqa.backends.cache import ResponseCache
from docqa.backends.calls import note_call
from docqa.backends.request import ChatRequest


@dataclass
class _Pending:
    request: ChatRequest
    future: asyncio.Future[Completion]


class ModelClient:
    """Answers requests through ``backend``, remembering every answer in ``cache``.

    The client owns the cache: ``close`` closes it. It does not own the backend (the caller
    closes that).
    """

    def __init__(self, backend: Backend, cache: ResponseCache | None = None) -> None:
        self.backend = backend
        self.cache = cache
        self._queue: list[_Pending] = []
        self._wake = asyncio.Event()
        self._worker: asyncio.Task[None] | None = None
        self._closed = False

    async def complete(self, request: ChatRequest) -> Completion:
        if self._closed:
            raise RuntimeError("ModelClient.complete called after close()")
        self.backend.validate(request)
        if self.cache is not None:
            hit = self.cache.get(self.backend.identity, request)
            if hit is not None:
                note_call(request, hit)
                return hit
        future: asyncio.Future[Completion] = asyncio.get_running_loop().create_future()
        self._queue.append(_Pending(request, future))
        self._wake.set()
        if self._worker is None:
            self._worker = asyncio.create_task(self._run(), name="model-client-worker")
        completion = await future
        note_call(request, completion)
        return completion

    async def close(self) -> None:
        """Finish the queued requests, then stop the worker and close the cache."""
        self._closed = True
        self._wake.set()
        if self._worker is not None:
            await self._worker
        if self.cache is not None:
            self.cache.close()

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            # let callers that are ready in this same loop turn queue their requests first
            await asyncio.sleep(0)
            if not self._queue:
                if self._closed:
                    return
                self._wake.clear()
                continue
            batch = self._queue[: self.backend.max_batch_size]
            del self._queue[: len(batch)]
            await self._answer(batch)

    async def _answer(self, batch: list[_Pending]) -> None:
        requests = [pending.request for pending in batch]
        try:
            completions = await asyncio.to_thread(self.backend.generate, requests)
            if len(completions) != len(requests):
                raise RuntimeError(
                    f"{type(self.backend).__name__}.generate returned {len(completions)} "
                    f"completions for {len(requests)} requests"
                )
            if self.cache is not None:
                for request, completion in zip(requests, completions, strict=True):
                    if completion.retried_max_pixels is None:
                        self.cache.put(self.backend.identity, request, completion)
        except Exception as error:  # every caller of the batch gets the batch's error
            for pending in batch:
                if not pending.future.done():
                    pending.future.set_exception(error)
            return
        for pending, completion in zip(batch, completions, strict=True):
            if not pending.future.done():
                pending.future.set_result(completion)
