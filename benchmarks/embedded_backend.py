"""The embedded model (Gemma 3 270M) on CPU: batch size 1 vs 4 vs 8, float32 vs bfloat16.

Every variant (dtype × attention implementation; ``--attn sdpa eager`` adds eager) is loaded
once, before any clock starts, and answers the same requests: few-shot reading prompts of about
600 tokens (``docqa.methods.prompts`` around invented page text), 16 new tokens each, greedy, no
stop string. Variants and batch sizes run side by side in one process, interleaved repeat by
repeat with the order rotating, so that load from elsewhere on a shared machine hits them alike.
Besides wall time it reports the process CPU seconds. Load times: from the prepared folder here,
from the GGUF as measured when the folder was prepared (its ``model.json``).

    PYTHONPATH=src python benchmarks/embedded_backend.py [--model-dir results/models/gemma3-270m]
        [--requests 8] [--repeats 2] [--threads 2] [--dtypes float32 bfloat16] [--attn sdpa]

Prepares the model into ``--model-dir`` first if it is not there. Prints a table and writes
``benchmarks/results/embedded_backend.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch

from docqa.backends.preparation import prepare_model, read_model_card
from docqa.backends.request import ChatRequest, Generation
from docqa.backends.transformers_lm import LMSettings, TransformersLM
from docqa.methods.prompts import reading_prompt

RESULTS = Path(__file__).parent / "results" / "embedded_backend.json"
BATCH_SIZES = (1, 4, 8)
PROMPT_TOKENS = 600
NEW_TOKENS = 16


def page_text(seed: int, lines: int) -> str:
    """Invented slide text: a title and ``lines`` lines of figures."""
    rows = [
        f"Region {chr(65 + (seed + i) % 26)} revenue {100 + 7 * seed + 13 * i} million, "
        f"margin {(seed * 3 + i * 5) % 40} percent"
        for i in range(lines)
    ]
    return f"Annual Report {2000 + seed}\n" + "\n".join(rows)


def make_requests(lm: TransformersLM, count: int) -> list[ChatRequest]:
    """``count`` distinct prompts of about ``PROMPT_TOKENS`` tokens."""
    requests = []
    for seed in range(count):
        lines = 1
        while True:
            pages = [(2, page_text(seed, lines)), (5, page_text(seed + 40, lines))]
            prompt = reading_prompt(pages, f"What was the revenue of region {chr(65 + seed)}?")
            if len(lm.tokenizer(prompt).input_ids) >= PROMPT_TOKENS:
                break
            lines += 1
        generation = Generation(max_new_tokens=NEW_TOKENS)
        requests.append(ChatRequest.prompt(prompt, generation))
    return requests


def run_cell(lm: TransformersLM, requests: list[ChatRequest], batch_size: int) -> dict[str, float]:
    """All requests in batches of ``batch_size``: wall and CPU seconds, tokens in and out."""
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    started = time.perf_counter()
    tokens_in = tokens_out = 0
    for start in range(0, len(requests), batch_size):
        for completion in lm.generate(requests[start : start + batch_size]):
            tokens_in += completion.usage.tokens_in
            tokens_out += completion.usage.tokens_out
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu_seconds = (after.ru_utime - cpu.ru_utime) + (after.ru_stime - cpu.ru_stime)
    return {"wall_s": wall, "cpu_s": cpu_seconds, "tokens_in": tokens_in, "tokens_out": tokens_out}


def print_table(rows: list[dict[str, Any]]) -> None:
    print(
        f"{'dtype':9} {'attn':6} {'batch':>5} {'s/req':>7} {'cpu s/req':>9} "
        f"{'new tok/s':>9} {'all tok/s':>9}"
    )
    for row in rows:
        print(
            f"{row['dtype']:9} {row['attn']:6} {row['batch_size']:>5} "
            f"{row['seconds_per_request']:>7.2f} {row['cpu_seconds_per_request']:>9.2f} "
            f"{row['new_tokens_per_s']:>9.2f} {row['all_tokens_per_s']:>9.1f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model-dir", type=Path, default=Path("results/models/gemma3-270m"))
    parser.add_argument("--requests", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--dtypes", nargs="+", default=["float32", "bfloat16"])
    parser.add_argument("--attn", nargs="+", default=["sdpa"], help="also: eager")
    args = parser.parse_args()

    if not (args.model_dir / "model.json").is_file():
        prepare_model(args.model_dir.name, {"backend": "embedded"}, args.model_dir)
    card = read_model_card(args.model_dir)

    models: dict[tuple[str, str], TransformersLM] = {}
    load_seconds: dict[str, float] = {}
    variants = [(dtype, attn) for dtype in args.dtypes for attn in args.attn]
    for dtype, attn in variants:
        started = time.perf_counter()
        settings = LMSettings(dtype=dtype, attn_implementation=attn, threads=args.threads)
        models[(dtype, attn)] = TransformersLM(args.model_dir, {"id": card["id"]}, settings)
        load_seconds[f"{dtype}/{attn}"] = round(time.perf_counter() - started, 2)
    requests = make_requests(next(iter(models.values())), args.requests)
    for lm in models.values():  # warm-up: first calls allocate and pick kernels
        lm.generate(requests[:2])

    load_average_start = os.getloadavg()[0]
    cells = [(variant, size) for variant in variants for size in BATCH_SIZES]
    runs: dict[tuple[tuple[str, str], int], list[dict[str, float]]] = {cell: [] for cell in cells}
    for repeat in range(args.repeats):
        shift = repeat % len(cells)
        for variant, size in cells[shift:] + cells[:shift]:
            runs[(variant, size)].append(run_cell(models[variant], requests, size))

    rows = []
    for (dtype, attn), size in cells:
        measured = runs[((dtype, attn), size)]
        wall = statistics.median(r["wall_s"] for r in measured)
        cpu = statistics.median(r["cpu_s"] for r in measured)
        tokens_out = measured[0]["tokens_out"]
        rows.append(
            {
                "dtype": dtype,
                "attn": attn,
                "batch_size": size,
                "requests": len(requests),
                "prompt_tokens_mean": round(measured[0]["tokens_in"] / len(requests), 1),
                "new_tokens_mean": round(tokens_out / len(requests), 1),
                "seconds_per_request": round(wall / len(requests), 3),
                "cpu_seconds_per_request": round(cpu / len(requests), 3),
                "new_tokens_per_s": round(tokens_out / wall, 2),
                "all_tokens_per_s": round((measured[0]["tokens_in"] + tokens_out) / wall, 1),
                "wall_s_runs": [round(r["wall_s"], 2) for r in measured],
            }
        )

    print_table(rows)
    print("load from folder (s):", load_seconds)
    print("load from GGUF at preparation (s):", card.get("load_seconds"))

    command = (
        "PYTHONPATH=src python benchmarks/embedded_backend.py "
        f"--requests {args.requests} --repeats {args.repeats} --threads {args.threads} "
        f"--dtypes {' '.join(args.dtypes)} --attn {' '.join(args.attn)}"
    )
    machine = {
        "cpus": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "processor": platform.processor() or platform.machine(),
        # other jobs on a shared machine: 1-minute load average when timing began and ended
        "load_average": [round(load_average_start, 2), round(os.getloadavg()[0], 2)],
    }
    report = {
        "benchmark": "embedded_backend",
        "command": command,
        "model": {key: card[key] for key in ("id", "source", "gguf_sha256", "quantization")},
        "machine": machine,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "load_seconds_from_folder": load_seconds,
        "load_seconds_at_preparation": card.get("load_seconds"),
        "rows": rows,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
