rule prepare_model:
    """Bring a model's weights into results/models/{model} once, so that inference never
    downloads or converts anything."""
    input:
        model_prepare_inputs,
    output:
        directory(RESULTS.model()),
    log:
        RESULTS.log("models", "{model}"),
    conda:
        "../envs/infer.yaml"
    resources:
        **job_resources("prepare_model"),
    params:
        source=model_source,
    script:
        "scripts/prepare_model.py"


rule infer:
    """One method with one model over a whole dataset; resumable per question."""
    input:
        indexes=method_indexes,
        questions=RESULTS.questions(),
        documents=RESULTS.documents(),
        pages=RESULTS.pages(),
        overviews=RESULTS.overviews(),
        failures=RESULTS.render_failures(),
        elements=RESULTS.elements(),
        model=RESULTS.model(),
        role_models=method_role_model_dirs,
        knowledge=method_knowledge,
    output:
        # predictions are byte-identical across reruns; seconds and memory go to timings
        predictions=RESULTS.predictions(),
        timings=RESULTS.timings(),
        provenance=RESULTS.provenance(),
    log:
        RESULTS.log("infer", RUN),
    conda:
        "../envs/infer.yaml"
    threads: run_threads
    resources:
        # the job takes the run's GPUs for its own (docqa.runtime.gpu_lock); --resources gpu=N caps the sum
        **job_resources("infer", gpus=run_gpus),
    params:
        method=method_config,
        retrievers=method_retrievers,
        model=model_config,
        role_models=method_role_models,
        dataset=lambda wildcards: config["datasets"][wildcards.dataset],
        manifests=lambda wildcards: download_manifests(config["datasets"], wildcards.dataset),
        cache=config["cache"],
        # questions that may fail for an infrastructure reason (server, key, cache, memory)
        # before the job fails instead of recording them (docqa.backends.errors)
        max_infrastructure_errors=config.get("infer", {}).get("max_infrastructure_errors", 0),
    script:
        "scripts/infer.py"


# Sharding (docqa.stages.shards): an experiment's `shards: N` splits each of its runs into N jobs of
# one block of questions each; merge_shards joins them into the run's predictions.jsonl, the
# same bytes an unsharded run writes. ruleorder sends the runs split in shards to the merge.
use rule infer as infer_shard with:
    output:
        predictions=RESULTS.shard_predictions(),
        timings=RESULTS.shard_timings(),
        provenance=RESULTS.shard_provenance(),
    log:
        RESULTS.log("infer", RUN, SHARD),
    wildcard_constraints:
        shard=r"\d+",
        shards=r"\d+",


rule merge_shards:
    """Join a sharded run's shards, in order, into its predictions, timings and provenance."""
    input:
        questions=run_questions,
        shards=run_shards,
        provenance=run_shard_provenance,
    output:
        # {run} is a run key, {dataset}/{method}/{model}, of a run split in shards
        predictions=RESULTS.predictions("{run}"),
        timings=RESULTS.timings("{run}"),
        provenance=RESULTS.provenance("{run}"),
    log:
        RESULTS.log("infer", "{run}", "merge_shards"),
    wildcard_constraints:
        run=sharded_runs_pattern(config),
    conda:
        "../envs/cpu.yaml"
    resources:
        **job_resources("merge_shards"),
    script:
        "scripts/merge_shards.py"


ruleorder: merge_shards > infer
