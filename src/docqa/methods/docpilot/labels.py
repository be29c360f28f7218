"""How DocPilot names pages to its models and reads the pages they write back.

The agent's state holds the environment's page positions (0-based; end to end over a set of
documents). Every page a model reads is the environment's label (``DocumentEnv.page_label``):
``3`` for one document, ``D2:3`` (page 3 of the set's second document) in a set; every page
a model writes is read back with the environment's labels (``DocumentEnv.read_page_labels``).
In JSON arguments a page of one document is a number (``3``, also ``"3"``, ``"p. 3"``) and a
page of a set is a string (``"D2:3"``, also ``"D2 p. 3"``); a bare number in a set is
ambiguous and refused.

Decided here: a navigator that answers a set's overview grid with the grid's own numbers
(bare numbers, no label) while the round showed the pages of one document only has those
numbers read as that document's pages, since that is how the grid is numbered.
"""

from __future__ import annotations

import re

from docqa.methods.base import DocumentEnv, Member
from docqa.methods.page_labels import page_numbers

#: one page of a set as a model writes it: ``D2:3``, ``D2 p. 3``, ``D2, page 3``
_SET_PAGE = re.compile(
    r"\s*(?:p(?:age)?\.?\s*)?D(\d+)\s*(?::|,)?\s*(?:p(?:age)?\.?\s*)?(\d+)\s*", re.IGNORECASE
)
#: one page of one document as a model writes it: ``3``, ``p. 3``, ``page 3``
_NUMBER_PAGE = re.compile(r"\s*(?:p(?:age)?\.?\s*)?(-?\d+)\s*", re.IGNORECASE)
#: a set's page labels in running text (each checked on its own: see ``picks``)
_SET_LABELS = re.compile(r"\bD\d+\s*(?::|,)?\s*(?:p(?:age)?\.?\s*)?\d+", re.IGNORECASE)


class UnreadablePage(ValueError):
    """A JSON argument that is not a page as the environment writes pages."""


class PageOutside(ValueError):
    """A page that the environment does not have (past a document's end, no such document)."""


def listing(env: DocumentEnv, pages: list[int]) -> str:
    """Pages as a reader counts them: ``2, 5`` (``D1:2, D2:5`` in a set); ``none`` for none."""
    return ", ".join(env.page_label(page) for page in pages) or "none"


def value(env: DocumentEnv, page: int) -> int | str:
    """Page ``page`` as a JSON value in arguments, traces and Solve's evidence: the 1-based
    number for one document, the label string (``"D2:3"``) in a set."""
    return env.page_label(page) if env.is_set else page + 1


def numbering(several: bool) -> str:
    """How the actions' arguments number pages, for the orchestrator's action list: over one
    document, or over a set (``several``)."""
    if not several:
        return "pages are numbered from 1"
    return 'pages are written "D<document>:<page>", each document\'s pages numbered from 1'


def argument_page(env: DocumentEnv | None, raw: object, num_pages: int) -> int:
    """One page of a JSON argument as a position. ``env`` None (or one document): a 1-based
    number of a document of ``num_pages`` pages. Raises ``UnreadablePage`` or
    ``PageOutside`` with the message for the model."""
    if env is not None and env.is_set:
        return _set_page(env, raw)
    number: object = raw
    if isinstance(raw, bool):
        number = None
    elif isinstance(raw, float) and raw.is_integer():
        number = int(raw)
    elif isinstance(raw, str):
        match = _NUMBER_PAGE.fullmatch(raw)
        number = int(match.group(1)) if match else None
    if not isinstance(number, int):
        raise UnreadablePage("must hold page numbers")
    if not 1 <= number <= num_pages:
        raise PageOutside(
            f"page {number} is outside the document, which has pages 1 to {num_pages}"
        )
    return number - 1


def _set_page(env: DocumentEnv, raw: object) -> int:
    match = _SET_PAGE.fullmatch(raw) if isinstance(raw, str) else None
    if match is None:
        raise UnreadablePage(
            'must hold pages written "D<document>:<page>" (such as "D1:2"), each document\'s '
            "pages numbered from 1"
        )
    written, number = f"D{int(match.group(1))}", int(match.group(2))
    member = next((m for m in env.members if m.label.upper() == written), None)
    if member is None:
        raise PageOutside(
            f"there is no document {written}; the documents are "
            f"{', '.join(m.label for m in env.members)}"
        )
    if not 1 <= number <= member.pages:
        raise PageOutside(
            f"page {written}:{number} is outside document {written}, which has pages 1 to "
            f"{member.pages}"
        )
    return member.start + number - 1


def picks(env: DocumentEnv, text: str, within: Member | None = None) -> tuple[list[int], list[str]]:
    """The pages a navigator picked in ``text`` (positions, in order, each once) and the pages
    it wrote that the environment does not have (as written). ``within``: the one document
    of a set whose pages the round showed; bare numbers are read as its pages when the text
    names no labelled page."""
    if not env.is_set:
        numbers = page_numbers(text)
        known = range(1, len(env.pages) + 1)
        return [n - 1 for n in numbers if n in known], [str(n) for n in numbers if n not in known]
    found = env.read_page_labels(text)
    outside = [
        " ".join(written.split())
        for written in (m.group(0) for m in _SET_LABELS.finditer(text))
        if not env.read_page_labels(written)
    ]
    if not found and not outside and within is not None:
        numbers = page_numbers(text)
        found = [within.start + n - 1 for n in numbers if 1 <= n <= within.pages]
        outside = [f"{within.label}:{n}" for n in numbers if not 1 <= n <= within.pages]
    return found, outside


def member_of(env: DocumentEnv, pages: list[int]) -> Member | None:
    """The one document of a set that all of ``pages`` belong to (None: one document, no
    page, or pages of several documents)."""
    if not env.is_set or not pages:
        return None
    members = {env.member(page).label: env.member(page) for page in pages}
    return next(iter(members.values())) if len(members) == 1 else None
