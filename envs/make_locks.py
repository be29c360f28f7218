"""Write envs/<name>.lock.txt for each envs/<name>.yaml: its pip packages and everything they
pull in, each at the exact version of requirements.lock (run by `make env-locks`).

conda-lock needs the network; this lock is the pip-style explicit file of an environment: the
YAML's pip section installs it with `-r <name>.lock.txt`. The YAML's `-e ..` installs docqa
with its own dependencies, so those are part of every environment's lock. docqa's dependencies
are read from pyproject.toml (installed metadata goes stale when the pins change without a
reinstall); those of every other package from its installed metadata, with markers evaluated
for this platform.
"""

from __future__ import annotations

import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import yaml
from packaging.requirements import Requirement

ENVS = Path(__file__).resolve().parent
ROOT = ENVS.parent
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)$")
#: packages `pip freeze` never lists (torch needs setuptools): pinned at the installed version
FREEZE_OMITS = ("pip", "setuptools", "wheel")


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def lock_pins(lock: Path = ROOT / "requirements.lock") -> dict[str, tuple[str, str]]:
    """normalised name → (name as written, version) of every pin of requirements.lock."""
    pins = {}
    for line in lock.read_text().splitlines():
        match = PIN.match(line.strip())
        if match:
            pins[normalise(match.group(1))] = (match.group(1), match.group(2))
    return pins


def env_packages(env_file: Path) -> list[str]:
    """The names of an env file's pip packages, plus docqa's dependencies for its `-e ..`."""
    env = yaml.safe_load(env_file.read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    names = [PIN.match(line).group(1) for line in pip if PIN.match(line)]
    if any(line.startswith("-e") for line in pip):
        project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
        names += [Requirement(r).name for r in project["dependencies"] if _applies(r)]
    return names


def _applies(requirement: str) -> bool:
    parsed = Requirement(requirement)
    return parsed.marker is None or parsed.marker.evaluate({"extra": ""})


def closure(names: list[str], pins: dict[str, tuple[str, str]]) -> dict[str, str]:
    """Every package ``names`` need, transitively, at its requirements.lock version."""
    locked: dict[str, str] = {}
    todo = [normalise(name) for name in names]
    while todo:
        name = todo.pop()
        if name in locked:
            continue
        if name in FREEZE_OMITS:  # pip freeze leaves it out of requirements.lock
            written, version = name, metadata.version(name)
        elif name in pins:
            written, version = pins[name]
        else:
            raise SystemExit(f"{name} is needed but not pinned in requirements.lock: run make lock")
        locked[name] = f"{written}=={version}"
        for requirement in metadata.requires(written) or []:
            if _applies(requirement):
                todo.append(normalise(Requirement(requirement).name))
    return locked


def lock_text(env_file: Path) -> str:
    locked = closure(env_packages(env_file), lock_pins())
    header = (
        f"# {env_file.name}'s pip packages and all they pull in, exactly pinned (from "
        "requirements.lock).\n"
        "# Regenerate after changing the env file or the lock: make env-locks\n"
    )
    return header + "".join(f"{locked[name]}\n" for name in sorted(locked))


def lock_file(env_file: Path) -> Path:
    return env_file.with_name(env_file.stem + ".lock.txt")


def main() -> None:
    for env_file in sorted(ENVS.glob("*.yaml")):
        lock_file(env_file).write_text(lock_text(env_file))
        print(f"wrote {lock_file(env_file).relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
