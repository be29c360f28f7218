"""VLM throughput of the transformers backend: a random-weight Qwen2.5-VL, bf16 vs nf4, batch
sizes 1/4/16, 1 and 3 pages of 1280x720 per request.

The model has the real Qwen2.5-VL-7B-Instruct shape (``--shape 7b``; 8.3B parameters) or a
smaller one of the same architecture (``small`` for a CPU run, ``tiny`` for the test suite), with
random weights, so nothing is downloaded: it is saved to a work folder and loaded back through
``TransformersVLM``, the backend the pipeline uses, in each precision. Its generation config has
no end-of-sequence token, so every row decodes exactly ``--new-tokens`` tokens.

Each request is distinct: its own pages (drawn here) and a question with page-like text of its
own length, so a batch is left-padded as real documents are. Each precision x pages x batch size
runs the same requests; a forward hook timestamps every forward pass of the model (the GPU
synchronized), so one run gives both phases:

- prefill tokens/s = prompt tokens / time from the call to the end of the first forward pass
  (image preprocessing, vision encoder, prefill and the first token);
- decode tokens/s = batch x decode steps / time from the first to the last forward pass;
- peak memory = the most GPU memory allocated during a run (on CPU: the process's peak RSS).

Runs are interleaved over repeats and the median is reported. The targets of issue #5 (one
H100/H200-class GPU, 7b shape): nf4 peak memory <= 7 GiB with 3 pages at batch 1, and decode
tokens/s at batch 16 >= 10x batch 1 for both precisions; the JSON says whether each held.

    PYTHONPATH=src python benchmarks/vlm_throughput.py --device cuda            # 7b, writes
        benchmarks/results/vlm_throughput-<gpu-name>.json
    PYTHONPATH=src python benchmarks/vlm_throughput.py --device cpu --shape small \\
        --new-tokens 12 --max-pixels 100352 --threads 2    # writes .../vlm_throughput-cpu.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch

# the tokenizer builder is the tests' (tests/helpers/tiny_tokenizers.py)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from helpers.tiny_tokenizers import QWEN_SPECIALS, byte_level_bpe

from docqa.backends.base import DEFAULT_MAX_PIXELS
from docqa.backends.request import ChatRequest, Generation, Message, Part
from docqa.backends.transformers import TransformersOptions
from docqa.backends.vlm import TransformersVLM

RESULTS = Path(__file__).parent / "results"
GiB = 2**30

#: Qwen2.5-VL-7B-Instruct's config.json, and smaller models of the same architecture
SHAPES: dict[str, dict[str, Any]] = {
    "7b": {
        "text": dict(
            hidden_size=3584,
            intermediate_size=18944,
            num_hidden_layers=28,
            num_attention_heads=28,
            num_key_value_heads=4,
            vocab_size=152064,
            max_position_embeddings=128000,
            rms_norm_eps=1e-6,
            mrope_section=[16, 24, 24],
        ),
        "vision": dict(
            depth=32,
            hidden_size=1280,
            intermediate_size=3420,
            num_heads=16,
            out_hidden_size=3584,
            fullatt_block_indexes=[7, 15, 23, 31],
        ),
    },
    "small": {
        "text": dict(
            hidden_size=256,
            intermediate_size=1024,
            num_hidden_layers=4,
            num_attention_heads=4,
            num_key_value_heads=2,
            vocab_size=152064,
            max_position_embeddings=32768,
            rms_norm_eps=1e-6,
            mrope_section=[8, 12, 12],
        ),
        "vision": dict(
            depth=4,
            hidden_size=128,
            intermediate_size=256,
            num_heads=4,
            out_hidden_size=256,
            fullatt_block_indexes=[1, 3],
        ),
    },
    "tiny": {
        "text": dict(
            hidden_size=64,
            intermediate_size=128,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            vocab_size=1000,
            max_position_embeddings=8192,
            rms_norm_eps=1e-6,
            mrope_section=[2, 3, 3],
        ),
        "vision": dict(
            depth=2,
            hidden_size=64,
            intermediate_size=128,
            num_heads=4,
            out_hidden_size=64,
            fullatt_block_indexes=[1],
        ),
    },
}
CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% for part in message['content'] %}{% if part['type'] == 'image' %}"
    "<|vision_start|><|image_pad|><|vision_end|>{% else %}{{ part['text'] }}{% endif %}"
    "{% endfor %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
WORDS = [
    "revenue",
    "margin",
    "growth",
    "region",
    "quarter",
    "total",
    "report",
    "chart",
    "table",
    "page",
    "figure",
]


def build_model(
    folder: Path,
    shape: str,
    device: str,
    corpus: list[str] | None = None,
    tokenizer_vocab: int = 600,
) -> int:
    """Write a random Qwen2.5-VL of ``shape`` (bf16 weights) with its processor to ``folder``;
    returns the parameter count. The weights are drawn on ``device``. The byte-level BPE
    tokenizer is trained here on ``WORDS`` and ``corpus`` (texts whose token counts should be
    realistic, e.g. a method's prompts), with at most ``tokenizer_vocab`` tokens."""
    from transformers import (
        AutoModelForImageTextToText,
        PreTrainedTokenizerFast,
        Qwen2_5_VLConfig,
        Qwen2_5_VLProcessor,
        Qwen2VLImageProcessor,
        Qwen2VLVideoProcessor,
    )

    bpe = byte_level_bpe(
        [" ".join(WORDS)] * 50 + list(corpus or []),
        min(tokenizer_vocab, SHAPES[shape]["text"]["vocab_size"]),
        QWEN_SPECIALS,
        unk_token="<|endoftext|>",
    )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        extra_special_tokens=QWEN_SPECIALS[3:],
    )
    ids = {
        "image_token_id": tokenizer.convert_tokens_to_ids("<|image_pad|>"),
        "video_token_id": tokenizer.convert_tokens_to_ids("<|video_pad|>"),
        "vision_start_token_id": tokenizer.convert_tokens_to_ids("<|vision_start|>"),
        "vision_end_token_id": tokenizer.convert_tokens_to_ids("<|vision_end|>"),
    }
    spec = SHAPES[shape]
    text = {key: value for key, value in spec["text"].items() if key != "mrope_section"}
    text["rope_parameters"] = {
        "rope_type": "default",
        "rope_theta": 1e6,
        "mrope_section": spec["text"]["mrope_section"],
    }
    text.update(
        pad_token_id=tokenizer.pad_token_id, bos_token_id=None, eos_token_id=tokenizer.eos_token_id
    )
    vision = dict(
        spec["vision"], patch_size=14, spatial_merge_size=2, temporal_patch_size=2, window_size=112
    )
    config = Qwen2_5_VLConfig(text_config=text, vision_config=vision, **ids)
    torch.manual_seed(0)
    with torch.device(device):
        model = AutoModelForImageTextToText.from_config(config, dtype=torch.bfloat16)
    model.generation_config.eos_token_id = None  # decode exactly --new-tokens tokens
    model.generation_config.do_sample = False
    parameters = sum(p.numel() for p in model.parameters())
    model.save_pretrained(folder)
    del model
    processor = Qwen2_5_VLProcessor(
        image_processor=Qwen2VLImageProcessor(),
        tokenizer=tokenizer,
        video_processor=Qwen2VLVideoProcessor(),
        chat_template=CHAT_TEMPLATE,
    )
    processor.save_pretrained(folder)
    if device.startswith("cuda"):
        torch.cuda.empty_cache()
    return parameters


def draw_page(path: Path, seed: int) -> str:
    """A 1280x720 slide-like page: a title bar, coloured blocks and lines of text."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (1280, 720), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 1280, 90), fill=(20, 30, 70))
    draw.text((40, 30), f"Quarterly report {2000 + seed}", fill="white")
    for row in range(12):
        words = " ".join(WORDS[(seed + row + i) % len(WORDS)] for i in range(10))
        draw.text((60, 120 + 45 * row), f"{row + 1}. {words} {seed * 13 + row}", fill="black")
    draw.rectangle((900, 150, 1200, 150 + 30 * (seed % 7 + 3)), fill=(200, 80, 40))
    image.save(path)
    return str(path)


def make_requests(folder: Path, count: int, pages: int, new_tokens: int) -> list[ChatRequest]:
    """``count`` distinct requests of ``pages`` pages each and questions of unequal length."""
    requests = []
    for index in range(count):
        paths = [draw_page(folder / f"r{index}-p{p}.png", seed=index * 7 + p) for p in range(pages)]
        context = " ".join(WORDS[(index + i) % len(WORDS)] for i in range(15 + 23 * (index % 8)))
        question = f"Context: {context}\nQuestion {index}: what was the total revenue?"
        parts = [Part.of_image(path) for path in paths]
        message = Message.user(*parts, question)
        requests.append(ChatRequest((message,), Generation(max_new_tokens=new_tokens)))
    return requests


class StepClock:
    """Timestamps the end of every forward pass of the model (one per generated token; the
    first one is the prefill), synchronizing the GPU so that a timestamp means finished work."""

    def __init__(self, model: Any) -> None:
        self.times: list[float] = []
        self.cuda = any(p.device.type == "cuda" for p in model.parameters())
        self.handle = model.register_forward_hook(self._tick)

    def _tick(self, *_: Any) -> None:
        if self.cuda:
            torch.cuda.synchronize()
        self.times.append(time.perf_counter())


def timed(backend: TransformersVLM, requests: list[ChatRequest]) -> dict[str, float]:
    """One batch: prefill = from the call to the end of the first forward pass (preprocessing,
    vision encoder, prefill); decode = from there to the end of the last forward pass."""
    clock = StepClock(backend.model)
    started = time.perf_counter()
    try:
        completions = backend.generate(requests)
    finally:
        clock.handle.remove()
    steps = clock.times
    return {
        "prefill_s": steps[0] - started,
        "decode_s": steps[-1] - steps[0],
        "decode_steps": len(steps) - 1,
        "prompt_tokens": sum(c.usage.tokens_in for c in completions),
        "prompt_tokens_min": min(c.usage.tokens_in for c in completions),
        "prompt_tokens_max": max(c.usage.tokens_in for c in completions),
        "image_tokens": sum(c.usage.image_tokens for c in completions),
        "new_tokens": sum(c.usage.tokens_out for c in completions),
        "peak_memory_mb": max(c.usage.peak_memory_mb for c in completions),
    }


def measure(
    backend: TransformersVLM,
    workdir: Path,
    batch_sizes: list[int],
    page_counts: list[int],
    new_tokens: int,
    repeats: int,
) -> list[dict[str, Any]]:
    cells = [(pages, size) for pages in page_counts for size in batch_sizes]
    requests = {}
    for pages in page_counts:
        folder = workdir / f"pages-{pages}"
        folder.mkdir(exist_ok=True)
        requests[pages] = make_requests(folder, max(batch_sizes), pages, new_tokens)
    backend.generate([_with_tokens(requests[page_counts[0]][0], 2)])  # warm-up
    runs: dict[tuple[int, int], list[dict[str, float]]] = {cell: [] for cell in cells}
    for repeat in range(repeats):
        shift = repeat % len(cells)
        for pages, size in cells[shift:] + cells[:shift]:
            run = timed(backend, requests[pages][:size])
            runs[(pages, size)].append(run)
            print(
                f"  pages {pages} batch {size:>2}: prefill {run['prefill_s']:.2f} s, "
                f"{run['decode_steps']} decode steps {run['decode_s']:.2f} s"
            )
    rows = []
    for pages, size in cells:
        measured = runs[(pages, size)]
        prefill_s = statistics.median(run["prefill_s"] for run in measured)
        decode_s = statistics.median(run["decode_s"] for run in measured)
        first = measured[0]
        assert first["new_tokens"] == size * new_tokens, "a row stopped before --new-tokens"
        rows.append(
            {
                "pages": pages,
                "batch_size": size,
                "prompt_tokens_mean": round(first["prompt_tokens"] / size, 1),
                "prompt_tokens_range": [first["prompt_tokens_min"], first["prompt_tokens_max"]],
                "image_tokens_mean": round(first["image_tokens"] / size, 1),
                "new_tokens": new_tokens,
                "prefill_s": round(prefill_s, 4),
                "decode_s": round(decode_s, 4),
                "prefill_tokens_per_s": round(first["prompt_tokens"] / prefill_s, 1),
                "decode_tokens_per_s": round(size * first["decode_steps"] / decode_s, 2),
                "peak_memory_mb": round(max(run["peak_memory_mb"] for run in measured), 1),
                "runs_s": [[round(r["prefill_s"], 3), round(r["decode_s"], 3)] for r in measured],
            }
        )
    return rows


def _with_tokens(request: ChatRequest, tokens: int) -> ChatRequest:
    return ChatRequest(request.messages, Generation(max_new_tokens=tokens))


def targets(results: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Issue #5's targets, checked on these numbers (they are set for the 7b shape on one
    H100/H200-class GPU)."""
    checks: dict[str, Any] = {}
    for precision, rows in results.items():
        by_cell = {(r["pages"], r["batch_size"]): r for r in rows}
        for pages in sorted({r["pages"] for r in rows}):
            one, sixteen = by_cell.get((pages, 1)), by_cell.get((pages, 16))
            if one and sixteen:
                ratio = sixteen["decode_tokens_per_s"] / one["decode_tokens_per_s"]
                checks[f"{precision}_decode_b16_over_b1_pages{pages}"] = {
                    "value": round(ratio, 2),
                    "target": ">= 10",
                    "met": ratio >= 10,
                }
        three = by_cell.get((3, 1))
        if precision == "nf4" and three:
            gib = three["peak_memory_mb"] / 1024
            checks["nf4_peak_memory_gib_pages3_b1"] = {
                "value": round(gib, 2),
                "target": "<= 7",
                "met": gib <= 7,
            }
    return checks


def device_name(device: str) -> str:
    if device.startswith("cuda"):
        return torch.cuda.get_device_name(torch.device(device))
    return platform.processor() or platform.machine()


def print_table(precision: str, rows: list[dict[str, Any]]) -> None:
    print(f"{precision}: pages batch  prompt  img tok  prefill tok/s  decode tok/s  peak MiB")
    for r in rows:
        print(
            f"{'':{len(precision)}}  {r['pages']:>5} {r['batch_size']:>5} "
            f"{r['prompt_tokens_mean']:>7.0f} {r['image_tokens_mean']:>8.0f} "
            f"{r['prefill_tokens_per_s']:>14.1f} {r['decode_tokens_per_s']:>13.2f} "
            f"{r['peak_memory_mb']:>9.0f}"
        )


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument(
        "--shape", choices=sorted(SHAPES), default=None, help="default: 7b on a GPU, small on CPU"
    )
    parser.add_argument("--precisions", nargs="+", default=["bf16", "nf4"])
    parser.add_argument("--batch-sizes", nargs="+", type=int, default=[1, 4, 16])
    parser.add_argument("--pages", nargs="+", type=int, default=[1, 3])
    parser.add_argument("--new-tokens", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--max-pixels", type=int, default=DEFAULT_MAX_PIXELS)
    parser.add_argument("--attn", default=None, help="default: sdpa on a GPU, eager on CPU")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--workdir", type=Path, default=None, help="default: a temporary folder")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    on_gpu = args.device.startswith("cuda")
    shape = args.shape or ("7b" if on_gpu else "small")
    attn = args.attn or ("sdpa" if on_gpu else "eager")
    if args.threads:
        torch.set_num_threads(args.threads)
    name = device_name(args.device)
    out = args.out or RESULTS / (
        "vlm_throughput-"
        + (re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") if on_gpu else "cpu")
        + ".json"
    )

    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="vlm-throughput-"))
    workdir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    parameters = build_model(workdir / "model", shape, args.device)
    build_s = time.perf_counter() - started
    print(
        f"random Qwen2.5-VL, shape {shape}: {parameters / 1e9:.3f} B parameters ({build_s:.0f} s)"
    )

    results: dict[str, list[dict[str, Any]]] = {}
    load_s: dict[str, float] = {}
    load_start = os.getloadavg()[0]
    try:
        for precision in args.precisions:
            settings = TransformersOptions(
                path=str(workdir / "model"),
                precision=precision,
                device=args.device,
                attn_implementation=attn,
                max_pixels=args.max_pixels,
                max_batch_size=max(args.batch_sizes),
            )
            started = time.perf_counter()
            backend = TransformersVLM(f"random-{shape}", workdir / "model", {"id": shape}, settings)
            load_s[precision] = round(time.perf_counter() - started, 1)
            print(f"{precision}: loaded in {load_s[precision]} s")
            results[precision] = measure(
                backend, workdir, args.batch_sizes, args.pages, args.new_tokens, args.repeats
            )
            backend.close()
            print_table(precision, results[precision])
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)

    report = {
        "benchmark": "vlm_throughput",
        "command": "PYTHONPATH=src python benchmarks/vlm_throughput.py "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "model": {
            "architecture": "Qwen2_5_VLForConditionalGeneration",
            "shape": shape,
            "parameters": parameters,
            "weights": "random",
        },
        "device": {
            "kind": "cuda" if on_gpu else "cpu",
            "name": name,
            "torch": torch.__version__,
            "cpus": os.cpu_count(),
            # other jobs on a shared machine: 1-minute load average when timing began and ended
            "load_average": [round(load_start, 2), round(os.getloadavg()[0], 2)],
        },
        "peak_memory": "torch.cuda.max_memory_allocated" if on_gpu else "process peak RSS",
        "settings": {
            "attn_implementation": attn,
            "max_pixels": args.max_pixels,
            "new_tokens": args.new_tokens,
            "repeats": args.repeats,
            "page_size": [1280, 720],
        },
        "load_seconds": load_s,
        "results": results,
        # the targets are set for the 7b shape on one H100/H200-class GPU
        "targets": targets(results) if on_gpu and shape == "7b" else {},
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    for key, check in report["targets"].items():
        verdict = "met" if check["met"] else "MISSED"
        print(f"target {key}: {check['value']} ({check['target']}) {verdict}")
    print(f"wrote {out}")
    return out


if __name__ == "__main__":
    main()
