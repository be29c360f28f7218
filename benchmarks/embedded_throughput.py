"""The default run's real prompts through the embedded backend: variants side by side, against
the machine's measured ceiling.

Prompts: the first ``--questions`` synthslides questions, asked by the default config's
``text_rag_top4`` and ``oracle_pages`` through the infer stage's own path (``create_method``,
``DocumentStore``, ``answer_question``) with a backend that records each request and answers
nothing; both methods make one reading call per question, so the recorded request is the one
the real run sends. It needs the data, render, text and index stages' files under
``--results`` (``make reproduce`` or ``snakemake --cores 2`` up to the index makes them) and the
prepared model (``--model-dir``).

Variants, each loaded once before any clock starts and run interleaved, method by method
(``--rounds`` repeats them, the order rotating):

- ``today``: 2 torch threads (a job's threads before issue 30, ``--cores 2``), batches of
  ``max_batch_size`` (8) in question order, as the infer job's client forms them (every row
  left-padded to the longest);
- ``1-thread``: the same on one thread (the embedded backend's default since issue 30);
- ``1-thread-sorted``: batches grouped by prompt length;
- ``1-thread-single``: one question at a time;
- ``1-thread-prefix``: one at a time, each reusing the KV cache of the prompt head it shares
  with the questions before it, as vLLM's automatic prefix caching does (:class:`PrefixReuseLM`);
- ``1-thread-bf16``: bfloat16 weights (numerics change: answers may differ).

transformers' ``generate`` already computes the prefill's logits for the last position only
(``logits_to_keep=1``), so that is no variant. The ceiling: torch matmul GFLOP/s at the model's
shapes (a prefill's ``tokens × hidden`` times the MLP's ``hidden × intermediate``), fp32 and
bf16, on 1 and 2 threads, measured in the same run; a variant's fraction is of the ceiling at
its own dtype and threads. Each variant's answers are compared with ``today``'s.

    PYTHONPATH=src python benchmarks/embedded_throughput.py [--results results]
        [--model-dir results/models/gemma3-270m] [--questions 8] [--rounds 1]

Prints a table and writes ``benchmarks/results/embedded_throughput.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import os
import platform
import subprocess
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch

from docqa.backends.base import Backend, Completion
from docqa.backends.client import ModelClient
from docqa.backends.preparation import read_model_card
from docqa.backends.request import ChatRequest
from docqa.backends.transformers_lm import LMSettings, TransformersLM
from docqa.core.jsonl import read_jsonl
from docqa.core.question import Question
from docqa.methods import create_method
from docqa.methods.base import Models
from docqa.methods.store import DocumentStore
from docqa.stages.infer import answer_question
from docqa.workflow.loader import load_config
from docqa.workflow.pipeline import indexed_retrievers

RESULTS = Path(__file__).parent / "results" / "embedded_throughput.json"
METHODS = ("text_rag_top4", "oracle_pages")
DATASET = "synthslides"


class Recorder(Backend):
    """Records every request and answers it with nothing."""

    max_batch_size = 1

    def __init__(self) -> None:
        self.requests: list[ChatRequest] = []

    @property
    def identity(self) -> dict[str, Any]:
        return {"id": "recorder"}

    def generate(self, requests: list[ChatRequest]) -> list[Completion]:
        self.requests.extend(requests)
        return [Completion("") for _ in requests]


def record_prompts(results: Path, method: str, count: int) -> list[ChatRequest]:
    """The reading requests ``method`` sends for the first ``count`` questions."""
    config = load_config()
    retrievers = indexed_retrievers(config, method)
    store = DocumentStore(
        results / "data" / DATASET / "documents.jsonl",
        results / "pages" / DATASET / "pages.jsonl",
        results / "text" / DATASET / "elements.jsonl",
        {name: results / "index" / DATASET / name / "docs" for name in retrievers},
        retrievers,
        results / "pages" / DATASET / "overviews.jsonl",
    )
    questions = [
        Question.from_dict(row)
        for row in read_jsonl(results / "data" / DATASET / "questions.jsonl")
    ]
    questions = questions[:count]
    instance = create_method(config["methods"][method])
    store.prepare_queries(instance.retrievers, [question.question for question in questions])
    recorder = Recorder()
    failures = results / "pages" / DATASET / "failures.jsonl"

    async def ask_all() -> None:
        client = ModelClient(recorder)
        models = Models(client, {})
        for question in questions:  # in order: one request each
            await answer_question(question, instance, store, models, failures)
        await client.close()

    asyncio.run(ask_all())
    if len(recorder.requests) != len(questions):
        raise RuntimeError(
            f"{method}: {len(recorder.requests)} requests for {len(questions)} questions"
        )
    return recorder.requests


class PrefixReuseLM(TransformersLM):
    """The ``prefix`` variant: greedy requests one at a time, each reusing the KV cache of the
    prompt head it shares with the prompts before it, as vLLM's automatic prefix caching does.

    The head is found, not declared: the longest common token prefix of a prompt with the
    cached head (so it shrinks to what every prompt shares) or, with none cached, with the
    prompt before it. Lives here, not in the backend: it lost (see docs/benchmarks.md).
    """

    MIN_TOKENS = 32

    def __init__(self, model_dir: Path, identity: dict[str, Any], settings: LMSettings) -> None:
        super().__init__(model_dir, identity, settings)
        self.max_batch_size = 1
        self.head: list[int] = []
        self.past: Any = None
        self.previous: list[int] = []
        self.reused_tokens = 0
        generate = self.model.generate

        def generate_with_head(input_ids: torch.Tensor, **kwargs: Any) -> Any:
            return generate(input_ids=input_ids, **kwargs, **self.past_for(input_ids[0].tolist()))

        self.model.generate = generate_with_head

    def past_for(self, ids: list[int]) -> dict[str, Any]:
        shared = common_length(ids, self.head) if self.past is not None else 0
        if shared < self.MIN_TOKENS:
            shared = common_length(ids, self.previous)
        self.previous = ids
        shared = min(shared, len(ids) - 1)  # generate needs one token to read
        if shared < self.MIN_TOKENS:
            return {}
        if self.past is None or self.head != ids[:shared]:
            self.head = ids[:shared]
            head = torch.tensor([self.head], dtype=torch.long)
            self.past = self.model(input_ids=head, use_cache=True, logits_to_keep=1).past_key_values
        self.reused_tokens += shared
        return {"past_key_values": copy.deepcopy(self.past)}


def common_length(a: list[int], b: list[int]) -> int:
    count = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        count += 1
    return count


#: name: (backend class, LMSettings keywords, batch order)
VARIANTS: dict[str, tuple[type[TransformersLM], dict[str, Any], str]] = {
    "today": (TransformersLM, {"threads": 2}, "arrival"),
    "1-thread": (TransformersLM, {"threads": 1}, "arrival"),
    "1-thread-sorted": (TransformersLM, {"threads": 1}, "length"),
    "1-thread-single": (TransformersLM, {"threads": 1, "max_batch_size": 1}, "arrival"),
    "1-thread-prefix": (PrefixReuseLM, {"threads": 1}, "arrival"),
    "1-thread-bf16": (TransformersLM, {"threads": 1, "dtype": "bfloat16"}, "arrival"),
}


def run_variant(
    lm: TransformersLM, requests: list[ChatRequest], order: str
) -> tuple[list[str], dict[str, float]]:
    """All requests in the backend's batches (in ``order``): answers in request order, wall
    seconds, and tokens in and out."""
    torch.set_num_threads(lm.settings.threads or 1)  # process-wide: set per variant
    indices = list(range(len(requests)))
    if order == "length":
        indices.sort(key=lambda i: len(lm.prompt_ids(requests[i])[0]))
    answers: dict[int, str] = {}
    tokens_in = tokens_out = 0
    started = time.perf_counter()
    for start in range(0, len(indices), lm.max_batch_size):
        batch = indices[start : start + lm.max_batch_size]
        for index, completion in zip(batch, lm.generate([requests[i] for i in batch]), strict=True):
            answers[index] = completion.text
            tokens_in += completion.usage.tokens_in
            tokens_out += completion.usage.tokens_out
    wall = time.perf_counter() - started
    return [answers[i] for i in range(len(requests))], {
        "wall_s": wall,
        "tokens_in": tokens_in,
        "tokens_out": tokens_out,
    }


def prefill_decode(lm: TransformersLM, request: ChatRequest, repeats: int = 2) -> dict[str, float]:
    """One prompt's prefill seconds (a forward over the prompt) and decode seconds a token
    (16 forwards of one token on its cache), the best of ``repeats``."""
    torch.set_num_threads(lm.settings.threads or 1)
    ids = torch.tensor([lm.prompt_ids(request)[0]], dtype=torch.long)
    prefill = decode = float("inf")
    with torch.inference_mode():
        for _ in range(repeats):
            started = time.perf_counter()
            out = lm.model(input_ids=ids, use_cache=True, logits_to_keep=1)
            prefill = min(prefill, time.perf_counter() - started)
            past, token = out.past_key_values, out.logits[:, -1:].argmax(-1)
            started = time.perf_counter()
            for _ in range(16):
                out = lm.model(input_ids=token, past_key_values=past, use_cache=True)
                past, token = out.past_key_values, out.logits[:, -1:].argmax(-1)
            decode = min(decode, (time.perf_counter() - started) / 16)
    return {"prompt_tokens": ids.shape[1], "prefill_s": prefill, "decode_s_per_token": decode}


def matmul_ceiling(tokens: int, hidden: int, inner: int, dtype: torch.dtype) -> float:
    """GFLOP/s of ``(tokens × hidden) @ (hidden × inner)``, the best of a few repeats."""
    a = torch.randn(tokens, hidden, dtype=dtype)
    b = torch.randn(hidden, inner, dtype=dtype)
    best = float("inf")
    with torch.inference_mode():
        torch.matmul(a, b)
        for _ in range(5):
            started = time.perf_counter()
            for _ in range(4):
                torch.matmul(a, b)
            best = min(best, (time.perf_counter() - started) / 4)
    return 2 * tokens * hidden * inner / best / 1e9


def model_flops(config: Any, prompt_tokens: float, new_tokens: float) -> float:
    """Matmul FLOPs of one question: every layer's projections and MLP for each token, the
    output head for each generated token (the prefill's logits are the last position's only);
    attention scores left out (small at these lengths)."""
    hidden, inner = config.hidden_size, config.intermediate_size
    heads, kv, head_dim = config.num_attention_heads, config.num_key_value_heads, config.head_dim
    per_layer = (
        hidden * (heads + 2 * kv) * head_dim + heads * head_dim * hidden + 3 * hidden * inner
    )
    body = config.num_hidden_layers * per_layer
    head = hidden * config.vocab_size
    return 2 * (body * (prompt_tokens + new_tokens) + head * max(new_tokens, 1))


def commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        )
        return out.stdout.strip()
    except OSError:
        return ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results", type=Path, default=Path("results"))
    parser.add_argument("--model-dir", type=Path, default=Path("results/models/gemma3-270m"))
    parser.add_argument("--questions", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    args = parser.parse_args()

    card = read_model_card(args.model_dir)
    prompts = {method: record_prompts(args.results, method, args.questions) for method in METHODS}
    models: dict[str, TransformersLM] = {}
    for name in args.variants:
        kind, options, _ = VARIANTS[name]
        models[name] = kind(args.model_dir, {"id": card["id"]}, LMSettings(**options))
    config = models["today"].model.config

    mean_prompt = sum(
        len(models["today"].prompt_ids(r)[0]) for r in prompts["text_rag_top4"]
    ) / len(prompts["text_rag_top4"])
    shape = (int(mean_prompt), config.hidden_size, config.intermediate_size)
    ceiling = {}
    for threads in (1, 2):
        torch.set_num_threads(threads)
        for name, dtype in (("float32", torch.float32), ("bfloat16", torch.bfloat16)):
            ceiling[f"{name}/{threads}"] = round(matmul_ceiling(*shape, dtype), 1)
    phases = {
        name: prefill_decode(models[name], prompts["text_rag_top4"][0])
        for name in ("today", "1-thread", "1-thread-bf16")
        if name in models
    }

    cells: dict[tuple[str, str], list[dict[str, float]]] = {}
    answers: dict[tuple[str, str], list[str]] = {}
    for round_index in range(args.rounds):
        for method in METHODS:
            names = (
                args.variants[round_index % len(args.variants) :]
                + args.variants[: round_index % len(args.variants)]
            )
            for name in names:
                got, cell = run_variant(models[name], prompts[method], VARIANTS[name][2])
                cells.setdefault((method, name), []).append(cell)
                answers[(method, name)] = got
                print(
                    f"round {round_index} {method:14} {name:16} {cell['wall_s']:7.1f} s", flush=True
                )

    rows = []
    for (method, name), runs in cells.items():
        wall = min(run["wall_s"] for run in runs)
        run = runs[0]
        count = len(prompts[method])
        flops = model_flops(config, run["tokens_in"] / count, run["tokens_out"] / count)
        settings = models[name].settings
        peak = ceiling[f"{settings.dtype}/{settings.threads}"]
        base = min(r["wall_s"] for r in cells[(method, "today")])
        rows.append(
            {
                "method": method,
                "variant": name,
                "dtype": settings.dtype,
                "threads": settings.threads,
                "questions": count,
                "prompt_tokens_mean": round(run["tokens_in"] / count, 1),
                "new_tokens_mean": round(run["tokens_out"] / count, 1),
                "seconds_per_question": round(wall / count, 3),
                "questions_per_s": round(count / wall, 3),
                "speedup_vs_today": round(base / wall, 2),
                "gflops": round(flops * count / wall / 1e9, 1),
                "fraction_of_ceiling": round(flops * count / wall / 1e9 / peak, 3),
                "answers_equal_today": answers[(method, name)] == answers[(method, "today")],
                "answers_differing": sum(
                    a != b
                    for a, b in zip(
                        answers[(method, name)], answers[(method, "today")], strict=True
                    )
                ),
                "wall_s_runs": [round(r["wall_s"], 2) for r in runs],
            }
        )
    print(f"ceiling, matmul {shape[0]}x{shape[1]} @ {shape[1]}x{shape[2]}: {ceiling} GFLOP/s")
    for name, phase in phases.items():
        print(
            f"{name}: prefill {phase['prompt_tokens'] / phase['prefill_s']:.0f} tok/s, "
            f"decode {1 / phase['decode_s_per_token']:.1f} tok/s (batch 1)"
        )
    print(
        f"{'method':14} {'variant':16} {'s/q':>6} {'q/s':>6} {'x today':>7} {'GFLOP/s':>8} "
        f"{'of ceil':>7} same answers"
    )
    for row in rows:
        print(
            f"{row['method']:14} {row['variant']:16} {row['seconds_per_question']:>6.2f} "
            f"{row['questions_per_s']:>6.3f} {row['speedup_vs_today']:>7.2f} {row['gflops']:>8.1f} "
            f"{row['fraction_of_ceiling']:>7.3f} {row['questions'] - row['answers_differing']}"
        )
    report = {
        "benchmark": "embedded_throughput",
        "command": "PYTHONPATH=src python benchmarks/embedded_throughput.py "
        f"--questions {args.questions} --rounds {args.rounds}",
        "commit": commit(),
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "model": {"id": card["id"], "gguf_sha256": card["gguf_sha256"]},
        "machine": {
            "cpus": os.cpu_count(),
            "torch": torch.__version__,
            "python": platform.python_version(),
            "load_average": [round(x, 2) for x in os.getloadavg()],
        },
        "ceiling_gflops": ceiling,
        "phases_batch1": {
            name: {
                "prefill_tokens_per_s": round(p["prompt_tokens"] / p["prefill_s"], 1),
                "decode_tokens_per_s": round(1 / p["decode_s_per_token"], 2),
            }
            for name, p in phases.items()
        },
        "rows": rows,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
