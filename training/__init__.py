"""Builds training data and the LoRA adapter of the extraction model; never imported by the
serving code (pipeline, appliance, api, models)."""
