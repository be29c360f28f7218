"""What every method receives (the document environment), the method interface, and the option
specs the baselines share."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from pydantic import field_validator

from docqa.backends.client import ModelClient
from docqa.core.document import Document, Page
from docqa.core.element import Element
from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.methods.baseline_prompts import PromptStyle
from docqa.methods.page_labels import label_ranges, page_numbers
from docqa.retrievers import PageSearcher
from docqa.runtime.spec import Field, Options, refers_to


@dataclass(frozen=True)
class Member:
    """One document of a set, as its environment holds it: its pages are the set's
    ``start`` … ``start + pages - 1``, and prompts call it ``label`` (``D1``, ``D2``, ...)."""

    document: Document
    start: int
    pages: int
    label: str


@dataclass
class DocumentEnv:
    """One document as methods see it: its pages, their OCR text and elements (words, lines and
    blocks with boxes, in reading order), its retriever indexes, and its numbered overview grids
    (rows ``{"doc_id", "image", "pages"}`` of the render stage's overviews.jsonl, ``pages``
    0-based, in document order).

    A set of documents (a question over several, :func:`docqa.methods.document_set.env_over`)
    is one environment too: its pages are numbered end to end in document order, and every list
    here (pages, texts, elements' ``page``, overview ``pages``, retriever rankings) uses those
    numbers; ``members`` says which document each range is. A method addresses pages by these
    numbers, names them to a model with :meth:`page_label` (``D2:3``: page 3 of the second
    document; the bare page number for one document) and reads a model's page references with
    :meth:`read_page_labels`; :meth:`locate` gives a page's (document, page) for traces and
    predictions. ``Page.index`` and ``Page.doc_id`` stay the page's own.
    """

    document: Document
    pages: list[Page]
    page_texts: list[str]
    searchers: dict[str, PageSearcher] = field(default_factory=dict)
    elements: list[Element] = field(default_factory=list)
    overviews: list[dict[str, Any]] = field(default_factory=list)
    #: the 0-based pages the current question may read (its dataset's page window), in order;
    #: empty: every page. Set by :meth:`within`; page indices stay the document's own.
    window: list[int] = field(default_factory=list)
    #: the documents of a set, in order; empty for one document
    members: list[Member] = field(default_factory=list)

    @property
    def is_set(self) -> bool:
        """Whether this environment holds several documents."""
        return bool(self.members)

    def member(self, page: int) -> Member:
        """The document of a set that page ``page`` belongs to."""
        if not 0 <= page < len(self.pages):
            raise IndexError(f"page {page} is outside the {len(self.pages)} pages")
        for member in reversed(self.members):
            if page >= member.start:
                return member
        raise ValueError("member() is for a set of documents")

    def locate(self, page: int) -> tuple[str, int]:
        """Page ``page`` as (document, that document's 0-based page)."""
        record = self.pages[page]
        return record.doc_id, record.index

    def source(self, page: int) -> tuple[Document, int]:
        """The document page ``page`` comes from, and its 0-based page there."""
        if not self.members:
            return self.document, page
        member = self.member(page)
        return member.document, page - member.start

    def pages_of(self, refs: list[tuple[str, int]]) -> list[int]:
        """The page numbers of (document, 0-based page) pairs, in order, each once; pairs this
        environment does not hold (another document, past the end) are left out."""
        numbers = {self.locate(page): page for page in range(len(self.pages))}
        return list(dict.fromkeys(numbers[ref] for ref in refs if ref in numbers))

    def page_label(self, page: int) -> str:
        """How prompts name page ``page``: ``3`` for one document, ``D2:3`` in a set."""
        if not self.members:
            return str(page + 1)
        member = self.member(page)
        return f"{member.label}:{page - member.start + 1}"

    def read_page_labels(self, text: str) -> list[int]:
        """The pages a model names in ``text``, in order, each once: page numbers (``2, 5``,
        ``p. 2``, ``3-5``) for one document, ``D2:3`` (also ``D2 p. 3``, ``D2:3-5``) in a
        set; pages that do not exist are left out."""
        pages: list[int] = []
        if not self.members:
            pages = [number - 1 for number in page_numbers(text)]
        else:
            by_label = {member.label.upper(): member for member in self.members}
            for label, first, last in label_ranges(text):
                member = by_label.get(label)
                if member is None:
                    continue
                pages += [
                    member.start + number - 1 for number in range(first, last + 1)
                    if 1 <= number <= member.pages
                ]  # fmt: skip
        known = range(len(self.pages))
        return [page for page in dict.fromkeys(pages) if page in known]

    def within(self, window: list[int]) -> DocumentEnv:
        """This document restricted to ``window`` (a question's ``page_window``): every
        retriever ranks only the window's pages; ``readable`` lists them. Pages past the
        document's end are dropped; an empty window is the whole document."""
        if not window:
            return self
        pages = [page for page in window if page < len(self.pages)]
        searchers: dict[str, PageSearcher] = {
            name: WindowSearcher(s, pages) for name, s in self.searchers.items()
        }
        return replace(self, searchers=searchers, window=pages)

    @property
    def readable(self) -> list[int]:
        """The pages a method may read: the window, or every page."""
        return list(self.window) if self.window else list(range(len(self.pages)))

    def searcher(self, name: str) -> PageSearcher:
        try:
            return self.searchers[name]
        except KeyError:
            raise KeyError(
                f"retriever {name!r} has no index for document {self.document.doc_id}; "
                "add it to the method's config so the index stage builds it"
            ) from None


class WindowSearcher:
    """A searcher that ranks only the pages of a window (as MDocAgent's retrievers mask every
    page outside a question's ``page_ids``): the inner ranking of all pages, filtered."""

    def __init__(self, inner: PageSearcher, window: list[int]) -> None:
        self.inner = inner
        self.allowed = set(window)
        self.pages = inner.pages

    def search(self, query: str, k: int) -> list[int]:
        if k <= 0:
            return []
        ranked = self.inner.search(query, self.inner.pages)
        return [page for page in ranked if page in self.allowed][:k]

    def search_with_repeats(self, query: str, k: int) -> list[int]:
        """The inner searcher's passage ranking (repeats kept), filtered to the window."""
        every = self.inner.search_with_repeats(query, 1 << 30)  # type: ignore[attr-defined]
        return [page for page in every if page in self.allowed][:k]


@dataclass
class Models:
    """The models a method talks to: ``main`` is the run's model (the ``{model}`` of the job);
    ``roles`` holds the models that the method's ``<role>_model`` options name."""

    main: ModelClient
    roles: dict[str, ModelClient] = field(default_factory=dict)

    def role(self, name: str) -> ModelClient:
        """The model for a role, or the run's model when the config names none for it."""
        return self.roles.get(name, self.main)


class MethodOptions(Options):
    """Base of every method's option spec (``docqa.runtime.spec``): the entry's ``type`` selects
    the method and is not one of its options."""

    entry_keys: ClassVar[tuple[str, ...]] = ("type",)


class ReadingOptions(MethodOptions):
    """How a baseline reads pages and asks for a short answer (``oracle_pages``, and under
    :class:`ImageReadingOptions` ``vanilla``, ``text_rag`` and ``image_rag``)."""

    max_chars_per_page: int = Field(
        1500, ge=1, description="characters of each page's OCR text a text model reads"
    )
    max_new_tokens: int = Field(24, ge=1, description="new tokens of the answer")
    prompt: PromptStyle = Field(
        "auto",
        description="prompt style (docqa.methods.baseline_prompts); auto follows the model",
    )
    temperature: float = Field(0.0, ge=0, description="decoding temperature (0: greedy)")
    not_answerable: bool = Field(
        True,
        description='the chat and fewshot prompts offer "Not answerable" (the papers\' have no '
        "such escape)",
    )


class ImageReadingOptions(ReadingOptions):
    """Reading pages given as images."""

    image_max_pixels: int | None = Field(
        None,
        ge=1,
        description="each page image's pixel budget, replacing the model's (null: keep it)",
    )


class TopKOptions(ImageReadingOptions):
    """The options of a method that reads the ``top_k`` pages of one retriever."""

    retriever: str = refers_to(
        "retrievers", "bm25", "the retriever that ranks the pages (null: the default)"
    )
    top_k: int = Field(4, ge=1, description="pages read, best first")

    @field_validator("retriever", mode="before")
    @classmethod
    def _default_retriever(cls, value: object) -> object:
        """``null`` names the method's own default retriever."""
        return cls.model_fields["retriever"].default if value is None else value


def text_top_k(searcher: PageSearcher, question: str, top_k: int, dedupe: bool) -> list[int]:
    """The ``top_k`` pages for ``question``, best first. Without ``dedupe``, a best-passage
    index (ColBERT ``page_score: best_passage``) gives its passage ranking: the page of each of
    the ``top_k`` best passages, a page as often as its passages rank (as MDocAgent reads
    RAGatouille's ranking); any other index ranks pages, each once."""
    if not dedupe:
        if hasattr(searcher, "search_with_repeats") and hasattr(
            getattr(searcher, "inner", searcher), "search_with_repeats"
        ):
            return list(searcher.search_with_repeats(question, top_k))
        return searcher.search(question, top_k)
    # rank the whole document so that dropping repeats still leaves k pages
    ranked = searcher.search(question, max(searcher.pages, top_k))
    return list(dict.fromkeys(ranked))[:top_k]


class Method(ABC):
    """Answers one question; written as plain sequential ``async`` code that awaits the models.

    The runner keeps many questions in flight, so model calls of different questions are
    batched by the client without the method doing anything for it. A method is built from its
    validated option spec (``create_method``), kept as ``options``. A question that fails
    raises: the runner decides what the error is (docqa.methods.errors); a method that wants its
    trace so far kept fails inside :func:`docqa.methods.partial.keeping_trace`.

    What a method needs from the pipeline beyond its options, it declares here, and the generic
    code (the rules, the report's plan, the training config check) reads the declaration
    through ``METHODS.get(type)``.
    """

    options: MethodOptions
    #: retrievers whose indexes this method needs (the pipeline builds them first)
    retrievers: tuple[str, ...] = ()
    #: reads a knowledge base of the run's (dataset, model): the build_knowledge rule makes it
    #: first and the runner hands its folder over as the ``knowledge_dir`` option
    needs_knowledge: ClassVar[bool] = False
    #: its traces end in a ``summary`` step with recall by round and calls per action, which
    #: the report's agent figures plot
    traces_rounds: ClassVar[bool] = False
    #: training (docqa.training) can synthesize trajectories with it and learn from them: its
    #: calls are the prompts the teacher and the student are trained on
    trajectory_training: ClassVar[bool] = False

    def __init__(self, options: MethodOptions) -> None:
        self.options = options

    @abstractmethod
    async def answer(self, question: Question, env: DocumentEnv, models: Models) -> Prediction: ...


class TopKMethod(Method):
    """Ranks the pages with the retriever that ``retriever`` names and reads the ``top_k`` best
    (``text_rag``, ``image_rag``): their retrieval step."""

    options: TopKOptions

    def __init__(self, options: TopKOptions) -> None:
        super().__init__(options)
        self.retrievers = (options.retriever,)

    def retrieve(self, question: Question, env: DocumentEnv) -> tuple[list[int], dict[str, Any]]:
        """The ``top_k`` pages, best first, and the trace step that records them."""
        retriever = self.options.retriever
        ranked = env.searcher(retriever).search(question.question, self.options.top_k)
        return ranked, {"step": "retrieve", "retriever": retriever, "pages": ranked}
