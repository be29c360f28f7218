"""One training stage: TRL's ``SFTTrainer`` with a PEFT LoRA adapter (or full fine-tuning).

The curriculum is two calls: stage 1 on the single-ability data from the student's weights,
stage 2 on the multi-ability data from stage 1's result (its adapter, trained further; or its
full weights); the direct variant of the ablation is one stage on the multi-ability data. The
examples are encoded here (``docqa.training.sft_data``: prompt as the inference backend builds
it, loss on the reply only) and handed to the trainer already tokenized.

Checkpoints go to ``<out>/checkpoints`` every ``save_steps`` steps; a stage started again with
checkpoints there resumes from the last one (weights, optimizer, scheduler, RNG and data
position), so a run killed mid-epoch continues where it stopped. The result is
``<out>/adapter`` (PEFT format; the model entry's ``adapter:``) or ``<out>/model`` (full
weights); ``<out>/train.json`` holds the loss history and the run's settings.

bf16 on a GPU (fp32 on the CPU); ``quantization: nf4`` loads the base in 4 bits for QLoRA
(bitsandbytes, GPU only). ``DOCQA_TRAIN_KILL_AFTER_STEP=N`` makes the process kill itself
(SIGKILL) right after saving the checkpoint at step N: the fault the resume test injects.
"""

from __future__ import annotations

import json
import logging
import os
import random
import signal
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from docqa.core.jsonl import read_jsonl

log = logging.getLogger(__name__)

KILL_ENV = "DOCQA_TRAIN_KILL_AFTER_STEP"


@dataclass(frozen=True)
class TrainOptions:
    """A stage's settings (config ``training.<name>.train``; a stage may override any)."""

    epochs: float = 1.0
    max_steps: int = -1  # > 0: stop after this many optimizer steps
    learning_rate: float = 2e-4
    batch_size: int = 1
    gradient_accumulation: int = 1
    max_length: int = 4096
    save_steps: int = 50
    seed: int = 0
    lora_r: int = 16
    lora_alpha: int = 32
    lora_dropout: float = 0.05
    target_modules: str | list[str] = "all-linear"
    full_finetune: bool = False
    quantization: str | None = None  # "nf4": QLoRA
    gradient_checkpointing: bool = False
    logging_steps: int = 1
    warmup_steps: int = 0

    @classmethod
    def from_config(cls, options: dict[str, Any]) -> TrainOptions:
        unknown = sorted(set(options) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError(
                f"training options {unknown} are unknown; known: {sorted(cls.__dataclass_fields__)}"
            )
        return cls(**options)


@dataclass
class Student:
    """The student: its weights folder and how its prompts are built (as at inference)."""

    weights: Path
    prompt_format: str = "raw"
    max_pixels: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def train_stage(
    student: Student,
    data: Path,
    out: Path,
    options: TrainOptions,
    init_from: Path | None = None,
) -> dict[str, Any]:
    """Train one stage on the rows of ``data``; ``init_from`` is the previous stage's output
    folder (curriculum) or None (from the student's weights)."""
    import torch
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    rows = list(read_jsonl(data))
    if not rows:
        raise ValueError(
            f"{data} has no examples: every synthesized trace was filtered out (see the filter "
            "report beside it) or synthesis had no usable questions"
        )
    random.seed(options.seed)
    torch.manual_seed(options.seed)
    gpu = torch.cuda.is_available()
    model, encoder, tokenizer, is_vlm = _load(student, options, init_from, gpu)
    encoded = [encoder.encode(row) for row in rows]
    columns: dict[str, list[Any]] = {
        "input_ids": [e.input_ids for e in encoded],
        "labels": [e.labels for e in encoded],
    }
    dataset = Dataset.from_dict(columns)
    checkpoints = out / "checkpoints"
    resume = _last_checkpoint(checkpoints)
    config = SFTConfig(
        output_dir=str(checkpoints),
        num_train_epochs=options.epochs,
        max_steps=options.max_steps,
        learning_rate=options.learning_rate,
        per_device_train_batch_size=options.batch_size,
        gradient_accumulation_steps=options.gradient_accumulation,
        logging_steps=options.logging_steps,
        save_strategy="steps",
        save_steps=options.save_steps,
        save_total_limit=2,
        seed=options.seed,
        data_seed=options.seed,
        bf16=gpu,
        use_cpu=not gpu,
        report_to=[],
        warmup_steps=options.warmup_steps,
        gradient_checkpointing=options.gradient_checkpointing,
        max_length=None,
        dataset_kwargs={"skip_prepare_dataset": True},
        remove_unused_columns=False,
        disable_tqdm=True,
    )
    collator = _VisionCollator(encoded, tokenizer.pad_token_id) if is_vlm else None
    trainer = SFTTrainer(
        model=model,
        args=config,
        train_dataset=Dataset.from_dict({"index": list(range(len(encoded)))})
        if is_vlm
        else dataset,
        processing_class=tokenizer,
        data_collator=collator,
        callbacks=[_KillAfterSave()] if os.environ.get(KILL_ENV) else None,
    )
    if resume is not None:
        log.info("resuming from %s", resume)
    result = trainer.train(resume_from_checkpoint=str(resume) if resume else None)
    final = out / ("model" if options.full_finetune else "adapter")
    trained: Any = trainer.model
    trained.save_pretrained(final)
    tokenizer.save_pretrained(final)
    losses = [
        {"step": entry["step"], "loss": entry["loss"]}
        for entry in trainer.state.log_history
        if "loss" in entry
    ]
    summary = {
        "examples": len(encoded),
        "steps": trainer.state.global_step,
        "resumed_from": resume.name if resume else None,
        "train_loss": result.training_loss,
        "losses": losses,
        "options": asdict(options),
        "init_from": str(init_from) if init_from else None,
        "student": str(student.weights),
        "device": "cuda" if gpu else "cpu",
        "seconds": result.metrics.get("train_runtime"),
        "examples_per_second": result.metrics.get("train_samples_per_second"),
        "peak_memory_mb": _peak_memory_mb(gpu),
    }
    (out / "train.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def _load(
    student: Student, options: TrainOptions, init_from: Path | None, gpu: bool
) -> tuple[Any, Any, Any, bool]:
    """The model to train (adapter attached), the example encoder and the tokenizer."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForImageTextToText

    from docqa.backends.model_families import is_vlm
    from docqa.training.sft_data import TextEncoder, VisionEncoder

    base = student.weights
    if init_from is not None and options.full_finetune:
        base = init_from / "model"
    model_type = AutoConfig.from_pretrained(base, local_files_only=True).model_type
    vlm = is_vlm(model_type)
    load: dict[str, Any] = {
        "local_files_only": True,
        "dtype": torch.bfloat16 if gpu else torch.float32,
    }
    if options.quantization == "nf4":
        if not gpu:
            raise ValueError(
                "training quantization nf4 (QLoRA) needs a CUDA GPU; drop it on the CPU"
            )
        from transformers import BitsAndBytesConfig

        load["quantization_config"] = BitsAndBytesConfig(
            load_in_4bit=True,
            bnb_4bit_quant_type="nf4",
            bnb_4bit_use_double_quant=True,
            bnb_4bit_compute_dtype=torch.bfloat16,
        )
        load["device_map"] = {"": 0}
    if vlm:
        from transformers import AutoProcessor

        processor = AutoProcessor.from_pretrained(student.weights, local_files_only=True)
        tokenizer = processor.tokenizer
        model: Any = AutoModelForImageTextToText.from_pretrained(base, **load)
        encoder: Any = VisionEncoder(processor, model_type, student.max_pixels)
    else:
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(student.weights, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(base, **load)
        encoder = TextEncoder(tokenizer, student.prompt_format, options.max_length)
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    if options.full_finetune:
        return model, encoder, tokenizer, vlm
    from peft import LoraConfig, PeftModel, get_peft_model, prepare_model_for_kbit_training

    if options.quantization == "nf4":
        model = prepare_model_for_kbit_training(model, options.gradient_checkpointing)
    if init_from is not None:
        model = PeftModel.from_pretrained(model, init_from / "adapter", is_trainable=True)
    else:
        lora = LoraConfig(
            r=options.lora_r,
            lora_alpha=options.lora_alpha,
            lora_dropout=options.lora_dropout,
            target_modules=options.target_modules,
            task_type="CAUSAL_LM",
        )
        model = get_peft_model(model, lora)
    return model, encoder, tokenizer, vlm


def _peak_memory_mb(gpu: bool) -> float:
    """The most GPU memory allocated (on the CPU: the process's peak resident size)."""
    import resource

    import torch

    if gpu:
        return round(torch.cuda.max_memory_allocated() / 2**20, 1)
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _last_checkpoint(folder: Path) -> Path | None:
    found = [p for p in folder.glob("checkpoint-*") if (p / "trainer_state.json").is_file()]
    return max(found, key=lambda p: int(p.name.split("-")[1]), default=None)


def _kill_callback_class() -> Any:
    from transformers import TrainerCallback

    class KillAfterSave(TrainerCallback):
        def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            if state.global_step >= int(os.environ[KILL_ENV]):
                log.warning("killing the training process after step %d", state.global_step)
                os.kill(os.getpid(), signal.SIGKILL)

    return KillAfterSave


def _KillAfterSave() -> Any:
    return _kill_callback_class()()


class _VisionCollator:
    """Right-pads ids and labels of a VLM batch; concatenates its image tensors."""

    def __init__(self, encoded: list[Any], pad_id: int) -> None:
        self.encoded = encoded
        self.pad_id = pad_id

    def __call__(self, batch: list[dict[str, int]]) -> dict[str, Any]:
        import torch

        items = [self.encoded[row["index"]] for row in batch]
        width = max(len(item.input_ids) for item in items)
        ids = [item.input_ids + [self.pad_id] * (width - len(item.input_ids)) for item in items]
        labels = [item.labels + [-100] * (width - len(item.labels)) for item in items]
        mask = [[1] * len(item.input_ids) + [0] * (width - len(item.input_ids)) for item in items]
        out: dict[str, Any] = {
            "input_ids": torch.tensor(ids),
            "labels": torch.tensor(labels),
            "attention_mask": torch.tensor(mask),
        }
        for key, value in items[0].extra.items():
            if isinstance(value, list):  # per-token ids: padded like input_ids
                rows = [item.extra[key] + [0] * (width - len(item.extra[key])) for item in items]
                out[key] = torch.tensor(rows)
            else:
                out[key] = torch.cat([item.extra[key] for item in items])
        return out
