"""The Solve sandbox: model-written Python in a kernel-isolated, confined process.

``run_python(code, inputs, limits)`` runs a program with ``evidence`` = ``inputs`` and returns
a ``SandboxResult`` (its ``result`` variable, what it printed, or why it was stopped). The
boundary is the kernel: bubblewrap puts the program in its own user, mount, PID, IPC, UTS and
network namespaces, on a read-only root holding only the interpreter and its standard library,
with a private tmpfs box, a seccomp allowlist, no capabilities and rlimits (``isolation.py``,
``seccomp.py``). An audit hook inside (``child.py``) is a second layer that makes refusals
readable. How a run ended is read from what the program cannot write (exit status, the kernel's
CPU count, the wall clock), and what it sends is read with caps and parsed with depth limits
(``process.py``, ``channel.py``). Where the machine cannot isolate (probed once with a real
run, ``machine.py``), ``run_python`` raises ``SandboxUnavailable``: there is no weaker
fallback.
"""

from docqa.sandbox.isolation import SandboxUnavailable
from docqa.sandbox.limits import SandboxLimits
from docqa.sandbox.machine import run_python
from docqa.sandbox.result import KINDS, SandboxResult

__all__ = ["KINDS", "SandboxLimits", "SandboxResult", "SandboxUnavailable", "run_python"]
