"""A method's answer to one question, with what it cost."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from docqa.records import Record


@dataclass
class Usage(Record):
    """Model usage summed over every call made for one question."""

    calls: int = 0
    cached_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    image_tokens: int = 0
    #: image parts a text-only model read as their OCR text instead
    images_as_text: int = 0
    seconds: float = 0.0
    peak_memory_mb: float = 0.0
    #: replies the method could not use as they were and replaced by a defined fallback
    fallbacks: int = 0

    def add(self, other: "Usage") -> None:
        self.calls += other.calls
        self.cached_calls += other.cached_calls
        self.tokens_in += other.tokens_in
        self.tokens_out += other.tokens_out
        self.image_tokens += other.image_tokens
        self.images_as_text += other.images_as_text
        self.seconds += other.seconds
        self.peak_memory_mb = max(self.peak_memory_mb, other.peak_memory_mb)
        self.fallbacks += other.fallbacks


@dataclass(frozen=True)
class Prediction(Record):
    """``pages`` are the 0-based pages the method looked at; ``error`` is set when the question
    could not be answered (the answer is then empty and scores as wrong)."""

    question_id: str
    answer: str
    pages: list[int] = field(default_factory=list)
    trace: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    error: str = ""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Prediction":
        data = dict(data)
        data["usage"] = Usage.from_dict(data.get("usage", {}))
        return super().from_dict(data)
