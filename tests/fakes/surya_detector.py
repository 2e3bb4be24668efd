"""Save a small randomly initialised surya text detector into a folder, as the operator's weights
would be laid out (config.json, model.safetensors, preprocessor_config.json). Runs in surya's
environment: ``.venv-surya/bin/python -I tests/fakes/surya_detector.py FOLDER`` (tests/models/test_surya_engine.py).

Classes as surya 0.22.1's ``surya/detection/loader.py`` loads them: ``EfficientViTConfig``,
``EfficientViTForSemanticSegmentation`` and surya's ``SegformerImageProcessor``. Smaller than
the real detector (widths, depths, a 256 px input) so that a page takes milliseconds on CPU.
"""

import sys

import torch
from surya.detection.model.config import EfficientViTConfig
from surya.detection.model.encoderdecoder import EfficientViTForSemanticSegmentation
from surya.detection.processor import SegformerImageProcessor

torch.manual_seed(0)
folder = sys.argv[1]
config = EfficientViTConfig(
    widths=(8, 16, 32, 64, 128),
    depths=(1, 1, 1, 1, 1),
    head_dim=16,
    decoder_hidden_size=64,
    decoder_layer_hidden_size=32,
)
EfficientViTForSemanticSegmentation(config).save_pretrained(folder)
SegformerImageProcessor(size={"height": 256, "width": 256}).save_pretrained(folder)
