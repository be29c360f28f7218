"""The prompts of the orchestrator and of the six modules.

DocPilot's prompts are not public; these follow the roles its paper describes (Appendix F):
the navigator favours recall on new pages, may revisit candidates and asks for more pages when
the evidence seems elsewhere, and picks only pages it was shown; the extractor keeps actionable
evidence across modalities; the focus planner plans crops, zooms and subfigure splits and does
not answer; the solver writes deterministic Python over the supplied evidence; Analyze checks
grounding and search coverage; the answer agent answers concisely from the evidence with a
fallback rule. Each prompt carries one short invented example in the same layout as the real
request, so that base models (the embedded default is one) can follow it too. Pages are
numbered from 1 wherever a model reads or writes them.
"""

from __future__ import annotations

import json
from typing import Any

from docqa.core.question import UNANSWERABLE
from docqa.methods.docpilot.actions import SPECS

ORCHESTRATOR = (
    "You are DocPilot. You answer a question about a document by taking one action at a time "
    "and reading what it returns.\n"
    "Actions (arguments are JSON; pages are numbered from 1):\n{actions}\n"
    "Only the actions listed as available at a step can be taken. Reply with three lines: "
    "Thought, Action and Arguments.\n\n"
)

#: the example trajectory: (available actions, thought, action, arguments, observation)
EXAMPLE_QUESTION = "How many more staff did Engineering have than Design?"
EXAMPLE_PAGES = 9
EXAMPLE_STEPS: tuple[tuple[tuple[str, ...], str, str, dict[str, Any], str], ...] = (
    (
        ("navigate",),
        "I need the page about staff numbers.",
        "navigate",
        {"query": "staff by team"},
        "candidate pages: 4 (new: 4); shown to the navigator: 9 of 9 pages",
    ),
    (
        ("extract",),
        "Page 4 should list the teams.",
        "extract",
        {"pages": [4], "goal": "staff of Engineering and Design"},
        "new evidence: [1] p. 4 (extract): Engineering 42 people; "
        "[2] p. 4 (extract): Design 9 people",
    ),
    (
        ("extract", "focus", "solve", "analyze"),
        "I compute the difference.",
        "solve",
        {"task": "Engineering staff minus Design staff"},
        "result = 33; new evidence: [3]",
    ),
    (
        ("extract", "focus", "solve", "analyze"),
        "33 is my candidate answer; I check it.",
        "analyze",
        {"answer": "33"},
        "grounded: yes; coverage: sufficient",
    ),
    (
        ("extract", "focus", "solve", "analyze", "answer"),
        "33 answers the question.",
        "answer",
        {"answer": "33"},
        "",
    ),
)


def step_text(
    number: int,
    available: list[str] | tuple[str, ...],
    thought: str,
    action: str,
    arguments: Any,
    observation: str,
) -> str:
    """One step of a trajectory as the orchestrator reads it."""
    text = (
        f"Step {number}. Available: {', '.join(available)}\n"
        f"Thought: {thought}\nAction: {action}\n"
        f"Arguments: {json.dumps(arguments, ensure_ascii=False)}\n"
    )
    return text + (f"Observation: {observation}\n" if observation else "")


def orchestrator_header(enabled: tuple[str, ...]) -> str:
    """The instructions and the example trajectory for this set of actions (an ablation's
    example leaves its missing actions out)."""
    actions = "\n".join(f"- {SPECS[name].usage}" for name in SPECS if name in enabled)
    steps = []
    for available, thought, action, arguments, observation in EXAMPLE_STEPS:
        if action not in enabled:
            continue
        shown = [
            "answer" if name == "analyze" and "analyze" not in enabled else name
            for name in available
            if name in enabled or name == "analyze"
        ]
        steps.append((list(dict.fromkeys(shown)), thought, action, arguments, observation))
    example = "".join(step_text(n, *step) for n, step in enumerate(steps, start=1))
    return (
        ORCHESTRATOR.format(actions=actions)
        + f"Example\nQuestion: {EXAMPLE_QUESTION}\nDocument: {EXAMPLE_PAGES} pages.\n{example}\n"
    )


def orchestrator_prompt(
    header: str,
    question: str,
    num_pages: int,
    history: list[str],
    state: str,
    step: int,
    max_steps: int,
    available: list[str],
) -> str:
    return (
        f"{header}Question: {question.strip()}\nDocument: {num_pages} pages.\n"
        + "".join(history)
        + f"{state}\nStep {step} of {max_steps}. Available: {', '.join(available)}\nThought:"
    )


ORCHESTRATOR_STOP = ("\nObservation", "\nStep ", "\nQuestion:")

NAVIGATOR = (
    "Pick the pages that may hold evidence for the question. Favour pages not picked before; "
    "you may pick earlier candidates again. Pick only pages shown here. Reply with two lines: "
    '"Pages:" with the page numbers (or none), and "More: yes" if the evidence is likely on '
    'pages not shown yet, else "More: no".\n\n'
    "Example\nQuestion: What were the Q2 sales?\nLooking for: quarterly sales\n"
    "p. 1: Annual report 2021\np. 2: Quarterly sales Q1 120 Q2 135\np. 3: Team structure\n"
    "Pages: 2\nMore: no\n\n"
)
NAVIGATOR_STOP = ("\n\n", "\nQuestion:", "\nExample")

EXTRACTOR = (
    "Collect the evidence these pages hold for the question: facts, numbers, table cells, chart "
    'values and captions, copied exactly. Write one fact per line as "p. N: fact". If the pages '
    'hold nothing useful, write "none".\n\n'
    "Example\n### Page 4\nTeam Structure\nEngineering 42 people\nDesign 9 people\n"
    f"Question: {EXAMPLE_QUESTION}\nGoal: staff of Engineering and Design\n"
    "Facts:\np. 4: Engineering 42 people\np. 4: Design 9 people\n\n"
)
FACTS_STOP = ("\n\n", "\n###", "\nQuestion:", "\nExample")

FOCUS_PLANNER = (
    "Plan visual operations that show a region of the page closely, for the goal; do not answer "
    "the question. Boxes are [x0, y0, x1, y1] in thousandths of the page width and height. "
    'Operations: {{"op": "crop", "box": [...]}}, {{"op": "zoom", "box": [...], "factor": 3}} and '
    '{{"op": "split", "box": [...], "rows": 2, "cols": 2}} (subfigures). Reply with a JSON list of '
    "at most {max_ops} operations.\n\n"
    "Example\nPage 6, its text lines with their boxes:\n"
    "[80, 40, 600, 90] Sales by year\n[120, 700, 300, 740] 2020 2021\n"
    "Goal: the value of the 2021 bar\n"
    'Operations: [{{"op": "zoom", "box": [100, 100, 500, 760], "factor": 2}}]\n\n'
)
FOCUS_STOP = ("\n\n", "\nGoal:", "\nExample")

FOCUS_READER = (
    "These crops show parts of a page closely. Collect the evidence they hold for the goal: "
    'numbers, labels and values, copied exactly. Write one fact per line as "p. N: fact". If '
    'they hold nothing useful, write "none".\n\n'
    "Example\n### Crop 1 of page 6 (zoom)\n2020 2021\n118 135\n"
    "Question: What were the sales in 2021?\nGoal: the value of the 2021 bar\n"
    "Facts:\np. 6: 2021 sales 135\n\n"
)

SOLVER = (
    "Write deterministic Python that computes the task from the evidence. The variable "
    '`evidence` is a list of items {{"id", "page", "source", "content"}}. Use only the '
    "standard library (math, statistics, decimal, fractions, re, json, datetime). Put the "
    "answer in a variable named `result`. Do not read files or use the network.\n\n"
    "Example\nTask: Engineering staff minus Design staff\nEvidence:\n"
    '[{{"id": 1, "page": 4, "source": "extract", "content": "Engineering 42 people"}}, '
    '{{"id": 2, "page": 4, "source": "extract", "content": "Design 9 people"}}]\n'
    "```python\nresult = 42 - 9\n```\n\n"
    "Task: {task}\nEvidence:\n{evidence}\n```python\n"
)
SOLVER_STOP = ("```",)

ANALYZER = (
    "Check a candidate answer before it is given. Grounded: does the evidence support it? "
    "Coverage: did the search look at enough of the document to trust it (for example every "
    "page that a list or a total needs)? Reply with three lines: Grounded (yes or no), "
    "Coverage (sufficient or insufficient) and Advice (what to do next).\n\n"
    "Example\nQuestion: What were the Q2 sales?\nCandidate answer: 135\n"
    "Evidence:\n[1] p. 2 (extract): Q2 sales 135\n"
    "Search: 12 of 12 pages shown to the navigator; candidates: 2; read: 2.\n"
    "Grounded: yes\nCoverage: sufficient\nAdvice: answer 135.\n\n"
)
ANALYZER_STOP = ("\n\n", "\nQuestion:", "\nExample")

ANSWERER = (
    "Give the final answer to the question from the evidence: a number, a name or a short "
    "phrase copied from it, without explanation. Use a computed result when one answers the "
    f'question. If the evidence does not answer the question, answer "{UNANSWERABLE}".\n\n'
    f"Example\nQuestion: {EXAMPLE_QUESTION}\n"
    "Evidence:\n[1] p. 4 (extract): Engineering 42 people\n[2] p. 4 (extract): Design 9 people\n"
    "[3] computed (solve): Engineering staff minus Design staff = 33\n"
    "Candidate answer: 33\nCheck: grounded: yes; coverage: sufficient\nAnswer: 33\n\n"
)
ANSWER_STOP = ("\n",)


def evidence_block(lines: list[str]) -> str:
    return "Evidence:\n" + ("\n".join(lines) if lines else "(none yet)") + "\n"
