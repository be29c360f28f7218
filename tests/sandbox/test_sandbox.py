"""The Solve sandbox on ordinary programs: results, printout, errors and the layers in force."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from docqa.sandbox import SandboxLimits, SandboxResult, run_python
from docqa.sandbox.isolation import command_prefix, network_namespace_prefix


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


def test_the_program_may_use_files_in_its_own_fresh_folder_which_is_removed_after() -> None:
    code = (
        "import os\nopen('note.txt', 'w').write('42')\n"
        "result = [os.getcwd(), open('note.txt').read()]"
    )
    first, second = run_python(code), run_python(code)
    assert first.result[1] == "42"
    assert first.result[0] != second.result[0]
    assert not Path(first.result[0]).exists()


def test_the_program_runs_in_a_network_namespace_of_its_own_where_one_can_be_made() -> None:
    if not network_namespace_prefix():
        pytest.skip("unshare cannot make a network namespace on this machine")
    outcome = run_python("import os\nresult = os.readlink('/proc/self/ns/net')")
    assert "network_namespace" in outcome.isolation
    assert outcome.result != os.readlink("/proc/self/ns/net")
    assert run_python("", limits=SandboxLimits(network_namespace="required")).ok


def test_without_a_namespace_the_guard_alone_keeps_the_network_out() -> None:
    assert command_prefix("off") == ()
    outcome = run_python("import socket", limits=SandboxLimits(network_namespace="off"))
    assert "network_namespace" not in outcome.isolation
    assert outcome.blocked == ("import socket",)


def test_limits_are_checked() -> None:
    with pytest.raises(ValueError, match="network_namespace 'maybe'"):
        SandboxLimits(network_namespace="maybe")
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
