"""The ``slideagent`` method: query classification, sub-queries, joint retrieval over pages and
elements, level readers and synthesis over a prebuilt knowledge base.

Per question:

1. knowledge: the document's knowledge base from ``knowledge_dir`` (written by the
   ``build_knowledge`` rule, which the runner hands over), or, without one (a library call, a
   test), built once per document with the run's model and kept for the method's lifetime;
2. classify: the query type picks the levels (``parsing.QUERY_LEVELS``); an ablation removes its
   level, and a type whose levels are all removed uses every level the variant has;
3. sub-queries (not for ``without_subqueries``);
4. retrieval: the ``top_k`` pages for the query and sub-queries together (``setting: oracle``
   takes the gold evidence pages instead), and the ``top_elements`` best elements of those
   pages (the elements of the best page in reading order when none matches a query word);
5. one reader per activated level (global knowledge; pages with their knowledge; elements) and
   the synthesizer over their answers.

A model call that fails (or a missing knowledge base) ends the question: the method raises,
keeping its trace up to there (docqa.methods.partial), and the runner decides what the error is
(docqa.methods.errors).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Literal

from pydantic import model_validator

from docqa.backends.client import ModelClient
from docqa.backends.request import Generation
from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.core.trace import as_trace
from docqa.methods import METHODS
from docqa.methods.base import DocumentEnv, Method, MethodOptions, Models, WindowSearcher
from docqa.methods.document_set import member_env
from docqa.methods.page_passages import PageTexts
from docqa.methods.partial import keeping_trace
from docqa.methods.slideagent import prompts, requests
from docqa.methods.slideagent.build import KnowledgeSettings, build_knowledge
from docqa.methods.slideagent.calls import CallLog, image_labels
from docqa.methods.slideagent.knowledge import (
    DescribedElement,
    Knowledge,
    join_knowledge,
    read_knowledge,
)
from docqa.methods.slideagent.knowledge_index import knowledge_searcher
from docqa.methods.slideagent.parsing import (
    LEVELS,
    QUERY_LEVELS,
    parse_answer,
    parse_query_type,
    parse_subqueries,
)
from docqa.methods.slideagent.retrieval import retrieve_elements, retrieve_pages
from docqa.retrievers import PageSearcher
from docqa.runtime.spec import Field, refers_to

Ablation = Literal[
    "none", "without_global", "without_page", "without_element", "without_subqueries"
]
#: the paper's ablations: what each variant leaves out
ABLATIONS: dict[Ablation, frozenset[str]] = {
    "none": frozenset(),
    "without_global": frozenset({"global"}),
    "without_page": frozenset({"page"}),
    "without_element": frozenset({"element"}),
    "without_subqueries": frozenset({"subqueries"}),
}


class SlideAgentOptions(MethodOptions):
    """``slideagent``: retrieval, the paper's variants, and the readers' budgets."""

    retriever: str = refers_to("retrievers", "bm25", "ranks the pages (page_ranking pages or both)")
    top_k: int = Field(3, ge=1, description="pages retrieved for the query and sub-queries")
    top_elements: int = Field(5, ge=0, description="elements of those pages the reader sees")
    max_subqueries: int = Field(3, ge=1, description="sub-queries at most")
    ablation: Ablation = Field("none", description="the paper's variant: the level left out")
    setting: Literal["retrieval", "oracle"] = Field(
        "retrieval", description="retrieve the pages, or read the gold evidence pages"
    )
    single_image: bool = Field(
        False, description="show the pages as one grid image (single-image models)"
    )
    grids_dir: str = Field("results/grids", description="where those grid images are written")
    knowledge_dir: str | None = Field(
        None,
        description="the build_knowledge rule's folder (the infer stage sets it); "
        "null: built on the fly",
    )
    max_chars_per_page: int = Field(1500, ge=1, description="page text the page reader sees")
    answer_tokens: int = Field(48, ge=1, description="new tokens of each reader's answer")
    subquery_tokens: int = Field(48, ge=1, description="new tokens of the sub-queries")
    classifier_tokens: int = Field(8, ge=1, description="new tokens of the query type")
    not_answerable: bool = Field(
        True, description='the synthesizer may answer "Not answerable" (off for SlideVQA)'
    )
    page_ranking: Literal["pages", "knowledge", "both"] = Field(
        "pages", description="rank pages by retriever, by their knowledge text, or both fused"
    )
    knowledge_index: dict[str, Any] | None = Field(
        None, description="the retriever entry that ranks knowledge text ({type: bm25}, ...)"
    )
    knowledge_index_dir: str = Field(
        "results/knowledge_index", description="where knowledge indexes are written"
    )

    @model_validator(mode="after")
    def _knowledge_ranking_has_an_index(self) -> SlideAgentOptions:
        if self.page_ranking != "pages" and not self.knowledge_index:
            raise ValueError(
                f"page_ranking {self.page_ranking!r} needs knowledge_index: a retriever "
                "entry such as {type: bm25} or {type: dense_text, model: <folder>}"
            )
        return self


@METHODS.register("slideagent", options=SlideAgentOptions)
class SlideAgent(Method):
    options: SlideAgentOptions
    needs_knowledge = True

    def __init__(self, options: SlideAgentOptions) -> None:
        super().__init__(options)
        self.knowledge_index_dir = Path(options.knowledge_index_dir)
        self._knowledge_searchers: dict[str, PageSearcher] = {}
        uses_index = options.setting == "retrieval" and options.page_ranking != "knowledge"
        self.retrievers = (options.retriever,) if uses_index else ()
        self.left_out = ABLATIONS[options.ablation]
        self.levels = tuple(level for level in LEVELS if level not in self.left_out)
        self.grids_dir = Path(options.grids_dir) if options.single_image else None
        self.generation = {
            "answer": Generation(max_new_tokens=options.answer_tokens, stop=prompts.END_OF_LINE),
            "subqueries": Generation(
                max_new_tokens=options.subquery_tokens, stop=prompts.END_OF_BLOCK
            ),
            "classifier": Generation(
                max_new_tokens=options.classifier_tokens, stop=prompts.END_OF_LINE
            ),
        }
        #: by document (or set) id: the knowledge questions read, and the on-the-fly builds
        self._knowledge: dict[str, Knowledge] = {}
        self._built: dict[str, Knowledge] = {}
        self._building: dict[str, asyncio.Future[Knowledge]] = {}

    async def answer(self, question: Question, env: DocumentEnv, models: Models) -> Prediction:
        log = CallLog(image_labels(env))
        looked: list[int] = []  # the pages the readers were shown, filled as they run
        with keeping_trace(lambda: self._prediction(question, log, looked, "")):
            answer = await self._answer(question, env, models.main, log, looked)
        return self._prediction(question, log, looked, answer)

    async def _answer(
        self,
        question: Question,
        env: DocumentEnv,
        client: ModelClient,
        log: CallLog,
        looked: list[int],
    ) -> str:
        knowledge = await self._knowledge_of(env, client, log)
        query = question.question
        reply, step = await log.call(
            "classifier", client, requests.classify(query, self.generation["classifier"]), []
        )
        query_type, fallbacks = parse_query_type(reply)
        log.fallback(step, fallbacks)
        levels = tuple(level for level in QUERY_LEVELS[query_type] if level in self.levels)
        step.update(query_type=query_type, levels=list(levels or self.levels))
        if not levels:
            step["levels_note"] = "every level of this query type is ablated: using all left"
            levels = self.levels

        subqueries: list[str] = []
        if "subqueries" not in self.left_out:
            asked = requests.subqueries(
                query, self.options.max_subqueries, self.generation["subqueries"]
            )
            reply, step = await log.call("subqueries", client, asked, [])
            subqueries, fallbacks = parse_subqueries(reply, query, self.options.max_subqueries)
            log.fallback(step, fallbacks)
            step["subqueries"] = subqueries

        queries = [query, *subqueries]
        pages = self._pages(question, env, queries, knowledge)
        elements = self._elements(knowledge, pages, queries)
        log.trace.append(
            {
                "step": "retrieve",
                "setting": self.options.setting,
                "retriever": (
                    self._ranked_by() if self.options.setting == "retrieval" else "gold pages"
                ),
                "queries": queries,
                "pages": pages,
                "elements": [_shown(element) for element in elements],
            }
        )

        answers = []
        for level in levels:
            answer, shown = await self._read(
                level, query, env, knowledge, pages, elements, client, log
            )
            answers.append((level, answer))
            looked += [page for page in shown if page not in looked]
        asked = requests.synthesize(
            query, answers, self.generation["answer"], self.options.not_answerable
        )
        reply, step = await log.call("synthesizer", client, asked, [])
        final = parse_answer(reply)
        if not final:
            final = next((a for _, a in reversed(answers) if a), "")
            log.fallback(step, ("empty_answer",))
        return final

    async def _read(
        self,
        level: str,
        query: str,
        env: DocumentEnv,
        knowledge: Knowledge,
        pages: list[int],
        elements: list[DescribedElement],
        client: ModelClient,
        log: CallLog,
    ) -> tuple[str, list[int]]:
        """The level's answer and the pages it was shown."""
        generation = self.generation["answer"]
        shown: list[int] = []
        details: dict[str, Any] = {}
        if level == "global":
            asked = requests.read_global(query, knowledge.global_knowledge, generation)
        elif level == "page":
            read = PageTexts(query, self.options.max_chars_per_page)
            records = [env.pages[page] for page in pages]
            grid = None
            if self.grids_dir is not None and records:
                grid = requests.page_grid(records, self.grids_dir)
                details["images"] = [str(grid)]
            asked = requests.read_pages(
                query,
                records,
                [env.page_label(page) for page in pages],
                [read.read(page, env.page_texts[page]) for page in pages],
                [knowledge.pages[page] for page in pages],
                grid,
                generation,
            )
            details.update(read.trace())
            shown = pages
        else:
            labels = [env.page_label(page) for page in range(len(env.pages))]
            asked = requests.read_elements(query, elements, env.pages, labels, generation)
            shown = list(dict.fromkeys(element.page for element in elements))
        reply, _ = await log.call(f"read_{level}", client, asked, shown, **details)
        return parse_answer(reply), shown

    def _ranked_by(self) -> str:
        retriever = self.options.retriever
        knowledge = f"knowledge text ({(self.options.knowledge_index or {}).get('type')})"
        return {
            "pages": retriever,
            "knowledge": knowledge,
            "both": f"{retriever} + {knowledge}",
        }[self.options.page_ranking]

    def _pages(
        self, question: Question, env: DocumentEnv, queries: list[str], knowledge: Knowledge
    ) -> list[int]:
        if self.options.setting == "oracle":
            return sorted(env.pages_of(question.evidence))
        searchers: list[PageSearcher] = []
        if self.options.page_ranking != "knowledge":
            searchers.append(env.searcher(self.options.retriever))
        if self.options.page_ranking != "pages":
            searcher = self._knowledge_searcher(env, knowledge)
            searchers.append(WindowSearcher(searcher, env.window) if env.window else searcher)
        return retrieve_pages(searchers, queries, self.options.top_k)

    def _knowledge_searcher(self, env: DocumentEnv, knowledge: Knowledge) -> PageSearcher:
        doc_id = env.document.doc_id
        if doc_id not in self._knowledge_searchers:
            self._knowledge_searchers[doc_id] = knowledge_searcher(
                dict(self.options.knowledge_index or {}),
                knowledge,
                env.pages,
                self.knowledge_index_dir,
            )
        return self._knowledge_searchers[doc_id]

    def _elements(
        self, knowledge: Knowledge, pages: list[int], queries: list[str]
    ) -> list[DescribedElement]:
        candidates = knowledge.page_elements(pages)
        found = retrieve_elements(candidates, queries, self.options.top_elements)
        if found or not pages:
            return found
        best = [element for element in candidates if element.page == pages[0]]
        return best[: self.options.top_elements]

    async def _knowledge_of(self, env: DocumentEnv, client: ModelClient, log: CallLog) -> Knowledge:
        """The knowledge of the question's document, or a set's: each member's, joined."""
        doc_id = env.document.doc_id
        if doc_id not in self._knowledge and env.is_set:
            parts = [
                (member, await self._document_knowledge(member_env(env, member), client))
                for member in env.members
            ]
            self._knowledge[doc_id] = join_knowledge(parts)
        elif doc_id not in self._knowledge:
            self._knowledge[doc_id] = await self._document_knowledge(env, client)
        knowledge = self._knowledge[doc_id]
        log.trace.append(
            {
                "step": "knowledge",
                "source": self.options.knowledge_dir or "built on the fly for this method",
                "model": knowledge.model,
                "global_knowledge": knowledge.global_knowledge,
                "pages_known": len(knowledge.pages),
                "elements_known": len(knowledge.elements),
                "build_fallbacks": knowledge.fallbacks,
            }
        )
        if len(knowledge.pages) != len(env.pages):
            raise ValueError(
                f"knowledge of {doc_id!r} has {len(knowledge.pages)} pages, the document "
                f"{len(env.pages)}: rerun the build_knowledge rule"
            )
        return knowledge

    async def _document_knowledge(self, env: DocumentEnv, client: ModelClient) -> Knowledge:
        """One document's knowledge: the build_knowledge rule's (``knowledge_dir``), or built
        once on the fly; questions of one document in flight together share one build."""
        doc_id = env.document.doc_id
        if self.options.knowledge_dir is not None:
            return read_knowledge(self.options.knowledge_dir, doc_id)
        if doc_id not in self._built:
            if doc_id not in self._building:
                self._building[doc_id] = asyncio.ensure_future(
                    build_knowledge(env, client, _model_label(client), KnowledgeSettings())
                )
            try:
                self._built[doc_id] = await self._building[doc_id]
            finally:
                self._building.pop(doc_id, None)
        return self._built[doc_id]

    def _prediction(
        self, question: Question, log: CallLog, pages: list[int], answer: str
    ) -> Prediction:
        fallbacks = sorted(log.fallbacks.elements())
        log.trace.append({"step": "result", "output": answer, "fallbacks": fallbacks})
        return Prediction(question.question_id, answer, pages, as_trace(log.trace), log.usage)


def _model_label(client: ModelClient) -> str:
    return str(client.backend.identity.get("id", type(client.backend).__name__))


def _shown(element: DescribedElement) -> dict[str, Any]:
    return {
        "page": element.page,
        "kind": element.kind,
        "bbox": list(element.bbox),
        "description": element.description,
    }
