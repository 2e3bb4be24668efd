"""Builds what the appliance learns: training data read the way the appliance reads it
(``dataset``, ``examples``, synthetic invoices in ``synth*``), the LoRA adapter of the
extraction model (``train``, converted by ``adapter_gguf``), the learned scorer of the key
fields (``train_scorer``) and the fitted tables of the pipeline's decision
(``calibrate_confidence``, ``calibrate_arbiter``), which run the pipeline's own steps through
``extraction``.

Never imported by the serving code (pipeline, appliance, api, models, webui). Must not import
``api``, ``webui``, ``bench`` or ``tests``; it reads the appliance's shipped settings
(``appliance.settings``) and nothing else of ``appliance``.
"""
