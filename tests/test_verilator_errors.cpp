// Configs and options the verilator backend cannot honour fail at
// make_backend with one clear message; the other backends reject --wave. The
// systemc-rtl co-simulation runs vta-1x16x16 only and names the way out.
#include <gtest/gtest.h>

#include <cstdlib>

#include "error_of.h"
#include "test_support.h"
#include "vta/isa/error.h"

namespace {

using vta::test::preset;

std::string error_of(const std::string& backend, const vta::Config& c, const vta::BackendOptions& o = {}) {
  return vta::test::error_of([&] { vta::make_backend(backend, c, o); });
}

#define EXPECT_HAS(msg, part) EXPECT_NE((msg).find(part), std::string::npos) << (msg)

// Models on demand off (sim/rtl/README.md): the error compares with the
// built models instead of building one.
class OnDemandOff : public ::testing::Environment {
 public:
  void SetUp() override { ::setenv("VTA_RTL_ON_DEMAND", "off", 1); }
};
[[maybe_unused]] const auto* const kOnDemandOff = ::testing::AddGlobalTestEnvironment(new OnDemandOff);

TEST(VerilatorErrors, NoBuiltModelNamesConfigParameterAndPresets) {
  const auto msg = error_of("verilator", preset("vta-1x16x16", {{"gemm.pipeline_depth", "5"}}));
  EXPECT_HAS(msg, "no built RTL model fits config 'vta-1x16x16'");
  EXPECT_HAS(msg, "the closest, vta-1x16x16,");
  EXPECT_HAS(msg, "differs in 1 parameter, first: its GEMM_PIPELINE_DEPTH is 4 where the config needs 5.");
  EXPECT_HAS(msg, "Built models: vta-1x16x16, ");
  EXPECT_HAS(msg, "vta-4x16x16");
  EXPECT_HAS(msg, "VTA_RTL_PRESETS");
  EXPECT_HAS(msg, "VTA_RTL_ON_DEMAND=off");
}

TEST(VerilatorErrors, MaximaMayOnlyBeLowered) {
  const auto msg = error_of("verilator", preset("vta-1x16x16", {{"queues.command_depth", "16"}}));
  EXPECT_HAS(msg, "CMD_QUEUE_DEPTH is 8 where the config needs 16 or more");
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

TEST(CoSimErrors, ConfigsOfOtherPresetsNameTheBackendItsPresetAndVerilator) {
  const auto msg = error_of("systemc-rtl", preset("vta-4x16x16"));
  EXPECT_HAS(msg,
             "systemc-rtl: the co-simulated RTL core is built for preset vta-1x16x16 only, and config "
             "'vta-4x16x16' (");
  EXPECT_HAS(msg, "differs from it in ");
  EXPECT_HAS(msg, "first: its BATCH is 1 where the config needs 4.");
  EXPECT_HAS(msg,
             "Models on demand are off (VTA_RTL_ON_DEMAND=off): unset it to build this config's co-simulated "
             "model into the cache, or use -b verilator.");
  EXPECT_HAS(error_of("systemc-rtl", preset("vta-1x16x16", {{"alu.lanes", "4"}})),
             "differs from it in 1 parameter, first: its ALU_LANES is 16 where the config needs 4.");
  // The maxima the run-time ports lower, as on verilator.
  EXPECT_HAS(error_of("systemc-rtl", preset("vta-1x16x16", {{"queues.command_depth", "16"}})),
             "CMD_QUEUE_DEPTH is 8 where the config needs 16 or more");
  EXPECT_EQ(error_of("systemc-rtl", preset("vta-1x16x16", {{"queues.command_depth", "4"}})), vta::test::kNoError);
}

TEST(CoSimErrors, RtlLimitsAndOptionsNameTheBackend) {
  EXPECT_HAS(error_of("systemc-rtl", preset("vta-1x16x16", {{"gemm.pipeline_depth", "2"}})),
             "systemc-rtl: the RTL core needs gemm.pipeline_depth >= 3");
  vta::BackendOptions o;
  o.timing_only = true;
  EXPECT_HAS(error_of("systemc-rtl", preset("vta-1x16x16"), o), "the systemc-rtl backend always moves the data");
  vta::BackendOptions w;
  w.wave_path = "x.vcd";
  EXPECT_HAS(error_of("systemc-rtl", preset("vta-1x16x16"), w), "systemc-rtl: --wave needs the verilator backend");
}

TEST(CoSimErrors, AnOlderBackendCannotRunOnceANewerOneHasTheCore) {
  auto older = vta::make_backend("systemc-rtl", preset("vta-1x16x16"));
  auto newer = vta::make_backend("systemc-rtl", preset("vta-1x16x16"));
  std::string msg = vta::test::kNoError;
  try {
    older->read_sram(vta::isa::MemId::INP, 0, 1);
  } catch (const vta::Error& e) {
    msg = e.what();
  }
  EXPECT_HAS(msg, "a newer systemc-rtl backend has taken over the co-simulated core");
  EXPECT_EQ(newer->read_sram(vta::isa::MemId::INP, 0, 1), std::vector<uint8_t>(16, 0));
}

}  // namespace
