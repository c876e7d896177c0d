#pragma once
// The race check of a compiled network (vta/model/race.h): each segment,
// installed at the addresses the compiler planned, must have a token path
// between every two modules that touch the same SRAM element or DRAM byte.
#include <gtest/gtest.h>

#include "vta/compiler/ir/network.h"
#include "vta/isa/config.h"
#include "vta/model/backend.h"
#include "vta/model/dram.h"
#include "vta/model/race.h"

namespace vta::test {

/// Adds a test failure per segment of `net` the race checker refuses.
inline void expect_race_free(const compiler::CompiledNetwork& net, const Config& cfg) {
  Dram dram(static_cast<uint64_t>(cfg.memory.dram_size));
  for (const auto& b : net.buffers) {
    ASSERT_EQ(dram.alloc(b.bytes), b.addr) << b.name;
    if (!b.init.empty()) dram.write(b.addr, b.init);
  }
  ASSERT_FALSE(net.segments.empty());
  for (const auto& seg : net.segments) {
    const auto& ib = net.buffers[static_cast<size_t>(seg.insn_buffer)];
    try {
      model::check_races(cfg, dram, Launch{ib.addr, seg.insn_count, seg.regions});
    } catch (const Error& e) {
      ADD_FAILURE() << ib.name << ": " << e.what();
    }
  }
}

}  // namespace vta::test
