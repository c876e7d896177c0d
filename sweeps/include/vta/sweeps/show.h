#pragma once
// A stored point turned back into a design (`vta sweep show DB POINT`): its
// full config as YAML that `--config` loads, a name that says what it is
// (the base design and the knobs the sweep set), its results per stage as
// comments, and the `vta run` line that reproduces its stage-2 cycles.
#include <string>

#include "vta/sweeps/store.h"

namespace vta::sweeps {

/// `point`: a point's index in the design space (as `sweep export` prints
/// it) or its key (CONFIG_HASH/NETWORK); an index with several networks
/// shows the first unless `network` names one. Throws vta::Error naming the
/// store and the point when there is no such point, or when the spec it was
/// swept with no longer loads (a moved base config).
std::string show_point(const Store& store, const std::string& point, const std::string& network = "");

/// The design name of a point: the base's name, then each knob the sweep
/// set as KEY=VALUE ("vta-1x16x16 gemm.pipeline_depth=11 clock.mhz=333"),
/// on one line (a control character in a value becomes '?').
std::string point_name(const std::string& base_name, const std::vector<std::pair<std::string, std::string>>& knobs);

/// The `vta run` line that reproduces the stage-2 cycles of point `index`
/// on the network whose key is `network` (the line `show_point` gives), or
/// "" when the spec has no such network.
std::string reproduce_line(const SweepSpec& spec, int64_t index, const std::string& network);

}  // namespace vta::sweeps
