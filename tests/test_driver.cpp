// The upstream driver ABI on the golden backend, from C++.
#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "vta/driver.h"

namespace {

TEST(Driver, AllocationsArePagesFrom0x1000AndAddressable) {
  VTADeviceHandle dev = VTADeviceAlloc();
  ASSERT_NE(dev, nullptr) << VTARuntimeLastError();
  void* a = VTAMemAlloc(100, VTA_NOT_CACHED);
  void* b = VTAMemAlloc(5000, VTA_CACHED);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  vta_phy_addr_t pa = VTAMemGetPhyAddr(a), pb = VTAMemGetPhyAddr(b);
  EXPECT_EQ(pa % 4096, 0u);
  EXPECT_EQ(pb % 4096, 0u);
  EXPECT_GE(pa, 0x1000u);
  EXPECT_NE(pa, pb);
  // Interior pointers map to interior physical addresses.
  EXPECT_EQ(VTAMemGetPhyAddr(static_cast<char*>(b) + 4097), pb + 4097);
  // Freed pages are reused.
  VTAMemFree(a);
  void* c = VTAMemAlloc(16, 0);
  EXPECT_EQ(VTAMemGetPhyAddr(c), pa);
  VTAMemFree(b);
  VTAMemFree(c);
  VTADeviceFree(dev);
}

TEST(Driver, RunsAFinishOnlyProgramAndReportsStats) {
  VTADeviceHandle dev = VTADeviceAlloc();
  ASSERT_NE(dev, nullptr);
  auto* insn = static_cast<uint8_t*>(VTAMemAlloc(16, 0));
  uint8_t finish[16] = {3};
  VTAMemCopyFromHost(insn, finish, 16);
  ASSERT_EQ(VTADeviceRun(dev, VTAMemGetPhyAddr(insn), 1, 1000), 0) << VTARuntimeLastError();
  auto stats = nlohmann::json::parse(VTARuntimeStatsJson());
  EXPECT_EQ(stats["total"]["insn.FINISH"], 1);
  EXPECT_EQ(stats["total"]["insn.total"], 1);
  VTAMemFree(insn);
  VTADeviceFree(dev);
}

TEST(Driver, ErrorsAreReportedNotThrown) {
  VTADeviceHandle dev = VTADeviceAlloc();
  ASSERT_NE(dev, nullptr);
  EXPECT_NE(VTADeviceRun(dev, 0x7ff00000, 4, 1000), 0);
  EXPECT_NE(std::strstr(VTARuntimeLastError(), "outside allocated DRAM"), nullptr) << VTARuntimeLastError();
  int local = 0;
  EXPECT_EQ(VTAMemGetPhyAddr(&local), 0u);
  EXPECT_NE(std::strstr(VTARuntimeLastError(), "not inside a VTAMemAlloc buffer"), nullptr);
  EXPECT_NE(VTADeviceRun(nullptr, 0x1000, 1, 0), 0);
  EXPECT_NE(std::strstr(VTARuntimeLastError(), "invalid device handle"), nullptr);
  VTADeviceFree(dev);
}

}  // namespace
