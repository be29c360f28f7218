"""The kernel memory a sandboxed program can take outside its rlimits, and who it is on the host.

- the box counts inodes as well as bytes (tmpfs ``nr_inodes``): empty files, hard links and
  symbolic links stop at the limit instead of costing kernel slab until the CPU time runs out;
- no host folder is bound: lookups of names that do not exist leave negative dentries in the
  host's cache only where a host folder is visible, and those outlive the sandbox;
- as root, the program runs as an unprivileged uid on the host, not as root.

The programs run without the audit hook (``guard=False``): what they meet is the kernel alone.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from docqa.sandbox import SandboxLimits, run_python
from docqa.sandbox.isolation import BOX_INODES_PER_MB, CHILD_INSIDE, HOST_UID
from docqa.sandbox.machine import current

ROOMY = SandboxLimits(cpu_seconds=10, wall_seconds=60, memory_mb=256)
FILL = """
import os
made, stop = 0, 0
try:
    while made < 50_000:
        os.close(os.open(f"f{made}", os.O_CREAT | os.O_WRONLY, 0o600))
        made += 1
except OSError as error:
    stop = error.errno
links = 0
try:
    while links < 50_000:
        os.link("f0", f"l{links}")
        links += 1
except OSError:
    pass
result = {"files": made, "links": links, "errno": stop}
"""


def test_the_box_has_an_inode_limit() -> None:
    """Old code: 50 000 empty files (about 40 MB of slab), no error."""
    import errno

    outcome = run_python(FILL, limits=ROOMY, guard=False)
    assert outcome.ok, outcome
    limit = ROOMY.box_mb * BOX_INODES_PER_MB
    assert outcome.result["files"] < limit
    assert outcome.result["files"] + outcome.result["links"] < limit
    assert outcome.result["errno"] == errno.ENOSPC


def test_the_minimal_root_binds_single_files_only() -> None:
    """Old code: the standard library's folder was bound."""
    here = current()
    assert here.binds
    for source, inside in here.binds:
        assert os.path.isfile(source), (source, inside)


def negative_dentries() -> int:
    """The host's count of negative dentries (the fifth field of dentry-state)."""
    return int(Path("/proc/sys/fs/dentry-state").read_text().split()[4])


LOOKUPS = """
import os, sys
folders = [path for path in sys.path if os.path.isdir(path)] + ["/", "/box"]
done = 0
for number in range(200_000):
    try:
        os.stat(f"{folders[number % len(folders)]}/no-such-{number:x}")
    except OSError:
        done += 1
result = done
"""


def test_lookups_of_missing_names_leave_no_dentries_on_the_host() -> None:
    """Old code: each missing name looked up in the bound standard library's folders stayed in
    the host's dentry cache (about 100 k of these 200 k lookups)."""
    if not Path("/proc/sys/fs/dentry-state").exists():
        pytest.skip("no /proc/sys/fs/dentry-state")
    before = negative_dentries()
    outcome = run_python(LOOKUPS, limits=ROOMY, guard=False)
    assert outcome.ok, outcome
    assert outcome.result == 200_000
    grown = negative_dentries() - before
    # other jobs on the machine add some thousands; the old sandbox left ~100 000
    assert grown < 25_000, f"{grown} more negative dentries on the host after the run"


def _descendants(root: int) -> list[int]:
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                parents[int(entry.name)] = int(fields[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = [], [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent]
        found += children
        frontier += children
    return found


def _uids(pid: int) -> tuple[int, ...]:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Uid:"):
            return tuple(int(value) for value in line.split()[1:])
    raise AssertionError(f"no Uid line for {pid}")


def test_as_root_the_program_runs_as_an_unprivileged_uid_on_the_host() -> None:
    """Old code: bubblewrap started by root maps the sandbox's uid onto root (uid 0)."""
    if os.geteuid() != 0:
        pytest.skip("as an ordinary user the sandbox runs as that user")
    code = (
        "import os, time\nopen('mine', 'w').write('x')\nend = time.monotonic() + 8\n"
        "while time.monotonic() < end and not os.path.exists('stop'):\n    time.sleep(0.01)\n"
        "result = 1"
    )
    outcome: list = []
    runner = threading.Thread(target=lambda: outcome.append(run_python(code, limits=ROOMY)))
    runner.start()
    seen: dict[int, tuple[int, ...]] = {}
    owner = None
    deadline = time.monotonic() + 30
    try:
        while runner.is_alive() and time.monotonic() < deadline and owner is None:
            for pid in _descendants(os.getpid()):
                try:
                    seen[pid] = _uids(pid)
                    if CHILD_INSIDE in Path(f"/proc/{pid}/cmdline").read_text():
                        box = Path(f"/proc/{pid}/root/box")
                        owner = (box / "mine").stat().st_uid
                        (box / "stop").touch()
                except OSError:
                    continue
            time.sleep(0.02)
    finally:
        runner.join(60)
    assert outcome, "the run did not end"
    assert outcome[0].ok, outcome
    assert owner == HOST_UID, f"the program's file belongs to uid {owner} on the host"
    assert seen, "no process of the sandbox was seen"
    for pid, uids in seen.items():
        assert 0 not in uids, f"process {pid} runs with uids {uids}"
