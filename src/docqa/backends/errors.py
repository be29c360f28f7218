"""Two kinds of failed question, told apart.

An *infrastructure* error says nothing about the question: the model server is down, the API
key is refused, the response cache is damaged, the model ran out of memory even after its
retry. Recording such a question as a wrong answer would make a broken machine look like a bad
method, and the rerun after the fix would find nothing to do. The infer stage therefore keeps
these questions out of its checkpoint and fails the job (docqa.stages.infer), so the rerun asks
them again.

Any other error (an unreadable page, a reply the method cannot parse, a sandboxed program that
fails) belongs to the question: it stays a recorded answer with ``error`` set, scored as wrong.
The kinds (``Prediction.error_kind``) are named in :mod:`docqa.core.error_kinds`.
"""

from __future__ import annotations

import sqlite3

from docqa.core.error_kinds import INFRASTRUCTURE, INPUT


class InfrastructureError(RuntimeError):
    """The machine, the network or a service failed, not the question; the message says what
    to fix. Raised by backends and the response cache."""


class CacheCorruptError(InfrastructureError):
    """The response cache's SQLite file is damaged."""


def is_infrastructure(error: BaseException) -> bool:
    """Whether ``error`` comes from the infrastructure rather than the question or the method."""
    if isinstance(
        error, (InfrastructureError, MemoryError, ConnectionError, sqlite3.DatabaseError)
    ):
        return True
    # torch.OutOfMemoryError without importing torch here
    return any(kind.__name__ == "OutOfMemoryError" for kind in type(error).__mro__)


def error_kind(error: BaseException) -> str:
    """``INFRASTRUCTURE`` or ``INPUT``, for ``Prediction.error_kind``."""
    return INFRASTRUCTURE if is_infrastructure(error) else INPUT
