"""The inside of the Solve sandbox: run as ``python -I -S -B child.py`` under bubblewrap.

This file is executed by path in a fresh interpreter without site-packages, inside the kernel
isolation of ``isolation.py`` (namespaces, a read-only minimal root, a seccomp filter): that
is the boundary. What this file adds is a second layer that turns the refusals an ordinary
program meets into readable errors, and the reporting of the program's own values.

It reads the request (code, inputs, limits, the two descriptors it reports on) from stdin,
then, in this order:

1. closes every other descriptor (its rlimits, CPU seconds, address space, file size, open
   descriptors and no core file, were set before bubblewrap started, and the seccomp filter
   refuses to change them);
2. loads the modules a computation may use (``PRELOAD``); after step 4 no module can be loaded;
3. removes the few functions that act without an audit event (``mkfifo``, ``_imp`` loaders …);
4. installs an audit hook (PEP 578) that refuses paths outside ``/box``, imports, sockets,
   processes, signals, ``mkdir``, ctypes, introspection and the building of code objects
   (``code.__new__``, ``__code__`` assignment, ``marshal``). Python 3.11 raises no event for
   a new thread: the kernel stops that one (``clone3`` is forbidden). Each refusal is written
   at once to the refusal descriptor, so that clearing a list later cannot hide it; a program that
   gets past this layer (crafted bytecode can) meets the kernel's, and the parent reports that
   from the exit status.

The program runs with ``evidence`` defined and its ``print`` output captured; its values
(``result`` as JSON text, printout, error) go to the result descriptor as one JSON document,
and the process leaves with ``os._exit(0)``. The parent reads both descriptors with size caps
and parses them with depth limits: nothing written there can make it raise, and nothing the
program writes decides how its run is classified beyond its own values (``ok``, ``error``,
``memory_limit``); limits, kills and forbidden system calls are read from the exit status.
"""

import builtins
import io
import json
import linecache
import os
import sys
import traceback

#: what a computation over extracted evidence may import
PRELOAD = (
    "_strptime",
    "bisect",
    "cmath",
    "collections",
    "copy",
    "datetime",
    "decimal",
    "fractions",
    "functools",
    "heapq",
    "itertools",
    "json",
    "math",
    "numbers",
    "operator",
    "random",
    "re",
    "statistics",
    "string",
    "textwrap",
    "unicodedata",
    "resource",
    "linecache",
    "traceback",
)
BOX = "/box"

#: posix functions with effects outside the process and no audit event
UNAUDITED = ("mkfifo", "mknod", "openpty", "setsid", "setpgid", "setpgrp", "chroot")

#: _imp functions that load modules
LOADERS = (
    "create_builtin",
    "exec_builtin",
    "create_dynamic",
    "exec_dynamic",
    "init_frozen",
    "get_frozen_object",
    "find_frozen",
)

BLOCKED_EVENTS = (
    "import",
    "os.system",
    "os.exec",
    "os.fork",
    "os.forkpty",
    "os.posix_spawn",
    "os.spawn",
    "os.kill",
    "os.killpg",
    "os.chdir",
    "os.link",
    "os.symlink",
    "os.startfile",
    "subprocess.Popen",
    "pty.spawn",
    "_thread.start_new_thread",
    "sys.addaudithook",
    "code.__new__",
    "marshal.load",
    "marshal.loads",
    "os.mkdir",
    "sys.settrace",
    "sys.setprofile",
    "sys._getframe",
    "sys._current_frames",
    "sys._current_exceptions",
    "gc.get_objects",
    "gc.get_referrers",
    "gc.get_referents",
    "resource.setrlimit",
    "resource.prlimit",
    "mmap.__new__",
    "webbrowser.open",
)
BLOCKED_PREFIXES = ("socket.", "ctypes.", "urllib.", "http.", "ftplib.", "smtplib.", "sqlite3.")

#: events whose arguments at these positions are paths that must lie in the box
PATH_EVENTS = {
    "open": (0,),
    "os.listdir": (0,),
    "os.scandir": (0,),
    "os.mkdir": (0,),
    "os.remove": (0,),
    "os.rmdir": (0,),
    "os.rename": (0, 1),
    "os.truncate": (0,),
    "os.utime": (0,),
    "os.chmod": (0,),
    "os.chown": (0,),
    "os.chflags": (0,),
    "os.lchflags": (0,),
    "os.getxattr": (0,),
    "os.listxattr": (0,),
    "os.removexattr": (0,),
    "os.setxattr": (0,),
}


def main() -> None:
    request = json.loads(sys.stdin.buffer.read())
    limits = request["limits"]
    result_fd, refusal_fd = request["result_fd"], request["refusal_fd"]
    keep = sorted({0, 1, 2, result_fd, refusal_fd})
    for low, high in zip(keep, keep[1:] + [1 << 16], strict=False):
        os.closerange(low + 1, high)
    for name in PRELOAD:
        __import__(name)
    answer = _answerer(result_fd)
    if request["guard"]:  # off only to test the kernel layers alone (run_python's guard)
        _remove_unaudited()
        _install_guard(BOX, limits["max_opens"], _reporter(refusal_fd))
    answer(_run(request["code"], request["inputs"], limits))


def _reporter(fd: int):
    """A function that writes one refusal to the parent at once (at most 20 of them)."""
    write, written = os.write, [0]

    def report(what: str) -> None:
        if written[0] < 20:
            written[0] += 1
            try:
                write(fd, (what[:200].replace("\n", " ") + "\n").encode("utf-8", "replace"))
            except OSError:
                pass

    return report


def _remove_unaudited() -> None:
    for name in UNAUDITED:
        for module in (os, sys.modules["posix"]):
            if hasattr(module, name):
                delattr(module, name)
    loader = sys.modules["_imp"]
    for name in LOADERS:
        if hasattr(loader, name):
            delattr(loader, name)


def _install_guard(box: str, max_opens: int, note) -> None:
    """Install the audit hook that confines the program to ``box`` (see the module docstring);
    ``note`` reports each refusal."""
    str_type, int_type, none_type, type_of = str, int, type(None), type
    deny = PermissionError
    count = len
    prefix = box.rstrip("/") + "/"
    refused = frozenset(BLOCKED_EVENTS)
    refused_prefixes = BLOCKED_PREFIXES
    path_events = dict(PATH_EVENTS)
    opened = [0]

    def inside(path: object) -> bool:
        kind = type_of(path)
        if kind is int_type or kind is none_type:  # an open descriptor, or the cwd (the box)
            return True
        if kind is not str_type:
            return False
        if not path.startswith("/"):  # type: ignore[attr-defined]
            path = prefix + path  # type: ignore[operator]
        parts: list = []
        for part in path.split("/"):  # type: ignore[attr-defined]
            if part == "" or part == ".":
                continue
            if part == "..":
                if parts:
                    parts.pop()
                continue
            parts.append(part)
        return ("/" + "/".join(parts) + "/").startswith(prefix)

    def refuse(what: str, why: str) -> None:
        note(what)
        raise deny(f"sandbox: {what}: {why}")

    def guard(event: str, args: tuple) -> None:
        if event in refused or event.startswith(refused_prefixes):
            if event == "import" and count(args) and type_of(args[0]) is str_type:
                refuse(f"import {args[0]}", "only the preloaded modules can be imported")
            refuse(event, "not allowed")
        if event == "object.__setattr__" and count(args) > 1 and args[1] == "__code__":
            refuse("__code__ assignment", "code objects cannot be replaced")
        positions = path_events.get(event)
        if positions is None:
            return
        for position in positions:
            if position < count(args) and not inside(args[position]):
                path = args[position]
                shown = path if type_of(path) is str_type else "(not a string)"
                refuse(f"{event} {shown}", "only paths in the working folder are allowed")
        if event == "open":
            opened[0] += 1
            if opened[0] > max_opens:
                refuse("open", f"more than {max_opens} files opened")

    sys.addaudithook(guard)


class _CappedText(io.TextIOBase):
    """A text stream that keeps the first ``cap`` characters and counts the rest."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.parts: list = []
        self.kept = 0
        self.dropped = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        text = str(text)
        room = self.cap - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def getvalue(self) -> str:
        return "".join(self.parts)


def _run(code: str, inputs: object, limits: dict) -> dict:
    output = _CappedText(limits["output_chars"])
    namespace = {"__name__": "__solve__", "__builtins__": builtins, "evidence": inputs}
    linecache.cache["<solve>"] = (len(code), None, code.splitlines(True), "<solve>")
    restore_builtins = _builtins_restorer()
    sys.stdout = sys.stderr = output
    kind, error = "ok", ""
    try:
        try:
            exec(compile(code, "<solve>", "exec"), namespace)
        finally:
            restore_builtins()
    except MemoryError:
        namespace.clear()
        kind, error = "memory_limit", f"MemoryError: more than {limits['memory_mb']} MB"
    except BaseException as failure:
        kind, error = "error", _describe(failure)
    result = namespace.get("result")
    namespace.clear()
    return {
        "kind": kind,
        "result": _as_json(result, limits["result_chars"]),
        "stdout": output.getvalue()[: limits["output_chars"]],
        "stdout_dropped": output.dropped,
        "error": error[: limits["result_chars"]],
    }


def _builtins_restorer():
    """A function that puts back the builtins as they are now (the program may replace
    ``type``, ``len`` or ``BaseException``, which reporting its outcome needs)."""
    saved = dict(builtins.__dict__)
    clear, update = builtins.__dict__.clear, builtins.__dict__.update

    def restore() -> None:
        clear()
        update(saved)

    return restore


def _describe(failure: BaseException) -> str:
    """The exception with the program's own lines of its traceback (read from the program's
    text: looking up the standard library's lines would open files outside the box)."""
    try:
        lines = [
            f"line {number}: {linecache.getline('<solve>', number).strip()}"
            for frame, number in traceback.walk_tb(failure.__traceback__)
            if frame.f_code.co_filename == "<solve>"
        ]
        last = "".join(traceback.format_exception_only(type(failure), failure)).strip()
        return "\n".join([*lines[-3:], last])
    except BaseException:
        return type(failure).__name__


def _as_json(value: object, cap: int) -> str:
    """``value`` as JSON text if it is JSON within ``cap`` characters, else its (cut) repr."""
    try:
        text = json.dumps(value)
        if len(text) <= cap:
            return text
    except BaseException:
        pass
    try:
        return json.dumps({"repr": repr(value)[:cap]})
    except BaseException:
        return json.dumps({"repr": f"<{type(value).__name__} without a readable repr>"})


def _answerer(fd: int):
    """A function that writes the program's values to ``fd`` and leaves at once. Its tools are
    bound now, before the program can replace them (which only garbles its own values)."""
    dumps, write, leave = json.dumps, os.write, os._exit

    def answer(outcome: dict) -> None:
        data = dumps(outcome).encode()
        while data:
            data = data[write(fd, data) :]
        leave(0)

    return answer


if __name__ == "__main__":
    main()
