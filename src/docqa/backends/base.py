"""The one interface every model backend implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from docqa.backends.request import ChatRequest
from docqa.core.prediction import Usage


@dataclass
class Completion:
    """A model's answer to one request.

    ``truncated_tokens`` counts the prompt tokens the backend cut (from the middle of the
    prompt) to fit the model's input limit; 0 when the whole prompt was read.
    ``retried_max_pixels`` is the smaller pixel budget the answer was made with after the
    request ran out of memory at the configured one; ``None`` when that did not happen. Such an
    answer depends on the hardware as much as on the model, so the client does not cache it.
    """

    text: str
    usage: Usage = field(default_factory=Usage)
    truncated_tokens: int = 0
    retried_max_pixels: int | None = None


class Backend(ABC):
    """A model that answers batches of chat requests.

    ``identity`` names everything that changes the model's outputs (id, revision, quantization,
    pixel budget, prompt format); the response cache keys on it.
    """

    #: how many requests ``generate`` takes at once; the batching client respects it
    max_batch_size: int = 8

    @property
    @abstractmethod
    def identity(self) -> dict[str, Any]: ...

    def validate(self, request: ChatRequest) -> None:  # noqa: B027 - optional check
        """Raise ``ValueError`` if this backend can never answer ``request`` (for example image
        parts sent to a text-only model). The client calls it before queueing a request, so one
        bad request fails its own caller rather than the whole batch it would have joined."""

    @abstractmethod
    def generate(self, requests: list[ChatRequest]) -> list[Completion]:
        """Answer every request, in order. Runs in a worker thread, never on the event loop."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release the model's memory."""
