#!/usr/bin/env python3
# torchvision's ResNet-18/50, MobileNet-v2/v3 (small) and EfficientNet-B0 with
# seeded random weights at 1x3x64x64, exported to ONNX (opset 17, BatchNorm
# folded by the exporter in eval mode), pre-processed as ONNX Runtime
# recommends (quant_pre_process: shape inference, and its basic graph
# optimizations fold the exporter's Identity and Constant nodes) and quantized by ONNX Runtime's static
# quantizer (QDQ, uint8 activations, int8 weights per tensor and per channel;
# the same calibration as make_models.py). Five outputs are committed beside
# this file (the MobileNet-v3 and EfficientNet-B0 ones and tv_resnet18_u8;
# README.md says why), the others are made on demand (issue 35). Needs
# torch and torchvision (not installed by CI), e.g. in a venv of its own:
#   python -m venv /tmp/torchvenv && /tmp/torchvenv/bin/pip install torch torchvision onnx onnxruntime
#   /tmp/torchvenv/bin/python tests/data/onnx-qdq/make_torchvision.py /tmp/tv
# (pinned: torch 2.15.0, torchvision 0.29.2, onnx 1.23.2, onnxruntime 1.32.0, numpy 2.4.6)
import os
import sys

import numpy as np
import onnx
import torch
import torchvision
from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
from onnxruntime.quantization.shape_inference import quant_pre_process

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_models import Reader  # noqa: E402

NETS = ["resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0"]
SHAPE = (1, 3, 64, 64)


def export(name, path):
    torch.manual_seed(1)
    net = getattr(torchvision.models, name)(weights=None, num_classes=10).eval()
    torch.onnx.export(net, torch.zeros(SHAPE), path, input_names=["input"], output_names=["logits"], opset_version=17,
                      dynamo=False, do_constant_folding=True)
    model = onnx.load(path)
    onnx.checker.check_model(model)


def main(out, nets):
    os.makedirs(out, exist_ok=True)
    for name in nets:
        fp = os.path.join(out, name + "_float.onnx")
        export(name, fp + ".raw")
        quant_pre_process(fp + ".raw", fp)
        # onnxruntime 1.32's optimizer stamps ai.onnx.ml opset 5, which ONNX Runtime 1.17 refuses to load; no node
        # uses the domain
        model = onnx.load(fp)
        keep = [o for o in model.opset_import if o.domain in ("", "ai.onnx")]
        del model.opset_import[:]
        model.opset_import.extend(keep)
        onnx.save(model, fp)
        for tag, per_channel in (("u8", False), ("u8_pc", True)):
            path = os.path.join(out, f"tv_{name}_{tag}.onnx")
            quantize_static(fp, path, Reader(SHAPE, 2), quant_format=QuantFormat.QDQ, activation_type=QuantType.QUInt8,
                            weight_type=QuantType.QInt8, per_channel=per_channel)
            print(path, os.path.getsize(path))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:] or NETS)
