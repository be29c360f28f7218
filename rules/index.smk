from docqa.workflow.snakefile import fused_entries, wants_gpu


rule build_index:
    """One retriever index per document, and the retriever's recall@k on the dataset. Page
    embeddings are built here once per (dataset, retriever) and reused by every method and
    model; a hybrid reuses the indexes of the retrievers it fuses, which are built first."""
    input:
        questions="results/data/{dataset}/questions.jsonl",
        pages="results/pages/{dataset}/pages.jsonl",
        elements="results/text/{dataset}/elements.jsonl",
        fused=lambda w: [
            f"results/index/{w.dataset}/{name}/docs"
            for name in fused_entries(config["retrievers"], w.retriever)
        ],
    output:
        docs=directory("results/index/{dataset}/{retriever}/docs"),
        recall="results/index/{dataset}/{retriever}/recall.json",
    log:
        "results/logs/index/{dataset}/{retriever}.log",
    conda:
        "../envs/retrieval.yaml"
    resources:
        gpu=lambda w: int(wants_gpu(config["retrievers"][w.retriever])),
    params:
        retriever=retriever_config,
        fused=lambda w: fused_entries(config["retrievers"], w.retriever),
    script:
        "scripts/build_index.py"
