rule text_pages:
    """Page text per the dataset's text source (auto: the PDF's text layer where a page has a
    usable one, tesseract where not, decided per page); one worker per thread, OCR with
    OMP_THREAD_LIMIT=1."""
    input:
        documents=RESULTS.documents(),
        pages=RESULTS.pages(),
    output:
        elements=RESULTS.elements(),
        failures=RESULTS.text_failures(),
    log:
        RESULTS.log("text", "{dataset}"),
    conda:
        "../envs/cpu.yaml"
    threads: all_cores
    resources:
        **job_resources("text_pages"),
    params:
        text=lambda w: text_settings(w.dataset),
    script:
        "scripts/text_pages.py"
