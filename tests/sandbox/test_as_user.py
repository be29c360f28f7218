"""The same hostile programs and pairs, run by an ordinary user that the test creates: without
root the sandbox must hold just as well (bubblewrap then makes an unprivileged user namespace).

The venv's interpreter and the checkout may sit where the user cannot go (pyenv or a clone under
/root): the test copies what the script needs (``docqa.sandbox`` and the two test modules, which
use only the standard library) to a folder the user can read, and the user runs it with the
first interpreter it can run, the system's Python 3 if not the venv's; the sandbox then isolates
that interpreter.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hostile import PAIRS, PROGRAMS

import docqa

USER = "docqa-sandbox-test"
SRC = Path(docqa.__file__).resolve().parents[1]
HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def user() -> pwd.struct_passwd:
    if os.geteuid() != 0:
        pytest.skip("this test process is itself an ordinary user: the other tests cover it")
    if shutil.which("useradd") is None:
        pytest.skip("useradd is not installed")
    created = False
    try:
        entry = pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER],
            check=True,
        )
        created, entry = True, pwd.getpwnam(USER)
    yield entry
    if created:
        subprocess.run(["userdel", USER], check=False)


@pytest.fixture(scope="module")
def staged() -> Path:
    """A copy of what the script needs, in a folder every user can read."""
    root = Path(tempfile.mkdtemp(prefix="docqa-as-user-"))
    try:
        package = root / "src" / "docqa"
        shutil.copytree(SRC / "docqa" / "sandbox", package / "sandbox")
        for name in ("__init__.py", "runtime/__init__.py", "runtime/unicode_safe.py"):
            (package / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(SRC / "docqa" / name, package / name)
        shutil.copy(SRC.parent / "pyproject.toml", root / "pyproject.toml")
        for name in ("hostile.py", "run_as_user.py"):
            shutil.copy(HERE / name, root / name)
        for path in [root, *root.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def as_user(
    entry: pwd.struct_passwd, staged: Path, command: list[str], timeout: float
) -> subprocess.CompletedProcess:
    # the sandbox's image goes with the staged copy (the user has no home folder)
    cache = staged / "cache"
    if not cache.exists():
        cache.mkdir(mode=0o755)
        os.chown(cache, entry.pw_uid, entry.pw_gid)
    return subprocess.run(
        command,
        user=entry.pw_uid,
        group=entry.pw_gid,
        extra_groups=[],
        env={
            "PYTHONPATH": str(staged / "src"),
            "PATH": "/usr/bin:/bin",
            "LC_ALL": "C.UTF-8",
            "DOCQA_SANDBOX_CACHE": str(cache),
        },
        cwd="/",
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def interpreter(entry: pwd.struct_passwd, staged: Path) -> str:
    for candidate in (os.path.realpath(sys.executable), "/usr/bin/python3"):
        try:
            check = [candidate, "-c", "import docqa.sandbox"]
            if as_user(entry, staged, check, 60).returncode == 0:
                return candidate
        except OSError:
            continue
    pytest.skip("no Python that the ordinary user can run")


def test_every_hostile_program_and_pair_is_contained_for_an_ordinary_user(
    user: pwd.struct_passwd, staged: Path
) -> None:
    script = str(staged / "run_as_user.py")
    done = as_user(user, staged, [interpreter(user, staged), script], timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["uid"] == user.pw_uid != 0
    assert report["isolation"].startswith("kernel (bubblewrap)"), report["isolation"]
    assert len(report["failures"]) == len(PROGRAMS) + len(PAIRS)
    assert not report["marker"], "a program left a file outside its box"
    failed = {name: problems for name, problems in report["failures"].items() if problems}
    assert not failed, json.dumps(failed, indent=1)[:6000]
