"""The test suite: it mirrors the packages. Fakes of the model back-ends (``fakes``, ``fake_ocr``)
are loaded through the same config names an operator uses; real documents come from
``../shared/datasets`` when present. Imports everything; nothing imports it.
"""
