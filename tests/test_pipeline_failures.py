"""Issue 26, done-when #2: every registered method, and SlideAgent's knowledge build, run through
Snakemake against a model server that is down (a closed port), one that answers HTTP 500 and one
that answers HTTP 401. Every job fails with a message that names the server and the fix, and
nothing is scored: no method turns an infrastructure error into a wrong answer.

The servers are real: nothing listens on the closed port, and the 500 and 401 servers are
stdlib HTTP servers on 127.0.0.1 (helpers/status_server.py) that the openai backend talks to.
The data, render, text, index and model stages run once, and the knowledge base the
``slideagent`` runs read is built against a server that answers (``prepared``); each server
then gets a copy of that workflow with the response cache removed, in which one Snakemake call
runs every method (``--keep-going``) and another rebuilds the knowledge base. The model entry
names one port throughout, so no config changes between the preparation and the failures and
Snakemake reruns nothing that is prepared.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers.serving import free_port
from helpers.status_server import status_server
from helpers.workflow import default_config, snakemake, workflow_copy

from docqa.methods import METHODS

pytestmark = pytest.mark.slow

MODEL = "served"
KNOWLEDGE = "build_knowledge"
KNOWLEDGE_DIR = f"results/knowledge/synthslides/{MODEL}"
#: what each registered method needs besides its type to run offline on the CPU: its retrievers
#: (BM25 for the page-image retrievers too; a method's retrievers are the options that name one)
NEEDS = {
    "text_rag": {"retriever": "bm25"},
    "image_rag": {"retriever": "bm25"},
    "mdocagent": {"text_retriever": "bm25", "image_retriever": "bm25"},
    "slideagent": {"retriever": "bm25"},
}
#: the server behind the model's port, and what the message must say of it (after its URL)
SERVERS: dict[str, tuple[int | None, tuple[str, ...]]] = {
    "down": (None, ("no answer from {url} after 2 tries (last: cannot connect to {url})",
                    "start it, or correct models.served.base_url")),
    "http_500": (500, ("no answer from {url} after 2 tries (last: HTTP 500 from {url})",
                       "see its log for why it fails")),
    "http_401": (401, ("{url} refused the request (HTTP 401)",
                       "set models.served.api_key_env")),
}  # fmt: skip


def config_for(port: int) -> dict:
    config = default_config()
    config["datasets"]["synthslides"]["options"] = {
        "seed": 3,
        "decks": 1,
        "slides_per_deck": [4, 4],
        "questions_per_deck": 2,
    }
    config["models"] = {
        MODEL: {
            "backend": "openai",
            "base_url": f"http://127.0.0.1:{port}/v1",
            "model": "tiny",
            "vision": False,
            "max_retries": 1,
            "backoff_s": 0.01,
            "timeout_s": 30.0,
        }
    }
    config["methods"] = {name: {"type": name, **NEEDS.get(name, {})} for name in METHODS.names()}
    config["experiments"] = [
        {"datasets": ["synthslides"], "methods": METHODS.names(), "models": [MODEL]}
    ]
    return config


def score_file(method: str) -> str:
    return f"results/scores/synthslides/{method}/{MODEL}.json"


def infer_log(method: str) -> str:
    return f"results/logs/infer/synthslides/{method}/{MODEL}.log"


@pytest.fixture(scope="module")
def port() -> int:
    return free_port()


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory, port: int) -> Path:
    """A workflow with every stage before infer done, and the knowledge base built against a
    server that answers; no response cache left."""
    work = workflow_copy(tmp_path_factory.mktemp("prepared"), config_for(port))
    with status_server(port, 200):
        result = snakemake(work, KNOWLEDGE_DIR, "results/index/synthslides/bm25")
    assert result.returncode == 0, result.stderr[-5000:]
    for cache in (work / "results" / "cache").glob("responses.sqlite*"):
        cache.unlink()
    return work


@dataclass(frozen=True)
class Outcome:
    """One server's runs: the workflow folder, Snakemake's run of every method and its rebuild
    of the knowledge base."""

    work: Path
    methods: subprocess.CompletedProcess[str]
    knowledge: subprocess.CompletedProcess[str]


@contextmanager
def server(kind: str, port: int) -> Iterator[None]:
    status = SERVERS[kind][0]
    with status_server(port, status) if status else nullcontext():
        yield


@pytest.fixture(scope="module")
def outcome(
    prepared: Path, port: int, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str], Outcome]:
    """The runs against server ``kind``, made once for all the cases that read them."""
    made: dict[str, Outcome] = {}

    def run(kind: str) -> Outcome:
        if kind not in made:
            work = tmp_path_factory.mktemp(kind) / "wf"
            shutil.copytree(prepared, work, symlinks=True)
            with server(kind, port):
                methods = snakemake(work, "--keep-going", *(score_file(m) for m in METHODS.names()))
                shutil.rmtree(work / KNOWLEDGE_DIR)
                knowledge = snakemake(work, KNOWLEDGE_DIR)
            made[kind] = Outcome(work, methods, knowledge)
        return made[kind]

    return run


@pytest.mark.parametrize("kind", SERVERS)
@pytest.mark.parametrize("case", [*METHODS.names(), KNOWLEDGE])
def test_every_job_fails_naming_the_server_and_the_fix(
    case: str, kind: str, outcome: Callable[[str], Outcome], port: int
) -> None:
    done = outcome(kind)
    url = f"http://127.0.0.1:{port}/v1"
    if case == KNOWLEDGE:
        result, log = done.knowledge, f"results/logs/knowledge/synthslides/{MODEL}.log"
        stops = "could not be built for an infrastructure reason"
        assert not (done.work / KNOWLEDGE_DIR).exists()
    else:
        result, log = done.methods, infer_log(case)
        stops = "question(s) failed for an infrastructure reason"
        assert not (done.work / score_file(case)).exists(), f"{case} was scored"
        assert not list((done.work / f"results/runs/synthslides/{case}/{MODEL}").glob("*.jsonl"))
    assert result.returncode != 0
    assert log in result.stderr, f"Snakemake names no failed job with log {log}"
    message = (done.work / log).read_text()
    assert stops in message
    for said in SERVERS[kind][1]:
        assert said.format(url=url) in message, message[-3000:]
    assert not list((done.work / "results").glob("scores/**/*.json")), "something was scored"


def test_the_prepared_knowledge_base_is_complete(prepared: Path) -> None:
    """The slideagent runs above fail on the server, not on a missing knowledge base."""
    assert (prepared / KNOWLEDGE_DIR / "failures.jsonl").read_text() == ""
    assert list((prepared / KNOWLEDGE_DIR).glob("*.json"))
