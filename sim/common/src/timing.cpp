#include "vta/sim/timing.h"

#include <algorithm>

#include "vta/model/datapath.h"
#include "vta/model/program.h"

namespace vta::sim {

using isa::Member;

const char* client_name(Client c) {
  switch (c) {
    case Client::FETCH:
      return "fetch";
    case Client::LOAD:
      return "load";
    case Client::COMPUTE:
      return "compute";
    case Client::STORE:
      return "store";
  }
  return "?";
}

Timing::Timing(const Config& c)
    : cfg_(c),
      bus_bytes_(static_cast<uint64_t>(c.memory.bus_bits) / 8),
      max_burst_(static_cast<uint64_t>(c.memory.max_burst)),
      read_latency_(static_cast<uint64_t>(c.memory.read_latency)),
      write_latency_(static_cast<uint64_t>(c.memory.write_latency)),
      outstanding_(static_cast<uint64_t>(c.memory.outstanding_reads)),
      insns_per_fetch_(std::max<uint64_t>(1, max_burst_ * bus_bytes_ / isa::kInsnBytes)),
      alu_groups_((static_cast<uint64_t>(c.gemm.batch * c.gemm.block_out) + static_cast<uint64_t>(c.alu.lanes) - 1) /
                  static_cast<uint64_t>(c.alu.lanes)),
      round_robin_(c.memory.arbitration == "round_robin") {}

uint64_t Timing::gemm_cycles(const isa::Insn& insn) const {
  return model::work_of(cfg_, insn).uop_iters + static_cast<uint64_t>(cfg_.gemm.pipeline_depth);
}

uint64_t Timing::alu_active_cycles(const isa::Insn& insn) const {
  const auto ii = static_cast<uint64_t>(insn[Member::use_imm] ? cfg_.alu.ii_imm : cfg_.alu.ii_vector);
  return model::work_of(cfg_, insn).uop_iters * alu_groups_ * ii;
}

uint64_t Timing::alu_cycles(const isa::Insn& insn) const {
  return alu_active_cycles(insn) + static_cast<uint64_t>(cfg_.alu.latency);
}

uint32_t Timing::acc_banks(const isa::Insn& insn, const std::vector<model::Uop>& uops) const {
  if (model::work_of(cfg_, insn).uop_iters == 0) return 0;
  const uint64_t io = insn[Member::iter_out], ii = insn[Member::iter_in];
  const uint64_t end = std::min<uint64_t>(insn[Member::uop_end], uops.size());
  const auto bank_depth = static_cast<uint64_t>(cfg_.derived.acc_depth) / kConcurrentAccBanks;
  uint32_t banks = 0;
  // Indices grow with the loop counters (unsigned factors), so a range's
  // hull is [least uop index, greatest uop index + the last iteration's offset].
  auto add = [&](uint64_t lo, uint64_t hi) {
    for (uint64_t b = lo / bank_depth; b <= std::min<uint64_t>(hi / bank_depth, kConcurrentAccBanks - 1); ++b)
      banks |= 1u << b;
  };
  auto hull = [&](uint32_t model::Uop::*field, Member out, Member in) {
    uint64_t lo = UINT64_MAX, hi = 0;
    for (uint64_t u = insn[Member::uop_bgn]; u < end; ++u) {
      lo = std::min<uint64_t>(lo, uops[u].*field);
      hi = std::max<uint64_t>(hi, uops[u].*field);
    }
    if (lo <= hi) add(lo, hi + (io - 1) * insn[out] + (ii - 1) * insn[in]);
  };
  hull(&model::Uop::dst, Member::dst_factor_out, Member::dst_factor_in);
  if (insn.opcode() == isa::Opcode::ALU && !insn[Member::use_imm])
    hull(&model::Uop::src, Member::src_factor_out, Member::src_factor_in);
  return banks;
}

uint64_t Timing::scan_cycles(const isa::Insn& insn) const {
  if (model::work_of(cfg_, insn).uop_iters == 0) return 0;
  return uint64_t{insn[Member::uop_end]} - insn[Member::uop_bgn];
}

uint64_t Timing::pad_cycles(const isa::Insn& insn) const {
  const model::InsnWork w = model::work_of(cfg_, insn);
  const uint64_t pads = w.sram_elems - w.dram_elems;
  const auto rate = static_cast<uint64_t>(cfg_.memory.pad_elems_per_cycle);
  return (pads + rate - 1) / rate;
}

void Timing::split(uint64_t addr, uint64_t bytes, std::vector<Burst>& out) const {
  uint64_t beats = (bytes + bus_bytes_ - 1) / bus_bytes_;
  while (beats > 0) {
    const uint64_t b = std::min(beats, max_burst_);
    out.push_back(Burst{addr, static_cast<uint32_t>(b)});
    addr += b * bus_bytes_;
    beats -= b;
  }
}

std::vector<Burst> Timing::bursts(const isa::Insn& insn) const {
  std::vector<Burst> out;
  if (insn[Member::x_size] == 0) return out;
  const auto elem = static_cast<uint64_t>(cfg_.elem_bytes(static_cast<int>(insn.mem())));
  const uint64_t row = uint64_t{insn[Member::x_size]} * elem;
  const uint64_t base = uint64_t{insn[Member::dram_base]} * elem, stride = uint64_t{insn[Member::x_stride]} * elem;
  for (uint32_t y = 0; y < insn[Member::y_size]; ++y) split(base + y * stride, row, out);
  return out;
}

std::vector<Burst> Timing::fetch_bursts(uint64_t addr, uint64_t count) const {
  std::vector<Burst> out;
  split(addr, count * isa::kInsnBytes, out);
  return out;
}

}  // namespace vta::sim
