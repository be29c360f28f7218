"""The values of ``Prediction.error_kind``: why a recorded question failed.

The infer stage sets them (an exception's kind comes from :func:`docqa.backends.errors.error_kind`,
which says what counts as infrastructure); the score stage counts infrastructure errors and the
report lists the documents behind ``DOCUMENT`` errors.
"""

#: ``Prediction.error_kind`` of a question that failed for an infrastructure reason
INFRASTRUCTURE = "infrastructure"
#: ``Prediction.error_kind`` of a question that failed because of its document or the method
INPUT = "input"
#: ``Prediction.error_kind`` of a question whose document has no pages: it failed to render or
#: OCR, or the dataset does not have it (the report's footnote lists these documents)
DOCUMENT = "document"
