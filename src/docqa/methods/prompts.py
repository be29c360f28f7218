"""Prompts for reading page text with a base language model.

The embedded default is a base model, not an instruction-tuned one, so it is prompted few-shot:
a short instruction, three worked examples in the same layout as the real question, then the
real pages and question with ``A:`` left open. The examples are invented and share no content
with any dataset.
"""

from __future__ import annotations

INSTRUCTION = (
    "Answer each question from the page text. Give a short answer: a number, a name or a "
    "short phrase copied from the pages. If the pages do not contain the answer, answer "
    '"Not answerable".\n\n'
)

FEW_SHOT = (
    (
        ((3, "Quarterly Sales 2021\nQ1 120\nQ2 135\nQ3 128\nQ4 150"),),
        "What were the Q2 sales in 2021?",
        "135",
    ),
    (
        ((1, "Project Milestones\n2019 Prototype built\n2020 Field trials\n2022 Launch"),),
        "In which year was the launch?",
        "2022",
    ),
    (
        ((5, "Team Structure\nEngineering 42 people\nDesign 9 people"),),
        "Who is the chief financial officer?",
        "Not answerable",
    ),
)

STOP = ("\n",)


def format_pages(pages: tuple[tuple[int, str], ...] | list[tuple[int, str]]) -> str:
    """Pages as ``### Page N`` sections, N 1-based as a reader counts them."""
    if not pages:
        return "(no pages)\n"
    return "".join(f"### Page {index + 1}\n{text.strip()}\n" for index, text in pages)


def reading_preamble() -> str:
    """The instruction and the worked examples that come before the real pages."""
    examples = "".join(
        f"{format_pages(example_pages)}Q: {example_question}\nA: {example_answer}\n\n"
        for example_pages, example_question, example_answer in FEW_SHOT
    )
    return INSTRUCTION + examples


def reading_prompt(pages: list[tuple[int, str]], question: str) -> str:
    return f"{reading_preamble()}{format_pages(pages)}Q: {question.strip()}\nA:"
