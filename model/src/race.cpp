// The race checker: vector clocks on the dependency tokens, a shadow per SRAM element.
#include "vta/model/race.h"

#include <algorithm>
#include <optional>

#include "vta/isa/error.h"
#include "vta/isa/fuzz_coverage.h"

namespace vta::model {

using isa::Insn;
using isa::Member;
using isa::MemId;
using isa::Opcode;

namespace {

constexpr MemId kBufMem[] = {MemId::UOP, MemId::INP, MemId::WGT, MemId::ACC, MemId::OUT};

}  // namespace

RaceChecker::RaceChecker(const Config& c, const isa::Layout& layout, const Program& prog)
    : layout_(layout), prog_(prog) {
  const auto& d = c.derived;
  shadow_[kUop].assign(static_cast<size_t>(d.uop_depth), Shadow{});
  shadow_[kInp].assign(static_cast<size_t>(d.inp_depth), Shadow{});
  shadow_[kWgt].assign(static_cast<size_t>(d.wgt_depth), Shadow{});
  shadow_[kAcc].assign(static_cast<size_t>(d.acc_depth), Shadow{});
  shadow_[kOut].assign(static_cast<size_t>(d.out_depth), Shadow{});
  for (size_t m = 0; m < elem_bytes_.size(); ++m) elem_bytes_[m] = c.elem_bytes(static_cast<int>(m));
  for (const Insn& insn : prog.insns) dram_ |= insn.opcode() == Opcode::STORE && insn[Member::x_size] != 0;
}

void RaceChecker::dram_rows(uint64_t base, uint64_t y, uint64_t x, uint64_t stride, uint64_t elem, bool writes) {
  if (!dram_) return;
  // Rows that touch or overlap make one range (x_stride == x_size: a block).
  uint64_t lo = 0, hi = 0;
  for (uint64_t r = 0; r < y; ++r) {
    const uint64_t a = (base + r * stride) * elem, b = a + x * elem;
    if (r > 0 && a <= hi && a >= lo) {
      hi = std::max(hi, b);
      continue;
    }
    if (r > 0) dram_range(lo, hi, writes);
    lo = a;
    hi = b;
  }
  if (y > 0) dram_range(lo, hi, writes);
}

void RaceChecker::dram_range(uint64_t lo, uint64_t hi, bool writes) {
  for (uint64_t page = lo >> kPageBits; page <= (hi - 1) >> kPageBits; ++page) {
    const uint64_t plo = std::max(lo, page << kPageBits), phi = std::min(hi, (page + 1) << kPageBits);
    auto& list = pages_[page];
    size_t keep = 0;
    for (size_t k = 0; k < list.size(); ++k) {
      const DramAccess& a = list[k];
      if (a.lo < phi && plo < a.hi && a.insn != now_ && (a.writes || writes) && !ordered(a.insn))
        report_dram(a.insn, a.writes, writes, std::max(a.lo, plo));
      const bool covered =
          static_cast<size_t>(prog_.module[a.insn - 1]) == mod_ && plo <= a.lo && a.hi <= phi && (writes || !a.writes);
      if (!covered) list[keep++] = a;
    }
    list.resize(keep);
    list.push_back(DramAccess{plo, phi, now_, writes});
  }
}

void RaceChecker::report_dram(uint32_t earlier, bool earlier_writes, bool now_writes, uint64_t addr) const {
  auto who = [&](uint32_t i) {
    return fmt::format("{} on the {} module", insn_label(layout_, prog_.insns[i - 1], i - 1),
                       module_name(prog_.module[i - 1]));
  };
  throw RaceError(
      fmt::format("data race on DRAM byte 0x{:x}: {} {} it and {} {} it, with no dependency-token path between them",
                  addr, who(earlier), earlier_writes ? "writes" : "reads", who(now_), now_writes ? "writes" : "reads"));
}

bool RaceChecker::ordered(uint32_t earlier) const {
  const auto m = static_cast<size_t>(prog_.module[earlier - 1]);
  return m == mod_ || earlier <= clock_[mod_][m];
}

void RaceChecker::read(Buf b, uint64_t e) {
  Shadow& s = shadow_[b].data()[e];
  if (s.read[mod_] == now_ || s.write == now_) return;
  if (s.write && !ordered(s.write)) report(s.write, true, false, b, e);
  s.read[mod_] = now_;
}

void RaceChecker::write(Buf b, uint64_t e) {
  Shadow& s = shadow_[b].data()[e];
  if (s.write == now_) return;
  if (s.write && !ordered(s.write)) report(s.write, true, true, b, e);
  for (const uint32_t r : s.read)
    if (r && r != now_ && !ordered(r)) report(r, false, true, b, e);
  s.write = now_;
  s.read = {};
}

void RaceChecker::report(uint32_t earlier, bool earlier_writes, bool now_writes, Buf b, uint64_t e) const {
  auto who = [&](uint32_t i) {
    return fmt::format("{} on the {} module", insn_label(layout_, prog_.insns[i - 1], i - 1),
                       module_name(prog_.module[i - 1]));
  };
  throw RaceError(
      fmt::format("data race on {} element {}: {} {} it and {} {} it, with no dependency-token path between them",
                  isa::mem_name(kBufMem[b]), e, who(earlier), earlier_writes ? "writes" : "reads", who(now_),
                  now_writes ? "writes" : "reads"));
}

// The loop nest over every uop iteration: out of the fuzzers' coverage (vta/isa/fuzz_coverage.h).
VTA_NO_FUZZ_COVERAGE const RaceChecker::Footprint* RaceChecker::footprint(const Insn& insn,
                                                                          const std::vector<Uop>& uops) {
  const uint32_t bgn = insn[Member::uop_bgn], end = insn[Member::uop_end];
  const uint32_t io = insn[Member::iter_out], ii = insn[Member::iter_in];
  if (bgn >= end || io == 0 || ii == 0) return nullptr;
  const bool gemm = insn.opcode() == Opcode::GEMM;
  const bool reset = gemm && insn[Member::reset];
  const bool reads_src = gemm ? !reset : !insn[Member::use_imm];
  const LoopKey key{bgn,
                    end,
                    io,
                    ii,
                    insn[Member::dst_factor_out],
                    insn[Member::dst_factor_in],
                    insn[Member::src_factor_out],
                    insn[Member::src_factor_in],
                    gemm ? insn[Member::wgt_factor_out] : 0u,
                    gemm ? insn[Member::wgt_factor_in] : 0u,
                    static_cast<uint32_t>(gemm) | static_cast<uint32_t>(reads_src) << 1};
  for (const auto& [k, f] : loops_)
    if (k == key) return &f;
  if (loops_.size() >= kMaxLoops) loops_.clear();
  // Each element once, in the order the loop nest first touches it.
  Footprint f;
  const uint32_t stamp = ++stamp_;
  const auto once = [&](std::vector<uint32_t>& seen, std::vector<uint32_t>& list, uint64_t e) {
    if (e >= seen.size()) seen.resize(e + 1, 0);
    if (seen[e] == stamp) return;
    seen[e] = stamp;
    list.push_back(static_cast<uint32_t>(e));
  };
  for (uint64_t o = 0; o < io; ++o)
    for (uint64_t n = 0; n < ii; ++n)
      for (uint32_t u = bgn; u < end; ++u) {
        const Uop& op = uops[u];
        if (reads_src) once(seen_[0], f.src, op.src + o * key.sfo + n * key.sfi);
        if (gemm && reads_src) once(seen_[1], f.wgt, op.wgt + o * key.wfo + n * key.wfi);
        once(seen_[2], f.dst, op.dst + o * key.dfo + n * key.dfi);
      }
  loops_.emplace_back(key, std::move(f));
  return &loops_.back().second;
}

void RaceChecker::record(uint32_t i, const std::vector<Uop>& uops) {
  const Insn& insn = prog_.insns[i];
  const Module m = prog_.module[i];
  now_ = i + 1;
  mod_ = static_cast<size_t>(m);
  Clock& clk = clock_[mod_];
  TokenQueue q;
  for (const bool next : {false, true}) {
    if (!insn[next ? Member::pop_next : Member::pop_prev] || !pop_queue(m, next, q)) continue;
    auto& fifo = tokens_[static_cast<size_t>(q)];
    if (fifo.empty()) continue;  // the schedule never pops an empty queue
    for (size_t k = 0; k < 3; ++k) clk[k] = std::max(clk[k], fifo.front()[k]);
    fifo.pop_front();
  }
  clk[mod_] = now_;

  switch (insn.opcode()) {
    case Opcode::LOAD: {
      if (insn[Member::x_size] == 0) break;  // dependency-only
      const uint64_t x = uint64_t{insn[Member::x_pad_0]} + insn[Member::x_size] + insn[Member::x_pad_1];
      const uint64_t y = uint64_t{insn[Member::y_pad_0]} + insn[Member::y_size] + insn[Member::y_pad_1];
      Buf b = kAcc;
      switch (insn.mem()) {
        case MemId::UOP:
          b = kUop;
          loops_.clear();  // the footprints follow the uops
          break;
        case MemId::INP:
          b = kInp;
          break;
        case MemId::WGT:
          b = kWgt;
          break;
        default:
          break;  // ACC, ACC_8BIT
      }
      const uint64_t base = insn[Member::sram_base];
      for (uint64_t e = base; e < base + x * y; ++e) write(b, e);
      dram_rows(insn[Member::dram_base], insn[Member::y_size], insn[Member::x_size], insn[Member::x_stride],
                static_cast<uint64_t>(elem_bytes_[static_cast<size_t>(insn.mem())]), false);
      break;
    }
    case Opcode::STORE: {
      if (insn[Member::x_size] == 0) break;
      const uint64_t base = insn[Member::sram_base];
      const uint64_t n = uint64_t{insn[Member::y_size]} * insn[Member::x_size];
      for (uint64_t e = base; e < base + n; ++e) read(kOut, e);
      dram_rows(insn[Member::dram_base], insn[Member::y_size], insn[Member::x_size], insn[Member::x_stride],
                static_cast<uint64_t>(elem_bytes_[static_cast<size_t>(MemId::OUT)]), true);
      break;
    }
    case Opcode::GEMM:
    case Opcode::ALU: {
      const Footprint* f = footprint(insn, uops);
      if (!f) break;
      const bool gemm = insn.opcode() == Opcode::GEMM;
      for (uint32_t u = insn[Member::uop_bgn]; u < insn[Member::uop_end]; ++u) read(kUop, u);
      for (const uint32_t e : f->src) read(gemm ? kInp : kAcc, e);
      for (const uint32_t e : f->wgt) read(kWgt, e);
      for (const uint32_t e : f->dst) {
        write(kAcc, e);  // read-modify-write: the write's check covers the read
        write(kOut, e);
      }
      break;
    }
    case Opcode::FINISH:
      break;
  }

  for (const bool next : {false, true})
    if (insn[next ? Member::push_next : Member::push_prev] && push_queue(m, next, q))
      tokens_[static_cast<size_t>(q)].push_back(clk);
}

void check_in_golden_order(const Config& c, const Program& prog, const Dram& dram, Datapath& checker, bool races) {
  const Schedule s = schedule(c, prog);
  std::optional<RaceChecker> rc;
  if (races) rc.emplace(c, checker.layout(), prog);
  for (const uint32_t i : s.order) {
    checker.check(prog.insns[i], i, dram);
    if (rc) rc->record(i, checker.uops());
  }
  check_deadlock(c, checker.layout(), prog, s);
}

void check_races_before_other_errors(const Config& c, const Program& prog, const Dram& dram, Datapath& checker) {
  const Schedule s = schedule(c, prog);
  RaceChecker rc(c, checker.layout(), prog);
  for (const uint32_t i : s.order) {
    try {
      checker.check(prog.insns[i], i, dram);
    } catch (const RaceError&) {
      throw;
    } catch (const Error&) {
      return;
    }
    rc.record(i, checker.uops());
  }
}

void check_races(const Config& c, const Dram& dram, const Launch& launch) {
  Datapath dp(c);
  const Program prog = fetch_program(c, dp.layout(), dram, launch);
  check_in_golden_order(c, prog, dram, dp, true);
}

}  // namespace vta::model
