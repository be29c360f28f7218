"""ColBERT through sentence-transformers' MultiVectorEncoder, on a tiny random encoder."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from helpers.sample_document import NO_TEXT_PAGE, TEXTS

from docqa.retrievers import IndexedPage, create_retriever


def test_scores_are_the_encoders_maxsim_and_empty_pages_rank_last(
    document: list[IndexedPage], colbert_encoder: Path, tmp_path: Path
) -> None:
    from sentence_transformers import MultiVectorEncoder

    retriever = create_retriever({"type": "colbert", "model": str(colbert_encoder)})
    retriever.build(document, tmp_path / "doc")
    searcher = retriever.load(tmp_path / "doc")
    query = "hiring plan for engineering"
    scores = searcher.vectors.maxsim(searcher.encode_query(query)).tolist()

    encoder = MultiVectorEncoder(str(colbert_encoder), device="cpu")
    pages = encoder.encode_document(TEXTS[:NO_TEXT_PAGE])
    expected = encoder.similarity(encoder.encode_query([query]), pages)[0]
    assert scores[:NO_TEXT_PAGE] == pytest.approx(expected.tolist(), rel=2e-3)
    assert scores[NO_TEXT_PAGE] == -math.inf
    ranking = searcher.search(query, len(TEXTS))
    assert sorted(ranking) == list(range(len(TEXTS)))
    assert ranking[-1] == NO_TEXT_PAGE


def test_a_long_page_keeps_the_vectors_of_all_its_chunks(
    document: list[IndexedPage], colbert_encoder: Path, tmp_path: Path
) -> None:
    from safetensors.torch import load_file

    words = " ".join(["revenue north south"] * 20)  # 60 words: 3 chunks of 25
    retriever = create_retriever(
        {"type": "colbert", "model": str(colbert_encoder), "chunk_words": 25}
    )
    retriever.build([IndexedPage(words, document[0].image)], tmp_path / "doc")
    lengths = load_file(tmp_path / "doc" / "vectors.safetensors")["lengths"].tolist()
    one_chunk = create_retriever({"type": "colbert", "model": str(colbert_encoder)})
    one_chunk.build([IndexedPage(words, document[0].image)], tmp_path / "whole")
    whole = load_file(tmp_path / "whole" / "vectors.safetensors")["lengths"].tolist()
    assert lengths[0] > whole[0]  # three chunks, each with its own markers, vs one


def test_the_model_is_required(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="colbert.model: field required"):
        create_retriever({"type": "colbert"})
    with pytest.raises(ValueError, match="page_score: must be one of 'union' or 'best_passage'"):
        create_retriever({"type": "colbert", "model": "m", "page_score": "best"})


def test_best_passage_scores_a_page_as_its_best_passage_alone(
    document: list[IndexedPage], colbert_encoder: Path, tmp_path: Path
) -> None:
    """MDocAgent's page score: the page of the best passage, not MaxSim over the union."""
    from docqa.retrievers.chunks import page_chunks

    long_page = " ".join(f"filler{n} words here" for n in range(20)) + " revenue north 2021"
    texts = [long_page, "revenue north", "", "costs south region"]
    pages = [IndexedPage(text, document[0].image) for text in texts]
    options = {"type": "colbert", "model": str(colbert_encoder), "chunk_words": 10}
    best = create_retriever({**options, "page_score": "best_passage"})
    best.build(pages, tmp_path / "best")
    searcher = best.load(tmp_path / "best")
    # every passage indexed as a page of its own, scored by plain MaxSim
    passages = [(page, chunk) for page, text in enumerate(texts) for chunk in page_chunks(text, 10)]
    alone = create_retriever(options)
    alone.build([IndexedPage(chunk, document[0].image) for _, chunk in passages], tmp_path / "one")
    one = alone.load(tmp_path / "one")
    passage_scores = one.vectors.maxsim(one.encode_query("revenue north")).tolist()
    expected = [
        max(
            (s for (p, _), s in zip(passages, passage_scores, strict=True) if p == page),
            default=float("-inf"),
        )
        for page in range(len(texts))
    ]
    assert searcher.page_scores("revenue north").tolist() == pytest.approx(expected)
    ranking = searcher.search("revenue north", len(texts))
    assert ranking[-1] == 2  # no text, no passage
    # MDocAgent's reading of the passage ranking: the page of each best passage, repeats kept
    order = sorted(range(len(passages)), key=lambda i: -passage_scores[i])
    repeats = searcher.search_with_repeats("revenue north", len(passages))
    assert repeats == [passages[i][0] for i in order]
    assert repeats.count(0) == len(page_chunks(long_page, 10))  # every passage of the long page
    with pytest.raises(ValueError, match="page_score=None"):  # a union index is not reused
        create_retriever({**options, "page_score": "best_passage"}).load(tmp_path / "one")


@pytest.fixture(scope="module")
def colbertv2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny encoder in colbertv2.0's folder layout, where the paper config names it."""
    from helpers.tiny_encoders import tiny_stanford_colbert

    return tiny_stanford_colbert(tmp_path_factory.mktemp("models"))


def configured_colbertv2(model: Path, **changes: object) -> dict[str, object]:
    """MDocAgent's ColBERTv2 entry (config/experiments/mdocagent_main.yaml) on ``model``."""
    import yaml

    config = Path(__file__).parents[2] / "config" / "experiments" / "mdocagent_main.yaml"
    entry = yaml.safe_load(config.read_text())["retrievers"]["colbertv2"]
    assert Path(entry["model"]).name == model.name  # the same folder layout
    return {**entry, "model": str(model), "device": "cpu", **changes}


def test_colbertv2_reads_a_whole_passage_not_the_checkpoints_180_tokens(
    colbertv2: Path, document: list[IndexedPage], tmp_path: Path
) -> None:
    """colbertv2.0's artifact.metadata cuts documents at 180 tokens; a 190-word passage of the
    paper config is longer, and the retriever reads all of it (RAGatouille: doc_maxlen = the
    passage length)."""
    import json

    from safetensors.torch import load_file
    from sentence_transformers import MultiVectorEncoder

    from docqa.retrievers.colbert import passage_tokens

    options = configured_colbertv2(colbertv2)
    retriever = create_retriever(options)
    encoder = retriever._encoder()
    assert isinstance(encoder, MultiVectorEncoder)
    assert encoder[0].document_length == 512  # BERT's positions, not artifact.metadata's 180
    assert MultiVectorEncoder(str(colbertv2), device="cpu")[0].document_length == 180
    passage = " ".join(["revenue north south hiring plan"] * 40)
    words = passage.split()[: options["chunk_words"]]  # one whole passage of the config
    tokens = passage_tokens(encoder, [" ".join(words)])[0]
    assert tokens > 180
    retriever.build([IndexedPage(" ".join(words), document[0].image)], tmp_path / "whole")
    lengths = load_file(tmp_path / "whole" / "vectors.safetensors")["lengths"].tolist()
    assert lengths == [tokens]  # a vector for every token: nothing cut
    manifest = json.loads((tmp_path / "whole" / "pages.json").read_text())
    assert (manifest["doc_maxlen"], manifest["passages_cut"]) == (512, 0)

    short = create_retriever(configured_colbertv2(colbertv2, doc_maxlen=128))
    assert short._encoder()[0].document_length == 128
    short.build([IndexedPage(" ".join(words), document[0].image)], tmp_path / "cut")
    cut = json.loads((tmp_path / "cut" / "pages.json").read_text())
    assert (cut["doc_maxlen"], cut["passages_cut"]) == (128, 1)
    assert load_file(tmp_path / "cut" / "vectors.safetensors")["lengths"].tolist() == [128]
    with pytest.raises(ValueError, match="doc_maxlen=512 but is loaded with doc_maxlen=128"):
        short.load(tmp_path / "whole")


def test_colbertv2_encodes_a_long_query_whole_as_ragatouille_search(colbertv2: Path) -> None:
    """colbertv2.0's artifact.metadata pads queries with [MASK] to 32 tokens and cuts longer
    ones; MDocAgent searches through RAGatouille, which raises the length per query to
    int(words * 1.35) (``_upgrade_searcher_maxlen``), so the whole question is encoded."""
    retriever = create_retriever(configured_colbertv2(colbertv2))
    encoder = retriever._encoder()
    question = " ".join(["revenue north south hiring plan"] * 12)  # 60 words
    tokens = len(encoder[0].tokenizer("[unused0] " + question)["input_ids"])
    assert 32 < tokens <= int(60 * 1.35) == retriever.query_maxlen(question)
    vectors = retriever._encode_query(question)
    assert vectors.shape[0] == int(60 * 1.35)  # every token, then [MASK] up to the length
    assert encoder.encode_query([question])[0].shape[0] == 32  # the checkpoint's: cut
    # the encoder keeps the checkpoint's length for the next query
    assert encoder[0].query_expansion["length"] == 32
    short = "hiring plan"
    assert retriever.query_maxlen(short) == 32
    assert retriever._encode_query(short).shape[0] == 32  # [MASK]-expanded to 32, as before
    assert retriever._encode_query(short).tolist() == encoder.encode_query([short])[0].tolist()
    fixed = create_retriever(configured_colbertv2(colbertv2, query_length="checkpoint"))
    assert fixed._encode_query(question).shape[0] == 32


def test_passages_overlap_as_ragatouilles_splitter(
    colbertv2: Path, document: list[IndexedPage], tmp_path: Path
) -> None:
    """RAGatouille overlaps its passages by 64 of 256 tokens; the paper config's 190-word
    passages share 48 words, and the index records it (an index without overlap is not reused)."""
    import json

    from docqa.retrievers.chunks import page_chunks

    options = configured_colbertv2(colbertv2)
    size, overlap = options["chunk_words"], options["overlap_words"]
    assert (size, overlap) == (190, 48)
    words = [f"w{n}" for n in range(400)]
    chunks = [chunk.split() for chunk in page_chunks(" ".join(words), size, overlap)]
    assert [chunk[0] for chunk in chunks] == ["w0", "w142", "w284"]
    assert chunks[0][-overlap:] == chunks[1][:overlap]
    assert chunks[-1][-1] == "w399"
    assert len(chunks[-1]) == 400 - 284
    assert page_chunks(" ".join(words[:190]), size, overlap) == [" ".join(words[:190])]
    assert page_chunks(" ".join(words), 190) == [
        " ".join(words[start : start + 190]) for start in (0, 190, 380)
    ]
    retriever = create_retriever(options)
    text = " ".join(["revenue north south hiring plan"] * 60)  # 300 words: 2 passages
    retriever.build([IndexedPage(text, document[0].image)], tmp_path / "doc")
    manifest = json.loads((tmp_path / "doc" / "pages.json").read_text())
    assert manifest["passage_pages"] == [0, 0]
    assert manifest["overlap_words"] == 48
    with pytest.raises(ValueError, match="overlap_words"):
        create_retriever({**options, "overlap_words": 0}).load(tmp_path / "doc")
    with pytest.raises(ValueError, match="overlap_words=190 must be below chunk_words=190"):
        create_retriever({**options, "overlap_words": 190})
