// One test per timing constraint of the DRAM model, on hand-built request
// sequences for the toy device of dram_rig.h (distinct round timings, so the
// constraint under test is the one that binds). The scheduler issues each
// command at its first legal cycle, so "issues at N" pins it illegal at N-1
// and legal at N. docs/timing.md, "DRAM model", states the rules.
#include "dram_rig.h"

namespace {

using namespace dram_rig;

TEST(DramTiming, ActToRead_tRCD_ThenData_CL_tBURST) {
  Rig r(toy());
  const uint64_t id = r.read(at(0, 0, 1));
  r.run();
  EXPECT_EQ(r.when(Cmd::ACT), 0u);
  EXPECT_EQ(r.when(Cmd::RD), 12u);           // tRCD
  EXPECT_EQ(r.done_of(id), 12u + 10u + 4u);  // + CL + tBURST
}

TEST(DramTiming, WriteData_CWL_tBURST) {
  Rig r(toy());
  const uint64_t id = r.write(at(0, 0, 1));
  r.run();
  EXPECT_EQ(r.when(Cmd::WR), 12u);          // tRCD
  EXPECT_EQ(r.done_of(id), 12u + 8u + 4u);  // + CWL + tBURST: the data is written
}

TEST(DramTiming, ActToPrecharge_tRAS) {
  Rig r(toy());  // RD at 12 + tRTP 8 = 20 < tRAS 30
  r.read(at(0, 0, 1));
  r.read(at(0, 0, 2));
  r.run();
  EXPECT_EQ(r.when(Cmd::PRE), 30u);
}

TEST(DramTiming, ReadToPrecharge_tRTP) {
  Spec s = toy();
  s.t.ras = 15;
  Rig r(s);
  r.read(at(0, 0, 1));
  r.read(at(0, 0, 2));
  r.run();
  EXPECT_EQ(r.when(Cmd::PRE), 12u + 8u);  // RD + tRTP
}

TEST(DramTiming, PrechargeToAct_tRP) {
  Spec s = toy();
  s.t.rc = 40;  // PRE 30 + tRP 14 = 44 > tRC 40
  Rig r(s);
  r.read(at(0, 0, 1));
  r.read(at(0, 0, 2));
  r.run();
  EXPECT_EQ(r.when(Cmd::ACT, 1), 30u + 14u);
}

TEST(DramTiming, ActToAct_SameBank_tRC) {
  Rig r(toy());  // PRE 30 + tRP 14 = 44 < tRC 50
  r.read(at(0, 0, 1));
  r.read(at(0, 0, 2));
  r.run();
  EXPECT_EQ(r.when(Cmd::ACT, 1), 50u);
}

TEST(DramTiming, WriteRecovery_tWR) {
  Rig r(toy());
  r.write(at(0, 0, 1));
  r.read(at(0, 0, 2));
  r.run();
  EXPECT_EQ(r.when(Cmd::WR), 12u);
  EXPECT_EQ(r.when(Cmd::PRE), 12u + 8u + 4u + 15u);  // WR + CWL + tBURST + tWR (> tRAS 30)
}

TEST(DramTiming, ActToAct_OtherBankGroup_tRRD_S) {
  Rig r(toy());
  r.read(at(0, 0, 1));
  r.read(at(1, 0, 1));
  r.run();
  EXPECT_EQ(r.when(Cmd::ACT, 1) - r.when(Cmd::ACT, 0), 4u);
}

TEST(DramTiming, ActToAct_SameBankGroup_tRRD_L) {
  Rig r(toy());
  r.read(at(0, 0, 1));
  r.read(at(0, 1, 1));
  r.run();
  EXPECT_EQ(r.when(Cmd::ACT, 1) - r.when(Cmd::ACT, 0), 6u);
}

TEST(DramTiming, FifthAct_tFAW) {
  Spec s = toy();
  s.t.rcd = 100;  // keep the reads off the command bus while the ACTs go
  Rig r(s);
  for (auto [bg, bank] : {std::pair{0u, 0u}, {1u, 0u}, {0u, 1u}, {1u, 1u}, {0u, 2u}}) r.read(at(bg, bank, 1));
  r.run();
  EXPECT_EQ(r.when(Cmd::ACT, 3), 12u);  // tRRD_S apart
  EXPECT_EQ(r.when(Cmd::ACT, 4), 40u);  // first ACT + tFAW, not 12 + tRRD_L
}

// Opens row 1 of banks (0,0) and (1,0) and lets everything settle.
void open_rows(Rig& r) {
  r.read(at(0, 0, 1));
  r.read(at(1, 0, 1));
  r.run();
  r.trace.clear();
}

TEST(DramTiming, ReadToRead_OtherBankGroup_tCCD_S) {
  Rig r(toy());
  open_rows(r);
  r.read(at(0, 0, 1, 1), 1000);
  r.read(at(1, 0, 1, 1), 1000);
  r.run();
  EXPECT_EQ(r.when(Cmd::RD, 0), 1000u);
  EXPECT_EQ(r.when(Cmd::RD, 1), 1004u);
}

TEST(DramTiming, ReadToRead_SameBankGroup_tCCD_L) {
  Rig r(toy());
  open_rows(r);
  r.read(at(0, 0, 1, 1), 1000);
  r.read(at(0, 0, 1, 2), 1000);
  r.run();
  EXPECT_EQ(r.when(Cmd::RD, 1) - r.when(Cmd::RD, 0), 7u);
}

TEST(DramTiming, DataBus_tBURST) {
  Spec s = toy();
  s.t.ccd_s = 1;  // the data bus is what spaces them
  Rig r(s);
  open_rows(r);
  r.read(at(0, 0, 1, 1), 1000);
  r.read(at(1, 0, 1, 1), 1000);
  r.run();
  EXPECT_EQ(r.when(Cmd::RD, 1) - r.when(Cmd::RD, 0), 4u);
}

TEST(DramTiming, WriteToRead_SameBankGroup_tWTR_L) {
  Rig r(toy());
  open_rows(r);
  r.write(at(0, 0, 1, 1), 1000);
  r.read(at(0, 0, 1, 2), 1000);
  r.run();
  EXPECT_EQ(r.when(Cmd::WR), 1000u);
  EXPECT_EQ(r.when(Cmd::RD), 1000u + 8u + 4u + 9u);  // WR + CWL + tBURST + tWTR_L
}

TEST(DramTiming, WriteToRead_OtherBankGroup_tWTR_S) {
  Rig r(toy());
  open_rows(r);
  r.write(at(0, 0, 1, 1), 1000);
  r.read(at(1, 0, 1, 2), 1000);
  r.run();
  EXPECT_EQ(r.when(Cmd::RD), 1000u + 8u + 4u + 3u);  // WR + CWL + tBURST + tWTR_S
}

TEST(DramTiming, ReadToWrite_Turnaround) {
  Rig r(toy());
  open_rows(r);
  r.read(at(0, 0, 1, 1), 1000);
  r.write(at(1, 0, 1, 1), 1000);
  r.run();
  EXPECT_EQ(r.when(Cmd::WR) - r.when(Cmd::RD), 10u + 4u + 2u - 8u);  // CL + tBURST + 2 - CWL
}

TEST(DramTiming, RankToRank_tRTRS) {
  Spec s = toy();
  s.ranks = 2;
  Rig r(s);
  r.read(at(0, 0, 1, 0, 0));
  r.read(at(0, 0, 1, 0, 1));
  r.run();
  r.trace.clear();
  r.read(at(0, 0, 1, 1, 0), 1000);
  r.read(at(0, 0, 1, 1, 1), 1000);
  r.run();
  EXPECT_EQ(r.when(Cmd::RD, 1) - r.when(Cmd::RD, 0), 4u + 2u);  // tBURST + tRTRS (no tCCD across ranks)
}

TEST(DramTiming, Refresh_EverytREFI_BlocksFor_tRFC) {
  Options o;
  o.refresh = true;
  Rig r(toy(), o);
  r.c.advance(2001);
  const uint64_t id = r.read(at(0, 0, 1), 2001);
  r.c.advance(4500);
  r.run();
  EXPECT_EQ(r.when(Cmd::REF, 0), 2000u);
  EXPECT_EQ(r.when(Cmd::PRE), 4000u);           // the read's row is still open at the second tREFI
  EXPECT_EQ(r.when(Cmd::REF, 1), 4000u + 14u);  // + tRP
  EXPECT_EQ(r.when(Cmd::ACT), 2000u + 200u);    // REF + tRFC
  EXPECT_EQ(r.done_of(id), 2200u + 12u + 10u + 4u);
}

TEST(DramTiming, Refresh_PrechargesOpenBanksFirst) {
  Options o;
  o.refresh = true;
  Rig r(toy(), o);
  r.c.advance(1900);
  r.read(at(0, 0, 1), 1900);
  r.c.advance(2500);
  EXPECT_EQ(r.when(Cmd::RD), 1912u);
  EXPECT_EQ(r.when(Cmd::PRE), 2000u);        // due at tREFI; tRAS ended at 1930
  EXPECT_EQ(r.when(Cmd::REF), 2000u + 14u);  // + tRP
}

}  // namespace
