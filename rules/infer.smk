rule prepare_model:
    """Bring a model's weights into results/models/{model} once, so that inference never
    downloads or converts anything."""
    input:
        model_prepare_inputs,
    output:
        directory("results/models/{model}"),
    log:
        "results/logs/models/{model}.log",
    conda:
        "../envs/infer.yaml"
    params:
        source=model_source,
    script:
        "scripts/prepare_model.py"


rule infer:
    """One method with one model over a whole dataset; resumable per question."""
    input:
        indexes=method_indexes,
        questions="results/data/{dataset}/questions.jsonl",
        documents="results/data/{dataset}/documents.jsonl",
        pages="results/pages/{dataset}/pages.jsonl",
        overviews="results/pages/{dataset}/overviews.jsonl",
        failures="results/pages/{dataset}/failures.jsonl",
        elements="results/text/{dataset}/elements.jsonl",
        model="results/models/{model}",
        role_models=method_role_model_dirs,
        knowledge=method_knowledge,
    output:
        # predictions are byte-identical across reruns; seconds and memory go to timings
        predictions="results/runs/{dataset}/{method}/{model}/predictions.jsonl",
        timings="results/runs/{dataset}/{method}/{model}/predictions.timings.jsonl",
        provenance="results/runs/{dataset}/{method}/{model}/provenance.json",
    log:
        "results/logs/infer/{dataset}/{method}/{model}.log",
    conda:
        "../envs/infer.yaml"
    threads: model_threads
    resources:
        # the job takes this many GPUs of its own (docqa.runtime.gpu_lock); --resources gpu=N caps the sum
        gpu=model_gpus,
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
        predictions="results/runs/{dataset}/{method}/{model}/shards/{shard}-of-{shards}.jsonl",
        timings="results/runs/{dataset}/{method}/{model}/shards/{shard}-of-{shards}.timings.jsonl",
        provenance="results/runs/{dataset}/{method}/{model}/shards/{shard}-of-{shards}.provenance.json",
    log:
        "results/logs/infer/{dataset}/{method}/{model}/{shard}-of-{shards}.log",
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
        predictions="results/runs/{run}/predictions.jsonl",
        timings="results/runs/{run}/predictions.timings.jsonl",
        provenance="results/runs/{run}/provenance.json",
    log:
        "results/logs/infer/{run}/merge_shards.log",
    wildcard_constraints:
        run=sharded_runs_pattern(config),
    conda:
        "../envs/cpu.yaml"
    script:
        "scripts/merge_shards.py"


ruleorder: merge_shards > infer
