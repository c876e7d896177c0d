// The zoo cache (compiler/include/vta/compiler/frontend/zoo_cache.h) and the binary
// graph form under it (graph_io.h): a hit gives the network and reference
// output a fresh build gives; a truncated, corrupted or foreign entry is a
// miss that is rebuilt and rewritten, never a crash. Each test uses its own
// temporary cache folder, never the user's.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>

#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/frontend/zoo_cache.h"
#include "vta/compiler/ir/graph_io.h"
#include "vta/compiler/ops/reference.h"
#include "vta/isa/error.h"

namespace vta::compiler {
namespace {

namespace fs = std::filesystem;

class ZooCache : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/vta-zoo-cache-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    setenv("VTA_CACHE_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("VTA_CACHE_DIR");
    fs::remove_all(dir_);
  }
  std::string path() const { return zoo_cache_path(kNet, opts_, "cfg"); }
  std::string read() const {
    std::ifstream f(path(), std::ios::binary);
    return {std::istreambuf_iterator<char>(f), {}};
  }
  void write(const std::string& bytes) const { std::ofstream(path(), std::ios::binary | std::ios::trunc) << bytes; }
  // A hit must equal a fresh build and reference run exactly.
  void expect_fresh(const ZooRun& r) const {
    const Graph g = build_zoo(kNet, opts_);
    EXPECT_EQ(r.graph, g);
    const Tensor in = zoo_input(g, opts_.seed + 1000);
    EXPECT_EQ(r.input.data, in.data);
    ASSERT_TRUE(r.reference.has_value());
    EXPECT_EQ(r.reference->data, run_graph(g, in)[static_cast<size_t>(g.output)].data);
  }

  static constexpr const char* kNet = "lenet5";
  ZooOptions opts_{7, 2, 0};
  std::string dir_;
};

TEST_F(ZooCache, MissThenHitGivesTheFreshNetwork) {
  const ZooRun first = zoo_run(kNet, opts_, "cfg", true);
  EXPECT_FALSE(first.from_cache);
  EXPECT_FALSE(first.reference_from_cache);
  ASSERT_TRUE(fs::exists(path()));
  EXPECT_EQ(fs::path(path()).parent_path().parent_path(), fs::path(dir_));
  const ZooRun second = zoo_run(kNet, opts_, "cfg", true);
  EXPECT_TRUE(second.from_cache);
  EXPECT_TRUE(second.reference_from_cache);
  expect_fresh(second);
  // No temporary file is left beside the entry.
  EXPECT_EQ(std::distance(fs::recursive_directory_iterator(dir_), fs::recursive_directory_iterator()), 2);
}

TEST_F(ZooCache, KeyedBySeedBatchImageAndConfig) {
  const std::string p = zoo_cache_path(kNet, opts_, "cfg");
  EXPECT_NE(p, zoo_cache_path(kNet, ZooOptions{8, 2, 0}, "cfg"));
  EXPECT_NE(p, zoo_cache_path(kNet, ZooOptions{7, 1, 0}, "cfg"));
  EXPECT_NE(p, zoo_cache_path(kNet, ZooOptions{7, 2, 40}, "cfg"));
  EXPECT_NE(p, zoo_cache_path(kNet, opts_, "other"));
  EXPECT_NE(p, zoo_cache_path("resnet18", opts_, "cfg"));
}

TEST_F(ZooCache, NoCacheWritesNothing) {
  const ZooRun r = zoo_run(kNet, opts_, "cfg", true, /*use_cache=*/false);
  EXPECT_FALSE(r.from_cache);
  expect_fresh(r);
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(ZooCache, AHitWithoutTheReferenceComputesItAndRewritesTheEntry) {
  const ZooRun timing = zoo_run(kNet, opts_, "cfg", false);
  EXPECT_FALSE(timing.reference.has_value());
  const auto small = fs::file_size(path());
  const ZooRun full = zoo_run(kNet, opts_, "cfg", true);
  EXPECT_TRUE(full.from_cache);
  EXPECT_FALSE(full.reference_from_cache);
  expect_fresh(full);
  EXPECT_GT(fs::file_size(path()), small);
}

TEST_F(ZooCache, DamagedEntriesAreRebuiltAndRewritten) {
  zoo_run(kNet, opts_, "cfg", true);
  const std::string good = read();
  ASSERT_GT(good.size(), 1000u);
  std::string flipped = good;
  flipped[flipped.size() / 2] ^= 0x5a;
  // A well-formed entry of another key (another seed) copied over this one.
  const ZooOptions other{8, 2, 0};
  zoo_run(kNet, other, "cfg", true);
  std::ifstream f(zoo_cache_path(kNet, other, "cfg"), std::ios::binary);
  const std::string wrong_key{std::istreambuf_iterator<char>(f), {}};
  ASSERT_GT(wrong_key.size(), 1000u);
  for (const std::string& bad : {std::string(), good.substr(0, good.size() / 2), good.substr(0, 11), flipped,
                                 std::string(good.size(), '\xff'), good + "x", wrong_key}) {
    write(bad);
    const ZooRun r = zoo_run(kNet, opts_, "cfg", true);
    EXPECT_FALSE(r.from_cache) << bad.size() << " bytes";
    expect_fresh(r);
    EXPECT_EQ(read(), good) << "the entry is rewritten";
  }
}

// Each build of `vta` has its own folder; writing an entry keeps the folders
// of the 3 builds written most recently besides its own and removes older ones.
TEST_F(ZooCache, KeepsTheLastFourBuilds) {
  const auto now = fs::file_time_type::clock::now();
  for (int k = 0; k < 5; ++k) {
    const fs::path old = fs::path(dir_) / ("build-old" + std::to_string(k));
    fs::create_directories(old);
    std::ofstream(old / "zoo-x.bin") << "entry";
    fs::last_write_time(old, now - std::chrono::hours(10 - k));  // old4 is the newest
  }
  fs::create_directories(fs::path(dir_) / "not-a-build");
  zoo_run(kNet, opts_, "cfg", false);
  std::set<std::string> left;
  for (const auto& e : fs::directory_iterator(dir_)) left.insert(e.path().filename().string());
  EXPECT_EQ(left, (std::set<std::string>{fs::path(path()).parent_path().filename().string(), "build-old2", "build-old3",
                                         "build-old4", "not-a-build"}));
}

TEST_F(ZooCache, AnUnwritableFolderIsNoError) {
  setenv("VTA_CACHE_DIR", "/proc/vta-no-such-folder", 1);
  const ZooRun r = zoo_run(kNet, opts_, "cfg", true);
  EXPECT_FALSE(r.from_cache);
  expect_fresh(r);
}

TEST(GraphIo, RoundTripsEveryField) {
  Graph g = build_zoo("resnet18", {3, 1, 32});
  // Fields the zoo leaves at their defaults, set so that a dropped one shows.
  Node& n = g.nodes.at(1);
  n.device = Device::Vta, n.x_zp = -3, n.w_zp = 4, n.zp = 5, n.uint8 = true, n.int32_out = true, n.scale = 0.125;
  n.vta_rq = VtaRequant{1, 300, 9}, n.weight_sets = 2, n.mult = 77, n.shift_a = 2, n.shift_b = 1;
  n.round_even = true, n.fmult = 0.375F, n.lshift = {1, 0, 3}, n.in_scales = {0.5F, 0.25F}, n.in_zps = {-7, 9};
  n.band = {7, 8, 2}, n.band_src = {14, 16, 1};
  std::string bytes;
  write_graph(bytes, g);
  const Tensor t{Shape{1, 2, 1, 1}, {1, -2}, {}};
  write_tensor(bytes, t);
  size_t pos = 0;
  EXPECT_EQ(read_graph(bytes, pos, "mem"), g);
  const Tensor back = read_tensor(bytes, pos, "mem");
  EXPECT_EQ(back.shape, t.shape);
  EXPECT_EQ(back.data, t.data);
  EXPECT_EQ(pos, bytes.size());
}

TEST(GraphIo, TruncatedBytesAreAnError) {
  const Graph g = build_zoo("lenet5", {});
  std::string bytes;
  write_graph(bytes, g);
  for (size_t cut : {size_t{0}, size_t{5}, bytes.size() / 3, bytes.size() - 1}) {
    size_t pos = 0;
    EXPECT_THROW(read_graph(bytes.substr(0, cut), pos, "mem"), Error) << cut;
  }
}

}  // namespace
}  // namespace vta::compiler
