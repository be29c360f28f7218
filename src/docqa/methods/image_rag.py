"""Image RAG (M3DocRAG, Cho et al., 2024): the top-k pages by a page-image retriever, given to
the model as images.

M3DocRAG ranks a document's pages with ColPali (exact MaxSim over the page embeddings) and asks
Qwen2-VL-7B about the top-k page images; the papers report top-1 and top-4. ``retriever`` names
a configured retriever, normally ``colpali`` or ``colqwen2``; any retriever works (offline
there is no page-image model, and ``bm25`` ranks pages by their text). Pages are shown best
first, each headed by its page number, in the prompt style ``prompt`` names
(:mod:`docqa.methods.baseline_prompts`: ``m3docrag`` is M3DocRAG's own, the images then
``question: …\noutput only answer.``); a text-only model reads them as their OCR text (a page
longer than ``max_chars_per_page``: its passages that bear on the question, listed in the
step's ``text_cut``), and a page without any as the placeholder that says so.
``image_max_pixels`` is each page image's pixel budget (``None``: the model's).
"""

from __future__ import annotations

from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.core.trace import as_trace
from docqa.methods import METHODS
from docqa.methods.base import DocumentEnv, Models, TopKMethod, TopKOptions
from docqa.methods.page_passages import PageTexts
from docqa.methods.vanilla import ask, page_part
from docqa.runtime.spec import refers_to


class ImageRAGOptions(TopKOptions):
    """``image_rag``: the shared top-k options, ranked by a page-image retriever by default."""

    retriever: str = refers_to(
        "retrievers", "colpali", "the retriever that ranks the pages (null: the default)"
    )


@METHODS.register("image_rag", options=ImageRAGOptions)
class ImageRAG(TopKMethod):
    options: ImageRAGOptions

    async def answer(self, question: Question, env: DocumentEnv, models: Models) -> Prediction:
        ranked, retrieve = self.retrieve(question, env)
        texts = PageTexts(question.question, self.options.max_chars_per_page)
        shown = [
            (f"### Page {env.page_label(page)}", page_part(env, page, texts)) for page in ranked
        ]
        answer, usage, output, read = await ask(models.main, question.question, shown, self.options)
        cut = texts.trace(usage.images_as_text > 0)
        read = {"step": "read", "pages": ranked, **read, **cut, "output": output}
        return Prediction(question.question_id, answer, ranked, as_trace([retrieve, read]), usage)
