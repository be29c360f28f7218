"""The prompts of the orchestrator and of the six modules.

DocPilot's prompts are not public; these follow the roles its paper describes (Appendix F):
the navigator favours recall on new pages, may revisit candidates and asks for more pages when
the evidence seems elsewhere, and picks only pages it was shown; the extractor keeps actionable
evidence across modalities; the focus planner plans crops, zooms and subfigure splits and does
not answer; the solver writes deterministic Python over the supplied evidence; Analyze checks
grounding and search coverage; the answer agent answers concisely from the evidence with a
fallback rule. Each prompt carries one short invented example in the same layout as the real
request, so that base models (the embedded default is one) can follow it too. Pages are
numbered from 1 wherever a model reads or writes them; over a set of documents each page is
written with its document (``D2:3``: page 3 of the second document), and every prompt has a
variant for a set (``for_pages``) whose instructions and example say so. A set's variant
changes only what names pages: its first 40 characters, which tell the roles apart
(``docqa.training.teacher``), are the one-document prompt's.
"""

from __future__ import annotations

import json
from typing import Any

from docqa.core.question import UNANSWERABLE
from docqa.methods.base import DocumentEnv
from docqa.methods.docpilot import labels
from docqa.methods.docpilot.actions import SPECS
from docqa.methods.document_set import legend

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


#: the documents of the example over a set (its pages: D1's 9 and D2's 5)
EXAMPLE_LEGEND = "D1: staff-report (9 pages)\nD2: budget-2023 (5 pages)\n"
#: what changes in the example's texts over a set: page 4 is D1:4
_EXAMPLE_SET_TEXTS = {
    "candidate pages: 4 (new: 4); shown to the navigator: 9 of 9 pages": (
        "candidate pages: D1:4 (new: D1:4); shown to the navigator: 14 of 14 pages"
    ),
    "Page 4 should": "Page D1:4 should",
    "p. 4 (extract)": "p. D1:4 (extract)",
}


def example_steps(
    several: bool,
) -> tuple[tuple[tuple[str, ...], str, str, dict[str, Any], str], ...]:
    """The example trajectory, for one document or over a set (pages written ``D1:4``)."""
    if not several:
        return EXAMPLE_STEPS

    def relabel(text: str) -> str:
        for old, new in _EXAMPLE_SET_TEXTS.items():
            text = text.replace(old, new)
        return text

    return tuple(
        (
            available,
            relabel(thought),
            action,
            {key: ["D1:4"] if key == "pages" else value for key, value in arguments.items()},
            relabel(observation),
        )
        for available, thought, action, arguments, observation in EXAMPLE_STEPS
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


def orchestrator_header(enabled: tuple[str, ...], several: bool = False) -> str:
    """The instructions and the example trajectory for this set of actions (an ablation's
    example leaves its missing actions out); ``several``: for a question over a set of
    documents (pages written ``D2:3``)."""
    actions = "\n".join(f"- {SPECS[name].usage_for(several)}" for name in SPECS if name in enabled)
    steps = []
    for available, thought, action, arguments, observation in example_steps(several):
        if action not in enabled:
            continue
        shown = [
            "answer" if name == "analyze" and "analyze" not in enabled else name
            for name in available
            if name in enabled or name == "analyze"
        ]
        steps.append((list(dict.fromkeys(shown)), thought, action, arguments, observation))
    example = "".join(step_text(n, *step) for n, step in enumerate(steps, start=1))
    documents = (
        _documents_text(EXAMPLE_LEGEND) if several else f"Document: {EXAMPLE_PAGES} pages.\n"
    )
    opening = ORCHESTRATOR_SET if several else ORCHESTRATOR
    return (
        opening.format(actions=actions)
        + f"Example\nQuestion: {EXAMPLE_QUESTION}\n{documents}{example}\n"
    )


def documents_text(env: DocumentEnv) -> str:
    """What the orchestrator is reading: ``Document: 12 pages.``, or a set's documents (their
    labels, ids and pages) and how its pages are written."""
    if not env.is_set:
        return f"Document: {len(env.pages)} pages.\n"
    return _documents_text(legend(env))


def _documents_text(listed: str) -> str:
    return (
        f"Documents:\n{listed}Pages are written D<document>:<page> (D2:3 is page 3 of D2), "
        "each document's pages numbered from 1.\n"
    )


def orchestrator_prompt(
    header: str,
    question: str,
    documents: str,
    history: list[str],
    state: str,
    step: int,
    max_steps: int,
    available: list[str],
) -> str:
    """``documents``: what the orchestrator is reading (``documents_text``)."""
    return (
        f"{header}Question: {question.strip()}\n{documents}"
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


def _relabel(prompt: str, changes: dict[str, str]) -> str:
    """``prompt`` with each of ``changes`` made (every text it names must be there)."""
    for old, new in changes.items():
        if old not in prompt:
            raise ValueError(f"the prompt has no {old!r} to change for a set of documents")
        prompt = prompt.replace(old, new)
    return prompt


_SET_FACTS = 'as "p. D<document>:<page>: fact"'
ORCHESTRATOR_SET = _relabel(
    ORCHESTRATOR,
    {
        "about a document": "about a set of documents",
        "pages are numbered from 1": labels.numbering(several=True),
    },
)
#: each module prompt → its variant over a set of documents
SET_PROMPTS = {
    NAVIGATOR: _relabel(
        NAVIGATOR,
        {
            '"Pages:" with the page numbers (or none)': (
                '"Pages:" with the pages, each written D<document>:<page> (or none)'
            ),
            "p. 1: Annual report 2021\np. 2: Quarterly sales Q1 120 Q2 135\np. 3: Team structure\n"
            "Pages: 2\n": "p. D1:1: Annual report 2021\np. D1:2: Quarterly sales Q1 120 Q2 135\n"
            "p. D2:1: Team structure\nPages: D1:2\n",
        },
    ),
    EXTRACTOR: _relabel(
        EXTRACTOR,
        {
            'as "p. N: fact"': _SET_FACTS,
            "### Page 4\n": "### Page D1:4\n",
            "p. 4: Engineering": "p. D1:4: Engineering",
            "p. 4: Design": "p. D1:4: Design",
        },
    ),
    FOCUS_PLANNER: _relabel(FOCUS_PLANNER, {"Page 6, its": "Page D1:6, its"}),
    FOCUS_READER: _relabel(
        FOCUS_READER,
        {
            'as "p. N: fact"': _SET_FACTS,
            "of page 6 (zoom)": "of page D1:6 (zoom)",
            "p. 6: 2021": "p. D1:6: 2021",
        },
    ),
    SOLVER: _relabel(SOLVER, {'"page": 4,': '"page": "D1:4",'}),
    ANALYZER: _relabel(
        ANALYZER,
        {
            "enough of the document ": "enough of the documents ",
            "[1] p. 2 (extract)": "[1] p. D1:2 (extract)",
            "candidates: 2; read: 2.": "candidates: D1:2; read: D1:2.",
        },
    ),
    ANSWERER: _relabel(ANSWERER, {"p. 4 (extract)": "p. D1:4 (extract)"}),
}


def for_pages(prompt: str, env: DocumentEnv) -> str:
    """A module's prompt as ``env`` names its pages: the prompt itself for one document, its
    set variant (``SET_PROMPTS``) over several."""
    return SET_PROMPTS[prompt] if env.is_set else prompt
