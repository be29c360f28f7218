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
PDF text; under the paper's prompts each text part of the general agent ends with a line break
so that a backend that joins parts does not run one page into the next; under the code's
(``prompts: code``) the parts are bare, as the original sends them. Every function takes the
:class:`~docqa.methods.mdocagent.prompts.PromptSet` to send (the paper's by default). An image
part carries its page's OCR text for text-only backends (a page without any gets
:data:`NO_OCR_TEXT`, so a text-only model reads that instead of failing).
"""

from __future__ import annotations

from collections.abc import Sequence

from docqa.backends.request import ChatRequest, Generation, Message, Part
from docqa.methods.mdocagent import prompts
from docqa.methods.mdocagent.prompts import PAPER, PromptSet

NO_OCR_TEXT = "(no text was found on this page)"


def flatten_page_text(text: str) -> str:
    """A page's text on one line."""
    return text.replace("\r\n", " ").replace("\r", " ").replace("\n", " ")


def page_image(path: str, ocr_text: str) -> Part:
    return Part.of_image(path, ocr_text if ocr_text.strip() else NO_OCR_TEXT)


def with_clue(question: str, clue: str) -> str:
    """The question as the text and image agents get it after the critical agent ran."""
    return question + prompts.CLUE_INTRO + clue


def general(
    question: str,
    texts: Sequence[str],
    images: Sequence[Part],
    generation: Generation,
    wording: PromptSet = PAPER,
) -> ChatRequest:
    ask = Part.of_text(wording.general + question)
    end = wording.page_text_end
    return ChatRequest(
        (
            Message("user", (*(Part.of_text(text + end) for text in texts), ask)),
            Message("user", (*images, ask)),
        ),
        generation,
    )


def critical(
    general_request: ChatRequest, general_reply: str, wording: PromptSet = PAPER
) -> ChatRequest:
    return ChatRequest(
        (
            *general_request.messages,
            Message("assistant", (Part.of_text(general_reply),)),
            Message.user(wording.critical),
        ),
        general_request.generation,
    )


def text(
    question: str, texts: Sequence[str], generation: Generation, wording: PromptSet = PAPER
) -> ChatRequest:
    pages = "".join(text + "\n" for text in texts)
    return ChatRequest.prompt(f"{pages}\n{wording.text}{question}", generation)


def image(
    question: str, images: Sequence[Part], generation: Generation, wording: PromptSet = PAPER
) -> ChatRequest:
    return ChatRequest(
        (Message("user", (*images, Part.of_text(wording.image + question))),), generation
    )


def summary(
    answers: Sequence[tuple[str, str]],
    question: str | None,
    generation: Generation,
    wording: PromptSet = PAPER,
) -> ChatRequest:
    """``answers`` are (agent name, answer) in the order the agents ran; ``question`` is shown
    only when given."""
    shown = prompts.SUMMARIZER_QUESTION.format(question=question) if question is not None else ""
    if shown and not wording.summarizer.endswith("\n"):
        shown = "\n" + shown  # the code's prompt ends without a line break
    listed = "".join(prompts.ANSWER_HEADING.format(name=n, answer=a) for n, a in answers)
    return ChatRequest.prompt(wording.summarizer + shown + listed, generation)
