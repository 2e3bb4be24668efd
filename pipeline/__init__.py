"""Pure extraction: document bytes plus settings in, an ``ExtractionResult`` out.

Owns the stages, run in order by ``runner.Extractor``: ``sniff`` (magic bytes), ``text`` (PDF
text layer or OCR, into a ``document.DocumentText``), tier 0 ``einvoice`` (with ``print_check``),
tier 1 ``templates``, tier 2 ``rules/`` and ``llm_extract``, then ``normalise``, ``validate`` and
``evidence`` (with ``confidence``); and the pool that runs them (``pool``, ``worker``: Ray
actors or threads). Shared by all of them: the spec's vocabulary (``schema``), money
(``money``), value parsers (``parsers``), what crosses into a worker (``context``) and what
comes back (``result``, ``errors``).

Must not import ``api`` or ``appliance``; holds no database handle; may run in Ray workers on
another host, so everything it receives is a small frozen, picklable context.
"""
