// vta::Config: presets, derived quantities, sizes with units, overrides,
// the resolved-YAML round trip, the hash and the upstream import (label: unit).
// Expected derived values are computed here by hand, as upstream VTA derives
// them (depth = buffer bytes / element bytes).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "test_support.h"
#include "vta/isa/config.h"
#include "vta/isa/error.h"
#include "vta/isa/fields.h"
#include "vta/isa/host_cpu.h"

namespace {

using vta::Config;

std::string source_path(const std::string& rel) { return std::string(VTA_SOURCE_DIR) + "/" + rel; }

void expect_same_derived(const Config& a, const Config& b) {
  EXPECT_EQ(a.derived.inp_elem_bytes, b.derived.inp_elem_bytes);
  EXPECT_EQ(a.derived.wgt_elem_bytes, b.derived.wgt_elem_bytes);
  EXPECT_EQ(a.derived.acc_elem_bytes, b.derived.acc_elem_bytes);
  EXPECT_EQ(a.derived.out_elem_bytes, b.derived.out_elem_bytes);
  EXPECT_EQ(a.derived.uop_elem_bytes, b.derived.uop_elem_bytes);
  EXPECT_EQ(a.derived.uop_depth, b.derived.uop_depth);
  EXPECT_EQ(a.derived.inp_depth, b.derived.inp_depth);
  EXPECT_EQ(a.derived.wgt_depth, b.derived.wgt_depth);
  EXPECT_EQ(a.derived.acc_depth, b.derived.acc_depth);
  EXPECT_EQ(a.derived.out_depth, b.derived.out_depth);
  EXPECT_EQ(a.derived.log_uop_depth, b.derived.log_uop_depth);
  EXPECT_EQ(a.derived.log_inp_depth, b.derived.log_inp_depth);
  EXPECT_EQ(a.derived.log_wgt_depth, b.derived.log_wgt_depth);
  EXPECT_EQ(a.derived.log_acc_depth, b.derived.log_acc_depth);
}

void expect_same_layout(const Config& a, const Config& b) {
  vta::isa::Layout la(a), lb(b);
  for (auto f : {vta::isa::Format::MEM, vta::isa::Format::GEMM, vta::isa::Format::ALU, vta::isa::Format::UOP}) {
    ASSERT_EQ(la.fields(f).size(), lb.fields(f).size());
    for (size_t i = 0; i < la.fields(f).size(); ++i) {
      EXPECT_EQ(la.fields(f)[i].lsb, lb.fields(f)[i].lsb) << vta::isa::member_name(la.fields(f)[i].member);
      EXPECT_EQ(la.fields(f)[i].width, lb.fields(f)[i].width) << vta::isa::member_name(la.fields(f)[i].member);
    }
  }
}

// ------------------------------------------------------------------- presets

TEST(Presets, EveryPresetLoadsUnderItsOwnName) {
  std::set<std::string> hashes;
  for (const auto& name : vta::test::preset_names()) {
    Config c;
    ASSERT_NO_THROW(c = vta::test::preset(name)) << name;
    EXPECT_EQ(c.name, name);
    EXPECT_NE(c.source.find(name + ".yaml"), std::string::npos) << c.source;
    EXPECT_EQ(c.hash().size(), 16u) << c.hash();
    EXPECT_EQ(c.hash().find_first_not_of("0123456789abcdef"), std::string::npos) << c.hash();
    EXPECT_TRUE(hashes.insert(c.hash()).second) << name << " has the same knobs as another preset";
    EXPECT_FALSE(vta::isa::check_fit(c).has_value()) << name;
  }
}

TEST(Presets, ResolveByNameOrPath) {
  const std::string p = vta::resolve_config_path("vta-1x16x16");
  EXPECT_TRUE(std::filesystem::exists(p)) << p;
  EXPECT_EQ(std::filesystem::path(p).filename(), "vta-1x16x16.yaml");
  const std::string direct = source_path("configs/vta-1x32x32.yaml");
  EXPECT_EQ(vta::resolve_config_path(direct), direct);
  EXPECT_EQ(vta::load_config(direct).gemm.block_in, 32);
}

TEST(Presets, Default1x16x16DerivesExactlyAsUpstream) {
  const Config c = vta::test::preset("vta-1x16x16");
  const auto& d = c.derived;
  EXPECT_EQ(c.gemm.batch, 1);
  EXPECT_EQ(c.gemm.block_in, 16);
  EXPECT_EQ(c.gemm.block_out, 16);
  EXPECT_EQ(c.buffers.uop, 32768);
  EXPECT_EQ(c.buffers.inp, 32768);
  EXPECT_EQ(c.buffers.wgt, 262144);
  EXPECT_EQ(c.buffers.acc, 131072);
  // Element bytes: INP 1x16 int8, WGT 16x16 int8, ACC 1x16 int32, OUT 1x16 int8, UOP 4.
  EXPECT_EQ(d.inp_elem_bytes, 16);
  EXPECT_EQ(d.wgt_elem_bytes, 256);
  EXPECT_EQ(d.acc_elem_bytes, 64);
  EXPECT_EQ(d.out_elem_bytes, 16);
  EXPECT_EQ(d.uop_elem_bytes, 4);
  // Depths (upstream VTA_INP_BUFF_DEPTH etc.).
  EXPECT_EQ(d.inp_depth, 2048);
  EXPECT_EQ(d.wgt_depth, 1024);
  EXPECT_EQ(d.acc_depth, 2048);
  EXPECT_EQ(d.out_depth, 2048);
  EXPECT_EQ(d.uop_depth, 8192);
  EXPECT_EQ(d.log_inp_depth, 11);
  EXPECT_EQ(d.log_wgt_depth, 10);
  EXPECT_EQ(d.log_acc_depth, 11);
  EXPECT_EQ(d.log_uop_depth, 13);
  // elem_bytes by memory id: UOP 0, WGT 1, INP 2, ACC 3, OUT 4, ACC_8BIT 5 (like OUT).
  EXPECT_EQ(c.elem_bytes(0), 4);
  EXPECT_EQ(c.elem_bytes(1), 256);
  EXPECT_EQ(c.elem_bytes(2), 16);
  EXPECT_EQ(c.elem_bytes(3), 64);
  EXPECT_EQ(c.elem_bytes(4), 16);
  EXPECT_EQ(c.elem_bytes(5), 16);
  EXPECT_THROW((void)c.elem_bytes(6), vta::Error);
  EXPECT_THROW((void)c.elem_bytes(-1), vta::Error);
}

TEST(Presets, OtherShapesDeriveTheirElementSizes) {
  {
    const Config c = vta::test::preset("vta-1x32x32");
    const auto& d = c.derived;
    EXPECT_EQ(d.inp_elem_bytes, 32);
    EXPECT_EQ(d.wgt_elem_bytes, 1024);
    EXPECT_EQ(d.acc_elem_bytes, 128);
    EXPECT_EQ(d.out_elem_bytes, 32);
    EXPECT_EQ(d.inp_depth, c.buffers.inp / 32);
    EXPECT_EQ(d.wgt_depth, c.buffers.wgt / 1024);
    EXPECT_EQ(d.acc_depth, c.buffers.acc / 128);
    EXPECT_EQ(int64_t{1} << d.log_wgt_depth, d.wgt_depth);
  }
  {
    const Config c = vta::test::preset("vta-4x16x16");
    const auto& d = c.derived;
    EXPECT_EQ(d.inp_elem_bytes, 64);   // 4 rows x 16 int8
    EXPECT_EQ(d.wgt_elem_bytes, 256);  // batch does not change the weights
    EXPECT_EQ(d.acc_elem_bytes, 256);  // 4 x 16 int32
    EXPECT_EQ(d.out_elem_bytes, 64);
    EXPECT_EQ(c.elem_bytes(5), 64);
    EXPECT_EQ(d.inp_depth, c.buffers.inp / 64);
    EXPECT_EQ(d.acc_depth, c.buffers.acc / 256);
    EXPECT_EQ(d.out_depth, d.acc_depth);
  }
}

TEST(Presets, DefaultsAreTheUpstreamDesign) {
  const Config def = vta::default_config();
  const Config c = vta::test::preset("vta-1x16x16", {{"host.cpu", "custom"}, {"memory.dram", "fixed"}});
  expect_same_derived(def, c);
  EXPECT_EQ(def.hash(), c.hash()) << "the preset spells out the defaults, but for its board's host CPU and memory";
  EXPECT_EQ(def.source, "<default>");
}

// The shipped designs name their board's memory (docs/timing.md, the table
// under "Configuration knobs"), and `fixed` gives the upstream-style port back.
TEST(Presets, EachShippedDesignNamesItsBoardsMemory) {
  EXPECT_EQ(vta::test::preset("vta-1x16x16").memory.dram, "ddr3-1066");  // PYNQ-Z1
  EXPECT_EQ(vta::test::preset("vta-4x16x16").memory.dram, "ddr4-2400");  // ZCU104 class
  EXPECT_EQ(vta::test::preset("vta-1x32x32").memory.dram, "ddr4-2400");  // Alveo U250 class
  EXPECT_EQ(vta::test::preset("vta-1x16x16-pcie").memory.dram, "ddr4-2400");
  const Config fixed = vta::test::preset("vta-1x16x16", {{"memory.dram", "fixed"}});
  EXPECT_EQ(fixed.memory.read_latency, 16);  // the preset keeps the fixed port's latencies for it
}

TEST(Presets, DescribeListsDerivedQuantitiesAndFields) {
  const std::string s = vta::describe(vta::test::preset("vta-1x16x16"));
  EXPECT_NE(s.find("depths: UOP 8192 INP 2048 WGT 1024 ACC 2048"), std::string::npos) << s;
  EXPECT_NE(s.find("uop_bgn[20:8]"), std::string::npos) << s;
  EXPECT_NE(s.find("imm[127:112]"), std::string::npos) << s;
}

// -------------------------------------------------------------------- sizes

TEST(Sizes, ParseWithAndWithoutUnits) {
  const std::pair<const char*, int64_t> ok[] = {{"4096", 4096},
                                                {"4096B", 4096},
                                                {"32KiB", 32768},
                                                {"32K", 32768},
                                                {"1MiB", 1048576},
                                                {"2M", 2097152},
                                                {"1GiB", 1 << 30},
                                                {"256 KiB", 262144},
                                                {"0", 0},
                                                {"1", 1},
                                                {"64GiB", int64_t{64} << 30}};
  for (auto [text, value] : ok) {
    int64_t v = -1;
    EXPECT_TRUE(vta::parse_size(text, v)) << text;
    EXPECT_EQ(v, value) << text;
  }
  for (const char* bad : {"", "KiB", "32kb", "32KB", "1.5KiB", "-1", "abc", "32 KiBs", "0x100", "1TiB"}) {
    int64_t v = 0;
    EXPECT_FALSE(vta::parse_size(bad, v)) << bad << " parsed as " << v;
  }
}

TEST(Sizes, FormatUsesTheLargestExactUnit) {
  EXPECT_EQ(vta::format_size(32768), "32KiB");
  EXPECT_EQ(vta::format_size(1048576), "1MiB");
  EXPECT_EQ(vta::format_size(int64_t{1} << 30), "1GiB");
  EXPECT_EQ(vta::format_size(1536), "1536B");
  EXPECT_EQ(vta::format_size(4), "4B");
  EXPECT_EQ(vta::format_size(int64_t{16} << 30), "16GiB");
}

TEST(Sizes, YamlAcceptsUnitsForBufferSizes) {
  const Config c = vta::load_config_text(
      "buffers:\n  uop: 8K\n  inp: 16KiB\n  wgt: 131072\n  acc: 64KiB\nmemory:\n  dram_size: 1GiB\n", "units.yaml");
  EXPECT_EQ(c.buffers.uop, 8192);
  EXPECT_EQ(c.buffers.inp, 16384);
  EXPECT_EQ(c.buffers.wgt, 131072);
  EXPECT_EQ(c.buffers.acc, 65536);
  EXPECT_EQ(c.memory.dram_size, int64_t{1} << 30);
  EXPECT_EQ(c.derived.uop_depth, 2048);
  EXPECT_EQ(c.derived.inp_depth, 1024);
  EXPECT_EQ(c.derived.wgt_depth, 512);
  EXPECT_EQ(c.derived.acc_depth, 1024);
  EXPECT_EQ(c.derived.log_uop_depth, 11);
  // A 32x32 core with a 1MiB weight buffer: 1024 weight elements of 1KiB.
  const Config w = vta::load_config_text("gemm:\n  block_in: 32\n  block_out: 32\nbuffers:\n  wgt: 1MiB\n", "w.yaml");
  EXPECT_EQ(w.derived.wgt_depth, 1024);
  EXPECT_EQ(w.derived.log_wgt_depth, 10);
}

// ---------------------------------------------------------------- overrides

TEST(Overrides, ParseKeyEqualsValue) {
  EXPECT_EQ(vta::parse_override("gemm.block_out=32"), (vta::Override{"gemm.block_out", "32"}));
  EXPECT_EQ(vta::parse_override("opencl.device=a=b"), (vta::Override{"opencl.device", "a=b"}));
}

TEST(Overrides, SetTakesEffectOnTopOfAFile) {
  const std::string path = vta::resolve_config_path("vta-1x16x16");
  const Config base = vta::load_config(path);
  const Config c = vta::load_config(path, {{"gemm.block_out", "32"}});
  EXPECT_EQ(c.gemm.block_out, 32);
  EXPECT_EQ(c.gemm.block_in, 16);
  EXPECT_EQ(c.derived.wgt_elem_bytes, 512);
  EXPECT_EQ(c.derived.acc_elem_bytes, 128);
  EXPECT_EQ(c.derived.wgt_depth, 512);
  EXPECT_EQ(c.derived.acc_depth, 1024);
  EXPECT_EQ(c.derived.inp_depth, base.derived.inp_depth);
  EXPECT_NE(c.hash(), base.hash());
  EXPECT_NE(vta::to_yaml(c).find("block_out: 32"), std::string::npos);

  const Config more = vta::load_config(path, {{"buffers.acc", "64KiB"},
                                              {"clock.mhz", "250.5"},
                                              {"host.link", "pcie"},
                                              {"isa.alu_mul", "false"},
                                              {"opencl.platform", "Portable Computing Language"}});
  EXPECT_EQ(more.buffers.acc, 65536);
  EXPECT_EQ(more.derived.acc_depth, 1024);
  EXPECT_DOUBLE_EQ(more.clock.mhz, 250.5);
  EXPECT_EQ(more.host.link, "pcie");
  EXPECT_FALSE(more.isa.alu_mul);
  EXPECT_EQ(more.opencl.platform, "Portable Computing Language");
}

TEST(Overrides, PresetHelperAppliesOverrides) {
  const Config c = vta::test::preset("vta-4x16x16", {{"gemm.batch", "8"}, {"alu.lanes", "128"}});
  EXPECT_EQ(c.gemm.batch, 8);
  EXPECT_EQ(c.alu.lanes, 128);
  EXPECT_EQ(c.derived.inp_elem_bytes, 128);
  EXPECT_EQ(c.derived.acc_depth, 1024);
}

// ----------------------------------------------------- resolved YAML and hash

TEST(ResolvedYaml, ReloadingGivesTheSameConfig) {
  std::vector<Config> configs;
  for (const auto& name : vta::test::preset_names()) configs.push_back(vta::test::preset(name));
  configs.push_back(vta::test::preset("vta-1x16x16", {{"clock.mhz", "333.3"},
                                                      {"host.bandwidth_gbps", "0.125"},
                                                      {"host.setup_us", "12.75"},
                                                      {"opencl.device", "my \"gpu\": 1 \\ #x"},
                                                      {"opencl.binary", "/tmp/k.aocx"},
                                                      {"memory.arbitration", "fixed_priority"},
                                                      {"isa.acc_8bit", "false"},
                                                      {"memory.dram_size", "2GiB"}}));
  for (const Config& c : configs) {
    const std::string yaml = vta::to_yaml(c);
    Config back;
    ASSERT_NO_THROW(back = vta::load_config_text(yaml, "resolved.yaml")) << yaml;
    EXPECT_EQ(back.hash(), c.hash()) << yaml;
    EXPECT_EQ(back.name, c.name);
    const std::string again = vta::to_yaml(back);
    EXPECT_EQ(again.substr(again.find('\n')), yaml.substr(yaml.find('\n'))) << "stable after the header";
    expect_same_derived(back, c);
    EXPECT_DOUBLE_EQ(back.clock.mhz, c.clock.mhz);
    EXPECT_EQ(back.opencl.device, c.opencl.device);
  }
  // Every knob is written.
  const std::string yaml = vta::to_yaml(configs.front());
  for (const auto& k : vta::knobs())
    EXPECT_NE(yaml.find(std::string("  ") + k.name + ":"), std::string::npos) << k.key();
  EXPECT_NE(yaml.find("uop: 32KiB"), std::string::npos) << "sizes are written with units";
}

TEST(Hash, DiffersWhenAnyKnobDiffers) {
  const Config base = vta::test::preset("vta-1x16x16");
  EXPECT_EQ(base.hash(), vta::test::preset("vta-1x16x16").hash()) << "stable";
  const vta::Override changes[] = {{"gemm.pipeline_depth", "5"},
                                   {"alu.latency", "3"},
                                   {"queues.token_depth", "511"},
                                   {"memory.read_latency", "17"},
                                   {"memory.arbitration", "fixed_priority"},
                                   {"host.setup_us", "5.5"},
                                   {"clock.mhz", "100.5"},
                                   {"isa.alu_mul", "false"},
                                   {"opencl.binary", "k.bin"},
                                   {"opencl.variant", "workgroup"},
                                   {"buffers.uop", "16KiB"},
                                   {"gemm.batch", "2"}};
  std::set<std::string> seen{base.hash()};
  for (const auto& o : changes) {
    const Config c = vta::test::preset("vta-1x16x16", {o});
    EXPECT_TRUE(seen.insert(c.hash()).second) << o.first << "=" << o.second << " gives a hash seen before";
  }
  // Knobs added later (VTA_KNOB_LATE, the DRAM model's) count only when set
  // away from their defaults: the presets keep the hashes that stores,
  // caches and generated files were keyed on before the knobs existed.
  EXPECT_EQ(vta::default_config().hash(), "154e72fab0433627");
  // (A shipped design that names its board's CPU, host.cpu, has new host
  // figures and so a new hash; on custom it has the old one.)
  EXPECT_EQ(vta::test::preset("vta-4x16x16", {{"memory.dram", "fixed"}, {"host.cpu", "custom"}}).hash(),
            "a4bae255f38d3831");
  for (const vta::Override& o : std::vector<vta::Override>{{"memory.dram", "ddr4-2400"}}) {
    const Config c = vta::test::preset("vta-1x16x16", {o});
    EXPECT_TRUE(seen.insert(c.hash()).second) << o.first << "=" << o.second << " gives a hash seen before";
  }
  for (const vta::Override& o : std::vector<vta::Override>{{"memory.channels", "2"},
                                                           {"memory.page_policy", "closed"},
                                                           {"memory.dram_mapping", "ro.ra.bg.ba.ch.co"},
                                                           {"memory.dram_queue_depth", "8"},
                                                           {"memory.dram_refresh", "false"},
                                                           {"memory.dram_cdc_sync", "3"},
                                                           {"memory.dram_frontend_ns", "10"}}) {
    const Config c = vta::test::preset("vta-1x16x16", {{"memory.dram", "ddr4-2400"}, o});
    EXPECT_TRUE(seen.insert(c.hash()).second) << o.first << "=" << o.second << " gives a hash seen before";
  }
  // The name is not a knob: renaming a design keeps its hash.
  const Config renamed = vta::load_config_text("name: other\n", "other.yaml");
  EXPECT_EQ(renamed.name, "other");
  EXPECT_EQ(renamed.hash(), vta::default_config().hash());
}

// ----------------------------------------------------------- knob reflection

TEST(Knobs, EveryKnobHasAUniqueKeyAndASection) {
  std::set<std::string> keys, secs;
  for (const auto& s : vta::sections()) secs.insert(s.name);
  for (const auto& k : vta::knobs()) {
    EXPECT_TRUE(keys.insert(k.key()).second) << k.key();
    EXPECT_TRUE(secs.count(k.section)) << k.key();
    EXPECT_EQ(vta::find_knob(k.key()), &k);
    EXPECT_NE(std::string(k.doc), "") << k.key();
  }
  EXPECT_EQ(vta::find_knob("gemm.nope"), nullptr);
  EXPECT_EQ(vta::find_knob("gemm"), nullptr);
  ASSERT_NE(vta::find_knob("buffers.acc"), nullptr);
  EXPECT_EQ(vta::knob_value_text(vta::default_config(), *vta::find_knob("buffers.acc")), "128KiB");
}

// ---------------------------------------------------------- upstream import

constexpr const char* kUpstreamJson = R"({
  "TARGET": "sim",
  "HW_VER": "0.0.2",
  "LOG_INP_WIDTH": 3,
  "LOG_WGT_WIDTH": 3,
  "LOG_ACC_WIDTH": 5,
  "LOG_BATCH": 0,
  "LOG_BLOCK": 4,
  "LOG_UOP_BUFF_SIZE": 15,
  "LOG_INP_BUFF_SIZE": 15,
  "LOG_WGT_BUFF_SIZE": 18,
  "LOG_ACC_BUFF_SIZE": 17
})";

TEST(UpstreamImport, TypicalJsonGivesTheDefaultDesign) {
  std::string yaml;
  ASSERT_NO_THROW(yaml = vta::import_upstream_json(kUpstreamJson, "vta_config.json"));
  const Config c = vta::load_config_text(yaml, "imported.yaml");
  const Config ref = vta::test::preset("vta-1x16x16");
  EXPECT_EQ(c.gemm.batch, 1);
  EXPECT_EQ(c.gemm.block_in, 16);
  EXPECT_EQ(c.gemm.block_out, 16);
  EXPECT_EQ(c.buffers.uop, ref.buffers.uop);
  EXPECT_EQ(c.buffers.inp, ref.buffers.inp);
  EXPECT_EQ(c.buffers.wgt, ref.buffers.wgt);
  EXPECT_EQ(c.buffers.acc, ref.buffers.acc);
  EXPECT_EQ(c.dtype.acc_bits, 32);
  expect_same_derived(c, ref);
  expect_same_layout(c, ref);
  EXPECT_NE(c.name.find("1x16x16"), std::string::npos) << c.name;
  EXPECT_NE(yaml.find("vta_config.json"), std::string::npos) << "names its source";
}

TEST(UpstreamImport, BatchAndSplitBlocksAreHonoured) {
  std::string json = kUpstreamJson;
  json.replace(json.find("\"LOG_BATCH\": 0"), 14, "\"LOG_BATCH\": 2");
  json.replace(json.find("\"LOG_INP_BUFF_SIZE\": 15"), 23, "\"LOG_INP_BUFF_SIZE\": 17");
  json.replace(json.find("\"LOG_ACC_BUFF_SIZE\": 17"), 23, "\"LOG_ACC_BUFF_SIZE\": 19");
  const Config c = vta::load_config_text(vta::import_upstream_json(json, "b.json"), "b.yaml");
  expect_same_derived(c, vta::test::preset("vta-4x16x16"));
  EXPECT_EQ(c.gemm.batch, 4);

  const Config s = vta::load_config_text(
      vta::import_upstream_json(
          R"({"LOG_BLOCK_IN": 5, "LOG_BLOCK_OUT": 4, "LOG_WGT_BUFF_SIZE": 19, "LOG_BUS_WIDTH": 7})", "split.json"),
      "split.yaml");
  EXPECT_EQ(s.gemm.block_in, 32);
  EXPECT_EQ(s.gemm.block_out, 16);
  EXPECT_EQ(s.derived.wgt_elem_bytes, 512);
  EXPECT_EQ(s.derived.wgt_depth, 1024);
  EXPECT_EQ(s.memory.bus_bits, 128);
}

// ------------------------------------------------------------ host CPU presets

// Every preset has every figure, positive and with a source, and the knob
// host.cpu offers exactly the presets (and custom).
TEST(HostCpu, PresetsHaveEveryFigurePositiveAndSourced) {
  const char* keys[] = {"clock_mhz", "macs_per_cycle", "ops_per_cycle", "efficiency", "mem_gbps"};
  std::string choices = "custom";
  ASSERT_GE(vta::host_cpu_presets().size(), 3u);
  for (const auto& p : vta::host_cpu_presets()) {
    SCOPED_TRACE(p.name);
    choices += std::string("|") + p.name;
    EXPECT_GT(std::string(p.doc).size(), 10u);
    EXPECT_EQ(p.values.size(), std::size(keys)) << "one line per key";
    for (const char* k : keys) EXPECT_GT(p.get(k), 0.0) << k;
    EXPECT_LE(p.get("efficiency"), 1.0);
    for (const auto& v : p.values) EXPECT_GT(std::string(v.source).size(), 10u) << v.key << " names no source";
    const vta::HostCpuFigures f = vta::host_cpu_figures(p);
    for (double x : {f.mem_gbps, f.flush_gbps, f.op_ns, f.mac_ns}) EXPECT_GT(x, 0.0);
  }
  EXPECT_EQ(vta::find_knob("host.cpu")->choices, choices);
  EXPECT_TRUE(vta::find_knob("host.cpu")->late);
  EXPECT_THROW((void)vta::host_cpu_preset("cortex-a7"), vta::Error);
}

// A config naming a preset gets its figures: the README's equations, by hand
// for the Cortex-A9 (650 MHz, 4 MACs and 2 ops per cycle, efficiency 0.5,
// 1.575 GB/s).
TEST(HostCpu, AConfigNamingAPresetGetsItsFigures) {
  const Config c = vta::load_config_text("host:\n  cpu: cortex-a9-650\n", "a9.yaml");
  EXPECT_DOUBLE_EQ(c.host.mac_ns, 1e3 / (650 * 4 * 0.5));
  EXPECT_DOUBLE_EQ(c.host.op_ns, 1e3 / (650 * 2 * 0.5));
  EXPECT_DOUBLE_EQ(c.host.mem_gbps, 1.575);
  EXPECT_DOUBLE_EQ(c.host.flush_gbps, 1.575);
  EXPECT_EQ(vta::host_cpu_summary(c),
            "host.cpu cortex-a9-650: mem_gbps 1.575, flush_gbps 1.575, op_ns 1.538, mac_ns 0.7692 from the preset");
  for (const auto& p : vta::host_cpu_presets()) {
    const Config d = vta::load_config_text("", "d.yaml", {{"host.cpu", p.name}});
    const vta::HostCpuFigures f = vta::host_cpu_figures(p);
    EXPECT_DOUBLE_EQ(d.host.mem_gbps, f.mem_gbps) << p.name;
    EXPECT_DOUBLE_EQ(d.host.flush_gbps, f.flush_gbps) << p.name;
    EXPECT_DOUBLE_EQ(d.host.op_ns, f.op_ns) << p.name;
    EXPECT_DOUBLE_EQ(d.host.mac_ns, f.mac_ns) << p.name;
  }
  // The shipped designs name their board's CPU.
  EXPECT_EQ(vta::test::preset("vta-1x16x16").host.cpu, "cortex-a9-650");
  EXPECT_EQ(vta::test::preset("vta-4x16x16").host.cpu, "cortex-a53-1200");
  EXPECT_EQ(vta::test::preset("vta-1x32x32").host.cpu, "xeon-e5-2690v3");  // a PCIe card's server
  EXPECT_EQ(vta::test::preset("vta-1x16x16-pcie").host.cpu, "xeon-e5-2690v3");
  // The slower core costs more per MAC, per element and per byte.
  const Config a9 = vta::test::preset("vta-1x16x16"), a53 = vta::test::preset("vta-4x16x16"),
               x86 = vta::test::preset("vta-1x16x16-pcie");
  EXPECT_GT(a9.host.mac_ns, a53.host.mac_ns);
  EXPECT_GT(a53.host.mac_ns, x86.host.mac_ns);
  EXPECT_GT(a9.host.op_ns, a53.host.op_ns);
  EXPECT_GT(a53.host.op_ns, x86.host.op_ns);
  EXPECT_LT(a9.host.mem_gbps, a53.host.mem_gbps);
  EXPECT_LT(a53.host.mem_gbps, x86.host.mem_gbps);
}

// An explicit knob, in the file or by --set, wins over the preset's; the
// others still come from the preset, and the summary says which is which.
TEST(HostCpu, AnExplicitKnobOverridesThePreset) {
  const vta::HostCpuFigures a53 = vta::host_cpu_figures(vta::host_cpu_preset("cortex-a53-1200"));
  const Config file = vta::load_config_text("host:\n  cpu: cortex-a53-1200\n  mac_ns: 0.1\n", "f.yaml");
  EXPECT_DOUBLE_EQ(file.host.mac_ns, 0.1);
  EXPECT_DOUBLE_EQ(file.host.op_ns, a53.op_ns);
  EXPECT_DOUBLE_EQ(file.host.mem_gbps, a53.mem_gbps);
  EXPECT_EQ(vta::host_cpu_summary(file),
            "host.cpu cortex-a53-1200: mem_gbps 2.346, flush_gbps 2.346, op_ns 0.8333 from the preset; mac_ns 0.1 "
            "set by the config");
  const Config set = vta::test::preset("vta-1x16x16", {{"host.mem_gbps", "3"}, {"host.cpu", "cortex-a53-1200"}});
  EXPECT_DOUBLE_EQ(set.host.mem_gbps, 3.0);
  EXPECT_DOUBLE_EQ(set.host.mac_ns, a53.mac_ns);
  EXPECT_NE(vta::describe(set).find("mem_gbps 3 set by the config"), std::string::npos) << vta::describe(set);
  // custom leaves the knobs as given: the defaults, or the file's.
  const Config custom = vta::test::preset("vta-1x16x16", {{"host.cpu", "custom"}});
  EXPECT_DOUBLE_EQ(custom.host.mac_ns, 0.5);
  EXPECT_DOUBLE_EQ(custom.host.op_ns, 1.0);
  EXPECT_DOUBLE_EQ(custom.host.mem_gbps, 4.0);
  EXPECT_DOUBLE_EQ(custom.host.flush_gbps, 8.0);
  EXPECT_EQ(vta::host_cpu_summary(custom),
            "host.cpu custom: mem_gbps 4, flush_gbps 8, op_ns 1, mac_ns 0.5 as configured");
}

// host.cpu is a late knob: `custom`, given or not, keeps a config's hash (the
// stores and caches keyed before it existed); a preset changes it, and the
// resolved YAML of a preset config reloads as the same config.
TEST(HostCpu, CustomKeepsTheHashAPresetChangesIt) {
  const Config def = vta::default_config();
  EXPECT_EQ(vta::load_config_text("host:\n  cpu: custom\n", "c.yaml").hash(), def.hash());
  EXPECT_EQ(def.hash(), "154e72fab0433627");
  std::set<std::string> seen{def.hash()};
  for (const auto& p : vta::host_cpu_presets())
    EXPECT_TRUE(seen.insert(vta::load_config_text("", "p.yaml", {{"host.cpu", p.name}}).hash()).second) << p.name;
  const Config a9 = vta::test::preset("vta-1x16x16");
  const Config back = vta::load_config_text(vta::to_yaml(a9), "resolved.yaml");
  EXPECT_EQ(back.hash(), a9.hash());
  EXPECT_EQ(vta::host_cpu_summary(back), vta::host_cpu_summary(a9)) << "equal values count as the preset's";
}

}  // namespace
