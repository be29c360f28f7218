"""Decoding a changing set of sequences one token at a time: the model side of ``docqa serve``'s
step-level (continuous) batching.

``StepDecoder`` wraps a loaded ``TransformersLM``. ``rebuild(sequences)`` reads every sequence
in full (left-padded into one batch, as ``generate`` pads prompts) into a fresh KV cache and
returns each row's next token; ``step(tokens)`` feeds one token per row through that cache;
``keep(rows)`` drops the other rows from it. The scheduler calls ``rebuild`` when sequences join
the batch (a newcomer's prompt and the running rows are read again: recomputation, as vLLM does
for preempted sequences, which keeps this to the model's public forward), ``keep`` when they
leave, and ``step`` otherwise. Decoding is greedy at temperature 0, else plain temperature
sampling (OpenAI's ``top_p=1``).
"""

from __future__ import annotations

from typing import Any

import torch

from docqa.backends.request import ChatRequest
from docqa.backends.transformers_lm import TransformersLM


class ContextError(ValueError):
    """A request whose prompt and ``max_tokens`` do not fit the model's context window."""


class StepDecoder:
    """One KV cache for the rows of a running batch of ``lm``'s sequences."""

    def __init__(self, lm: TransformersLM) -> None:
        self.lm = lm
        self.context: int = lm.model.config.max_position_embeddings
        self.eos_ids = frozenset(lm._eos_ids)
        self._cache: Any = None
        self._mask: torch.Tensor | None = None
        self._positions: torch.Tensor | None = None
        self._temperatures: list[float] = []

    def prompt(self, request: ChatRequest, *, raw: bool = False) -> tuple[list[int], int]:
        """The prompt ids of ``request`` and how many tokens were cut from its middle, as the
        model reads it directly (``TransformersLM.prompt_ids``: within ``max_input_tokens`` and
        the context left by ``max_tokens``); ``raw`` skips the chat template. ``ContextError``
        when ``max_tokens`` leaves no room for a prompt in the context window, ``ValueError``
        for a request the model cannot read."""
        wanted = request.generation.max_new_tokens
        if wanted >= self.context:
            raise ContextError(
                f"max_tokens={wanted} does not fit the model's context window of {self.context} "
                f"tokens (the prompt and the completion together): ask for at most "
                f"max_tokens={self.context - 1}"
            )
        return self.lm.prompt_ids(request, raw=raw)

    def decode(self, ids: list[int]) -> str:
        return str(self.lm.tokenizer.decode(ids, skip_special_tokens=True))

    def rebuild(self, sequences: list[list[int]], temperatures: list[float]) -> list[int]:
        """A fresh cache holding ``sequences`` (one row each); the next token of every row."""
        width = max(len(ids) for ids in sequences)
        input_ids = torch.full((len(sequences), width), self.lm._pad_id, dtype=torch.long)
        mask = torch.zeros((len(sequences), width), dtype=torch.long)
        for row, ids in enumerate(sequences):
            input_ids[row, width - len(ids) :] = torch.tensor(ids, dtype=torch.long)
            mask[row, width - len(ids) :] = 1
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        self._temperatures = list(temperatures)
        self._cache = None
        return self._forward(input_ids, mask, positions)

    def step(self, tokens: list[int]) -> list[int]:
        """Feed one token per row; the next token of every row."""
        assert self._mask is not None
        assert self._positions is not None
        input_ids = torch.tensor(tokens, dtype=torch.long).unsqueeze(1)
        mask = torch.cat([self._mask, torch.ones((len(tokens), 1), dtype=torch.long)], dim=1)
        positions = self._positions[:, -1:] + 1
        return self._forward(input_ids, mask, positions)

    def keep(self, rows: list[int]) -> None:
        """Drop every row of the cache but ``rows`` (in that order)."""
        assert self._mask is not None
        assert self._positions is not None
        index = torch.tensor(rows, dtype=torch.long)
        self._cache.batch_select_indices(index.to(self.lm.device))
        self._mask = self._mask[index]
        self._positions = self._positions[index]
        self._temperatures = [self._temperatures[row] for row in rows]

    def release(self) -> None:
        """Free the cache (the batch is empty)."""
        self._cache = self._mask = self._positions = None

    def _forward(
        self, input_ids: torch.Tensor, mask: torch.Tensor, positions: torch.Tensor
    ) -> list[int]:
        device = self.lm.device
        with torch.inference_mode():
            output = self.lm.model(
                input_ids=input_ids.to(device),
                attention_mask=mask.to(device),
                position_ids=positions.to(device),
                cache=self._cache,
                use_cache=True,
                logits_to_keep=1,
            )
        self._cache = output.cache
        self._mask, self._positions = mask, positions
        logits = output.logits[:, -1, :].float()
        return [self._pick(row, logits[row]) for row in range(logits.shape[0])]

    def _pick(self, row: int, logits: torch.Tensor) -> int:
        temperature = self._temperatures[row]
        if temperature <= 0:
            return int(logits.argmax())
        probabilities = torch.softmax(logits / temperature, dim=-1)
        return int(torch.multinomial(probabilities, 1))
