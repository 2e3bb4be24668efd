"""The extraction model's proposals (``llm_extract``): the prompt of a document's text, the
answer format our adapter writes, and its answers grounded in the text and normalised.

Talks to a model only through ``models.llm.LlmBackend``. Must not import ``api``,
``appliance`` or ``webui``, nor ``pipeline.runtime``, the steps, ``einvoice``, ``templates`` or
``decision``; of the rules it reads only their label patterns (``pipeline.rules.labels``).
"""
