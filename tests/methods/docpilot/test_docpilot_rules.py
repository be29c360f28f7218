"""DocPilot's rules with a scripted model: which actions are available when, the ablations,
the step limit, and every failure path (each answered, counted, and never a crash)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.docpilot_script import ScriptedReplies, decision, run, summary_of
from helpers.scripted_backend import text_of

from docqa.core.question import Question
from docqa.methods import create_method
from docqa.methods.base import DocumentEnv
from docqa.methods.docpilot import DocPilot, DocPilotOptions

STAFF = Question(
    "q-staff",
    "acme",
    "How many more staff has Engineering than Design?",
    "33",
    "Int",
    [("acme", 2)],
)


def orchestrator_prompts(backend: ScriptedReplies) -> list[str]:
    return [text_of(r) for r in backend.requests if text_of(r).startswith("You are DocPilot")]


def available_at(prompt: str) -> str:
    return prompt.rsplit("Available: ", 1)[1].removesuffix("\nThought:")


def test_actions_become_available_as_the_state_grows(acme: DocumentEnv, tmp_path: Path) -> None:
    backend = ScriptedReplies(
        [
            decision("extract", {"pages": [1]}),
            decision("answer", {"answer": "33"}),
            decision("navigate", {"query": "staff"}),
            "3\nMore: yes",
            decision("focus", {"page": 3}),
            decision("solve", {"task": "difference"}),
            decision("answer", {"answer": "33"}),
            decision("extract", {"pages": [3]}),
            "p. 3: Engineering 42\np. 3: Design 9",
            decision("answer", {"answer": "33"}),
            decision("analyze", {"answer": "33"}),
            " no\nCoverage: insufficient\nAdvice: compute the difference",
            decision("solve", {"task": "Engineering minus Design"}),
            "result = 42 - 9\n```",
            decision("answer", {"answer": "33"}),
            decision("analyze", {"answer": "33"}),
            " yes\nCoverage: sufficient",
            decision("answer", {"answer": "33"}),
            "33",
        ]
    )
    prediction = run(
        DocPilot(DocPilotOptions(max_steps=15, crops_dir=str(tmp_path))), acme, backend, STAFF
    )
    assert prediction.answer == "33"
    everything = "navigate, extract, focus, solve, analyze"
    assert [available_at(p) for p in orchestrator_prompts(backend)] == [
        "navigate",
        "navigate",
        "navigate",
        "navigate, extract",
        "navigate, extract",
        "navigate, extract",
        "navigate, extract",
        everything,
        everything,
        everything + ", answer",  # analyzed the latest evidence
        everything,  # Solve added evidence since
        everything,
        everything + ", answer",
    ]
    outputs = [step["output"] for step in prediction.trace[:-1]]
    assert outputs[0] == (
        "error (unavailable_action): extract is not available now "
        "(no candidate page yet: navigate first)"
    )
    assert outputs[3] == (
        "error (unavailable_action): focus is not available now (read a page with extract first)"
    )
    assert outputs[4] == (
        "error (unavailable_action): solve is not available now (no evidence to compute over yet)"
    )
    assert outputs[7].endswith("(analyze the candidate answer against the latest evidence first)")
    assert outputs[8] == "grounded: no; coverage: insufficient; advice: compute the difference"
    assert outputs[9] == "result = 33; new evidence: [3]"
    assert outputs[10].startswith("error (unavailable_action): answer")
    summary = summary_of(prediction)
    assert summary["failures"]["unavailable_action"] == 7
    assert summary["calls_per_action"] == {
        "navigate": 1,
        "extract": 1,
        "focus": 0,
        "solve": 1,
        "analyze": 2,
        "answer": 1,
    }
    assert summary["evidence_precision"] == 1.0
    assert summary["recall_by_round"] == [1.0]


@pytest.mark.parametrize("missing", ["analyze", "focus", "solve"])
def test_an_ablation_takes_its_action_away(acme: DocumentEnv, tmp_path: Path, missing: str) -> None:
    method = create_method({"type": "docpilot", "without": [missing], "crops_dir": str(tmp_path)})
    arguments = {"analyze": {"answer": "9"}, "focus": {"page": 3}, "solve": {"task": "t"}}[missing]
    backend = ScriptedReplies(
        [
            decision("navigate", {}),
            "3\nMore: no",
            decision("extract", {"pages": [3]}),
            "p. 3: Design 9",
            decision(missing, arguments),
            *(
                []
                if missing == "analyze"
                else [decision("analyze", {"answer": "9"}), " yes\nCoverage: sufficient"]
            ),
            decision("answer", {"answer": "9"}),
            "9",
        ]
    )
    prediction = run(method, acme, backend, STAFF)
    prompts = orchestrator_prompts(backend)
    assert f"- {missing} {{" not in prompts[0]
    assert f"Action: {missing}\n" not in prompts[0]  # nor in the example trajectory
    assert missing not in available_at(prompts[2])
    if missing == "analyze":
        assert available_at(prompts[2]).endswith("answer")  # no check needed before answering
    refused = prediction.trace[2]
    assert refused["action"] == missing
    assert refused["fallbacks"] == ["invalid_action"]
    assert refused["output"].startswith(f"error (invalid_action): there is no action {missing!r}")
    summary = summary_of(prediction)
    assert missing not in summary["calls_per_action"]
    assert prediction.answer == "9"


def test_refused_calls_do_not_use_up_the_steps_and_have_their_own_limit(
    acme: DocumentEnv, tmp_path: Path
) -> None:
    """max_steps counts executed actions (the paper's trajectory length); four refused calls
    leave a one-step budget untouched, and max_refused ends the loop."""
    backend = ScriptedReplies(["I am not sure what to do."] * 4 + [""])
    method = DocPilot(DocPilotOptions(max_steps=1, max_refused=5, crops_dir=str(tmp_path)))
    prediction = run(method, acme, backend, STAFF)
    summary = summary_of(prediction)
    assert len(backend.requests) == 5
    assert summary["stop"] == "refused_limit"
    assert (summary["executed_actions"], summary["refused_calls"]) == (0, 5)
    assert summary["empty_replies"] == prediction.usage.empty_replies == 1
    assert [step["refused"] for step in prediction.trace[:-1]] == [True] * 5


def test_role_tokens_reach_each_role_and_unknown_roles_are_refused(
    acme: DocumentEnv, tmp_path: Path
) -> None:
    backend = ScriptedReplies(["junk"])
    method = DocPilot(
        DocPilotOptions(
            max_steps=1, max_refused=1, role_tokens={"orchestrator": 700}, crops_dir=str(tmp_path)
        )
    )
    run(method, acme, backend, STAFF)
    assert backend.requests[0].generation.max_new_tokens == 700
    assert method.settings.role_tokens["extract"] == 160  # the default where none is given
    with pytest.raises(ValueError, match="role_tokens"):
        DocPilot(DocPilotOptions(role_tokens={"thinker": 5}))


def test_at_the_step_limit_the_answer_is_insufficient_evidence(
    acme: DocumentEnv, tmp_path: Path
) -> None:
    backend = ScriptedReplies(["I am not sure what to do."] * 3)
    method = DocPilot(DocPilotOptions(max_steps=3, count_refused=True, crops_dir=str(tmp_path)))
    prediction = run(method, acme, backend, STAFF)
    assert prediction.answer == "Not answerable"
    assert len(backend.requests) == 3
    summary = summary_of(prediction)
    assert summary["outcome"] == "insufficient_evidence"
    assert summary["stop"] == "step_limit"
    assert (summary["executed_actions"], summary["refused_calls"]) == (3, 3)
    assert summary["steps"] == 3
    assert summary["failures"]["invalid_action"] == 3
    assert summary["pages_retrieved"] == 0
    assert summary["evidence_precision"] is None
    assert summary["evidence_recall"] == 0.0
    assert summary["recall_by_round"] == []
    assert [step["action"] for step in prediction.trace[:-1]] == ["invalid"] * 3
    assert prediction.trace[0]["output"].startswith("error (invalid_action): no action found")
    assert orchestrator_prompts(backend)[2].count("Observation: error (invalid_action)") == 2

    custom = DocPilot(
        DocPilotOptions(
            max_steps=1, insufficient_answer="insufficient evidence", crops_dir=str(tmp_path)
        )
    )
    assert run(custom, acme, ScriptedReplies(["?"]), STAFF).answer == "insufficient evidence"


def test_when_no_action_is_left_the_loop_stops(acme: DocumentEnv, tmp_path: Path) -> None:
    backend = ScriptedReplies(
        [
            decision("navigate", {"query": "staff"}),
            "none\nMore: yes",
            decision("navigate", {"query": "staff"}),
            "none\nMore: no",
        ]
    )
    prediction = run(DocPilot(DocPilotOptions(crops_dir=str(tmp_path))), acme, backend, STAFF)
    summary = summary_of(prediction)
    assert summary["stop"] == "no_available_action"
    assert summary["steps"] == 2
    assert summary["navigation_rounds"] == 2
    assert summary["recall_by_round"] == [0.0, 0.0]
    assert prediction.trace[0]["output"] == (
        "candidate pages: none (no new page); shown to the navigator: 4 of 6 pages; "
        "the navigator asks to see more pages"
    )
    assert prediction.trace[1]["pages"] == [4, 5]  # the same query again shows the next grid
    assert prediction.answer == "Not answerable"


def test_every_failure_is_answered_counted_and_survived(acme: DocumentEnv, tmp_path: Path) -> None:
    backend = ScriptedReplies(
        [
            "I will think about it some more.",  # no action
            decision("jump", {"to": 3}),  # unknown action
            " look\nAction: navigate\nArguments: the staff page",  # arguments not JSON
            decision("navigate", {"query": "staff"}),
            "9, 5, 3\nMore: no",  # 9 is outside, 5 was not shown
            decision("extract", {}),  # missing pages
            decision("extract", {"pages": "three"}),  # not a page
            decision("extract", {"pages": [99]}),  # outside the document
            decision("extract", {"pages": [2]}),  # not a candidate
            decision("extract", {"pages": [3]}),
            "p. 3: Engineering 42\np. 3: Design 9",
            decision("extract", {"pages": [3]}),  # the same again, nothing changed
            decision("focus", {"page": 3}),
            "I would look at the numbers closely.",  # no plan
            "none",
            decision("solve", {"task": "difference"}),
            "",  # no code
            decision("solve", {"task": "read the password file"}),
            "result = open('/etc/passwd').read()\n```",  # refused by the sandbox
            decision("analyze", {"answer": "33"}),
            "maybe",  # no verdict
            decision("answer", {"answer": "33"}),
            "",  # no answer: the candidate stands
        ]
    )
    prediction = run(
        DocPilot(DocPilotOptions(max_steps=20, crops_dir=str(tmp_path))), acme, backend, STAFF
    )
    assert prediction.answer == "33"
    assert prediction.error == ""
    assert not backend.replies
    failures = summary_of(prediction)["failures"]
    assert failures == {
        "invalid_action": 2,
        "unavailable_action": 0,
        "bad_arguments": 4,
        "page_out_of_range": 2,
        "repeated_action": 1,
        "bad_reply": 5,
    }
    steps = prediction.trace[:-1]
    outputs = [step["output"] for step in steps]
    assert outputs[1] == (
        "error (invalid_action): there is no action 'jump'; the actions are "
        "navigate, extract, focus, solve, analyze, answer"
    )
    assert outputs[2] == "error (bad_arguments): the Arguments line must hold one JSON object"
    assert outputs[3] == (
        "candidate pages: 3 (new: 3); shown to the navigator: 4 of 6 pages; "
        "ignored pages outside the document: 9; ignored pages not shown: 5"
    )
    assert steps[3]["fallbacks"] == ["page_out_of_range", "bad_reply"]
    assert outputs[4] == (
        "error (bad_arguments): extract needs the argument 'pages'; write it as "
        'extract {"pages": [2, 5], "goal": "what to collect"}'
    )
    assert outputs[5] == "error (bad_arguments): extract: 'pages' must hold page numbers"
    assert outputs[6] == (
        "error (page_out_of_range): page 99 is outside the document, which has pages 1 to 6"
    )
    assert outputs[7].startswith("error (bad_arguments): extract: page 2 is not a candidate page")
    assert outputs[9].startswith("error (repeated_action): extract with these arguments")
    assert steps[10]["crops"][0]["box"] == [0, 0, 1000, 1000]  # the fallback plan
    assert steps[10]["fallbacks"] == ["bad_reply"]
    assert outputs[11] == "the solver wrote no code; nothing was run"
    assert "refused by the sandbox: open /etc/passwd" in outputs[12]
    assert "root:" not in outputs[12]
    assert outputs[13] == "grounded: unclear; coverage: unclear"
    assert outputs[14] == "final answer: 33"
    assert steps[14]["fallbacks"] == ["bad_reply"]


def test_bad_options_are_refused_with_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"cannot go without \['navigate'\]"):
        create_method({"type": "docpilot", "without": ["navigate"]})
    with pytest.raises(ValueError, match="max_steps"):
        DocPilot(DocPilotOptions(max_steps=0))
    with pytest.raises(ValueError, match="focus_zoom"):
        DocPilot(DocPilotOptions(focus_zoom=10))


def test_the_same_refused_call_again_is_a_loop(acme: DocumentEnv, tmp_path: Path) -> None:
    """What the embedded model does: it copies its refused call from the history."""
    wrong = decision("extract", {"answer": "Q3"})
    backend = ScriptedReplies([decision("navigate", {}), "4\nMore: no", wrong, wrong, wrong])
    prediction = run(
        DocPilot(DocPilotOptions(max_steps=4, max_refused=3, crops_dir=str(tmp_path))),
        acme,
        backend,
    )
    outputs = [step["output"] for step in prediction.trace[1:-1]]
    missing = (
        "extract needs the argument 'pages'; write it as "
        'extract {"pages": [2, 5], "goal": "what to collect"}'
    )
    assert outputs == [
        f"error (bad_arguments): {missing}",
        f"error (repeated_action): the same call was refused before: {missing}",
        f"error (repeated_action): the same call was refused before: {missing}",
    ]
    failures = summary_of(prediction)["failures"]
    assert failures["bad_arguments"] == 1
    assert failures["repeated_action"] == 2


def test_extract_reads_a_region_of_one_page(acme: DocumentEnv, tmp_path: Path) -> None:
    backend = ScriptedReplies(
        [
            decision("navigate", {}),
            "2, 3\nMore: no",
            decision("extract", {"pages": [3], "region": [0, 0, 1000, 2000]}),
            decision("extract", {"pages": [2, 3], "region": [0, 0, 1000, 250]}),
            decision("extract", {"pages": [3], "region": [0, 0, 1000, 250]}),
            "p. 3: Engineering 42",
        ]
    )
    prediction = run(
        DocPilot(DocPilotOptions(max_steps=4, count_refused=True, crops_dir=str(tmp_path))),
        acme,
        backend,
        STAFF,
    )
    outputs = [step["output"] for step in prediction.trace[1:-1]]
    assert outputs[0] == (
        "error (bad_arguments): extract: 'region' must be [x0, y0, x1, y1], each from 0 to 1000"
    )
    assert outputs[1] == "error (bad_arguments): extract: a region is read on one page at a time"
    reader = text_of(backend.requests[-1]).split("### Page 3 (region [0, 0, 1000, 250])\n")[1]
    assert "Engineering 42" in reader
    assert "Design 9" not in reader
    read = prediction.trace[3]
    assert read["input"] == {"pages": [3], "region": [0, 0, 1000, 250]}
    (crop,) = read["images"]
    assert Path(crop).parent.parent == tmp_path
    assert Path(crop).is_file()
    assert outputs[2] == "new evidence: [1] p. 3 (extract): Engineering 42"
