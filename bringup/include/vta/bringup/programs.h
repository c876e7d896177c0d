#pragma once
// The bring-up battery's own programs: one per instruction kind and corner,
// and a GEMM-dominated program for benchmarks. Each is a whole ProgramImage
// (vta/model/image_builder.h) for any config, installed on a fresh backend
// with vta::install; each is valid and synchronised with dependency tokens,
// so that it means the same on hardware as on the models. The random
// programs come from the one generator, vta/model/random_program.h.
#include <cstdint>
#include <string>
#include <vector>

#include "vta/isa/config.h"
#include "vta/model/builders.h"
#include "vta/model/image.h"
#include "vta/model/image_builder.h"

namespace vta::programs {

// Instruction builders (vta/model/builders.h) and the image builder.
using build::alu;
using build::finish;
using build::gemm;
using build::ImageBuilder;
using build::load;
using build::random_bytes;
using build::store;
using build::uop;
using build::with_deps;

struct NamedProgram {
  std::string name;
  ProgramImage image;
};

/// One program per instruction kind and corner: LOAD of each memory with
/// padding on each side, strides, token-only and buffer-end loads, ACC_8BIT
/// sign extension, GEMM (reset, loops, accumulation, wrap-around), every ALU
/// op with immediate and vector operands, SHR with negative and edge amounts,
/// strided stores, all four token queues, FINISH popping, ACC loads keeping OUT.
/// Extensions disabled by the config are left out.
std::vector<NamedProgram> corner_programs(const Config& c, uint32_t seed = 1);

/// A GEMM-dominated program (for benchmarks): the WGT and INP windows loaded
/// once, then `gemms` GEMM instructions of `iters` x `uops` uop iterations
/// each over them, one ALU shift, one store. Returns its MAC count in `macs`.
ProgramImage gemm_program(const Config& c, uint32_t gemms, uint32_t iters, uint32_t uops, uint64_t& macs);

}  // namespace vta::programs
