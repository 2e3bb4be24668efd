"""Where extraction runs: the pool of workers (``pool``: Ray actors or in-process threads), what
a worker process adds around the runner (``worker``: memory limit, leased OCR gate), and the
GPU batching actors of ``pool.mode = "staged"`` (``batching``).

The only family of ``pipeline`` that imports Ray. Must not import ``api``, ``appliance`` or
``webui``.
"""
