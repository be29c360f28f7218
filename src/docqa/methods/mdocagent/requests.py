"""What each MDocAgent agent receives, laid out as the original code lays out its messages.

* General agent: two user turns, each ending with the general prompt and the question: the
  retrieved page texts, then the retrieved page images.
* Critical agent: the general agent's conversation (both turns and its reply) continued by the
  critical prompt alone.
* Text agent: one user turn, the page texts one per line, a blank line, the text prompt and the
  question (with the clue).
* Image agent: one user turn, the page images then the image prompt and the question (with the
  clue).
* Summarizer: one user turn, its prompt then the agents' answers; no question, no pages (unless
  ``summarizer_sees_question``).

Page texts are the pages' OCR text with line breaks made spaces, as the original flattens its
PDF text; each text part ends with a line break so that a backend that joins parts does not run
one page into the next. An image part carries its page's OCR text for text-only backends (a
page without any gets :data:`NO_OCR_TEXT`, so a text-only model reads that instead of failing).
"""

from __future__ import annotations

from collections.abc import Sequence

from docqa.backends.request import ChatRequest, Generation, Message, Part
from docqa.methods.mdocagent import prompts

NO_OCR_TEXT = "(no text was found on this page)"


def flatten_page_text(text: str, max_chars: int) -> str:
    """A page's text on one line, cut to ``max_chars`` characters."""
    return text.replace("\r\n", " ").replace("\r", " ").replace("\n", " ")[:max_chars]


def page_image(path: str, ocr_text: str) -> Part:
    return Part.of_image(path, ocr_text if ocr_text.strip() else NO_OCR_TEXT)


def with_clue(question: str, clue: str) -> str:
    """The question as the text and image agents get it after the critical agent ran."""
    return question + prompts.CLUE_INTRO + clue


def general(
    question: str, texts: Sequence[str], images: Sequence[Part], generation: Generation
) -> ChatRequest:
    ask = Part.of_text(prompts.GENERAL + question)
    return ChatRequest(
        (
            Message("user", (*(Part.of_text(text + "\n") for text in texts), ask)),
            Message("user", (*images, ask)),
        ),
        generation,
    )


def critical(general_request: ChatRequest, general_reply: str) -> ChatRequest:
    return ChatRequest(
        (
            *general_request.messages,
            Message("assistant", (Part.of_text(general_reply),)),
            Message.user(prompts.CRITICAL),
        ),
        general_request.generation,
    )


def text(question: str, texts: Sequence[str], generation: Generation) -> ChatRequest:
    pages = "".join(text + "\n" for text in texts)
    return ChatRequest.prompt(f"{pages}\n{prompts.TEXT}{question}", generation)


def image(question: str, images: Sequence[Part], generation: Generation) -> ChatRequest:
    return ChatRequest(
        (Message("user", (*images, Part.of_text(prompts.IMAGE + question))),), generation
    )


def summary(
    answers: Sequence[tuple[str, str]], question: str | None, generation: Generation
) -> ChatRequest:
    """``answers`` are (agent name, answer) in the order the agents ran; ``question`` is shown
    only when given."""
    shown = prompts.SUMMARIZER_QUESTION.format(question=question) if question is not None else ""
    listed = "".join(prompts.ANSWER_HEADING.format(name=n, answer=a) for n, a in answers)
    return ChatRequest.prompt(prompts.SUMMARIZER + shown + listed, generation)
