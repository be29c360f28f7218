"""``docqa doctor`` on this machine (no GPU: it must say so and what it means, not fail), with
tesseract taken off the PATH (the one thing that blocks the default run), and its advice for a
driver that supports only CUDA 12."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from docqa.cli import main
from docqa.workflow import doctor

NVIDIA_SMI_HEADER = """
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
"""


def checks_of(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, dict]]:
    status = main(["doctor", "--json", *args])
    return status, {check["name"]: check for check in json.loads(capsys.readouterr().out)}


def test_doctor_reports_this_machine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, checks = checks_of(capsys, "--results", str(tmp_path / "results"))
    assert status == 0
    import torch

    assert checks["torch"]["status"] == "ok"
    assert checks["torch"]["detail"].startswith(f"{torch.__version__} (")  # what is imported
    assert checks["tesseract"]["status"] == "ok"
    assert re.fullmatch(r"tesseract v?\d+\.\d+\S*", checks["tesseract"]["detail"])
    assert "backend" in checks["bitsandbytes"]["detail"]
    assert checks["disk results"]["detail"].endswith(f"free in {tmp_path / 'results'}")
    assert "disk hf_cache" in checks
    if shutil.which("nvidia-smi") is None:
        gpu = checks["gpu"]
        assert gpu["status"] == "info"
        assert gpu["detail"].startswith("no GPU")
        assert "runs on the CPU with the embedded model" in gpu["detail"]
    else:
        assert checks["cuda driver"]["status"] in ("ok", "warn")


def test_without_tesseract_the_default_run_is_blocked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no tesseract, no nvidia-smi
    status = main(["doctor"])
    text = capsys.readouterr().out
    assert status == 1
    assert "[error] tesseract" in text
    assert "fix: sudo apt-get install -y tesseract-ocr" in text


def test_little_free_disk_is_a_warning_with_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(doctor.MIN_FREE_GB, "hf_cache", 1e12)
    check = doctor.check_free_disk("hf_cache", tmp_path / "not-yet" / "hub")
    assert check.status == "warn"
    assert "HF_HUB_CACHE=" in check.fix
    assert doctor.check_free_disk("results", tmp_path).status == "ok"


def test_the_driver_cuda_version_picks_the_torch_build() -> None:
    assert doctor.parse_driver_cuda(NVIDIA_SMI_HEADER) == (12, 4)
    assert doctor.parse_driver_cuda("no header") is None
    assert doctor.torch_install_command((12, 9)) == (
        f"pip install torch=={doctor.TORCH}+cu128 torchvision=={doctor.TORCHVISION}+cu128 "
        "--index-url https://download.pytorch.org/whl/cu128 "
        "--extra-index-url https://pypi.org/simple"
    )
    assert "whl/cu126" in doctor.torch_install_command((12, 6))
    assert doctor.torch_install_command((12, 4)) is None
    assert f"torch=={doctor.TORCH}+cu130" in doctor.torch_install_command((13, 0))


def test_a_cuda_13_torch_on_a_cuda_12_driver_says_which_wheel_to_install() -> None:
    check = doctor.runtime_check(None, "13.0", (12, 8), available=False)
    assert check.status == "warn"
    assert "torch sees no GPU" in check.detail
    assert f"torch=={doctor.TORCH}+cu128" in check.fix
    assert "whl/cu128" in check.fix
    old = doctor.runtime_check(None, "13.0", (12, 2), available=False)
    assert old.fix == "update the NVIDIA driver to CUDA 12.6 or newer"
    cpu_only = doctor.runtime_check(None, None, (12, 6), available=False)
    assert "CPU-only build" in cpu_only.detail
    assert "+cu126" in cpu_only.fix


def test_the_report_is_not_opened_by_third_party_import_warnings(tmp_path: Path) -> None:
    """In a fresh interpreter (where bitsandbytes is imported for the first time) the report
    starts with docqa's own first check, not bitsandbytes' advice to install ``kernels``."""
    done = subprocess.run(
        [sys.executable, "-m", "docqa.cli", "doctor", "--results", str(tmp_path / "results")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.stdout.startswith("[   ok] torch"), done.stdout[:500]
    assert "kernels" not in done.stderr, done.stderr[-2000:]
