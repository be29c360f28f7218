rule build_knowledge:
    """SlideAgent's query-agnostic knowledge base (global, page and element knowledge) of every
    document, built once per (dataset, model) and read by every slideagent question and rerun;
    resumable per document. Another model has its own folder, so a model swap rebuilds only
    that model's knowledge."""
    input:
        documents="results/data/{dataset}/documents.jsonl",
        pages="results/pages/{dataset}/pages.jsonl",
        elements="results/text/{dataset}/elements.jsonl",
        model="results/models/{model}",
    output:
        directory("results/knowledge/{dataset}/{model}"),
    log:
        "results/logs/knowledge/{dataset}/{model}.log",
    conda:
        "../envs/infer.yaml"
    threads: model_threads
    resources:
        gpu=model_gpus,
    params:
        model=model_config,
        knowledge=config.get("knowledge", {}),
        cache=config["cache"],
    script:
        "scripts/build_knowledge.py"
