"""The parts of the sandbox on their own: the seccomp program, the capped reader of the
child's pipes, the depth-limited parser and the cleaning of text (no sandbox needed)."""

from __future__ import annotations

import os
import struct
import threading
import time

import pytest

from docqa.runtime.unicode_safe import clean, clean_text
from docqa.sandbox import channel, seccomp
from docqa.sandbox.isolation import PRELOAD, elf_interpreter


def instructions(program: bytes) -> list[tuple[int, int, int, int]]:
    return [struct.unpack_from("<HBBI", program, at) for at in range(0, len(program), 8)]


def test_the_seccomp_program_checks_the_architecture_first_and_ends_in_a_verdict() -> None:
    program = instructions(seccomp.build_filter("x86_64"))
    assert program[0] == (seccomp.LD_ABS, 0, 0, seccomp.ARCH)
    assert program[1][3] == seccomp.AUDIT_ARCH_X86_64
    assert program[2] == (seccomp.RET, 0, 0, seccomp.SECCOMP_RET_KILL_PROCESS)
    assert program[-1][0] == seccomp.RET
    assert len(program) < 4096  # the kernel's limit (BPF_MAXINSNS)
    # every jump lands inside the program
    for position, (op, true, false, _) in enumerate(program):
        if op & 0x07 == 0x05:  # BPF_JMP
            assert position + 1 + max(true, false) < len(program)


def test_no_system_call_is_both_allowed_and_forbidden() -> None:
    assert not set(seccomp.X86_64) & set(seccomp.FORBIDDEN)
    assert not set(seccomp.X86_64.values()) & set(seccomp.FORBIDDEN.values())
    for name in ("clone", "clone3", "fork", "socket", "ptrace", "pidfd_open", "mknodat"):
        assert name in seccomp.FORBIDDEN
    for name in ("mkdir", "mkdirat", "chmod", "prctl", "seccomp", "kill", "setuid"):
        assert name not in seccomp.X86_64  # EPERM


#: every call the tests below name, the ones left out of the allowlist too
NUMBERS = {**seccomp.X86_64, **seccomp.FORBIDDEN, "pipe": 22, "mincore": 27, "pipe2": 293}


def verdict(name: str, *args: int) -> int:
    """Run the x86_64 filter, as the kernel would, on a call of ``name`` with ``args``."""
    program = instructions(seccomp.build_filter("x86_64"))
    padded = (list(args) + [0] * 6)[:6]
    data = struct.pack("<iIQ6Q", NUMBERS[name], seccomp.AUDIT_ARCH_X86_64, 0, *padded)
    position, accumulator = 0, 0
    while True:
        op, true, false, value = program[position]
        if op == seccomp.RET:
            return value
        if op == seccomp.LD_ABS:
            (accumulator,) = struct.unpack_from("<I", data, value)
            position += 1
            continue
        taken = {
            seccomp.JEQ: accumulator == value,
            seccomp.JGE: accumulator >= value,
            seccomp.JSET: bool(accumulator & value),
        }[op]
        position += 1 + (true if taken else false)


ALLOW, DENY = seccomp.SECCOMP_RET_ALLOW, seccomp.SECCOMP_RET_ERRNO | seccomp.EPERM
POINTER = 0x7FFF_1234_5000


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (("pipe", POINTER), DENY),
        (("pipe2", POINTER, 0), DENY),
        (("mincore", POINTER, 4096, POINTER), DENY),
        (("prlimit64", 0, 0, 0, POINTER), ALLOW),  # getrlimit
        (("prlimit64", 0, 0, POINTER, POINTER), DENY),  # a new limit
        (("prlimit64", 0, 0, POINTER, 0), DENY),
        (("prlimit64", 0, 0, 1 << 32, 0), DENY),  # the pointer's high half counts too
        (("prlimit64", 7, 0, 0, POINTER), DENY),  # another process
        (("renameat2", 0, POINTER, 0, POINTER, 0), ALLOW),
        (("renameat2", 0, POINTER, 0, POINTER, 1), ALLOW),  # RENAME_NOREPLACE
        (("renameat2", 0, POINTER, 0, POINTER, 2), DENY),  # RENAME_EXCHANGE
        (("renameat2", 0, POINTER, 0, POINTER, 4), DENY),  # RENAME_WHITEOUT
        (("renameat2", 0, POINTER, 0, POINTER, 5), DENY),
        *[(("madvise", POINTER, 4096, advice), ALLOW) for advice in seccomp.MADVICE],
        *[(("madvise", POINTER, 4096, advice), DENY) for advice in (3, 9, 12, 20, 21, 22, 25)],
        (("read", 0, POINTER, 10), ALLOW),
        (("clone", 0), seccomp.SECCOMP_RET_KILL_PROCESS),
    ],
)
def test_the_filter_checks_the_arguments_of_the_channel_calls(call: tuple, expected: int) -> None:
    name, *args = call
    assert verdict(name, *args) == expected


def test_another_architecture_is_refused_with_the_fix() -> None:
    with pytest.raises(seccomp.UnsupportedArchitecture, match="x86_64 only, not for aarch64"):
        seccomp.build_filter("aarch64")


def test_the_elf_interpreter_of_this_python_is_found() -> None:
    loader = elf_interpreter(os.path.realpath(os.sys.executable))
    assert loader.startswith("/")
    assert "ld-linux" in loader


def test_the_child_preloads_what_the_minimal_root_was_probed_for() -> None:
    from pathlib import Path

    text = Path(seccomp.__file__).with_name("child.py").read_text()
    block = text[text.index("PRELOAD = (") : text.index(")", text.index("PRELOAD = ("))]
    assert set(PRELOAD) == {line.strip().strip('",') for line in block.splitlines()[1:]}


def test_the_reader_keeps_a_cap_from_each_pipe_and_closes_one_that_goes_past_it() -> None:
    small_read, small_write = os.pipe()
    big_read, big_write = os.pipe()
    written = [0]

    def writer() -> None:
        os.write(small_write, b"abc")
        os.close(small_write)
        try:
            for _ in range(1000):
                written[0] += os.write(big_write, b"x" * 10000)
        except BrokenPipeError:
            written.append("EPIPE")
        os.close(big_write)

    thread = threading.Thread(target=writer)
    thread.start()
    kept, dropped, late = channel.read_streams(
        {"small": (small_read, 100), "big": (big_read, 1000)}, time.monotonic() + 30
    )
    thread.join()
    assert kept == {"small": b"abc", "big": b"x" * 1000}
    assert dropped["small"] == 0
    assert 1 <= dropped["big"] <= 1 << 16  # one read past the cap, then no more
    assert written[-1] == "EPIPE"  # the reader closed the pipe: the writer cannot go on
    assert not late
    for fd in (small_read, big_read):  # read_streams closed both
        with pytest.raises(OSError, match="Bad file descriptor"):
            os.fstat(fd)


def test_the_reader_stops_at_the_deadline_while_a_pipe_stays_open() -> None:
    read, write = os.pipe()
    started = time.monotonic()
    kept, dropped, late = channel.read_streams({"open": (read, 10)}, started + 0.3)
    assert late
    assert kept == {"open": b""}
    assert time.monotonic() - started < 5
    os.close(write)


@pytest.mark.parametrize(
    ("text", "cap", "problem"),
    [
        ("[" * 100000, 10**6, "nested 100000 levels deep"),
        ("[" * 33 + "]" * 33, 100, "nested 33 levels deep"),
        ('"' + "[" * 1000 + '"', 2000, ""),  # brackets in a string are not nesting
        ("{'a': 1}", 100, "not valid JSON"),
        ("1" * 5000, 10**4, "not valid JSON"),  # past int's digit limit
        ("x" * 101, 100, "longer than 100 characters"),
    ],
)
def test_the_parser_checks_depth_and_size_first_and_never_raises(
    text: str, cap: int, problem: str
) -> None:
    value, why = channel.parse_json(text, max_chars=cap)
    assert (problem in why) if problem else (why == "" and value == "[" * 1000)


def test_cleaning_replaces_and_counts_lone_surrogates_and_cuts_deep_values() -> None:
    assert clean_text("a\ud800b\udfff") == ("a\ufffdb\ufffd", 2)
    assert clean_text("fine \U0001f600") == ("fine \U0001f600", 0)
    deep: list = []
    for _ in range(50):
        deep = [deep]
    value, replaced = clean({"k\ud800": [deep, {1, 2}]}, max_depth=10)
    assert replaced == 1
    assert list(value) == ["k\ufffd"]
    inner = value["k\ufffd"]
    assert inner[1] == "{1, 2}"
    depth, item = 0, inner[0]
    while isinstance(item, list):
        depth, item = depth + 1, item[0]
    assert item == "<cut: nested too deep>"
    assert depth < 10
    assert channel.decode(b"ok\xff\xfe") == ("ok\ufffd\ufffd", 2)
