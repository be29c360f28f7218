"""The batching queue of ``docqa serve``: concurrent requests share ``generate`` calls of at most
``max_batch_size``, a failing batch fails only its own requests, and closing answers what is
queued. ``generate`` here is scripted (it records its batches and echoes the prompts): these
tests are about the queue's control flow, not a model."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from docqa.backends.base import Completion
from docqa.backends.request import ChatRequest
from docqa.serving.batching import BatchQueue


class Recorder:
    """Echoes each prompt; remembers the batches; fails any batch holding ``"boom"``; waits on
    ``gate`` (when set) so that requests pile up behind a running batch."""

    def __init__(self, gate: threading.Event | None = None) -> None:
        self.batches: list[list[str]] = []
        self.gate = gate
        self.generating = threading.Event()  # set once a batch is held at the gate

    def __call__(self, requests: list[ChatRequest]) -> list[Completion]:
        if self.gate is not None:
            self.generating.set()
            self.gate.wait(30)
        prompts = [request.messages[0].text for request in requests]
        self.batches.append(prompts)
        if "boom" in prompts:
            raise RuntimeError("scripted failure")
        return [Completion(f"echo {prompt}") for prompt in prompts]


def ask_all(queue: BatchQueue, prompts: list[str]) -> list[str | Exception]:
    def ask(prompt: str) -> str | Exception:
        try:
            return queue.submit(ChatRequest.prompt(prompt)).text
        except Exception as error:
            return error

    with ThreadPoolExecutor(len(prompts)) as pool:
        return list(pool.map(ask, prompts))


def test_requests_that_pile_up_share_batches_of_at_most_the_limit() -> None:
    gate = threading.Event()
    recorder = Recorder(gate)
    queue = BatchQueue(recorder, max_batch_size=3, wait_s=0.05)
    prompts = [f"q{i}" for i in range(7)]
    timer = threading.Timer(0.5, gate.set)  # the first batch holds the rest back for a while
    timer.start()
    try:
        answers = ask_all(queue, prompts)
    finally:
        timer.cancel()
        queue.close()
    assert answers == [f"echo {prompt}" for prompt in prompts]
    assert sorted(p for batch in recorder.batches for p in batch) == sorted(prompts)
    assert max(len(batch) for batch in recorder.batches) == 3
    assert len(recorder.batches) <= 4  # 7 requests, 3 a batch, the first possibly alone
    stats = queue.snapshot()
    assert (stats.requests, stats.batches, stats.largest_batch) == (7, len(recorder.batches), 3)


def test_a_failing_batch_fails_its_requests_and_the_queue_goes_on() -> None:
    recorder = Recorder()
    queue = BatchQueue(recorder, max_batch_size=1)
    try:
        failed, answered = ask_all(queue, ["boom", "fine"])
    finally:
        queue.close()
    assert isinstance(failed, RuntimeError)
    assert "scripted failure" in str(failed)
    assert answered == "echo fine"
    assert (queue.snapshot().failed, queue.snapshot().requests) == (1, 1)


def test_closing_answers_the_queued_requests_first_and_refuses_new_ones() -> None:
    gate = threading.Event()
    recorder = Recorder(gate)
    queue = BatchQueue(recorder, max_batch_size=1, wait_s=0.0)
    with ThreadPoolExecutor(4) as pool:
        futures = [pool.submit(queue.submit, ChatRequest.prompt(f"q{i}")) for i in range(3)]
        deadline = time.monotonic() + 30
        # one request is in generate (held by the gate), the other two wait: under load all
        # three can be queued before the worker takes the first, so wait for both facts
        while not (recorder.generating.is_set() and queue.snapshot().queued == 2):
            if time.monotonic() > deadline:
                break
            time.sleep(0.01)
        assert queue.snapshot().queued == 2
        closer = pool.submit(queue.close)
        while not queue.closed and time.monotonic() < deadline:
            time.sleep(0.01)
        with pytest.raises(RuntimeError, match="shutting down"):
            queue.submit(ChatRequest.prompt("late"))
        gate.set()
        assert sorted(f.result(30).text for f in futures) == ["echo q0", "echo q1", "echo q2"]
        closer.result(30)


def test_a_batch_limit_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="max_batch_size must be at least 1, not 0"):
        BatchQueue(Recorder(), max_batch_size=0)
