#pragma once
// The passes of the pipeline, declared from its list (pipeline.def): for
// each VTA_PASS(NAME, stage) the pair of passes/pass.h, NAME_pass() and
// NAME_dump(), defined in passes/NAME.cpp. compile.cpp runs them in order.
#include <string>

#include "vta/compiler/passes/pass.h"

namespace vta::compiler {

#define VTA_PASS(name, stage)                                                                 \
  CompiledNetwork name##_pass(CompiledNetwork net, const Config& c, const CompileOptions& o); \
  std::string name##_dump(const CompiledNetwork& net);
#include "vta/compiler/passes/pipeline.def"
#undef VTA_PASS

}  // namespace vta::compiler
