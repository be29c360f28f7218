"""MDocAgent's prompts: the paper's (appendix "Prompt Settings") or the released code's.

``prompts: paper`` (the default) sends the constants below. Their wording is the paper's; the
way the prompts are put together is the original code's: the general, text and image agents'
prompts end with ``Question:`` and the question follows straight after; the text and image
agents get the critical agent's clue appended to the question after :data:`CLUE_INTRO`; the
summarizer gets its prompt followed by the agents' answers, each under an ``<Name> Agent:``
heading. The paper typesets the JSON examples with curly quotes; here they are straight
quotes, so the example is the valid JSON the parser expects.

``prompts: code`` sends the released code's prompts instead (aiming-lab/MDocAgent df34e4c,
``config/agent/*.yaml`` as Hydra loads them), stored byte for byte in
``prompt_files/mdocagent_<agent>.txt``. They differ from the paper's paraphrase in wording (the
general prompt's "using OCR" and closing sentence, the critical prompt's "2 keypoints", the text
and image prompts' "Remeber you can only get the information from ..."), in layout (the general
prompt ends with a line break after ``Question:``; the summarizer prompt has no final line
break, so ``General Agent:`` follows on its line) and in one piece of assembly: the general
agent's text turn sends each page text as a bare part (``page_text_end`` is empty), as
``models/qwen.py`` builds its content list. The original never shows the summarizer the
question; when docqa's ``summarizer_sees_question`` does under the code's prompts, a line break
separates it from the prompt (which has none of its own).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal, get_args

GENERAL = (
    "You are an advanced agent capable of analyzing both text and images. Your task is to use "
    "both the textual and visual information provided to answer the user's question accurately.\n"
    "Extract Text from Both Sources: If the image contains text, extract it and consider both the "
    "text in the image and the provided textual content.\n"
    "Analyze Visual and Textual Information: Combine details from both the image (e.g., objects, "
    "scenes, or patterns) and the text to build a comprehensive understanding of the content.\n"
    "Provide a Combined Answer: Use the relevant details from both the image and the text to "
    "provide a clear, accurate, and context-aware response to the user's question.\n"
    "When responding:\n"
    "- If both the image and text contain similar or overlapping information, cross-check and use "
    "both to ensure consistency.\n"
    "- If the image contains information not present in the text, include it in your response if "
    "it is relevant to the question.\n"
    "- If the text and image offer conflicting details, explain the discrepancies and clarify the "
    "most reliable source.\n"
    "Question: "
)

CRITICAL = (
    "Provide a Python dictionary of critical information based on all given information - one "
    "for text and one for image. Respond exclusively in a valid dictionary format without any "
    'additional text. The format should be: {"text": "critical information for text", '
    '"image": "critical information for image"}'
)

TEXT = (
    "You are a text analysis agent. Your job is to extract key information from the text and use "
    "it to answer the user's question accurately. Your tasks:\n"
    "- Extract key details. Focus on the most important facts, data, or ideas related to the "
    "question.\n"
    "- Understand the context and pay attention to the meaning and details.\n"
    "- Use the extracted information to give a concise and relevant response to the user's "
    "question. Provide a clear answer.\n"
    "Question: "
)

IMAGE = (
    "You are an advanced image processing agent specialized in analyzing and extracting "
    "information from images. The images may include document screenshots, illustrations, or "
    "photographs. Your tasks:\n"
    "- Extract textual information from images using Optical Character Recognition (OCR).\n"
    "- Analyze visual content to identify relevant details (e.g., objects, patterns, scenes).\n"
    "- Combine textual and visual information to provide an accurate and context-aware answer to "
    "the user's question.\n"
    "Question: "
)

SUMMARIZER = (
    "You are tasked with summarizing and evaluating the collective responses provided by "
    "multiple agents. You have access to the following information:\n"
    "- Answers: The individual answers from all agents.\n"
    "Your tasks:\n"
    "- Analyze: Evaluate the quality, consistency, and relevance of each answer. Identify "
    "commonalities, discrepancies, or gaps in reasoning.\n"
    "- Synthesize: Summarize the most accurate and reliable information based on the evidence "
    "provided by the agents and their discussions.\n"
    "- Conclude: Provide a final, well-reasoned answer to the question or task. Your conclusion "
    "should reflect the consensus (if one exists) or the most credible and well-supported answer.\n"
    'Return the final answer in the following dictionary format: {"Answer": Your final answer '
    "here}\n"
)

#: put between the question and the critical agent's clue for the text and image agents
CLUE_INTRO = "\nYou may use the given clue:\n"

#: how the summarizer sees the question when ``summarizer_sees_question`` is on (the original
#: never shows it the question)
SUMMARIZER_QUESTION = "Question: {question}\n"

#: the heading of each agent's answer in the summarizer's input
ANSWER_HEADING = "{name} Agent:\n{answer}\n"


#: the prompt styles of the ``prompts`` option
PromptStyle = Literal["paper", "code"]
STYLES: tuple[str, ...] = get_args(PromptStyle)

#: where the released code's prompt texts are stored (see ``SOURCES.md`` there)
FILES = Path(__file__).resolve().parent.parent / "prompt_files"


@dataclass(frozen=True)
class PromptSet:
    """The five agents' prompts, and what ends each page text of the general agent's text
    turn."""

    general: str
    critical: str
    text: str
    image: str
    summarizer: str
    page_text_end: str


PAPER = PromptSet(GENERAL, CRITICAL, TEXT, IMAGE, SUMMARIZER, page_text_end="\n")


@cache
def prompt_set(style: str) -> PromptSet:
    """The prompts of ``style`` (``paper`` or ``code``)."""
    if style == "paper":
        return PAPER
    if style != "code":
        raise ValueError(f"mdocagent prompts {style!r} is not one of {STYLES}")
    agents = ("general", "critical", "text", "image", "summarizer")
    texts = {a: (FILES / f"mdocagent_{a}.txt").read_bytes().decode("utf-8") for a in agents}
    return PromptSet(**texts, page_text_end="")
