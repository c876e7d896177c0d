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
#include <vector>

#include <nlohmann/json.hpp>

#include "run_cli.h"
#include "vta/compiler/analytic.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/calibrate.h"
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
#include "vta/sweeps/tune.h"

namespace {

namespace fs = std::filesystem;
using vta::test::CliResult;
using vta::test::run_shell;
using vta::test::run_vta;

#define EXPECT_HAS(msg, text) EXPECT_NE((msg).find(text), std::string::npos) << "output: " << (msg)

// A fresh folder for the current test.
fs::path test_dir() {
  const auto* t = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path d =
      fs::path(VTA_BINARY_DIR) / "test-tmp" / "untrusted" / (std::string(t->name()) + "-" + std::to_string(::getpid()));
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
  write(d / "slurm-jobs.json",
        "{\"tasks\": 1, \"spec\": \"" + spec.string() + "\", \"A\": \"1;touch " + marker.string() + ";#\"}");
  // squeue is on PATH wherever Slurm is: the id must be refused before it is asked.
  expect_refused(run_vta("sweep status " + d.string()), "slurm-jobs.json: job A must be a Slurm job id (digits)");
  EXPECT_FALSE(fs::exists(marker));
}

TEST(UntrustedSlurm, StatusRefusesDamagedJobLists) {
  const fs::path d = test_dir();
  const fs::path spec = write(d / "s.yaml", kTinySweep);
  const std::string s = "\"spec\": \"" + spec.string() + "\"";
  for (const auto& [text, needle] : std::vector<std::pair<std::string, std::string>>{
           {"{\"tasks\": 2000000000, " + s + "}", "tasks must be an integer from 1 to 100000"},
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
  const CliResult r = run_vta(
      "sweep submit --slurm " + spec.string() + " --dir " + vta::shell_quote(jobs.string()) + " --vta " + VTA_EXE,
      stub_sbatch(d));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_HAS(slurp(d / "bin" / "calls"),
             "--dependency=afterok:4242 --kill-on-invalid-dep=yes " + (jobs / "job-C.sh").string());
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

// A sweep whose network file and knob value are markup (an ONNX file named
// `</script><img ...>.onnx`, an `opencl.platform` axis value): the report,
// which shows both in headings, tables, hover labels and the reproduce
// line, carries them as text only, and the CSV keeps them as one field.
TEST(UntrustedHtml, ASweepReportShowsMarkupNetworksAndKnobValuesAsText) {
  const fs::path d = test_dir();
  const std::string evil = "</script><img src=x onerror=alert(1)>";
  fs::create_directories(d / "<");  // the '/' of "</script>" is a folder's
  vta::compiler::export_onnx(vta::compiler::build_zoo("lenet5"), (d / (evil + ".onnx")).string());
  const fs::path spec = write(d / "s.yaml", "base: vta-1x16x16\nnetworks:\n  - onnx: \"" + evil +
                                                ".onnx\"\naxes:\n  - knob: opencl.platform\n    values: [\"" + evil +
                                                "\", plain]\nobjectives:\n  - minimize: cycles\n  - maximize: gops\n");
  const std::string db = (d / "s.db").string(), html = (d / "r.html").string();
  const CliResult r = run_vta("sweep run -q --max-stage 1 " + spec.string() + " --db " + db);
  ASSERT_EQ(r.code, 0) << r.out;
  ASSERT_EQ(run_vta("sweep report " + db + " -o " + html).code, 0);
  const std::string page = slurp(html);
  EXPECT_EQ(page.find("<img"), std::string::npos) << "markup from the store reached the page";
  EXPECT_HAS(page, "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;</td>");  // the knob's table cell
  EXPECT_HAS(page, "/&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;.onnx: 2 Pareto points");  // a heading
  // The design's clock is a column of the Pareto table when no axis sweeps it: 100 MHz, vta-1x16x16's.
  EXPECT_HAS(page, "<th>clock MHz</th>");
  EXPECT_HAS(page, "<td data-v=\"100\">100</td>");
  const CliResult csv = run_vta("sweep export --csv " + db);
  ASSERT_EQ(csv.code, 0) << csv.out;
  EXPECT_HAS(csv.out, "/</script><img src=x onerror=alert(1)>.onnx,");
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
  EXPECT_HAS(r.out, "vta: error: --output-dir " + od.string() +
                        ": the model's output '../../escaped' is not a plain file name");
  EXPECT_FALSE(fs::exists(d / "a" / "escaped.npy"));
  EXPECT_FALSE(fs::exists(d / "escaped.npy"));
  for (const char* bad : {"", ".", "..", "a/b", "/etc/x", "a\\b", "a\nb"})
    EXPECT_FALSE(vta::is_plain_file_name(bad)) << bad;
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

// A tensor file is read no further than the tensor it must hold can be:
// /dev/zero (behind a .npy name) is refused at once, naming the file, the
// tensor and the sizes, instead of being read up to the 1 GiB data limit.
TEST(UntrustedReads, ATensorFileIsReadNoFurtherThanItsTensor) {
  const fs::path d = test_dir();
  using namespace vta::compiler;
  const Graph g = build_zoo("lenet5");
  const fs::path model = d / "m.onnx";
  export_onnx(g, model.string());
  const Tensor in = zoo_input(g, 7);
  write_npy((d / "in.npy").string(), npy_of(in, {in.shape.n, in.shape.c, in.shape.h, in.shape.w}));
  fs::create_symlink("/dev/zero", d / "zero.npy");
  const int64_t most = (int64_t{1} << 16) + in.shape.size() * 8 + 12;
  const CliResult r = run_vta("run --onnx " + model.string() + " --input input=" + (d / "zero.npy").string());
  expect_refused(r, (d / "zero.npy").string() + ": longer than tensor 'input' can be: its " +
                        std::to_string(in.shape.size()) + " elements take at most " + std::to_string(most) +
                        " bytes as .npy");
  // The expected output too (read after the run, whose line comes first): the model's output has 10 elements.
  const CliResult e = run_vta("run --onnx " + model.string() + " --input input=" + (d / "in.npy").string() +
                              " --expect " + (d / "zero.npy").string());
  EXPECT_EQ(e.code, 2) << e.out;
  EXPECT_HAS(e.out, "vta: error: " + (d / "zero.npy").string() + ": longer than tensor '" + g.at(g.output).name +
                        "' can be: its 10 elements take at most 65628 bytes as .npy\n");
  // A file of the right size is read as before.
  EXPECT_EQ(run_vta("run --onnx " + model.string() + " --input input=" + (d / "in.npy").string()).code, 0);
}

// The DRAM image costs what a program touches: a legal 2 GiB device whose
// first buffer fills it up to a last buffer at its top (read by a LOAD) runs
// in a few megabytes, where the zero fill of the assembler and of each
// allocation used to cost twice the device's size. (16 GiB behaves the
// same; 2 GiB keeps the test harmless where the old code runs.)
TEST(UntrustedReads, AHugeDramTouchedAtItsTopCostsWhatItTouches) {
  if (!fs::exists("/usr/bin/time")) GTEST_SKIP() << "no /usr/bin/time to measure the peak memory with";
  const fs::path d = test_dir();
  const uint64_t dram = uint64_t{2} << 30, elem = 16;  // vta-1x16x16: 16-byte INP elements
  const uint64_t big = (dram - 64 * 4096) / elem;      // leaves room for the top buffer and the instructions
  std::string top = "";
  for (int i = 1; i <= 16; ++i) top += " " + std::to_string(i);
  const fs::path p = write(d / "top.vasm", ".buffer big INP " + std::to_string(big) + " zero\n" +
                                               ".buffer top INP 1 values" + top + "\n" +
                                               "LOAD INP sram_base=0 dram_base=@top y_size=1 x_size=1 x_stride=1\n"
                                               "FINISH\n"
                                               ".expect sram INP 0 values" +
                                               top + "\n");
  const fs::path rss = d / "rss";
  const CliResult r = run_shell("/usr/bin/time -f %M -o " + rss.string() + " " + VTA_EXE +
                                " run --set memory.dram_size=2GiB " + p.string() + " 2>&1");
  ASSERT_EQ(r.code, 0) << r.out;
  const long kib = std::stol(slurp(rss));
  EXPECT_LT(kib, 256 * 1024) << "peak RSS " << kib << " KiB for a " << dram << "-byte device";
}

// ---- JSON files written by vta: tuning caches ---------------------------------

// A tuning cache edited or damaged outside vta is refused naming the file,
// the entry and the key: never nlohmann's message, never an unchecked
// double-to-integer cast (1e300), before any layer is measured.
TEST(UntrustedJson, ADamagedTuningCacheNamesTheEntryAndTheKey) {
  const fs::path d = test_dir();
  using namespace vta::compiler;
  const vta::Config cfg = vta::load_config(std::string(VTA_SOURCE_DIR) + "/configs/vta-1x16x16.yaml");
  const Graph g = build_zoo("conv:16,8,8,16,3,1,1");
  const Tensor in = zoo_input(g, 1);
  const std::string tile = R"({"th": 1, "tw": 8, "toc": 1, "tic": 1, "est": 10, "cycles": 100})";
  auto entry = [&](const std::string& fields) { return R"({"format": 1, "layers": {"k": {)" + fields + "}}}"; };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"format": 1e300, "layers": {}})", "format must be an integer from 0 to 2147483647"},
      {R"({"format": "1", "layers": {}})", "format must be an integer"},
      {R"({"format": 1, "layers": [1]})", "layers must be an object of layer entries"},
      {entry(R"("asked": "2", "layer": "c", "candidates": [)" + tile + "]"),
       "layer entry \"k\": asked must be an integer from 1 to 64"},
      {entry(R"("asked": 1e300, "layer": "c", "candidates": [)" + tile + "]"), "asked must be an integer from 1 to 64"},
      {entry(R"("asked": 2, "layer": 5, "candidates": [)" + tile + "]"), "layer entry \"k\": layer must be a string"},
      {entry(R"("asked": 2, "layer": "c", "candidates": {})"), "candidates must be a list of 1 to 64 tiles"},
      {entry(R"("asked": 2, "layer": "c", "candidates": [{"th": 1e300}])"),
       "layer entry \"k\" candidate 0: th must be an integer from 1 to 2147483648"},
      {entry(R"("asked": 2, "layer": "c", "candidates": [{"th": 1, "tw": 1, "toc": 1, "tic": 1, "est": "x"}])"),
       "candidate 0: est must be a number"},
      {entry(
           R"("asked": 2, "layer": "c", "candidates": [{"th": 1, "tw": 1, "toc": 1, "tic": 1, "est": 1, "cycles": -1}])"),
       "cycles must be an integer from 0 to"},
      {R"({"format": 1, "layers": {"k": 7}})", "layer entry \"k\": not an object"},
      {std::string("{\"format\": 1,") + '\0' + " \"layers\": {}}", "a NUL byte on line 1"},
      {"{\"format\": 1, \"lay", "line 1, column 19: not valid JSON ("},
      {"[]", "no \"format\""}};
  for (const auto& [text, needle] : cases) {
    const std::string cache = write(d / "tune.json", text).string();
    try {
      (void)vta::sweeps::tune_network(g, cfg, 2, in, cache);
      ADD_FAILURE() << "no error for " << text;
    } catch (const vta::Error& e) {
      const std::string m = e.what();
      EXPECT_EQ(m.rfind("tuning cache " + cache + ": not a valid tuning cache (", 0), 0u) << m;
      EXPECT_HAS(m, needle);
      EXPECT_HAS(m, "; delete it to tune afresh");
      EXPECT_EQ(m.find("json.exception"), std::string::npos) << m;
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
  }
}

// ---- Files that are not regular files, caches that cannot be written ----------

// A fifo or a folder given as a config or a model says what it is, and a
// fifo never blocks the command (no writer: it reads as empty).
TEST(UntrustedPaths, AFifoOrAFolderIsNotAConfigOrAModel) {
  const fs::path d = test_dir();
  const fs::path fifo = d / "f.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::create_directories(d / "folder.yaml");
  // `timeout`: before this was checked, opening the fifo waited for a writer forever.
  const std::string t = "timeout 20 ";
  expect_refused(run_shell(t + VTA_EXE + " config validate " + fifo.string() + " 2>&1"),
                 fifo.string() + ": not a regular file (it is a fifo), so it cannot be a config file");
  expect_refused(run_vta("config show --config " + (d / "folder.yaml").string()),
                 (d / "folder.yaml").string() + ": not a regular file (it is a directory)");
  expect_refused(run_shell(t + VTA_EXE + " run --onnx " + fifo.string() + " 2>&1"),
                 "--onnx " + fifo.string() + ": not a regular file (it is a fifo)");
  expect_refused(run_vta("run --onnx " + (d / "folder.yaml").string()), "not a regular file (it is a directory)");
  const fs::path spec = write(d / "s.yaml",
                              "base: vta-1x16x16\nnetworks:\n  - onnx: f.yaml\n"
                              "axes:\n  - knob: clock.mhz\n    values: [250]\n"
                              "objectives:\n  - minimize: cycles\n");
  expect_refused(run_shell(t + VTA_EXE + " sweep run " + spec.string() + " --db " + (d / "s.db").string() + " 2>&1"),
                 "onnx file " + fifo.string() + " is not a regular file (it is a fifo)");
  EXPECT_FALSE(fs::exists(d / "s.db"));
  // A program from a fifo with no writer: read as empty, refused at once.
  const CliResult p = run_shell(t + VTA_EXE + " run " + fifo.string() + " 2>&1");
  EXPECT_EQ(p.code, 2) << p.out;
  EXPECT_HAS(p.out, fifo.string());
}

// A zoo cache that cannot be written is no error, and the run says so
// instead of "written to the zoo cache".
TEST(UntrustedPaths, AZooCacheThatCannotBeWrittenIsSaidSo) {
  const fs::path d = test_dir();
  write(d / "file", "not a folder");
  const std::string cache = (d / "file" / "cache").string();  // under a regular file: never creatable, even as root
  const CliResult r = run_vta("run --model avgpool:16,8,8,2 -b golden", "VTA_CACHE_DIR=" + cache);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_HAS(r.out, "(built and calibrated; not written to the zoo cache: cannot create " + cache);
  EXPECT_EQ(r.out.find("written to the zoo cache " + cache), std::string::npos) << r.out;
}

// ---- Sweep stage 1 refuses what codegen cannot build ----------------------------

// An average pool needs 10 uops (k x k + 1 per ACC half); with buffers.uop
// = 32B (8 uops) the analytic stage fails the point naming the layer, where
// it used to pass it and let stage 2's cycle model fail on a LOAD UOP that
// named no layer.
TEST(UntrustedSweep, StageOneRefusesALayerWhoseUopsDoNotFit) {
  const fs::path d = test_dir();
  const fs::path spec = write(d / "s.yaml",
                              "base: vta-1x16x16\nnetworks: [\"avgpool:16,8,8,2\"]\n"
                              "axes:\n  - knob: buffers.uop\n    values: [32B, 64B]\n"
                              "objectives:\n  - minimize: cycles\n");
  const std::string db = (d / "s.db").string();
  const CliResult r = run_vta("sweep run -q " + spec.string() + " --db " + db + " --max-stage 1");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(run_vta("sweep export --json " + db).out);
  ASSERT_EQ(j["points"].size(), 2u) << j.dump();
  const auto& small = j["points"][0]["stages"]["analytic"];
  EXPECT_EQ(small["status"], "failed") << small.dump();
  const std::string why = small.value("error", "");
  EXPECT_HAS(why, "layer ");
  EXPECT_HAS(why, "needs 10 uops (40 bytes), more than the UOP buffer of config");
  EXPECT_HAS(why, "(buffers.uop = 32 bytes, 8 uops)");
  EXPECT_EQ(j["points"][1]["stages"]["analytic"]["status"], "ok") << j["points"][1].dump();
}

// A residual Add on its own needs 4 uops and 4 ACC elements (an operand in
// each half): below that, the estimate and codegen name the layer, where a
// chunk of zero elements used to loop forever in both.
TEST(UntrustedSweep, AnAddThatCannotBeBuiltIsNamedNotLoopedOn) {
  using namespace vta::compiler;
  Calibrator cal("sum-net");
  const Shape s{1, 16, 4, 4};
  const int x = cal.input(s, -7, Tensor{s, std::vector<int16_t>(static_cast<size_t>(s.size()), 3)});
  const Graph g = cal.take(cal.add(x, x, false, "sum"));
  const std::string base = std::string(VTA_SOURCE_DIR) + "/configs/vta-1x16x16.yaml";
  for (const auto& [set, needle] : std::vector<std::pair<std::string, std::string>>{
           {"buffers.acc=64B",
            "layer sum: its add needs 4 ACC elements (an operand in each half of the buffer), "
            "more than the ACC buffer of config vta-1x16x16 holds (buffers.acc = 64 bytes, 1 "
            "elements)"},
           {"buffers.uop=8B",
            "layer sum: its add needs 4 uops (16 bytes), more than the UOP buffer of config "
            "vta-1x16x16 holds (buffers.uop = 8 bytes, 2 uops)"}}) {
    const vta::Config c = vta::load_config(base, {vta::parse_override(set)});
    for (const bool build : {false, true}) {
      try {
        if (build)
          (void)compile(g, c);
        else
          (void)estimate_network(g, c);
        ADD_FAILURE() << set << (build ? ": compiled" : ": estimated");
      } catch (const vta::Error& e) {
        EXPECT_STREQ(e.what(), needle.c_str()) << set;
      }
    }
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
  const CliResult r = run_vta("bringup -b golden --no-corners --no-conformance --random 0 --networks dense:16,16");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_HAS(r.out, "networks     1 passed, 0 failed");
}

}  // namespace
