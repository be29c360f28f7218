"""The inside of the Solve sandbox: run as ``python -I -S child.py`` with the request on stdin.

This file is executed by path in a fresh interpreter without site-packages, so it imports only
the standard library and nothing of docqa. It reads the request (code, inputs, limits, box),
then closes the process in, in this order:

1. resource limits: CPU seconds, address space, file size, open descriptors, no core file;
2. the modules a computation may use are loaded now (``PRELOAD``); after step 5 no module can
   be loaded any more, so these and the ones the interpreter loaded at start are all there is;
3. cwd becomes the box (a fresh temporary folder); as root, the process becomes ``nobody``,
   and then may not create processes (``RLIMIT_NPROC`` 0, which binds a non-root user);
4. the few functions that act outside the process without raising an audit event (``mkfifo``,
   ``mknod``, ``setsid`` …) are removed, and so are ``_imp``'s loaders (``_imp.create_builtin``
   loads a built-in module such as ``pwd`` without any audit event);
5. an audit hook (``sys.addaudithook``; Python code cannot remove one) refuses: opening,
   listing, changing or removing any path outside the box, more than ``max_opens`` opens,
   importing a module that is not loaded yet, sockets, process creation (fork, exec, spawn,
   system, subprocess), signals to other processes, ctypes, threads, changing the cwd or the
   limits, and the introspection that could reach the hook itself (``sys._getframe``,
   ``sys.settrace``/``setprofile``, ``gc.get_objects``/``get_referrers``).

The hook binds every name it uses when it is installed and reads only exact ``str``/``int``
arguments, so code that replaces builtins or module attributes, or passes a path-like object
that answers differently on each call, cannot change its decision. It is reachable from no
module or frame, only from the interpreter's own list of hooks.

The program runs with ``evidence`` (the inputs) defined and its ``print`` output captured up
to a cap; the value it leaves in ``result`` is sent back. The answer is one JSON document on
fd 1: ``{"kind", "result", "stdout", "stdout_dropped", "error", "blocked"}``; ``kind`` is
``ok``, ``error`` or ``memory_limit``. Limits that kill the process (CPU, wall clock) are read
by the parent from the exit status.
"""

import builtins
import io
import json
import linecache
import os
import resource
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
)

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

NOBODY = 65534


def main() -> None:
    request = json.loads(sys.stdin.buffer.read())
    limits = request["limits"]
    _limit(limits)
    for name in PRELOAD:
        __import__(name)
    os.chdir(request["box"])
    if request.get("drop_privileges"):
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    _remove_unaudited()
    blocked: list[str] = []
    answer = _answerer()
    _install_guard(os.getcwd(), limits["max_opens"], blocked)
    answer(_run(request["code"], request["inputs"], limits, blocked))


def _limit(limits: dict) -> None:
    cpu = max(1, -(-int(limits["cpu_seconds"] * 1000) // 1000))
    memory = int(limits["memory_mb"]) << 20
    files = int(limits["file_mb"]) << 20
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (files, files))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits["max_open_files"],) * 2)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _remove_unaudited() -> None:
    for name in UNAUDITED:
        for module in (os, sys.modules["posix"]):
            if hasattr(module, name):
                delattr(module, name)
    loader = sys.modules["_imp"]
    for name in LOADERS:
        if hasattr(loader, name):
            delattr(loader, name)


def _install_guard(box: str, max_opens: int, blocked: list) -> None:
    """Install the audit hook that confines the program to ``box`` (see the module docstring)."""
    str_type, int_type, none_type, type_of = str, int, type(None), type
    deny = PermissionError
    note = blocked.append
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
        if not path.startswith("/"):
            path = prefix + path
        parts: list = []
        for part in path.split("/"):
            if part == "" or part == ".":
                continue
            if part == "..":
                if parts:
                    parts.pop()
                continue
            parts.append(part)
        return ("/" + "/".join(parts) + "/").startswith(prefix)

    def refuse(what: str, why: str) -> None:
        if count(blocked) < 20:
            note(what)
        raise deny(f"sandbox: {what}: {why}")

    def guard(event: str, args: tuple) -> None:
        if event in refused or event.startswith(refused_prefixes):
            if event == "import" and count(args) and type_of(args[0]) is str_type:
                refuse(f"import {args[0]}", "only the preloaded modules can be imported")
            refuse(event, "not allowed")
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


def _run(code: str, inputs: object, limits: dict, blocked: list) -> dict:
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
        "stdout": output.getvalue(),
        "stdout_dropped": output.dropped,
        "error": error[: limits["result_chars"]],
        "blocked": list(blocked),
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


def _as_json(value: object, cap: int) -> object:
    """``value`` if it is JSON within ``cap`` characters, else its (cut) repr."""
    try:
        text = json.dumps(value)
        if len(text) <= cap:
            return value
    except BaseException:
        pass
    try:
        return {"repr": repr(value)[:cap]}
    except BaseException:
        return {"repr": f"<{type(value).__name__} without a readable repr>"}


def _answerer():
    """A function that writes an outcome as the whole of fd 1 and leaves at once, so that
    nothing the program buffered is flushed after it. Its tools are bound now, before the
    program can replace them."""
    dumps, write, truncate, seek, leave = json.dumps, os.write, os.ftruncate, os.lseek, os._exit
    stdout = sys.__stdout__

    def answer(outcome: dict) -> None:
        data = dumps(outcome).encode()
        try:
            stdout.flush()
        except BaseException:
            pass
        truncate(1, 0)
        seek(1, 0, 0)
        while data:
            data = data[write(1, data) :]
        leave(0)

    return answer


if __name__ == "__main__":
    main()
