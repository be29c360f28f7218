"""What a sandboxed run gives back, and how it reads to the model that wrote the program."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

#: ``ok``: the program finished; ``error``: it raised (``blocked`` lists what the sandbox
#: refused); ``memory_limit``: it raised ``MemoryError`` (its own report, like ``ok`` and
#: ``error``: the kernel does not count it); ``cpu_limit``, ``timeout``: it was stopped at that
#: limit (read from the kernel's CPU count and the caller's clock);
#: ``forbidden``: the kernel killed it at a system call the sandbox forbids (an escape past the
#: in-process guard); ``crash``: it died without well-formed values (a signal, an exit status,
#: or it broke its own reporting)
KINDS = ("ok", "error", "memory_limit", "cpu_limit", "timeout", "forbidden", "crash")


@dataclass(frozen=True)
class SandboxResult:
    """``result`` is the JSON value the program left in ``result`` (or ``{"repr": …}`` when it
    was not JSON or too long); ``stdout`` what it printed, cut at the output cap;
    ``isolation`` the layers that were in force (``isolation.LAYERS``); ``blocked`` what the
    in-process guard refused (the second layer: its pipe is open in the program's process, so a
    program can hide these or add lines of its own, never what the kernel stopped, which is its
    ``kind``); ``replaced`` how many characters
    that UTF-8 cannot carry (lone surrogates, invalid bytes) were replaced by U+FFFD;
    ``cpu_seconds`` the CPU time the kernel counted for the program (for a ``timeout``, only
    bubblewrap's own: the program is killed unreaped)."""

    kind: str
    result: Any = None
    stdout: str = ""
    error: str = ""
    blocked: tuple[str, ...] = ()
    seconds: float = 0.0
    isolation: tuple[str, ...] = field(default_factory=tuple)
    replaced: int = 0
    cpu_seconds: float = 0.0

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"sandbox result kind {self.kind!r} is not one of {KINDS}")

    def timed(self, seconds: float) -> SandboxResult:
        """This result with its start-to-result time."""
        return replace(self, seconds=seconds)

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
