// The opencl backend on this machine's OpenCL device (PoCL in CI): device
// listing, both kernel variants against the golden model, batched runs, the
// bring-up battery (and that it finds and localises a planted kernel bug),
// offline binaries, exact golden error messages, and every device-level
// error (device not found, bad binary, build failure, allocation over the
// device limit, device lost). The golden/error suites also run on this
// backend (VTA_TEST_BACKEND=opencl); the conformance suite picks it up itself.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>

#include "env_guard.h"
#include "error_of.h"
#include "test_support.h"
#include "vta/bringup/battery.h"
#include "vta/bringup/diagnose.h"
#include "vta/bringup/junit.h"
#include "vta/bringup/programs.h"
#include "vta/isa/error.h"
#include "vta/kernels/opencl.h"
#include "vta/model/image.h"
#include "vta/model/random_program.h"

using vta::test::error_of;

namespace {

using vta::Config;
using vta::isa::AluOp;
using vta::isa::MemId;
namespace programs = vta::programs;
using vta::test::preset;

using vta::test::EnvGuard;

std::string temp_path(const std::string& name) {
  const auto dir = std::filesystem::path(VTA_BINARY_DIR) / "test-opencl";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

/// Runs `vta ARGS` (with `env`, "NAME=value", set) and returns its exit code
/// and its stdout and stderr together. The command runs on the default
/// device whatever VTA_OPENCL_* steer this process to: these tests are about
/// the command line (and a GPU held by this process may be hidden from a child).
struct Cli {
  int code = -1;
  std::string out;
};
Cli run_cli(const std::vector<std::string>& args, const std::string& env = "") {
  std::string cmd = "VTA_OPENCL_DEVICE= VTA_OPENCL_PLATFORM= VTA_OPENCL_VARIANT= " + env +
                    " VTA_CONFIG_DIR=" + std::string(VTA_SOURCE_DIR) + "/configs " + VTA_EXE;
  for (const auto& a : args) cmd += " '" + a + "'";
  cmd += " 2>&1";
  Cli r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n = 0;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) r.out.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

#define EXPECT_HAS(msg, text) EXPECT_NE((msg).find(text), std::string::npos) << "message: " << (msg)

Config with_variant(Config c, const std::string& v) {
  c.opencl.variant = v;
  return c;
}

// ---------------------------------------------------------------------------
// Devices
// ---------------------------------------------------------------------------

TEST(Devices, ListsAtLeastOneWithItsProperties) {
  const auto devices = vta::opencl::list_devices();
  ASSERT_FALSE(devices.empty());
  for (const auto& d : devices) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_FALSE(d.platform.empty());
    EXPECT_GT(d.compute_units, 0u);
    EXPECT_GT(d.global_mem, 0u);
    EXPECT_GT(d.max_alloc, 0u);
    EXPECT_GT(d.max_work_group, 0u);
  }
  const std::string text = vta::opencl::describe_devices(devices);
  EXPECT_HAS(text, "platform 0: ");
  EXPECT_HAS(text, "device 0: " + devices[0].name);
  EXPECT_HAS(text, "max allocation");
  EXPECT_HAS(text, "extensions:");
}

TEST(Devices, CommandListsThem) {
  const auto r = run_cli({"devices"});
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_HAS(r.out, vta::opencl::list_devices()[0].name);
  EXPECT_HAS(r.out, "compute units");
}

TEST(Devices, SelectedByIndexAndSubstring) {
  Config c = preset("vta-1x16x16");
  const auto first = vta::opencl::list_devices()[0];
  c.opencl.device = "0";
  EXPECT_EQ(vta::opencl::OpenclBackend(c, {}).device().name, first.name);
  c.opencl.device = first.name.substr(0, 3);
  EXPECT_EQ(vta::opencl::OpenclBackend(c, {}).device().name, first.name);
  c.opencl.platform = first.platform.substr(0, 4);
  EXPECT_EQ(vta::opencl::OpenclBackend(c, {}).device().name, first.name);
}

// ---------------------------------------------------------------------------
// Both variants agree with the golden model
// ---------------------------------------------------------------------------

class Variants : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(Variants, RandomProgramsMatchGoldenBitExactly) {
  const auto& [name, variant] = GetParam();
  const Config c = with_variant(preset(name), variant);
  EXPECT_EQ(vta::opencl::OpenclBackend(c, {}).variant(), variant);
  for (uint32_t seed = 1; seed <= 6; ++seed)
    EXPECT_EQ(vta::bringup::compare_with_golden("opencl", c, vta::random_program(c, seed)), "") << "seed " << seed;
  uint64_t macs = 0;
  EXPECT_EQ(vta::bringup::compare_with_golden("opencl", c, programs::gemm_program(c, 2, 8, 16, macs)), "");
  EXPECT_GT(macs, 0u);
}

/// gtest's name of a (preset or config file, variant) parameter.
std::string variant_param_name(const ::testing::TestParamInfo<std::tuple<std::string, std::string>>& info) {
  std::string n = std::filesystem::path(std::get<0>(info.param)).stem().string() + "_" + std::get<1>(info.param);
  for (auto& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(OpenCL, Variants,
                         ::testing::Combine(::testing::Values("vta-1x16x16", "vta-4x16x16", "vta-1x32x32"),
                                            ::testing::Values("single", "workgroup")),
                         variant_param_name);

// Every element width (docs/design.md, "Data types"): 4-, 8- and 16-bit
// operands and outputs, 16- and 32-bit accumulators, in both variants.
#define VTA_DTYPE_CONFIG(name) VTA_SOURCE_DIR "/tests/configs/" name ".yaml"
const auto kWidthConfigs = ::testing::Values(VTA_DTYPE_CONFIG("dtype-w4a4"), VTA_DTYPE_CONFIG("dtype-w8a8-acc16"),
                                             VTA_DTYPE_CONFIG("dtype-w16a16"), VTA_DTYPE_CONFIG("dtype-w4a16"));
INSTANTIATE_TEST_SUITE_P(Widths, Variants, ::testing::Combine(kWidthConfigs, ::testing::Values("single", "workgroup")),
                         variant_param_name);

TEST(Variants, SingleWithBuffersInGlobalMemoryMatchesGolden) {
  EnvGuard g("VTA_OPENCL_ONCHIP", "0");
  const Config c = preset("vta-1x16x16");
  EXPECT_FALSE(vta::opencl::OpenclBackend(c, {}).sram_on_chip());
  for (uint32_t seed = 10; seed < 13; ++seed)
    EXPECT_EQ(vta::bringup::compare_with_golden("opencl", c, vta::random_program(c, seed)), "") << "seed " << seed;
}

TEST(Variants, WorkGroupSizesAgree) {
  const Config c = with_variant(preset("vta-1x16x16"), "workgroup");
  for (const char* wg : {"7", "16", "256"}) {
    EnvGuard g("VTA_OPENCL_WG_SIZE", wg);
    EXPECT_EQ(vta::bringup::compare_with_golden("opencl", c, vta::random_program(c, 21)), "") << "work-group " << wg;
  }
}

// The narrow and wide storage of the on-chip buffers in global memory (the
// Widths suite keeps these small designs' buffers on chip), and a work-group
// of 7 that splits the lanes of a 16-bit accumulator unevenly.
TEST(Variants, WidthsWithBuffersInGlobalMemoryAndOddWorkGroupsMatchGolden) {
  for (const char* name : {VTA_DTYPE_CONFIG("dtype-w4a4"), VTA_DTYPE_CONFIG("dtype-w16a16")}) {
    const Config c = preset(name);
    {
      EnvGuard g("VTA_OPENCL_ONCHIP", "0");
      EXPECT_FALSE(vta::opencl::OpenclBackend(c, {}).sram_on_chip());
      for (uint32_t seed = 30; seed < 32; ++seed)
        EXPECT_EQ(vta::bringup::compare_with_golden("opencl", c, vta::random_program(c, seed)), "")
            << name << " seed " << seed;
    }
    EnvGuard g("VTA_OPENCL_WG_SIZE", "7");
    const Config w = with_variant(c, "workgroup");
    EXPECT_EQ(vta::bringup::compare_with_golden("opencl", w, vta::random_program(w, 33)), "") << name;
  }
}

// ---------------------------------------------------------------------------
// Runs, batches, stats
// ---------------------------------------------------------------------------

/// Two programs installed in one DRAM; returns their launches.
std::pair<vta::Launch, vta::Launch> install_two(vta::Backend& b, vta::ProgramImage& p1, vta::ProgramImage& p2) {
  const vta::Launch l1 = vta::install(p1, b);
  const vta::Launch l2 = vta::install(p2, b);
  return {l1, l2};
}

TEST(Runs, BatchEqualsRunsOneByOneOnGolden) {
  const Config c = preset("vta-1x16x16");
  // A generated program addresses the buffers of a fresh backend, so the
  // second launch is the same program again (on the first one's buffers,
  // which it then changes further); a different program would address
  // buffers it does not own, an error now that DRAM bounds are per buffer.
  vta::ProgramImage a1 = vta::random_program(c, 5), a2 = a1;
  vta::ProgramImage b1 = a1, b2 = a2;
  auto golden = vta::make_backend("golden", c);
  vta::opencl::OpenclBackend dev(c, {});
  const auto [g1, g2] = install_two(*golden, a1, a2);
  const auto [d1, d2] = install_two(dev, b1, b2);
  golden->run(g1);
  golden->run(g2);
  dev.run_batch({d1, d2});
  for (size_t i = 0; i < a1.buffers.size(); ++i)
    EXPECT_EQ(golden->dram().read(a1.buffers[i].addr, a1.buffers[i].bytes()),
              dev.dram().read(b1.buffers[i].addr, b1.buffers[i].bytes()))
        << a1.buffers[i].name;
  for (MemId m : {MemId::UOP, MemId::INP, MemId::WGT, MemId::ACC, MemId::OUT})
    EXPECT_EQ(golden->read_sram(m, 0, 64), dev.read_sram(m, 0, 64)) << vta::isa::mem_name(m);
  const vta::Stats s = dev.stats().total;
  EXPECT_EQ(s.get("opencl.launches"), 2u);
  EXPECT_GT(s.get("opencl.device_ns"), 0u);
  EXPECT_EQ(s.get("insn.total"), a1.insns.size() + a2.insns.size());
}

TEST(Runs, StatsCarryGoldenCountersAndDeviceTimePerRegion) {
  const Config c = preset("vta-1x16x16");
  uint64_t macs = 0;
  vta::ProgramImage img = programs::gemm_program(c, 3, 8, 16, macs);
  img.regions = {{"first", 0, 4}, {"rest", 4, static_cast<uint32_t>(img.insns.size())}};
  vta::ProgramImage gimg = img;
  vta::opencl::OpenclBackend dev(c, {});
  auto golden = vta::make_backend("golden", c);
  dev.run(vta::install(img, dev));
  golden->run(vta::install(gimg, *golden));
  const vta::RunStats d = dev.stats(), g = golden->stats();
  for (const auto& [name, value] : g.total.items()) EXPECT_EQ(d.total.get(name), value) << name;
  EXPECT_EQ(d.total.get("gemm.macs"), macs);
  ASSERT_EQ(d.regions.size(), 2u);
  EXPECT_GT(d.regions[1].second.get("opencl.device_ns"), 0u);
  EXPECT_GE(d.total.get("opencl.device_ns"), d.regions[1].second.get("opencl.device_ns"));
  EXPECT_GT(d.total.get("opencl.upload_ns"), 0u);
}

TEST(Runs, RejectsCycleModelOptions) {
  vta::BackendOptions o;
  o.timing_only = true;
  EXPECT_HAS(error_of([&] { vta::opencl::OpenclBackend(preset("vta-1x16x16"), o); }), "untimed");
}

// ---------------------------------------------------------------------------
// Error messages equal the golden model's
// ---------------------------------------------------------------------------

/// The message of running `build` on a fresh backend (twice: the program is
/// run on a second launch too, so that the uop buffer holds the first's).
std::string run_error(const std::string& backend, const std::function<void(vta::test::ProgramBuilder&)>& build) {
  auto b = vta::make_backend(backend, preset("vta-1x16x16"));
  vta::test::ProgramBuilder p(*b);
  build(p);
  return error_of([&] { p.run(); });
}

TEST(Errors, MessagesEqualGoldenExactly) {
  using vta::test::ProgramBuilder;
  const std::vector<std::pair<const char*, std::function<void(ProgramBuilder&)>>> cases = {
      {"uop index past ACC (data)",
       [](ProgramBuilder& p) {
         const uint32_t u = p.uops({programs::uop(3, 0, 0), programs::uop(2040, 0, 0)});
         p.add(programs::load(MemId::UOP, 0, u, 1, 2, 2));
         p.add(programs::gemm(true, 0, 2, 1, 1));
         p.add(programs::gemm(false, 0, 2, 3, 2, 4, 1));
         p.add(programs::finish());
       }},
      {"ALU source past ACC (data)",
       [](ProgramBuilder& p) {
         const uint32_t u = p.uops({programs::uop(1, 2047, 0)});
         p.add(programs::load(MemId::UOP, 5, u, 1, 1, 1));
         p.add(programs::alu(AluOp::ADD, false, 0, 5, 6, 2, 1, 0, 0, 1, 0));
         p.add(programs::finish());
       }},
      {"LOAD past SRAM",
       [](ProgramBuilder& p) {
         const uint32_t inp = p.buffer(MemId::INP, 4);
         p.add(programs::load(MemId::INP, 2046, inp, 1, 4, 4));
         p.add(programs::finish());
       }},
      {"STORE outside DRAM after work",
       [](ProgramBuilder& p) {
         const uint32_t out = p.buffer(MemId::OUT, 2);
         p.add(programs::store(0, out, 1, 2, 2));
         p.add(programs::store(0, out + 255, 1, 2, 2));  // past the allocation's last page
         p.add(programs::finish());
       }},
      {"uop_end past the uop buffer",
       [](ProgramBuilder& p) {
         p.add(programs::gemm(false, 8000, 8193, 1, 1));
         p.add(programs::finish());
       }},
      {"deadlock after running",
       [](ProgramBuilder& p) {
         const uint32_t out = p.buffer(MemId::OUT, 2);
         p.add(programs::store(0, out, 1, 2, 2));
         p.add(programs::with_deps(programs::gemm(true, 0, 1, 1, 1), true, false, false, false));
         p.add(programs::finish());
       }},
  };
  for (const auto& [what, build] : cases) {
    const std::string g = run_error("golden", build), d = run_error("opencl", build);
    EXPECT_FALSE(g.empty()) << what;
    EXPECT_EQ(d, g) << what;
  }
}

TEST(Errors, DataDependentBoundsUseTheUopsOfAnEarlierRun) {
  // The uops come from the previous run: the message must still name them.
  auto run_twice = [](const std::string& backend) {
    auto b = vta::make_backend(backend, preset("vta-1x16x16"));
    vta::test::ProgramBuilder first(*b);
    const uint32_t u = first.uops({programs::uop(0, 0, 0), programs::uop(0, 0, 1023)});
    first.add(programs::load(MemId::UOP, 100, u, 1, 2, 2));
    first.add(programs::finish());
    first.run();
    vta::test::ProgramBuilder second(*b);
    second.add(programs::gemm(false, 100, 102, 2, 1, 0, 0, 0, 0, 1, 0));
    second.add(programs::finish());
    return error_of([&] { second.run(); });
  };
  const std::string g = run_twice("golden");
  EXPECT_HAS(g, "uop 101 reaches WGT index 1024");
  EXPECT_EQ(run_twice("opencl"), g);
}

// ---------------------------------------------------------------------------
// Device-level errors
// ---------------------------------------------------------------------------

TEST(Errors, DeviceNotFound) {
  Config c = preset("vta-1x16x16");
  c.opencl.device = "no-such-device";
  const std::string msg = error_of([&] { vta::opencl::OpenclBackend(c, {}); });
  EXPECT_HAS(msg, "no OpenCL device matches opencl.device 'no-such-device'");
  EXPECT_HAS(msg, vta::opencl::list_devices()[0].name);  // lists what there is
  c.opencl.device = "99";
  EXPECT_HAS(error_of([&] { vta::opencl::OpenclBackend(c, {}); }), "no OpenCL device matches opencl.device '99'");
}

TEST(Errors, PlatformNotFound) {
  Config c = preset("vta-1x16x16");
  c.opencl.platform = "no-such-platform";
  EXPECT_HAS(error_of([&] { vta::opencl::OpenclBackend(c, {}); }), "no OpenCL platform matches");
}

TEST(Errors, NoPlatformAtAll) {
  // An empty vendor folder: the ICD loader finds no driver.
  const std::string dir = temp_path("no-vendors");
  std::filesystem::create_directories(dir);
  const auto r = run_cli({"devices"}, "OCL_ICD_VENDORS=" + dir);
  if (r.code == 0) GTEST_SKIP() << "this ICD loader does not take OCL_ICD_VENDORS as the only vendor folder";
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, "no OpenCL platform found");
  const auto b = run_cli({"bringup", "--random", "1"}, "OCL_ICD_VENDORS=" + dir);
  EXPECT_EQ(b.code, 2);
  EXPECT_HAS(b.out, "no OpenCL platform found");
}

TEST(Errors, KernelBuildFailureShowsTheBuildLog) {
  const std::string path = temp_path("broken.cl");
  write_file(path, std::string(vta::opencl::embedded_kernel_source()) +
                       "\n__kernel void broken(void) { undeclared_thing = 1; }\n");
  EnvGuard g("VTA_OPENCL_KERNEL", path);
  const std::string msg = error_of([&] { vta::opencl::OpenclBackend(preset("vta-1x16x16"), {}); });
  EXPECT_HAS(msg, "OpenCL kernel build failed");
  EXPECT_HAS(msg, "build log:");
  EXPECT_HAS(msg, "undeclared_thing");
}

TEST(Errors, MissingKernelOverride) {
  EnvGuard g("VTA_OPENCL_KERNEL", temp_path("does-not-exist.cl"));
  EXPECT_HAS(error_of([&] { vta::opencl::OpenclBackend(preset("vta-1x16x16"), {}); }), "cannot open");
}

TEST(Errors, BadBinaryPath) {
  Config c = preset("vta-1x16x16");
  c.opencl.binary = temp_path("no-such.bin");
  EXPECT_HAS(error_of([&] { vta::opencl::OpenclBackend(c, {}); }),
             "opencl.binary " + c.opencl.binary + ": cannot open");
}

TEST(Errors, GarbageBinary) {
  Config c = preset("vta-1x16x16");
  c.opencl.binary = temp_path("garbage.bin");
  write_file(c.opencl.binary, "this is not a program binary");
  const std::string msg = error_of([&] { vta::opencl::OpenclBackend(c, {}); });
  // The driver refuses the bytes when the program is made (PoCL) or when it
  // is built (others): either way the message names the file and the device.
  EXPECT_NE(msg.find(c.opencl.binary), std::string::npos) << msg;
  EXPECT_NE(msg.find("device '"), std::string::npos) << msg;
  const bool at_create = msg.rfind("opencl.binary '" + c.opencl.binary + "' is not a valid program binary", 0) == 0;
  const bool at_build = msg.rfind("OpenCL kernel build failed on device '", 0) == 0 &&
                        msg.find("(opencl.binary " + c.opencl.binary + ", ") != std::string::npos;
  EXPECT_TRUE(at_create || at_build) << msg;
}

TEST(Errors, AllocationOverTheDeviceLimit) {
  {
    // The 256 KiB WGT buffer does not fit a 64 KiB limit.
    EnvGuard g("VTA_OPENCL_MAX_ALLOC", "65536");
    const std::string msg = error_of([&] { vta::opencl::OpenclBackend(preset("vta-1x16x16"), {}); });
    EXPECT_HAS(msg, "the WGT buffer needs a device buffer of 262144 bytes");
    EXPECT_HAS(msg, "allows at most 65536 bytes");
  }
  // The DRAM in use (8 MiB) does not fit a 1 MiB limit.
  EnvGuard g("VTA_OPENCL_MAX_ALLOC", std::to_string(1 << 20));
  vta::opencl::OpenclBackend dev(preset("vta-1x16x16"), {});
  vta::test::ProgramBuilder p(dev);
  p.buffer(MemId::INP, (8 << 20) / 16);
  p.add(programs::finish());
  const std::string msg = error_of([&] { p.run(); });
  EXPECT_HAS(msg, "DRAM [0x1000");
  EXPECT_HAS(msg, "allows at most 1048576 bytes");
}

TEST(Errors, LostDeviceIsNamed) {
  EXPECT_HAS(vta::opencl::cl_error_message(-5, "running the program", "GPU 0"),
             "stopped working during running the program");
  EXPECT_HAS(vta::opencl::cl_error_message(-9999, "running the program", "GPU 0"), "device was lost or reset");
  EXPECT_HAS(vta::opencl::cl_error_message(-4, "x", "GPU 0"), "could not allocate memory");
  EXPECT_HAS(vta::opencl::cl_error_message(-30, "x", "GPU 0"), "CL_INVALID_VALUE");
}

// ---------------------------------------------------------------------------
// Offline binaries
// ---------------------------------------------------------------------------

TEST(Binary, RoundTripRunsLikeTheSource) {
  Config c = preset("vta-1x16x16");
  const std::vector<uint8_t> bin = vta::opencl::build_binary(c);
  ASSERT_FALSE(bin.empty());
  c.opencl.binary = temp_path("vta-1x16x16.bin");
  write_file(c.opencl.binary, std::string(bin.begin(), bin.end()));
  vta::opencl::OpenclBackend dev(c, {});
  EXPECT_EQ(dev.variant(), "single");
  vta::ProgramImage img = vta::random_program(c, 7), gimg = img;
  dev.run(vta::install(img, dev));
  auto golden = vta::make_backend("golden", preset("vta-1x16x16"));
  golden->run(vta::install(gimg, *golden));
  for (size_t i = 0; i < img.buffers.size(); ++i)
    EXPECT_EQ(dev.dram().read(img.buffers[i].addr, img.buffers[i].bytes()),
              golden->dram().read(gimg.buffers[i].addr, gimg.buffers[i].bytes()));
}

TEST(Binary, BuiltForAnotherConfigIsRejected) {
  const std::vector<uint8_t> bin = vta::opencl::build_binary(preset("vta-1x32x32"));
  Config c = preset("vta-1x16x16");
  c.opencl.binary = temp_path("vta-1x32x32.bin");
  write_file(c.opencl.binary, std::string(bin.begin(), bin.end()));
  const std::string msg = error_of([&] { vta::opencl::OpenclBackend(c, {}); });
  EXPECT_HAS(msg, "was built for a different config: batch 1 block_in 32 block_out 32");
  // Element widths alone make another kernel (the ACC buffer halved keeps
  // its depth): the message names them.
  const std::vector<uint8_t> acc16 =
      vta::opencl::build_binary(preset("vta-1x16x16", {{"dtype.acc_bits", "16"}, {"buffers.acc", "64KiB"}}));
  c.opencl.binary = temp_path("vta-1x16x16-acc16.bin");
  write_file(c.opencl.binary, std::string(acc16.begin(), acc16.end()));
  const std::string wmsg = error_of([&] { vta::opencl::OpenclBackend(c, {}); });
  EXPECT_HAS(wmsg, "dtype 8/8/16/8, defines hash");
  EXPECT_HAS(wmsg, "dtype 8/8/32/8, hash");
  c.opencl.variant = "workgroup";
  c.opencl.binary = temp_path("vta-1x16x16-single.bin");
  const std::vector<uint8_t> single = vta::opencl::build_binary(preset("vta-1x16x16"));
  write_file(c.opencl.binary, std::string(single.begin(), single.end()));
  EXPECT_HAS(error_of([&] { vta::opencl::OpenclBackend(c, {}); }),
             "holds the single kernel variant but opencl.variant is workgroup");
}

TEST(Binary, SourceForOfflineCompilersCarriesTheDefines) {
  const Config c = preset("vta-4x16x16");
  const std::string src = vta::opencl::kernel_source(c, "single", true);
  EXPECT_HAS(src, "#define VTA_BATCH 4");
  EXPECT_HAS(src, "#define VTA_SRAM_ONCHIP 1");
  EXPECT_HAS(src, "__kernel void vta_run(");
  EXPECT_HAS(error_of([&] { vta::opencl::kernel_source(c, "gpu", false); }), "variant 'gpu' does not exist");
}

// ---------------------------------------------------------------------------
// The bring-up battery
// ---------------------------------------------------------------------------

TEST(Bringup, SmallBatteryPassesAndWritesJUnit) {
  vta::bringup::Options o;
  o.config = preset("vta-1x16x16");
  o.random = 100;  // the whole battery, as on every backend (test_bringup)
  const vta::bringup::Report r = vta::bringup::run(o);
  EXPECT_TRUE(r.passed()) << vta::bringup::summary(r);
  EXPECT_GT(r.count(vta::bringup::CaseResult::Status::PASS), 150u);
  const std::string x = vta::bringup::junit_xml(r);
  EXPECT_HAS(x, "<testsuites name=\"vta bringup\"");
  EXPECT_HAS(x, "<testsuite name=\"corners\"");
  EXPECT_HAS(x, "<testsuite name=\"random\" tests=\"100\" failures=\"0\"");
  EXPECT_HAS(x, "name=\"alu_SHR_vector\"");
  EXPECT_HAS(x, "<testsuite name=\"networks\" tests=\"1\" failures=\"0\"");
}

TEST(Bringup, PlantedKernelBugIsLocalisedToItsInstruction) {
  // A kernel whose SHR shifts left by one bit too few for negative amounts
  // (vta.cl takes the ops from the generated defines, VTA_ALU_APPLY_SHR of
  // opcodes.def's SHR line; this kernel redefines it).
  std::string src(vta::opencl::embedded_kernel_source());
  ASSERT_NE(src.find("VTA_ALU_CASES(a, b)"), std::string::npos) << "vta.cl's alu_apply changed: update this test";
  src =
      "#undef VTA_ALU_APPLY_SHR\n"
      "#define VTA_ALU_APPLY_SHR(a, b) "
      "((b & 32) ? ((b & 63) == 32 ? 0 : (int)((unsigned)a << (63 - (b & 63)))) : a >> (b & 31))\n" +
      src;
  const std::string path = temp_path("planted-bug.cl");
  write_file(path, src);
  EnvGuard g("VTA_OPENCL_KERNEL", path);
  const Config c = preset("vta-1x16x16");
  const auto corners = programs::corner_programs(c);
  const auto it =
      std::find_if(corners.begin(), corners.end(), [](const auto& p) { return p.name == "alu_shr_negative_imm"; });
  ASSERT_NE(it, corners.end());
  const std::string msg = vta::bringup::compare_with_golden("opencl", c, it->image);
  EXPECT_HAS(msg, "first differing instruction: instruction ");
  EXPECT_HAS(msg, "(ALU SHR");
  EXPECT_HAS(msg, "expected");
  EXPECT_HAS(msg, "actual");
}

TEST(Bringup, CommandExitCodesAndJUnit) {
  const std::string junit = temp_path("bringup.xml");
  std::filesystem::remove(junit);
  const auto ok = run_cli({"bringup", "--random", "2", "--no-conformance", "--junit", junit});
  EXPECT_EQ(ok.code, 0) << ok.out << ok.out;
  EXPECT_HAS(ok.out, "PASS");
  EXPECT_TRUE(std::filesystem::exists(junit));
  const auto missing = run_cli({"bringup", "--device", "no-such-device"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_HAS(missing.out, "vta: error: no OpenCL device matches opencl.device 'no-such-device'");
  const auto bad_config = run_cli({"bringup", "--config", "no-such-config"});
  EXPECT_EQ(bad_config.code, 2);
  const auto bad_vectors = run_cli({"bringup", "--no-corners", "--random", "0", "--vectors", temp_path("nothing")});
  EXPECT_EQ(bad_vectors.code, 2);
  EXPECT_HAS(bad_vectors.out, "is not a folder");
}

TEST(Bringup, CommandFindsAPlantedBug) {
  std::string src(vta::opencl::embedded_kernel_source());
  ASSERT_NE(src.find("VTA_ALU_CASES(a, b)"), std::string::npos) << "vta.cl's alu_apply changed: update this test";
  src = "#undef VTA_ALU_APPLY_MIN\n#define VTA_ALU_APPLY_MIN(a, b) (a < b ? a : b + 1)\n" + src;
  const std::string path = temp_path("planted-min.cl");
  write_file(path, src);
  const auto r = run_cli({"bringup", "--random", "0", "--no-conformance"}, "VTA_OPENCL_KERNEL=" + path);
  EXPECT_EQ(r.code, 1) << r.out << r.out;
  EXPECT_HAS(r.out, "FAIL corners/alu_MIN_imm");
  EXPECT_HAS(r.out, "first differing instruction");
}

TEST(Bringup, CommandLoadsABinary) {
  const std::string bin = temp_path("cli.bin");
  const auto built = run_cli({"cl-build", "-o", bin, "--variant", "workgroup"});
  ASSERT_EQ(built.code, 0) << built.out;
  const auto r = run_cli({"bringup", "--binary", bin, "--variant", "workgroup", "--random", "1", "--no-conformance"});
  EXPECT_EQ(r.code, 0) << r.out << r.out;
  EXPECT_HAS(r.out, "workgroup variant");
  const auto src = run_cli({"cl-source", "--config", "vta-1x32x32"});
  EXPECT_EQ(src.code, 0);
  EXPECT_HAS(src.out, "#define VTA_BLOCK_IN 32");
}

}  // namespace
