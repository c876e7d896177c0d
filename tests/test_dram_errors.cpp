// Bad input to the DRAM model: one clear error naming the key or preset.
#include <gtest/gtest.h>

#include "error_of.h"
#include "vta/isa/error.h"
#include "vta/sim/dram/axi_port.h"
#include "vta/sim/dram/controller.h"
#include "vta/sim/dram/mapping.h"
#include "vta/sim/dram/port.h"
#include "vta/sim/dram/spec.h"

using vta::test::error_of;

namespace {

using namespace vta::sim::dram;

TEST(DramErrors, UnknownPresetNamesTheKeyAndTheChoices) {
  const std::string e = error_of([] { preset("ddr5-4800"); });
  EXPECT_NE(e.find("memory.dram: unknown DRAM preset 'ddr5-4800'"), std::string::npos) << e;
  EXPECT_NE(e.find("ddr4-2400"), std::string::npos) << e;
}

TEST(DramErrors, BadMappingNamesTheKey) {
  const Spec s = resolve(preset("ddr4-2400"));
  EXPECT_NE(
      error_of([&] { Mapping(s, "ro.ra.ba.co.bg"); }).find("memory.dram_mapping: 'ro.ra.ba.co.bg' must name each"),
      std::string::npos);
  EXPECT_NE(error_of([&] { Mapping(s, "ro.ra.ba.co.bg.bg"); }).find("memory.dram_mapping: 'bg' appears twice"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              Mapping(s, "ro.ra.xx.co.bg.ch");
            }).find("memory.dram_mapping: 'xx' in 'ro.ra.xx.co.bg.ch' is not a field"),
            std::string::npos);
}

TEST(DramErrors, BadOptionsNameTheKey) {
  Options o;
  o.channels = 3;
  EXPECT_NE(error_of([&] { resolve(preset("ddr4-2400"), o); }).find("memory.channels: 3 is not a power of two"),
            std::string::npos);
  o = {};
  o.queue_depth = 0;
  EXPECT_NE(error_of([&] { resolve(preset("ddr4-2400"), o); }).find("memory.dram_queue_depth: 0"), std::string::npos);
}

TEST(DramErrors, BadPortOptionsNameTheKey) {
  const Spec s = resolve(preset("ddr4-2400"));
  Options o;
  o.frontend_ns = -1;
  EXPECT_EQ(error_of([&] { CorePort(s, o, Freq::mhz(100)); }), "memory.dram_frontend_ns: -1 is not in 0..1000000");
  o = {};
  o.cdc_sync = 100;
  EXPECT_EQ(error_of([&] { CorePort(s, o, Freq::mhz(100)); }), "memory.dram_cdc_sync: 100 is not in 0..64");
  EXPECT_NE(error_of([] { ClockCrossing(Freq{0, 1}, Freq::mhz(100)); }).find("a clock of 0 Hz"), std::string::npos);
}

TEST(DramErrors, BadAxiPortUse) {
  const Spec s = resolve(preset("ddr4-2400"));
  EXPECT_EQ(error_of([&] { AxiPort(s, {}, Freq::mhz(100), 0); }), "memory.bus_bits: a port of 0 bytes per beat");
  AxiPort p(s, {}, Freq::mhz(100), 8);
  EXPECT_EQ(error_of([&] { p.read(0, 0x80, 0); }), "dram port: a burst of 0 beats at 0x80");
}

TEST(DramErrors, BrokenPresetNamesThePresetAndTheKey) {
  Preset p = preset("ddr4-2400");
  p.name = "broken";
  std::erase_if(p.values, [](const PresetValue& v) { return std::string_view(v.key) == "rfc"; });
  EXPECT_EQ(error_of([&] { resolve(p); }), "DRAM preset broken: 'rfc' is missing");
  p = preset("ddr4-2400");
  p.name = "broken";
  for (PresetValue& v : p.values)
    if (std::string_view(v.key) == "rcd") v.source = "";
  EXPECT_EQ(error_of([&] { resolve(p); }), "DRAM preset broken: 'rcd' names no source");
  p = preset("ddr4-2400");
  p.name = "broken";
  p.values.push_back(PresetValue{"trcd", 13.0, 0, "typo"});
  EXPECT_EQ(error_of([&] { resolve(p); }), "DRAM preset broken: unknown key 'trcd'");
  p = preset("ddr4-2400");
  p.name = "broken";
  for (PresetValue& v : p.values)
    if (std::string_view(v.key) == "banks_per_group") v.ck = 3;
  EXPECT_EQ(error_of([&] { resolve(p); }), "DRAM preset broken: 'banks_per_group' must be a power-of-two count, not 3");
}

TEST(DramErrors, RequestsOutOfOrderOrEmpty) {
  Controller c(resolve(preset("ddr4-2400")));
  EXPECT_NE(error_of([&] {
              c.submit(Request{0x40, 0, false, 0});
            }).find("dram request 0 at 0x40: 0 bytes"),
            std::string::npos);
  c.advance(100);
  EXPECT_NE(error_of([&] {
              c.submit(Request{0, 64, false, 99});
            }).find("arrives at cycle 99, before the model's time 100"),
            std::string::npos);
}

}  // namespace
