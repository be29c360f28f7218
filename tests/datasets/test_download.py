"""The download code against a Hugging Face Hub served on 127.0.0.1 (fake_hub.FakeHub)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import huggingface_hub.constants
import pytest
from helpers.benchmark_files import MADQA_URLS_SCHEMA, parquet
from helpers.fake_hub import FakeHub

from docqa.datasets.download import (
    DownloadError,
    fetch,
    read_manifest,
    sha256_file,
    source_from_config,
    verify,
)

PARQUET = b"PAR1" + bytes(range(256)) * 40
PDF = b"%PDF-1.4\n" + b"0123456789" * 900


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    # tests/conftest.py switches huggingface_hub to offline mode for the whole suite
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    hub = FakeHub()
    hub.url = hub.start()  # type: ignore[attr-defined]
    yield hub
    hub.stop()


def get(hub: FakeHub, spec: dict, dest: Path, **kwargs: object) -> dict:
    source = source_from_config("test", spec)
    return fetch(source, dest, spec, endpoint=hub.url, **kwargs)  # type: ignore[attr-defined]


def test_pinned_download_writes_a_manifest_and_a_second_run_downloads_nothing(
    hub: FakeHub, tmp_path: Path
) -> None:
    files = {"data/test-00000.parquet": PARQUET, "documents/a.pdf": PDF, "README.md": b"# card\n"}
    commit = hub.add("org/bench", files, lfs={"data/test-00000.parquet", "documents/a.pdf"})
    spec = {"hf": "org/bench", "revision": commit, "include": ["data/*", "documents/*"]}
    manifest = get(hub, spec, tmp_path)

    assert manifest["commit"] == commit
    assert manifest["source"] == spec
    assert sorted(manifest["files"]) == ["data/test-00000.parquet", "documents/a.pdf"]
    record = manifest["files"]["documents/a.pdf"]
    assert record["sha256"] == sha256_file(tmp_path / "documents" / "a.pdf")
    assert record["size"] == len(PDF)
    assert record["expected"] == {"sha256": record["sha256"]}
    assert not (tmp_path / "README.md").exists()  # not included
    assert read_manifest(tmp_path) == manifest
    assert verify(tmp_path) == []

    before = len(hub.requests)
    assert get(hub, spec, tmp_path) == manifest
    assert len(hub.requests) == before  # not even a metadata request
    hub.stop()
    assert get(hub, spec, tmp_path) == manifest  # and it works offline


def test_changed_include_fetches_only_the_new_files(hub: FakeHub, tmp_path: Path) -> None:
    commit = hub.add("org/bundle", {"A/samples.json": b"[]", "B/samples.json": b"[1]"})
    get(hub, {"hf": "org/bundle", "revision": commit, "include": ["A/*"]}, tmp_path)
    get(hub, {"hf": "org/bundle", "revision": commit, "include": ["A/*", "B/*"]}, tmp_path)
    assert len(hub.downloads("A/samples.json")) == 1
    assert len(hub.downloads("B/samples.json")) == 1


def test_an_interrupted_file_resumes_where_it_stopped(hub: FakeHub, tmp_path: Path) -> None:
    commit = hub.add("org/archive", {"pdf_files.tar.gz": PDF}, lfs={"pdf_files.tar.gz"})
    (tmp_path / "pdf_files.tar.gz.part").write_bytes(PDF[:4000])  # left by a killed job
    manifest = get(hub, {"hf": "org/archive", "revision": commit}, tmp_path)
    [request] = hub.downloads("pdf_files.tar.gz")
    assert request["Range"] == "bytes=4000-"
    assert (tmp_path / "pdf_files.tar.gz").read_bytes() == PDF
    assert not (tmp_path / "pdf_files.tar.gz.part").exists()
    assert manifest["files"]["pdf_files.tar.gz"]["size"] == len(PDF)


def test_a_dropped_connection_is_retried(hub: FakeHub, tmp_path: Path) -> None:
    commit = hub.add("org/flaky", {"f.pdf": PDF}, lfs={"f.pdf"})
    hub.cut_once.add("f.pdf")
    get(hub, {"hf": "org/flaky", "revision": commit}, tmp_path)
    assert (tmp_path / "f.pdf").read_bytes() == PDF
    assert len(hub.downloads("f.pdf")) == 2


def test_checksum_mismatch_stops_and_deletes_the_file(hub: FakeHub, tmp_path: Path) -> None:
    commit = hub.add(
        "org/bad", {"data.parquet": PARQUET, "notes.txt": b"plain"}, lfs={"data.parquet"}
    )
    hub.wrong_bytes.add("data.parquet")
    with pytest.raises(DownloadError, match="checksum mismatch for data.parquet") as error:
        get(hub, {"hf": "org/bad", "revision": commit}, tmp_path)
    assert "rerun to download it again" in str(error.value)
    assert not (tmp_path / "data.parquet").exists()
    assert read_manifest(tmp_path) is None

    hub.wrong_bytes = {"notes.txt"}  # a file outside LFS is checked by its git blob id
    with pytest.raises(DownloadError, match="git_blob should be"):
        get(hub, {"hf": "org/bad", "revision": commit}, tmp_path)


def test_gated_dataset_says_where_to_accept_and_which_variable_to_set(
    hub: FakeHub, tmp_path: Path
) -> None:
    commit = hub.add("NTT/Slides", {"data/test-0.parquet": PARQUET}, gated=True)
    spec = {"hf": "NTT/Slides", "revision": commit, "gated": True}
    with pytest.raises(DownloadError) as no_token:
        get(hub, spec, tmp_path, token=False)
    message = str(no_token.value)
    assert "https://huggingface.co/datasets/NTT/Slides" in message
    assert "HF_TOKEN" in message
    assert "no token is set" in message
    with pytest.raises(DownloadError, match="has not accepted it"):
        get(hub, spec, tmp_path, token="hf_someone_else")
    manifest = get(hub, spec, tmp_path, token=hub.token)
    assert list(manifest["files"]) == ["data/test-0.parquet"]


def test_network_revision_and_include_problems_say_what_to_do(
    hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit = hub.add("org/bench", {"a.json": b"{}"})
    spec = {"hf": "org/bench", "revision": commit}
    source = source_from_config("bench", spec)
    with pytest.raises(DownloadError, match="cannot reach http://127.0.0.1:9 .*HTTPS_PROXY"):
        fetch(source, tmp_path / "a", spec, endpoint="http://127.0.0.1:9")
    with pytest.raises(DownloadError, match="revision 'deadbeef' of org/bench does not exist"):
        get(hub, {**spec, "revision": "deadbeef"}, tmp_path / "b")
    with pytest.raises(DownloadError, match="org/missing was not found"):
        get(hub, {**spec, "hf": "org/missing"}, tmp_path / "c")
    with pytest.raises(DownloadError, match=r"matches include \['\*.parquet'\]"):
        get(hub, {**spec, "include": ["*.parquet"]}, tmp_path / "d")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(DownloadError, match="HF_HUB_OFFLINE is set, so org/bench cannot be"):
        get(hub, spec, tmp_path / "e")


def test_a_branch_revision_is_resolved_and_recorded(hub: FakeHub, tmp_path: Path, caplog) -> None:
    commit = hub.add("org/bench", {"a.json": b"{}"})
    manifest = get(hub, {"hf": "org/bench", "revision": "main"}, tmp_path)
    assert manifest["commit"] == commit
    assert f"resolved to commit {commit}; pin that commit" in caplog.text


def test_url_list_files_are_fetched_and_failures_recorded(hub: FakeHub, tmp_path: Path) -> None:
    listing = tmp_path / "listing.parquet"
    rows = [
        {"document": "1007969.pdf", "url": f"{hub.url}/files/1007969.pdf"},  # type: ignore[attr-defined]
        {"document": "gone.pdf", "url": f"{hub.url}/files/gone.pdf"},  # type: ignore[attr-defined]
    ]
    parquet(listing, rows, MADQA_URLS_SCHEMA)
    commit = hub.add(
        "OxRML/MADQA",
        {
            "data/dev-0.parquet": PARQUET,
            "data/documents/document_urls-0.parquet": listing.read_bytes(),
        },
        lfs={"data/dev-0.parquet"},
    )
    hub.urls["1007969.pdf"] = PDF
    spec = {
        "hf": "OxRML/MADQA",
        "revision": commit,
        "url_list": {"file": "data/documents/*.parquet", "name_column": "document"},
    }
    dest = tmp_path / "madqa"
    manifest = get(hub, spec, dest)
    assert (dest / "documents" / "1007969.pdf").read_bytes() == PDF
    assert manifest["files"]["documents/1007969.pdf"]["url"].endswith("/files/1007969.pdf")
    [missing] = manifest["missing"]
    assert missing["path"] == "documents/gone.pdf"
    assert "404" in missing["error"]

    hub.urls["gone.pdf"] = PDF  # back online: a rerun fetches only what was missing
    manifest = get(hub, spec, dest)
    assert manifest["missing"] == []
    assert len(hub.downloads("1007969.pdf")) == 1


def test_manual_source_explains_where_to_get_the_files(tmp_path: Path) -> None:
    spec = {"manual": {"instructions": "Get it from Google Drive.", "expect": ["*/*_qa.jsonl"]}}
    source = source_from_config("docbench", spec)
    with pytest.raises(DownloadError, match="Get it from Google Drive. Place the files under"):
        fetch(source, tmp_path, spec)
    (tmp_path / "0").mkdir()
    (tmp_path / "0" / "0_qa.jsonl").write_text('{"question": "q", "answer": "a"}\n')
    manifest = fetch(source, tmp_path, spec)
    assert list(manifest["files"]) == ["0/0_qa.jsonl"]
    (tmp_path / "0" / "0_qa.jsonl").write_text('{"question": "Q", "answer": "a"}\n')
    assert verify(tmp_path) == [
        f"0/0_qa.jsonl: sha256 {sha256_file(tmp_path / '0' / '0_qa.jsonl')}, manifest has "
        f"{manifest['files']['0/0_qa.jsonl']['sha256']}"
    ]
    assert json.loads((tmp_path / "manifest.json").read_text())["source"] == spec
