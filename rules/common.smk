# Shared helpers: config validation, the experiment grid, and per-rule config slices.
# Rule params carry only the slice of config a rule uses, so editing one model or method
# reruns only the jobs that depend on it. Every path comes from the config's results layout
# (RESULTS, rooted at config key `results`: docqa.workflow.layout); what a run takes from the config from docqa.workflow.pipeline, which
# docqa ask reads too.
from pathlib import Path

from docqa.workflow.snakefile import (
    RUN,
    SHARD,
    experiment_grid,
    model_source as _model_source,
    needs_knowledge,
    quantization_groups,
    report_command,
    report_figures,
    report_tables,
    results_layout,
    retriever_names,
    role_models,
    run_key,
    shard_counts,
    shard_names,
    sharded_runs_pattern,
    text_settings as _text_settings,
    top_k_series,
    validate_config,
)

# the checks docqa ask and docqa config show run too (docqa.workflow.loader)
validate_config(config, Path(workflow.basedir) / "config/config.schema.yaml")

# every folder and file of this config's results (config key `results`; models and downloads
# are shared by every results folder)
RESULTS = results_layout(config)

GRID = experiment_grid(config)
RUNS = [run_key(*run) for run in GRID]


wildcard_constraints:
    dataset="|".join(config["datasets"]),
    method="|".join(config["methods"]),
    model="|".join(config["models"]),
    retriever="|".join(config["retrievers"]),


def model_source(wildcards):
    return _model_source(config["models"][wildcards.model])


def model_prepare_inputs(wildcards):
    """What a model entry needs from other jobs: the training stage of its adapter
    (rules/training.smk) and a base under a results folder (e.g. the prepared embedded model)."""
    entry = config["models"][wildcards.model]
    under = tuple(f"{root}/" for root in (RESULTS.root, RESULTS.shared))
    inputs = [entry["path"]] if str(entry.get("path", "")).startswith(under) else []
    adapter = str(entry.get("adapter", ""))
    if adapter.startswith(RESULTS.training("")):
        inputs.append(str(Path(adapter).parent / "train.json"))  # the train job's own output
    return inputs


def method_retrievers(wildcards):
    """The retrievers a method uses, by name, with their config entries."""
    names = retriever_names(config["methods"][wildcards.method])
    return {name: config["retrievers"][name] for name in names}


def method_indexes(wildcards):
    return [RESULTS.index_docs(wildcards.dataset, name) for name in method_retrievers(wildcards)]


def method_config(wildcards):
    return config["methods"][wildcards.method]


def method_role_models(wildcards):
    """Role → config entry of the extra models a method names (``<role>_model`` options)."""
    roles = role_models(config["methods"][wildcards.method])
    return {role: config["models"][name] for role, name in roles.items()}


def method_role_model_dirs(wildcards):
    roles = role_models(config["methods"][wildcards.method])
    return [RESULTS.model(name) for name in roles.values()]


def method_knowledge(wildcards):
    """The knowledge base of the run's (dataset, model), for a method that needs one (SlideAgent);
    nothing for other methods."""
    if not needs_knowledge(config["methods"][wildcards.method]):
        return []
    return RESULTS.knowledge(wildcards.dataset, wildcards.model)


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
    return {"metric_model": RESULTS.model(model)} if model else {}


def metric_model_config(wildcards):
    model = metric_model(wildcards)
    return config["models"][model] if model else {}


def score_files():
    return [RESULTS.scores(run) for run in RUNS]


def timing_files():
    """Each run's wall-clock measurements, which the report shows beside its scores."""
    return [RESULTS.timings(run) for run in RUNS]


def runs_dir_of(timings):
    """The runs folder above the timings files ``timing_files()`` names, derived from them (so
    that a storage plugin maps it as it maps the inputs)."""
    return str(Path(timings[0]).parents[RUN.count("/") + 1]) if timings else RESULTS.runs()


def recall_files():
    """recall.json of every retriever used by a method of each dataset's experiments."""
    wanted = {}
    for dataset, method, _ in GRID:
        for retriever in retriever_names(config["methods"][method]):
            wanted[(dataset, retriever)] = None
    return [RESULTS.recall(d, r) for d, r in wanted]


def failure_files():
    datasets = dict.fromkeys(d for d, _, _ in GRID)
    return [
        failures
        for d in datasets
        for failures in (RESULTS.render_failures(d), RESULTS.text_failures(d))
    ]


def report_outputs():
    figures = [RESULTS.figure(name, ext) for name in FIGURES for ext in ("png", "pdf")]
    tables = [
        RESULTS.table(name, ext) for name in ("results", "retrieval") for ext in ("csv", "md")
    ]
    paper = [
        RESULTS.table(name, ext) for name in PAPER_TABLES for ext in ("csv", "md", "tex", "html")
    ]
    return tables + paper + figures + trace_dirs()


def trace_dirs():
    return [RESULTS.traces(run) for run in RUNS]


def trace_links():
    """Links from the report (<results>/report.html) to each run's trace index, for the
    captions."""
    return [
        {"label": f"{d} / {me} / {mo}", "href": f"{traces}/index.html"}
        for d, me, mo in GRID
        # relative to the results folder, where report.html lies
        for traces in [Path(RESULTS.traces(run_key(d, me, mo))).relative_to(RESULTS.root)]
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
            RESULTS.figure(name, "png"), caption=f"report/{name}.rst", category="Figures"
        )
        outputs[f"{name}_pdf"] = RESULTS.figure(name, "pdf")
    return outputs


def paper_table_outputs():
    outputs = {}
    for name in PAPER_TABLES:
        for ext in ("csv", "md", "tex"):
            outputs[f"table_{name}_{ext}"] = RESULTS.table(name, ext)
        outputs[f"table_{name}_html"] = report(
            RESULTS.table(name, "html"),
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
    names = shard_names(SHARDS[tuple(wildcards.run.split("/"))])
    return [RESULTS.shard_predictions(wildcards.run, name) for name in names]


def run_shard_provenance(wildcards):
    names = shard_names(SHARDS[tuple(wildcards.run.split("/"))])
    return [RESULTS.shard_provenance(wildcards.run, name) for name in names]


def run_questions(wildcards):
    return RESULTS.questions(wildcards.run.split("/")[0])


# The training rules' helpers (rules/training.smk, docqa.training).
from docqa.workflow.snakefile import (
    evaluation_runs as _evaluation_runs,
    evaluation_scores as _evaluation_scores,
    stage_names,
    stage_start as _stage_start,
    training_entries,
    training_outputs as _training_outputs,
)

TRAINING = training_entries(config)


def training_entry(wildcards):
    return TRAINING[wildcards.training]


def training_data(kind):
    """A file of a training dataset, from the data, render and text stages."""

    def files(wildcards):
        dataset = wildcards.dataset
        return {
            "questions": RESULTS.questions,
            "documents": RESULTS.documents,
            "pages": RESULTS.pages,
            "overviews": RESULTS.overviews,
            "elements": RESULTS.elements,
        }[kind](dataset)

    return files


def training_trajectories(wildcards):
    """dataset → its trajectories file, for every training dataset of the entry."""
    return {
        dataset: f"{RESULTS.training(wildcards.training)}/trajectories/{dataset}.jsonl"
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
    return lambda wildcards: RESULTS.model(TRAINING[wildcards.training][role])


def training_model_config(role):
    return lambda wildcards: config["models"][TRAINING[wildcards.training][role]]


def training_outputs():
    return _training_outputs(RESULTS, config)


def stage_start(wildcards):
    training = wildcards.training
    return _stage_start(RESULTS, TRAINING[training], training, wildcards.stage)


def evaluation_runs(wildcards):
    return _evaluation_runs(RESULTS, TRAINING[wildcards.training])


def evaluation_scores(wildcards):
    return _evaluation_scores(RESULTS, TRAINING[wildcards.training])
