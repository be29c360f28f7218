"""Plain-dict conversion shared by the data-model dataclasses.

Every record type in docqa is a frozen dataclass that travels between stages as one JSON object
per line. ``Record`` gives them ``to_dict``/``from_dict`` with a strict check on unknown keys, so a
file written by another version of a stage fails loudly instead of being half-read.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Self


class Record:
    """Mixin for dataclasses that round-trip through JSON objects."""

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)  # type: ignore[call-overload]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        fields = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        unknown = set(data) - fields
        if unknown:
            raise ValueError(f"{cls.__name__}: unknown keys {sorted(unknown)} in {data!r:.200}")
        return cls(**data)
