// Exact cycle counts of tiny programs on a cycle model (VTA_TEST_BACKEND:
// systemc, the default, verilator or systemc-rtl; CMake registers the suite
// once per cycle model built), each derived by
// hand from the rules of docs/timing.md on the default config (64-bit bus:
// 8 bytes a beat, read and write latency 16, bursts of up to 256 beats, GEMM
// pipeline depth 4, ALU latency 4 with 16 lanes, II 1 (immediate) / 2 (vector),
// pad fill 1 element a cycle, command queues of 8).
//
// Common prefix: fetch asks for the whole program (N instructions = 16N bytes
// = 2N beats) at cycle 0; the port grants it at 1; data arrives from
// 1 + 16 = 17 for 2N beats, ending at 17 + 2N. Instruction k is then
// dispatched one per cycle and is available at 17 + 2N + 1 + k.
#include <gtest/gtest.h>

#include "test_support.h"
#include "vta/isa/error.h"

namespace {

using namespace vta::test;
using vta::isa::AluOp;
using vta::isa::MemId;

// The cycle model under test.
std::string cycle_backend() {
  const std::string b = test_backend();
  return b == "golden" ? "systemc" : b;
}

// Every figure below is derived by hand from the rules in core cycles, so the
// memory port is the fixed model's (the preset names its board's DDR3, whose
// timing has its own tests: test_dram*.cpp, DramPort.*).
template <typename F>
vta::Stats run_timed(F&& build, const std::vector<vta::Override>& overrides = {}) {
  std::vector<vta::Override> ov{{"memory.dram", "fixed"}};
  ov.insert(ov.end(), overrides.begin(), overrides.end());
  use_test_rtl_cache();  // alu.concurrent: the RTL backends' model is built on demand
  auto backend = vta::make_backend(cycle_backend(), preset("vta-1x16x16", ov));
  ProgramBuilder p(*backend);
  build(p);
  p.run();
  return backend->stats().total;
}

// N instructions: the first is available at 17 + 2N + 1.
constexpr uint64_t first_avail(uint64_t n) { return 17 + 2 * n + 1; }

TEST(Timing, FetchOfTwoInstructions) {
  // FINISH alone is one instruction: available at 17 + 2 + 1 = 20, runs 1 cycle.
  auto s = run_timed([](ProgramBuilder& p) { p.add(make_finish()); });
  EXPECT_EQ(s.get("cycles.total"), first_avail(1) + 1);
  EXPECT_EQ(s.get("fetch.wait_memory"), 17u + 2u);
}

TEST(Timing, LoadInpOneElement) {
  // LOAD available at 22: issue cycle -> request at 23, grant 24, data 40..42.
  auto s = run_timed([](ProgramBuilder& p) {
    uint32_t a = p.buffer(MemId::INP, 1);
    p.add(make_load(MemId::INP, 0, a, 1, 1, 1));
    p.add(make_finish());
  });
  EXPECT_EQ(first_avail(2), 22u);
  EXPECT_EQ(s.get("cycles.total"), 42u);
  EXPECT_EQ(s.get("load.busy"), 42u - 22u);
  EXPECT_EQ(s.get("load.wait_memory"), (42u - 23u) - 2u);  // all but its 2 beats
  EXPECT_EQ(s.get("memory.read_beats"), 4u + 2u);          // fetch + data
}

// One element of each memory type, available at 22, with and without two pad
// elements: request at 23 (+2 fill cycles), grant +1, data from +16 for
// ceil(E/8) beats. Loads on the compute module are followed by FINISH (+1).
struct OneLoad {
  MemId mem;
  uint64_t beats;
  bool on_compute;
};
class TimingLoadEachMemory : public ::testing::TestWithParam<std::tuple<OneLoad, bool>> {};

TEST_P(TimingLoadEachMemory, ExactCycles) {
  // Not a structured binding: clang 14 (the asan preset) cannot capture one.
  const OneLoad l = std::get<0>(GetParam());
  const bool padded = std::get<1>(GetParam());
  auto s = run_timed([&](ProgramBuilder& p) {
    uint32_t a = p.buffer(l.mem, 1);
    p.add(make_load(l.mem, 0, a, 1, 1, 1, 0, 0, padded ? 2 : 0, 0));
    p.add(make_finish());
  });
  const uint64_t end = 22 + 1 + (padded ? 2 : 0) + 1 + 16 + l.beats;
  EXPECT_EQ(s.get("cycles.total"), end + (l.on_compute ? 1 : 0));
}

INSTANTIATE_TEST_SUITE_P(
    Timing, TimingLoadEachMemory,
    ::testing::Combine(::testing::Values(OneLoad{MemId::UOP, 1, true}, OneLoad{MemId::WGT, 32, false},
                                         OneLoad{MemId::INP, 2, false}, OneLoad{MemId::ACC, 8, true},
                                         OneLoad{MemId::ACC_8BIT, 2, true}),
                       ::testing::Bool()));

TEST(Timing, LoadInpWithPadding) {
  // 1 row, x_pad_0 1, x_pad_1 2, y_pad_0 1: (1+1)*(1+1+2) = 8 elements, 7 pads
  // -> 7 fill cycles: request at 22 + 1 + 7 = 30, grant 31, data 47..49.
  auto s = run_timed([](ProgramBuilder& p) {
    uint32_t a = p.buffer(MemId::INP, 1);
    p.add(make_load(MemId::INP, 0, a, 1, 1, 1, 1, 0, 1, 2));
    p.add(make_finish());
  });
  EXPECT_EQ(s.get("cycles.total"), 49u);
}

TEST(Timing, LoadWgtIs32Beats) {
  // One 256-byte WGT element = 32 beats: data 40..72.
  auto s = run_timed([](ProgramBuilder& p) {
    uint32_t w = p.buffer(MemId::WGT, 1);
    p.add(make_load(MemId::WGT, 0, w, 1, 1, 1));
    p.add(make_finish());
  });
  EXPECT_EQ(s.get("cycles.total"), 72u);
}

// Element widths (docs/design.md, "Data types") change the bytes of an
// element and so its beats, nothing else: one INP element of 16 values is 8
// bytes at 4 bits (1 beat: data 40..41), 16 at 8 (42) and 32 at 16 (44);
// one WGT element of 256 values 128 bytes at 4 bits (16 beats: 40..56); one
// ACC element of 16 lanes 32 bytes at 16 bits (4 beats: 40..44, FINISH
// 44..45). Narrower elements make the same buffer bytes deeper, past what
// the instruction fields address, so each case halves its buffer (the
// narrower INT4 designs built on boards shrink theirs too).
TEST(TimingWidths, LoadBeatsFollowTheElementWidth) {
  // On the RTL backends each case is a design of its own, built on demand
  // (eight vta-1x16x16 models for verilator and systemc-rtl, about 90 s
  // each); their cycles at these widths are the SystemC model's by
  // Verilator.ElementWidthsMatchSystemC (every stat, two width designs).
  if (const std::string b = test_backend(); b == "verilator" || b == "systemc-rtl")
    GTEST_SKIP() << "TimingWidths does not build its four width designs for " << b
                 << " (Verilator.ElementWidthsMatchSystemC checks the RTL's cycles at widths)";
  struct Case {
    MemId mem;
    const char* knob;
    const char* bits;
    const char* buffer;
    const char* bytes;
    uint64_t total;
  };
  for (const Case& k : {Case{MemId::INP, "dtype.inp_bits", "4", "buffers.inp", "16KiB", 41},
                        Case{MemId::INP, "dtype.inp_bits", "16", "buffers.inp", "32KiB", 44},
                        Case{MemId::WGT, "dtype.wgt_bits", "4", "buffers.wgt", "128KiB", 56},
                        Case{MemId::ACC, "dtype.acc_bits", "16", "buffers.acc", "64KiB", 45}}) {
    SCOPED_TRACE(std::string(k.knob) + " = " + k.bits);
    const vta::Stats s = run_timed(
        [&](ProgramBuilder& p) {
          uint32_t a = p.buffer(k.mem, 1);
          p.add(make_load(k.mem, 0, a, 1, 1, 1));
          p.add(make_finish());
        },
        {{k.knob, k.bits}, {k.buffer, k.bytes}});
    EXPECT_EQ(s.get("cycles.total"), k.total);
  }
}

TEST(Timing, LoadAccOnComputeThenFinish) {
  // ACC (64 bytes, 8 beats) runs on compute: 22 -> request 23, grant 24,
  // data 40..48; FINISH (available 23) then runs 48..49.
  auto s = run_timed([](ProgramBuilder& p) {
    uint32_t a = p.buffer(MemId::ACC, 1);
    p.add(make_load(MemId::ACC, 0, a, 1, 1, 1));
    p.add(make_finish());
  });
  EXPECT_EQ(s.get("cycles.total"), 49u);
  EXPECT_EQ(s.get("compute.busy"), (48u - 22u) + 1u);
}

TEST(Timing, RowsSplitIntoBurstsOfAtMostMaxBurst) {
  // 2 rows of 130 INP elements (2080 bytes = 260 beats each) with max_burst
  // 256: bursts 256, 4, 256, 4, granted 24, 25, 26, 27; data back to back from
  // 40: 40 + 520 = 560.
  auto s = run_timed([](ProgramBuilder& p) {
    uint32_t a = p.buffer(MemId::INP, 260);
    p.add(make_load(MemId::INP, 0, a, 2, 130, 130));
    p.add(make_finish());
  });
  EXPECT_EQ(s.get("cycles.total"), 560u);
}

TEST(Timing, OutstandingReadsLimitGrants) {
  // outstanding_reads 1: each burst must finish before the next is granted.
  // Bursts 256 and 4 (one 260-beat row): grant 24, data 40..296; the second is
  // granted at 296, data 312..316.
  auto s = run_timed(
      [](ProgramBuilder& p) {
        uint32_t a = p.buffer(MemId::INP, 130);
        p.add(make_load(MemId::INP, 0, a, 1, 130, 130));
        p.add(make_finish());
      },
      {{"memory.outstanding_reads", "1"}});
  EXPECT_EQ(s.get("cycles.total"), 316u);
}

TEST(Timing, GemmIsPipelineDepthPlusOneUopPerCycle) {
  // uops [0,2) x 3 x 4 = 24 iterations + depth 4 = 28: 22..50, FINISH 50..51.
  auto s = run_timed([](ProgramBuilder& p) {
    p.add(make_gemm(false, 0, 2, 3, 4));
    p.add(make_finish());
  });
  EXPECT_EQ(s.get("cycles.total"), 51u);
  EXPECT_EQ(s.get("gemm.active_cycles"), 24u);
}

TEST(Timing, AluImmediateVersusVector) {
  // 6 iterations, 16 ACC lanes on 16 ALU lanes = 1 group: imm 4 + 6*1 = 10,
  // vector 4 + 6*2 = 16; then FINISH.
  auto imm = run_timed([](ProgramBuilder& p) {
    p.add(make_alu(AluOp::ADD, true, 1, 0, 1, 2, 3));
    p.add(make_finish());
  });
  auto vec = run_timed([](ProgramBuilder& p) {
    p.add(make_alu(AluOp::ADD, false, 0, 0, 1, 2, 3, 0, 0, 0, 0));
    p.add(make_finish());
  });
  EXPECT_EQ(imm.get("cycles.total"), 22u + 10u + 1u);
  EXPECT_EQ(vec.get("cycles.total"), 22u + 16u + 1u);
  EXPECT_EQ(imm.get("alu.active_cycles"), 6u);
  EXPECT_EQ(vec.get("alu.active_cycles"), 12u);
}

TEST(Timing, AluGroupsWhenLanesAreFewer) {
  if (cycle_backend() == "systemc-rtl") GTEST_SKIP() << "the co-simulated core is vta-1x16x16's, with 16 ALU lanes";
  // alu.lanes 4: 16 lanes take 4 groups: 4 + 6*4*1 = 28.
  auto s = run_timed(
      [](ProgramBuilder& p) {
        p.add(make_alu(AluOp::MAX, true, 0, 0, 1, 2, 3));
        p.add(make_finish());
      },
      {{"alu.lanes", "4"}});
  EXPECT_EQ(s.get("cycles.total"), 22u + 28u + 1u);
}

TEST(Timing, StoreWritesThenWaitsForTheAck) {
  // STORE of 2 OUT elements (32 bytes, 4 beats): 22 issue, write data
  // 24..28, acknowledged 28 + 16 = 44.
  auto s = run_timed([](ProgramBuilder& p) {
    uint32_t o = p.buffer(MemId::OUT, 2);
    p.add(make_store(0, o, 1, 2, 2));
    p.add(make_finish());
  });
  EXPECT_EQ(s.get("cycles.total"), 44u);
  EXPECT_EQ(s.get("memory.write_beats"), 4u);
}

TEST(Timing, TokenOnlyInstructionsTakeOneCycle) {
  auto s = run_timed([](ProgramBuilder& p) {
    p.add(with_deps(make_load(MemId::INP, 0, 0, 0, 0, 0), false, false, false, true));
    p.add(with_deps(make_finish(), true, false, false, false));
  });
  // LOAD 22..23 pushes; FINISH (available 23) pops at 23, ends 24.
  EXPECT_EQ(s.get("cycles.total"), 24u);
}

TEST(Timing, LoadComputeStorePipelineWithTokens) {
  // 4 instructions: available 26, 27, 28, 29.
  // LOAD INP 26 -> request 27, grant 28, data 44..46, push load->compute.
  // GEMM (1 uop, depth 4) waits 27..46, runs 46..51, pushes compute->store.
  // STORE (2 beats) waits 28..51, issues 51, data 53..55, ack 71, pushes.
  // FINISH pops store->compute at 71, ends 72.
  auto s = run_timed([](ProgramBuilder& p) {
    uint32_t a = p.buffer(MemId::INP, 1);
    uint32_t o = p.buffer(MemId::OUT, 1);
    p.add(with_deps(make_load(MemId::INP, 0, a, 1, 1, 1), false, false, false, true));
    p.add(with_deps(make_gemm(false, 0, 1, 1, 1), true, false, false, true));
    p.add(with_deps(make_store(0, o, 1, 1, 1), true, false, true, false));
    p.add(with_deps(make_finish(), false, true, false, false));
  });
  EXPECT_EQ(s.get("cycles.total"), 72u);
  EXPECT_EQ(s.get("compute.wait_token"), (46u - 27u) + (71u - 51u));
  EXPECT_EQ(s.get("store.wait_token"), 51u - 28u);
}

TEST(Timing, LoadsOverlapCompute) {
  // 5 instructions: available 28..32. L1 28 -> data 46..48; L2 48 -> 66..68;
  // G1 (100 iterations + 4) 48..152 overlaps L2; G2 152..256; FINISH 256..257.
  auto s = run_timed([](ProgramBuilder& p) {
    uint32_t a = p.buffer(MemId::INP, 2);
    p.add(with_deps(make_load(MemId::INP, 0, a, 1, 1, 1), false, false, false, true));
    p.add(with_deps(make_load(MemId::INP, 1, a + 1, 1, 1, 1), false, false, false, true));
    p.add(with_deps(make_gemm(false, 0, 1, 10, 10), true, false, false, false));
    p.add(with_deps(make_gemm(false, 0, 1, 10, 10), true, false, false, false));
    p.add(make_finish());
  });
  EXPECT_EQ(s.get("cycles.total"), 257u);
  EXPECT_EQ(s.get("load.busy"), 40u);
  EXPECT_EQ(s.get("compute.busy"), 209u);
  EXPECT_LT(s.get("cycles.total"), 28u + s.get("load.busy") + s.get("compute.busy"));  // they overlapped
}

TEST(Timing, FullCommandQueueStallsFetch) {
  // command_depth 2; GEMMs of 10 iterations (14 cycles). Available 28, 29, 30;
  // the 4th waits for the pop at 42 (available 43), the 5th for the pop at 56
  // (available 57): fetch waits 12 + 13 cycles. Compute runs back to back
  // 28..84, FINISH 84..85.
  auto build = [](ProgramBuilder& p) {
    for (int i = 0; i < 4; ++i) p.add(make_gemm(false, 0, 1, 10, 1));
    p.add(make_finish());
  };
  auto shallow = run_timed(build, {{"queues.command_depth", "2"}});
  EXPECT_EQ(shallow.get("cycles.total"), 85u);
  EXPECT_EQ(shallow.get("fetch.wait_queue"), 25u);
  auto deep = run_timed(build);
  EXPECT_EQ(deep.get("cycles.total"), 85u);
  EXPECT_EQ(deep.get("fetch.wait_queue"), 0u);
}

TEST(Timing, ArbitrationBetweenLoadAndCompute) {
  auto s = run_timed([](ProgramBuilder& p) {
    uint32_t a = p.buffer(MemId::INP, 1);
    uint32_t c = p.buffer(MemId::ACC, 1);
    p.add(make_load(MemId::INP, 0, a, 1, 1, 1));
    p.add(make_load(MemId::ACC, 0, c, 1, 1, 1));
    p.add(make_finish());
  });
  // 3 instructions: available 24, 25, 26. LOAD INP requests at 25 (grant 26,
  // data 42..44); LOAD ACC requests at 26 (grant 27, data 44..52); FINISH 52..53.
  EXPECT_EQ(s.get("cycles.total"), 53u);
  EXPECT_EQ(s.get("compute.wait_memory"), (52u - 26u) - 8u);
}

// ---------------------------------------------------------------------------
// alu.concurrent (docs/timing.md, "Concurrent ALU", rules C1 to C4). The ACC
// of vta-1x16x16 is 2048 elements: bank 0 holds [0, 1024), bank 1 [1024,
// 2048). Each program starts with a LOAD UOP of the uops below (2 or 3 uops,
// one or two beats), on the compute module. On every cycle backend: the RTL
// implements C1 to C4 (its vta-1x16x16 model with the knob is built on
// demand, once, into the build tree's test cache).

const std::vector<vta::Override> kConcurrent{{"alu.concurrent", "true"}};

// uop 0: dst 0 (bank 0); uop 1: dst 1024, src 1030 (bank 1); uop 2: dst
// 1024, src 0 (banks 0 and 1 for a vector op).
uint32_t concurrent_uops(ProgramBuilder& p) {
  return p.uops({make_uop(0, 0, 0), make_uop(1024, 1030, 0), make_uop(1024, 0, 0)});
}

// LOAD UOP, GEMM (uop `g`, 100 iterations: 104 cycles), ALU ADD immediate
// (uop `a`, 20 iterations: 24 cycles), FINISH. 4 instructions: available 26,
// 27, 28, 29. LOAD UOP of 3 uops (12 bytes, 2 beats): 26 -> request 27, grant
// 28, data 44..46, e = 46.
void gemm_then_alu(ProgramBuilder& p, uint32_t g, uint32_t a) {
  const uint32_t u = concurrent_uops(p);
  p.add(make_load(MemId::UOP, 0, u, 1, 3, 3));
  p.add(make_gemm(false, g, g + 1, 10, 10));
  p.add(make_alu(AluOp::ADD, true, 1, a, a + 1, 5, 4));
  p.add(make_finish());
}

// The baseline of the next test, without the knob (a test of its own: a
// systemc-rtl process co-simulates one design).
TEST(TimingConcurrent, WithoutTheKnobTheSameProgramRunsSerially) {
  // Serial (rule 4): GEMM 46..150, ALU 150..174, FINISH 174..175.
  auto serial = run_timed([](ProgramBuilder& p) { gemm_then_alu(p, 0, 1); });
  EXPECT_EQ(serial.get("cycles.total"), 175u);
  EXPECT_FALSE(serial.has("compute.wait_hazard"));  // the stat exists only with the knob
}

TEST(TimingConcurrent, AluInTheOtherBankRunsBesideTheGemm) {
  // C1: the GEMM's scan 46..47 (one uop), C2: it issues at 47, ends 151. The
  // ALU's scan starts at 48 (one issue a cycle), issues at 49 (bank 1 vs the
  // GEMM's bank 0), ends 73. C3: FINISH waits for both pipes: 151..152.
  auto s = run_timed([](ProgramBuilder& p) { gemm_then_alu(p, 0, 1); }, kConcurrent);
  EXPECT_EQ(s.get("cycles.total"), 152u);
  EXPECT_EQ(s.get("compute.busy"), 20u + 104u + 24u + 1u);
  // Scans 1 + 1, FINISH 50..151.
  EXPECT_EQ(s.get("compute.wait_hazard"), 1u + 1u + (151u - 50u));
}

TEST(TimingConcurrent, AluInTheGemmsBankWaitsForIt) {
  // As above with the ALU on uop 0 (bank 0): C2 holds it until the GEMM ends
  // at 151: ALU 151..175, FINISH 175..176 (one cycle more than serial: the
  // GEMM's scan).
  auto s = run_timed([](ProgramBuilder& p) { gemm_then_alu(p, 0, 0); }, kConcurrent);
  EXPECT_EQ(s.get("cycles.total"), 176u);
  EXPECT_EQ(s.get("compute.wait_hazard"), 1u + (151u - 48u) + (175u - 152u));  // GEMM scan; ALU; FINISH
}

TEST(TimingConcurrent, GemmBesideALongerAlu) {
  // LOAD UOP ..46; ALU ADD vector on uop 1 (dst 1024, src 1030: bank 1), 50
  // iterations at II 2: 4 + 100 = 104 cycles: scan 46..47, runs 47..151. GEMM
  // on uop 0 (bank 0), 20 iterations: scan 48..49, runs 49..73. FINISH 151..152.
  auto s = run_timed(
      [](ProgramBuilder& p) {
        const uint32_t u = concurrent_uops(p);
        p.add(make_load(MemId::UOP, 0, u, 1, 3, 3));
        p.add(make_alu(AluOp::ADD, false, 0, 1, 2, 10, 5));
        p.add(make_gemm(false, 0, 1, 5, 4));
        p.add(make_finish());
      },
      kConcurrent);
  EXPECT_EQ(s.get("cycles.total"), 152u);
}

TEST(TimingConcurrent, VectorSourceInTheGemmsBankWaits) {
  // uop 2: dst 1024 (bank 1) but src 0 (bank 0): a vector op reads both, so
  // C2 holds it until the GEMM ends at 151: 20 iterations at II 2 = 44 cycles,
  // 151..195, FINISH 195..196. The same op with an immediate reads no source
  // and runs at 49 (as on uop 1): FINISH at 151..152.
  auto vec = run_timed(
      [](ProgramBuilder& p) {
        const uint32_t u = concurrent_uops(p);
        p.add(make_load(MemId::UOP, 0, u, 1, 3, 3));
        p.add(make_gemm(false, 0, 1, 10, 10));
        p.add(make_alu(AluOp::ADD, false, 0, 2, 3, 5, 4));
        p.add(make_finish());
      },
      kConcurrent);
  EXPECT_EQ(vec.get("cycles.total"), 196u);
  auto imm = run_timed([](ProgramBuilder& p) { gemm_then_alu(p, 0, 2); }, kConcurrent);
  EXPECT_EQ(imm.get("cycles.total"), 152u);
}

TEST(TimingConcurrent, LoopOffsetsWidenTheRange) {
  // The ALU on uop 0 (dst 0) with iter_out 2 and dst_factor_out 1024 reaches
  // [0, 1024]: both banks, so it waits for the GEMM on uop 1 (bank 1) to end
  // at 151. 2 x 10 iterations: 24 cycles, 151..175, FINISH 175..176. With
  // dst_factor_out 1023 it stays in bank 0 and runs at 49: FINISH 151..152.
  auto build = [](uint32_t factor) {
    return [factor](ProgramBuilder& p) {
      const uint32_t u = concurrent_uops(p);
      p.add(make_load(MemId::UOP, 0, u, 1, 3, 3));
      p.add(make_gemm(false, 1, 2, 10, 10));
      p.add(make_alu(AluOp::ADD, true, 1, 0, 1, 2, 10, factor, 0));
      p.add(make_finish());
    };
  };
  EXPECT_EQ(run_timed(build(1024), kConcurrent).get("cycles.total"), 176u);
  EXPECT_EQ(run_timed(build(1023), kConcurrent).get("cycles.total"), 152u);
}

TEST(TimingConcurrent, EachPipeStaysInOrder) {
  // Two ALUs in different banks still run one after the other (C2: its pipe
  // free): ALU on uop 0 scan 46..47, 47..71; ALU on uop 1 scan 48..49, waits
  // for 71, 71..95; FINISH 95..96.
  auto s = run_timed(
      [](ProgramBuilder& p) {
        const uint32_t u = concurrent_uops(p);
        p.add(make_load(MemId::UOP, 0, u, 1, 3, 3));
        p.add(make_alu(AluOp::ADD, true, 1, 0, 1, 5, 4));
        p.add(make_alu(AluOp::ADD, true, 1, 1, 2, 5, 4));
        p.add(make_finish());
      },
      kConcurrent);
  EXPECT_EQ(s.get("cycles.total"), 96u);
}

TEST(TimingConcurrent, TokensArePushedInProgramOrder) {
  // 5 instructions: available 28..32. LOAD UOP 28 -> request 29, grant 30,
  // data 46..48, e = 48. GEMM (bank 0) scan 48..49, runs 49..153. ALU (bank 1,
  // pushes compute->store) scan 50..51, runs 51..75, but C4 pushes its token
  // at max(75, 153) = 153. STORE of one OUT element (2 beats) pops at 153:
  // data 155..157, ack 173. FINISH 153..154.
  auto s = run_timed(
      [](ProgramBuilder& p) {
        const uint32_t u = concurrent_uops(p);
        const uint32_t o = p.buffer(MemId::OUT, 1);
        p.add(make_load(MemId::UOP, 0, u, 1, 3, 3));
        p.add(make_gemm(false, 0, 1, 10, 10));
        p.add(with_deps(make_alu(AluOp::ADD, true, 1, 1, 2, 5, 4), false, false, false, true));
        p.add(with_deps(make_store(1024, o, 1, 1, 1), true, false, false, false));
        p.add(make_finish());
      },
      kConcurrent);
  EXPECT_EQ(s.get("cycles.total"), 173u);
  EXPECT_EQ(s.get("store.wait_token"), 153u - 31u);
}

TEST(TimingConcurrent, OtherComputeInstructionsDrainBothPipes) {
  // C3: a LOAD UOP after the GEMM and the ALU of the first test issues when
  // both pipes are empty, at 151: 5 instructions (available 28..32), so the
  // first LOAD UOP is 28..48, GEMM scan 48..49, runs 49..153, ALU 51..75; the
  // second LOAD UOP (1 uop, 1 beat) 153 -> request 154, grant 155, data
  // 171..172; FINISH 172..173.
  auto s = run_timed(
      [](ProgramBuilder& p) {
        const uint32_t u = concurrent_uops(p);
        p.add(make_load(MemId::UOP, 0, u, 1, 3, 3));
        p.add(make_gemm(false, 0, 1, 10, 10));
        p.add(make_alu(AluOp::ADD, true, 1, 1, 2, 5, 4));
        p.add(make_load(MemId::UOP, 3, u, 1, 1, 1));
        p.add(make_finish());
      },
      kConcurrent);
  EXPECT_EQ(s.get("cycles.total"), 173u);
}

}  // namespace
