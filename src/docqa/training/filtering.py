"""Quality control of synthesized trajectories (paper appendix C), every drop counted by reason.

A **trajectory** (one question's run; its orchestrator calls are stage 2's data, with its
ability calls) is kept only if, checked in this order (the first failure is its reason):

``run_error`` the run failed; ``malformed_step`` a step lacks its fields, a call is not one of
DocPilot's prompts, or there is no summary; ``refused_action`` the environment refused a call
(invalid, unavailable, bad arguments, page out of range, repeated); ``bad_ability_output`` an
ability's reply was unusable and replaced by a fallback; ``repeated_loop`` the same call
(action and arguments) ran twice; ``missing_image`` an image a call showed is gone;
``no_answer`` the run never answered (step limit); ``wrong_answer`` the answer scores below
``min_score`` by the dataset's metric; ``ungrounded`` the pages read do not cover the gold
evidence pages; ``solve_mismatch`` a Solve program, re-run in the sandbox on the evidence its
prompt held, does not give the recorded result; ``too_long`` a call's prompt and reply exceed
the stage's token cap.

A **single-ability trace** (one ability call) is kept if its run was well-formed (no
``run_error``, ``malformed_step``, ``missing_image``) and the call itself passes its ability's
check against the reference: ``answer`` gives a correct answer; ``navigate`` picks only pages
it was shown and every gold page among them (``missed_evidence``); ``extract`` and
``focus_read`` state facts from each gold page they read (``missed_evidence``) and none from
pages they did not read (``ungrounded``); ``solve`` code runs without error in the sandbox
(``solve_failed``); ``analyze`` says grounded yes or no (``malformed_step``); and it fits the
single-ability token cap (``too_long``). ``focus_plan`` calls are kept when the run kept its
trajectory (their output is checked only by the crops it made).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from docqa.core.jsonl import read_jsonl
from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.methods.docpilot.actions import BAD_REPLY, FAILURE_KINDS
from docqa.methods.docpilot.parsing import code_block, parse_facts, parse_navigation
from docqa.metrics import METRICS, resolve_options
from docqa.sandbox import SandboxLimits, run_python
from docqa.training.teacher import ABILITY_ROLES, request_from_dict

STEP_FIELDS = ("action", "thought", "input", "reply", "output", "fallbacks")
REFUSALS = tuple(kind for kind in FAILURE_KINDS if kind != BAD_REPLY)
TOKEN_CAPS = {"single": 8192, "multi": 20480}  # the paper's text-token caps per stage

Counter_ = Callable[[dict[str, Any]], int]


class Checker:
    """The checks, with the dataset's metric and the student's token counter."""

    def __init__(
        self,
        metric: str,
        metric_options: dict[str, Any],
        count_tokens: Counter_,
        caps: dict[str, int] | None = None,
        min_score: float = 1.0,
        limits: SandboxLimits | None = None,
    ) -> None:
        self.scorer = METRICS.get(metric)
        self.options = resolve_options(metric, metric_options)
        if self.scorer.uses_model(self.options):
            raise ValueError(
                f"filter_trajectories: metric {metric!r} is configured with a judge model; "
                "filtering scores answers without a model: give the training dataset a metric "
                "without one"
            )
        self.count_tokens = count_tokens
        self.caps = {**TOKEN_CAPS, **(caps or {})}
        self.min_score = min_score
        self.limits = limits or SandboxLimits()

    def correct(self, question: Question, answer: str) -> bool:
        prediction = Prediction(question.question_id, answer)
        score = self.scorer.score(question, prediction, {}, self.options)[self.scorer.row_score]
        return score is not None and score >= self.min_score

    def trajectory(self, row: dict[str, Any]) -> str | None:
        """The reason to drop a trajectory, or None to keep it."""
        question = Question.from_dict(row["question"])
        prediction = row["prediction"]
        if prediction.get("error"):
            return "run_error"
        trace = prediction.get("trace") or []
        steps, summary = trace[:-1], trace[-1] if trace else {}
        if summary.get("step") != "summary" or self.malformed(row, steps):
            return "malformed_step"
        fallbacks = [kind for step in steps for kind in step["fallbacks"]]
        if any(kind in REFUSALS for kind in fallbacks):
            return "refused_action"
        if BAD_REPLY in fallbacks:
            return "bad_ability_output"
        calls = [(step["action"], json.dumps(step["input"], sort_keys=True)) for step in steps]
        if len(set(calls)) < len(calls):
            return "repeated_loop"
        if missing_images(row["calls"]):
            return "missing_image"
        if summary.get("stop") != "answer":
            return "no_answer"
        if not self.correct(question, prediction["answer"]):
            return "wrong_answer"
        if (summary.get("evidence_recall") or 0.0) < 1.0:
            return "ungrounded"
        if any(self.solve_differs(call, step) for call, step in solve_pairs(row, steps)):
            return "solve_mismatch"
        if any(self.count_tokens(call) > self.caps["multi"] for call in row["calls"]):
            return "too_long"
        return None

    def malformed(self, row: dict[str, Any], steps: list[dict[str, Any]]) -> bool:
        if not steps or any(any(key not in step for key in STEP_FIELDS) for step in steps):
            return True
        if any(call.get("role") not in ("orchestrator", *ABILITY_ROLES) for call in row["calls"]):
            return True
        return any(step["action"] == "invalid" for step in steps)

    def solve_differs(self, call: dict[str, Any], step: dict[str, Any]) -> bool:
        code = step.get("code")
        if not code:
            return False
        outcome = run_python(code, solver_inputs(call), self.limits)
        return not step["output"].startswith(outcome.describe())

    def ability(self, row: dict[str, Any], call: dict[str, Any]) -> str | None:
        """The reason to drop one ability call (a single-ability trace), or None to keep it."""
        question = Question.from_dict(row["question"])
        gold = {page + 1 for _, page in question.evidence}
        role, reply = call["role"], call["reply"]
        prompt = "".join(
            p["text"]
            for m in call["request"]["messages"]
            for p in m["parts"]
            if p["kind"] == "text"
        )
        if missing_images([call]):
            return "missing_image"
        if role == "answer" and not self.correct(question, reply.strip()):
            return "wrong_answer"
        if role == "navigate":
            picked, _ = parse_navigation(reply)
            shown = shown_pages(call)
            if picked is None or not set(picked) <= shown | listed_candidates(prompt):
                return "malformed_step" if picked is None else "ungrounded"
            if not (gold & shown) <= set(picked):
                return "missed_evidence"
        if role in ("extract", "focus_read"):
            read = {int(n) for n in re.findall(r"(?m)^### (?:Page|Crop \d+ of page) (\d+)", prompt)}
            facts = parse_facts(reply, 50, 10_000)
            pages = {page for page, _ in facts if page is not None}
            if not pages <= read:
                return "ungrounded"
            if not (gold & read) <= pages:
                return "missed_evidence"
        if role == "solve":
            outcome = run_python(code_block(reply), solver_inputs(call), self.limits)
            if not outcome.ok:
                return "solve_failed"
        if role == "analyze" and not re.match(r"\s*(yes|no)\b", reply, re.IGNORECASE):
            return "malformed_step"
        if self.count_tokens(call) > self.caps["single"]:
            return "too_long"
        return None


def shown_pages(call: dict[str, Any]) -> set[int]:
    """The pages a navigator call listed (``p. N:`` lines of its page parts)."""
    texts = [
        p["text"] for m in call["request"]["messages"] for p in m["parts"] if p["kind"] == "image"
    ]
    return {int(n) for text in texts for n in re.findall(r"(?m)^p\. (\d+):", text)}


def listed_candidates(prompt: str) -> set[int]:
    found = re.findall(r"Candidates so far: ([\d, ]+)", prompt)
    return {int(n) for listed in found for n in re.findall(r"\d+", listed)}


def solver_inputs(call: dict[str, Any]) -> Any:
    """The evidence a solver prompt held (the JSON list after its last ``Evidence:``)."""
    request = request_from_dict(call["request"])
    text = request.messages[-1].text
    return json.loads(text.rsplit("Evidence:\n", 1)[1].rsplit("\n```python", 1)[0])


def solve_pairs(
    row: dict[str, Any], steps: list[dict[str, Any]]
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each executed solve step with the solver call it made, in order."""
    solver_calls = [call for call in row["calls"] if call["role"] == "solve"]
    solve_steps = [step for step in steps if step["action"] == "solve" and "code" in step]
    return list(zip(solver_calls, solve_steps, strict=False))


def missing_images(calls: list[dict[str, Any]]) -> list[str]:
    return [
        part["image"]
        for call in calls
        for message in call["request"]["messages"]
        for part in message["parts"]
        if part["kind"] == "image" and not Path(part["image"]).is_file()
    ]


def filter_trajectories(
    trajectories: Path | list[tuple[Path, Checker]],
    checker: Checker | None,
    multi_out: Path,
    single_out: Path,
    report_out: Path,
) -> dict[str, Any]:
    """Write the kept trajectories (``multi_out``, whole rows) and the kept single-ability
    traces (``single_out``, one call per row with its question); the report counts every
    drop by reason and lists each dropped item. ``trajectories`` is one file (checked by
    ``checker``) or several, each with the checker of its dataset's metric."""
    if isinstance(trajectories, Path):
        if checker is None:
            raise ValueError("filter_trajectories: one trajectories file needs its checker")
        trajectories = [(trajectories, checker)]
    kept = {"multi": 0, "single": 0}
    reasons: dict[str, Counter[str]] = {"multi": Counter(), "single": Counter()}
    dropped: list[dict[str, str]] = []
    fatal = {"run_error", "malformed_step", "missing_image"}
    multi_out.parent.mkdir(parents=True, exist_ok=True)
    with multi_out.open("w") as multi, single_out.open("w") as single:
        for path, check in trajectories:
            for row in read_jsonl(path):
                qid = row["question"]["question_id"]
                reason = check.trajectory(row)
                if reason is None:
                    multi.write(json.dumps(row, ensure_ascii=False) + "\n")
                    kept["multi"] += 1
                else:
                    reasons["multi"][reason] += 1
                    dropped.append({"question_id": qid, "kind": "multi", "reason": reason})
                for index, call in enumerate(row["calls"]):
                    if call["role"] not in ABILITY_ROLES:
                        continue
                    why = reason if reason in fatal else check.ability(row, call)
                    if why is None and call["role"] == "focus_plan" and reason is not None:
                        why = f"trajectory_{reason}"
                    if why is None:
                        trace = {"question": row["question"], "call": call, "index": index}
                        single.write(json.dumps(trace, ensure_ascii=False) + "\n")
                        kept["single"] += 1
                    else:
                        reasons["single"][why] += 1
                        dropped.append(
                            {
                                "question_id": qid,
                                "kind": f"single:{call['role']}:{index}",
                                "reason": why,
                            }
                        )
    report: dict[str, Any] = {
        stage: {"kept": kept[stage], "dropped": dict(sorted(reasons[stage].items()))}
        for stage in kept
    }
    report["caps"] = trajectories[0][1].caps if trajectories else {}
    report["dropped_items"] = dropped
    report_out.write_text(json.dumps(report, indent=2) + "\n")
    return report
