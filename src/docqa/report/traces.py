"""A prediction's trace as one readable, self-contained HTML page.

Works for every method: a trace is a list of steps (:class:`docqa.core.trace.TraceStep`), each
named by ``step`` (and/or ``agent`` / ``action``) with optional ``calls``, ``input``, ``output``,
``pages`` (0-based), ``usage`` and ``fallbacks``; any other key is shown as a field. Each model
call shows its prompt as sent (text parts verbatim, image parts as thumbnails, the OCR text a
text-only model read in an image's place), its reply and its finish reason; a reply cut at its
token limit, or a prompt cut to fit the model, is marked, and so is the answer when the call
that gave it (the trace's last) was cut. Page thumbnails are embedded as data URIs so the page
can be mailed or archived alone; each links to the full page image by a path relative to the
HTML file. Pages are numbered from 1 on the page, as a reader counts them.
"""

from __future__ import annotations

import base64
import json
import mimetypes
import os
from html import escape
from pathlib import Path
from typing import Any

from docqa.backends.calls import LENGTH
from docqa.core.document import Page
from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.core.trace import ModelCall, TraceStep

#: step keys shown by their own widget rather than as a plain field
SHOWN_APART = (
    "step",
    "agent",
    "action",
    "input",
    "output",
    "calls",
    "pages",
    "images",
    "usage",
    "fallbacks",
)

#: usage fields and how a step's usage line shows them
USAGE_FIELDS = (
    ("calls", "calls"),
    ("cached_calls", "cached"),
    ("tokens_in", "tokens in"),
    ("tokens_out", "tokens out"),
    ("image_tokens", "image tokens"),
    ("images_as_text", "images as text"),
    ("seconds", "s"),
    ("fallbacks", "fallbacks"),
)

STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin: 0 0 .4em; }
table.facts td { padding: .1em .8em .1em 0; vertical-align: top; }
table.facts td:first-child { color: #666; white-space: nowrap; }
section.step { border: 1px solid #ccc; border-radius: 6px; padding: .8em 1em; margin: 1em 0; }
pre { white-space: pre-wrap; word-break: break-word; background: #f6f6f6; padding: .6em;
      border-radius: 4px; max-height: 28em; overflow: auto; margin: .3em 0; }
.label { color: #666; font-size: .85em; text-transform: uppercase; letter-spacing: .04em; }
.usage { color: #555; font-size: .9em; }
.fallback { background: #fff3cd; border: 1px solid #e0c36a; border-radius: 4px;
            padding: .05em .4em; margin-right: .3em; font-size: .9em; }
.error { background: #fde2e2; border: 1px solid #d99; padding: .4em .6em; border-radius: 4px; }
.pages { display: flex; flex-wrap: wrap; gap: .6em; margin: .4em 0; }
figure { margin: 0; text-align: center; font-size: .85em; color: #555; }
figure img { display: block; max-width: 14em; max-height: 11em; border: 2px solid #bbb; }
figure.evidence img { border-color: #2a8f2a; }
.cut { background: #fde2e2; border: 1px solid #d99; border-radius: 4px; padding: .05em .4em;
       margin-left: .3em; font-size: .9em; white-space: nowrap; }
pre.prompt { max-height: 48em; }
div.call { border-left: 3px solid #bcd; padding-left: .8em; margin: .8em 0; }
.role { color: #468; font-size: .85em; margin-top: .4em; }
.missing { width: 8em; height: 6em; border: 2px dashed #bbb; display: flex;
           align-items: center; justify-content: center; }
"""


def render_trace_html(
    prediction: Prediction, question: Question, pages: list[Page], out: Path
) -> Path:
    """Write ``out`` (an ``.html`` file) showing the question, the answer, the cost and every
    step of ``prediction``'s trace; ``pages`` are the pages of the question's document or
    documents (for the thumbnails). A question over several documents numbers its pages end to
    end over the documents its trace's ``documents`` step lists; they are shown as ``D2:3``."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    thumbs = _Thumbnails.of(prediction, question, pages, out.parent)
    body = [
        f"<h1>{escape(question.question_id)}: {escape(question.question)}</h1>",
        _facts(prediction, question),
    ]
    if prediction.error:
        body.append(f'<p class="error">error: {escape(prediction.error)}</p>')
    used = prediction.pages or thumbs.positions(prediction.page_refs)
    if used:
        body.append('<div class="label">pages used</div>' + thumbs.strip(used))
    for number, step in enumerate(prediction.trace, start=1):
        body.append(_step(number, step, thumbs))
    title = f"trace {question.question_id}"
    out.write_text(
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n",
        encoding="utf-8",
    )
    return out


def usage_line(usage: dict[str, Any]) -> str:
    """A usage dict as one short line, e.g. ``calls 1 · tokens in 812 · tokens out 40 · 2.1 s``;
    zero counts are left out."""
    shown = []
    for key, name in USAGE_FIELDS:
        value = usage.get(key)
        if not value:
            continue
        if key == "seconds":
            shown.append(f"{value:.2f} {name}")
        else:
            shown.append(f"{name} {value}")
    return " · ".join(shown) or "no model calls"


def _facts(prediction: Prediction, question: Question) -> str:
    gold = question.answer if isinstance(question.answer, str) else json.dumps(question.answer)
    if question.over_several:
        evidence = ", ".join(f"{doc} p. {page + 1}" for doc, page in question.evidence) or "none"
    else:
        evidence = ", ".join(str(page + 1) for _, page in question.evidence) or "none"
    rows = [
        ("document" if not question.over_several else "documents", ", ".join(question.documents)),
        ("gold answer", f"{gold} ({question.answer_format})" if question.has_gold else "none"),
        ("evidence pages", evidence),
        ("predicted answer", prediction.answer or "(empty)"),
        ("cost", usage_line(prediction.usage.to_dict())),
    ]
    marks = {"predicted answer": cut_badges(prediction)}
    cells = "".join(
        f"<tr><td>{escape(k)}</td><td>{escape(v)}{marks.get(k, '')}</td></tr>" for k, v in rows
    )
    return f'<table class="facts">{cells}</table>'


def model_calls(prediction: Prediction) -> list[ModelCall]:
    """Every model call of the trace, in order."""
    return [call for step in prediction.trace for call in step.get("calls", [])]


def cut_marks(prediction: Prediction) -> list[str]:
    """What cut the answer short: the reply of the call that gave it (the trace's last call)
    reached its token limit, or a call's prompt lost tokens to fit the model's input."""
    calls = model_calls(prediction)
    marks = []
    if calls and calls[-1]["finish_reason"] == LENGTH:
        marks.append(f"cut at the {calls[-1]['max_new_tokens']}-token limit")
    dropped = sum(call.get("truncated_tokens", 0) for call in calls)
    if dropped:
        marks.append(f"prompt cut by {dropped} tokens")
    return marks


def cut_badges(prediction: Prediction) -> str:
    """:func:`cut_marks` as marks beside the answer (empty when nothing was cut)."""
    return "".join(f'<span class="cut">{escape(mark)}</span>' for mark in cut_marks(prediction))


def _step(number: int, step: TraceStep, thumbs: _Thumbnails) -> str:
    parts = [f'<section class="step"><h2>{number}. {escape(_step_title(step))}</h2>']
    fields = [(k, v) for k, v in step.items() if k not in SHOWN_APART]
    if fields:
        cells = "".join(
            f"<tr><td>{escape(str(k))}</td><td>{escape(_as_text(v))}</td></tr>" for k, v in fields
        )
        parts.append(f'<table class="facts">{cells}</table>')
    if step.get("fallbacks"):
        badges = "".join(
            f'<span class="fallback">{escape(str(f))}</span>' for f in step["fallbacks"]
        )
        parts.append(f"<p>fallbacks: {badges}</p>")
    if step.get("pages"):
        parts.append(thumbs.strip(step["pages"]))
    if step.get("images"):
        parts.append(_images(step["images"]))
    calls = step.get("calls", [])
    if "input" in step:
        parts.append(_block("input", step["input"]))
    shown_above = set(step.get("images", []))
    for call_number, call in enumerate(calls, start=1):
        parts.append(_call(call_number, len(calls), call, thumbs, shown_above))
    if "output" in step and step["output"] not in [call["reply"] for call in calls]:
        parts.append(_block("output", step["output"]))
    if isinstance(step.get("usage"), dict):
        parts.append(f'<p class="usage">{escape(usage_line(step["usage"]))}</p>')
    parts.append("</section>")
    return "\n".join(parts)


def _block(label: str, value: Any) -> str:
    return f'<div class="label">{label}</div><pre>{escape(_as_text(value))}</pre>'


def _call(number: int, count: int, call: ModelCall, thumbs: _Thumbnails, shown: set[str]) -> str:
    """One model call: its prompt, message by message (text parts verbatim in ``pre.prompt``,
    images as thumbnails), its reply and its finish reason."""
    title = f"model call {number} of {count}" if count > 1 else "model call"
    parts = [f'<div class="call"><div class="label">{title}: prompt</div>']
    for message in call["messages"]:
        parts.append(f'<div class="role">{escape(message["role"])}</div>')
        for part in message["parts"]:
            if "image" in part:
                parts.append(_call_image(part["image"], thumbs, shown))
            if "text" in part:
                parts.append(f'<pre class="prompt">{escape(part["text"])}</pre>')
    finish = escape(call["finish_reason"])
    if call["finish_reason"] == LENGTH:
        finish = f'<span class="cut">length: cut at {call["max_new_tokens"]} new tokens</span>'
    if call.get("truncated_tokens"):
        finish += (
            f'<span class="cut">prompt cut by {call["truncated_tokens"]} tokens '
            "from its middle to fit the model's input</span>"
        )
    parts.append(f'<div class="label">reply</div><pre class="reply">{escape(call["reply"])}</pre>')
    parts.append(f'<p class="usage">finish reason: {finish}</p></div>')
    return "\n".join(parts)


def _call_image(path: str, thumbs: _Thumbnails, shown: set[str]) -> str:
    """An image part of a prompt: the page's thumbnail when it is a page image, a note when
    the step's images above show it, else the image itself."""
    page = thumbs.index_of(path)
    if page is not None:
        return thumbs.strip([page])
    if path in shown:
        return f'<p class="usage">[image {escape(Path(path).name)}, shown above]</p>'
    return _images([path])


def _images(paths: list[str]) -> str:
    """Images a step looked at besides whole pages (crops, zooms), embedded as data URIs."""
    figures = []
    for path in paths:
        caption = escape(Path(path).name)
        if Path(path).is_file():
            mime = mimetypes.guess_type(path)[0] or "image/png"
            data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
            picture = f'<img src="data:{mime};base64,{data}" alt="{caption}">'
        else:
            picture = f'<div class="missing">{caption}<br>no image</div>'
        figures.append(f"<figure>{picture}<figcaption>{caption}</figcaption></figure>")
    return f'<div class="pages">{"".join(figures)}</div>'


def _step_title(step: TraceStep) -> str:
    names = [str(step[key]) for key in ("step", "agent", "action") if step.get(key)]
    return ": ".join(dict.fromkeys(names)) or "step"


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)


class _Thumbnails:
    """Thumbnails of a document's pages (or a set's, by their numbers over the set) as figures,
    each image read and encoded once; ``labels`` are the pages' names."""

    def __init__(
        self, pages: dict[int, Page], labels: dict[int, str], evidence: set[int], html_folder: Path
    ) -> None:
        self.pages = pages
        self.labels = labels
        self.evidence = evidence
        self.html_folder = html_folder
        self._encoded: dict[int, str | None] = {}

    @classmethod
    def of(
        cls, prediction: Prediction, question: Question, pages: list[Page], html_folder: Path
    ) -> _Thumbnails:
        """The thumbnails a trace's page numbers name: the document's pages by index, or, for
        a question over several documents, the pages of the documents the trace lists, end to
        end in that order."""
        listed = next((s for s in prediction.trace[:1] if s.get("step") == "documents"), None)
        if not question.over_several or listed is None:
            by_index = {page.index: page for page in pages}
            labels = {index: str(index + 1) for index in by_index}
            gold = set() if question.over_several else set(question.evidence_in(question.doc_id))
            return cls(by_index, labels, gold, html_folder)
        by_document: dict[str, list[Page]] = {}
        for page in sorted(pages, key=lambda page: page.index):
            by_document.setdefault(page.doc_id, []).append(page)
        numbered: dict[int, Page] = {}
        labels = {}
        for member in listed["documents"]:
            for page in by_document.get(member["doc_id"], []):
                number = member["first_page"] + page.index
                numbered[number] = page
                labels[number] = f"{member['label']}:{page.index + 1}".lstrip(":")
        thumbs = cls(numbered, labels, set(), html_folder)
        thumbs.evidence = set(thumbs.positions(question.evidence))
        return thumbs

    def index_of(self, image: str) -> int | None:
        """The number of the page whose image is ``image``, if one is."""
        return next((n for n, page in self.pages.items() if page.image == image), None)

    def positions(self, refs: list[tuple[str, int]]) -> list[int]:
        """The numbers of (document, page) pairs among these pages."""
        at = {(page.doc_id, page.index): number for number, page in self.pages.items()}
        return [at[ref] for ref in refs if ref in at]

    def strip(self, indices: list[int]) -> str:
        figures = "".join(self._figure(index) for index in dict.fromkeys(indices))
        return f'<div class="pages">{figures}</div>'

    def _figure(self, index: int) -> str:
        evidence = index in self.evidence
        caption = f"page {self.labels.get(index, index + 1)}" + (" (evidence)" if evidence else "")
        source = self._data_uri(index)
        if source is None:
            picture = f'<div class="missing">{escape(caption)}<br>no image</div>'
        else:
            picture = f'<img src="{source}" alt="{escape(caption)}">'
            full = Path(self.pages[index].image)
            if full.exists():
                link = os.path.relpath(full.resolve(), self.html_folder.resolve())
                picture = f'<a href="{escape(link)}">{picture}</a>'
        kind = ' class="evidence"' if evidence else ""
        return f"<figure{kind}>{picture}<figcaption>{escape(caption)}</figcaption></figure>"

    def _data_uri(self, index: int) -> str | None:
        if index not in self._encoded:
            self._encoded[index] = self._encode(index)
        return self._encoded[index]

    def _encode(self, index: int) -> str | None:
        page = self.pages.get(index)
        if page is None:
            return None
        for candidate in (page.thumbnail, page.image):
            if candidate and Path(candidate).is_file():
                mime = mimetypes.guess_type(candidate)[0] or "image/png"
                data = base64.b64encode(Path(candidate).read_bytes()).decode("ascii")
                return f"data:{mime};base64,{data}"
        return None
