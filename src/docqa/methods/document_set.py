"""The environment of a question over several documents: one :class:`DocumentEnv` over all.

Pages are numbered end to end in document order (the first document's pages, then the
second's, ...): page texts, elements' ``page``, overview grids' ``pages`` and every retriever's
ranking use those numbers, so a method that reads one document reads a set unchanged, and names
pages to a model with ``env.page_label`` (``D2:3``). Retrievers rank the pages of the whole set
at once (:mod:`docqa.retrievers.document_set`).
"""

from __future__ import annotations

from dataclasses import replace

from docqa.core.document import Document
from docqa.methods.base import DocumentEnv, Member
from docqa.retrievers.document_set import join_searchers


def env_over(envs: list[DocumentEnv]) -> DocumentEnv:
    """One environment over the documents of ``envs`` (one-document environments, in order)."""
    if len(envs) < 2:
        raise ValueError("a set needs two or more documents; use the document's own env")
    if any(env.members or env.window for env in envs):
        raise ValueError("env_over joins whole one-document environments")
    members, start = [], 0
    for number, env in enumerate(envs, start=1):
        members.append(Member(env.document, start, len(env.pages), f"D{number}"))
        start += len(env.pages)
    names = [set(env.searchers) for env in envs]
    shared = sorted(set.intersection(*names))
    texts = [env.page_texts for env in envs]
    return DocumentEnv(
        document=set_document(members),
        pages=[page for env in envs for page in env.pages],
        page_texts=[text for pages in texts for text in pages],
        searchers={
            name: join_searchers([env.searchers[name] for env in envs], texts) for name in shared
        },
        elements=[
            replace(element, page=member.start + element.page)
            for env, member in zip(envs, members, strict=True)
            for element in env.elements
        ],
        overviews=[
            {**row, "pages": [member.start + page for page in row["pages"]]}
            for env, member in zip(envs, members, strict=True)
            for row in env.overviews
        ],
        members=members,
    )


def member_env(env: DocumentEnv, member: Member) -> DocumentEnv:
    """The environment of one document of a set, on its own page numbers (no retrievers: for
    what is built per document, such as SlideAgent's knowledge)."""
    end = member.start + member.pages
    return DocumentEnv(
        document=member.document,
        pages=env.pages[member.start : end],
        page_texts=env.page_texts[member.start : end],
        elements=[
            replace(element, page=element.page - member.start)
            for element in env.elements
            if member.start <= element.page < end
        ],
        overviews=[
            {**row, "pages": [page - member.start for page in row["pages"]]}
            for row in env.overviews
            if row.get("doc_id") == member.document.doc_id
        ],
    )


def set_document(members: list[Member]) -> Document:
    """The set as one ``Document`` for what names the environment (messages, caches): its id
    joins the members' ids with ``+``; it has no file of its own (``path`` is empty)."""
    return Document(
        doc_id="+".join(member.document.doc_id for member in members),
        path="",
        num_pages=sum(member.pages for member in members),
        doc_type="set",
    )


def legend(env: DocumentEnv) -> str:
    """The documents of a set as prompts list them, one line each: ``D1: <id> (12 pages)``;
    empty for one document."""
    return "".join(
        f"{member.label}: {member.document.doc_id} ({member.pages} pages)\n"
        for member in env.members
    )
