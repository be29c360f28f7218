rule text_pages:
    """Page text per the dataset's text source (auto: the PDF's text layer where a page has a
    usable one, tesseract where not, decided per page); one worker per thread, OCR with
    OMP_THREAD_LIMIT=1."""
    input:
        documents="results/data/{dataset}/documents.jsonl",
        pages="results/pages/{dataset}/pages.jsonl",
    output:
        elements="results/text/{dataset}/elements.jsonl",
        failures="results/text/{dataset}/failures.jsonl",
    log:
        "results/logs/text/{dataset}.log",
    conda:
        "../envs/cpu.yaml"
    threads: workflow.cores
    params:
        text=lambda w: text_settings(w.dataset),
    script:
        "scripts/text_pages.py"
