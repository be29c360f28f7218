"""``docqa config show [--configfile FILE...] [--experiment N]``: the config a run would use.

The config files are merged and checked as the Snakefile merges and checks them
(:mod:`docqa.workflow.loader`), and printed as YAML with everything resolved: the YAML anchors
and merge keys (``<<: *docpilot``) written out, the schema's defaults filled in, and each
method, retriever, model, metric and dataset entry given every option its implementation
declares, at its default where the entry does not set it. So ``vanilla: {type: vanilla}``
shows all it inherits. ``--experiment N`` (1 = the first) keeps that experiment and what it
uses: its datasets and their metrics, its methods and the retrievers they read, its models and
those its methods and metrics name.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import yaml

from docqa.workflow.config_check import SECTIONS, ConfigError, registry_of
from docqa.workflow.loader import add_configfile_argument, load_config
from docqa.workflow.pipeline import indexed_retrievers, role_models


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "config",
        help="the config a run would use",
        description="Work with the pipeline's config.",
    )
    actions = parser.add_subparsers(dest="config_command", required=True, metavar="ACTION")
    show = actions.add_parser(
        "show",
        help="print the merged, checked config with every default filled in",
        description="Print config/config.yaml with the --configfile files merged over it, as "
        "snakemake merges them, after the same checks, with YAML merges resolved and every "
        "entry's options at their defaults where it does not set them.",
    )
    add_configfile_argument(show)
    show.add_argument(
        "--experiment",
        type=int,
        metavar="N",
        help="only experiment N (1 = the first) and the entries it uses",
    )
    show.set_defaults(run=run_show)


def run_show(args: argparse.Namespace) -> int:
    try:
        config = with_defaults(load_config(args.configfile))
        if args.experiment is not None:
            config = experiment_only(config, args.experiment)
    except ConfigError as error:
        print(f"docqa config: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(dump(config))
    return 0


class _Resolved(yaml.SafeDumper):
    """Writes every shared value out in full: no ``&anchor`` / ``*alias`` pairs."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def dump(config: dict[str, Any]) -> str:
    return yaml.dump(
        config,
        Dumper=_Resolved,
        sort_keys=False,
        allow_unicode=True,
        width=100,
        default_flow_style=None,
    )


def with_defaults(config: dict[str, Any]) -> dict[str, Any]:
    """``config`` with each entry's undeclared options at the defaults its implementation's
    spec declares (for the implementations registered with one), after the entry's own keys."""
    filled = dict(config)
    for section, (selector, nested, _) in SECTIONS.items():
        registry = registry_of(section)
        entries = {}
        for name, entry in (config.get(section) or {}).items():
            kind = str(entry.get(selector) if selector else name)
            if kind in registry.names() and registry.has_options(kind):
                spec = registry.options(kind)
                own = (entry.get(nested) or {}) if nested else entry
                options = {key: value for key, value in own.items() if key not in spec.entry_keys}
                every = spec.model_validate(options).model_dump(mode="json")
                own = {**own, **{key: every[key] for key in every if key not in own}}
                entry = {**entry, nested: own} if nested else own
            entries[name] = entry
        if section in config:
            filled[section] = entries
    return filled


def experiment_only(config: dict[str, Any], number: int) -> dict[str, Any]:
    """``config`` cut down to experiment ``number`` (1-based) and the entries it uses (no
    ``training:``, which runs beside the experiments rather than in one)."""
    experiments = config["experiments"]
    if not 1 <= number <= len(experiments):
        raise ConfigError(
            f"config error: --experiment {number}: the config has {len(experiments)} "
            f"experiment(s); give a number from 1 to {len(experiments)}"
        )
    experiment = experiments[number - 1]
    datasets = list(experiment["datasets"])
    methods = list(experiment["methods"])
    metrics = list(dict.fromkeys(config["datasets"][name]["metric"] for name in datasets))
    models = list(experiment["models"])
    for method in methods:
        models += role_models(config["methods"][method]).values()
    models += [config["metrics"][m]["model"] for m in metrics if config["metrics"][m].get("model")]
    retrievers = [name for method in methods for name in indexed_retrievers(config, method)]
    keep = {
        "datasets": datasets,
        "methods": methods,
        "models": list(dict.fromkeys(models)),
        "retrievers": list(dict.fromkeys(retrievers)),
        "metrics": metrics,
    }
    cut = {key: value for key, value in config.items() if key != "training"}
    for section, names in keep.items():
        cut[section] = {name: config[section][name] for name in names}
    cut["experiments"] = [experiment]
    return cut
