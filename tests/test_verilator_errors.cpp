// Configs and options the verilator backend cannot honour fail at
// make_backend with one clear message; the other backends reject --wave.
#include <gtest/gtest.h>

#include "test_support.h"
#include "vta/isa/error.h"

namespace {

using vta::test::preset;

std::string error_of(const std::string& backend, const vta::Config& c, const vta::BackendOptions& o = {}) {
  try {
    vta::make_backend(backend, c, o);
  } catch (const vta::Error& e) {
    return e.what();
  }
  return "<no error>";
}

#define EXPECT_HAS(msg, part) EXPECT_NE((msg).find(part), std::string::npos) << (msg)

TEST(VerilatorErrors, NoBuiltModelNamesConfigParameterAndPresets) {
  const auto msg = error_of("verilator", preset("vta-1x16x16", {{"gemm.pipeline_depth", "5"}}));
  EXPECT_HAS(msg, "no built RTL model fits config 'vta-1x16x16'");
  EXPECT_HAS(msg, "the closest, vta-1x16x16,");
  EXPECT_HAS(msg, "differs in 1 parameter, first: its GEMM_PIPELINE_DEPTH is 4 where the config needs 5.");
  EXPECT_HAS(msg, "Built models: vta-1x16x16, ");
  EXPECT_HAS(msg, "vta-4x16x16");
  EXPECT_HAS(msg, "VTA_RTL_PRESETS");
}

TEST(VerilatorErrors, MaximaMayOnlyBeLowered) {
  const auto msg = error_of("verilator", preset("vta-1x16x16", {{"queues.command_depth", "16"}}));
  EXPECT_HAS(msg, "CMD_QUEUE_DEPTH is 8 where the config needs 16 or less");
  EXPECT_HAS(error_of("verilator", preset("vta-1x16x16", {{"buffers.inp", "16KiB"}})), "INP_BUFF_DEPTH is 2048");
}

TEST(VerilatorErrors, ConfigsOutsideTheRtl) {
  EXPECT_HAS(error_of("verilator", preset("vta-1x16x16", {{"gemm.pipeline_depth", "2"}})),
             "needs gemm.pipeline_depth >= 3, config 'vta-1x16x16' has 2");
  EXPECT_HAS(error_of("verilator", preset("vta-1x16x16", {{"alu.latency", "2"}})), "needs alu.latency >= 3");
  EXPECT_HAS(error_of("verilator", preset("vta-1x16x16", {{"memory.pad_elems_per_cycle", "2"}})),
             "memory.pad_elems_per_cycle 1), config 'vta-1x16x16' has 2");
}

TEST(VerilatorErrors, BusWiderThanTheRtlHandles) {
  EXPECT_HAS(error_of("verilator", preset("vta-1x16x16-pcie")),
             "no wider than an INP, WGT, ACC or OUT element (16 bytes here); config 'vta-1x16x16-pcie' has "
             "memory.bus_bits 256");
}

TEST(VerilatorErrors, TimingOnlyIsRejected) {
  vta::BackendOptions o;
  o.timing_only = true;
  EXPECT_HAS(error_of("verilator", preset("vta-1x16x16"), o), "no timing-only mode");
}

TEST(VerilatorErrors, OtherBackendsRejectWave) {
  vta::BackendOptions o;
  o.wave_path = "x.vcd";
  for (const char* b : {"golden", "systemc"})
    EXPECT_HAS(error_of(b, preset("vta-1x16x16"), o), "--wave needs the verilator backend");
}

}  // namespace
