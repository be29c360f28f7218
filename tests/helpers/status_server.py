"""A real HTTP server on 127.0.0.1, in a thread, that answers every ``POST`` with one status:
200 with a fixed chat completion (a model that answers), 500 (a model server that fails), 401
(a hosted API that refuses the key). The openai backend talks to it as to any server."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: the one reply of a server that answers
COMPLETION = {
    "choices": [{"message": {"role": "assistant", "content": "A slide about revenue."}}],
    "usage": {"prompt_tokens": 10, "completion_tokens": 5},
}
#: the body that goes with each failing status, as OpenAI's API words it
ERRORS = {
    500: {"error": {"message": "The server had an error while processing your request"}},
    401: {"error": {"message": "Incorrect API key provided"}},
}


@contextmanager
def status_server(port: int, status: int) -> Iterator[str]:
    """Answer ``POST`` on 127.0.0.1:``port`` with ``status`` until the block ends; yields the
    base_url (``http://127.0.0.1:<port>/v1``)."""
    body = json.dumps(COMPLETION if status == 200 else ERRORS[status]).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
