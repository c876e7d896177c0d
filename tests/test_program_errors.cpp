// Malformed programs, out-of-range accesses and deadlocks: each must end in
// one vta::Error naming the instruction index (and queue), never a crash or hang.
#include <gtest/gtest.h>

#include "test_support.h"
#include "vta/isa/error.h"
#include "vta/model/dram.h"

namespace {

using vta::isa::AluOp;
using vta::isa::MemId;
using namespace vta::test;

// Runs `build` on a fresh golden backend and returns the error message ("" if none).
template <typename F>
std::string error_of(F&& build, const std::string& preset_name = "vta-1x16x16") {
  auto backend = vta::make_backend(test_backend(), preset(preset_name));
  return run_error(*backend, build);
}

#define EXPECT_HAS(msg, text) EXPECT_NE((msg).find(text), std::string::npos) << "message: " << (msg)

TEST(Deadlock, ComputeWaitsForALoadThatNeverPushes) {
  auto msg = error_of([](ProgramBuilder& p) {
    p.add(with_deps(make_gemm(true, 0, 1, 1, 1), true, false, false, false));  // pops load->compute
    p.add(make_finish());
  });
  EXPECT_HAS(msg, "deadlock");
  EXPECT_HAS(msg, "compute module");
  EXPECT_HAS(msg, "instruction 0");
  EXPECT_HAS(msg, "load->compute");
}

TEST(Deadlock, FinishWaitsForAStoreThatNeverPushes) {
  auto msg = error_of([](ProgramBuilder& p) {
    uint32_t out = p.buffer(MemId::OUT, 1);
    p.add(make_store(0, out, 1, 1, 1));
    p.add(with_deps(make_finish(), false, true, false, false));
  });
  EXPECT_HAS(msg, "instruction 1");
  EXPECT_HAS(msg, "store->compute");
}

TEST(Deadlock, CyclicWaitNamesBothModules) {
  auto msg = error_of([](ProgramBuilder& p) {
    uint32_t inp = p.buffer(MemId::INP, 1);
    p.add(with_deps(make_load(MemId::INP, 0, inp, 1, 1, 1), false, true, false, true));  // waits compute->load
    p.add(with_deps(make_gemm(true, 0, 1, 1, 1), true, false, true, false));             // waits load->compute
    p.add(make_finish());
  });
  EXPECT_HAS(msg, "load module: instruction 0");
  EXPECT_HAS(msg, "compute->load");
  EXPECT_HAS(msg, "compute module: instruction 1");
}

// alu.concurrent (docs/timing.md, "Concurrent ALU"): a GEMM waiting for a
// load token that never comes while an ALU ran beside it is reported as on
// the serial machine, and the model's next run starts clean (SystemC: its
// retire thread unwound; RTL: the core's C4 state cleared by the start).
TEST(Deadlock, ConcurrentComputeIsReportedAndTheNextRunStartsClean) {
  const std::string b = test_backend();
  if (b != "systemc" && b != "verilator" && b != "systemc-rtl") GTEST_SKIP() << "alu.concurrent times the cycle models";
  use_test_rtl_cache();
  auto backend = vta::make_backend(b, preset("vta-1x16x16", {{"alu.concurrent", "true"}}));
  auto msg = run_error(*backend, [](ProgramBuilder& p) {
    p.add(make_alu(AluOp::ADD, true, 1, 0, 1, 10, 10));
    p.add(with_deps(make_gemm(true, 0, 1, 1, 1), true, false, false, false));  // pops load->compute
    p.add(make_finish());
  });
  EXPECT_HAS(msg, "deadlock");
  EXPECT_HAS(msg, "compute module: instruction 1");
  EXPECT_HAS(msg, "load->compute");
  EXPECT_EQ(run_error(*backend,
                      [](ProgramBuilder& p) {
                        p.add(make_alu(AluOp::ADD, true, 1, 0, 1, 10, 10));
                        p.add(make_gemm(true, 0, 1, 1, 1));
                        p.add(make_finish());
                      }),
            "");
}

TEST(Deadlock, FullCommandQueueStallsFetch) {
  // 9 loads (command queue depth 8) each wait for a token the compute module
  // would only send after instruction 9, which fetch never reaches.
  auto msg = error_of([](ProgramBuilder& p) {
    uint32_t inp = p.buffer(MemId::INP, 1);
    for (int i = 0; i < 9; ++i) p.add(with_deps(make_load(MemId::INP, 0, inp, 1, 1, 1), false, true, false, false));
    for (int i = 0; i < 9; ++i) p.add(with_deps(make_gemm(true, 0, 1, 1, 1), false, false, true, false));
    p.add(make_finish());
  });
  EXPECT_HAS(msg, "deadlock");
  EXPECT_HAS(msg, "fetch: instruction 8");  // 0..7 fill the 8-entry queue
  EXPECT_HAS(msg, "command queue");
}

TEST(Deadlock, CorrectTokensRunToCompletion) {
  // The same shape as the cyclic case, synchronised correctly, must run.
  auto msg = error_of([](ProgramBuilder& p) {
    uint32_t inp = p.buffer(MemId::INP, 1);
    p.add(with_deps(make_load(MemId::INP, 0, inp, 1, 1, 1), false, false, false, true));
    p.add(with_deps(make_gemm(true, 0, 1, 1, 1), true, false, false, false));
    p.add(make_finish());
  });
  EXPECT_EQ(msg, "");
}

TEST(Bounds, LoadPastTheEndOfSram) {
  auto msg = error_of([](ProgramBuilder& p) {
    uint32_t inp = p.buffer(MemId::INP, 4);
    p.add(make_load(MemId::INP, 2047, inp, 1, 2, 2));
    p.add(make_finish());
  });
  EXPECT_HAS(msg, "instruction 0 (LOAD INP");
  EXPECT_HAS(msg, "INP buffer has 2048");
}

TEST(Bounds, LoadOutsideAllocatedDram) {
  auto msg = error_of([](ProgramBuilder& p) {
    uint32_t inp = p.buffer(MemId::INP, 4);
    p.add(make_load(MemId::INP, 0, inp, 2, 4, 30000));  // second row far past every allocation
    p.add(make_finish());
  });
  EXPECT_HAS(msg, "instruction 0");
  EXPECT_HAS(msg, "outside any allocation");
}

// Bounds are the buffer's own size, not the 4 KiB page it sits in: one
// element past a 4-element buffer is outside, on every backend.
TEST(Bounds, LoadOnePastTheBufferInsideItsPage) {
  auto msg = error_of([](ProgramBuilder& p) {
    uint32_t inp = p.buffer(MemId::INP, 4);
    p.add(make_load(MemId::INP, 0, inp, 1, 5, 5));
    p.add(make_finish());
  });
  EXPECT_HAS(msg, "instruction 0 (LOAD INP");
  EXPECT_HAS(msg, "outside any allocation");
}

TEST(Bounds, StorePastTheBufferInsideItsPage) {
  auto msg = error_of([](ProgramBuilder& p) {
    uint32_t out = p.buffer(MemId::OUT, 1);
    p.add(make_store(0, out, 1, 2, 2));
    p.add(make_finish());
  });
  EXPECT_HAS(msg, "instruction 0 (STORE OUT");
  EXPECT_HAS(msg, "outside any allocation");
}

TEST(Bounds, StoreOutsideAllocatedDram) {
  auto msg = error_of([](ProgramBuilder& p) {
    p.add(make_store(0, 0x7fffff, 1, 1, 1));
    p.add(make_finish());
  });
  EXPECT_HAS(msg, "instruction 0 (STORE OUT");
  EXPECT_HAS(msg, "outside any allocation");
}

TEST(Bounds, GemmLoopRunsPastAcc) {
  auto msg = error_of([](ProgramBuilder& p) {
    uint32_t u = p.uops({make_uop(2040, 0, 0)});
    p.add(make_load(MemId::UOP, 0, u, 1, 1, 1));
    p.add(make_gemm(false, 0, 1, 4, 1, 4, 0));  // dst reaches 2040 + 3*4 = 2052
    p.add(make_finish());
  });
  EXPECT_HAS(msg, "instruction 1 (GEMM");
  EXPECT_HAS(msg, "ACC index 2052");
}

TEST(Bounds, AluSourcePastAcc) {
  auto msg = error_of([](ProgramBuilder& p) {
    uint32_t u = p.uops({make_uop(0, 2047, 0)});
    p.add(make_load(MemId::UOP, 0, u, 1, 1, 1));
    p.add(make_alu(AluOp::ADD, false, 0, 0, 1, 1, 2, 0, 0, 0, 1));
    p.add(make_finish());
  });
  EXPECT_HAS(msg, "instruction 1 (ALU ADD");
  EXPECT_HAS(msg, "ACC index 2048");
}

TEST(Bounds, UopEndPastUopBuffer) {
  auto msg = error_of(
      [](ProgramBuilder& p) {
        p.add(make_gemm(false, 8000, 8191, 1, 1));
        p.add(make_finish());
      },
      "vta-1x16x16");
  EXPECT_EQ(msg, "") << "uop_end 8191 is inside the 8192-entry uop buffer";
  auto msg2 = error_of([](ProgramBuilder& p) {
    vta::isa::Insn g = make_gemm(false, 0, 8192, 1, 1);
    p.add(g);
    p.add(make_finish());
  });
  EXPECT_EQ(msg2, "") << "uop_end 8192 = depth is the exclusive end";
}

TEST(Malformed, NoFinish) {
  auto msg = error_of([](ProgramBuilder& p) { p.add(make_gemm(true, 0, 1, 1, 1)); });
  EXPECT_HAS(msg, "no FINISH");
}

TEST(Malformed, InstructionAfterFinish) {
  auto msg = error_of([](ProgramBuilder& p) {
    p.add(make_finish());
    p.add(make_gemm(true, 0, 1, 1, 1));
  });
  EXPECT_HAS(msg, "instruction 1");
  EXPECT_HAS(msg, "follows FINISH");
}

TEST(Malformed, LoadModuleCannotPopPrev) {
  auto msg = error_of([](ProgramBuilder& p) {
    uint32_t inp = p.buffer(MemId::INP, 1);
    p.add(with_deps(make_load(MemId::INP, 0, inp, 1, 1, 1), true, false, false, false));
    p.add(make_finish());
  });
  EXPECT_HAS(msg, "instruction 0");
  EXPECT_HAS(msg, "load module has no previous module");
}

TEST(Malformed, StoreModuleCannotPushNext) {
  auto msg = error_of([](ProgramBuilder& p) {
    uint32_t out = p.buffer(MemId::OUT, 1);
    p.add(with_deps(make_store(0, out, 1, 1, 1), false, false, false, true));
    p.add(make_finish());
  });
  EXPECT_HAS(msg, "store module has no next module");
}

TEST(Malformed, StoreOfNonOutMemory) {
  auto msg = error_of([](ProgramBuilder& p) {
    vta::isa::Insn s = make_store(0, 1, 1, 1, 1);
    s[vta::isa::Member::memory_type] = static_cast<uint32_t>(MemId::ACC);
    p.add(s);
    p.add(make_finish());
  });
  EXPECT_HAS(msg, "STORE can only read the OUT buffer");
}

TEST(Malformed, StoreWithPadding) {
  auto msg = error_of([](ProgramBuilder& p) {
    vta::isa::Insn s = make_store(0, 1, 1, 1, 1);
    s[vta::isa::Member::x_pad_0] = 1;
    p.add(s);
    p.add(make_finish());
  });
  EXPECT_HAS(msg, "STORE does not support padding");
}

TEST(Malformed, LoadIntoOut) {
  auto msg = error_of([](ProgramBuilder& p) {
    p.add(make_load(MemId::OUT, 0, 1, 1, 1, 1));
    p.add(make_finish());
  });
  EXPECT_HAS(msg, "LOAD cannot target OUT");
}

TEST(Malformed, UnknownMemoryType) {
  auto msg = error_of([](ProgramBuilder& p) {
    vta::isa::Insn l = make_load(MemId::INP, 0, 1, 1, 1, 1);
    l[vta::isa::Member::memory_type] = 7;
    p.add(l);
    p.add(make_finish());
  });
  EXPECT_HAS(msg, "memory_type 7 does not exist");
}

TEST(Malformed, UnknownAluOpcode) {
  auto msg = error_of([](ProgramBuilder& p) {
    vta::isa::Insn a = make_alu(AluOp::ADD, true, 1, 0, 1, 1, 1);
    a[vta::isa::Member::alu_opcode] = 6;
    p.add(a);
    p.add(make_finish());
  });
  EXPECT_HAS(msg, "alu_opcode 6 does not exist");
}

TEST(Malformed, DisabledExtensions) {
  auto backend =
      vta::make_backend(test_backend(), preset("vta-1x16x16", {{"isa.alu_mul", "false"}, {"isa.acc_8bit", "false"}}));
  ProgramBuilder p(*backend);
  p.add(make_alu(AluOp::MUL, true, 3, 0, 1, 1, 1));
  p.add(make_finish());
  try {
    p.run();
    FAIL() << "MUL ran with isa.alu_mul false";
  } catch (const vta::Error& e) {
    EXPECT_NE(std::string(e.what()).find("isa.alu_mul"), std::string::npos) << e.what();
  }
  ProgramBuilder q(*backend);
  q.add(make_load(MemId::ACC_8BIT, 0, 1, 1, 1, 1));
  q.add(make_finish());
  try {
    q.run();
    FAIL() << "ACC_8BIT ran with isa.acc_8bit false";
  } catch (const vta::Error& e) {
    EXPECT_NE(std::string(e.what()).find("isa.acc_8bit"), std::string::npos) << e.what();
  }
}

TEST(Malformed, UnknownOpcodeInBinary) {
  auto backend = vta::make_backend(test_backend(), preset("vta-1x16x16"));
  uint64_t addr = backend->dram().alloc(32);
  uint8_t bad[32] = {};
  bad[0] = 6;   // opcode 6
  bad[16] = 3;  // FINISH
  backend->dram().write(addr, bad);
  try {
    backend->run(vta::Launch{addr, 2, {}});
    FAIL() << "opcode 6 was accepted";
  } catch (const vta::Error& e) {
    EXPECT_NE(std::string(e.what()).find("instruction 0: unknown opcode 6"), std::string::npos) << e.what();
  }
}

TEST(Malformed, InstructionsOutsideDram) {
  auto backend = vta::make_backend(test_backend(), preset("vta-1x16x16"));
  try {
    backend->run(vta::Launch{0x100000, 4, {}});
    FAIL();
  } catch (const vta::Error& e) {
    EXPECT_NE(std::string(e.what()).find("outside allocated DRAM"), std::string::npos) << e.what();
  }
}

TEST(Malformed, BadRegions) {
  auto backend = vta::make_backend(test_backend(), preset("vta-1x16x16"));
  ProgramBuilder p(*backend);
  p.add(make_finish());
  p.run();  // fine without regions
  uint64_t addr = backend->dram().alloc(16);
  uint8_t fin[16] = {3};
  backend->dram().write(addr, fin);
  try {
    backend->run(vta::Launch{addr, 1, {{"conv1", 0, 5}}});
    FAIL();
  } catch (const vta::Error& e) {
    EXPECT_NE(std::string(e.what()).find("region 'conv1'"), std::string::npos) << e.what();
  }
}

// A STORE into the program's own instructions (tests/data/repro-programs/
// selfmod.vasm) would make the result depend on when fetch reads them: it is
// rejected before anything runs, with the same message on every backend.
TEST(Malformed, StoreIntoTheProgramsOwnInstructions) {
  auto msg = error_of([](ProgramBuilder& p) {
    const uint32_t out = p.buffer(MemId::OUT, 1);  // one page; the instructions follow on the next
    p.add(make_gemm(true, 0, 1, 1, 1));
    p.add(make_store(0, out + 256 + 2, 1, 1, 1));
    p.add(make_finish());
  });
  EXPECT_HAS(msg, "instruction 1 (STORE OUT");
  EXPECT_HAS(msg, "over the program's own instruction 2");
  EXPECT_HAS(msg, "may not store into its instructions");
}

// The same STORE one element before the instructions is fine.
TEST(Malformed, StoreJustBeforeTheInstructionsRuns) {
  auto msg = error_of([](ProgramBuilder& p) {
    const uint32_t out = p.buffer(MemId::OUT, 256);
    p.add(with_deps(make_gemm(true, 0, 1, 1, 1), false, false, false, true));
    p.add(with_deps(make_store(0, out + 255, 1, 1, 1), true, false, false, false));
    p.add(make_finish());
  });
  EXPECT_EQ(msg, "");
}

// Errors in two modules: every backend reports the one the golden model's
// order reaches first, here the compute module's GEMM
// (instruction 2) behind a long ALU loop, not the load module's LOAD
// (instruction 3), which a cycle model starts at once.
TEST(FirstError, TwoModulesReportTheGoldenOrdersFirst) {
  auto msg = error_of([](ProgramBuilder& p) {
    const uint32_t inp = p.buffer(MemId::INP, 4);
    const uint32_t u = p.uops({make_uop(2040, 0, 0)});
    p.add(make_load(MemId::UOP, 0, u, 1, 1, 1));
    p.add(make_alu(AluOp::ADD, true, 1, 0, 1, 64, 64));
    p.add(make_gemm(false, 0, 1, 16, 1, 1, 0));         // ACC index 2055: past the buffer
    p.add(make_load(MemId::INP, 0, inp, 2, 4, 30000));  // second row outside DRAM
    p.add(make_finish());
  });
  EXPECT_HAS(msg, "instruction 2 (GEMM");
  EXPECT_EQ(msg.find("instruction 3"), std::string::npos) << msg;
}

// A GEMM of 16383 x 16383 iterations over 1024 uops (tests/data/repro-programs/
// huge_gemm.vasm) is refused before it runs, naming it and the budget.
TEST(Budget, HugeLoopIsRefusedUpFront) {
  auto msg = error_of([](ProgramBuilder& p) {
    const uint32_t u = p.uops(std::vector<vta::isa::Insn>(1024, make_uop(0, 0, 0)));
    p.add(make_load(MemId::UOP, 0, u, 1, 1024, 1024));
    p.add(make_gemm(false, 0, 1024, 16383, 16383));
    p.add(make_finish());
  });
  EXPECT_HAS(msg, "instruction 1 (GEMM");
  EXPECT_HAS(msg, "needs 274844354562 steps");  // 1 + 1025 (the LOAD) + 1 + 16383^2 * 1024
  EXPECT_HAS(msg, "budget of 4294967296 steps per run");
}

// The budget counts what runs: a program just under a lowered budget runs,
// one step more is refused.
TEST(Budget, TheLimitIsExact) {
  for (const uint64_t budget : {uint64_t{68}, uint64_t{67}}) {  // LOAD 1 + 1, GEMM 1 + 64, FINISH 1
    vta::BackendOptions o;
    o.max_steps = budget;
    auto backend = vta::make_backend(test_backend(), preset("vta-1x16x16"), o);
    const std::string msg = run_error(*backend, [](ProgramBuilder& p) {
      const uint32_t u = p.uops({make_uop(0, 0, 0)});
      p.add(make_load(MemId::UOP, 0, u, 1, 1, 1));
      p.add(make_gemm(true, 0, 1, 8, 8));
      p.add(make_finish());
    });
    if (budget == 68)
      EXPECT_EQ(msg, "");
    else
      EXPECT_HAS(msg, "instruction 2 (FINISH");
  }
}

TEST(Recovery, BackendIsUsableAfterAnError) {
  auto backend = vta::make_backend(test_backend(), preset("vta-1x16x16"));
  ProgramBuilder bad(*backend);
  bad.add(with_deps(make_gemm(true, 0, 1, 1, 1), true, false, false, false));
  bad.add(make_finish());
  EXPECT_THROW(bad.run(), vta::Error);
  ProgramBuilder good(*backend);
  good.add(make_gemm(true, 0, 1, 1, 1));
  good.add(make_finish());
  EXPECT_NO_THROW(good.run());
  EXPECT_EQ(backend->stats().total.get("insn.GEMM"), 1u);
}

}  // namespace

// The allocator is first fit over the address space: a freed range is
// reused, an aligned buffer leaves a gap a later page fills, and many
// buffers cost O(n log n) (20 000 took 7 s when each search started at the
// bottom; bench_golden's DramAlloc measures it).
TEST(DramAllocator, FirstFitWithGapsAndFrees) {
  vta::Dram d(uint64_t{1} << 30);
  const uint64_t a = d.alloc(100), b = d.alloc(5000), c = d.alloc(1, 4 * vta::Dram::kPageBytes);
  EXPECT_EQ(a, 0x1000u);
  EXPECT_EQ(b, 0x2000u);
  EXPECT_EQ(c, 0x4000u);                   // 16 KiB-aligned, and 0x4000 is free
  EXPECT_EQ(d.alloc(1, 0x8000), 0x8000u);  // a gap [0x5000, 0x8000) stays
  EXPECT_EQ(d.alloc(1), 0x5000u);          // ... and the next page fills it
  d.free(a);
  EXPECT_EQ(d.alloc(4096), 0x1000u);  // the freed page is reused
  EXPECT_EQ(d.alloc(4096), 0x6000u);
  for (int i = 0; i < 20000; ++i) d.alloc(1);  // the first fills the last gap page, 0x7000
  EXPECT_EQ(d.allocations().size(), 20006u);
  EXPECT_TRUE(d.allocations().count(0x7000));
  EXPECT_EQ(d.allocations().rbegin()->first, 0x9000u + 19998 * 0x1000u);
}
