"""GPU acceptance: docqa's GPU paths in one prepared run — nf4 and bf16 VLMs, batched agents,
page-image retrieval — written to one JSON with the targets' verdicts, and printed as a table.

Sections (each one's numbers and seconds are in the JSON; it is rewritten after each section,
so a run stopped at its time limit keeps what it measured):

1. ``vlm_throughput``: a random-weight Qwen2.5-VL of the 7B shape through ``TransformersVLM``
   in bf16 and nf4, batch 1/4/16, 1 and 3 pages (``benchmarks/vlm_throughput.py``'s
   measurement). Targets: nf4 peak memory <= 7 GiB at 3 pages batch 1; decode tokens/s at
   batch 16 >= 10x batch 1.
2. ``agentic``: questions per hour of ``text_rag``, ``mdocagent`` and ``docpilot`` through
   ``run_inference`` on synthslides decks, with the same model in nf4: once with the runner's
   concurrency and batching, once sequential at batch 1 (as the reference implementations
   run). Random weights write random text, so the *replies* are scripted (a scripted policy
   over the real backend, ``benchmarks/scripted_policy.py``): every call still runs through the
   real model with the method's own prompt and page images, decoding as many tokens as the
   scripted reply has. Target: concurrent/sequential >= 10x for both agentic methods.
3. ``retrieval``: random-weight ColQwen2 (Qwen2-VL-2B shape) and ColPali (PaliGemma-3B-448
   shape) through docqa's retrievers in bf16: pages/s indexing synthslides pages, ms per query
   (the encoders: ``benchmarks/random_retrievers.py``).
4. ``environment``: GPU, driver, CUDA, Python, torch, transformers, bitsandbytes.

Nothing is downloaded: models are built from configs, the decks come prepared. The inputs
(synthslides decks rendered, OCRed and indexed with bm25) are made once on a CPU machine with
docqa installed, since the GPU machine has no tesseract::

    bash benchmarks/gpu_wheels.sh          # here: .whl/ (wheels) and .gpu-inputs/ (decks)

then on the GPU machine, from a copy of the repository with ``.whl`` and ``.gpu-inputs``
carried (the exact command is in docs/benchmarks.md, "GPU acceptance")::

    PYTHONPATH=src python benchmarks/gpu_acceptance.py --device cuda \\
        --out benchmarks/results/gpu_acceptance-h200.json

The CPU mode runs every section at tiny shapes (the test suite runs it, so that the GPU run
cannot fail on a typo)::

    PYTHONPATH=src python benchmarks/gpu_acceptance.py --device cpu --inputs /tmp/gpu-inputs
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("TQDM_DISABLE", "1")  # progress bars would crowd the device's output tail

import torch
import vlm_throughput
from random_retrievers import build_retriever_model
from scripted_policy import POLICIES, Gold, PolicyBackend

from docqa.backends import BACKENDS
from docqa.backends.base import DEFAULT_MAX_PIXELS, Backend, ModelOptions
from docqa.backends.transformers import TransformersOptions
from docqa.backends.vlm import TransformersVLM
from docqa.core.jsonl import read_jsonl, write_jsonl
from docqa.core.question import Question
from docqa.runtime.spec import Field

REPO = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).parent / "results"
DEFAULT_INPUTS = REPO / ".gpu-inputs"
GiB = 2**30
#: the most tokens of the random VLM's tokenizer (trained on the prompts and pages)
TOKENIZER_VOCAB = 8000

#: settings for a GPU run (7B shape) and for the CPU mode (tiny shapes, what the test runs)
MODES: dict[str, dict[str, Any]] = {
    "gpu": dict(
        shape="7b",
        retriever_shape="real",
        precisions=["bf16", "nf4"],
        batch_sizes=[1, 4, 16],
        pages=[1, 3],
        new_tokens=32,
        repeats=1,
        max_pixels=DEFAULT_MAX_PIXELS,
        attn="sdpa",
        questions=32,
        sequential_questions=2,
        concurrency=32,
        max_batch_size=16,
        top_k=4,  # text_rag_top4
        # mdocagent_top1: each question sends 3 x top_k page images, and the vision encoder's
        # windowed attention runs window by window under SDPA (no flash-attn there)
        mdocagent_top_k=1,
        retrieval_pages=24,
        queries=12,
        retrieval_dtype="bfloat16",
        reply_token_cap=None,
        budget_s=420,
        decks=4,
        slides=[8, 12],
        questions_per_deck=8,
        dpi=200,
    ),
    "cpu": dict(
        shape="tiny",
        retriever_shape="tiny",
        precisions=["bf16", "nf4"],
        batch_sizes=[1, 2],
        pages=[1, 2],
        new_tokens=3,
        repeats=1,
        max_pixels=112 * 112,
        attn="eager",  # SDPA gives NaN rows for left-padded batches on CPU
        questions=4,
        sequential_questions=2,
        concurrency=4,
        max_batch_size=4,
        top_k=2,
        mdocagent_top_k=2,
        retrieval_pages=4,
        queries=3,
        retrieval_dtype="float32",
        reply_token_cap=6,  # the tiny model in nf4 decodes slowly on a CPU
        budget_s=0,
        decks=1,
        slides=[6, 6],
        questions_per_deck=4,
        dpi=100,
    ),
}

# --------------------------------------------------------------------------- environment


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def environment(device: str) -> dict[str, Any]:
    """What the run ran on: the accelerator, its driver and the versions that decide results."""
    info: dict[str, Any] = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None,
        **{name: _version(name) for name in ("transformers", "tokenizers", "accelerate")},
        "bitsandbytes": _version("bitsandbytes"),
        "pypdfium2": _version("pypdfium2"),
        "bm25s": _version("bm25s"),
    }
    if device.startswith("cuda"):
        index = torch.device(device).index or 0
        properties = torch.cuda.get_device_properties(index)
        info["gpu"] = {
            "name": properties.name,
            "memory_gib": round(properties.total_memory / GiB, 1),
            "capability": f"{properties.major}.{properties.minor}",
            "count": torch.cuda.device_count(),
        }
        info["driver"] = _nvidia_smi("driver_version")
    else:
        info["gpu"] = None
        info["cpu"] = platform.processor() or platform.machine()
    try:
        commit = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True
        )
        info["commit"] = commit.stdout.strip() or None
    except OSError:
        info["commit"] = None
    return info


def _nvidia_smi(field: str) -> str | None:
    try:
        out = subprocess.run(
            ["nvidia-smi", f"--query-gpu={field}", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout else None


# --------------------------------------------------------------------------- inputs

#: the prepared files, with paths relative to the inputs folder
INPUT_FILES = {
    "documents": "data/documents.jsonl",
    "questions": "data/questions.jsonl",
    "pages": "pages/pages.jsonl",
    "overviews": "pages/overviews.jsonl",
    "elements": "text/elements.jsonl",
}
#: the fields of each file that hold paths
PATH_FIELDS = {"documents": ("path",), "pages": ("image", "thumbnail"), "overviews": ("image",)}
MANIFEST = "inputs.json"


def prepare_inputs(folder: Path, decks: int, slides: list[int], questions: int, dpi: int) -> None:
    """synthslides decks, rendered, their text read and indexed with bm25 by docqa's own stages
    (needs tesseract and the whole of docqa: a CPU machine). Paths in the files are made relative to
    ``folder``, so that it can be carried to another machine."""
    from docqa.datasets import prepare
    from docqa.stages.index import build_indexes
    from docqa.stages.render import render_dataset
    from docqa.stages.text import text_dataset

    folder = folder.resolve()
    if folder.exists() and any(folder.iterdir()):
        if not (folder / MANIFEST).exists():
            raise FileExistsError(
                f"{folder} is not empty and holds no {MANIFEST}: name an empty or a new folder "
                "for the inputs"
            )
        shutil.rmtree(folder)  # inputs prepared before: made again
    started = time.perf_counter()
    options = {"seed": 0, "decks": decks, "slides_per_deck": slides}
    prepare("synthslides", folder / "data", {**options, "questions_per_deck": questions})
    render_dataset(folder / INPUT_FILES["documents"], folder / "pages", dpi=dpi)
    text_dataset(
        folder / INPUT_FILES["documents"],
        folder / INPUT_FILES["pages"],
        folder / INPUT_FILES["elements"],
        workers=2,
    )
    build_indexes(
        {"type": "bm25"},
        folder / INPUT_FILES["pages"],
        folder / INPUT_FILES["elements"],
        folder / "index" / "bm25",
    )
    for name, fields in PATH_FIELDS.items():
        _rewrite_paths(folder / INPUT_FILES[name], fields, lambda p: os.path.relpath(p, folder))
    manifest = {
        "synthslides": {**options, "questions_per_deck": questions},
        "render_dpi": dpi,
        "seconds": round(time.perf_counter() - started, 1),
        "files": INPUT_FILES,
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")


def _rewrite_paths(path: Path, fields: tuple[str, ...], change: Callable[[str], str]) -> None:
    rows = list(read_jsonl(path))
    for row in rows:
        for key in fields:
            if row.get(key):
                row[key] = change(row[key])
    write_jsonl(path, rows)


@dataclass(frozen=True)
class Inputs:
    """The prepared inputs, copied into the work folder with absolute paths."""

    folder: Path
    files: dict[str, Path]
    questions: list[Question]
    page_texts: dict[str, list[str]]
    manifest: dict[str, Any]

    @property
    def bm25(self) -> Path:
        return self.folder / "index" / "bm25"


def load_inputs(folder: Path, work: Path) -> Inputs:
    folder = folder.resolve()
    manifest_path = folder / MANIFEST
    if not manifest_path.exists():
        raise FileNotFoundError(
            f"{manifest_path} is missing: prepare the inputs on a CPU machine with docqa "
            "installed (bash benchmarks/gpu_wheels.sh, or this script with --prepare-only) "
            "and carry the folder along"
        )
    files = {}
    for name, relative in INPUT_FILES.items():
        files[name] = work / "inputs" / Path(relative).name
        files[name].parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(folder / relative, files[name])
        if name in PATH_FIELDS:
            _rewrite_paths(files[name], PATH_FIELDS[name], lambda p: str(folder / p))
    from docqa.text.page_texts import load_page_texts

    texts = load_page_texts(files["elements"], files["pages"])
    questions = [Question.from_dict(row) for row in read_jsonl(files["questions"])]
    questions = [q for q in questions if q.doc_id in texts]
    return Inputs(folder, files, questions, texts, json.loads(manifest_path.read_text()))


def tokenizer_corpus(inputs: Inputs) -> list[str]:
    """Texts the random model's tokenizer is trained on, so that the methods' prompts get
    realistic token counts: the methods' prompt strings, the pages' OCR text, the questions."""
    from docqa.methods import prompts as reading_prompts
    from docqa.methods.docpilot import prompts as docpilot_prompts
    from docqa.methods.mdocagent import prompts as mdocagent_prompts

    corpus = [
        value
        for module in (mdocagent_prompts, reading_prompts, docpilot_prompts)
        for value in vars(module).values()
        if isinstance(value, str) and len(value) > 40
    ]
    corpus += [text for texts in inputs.page_texts.values() for text in texts]
    corpus += [q.question for q in inputs.questions]
    return corpus * 3


# --------------------------------------------------------------------------- section 2

POLICY_BACKEND = "gpu-acceptance-policy"


@dataclass
class Rig:
    """What the policy backend factory hands out: the loaded model and the questions."""

    model: TransformersVLM | None = None
    gold: Gold | None = None
    last: PolicyBackend | None = None


RIG = Rig()


class PolicyOptions(ModelOptions):
    """The policy backend's model entry: which scripted policy, for which run."""

    policy: str = Field(description="the method whose scripted replies the backend gives")
    run: str = Field(description="sequential or concurrent: names the backend's identity")
    max_batch_size: int = Field(1, ge=1, description="requests answered in one batch")
    token_cap: int | None = Field(None, ge=1, description="new tokens a reply may take")


@BACKENDS.register(POLICY_BACKEND, options=PolicyOptions)
def _policy_backend(options: PolicyOptions, model_dir: Path) -> Backend:
    """The run's model as run_inference creates it: the loaded nf4 model behind the scripted
    policy of ``options.policy``."""
    if RIG.model is None or RIG.gold is None:
        raise RuntimeError("the gpu-acceptance policy backend has no loaded model")
    tokenizer = RIG.model.processor.tokenizer
    RIG.last = PolicyBackend(
        RIG.model,
        POLICIES[options.policy](RIG.gold),
        lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"]),
        options.max_batch_size,
        f"{options.policy}-{options.run}",
        options.token_cap,
    )
    return RIG.last


METHOD_CONFIGS: dict[str, Callable[[argparse.Namespace, Path], dict[str, Any]]] = {
    "text_rag": lambda args, work: {"type": "text_rag", "retriever": "bm25", "top_k": args.top_k},
    "mdocagent": lambda args, work: {
        "type": "mdocagent",
        "text_retriever": "bm25",
        "image_retriever": "bm25",
        "top_k": args.mdocagent_top_k,
    },
    "docpilot": lambda args, work: {
        "type": "docpilot",
        "max_steps": 12,
        "crops_dir": str(work / "crops"),
    },
}
#: the trace of a question that went as scripted (``step``, or ``agent``/``action`` names)
EXPECTED_TRAJECTORIES = {
    "text_rag": ["retrieve", "read"],
    "mdocagent": [
        "retrieve",
        "retrieve",
        "general",
        "critical",
        "text",
        "image",
        "summarizer",
        "result",
    ],
    "docpilot": ["navigate", "extract", "focus", "solve", "analyze", "answer", "summary"],
}


def _step_name(step: dict[str, Any]) -> str:
    return str(step.get("action") or step.get("agent") or step.get("step"))


def went_as_scripted(row: dict[str, Any], expected: list[str]) -> bool:
    """A prediction whose trace is the scripted trajectory with nothing refused or replaced:
    no error, no fallback in any step or in the usage, no DocPilot failure, every sandbox run
    ok."""
    trace = row.get("trace", [])
    return (
        not row.get("error")
        and [_step_name(step) for step in trace] == expected
        and not row.get("usage", {}).get("fallbacks")
        and not any(step.get("fallbacks") for step in trace)
        and not any(any(step.get("failures", {}).values()) for step in trace)
        and all(step["sandbox"].get("kind") == "ok" for step in trace if "sandbox" in step)
    )


def run_method(
    method: str,
    inputs: Inputs,
    work: Path,
    args: argparse.Namespace,
    questions: int,
    concurrency: int,
    max_batch_size: int,
    run: str,
) -> dict[str, Any]:
    """``questions`` questions of ``method`` through run_inference; questions/hour and what the
    model was asked."""
    from docqa.backends.model_spec import ModelSpec
    from docqa.stages.infer import run_inference

    folder = work / f"{method}-{run}"
    folder.mkdir(parents=True, exist_ok=True)
    chosen = inputs.questions[:questions]
    write_jsonl(folder / "questions.jsonl", (q.to_dict() for q in chosen))
    model_cfg = {
        "backend": POLICY_BACKEND,
        "policy": method,
        "run": run,
        "max_batch_size": max_batch_size,
        "token_cap": args.reply_token_cap,
    }
    started = time.perf_counter()
    run_inference(
        questions=folder / "questions.jsonl",
        documents=inputs.files["documents"],
        pages=inputs.files["pages"],
        elements=inputs.files["elements"],
        index_dirs={"bm25": inputs.bm25},
        failures=folder / "failures.jsonl",
        method_config=METHOD_CONFIGS[method](args, folder),
        retriever_configs={"bm25": {"type": "bm25"}},
        model=ModelSpec(model_cfg, folder),
        role_models={},
        cache=folder / "responses.sqlite",
        out=folder / "predictions.jsonl",
        concurrency=concurrency,
        overviews=inputs.files["overviews"],
    )
    wall = time.perf_counter() - started
    assert RIG.last is not None
    calls = RIG.last.calls
    predictions = list(read_jsonl(folder / "predictions.jsonl"))
    trajectories = Counter(
        " > ".join(_step_name(step) for step in row.get("trace", [])) for row in predictions
    )
    expected = EXPECTED_TRAJECTORIES[method]
    as_scripted = sum(went_as_scripted(row, expected) for row in predictions)
    requests = sum(call.batch_size for call in calls)
    return {
        "questions": len(predictions),
        "concurrency": concurrency,
        "max_batch_size": max_batch_size,
        "wall_s": round(wall, 2),
        "questions_per_hour": round(len(predictions) / wall * 3600, 1),
        "model_calls": requests,
        "calls_per_question": round(requests / max(1, len(predictions)), 2),
        "batches": len(calls),
        "mean_batch_size": round(requests / max(1, len(calls)), 2),
        "largest_batch": max((call.batch_size for call in calls), default=0),
        "model_busy_s": round(sum(call.seconds for call in calls), 2),
        "prompt_tokens_per_call": round(sum(c.tokens_in for c in calls) / max(1, requests), 1),
        "image_tokens_per_call": round(sum(c.image_tokens for c in calls) / max(1, requests), 1),
        "new_tokens_per_call": round(sum(c.tokens_out for c in calls) / max(1, requests), 1),
        "peak_memory_mb": round(max((c.peak_memory_mb for c in calls), default=0.0), 1),
        "as_scripted": as_scripted,
        "errors": [row["error"] for row in predictions if row.get("error")][:3],
        "trajectories": dict(trajectories.most_common(3)),
    }


def measure_agent(
    method: str, inputs: Inputs, work: Path, args: argparse.Namespace
) -> dict[str, Any]:
    """One method sequential (concurrency 1, batch 1) on a few questions, then concurrent and
    batched on more; the ratio of their questions per hour."""
    sequential = run_method(
        method, inputs, work, args, args.sequential_questions, 1, 1, "sequential"
    )
    print(_agent_line(method, "sequential", sequential))
    concurrent = run_method(
        method,
        inputs,
        work,
        args,
        args.questions,
        args.concurrency,
        args.max_batch_size,
        "concurrent",
    )
    print(_agent_line(method, "concurrent", concurrent))
    ratio = concurrent["questions_per_hour"] / sequential["questions_per_hour"]
    return {"sequential": sequential, "concurrent": concurrent, "speedup": round(ratio, 2)}


def _agent_line(method: str, run: str, row: dict[str, Any]) -> str:
    return (
        f"  {method} {run}: {row['questions']} questions in {row['wall_s']} s = "
        f"{row['questions_per_hour']} q/h; {row['model_calls']} calls in {row['batches']} "
        f"batches (mean {row['mean_batch_size']}); as scripted {row['as_scripted']}"
    )


# --------------------------------------------------------------------------- section 3


def measure_retriever(
    name: str, inputs: Inputs, work: Path, args: argparse.Namespace, corpus: list[str]
) -> dict[str, Any]:
    """Build a random ``name`` encoder, index ``retrieval_pages`` pages, time the queries."""
    from docqa.retrievers import IndexedPage, create_retriever, page_images

    folder = work / f"{name}-model"
    started = time.perf_counter()
    parameters = build_retriever_model(
        name, folder, args.retriever_shape, args.device, args.retrieval_dtype, corpus
    )
    build_s = time.perf_counter() - started
    pages = [
        IndexedPage(inputs.page_texts[row["doc_id"]][row["index"]], Path(row["image"]))
        for row in read_jsonl(inputs.files["pages"])
        if row["doc_id"] in inputs.page_texts
    ][: args.retrieval_pages]
    entry = {
        "type": name,
        "model": str(folder),
        "device": args.device,
        "dtype": args.retrieval_dtype,
        "attn_implementation": args.attn,
    }
    retriever: Any = create_retriever(entry)
    started = time.perf_counter()
    retriever._model()  # the load, timed on its own
    load_s = time.perf_counter() - started
    retriever.build(pages[: retriever.options.batch_size], work / f"{name}-warmup")
    started = time.perf_counter()
    retriever.build(pages, work / f"{name}-index")
    index_s = time.perf_counter() - started
    searcher = retriever.load(work / f"{name}-index")
    asked = [q.question for q in inputs.questions]
    queries = [asked[i % len(asked)] for i in range(args.queries + 2)]  # 2 warm-ups first
    for query in queries[:2]:  # warm-up
        searcher.search(query, 4)
    times = []
    for query in queries[2:]:
        started = time.perf_counter()
        ranked = searcher.search(query, 4)
        times.append((time.perf_counter() - started) * 1000)
        assert len(ranked) == min(4, len(pages))
    vectors = searcher.vectors.mask.sum(dim=1).float()
    result = {
        "shape": args.retriever_shape,
        "parameters": parameters,
        "dtype": args.retrieval_dtype,
        "batch_size": retriever.options.batch_size,
        "build_model_s": round(build_s, 1),
        "load_s": round(load_s, 1),
        "pages": len(pages),
        "index_s": round(index_s, 3),
        "pages_per_s": round(len(pages) / index_s, 2),
        "vectors_per_page": round(float(vectors.mean()), 1),
        "queries": len(times),
        "query_ms_median": round(statistics.median(times), 2),
        "query_ms_max": round(max(times), 2),
    }
    page_images._load.cache_clear()
    del retriever, searcher
    _free(args.device)
    shutil.rmtree(folder, ignore_errors=True)
    return result


# --------------------------------------------------------------------------- targets, table


def targets(report: dict[str, Any]) -> dict[str, Any]:
    """The issue's targets on these numbers (binding for the 7B shape on a GPU only)."""
    checks = dict(vlm_throughput.targets(report.get("vlm_throughput", {}).get("results", {})))
    for method in ("mdocagent", "docpilot"):
        agent = report.get("agentic", {}).get("methods", {}).get(method)
        if agent:
            checks[f"{method}_questions_per_hour_concurrent_over_sequential"] = {
                "value": agent["speedup"],
                "target": ">= 10",
                "met": agent["speedup"] >= 10,
            }
    return checks


def print_table(report: dict[str, Any]) -> None:
    vlm = report.get("vlm_throughput", {}).get("results", {})
    for precision, rows in vlm.items():
        vlm_throughput.print_table(precision, rows)
    methods = report.get("agentic", {}).get("methods", {})
    if methods:
        print("method      run         questions   q/h      calls/q  mean batch  as scripted")
        for method, runs in methods.items():
            for run in ("sequential", "concurrent"):
                r = runs[run]
                print(
                    f"{method:<11} {run:<11} {r['questions']:>9} {r['questions_per_hour']:>8.0f} "
                    f"{r['calls_per_question']:>8.1f} {r['mean_batch_size']:>11.1f} "
                    f"{r['as_scripted']:>12}"
                )
            print(f"{method:<11} speedup {runs['speedup']}x")
    retrieval = report.get("retrieval", {})
    if retrieval:
        print("retriever  params(B)  pages/s  vectors/page  query ms (median)")
        for name, r in retrieval.items():
            print(
                f"{name:<10} {r['parameters'] / 1e9:>9.3f} {r['pages_per_s']:>8.2f} "
                f"{r['vectors_per_page']:>13.0f} {r['query_ms_median']:>18.1f}"
            )
    for key, check in report.get("targets", {}).items():
        verdict = "met" if check["met"] else "MISSED"
        print(f"target {key}: {check['value']} ({check['target']}) {verdict}")


# --------------------------------------------------------------------------- main


def _free(device: str) -> None:
    gc.collect()
    if device.startswith("cuda"):
        torch.cuda.empty_cache()


class Sections:
    """Times each section, skips those that start after the budget, writes the report after
    each one. A section that raises is recorded under ``failed`` (its error and the end of its
    traceback) and the run goes on with the next: one broken section must not cost the GPU run
    the others. The script then exits with status 1."""

    def __init__(self, report: dict[str, Any], out: Path, budget_s: float) -> None:
        self.report = report
        self.out = out
        self.budget_s = budget_s
        self.started = time.perf_counter()
        report["seconds"] = {}
        report["skipped"] = []
        report["failed"] = {}

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def run(self, name: str, work: Callable[[], None]) -> bool:
        if self.budget_s and self.elapsed() > self.budget_s:
            print(f"[{self.elapsed():.0f} s] skipped {name}: past the {self.budget_s:.0f} s budget")
            self.report["skipped"].append(name)
            self.write()
            return False
        print(f"[{self.elapsed():.0f} s] {name}", flush=True)
        started = time.perf_counter()
        try:
            work()
        except Exception as error:
            traceback.print_exc()
            lines = traceback.format_exc().strip().splitlines()
            self.report["failed"][name] = {
                "error": f"{type(error).__name__}: {error}"[:2000],
                "traceback": lines[-12:],
            }
        self.report["seconds"][name] = round(time.perf_counter() - started, 1)
        self.report["seconds"]["total"] = round(self.elapsed(), 1)
        self.write()
        return name not in self.report["failed"]

    def write(self) -> None:
        self.report["targets"] = targets(self.report)
        self.out.parent.mkdir(parents=True, exist_ok=True)
        self.out.write_text(json.dumps(self.report, indent=2) + "\n")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--inputs", type=Path, default=DEFAULT_INPUTS)
    parser.add_argument(
        "--prepare-only", action="store_true", help="prepare --inputs (CPU, tesseract) and stop"
    )
    parser.add_argument("--prepare", action="store_true", help="prepare --inputs first")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--workdir", type=Path, default=None, help="default: a temporary folder")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument(
        "--sections", nargs="+", default=["vlm", "agentic", "retrieval"], help="what to run"
    )
    parser.add_argument("--methods", nargs="+", default=["text_rag", "mdocagent", "docpilot"])
    parser.add_argument("--retrievers", nargs="+", default=["colqwen2", "colpali"])
    # each of these defaults to its MODES value (gpu on cuda, cpu otherwise)
    parser.add_argument("--shape", choices=sorted(vlm_throughput.SHAPES))
    parser.add_argument("--retriever-shape", choices=["real", "tiny"])
    parser.add_argument("--precisions", nargs="+")
    parser.add_argument("--batch-sizes", nargs="+", type=int)
    parser.add_argument("--pages", nargs="+", type=int)
    parser.add_argument("--new-tokens", type=int)
    parser.add_argument("--repeats", type=int)
    parser.add_argument("--max-pixels", type=int)
    parser.add_argument("--attn")
    parser.add_argument("--questions", type=int, help="questions of each concurrent run")
    parser.add_argument("--sequential-questions", type=int)
    parser.add_argument("--concurrency", type=int)
    parser.add_argument("--max-batch-size", type=int)
    parser.add_argument("--top-k", type=int, help="text_rag's pages")
    parser.add_argument("--mdocagent-top-k", type=int, help="mdocagent's pages of each kind")
    parser.add_argument("--reply-token-cap", type=int, help="most tokens decoded per call")
    parser.add_argument("--retrieval-pages", type=int)
    parser.add_argument("--queries", type=int)
    parser.add_argument("--retrieval-dtype")
    parser.add_argument("--budget-s", type=float, help="skip sections that start after this")
    parser.add_argument("--decks", type=int)
    parser.add_argument("--slides", nargs=2, type=int)
    parser.add_argument("--questions-per-deck", type=int)
    parser.add_argument("--dpi", type=int)
    args = parser.parse_args(argv)
    args.mode = "gpu" if args.device.startswith("cuda") else "cpu"
    for key, value in MODES[args.mode].items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    return args


def main(argv: list[str] | None = None) -> Path | None:
    args = parse_args(argv)
    if args.prepare or args.prepare_only:
        prepare_inputs(args.inputs, args.decks, args.slides, args.questions_per_deck, args.dpi)
        print(f"prepared {args.inputs}")
        if args.prepare_only:
            return None
    if args.threads:
        torch.set_num_threads(args.threads)
    on_gpu = args.mode == "gpu"
    env = environment(args.device)
    name = env["gpu"]["name"] if on_gpu else "cpu"
    out = args.out or RESULTS / (
        "gpu_acceptance-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") + ".json"
    )
    work = Path(args.workdir or tempfile.mkdtemp(prefix="gpu-acceptance-"))
    work.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {
        "benchmark": "gpu_acceptance",
        "command": "PYTHONPATH=src python benchmarks/gpu_acceptance.py "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "mode": args.mode,
        "targets_apply": on_gpu and args.shape == "7b" and args.retriever_shape == "real",
        "environment": env,
    }
    sections = Sections(report, out, args.budget_s)
    try:
        _run(args, work, report, sections)
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    sections.write()
    print_table(report)
    print(f"wrote {out}")
    if report["failed"]:
        raise SystemExit(f"sections failed: {', '.join(report['failed'])} (see {out})")
    return out


def _run(args: argparse.Namespace, work: Path, report: dict[str, Any], sections: Sections) -> None:
    """build the model; bf16 (throughput); the retrievers; nf4 (throughput, then the agents on
    the same loaded model). The agents come last: they are the longest, and the budget cuts
    what starts after it."""
    inputs = load_inputs(args.inputs, work)
    report["inputs"] = {
        **inputs.manifest,
        "documents": len(inputs.page_texts),
        "pages": sum(len(texts) for texts in inputs.page_texts.values()),
        "questions": len(inputs.questions),
    }
    corpus = tokenizer_corpus(inputs)
    model_dir = work / "model"
    precisions = [p for p in args.precisions if "vlm" in args.sections]
    if "agentic" in args.sections and "nf4" not in precisions:
        precisions.append("nf4")
    if precisions:
        sections.run("build_model", lambda: _build(model_dir, corpus, args, report))
    for precision in [p for p in precisions if p != "nf4"]:
        _precision(precision, model_dir, inputs, work, args, report, sections)
    if "retrieval" in args.sections:
        report["retrieval"] = {}
        for name in args.retrievers:
            sections.run(
                f"retrieval_{name}",
                lambda name=name: _retrieval(name, inputs, work, args, corpus, report),
            )
    if "nf4" in precisions:
        _precision("nf4", model_dir, inputs, work, args, report, sections)
    shutil.rmtree(model_dir, ignore_errors=True)


def _retrieval(
    name: str,
    inputs: Inputs,
    work: Path,
    args: argparse.Namespace,
    corpus: list[str],
    report: dict[str, Any],
) -> None:
    result = measure_retriever(name, inputs, work, args, corpus)
    report["retrieval"][name] = result
    print(f"  {name}: {result['pages_per_s']} pages/s, {result['query_ms_median']} ms/query")


def _precision(
    precision: str,
    model_dir: Path,
    inputs: Inputs,
    work: Path,
    args: argparse.Namespace,
    report: dict[str, Any],
    sections: Sections,
) -> None:
    """Load the model in ``precision`` once: its throughput, then (nf4) the agents."""
    loaded: list[TransformersVLM] = []

    def load() -> None:
        settings = TransformersOptions(
            path=str(model_dir),
            precision=precision,
            device=args.device,
            attn_implementation=args.attn,
            max_pixels=args.max_pixels,
            max_batch_size=max(args.batch_sizes + [args.max_batch_size]),
        )
        started = time.perf_counter()
        loaded.append(
            TransformersVLM(f"random-{args.shape}", model_dir, {"id": args.shape}, settings)
        )
        report["vlm_throughput"]["load_seconds"][precision] = round(
            time.perf_counter() - started, 1
        )

    if not sections.run(f"load_{precision}", load):
        return
    backend = loaded.pop()
    try:
        if "vlm" in args.sections and precision in args.precisions:
            sections.run(
                f"vlm_{precision}", lambda: _throughput(precision, backend, work, args, report)
            )
        if precision == "nf4" and "agentic" in args.sections:
            _agents(backend, inputs, work, args, report, sections)
    finally:
        RIG.model = None
        backend.close()
        _free(args.device)


def _throughput(
    precision: str,
    backend: TransformersVLM,
    work: Path,
    args: argparse.Namespace,
    report: dict[str, Any],
) -> None:
    rows = vlm_throughput.measure(
        backend, work, args.batch_sizes, args.pages, args.new_tokens, args.repeats
    )
    report["vlm_throughput"]["results"][precision] = rows
    vlm_throughput.print_table(precision, rows)


def _agents(
    backend: TransformersVLM,
    inputs: Inputs,
    work: Path,
    args: argparse.Namespace,
    report: dict[str, Any],
    sections: Sections,
) -> None:
    RIG.model, RIG.gold = backend, Gold(inputs.questions)
    report["agentic"] = {
        "model": f"the vlm_throughput model ({args.shape} shape, random weights) in nf4",
        "policy": "scripted replies over the real backend (benchmarks/scripted_policy.py): "
        "every call runs through the model with the method's own prompt and pages, decoding "
        "as many tokens as the scripted reply has in the model's tokenizer",
        "tokenizer": _tokenizer_note(backend, inputs),
        "settings": {
            "text_rag_top_k": args.top_k,
            "mdocagent_top_k": args.mdocagent_top_k,
            "max_pixels": args.max_pixels,
            "reply_token_cap": args.reply_token_cap,
            "sequential": {"concurrency": 1, "max_batch_size": 1},
            "concurrent": {"concurrency": args.concurrency, "max_batch_size": args.max_batch_size},
        },
        "methods": {},
    }
    for method in args.methods:
        sections.run(
            f"agentic_{method}",
            lambda method=method: report["agentic"]["methods"].update(
                {method: measure_agent(method, inputs, work, args)}
            ),
        )


def _build(model_dir: Path, corpus: list[str], args: argparse.Namespace, report: dict) -> None:
    parameters = vlm_throughput.build_model(
        model_dir, args.shape, args.device, corpus=corpus, tokenizer_vocab=TOKENIZER_VOCAB
    )
    report["vlm_throughput"] = {
        "model": {
            "architecture": "Qwen2_5_VLForConditionalGeneration",
            "shape": args.shape,
            "parameters": parameters,
            "weights": "random",
        },
        "settings": {
            "attn_implementation": args.attn,
            "max_pixels": args.max_pixels,
            "new_tokens": args.new_tokens,
            "repeats": args.repeats,
            "page_size": [1280, 720],
        },
        "peak_memory": (
            "torch.cuda.max_memory_allocated" if args.mode == "gpu" else "process peak RSS"
        ),
        "load_seconds": {},
        "results": {},
    }


def _tokenizer_note(backend: TransformersVLM, inputs: Inputs) -> dict[str, Any]:
    """How many characters a token of the random model's tokenizer holds on the page texts:
    prompt lengths in tokens depend on it."""
    tokenizer = backend.processor.tokenizer
    texts = [text for texts in inputs.page_texts.values() for text in texts if text]
    chars = sum(len(text) for text in texts)
    tokens = sum(len(tokenizer(text, add_special_tokens=False)["input_ids"]) for text in texts)
    return {
        "kind": "byte-level BPE trained here on the methods' prompts, page texts and questions",
        "vocabulary": len(tokenizer),
        "chars_per_token_on_page_texts": round(chars / max(1, tokens), 2),
    }


if __name__ == "__main__":
    main()
