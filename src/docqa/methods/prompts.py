"""Prompts for reading page text with a base language model.

The embedded default is a base model, not an instruction-tuned one, so it is prompted few-shot:
a short instruction, three worked examples in the same layout as the real question, then the
real pages and question with ``A:`` left open. The examples are invented and share no content
with any dataset.
"""

from __future__ import annotations

INSTRUCTION = (
    "Answer each question from the page text. Give a short answer: a number, a name or a "
    "short phrase copied from the pages."
)
#: the escape the instruction offers, and its worked example (FEW_SHOT's last), unless a
#: method's ``not_answerable`` option is off
ESCAPE = ' If the pages do not contain the answer, answer "Not answerable".'

FEW_SHOT = (
    (
        (("4", "Quarterly Sales 2021\nQ1 120\nQ2 135\nQ3 128\nQ4 150"),),
        "What were the Q2 sales in 2021?",
        "135",
    ),
    (
        (("2", "Project Milestones\n2019 Prototype built\n2020 Field trials\n2022 Launch"),),
        "In which year was the launch?",
        "2022",
    ),
    (
        (("6", "Team Structure\nEngineering 42 people\nDesign 9 people"),),
        "Who is the chief financial officer?",
        "Not answerable",
    ),
)

STOP = ("\n",)


def format_pages(pages: tuple[tuple[str, str], ...] | list[tuple[str, str]]) -> str:
    """Pages ``(label, text)`` as ``### Page <label>`` sections; the label is the page as the
    environment names it (``DocumentEnv.page_label``: 1-based, ``D2:3`` in a set)."""
    if not pages:
        return "(no pages)\n"
    return "".join(f"### Page {label}\n{text.strip()}\n" for label, text in pages)


def reading_preamble(not_answerable: bool = True) -> str:
    """The instruction and the worked examples that come before the real pages; without
    ``not_answerable``, neither offers the "Not answerable" escape."""
    shots = FEW_SHOT if not_answerable else FEW_SHOT[:-1]
    examples = "".join(
        f"{format_pages(example_pages)}Q: {example_question}\nA: {example_answer}\n\n"
        for example_pages, example_question, example_answer in shots
    )
    return INSTRUCTION + (ESCAPE if not_answerable else "") + "\n\n" + examples


def reading_prompt(pages: list[tuple[str, str]], question: str, not_answerable: bool = True) -> str:
    preamble = reading_preamble(not_answerable)
    return f"{preamble}{format_pages(pages)}Q: {question.strip()}\nA:"
