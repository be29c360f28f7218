"""SFT throughput of the training stage (docqa.training.train): examples/s and peak memory.

A causal LM of a given shape with random weights is saved to a work folder with a small
byte-level BPE tokenizer, and ``train_stage`` — the code the ``train`` rule runs, TRL's SFT
trainer with a PEFT LoRA adapter on every linear layer — trains it for ``--steps`` optimizer
steps on synthetic DocPilot-like examples (a prompt of ``--prompt-tokens`` tokens, only the
reply of ``--reply-tokens`` tokens supervised). Shapes:

- ``tiny``: the test suite's student (hidden 32, 2 layers): the CPU figure;
- ``270m``: Gemma 3 270M's shape (the embedded student of the offline recipe);
- ``4b``: a Qwen3-4B-shaped text model (hidden 2560, 36 layers, vocab 151,936; 4.0B
  parameters), the language model of a "4B-class" VLM student (its ~0.4B vision tower is not
  included), in bf16 LoRA and QLoRA (nf4) on a GPU.

Peak memory is torch's peak allocation on the GPU, the process's peak RSS on the CPU. The
examples/s come from the trainer's own runtime (checkpointing off), after one warm-up step.

    PYTHONPATH=src python benchmarks/sft_throughput.py --shape tiny --steps 8
    PYTHONPATH=src python benchmarks/sft_throughput.py --shape 4b --steps 10 --modes lora qlora
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import tempfile
from pathlib import Path
from typing import Any

SHAPES: dict[str, dict[str, Any]] = {
    "tiny": {
        "family": "gemma3",
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "num_key_value_heads": 1,
        "head_dim": 16,
        "vocab_size": 2048,
    },
    "270m": {
        "family": "gemma3",
        "hidden_size": 640,
        "intermediate_size": 2048,
        "num_hidden_layers": 18,
        "num_attention_heads": 4,
        "num_key_value_heads": 1,
        "head_dim": 256,
        "vocab_size": 262144,
    },
    "4b": {
        "family": "qwen3",
        "hidden_size": 2560,
        "intermediate_size": 9728,
        "num_hidden_layers": 36,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "vocab_size": 151936,
    },
}
WORDS = [
    "page",
    "revenue",
    "chart",
    "table",
    "navigate",
    "extract",
    "evidence",
    "answer",
    "region",
    "quarter",
    "total",
]


def build_model(shape: str, folder: Path, context: int, dtype: str) -> Path:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import (
        Gemma3ForCausalLM,
        Gemma3TextConfig,
        PreTrainedTokenizerFast,
        Qwen3Config,
        Qwen3ForCausalLM,
    )

    bpe = Tokenizer(models.BPE(unk_token="<unk>"))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=1000,
        special_tokens=["<pad>", "<eos>", "<bos>", "<unk>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    bpe.train_from_iterator([" ".join(WORDS)] * 50, trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe, bos_token="<bos>", eos_token="<eos>", pad_token="<pad>"
    )
    spec = dict(SHAPES[shape])
    family = spec.pop("family")
    common = {**spec, "max_position_embeddings": context, "pad_token_id": 0, "eos_token_id": 1}
    torch.manual_seed(0)
    with torch.device("cpu"):
        if family == "gemma3":
            config = Gemma3TextConfig(**common, bos_token_id=2, sliding_window=512)
            model = Gemma3ForCausalLM(config)
        else:
            config = Qwen3Config(**common, bos_token_id=2, tie_word_embeddings=True)
            model = Qwen3ForCausalLM(config)
    model.to(getattr(torch, dtype)).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def examples(path: Path, count: int, prompt_tokens: int, reply_tokens: int) -> Path:
    """Rows in build_sft's format; the tokenizer has a token per word, so words ~ tokens."""
    rng = random.Random(0)
    with path.open("w") as handle:
        for index in range(count):
            prompt = " ".join(rng.choice(WORDS) for _ in range(prompt_tokens))
            reply = " ".join(rng.choice(WORDS) for _ in range(reply_tokens))
            row = {
                "id": f"bench/{index}",
                "stage": "multi",
                "role": "orchestrator",
                "messages": [
                    {"role": "user", "content": [{"type": "text", "text": prompt}]},
                    {"role": "assistant", "content": [{"type": "text", "text": reply}]},
                ],
            }
            handle.write(json.dumps(row) + "\n")
    return path


def run(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    from docqa.training.train import Student, TrainOptions, train_stage

    if args.threads:
        torch.set_num_threads(args.threads)
    gpu = torch.cuda.is_available()
    results: dict[str, Any] = {
        "shape": args.shape,
        "device": torch.cuda.get_device_name(0) if gpu else platform.processor() or "cpu",
        "torch_threads": torch.get_num_threads(),
        "prompt_tokens": args.prompt_tokens,
        "reply_tokens": args.reply_tokens,
        "batch_size": args.batch_size,
        "steps": args.steps,
        "runs": {},
    }
    with tempfile.TemporaryDirectory(prefix="sft-bench-") as tmp:
        work = Path(tmp)
        context = args.prompt_tokens + args.reply_tokens + 64
        weights = build_model(args.shape, work / "model", context, "bfloat16" if gpu else "float32")
        data = examples(
            work / "rows.jsonl",
            args.steps * args.batch_size + 4,
            args.prompt_tokens,
            args.reply_tokens,
        )
        for mode in args.modes:
            if mode == "qlora" and not gpu:
                results["runs"][mode] = {"skipped": "QLoRA (nf4) needs a CUDA GPU"}
                continue
            if gpu:
                torch.cuda.reset_peak_memory_stats()
            options = TrainOptions(
                max_steps=args.steps,
                batch_size=args.batch_size,
                save_steps=10**6,
                max_length=context,
                learning_rate=1e-4,
                quantization="nf4" if mode == "qlora" else None,
                gradient_checkpointing=args.gradient_checkpointing,
                logging_steps=1,
            )
            summary = train_stage(Student(weights), data, work / mode, options)
            results["runs"][mode] = {
                key: summary[key]
                for key in ("examples_per_second", "seconds", "peak_memory_mb", "train_loss")
            }
            print(mode, results["runs"][mode], flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shape", choices=sorted(SHAPES), default="tiny")
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=1)
    parser.add_argument("--prompt-tokens", type=int, default=1536)
    parser.add_argument("--reply-tokens", type=int, default=64)
    parser.add_argument("--modes", nargs="+", default=["lora"], choices=["lora", "qlora"])
    parser.add_argument("--gradient-checkpointing", action="store_true")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    results = run(args)
    out = args.out or Path(__file__).parent / "results" / f"sft_throughput-{args.shape}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
