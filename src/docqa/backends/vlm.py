"""A backend for vision-language models on transformers: every family through ``AutoProcessor``
and ``AutoModelForImageTextToText``, in bf16, int8 or nf4, on CPU, one GPU or several.

Requests are answered in batches: each request's messages go through the processor's chat
template (an image part becomes the family's image placeholder), its pages are opened and held
to the pixel budget (``model_families``), and the batch is left-padded and generated together,
greedy when the temperature is 0. Left padding keeps every row's next token right after its own
prompt, so a request gets the same greedy answer alone or in a batch.

Out of memory: a batch that does not fit is answered one request at a time; a single request that
does not fit is retried once with a smaller pixel budget (``oom_retry_max_pixels``, by default a
quarter of ``max_pixels``: half of each side); the retry is logged as a warning, recorded on the
completion (``retried_max_pixels``, never cached) and counted in the prediction's
``usage.budget_retries``. A request that still does not fit fails with the model's name and what
to change.
"""

from __future__ import annotations

import copy
import gc
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch
from transformers import AutoModelForImageTextToText, AutoProcessor, StoppingCriteriaList

from docqa.backends.base import DEFAULT_MAX_PIXELS, Backend, Completion
from docqa.backends.devices import (
    cuda_devices,
    free_memory,
    is_out_of_memory,
    peak_memory_mb,
    reset_peak,
)
from docqa.backends.errors import InfrastructureError
from docqa.backends.loading import load_errors, load_pretrained
from docqa.backends.model_families import family_of, image_token_id
from docqa.backends.pixels import check_pages, open_page
from docqa.backends.request import ChatRequest, cut_at_stop
from docqa.backends.transformers_lm import StopCriteria, generated_count
from docqa.core.prediction import Usage

if TYPE_CHECKING:  # the spec's module registers this backend and imports this one lazily
    from docqa.backends.transformers import TransformersOptions

log = logging.getLogger(__name__)

#: the retry after an out-of-memory gets this fraction of the pixel budget
RETRY_PIXEL_FRACTION = 0.25


class TransformersVLM(Backend):
    """A VLM loaded offline from a transformers folder.

    ``identity`` is the caller's description of the weights (id, revision or content hash); the
    backend adds what changes outputs: engine, family, precision, pixel budget.
    """

    def __init__(
        self, name: str, weights: Path, identity: dict[str, Any], options: TransformersOptions
    ) -> None:
        """``options`` are the model entry's options (``max_pixels`` caps every page image,
        null: the processor's own; ``min_pixels`` is used by the families whose processor
        takes it; ``oom_retry_max_pixels`` is the budget of the one retry after an
        out-of-memory, by default a quarter of ``max_pixels``)."""
        self.name = name
        self.options = options
        self.max_batch_size = options.max_batch_size
        if options.threads:
            torch.set_num_threads(options.threads)
        with load_errors(name, weights, options.precision, options.device):
            self.processor = AutoProcessor.from_pretrained(
                weights, local_files_only=True, trust_remote_code=options.trust_remote_code
            )
        self.processor.tokenizer.padding_side = "left"
        self.model: Any = load_pretrained(
            AutoModelForImageTextToText,
            name,
            weights,
            precision=options.precision,
            device=options.device,
            attn_implementation=options.attn_implementation,
            trust_remote_code=options.trust_remote_code,
        )
        self.family = family_of(self.model.config.model_type)
        text_config = getattr(self.model.config, "text_config", self.model.config)
        self.context_tokens = getattr(text_config, "max_position_embeddings", None)
        self._identity = {
            **identity,
            "engine": "transformers",
            "family": self.family.name,
            "precision": options.precision,
            "max_pixels": options.max_pixels,
            "min_pixels": options.min_pixels,
        }
        self._gpus = cuda_devices(self.model)
        self._image_token = image_token_id(self.model.config)
        eos = self.model.generation_config.eos_token_id
        self._eos_ids: set[int] = (
            set(eos) if isinstance(eos, list) else {eos} if eos is not None else set()
        )
        pad = self.processor.tokenizer.pad_token_id
        self._pad_id = pad if pad is not None else min(self._eos_ids, default=0)

    @property
    def identity(self) -> dict[str, Any]:
        return self._identity

    def validate(self, request: ChatRequest) -> None:
        check_pages(request.images)

    def generate(self, requests: list[ChatRequest]) -> list[Completion]:
        if self.model is None:
            raise RuntimeError(f"model {self.name}: generate after close()")
        # one generate call per temperature and pixel budget: greedy and sampled rows cannot
        # share a batch, nor rows whose images the processor resizes differently
        groups: dict[tuple[float, int | None], list[int]] = {}
        for index, request in enumerate(requests):
            key = (request.generation.temperature, self._budget(request))
            groups.setdefault(key, []).append(index)
        results: dict[int, Completion] = {}
        for (temperature, budget), indices in groups.items():
            batch = [requests[i] for i in indices]
            results.update(zip(indices, self._answer(batch, temperature, budget), strict=True))
        return [results[index] for index in range(len(requests))]

    def close(self) -> None:
        self.model = None
        gc.collect()
        free_memory(self._gpus)

    def _chat(self, request: ChatRequest) -> list[dict[str, Any]]:
        """The request as the processor's chat template takes it."""
        return [
            {
                "role": message.role,
                "content": [
                    {"type": "image"}
                    if part.kind == "image"
                    else {"type": "text", "text": part.text}
                    for part in message.parts
                ],
            }
            for message in request.messages
        ]

    def _budget(self, request: ChatRequest) -> int | None:
        """The request's own pixel budget (``Generation.max_pixels``), else the model's."""
        if request.generation.max_pixels is not None:
            return request.generation.max_pixels
        return self.options.max_pixels

    def _answer(
        self, requests: list[ChatRequest], temperature: float, budget: int | None
    ) -> list[Completion]:
        try:
            return self._run(requests, temperature, budget)
        except Exception as error:
            if not is_out_of_memory(error):
                raise
        free_memory(self._gpus)
        if len(requests) > 1:
            log.warning(
                "model %s: a batch of %d requests ran out of memory; answering them one at a "
                "time (a smaller max_batch_size avoids the lost work)",
                self.name,
                len(requests),
            )
            return [self._answer([request], temperature, budget)[0] for request in requests]
        return [self._retry_smaller(requests[0], temperature, budget)]

    def _retry_smaller(
        self, request: ChatRequest, temperature: float, first: int | None
    ) -> Completion:
        budget = self._smaller_budget(request, first)
        log.warning(
            "model %s: out of memory on a request with %d page image(s) at max_pixels=%s; "
            "retrying it once with max_pixels=%d",
            self.name,
            len(request.images),
            first,
            budget,
        )
        try:
            completion = self._run([request], temperature, budget)[0]
        except Exception as error:
            if not is_out_of_memory(error):
                raise
            free_memory(self._gpus)
            raise InfrastructureError(
                f"model {self.name}: out of memory on a request with {len(request.images)} page "
                f"image(s), also at max_pixels={budget}; lower models.{self.name}.max_pixels, "
                f"use precision nf4, send fewer pages per request, or give the job more GPU memory"
            ) from error
        completion.retried_max_pixels = budget
        completion.usage.budget_retries = 1
        return completion

    def _smaller_budget(self, request: ChatRequest, budget: int | None) -> int:
        if self.options.oom_retry_max_pixels is not None:
            return self.options.oom_retry_max_pixels
        if budget is None:  # no cap was set: a quarter of the largest page
            budget = max((_pixels(path) for path in request.images), default=DEFAULT_MAX_PIXELS)
        return max(1, int(budget * RETRY_PIXEL_FRACTION))

    def _inputs(self, requests: list[ChatRequest], max_pixels: int | None) -> Any:
        texts = [
            self.processor.apply_chat_template(
                self._chat(request), add_generation_prompt=True, tokenize=False
            )
            for request in requests
        ]
        images = [
            [self.family.prepare(open_page(path), max_pixels, self.processor) for path in r.images]
            for r in requests
        ]
        options = self.family.processor_kwargs(max_pixels, self.options.min_pixels, self.processor)
        inputs = self.processor(
            text=texts,
            images=images if any(images) else None,
            padding=True,
            return_tensors="pt",
            **options,
        )
        return inputs.to(self.model.device, dtype=self.model.dtype)

    def _run(
        self, requests: list[ChatRequest], temperature: float, max_pixels: int | None
    ) -> list[Completion]:
        started = time.perf_counter()
        reset_peak(self._gpus)
        inputs = self._inputs(requests, max_pixels)
        input_ids = inputs["input_ids"]
        width = input_ids.shape[1]
        limits = [request.generation.max_new_tokens for request in requests]
        stopper = StopCriteria(
            self.processor.tokenizer, width, [r.generation.stop for r in requests], limits
        )
        config = copy.deepcopy(self.model.generation_config)
        config.max_new_tokens = max(limits)
        config.pad_token_id = self._pad_id
        config.do_sample = temperature > 0
        config.temperature = temperature if temperature > 0 else None
        if temperature == 0:
            config.top_k = config.top_p = None
        with torch.inference_mode():
            output = self.model.generate(
                **inputs,
                generation_config=config,
                stopping_criteria=StoppingCriteriaList([stopper]),
            )
        generated = output[:, width:].tolist()
        seconds = (time.perf_counter() - started) / len(requests)
        peak_mb = peak_memory_mb(self._gpus)

        completions = []
        for row, request in enumerate(requests):
            count = generated_count(
                generated[row], stopper.stopped_at[row], limits[row], self._eos_ids
            )
            text = self.processor.tokenizer.decode(generated[row][:count], skip_special_tokens=True)
            prompt = input_ids[row][inputs["attention_mask"][row].bool()]
            image_tokens = (
                0 if self._image_token is None else int((prompt == self._image_token).sum())
            )
            usage = Usage(
                calls=1,
                tokens_in=int(prompt.numel()),
                tokens_out=count,
                image_tokens=image_tokens,
                seconds=seconds,
                peak_memory_mb=peak_mb,
            )
            completions.append(Completion(cut_at_stop(text, request.generation.stop), usage))
        return completions


def _pixels(path: str) -> int:
    from PIL import Image

    with Image.open(path) as image:
        return image.width * image.height
