"""What every test shares: the helper package on the import path, no downloads, and the acme
document.

Test helpers live in ``tests/helpers`` (``from helpers.workflow import ...``); fixtures live in
the ``conftest.py`` of the folder whose tests use them. Test modules never import each other.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from docqa.methods.base import DocumentEnv

# Tiny models are built here from configs and nothing is downloaded: set before any test module
# imports huggingface_hub, which reads it once. The dataset download tests patch it back off for
# their local fake hub.
os.environ["HF_HUB_OFFLINE"] = "1"

# tests/ on the path, for the helpers package (tests/helpers)
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="session")
def acme(tmp_path_factory: pytest.TempPathFactory) -> DocumentEnv:
    """The acme document (helpers/acme.py), rendered and OCRed by docqa once per session: the
    method tests (tests/methods) and the knowledge stage's (tests/stages) read it."""
    from helpers.acme import build_document

    return build_document(tmp_path_factory.mktemp("acme"))
