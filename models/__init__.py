"""Model back-ends behind two interfaces, chosen by name in the config.

Owns: ``OcrEngine`` (image in, lines with boxes out) and ``LlmBackend`` (prompt and JSON schema
in, constrained text out), a registry mapping config names to classes, and the loaders of the
shipped default weights. Must not import ``api``, ``appliance`` or ``pipeline``: it imports
nothing else of ours. Heavy libraries (onnxruntime, tesserocr, llama_cpp, torch) are imported
inside the back-end that needs them, so the API and the CLI start without them.
"""
