"""What a method asks of a model: a chat request with text and image parts."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any


@dataclass(frozen=True)
class Part:
    """One piece of a message: ``kind`` is ``"text"`` (``text`` set) or ``"image"`` (``image`` is
    a path to a page image or crop)."""

    kind: str
    text: str = ""
    image: str = ""

    @staticmethod
    def of_text(text: str) -> "Part":
        return Part("text", text=text)

    @staticmethod
    def of_image(path: str) -> "Part":
        return Part("image", image=str(path))


@dataclass(frozen=True)
class Message:
    role: str
    parts: tuple[Part, ...]

    @staticmethod
    def user(*parts: Part | str) -> "Message":
        return Message("user", tuple(Part.of_text(p) if isinstance(p, str) else p for p in parts))

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if p.kind == "text")


@dataclass(frozen=True)
class Generation:
    """Decoding settings; ``temperature == 0`` is greedy decoding."""

    max_new_tokens: int = 64
    temperature: float = 0.0
    stop: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChatRequest:
    messages: tuple[Message, ...]
    generation: Generation = field(default_factory=Generation)

    @staticmethod
    def prompt(text: str, generation: Generation | None = None) -> "ChatRequest":
        """A single user message of plain text."""
        return ChatRequest((Message.user(text),), generation or Generation())

    @property
    def images(self) -> list[str]:
        return [p.image for m in self.messages for p in m.parts if p.kind == "image"]

    def canonical(self) -> dict[str, Any]:
        """The request as it matters to a model: images by content hash, not by path."""
        return {
            "messages": [
                {
                    "role": m.role,
                    "parts": [
                        {"text": p.text} if p.kind == "text" else {"image": file_sha256(p.image)}
                        for p in m.parts
                    ],
                }
                for m in self.messages
            ],
            "generation": {
                "max_new_tokens": self.generation.max_new_tokens,
                "temperature": self.generation.temperature,
                "stop": list(self.generation.stop),
            },
        }


@lru_cache(maxsize=4096)
def file_sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
