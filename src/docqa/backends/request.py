"""What a method asks of a model: a chat request with text and image parts."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

#: how a text-only backend shows an image part: the page's OCR text, marked as such
IMAGE_AS_TEXT = "[image shown as its OCR text]\n{text}\n[end of image text]\n"


@dataclass(frozen=True)
class Part:
    """One piece of a message: ``kind`` is ``"text"`` (``text`` set) or ``"image"`` (``image`` is
    a path to a page image or crop, and ``text`` optionally its OCR text, which text-only
    backends read instead of the image)."""

    kind: str
    text: str = ""
    image: str = ""

    @staticmethod
    def of_text(text: str) -> Part:
        return Part("text", text=text)

    @staticmethod
    def of_image(path: str, ocr_text: str = "") -> Part:
        return Part("image", text=ocr_text, image=str(path))

    def as_text(self) -> Part:
        """This part for a text-only model: an image becomes its marked OCR text."""
        if self.kind == "text":
            return self
        if not self.text:
            raise ValueError(
                f"image {self.image} has no OCR text, and this model reads only text: use a "
                "VLM backend for the model, or pass the page's OCR text with the image"
            )
        return Part.of_text(IMAGE_AS_TEXT.format(text=self.text.strip()))


@dataclass(frozen=True)
class Message:
    role: str
    parts: tuple[Part, ...]

    @staticmethod
    def user(*parts: Part | str) -> Message:
        return Message("user", tuple(Part.of_text(p) if isinstance(p, str) else p for p in parts))

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if p.kind == "text")

    def as_text(self) -> Message:
        return Message(self.role, tuple(p.as_text() for p in self.parts))


@dataclass(frozen=True)
class Generation:
    """Decoding settings; ``temperature == 0`` is greedy decoding. ``max_pixels`` is the
    request's own pixel budget for each of its images, which replaces the model's
    (``models.<name>.max_pixels``) for this request: a paper that varies the budget with the
    number of pages (MDocAgent: 16,384 visual tokens at top-1, 2,048 at top-4) sets it per
    method; ``None`` keeps the model's."""

    max_new_tokens: int = 64
    temperature: float = 0.0
    stop: tuple[str, ...] = ()
    max_pixels: int | None = None


@dataclass(frozen=True)
class ChatRequest:
    messages: tuple[Message, ...]
    generation: Generation = field(default_factory=Generation)

    @staticmethod
    def prompt(text: str, generation: Generation | None = None) -> ChatRequest:
        """A single user message of plain text."""
        return ChatRequest((Message.user(text),), generation or Generation())

    @property
    def images(self) -> list[str]:
        return [p.image for m in self.messages for p in m.parts if p.kind == "image"]

    def as_text_only(self) -> ChatRequest:
        """The request for a text-only model: every image part replaced by its marked OCR text
        (an error naming the image if one has none)."""
        if not self.images:
            return self
        return ChatRequest(tuple(m.as_text() for m in self.messages), self.generation)

    def canonical(self) -> dict[str, Any]:
        """The request as it matters to a model: images by content hash, not by path (a
        request pixel budget only when set, so that older cache keys stay valid)."""
        generation: dict[str, Any] = {
            "max_new_tokens": self.generation.max_new_tokens,
            "temperature": self.generation.temperature,
            "stop": list(self.generation.stop),
        }
        if self.generation.max_pixels is not None:
            generation["max_pixels"] = self.generation.max_pixels
        return {
            "messages": [
                {
                    "role": m.role,
                    "parts": [
                        {"text": p.text}
                        if p.kind == "text"
                        else {"image": file_sha256(p.image), "ocr_text": p.text}
                        for p in m.parts
                    ],
                }
                for m in self.messages
            ],
            "generation": generation,
        }


@lru_cache(maxsize=4096)
def file_sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def cut_at_stop(text: str, stops: tuple[str, ...]) -> str:
    """``text`` up to (not including) the earliest stop string in it."""
    end = len(text)
    for stop in stops:
        position = text.find(stop)
        if position != -1:
            end = min(end, position)
    return text[:end]
