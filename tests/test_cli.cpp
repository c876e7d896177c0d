// The `vta` program end to end: config, gen, asm/disasm, run, exit codes 0/1.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "run_cli.h"

namespace {

using vta::test::run_vta;
namespace fs = std::filesystem;
const std::string kSrc = VTA_SOURCE_DIR;

fs::path temp_dir(const std::string& name) {
  fs::path p = fs::path(VTA_BINARY_DIR) / "test-tmp" / name;
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

TEST(Cli, ConfigShowPrintsDerivedWidthsAndOverrides) {
  auto r = run_vta("config show --config vta-1x16x16 --set gemm.block_out=32");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("block_out: 32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("depths: UOP 8192 INP 2048 WGT 512 ACC 1024"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("uop_bgn[20:8]"), std::string::npos);
}

TEST(Cli, ConfigValidateEveryPreset) {
  for (const auto& e : fs::directory_iterator(kSrc + "/configs")) {
    auto r = run_vta("config validate " + e.path().string());
    EXPECT_EQ(r.code, 0) << e.path() << ": " << r.out;
    EXPECT_NE(r.out.find(": ok"), std::string::npos);
  }
}

TEST(Cli, ConfigImportProducesALoadableConfig) {
  auto dir = temp_dir("import");
  std::ofstream(dir / "vta_config.json") << R"({"TARGET":"pynq","HW_VER":"0.0.2","LOG_INP_WIDTH":3,"LOG_WGT_WIDTH":3,
    "LOG_ACC_WIDTH":5,"LOG_BATCH":0,"LOG_BLOCK":5,"LOG_UOP_BUFF_SIZE":15,"LOG_INP_BUFF_SIZE":15,
    "LOG_WGT_BUFF_SIZE":18,"LOG_ACC_BUFF_SIZE":17})";
  auto r = run_vta("config import " + (dir / "vta_config.json").string() + " -o " + (dir / "out.yaml").string());
  ASSERT_EQ(r.code, 0) << r.out;
  auto show = run_vta("config show --config " + (dir / "out.yaml").string());
  ASSERT_EQ(show.code, 0) << show.out;
  EXPECT_NE(show.out.find("block_in: 32"), std::string::npos) << show.out;
}

TEST(Cli, GenWritesBothHeaders) {
  auto sv = run_vta("gen sv --config vta-1x16x16");
  ASSERT_EQ(sv.code, 0);
  EXPECT_NE(sv.out.find("package vta_pkg;"), std::string::npos);
  auto cl = run_vta("gen cl --config vta-4x16x16");
  ASSERT_EQ(cl.code, 0);
  EXPECT_NE(cl.out.find("#define VTA_BATCH 4"), std::string::npos);
}

TEST(Cli, RunSampleProgramPassesAndReportsStats) {
  auto r = run_vta("run " + kSrc + "/examples/identity_requant.vasm --dump OUT:0:1");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("check: PASS"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gemm.macs"), std::string::npos);
  EXPECT_NE(r.out.find("region requantize: 4 instructions"), std::string::npos) << r.out;
}

TEST(Cli, RunJsonStatsCarryTheResolvedConfig) {
  auto dir = temp_dir("json");
  auto r =
      run_vta("run " + kSrc + "/examples/identity_requant.vasm --stats none --stats-out " + (dir / "s.json").string());
  ASSERT_EQ(r.code, 0) << r.out;
  std::ifstream in(dir / "s.json");
  auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["config_name"], "vta-1x16x16");
  EXPECT_NE(j["config"].get<std::string>().find("block_in: 16"), std::string::npos);
  EXPECT_EQ(j["runs"][0]["check"], "pass");
  EXPECT_EQ(j["runs"][0]["stats"]["total"]["gemm.macs"], 512);
  EXPECT_EQ(j["runs"][0]["stats"]["regions"].size(), 4u);
}

TEST(Cli, WrongExpectationExitsWithMismatch) {
  auto dir = temp_dir("mismatch");
  std::ifstream in(kSrc + "/examples/identity_requant.vasm");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto at = text.find(".expect out values 4 ");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 21, ".expect out values 5 ");
  std::ofstream(dir / "bad.vasm") << text;
  auto r = run_vta("run " + (dir / "bad.vasm").string());
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("check: FAIL buffer out: 1 bytes differ; first at byte 0: expected 5, got 4"), std::string::npos)
      << r.out;
}

TEST(Cli, AsmThenDisasmRoundTrip) {
  auto dir = temp_dir("asm");
  auto bin = (dir / "prog.bin").string();
  auto r =
      run_vta("asm " + kSrc + "/examples/identity_requant.vasm -o " + bin + " --uops " + (dir / "uop.bin").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(fs::file_size(bin), 11u * 16u);
  EXPECT_EQ(fs::file_size(dir / "uop.bin"), 4u);
  auto d = run_vta("disasm " + bin);
  ASSERT_EQ(d.code, 0) << d.out;
  EXPECT_NE(d.out.find("ALU SHR uop_bgn=0 uop_end=1 iter_out=1 iter_in=2 dst_factor_out=0 dst_factor_in=1 "
                       "src_factor_out=0 src_factor_in=1 use_imm imm=1"),
            std::string::npos)
      << d.out;
  EXPECT_NE(d.out.find("FINISH pop_next"), std::string::npos) << d.out;
}

bool has_systemc() { return run_vta("backends").out.find("systemc") != std::string::npos; }

TEST(Cli, SystemcRunReportsCyclesPerRegionAndChecksResults) {
  if (!has_systemc()) GTEST_SKIP() << "built without VTA_WITH_SYSTEMC";
  auto r = run_vta("run --backend systemc " + kSrc + "/examples/identity_requant.vasm");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("cycles.total"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("region gemm: 2 instructions, 512 MACs, "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("check: PASS"), std::string::npos);
}

TEST(Cli, TimingOnlyAndTraceOnSystemc) {
  if (!has_systemc()) GTEST_SKIP() << "built without VTA_WITH_SYSTEMC";
  auto dir = temp_dir("trace");
  auto trace = (dir / "t.json").string();
  auto r = run_vta("run --backend systemc --timing-only --trace " + trace + " --stats json " + kSrc +
                   "/examples/identity_requant.vasm");
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["runs"][0]["check"], "skipped (timing-only)");
  EXPECT_GT(j["runs"][0]["stats"]["total"]["cycles.total"].get<uint64_t>(), 0u);
  std::ifstream in(trace);
  auto t = nlohmann::json::parse(in);
  EXPECT_EQ(t["otherData"]["cycles"], j["runs"][0]["stats"]["total"]["cycles.total"]);
}

TEST(Cli, CompareCyclesPerRegionOfTwoCycleModels) {
  if (!has_systemc()) GTEST_SKIP() << "built without VTA_WITH_SYSTEMC";
  // The same model twice: every region agrees, and a latency change shows up.
  auto same = run_vta("compare --backends systemc,systemc " + kSrc + "/examples/identity_requant.vasm --max-diff 0");
  ASSERT_EQ(same.code, 0) << same.out;
  EXPECT_NE(same.out.find("gemm "), std::string::npos) << same.out;
  EXPECT_NE(same.out.find("results: identical on every backend"), std::string::npos) << same.out;
  EXPECT_NE(same.out.find("largest difference: 0.000 %"), std::string::npos) << same.out;
  auto net = run_vta("compare --backends systemc,systemc --model conv:16,8,8,16,3,1,1");
  ASSERT_EQ(net.code, 0) << net.out;
  EXPECT_NE(net.out.find("conv1 "), std::string::npos) << net.out;
}

TEST(Cli, ZooExportThenRunTheOnnxFile) {
  auto dir = temp_dir("onnx");
  auto file = (dir / "lenet5.onnx").string();
  auto e = run_vta("zoo export lenet5 -o " + file);
  ASSERT_EQ(e.code, 0) << e.out;
  auto r = run_vta("run --onnx " + file + " --report-json " + (dir / "r.json").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("output bit-exact with the integer reference"), std::string::npos) << r.out;
  std::ifstream in(dir / "r.json");
  auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["check"], "pass");
  // lenet5's 8, conv1's host im2col (stem packing) and 4 device copies (the im2col's and
  // the flatten's to VTA, the last pool's and the logits' to the host)
  EXPECT_EQ(j["layers"].size(), 13u);
}

TEST(Cli, BackendsListsGolden) {
  auto r = run_vta("backends");
  ASSERT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("golden"), std::string::npos);
}

}  // namespace

// --dump-after prints what each pass of the pipeline adds (stderr), and
// nothing for the others.
TEST(Cli, DumpAfterEveryPass) {
  const std::map<std::string, std::vector<std::string>> expect = {
      {"pin_host_ops", {"conv1 = conv2d [host]", "fc1 = dense [host]"}},  // before partition: every node on the host
      {"pack_stem", {"conv1.im2col = im2col [host]", "conv1 = conv2d [host]", "k1 s1 p0"}},
      {"band_rows", {"conv1 = conv2d [host]"}},  // batch 1: nothing to band
      {"partition", {"conv1 = conv2d [vta]", "fc1 = dense [vta]"}},
      {"copies",
       {"conv1.im2col.to_vta = device_copy [host]", " host -> vta", "fc1.to_host = device_copy [host]",
        " vta -> host"}},
      {"layout", {"input 16384 bytes at 0x1000", /* 3 channels blocked to 16, 32x32 */ "conv1.im2col ", "fc1 "}},
      {"segments", {"segment 0: ", " conv1 maxpool1 conv2", "segment 1: 1 nodes: fc1"}},
      {"tiling", {"conv1: ", "input channel blocks per step, est ", "fc1: "}},
      {"codegen", {"segment 0: ", " instructions at 0x", "  conv1: instructions [0, ", "conv1.weight "}},
  };
  for (const auto& [pass, needles] : expect) {
    const auto r = run_vta("run --model resnet18 --image 32 --dump-after " + pass, "", ">/dev/null");
    ASSERT_EQ(r.code, 0) << pass << "\n" << r.out;
    for (const auto& n : needles)
      EXPECT_NE(r.out.find(n), std::string::npos) << pass << ": no '" << n << "' in\n" << r.out;
  }
  // On a batch-4 array band_rows cuts the image into bands (host Bands nodes).
  const auto banded =
      run_vta("run --model resnet18 --image 32 -c vta-4x16x16 --dump-after band_rows", "", ">/dev/null");
  ASSERT_EQ(banded.code, 0) << banded.out;
  EXPECT_NE(banded.out.find(" = bands [host]"), std::string::npos) << banded.out;
  // --host-ops runs as the pipeline's pin_host_ops pass: partition then keeps the pinned kind on the host.
  const auto pinned =
      run_vta("run --model resnet18 --image 32 --host-ops max_pool --dump-after partition", "", ">/dev/null");
  ASSERT_EQ(pinned.code, 0) << pinned.out;
  EXPECT_NE(pinned.out.find("maxpool1 = max_pool [host]"), std::string::npos) << pinned.out;
  EXPECT_NE(pinned.out.find("conv1 = conv2d [vta]"), std::string::npos) << pinned.out;
  // The graph passes print the graph; the later ones do not repeat it.
  EXPECT_EQ(run_vta("run --model resnet18 --image 32 --dump-after tiling", "", ">/dev/null").out.find("= conv2d"),
            std::string::npos);
}

// The zoo cache as `vta run` uses it: a first run writes one entry in
// $VTA_CACHE_DIR, a second reads it and reports the same, a damaged entry is
// rebuilt, --no-cache writes nothing.
TEST(Cli, RunModelThroughTheZooCache) {
  const fs::path dir = temp_dir("zoo-cache");
  const std::string env = "VTA_CACHE_DIR=" + dir.string();
  const std::string args = "run --model resnet18 --image 32 --report-json ";
  auto first = run_vta(args + (dir / "a.json").string(), env);
  ASSERT_EQ(first.code, 0) << first.out;
  std::vector<fs::path> entries;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().extension() == ".bin") entries.push_back(e.path());
  ASSERT_EQ(entries.size(), 1u);
  const auto size = fs::file_size(entries[0]);
  auto second = run_vta(args + (dir / "b.json").string(), env);
  ASSERT_EQ(second.code, 0) << second.out;
  auto summary = [&](const std::string& f) {
    const auto j = nlohmann::json::parse(std::ifstream(dir / f));
    return j["check"].dump() + j["total"]["macs"].dump() + j["total"]["bytes_wgt"].dump();
  };
  EXPECT_EQ(summary("a.json"), summary("b.json"));
  EXPECT_NE(summary("b.json").find("\"pass\""), std::string::npos) << summary("b.json");
  fs::resize_file(entries[0], size / 2);
  auto third = run_vta(args + (dir / "c.json").string(), env);
  ASSERT_EQ(third.code, 0) << third.out;
  EXPECT_EQ(fs::file_size(entries[0]), size);
  const fs::path empty = temp_dir("zoo-no-cache");
  auto none = run_vta("run --model resnet18 --image 32 --no-cache", "VTA_CACHE_DIR=" + empty.string());
  ASSERT_EQ(none.code, 0) << none.out;
  EXPECT_TRUE(fs::is_empty(empty));
}

// `--host-ops`: the named op kinds run on the host, the output stays
// bit-exact, and the report has the device copies, device runs and
// synchronisations, and the host model beside the measured host time.
TEST(Cli, HostOpsMoveKindsToTheHost) {
  const fs::path dir = temp_dir("host-ops");
  auto r = run_vta("run --model resnet18 --image 32 -b systemc --host-ops conv2d,max_pool --report-json " +
                   (dir / "r.json").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("output bit-exact with the integer reference"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("host model"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(std::ifstream(dir / "r.json"));
  EXPECT_EQ(j["check"], "pass");
  int copies = 0;
  for (const auto& l : j["layers"]) {
    if (l["op"] == "conv2d" || l["op"] == "max_pool") {
      EXPECT_EQ(l["device"], "host") << l.dump();
      EXPECT_GT(l["host_model_ms"].get<double>(), 0.0) << l.dump();
    }
    if (l["op"] == "device_copy") {
      ++copies;
      EXPECT_GT(l["copy_bytes"].get<double>(), 0.0) << l.dump();
      EXPECT_TRUE(l["copy"] == "host->vta" || l["copy"] == "vta->host") << l.dump();
    }
  }
  EXPECT_GT(copies, 8);
  EXPECT_GT(j["device_runs"].get<int>(), 1);
  EXPECT_GE(j["device_runs"].get<int>(), j["syncs"].get<int>());
  EXPECT_GT(j["inference_ms"].get<double>(), j["host_model_ms"].get<double>());
  // The host model's figures come from the design's CPU (vta-1x16x16: the
  // Pynq's Cortex-A9), and the report compares it with the measured time.
  EXPECT_EQ(j["host_cpu"].get<std::string>().rfind("host.cpu cortex-a9-650: ", 0), 0u) << j["host_cpu"];
  EXPECT_NE(r.out.find("host model: host.cpu cortex-a9-650"), std::string::npos) << r.out;
  EXPECT_GE(j["host_model_vs_measured"]["layers"].get<int>(), 20);
  EXPECT_GT(j["host_model_vs_measured"]["median_ratio"].get<double>(), 0.0);
}

// `--tune N`: the tuning report per layer and in the JSON report; a second
// run reads every layer from the cache in $VTA_CACHE_DIR (no SystemC run)
// and gives the same cycles; the run stays bit-exact on the golden backend.
TEST(Cli, TuneReusesItsCache) {
  const fs::path dir = temp_dir("tune-cache");
  fs::remove_all(dir);
  const std::string env = "VTA_CACHE_DIR=" + dir.string();
  const std::string args = "run --model resnet18 -b systemc --timing-only --tune 3 --report-json ";
  auto first = run_vta(args + (dir / "a.json").string(), env);
  ASSERT_EQ(first.code, 0) << first.out;
  EXPECT_NE(first.out.find(", 0 from the cache, 3 SystemC runs"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("model pick"), std::string::npos) << first.out;
  EXPECT_TRUE(fs::exists(dir / "tune.json"));
  auto second = run_vta(args + (dir / "b.json").string(), env);
  ASSERT_EQ(second.code, 0) << second.out;
  EXPECT_NE(second.out.find(" from the cache, 0 SystemC runs"), std::string::npos) << second.out;
  const auto a = nlohmann::json::parse(std::ifstream(dir / "a.json"));
  const auto b = nlohmann::json::parse(std::ifstream(dir / "b.json"));
  EXPECT_EQ(a["total"]["cycles"], b["total"]["cycles"]);
  EXPECT_EQ(b["tuning"]["candidates_run"], 0);
  ASSERT_GT(b["tuning"]["layers"].size(), 10u);
  for (const auto& l : b["tuning"]["layers"]) EXPECT_LE(l["tuned_cycles"], l["model_cycles"]) << l.dump();
  auto golden = run_vta("run --model resnet18 --tune 3", env);
  EXPECT_EQ(golden.code, 0) << golden.out;
  EXPECT_NE(golden.out.find("0 SystemC runs"), std::string::npos) << golden.out;
}
