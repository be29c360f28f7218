"""What a sandboxed program may use."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class SandboxLimits:
    """Limits of one sandboxed run.

    ``cpu_seconds`` (RLIMIT_CPU, whole seconds, rounded up), ``memory_mb`` (RLIMIT_AS: the
    interpreter itself takes about 30 MB of it), ``wall_seconds`` (then the process group is
    killed), ``file_mb`` (RLIMIT_FSIZE: the largest file the program may write), ``max_opens``
    (files opened in the box over the whole run, which with ``file_mb`` bounds the disk it can
    fill), ``max_open_files`` (RLIMIT_NOFILE), ``output_chars`` (printed text kept) and
    ``result_chars`` (the longest ``result`` or error sent back), ``box_mb`` (the size of the
    tmpfs the program may write in; the kernel refuses a byte more).
    """

    cpu_seconds: float = 5.0
    memory_mb: int = 512
    wall_seconds: float = 10.0
    file_mb: int = 1
    max_opens: int = 64
    max_open_files: int = 32
    output_chars: int = 4000
    result_chars: int = 4000
    box_mb: int = 4

    def __post_init__(self) -> None:
        for name in (
            "cpu_seconds",
            "memory_mb",
            "wall_seconds",
            "file_mb",
            "max_open_files",
            "output_chars",
            "result_chars",
            "box_mb",
        ):
            if getattr(self, name) <= 0:
                raise ValueError(
                    f"sandbox limit {name} must be positive, not {getattr(self, name)}"
                )

    def rlimits(self) -> dict[str, int]:
        """The kernel's limits on the sandbox by ``prlimit``'s option names, soft = hard: set
        before bubblewrap starts, so the program runs under them from its first instruction and
        cannot change them (the seccomp filter refuses a new limit; raising a hard one needs a
        capability it does not have). No ``nproc``: the filter kills every call that makes a
        process or a thread, and as an ordinary user a limit of 0 would stop bubblewrap's own."""
        return {
            "cpu": max(1, -(-int(self.cpu_seconds * 1000) // 1000)),
            "as": self.memory_mb << 20,
            "fsize": self.file_mb << 20,
            "nofile": self.max_open_files,
            "core": 0,
            "memlock": 0,
        }

    def for_child(self) -> dict[str, Any]:
        """The limits the child reads (the opens it counts, the caps on what it sends)."""
        limits = asdict(self)
        del limits["wall_seconds"], limits["box_mb"]
        return limits
