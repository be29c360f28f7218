"""The Solve sandbox: model-written Python in a separate, confined process.

``run_python(code, inputs, limits)`` runs a program with ``evidence`` = ``inputs`` and returns
a ``SandboxResult`` (its ``result`` variable, what it printed, or why it was stopped). The
program cannot open files outside a fresh temporary folder, reach the network, start processes
or load modules beyond a fixed set, and is stopped at CPU-time, memory and wall-clock limits.
See ``child.py`` for the layers inside the process and ``process.py`` for those around it.
"""

from docqa.sandbox.isolation import SandboxUnavailable
from docqa.sandbox.limits import SandboxLimits
from docqa.sandbox.process import run_python
from docqa.sandbox.result import KINDS, SandboxResult

__all__ = ["KINDS", "SandboxLimits", "SandboxResult", "SandboxUnavailable", "run_python"]
