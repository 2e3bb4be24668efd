"""The composition root: the running appliance assembled from its layers (DESIGN.md "One
picture"): settings, database, the pipeline pool and the dispatcher (``appliance``), the API
(``api``), the review pages (``webui``, mounted by the API's app) and the metrics endpoint, and
their start and orderly stop (``run``). ``appliance serve`` starts it.

It sits above every layer and may import any of them; none of them imports it but the CLI's
``serve`` command (``appliance/cli/service.py``), which starts it. Must not import ``bench``,
``training`` or ``tests``.
"""
