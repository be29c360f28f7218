"""The pins of pyproject.toml, requirements.lock, envs/*.yaml and the Dockerfile agree."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)$")


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def parse_pins(lines: list[str], where: str) -> dict[str, str]:
    pins = {}
    for line in lines:
        match = PIN.match(line.strip())
        if match:
            pins[normalise(match.group(1))] = match.group(2)
    assert pins, f"no pins found in {where}"
    return pins


def lock_pins() -> dict[str, str]:
    lines = (ROOT / "requirements.lock").read_text().splitlines()
    body = [line for line in lines if line.strip() and not line.startswith("#")]
    unpinned = [line for line in body if not PIN.match(line.strip())]
    assert not unpinned, f"requirements.lock has lines without an exact pin: {unpinned}"
    return parse_pins(body, "requirements.lock")


def project_pins() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    deps = project["dependencies"] + [d for ds in project["optional-dependencies"].values() for d in ds]
    unpinned = [d for d in deps if not PIN.match(d)]
    assert not unpinned, f"pyproject.toml dependencies without an exact pin: {unpinned}"
    return parse_pins(deps, "pyproject.toml")


def env_pins(path: Path) -> dict[str, str]:
    env = yaml.safe_load(path.read_text())
    pip_sections = [d["pip"] for d in env["dependencies"] if isinstance(d, dict)]
    assert pip_sections, f"{path.name} has no pip section"
    pip = [line for line in pip_sections[0] if not line.startswith("-")]
    unpinned = [line for line in pip if not PIN.match(line)]
    assert not unpinned, f"{path.name}: pip entries without an exact pin: {unpinned}"
    conda = [d for d in env["dependencies"] if isinstance(d, str)]
    assert all(re.fullmatch(r"[\w.-]+=[\w.]+", d) for d in conda), f"{path.name}: unpinned {conda}"
    return parse_pins(pip, path.name)


def test_project_pins_are_in_the_lock() -> None:
    lock = lock_pins()
    for name, version in project_pins().items():
        assert lock.get(name) == version, f"pyproject pins {name}=={version}, lock has {lock.get(name)}"


def test_torch_pins_are_the_supported_pair() -> None:
    lock = lock_pins()
    assert (lock["torch"], lock["torchvision"]) == ("2.14.1", "0.29.1")


def test_every_env_file_agrees_with_the_lock() -> None:
    lock = lock_pins()
    env_files = sorted((ROOT / "envs").glob("*.yaml"))
    assert len(env_files) >= 2
    for path in env_files:
        for name, version in env_pins(path).items():
            assert lock.get(name) == version, f"{path.name} pins {name}=={version}, lock has {lock.get(name)}"
        python = [d for d in yaml.safe_load(path.read_text())["dependencies"] if str(d).startswith("python=")]
        assert python == ["python=3.11.7"], f"{path.name}: python pin {python}"


def test_dockerfile_installs_the_lock_and_agrees_with_it() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM nvidia/cuda:[\w.-]+", dockerfile, re.M), "base image must be CUDA"
    assert "pip install -r requirements.lock" in dockerfile
    assert "tesseract-ocr" in dockerfile
    lock = lock_pins()
    for name, version in re.findall(r"([A-Za-z0-9][\w.-]*)==([\w.+-]+)", dockerfile):
        assert lock.get(normalise(name)) == version, f"Dockerfile pins {name}=={version}"


def test_pin_parser_rejects_disagreement(tmp_path: Path) -> None:
    env = tmp_path / "bad.yaml"
    env.write_text("dependencies:\n  - python=3.11.7\n  - pip:\n      - torch==2.13.0\n")
    assert env_pins(env)["torch"] != lock_pins()["torch"]
