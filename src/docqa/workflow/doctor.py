"""``docqa doctor``: what this machine offers the pipeline, and what to do when it is wrong.

Each check has a status: ``ok``; ``info`` (a fact that limits what runs, such as no GPU);
``warn`` (something that breaks GPU or optional runs, with the command that fixes it); ``error``
(something that breaks the default run, such as a missing tesseract). The command exits 1 only
when a check is an ``error``.

On a machine whose driver supports only CUDA 12, torch 2.14.1 from PyPI (a CUDA 13 build) sees
no GPU; the fix is the same pins from PyTorch's CUDA 12 wheel index (``torch_install_command``).
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import shutil
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

TORCH, TORCHVISION = "2.14.1", "0.29.1"
#: free space below which a folder gets a warning: results (pages, OCR, runs) and the Hub cache
#: (a 7B model in bf16 is about 16 GB)
MIN_FREE_GB = {"results": 10.0, "hf_cache": 40.0}


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # ok | info | warn | error
    detail: str
    fix: str = ""


def torch_install_command(driver_cuda: tuple[int, int] | None) -> str | None:
    """The command that installs docqa's torch pins in the build a driver supporting CUDA
    ``driver_cuda`` runs (the one PyPI has, CUDA 13.0, when it is not known); None when the
    driver is older than CUDA 12.6."""
    if driver_cuda is None or driver_cuda >= (13, 0):
        build = "cu130"
    elif driver_cuda >= (12, 8):
        build = "cu128"
    elif driver_cuda >= (12, 6):
        build = "cu126"
    else:
        return None
    return wheel_command(build)


def wheel_command(build: str) -> str:
    """pip's command for torch and torchvision at docqa's pins, built for ``build``."""
    return (
        f"pip install torch=={TORCH}+{build} torchvision=={TORCHVISION}+{build} "
        f"--index-url https://download.pytorch.org/whl/{build} "
        "--extra-index-url https://pypi.org/simple"
    )


def parse_driver_cuda(nvidia_smi_output: str) -> tuple[int, int] | None:
    """The CUDA version a driver supports, from ``nvidia-smi``'s header ("CUDA Version: 12.4")."""
    match = re.search(r"CUDA Version:\s*(\d+)\.(\d+)", nvidia_smi_output)
    return (int(match[1]), int(match[2])) if match else None


def check_torch() -> tuple[Check, Any]:
    try:
        import torch
    except ImportError as error:
        fix = "pip install -r requirements.lock (or make setup)"
        return Check("torch", "error", f"not importable ({error})", fix), None
    build = f"CUDA {torch.version.cuda} build" if torch.version.cuda else "CPU-only build"
    return Check("torch", "ok", f"{torch.__version__} ({build})"), torch


def check_cuda(torch: Any) -> list[Check]:
    """The driver (from nvidia-smi), the CUDA runtime torch brings, whether they fit, the GPUs."""
    smi = _run(["nvidia-smi"])
    driver_cuda = parse_driver_cuda(smi or "")
    torch_cuda = getattr(getattr(torch, "version", None), "cuda", None)
    available = bool(torch is not None and torch.cuda.is_available())
    if smi is None and not available:
        return [
            Check(
                "gpu",
                "info",
                "no GPU (no NVIDIA driver found): the default config runs on the CPU with the "
                "embedded model; GPU models (transformers on cuda/auto, vllm, nf4/int8) need one",
            )
        ]
    driver = _run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"]) or ""
    checks = [
        Check(
            "cuda driver",
            "ok" if driver_cuda else "warn",
            f"driver {driver.splitlines()[0].strip() if driver else '?'}, supports CUDA "
            f"{'.'.join(map(str, driver_cuda)) if driver_cuda else '?'}",
        ),
        runtime_check(torch, torch_cuda, driver_cuda, available),
    ]
    if available:
        for index in range(torch.cuda.device_count()):
            properties = torch.cuda.get_device_properties(index)
            memory = properties.total_memory / 2**30
            checks.append(Check(f"gpu {index}", "ok", f"{properties.name}, {memory:.1f} GiB"))
    return checks


def runtime_check(
    torch: Any, torch_cuda: str | None, driver_cuda: tuple[int, int] | None, available: bool
) -> Check:
    if available:
        cudnn = torch.backends.cudnn.version()
        return Check("cuda runtime", "ok", f"CUDA {torch_cuda} (torch's), cuDNN {cudnn}")
    fix = torch_install_command(driver_cuda) or "update the NVIDIA driver to CUDA 12.6 or newer"
    if torch_cuda is None:
        return Check("cuda runtime", "warn", "a GPU is here but torch is a CPU-only build", fix)
    if driver_cuda is not None and int(torch_cuda.split(".")[0]) > driver_cuda[0]:
        detail = (
            f"torch is a CUDA {torch_cuda} build, the driver supports CUDA "
            f"{driver_cuda[0]}.{driver_cuda[1]}: torch sees no GPU"
        )
        return Check("cuda runtime", "warn", detail, fix)
    detail = f"torch's CUDA {torch_cuda} sees no GPU although nvidia-smi answers"
    return Check("cuda runtime", "warn", detail, "check CUDA_VISIBLE_DEVICES and nvidia-smi")


#: bitsandbytes warns at import, on CPUs with AVX-512 bf16, that an optional faster nf4 kernel
#: (the ``kernels`` package, which would download code from the Hugging Face hub) is missing;
#: its CPU backend works without it, so the warning only buries the report
BITSANDBYTES_IMPORT_NOISE = "bitsandbytes.backends.cpu.ops"


def check_bitsandbytes() -> Check:
    logging.getLogger(BITSANDBYTES_IMPORT_NOISE).setLevel(logging.ERROR)
    try:
        import bitsandbytes
        from bitsandbytes.cextension import BNB_BACKEND
    except ImportError:
        fix = "pip install bitsandbytes==0.50.2"
        return Check("bitsandbytes", "warn", "not installed: int8 and nf4 precisions fail", fix)
    detail = f"{bitsandbytes.__version__}, {BNB_BACKEND} backend"
    if BNB_BACKEND == "CPU":
        detail += " (nf4 and int8 run on the CPU, slowly; with a GPU it picks CUDA)"
    return Check("bitsandbytes", "ok", detail)


def check_tesseract() -> Check:
    output = _run(["tesseract", "--version"])
    if output is None:
        fix = "sudo apt-get install -y tesseract-ocr (make setup does it)"
        return Check("tesseract", "error", "not found on PATH: the OCR stage cannot run", fix)
    return Check("tesseract", "ok", output.splitlines()[0].strip())


def check_sandbox() -> Check:
    """The isolation level of DocPilot's Solve sandbox (a real sandboxed run, once)."""
    from docqa.sandbox import isolation, machine

    found = machine.current()
    if found.available:
        return Check("solve sandbox", "ok", found.level)
    detail = f"no isolation: Solve refuses to run and DocPilot records why ({found.reason})"
    return Check("solve sandbox", "warn", detail, isolation.FIX)


def check_free_disk(label: str, folder: Path) -> Check:
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    free_gb = shutil.disk_usage(existing).free / 1e9
    detail = f"{free_gb:.1f} GB free in {folder}"
    if free_gb >= MIN_FREE_GB[label]:
        return Check(f"disk {label}", "ok", detail)
    where = "HF_HUB_CACHE=<a folder with space>" if label == "hf_cache" else "results/"
    fix = f"free at least {MIN_FREE_GB[label]:.0f} GB, or point {where} at a larger disk"
    return Check(f"disk {label}", "warn", detail, fix)


def hf_cache_folder() -> Path:
    from huggingface_hub import constants

    return Path(constants.HF_HUB_CACHE)


def run_checks(results: Path = Path("results")) -> list[Check]:
    torch_check, torch = check_torch()
    return [
        torch_check,
        *check_cuda(torch),
        check_bitsandbytes(),
        check_tesseract(),
        check_sandbox(),
        check_free_disk("results", results.resolve()),
        check_free_disk("hf_cache", hf_cache_folder()),
    ]


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "doctor", help="check torch, CUDA, GPUs, tesseract, the Solve sandbox and disk"
    )
    parser.add_argument("--results", type=Path, default=Path("results"), help="results folder")
    parser.add_argument("--json", action="store_true", help="print the checks as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    checks = run_checks(args.results)
    if args.json:
        print(json.dumps([asdict(check) for check in checks], indent=2))
    else:
        for check in checks:
            print(f"[{check.status:>5}] {check.name:<14} {check.detail}")
            if check.fix:
                print(f"{'':22}fix: {check.fix}")
    return 1 if any(check.status == "error" for check in checks) else 0


def _run(command: list[str]) -> str | None:
    """``command``'s output, or None when it is not installed or fails."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=30)
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None
