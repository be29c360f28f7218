"""``docqa ask DOCUMENT... "QUESTION"``: one question about your own document, no config to write.

An entry point, not a stage: it chains the functions the DAG's rules call (render, text, index,
SlideAgent's knowledge when the method reads one, infer), so an answer here is the answer the
pipeline would give, with the same method, model, prompts and response cache. It lives at the
top of the package beside :mod:`docqa.cli`, as the second way in.

The config is the pipeline's: ``config/config.yaml`` with any ``--configfile`` merged over it
and checked as the Snakefile checks it (:mod:`docqa.workflow.loader`). What a run takes from it
(a method's retrievers and models, a model's preparation keys, SlideAgent's knowledge) comes
from :mod:`docqa.workflow.pipeline` and each stage runs through :mod:`docqa.workflow.jobs`, as
the rule scripts do.

Each document is prepared once under ``<results>/ask/<content hash>/`` (the config's results
folder, ``results/`` by default; the first 16 hex digits
of the SHA-256 of its bytes; a folder of page images hashes its file names and bytes), laid out
as the DAG lays out ``results/`` (:class:`~docqa.workflow.layout.Layout`) for one dataset named
``document``: ``data/document/`` (a copy of the document and its ``documents.jsonl``),
``pages/document/``, ``text/document/``, ``index/document/<retriever>/`` and
``knowledge/document/<model>/``. ``stages.json`` records the settings each stage ran with: a
second question about the same file skips every stage whose settings are unchanged, so it
neither renders nor reads its text again. Each question is run under
``questions/<method>/<model>/<question hash>/``: ``questions.jsonl``, ``predictions.jsonl`` and
``trace.html``. The model is prepared once per user and model identity, whatever folder this
runs in (:mod:`docqa.workflow.prepared_models`: ``$XDG_CACHE_HOME/docqa/models/<GGUF hash>/``
for the embedded ones; the default: about 1 to 2 minutes, once). The output names the model that
answered, and says so when its entry marks it ``plumbing: true``.

Several documents: one question over all of them (:mod:`docqa.methods.document_set`; each
document is prepared in its own cache folder, and :mod:`docqa.ask_set` joins them for the
question; a file given twice counts once); ``--each`` asks each document on its own instead.
Output: the answer, the pages used (1-based; over several documents each named by its file) and
the trace page; ``--json`` prints one JSON object a line instead. Progress and logs go to
stderr. Exit status: 0 when every question was answered; 1 when a document could not be read
(one line saying why) or the question failed; 2 for a config or usage error.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import logging
import os
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docqa.ask_prepared import AskError, Prepared
from docqa.backends.model_spec import ModelSpec
from docqa.core.document import Document, Page
from docqa.core.jsonl import read_jsonl, write_jsonl
from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.datasets.fields import BadRow
from docqa.workflow.config_check import ConfigError
from docqa.workflow.layout import Layout, results_layout
from docqa.workflow.loader import add_configfile_argument, load_config
from docqa.workflow.pipeline import (
    alone_threads,
    indexed_retrievers,
    needs_knowledge,
    retriever_names,
    role_models,
    run_models,
    text_settings,
)
from docqa.workflow.prepared_models import model_folder

log = logging.getLogger("docqa.ask")

#: the dataset name of a prepared document (or set) in its layout
DATASET = "document"
HASH_CHARS = 16
#: said after the name of a model whose entry has ``plumbing: true``
PLUMBING = " (a plumbing-grade model: it checks the pipeline, its answers are not to be trusted)"


@dataclass
class Answered:
    """One answer (about one document, or over several), as printed and as ``--json`` writes
    it."""

    document: str
    doc_id: str
    question: str
    answer: str = ""
    pages: list[int] = field(default_factory=list)  # 1-based
    #: over several documents: the pages used as {document, page (1-based)}
    document_pages: list[dict[str, Any]] = field(default_factory=list)
    trace: str = ""
    cache: str = ""
    cached: list[str] = field(default_factory=list)  # stages skipped as already done
    error: str = ""
    seconds: float = 0.0
    model: str = ""  # the config's name of the model that answered
    #: the model entry says it is meant to check the plumbing, not to answer well
    plumbing: bool = False

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "ask",
        help="answer one question about your own PDF(s) or page images",
        description="Answer QUESTION about the DOCUMENT(s) with a configured method and model, "
        "through the pipeline's stages; several documents are asked as one set (--each: one "
        "by one); each prepared document is cached under <results>/ask/ (config key results).",
    )
    parser.add_argument(
        "items", nargs="+", metavar="DOCUMENT... QUESTION", help="document(s), then the question"
    )
    parser.add_argument(
        "--method", default=None, help="a method of the config (default: its ask.method)"
    )
    parser.add_argument(
        "--model", default=None, help="a model of the config (default: its ask.model)"
    )
    add_configfile_argument(parser)
    parser.add_argument("--json", action="store_true", help="print the answer as one JSON object")
    parser.add_argument(
        "--each",
        action="store_true",
        help="ask each document on its own (default: one question over all of them)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if len(args.items) < 2:
        print("docqa ask: give at least one document and then the question", file=sys.stderr)
        return 2
    *documents, question = args.items
    try:
        config = load_config(args.configfile)
        method, model = pick(config, args.method, args.model)
    except (AskError, ConfigError) as error:
        print(f"docqa ask: {error}", file=sys.stderr)
        return 2
    asks: list[tuple[str, Callable[[], Answered]]]
    if args.each or len(documents) == 1:
        asks = [
            (d, lambda d=d: ask(Path(d), question, config, method, model))  # type: ignore[misc]
            for d in documents
        ]
    else:
        paths = [Path(d) for d in documents]
        asks = [
            (", ".join(documents), lambda: ask_together(paths, question, config, method, model))
        ]
    status = 0
    for shown, asking in asks:
        started = time.monotonic()
        try:
            # whatever a library prints goes to stderr: stdout carries only the answers
            with contextlib.redirect_stdout(sys.stderr):
                answered = asking()
        except AskError as error:
            answered = Answered(shown, "", question, error=str(error))
        answered.seconds = round(time.monotonic() - started, 2)
        if answered.error:
            status = 1
            print(f"docqa ask: {shown}: {answered.error}", file=sys.stderr)
        if args.json:
            print(json.dumps(answered.to_dict(), ensure_ascii=False), flush=True)
        elif not answered.error:
            print(_text(answered), flush=True)
    return status


def pick(config: dict[str, Any], method: str | None, model: str | None) -> tuple[str, str]:
    """The method and model names, checked against the config (defaults: the config's
    ``ask.method`` and ``ask.model``, else its first method and model)."""
    method = method or config.get("ask", {}).get("method") or next(iter(config["methods"]))
    if method not in config["methods"]:
        raise AskError(
            f"method {method!r} is not in the config; defined: {', '.join(config['methods'])}"
        )
    model = model or config.get("ask", {}).get("model") or next(iter(config["models"]))
    if model not in config["models"]:
        raise AskError(
            f"model {model!r} is not in the config; defined: {', '.join(config['models'])}"
        )
    return method, model


def prepare(path: Path, config: dict[str, Any], method: str, model: str) -> Prepared:
    """Prepare ``path`` for ``method`` and ``model`` (or reuse its cache): the stages the
    pipeline's rules run before infer."""
    from docqa.datasets.local import inspect_document, place_document

    try:
        source = inspect_document(path)
    except BadRow as problem:
        raise AskError(f"{problem.error}; {problem.fix}") from None
    cache = ask_dir(config) / content_hash(path)
    files = Layout(str(cache))
    stages = _Stages(cache / "stages.json")
    documents = Path(files.documents(DATASET))
    doc_id = _cached_doc_id(documents)
    if doc_id is None:
        from docqa.datasets.fields import safe_id

        doc_id = safe_id(path.stem if path.is_file() else path.name)
        copy = Path(files.data(DATASET)) / "source" / path.name
        _copy(path, copy)
        _check_pdf(source.kind, copy, cache)
        source.path = copy
        placed = place_document(doc_id, source, Path(files.docs(DATASET)), None)
        write_jsonl(documents, [placed.to_dict()])
    log.info("document %s: cached under %s", path, cache)

    retrievers = indexed_retrievers(config, method)
    _render(stages, files, config["render"])
    _page_text(stages, files, text_settings(config))
    _index(stages, files, retrievers)
    knowledge = None
    if needs_knowledge(config["methods"][method]):
        _knowledge(stages, files, config, model)
        knowledge = model
    return Prepared(path, doc_id, files, list(retrievers), knowledge, stages.skipped)


def ask_dir(config: dict[str, Any]) -> Path:
    """Where ask keeps its documents and questions: ``ask/`` of the config's results folder."""
    return Path(results_layout(config).root) / "ask"


def ask(path: Path, question: str, config: dict[str, Any], method: str, model: str) -> Answered:
    """Prepare ``path`` (or reuse its cache) and answer ``question`` with method and model."""
    return answer([prepare(path, config, method, model)], question, config, method, model)


def ask_together(
    paths: list[Path], question: str, config: dict[str, Any], method: str, model: str
) -> Answered:
    """Prepare each of ``paths`` and answer ``question`` over all of them at once (a question
    over several documents, :mod:`docqa.methods.document_set`); a file given twice counts once."""
    prepared: dict[Path, Prepared] = {}
    for path in paths:
        one = prepare(path, config, method, model)
        prepared.setdefault(one.cache, one)
    return answer(list(prepared.values()), question, config, method, model)


def answer(
    prepared: list[Prepared], question: str, config: dict[str, Any], method: str, model: str
) -> Answered:
    """Answer ``question`` about the prepared document, or over several prepared documents:
    the infer rule's call, with the files of the document (or of the set) in place of a
    dataset's."""
    from docqa.ask_set import join_prepared
    from docqa.core.question import documents_fields
    from docqa.report.traces import render_trace_html
    from docqa.workflow.jobs import model_spec

    files = prepared[0].files
    if len(prepared) > 1:
        files = join_prepared(prepared, ask_dir(config) / "sets", DATASET)
    doc_ids = [one.doc_id for one in prepared]
    answered = Answered(
        ", ".join(str(one.path) for one in prepared),
        "+".join(doc_ids),
        question,
        cache=files.root,
        cached=sorted({stage for one in prepared for stage in one.cached}),
        model=model,
        plumbing=bool(config["models"][model].get("plumbing", False)),
    )
    method_config = config["methods"][method]
    cores = os.cpu_count() or 1
    specs = {
        name: model_spec(
            config["models"][name],
            model_folder(name, config["models"][name]),
            alone_threads(config["models"][name], cores),
        )
        for name in run_models(config, method, model)
    }
    qkey = hashlib.sha256(question.encode("utf-8")).hexdigest()[:HASH_CHARS]
    run_dir = Path(files.root) / "questions" / method / model / qkey
    asked = Question(
        question_id=qkey,
        question=question,
        answer="",
        answer_format="Str",
        **documents_fields(doc_ids, []),
    )
    write_jsonl(run_dir / "questions.jsonl", [asked.to_dict()])
    predictions = run_dir / "predictions.jsonl"
    infer_prepared(
        files,
        config,
        method_config,
        specs[model],
        {role: specs[name] for role, name in role_models(method_config).items()},
        questions=run_dir / "questions.jsonl",
        cache=Path(config["cache"]),
        out=predictions,
        knowledge=(
            Path(files.knowledge(DATASET, model)) if needs_knowledge(method_config) else None
        ),
    )
    prediction = Prediction.from_dict(next(iter(read_jsonl(predictions))))
    pages = [Page.from_dict(row) for row in read_jsonl(Path(files.pages(DATASET)))]
    trace = render_trace_html(prediction, asked, pages, run_dir / "trace.html")
    answered.answer = prediction.answer
    answered.pages = [page + 1 for page in prediction.pages]
    by_id = {one.doc_id: str(one.path) for one in prepared}
    answered.document_pages = [
        {"document": by_id[doc], "page": page + 1} for doc, page in prediction.page_refs
    ]
    answered.trace = str(trace)
    answered.error = prediction.error
    return answered


def infer_prepared(
    files: Layout,
    config: dict[str, Any],
    method_config: dict[str, Any],
    model: ModelSpec,
    role_specs: dict[str, ModelSpec],
    *,
    questions: Path,
    cache: Path,
    out: Path,
    knowledge: Path | None = None,
) -> None:
    """The infer stage over a prepared document (or set) laid out as ``files``: its pages, text
    and the indexes of the method's retrievers."""
    from docqa.stages.infer import run_inference

    retrievers = retriever_names(method_config)
    run_inference(
        questions=questions,
        documents=Path(files.documents(DATASET)),
        pages=Path(files.pages(DATASET)),
        overviews=Path(files.overviews(DATASET)),
        elements=Path(files.elements(DATASET)),
        index_dirs={name: Path(files.index_docs(DATASET, name)) for name in retrievers},
        failures=Path(files.render_failures(DATASET)),
        method_config=method_config,
        retriever_configs={name: config["retrievers"][name] for name in retrievers},
        model=model,
        role_models=role_specs,
        cache=cache,
        out=out,
        knowledge=knowledge,
    )


def content_hash(path: Path) -> str:
    """The first 16 hex digits of the SHA-256 of a file's bytes, or of a folder's files (their
    names and bytes, in name order)."""
    digest = hashlib.sha256()
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    for file in files:
        if path.is_dir():
            digest.update(str(file.relative_to(path)).encode("utf-8") + b"\0")
        with open(file, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()[:HASH_CHARS]


class _Stages:
    """``stages.json``: the settings each stage last completed with, so a rerun can skip it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.done: dict[str, Any] = json.loads(path.read_text()) if path.is_file() else {}
        self.skipped: list[str] = []

    def run(self, name: str, settings: Any, outputs: list[Path], work: Callable[[], None]) -> None:
        if self.done.get(name) == settings and all(p.exists() for p in outputs):
            log.info("%s: cached (%s)", name, outputs[0].parent)
            self.skipped.append(name)
            return
        log.info("%s: running", name)
        work()
        self.done[name] = settings
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(self.done, indent=1, sort_keys=True) + "\n")
        os.replace(tmp, self.path)


def _render(stages: _Stages, files: Layout, settings: dict[str, Any]) -> None:
    from docqa.core.failures import read_failures
    from docqa.workflow import jobs

    out = Path(files.pages_dir(DATASET))

    def work() -> None:
        jobs.render(Path(files.documents(DATASET)), out, settings)

    stages.run("render", settings, [Path(files.pages(DATASET))], work)
    failed = read_failures(Path(files.render_failures(DATASET)))
    if failed:
        raise AskError(f"{failed[0].error}; {failed[0].fix}")


def _page_text(stages: _Stages, files: Layout, settings: dict[str, Any]) -> None:
    """The page text (rule text_pages): the PDF's text layer, tesseract where a page has none."""
    from docqa.core.failures import read_failures
    from docqa.workflow import jobs

    failures = Path(files.text_failures(DATASET))

    def work() -> None:
        jobs.page_text(
            Path(files.documents(DATASET)),
            Path(files.pages(DATASET)),
            Path(files.elements(DATASET)),
            failures,
            settings,
            workers=os.cpu_count() or 1,
        )

    done = {**settings, "render": stages.done["render"]}
    stages.run("text", done, [Path(files.elements(DATASET))], work)
    failed = read_failures(failures)
    if failed:  # the question is still asked: the other pages (and the page images) remain
        first = failed[0]
        log.warning(
            "text: %d page(s) without text, first: %s; fix: %s", len(failed), first.error, first.fix
        )


def _index(stages: _Stages, files: Layout, retrievers: dict[str, dict[str, Any]]) -> None:
    """The index of each retriever (rule build_index; a hybrid's components first)."""
    from docqa.workflow import jobs
    from docqa.workflow.pipeline import fused_entries

    for name, config in retrievers.items():
        docs = Path(files.index_docs(DATASET, name))
        fused = {
            component: (entry, Path(files.index_docs(DATASET, component)))
            for component, entry in fused_entries(retrievers, name).items()
        }
        entry = jobs.index_entry(config, fused)

        def work(entry: dict[str, Any] = entry, docs: Path = docs) -> None:
            if docs.exists():
                shutil.rmtree(docs)
            jobs.build_index(entry, Path(files.pages(DATASET)), Path(files.elements(DATASET)), docs)

        stages.run(f"index/{name}", {"entry": entry, "text": stages.done["text"]}, [docs], work)


def _knowledge(stages: _Stages, files: Layout, config: dict[str, Any], model: str) -> None:
    """SlideAgent's knowledge base of the document for ``model`` (rule build_knowledge)."""
    from docqa.stages.knowledge import build_dataset_knowledge
    from docqa.workflow.jobs import model_spec

    entry = config["models"][model]
    out = Path(files.knowledge(DATASET, model))
    settings = {"knowledge": config.get("knowledge", {}), "model": entry}

    def work() -> None:
        build_dataset_knowledge(
            documents=Path(files.documents(DATASET)),
            pages=Path(files.pages(DATASET)),
            elements=Path(files.elements(DATASET)),
            model_name=model,
            model=model_spec(
                entry, model_folder(model, entry), alone_threads(entry, os.cpu_count() or 1)
            ),
            settings=config.get("knowledge", {}),
            cache=Path(config["cache"]),
            out=out,
        )

    stages.run(f"knowledge/{model}", settings, [out], work)


def _cached_doc_id(documents: Path) -> str | None:
    if not documents.is_file():
        return None
    rows = [Document.from_dict(row) for row in read_jsonl(documents)]
    return rows[0].doc_id if rows else None


def _copy(path: Path, target: Path) -> None:
    """The document copied into the cache, so that it holds what was hashed."""
    if target.exists():
        shutil.rmtree(target) if target.is_dir() else target.unlink()
    target.parent.mkdir(parents=True, exist_ok=True)
    if path.is_dir():
        shutil.copytree(path, target)
    else:
        shutil.copyfile(path, target)


def _check_pdf(kind: str, path: Path, cache: Path) -> None:
    """An unreadable PDF (encrypted, damaged) is refused here, with render's reason."""
    if kind != "pdf":
        return
    from docqa.stages.render import BadDocument, open_pdf

    try:
        open_pdf(path).close()
    except BadDocument as bad:
        shutil.rmtree(cache)  # nothing of it stays in the cache
        raise AskError(f"{bad.error}; {bad.fix}") from None


def _text(answered: Answered) -> str:
    pages = ", ".join(map(str, answered.pages)) or ", ".join(
        f"{Path(item['document']).name} p. {item['page']}" for item in answered.document_pages
    )
    pages = pages or "none"
    model = answered.model
    if answered.plumbing:
        model += PLUMBING
    return (
        f"{answered.answer}\n  document: {answered.document}\n  pages used: {pages}\n"
        f"  model: {model}\n  trace: {answered.trace}"
    )
