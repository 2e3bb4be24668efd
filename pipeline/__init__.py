"""Pure extraction: document bytes plus settings in, an ``ExtractionResult`` out.

Owns the stages (sniff, text, extract, normalise, validate) and the Ray actor pool that runs
them. Must not import ``api`` or ``appliance``; holds no database handle; may run in Ray workers
on another host, so everything it receives is a small frozen, picklable context.
"""
