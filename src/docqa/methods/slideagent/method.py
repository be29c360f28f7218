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

A model call that fails ends the question with ``error`` set and keeps the trace up to there.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from docqa.backends.client import ModelClient
from docqa.backends.request import Generation
from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.core.trace import as_trace
from docqa.methods import METHODS
from docqa.methods.base import DocumentEnv, Method, Models, WindowSearcher
from docqa.methods.document_set import member_env
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

#: the paper's ablations: what each variant leaves out
ABLATIONS: dict[str, frozenset[str]] = {
    "none": frozenset(),
    "without_global": frozenset({"global"}),
    "without_page": frozenset({"page"}),
    "without_element": frozenset({"element"}),
    "without_subqueries": frozenset({"subqueries"}),
}
SETTINGS = ("retrieval", "oracle")
PAGE_RANKINGS = ("pages", "knowledge", "both")


@METHODS.register("slideagent")
class SlideAgent(Method):
    def __init__(
        self,
        retriever: str = "bm25",
        top_k: int = 3,
        top_elements: int = 5,
        max_subqueries: int = 3,
        ablation: str = "none",
        setting: str = "retrieval",
        single_image: bool = False,
        grids_dir: str = "results/grids",
        knowledge_dir: str | None = None,
        max_chars_per_page: int = 1500,
        answer_tokens: int = 48,
        subquery_tokens: int = 48,
        classifier_tokens: int = 8,
        not_answerable: bool = True,
        page_ranking: str = "pages",
        knowledge_index: dict[str, Any] | None = None,
        knowledge_index_dir: str = "results/knowledge_index",
    ) -> None:
        """``not_answerable``: the synthesizer may answer "Not answerable" (off for a benchmark
        without unanswerable questions, SlideVQA). ``page_ranking``: pages rank by
        ``retriever`` (``pages``), by their knowledge text through ``knowledge_index``
        (a retriever config entry, e.g. ``{type: dense_text, model: ...}``; ``knowledge``),
        or by both fused (``both``); knowledge indexes go to ``knowledge_index_dir``."""
        if ablation not in ABLATIONS:
            raise ValueError(f"slideagent ablation {ablation!r} is not one of {tuple(ABLATIONS)}")
        if setting not in SETTINGS:
            raise ValueError(f"slideagent setting {setting!r} is not one of {SETTINGS}")
        if min(top_k, max_subqueries) < 1 or top_elements < 0:
            raise ValueError(
                "slideagent: top_k and max_subqueries must be at least 1 and top_elements at "
                f"least 0, got {top_k}, {max_subqueries} and {top_elements}"
            )
        if page_ranking not in PAGE_RANKINGS:
            raise ValueError(
                f"slideagent page_ranking {page_ranking!r}: use one of {PAGE_RANKINGS}"
            )
        if page_ranking != "pages" and not knowledge_index:
            raise ValueError(
                f"slideagent page_ranking {page_ranking!r} needs knowledge_index: a retriever "
                "entry such as {type: bm25} or {type: dense_text, model: <folder>}"
            )
        self.not_answerable = not_answerable
        self.page_ranking = page_ranking
        self.knowledge_index = knowledge_index
        self.knowledge_index_dir = Path(knowledge_index_dir)
        self._knowledge_searchers: dict[str, PageSearcher] = {}
        self.retriever = retriever
        uses_index = setting == "retrieval" and page_ranking != "knowledge"
        self.retrievers = (retriever,) if uses_index else ()
        self.top_k = top_k
        self.top_elements = top_elements
        self.max_subqueries = max_subqueries
        self.left_out = ABLATIONS[ablation]
        self.levels = tuple(level for level in LEVELS if level not in self.left_out)
        self.setting = setting
        self.grids_dir = Path(grids_dir) if single_image else None
        self.knowledge_dir = knowledge_dir
        self.max_chars_per_page = max_chars_per_page
        self.generation = {
            "answer": Generation(max_new_tokens=answer_tokens, stop=prompts.END_OF_LINE),
            "subqueries": Generation(max_new_tokens=subquery_tokens, stop=prompts.END_OF_BLOCK),
            "classifier": Generation(max_new_tokens=classifier_tokens, stop=prompts.END_OF_LINE),
        }
        #: by document (or set) id: the knowledge questions read, and the on-the-fly builds
        self._knowledge: dict[str, Knowledge] = {}
        self._built: dict[str, Knowledge] = {}
        self._building: dict[str, asyncio.Future[Knowledge]] = {}

    async def answer(self, question: Question, env: DocumentEnv, models: Models) -> Prediction:
        log = CallLog(image_labels(env))
        looked: list[int] = []  # the pages the readers were shown, filled as they run
        try:
            answer = await self._answer(question, env, models.main, log, looked)
        except Exception as error:  # a failed call ends this question, keeping its trace
            return self._prediction(question, log, looked, "", f"{type(error).__name__}: {error}")
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
            asked = requests.subqueries(query, self.max_subqueries, self.generation["subqueries"])
            reply, step = await log.call("subqueries", client, asked, [])
            subqueries, fallbacks = parse_subqueries(reply, query, self.max_subqueries)
            log.fallback(step, fallbacks)
            step["subqueries"] = subqueries

        queries = [query, *subqueries]
        pages = self._pages(question, env, queries, knowledge)
        elements = self._elements(knowledge, pages, queries)
        log.trace.append(
            {
                "step": "retrieve",
                "setting": self.setting,
                "retriever": self._ranked_by() if self.setting == "retrieval" else "gold pages",
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
        asked = requests.synthesize(query, answers, self.generation["answer"], self.not_answerable)
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
            records = [env.pages[page] for page in pages]
            grid = None
            if self.grids_dir is not None and records:
                grid = requests.page_grid(records, self.grids_dir)
                details["images"] = [str(grid)]
            asked = requests.read_pages(
                query,
                records,
                [env.page_label(page) for page in pages],
                [env.page_texts[page][: self.max_chars_per_page] for page in pages],
                [knowledge.pages[page] for page in pages],
                grid,
                generation,
            )
            shown = pages
        else:
            labels = [env.page_label(page) for page in range(len(env.pages))]
            asked = requests.read_elements(query, elements, env.pages, labels, generation)
            shown = list(dict.fromkeys(element.page for element in elements))
        reply, _ = await log.call(f"read_{level}", client, asked, shown, **details)
        return parse_answer(reply), shown

    def _ranked_by(self) -> str:
        knowledge = f"knowledge text ({(self.knowledge_index or {}).get('type')})"
        return {
            "pages": self.retriever,
            "knowledge": knowledge,
            "both": f"{self.retriever} + {knowledge}",
        }[self.page_ranking]

    def _pages(
        self, question: Question, env: DocumentEnv, queries: list[str], knowledge: Knowledge
    ) -> list[int]:
        if self.setting == "oracle":
            return sorted(env.pages_of(question.evidence))
        searchers: list[PageSearcher] = []
        if self.page_ranking != "knowledge":
            searchers.append(env.searcher(self.retriever))
        if self.page_ranking != "pages":
            searcher = self._knowledge_searcher(env, knowledge)
            searchers.append(WindowSearcher(searcher, env.window) if env.window else searcher)
        return retrieve_pages(searchers, queries, self.top_k)

    def _knowledge_searcher(self, env: DocumentEnv, knowledge: Knowledge) -> PageSearcher:
        doc_id = env.document.doc_id
        if doc_id not in self._knowledge_searchers:
            self._knowledge_searchers[doc_id] = knowledge_searcher(
                dict(self.knowledge_index or {}), knowledge, env.pages, self.knowledge_index_dir
            )
        return self._knowledge_searchers[doc_id]

    def _elements(
        self, knowledge: Knowledge, pages: list[int], queries: list[str]
    ) -> list[DescribedElement]:
        candidates = knowledge.page_elements(pages)
        found = retrieve_elements(candidates, queries, self.top_elements)
        if found or not pages:
            return found
        best = [element for element in candidates if element.page == pages[0]]
        return best[: self.top_elements]

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
                "source": self.knowledge_dir or "built on the fly for this method",
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
        if self.knowledge_dir is not None:
            return read_knowledge(self.knowledge_dir, doc_id)
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
        self, question: Question, log: CallLog, pages: list[int], answer: str, error: str = ""
    ) -> Prediction:
        fallbacks = sorted(log.fallbacks.elements())
        log.trace.append({"step": "result", "output": answer, "fallbacks": fallbacks})
        trace = as_trace(log.trace)
        return Prediction(question.question_id, answer, pages, trace, log.usage, error)


def _model_label(client: ModelClient) -> str:
    return str(client.backend.identity.get("id", type(client.backend).__name__))


def _shown(element: DescribedElement) -> dict[str, Any]:
    return {
        "page": element.page,
        "kind": element.kind,
        "bbox": list(element.bbox),
        "description": element.description,
    }
