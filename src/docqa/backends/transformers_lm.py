"""A backend for text-only causal language models on transformers, on CPU or one GPU.

Requests are answered in batches: prompts are left-padded to a common length (so every row's
next token comes right after its own prompt) and generated together; greedy decoding when the
temperature is 0. A request's ``stop`` strings end its row early and are cut from its text.

Prompts longer than the input budget — ``max_input_tokens`` if set, else the model's context,
less the request's ``max_new_tokens`` — lose tokens from the middle: the head (instruction and
few-shot examples) and the tail (the question and the open answer slot) are what a reading
prompt cannot do without, while the middle is document text. The completion records how many
tokens were cut.
"""

from __future__ import annotations

import copy
import gc
import resource
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, StoppingCriteria, StoppingCriteriaList

from docqa.backends.base import Backend, Completion
from docqa.backends.request import ChatRequest, cut_at_stop
from docqa.core.prediction import Usage

PROMPT_FORMATS = ("raw", "chat")
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}

#: put where the middle of an over-long prompt was cut
TRUNCATION_MARK = "\n[...]\n"


@dataclass(frozen=True)
class LMSettings:
    """How to load and prompt a causal LM (the embedded and transformers backends build it from
    their model entry's options).

    ``prompt_format`` is ``"raw"`` for base models (the text of every message, concatenated, is
    the prompt) or ``"chat"`` (the tokenizer's chat template). ``threads`` sets torch's CPU
    threads; ``None`` leaves torch's default.
    """

    prompt_format: str = "raw"
    dtype: str = "float32"
    device: str = "cpu"
    max_batch_size: int = 8
    max_input_tokens: int | None = None
    threads: int | None = None
    attn_implementation: str = "sdpa"

    def __post_init__(self) -> None:
        if self.prompt_format not in PROMPT_FORMATS:
            raise ValueError(f"prompt_format {self.prompt_format!r}: use one of {PROMPT_FORMATS}")
        if self.dtype not in DTYPES:
            raise ValueError(f"dtype {self.dtype!r}: use one of {sorted(DTYPES)}")
        if self.max_batch_size < 1:
            raise ValueError(f"max_batch_size must be at least 1, not {self.max_batch_size}")


class TransformersLM(Backend):
    """A causal LM loaded offline from a transformers folder (``save_pretrained`` layout).

    ``identity`` is the caller's description of the weights (id, source, quantization); the
    backend adds the settings that change outputs: prompt format, dtype and input limit.
    """

    def __init__(
        self,
        model_dir: Path,
        identity: dict[str, Any],
        settings: LMSettings,
        load_options: dict[str, Any] | None = None,
    ) -> None:
        """``load_options`` go to ``from_pretrained`` as they are (the transformers backend passes
        its precision's dtype and quantization and a ``device_map``); a model placed by a
        ``device_map`` stays where accelerate put it."""
        self.settings = settings
        self.max_batch_size = settings.max_batch_size
        self._identity = {
            **identity,
            "prompt_format": settings.prompt_format,
            "dtype": settings.dtype,
            "max_input_tokens": settings.max_input_tokens,
        }
        if settings.threads:
            torch.set_num_threads(settings.threads)
        self.device = torch.device(settings.device)
        self.tokenizer = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
        if settings.prompt_format == "chat" and not self.tokenizer.chat_template:
            raise ValueError(
                f"{model_dir}: the tokenizer has no chat template; set prompt_format: raw for a "
                "base model"
            )
        options = {
            "dtype": DTYPES[settings.dtype],
            "attn_implementation": settings.attn_implementation,
            "local_files_only": True,
            **(load_options or {}),
        }
        self.model: Any = AutoModelForCausalLM.from_pretrained(model_dir, **options)
        if "device_map" not in options:
            self.model.to(self.device)  # type: ignore[arg-type]
        self.model.eval()
        self.device = self.model.device
        eos = self.model.generation_config.eos_token_id
        self._eos_ids: set[int] = (
            set(eos) if isinstance(eos, list) else {eos} if eos is not None else set()
        )
        pad = self.tokenizer.pad_token_id
        self._pad_id = pad if pad is not None else min(self._eos_ids, default=0)
        self._mark_ids = self.tokenizer(TRUNCATION_MARK, add_special_tokens=False).input_ids
        self._context = self.model.config.max_position_embeddings

    @property
    def identity(self) -> dict[str, Any]:
        return self._identity

    def validate(self, request: ChatRequest) -> None:
        """A text-only model reads image parts as their OCR text; one without text is an error."""
        request.as_text_only()

    def generate(self, requests: list[ChatRequest]) -> list[Completion]:
        if self.model is None:
            raise RuntimeError(f"model {self._identity.get('id', '?')}: generate after close()")
        for request in requests:
            self.validate(request)
        # one generate call per temperature: greedy and sampled rows cannot share a batch
        by_temperature: dict[float, list[int]] = {}
        for index, request in enumerate(requests):
            by_temperature.setdefault(request.generation.temperature, []).append(index)
        results: dict[int, Completion] = {}
        for temperature, indices in by_temperature.items():
            completions = self._generate_batch([requests[i] for i in indices], temperature)
            results.update(zip(indices, completions, strict=True))
        return [results[index] for index in range(len(requests))]

    def close(self) -> None:
        self.model = None
        gc.collect()
        if self.device.type == "cuda":
            torch.cuda.empty_cache()

    def prompt_ids(self, request: ChatRequest, *, raw: bool = False) -> tuple[list[int], int]:
        """The prompt's token ids within the input budget, and how many tokens were cut;
        ``raw`` reads the messages' text without the chat template (a served text completion)."""
        request = request.as_text_only()
        if self.settings.prompt_format == "chat" and not raw:
            messages = [{"role": m.role, "content": m.text} for m in request.messages]
            text = self.tokenizer.apply_chat_template(
                messages, add_generation_prompt=True, tokenize=False
            )
            ids = self.tokenizer(text, add_special_tokens=False).input_ids
        else:
            ids = self.tokenizer("".join(m.text for m in request.messages)).input_ids
        limit = self._context - request.generation.max_new_tokens
        if self.settings.max_input_tokens is not None:
            limit = min(limit, self.settings.max_input_tokens)
        return cut_middle(ids, max(limit, 1), self._mark_ids)

    def _generate_batch(self, requests: list[ChatRequest], temperature: float) -> list[Completion]:
        started = time.perf_counter()
        if self.device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(self.device)
        prompts = [self.prompt_ids(request) for request in requests]
        width = max(len(ids) for ids, _ in prompts)
        input_ids = torch.full((len(prompts), width), self._pad_id, dtype=torch.long)
        attention_mask = torch.zeros((len(prompts), width), dtype=torch.long)
        for row, (ids, _) in enumerate(prompts):
            input_ids[row, width - len(ids) :] = torch.tensor(ids, dtype=torch.long)
            attention_mask[row, width - len(ids) :] = 1

        limits = [request.generation.max_new_tokens for request in requests]
        stopper = StopCriteria(self.tokenizer, width, [r.generation.stop for r in requests], limits)
        config = copy.deepcopy(self.model.generation_config)
        config.max_new_tokens = max(limits)
        config.pad_token_id = self._pad_id
        config.do_sample = temperature > 0
        config.temperature = temperature if temperature > 0 else None
        if temperature == 0:
            config.top_k = config.top_p = None
        with torch.inference_mode():
            output = self.model.generate(
                input_ids=input_ids.to(self.device),
                attention_mask=attention_mask.to(self.device),
                generation_config=config,
                stopping_criteria=StoppingCriteriaList([stopper]),
            )
        generated = output[:, width:].tolist()
        seconds = (time.perf_counter() - started) / len(requests)
        peak_mb = self._peak_memory_mb()

        completions = []
        for row, request in enumerate(requests):
            count = generated_count(
                generated[row], stopper.stopped_at[row], limits[row], self._eos_ids
            )
            text = self.tokenizer.decode(generated[row][:count], skip_special_tokens=True)
            ids, truncated = prompts[row]
            usage = Usage(
                calls=1,
                tokens_in=len(ids),
                tokens_out=count,
                images_as_text=len(request.images),
                seconds=seconds,
                peak_memory_mb=peak_mb,
            )
            completions.append(
                Completion(cut_at_stop(text, request.generation.stop), usage, truncated)  # type: ignore[arg-type]
            )
        return completions

    def _peak_memory_mb(self) -> float:
        if self.device.type == "cuda":
            return torch.cuda.max_memory_allocated(self.device) / 2**20
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


class StopCriteria(StoppingCriteria):
    """Ends each row at its first stop string or at its own ``max_new_tokens``.

    transformers' own ``stop_strings`` takes one list for the whole batch; here every request
    brings its own strings and token limit. ``stopped_at[row]`` is the number of generated
    tokens when the row ended this way (``None`` while it runs or when it ended otherwise).
    """

    def __init__(
        self,
        tokenizer: Any,
        prompt_width: int,
        stops: list[tuple[str, ...]],
        limits: list[int],
    ) -> None:
        self.tokenizer = tokenizer
        self.prompt_width = prompt_width
        self.stops = stops
        self.limits = limits
        self.stopped_at: list[int | None] = [None] * len(stops)

    def __call__(self, input_ids: torch.LongTensor, scores: Any, **kwargs: Any) -> torch.BoolTensor:
        generated = input_ids[:, self.prompt_width :]
        count = generated.shape[1]
        for row, stops in enumerate(self.stops):
            if self.stopped_at[row] is not None:
                continue
            if count >= self.limits[row]:
                self.stopped_at[row] = count
            elif stops:
                text = self.tokenizer.decode(generated[row], skip_special_tokens=True)
                if any(stop in text for stop in stops):
                    self.stopped_at[row] = count
        done = [at is not None for at in self.stopped_at]
        return torch.tensor(done, dtype=torch.bool, device=input_ids.device)  # type: ignore[return-value]


def cut_middle(ids: list[int], limit: int, mark: list[int]) -> tuple[list[int], int]:
    """``ids`` within ``limit`` tokens: the head and the tail kept, the middle replaced by
    ``mark``; returns the ids and the number of prompt tokens dropped."""
    if len(ids) <= limit:
        return ids, 0
    if limit <= len(mark) + 1:
        mark = []
    keep = limit - len(mark)
    head = keep // 2
    tail = keep - head
    return ids[:head] + mark + ids[len(ids) - tail :], len(ids) - keep


def generated_count(
    tokens: list[int], stopped_at: int | None, limit: int, eos_ids: set[int]
) -> int:
    """Tokens a batch row really generated: up to its end-of-sequence token, its stop string or
    its own ``max_new_tokens``, whichever came first (the rest is padding)."""
    count = min(len(tokens), limit)
    if stopped_at is not None:
        count = min(count, stopped_at)
    for position, token in enumerate(tokens[:count]):
        if token in eos_ids:
            return position + 1
    return count
