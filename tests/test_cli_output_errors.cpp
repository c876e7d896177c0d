// Output that cannot be written is an error, not a silently short file: each
// file option, and standard output itself, full (/dev/full) or closed, gives
// one line naming what failed and exit code 2.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>

#include "run_cli.h"

namespace {

using vta::test::CliResult;

const std::string kProgram = std::string(VTA_SOURCE_DIR) + "/examples/identity_requant.vasm";

// `vta ARGS` with stdout sent where `stdout_to` says (a shell redirection
// such as ">/dev/full" or ">&-"), capturing stderr alone.
CliResult run_with_stdout(const std::string& args, const std::string& stdout_to) {
  return vta::test::run_vta(args, "", stdout_to);
}

// Exit 2 and one line holding `needle`. Standard output is discarded, so
// the line is what stderr said.
void expect_write_error(const std::string& args, const std::string& needle) {
  const CliResult r = run_with_stdout(args, ">/dev/null");
  EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
  EXPECT_EQ(r.out.rfind("vta: error: ", 0), 0u) << args << "\n" << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_NE(r.out.find(needle), std::string::npos) << args << "\n" << r.out;
}

TEST(CliOutputErrors, StatsOutToAFullDisk) {
  expect_write_error("run " + kProgram + " --stats-out /dev/full", "/dev/full: cannot write (No space left on device)");
}

TEST(CliOutputErrors, ReportFilesToAFullDisk) {
  expect_write_error("run --model dense:16,16 --report-csv /dev/full", "--report-csv /dev/full: cannot write");
  expect_write_error("run --model dense:16,16 --report-json /dev/full", "--report-json /dev/full: cannot write");
}

TEST(CliOutputErrors, TraceToAFullDisk) {
  expect_write_error("run -b systemc " + kProgram + " --trace /dev/full", "--trace /dev/full: cannot write");
}

TEST(CliOutputErrors, GeneratedFilesToAFullDisk) {
  expect_write_error("config schema -o /dev/full", "/dev/full: cannot write");
  expect_write_error("gen sv -o /dev/full", "/dev/full: cannot write");
  expect_write_error("asm " + kProgram + " -o /dev/full", "/dev/full: cannot write");
  expect_write_error("asm " + kProgram + " -o /dev/null --uops /dev/full", "/dev/full: cannot write");
}

TEST(CliOutputErrors, ZooExportToAFullDiskSaysNothingWasWritten) {
  const CliResult r = run_with_stdout("zoo export lenet5 -o /dev/full", "");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/dev/full: cannot write"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("wrote"), std::string::npos) << r.out;
}

TEST(CliOutputErrors, StandardOutputFull) {
  for (const char* args : {"config show", "config schema", "gen sv", "zoo list"}) {
    const CliResult r = run_with_stdout(args, ">/dev/full");
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
    EXPECT_EQ(r.out, "vta: error: cannot write to standard output (the stream is closed or full)\n") << args;
  }
  const CliResult run = run_with_stdout("run " + kProgram, ">/dev/full");
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_NE(run.out.find("cannot write to standard output"), std::string::npos) << run.out;
}

TEST(CliOutputErrors, StandardOutputClosed) {
  const CliResult r = run_with_stdout("config show", ">&-");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("vta: error: cannot write to standard output"), std::string::npos) << r.out;
}

}  // namespace
