"""The ``docqa`` command: one subcommand per module.

A module that offers a subcommand has ``register(subparsers)``: it adds its parser and sets
``run`` (a function of the parsed arguments returning the exit status) as its default. Add
the module to ``COMMAND_MODULES`` to add its subcommand.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

#: modules that register a ``docqa`` subcommand; add yours here
COMMAND_MODULES = (
    "docqa.ask",
    "docqa.datasets.cli",
    "docqa.report.traces_cli",
    "docqa.serving.cli",
    "docqa.workflow.config_show",
    "docqa.workflow.doctor",
    "docqa.workflow.options_cli",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="docqa", description="docqa: multi-page visual document question answering"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(commands)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s", stream=sys.stderr)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
