"""Page text: words with boxes from the PDF's text layer or tesseract, in a reading order that
keeps columns apart, grouped into lines and blocks with a layout kind.

One module one job: :mod:`~docqa.text.words` (the word both sources produce),
:mod:`~docqa.text.pdf_layer` (pypdfium2's text layer), :mod:`~docqa.text.ocr` (tesseract),
:mod:`~docqa.text.script` (a page's script and the tesseract language that reads it),
:mod:`~docqa.text.quality` (is a text layer usable), :mod:`~docqa.text.reading_order`
(columns, rows, lines, blocks), :mod:`~docqa.text.kinds` (layout kinds),
:mod:`~docqa.text.document` (one page / one document, any source),
:mod:`~docqa.text.page_texts` (each page's text, read back from the stage's output). The
dataset stage is :mod:`docqa.stages.text`.
"""
