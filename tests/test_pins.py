"""The pins of pyproject.toml, requirements.lock, envs/*.yaml and the Dockerfile agree."""

from __future__ import annotations

import importlib.util
import re
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

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
    deps = project["dependencies"] + [
        d for ds in project["optional-dependencies"].values() for d in ds
    ]
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
        assert lock.get(name) == version, (
            f"pyproject pins {name}=={version}, lock has {lock.get(name)}"
        )


def test_doctor_advises_the_locked_torch_and_bitsandbytes(monkeypatch: pytest.MonkeyPatch) -> None:
    """``docqa doctor`` names versions in its fixes (the CUDA wheel of torch for an older
    driver, bitsandbytes when it is missing): they must be the ones the lock installs, or a
    bump of the lock leaves the doctor advising another release."""
    from docqa.workflow import doctor

    lock = lock_pins()
    assert (lock["torch"], lock["torchvision"]) == (doctor.TORCH, doctor.TORCHVISION), (
        "src/docqa/workflow/doctor.py: TORCH, TORCHVISION differ from requirements.lock"
    )
    command = doctor.torch_install_command((12, 8))
    assert f"torch=={lock['torch']}+cu128 torchvision=={lock['torchvision']}+cu128" in command
    monkeypatch.setitem(sys.modules, "bitsandbytes", None)  # import fails: the fix is shown
    fix = doctor.check_bitsandbytes().fix
    assert fix == f"pip install bitsandbytes=={lock['bitsandbytes']}", fix


def python_pin(path: Path) -> str:
    """The ``python=X.Y.Z`` conda pin of an environment file."""
    dependencies = yaml.safe_load(path.read_text())["dependencies"]
    pins = [d for d in dependencies if str(d).startswith("python=")]
    assert len(pins) == 1, f"{path.name}: python pins {pins}"
    return pins[0].removeprefix("python=")


def test_every_env_runs_one_python_that_the_project_supports() -> None:
    """All conda envs (the vllm one too) pin the same Python, inside pyproject's
    requires-python and the minor version the Dockerfile installs."""
    env_files = sorted((ROOT / "envs").glob("*.yaml")) + [ROOT / "envs/vllm/environment.yaml"]
    versions = {path.relative_to(ROOT).as_posix(): python_pin(path) for path in env_files}
    assert len(set(versions.values())) == 1, f"the envs pin different Pythons: {versions}"
    python = next(iter(versions.values()))
    supported = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert Version(python) in SpecifierSet(supported), f"python={python} not in {supported}"
    minor = ".".join(python.split(".")[:2])
    assert f"python{minor} " in (ROOT / "Dockerfile").read_text(), f"Dockerfile: no python{minor}"


def test_every_env_file_agrees_with_the_lock() -> None:
    lock = lock_pins()
    env_files = sorted((ROOT / "envs").glob("*.yaml"))
    assert len(env_files) >= 2
    for path in env_files:
        for name, version in env_pins(path).items():
            assert lock.get(name) == version, (
                f"{path.name} pins {name}=={version}, lock has {lock.get(name)}"
            )


def test_dockerfile_installs_the_lock_and_agrees_with_it() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM nvidia/cuda:[\w.-]+", dockerfile, re.M), "base image must be CUDA"
    assert "pip install -r requirements.lock" in dockerfile
    assert "tesseract-ocr" in dockerfile
    lock = lock_pins()
    for name, version in re.findall(r"([A-Za-z0-9][\w.-]*)==([\w.+-]+)", dockerfile):
        assert lock.get(normalise(name)) == version, f"Dockerfile pins {name}=={version}"


def test_pin_parser_reads_exact_pins_and_refuses_loose_ones(tmp_path: Path) -> None:
    env = tmp_path / "env.yaml"
    env.write_text("dependencies:\n  - python=3.11.7\n  - pip:\n      - Torch_Vision==0.1.0\n")
    assert env_pins(env) == {"torch-vision": "0.1.0"}
    env.write_text("dependencies:\n  - python=3.11.7\n  - pip:\n      - torch>=2\n")
    with pytest.raises(AssertionError, match="without an exact pin"):
        env_pins(env)
    env.write_text("dependencies:\n  - python\n  - pip:\n      - torch==2.0\n")
    with pytest.raises(AssertionError, match="unpinned"):
        env_pins(env)


def load_make_locks():
    """envs/make_locks.py, the generator of the env locks, as a module."""
    spec = importlib.util.spec_from_file_location("make_locks", ROOT / "envs" / "make_locks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_env_lock_agrees_with_its_yaml_and_the_lock() -> None:
    lock = lock_pins()
    make_locks = load_make_locks()
    for path in sorted((ROOT / "envs").glob("*.yaml")):
        env_lock = path.with_name(path.stem + ".lock.txt")
        assert env_lock.is_file(), f"{env_lock.name} is missing: run make env-locks"
        pip = [
            d["pip"]
            for d in yaml.safe_load(path.read_text())["dependencies"]
            if isinstance(d, dict)
        ][0]
        assert f"-r {env_lock.name}" in pip, f"{path.name} does not install {env_lock.name}"
        lines = [line for line in env_lock.read_text().splitlines() if not line.startswith("#")]
        pinned = parse_pins(lines, env_lock.name)
        assert len(pinned) == len(lines), f"{env_lock.name} has lines without an exact pin"
        for name, version in pinned.items():
            if name not in make_locks.FREEZE_OMITS:
                assert lock.get(name) == version, (
                    f"{env_lock.name} pins {name}=={version}, lock has {lock.get(name)}"
                )
        for name, version in env_pins(path).items():
            assert pinned.get(name) == version, (
                f"{path.name} pins {name}=={version}, {env_lock.name} has {pinned.get(name)}"
            )
        assert env_lock.read_text() == make_locks.lock_text(path), (
            f"{env_lock.name} is stale: run make env-locks"
        )


def test_every_rule_that_runs_code_names_a_conda_env() -> None:
    """A rule with ``script:``/``shell:`` names ``conda:`` (``run:`` rules cannot; ``use rule``
    inherits its parent's)."""
    for smk in sorted((ROOT / "rules").glob("*.smk")):
        for block in re.split(r"\n(?=rule \w+:)", smk.read_text()):
            if not block.startswith("rule ") or not re.search(r"^    (script|shell):", block, re.M):
                continue
            name = block.split(":", 1)[0]
            match = re.search(r'^    conda:\n\s+"\.\./envs/(\w+)\.yaml"', block, re.M)
            assert match, f"{smk.name}: {name} names no conda env"
            assert (ROOT / "envs" / f"{match.group(1)}.yaml").is_file()
