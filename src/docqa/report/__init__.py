"""Reports: results tables (CSV, Markdown), paper tables (also LaTeX and HTML), paper figures
(PDF, PNG) and trace pages, from the files the pipeline hands over. The report stage itself is
:mod:`docqa.stages.report`; ``plan`` decides from the config which figures exist."""
