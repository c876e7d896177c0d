#pragma once
// `vta run --model NAME`: compile a zoo network, run it on a backend, check
// it against the integer reference and print the per-layer report.
#include <optional>
#include <string>
#include <vector>

#include "vta/isa/config.h"
#include "vta/model/backend.h"

namespace vta::app {

struct NetworkRunOptions {
  std::string model;                // a zoo name
  std::string onnx;                 // or an ONNX file
  std::vector<std::string> inputs;  // --onnx: NAME=FILE (.npy/.pb): the activation, or operands folded into the model
  std::string expect;               // --onnx: the expected output (.npy/.pb)
  std::string output_dir;           // --onnx: write the output there as <name>.npy
  std::string onnx_test;            // an ONNX test folder: model.onnx + test_data_set_N/
  std::string backend = "golden";
  BackendOptions backend_options;
  uint32_t seed = 1;
  int64_t batch = 1;
  int64_t image = 0;
  bool no_cache = false;  // --model: build and calibrate afresh, bypassing the zoo cache (zoo_cache.h)
  std::string report_csv, report_json, report_html, dump_after;
  bool why_host = false;              // list every host node with the reason it is not on VTA
  std::vector<std::string> host_ops;  // op kinds forced to the host (compiler::pin_host_ops())
  std::optional<int64_t>
      tune;                // --tune N: tile candidates measured per layer (sweeps/tune.h); none: the cost model's pick
  std::string tune_cache;  // the tuning cache file (empty: sweeps::tune_cache_path()'s rule)
  std::optional<int64_t>
      accuracy;  // --accuracy N: inputs on which the integer network is compared with the float network
  std::string tool;
};

/// Returns the exit code: 0 bit-exact (with the integer reference and, when
/// given, the expected outputs), 1 mismatch. Throws vta::Error on bad input.
int run_network_command(const NetworkRunOptions& o, const Config& c);

}  // namespace vta::app
