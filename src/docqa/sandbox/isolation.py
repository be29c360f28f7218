"""Which operating-system layers this machine can put around a sandboxed program.

- A network namespace from ``unshare`` (util-linux): as root ``unshare --net``; as another user
  ``unshare --map-root-user --net`` where the kernel allows unprivileged user namespaces. The
  program then has no interface but loopback. Tried once per process, then remembered.
- As root, the program drops to ``nobody`` (done by the child itself, see ``child.py``), so that
  file permissions and ``RLIMIT_NPROC`` apply to it.
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import subprocess

log = logging.getLogger(__name__)

_CANDIDATES = (("--net",), ("--map-root-user", "--net"))


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot give the isolation that its limits require on this machine."""


@functools.cache
def network_namespace_prefix() -> tuple[str, ...]:
    """The command prefix that runs a program in a fresh network namespace, or ``()`` when
    this machine cannot make one (no ``unshare``, or no permission)."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return ()
    for flags in _CANDIDATES:
        prefix = (unshare, *flags, "--")
        try:
            probe = subprocess.run([*prefix, "true"], capture_output=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if probe.returncode == 0:
            return prefix
    return ()


def command_prefix(mode: str) -> tuple[str, ...]:
    """The prefix for ``network_namespace`` = ``mode`` (``auto``, ``required`` or ``off``)."""
    if mode == "off":
        return ()
    prefix = network_namespace_prefix()
    if prefix:
        return prefix
    if mode == "required":
        raise SandboxUnavailable(
            "the Solve sandbox needs a network namespace but `unshare` cannot make one here: "
            "install util-linux and run as root (or allow unprivileged user namespaces: "
            "sysctl kernel.unprivileged_userns_clone=1), or set network_namespace: auto to "
            "rely on the in-process guard alone"
        )
    _warn_once()
    return ()


@functools.cache
def _warn_once() -> None:
    log.warning(
        "sandbox: `unshare` cannot create a network namespace here; sandboxed programs are "
        "kept off the network by the in-process audit guard only"
    )


def drops_privileges() -> bool:
    """Whether the child must drop from root to ``nobody``."""
    return os.geteuid() == 0
