"""Every registered name declares an option spec, and its module imports without torch or
transformers, so that Snakemake can read every spec when it parses the workflow."""

from __future__ import annotations

import subprocess
import sys

import pytest

from docqa.workflow.config_check import registry_of
from docqa.workflow.options_cli import KINDS

REGISTERED = [
    (section, name) for section, _ in KINDS.values() for name in registry_of(section).names()
]
HEAVY = ("torch", "transformers")

PROBE = """
import sys
from docqa.workflow.config_check import registry_of
registry = registry_of(sys.argv[1])
registry.get(sys.argv[2])
heavy = [name for name in {heavy!r} if name in sys.modules]
print("heavy:", ",".join(heavy))
print("spec:", registry.has_options(sys.argv[2]))
"""


@pytest.mark.parametrize(("section", "name"), REGISTERED, ids=[f"{s}-{n}" for s, n in REGISTERED])
def test_registered_module_is_light_and_declares_its_options(section: str, name: str) -> None:
    """Importing the module that registers ``name``, in a fresh interpreter, imports neither
    torch nor transformers; and ``name`` was registered with ``options=``."""
    probe = PROBE.format(heavy=HEAVY)
    done = subprocess.run(
        [sys.executable, "-c", probe, section, name], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = dict(line.split(": ", 1) for line in done.stdout.splitlines() if ": " in line)
    module = registry_of(section).modules.get(name, "?")
    assert lines["heavy"] == "", (
        f"importing {module} ({section}: {name}) imports {lines['heavy']}: "
        "move that import into the function or the implementation module that uses it"
    )
    assert lines["spec"] == "True", (
        f"{section}: {name} is registered without an option spec: "
        f"register it with options=<its Options subclass> ({module})"
    )
