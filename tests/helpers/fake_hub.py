"""A Hugging Face Hub on 127.0.0.1 for the download tests: the endpoints huggingface_hub uses.

It serves dataset repositories held in memory (repository info at a revision, the recursive
file tree with sizes, git blob ids and LFS sha256, and file downloads with ``Range``), gates a
repository behind a token as the Hub does (``X-Error-Code: GatedRepo``), and serves plain files
by URL. It records every request, and can cut a download short once or serve wrong bytes, to
test resuming and checksum checks.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit


@dataclass
class Repo:
    files: dict[str, bytes]
    lfs: set[str]
    commit: str
    gated: bool = False


@dataclass
class FakeHub:
    token: str = "hf_test_token"
    repos: dict[str, Repo] = field(default_factory=dict)
    urls: dict[str, bytes] = field(default_factory=dict)
    requests: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    cut_once: set[str] = field(default_factory=set)  # paths whose next download stops halfway
    wrong_bytes: set[str] = field(default_factory=set)  # paths served with other content

    def add(
        self, repo: str, files: dict[str, bytes], lfs: set[str] = frozenset(), gated: bool = False
    ) -> str:
        """Add a repository; returns its commit id."""
        digest = hashlib.sha1(repo.encode())
        for path in sorted(files):
            digest.update(path.encode() + hashlib.sha256(files[path]).digest())
        self.repos[repo] = Repo(dict(files), set(lfs), digest.hexdigest(), gated)
        return digest.hexdigest()

    def downloads(self, path: str) -> list[dict[str, str]]:
        """Headers of the GET requests that fetched ``path`` (a repo file or a URL file)."""
        return [
            headers
            for method, url, headers in self.requests
            if method == "GET" and url.endswith("/" + path)
        ]

    def start(self) -> str:
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_HEAD(self) -> None:
                hub._handle(self, body=False)

            def do_GET(self) -> None:
                hub._handle(self, body=True)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    # --- routes --------------------------------------------------------------------------------

    def _handle(self, request: BaseHTTPRequestHandler, body: bool) -> None:
        path = unquote(urlsplit(request.path).path)
        self.requests.append((request.command, path, dict(request.headers)))
        if match := re.fullmatch(r"/api/datasets/([^/]+/[^/]+)/revision/(.+)", path):
            repo = self._repo(request, match[1], match[2])
            if repo:
                siblings = [{"rfilename": name} for name in repo.files]
                self._json(request, {"id": match[1], "sha": repo.commit, "siblings": siblings})
        elif match := re.fullmatch(r"/api/datasets/([^/]+/[^/]+)/tree/([^/]+)(/.*)?", path):
            repo = self._repo(request, match[1], match[2])
            if repo:
                self._json(request, [self._entry(repo, name) for name in sorted(repo.files)])
        elif match := re.fullmatch(r"/datasets/([^/]+/[^/]+)/resolve/([^/]+)/(.+)", path):
            repo = self._repo(request, match[1], match[2])
            if repo and self._allowed(request, repo, match[1]):
                if match[3] not in repo.files:
                    return self._error(request, 404, "EntryNotFound", f"{match[3]} not found")
                data = repo.files[match[3]]
                tag = self._entry(repo, match[3])
                etag = tag["lfs"]["oid"] if "lfs" in tag else tag["oid"]
                headers = {"X-Repo-Commit": repo.commit, "ETag": f'"{etag}"'}
                self._file(request, match[3], data, headers, body)
        elif match := re.fullmatch(r"/files/(.+)", path):
            if match[1] not in self.urls:
                return self._error(request, 404, "", "no such file")
            self._file(request, match[1], self.urls[match[1]], {}, body)
        else:
            self._error(request, 404, "", f"unknown route {path}")

    def _repo(self, request: BaseHTTPRequestHandler, name: str, revision: str) -> Repo | None:
        repo = self.repos.get(name)
        if repo is None:
            self._error(request, 404, "RepoNotFound", f"Repository {name} not found")
            return None
        if revision == "main" or (len(revision) >= 7 and repo.commit.startswith(revision)):
            return repo
        self._error(request, 404, "RevisionNotFound", f"Invalid rev id: {revision}")
        return None

    def _allowed(self, request: BaseHTTPRequestHandler, repo: Repo, name: str) -> bool:
        if not repo.gated or request.headers.get("authorization") == f"Bearer {self.token}":
            return True
        status = 403 if request.headers.get("authorization") else 401
        self._error(request, status, "GatedRepo", f"Access to dataset {name} is restricted")
        return False

    @staticmethod
    def _entry(repo: Repo, name: str) -> dict[str, object]:
        data = repo.files[name]
        blob = hashlib.sha1(f"blob {len(data)}\0".encode() + data).hexdigest()
        entry: dict[str, object] = {"type": "file", "path": name, "size": len(data), "oid": blob}
        if name in repo.lfs:
            sha256 = hashlib.sha256(data).hexdigest()
            entry["lfs"] = {"oid": sha256, "size": len(data), "pointerSize": 134}
        return entry

    def _file(
        self,
        request: BaseHTTPRequestHandler,
        name: str,
        data: bytes,
        headers: dict[str, str],
        body: bool,
    ) -> None:
        if name in self.wrong_bytes:
            data = bytes([data[0] ^ 0xFF]) + data[1:]
        start = 0
        if body and (match := re.fullmatch(r"bytes=(\d+)-", request.headers.get("Range", ""))):
            start = int(match[1])
        request.send_response(206 if start else 200)
        for key, value in headers.items():
            request.send_header(key, value)
        if start:
            request.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        request.send_header("Content-Length", str(len(data) - start))
        request.send_header("Accept-Ranges", "bytes")
        request.end_headers()
        if not body:
            return
        if name in self.cut_once and not start:
            self.cut_once.discard(name)
            request.wfile.write(data[: len(data) // 2])
            request.wfile.flush()
            request.close_connection = True
            request.connection.close()
            return
        request.wfile.write(data[start:])

    @staticmethod
    def _json(request: BaseHTTPRequestHandler, value: object) -> None:
        data = json.dumps(value).encode()
        request.send_response(200)
        request.send_header("Content-Type", "application/json")
        request.send_header("Content-Length", str(len(data)))
        request.end_headers()
        if request.command != "HEAD":
            request.wfile.write(data)

    @staticmethod
    def _error(request: BaseHTTPRequestHandler, status: int, code: str, message: str) -> None:
        data = json.dumps({"error": message}).encode()
        request.send_response(status)
        if code:
            request.send_header("X-Error-Code", code)
        request.send_header("X-Error-Message", message)
        request.send_header("Content-Type", "application/json")
        request.send_header("Content-Length", str(len(data)))
        request.end_headers()
        if request.command != "HEAD":
            request.wfile.write(data)
