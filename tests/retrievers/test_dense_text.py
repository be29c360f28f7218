"""Dense text retrieval: the packaged all-MiniLM-L6-v2 for meaning, a tiny random encoder for
the mechanics (scores, chunks, pages without text, stale indexes)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from helpers.sample_document import NO_TEXT_PAGE, TEXTS

from docqa.retrievers import IndexedPage, create_retriever

FILLER = "The committee reviewed the minutes of the previous meeting and approved them. " * 30


def build(entry: dict, pages: list[IndexedPage], folder: Path):
    retriever = create_retriever({"type": "dense_text", **entry})
    retriever.build(pages, folder)
    return retriever.load(folder)


def test_the_packaged_model_finds_pages_by_meaning(
    document: list[IndexedPage], tmp_path: Path
) -> None:
    searcher = build({}, document, tmp_path / "doc")
    assert searcher.pages == len(TEXTS)
    assert searcher.search("How many people work in engineering?", 1) == [3]
    assert searcher.search("What is on the agenda of the quarterly meeting?", 1) == [0]
    assert searcher.search("How many people work in engineering?", 5)[-1] == NO_TEXT_PAGE


def test_long_pages_are_read_to_the_end(document: list[IndexedPage], tmp_path: Path) -> None:
    image = document[0].image
    pages = [
        IndexedPage(FILLER, image),
        IndexedPage(FILLER + "The engineering team hired 42 new people this year.", image),
        IndexedPage("Revenue by region", image),
    ]
    query = "How many people did the engineering team hire?"
    assert build({}, pages, tmp_path / "chunked").search(query, 1) == [1]
    # one chunk per page: the sentence lies past the encoder's 256 tokens and is never seen
    whole = build({"chunk_words": 10_000}, pages, tmp_path / "whole")
    assert whole.search(query, 1) != [1]


def test_scores_are_the_encoders_cosine_similarity(
    document: list[IndexedPage], sentence_encoder: Path, tmp_path: Path
) -> None:
    from sentence_transformers import SentenceTransformer, util

    searcher = build({"model": str(sentence_encoder)}, document, tmp_path / "doc")
    query = "revenue north"
    scores = searcher.vectors.maxsim(searcher.encode_query(query)).tolist()
    encoder = SentenceTransformer(str(sentence_encoder), device="cpu")
    expected = util.cos_sim(encoder.encode(query), encoder.encode(TEXTS[:NO_TEXT_PAGE]))[0]
    assert scores[:NO_TEXT_PAGE] == pytest.approx(expected.tolist(), abs=2e-3)
    assert scores[NO_TEXT_PAGE] == -math.inf  # an empty page: nothing to match
    assert searcher.search(query, 5)[-1] == NO_TEXT_PAGE


def test_texts_batched_by_token_count_come_back_in_their_own_order(
    sentence_encoder: Path,
) -> None:
    retriever = create_retriever(
        {"type": "dense_text", "model": str(sentence_encoder), "batch_size": 2}
    )
    texts = ["revenue by region and quarter", "headcount", "the agenda", "", "revenue north"]
    together = retriever.encode(texts)
    alone = [retriever.encode([text])[0] for text in texts]
    assert together.shape == (len(texts), alone[0].shape[0])
    for row, single in zip(together.tolist(), alone, strict=True):
        assert row == pytest.approx(single.tolist(), abs=1e-5)
    assert retriever.encode([]).numel() == 0


def test_queries_prepared_in_a_batch_rank_as_queries_encoded_one_by_one(
    document: list[IndexedPage], sentence_encoder: Path, tmp_path: Path
) -> None:
    entry = {"type": "dense_text", "model": str(sentence_encoder)}
    create_retriever(entry).build(document, tmp_path / "doc")
    queries = ["revenue north", "engineering headcount", "quarterly meeting agenda"]
    one_by_one = create_retriever(entry).load(tmp_path / "doc")
    prepared_retriever = create_retriever(entry)
    prepared_retriever.prepare_queries(queries + queries[:1])  # a repeat is encoded once
    prepared = prepared_retriever.load(tmp_path / "doc")
    assert len(prepared_retriever._query_vectors) == 3
    for query in queries:
        batched = prepared.vectors.maxsim(prepared.encode_query(query))
        single = one_by_one.vectors.maxsim(one_by_one.encode_query(query))
        assert batched.tolist() == pytest.approx(single.tolist(), abs=1e-5)
        assert prepared.search(query, 5) == one_by_one.search(query, 5)
    # a query that was not prepared (a method's sub-query) is encoded when searched
    assert prepared.search("revenue by region", 1) == one_by_one.search("revenue by region", 1)
    assert len(prepared_retriever._query_vectors) == 4


def test_an_index_is_loaded_only_with_the_settings_it_was_built_with(
    document: list[IndexedPage], sentence_encoder: Path, tmp_path: Path
) -> None:
    build({"model": str(sentence_encoder)}, document, tmp_path / "doc")
    entry = {"type": "dense_text", "model": str(sentence_encoder), "chunk_words": 7}
    other = create_retriever(entry)
    with pytest.raises(ValueError, match="chunk_words=150 but is loaded with chunk_words=7"):
        other.load(tmp_path / "doc")


def test_a_missing_model_folder_names_the_option(
    document: list[IndexedPage], tmp_path: Path
) -> None:
    retriever = create_retriever({"type": "dense_text", "model": str(tmp_path / "nowhere")})
    with pytest.raises(FileNotFoundError, match="set `model:` to a local folder"):
        retriever.build(document, tmp_path / "doc")


def test_queries_carry_the_task_instruction_and_passages_do_not(
    document: list[IndexedPage], sentence_encoder: Path, tmp_path: Path
) -> None:
    """SFR-Embedding-Mistral's model card: 'Instruct: {task}\\nQuery: {query}' for a query,
    the passage bare; the instruction is slideagent.yaml's SFR entry's."""
    import yaml
    from sentence_transformers import SentenceTransformer

    config = Path(__file__).parents[2] / "config" / "experiments" / "slideagent.yaml"
    sfr = yaml.safe_load(config.read_text())["retrievers"]["sfr_embedding"]
    task = sfr["query_instruction"]
    assert task == "Given a web search query, retrieve relevant passages that answer the query"
    retriever = create_retriever(
        {"type": "dense_text", "model": str(sentence_encoder), "query_instruction": task}
    )
    query = "revenue north"
    assert retriever.query_text(query) == f"Instruct: {task}\nQuery: {query}"
    retriever.build(document, tmp_path / "doc")
    searcher = retriever.load(tmp_path / "doc")
    encoder = SentenceTransformer(str(sentence_encoder), device="cpu")
    instructed = encoder.encode(f"Instruct: {task}\nQuery: {query}", normalize_embeddings=True)
    bare = encoder.encode(query, normalize_embeddings=True)
    vector = searcher.encode_query(query)[0].tolist()
    assert vector == pytest.approx(instructed.tolist(), abs=1e-5)
    assert vector != pytest.approx(bare.tolist(), abs=1e-3)
    # the passages are encoded as they are: the index is the one built without an instruction
    plain = build({"model": str(sentence_encoder)}, document, tmp_path / "plain")
    assert searcher.vectors.maxsim(searcher.encode_query(query)).tolist() == pytest.approx(
        plain.vectors.maxsim(searcher.encode_query(query)).tolist(), abs=1e-5
    )
