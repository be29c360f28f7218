# Shared helpers: config validation, the experiment grid, and per-rule config slices.
# Rule params carry only the slice of config a rule uses, so editing one model or method
# reruns only the jobs that depend on it.
from pathlib import Path

from snakemake.utils import validate


from docqa.workflow.snakefile import (
    check_options,
    check_references,
    experiment_grid,
    needs_knowledge,
    quantization_groups,
    report_figures,
    report_tables,
    retriever_names,
    role_models,
    shard_counts,
    shard_files,
    sharded_runs_pattern,
    text_settings as _text_settings,
    top_k_series,
)

# every entry's options against its registered type first: those messages name the entry and key
check_options(config)
validate(config, "../config/config.schema.yaml")
check_references(config)

GRID = experiment_grid(config)
PREPARE_KEYS = ("backend", "hf_id", "revision", "gguf", "path", "hf_cache", "adapter")


wildcard_constraints:
    dataset="|".join(config["datasets"]),
    method="|".join(config["methods"]),
    model="|".join(config["models"]),
    retriever="|".join(config["retrievers"]),


def model_source(wildcards):
    entry = config["models"][wildcards.model]
    return {key: entry[key] for key in PREPARE_KEYS if key in entry}


def model_prepare_inputs(wildcards):
    """What a model entry needs from other jobs: the training stage of its adapter
    (rules/training.smk) and a base under results/ (e.g. the prepared embedded model)."""
    entry = config["models"][wildcards.model]
    inputs = [entry["path"]] if str(entry.get("path", "")).startswith("results/") else []
    adapter = str(entry.get("adapter", ""))
    if adapter.startswith("results/training/"):
        inputs.append(str(Path(adapter).parent / "train.json"))  # the train job's own output
    return inputs


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
    return [
        f"results/index/{wildcards.dataset}/{name}/docs" for name in method_retrievers(wildcards)
    ]


def method_config(wildcards):
    return config["methods"][wildcards.method]


def method_role_models(wildcards):
    """Role → config entry of the extra models a method names (``<role>_model`` options)."""
    roles = role_models(config["methods"][wildcards.method])
    return {role: config["models"][name] for role, name in roles.items()}


def method_role_model_dirs(wildcards):
    roles = role_models(config["methods"][wildcards.method])
    return [f"results/models/{name}" for name in roles.values()]


def method_knowledge(wildcards):
    """The knowledge base of the run's (dataset, model), for a method that needs one (SlideAgent);
    nothing for other methods."""
    if not needs_knowledge(config["methods"][wildcards.method]):
        return []
    return f"results/knowledge/{wildcards.dataset}/{wildcards.model}"


def model_config(wildcards):
    return config["models"][wildcards.model]


def text_settings(dataset):
    return _text_settings(config, dataset)


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


def timing_files():
    """Each run's wall-clock measurements, which the report shows beside its scores."""
    return [f"results/runs/{d}/{me}/{mo}/predictions.timings.jsonl" for d, me, mo in GRID]


def runs_dir_of(timings):
    """The runs folder that holds the timings files ``timing_files()`` names."""
    return str(Path(timings[0]).parents[3]) if timings else "results/runs"


def recall_files():
    """recall.json of every retriever used by a method of each dataset's experiments."""
    wanted = {}
    for dataset, method, _ in GRID:
        for retriever in retriever_names(config["methods"][method]):
            wanted[(dataset, retriever)] = None
    return [f"results/index/{d}/{r}/recall.json" for d, r in wanted]


def failure_files():
    datasets = dict.fromkeys(d for d, _, _ in GRID)
    return [f"results/{stage}/{d}/failures.jsonl" for d in datasets for stage in ("pages", "text")]


def report_outputs():
    figures = [f"results/figures/{name}.{ext}" for name in FIGURES for ext in ("png", "pdf")]
    tables = [
        f"results/tables/{name}.{ext}" for name in ("results", "retrieval") for ext in ("csv", "md")
    ]
    paper = [
        f"results/tables/{name}.{ext}"
        for name in PAPER_TABLES
        for ext in ("csv", "md", "tex", "html")
    ]
    return tables + paper + figures + trace_dirs()


def trace_dirs():
    return [f"results/traces/{d}/{me}/{mo}" for d, me, mo in GRID]


def trace_links():
    """Links from results/report.html to each run's trace index, for the captions."""
    return [
        {"label": f"{d} / {me} / {mo}", "href": f"traces/{d}/{me}/{mo}/index.html"}
        for d, me, mo in GRID
    ]


def top_k_params():
    return [
        {"type": kind, "model": model, "methods": {str(k): m for k, m in ks.items()}}
        for (kind, model), ks in top_k_series(config, GRID).items()
    ]


def figure_outputs():
    outputs = {}
    for name in FIGURES:
        outputs[f"{name}_png"] = report(
            f"results/figures/{name}.png", caption=f"report/{name}.rst", category="Figures"
        )
        outputs[f"{name}_pdf"] = f"results/figures/{name}.pdf"
    return outputs


def paper_table_outputs():
    outputs = {}
    for name in PAPER_TABLES:
        for ext in ("csv", "md", "tex"):
            outputs[f"table_{name}_{ext}"] = f"results/tables/{name}.{ext}"
        outputs[f"table_{name}_html"] = report(
            f"results/tables/{name}.html",
            caption="report/paper_table.rst",
            category="Paper tables",
            labels={"table": name},
        )
    return outputs


# The report's figures and paper tables follow from the config (docqa.report.plan): a figure
# whose inputs the grid cannot produce (no DocPilot run, one top-k) is not planned at all.
FIGURES = report_figures(config, GRID)
PAPER_TABLES = report_tables(config)


# Sharded infer jobs (docqa.stages.shards): how many shards each run has, and merge_shards' inputs.
SHARDS = shard_counts(config)


def run_shards(wildcards):
    """The shard predictions of merge_shards' ``{run}`` ({dataset}/{method}/{model})."""
    return shard_files(f"results/runs/{wildcards.run}", SHARDS[tuple(wildcards.run.split("/"))])


def run_shard_provenance(wildcards):
    return [path.removesuffix(".jsonl") + ".provenance.json" for path in run_shards(wildcards)]


def run_questions(wildcards):
    return f"results/data/{wildcards.run.split('/')[0]}/questions.jsonl"


# The training rules' helpers (rules/training.smk, docqa.training).
from docqa.workflow.snakefile import (
    evaluation_runs,
    evaluation_scores,
    stage_names,
    stage_start,
    training_entries,
    training_outputs,
)

TRAINING = training_entries(config)


def training_entry(wildcards):
    return TRAINING[wildcards.training]


def training_data(kind):
    """A file of a training dataset, from the data, render and text stages."""

    def files(wildcards):
        dataset = wildcards.dataset
        return {
            "questions": f"results/data/{dataset}/questions.jsonl",
            "documents": f"results/data/{dataset}/documents.jsonl",
            "pages": f"results/pages/{dataset}/pages.jsonl",
            "overviews": f"results/pages/{dataset}/overviews.jsonl",
            "elements": f"results/text/{dataset}/elements.jsonl",
        }[kind]

    return files


def training_trajectories(wildcards):
    """dataset → its trajectories file, for every training dataset of the entry."""
    return {
        dataset: f"results/training/{wildcards.training}/trajectories/{dataset}.jsonl"
        for dataset in TRAINING[wildcards.training]["datasets"]
    }


def training_metrics(wildcards):
    """dataset → its metric (name and options), which filtering scores answers with."""
    metrics = {}
    for dataset in TRAINING[wildcards.training]["datasets"]:
        name = config["datasets"][dataset]["metric"]
        metrics[dataset] = {"name": name, "options": config["metrics"][name]}
    return metrics


def training_model_dir(role):
    return lambda wildcards: f"results/models/{TRAINING[wildcards.training][role]}"


def training_model_config(role):
    return lambda wildcards: config["models"][TRAINING[wildcards.training][role]]
