"""Creating retrievers from config entries, and the errors a bad entry gets."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from docqa.retrievers import RETRIEVERS, create_retriever
from docqa.retrievers.model_files import check_device
from docqa.runtime.spec import check_entry


def test_every_retriever_of_the_issue_is_registered() -> None:
    RETRIEVERS.load_all()
    assert RETRIEVERS.names() == ["bm25", "colbert", "colpali", "colqwen2", "dense_text", "hybrid"]


def test_registering_loads_no_model_library() -> None:
    import subprocess
    import sys

    code = (
        "import sys; from docqa.retrievers import RETRIEVERS; RETRIEVERS.load_all(); "
        "print(sorted(m for m in ('torch', 'transformers', 'sentence_transformers') "
        "if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "[]", result.stderr


def test_bad_entries_name_the_problem() -> None:
    with pytest.raises(ValueError, match="has no 'type'"):
        create_retriever({"model": "x"})
    with pytest.raises(KeyError, match="unknown retriever 'bm26'; known: bm25"):
        create_retriever({"type": "bm26"})
    with pytest.raises(ValueError, match=r"bm25.k3: .* no option 'k3'.*its options: b, k1"):
        create_retriever({"type": "bm25", "k3": 1.0})
    with pytest.raises(ValueError, match=r"bm25.b: must be at most 1"):
        create_retriever({"type": "bm25", "b": 1.5})
    with pytest.raises(ValueError, match=r"dense_text.device: string should match pattern"):
        create_retriever({"type": "dense_text", "device": "gpu"})


def test_every_retriever_declares_its_options_and_takes_them() -> None:
    """The registered spec is what the constructor gets, defaults filled in."""
    from docqa.retrievers.bm25 import BM25Options

    for name in RETRIEVERS.modules:  # docqa's own (a test may register one of its own)
        spec = RETRIEVERS.options(name)
        assert spec.entry_keys == ("type",), name
        assert all(field.description for field in spec.model_fields.values()), name
    retriever = create_retriever({"type": "bm25", "k1": 1.2})
    assert retriever.options == BM25Options(k1=1.2, b=0.75)  # type: ignore[attr-defined]


CONFIGS = sorted((Path(__file__).parents[2] / "config").glob("**/*.yaml"))


@pytest.mark.parametrize(
    "where",
    [
        f"{path}:{name}"
        for path in CONFIGS
        for name in (yaml.safe_load(path.read_text()) or {}).get("retrievers") or {}
    ],
)
def test_every_retriever_entry_of_the_configs_validates(where: str) -> None:
    path, name = where.split(":")
    entry = yaml.safe_load(Path(path).read_text())["retrievers"][name]
    spec = RETRIEVERS.options(entry["type"])
    assert check_entry(spec, entry, f"retrievers.{name}", entry["type"]) == []


def test_a_cuda_device_without_a_gpu_is_a_config_error() -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU: device cuda is valid here")
    with pytest.raises(RuntimeError, match="set `device: cpu`"):
        check_device("cuda", "colqwen2")
    check_device("cpu", "colqwen2")
