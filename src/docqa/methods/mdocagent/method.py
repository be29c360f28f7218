"""MDocAgent (Han et al., 2025): five agents over text retrieval and image retrieval.

The chain, per question, as the original code runs it (``agents/mdoc_agent.py``):

1. general agent (VLM): the top-k page texts and the top-k page images, with the question;
2. critical agent (VLM): the general agent's conversation continued, asking for a dict of two
   clues ``{"text": …, "image": …}``;
3. text agent (text model): the page texts and the question with the text clue;
4. image agent (VLM): the page images and the question with the image clue;
5. summarizing agent (VLM): the three answers (not the question) → ``{"Answer": …}``.

Text pages come from ``text_retriever``, page images from ``image_retriever``: two independent
top-k lists that may point at different pages. On the default CPU config there is no image
retriever (ColPali/ColQwen2 need their weights), so ``image_retriever`` may be ``bm25``: pages
ranked by their text, then given as images, which a text-only model reads as their OCR text.

The text agent runs on the model of the ``text_model`` option, every other agent on the model
of ``vlm_model``; either defaults to the run's model, so one model may serve all.

Options default to the original's behaviour: the summarizer does not see the question
(``summarizer_sees_question``), text pages are not de-duplicated (``dedupe_text_pages``; the
original ranks ColBERT passages, so two passages of one page can fill two of the k slots —
docqa's retrievers rank whole pages and never repeat one, so the option changes a ranking only
for a searcher that does), replies are parsed as strictly as the original does (``clue_parser``,
``answer_parser``: see :mod:`docqa.methods.mdocagent.parsing`), and an empty final answer stays
empty (``empty_answer: keep``; ``agents`` takes the last non-empty agent answer instead).
``prompts`` picks the agents' prompts: ``paper`` (the appendix's wording, the default) or
``code`` (the released code's ``config/agent/*.yaml`` byte for byte, and its bare page-text
parts in the general agent's text turn; see :mod:`docqa.methods.mdocagent.prompts`).
``ablation`` selects the paper's variants: ``without_text``, ``without_image`` (the original's
MDAi/MDAt) and ``without_general_critical`` (MDAs, in which the text and image agents get the
bare question).

Every reply that needs a fallback is named in its trace step and in the final ``result`` step,
and counted in ``usage.fallbacks``. A model call that fails ends the question: the method raises,
keeping the trace and usage up to that point (docqa.methods.partial), and the runner records
the error or, for an infrastructure error, stops the job (docqa.methods.errors).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from docqa.backends.calls import recorded_calls
from docqa.backends.client import ModelClient
from docqa.backends.request import ChatRequest, Generation
from docqa.core.prediction import Prediction, Usage
from docqa.core.question import Question
from docqa.core.trace import as_trace
from docqa.methods import METHODS
from docqa.methods.base import DocumentEnv, Method, MethodOptions, Models, text_top_k
from docqa.methods.mdocagent import requests
from docqa.methods.mdocagent.parsing import Parser, parse_answer, parse_clues
from docqa.methods.mdocagent.prompts import PromptStyle, prompt_set
from docqa.methods.page_passages import PageTexts
from docqa.methods.partial import keeping_trace
from docqa.runtime.spec import Field, refers_to

Ablation = Literal["none", "without_text", "without_image", "without_general_critical"]
#: the paper's ablations: which agents each variant leaves out
ABLATIONS: dict[Ablation, frozenset[str]] = {
    "none": frozenset(),
    "without_text": frozenset({"text"}),
    "without_image": frozenset({"image"}),
    "without_general_critical": frozenset({"general", "critical"}),
}

#: characters of each message part kept in a trace step's input summary (head and tail)
SHOWN_HEAD, SHOWN_TAIL = 300, 700


class MDocAgentOptions(MethodOptions):
    """``mdocagent``: the original's behaviour by default (module docstring)."""

    text_retriever: str = refers_to("retrievers", "bm25", "ranks the pages read as text")
    image_retriever: str = refers_to("retrievers", "bm25", "ranks the pages shown as images")
    top_k: int = Field(1, ge=1, description="pages of each retriever")
    text_model: str | None = refers_to(
        "models", None, "the text agent's model (null: the run's model)"
    )
    vlm_model: str | None = refers_to(
        "models", None, "every other agent's model (null: the run's model)"
    )
    ablation: Ablation = Field("none", description="the paper's variant: the agents left out")
    summarizer_sees_question: bool = Field(
        False, description="the summarizer also reads the question (the original: no)"
    )
    dedupe_text_pages: bool = Field(
        False, description="drop a page's repeats from the text top-k (the original keeps them)"
    )
    clue_parser: Parser = Field(
        "original", description="how the critical agent's clues are read (parsing module)"
    )
    answer_parser: Parser = Field(
        "original", description="how the summarizer's answer is read (parsing module)"
    )
    empty_answer: Literal["keep", "agents"] = Field(
        "keep", description="an empty final answer stays empty, or is the last agent answer"
    )
    max_new_tokens: int = Field(256, ge=1, description="new tokens of every agent")
    max_chars_per_page: int = Field(100_000, ge=1, description="page text an agent reads")
    image_max_pixels: int | None = Field(
        None, ge=1, description="each page image's pixel budget (null: the model's)"
    )
    prompts: PromptStyle = Field(
        "paper", description="the agents' prompts: the paper's appendix, or the released code's"
    )


@METHODS.register("mdocagent", options=MDocAgentOptions)
class MDocAgent(Method):
    options: MDocAgentOptions

    def __init__(self, options: MDocAgentOptions) -> None:
        super().__init__(options)
        self.wording = prompt_set(options.prompts)
        self.retrievers = tuple(dict.fromkeys((options.text_retriever, options.image_retriever)))
        # the models themselves reach the method through Models (the runner loads the models
        # these options name); the names label the trace
        self.model_names = {"text": options.text_model, "vlm": options.vlm_model}
        self.skipped = ABLATIONS[options.ablation]
        # image_max_pixels: each page image's pixel budget (the paper's Qwen2-VL: 16,384
        # visual tokens at top-1, 2,048 at top-4); None keeps the model's
        self.generation = Generation(
            max_new_tokens=options.max_new_tokens, max_pixels=options.image_max_pixels
        )

    async def answer(self, question: Question, env: DocumentEnv, models: Models) -> Prediction:
        run = _Run(question.question_id, env)
        with keeping_trace(lambda: run.prediction("")):  # a failure keeps the trace so far
            answer = await self._chain(question.question, env, models, run)
        return run.prediction(answer)

    async def _chain(self, question: str, env: DocumentEnv, models: Models, run: _Run) -> str:
        text_pages = self._text_pages(question, env)
        image_pages = env.searcher(self.options.image_retriever).search(
            question, self.options.top_k
        )
        read = PageTexts(question, self.options.max_chars_per_page)
        texts = [
            read.read(page, requests.flatten_page_text(env.page_texts[page])) for page in text_pages
        ]
        run.retrieved("text", self.options.text_retriever, text_pages, **read.trace())
        run.retrieved("image", self.options.image_retriever, image_pages)
        images = [
            requests.page_image(run.image_path(page), env.page_texts[page]) for page in image_pages
        ]
        vlm = self._client(models, "vlm")

        answers: list[tuple[str, str]] = []
        text_question = image_question = question
        if "general" not in self.skipped:
            asked = requests.general(question, texts, images, self.generation, self.wording)
            seen = text_pages + image_pages
            general = await run.call("general", vlm, asked, seen)
            answers.append(("General", general))
            critical = await run.call(
                "critical", vlm, requests.critical(asked, general, self.wording), seen
            )
            clues = parse_clues(critical, self.options.clue_parser)
            run.note(clues={"text": clues.text, "image": clues.image}, fallbacks=clues.fallbacks)
            text_question = requests.with_clue(question, clues.text)
            image_question = requests.with_clue(question, clues.image)
        if "text" not in self.skipped:
            asked = requests.text(text_question, texts, self.generation, self.wording)
            text_model = self._client(models, "text")
            answers.append(("Text", await run.call("text", text_model, asked, text_pages)))
        if "image" not in self.skipped:
            asked = requests.image(image_question, images, self.generation, self.wording)
            answers.append(("Image", await run.call("image", vlm, asked, image_pages)))

        shown = question if self.options.summarizer_sees_question else None
        summary = await run.call(
            "summarizer", vlm, requests.summary(answers, shown, self.generation, self.wording), []
        )
        final = parse_answer(summary, self.options.answer_parser)
        run.note(fallbacks=final.fallbacks)
        answer = final.answer
        if not answer:
            answer = self._empty_answer_fallback(answers)
            run.note(fallbacks=("empty_answer",))
        return answer

    def _text_pages(self, question: str, env: DocumentEnv) -> list[int]:
        searcher = env.searcher(self.options.text_retriever)
        return text_top_k(searcher, question, self.options.top_k, self.options.dedupe_text_pages)

    def _client(self, models: Models, role: str) -> _Client:
        return _Client(models.role(role), self.model_names[role])

    def _empty_answer_fallback(self, answers: list[tuple[str, str]]) -> str:
        if self.options.empty_answer == "agents":
            for _, text in reversed(answers):
                if text.strip():
                    return text.strip()
        return ""


@dataclass(frozen=True)
class _Client:
    """A model client and the name the trace shows for it: the configured model's name, else
    the backend's model id."""

    client: ModelClient
    configured: str | None

    @property
    def label(self) -> str:
        if self.configured:
            return self.configured
        return str(self.client.backend.identity.get("id", type(self.client.backend).__name__))


@dataclass
class _Run:
    """One question's trace and usage, built as the agents run."""

    question_id: str
    env: DocumentEnv
    trace: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    fallbacks: list[str] = field(default_factory=list)
    pages: list[int] = field(default_factory=list)

    def image_path(self, page: int) -> str:
        return self.env.pages[page].image

    def retrieved(self, modality: str, retriever: str, pages: list[int], **details: Any) -> None:
        self.trace.append(
            {
                "step": "retrieve",
                "modality": modality,
                "retriever": retriever,
                "pages": pages,
                **details,
            }
        )
        self.pages.extend(page for page in pages if page not in self.pages)

    async def call(self, agent: str, model: _Client, request: ChatRequest, pages: list[int]) -> str:
        step: dict[str, Any] = {
            "step": "agent",
            "agent": agent,
            "model": model.label,
            "pages": list(dict.fromkeys(pages)),
            "input": self._describe(request),
        }
        self.trace.append(step)
        with recorded_calls() as calls:
            completion = await model.client.complete(request)
        self.usage.add(completion.usage)
        step["output"] = completion.text
        step["calls"] = calls
        step["usage"] = completion.usage.to_dict()
        return completion.text

    def note(self, fallbacks: tuple[str, ...] = (), **details: Any) -> None:
        """Add details to the last step, and the fallbacks its reply needed."""
        step = self.trace[-1]
        step.update(details)
        if fallbacks:
            step["fallbacks"] = [*step.get("fallbacks", []), *fallbacks]
            self.fallbacks.extend(fallbacks)
            self.usage.fallbacks += len(fallbacks)

    def prediction(self, answer: str) -> Prediction:
        self.trace.append({"step": "result", "output": answer, "fallbacks": self.fallbacks})
        return Prediction(self.question_id, answer, self.pages, as_trace(self.trace), self.usage)

    def _describe(self, request: ChatRequest) -> str:
        """The request as a reader of the trace needs it: each message's role, its text with
        the middle of long parts elided, and which pages it shows as images."""
        labels = {
            p.image: f"[image of page {self.env.page_label(i)}]"
            for i, p in enumerate(self.env.pages)
        }
        lines = []
        for message in request.messages:
            parts = [
                labels.get(part.image, "[image]") if part.kind == "image" else _shorten(part.text)
                for part in message.parts
            ]
            lines.append(f"[{message.role}]\n" + "\n".join(parts))
        return "\n\n".join(lines)


def _shorten(text: str) -> str:
    if len(text) <= SHOWN_HEAD + SHOWN_TAIL + 40:
        return text
    cut = len(text) - SHOWN_HEAD - SHOWN_TAIL
    return f"{text[:SHOWN_HEAD]} … [{cut} characters] … {text[-SHOWN_TAIL:]}"
