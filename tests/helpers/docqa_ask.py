"""Running ``docqa ask`` as a user does: a subprocess in a working folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def ask(work: Path, *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """``python -m docqa.cli ask ARGS`` run in ``work``, its output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "docqa.cli", "ask", *args],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ},
    )
