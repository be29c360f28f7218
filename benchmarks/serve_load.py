"""``docqa serve`` under load, through the official ``openai`` client: sequential requests, the
same requests from N concurrent clients, and again with one hostile request beside them.

The server is ``docqa serve`` in its own process on 127.0.0.1 (the embedded Gemma 3 270M by
default, prepared into ``--model-dir`` first if it is not there; ``--tiny`` serves a tiny
random model instead). The requests are short reading prompts with mixed ``max_tokens`` (8, 16,
32, 64 in turn), greedy. Three phases, each after one warm-up request:

- sequential: one client sends the requests one after another;
- concurrent: ``--clients`` clients send them at once (each its share, back to back);
- concurrent + hostile: the same, while one more client asks for the whole context window
  (``max_tokens`` = context - 1), which the server's wall-clock limit (``--request-timeout``)
  ends.

For each phase: p50/p95 latency of the short requests, their generated tokens per second over
the phase's wall time, and the ratio to the sequential throughput; for the hostile request its
finish reason, tokens and seconds. Loopback only; stops by itself (the server gets SIGTERM and
must exit 0). Prints a table and writes ``benchmarks/results/serve_load.json``.

    PYTHONPATH=src python benchmarks/serve_load.py [--model-dir results/models/gemma3-270m]
        [--tiny] [--clients 8] [--requests 16] [--threads 2] [--request-timeout 20]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import openai

from docqa.backends.preparation import prepare_model, read_model_card
from docqa.serving.health import start_server_process, stop_process

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

RESULTS = Path(__file__).parent / "results" / "serve_load.json"
MAX_TOKENS = (8, 16, 32, 64)
HOSTILE = [{"role": "user", "content": "Write down everything you know, at length."}]


def prompts(count: int) -> list[tuple[str, int]]:
    """``count`` distinct short reading prompts and their ``max_tokens``."""
    return [
        (
            f"Annual Report {2000 + i}\nRegion {chr(65 + i % 26)} revenue {100 + 7 * i} million, "
            f"margin {(i * 3) % 40} percent.\nQ: What was the revenue of region "
            f"{chr(65 + i % 26)}?\nA:",
            MAX_TOKENS[i % len(MAX_TOKENS)],
        )
        for i in range(count)
    ]


def ask(api: openai.OpenAI, model: str, prompt: str, max_tokens: int) -> dict[str, Any]:
    started = time.perf_counter()
    reply = api.chat.completions.create(
        model=model, messages=[{"role": "user", "content": prompt}], max_tokens=max_tokens
    )
    return {
        "seconds": time.perf_counter() - started,
        "tokens": reply.usage.completion_tokens if reply.usage else 0,
        "finish_reason": reply.choices[0].finish_reason,
        "ended": time.perf_counter(),
    }


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values``, interpolated between the nearest ranks."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summary(name: str, answers: list[dict[str, Any]], wall_s: float) -> dict[str, Any]:
    latencies = [a["seconds"] for a in answers]
    tokens = sum(a["tokens"] for a in answers)
    return {
        "phase": name,
        "requests": len(answers),
        "completion_tokens": tokens,
        "wall_s": round(wall_s, 2),
        "p50_s": round(statistics.median(latencies), 3),
        "p95_s": round(percentile(latencies, 0.95), 3),
        "tokens_per_s": round(tokens / wall_s, 2),
        "finish_reasons": dict(Counter(a["finish_reason"] for a in answers)),
    }


def sequential(api: openai.OpenAI, model: str, work: list[tuple[str, int]]) -> dict[str, Any]:
    started = time.perf_counter()
    answers = [ask(api, model, prompt, tokens) for prompt, tokens in work]
    return summary("sequential", answers, time.perf_counter() - started)


def concurrent(
    api: openai.OpenAI, model: str, work: list[tuple[str, int]], clients: int, name: str
) -> dict[str, Any]:
    """``clients`` threads, each sending its share of ``work`` back to back."""
    shares = [work[i::clients] for i in range(clients)]
    started = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        done = pool.map(lambda share: [ask(api, model, p, t) for p, t in share], shares)
        answers = [answer for share in done for answer in share]
    return summary(name, answers, time.perf_counter() - started)


def with_hostile(
    api: openai.OpenAI, model: str, work: list[tuple[str, int]], clients: int, context: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    hostile: dict[str, Any] = {}

    def ask_for_everything() -> None:
        hostile.update(ask(api, model, HOSTILE[0]["content"], context - 1))

    runner = threading.Thread(target=ask_for_everything)
    runner.start()
    time.sleep(0.5)  # it is generating before the others arrive
    row = concurrent(api, model, work, clients, "concurrent + hostile")
    row["hostile_still_running_after"] = runner.is_alive()
    runner.join()
    hostile["seconds"] = round(hostile["seconds"], 2)
    del hostile["ended"]
    return row, hostile


def serve(model_dir: Path, folder: Path, port: int, args: argparse.Namespace) -> Any:
    entry = {"backend": "embedded", "max_batch_size": args.max_batch_size, "threads": args.threads}
    config = folder / "config.yaml"
    config.write_text(json.dumps({"models": {"served": entry}}))
    command = [sys.executable, "-m", "docqa.cli", "serve", "served", "--configfile", str(config)]
    command += ["--model-dir", str(model_dir), "--port", str(port)]
    command += ["--request-timeout", str(args.request_timeout), "--shutdown-grace", "5"]
    log = (folder / "serve.log").open("w")
    return start_server_process(command, f"http://127.0.0.1:{port}/v1", 600, output=log)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model-dir", type=Path, default=Path("results/models/gemma3-270m"))
    parser.add_argument("--tiny", action="store_true", help="serve a tiny random model instead")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--max-batch-size", type=int, default=8)
    parser.add_argument("--request-timeout", type=float, default=20.0)
    args = parser.parse_args()

    from helpers.serving import free_port

    with tempfile.TemporaryDirectory(prefix="serve-load-") as scratch:
        folder = Path(scratch)
        if args.tiny:
            from helpers.tiny_models import tiny_embedded

            model_dir = tiny_embedded(folder / "tiny", max_position_embeddings=4096)
        else:
            model_dir = args.model_dir
            if not (model_dir / "model.json").is_file():
                prepare_model(model_dir.name, {"backend": "embedded"}, model_dir)
        card = read_model_card(model_dir)
        port = free_port()
        process = serve(model_dir, folder, port, args)
        try:
            api = openai.OpenAI(
                base_url=f"http://127.0.0.1:{port}/v1", api_key="unused", max_retries=0, timeout=600
            )
            context = api.models.list().data[0].model_extra["max_model_len"]
            work = prompts(args.requests)
            ask(api, "served", *work[0])  # warm-up
            load_start = os.getloadavg()[0]
            rows = [sequential(api, "served", work)]
            rows.append(concurrent(api, "served", work, args.clients, "concurrent"))
            row, hostile = with_hostile(api, "served", work, args.clients, context)
            rows.append(row)
            load_end = os.getloadavg()[0]
        finally:
            stop_process(process, grace_s=30)
        exit_status = process.returncode

    base = rows[0]["tokens_per_s"]
    for row in rows:
        row["throughput_vs_sequential"] = round(row["tokens_per_s"] / base, 2)
    print(
        f"{'phase':<22} {'requests':>8} {'tokens':>7} {'wall s':>7} {'p50 s':>7} {'p95 s':>7} "
        f"{'tok/s':>7} {'vs seq':>7}"
    )
    for row in rows:
        print(
            f"{row['phase']:<22} {row['requests']:>8} {row['completion_tokens']:>7} "
            f"{row['wall_s']:>7.2f} {row['p50_s']:>7.3f} {row['p95_s']:>7.3f} "
            f"{row['tokens_per_s']:>7.2f} {row['throughput_vs_sequential']:>7.2f}"
        )
    print(f"hostile request (max_tokens={context - 1}): {hostile}")
    print(f"docqa serve exit status after SIGTERM: {exit_status}")

    report = {
        "benchmark": "serve_load",
        "command": "PYTHONPATH=src python benchmarks/serve_load.py"
        + (" --tiny" if args.tiny else "")
        + f" --clients {args.clients} --requests {args.requests} --threads {args.threads} "
        f"--max-batch-size {args.max_batch_size} --request-timeout {args.request_timeout:g}",
        "model": card["id"],
        "context": context,
        "max_tokens_cycle": list(MAX_TOKENS),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "processor": platform.processor() or platform.machine(),
            # other jobs on a shared machine: 1-minute load average when timing began and ended
            "load_average": [round(load_start, 2), round(load_end, 2)],
        },
        "rows": rows,
        "hostile": hostile,
        "server_exit_status": exit_status,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
