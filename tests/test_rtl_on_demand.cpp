// RTL models on demand (sim/rtl/README.md, "Models on demand"): a design
// outside the presets built into the binary (rtl-tiny with a 4-stage GEMM
// pipeline, a 6-stage ALU and an ACC buffer deeper than INP, so that the
// GEMM and ALU formats place their fields apart) runs on the verilator backend from the model in
// the cache, with the golden model's values and the SystemC model's cycles. The fixture
// rtl_on_demand_build (rtl_on_demand_build.sh) built that model into
// $VTA_RTL_CACHE with two processes at once.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "env_guard.h"
#include "random_program.h"
#include "run_cli.h"
#include "test_support.h"
#include "vta/bringup/battery.h"
#include "vta/isa/error.h"
#include "vta/rtl/model_cache.h"

namespace {

using namespace vta::test;

vta::Config tiny(const std::string& depth = "4") {
  return vta::load_config(VTA_SOURCE_DIR "/tests/configs/rtl-tiny.yaml",
                          {{"gemm.pipeline_depth", depth}, {"alu.latency", "6"}, {"buffers.acc", "2KiB"}});
}

TEST(RtlOnDemand, ADesignOutsideThePresetsRunsFromTheCache) {
  const vta::Config cfg = tiny();
  const std::string key = vta::rtl::model_key(cfg);
  bool cached = false;
  for (const auto& m : vta::rtl::cached_models()) cached = cached || m.key == key;
  ASSERT_TRUE(cached) << "the fixture rtl_on_demand_build did not build model " << key << " into "
                      << vta::rtl::cache_dir();
  // Loaded from the cache: nothing is built (the fixture's build is the only one).
  const auto built = vta::rtl::build_model(cfg);
  EXPECT_FALSE(built.built);
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    auto build = [&cfg, seed](ProgramBuilder& p) { random_program(p, cfg, seed); };
    const Outcome rtl = run_on("verilator", cfg, build);
    EXPECT_EQ(rtl.dram, run_on("golden", cfg, build).dram);
    EXPECT_EQ(rtl.stats.total.get("cycles.total"), run_on("systemc", cfg, build).stats.total.get("cycles.total"));
    EXPECT_GT(rtl.stats.total.get("cycles.total"), 0);
  }
  // The ALU two stages deeper than the GEMM: the ALU's write stage must not
  // take a GEMM's last steps for its own (the shared stage registers). The
  // bring-up compares every buffer after each program, not only DRAM.
  vta::bringup::Options o;
  o.backend = "verilator";
  o.config = cfg;
  o.conformance = false;
  o.random = 20;
  o.networks = {"lenet5"};
  o.wave_dir = "";
  const auto r = vta::bringup::run(o);
  EXPECT_TRUE(r.passed()) << vta::bringup::summary(r);
}

#ifdef VTA_WITH_SYSTEMC
// The co-simulation of the same design: its SystemC model is built on
// demand (another key than the verilator model's) before the process's
// SystemC top level elaborates, and passes the bring-up battery (values
// against golden after every program). In a process of its own (`vta
// bringup`): a test process may have elaborated SystemC already.
TEST(RtlOnDemand, TheCoSimulationOfADesignOutsideThePresetsIsBuiltAndPasses) {
  EXPECT_NE(vta::rtl::model_key(tiny(), vta::rtl::ModelKind::systemc_rtl), vta::rtl::model_key(tiny()));
  const std::string design =
      "-c " VTA_SOURCE_DIR
      "/tests/configs/rtl-tiny.yaml --set gemm.pipeline_depth=4 --set alu.latency=6 --set buffers.acc=2KiB";
  const CliResult r =
      run_vta("bringup -b systemc-rtl " + design + " --random 6 --no-conformance --networks lenet5 --wave-dir ''");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("bring-up of backend systemc-rtl"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("random       6 passed, 0 failed"), std::string::npos) << r.out;
  // In the cache, listed with its kind.
  const CliResult l = run_vta("rtl list");
  EXPECT_NE(l.out.find("systemc-rtl"), std::string::npos) << l.out;
  // A second design in the same process, once the top level has
  // elaborated with another core, is one clear error, not a wrong core.
  try {
    vta::make_backend("systemc-rtl", preset("vta-1x16x16"));  // elaborates with the built-in core
    vta::make_backend("systemc-rtl", tiny());
    FAIL() << "no error";
  } catch (const vta::Error& e) {
    EXPECT_NE(std::string(e.what()).find("SystemC elaborates once per process"), std::string::npos) << e.what();
  }
}
#endif

// A header of the source tree newer than the program: a model compiled now
// would not match the program's code (a `git pull` without a rebuild), so
// no model is built or loaded, and the message says to rebuild.
TEST(RtlOnDemand, AHeaderNewerThanTheProgramIsRefused) {
  struct Header {
    const std::filesystem::path path = VTA_SOURCE_DIR "/sim/rtl/src/zz_rtl_on_demand_stale_test.h";
    Header() {
      std::ofstream(path) << "// written by RtlOnDemand.AHeaderNewerThanTheProgramIsRefused; removed at its end\n";
      std::filesystem::last_write_time(path, std::filesystem::file_time_type::clock::now() + std::chrono::hours(1));
    }
    ~Header() { std::filesystem::remove(path); }
    Header(const Header&) = delete;
    Header& operator=(const Header&) = delete;
  };
  std::string what;
  {
    const Header h;
    try {
      vta::rtl::build_model(tiny("5"));
    } catch (const vta::Error& e) {
      what = e.what();
    }
  }
  EXPECT_NE(what.find("zz_rtl_on_demand_stale_test.h changed after this program ("), std::string::npos) << what;
  EXPECT_NE(what.find("rebuild the program"), std::string::npos) << what;
}

TEST(RtlOnDemand, AnUnusableCacheIsOneClearError) {
  const EnvGuard env("VTA_RTL_CACHE", "/proc/vta-no-such-cache");
  try {
    vta::make_backend("verilator", tiny("5"));
    FAIL() << "no error";
  } catch (const vta::Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot create the RTL model cache /proc/vta-no-such-cache"),
              std::string::npos)
        << e.what();
  }
}

TEST(RtlOnDemand, TheKeyFollowsTheHardwareNotTheRunTimeKnobs) {
  // Memory latencies live in the C++ memory model and the ALU intervals in
  // run-time ports: one model (the package's comment, with the config hash, differs).
  EXPECT_EQ(
      vta::rtl::model_key(tiny()),
      vta::rtl::model_key(vta::load_config(VTA_SOURCE_DIR "/tests/configs/rtl-tiny.yaml", {{"gemm.pipeline_depth", "4"},
                                                                                           {"alu.latency", "6"},
                                                                                           {"buffers.acc", "2KiB"},
                                                                                           {"memory.read_latency", "9"},
                                                                                           {"alu.ii_imm", "3"}})));
  EXPECT_NE(vta::rtl::model_key(tiny("4")), vta::rtl::model_key(tiny("5")));
  EXPECT_NE(vta::rtl::model_key(tiny()),
            vta::rtl::model_key(
                vta::load_config(VTA_SOURCE_DIR "/tests/configs/rtl-tiny.yaml", {{"gemm.pipeline_depth", "4"},
                                                                                 {"alu.latency", "6"},
                                                                                 {"buffers.acc", "2KiB"},
                                                                                 {"queues.command_depth", "2"}})));
}

}  // namespace
