"""The Solve sandbox on ordinary programs: results, printout, errors and the layers in force."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from docqa.sandbox import SandboxLimits, SandboxResult, process, run_python
from docqa.sandbox.machine import current

pytestmark = pytest.mark.skipif(
    not current().available, reason=f"no kernel isolation here: {current().reason}"
)


def test_a_computation_over_the_evidence_returns_its_result_and_printout() -> None:
    code = (
        "import statistics\n"
        "values = [item['value'] for item in evidence]\n"
        "print('values', values)\n"
        "result = {'mean': statistics.mean(values), 'total': sum(values)}\n"
    )
    outcome = run_python(code, [{"value": 2}, {"value": 4}])
    assert outcome.ok
    assert outcome.error == ""
    assert outcome.blocked == ()
    assert outcome.result == {"mean": 3, "total": 6}
    assert outcome.stdout == "values [2, 4]\n"
    assert outcome.describe() == 'result = {"mean": 3, "total": 6}\nprinted:\nvalues [2, 4]'


def test_the_preloaded_modules_work() -> None:
    code = (
        "import datetime, decimal, fractions, json, math, re\n"
        "result = [\n"
        "    str(decimal.Decimal('1.10') + decimal.Decimal('2.205')),\n"
        "    str(fractions.Fraction(1, 3) * 3),\n"
        "    datetime.datetime.strptime('2021-03-04', '%Y-%m-%d').year,\n"
        "    json.loads('[1]'),\n"
        "    re.findall(r'\\d+', 'a 12 b 7'),\n"
        "    math.isclose(math.pi, 3.14159, rel_tol=1e-5),\n"
        "]\n"
    )
    assert run_python(code).result == ["3.305", "1", 2021, [1], ["12", "7"], True]


def test_a_failing_program_reports_its_line_and_exception() -> None:
    outcome = run_python("x = 1\ny = x / 0\n")
    assert outcome.kind == "error"
    assert outcome.error == "line 2: y = x / 0\nZeroDivisionError: division by zero"
    assert outcome.describe().startswith("error: line 2")


def test_a_syntax_error_is_reported() -> None:
    outcome = run_python("result = (1 +")
    assert outcome.kind == "error"
    assert "SyntaxError" in outcome.error


def test_a_result_that_is_not_json_or_too_long_comes_back_as_its_cut_repr() -> None:
    assert run_python("result = {1, 2}").result == {"repr": "{1, 2}"}
    long = run_python("result = 'x' * 10000", limits=SandboxLimits(result_chars=50)).result
    assert long == {"repr": "'" + "x" * 49}


def test_the_program_may_use_files_in_its_own_fresh_box() -> None:
    code = (
        "import os\nfound = os.listdir('.')\nopen('note.txt', 'w').write('42')\n"
        "result = [os.getcwd(), found, open('note.txt').read()]"
    )
    first, second = run_python(code), run_python(code)
    assert (
        first.result == second.result == ["/box", [], "42"]
    )  # the second saw nothing of the first
    assert not Path("/box").exists()  # the box was never a folder of this machine


def test_limits_are_checked() -> None:
    with pytest.raises(ValueError, match="box_mb must be positive"):
        SandboxLimits(box_mb=0)
    with pytest.raises(ValueError, match="cpu_seconds must be positive"):
        SandboxLimits(cpu_seconds=0)
    with pytest.raises(ValueError, match="kind 'fine'"):
        SandboxResult("fine")


def test_a_long_description_is_cut() -> None:
    outcome = SandboxResult("error", error="x" * 100, blocked=("os.fork", "os.fork"))
    assert (
        outcome.describe(max_chars=1000) == f"error: {'x' * 100}\nrefused by the sandbox: os.fork"
    )
    assert outcome.describe(max_chars=20) == "error: xxxxxxxxxx..."


def test_every_run_reports_the_layers_and_the_cpu_time_the_kernel_counted() -> None:
    outcome = run_python("x = sum(range(10**6))\nresult = x")
    assert outcome.ok
    assert outcome.result == sum(range(10**6))
    assert outcome.isolation == current().layers
    assert {"user_namespace", "pid_namespace", "network_namespace", "seccomp"} <= set(
        outcome.isolation
    )
    assert 0 < outcome.cpu_seconds < 5


def test_the_namespaces_seccomp_and_privileges_are_in_force(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same bubblewrap arguments with /proc mounted, read by a program past the guard."""
    code = (
        "import os\nstatus = dict(l.split(':\\t', 1) for l in open('/proc/self/status').read()"
        ".splitlines() if ':\\t' in l)\n"
        "result = {k: status[k].strip() for k in ('NoNewPrivs', 'Seccomp', 'CapEff', 'CapBnd')}\n"
        "result['ns'] = {n: os.readlink('/proc/self/ns/' + n) for n in "
        "('user', 'mnt', 'pid', 'ipc', 'net', 'uts')}\nresult['pid'] = os.getpid()"
    )
    arguments = process.bwrap_arguments
    monkeypatch.setattr(
        process, "bwrap_arguments", lambda *args: ["--proc", "/proc", *arguments(*args)]
    )
    outcome = run_python(code, guard=False)
    assert outcome.ok, outcome
    found = outcome.result
    assert found["NoNewPrivs"] == "1"
    assert found["Seccomp"] == "2"
    assert int(found["CapEff"], 16) == 0
    assert int(found["CapBnd"], 16) == 0
    assert found["pid"] == 1  # the only process of its PID namespace
    for name, inside in found["ns"].items():
        assert inside != os.readlink(f"/proc/self/ns/{name}"), name


def test_without_bubblewrap_run_python_refuses_with_the_reason_and_the_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from docqa.sandbox import SandboxUnavailable

    monkeypatch.setenv("DOCQA_SANDBOX_BWRAP", "none")
    with pytest.raises(SandboxUnavailable, match=r"bubblewrap \(bwrap\) is not installed"):
        run_python("result = 1")
    monkeypatch.setenv("DOCQA_SANDBOX_BWRAP", "/bin/false")  # a bwrap that cannot start
    with pytest.raises(SandboxUnavailable, match="cannot start bubblewrap here.*make setup"):
        run_python("result = 1")
    monkeypatch.delenv("DOCQA_SANDBOX_BWRAP")
    assert run_python("result = 1").ok


def test_doctor_reports_the_isolation_level(monkeypatch: pytest.MonkeyPatch) -> None:
    from docqa.workflow.doctor import check_sandbox

    check = check_sandbox()
    assert check.status == "ok"
    assert check.detail.startswith("kernel (bubblewrap): user_namespace")
    monkeypatch.setenv("DOCQA_SANDBOX_BWRAP", "none")
    check = check_sandbox()
    assert check.status == "warn"
    assert "Solve refuses to run" in check.detail
    assert "apt-get install bubblewrap" in check.fix


def test_the_minimal_root_holds_the_interpreter_and_nothing_of_the_machine() -> None:
    here = current()
    inside = {destination for _, destination in here.binds}
    assert here.python in inside
    assert any(path.endswith("/libc.so.6") for path in inside)
    for path in inside:
        assert not path.startswith(("/etc", "/home", "/proc", "/tmp", "/work", "/var")), path
        assert "site-packages" not in path, path


def test_nothing_is_left_on_this_machine_after_a_run() -> None:
    """The box is a tmpfs of the sandbox's own, and the request file is unlinked at once."""
    import tempfile

    folder = Path(tempfile.gettempdir())
    before = set(folder.iterdir())
    code = "import os\nfor i in range(50):\n    open(f'f{i}', 'w').write('x' * 1000)\nresult = 1"
    assert run_python(code).ok
    assert {p for p in set(folder.iterdir()) - before if "docqa" in p.name} == set()
