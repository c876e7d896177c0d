#pragma once
// Accuracy beside speed: the integer network (the integer reference, which
// every backend matches bit for bit) against the float network
// (float_reference.h) on inputs drawn like the calibration input
// (zoo_input() with successive seeds): top-1 agreement of the class each
// picks and the signal-to-quantization-noise ratio of the output and of
// every layer's output. Tests: tests/test_accuracy.cpp.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vta/compiler/ir/graph.h"

namespace vta::compiler {

/// 10 log10(sum ref^2 / sum (ref - test)^2) in dB; +infinity when the two
/// are equal, -infinity when ref is all zero and test is not.
double sqnr_db(const std::vector<double>& ref, const std::vector<double>& test);

struct LayerAccuracy {
  std::string name, op;
  double sqnr_db = 0;  // over every input's values of the layer's output together
};

struct Accuracy {
  int inputs = 0;
  uint32_t first_seed = 0;
  int64_t rows = 0, agree = 0;  // classified positions (n, h, w of the output) and those whose top-1 agrees
  double output_sqnr_db = 0;    // over every input together
  double worst_input_sqnr_db = 0;
  std::vector<LayerAccuracy> layers;  // graph order: Conv2d, Dense, Add, pools
  double top1_agree() const { return rows == 0 ? 0.0 : static_cast<double>(agree) / static_cast<double>(rows); }
};

/// Runs `g` on `inputs` inputs (zoo_input(g, first_seed + k)) in integer and
/// in float arithmetic. Throws vta::Error naming the node when the graph
/// has no float form (float_form_problem()) or `inputs` is not 1..10000.
Accuracy measure_accuracy(const Graph& g, int inputs, uint32_t first_seed);

/// The report's lines: the totals, then the `worst` layers by SQNR.
std::string accuracy_text(const Accuracy& a, size_t worst = 5);
nlohmann::ordered_json accuracy_json(const Accuracy& a);

}  // namespace vta::compiler
