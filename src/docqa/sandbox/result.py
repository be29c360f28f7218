"""What a sandboxed run gives back, and how it reads to the model that wrote the program."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

#: ``ok``: the program finished; ``error``: it raised (``blocked`` lists what the sandbox
#: refused); ``memory_limit``, ``cpu_limit``, ``timeout``: it was stopped at that limit;
#: ``crash``: it died without an answer (a signal, or it broke the answer channel)
KINDS = ("ok", "error", "memory_limit", "cpu_limit", "timeout", "crash")


@dataclass(frozen=True)
class SandboxResult:
    """``result`` is the JSON value the program left in ``result`` (or ``{"repr": …}`` when it
    was not JSON or too long); ``stdout`` what it printed, cut at the output cap;
    ``isolation`` the layers that were in force (``guard``, ``rlimits``, ``nobody``,
    ``network_namespace``)."""

    kind: str
    result: Any = None
    stdout: str = ""
    error: str = ""
    blocked: tuple[str, ...] = ()
    seconds: float = 0.0
    isolation: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"sandbox result kind {self.kind!r} is not one of {KINDS}")

    @property
    def ok(self) -> bool:
        return self.kind == "ok"

    def describe(self, max_chars: int = 1500) -> str:
        """The run as the agent reads it: the result, or what went wrong, and the printout."""
        if self.ok:
            lines = [f"result = {json.dumps(self.result, ensure_ascii=False)}"]
        else:
            lines = [f"{self.kind}: {self.error}".strip()]
            if self.blocked:
                lines.append("refused by the sandbox: " + ", ".join(dict.fromkeys(self.blocked)))
        if self.stdout.strip():
            lines.append("printed:\n" + self.stdout.strip())
        text = "\n".join(lines)
        return text if len(text) <= max_chars else text[: max_chars - 3] + "..."
