# What each job asks for: its threads, GPUs, memory and run time, and on a SLURM cluster where
# it runs (docqa.workflow.cluster). Config key `cluster` names the cluster file
# (profiles/slurm sets it to profiles/slurm/cluster.yaml); without one, a local run, the needs
# are only the jobs' resources (mem_mb, runtime, gpu) and threads.
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
    the embedded model, whose jobs then run side by side), else every core."""
    return cluster_threads(_model_threads(config["models"][wildcards.model], all_cores()), CLUSTER)


def model_gpus(wildcards):
    return config["models"][wildcards.model].get("gpus", 0)


def retriever_gpus(wildcards):
    return int(wants_gpu(config["retrievers"][wildcards.retriever]))


def metric_model_gpus(wildcards):
    model = metric_model(wildcards)
    return config["models"][model].get("gpus", 0) if model else 0


def training_gpus(wildcards):
    return TRAINING[wildcards.training].get("gpus", 0)


def teacher_gpus(wildcards):
    return config["models"][TRAINING[wildcards.training]["teacher"]].get("gpus", 0)


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
        entry = config["methods"][method]
        for name in (model, *role_models(entry).values()):
            jobs.append(("infer", f"model {name}", config["models"][name].get("gpus", 0)))
        for name in retriever_names(entry):
            jobs.append(("build_index", f"retriever {name}", int(wants_gpu(config["retrievers"][name]))))
    for name, training in TRAINING.items():
        jobs.append(("train", f"training {name}", training.get("gpus", 0)))
        teacher = training["teacher"]
        jobs.append(("synthesize_trajectories", f"model {teacher}", config["models"][teacher].get("gpus", 0)))
    return jobs


if CLUSTER:
    check_fits(CLUSTER, config["cluster"], gpu_jobs())
