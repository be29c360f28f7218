# Shared helpers: config validation, the experiment grid, and per-rule config slices.
# Rule params carry only the slice of config a rule uses, so editing one model or method
# reruns only the jobs that depend on it.
from snakemake.utils import validate

from docqa.config_check import check_references, experiment_grid
from docqa.methods import retriever_names, role_models


validate(config, "../config/config.schema.yaml")
check_references(config)

GRID = experiment_grid(config)
PREPARE_KEYS = ("backend", "hf_id", "revision", "gguf", "path", "hf_cache")


wildcard_constraints:
    dataset="|".join(config["datasets"]),
    method="|".join(config["methods"]),
    model="|".join(config["models"]),
    retriever="|".join(config["retrievers"]),


def model_source(wildcards):
    entry = config["models"][wildcards.model]
    return {key: entry[key] for key in PREPARE_KEYS if key in entry}


def model_threads(wildcards):
    """A CPU model takes every core (one infer job at a time beats several sharing the cores);
    a model entry's ``threads`` overrides it, e.g. for GPU models that need one core."""
    return config["models"][wildcards.model].get("threads", workflow.cores)


def model_gpus(wildcards):
    return config["models"][wildcards.model].get("gpus", 0)


def method_retrievers(wildcards):
    """The retrievers a method uses, by name, with their config entries."""
    names = retriever_names(config["methods"][wildcards.method])
    return {name: config["retrievers"][name] for name in names}


def method_indexes(wildcards):
    return [f"results/index/{wildcards.dataset}/{name}/docs" for name in method_retrievers(wildcards)]


def method_config(wildcards):
    return config["methods"][wildcards.method]


def method_role_models(wildcards):
    """Role → config entry of the extra models a method names (``<role>_model`` options)."""
    roles = role_models(config["methods"][wildcards.method])
    return {role: config["models"][name] for role, name in roles.items()}


def method_role_model_dirs(wildcards):
    roles = role_models(config["methods"][wildcards.method])
    return [f"results/models/{name}" for name in roles.values()]


def model_config(wildcards):
    return config["models"][wildcards.model]


def retriever_config(wildcards):
    return config["retrievers"][wildcards.retriever]


def dataset_metric(wildcards):
    name = config["datasets"][wildcards.dataset]["metric"]
    return {"name": name, "options": config["metrics"][name]}


def metric_model(wildcards):
    """The judge or answer-extraction model of the dataset's metric, if it names one."""
    return dataset_metric(wildcards)["options"].get("model")


def metric_model_input(wildcards):
    model = metric_model(wildcards)
    return {"metric_model": f"results/models/{model}"} if model else {}


def metric_model_config(wildcards):
    model = metric_model(wildcards)
    return config["models"][model] if model else {}


def score_files():
    return [f"results/scores/{d}/{me}/{mo}.json" for d, me, mo in GRID]


def recall_files():
    """recall.json of every retriever used by a method of each dataset's experiments."""
    wanted = {}
    for dataset, method, _ in GRID:
        for retriever in retriever_names(config["methods"][method]):
            wanted[(dataset, retriever)] = None
    return [f"results/index/{d}/{r}/recall.json" for d, r in wanted]


def failure_files():
    datasets = dict.fromkeys(d for d, _, _ in GRID)
    return [f"results/{stage}/{d}/failures.jsonl" for d in datasets for stage in ("pages", "ocr")]


def report_outputs():
    figures = [f"results/figures/{name}.{ext}" for name in FIGURES for ext in ("png", "pdf")]
    tables = [f"results/tables/{name}.{ext}" for name in ("results", "retrieval") for ext in ("csv", "md")]
    return tables + figures


FIGURES = ("score_by_kind", "retrieval_recall")
