"""``docqa serve``: one configured model behind an OpenAI-compatible server on this machine.

    docqa serve gemma3-270m                           # docqa's own server (port 8000)
    docqa serve qwen2.5-vl-7b --configfile config/config.yaml config/models.yaml --port 8001
    docqa serve qwen2.5-vl-7b-vllm-bnb4 --engine vllm --configfile config/config.yaml \\
        config/models.yaml --vllm-command "conda run --no-capture-output -n docqa-vllm vllm"

The model must be prepared first (``snakemake --cores 1 results/models/<name>``). Once it is
healthy the command prints the ``models:`` entry that points docqa's jobs at it (``backend:
openai``), then serves until it is stopped (Ctrl-C or SIGTERM: it stops listening, lets running
requests finish for ``--shutdown-grace`` seconds, ends the rest, and exits 0).
"""

from __future__ import annotations

import argparse
import logging
import shlex
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import yaml

from docqa.backends.preparation import MODEL_CARD
from docqa.datasets.catalogue import load_config
from docqa.serving.health import start_server_process, stop_process
from docqa.serving.server import DEFAULT_REQUEST_TIMEOUT_S, DEFAULT_SHUTDOWN_GRACE_S
from docqa.serving.vllm_launcher import client_entry, vllm_command

log = logging.getLogger(__name__)

#: backends docqa's own server can load; an ``openai`` model is a server already
SERVABLE = ("embedded", "transformers")


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "serve", help="serve a configured model over an OpenAI-compatible HTTP API"
    )
    parser.add_argument("model", help="a model name under models: in the config")
    parser.add_argument(
        "--configfile",
        nargs="+",
        type=Path,
        default=[Path("config/config.yaml")],
        help="config files, merged in order (default: config/config.yaml)",
    )
    parser.add_argument("--model-dir", type=Path, help="prepared model (results/models/<model>)")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (8000; 0: any free port)")
    parser.add_argument(
        "--engine", choices=("docqa", "vllm"), default="docqa", help="who serves the model"
    )
    parser.add_argument(
        "--batch-wait-ms",
        type=float,
        default=5.0,
        help="docqa engine: how long a batch waits for more requests (5 ms)",
    )
    parser.add_argument(
        "--request-timeout",
        type=float,
        default=DEFAULT_REQUEST_TIMEOUT_S,
        help="docqa engine: a request's wall-clock limit in seconds, from its arrival "
        f"({DEFAULT_REQUEST_TIMEOUT_S:.0f}); it then ends with finish_reason time_limit",
    )
    parser.add_argument(
        "--shutdown-grace",
        type=float,
        default=DEFAULT_SHUTDOWN_GRACE_S,
        help="docqa engine: on SIGTERM or Ctrl-C, seconds the running requests may still take "
        f"({DEFAULT_SHUTDOWN_GRACE_S:.0f}); the rest get a 503",
    )
    parser.add_argument(
        "--vllm-command", default="vllm", help="vllm engine: how to run vllm (default: vllm)"
    )
    parser.add_argument(
        "--health-timeout", type=float, default=1800.0, help="vllm engine: seconds to load (1800)"
    )
    parser.add_argument(
        "--print-command", action="store_true", help="vllm engine: print the command, start nothing"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        model_cfg = model_entry(args.model, args.configfile)
        model_dir = args.model_dir or Path("results/models") / args.model
        if not (model_dir / MODEL_CARD).is_file():
            files = " ".join(str(path) for path in args.configfile)
            raise ValueError(
                f"model {args.model} is not prepared ({model_dir / MODEL_CARD} is missing): run "
                f"snakemake --cores 1 --configfile {files} -- results/models/{args.model}, or "
                "give its folder with --model-dir"
            )
        if args.engine == "vllm":
            return _serve_with_vllm(args, model_cfg, model_dir)
        return _serve_with_docqa(args, model_cfg, model_dir)
    except (ValueError, RuntimeError, TimeoutError, FileNotFoundError) as error:
        print(f"docqa serve: {error}", file=sys.stderr)
        return 2


def model_entry(name: str, configfiles: list[Path]) -> dict[str, Any]:
    """Model ``name``'s entry in the merged config files; an error listing the known ones."""
    missing = [str(path) for path in configfiles if not path.is_file()]
    if missing:
        raise ValueError(f"config file {missing[0]} not found; give it with --configfile")
    models = load_config(configfiles).get("models", {})
    if name not in models:
        known = ", ".join(sorted(models)) or "none"
        raise ValueError(
            f"model {name!r} is not under models: in {', '.join(map(str, configfiles))} "
            f"(known: {known}); add config/models.yaml with --configfile for the papers' models"
        )
    return models[name]


def _serve_with_docqa(args: argparse.Namespace, model_cfg: dict[str, Any], model_dir: Path) -> int:
    from docqa.backends import create_backend
    from docqa.backends.transformers_lm import TransformersLM
    from docqa.serving.server import ModelServer

    backend_name = model_cfg.get("backend")
    if backend_name not in SERVABLE:
        hint = (
            "use --engine vllm" if backend_name == "vllm" else "it is served already; use it as is"
        )
        raise ValueError(
            f"model {args.model} has backend {backend_name!r}: docqa serve loads "
            f"{' or '.join(SERVABLE)} models ({hint})"
        )
    backend = create_backend(model_cfg, model_dir)
    try:
        text_only = isinstance(backend, TransformersLM)
        address = (args.host, args.port)
        server = ModelServer(
            address,
            args.model,
            backend,
            text_only=text_only,
            wait_s=args.batch_wait_ms / 1000,
            timeout_s=args.request_timeout,
            grace_s=args.shutdown_grace,
        )
        _announce(args.model, server.base_url, server.client_entry())
        signal.signal(signal.SIGTERM, _stop_on_signal)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            # a second signal must not interrupt the orderly stop that the grace period bounds
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            log.info(
                "stopping: new requests are refused, running ones get %s s", args.shutdown_grace
            )
            server.close()
    finally:
        backend.close()
    return 0


def _serve_with_vllm(args: argparse.Namespace, model_cfg: dict[str, Any], model_dir: Path) -> int:
    port = args.port or 8000
    base_url = f"http://{args.host}:{port}/v1"
    command = vllm_command(
        args.model,
        model_cfg,
        model_dir,
        host=args.host,
        port=port,
        executable=shlex.split(args.vllm_command),
    )
    if args.print_command:
        print(shlex.join(command))
        return 0
    log.info("starting %s", shlex.join(command))
    process = start_server_process(command, base_url, args.health_timeout)
    _announce(args.model, base_url, client_entry(args.model, model_cfg, model_dir, base_url))
    signal.signal(signal.SIGTERM, _stop_on_signal)
    try:
        return process.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        stop_process(process)


def _announce(name: str, base_url: str, entry: dict[str, Any]) -> None:
    """Say where the model is served and the config entry that uses it (on stdout)."""
    print(f"serving {name} at {base_url}")
    print("use it from docqa with this entry under models: (any name)")
    print(yaml.safe_dump({f"{name}-served": entry}, sort_keys=False, width=100), flush=True)


def _stop_on_signal(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt
