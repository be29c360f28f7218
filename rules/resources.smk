# What each job asks for: its threads, GPUs, memory and run time, and on a SLURM cluster where
# it runs (docqa.workflow.cluster). Config key `cluster` names the cluster file
# (profiles/slurm sets it to profiles/slurm/cluster.yaml); without one, a local run, the needs
# are only the jobs' resources (mem_mb, runtime, gpu) and threads.
from snakemake.logging import logger

from docqa.workflow.snakefile import (
    LOCAL_RULES,
    ConfigError,
    check_fits,
    job_resources as _job_resources,
    cluster_threads,
    load_cluster,
    model_threads as _model_threads,
    wants_gpu,
)

CLUSTER = load_cluster(config["cluster"]) if config.get("cluster") else None

# downloads and model preparation run where the network is, never on a compute node
workflow.localrules(*LOCAL_RULES)


def all_cores(wildcards=None):
    """The threads of a job that uses every core it gets: on a cluster the most CPUs one job
    may ask, locally every core of --cores. Evaluated per job (``threads: all_cores``), when
    the executor is known."""
    _refuse_slurm_without_cluster()
    return CLUSTER.max_cpus if CLUSTER else workflow.cores


def model_threads(wildcards):
    """The job's threads: the model entry's ``threads``, else its backend's default (one for
    the embedded model and hosted APIs, whose jobs then run side by side), else every core;
    on a cluster at most its GPUs' share of a node's CPUs."""
    return _threads_with(wildcards.model, model_gpus(wildcards))


def run_threads(wildcards):
    """An infer job's threads: as ``model_threads``, for the GPUs of the whole run."""
    return _threads_with(wildcards.model, run_gpus(wildcards))


def _threads_with(model, gpus):
    threads = _model_threads(config["models"][model], all_cores())
    return cluster_threads(threads, CLUSTER, gpus)


def gpus_of(model):
    """The GPUs a model entry asks for."""
    return config["models"][model].get("gpus", 0)


def retriever_gpus_of(retriever):
    """1 for a retriever that runs on CUDA, else 0."""
    return int(wants_gpu(config["retrievers"][retriever]))


def model_gpus(wildcards):
    return gpus_of(wildcards.model)


def run_gpus(wildcards):
    """An infer job's GPUs: the most that one model it loads asks (the run's model, or a role
    model of its method) or 1 for a retriever of the method that runs on CUDA at query time."""
    return max(run_gpu_needs(wildcards.method, wildcards.model).values())


def run_gpu_needs(method, model):
    """What a run (method, model) loads that may use a GPU → its GPUs."""
    entry = config["methods"][method]
    needs = {f"model {name}": gpus_of(name) for name in (model, *role_models(entry).values())}
    for name in retriever_names(entry):
        needs[f"retriever {name}"] = retriever_gpus_of(name)
    return needs


def retriever_gpus(wildcards):
    return retriever_gpus_of(wildcards.retriever)


def metric_model_gpus(wildcards):
    model = metric_model(wildcards)
    return gpus_of(model) if model else 0


def training_gpus(wildcards):
    return TRAINING[wildcards.training].get("gpus", 0)


def teacher_gpus(wildcards):
    return gpus_of(TRAINING[wildcards.training]["teacher"])


def _refuse_slurm_without_cluster():
    """A SLURM run whose --config replaced the profile's `cluster=...` would submit jobs with
    no partition and the local needs: refused when the first job is evaluated, before it is
    submitted."""
    plugin = workflow.executor_plugin
    if CLUSTER is None and plugin is not None and plugin.name == "slurm":
        raise ConfigError(
            "a SLURM run without a cluster file: the command line's --config replaced "
            "profiles/slurm's `config: [cluster=profiles/slurm/cluster.yaml]`; add "
            "cluster=profiles/slurm/cluster.yaml to that --config"
        )


def job_resources(rule, gpus=0):
    """The resources of a job of ``rule``: its needs (docqa.workflow.cluster.NEEDS) and its
    GPUs, with the cluster's partition, GPU type and account on a cluster."""
    return _job_resources(rule, gpus, CLUSTER, check=_refuse_slurm_without_cluster)


def gpu_jobs():
    """(rule, what it loads, GPUs) of every job of this config that may use a GPU."""
    jobs = []
    for dataset, method, model in GRID:
        jobs += [("infer", what, gpus) for what, gpus in run_gpu_needs(method, model).items()]
        for name in retriever_names(config["methods"][method]):
            jobs.append(("build_index", f"retriever {name}", retriever_gpus_of(name)))
        judge = config["metrics"][config["datasets"][dataset]["metric"]].get("model")
        if judge:
            jobs.append(("score", f"model {judge}", gpus_of(judge)))
    for name, training in TRAINING.items():
        jobs.append(("train", f"training {name}", training.get("gpus", 0)))
        teacher = training["teacher"]
        jobs.append(("synthesize_trajectories", f"model {teacher}", gpus_of(teacher)))
    return jobs


if CLUSTER:
    for warning in check_fits(CLUSTER, config["cluster"], gpu_jobs()):
        logger.warning(warning)
