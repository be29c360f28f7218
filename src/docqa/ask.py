"""``docqa ask DOCUMENT... "QUESTION"``: one question about your own document, no config to write.

An entry point, not a stage: it chains the functions the DAG's rules call (render, text, index,
SlideAgent's knowledge when the method reads one, infer), so an answer here is the answer the
pipeline would give, with the same method, model, prompts and response cache. It lives at the
top of the package beside :mod:`docqa.cli`, as the second way in.

Each document is prepared once under ``results/ask/<content hash>/`` (the first 16 hex digits
of the SHA-256 of its bytes; a folder of page images hashes its file names and bytes): ``data/``
(a copy of the document and its ``documents.jsonl``), ``pages/``, ``text/``, ``index/<retriever>``
and ``knowledge/<model>``. ``stages.json`` records the settings each stage ran with: a second
question about the same file skips every stage whose settings are unchanged, so it neither
renders nor reads its text again. Each question is run under
``questions/<method>/<model>/<question hash>/``: ``questions.jsonl``, ``predictions.jsonl`` and
``trace.html``. A model that is not prepared yet is prepared into ``results/models/<name>/``
first, as the DAG's ``prepare_model`` rule does (the embedded default: about 2 minutes, once).

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

import yaml

from docqa.ask_prepared import AskError, Prepared
from docqa.core.document import Document, Page
from docqa.core.jsonl import read_jsonl, write_jsonl
from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.datasets.fields import BadRow

log = logging.getLogger("docqa.ask")

ASK_DIR = Path("results/ask")
MODELS_DIR = Path("results/models")
#: the model entry keys the prepare_model rule passes on (rules/common.smk, PREPARE_KEYS)
PREPARE_KEYS = ("backend", "hf_id", "revision", "gguf", "path", "hf_cache")
HASH_CHARS = 16


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

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "ask",
        help="answer one question about your own PDF(s) or page images",
        description="Answer QUESTION about the DOCUMENT(s) with a configured method and model, "
        "through the pipeline's stages; several documents are asked as one set (--each: one "
        "by one); each prepared document is cached under results/ask/.",
    )
    parser.add_argument(
        "items", nargs="+", metavar="DOCUMENT... QUESTION", help="document(s), then the question"
    )
    parser.add_argument("--method", default="text_rag_top1", help="a method of the config")
    parser.add_argument("--model", default=None, help="a model of the config (default: its first)")
    parser.add_argument("--config", type=Path, default=Path("config/config.yaml"))
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
        config = load_config(args.config)
        method, model = pick(config, args.method, args.model)
    except AskError as error:
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


def load_config(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise AskError(f"config {path} not found: run docqa ask in the repository, or --config")
    config = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    for section in ("methods", "models", "retrievers", "render", "text", "cache"):
        if section not in config:
            raise AskError(f"config {path} has no '{section}:' section")
    return config


def pick(config: dict[str, Any], method: str, model: str | None) -> tuple[str, str]:
    """The method and model names, checked against the config (model default: the first)."""
    if method not in config["methods"]:
        raise AskError(
            f"method {method!r} is not in the config; defined: {', '.join(config['methods'])}"
        )
    model = model or next(iter(config["models"]))
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
    key = content_hash(path)
    cache = ASK_DIR / key
    stages = _Stages(cache / "stages.json")
    documents = cache / "data" / "documents.jsonl"
    doc_id = _cached_doc_id(documents)
    if doc_id is None:
        from docqa.datasets.fields import safe_id

        doc_id = safe_id(path.stem if path.is_file() else path.name)
        copy = cache / "data" / "source"
        _copy(path, copy / path.name)
        _check_pdf(source.kind, copy / path.name)
        source.path = copy / path.name
        placed = place_document(doc_id, source, cache / "data" / "docs", None)
        write_jsonl(documents, [placed.to_dict()])
    log.info("document %s: cached under %s", path, cache)

    method_config = config["methods"][method]
    retrievers = _retrievers(config, method_config)
    pages_dir, text_dir = cache / "pages", cache / "text"
    _render(stages, documents, pages_dir, config["render"])
    _page_text(stages, documents, pages_dir, text_dir, config["text"])
    index_dirs = _index(stages, cache, retrievers, pages_dir, text_dir)
    knowledge = None
    from docqa.methods import METHODS

    if METHODS.get(method_config["type"]).needs_knowledge:
        folder = _model_folder(model, config["models"][model])
        knowledge = _knowledge(stages, cache, config, model, folder, _threads())
    return Prepared(
        path, cache, doc_id, documents, pages_dir, text_dir, index_dirs, knowledge, stages.skipped
    )


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
    """Answer ``question`` about the prepared document, or over several prepared documents."""
    from docqa.ask_set import join_prepared
    from docqa.backends.model_spec import ModelSpec
    from docqa.core.question import documents_fields
    from docqa.report.traces import render_trace_html
    from docqa.stages.infer import run_inference
    from docqa.workflow.snakefile import role_models

    files = prepared[0] if len(prepared) == 1 else join_prepared(prepared, ASK_DIR / "sets")
    doc_ids = [one.doc_id for one in prepared]
    answered = Answered(
        ", ".join(str(one.path) for one in prepared),
        "+".join(doc_ids),
        question,
        cache=str(files.cache),
        cached=sorted({stage for one in prepared for stage in one.cached}),
    )
    method_config = config["methods"][method]
    threads = _threads()
    folders = {
        name: _model_folder(name, config["models"][name]) for name in _models(config, method, model)
    }
    qkey = hashlib.sha256(question.encode("utf-8")).hexdigest()[:HASH_CHARS]
    run_dir = files.cache / "questions" / method / model / qkey
    asked = Question(
        question_id=qkey,
        question=question,
        answer="",
        answer_format="Str",
        **documents_fields(doc_ids, []),
    )
    write_jsonl(run_dir / "questions.jsonl", [asked.to_dict()])
    predictions = run_dir / "predictions.jsonl"
    run_inference(
        questions=run_dir / "questions.jsonl",
        documents=files.documents,
        pages=files.pages_dir / "pages.jsonl",
        overviews=files.pages_dir / "overviews.jsonl",
        elements=files.text_dir / "elements.jsonl",
        index_dirs=files.index_dirs,
        failures=files.pages_dir / "failures.jsonl",
        method_config=method_config,
        retriever_configs=_retrievers(config, method_config),
        model=ModelSpec({**config["models"][model], **threads}, folders[model]),
        role_models={
            role: ModelSpec({**config["models"][name], **threads}, folders[name])
            for role, name in role_models(method_config).items()
        },
        cache=Path(config["cache"]),
        out=predictions,
        knowledge=files.knowledge,
    )
    prediction = Prediction.from_dict(next(iter(read_jsonl(predictions))))
    pages = [Page.from_dict(row) for row in read_jsonl(files.pages_dir / "pages.jsonl")]
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


def _threads() -> dict[str, Any]:
    return {"threads": os.cpu_count() or 1}


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


def _render(stages: _Stages, documents: Path, out: Path, settings: dict[str, Any]) -> None:
    from docqa.core.failures import read_failures
    from docqa.stages.render import render_dataset

    def work() -> None:
        render_dataset(
            documents,
            out,
            dpi=settings["dpi"],
            thumb_width=settings["thumb_width"],
            grid=tuple(settings["grid"]),
        )

    stages.run("render", settings, [out / "pages.jsonl"], work)
    failed = read_failures(out / "failures.jsonl")
    if failed:
        raise AskError(f"{failed[0].error}; {failed[0].fix}")


def _page_text(
    stages: _Stages, documents: Path, pages: Path, out: Path, settings: dict[str, Any]
) -> None:
    """The page text (rule text_pages): the PDF's text layer, tesseract where a page has none."""
    from docqa.core.failures import read_failures
    from docqa.stages.text import text_dataset

    def work() -> None:
        text_dataset(
            documents,
            pages / "pages.jsonl",
            out / "elements.jsonl",
            workers=os.cpu_count() or 1,
            source=settings["source"],
            psm=settings["psm"],
            lang=settings["lang"],
            failures=out / "failures.jsonl",
        )

    done = {**settings, "render": stages.done["render"]}
    stages.run("text", done, [out / "elements.jsonl"], work)
    failed = read_failures(out / "failures.jsonl")
    if failed:  # the question is still asked: the other pages (and the page images) remain
        log.warning("text: %d page(s) without text, first: %s", len(failed), failed[0].error)


def _index(
    stages: _Stages,
    cache: Path,
    retrievers: dict[str, dict[str, Any]],
    pages: Path,
    text: Path,
) -> dict[str, Path]:
    """The index of each retriever the method uses (a hybrid's components first)."""
    from docqa.stages.index import build_indexes
    from docqa.workflow.snakefile import fused_entries

    dirs: dict[str, Path] = {}
    for name, entry in retrievers.items():
        docs = cache / "index" / name / "docs"
        entry = dict(entry)
        fused = fused_entries(retrievers, name)
        if fused:
            entry["indexes"] = {n: {"config": c, "docs": str(dirs[n])} for n, c in fused.items()}

        def work(entry: dict[str, Any] = entry, docs: Path = docs) -> None:
            if docs.exists():
                shutil.rmtree(docs)
            build_indexes(entry, pages / "pages.jsonl", text / "elements.jsonl", docs)

        stages.run(f"index/{name}", {"entry": entry, "text": stages.done["text"]}, [docs], work)
        dirs[name] = docs
    return dirs


def _knowledge(
    stages: _Stages,
    cache: Path,
    config: dict[str, Any],
    model: str,
    folder: Path,
    threads: dict[str, Any],
) -> Path:
    """SlideAgent's knowledge base of the document for ``model`` (rule build_knowledge)."""
    from docqa.backends.model_spec import ModelSpec
    from docqa.stages.knowledge import build_dataset_knowledge

    out = cache / "knowledge" / model
    settings = {"knowledge": config.get("knowledge", {}), "model": config["models"][model]}

    def work() -> None:
        build_dataset_knowledge(
            documents=cache / "data" / "documents.jsonl",
            pages=cache / "pages" / "pages.jsonl",
            elements=cache / "text" / "elements.jsonl",
            model_name=model,
            model=ModelSpec({**config["models"][model], **threads}, folder),
            settings=config.get("knowledge", {}),
            cache=Path(config["cache"]),
            out=out,
        )

    stages.run(f"knowledge/{model}", settings, [out], work)
    return out


def _retrievers(config: dict[str, Any], method_config: dict[str, Any]) -> dict[str, Any]:
    """The retrievers the method names, with those a hybrid fuses, components first."""
    from docqa.workflow.snakefile import fused_entries, retriever_names

    wanted: dict[str, Any] = {}

    def add(name: str) -> None:
        if name not in config["retrievers"]:
            raise AskError(f"retriever {name!r} is not in the config's 'retrievers:'")
        for component in fused_entries(config["retrievers"], name):
            add(component)
        wanted[name] = config["retrievers"][name]

    for name in retriever_names(method_config):
        add(name)
    return wanted


def _models(config: dict[str, Any], method: str, model: str) -> list[str]:
    from docqa.workflow.snakefile import role_models

    names = [model, *role_models(config["methods"][method]).values()]
    for name in names:
        if name not in config["models"]:
            raise AskError(f"method {method} names model {name!r}, which the config lacks")
    return list(dict.fromkeys(names))


def _model_folder(name: str, entry: dict[str, Any]) -> Path:
    """``results/models/<name>``, prepared first if it is not there (as rule prepare_model)."""
    folder = MODELS_DIR / name
    if (folder / "model.json").is_file():
        return folder
    from docqa.backends.preparation import prepare_model

    log.info("model %s is not prepared yet: preparing it into %s (once)", name, folder)
    partial = folder.with_name(folder.name + ".partial")
    if partial.exists():
        shutil.rmtree(partial)
    source = {key: entry[key] for key in PREPARE_KEYS if key in entry}
    started = time.monotonic()
    prepare_model(name, source, partial)
    if folder.exists():
        shutil.rmtree(folder)
    os.replace(partial, folder)
    log.info("model %s prepared in %.0f s", name, time.monotonic() - started)
    return folder


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


def _check_pdf(kind: str, path: Path) -> None:
    """An unreadable PDF (encrypted, damaged) is refused here, with render's reason."""
    if kind != "pdf":
        return
    from docqa.imaging.pdf import BadDocument, open_pdf

    try:
        open_pdf(path).close()
    except BadDocument as bad:
        shutil.rmtree(path.parents[2])  # nothing of it stays in the cache
        raise AskError(f"{bad.error}; {bad.fix}") from None


def _text(answered: Answered) -> str:
    pages = ", ".join(map(str, answered.pages)) or ", ".join(
        f"{Path(item['document']).name} p. {item['page']}" for item in answered.document_pages
    )
    pages = pages or "none"
    return (
        f"{answered.answer}\n  document: {answered.document}\n  pages used: {pages}\n"
        f"  trace: {answered.trace}"
    )
