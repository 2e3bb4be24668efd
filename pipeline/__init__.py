"""Pure extraction: document bytes plus settings in, an ``ExtractionResult`` out.

The pipeline is one declared list of steps (``steps.STEPS``: sniff, einvoice, read text,
template, profile, rules, model, decide, model lines, finish), walked by ``runner.Extractor``
for one document; calibration and training run the same steps. The families of the steps, each
a sub-package: ``reading`` (sniff, the text layer or OCR), ``einvoice`` (tier 0), ``templates``
and ``profiles`` (tier 1: hand-written, and learned from approvals), ``rules`` and ``model``
(tier 2's proposers), ``decision`` (arbiter, evidence, confidence), ``values`` (parsers, money,
normalise, validate: below all of them), and ``runtime`` (the pool of Ray actors or threads
that runs the runner; the only family that imports Ray). Shared by all: the spec's vocabulary
(``schema``), what crosses into a worker (``context``), a document's text (``document``) and
what comes back (``result``, ``errors``).

Must not import ``api``, ``appliance``, ``server`` or ``webui``; holds no database handle; may
run in Ray workers on another host, so everything it receives is a small frozen, picklable
context. The families' own rules are in their docstrings and ``tests/test_layers.py``.
"""
