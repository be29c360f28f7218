"""The sandbox's read-only image: every file the sandbox binds, prepared once per machine.

Two things in one folder, named by a hash of what went into it (so a changed interpreter, a
changed standard library or a changed ``child.py`` makes a new one):

- ``stdlib.zip``: the interpreter's pure-Python standard library as compiled ``.pyc`` files
  (``LEFT_OUT``: site-packages, tests, tooling and what needs the network or processes),
  bound where the interpreter looks for ``pythonXY.zip`` first. The sandbox binds no host
  folder at all, only single files: a program that looks up names in a bound host folder
  leaves negative dentries in the host's cache, which outlive the sandbox and add up
  (measured: 390-585 k per run, 1.41 GB of slab after five); lookups in the folders
  bubblewrap makes on its own tmpfs die with the sandbox.
- ``files/``: a copy (a hard link where it can) of every other file bound (the interpreter, the
  shared libraries it maps, the extension modules of ``lib-dynload``, ``child.py``), readable by
  every user: the sandbox runs as an unprivileged uid when the caller is root, and that uid may
  not reach the originals (a pyenv interpreter under ``/root``).

Plus ``box/``, an empty folder where the launcher mounts the box tmpfs in its own mount
namespace. The folder is ``/var/cache/docqa/sandbox`` for root, else
``$XDG_CACHE_HOME/docqa/sandbox`` (``~/.cache``), else ``/tmp/docqa-sandbox-<uid>``;
``DOCQA_SANDBOX_CACHE`` names another. It must belong to the caller and be writable by nobody
else.
"""

from __future__ import annotations

import hashlib
import importlib.util
import marshal
import os
import shutil
import stat
import struct
import sys
import tempfile
import zipfile
from pathlib import Path

CACHE_VARIABLE = "DOCQA_SANDBOX_CACHE"
#: packages of the standard library a sandboxed computation cannot use (it has no network, no
#: processes, no threads, no terminal, none of the C libraries they load) or tooling and tests:
#: left out of the zip, whose every entry zipimport reads at each start (~10 us apiece)
LEFT_OUT = frozenset(
    {
        "__phello__",
        "__pycache__",
        "asyncio",
        "concurrent",
        "curses",
        "dbm",
        "dist-packages",
        "distutils",
        "email",
        "ensurepip",
        "http",
        "idle_test",
        "idlelib",
        "lib-dynload",
        "lib2to3",
        "multiprocessing",
        "pydoc_data",
        "site-packages",
        "sqlite3",
        "test",
        "tests",
        "tkinter",
        "turtledemo",
        "unittest",
        "venv",
        "wsgiref",
        "xml",
        "xmlrpc",
    }
)
#: the timestamp-checked .pyc header's flags (PEP 552)
TIMESTAMP_PYC = 0


def cache_folder() -> Path:
    """Where images are kept for this user (created 0755 if missing)."""
    named = os.environ.get(CACHE_VARIABLE, "")
    if named:
        candidates = [Path(named)]
    elif os.geteuid() == 0:
        candidates = [Path("/var/cache/docqa/sandbox")]
    else:
        try:
            base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
            candidates = [Path(base) / "docqa" / "sandbox"]
        except (KeyError, RuntimeError):  # a uid without a home
            candidates = []
    candidates.append(Path(tempfile.gettempdir()) / f"docqa-sandbox-{os.geteuid()}")
    problems = []
    for folder in candidates:
        try:
            _make(folder)
            _check_owned(folder)
            return folder
        except OSError as error:
            problems.append(f"{folder}: {error}")
    raise OSError(
        "no folder for the sandbox's image (" + "; ".join(problems) + f"); set {CACHE_VARIABLE}"
    )


def _make(folder: Path) -> None:
    """``folder`` and its missing parents, 0755 whatever the umask (as root, the sandbox's uid
    must pass through them to the image)."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        try:
            path.mkdir()
        except FileExistsError:
            continue
        path.chmod(0o755)


def _check_owned(folder: Path) -> None:
    info = folder.stat()
    if info.st_uid != os.geteuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise PermissionError(f"{folder} must belong to uid {os.geteuid()} and be 0755")


def stdlib_sources(stdlib: str) -> list[tuple[str, str]]:
    """(file, name inside the zip) of every module of the pure-Python standard library."""
    found = []
    for root, folders, files in os.walk(stdlib):
        folders[:] = sorted(f for f in folders if f not in LEFT_OUT and "-" not in f)
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(root, name)
                found.append((path, os.path.relpath(path, stdlib)[:-3] + ".pyc"))
    return found


def prepare(stdlib: str, files: list[str]) -> tuple[Path, str, dict[str, str]]:
    """The image for ``stdlib`` and ``files`` (made now if this machine has none yet): its
    folder, the zip's path and, per file, the path of its copy."""
    modules = stdlib_sources(stdlib)
    key = hashlib.sha256(sys.version.encode())
    for path in [*files, *(source for source, _ in modules)]:
        info = os.stat(path)
        key.update(f"{path}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    folder = cache_folder() / key.hexdigest()[:24]
    copies = {
        path: str(folder / "files" / f"{n:03d}-{Path(path).name}") for n, path in enumerate(files)
    }
    if not (folder / "done").exists():
        _build(folder, modules, copies)
    return folder, str(folder / "stdlib.zip"), copies


def _build(folder: Path, modules: list[tuple[str, str]], copies: dict[str, str]) -> None:
    """Write the image in a new folder beside ``folder`` and move it there in one step (a
    concurrent process that got there first wins; its image is the same)."""
    work = Path(tempfile.mkdtemp(prefix=".new-", dir=folder.parent))
    try:
        (work / "files").mkdir()
        (work / "box").mkdir()
        for source, copy in copies.items():
            _place(source, work / "files" / Path(copy).name)
        _write_zip(work / "stdlib.zip", modules)
        (work / "stdlib.zip").chmod(0o644)
        for inner in (work, work / "files", work / "box"):
            inner.chmod(0o755)
        (work / "done").touch()
        try:
            work.rename(folder)
        except OSError:
            if not (folder / "done").exists():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _place(source: str, target: Path) -> None:
    """A hard link to a file every user may read (and run, if it runs), else a copy that is."""
    mode = os.stat(source).st_mode
    if mode & 0o444 == 0o444 and mode & 0o111 in (0, 0o111):
        try:
            os.link(source, target)
            return
        except OSError:
            pass
    shutil.copyfile(source, target)
    target.chmod(0o755 if mode & 0o100 else 0o644)


def _write_zip(path: Path, modules: list[tuple[str, str]]) -> None:
    """The modules as .pyc files only: zipimport takes a .pyc without its source as it is."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for source, name in modules:
            archive.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), _compiled(source))


def _compiled(source: str) -> bytes:
    """The interpreter's own cached .pyc of ``source`` when it is current, else compiled now."""
    info = os.stat(source)
    try:
        data = Path(importlib.util.cache_from_source(source)).read_bytes()
        magic, flags, mtime, size = struct.unpack_from("<4sIII", data)
        current = (int(info.st_mtime) & 0xFFFFFFFF, info.st_size & 0xFFFFFFFF)
        if (
            magic == importlib.util.MAGIC_NUMBER
            and flags == TIMESTAMP_PYC
            and (mtime, size) == current
        ):
            return data
    except (OSError, struct.error):
        pass
    code = compile(Path(source).read_bytes(), source, "exec", dont_inherit=True)
    header = importlib.util.MAGIC_NUMBER + struct.pack("<III", TIMESTAMP_PYC, 0, 0)
    return header + marshal.dumps(code)
