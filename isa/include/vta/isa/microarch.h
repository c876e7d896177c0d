#pragma once
// Microarchitecture constants that more than one layer needs (the cycle
// models in sim/, the FPGA estimate in estimate/), each defined once here.
#include <cstdint>

namespace vta {

/// With alu.concurrent: the ACC and OUT buffers are this many banks of equal
/// depth, bank k holding indices [k * depth / banks, (k + 1) * depth / banks)
/// (docs/timing.md, "Concurrent ALU"). A bank has the ports of the serial
/// machine's buffer, so the GEMM and ALU pipes run at once only in distinct
/// banks.
constexpr uint32_t kConcurrentAccBanks = 2;

}  // namespace vta
