// Slurm submission and status of sharded sweeps (slurm.h).
#include "vta/sweeps/slurm.h"

#include <fmt/format.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "vta/isa/error.h"
#include "vta/isa/write_file.h"
#include "vta/sweeps/store.h"
#include "vta/isa/path_probe.h"

namespace vta::sweeps {

namespace fs = std::filesystem;

namespace {

// Single-quoted for sh.
std::string q(const std::string& s) {
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

struct Output {
  int code = -1;
  std::string text;
};

Output sh(const std::string& cmd) {
  Output o;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) fail("cannot run: {}", cmd);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) o.text.append(buf, n);
  const int st = ::pclose(p);
  o.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  while (!o.text.empty() && (o.text.back() == '\n' || o.text.back() == '\r')) o.text.pop_back();
  return o;
}

bool have(const std::string& program) { return sh("command -v " + program + " > /dev/null").code == 0; }

std::string header(const SlurmOptions& o, const std::string& name, const std::string& array, int cpus) {
  std::string h = "#!/bin/bash\n";
  h += fmt::format("#SBATCH --job-name={}\n", name);
  if (!array.empty()) h += fmt::format("#SBATCH --array={}\n", array);
  h += fmt::format("#SBATCH --cpus-per-task={}\n#SBATCH --time={}\n#SBATCH --mem={}\n", cpus, o.time, o.mem);
  if (!o.partition.empty()) h += fmt::format("#SBATCH --partition={}\n", o.partition);
  if (!o.account.empty()) h += fmt::format("#SBATCH --account={}\n", o.account);
  h += fmt::format("#SBATCH --output={}\n",
                   (fs::path(o.dir) / (array.empty() ? "slurm-%j.out" : "slurm-%A_%a.out")).string());
  h += "set -euo pipefail\n";
  for (const auto& l : o.setup) h += l + "\n";
  return h;
}

std::string submit(const std::string& script_path, const std::string& dependency, const std::string& extra = "") {
  const std::string dep =
      dependency.empty() ? "" : " --dependency=afterok:" + dependency + " --kill-on-invalid-dep=yes";
  const Output o = sh("sbatch --parsable" + dep + extra + " " + q(script_path));
  if (o.code != 0) fail("sbatch {}: {}", script_path, o.text);
  const std::string id = o.text.substr(0, o.text.find(';'));
  if (id.empty() || !std::all_of(id.begin(), id.end(), ::isdigit))
    fail("sbatch {}: unexpected answer '{}'", script_path, o.text);
  return id;
}

std::string array_list(const std::vector<int>& tasks) {
  std::string s;
  for (int t : tasks) s += (s.empty() ? "" : ",") + std::to_string(t);
  return s;
}

int max_stage(const SweepSpec& s) { return s.funnel.stage3_top_k > 0 ? 3 : 2; }

}  // namespace

std::string shard_store(const std::string& dir, int i) {
  return (fs::path(dir) / fmt::format("shard-{}.sqlite", i)).string();
}

std::vector<std::string> shard_stores(const std::string& dir) {
  std::vector<std::string> out;
  if (!path_is_dir(dir)) fail("{}: not a folder of shard stores", dir);
  for (const auto& e : list_dir(dir)) {
    const std::string n = e.path().filename().string();
    if (n.starts_with("shard-") && n.ends_with(".sqlite") && store_created(e.path().string()))
      out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string submit_slurm(const SweepSpec& spec, const std::string& spec_path, const SlurmOptions& o) {
  if (o.tasks < 1 || o.tasks > 100000) fail("--tasks {}: must be 1 to 100000", o.tasks);
  if (o.dir.empty()) fail("sweep submit: give --dir DIR for the shards");
  if (spec.strategy == Strategy::Evolve) fail("{}: the evolve strategy cannot be sharded", spec.source);
  if (!o.dry_run && !have("sbatch")) fail("sweep submit --slurm: sbatch is not on PATH (is this a Slurm login node?)");
  make_dirs(o.dir, "--dir");
  const std::string dir = fs::absolute(o.dir).string(), spec_abs = fs::absolute(spec_path).string();
  SlurmOptions so = o;
  so.dir = dir;
  const int cpus = o.cpus_per_task > 0 ? o.cpus_per_task : 2;
  const int n = o.tasks;
  const std::string vta = q(o.vta);

  // Which array tasks to (re)run.
  std::vector<int> tasks_a, tasks_b;
  for (int i = 0; i < n; ++i) {
    const std::string st = shard_store(dir, i);
    const bool a_done = o.resume && store_created(st) && shard_unfinished(spec, st, i, n, 0) == 0 &&
                        shard_unfinished(spec, st, i, n, 1) == 0;
    if (!a_done) tasks_a.push_back(i);
    tasks_b.push_back(i);  // stage 2 skips what is stored: a finished task ends at once
  }
  const std::string name = "vta-sweep-" + spec.name;
  const std::string a =
      header(so, name + "-A", fmt::format("0-{}", n - 1), o.cpus_per_task > 0 ? o.cpus_per_task : 1) +
      fmt::format(
          "exec {} sweep run -q {} --shard \"$SLURM_ARRAY_TASK_ID/{}\" --db \"{}/shard-$SLURM_ARRAY_TASK_ID.sqlite\" "
          "--max-stage 1 -j \"$SLURM_CPUS_PER_TASK\"\n",
          vta, q(spec_abs), n, dir);
  const std::string b =
      header(so, name + "-B", fmt::format("0-{}", n - 1), cpus) +
      fmt::format(
          "exec {} sweep run -q {} --shard \"$SLURM_ARRAY_TASK_ID/{}\" --db \"{}/shard-$SLURM_ARRAY_TASK_ID.sqlite\" "
          "--max-stage 2 --peers {} -j \"$SLURM_CPUS_PER_TASK\"\n",
          vta, q(spec_abs), n, dir, q(dir));
  const std::string c = header(so, name + "-C", "", cpus) +
                        fmt::format(
                            "{0} sweep merge {1} -o {2}/merged.sqlite\n"
                            "{0} sweep run -q {3} --db {2}/merged.sqlite --max-stage {4} -j \"$SLURM_CPUS_PER_TASK\"\n"
                            "exec {0} sweep report {2}/merged.sqlite -o {2}/report.html\n",
                            vta, q(dir), dir, q(spec_abs), max_stage(spec));
  const std::string pa = dir + "/job-A.sh", pb = dir + "/job-B.sh", pc = dir + "/job-C.sh";
  for (const auto& [path, text] : {std::pair{pa, a}, std::pair{pb, b}, std::pair{pc, c}})
    write_file(path, text, "sbatch script");
  if (o.dry_run)
    return fmt::format("# {} (array tasks {})\n{}\n# {} (after A)\n{}\n# {} (after B)\n{}", pa,
                       tasks_a.empty() ? "none" : array_list(tasks_a), a, pb, b, pc, c);

  // A resubmission replaces the jobs of the last submission that still wait.
  const fs::path jobs_file = fs::path(dir) / "slurm-jobs.json";
  if (o.resume && path_exists(jobs_file)) {
    std::ifstream in(jobs_file);
    const auto old = nlohmann::json::parse(in, nullptr, false);
    if (!old.is_discarded())
      for (const char* k : {"A", "B", "C"})
        if (old.contains(k) && old[k].is_string()) sh("scancel " + q(old[k].get<std::string>()));
  }
  nlohmann::ordered_json jobs{{"tasks", n}, {"spec", spec_abs}};
  std::string dep, out;
  if (!tasks_a.empty()) {
    dep = submit(pa, "", " --array=" + array_list(tasks_a));
    jobs["A"] = dep;
    out += fmt::format("stage 0-1 array job {} (tasks {})\n", dep, array_list(tasks_a));
  }
  const std::string jb = submit(pb, dep);
  jobs["B"] = jb;
  const std::string jc = submit(pc, jb);
  jobs["C"] = jc;
  out += fmt::format("stage 2 array job {}\nmerge, stage 3 and report job {}\n", jb, jc);
  write_file(jobs_file.string(), jobs.dump(1) + "\n", "job list");
  out += fmt::format("shards in {}; watch with: vta sweep status {}\n", dir, dir);
  return out;
}

std::string slurm_status(const SweepSpec& spec, const std::string& dir) {
  const fs::path jobs_file = fs::path(dir) / "slurm-jobs.json";
  nlohmann::json jobs = nlohmann::json::object();
  if (path_exists(jobs_file)) {
    std::ifstream in(jobs_file);
    jobs = nlohmann::json::parse(in, nullptr, false);
    if (jobs.is_discarded()) jobs = nlohmann::json::object();
  }
  const auto stores = shard_stores(dir);
  const int n = jobs.contains("tasks") ? jobs["tasks"].get<int>() : static_cast<int>(stores.size());
  std::map<std::string, std::string> state;  // "jobid_task" or "jobid" -> state
  std::string ids;
  for (const char* k : {"A", "B", "C"})
    if (jobs.contains(k)) ids += (ids.empty() ? "" : ",") + jobs[k].get<std::string>();
  if (have("squeue") && !ids.empty()) {
    const Output o = sh("squeue -h -r -j " + ids + " -o '%i %T'");
    std::istringstream in(o.text);
    std::string id, st;
    while (in >> id >> st) state[id] = st;
  }
  auto job_state = [&](const char* k, int task) -> std::string {
    if (!jobs.contains(k)) return "-";
    const std::string id = jobs[k].get<std::string>();
    const std::string key = task >= 0 ? fmt::format("{}_{}", id, task) : id;
    if (state.count(key)) return state[key];
    return state.count(id) ? state[id] : "not queued";
  };
  std::string out = fmt::format("{} shards in {}\n", n, dir);
  out += fmt::format("{:<6} {:>8} {:>8} {:>8} {:>8} {:>9}  {:<12} {:<12}\n", "shard", "stage0", "stage1", "stage2",
                     "failed", "pending", "job A", "job B");
  for (int i = 0; i < n; ++i) {
    const std::string st = shard_store(dir, i);
    int64_t c[4] = {0, 0, 0, 0}, failed = 0, pending = 0;
    if (store_created(st)) {
      const Store s(st, false);
      for (const auto& [key, stages] : s.results(false))
        for (const auto& [k, r] : stages) {
          ++c[std::clamp(k, 0, 3)];
          failed += r.status == "failed" || r.status == "timeout";
        }
      pending = shard_unfinished(spec, st, i, n, 0) + shard_unfinished(spec, st, i, n, 1);
    } else {
      pending = -1;
    }
    out += fmt::format("{:<6} {:>8} {:>8} {:>8} {:>8} {:>9}  {:<12} {:<12}\n", i, c[0], c[1], c[2], failed,
                       pending < 0 ? std::string("no store") : std::to_string(pending), job_state("A", i),
                       job_state("B", i));
  }
  if (jobs.contains("C"))
    out += fmt::format("merge/stage 3/report job {}: {}\n", jobs["C"].get<std::string>(), job_state("C", -1));
  if (path_exists(fs::path(dir) / "merged.sqlite")) out += fmt::format("merged store: {}/merged.sqlite\n", dir);
  return out;
}

}  // namespace vta::sweeps
