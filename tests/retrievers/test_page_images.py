"""ColQwen2 and ColPali page-image retrieval on tiny random models built from configs."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch
from helpers.sample_document import NO_TEXT_PAGE

from docqa.retrievers import IndexedPage, create_retriever
from docqa.retrievers.ranking import top_pages

QUERY = "What is shown on the chart page?"


def reference_scores(family: str, folder: Path, pages: list[IndexedPage]) -> list[float]:
    """MaxSim by the processor's own ``score_retrieval``, one page image at a time."""
    import torch
    import transformers
    from PIL import Image

    model = getattr(transformers, f"{family}ForRetrieval").from_pretrained(folder).eval()
    processor = getattr(transformers, f"{family}Processor").from_pretrained(folder)

    def embed(inputs) -> torch.Tensor:
        inputs.pop("labels", None)
        with torch.inference_mode():
            embeddings = model(**inputs).embeddings[0]
        return embeddings[inputs["attention_mask"][0].bool()]

    query = embed(processor(text=[QUERY], return_tensors="pt"))
    images = [
        embed(processor(images=[Image.open(p.image).convert("RGB")], return_tensors="pt"))
        for p in pages
    ]
    return processor.score_retrieval([query], images)[0].tolist()


@pytest.mark.parametrize(
    ("kind", "family", "fixture"),
    [
        ("colqwen2", "ColQwen2", "colqwen2_model"),
        ("colpali", "ColPali", "colpali_model"),
    ],
)
def test_pages_rank_by_the_models_maxsim_with_or_without_text(
    kind: str,
    family: str,
    fixture: str,
    document: list[IndexedPage],
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    folder = request.getfixturevalue(fixture)
    retriever = create_retriever({"type": kind, "model": str(folder), "batch_size": 3})
    retriever.build(document, tmp_path / "doc")  # batches of 3 mix a portrait page in
    searcher = retriever.load(tmp_path / "doc")
    scores = searcher.vectors.maxsim(searcher.encode_query(QUERY)).tolist()
    expected = reference_scores(family, folder, document)
    assert scores == pytest.approx(expected, rel=1e-2, abs=1e-2)
    assert math.isfinite(scores[NO_TEXT_PAGE])  # read from its image, not its (empty) text
    assert searcher.search(QUERY, len(document)) == top_pages(scores, len(document))


def test_max_pixels_bounds_the_vectors_and_is_part_of_the_index(
    document: list[IndexedPage], colqwen2_model: Path, tmp_path: Path
) -> None:
    from safetensors.torch import load_file

    def vectors(max_pixels: int | None, folder: Path) -> list[int]:
        entry = {"type": "colqwen2", "model": str(colqwen2_model), "max_pixels": max_pixels}
        create_retriever(entry).build(document[:1], folder)
        return load_file(folder / "vectors.safetensors")["lengths"].tolist()

    assert vectors(56 * 56 * 2, tmp_path / "small")[0] < vectors(None, tmp_path / "default")[0]
    loader = create_retriever({"type": "colqwen2", "model": str(colqwen2_model)})
    with pytest.raises(ValueError, match="max_pixels=6272 but is loaded with max_pixels=None"):
        loader.load(tmp_path / "small")


def test_bad_settings_name_the_fix(document: list[IndexedPage], colpali_model: Path) -> None:
    with pytest.raises(ValueError, match="dtype: must be one of 'float32', 'bfloat16' or"):
        create_retriever({"type": "colpali", "model": str(colpali_model), "dtype": "float64"})
    with pytest.raises(ValueError, match="no option 'max_pixels'.*its options: attn_implementa"):
        create_retriever({"type": "colpali", "model": str(colpali_model), "max_pixels": 9})
    with pytest.raises(ValueError, match="max_pixels: must be at least"):
        create_retriever({"type": "colqwen2", "model": str(colpali_model), "max_pixels": 9})


def bfloat16_scores_follow_float32(
    device: str, document: list[IndexedPage], model: Path, folder: Path
) -> None:
    scores = []
    for where, dtype in (("cpu", "float32"), (device, "bfloat16")):
        entry = {"type": "colqwen2", "model": str(model), "device": where, "dtype": dtype}
        retriever = create_retriever(entry)
        retriever.build(document[:2], folder / dtype)
        searcher = retriever.load(folder / dtype)
        scores.append(searcher.vectors.maxsim(searcher.encode_query(QUERY)).tolist())
    assert scores[1] == pytest.approx(scores[0], rel=0.01)


def test_bfloat16_on_the_cpu(
    document: list[IndexedPage], colqwen2_model: Path, tmp_path: Path
) -> None:
    bfloat16_scores_follow_float32("cpu", document, colqwen2_model, tmp_path)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_bfloat16_on_a_gpu(
    document: list[IndexedPage], colqwen2_model: Path, tmp_path: Path
) -> None:
    bfloat16_scores_follow_float32("cuda", document, colqwen2_model, tmp_path)
