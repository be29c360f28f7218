rule prepare_model:
    """Bring a model's weights into results/models/{model} once, so that inference never
    downloads or converts anything."""
    output:
        directory("results/models/{model}"),
    params:
        source=model_source,
    log:
        "results/logs/models/{model}.log",
    conda:
        "../envs/infer.yaml"
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
        elements="results/ocr/{dataset}/elements.jsonl",
        model="results/models/{model}",
        role_models=method_role_model_dirs,
    output:
        predictions="results/runs/{dataset}/{method}/{model}/predictions.jsonl",
    params:
        method=method_config,
        retrievers=method_retrievers,
        model=model_config,
        role_models=method_role_models,
        cache=config["cache"],
    threads: model_threads
    resources:
        gpu=model_gpus,
    log:
        "results/logs/infer/{dataset}/{method}/{model}.log",
    conda:
        "../envs/infer.yaml"
    script:
        "scripts/infer.py"
