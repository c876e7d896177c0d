#pragma once
// The Fmax estimate of a design on a family (internal; see fmax.cpp).
#include <vector>

#include "vta/estimate/estimate.h"

namespace vta::estimate {

/// One stage of the pipelined GEMM datapath (sim/rtl/src/vta_gemm_array.sv):
/// the first holds the multiply (from the INP/WGT block RAM outputs), the
/// last the accumulate and ACC write; `levels` adder-tree levels in between.
struct GemmStage {
  bool first = false, last = false;
  int levels = 0;
};

/// The stages the RTL builds for gemm.pipeline_depth and block_in, in order.
std::vector<GemmStage> gemm_stages(int64_t pipeline_depth, int64_t block_in);

/// The element widths a GEMM stage's path depends on (docs/design.md, "Data
/// types"): a product of fewer than 9 bits is built in fabric LUTs on the
/// Xilinx families (mac_cost()), and the accumulate is acc_bits wide.
struct StageWidths {
  bool fabric_mult = false;
  int64_t acc_bits = 32;
};

/// The fitted path of one stage, ns (xc7 -1 delay table).
double gemm_stage_ns(const GemmStage& s, const StageWidths& w = {});

Fmax estimate_fmax(const Config& c, Family f);

}  // namespace vta::estimate
