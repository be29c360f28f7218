"""Downloading a benchmark's raw files at a pinned revision, verified, with a checksum manifest.

Three kinds of source, each given by a ``source:`` mapping in the dataset catalogue
(``config/datasets.yaml``):

- ``hf: owner/name`` with ``revision`` (a commit; a branch name works but is reported as not
  pinned) and optional ``include`` patterns: files of a Hugging Face dataset repository,
  fetched with ``huggingface_hub`` into the destination folder and checked against the Hub's
  own checksums (sha256 of LFS files, git blob ids of the others). Downloads resume: each file
  grows in ``<file>.part`` through HTTP range requests (huggingface_hub's ``http_get``, which
  also retries a dropped connection), so a killed job continues where it stopped.
  ``gated: true`` marks datasets whose licence must be accepted on the Hub. ``url_list`` adds
  files whose URLs are listed in a parquet file of the download (MADQA's PDFs live on
  DocumentCloud).
- ``manual:`` with ``instructions`` and ``expect`` patterns: files the user places by hand
  (a benchmark published only on a file-sharing site); they are checked for presence and hashed.

Every completed download writes ``manifest.json`` in its folder: the source as configured, the
commit it resolved to, and the size and sha256 of every file. A second run finds the manifest
matching the source and every file at its size, and touches neither the network nor the files.
Anything that stops a download raises :class:`DownloadError` with what to do.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

log = logging.getLogger(__name__)

MANIFEST = "manifest.json"
CHUNK = 1 << 20
HUB = "https://huggingface.co"


class DownloadError(RuntimeError):
    """A download that cannot go on; the message says what to do."""


@dataclass(frozen=True)
class UrlList:
    """Files listed by URL in parquet files of the download (``file`` is a glob)."""

    file: str
    name_column: str = "document"
    url_column: str = "url"
    into: str = "documents"


@dataclass(frozen=True)
class HubSource:
    repo: str
    revision: str
    include: tuple[str, ...] = ()
    gated: bool = False
    url_list: UrlList | None = None

    @property
    def page(self) -> str:
        return f"{HUB}/datasets/{self.repo}"


@dataclass(frozen=True)
class ManualSource:
    name: str
    instructions: str
    expect: tuple[str, ...]


Source = HubSource | ManualSource


def source_from_config(name: str, spec: dict[str, Any]) -> Source:
    """The source of dataset ``name`` from its catalogue ``source:`` mapping."""
    if "manual" in spec:
        manual = spec["manual"]
        return ManualSource(name, manual["instructions"], tuple(manual["expect"]))
    url_list = UrlList(**spec["url_list"]) if spec.get("url_list") else None
    return HubSource(
        repo=spec["hf"],
        revision=str(spec["revision"]),
        include=tuple(spec.get("include", ())),
        gated=bool(spec.get("gated", False)),
        url_list=url_list,
    )


def fetch(
    source: Source,
    dest: Path,
    spec: dict[str, Any],
    *,
    endpoint: str | None = None,
    token: str | bool | None = None,
) -> dict[str, Any]:
    """Bring ``dest`` up to date with ``source`` and return its manifest.

    ``spec`` is the source as configured; it is stored in the manifest, and a manifest with the
    same ``spec`` whose files are all present at their size means there is nothing to do.
    ``endpoint`` defaults to ``HF_ENDPOINT`` (or the Hub); ``token`` to ``HF_TOKEN`` or the
    saved login.
    """
    dest = Path(dest)
    old = read_manifest(dest)
    if (
        old is not None
        and old.get("source") == spec
        and not old.get("missing")
        and _files_present(dest, old)
    ):
        log.info("%s is complete (manifest.json matches the source): nothing to download", dest)
        return old
    dest.mkdir(parents=True, exist_ok=True)
    if isinstance(source, ManualSource):
        manifest = _manual(source, dest, old)
    else:
        manifest = _hub(source, dest, old, endpoint, token)
    manifest["source"] = spec
    _write_manifest(dest, manifest)
    return manifest


def read_manifest(dest: Path) -> dict[str, Any] | None:
    path = Path(dest) / MANIFEST
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return None


def verify(dest: Path) -> list[str]:
    """Re-hash every file of ``dest``'s manifest; one line per file that does not match."""
    manifest = read_manifest(dest)
    if manifest is None:
        return [f"{dest}: no {MANIFEST}; run the download first"]
    problems = []
    for path, record in manifest["files"].items():
        local = Path(dest) / path
        if not local.is_file():
            problems.append(f"{path}: missing")
        elif (digest := sha256_file(local)) != record["sha256"]:
            problems.append(f"{path}: sha256 {digest}, manifest has {record['sha256']}")
    return problems


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def git_blob_id(path: Path) -> str:
    """The git object id of a file, which the Hub gives for files not stored in LFS."""
    digest = hashlib.sha1(f"blob {path.stat().st_size}\0".encode())
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


# --- Hugging Face Hub -------------------------------------------------------------------------


def _hub(
    source: HubSource,
    dest: Path,
    old: dict[str, Any] | None,
    endpoint: str | None,
    token: str | bool | None,
) -> dict[str, Any]:
    from huggingface_hub import HfApi
    from huggingface_hub.hf_api import RepoFile

    api = HfApi(endpoint=endpoint, token=token)
    endpoint = api.endpoint
    previous = (old or {}).get("files", {})
    with _explained(source, endpoint, token):
        commit = api.dataset_info(source.repo, revision=source.revision).sha
        if commit is None:
            raise DownloadError(
                f"{source.repo}: the Hub returned no commit for {source.revision!r}; "
                "check the revision in the catalogue (source.revision)"
            )
        if commit != source.revision:
            log.warning(
                "%s: revision %r resolved to commit %s; pin that commit in the catalogue "
                "(source.revision) for a reproducible download",
                source.repo,
                source.revision,
                commit,
            )
        tree = api.list_repo_tree(source.repo, repo_type="dataset", revision=commit, recursive=True)
        entries = [entry for entry in tree if isinstance(entry, RepoFile)]
        wanted = [entry for entry in entries if _included(entry.path, source.include)]
        if not wanted:
            raise DownloadError(
                f"no file of {source.repo} at {commit} matches include {list(source.include)}; "
                "fix source.include in the catalogue"
            )
        files: dict[str, Any] = {}
        for entry in wanted:
            expected = _expected(entry)
            record = previous.get(entry.path)
            local = dest / entry.path
            if record and record.get("expected") == expected and _has_size(local, entry.size):
                files[entry.path] = record
                continue
            log.info("downloading %s (%d bytes)", entry.path, entry.size)
            _hub_file(source.repo, entry.path, commit, endpoint, token, local, entry.size)
            files[entry.path] = _checked(dest, entry.path, expected, source, commit, endpoint)
    manifest: dict[str, Any] = {"repo": source.repo, "commit": commit, "files": files}
    if source.url_list is not None:
        _url_files(source.url_list, dest, manifest, previous)
    return manifest


def _hub_file(
    repo: str,
    path: str,
    commit: str,
    endpoint: str,
    token: str | bool | None,
    target: Path,
    size: int,
) -> None:
    """Download one repository file to ``target``, resuming ``target.part``."""
    from huggingface_hub import get_hf_file_metadata, hf_hub_url
    from huggingface_hub.utils import build_hf_headers

    url = hf_hub_url(repo, path, repo_type="dataset", revision=commit, endpoint=endpoint)
    location = get_hf_file_metadata(url, token=token).location
    headers = build_hf_headers(token=token)
    if urlsplit(location).netloc != urlsplit(url).netloc:
        headers.pop("authorization", None)  # a signed CDN URL: the token stays with the Hub
    _resumed(location, target, headers, size)


def _resumed(url: str, target: Path, headers: dict[str, str], size: int | None) -> None:
    """GET ``url`` into ``target.part`` from where it stopped, then move it to ``target``."""
    from huggingface_hub.file_download import http_get

    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_name(target.name + ".part")
    done = part.stat().st_size if part.exists() else 0
    if size is not None and done > size:
        part.unlink()
        done = 0
    with open(part, "ab") as handle:
        http_get(url, handle, resume_size=done, headers=headers, expected_size=size)
    os.replace(part, target)


def _expected(entry: Any) -> dict[str, str]:
    if entry.lfs is not None:
        return {"sha256": entry.lfs.sha256}
    return {"git_blob": entry.blob_id}


def _checked(
    dest: Path, path: str, expected: dict[str, str], source: HubSource, commit: str, endpoint: str
) -> dict[str, Any]:
    """Hash a downloaded file and compare with the Hub's checksum; delete it if they differ."""
    local = dest / path
    sha256 = sha256_file(local)
    got = {"sha256": sha256} if "sha256" in expected else {"git_blob": git_blob_id(local)}
    if got != expected:
        local.unlink()
        kind, want = next(iter(expected.items()))
        raise DownloadError(
            f"checksum mismatch for {path} of {source.repo} at {commit}: {kind} should be "
            f"{want}, the downloaded file has {got[kind]}. The file was deleted: rerun to "
            f"download it again. If it fails again, {endpoint} does not serve the pinned files "
            "(check HF_ENDPOINT and any proxy in between)."
        )
    return {"size": local.stat().st_size, "sha256": sha256, "expected": expected}


@contextmanager
def _explained(source: HubSource, endpoint: str, token: str | bool | None) -> Iterator[None]:
    """Turn huggingface_hub's errors into messages that say what to do."""
    import httpx2
    from huggingface_hub import errors, get_token

    try:
        yield
    except errors.GatedRepoError:
        have_token = token not in (None, False) or (token is None and get_token() is not None)
        account = (
            "the account of your token (HF_TOKEN or `hf auth login`) has not accepted it: accept "
            "it with that account"
            if have_token
            else "no token is set: accept it with your account, create a read token at "
            f"{HUB}/settings/tokens and set HF_TOKEN=<token> (or run `hf auth login`)"
        )
        raise DownloadError(
            f"{source.repo} is gated: its licence must be accepted at {source.page}; {account}, "
            "then rerun."
        ) from None
    except errors.RevisionNotFoundError:
        raise DownloadError(
            f"revision {source.revision!r} of {source.repo} does not exist: fix source.revision "
            "in the catalogue (config/datasets.yaml)"
        ) from None
    except errors.RepositoryNotFoundError:
        raise DownloadError(
            f"{source.repo} was not found at {endpoint}: check source.hf in the catalogue; if the "
            "repository is private, set HF_TOKEN to a token that can read it"
        ) from None
    except errors.OfflineModeIsEnabled:
        raise DownloadError(
            f"HF_HUB_OFFLINE is set, so {source.repo} cannot be downloaded: unset it and rerun "
            "(files already downloaded are kept)"
        ) from None
    except (
        errors.LocalEntryNotFoundError,
        httpx2.ConnectError,
        httpx2.TimeoutException,
    ) as error:
        raise DownloadError(
            f"cannot reach {endpoint} to download {source.repo} ({type(error).__name__}): check "
            "the network connection and any proxy (HTTPS_PROXY), and HF_ENDPOINT if you use a "
            "mirror; files already downloaded are kept and a rerun resumes"
        ) from None
    except errors.HfHubHTTPError as error:
        raise DownloadError(
            f"{endpoint} answered {error.response.status_code} while downloading {source.repo}: "
            "try again later; a rerun resumes where this one stopped"
        ) from None


def _included(path: str, patterns: tuple[str, ...]) -> bool:
    return not patterns or any(fnmatch.fnmatch(path, pattern) for pattern in patterns)


# --- files listed by URL ----------------------------------------------------------------------


def _url_files(
    url_list: UrlList, dest: Path, manifest: dict[str, Any], previous: dict[str, Any]
) -> None:
    """Fetch the files a parquet listing names; record the ones that fail as ``missing``."""
    import httpx2
    import pyarrow.parquet as pq
    from huggingface_hub.errors import HfHubHTTPError

    listings = sorted(path for path in manifest["files"] if fnmatch.fnmatch(path, url_list.file))
    if not listings:
        raise DownloadError(f"no downloaded file matches url_list.file {url_list.file!r}")
    missing = []
    for listing in listings:
        table = pq.read_table(dest / listing, columns=[url_list.name_column, url_list.url_column])
        names = table.column(url_list.name_column).to_pylist()
        for name, url in zip(names, table.column(url_list.url_column).to_pylist(), strict=True):
            path = f"{url_list.into}/{Path(str(name)).name}"
            record = previous.get(path)
            local = dest / path
            if record and record.get("url") == url and _has_size(local, record["size"]):
                manifest["files"][path] = record
                continue
            try:
                _resumed(str(url), local, {}, None)
            except (HfHubHTTPError, httpx2.HTTPError, OSError) as error:
                log.warning("could not download %s from %s: %s", path, url, error)
                missing.append({"path": path, "url": url, "error": str(error)})
                continue
            manifest["files"][path] = {
                "size": local.stat().st_size,
                "sha256": sha256_file(local),
                "url": url,
            }
    fetched = [path for path in manifest["files"] if path.startswith(f"{url_list.into}/")]
    if missing and not fetched:
        raise DownloadError(
            f"none of the {len(missing)} files listed in {listings} could be downloaded (first: "
            f"{missing[0]['url']}: {missing[0]['error']}): check the network, then rerun"
        )
    if missing:
        log.warning("%d listed files could not be downloaded; rerun to retry them", len(missing))
    manifest["missing"] = missing


# --- files placed by hand ---------------------------------------------------------------------


def _manual(source: ManualSource, dest: Path, old: dict[str, Any] | None) -> dict[str, Any]:
    absent = [pattern for pattern in source.expect if not any(dest.glob(pattern))]
    if absent:
        raise DownloadError(
            f"{source.name} cannot be downloaded automatically. {source.instructions} Place the "
            f"files under {dest} (missing now: {absent}), then rerun."
        )
    previous = (old or {}).get("files", {})
    files = {}
    for local in sorted(p for p in dest.rglob("*") if p.is_file() and p.name != MANIFEST):
        path = local.relative_to(dest).as_posix()
        record = previous.get(path)
        files[path] = (
            record
            if record and _has_size(local, record["size"])
            else {"size": local.stat().st_size, "sha256": sha256_file(local)}
        )
    return {"files": files}


# --- manifest ---------------------------------------------------------------------------------


def _files_present(dest: Path, manifest: dict[str, Any]) -> bool:
    return all(_has_size(dest / path, record["size"]) for path, record in manifest["files"].items())


def _has_size(path: Path, size: int) -> bool:
    return path.is_file() and path.stat().st_size == size


def _write_manifest(dest: Path, manifest: dict[str, Any]) -> None:
    tmp = dest / (MANIFEST + ".tmp")
    tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, dest / MANIFEST)
