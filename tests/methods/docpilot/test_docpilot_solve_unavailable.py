"""Where the Solve sandbox cannot isolate (no bubblewrap, no user namespaces), Solve refuses to
run and the answer's trace records why: never a silent fallback to a weaker sandbox."""

from __future__ import annotations

import pytest
from helpers.acme import QUESTION
from helpers.docpilot_script import ScriptedReplies, decision, run

from docqa.methods.base import DocumentEnv
from docqa.methods.docpilot import DocPilot, DocPilotOptions
from docqa.sandbox import SandboxUnavailable, run_python
from docqa.sandbox.isolation import BWRAP_VARIABLE


def test_without_isolation_solve_runs_nothing_and_the_trace_says_why(
    acme: DocumentEnv, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(BWRAP_VARIABLE, "none")
    with pytest.raises(SandboxUnavailable, match="bubblewrap"):
        run_python("result = 1")
    backend = ScriptedReplies(
        [
            decision("navigate", {"query": "quarterly orders chart"}),
            "4\nMore: no",
            decision("extract", {"pages": [4], "goal": "Q3 orders"}),
            "p. 4: Q3 orders 77",
            decision("solve", {"task": "the Q3 orders as a number"}),  # no solver is asked
            decision("analyze", {"answer": "77"}),
            " yes\nCoverage: sufficient\nAdvice: answer 77",
            decision("answer", {"answer": "77"}),
            "77",
        ]
    )
    prediction = run(DocPilot(DocPilotOptions(crops_dir=str(tmp_path))), acme, backend, QUESTION)
    assert not backend.replies
    assert prediction.answer == "77"
    solve = prediction.trace[2]
    assert solve["action"] == "solve"
    assert solve["output"].startswith("solve is unavailable on this machine; nothing was run")
    assert solve["sandbox"]["kind"] == "unavailable"
    assert "bubblewrap (bwrap) is not installed" in solve["sandbox"]["error"]
    assert "make setup" in solve["sandbox"]["error"]  # and the fix
    assert "code" not in solve
