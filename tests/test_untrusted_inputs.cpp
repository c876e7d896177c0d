// Files that a team shares (sweep specs, sweep folders, configs, ONNX
// models) are untrusted input: no string from them reaches a shell, a
// generated source or an HTML page unescaped, no output escapes its folder
// or overwrites an input of the same command, and no read is unbounded.
// Each test crafts the input an attacker would and checks that the command
// refuses it with one line and exit code 2, or runs it harmlessly.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "run_cli.h"
#include "vta/compiler/frontend/npy.h"
#include "vta/compiler/frontend/onnx.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/isa/config.h"
#include "vta/isa/error.h"
#include "vta/isa/fields.h"
#include "vta/isa/io_guard.h"
#include "vta/isa/read_file.h"
#include "vta/isa/shell_quote.h"
#include "vta/sweeps/html.h"
#include "vta/sweeps/slurm.h"

namespace {

namespace fs = std::filesystem;
using vta::test::CliResult;
using vta::test::run_shell;
using vta::test::run_vta;

#define EXPECT_HAS(msg, text) EXPECT_NE((msg).find(text), std::string::npos) << "output: " << (msg)

// A fresh folder for the current test.
fs::path test_dir() {
  const auto* t = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path d = fs::path(VTA_BINARY_DIR) / "test-tmp" / "untrusted" / (std::string(t->name()) + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

fs::path write(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Exit 2, one line "vta: error: ..." holding `needle`.
void expect_refused(const CliResult& r, const std::string& needle) {
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_EQ(r.out.rfind("vta: error: ", 0), 0u) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_HAS(r.out, needle);
}

const char* kTinySweep =
    "name: tiny\nbase: vta-1x16x16\nnetworks: [lenet5]\n"
    "axes:\n  - knob: clock.mhz\n    values: [250, 333]\n"
    "objectives:\n  - minimize: cycles\n  - maximize: gops\n";

// ---- Shell: Slurm job ids and job scripts ----------------------------------

TEST(UntrustedSlurm, StatusRefusesAJobIdThatIsNotANumber) {
  const fs::path d = test_dir();
  const fs::path spec = write(d / "s.yaml", kTinySweep);
  const fs::path marker = d / "PWNED";
  write(d / "slurm-jobs.json", "{\"tasks\": 1, \"spec\": \"" + spec.string() + "\", \"A\": \"1;touch " +
                                   marker.string() + ";#\"}");
  // squeue is on PATH wherever Slurm is: the id must be refused before it is asked.
  expect_refused(run_vta("sweep status " + d.string()), "slurm-jobs.json: job A must be a Slurm job id (digits)");
  EXPECT_FALSE(fs::exists(marker));
}

TEST(UntrustedSlurm, StatusRefusesDamagedJobLists) {
  const fs::path d = test_dir();
  const fs::path spec = write(d / "s.yaml", kTinySweep);
  const std::string s = "\"spec\": \"" + spec.string() + "\"";
  for (const auto& [text, needle] :
       std::vector<std::pair<std::string, std::string>>{{"{\"tasks\": 2000000000, " + s + "}", "tasks must be an integer from 1 to 100000"},
                                                        {"{\"tasks\": 1e300, " + s + "}", "tasks must be an integer"},
                                                        {"{\"tasks\": \"2\", " + s + "}", "tasks must be an integer"},
                                                        {"{\"tasks\": 1, \"spec\": 7}", "spec must be the path"},
                                                        {"{\"tasks\": 1, " + s + ", \"B\": 5}", "job B must be a Slurm job id"},
                                                        {"[1, 2]", "not a JSON object"},
                                                        {"{\"tasks\": 1,", "not valid JSON"}}) {
    write(d / "slurm-jobs.json", text);
    const CliResult r = run_vta("sweep status " + d.string());
    expect_refused(r, needle);
    EXPECT_EQ(r.out.find("json.exception"), std::string::npos) << r.out;
  }
}

TEST(UntrustedSlurm, NewlinesCannotAddLinesToAJobScript) {
  const fs::path d = test_dir();
  const fs::path spec = write(d / "s.yaml", std::string(kTinySweep).replace(0, 10, "name: \"x\\ntouch PWNED\"\n"));
  expect_refused(run_vta("sweep submit --slurm --dry-run " + spec.string() + " --dir " + (d / "jobs").string()),
                 "the spec's name: holds a control character");
  const fs::path ok = write(d / "ok.yaml", kTinySweep);
  for (const std::string opt : {"--partition", "--account", "--time", "--mem"}) {
    const CliResult r = run_vta("sweep submit --slurm --dry-run " + ok.string() + " --dir " + (d / "jobs").string() +
                                " " + opt + " \"$(printf 'a\\ntouch PWNED')\"");
    expect_refused(r, opt + ": holds a control character");
  }
  EXPECT_FALSE(fs::exists(d / "PWNED"));
}

// A stub sbatch in a folder put first on PATH: it records its arguments and
// answers a job id, as `sbatch --parsable` does.
std::string stub_sbatch(const fs::path& d) {
  fs::create_directories(d / "bin");
  write(d / "bin" / "sbatch", "#!/bin/sh\nprintf '%s\\n' \"$*\" >> \"$(dirname \"$0\")/calls\"\necho 4242\n");
  fs::permissions(d / "bin" / "sbatch", fs::perms::owner_all);
  return "PATH=" + vta::shell_quote((d / "bin").string()) + ":$PATH";
}

// A --dir full of shell syntax is one word in every script: the scripts
// parse, and running the last one (merge, stage 3, report) under bash runs
// nothing the folder's name says.
TEST(UntrustedSlurm, AFolderNameIsOneWordInEveryScript) {
  const fs::path d = test_dir();
  const fs::path spec = write(d / "s.yaml", kTinySweep);
  const std::string name = "jobs $(touch PWNED1) `touch PWNED2` ' \" ;touch PWNED3";
  const fs::path jobs = d / name;
  const CliResult r = run_vta("sweep submit --slurm " + spec.string() + " --dir " + vta::shell_quote(jobs.string()) +
                                  " --vta " + VTA_EXE,
                              stub_sbatch(d));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_HAS(slurp(d / "bin" / "calls"), "--dependency=afterok:4242 --kill-on-invalid-dep=yes " + (jobs / "job-C.sh").string());
  for (const char* job : {"job-A.sh", "job-B.sh", "job-C.sh"}) {
    const fs::path script = jobs / job;
    ASSERT_TRUE(fs::exists(script)) << script;
    const CliResult parsed = run_shell("bash -n " + vta::shell_quote(script.string()) + " 2>&1");
    EXPECT_EQ(parsed.code, 0) << job << ": " << parsed.out;
  }
  // Job C with an empty folder: the merge finds no shard and the script stops there.
  const CliResult c = run_shell("cd " + vta::shell_quote(d.string()) + " && SLURM_CPUS_PER_TASK=1 bash " +
                                vta::shell_quote((jobs / "job-C.sh").string()) + " 2>&1");
  EXPECT_NE(c.code, 0) << c.out;
  EXPECT_HAS(c.out, name + ": no shard-*.sqlite stores in this folder");
  for (const char* m : {"PWNED1", "PWNED2", "PWNED3"}) {
    EXPECT_FALSE(fs::exists(d / m)) << m;
    EXPECT_FALSE(fs::exists(jobs / m)) << m;
  }
}

// A dry run writes nothing and shows the sbatch lines with their
// dependencies; the jobs run the vta on the compute node's PATH unless
// --vta names one, and say so when it is missing; each job kind has its
// own time limit; a node-local --dir is warned about.
TEST(UntrustedSlurm, DryRunsWriteNothingAndJobsFindVta) {
  const fs::path d = test_dir();
  const fs::path spec = write(d / "s.yaml", kTinySweep);
  const CliResult r = run_vta("sweep submit --slurm --dry-run " + spec.string() + " --dir " + (d / "jobs").string() +
                              " --time 1:00:00 --time-b 4:00:00");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_FALSE(fs::exists(d / "jobs"));
  EXPECT_HAS(r.out, "sbatch --parsable --array=0,1,2,3 " + vta::shell_quote((d / "jobs" / "job-A.sh").string()));
  EXPECT_HAS(r.out, "sbatch --parsable --dependency=afterok:A --kill-on-invalid-dep=yes " +
                        vta::shell_quote((d / "jobs" / "job-B.sh").string()));
  EXPECT_HAS(r.out, "#SBATCH --time=4:00:00");
  EXPECT_HAS(r.out, "#SBATCH --time=1:00:00");
  EXPECT_HAS(r.out, "exec vta sweep run");
  EXPECT_HAS(r.out, "command -v vta > /dev/null ||");
  // The check line stops a job whose node has no vta, with the reason.
  const CliResult missing = run_shell("PATH=/nonexistent /bin/bash -c " +
                                      vta::shell_quote(std::string(vta::sweeps::vta_on_path_line())) + " 2>&1");
  EXPECT_EQ(missing.code, 2) << missing.out;
  EXPECT_HAS(missing.out, "vta is not on PATH on ");
  const CliResult tmp = run_vta("sweep submit --slurm --dry-run " + spec.string() + " --dir /tmp/vta-sweep-x");
  EXPECT_EQ(tmp.code, 0) << tmp.out;
  EXPECT_HAS(tmp.out, "vta: warning: --dir /tmp/vta-sweep-x: it is under /tmp, so only this node sees it");
}

TEST(UntrustedSlurm, ShellQuoteKeepsEveryByte) {
  for (const std::string w : {"plain", "", "a b", "it's", "$(x) `y` \\ \" ! *", "new\nline"}) {
    const CliResult r = run_shell("printf '%s' " + vta::shell_quote(w));
    EXPECT_EQ(r.out, w);
  }
}

// ---- Generated sources: the design name ------------------------------------

TEST(UntrustedConfig, ANameWithANewlineIsRefused) {
  const fs::path d = test_dir();
  const fs::path cfg = write(d / "evil.yaml", "name: \"vta-1x16x16\\n#define as_int(x) 0\\n//\"\n");
  expect_refused(run_vta("config validate " + cfg.string()), "evil.yaml:1: name holds a control character");
  expect_refused(run_vta("gen cl --config " + cfg.string()), "name holds a control character");
  // From the file name, when the config has no name: key.
  const fs::path stem = write(d / "a\rb.yaml", "gemm:\n  batch: 1\n");
  expect_refused(run_vta("config validate " + vta::shell_quote(stem.string())), "it came from the file name");
}

TEST(UntrustedConfig, GeneratedSourcesKeepANameInItsComment) {
  // A Config made in code skips the loader: the generators still keep the
  // name inside its comment line.
  vta::Config c = vta::load_config(std::string(VTA_SOURCE_DIR) + "/configs/vta-1x16x16.yaml");
  c.name = "x\n#define VTA_GEMM_BATCH 99\n// \\";
  for (const std::string& text : {vta::isa::generate_opencl_defines(c), vta::isa::generate_sv_package(c)}) {
    EXPECT_EQ(text.find("\n#define VTA_GEMM_BATCH 99"), std::string::npos) << text;
    EXPECT_EQ(text.find("\\"), std::string::npos) << text;
  }
}

// ---- HTML: data embedded in a page's script --------------------------------

TEST(UntrustedHtml, NoStringCanEndOrSwallowThePageScript) {
  nlohmann::ordered_json data;
  data["axis"] = "<!--<script>";
  data["file"] = "</script><script>alert(1)</script>";
  data["sep"] = "a\u2028b&c>d";
  data["bad_utf8"] = std::string("\xff\xfe");
  const std::string page = vta::sweeps::html_page("t <b>", "<p>body</p>", data, "var x = DATA.axis;");
  const auto from = page.find("const DATA = ");
  ASSERT_NE(from, std::string::npos);
  const std::string line = page.substr(from, page.find('\n', from) - from);
  for (const char* bad : {"<", ">", "&", "\u2028"}) EXPECT_EQ(line.find(bad), std::string::npos) << bad << ": " << line;
  EXPECT_HAS(line, "\\u003c!--\\u003cscript\\u003e");
  // The JSON reads back as the same strings.
  const auto j = nlohmann::json::parse(line.substr(13, line.size() - 14));
  EXPECT_EQ(j["axis"], "<!--<script>");
  EXPECT_EQ(j["file"], "</script><script>alert(1)</script>");
  EXPECT_EQ(j["sep"], "a\u2028b&c>d");
  EXPECT_HAS(page, "<title>t &lt;b&gt;</title>");
}

// ---- Output paths ------------------------------------------------------------

TEST(UntrustedOutputs, AnOnnxOutputNameIsNotAPath) {
  const fs::path d = test_dir();
  using namespace vta::compiler;
  Graph g = build_zoo("lenet5");
  g.nodes[static_cast<size_t>(g.output)].name = "../../escaped";
  const fs::path model = d / "m.onnx";
  export_onnx(g, model.string());
  const Tensor in = zoo_input(g, 7);
  write_npy((d / "in.npy").string(), npy_of(in, {in.shape.n, in.shape.c, in.shape.h, in.shape.w}));
  const fs::path od = d / "a" / "b" / "od";
  const CliResult r = run_vta("run --onnx " + model.string() + " --input input=" + (d / "in.npy").string() +
                              " --output-dir " + od.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_HAS(r.out, "vta: error: --output-dir " + od.string() + ": the model's output '../../escaped' is not a plain file name");
  EXPECT_FALSE(fs::exists(d / "a" / "escaped.npy"));
  EXPECT_FALSE(fs::exists(d / "escaped.npy"));
  for (const char* bad : {"", ".", "..", "a/b", "/etc/x", "a\\b", "a\nb"}) EXPECT_FALSE(vta::is_plain_file_name(bad)) << bad;
  for (const char* good : {"fc3", "out.0", "..x", "y-z"}) EXPECT_TRUE(vta::is_plain_file_name(good)) << good;
}

TEST(UntrustedOutputs, AnOutputThatIsAnInputIsRefusedAndTheInputKept) {
  const fs::path d = test_dir();
  const std::string program = slurp(fs::path(VTA_SOURCE_DIR) / "examples" / "identity_requant.vasm");
  const fs::path p = write(d / "p.vasm", program);
  expect_refused(run_vta("asm " + p.string() + " -o " + p.string()), "is this command's input");
  // Another spelling of the same file, and a link to it.
  fs::create_symlink(p, d / "link.vasm");
  expect_refused(run_vta("run " + p.string() + " --stats-out " + (d / "." / "link.vasm").string()),
                 "is this command's input (program " + p.string() + ")");
  EXPECT_EQ(slurp(p), program);
}

TEST(UntrustedOutputs, AReportOrExportOverItsStoreIsRefused) {
  const fs::path d = test_dir();
  const fs::path spec = write(d / "s.yaml", kTinySweep);
  const std::string db = (d / "s.db").string();
  ASSERT_EQ(run_vta("sweep run -q " + spec.string() + " --db " + db + " --max-stage 1").code, 0);
  const std::string before = slurp(db);
  expect_refused(run_vta("sweep report " + db + " -o " + db), "is this command's input (results store");
  expect_refused(run_vta("sweep export --csv " + db + " -o " + db), "is this command's input");
  // A merge into one of its inputs skips that input (nothing to add).
  EXPECT_EQ(run_vta("sweep merge " + db + " -o " + db).code, 0);
  EXPECT_EQ(slurp(db), before);
  EXPECT_EQ(run_vta("sweep status " + db).code, 0);
}

// ---- Bounded reads -----------------------------------------------------------

TEST(UntrustedReads, AnEndlessInputIsCutAtItsLimit) {
  const fs::path d = test_dir();
  expect_refused(run_vta("asm /dev/zero -o " + (d / "x.bin").string()),
                 "/dev/zero: larger than 64 MiB, the limit for this kind of file");
  expect_refused(run_vta("run /dev/zero"), "program /dev/zero: larger than 64 MiB");
  expect_refused(run_vta("sweep run /dev/zero --db /dev/null"), "sweep spec /dev/zero: larger than 64 MiB");
  EXPECT_THROW((void)vta::read_file("/dev/zero", "test", 1 << 20), vta::Error);
  try {
    (void)vta::read_file("/dev/zero", "test", 1 << 20);
  } catch (const vta::Error& e) {
    EXPECT_STREQ(e.what(), "test /dev/zero: larger than 1 MiB, the limit for this kind of file");
  }
}

// ---- Command lines -----------------------------------------------------------

TEST(UntrustedCli, ARepeatableOptionTakesOneWord) {
  const std::string program = std::string(VTA_SOURCE_DIR) + "/examples/identity_requant.vasm";
  const CliResult r = run_vta("run -b systemc --timing-only --set memory.bus_bits=128 " + program);
  EXPECT_EQ(r.code, 0) << r.out;
  const CliResult d = run_vta("run --dump ACC:0:1 " + program);
  EXPECT_EQ(d.code, 0) << d.out;
}

TEST(UntrustedCli, TimingOnlyRunsCompareNoTensors) {
  const std::string program = std::string(VTA_SOURCE_DIR) + "/examples/identity_requant.vasm";
  expect_refused(run_vta("run -b systemc --timing-only --compare golden " + program),
                 "--compare compares or prints tensors, and --timing-only computes none");
}

TEST(UntrustedCli, NumbersOutOfRangeAreRefused) {
  const std::string program = std::string(VTA_SOURCE_DIR) + "/examples/identity_requant.vasm";
  EXPECT_EQ(run_vta("run --max-steps -5 " + program).code, 2);
  EXPECT_EQ(run_vta("run --max-steps 0 " + program).code, 2);
  EXPECT_EQ(run_vta("compare --backends golden,systemc --max-diff nan " + program).code, 2);
  EXPECT_EQ(run_vta("compare --backends golden,systemc --max-diff -1 " + program).code, 2);
}

TEST(UntrustedCli, BringupNetworksKeepTheirCommasAndUnknownOnesAreBadInput) {
  expect_refused(run_vta("bringup -b golden --no-corners --no-conformance --random 0 --networks lenet5,nope"),
                 "--networks nope: no such zoo network");
  const CliResult r =
      run_vta("bringup -b golden --no-corners --no-conformance --random 0 --networks dense:16,16");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_HAS(r.out, "networks     1 passed, 0 failed");
}

}  // namespace
