"""Issue 26, done-when #2: every registered method, and SlideAgent's knowledge build, run through
Snakemake against a model server that is down (a closed port), one that answers HTTP 500 and one
that answers HTTP 401. Every job fails with a message that names the server and the fix, in the
job's log that Snakemake points to, and nothing is scored: no method turns an infrastructure
error into a wrong answer.

The servers are real: nothing listens on the closed port, and the 500 and 401 servers are
stdlib HTTP servers on 127.0.0.1 (helpers/status_server.py) that the openai backend talks to.
The data, render, text, index and model stages run once, and the knowledge base that the
``slideagent`` runs read is built against a server that answers (``prepared``). Each server then
gets a copy of that workflow, without the response cache, and one Snakemake call
(``--keep-going``) runs every method with model ``served`` and builds the knowledge base of
model ``served_again`` (the same entry under another name: its knowledge is not built yet). The
model entries name one port throughout, so no config changes between the preparation and the
failures and Snakemake reruns nothing that is prepared.
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
#: the model whose knowledge base the knowledge case builds (and fails to)
FRESH = "served_again"
KNOWLEDGE = "build_knowledge"
#: what each registered method needs besides its type to run offline on the CPU: its retrievers
#: (BM25 for the page-image retrievers too; a method's retrievers are the options that name one)
NEEDS = {
    "text_rag": {"retriever": "bm25"},
    "image_rag": {"retriever": "bm25"},
    "mdocagent": {"text_retriever": "bm25", "image_retriever": "bm25"},
    "slideagent": {"retriever": "bm25"},
}
#: the server behind the models' port, and what the message must say of it
SERVERS: dict[str, tuple[int | None, tuple[str, ...]]] = {
    "down": (None, ("no answer from {url} after 2 tries (last: cannot connect to {url})",
                    "start it, or correct models.{model}.base_url")),
    "http_500": (500, ("no answer from {url} after 2 tries (last: HTTP 500 from {url})",
                       "see its log for why it fails")),
    "http_401": (401, ("{url} refused the request (HTTP 401)",
                       "set models.{model}.api_key_env")),
}  # fmt: skip
#: Snakemake's arguments: one thread a job, so that two jobs run at once on two cores
PARALLEL = ("--max-threads", "1")


def config_for(port: int) -> dict:
    config = default_config()
    config["datasets"]["synthslides"]["options"] = {
        "seed": 3,
        "decks": 1,
        "slides_per_deck": [6, 6],
        "questions_per_deck": 2,
    }
    entry = {
        "backend": "openai",
        "base_url": f"http://127.0.0.1:{port}/v1",
        "model": "tiny",
        "vision": False,
        "max_retries": 1,
        "backoff_s": 0.01,
        "timeout_s": 30.0,
    }
    config["models"] = {MODEL: entry, FRESH: entry}
    config["methods"] = {name: {"type": name, **NEEDS.get(name, {})} for name in METHODS.names()}
    config["experiments"] = [
        {"datasets": ["synthslides"], "methods": METHODS.names(), "models": [MODEL]}
    ]
    return config


def score_file(method: str) -> str:
    return f"results/scores/synthslides/{method}/{MODEL}.json"


def knowledge_dir(model: str) -> str:
    return f"results/knowledge/synthslides/{model}"


@pytest.fixture(scope="module")
def port() -> int:
    return free_port()


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory, port: int) -> Path:
    """A workflow with every stage before infer done, the knowledge base of ``served`` built
    against a server that answers, and no response cache left."""
    work = workflow_copy(tmp_path_factory.mktemp("prepared"), config_for(port))
    # every input of the infer jobs (the knowledge base needs the pages, the text and the model)
    targets = (
        knowledge_dir(MODEL),
        "results/index/synthslides/bm25/docs",
        "results/pages/synthslides/overviews.jsonl",
        f"results/models/{FRESH}",
    )
    with status_server(port, 200):
        result = snakemake(work, *PARALLEL, *targets)
    assert result.returncode == 0, result.stderr[-5000:]
    assert (work / knowledge_dir(MODEL) / "failures.jsonl").read_text() == ""
    assert not (work / knowledge_dir(FRESH)).exists()
    for cache in (work / "results" / "cache").glob("responses.sqlite*"):
        cache.unlink()
    return work


@dataclass(frozen=True)
class Outcome:
    """One server's Snakemake call and the workflow folder it ran in."""

    work: Path
    result: subprocess.CompletedProcess[str]


@contextmanager
def server(kind: str, port: int) -> Iterator[None]:
    status = SERVERS[kind][0]
    with status_server(port, status) if status else nullcontext():
        yield


@pytest.fixture(scope="module")
def outcome(
    prepared: Path, port: int, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str], Outcome]:
    """The run against server ``kind``, made once for all the cases that read it."""
    made: dict[str, Outcome] = {}

    def run(kind: str) -> Outcome:
        if kind not in made:
            work = tmp_path_factory.mktemp(kind) / "wf"
            shutil.copytree(prepared, work, symlinks=True)
            targets = (*(score_file(m) for m in METHODS.names()), knowledge_dir(FRESH))
            with server(kind, port):
                made[kind] = Outcome(work, snakemake(work, *PARALLEL, "--keep-going", *targets))
        return made[kind]

    return run


@pytest.mark.parametrize("kind", SERVERS)
@pytest.mark.parametrize("case", [*METHODS.names(), KNOWLEDGE])
def test_every_job_fails_naming_the_server_and_the_fix(
    case: str, kind: str, outcome: Callable[[str], Outcome], port: int
) -> None:
    done = outcome(kind)
    work = done.work
    if case == KNOWLEDGE:
        model, log = FRESH, f"results/logs/knowledge/synthslides/{FRESH}.log"
        stops = "could not be built for an infrastructure reason"
        assert not (work / knowledge_dir(FRESH)).exists()
    else:
        model, log = MODEL, f"results/logs/infer/synthslides/{case}/{MODEL}.log"
        stops = "question(s) failed for an infrastructure reason"
        assert not (work / score_file(case)).exists(), f"{case} was scored"
        assert not list((work / f"results/runs/synthslides/{case}/{MODEL}").glob("*.jsonl"))
    assert done.result.returncode != 0
    assert log in done.result.stderr, f"Snakemake names no failed job with the log {log}"
    message = (work / log).read_text()
    assert "the job failed: " in message  # the error that failed it, where Snakemake points
    assert stops in message, message[-3000:]
    for said in SERVERS[kind][1]:
        assert said.format(url=f"http://127.0.0.1:{port}/v1", model=model) in message, message[
            -3000:
        ]
    assert not list((work / "results").glob("scores/**/*.json")), "something was scored"
