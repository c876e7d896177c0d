// The race checker (vta/model/race.h): programs whose result depends on the
// order of two unsynchronised modules are an error naming both instructions,
// the buffer and the element, on the golden model by default and through
// vta::model::check_races; correctly synchronised programs pass it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "run_cli.h"
#include "test_support.h"
#include "vta/isa/error.h"
#include "vta/model/image.h"
#include "vta/model/race.h"

namespace {

using vta::isa::AluOp;
using vta::isa::MemId;
using namespace vta::test;

std::string data(const std::string& rel) { return std::string(VTA_SOURCE_DIR) + "/tests/data/" + rel; }

// Exit 2 and exactly one line, `vta: error: ...`, holding every needle.
void expect_one_line_error(const std::string& args, std::initializer_list<std::string> needles) {
  const auto r = run_vta(args);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
  EXPECT_EQ(r.out.rfind("vta: error: ", 0), 0u) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  for (const auto& n : needles) EXPECT_NE(r.out.find(n), std::string::npos) << "want '" << n << "' in: " << r.out;
}

// The smm vector without its LOAD UOP #4, the instruction whose
// pop_prev ordered the GEMM after the loads: GEMM #4 now reads INP element 0
// (LOAD #2) and WGT element 0 (LOAD #3) unordered. The first race it meets,
// in operand order, is reported.
TEST(Races, SmmMissingPopNamesBothInstructionsTheBufferAndTheElement) {
  expect_one_line_error("run " + data("racy-programs/smm-missing-pop"),
                        {"data race on INP element 0:", "instruction 2 (LOAD INP", "on the load module writes it",
                         "instruction 4 (GEMM", "on the compute module reads it", "no dependency-token path"});
}

// A WGT load after the load module's push: the GEMM is ordered after the
// INP load but not after the WGT load, and the WGT race is named.
TEST(Races, WeightLoadAfterThePush) {
  auto backend = vta::make_backend("golden", preset("vta-1x16x16"));
  const std::string msg = run_error(*backend, [](ProgramBuilder& p) {
    const uint32_t inp = p.buffer(MemId::INP, 1);
    const uint32_t wgt = p.buffer(MemId::WGT, 1);
    const uint32_t uop = p.uops({make_uop(0, 0, 0)});
    p.add(make_load(MemId::UOP, 0, uop, 1, 1, 1));
    p.add(with_deps(make_load(MemId::INP, 0, inp, 1, 1, 1), false, false, false, true));
    p.add(make_load(MemId::WGT, 0, wgt, 1, 1, 1));
    p.add(with_deps(make_gemm(false, 0, 1, 1, 1), true, false, false, false));
    p.add(make_finish());
  });
  EXPECT_NE(msg.find("data race on WGT element 0: instruction 2 (LOAD WGT"), std::string::npos) << msg;
  EXPECT_NE(msg.find("writes it and instruction 3 (GEMM"), std::string::npos) << msg;
}

// STORE without pop_prev reads OUT while the ALU writes it (a race found by review).
TEST(Races, StoreWithoutPopNamesTheAluAndTheStore) {
  expect_one_line_error("run " + data("repro-programs/race_store.vasm"),
                        {"data race on OUT element 0:", "instruction 2 (ALU", "on the compute module writes it",
                         "instruction 3 (STORE", "on the store module reads it"});
}

// The same on the cycle model, which checks in the golden model's order.
TEST(Races, StoreWithoutPopOnSystemC) {
  if (run_vta("backends").out.find("systemc ") == std::string::npos) GTEST_SKIP() << "no systemc backend";
  expect_one_line_error("run -b systemc " + data("repro-programs/race_store.vasm"),
                        {"data race on OUT element 0:", "instruction 2 (ALU", "instruction 3 (STORE"});
}

// The option that turns the check off for speed: the racy program then runs
// in the golden model's order, as before.
TEST(Races, NoRaceCheckRunsTheGoldenOrder) {
  const auto r = run_vta("run --no-race-check --stats none " + data("racy-programs/smm-missing-pop"));
  EXPECT_EQ(r.code, 0) << r.out;
}

// The reusable function gives the same report without computing tensors.
TEST(Races, CheckRacesReportsTheSameRace) {
  const vta::Config cfg = preset("vta-1x16x16");
  vta::ProgramImage image = vta::read_program(data("racy-programs/smm-missing-pop"), cfg);
  vta::BackendOptions no_check;
  no_check.skip_race_check = true;
  auto backend = vta::make_backend("golden", cfg, no_check);
  const vta::Launch launch = vta::install(image, *backend);
  try {
    vta::model::check_races(cfg, backend->dram(), launch);
    ADD_FAILURE() << "no race reported";
  } catch (const vta::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("data race on INP element 0: instruction 2 (LOAD INP"), std::string::npos) << msg;
    EXPECT_NE(msg.find("instruction 4 (GEMM"), std::string::npos) << msg;
  }
}

// LOAD INP, GEMM reading it, a second LOAD into the same element: the write
// after read is ordered only when `token` (GEMM pushes to load, the second
// LOAD pops). The error of the run, "" when it passes.
std::string load_gemm_load(bool token) {
  auto backend = vta::make_backend("golden", preset("vta-1x16x16"));
  return run_error(*backend, [token](ProgramBuilder& p) {
    const uint32_t inp = p.buffer(MemId::INP, 2);
    const uint32_t uop = p.uops({make_uop(0, 0, 0)});
    p.add(make_load(MemId::UOP, 0, uop, 1, 1, 1));
    p.add(with_deps(make_load(MemId::INP, 0, inp, 1, 1, 1), false, false, false, true));
    p.add(with_deps(make_gemm(false, 0, 1, 1, 1), true, false, token, false));
    p.add(with_deps(make_load(MemId::INP, 0, inp + 1, 1, 1, 1), false, token, false, false));
    p.add(make_finish());
  });
}

// The checker keeps each GEMM/ALU loop shape's elements until the next uop
// load: a second GEMM of the same shape after a LOAD UOP reads what the new
// uops name (INP element 1, loaded with no token to the compute module),
// not what the first one read.
TEST(Races, TheSameLoopShapeAfterAUopLoadReadsTheNewUopsElements) {
  auto backend = vta::make_backend("golden", preset("vta-1x16x16"));
  const std::string msg = run_error(*backend, [](ProgramBuilder& p) {
    const uint32_t inp = p.buffer(MemId::INP, 2);
    const uint32_t wgt = p.buffer(MemId::WGT, 1);
    const uint32_t first = p.uops({make_uop(0, 0, 0)});
    const uint32_t second = p.uops({make_uop(0, 1, 0)});
    p.add(make_load(MemId::UOP, 0, first, 1, 1, 1));
    p.add(make_load(MemId::INP, 0, inp, 1, 1, 1));
    p.add(with_deps(make_load(MemId::WGT, 0, wgt, 1, 1, 1), false, false, false, true));
    p.add(with_deps(make_gemm(false, 0, 1, 1, 1), true, false, false, false));
    p.add(make_load(MemId::UOP, 0, second, 1, 1, 1));
    p.add(make_load(MemId::INP, 1, inp + 1, 1, 1, 1));
    p.add(make_gemm(false, 0, 1, 1, 1));
    p.add(make_finish());
  });
  EXPECT_NE(msg.find("data race on INP element 1: instruction 5 (LOAD INP"), std::string::npos) << msg;
  EXPECT_NE(msg.find("instruction 6 (GEMM"), std::string::npos) << msg;
}

// Write after read without the token: a LOAD into an INP element that a GEMM
// still reads.
TEST(Races, LoadOverwritingAnInputTheGemmReads) {
  const std::string msg = load_gemm_load(false);
  EXPECT_NE(msg.find("data race on INP element 0: instruction 2 (GEMM"), std::string::npos) << msg;
  EXPECT_NE(msg.find("reads it and instruction 3 (LOAD INP"), std::string::npos) << msg;
}

// The same program synchronised passes.
TEST(Races, TheSameProgramWithTheTokenPasses) { EXPECT_EQ(load_gemm_load(true), ""); }

// DRAM races: a GEMM writes OUT element 0, a STORE writes it to
// the DRAM buffer `out`, and a LOAD reads those DRAM bytes back as INP.
// With `synchronised`, the STORE pushes to the compute module, whose second
// GEMM pops it and pushes to the load module, whose LOAD pops it: a token
// path from the STORE to the LOAD. Without it the LOAD may read the bytes
// before or after the STORE writes them. `load_first` puts the LOAD before
// the GEMM in the program (a write after read). The error, "" when it passes.
std::string store_then_load(bool synchronised, bool load_first = false) {
  auto backend = vta::make_backend("golden", preset("vta-1x16x16"));
  return run_error(*backend, [&](ProgramBuilder& p) {
    const uint32_t out = p.buffer(MemId::OUT, 1);
    const uint32_t uop = p.uops({make_uop(0, 0, 0)});
    if (load_first) p.add(make_load(MemId::INP, 0, out, 1, 1, 1));
    p.add(make_load(MemId::UOP, 0, uop, 1, 1, 1));
    p.add(with_deps(make_gemm(true, 0, 1, 1, 1), false, false, false, true));
    p.add(with_deps(make_store(0, out, 1, 1, 1), true, false, synchronised, false));
    if (synchronised) p.add(with_deps(make_gemm(true, 0, 1, 1, 1), false, true, true, false));
    if (!load_first) p.add(with_deps(make_load(MemId::INP, 0, out, 1, 1, 1), false, synchronised, false, false));
    p.add(make_finish());
  });
}

TEST(Races, LoadOfBytesAStoreWritesWithoutAToken) {
  const std::string msg = store_then_load(false);
  EXPECT_NE(msg.find("data race on DRAM byte 0x"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(STORE"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(LOAD INP"), std::string::npos) << msg;
  EXPECT_NE(msg.find("on the store module writes it"), std::string::npos) << msg;
  EXPECT_NE(msg.find("no dependency-token path"), std::string::npos) << msg;
}

TEST(Races, StoreOverBytesALoadReadsWithoutAToken) {
  const std::string msg = store_then_load(false, true);
  EXPECT_NE(msg.find("data race on DRAM byte 0x"), std::string::npos) << msg;
  EXPECT_NE(msg.find("instruction 0 (LOAD INP"), std::string::npos) << msg;
  EXPECT_NE(msg.find("on the load module reads it"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(STORE"), std::string::npos) << msg;
}

TEST(Races, StoreThenLoadThroughTheComputeModulePasses) { EXPECT_EQ(store_then_load(true), ""); }

// A LOAD of other DRAM bytes than the STORE writes does not race.
TEST(Races, LoadOfOtherBytesThanTheStoreWrites) {
  auto backend = vta::make_backend("golden", preset("vta-1x16x16"));
  EXPECT_EQ(run_error(*backend,
                      [](ProgramBuilder& p) {
                        const uint32_t out = p.buffer(MemId::OUT, 1);
                        const uint32_t inp = p.buffer(MemId::INP, 1);
                        const uint32_t uop = p.uops({make_uop(0, 0, 0)});
                        p.add(make_load(MemId::UOP, 0, uop, 1, 1, 1));
                        p.add(with_deps(make_gemm(true, 0, 1, 1, 1), false, false, false, true));
                        p.add(with_deps(make_store(0, out, 1, 1, 1), true, false, false, false));
                        p.add(make_load(MemId::INP, 0, inp, 1, 1, 1));
                        p.add(make_finish());
                      }),
            "");
}

// Every conformance vector is race-free.
TEST(Races, ConformanceVectorsAreRaceFree) {
  const vta::Config cfg = preset("vta-1x16x16");
  int checked = 0;
  for (const auto& dir : std::filesystem::directory_iterator(data("conformance/vectors"))) {
    if (!dir.is_directory()) continue;
    SCOPED_TRACE(dir.path().string());
    vta::ProgramImage image = vta::read_program(dir.path().string(), cfg);
    auto backend = vta::make_backend("golden", cfg);
    const vta::Launch launch = vta::install(image, *backend);
    EXPECT_NO_THROW(vta::model::check_races(cfg, backend->dram(), launch));
    ++checked;
  }
  EXPECT_GE(checked, 8);
}

}  // namespace
