"""The same hostile programs and pairs, run by an ordinary user that the test creates: without
root the sandbox must hold just as well (bubblewrap then makes an unprivileged user namespace).

The venv's interpreter may sit where the user cannot go (pyenv under /root); the user then runs
the script with the system's Python 3, which the sandbox then isolates instead. Only the
standard library and ``docqa.sandbox`` are needed for that.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hostile import PAIRS, PROGRAMS

import docqa

USER = "docqa-sandbox-test"
SRC = Path(docqa.__file__).resolve().parents[1]
SCRIPT = Path(__file__).with_name("run_as_user.py")
ENVIRONMENT = {"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}


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


def as_user(
    entry: pwd.struct_passwd, command: list[str], timeout: float
) -> subprocess.CompletedProcess:
    return subprocess.run(
        command,
        user=entry.pw_uid,
        group=entry.pw_gid,
        extra_groups=[],
        env=ENVIRONMENT,
        cwd="/",
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def interpreter(entry: pwd.struct_passwd) -> str:
    for candidate in (os.path.realpath(sys.executable), "/usr/bin/python3"):
        try:
            if as_user(entry, [candidate, "-c", "import docqa.sandbox"], 60).returncode == 0:
                return candidate
        except OSError:
            continue
    pytest.skip("no Python that the ordinary user can run can import docqa.sandbox")


def test_every_hostile_program_and_pair_is_contained_for_an_ordinary_user(
    user: pwd.struct_passwd,
) -> None:
    done = as_user(user, [interpreter(user), str(SCRIPT)], timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["uid"] == user.pw_uid != 0
    assert report["isolation"].startswith("kernel (bubblewrap)"), report["isolation"]
    assert len(report["failures"]) == len(PROGRAMS) + len(PAIRS)
    assert not report["marker"], "a program left a file outside its box"
    failed = {name: problems for name, problems in report["failures"].items() if problems}
    assert not failed, json.dumps(failed, indent=1)[:6000]
