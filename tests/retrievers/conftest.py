"""Session fixtures for retriever tests: the sample document and the tiny models, built once."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.sample_document import draw_document
from helpers.tiny_encoders import tiny_colbert, tiny_colpali, tiny_colqwen2, tiny_sentence_encoder

from docqa.retrievers import IndexedPage


@pytest.fixture(scope="session")
def document(tmp_path_factory: pytest.TempPathFactory) -> list[IndexedPage]:
    return draw_document(tmp_path_factory.mktemp("pages"))


@pytest.fixture(scope="session")
def sentence_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_sentence_encoder(tmp_path_factory.mktemp("sentence"))


@pytest.fixture(scope="session")
def colbert_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_colbert(tmp_path_factory.mktemp("colbert"))


@pytest.fixture(scope="session")
def colqwen2_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_colqwen2(tmp_path_factory.mktemp("colqwen2"))


@pytest.fixture(scope="session")
def colpali_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_colpali(tmp_path_factory.mktemp("colpali"))
