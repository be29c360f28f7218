"""The config a run uses: its files merged as Snakemake merges them, then every check.

The Snakefile always loads ``config/config.yaml``; Snakemake merges the ``--configfile`` files
in order (nested mappings key by key, lists replaced) and lays them over it. :func:`load_config`
does the same for ``docqa ask`` and ``docqa config show``; :func:`validate_config` is the one
list of checks, which ``rules/common.smk`` runs on the config Snakemake merged and
:func:`load_config` runs on its own: the YAML syntax of each file, every entry's options
against its registered spec (:func:`~docqa.workflow.config_check.check_options`), the JSON
schema (which also fills in its defaults) and the names that refer to other entries.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from docqa.workflow.config_check import (
    ConfigError,
    check_options,
    check_references,
    check_yaml_syntax,
)

#: the config the Snakefile always loads first, and the schema beside it (both relative to the
#: repository, where snakemake and docqa run)
BASE_CONFIG = Path("config/config.yaml")
SCHEMA = Path("config/config.schema.yaml")


def load_config(configfiles: Sequence[Path] = (), root: Path = Path(".")) -> dict[str, Any]:
    """``root/config/config.yaml`` with ``configfiles`` merged over it, validated as the
    Snakefile validates it; a :class:`ConfigError` names the file or the entry and the fix."""
    from snakemake.common.configfile import load_configfile
    from snakemake.utils import update_config

    base = root / BASE_CONFIG
    if not base.is_file():
        raise ConfigError(
            f"config error: {base} not found; run from the repository (the folder that holds "
            "config/config.yaml)"
        )
    for path in (base, *configfiles):
        if not Path(path).is_file():
            raise ConfigError(f"config error: config file {path} not found")
        check_yaml_syntax(path)
    # as Snakemake does: the --configfile files merged in order, then laid over config.yaml
    overrides: dict[str, Any] = {}
    for path in configfiles:
        update_config(overrides, load_configfile(str(path)))
    config = load_configfile(str(base))
    update_config(config, overrides)
    validate_config(config, root / SCHEMA)
    return config


def validate_config(config: dict[str, Any], schema: Path) -> None:
    """Every check of a merged config, in order; fills in the schema's defaults in place."""
    from jsonschema import ValidationError
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate

    # every entry's options against its registered type first: those messages name the entry
    check_options(config)
    try:
        validate(config, str(schema.resolve()))
    except WorkflowError as error:
        problem = error.__context__  # the schema's own error, which validate wraps
        if not isinstance(problem, ValidationError):
            raise
        where = ".".join(str(part) for part in problem.absolute_path) or "the config"
        raise ConfigError(
            f"config error: {where}: {problem.message} (config/config.schema.yaml says what "
            "each key takes)"
        ) from None
    check_references(config)


def add_configfile_argument(parser: argparse.ArgumentParser) -> None:
    """``--configfile FILE...``, as every command that loads a config takes it."""
    parser.add_argument(
        "--configfile",
        type=Path,
        nargs="+",
        default=[],
        metavar="FILE",
        help="config files merged over config/config.yaml, as snakemake --configfile merges them",
    )
