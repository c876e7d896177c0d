#!/usr/bin/env python3
# Generates the QDQ test models of tests/test_onnx_qdq.cpp: small float models
# written with the onnx helper API (seeded random weights), quantized by ONNX
# Runtime's own static quantizer (quantize_static, QDQ format), per tensor
# and per channel, uint8 and int8 activations. The .onnx files are committed,
# so CI needs no quantizer. Regenerate (pinned: onnx 1.23.2,
# onnxruntime 1.32.0, numpy 2.4.6):
#   python tests/data/onnx-qdq/make_models.py tests/data/onnx-qdq
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

OPSET = 17


def conv(name, x, cin, cout, k, rng, stride=1, pad=None, group=1, inits=None):
    pad = k // 2 if pad is None else pad
    w = (rng.standard_normal((cout, cin // group, k, k)) * (1.0 / np.sqrt(cin // group * k * k))).astype(np.float32)
    b = (rng.standard_normal(cout) * 0.1).astype(np.float32)
    inits += [numpy_helper.from_array(w, name + "_w"), numpy_helper.from_array(b, name + "_b")]
    return helper.make_node("Conv", [x, name + "_w", name + "_b"], [name], name=name, kernel_shape=[k, k],
                            strides=[stride, stride], pads=[pad] * 4, group=group)


def gemm(name, x, k, n, rng, inits):
    w = (rng.standard_normal((n, k)) * (1.0 / np.sqrt(k))).astype(np.float32)
    b = (rng.standard_normal(n) * 0.1).astype(np.float32)
    inits += [numpy_helper.from_array(w, name + "_w"), numpy_helper.from_array(b, name + "_b")]
    return helper.make_node("Gemm", [x, name + "_w", name + "_b"], [name], name=name, transB=1)


def cnn(rng, shape_op):
    """conv3x3 -> relu -> maxpool -> conv3x3 -> relu -> [Flatten | Reshape] -> gemm: 1x3x32x32 -> 1x10."""
    inits, nodes = [], []
    nodes.append(conv("conv1", "input", 3, 8, 3, rng, inits=inits))
    nodes.append(helper.make_node("Relu", ["conv1"], ["relu1"], name="relu1"))
    nodes.append(helper.make_node("MaxPool", ["relu1"], ["pool1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]))
    nodes.append(conv("conv2", "pool1", 8, 16, 3, rng, stride=2, inits=inits))
    nodes.append(helper.make_node("Relu", ["conv2"], ["relu2"], name="relu2"))
    if shape_op == "Flatten":
        nodes.append(helper.make_node("Flatten", ["relu2"], ["flat"], name="flatten", axis=1))
    else:
        inits.append(numpy_helper.from_array(np.array([1, -1], dtype=np.int64), "flat_shape"))
        nodes.append(helper.make_node("Reshape", ["relu2", "flat_shape"], ["flat"], name="reshape"))
    nodes.append(gemm("fc", "flat", 16 * 8 * 8, 10, rng, inits))
    x = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 32, 32])
    y = helper.make_tensor_value_info("fc", TensorProto.FLOAT, [1, 10])
    return helper.make_graph(nodes, "qdq_cnn_" + shape_op.lower(), [x], [y], inits), (1, 3, 32, 32)


def pools(rng):
    """conv -> relu -> maxpool 3x3/2 pad 1 -> conv -> GlobalAveragePool -> flatten -> gemm."""
    inits, nodes = [], []
    nodes.append(conv("conv1", "input", 3, 16, 3, rng, inits=inits))
    nodes.append(helper.make_node("Relu", ["conv1"], ["relu1"], name="relu1"))
    nodes.append(helper.make_node("MaxPool", ["relu1"], ["pool1"], name="pool1", kernel_shape=[3, 3], strides=[2, 2],
                                  pads=[1, 1, 1, 1]))
    nodes.append(conv("conv2", "pool1", 16, 16, 1, rng, inits=inits))
    nodes.append(helper.make_node("GlobalAveragePool", ["conv2"], ["gap"], name="gap"))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"], name="flatten", axis=1))
    nodes.append(gemm("fc", "flat", 16, 10, rng, inits))
    x = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 32, 32])
    y = helper.make_tensor_value_info("fc", TensorProto.FLOAT, [1, 10])
    return helper.make_graph(nodes, "qdq_pools", [x], [y], inits), (1, 3, 32, 32)


def residual(rng):
    """conv -> Clip(0, 6) -> conv -> Add(skip) -> Relu -> AveragePool 2x2 -> flatten -> gemm."""
    inits, nodes = [], []
    inits += [numpy_helper.from_array(np.array(0, dtype=np.float32), "clip_lo"),
              numpy_helper.from_array(np.array(6, dtype=np.float32), "clip_hi")]
    nodes.append(conv("conv1", "input", 3, 16, 3, rng, stride=2, inits=inits))
    nodes.append(helper.make_node("Clip", ["conv1", "clip_lo", "clip_hi"], ["relu6"], name="relu6"))
    nodes.append(conv("conv2", "relu6", 16, 16, 3, rng, inits=inits))
    nodes.append(helper.make_node("Add", ["conv2", "relu6"], ["sum"], name="add"))
    nodes.append(helper.make_node("Relu", ["sum"], ["relu2"], name="relu2"))
    nodes.append(helper.make_node("AveragePool", ["relu2"], ["pool"], name="pool", kernel_shape=[2, 2],
                                  strides=[2, 2]))
    nodes.append(helper.make_node("Flatten", ["pool"], ["flat"], name="flatten", axis=1))
    nodes.append(gemm("fc", "flat", 16 * 8 * 8, 10, rng, inits))
    x = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 32, 32])
    y = helper.make_tensor_value_info("fc", TensorProto.FLOAT, [1, 10])
    return helper.make_graph(nodes, "qdq_residual", [x], [y], inits), (1, 3, 32, 32)


def branches(rng):
    """conv -> Relu -> (conv 1x1 | conv 3x3 -> Clip(0, 6)) -> Concat -> Pad 1 -> AveragePool 2x2 -> conv 1x1 ->
    GlobalAveragePool -> flatten -> gemm: 1x3x16x16 -> 1x10 (Concat and Pad in the quantizer's QDQ form)."""
    inits, nodes = [], []
    inits += [numpy_helper.from_array(np.array(0, dtype=np.float32), "clip_lo"),
              numpy_helper.from_array(np.array(6, dtype=np.float32), "clip_hi"),
              numpy_helper.from_array(np.array([0, 0, 1, 1, 0, 0, 1, 1], dtype=np.int64), "pads")]
    nodes.append(conv("conv1", "input", 3, 8, 3, rng, inits=inits))
    nodes.append(helper.make_node("Relu", ["conv1"], ["relu1"], name="relu1"))
    nodes.append(conv("left", "relu1", 8, 8, 1, rng, inits=inits))
    nodes.append(conv("right", "relu1", 8, 8, 3, rng, inits=inits))
    nodes.append(helper.make_node("Clip", ["right", "clip_lo", "clip_hi"], ["right6"], name="right6"))
    nodes.append(helper.make_node("Concat", ["left", "right6"], ["cat"], name="cat", axis=1))
    nodes.append(helper.make_node("Pad", ["cat", "pads"], ["pad"], name="pad", mode="constant"))
    nodes.append(helper.make_node("AveragePool", ["pad"], ["pool"], name="pool", kernel_shape=[2, 2], strides=[2, 2]))
    nodes.append(conv("conv2", "pool", 16, 16, 1, rng, inits=inits))
    nodes.append(helper.make_node("GlobalAveragePool", ["conv2"], ["gap"], name="gap"))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"], name="flatten", axis=1))
    nodes.append(gemm("fc", "flat", 16, 10, rng, inits))
    x = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 16, 16])
    y = helper.make_tensor_value_info("fc", TensorProto.FLOAT, [1, 10])
    return helper.make_graph(nodes, "qdq_branches", [x], [y], inits), (1, 3, 16, 16)


def tail(rng, op):
    """conv -> [Resize 2x (nearest)] -> conv -> flatten -> gemm [-> Softmax]: 1x3x8x8 -> 1x10; neither Resize nor
    Softmax is imported (tests/test_onnx_qdq_errors.cpp)."""
    inits, nodes = [], []
    nodes.append(conv("conv1", "input", 3, 8, 3, rng, inits=inits))
    x, side = "conv1", 8
    if op == "Resize":
        inits.append(numpy_helper.from_array(np.array([1, 1, 2, 2], dtype=np.float32), "scales"))
        nodes.append(helper.make_node("Resize", ["conv1", "", "scales"], ["up"], name="up", mode="nearest"))
        x, side = "up", 16
    nodes.append(conv("conv2", x, 8, 8, 3, rng, stride=2, inits=inits))
    nodes.append(helper.make_node("Flatten", ["conv2"], ["flat"], name="flatten", axis=1))
    nodes.append(gemm("fc", "flat", 8 * (side // 2) ** 2, 10, rng, inits))
    y = "fc"
    if op == "Softmax":
        nodes.append(helper.make_node("Softmax", ["fc"], ["prob"], name="softmax", axis=1))
        y = "prob"
    xi = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 8, 8])
    yo = helper.make_tensor_value_info(y, TensorProto.FLOAT, [1, 10])
    return helper.make_graph(nodes, "qdq_" + op.lower(), [xi], [yo], inits), (1, 3, 8, 8)


def resnet18(rng, width=8, image=64, classes=10):
    """ResNet-18's structure (torchvision's layout, BatchNorm folded away) at reduced width and input."""
    inits, nodes = [], []

    def relu(x, name):
        nodes.append(helper.make_node("Relu", [x], [name], name=name))
        return name

    nodes.append(conv("stem", "input", 3, width, 7, rng, stride=2, inits=inits))
    x = relu("stem", "stem_relu")
    nodes.append(helper.make_node("MaxPool", [x], ["stem_pool"], name="stem_pool", kernel_shape=[3, 3],
                                  strides=[2, 2], pads=[1, 1, 1, 1]))
    x, cin = "stem_pool", width
    for stage, cout in enumerate([width, 2 * width, 4 * width, 8 * width]):
        for block in range(2):
            p = f"l{stage + 1}b{block}"
            stride = 2 if stage > 0 and block == 0 else 1
            nodes.append(conv(p + "_c1", x, cin, cout, 3, rng, stride=stride, inits=inits))
            y = relu(p + "_c1", p + "_r1")
            nodes.append(conv(p + "_c2", y, cout, cout, 3, rng, inits=inits))
            skip = x
            if stride != 1 or cin != cout:
                nodes.append(conv(p + "_down", x, cin, cout, 1, rng, stride=stride, pad=0, inits=inits))
                skip = p + "_down"
            nodes.append(helper.make_node("Add", [p + "_c2", skip], [p + "_add"], name=p + "_add"))
            x, cin = relu(p + "_add", p + "_out"), cout
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["gap"], name="gap"))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"], name="flatten", axis=1))
    nodes.append(gemm("fc", "flat", cin, classes, rng, inits))
    xi = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, image, image])
    yo = helper.make_tensor_value_info("fc", TensorProto.FLOAT, [1, classes])
    return helper.make_graph(nodes, "qdq_resnet18", [xi], [yo], inits), (1, 3, image, image)


def mobilenet_v2(rng, image=64, classes=10):
    """MobileNet-v2's structure (inverted residuals: 1x1 expand, depthwise 3x3, 1x1 project; ReLU6 as Clip(0, 6);
    BatchNorm folded away) at reduced width and depth."""
    inits = [numpy_helper.from_array(np.array(0, dtype=np.float32), "clip_lo"),
             numpy_helper.from_array(np.array(6, dtype=np.float32), "clip_hi")]
    nodes = []

    def relu6(x):
        nodes.append(helper.make_node("Clip", [x, "clip_lo", "clip_hi"], [x + "_r6"], name=x + "_r6"))
        return x + "_r6"

    nodes.append(conv("stem", "input", 3, 8, 3, rng, stride=2, inits=inits))
    x, cin = relu6("stem"), 8
    for i, (t, c, n, s) in enumerate([(1, 8, 1, 1), (6, 12, 2, 2), (6, 16, 2, 2), (6, 32, 2, 2), (6, 48, 1, 1)]):
        for j in range(n):
            p, stride, hidden = f"b{i}_{j}", s if j == 0 else 1, cin * t
            y = x
            if t != 1:
                nodes.append(conv(p + "_exp", y, cin, hidden, 1, rng, inits=inits))
                y = relu6(p + "_exp")
            nodes.append(conv(p + "_dw", y, hidden, hidden, 3, rng, stride=stride, group=hidden, inits=inits))
            y = relu6(p + "_dw")
            nodes.append(conv(p + "_proj", y, hidden, c, 1, rng, inits=inits))
            y = p + "_proj"
            if stride == 1 and cin == c:
                nodes.append(helper.make_node("Add", [y, x], [p + "_add"], name=p + "_add"))
                y = p + "_add"
            x, cin = y, c
    nodes.append(conv("head", x, cin, 128, 1, rng, inits=inits))
    x = relu6("head")
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["gap"], name="gap"))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"], name="flatten", axis=1))
    nodes.append(gemm("fc", "flat", 128, classes, rng, inits))
    xi = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, image, image])
    yo = helper.make_tensor_value_info("fc", TensorProto.FLOAT, [1, classes])
    return helper.make_graph(nodes, "qdq_mobilenet_v2", [xi], [yo], inits), (1, 3, image, image)


class Reader(CalibrationDataReader):
    def __init__(self, shape, seed):
        rng = np.random.default_rng(seed)
        self.data = iter([{"input": rng.uniform(-1, 1, shape).astype(np.float32)} for _ in range(4)])

    def get_next(self):
        return next(self.data, None)


def qlinearconv(out, name, ys):
    """An int8 QLinearConv without zero points, multiplier 0.02 * 0.003 / ys (not a power of two), padded."""
    rng = np.random.default_rng(3)
    w = rng.integers(-100, 100, (16, 16, 3, 3)).astype(np.int8)
    b = rng.integers(-1000, 1000, 16).astype(np.int32)
    scalars = {"xs": np.float32(0.02), "xz": np.int8(0), "ws": np.float32(0.003), "wz": np.int8(0),
               "ys": np.float32(ys), "yz": np.int8(0)}
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")]
    inits += [numpy_helper.from_array(np.array(v), k) for k, v in scalars.items()]
    node = helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"], name="qconv",
                            kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    graph = helper.make_graph([node], name, [helper.make_tensor_value_info("x", TensorProto.INT8,
                                                                                        [1, 16, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.INT8, [1, 16, 8, 8])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))


def main(out):
    os.makedirs(out, exist_ok=True)
    # (tag, activations, weights, per channel, extra options); int8 weights are symmetric (zero point 0) unless
    # WeightSymmetric is off; uint8 weights are asymmetric per tensor (zero point 124 or so: w - z leaves int8)
    # and symmetric per channel (zero point 128)
    s8w, u8w = QuantType.QInt8, QuantType.QUInt8
    u8, u8_pc = ("u8", QuantType.QUInt8, s8w, False, {}), ("u8_pc", QuantType.QUInt8, s8w, True, {})
    s8_pc = ("s8_pc", QuantType.QInt8, s8w, True, {})
    u8_wu8, u8_wu8_pc = ("u8_wu8", QuantType.QUInt8, u8w, False, {}), ("u8_wu8_pc", QuantType.QUInt8, u8w, True, {})
    s8_wasym = ("s8_wasym", QuantType.QInt8, s8w, False, {"WeightSymmetric": False})
    flatten = lambda r: cnn(r, "Flatten")  # noqa: E731
    # (name, builder, opset, variants): every structure at OPSET, and the first at the ends of the opsets 13..19
    models = [("cnn_flatten", flatten, OPSET, [u8, u8_pc, s8_pc]),
              ("cnn_reshape", lambda r: cnn(r, "Reshape"), OPSET, [u8, u8_pc, s8_pc]),
              ("pools", pools, OPSET, [u8, u8_pc, s8_pc]), ("residual", residual, OPSET, [u8, u8_pc, s8_pc]),
              ("cnn_flatten_op13", flatten, 13, [u8_pc]), ("cnn_flatten_op19", flatten, 19, [s8_pc]),
              ("resnet18", resnet18, OPSET, [u8, s8_pc]), ("mobilenet_v2", mobilenet_v2, OPSET, [u8, u8_pc]),
              # asymmetric weights (weight zero points), issue 35
              ("cnn_flatten", flatten, OPSET, [u8_wu8, u8_wu8_pc, s8_wasym]), ("residual", residual, OPSET, [u8_wu8]),
              ("cnn_flatten_op13", flatten, 13, [u8_wu8]), ("cnn_flatten_op19", flatten, 19, [s8_wasym]),
              # Concat, Pad (issue 35) at opsets 13, 17 and 19; Resize and Softmax (refused)
              ("branches", branches, OPSET, [u8, u8_pc, s8_pc, u8_wu8]), ("branches_op13", branches, 13, [u8]),
              ("branches_op19", branches, 19, [u8_pc]), ("resize", lambda r: tail(r, "Resize"), OPSET, [u8]),
              ("softmax", lambda r: tail(r, "Softmax"), OPSET, [u8])]
    for name, build, opset, variants in models:
        graph, shape = build(np.random.default_rng(1))
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 9 if opset >= 19 else 8
        onnx.checker.check_model(model)
        fp = os.path.join(out, name + "_float.onnx.tmp")
        onnx.save(model, fp)
        for tag, act, weight, per_channel, extra in variants:
            path = os.path.join(out, f"{name}_{tag}.onnx")
            quantize_static(fp, path, Reader(shape, 2), quant_format=QuantFormat.QDQ, activation_type=act,
                            weight_type=weight, per_channel=per_channel, extra_options=extra)
            print(path, os.path.getsize(path))
        os.remove(fp)
    qlinearconv(out, "qlinearconv_s8", 0.05)  # M = 1.2e-3: an exact VTA form
    qlinearconv(out, "qlinearconv_s8_small_m", 0.37)  # M = 1.6e-4 over 2^20 accumulators: none, the host


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
