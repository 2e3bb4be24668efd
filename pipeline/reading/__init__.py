"""Reading a document: the type by magic bytes (``sniff``), the text of every page from the PDF
text layer or OCR (``text``, into a ``pipeline.document.DocumentText``), and the one pdfium lock
of the process (``pdfium_lock``).

Must not import ``api``, ``appliance`` or ``webui``, nor the extraction families of
``pipeline`` (einvoice, templates, rules, model, decision): they read what this package made.
"""
