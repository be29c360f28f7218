"""Blocking tools (rendering crops, tesseract, the Solve sandbox) off the event loop.

They run on a small pool of their own rather than asyncio's default executor, which the model
client uses for ``generate``: many questions in flight each waiting on a sandbox must not hold
up the model, nor start more sandboxes at once than the machine has cores for.
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

_POOL = ThreadPoolExecutor(
    max_workers=max(1, min(4, os.cpu_count() or 1)), thread_name_prefix="docpilot-tool"
)


async def run_tool(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` on the tool pool, awaited."""
    return await asyncio.get_running_loop().run_in_executor(
        _POOL, functools.partial(function, *args)
    )
