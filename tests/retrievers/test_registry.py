"""Creating retrievers from config entries, and the errors a bad entry gets."""

from __future__ import annotations

import pytest

from docqa.retrievers import RETRIEVERS, create_retriever
from docqa.retrievers.model_files import check_device


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
    with pytest.raises(ValueError, match=r"options \['k3'\] do not fit.*it takes: k1, b"):
        create_retriever({"type": "bm25", "k3": 1.0})


def test_a_cuda_device_without_a_gpu_is_a_config_error() -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU: device cuda is valid here")
    with pytest.raises(RuntimeError, match="set `device: cpu`"):
        check_device("cuda", "colqwen2")
    check_device("cpu", "colqwen2")
