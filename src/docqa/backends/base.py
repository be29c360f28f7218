"""The one interface every model backend implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from docqa.backends.request import ChatRequest
from docqa.prediction import Usage


@dataclass
class Completion:
    text: str
    usage: Usage = field(default_factory=Usage)


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

    @abstractmethod
    def generate(self, requests: list[ChatRequest]) -> list[Completion]:
        """Answer every request, in order. Runs in a worker thread, never on the event loop."""

    def close(self) -> None:
        """Release the model's memory."""
