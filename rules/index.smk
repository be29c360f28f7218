from docqa.retrievers.hybrid import component_names


def fused_retrievers(wildcards):
    """The retrievers whose indexes this one fuses (a hybrid's), with their config entries."""
    names = component_names(config["retrievers"], wildcards.retriever)
    return {name: config["retrievers"][name] for name in names}


def fused_indexes(wildcards):
    return [f"results/index/{wildcards.dataset}/{name}/docs" for name in fused_retrievers(wildcards)]


def retriever_gpus(wildcards):
    return int(str(config["retrievers"][wildcards.retriever].get("device", "cpu")).startswith("cuda"))


rule build_index:
    """One retriever index per document, and the retriever's recall@k on the dataset. Page
    embeddings are built here once per (dataset, retriever) and reused by every method and
    model; a hybrid reuses the indexes of the retrievers it fuses."""
    input:
        questions="results/data/{dataset}/questions.jsonl",
        pages="results/pages/{dataset}/pages.jsonl",
        elements="results/ocr/{dataset}/elements.jsonl",
        fused=fused_indexes,
    output:
        docs=directory("results/index/{dataset}/{retriever}/docs"),
        recall="results/index/{dataset}/{retriever}/recall.json",
    params:
        retriever=retriever_config,
        fused=fused_retrievers,
    resources:
        gpu=retriever_gpus,
    log:
        "results/logs/index/{dataset}/{retriever}.log",
    conda:
        "../envs/retrieval.yaml"
    script:
        "scripts/build_index.py"
