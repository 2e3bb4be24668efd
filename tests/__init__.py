"""The test suite: it mirrors the packages (``api/``, ``appliance/``, ``models/``, ``pipeline/``
with a folder per family, ``training/``, ``webui/``, ``bench/``); ``test_layers.py`` and
``test_lazy_imports.py`` check the whole tree. Fakes of the model back-ends, Stripe and surya's
server live together in ``fakes/`` and are loaded through the same config names an operator
uses; documents the tests make and the in-process served appliance are in ``support/``; real
documents come from ``../shared/datasets`` when present. Imports everything; nothing imports it.
"""
