// Slurm submission and status of sharded sweeps (slurm.h).
#include "vta/sweeps/slurm.h"

#include <fmt/format.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include <cstring>
#include "vta/isa/control_chars.h"
#include "vta/isa/error.h"
#include "vta/isa/json_error.h"
#include "vta/isa/path_probe.h"
#include "vta/isa/read_file.h"
#include "vta/isa/shell_quote.h"
#include "vta/isa/write_file.h"
#include "vta/sweeps/spawn.h"
#include "vta/sweeps/store.h"

namespace vta::sweeps {

namespace fs = std::filesystem;

namespace {

// Whether `program` is an executable file in a folder of PATH.
bool have(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  std::string d;
  while (std::getline(dirs, d, ':'))
    if (!d.empty() && ::access((fs::path(d) / program).c_str(), X_OK) == 0) return true;
  return false;
}

// A value that goes on an `#SBATCH --KEY=VALUE` line: sbatch reads the line
// up to its end, so a newline (or any control character) would start a line
// of the user's choosing in the job script. Refused, naming the option.
const std::string& sbatch_value(const std::string& v, std::string_view option) {
  if (has_control_char(v))
    fail("{}: holds a control character (such as a newline), which cannot go on an #SBATCH line", option);
  return v;
}

std::string header(const SlurmOptions& o, const std::string& name, const std::string& array, int cpus) {
  std::string h = "#!/bin/bash\n";
  h += fmt::format("#SBATCH --job-name={}\n", sbatch_value(name, "the spec's name"));
  if (!array.empty()) h += fmt::format("#SBATCH --array={}\n", array);
  h += fmt::format("#SBATCH --cpus-per-task={}\n#SBATCH --time={}\n#SBATCH --mem={}\n", cpus,
                   sbatch_value(o.time, "--time"), sbatch_value(o.mem, "--mem"));
  if (!o.partition.empty()) h += fmt::format("#SBATCH --partition={}\n", sbatch_value(o.partition, "--partition"));
  if (!o.account.empty()) h += fmt::format("#SBATCH --account={}\n", sbatch_value(o.account, "--account"));
  h += fmt::format(
      "#SBATCH --output={}\n",
      sbatch_value((fs::path(o.dir) / (array.empty() ? "slurm-%j.out" : "slurm-%A_%a.out")).string(), "--dir"));
  h += "set -euo pipefail\n";
  for (const auto& l : o.setup) h += l + "\n";
  return h;
}

std::string submit(const std::string& script_path, const std::string& dependency, const std::string& array = "") {
  std::vector<std::string> argv{"sbatch", "--parsable"};
  if (!dependency.empty()) {
    argv.push_back("--dependency=afterok:" + dependency);
    argv.push_back("--kill-on-invalid-dep=yes");
  }
  if (!array.empty()) argv.push_back("--array=" + array);
  argv.push_back(script_path);
  const Output o = run_program(argv);
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

int max_stage(const SweepSpec& s) {
  return s.funnel.stage4_pnr ? kStagePnr : s.funnel.stage3_top_k > 0 ? kStageVerify : kStageSystemC;
}

}  // namespace

SlurmJobs read_slurm_jobs(const std::string& dir) {
  const std::string path = (fs::path(dir) / "slurm-jobs.json").string();
  const nlohmann::json j = parse_json(read_file(path, "job list"), path);
  if (!j.is_object()) fail("{}: not written by vta sweep submit (not a JSON object)", path);
  SlurmJobs jobs;
  jobs.tasks = static_cast<int>(json_int(j, "tasks", 1, 100000, path));
  if (!j.contains("spec") || !j["spec"].is_string()) fail("{}: spec must be the path of the sweep spec", path);
  jobs.spec = j["spec"].get<std::string>();
  for (const char* k : {"A", "B", "C"}) {
    if (!j.contains(k)) continue;
    const auto& v = j[k];
    // A Slurm job id is a number; anything else is refused before it reaches squeue or scancel.
    const std::string id = v.is_string() ? v.get<std::string>() : "";
    if (id.empty() || id.size() > 20 || !std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; }))
      fail("{}: job {} must be a Slurm job id (digits)", path, k);
    jobs.ids[k] = id;
  }
  return jobs;
}

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

namespace {

// The line each script runs first when the jobs use the `vta` on PATH: a
// compute node without it stops the job with this reason, not bash's.
constexpr const char* kVtaOnPath =
    "command -v vta > /dev/null || { echo \"vta is not on PATH on $HOSTNAME: give vta sweep submit --vta PATH, or a "
    "--setup line that puts it there\" >&2; exit 2; }";

// File systems whose files only one node sees.
std::string node_local_reason(const std::string& dir) {
  for (const char* local : {"/tmp", "/var/tmp", "/dev/shm", "/run"}) {
    const std::string l = local;
    if (dir == l || dir.starts_with(l + "/")) return "it is under " + l;
  }
  struct statfs st {};
  fs::path p = dir;
  while (!p.empty() && ::statfs(p.c_str(), &st) != 0) p = p.parent_path();
  if (!p.empty() && (st.f_type == 0x01021994 /* TMPFS_MAGIC */ || st.f_type == 0x858458f6 /* RAMFS_MAGIC */))
    return "it is on a tmpfs";
  return "";
}

std::string time_of(const SlurmOptions& o, const std::string& job) {
  return job == "A" && !o.time_a.empty()   ? o.time_a
         : job == "B" && !o.time_b.empty() ? o.time_b
         : job == "C" && !o.time_c.empty() ? o.time_c
                                           : o.time;
}

}  // namespace

std::string_view vta_on_path_line() { return kVtaOnPath; }

SlurmScripts slurm_scripts(const SweepSpec& spec, const std::string& spec_path, const SlurmOptions& o) {
  if (o.tasks < 1 || o.tasks > 100000) fail("--tasks {}: must be 1 to 100000", o.tasks);
  if (o.dir.empty()) fail("sweep submit: give --dir DIR for the shards");
  if (spec.strategy == Strategy::Evolve) fail("{}: the evolve strategy cannot be sharded", spec.source);
  SlurmScripts out;
  out.dir = fs::absolute(o.dir).lexically_normal().string();
  out.spec = fs::absolute(spec_path).lexically_normal().string();
  if (!out.dir.empty() && out.dir.size() > 1 && out.dir.back() == '/') out.dir.pop_back();
  if (const std::string why = node_local_reason(out.dir); !why.empty())
    out.warnings.push_back(
        fmt::format("--dir {}: {}, so only this node sees it; the compute nodes need a folder on a shared file system",
                    out.dir, why));
  // A path in a script is one quoted word, but a line of its own is what a
  // reader (and the fuzz target's check) expects: control characters are refused.
  (void)sbatch_value(o.vta, "--vta");
  (void)sbatch_value(out.spec, "the spec's path");
  const int cpus = o.cpus_per_task > 0 ? o.cpus_per_task : 2;
  const int n = o.tasks;
  // The jobs run the vta on the compute node's PATH unless --vta names one.
  const std::string vta = o.vta.empty() ? "vta" : shell_quote(fs::absolute(o.vta).lexically_normal().string());
  // Every path in a script is one single-quoted word; the task id, the only
  // expansion, stays outside the quotes.
  const auto shard_db = shell_quote(out.dir) + "/shard-\"$SLURM_ARRAY_TASK_ID\".sqlite";
  const std::string merged = shell_quote(out.dir + "/merged.sqlite");
  SlurmOptions so = o;
  so.dir = out.dir;
  so.setup = o.setup;
  if (o.vta.empty()) so.setup.insert(so.setup.begin(), kVtaOnPath);

  // Which array tasks to (re)run.
  for (int i = 0; i < n; ++i) {
    const std::string st = shard_store(out.dir, i);
    const bool a_done = o.resume && store_created(st) && shard_unfinished(spec, st, i, n, 0) == 0 &&
                        shard_unfinished(spec, st, i, n, 1) == 0;
    if (!a_done) out.tasks_a.push_back(i);
  }
  const std::string name = "vta-sweep-" + spec.name;
  so.time = time_of(o, "A");
  out.a = header(so, name + "-A", fmt::format("0-{}", n - 1), o.cpus_per_task > 0 ? o.cpus_per_task : 1) +
          fmt::format(
              "exec {} sweep run -q {} --shard \"$SLURM_ARRAY_TASK_ID/{}\" --db {} "
              "--max-stage 1 -j \"$SLURM_CPUS_PER_TASK\"\n",
              vta, shell_quote(out.spec), n, shard_db);
  so.time = time_of(o, "B");
  out.b = header(so, name + "-B", fmt::format("0-{}", n - 1), cpus) +
          fmt::format(
              "exec {} sweep run -q {} --shard \"$SLURM_ARRAY_TASK_ID/{}\" --db {} "
              "--max-stage 2 --peers {} -j \"$SLURM_CPUS_PER_TASK\"\n",
              vta, shell_quote(out.spec), n, shard_db, shell_quote(out.dir));
  so.time = time_of(o, "C");
  out.c = header(so, name + "-C", "", cpus) +
          fmt::format(
              "{0} sweep merge {1} -o {2}\n"
              "# Exit 1 when a stage-3 check failed or did not run, after the report that says which.\n"
              "checks=0\n"
              "{0} sweep run -q {3} --db {2} --max-stage {4} -j \"$SLURM_CPUS_PER_TASK\" || checks=$?\n"
              "{0} sweep report {2} -o {5}\n"
              "exit \"$checks\"\n",
              vta, shell_quote(out.dir), merged, shell_quote(out.spec), max_stage(spec),
              shell_quote(out.dir + "/report.html"));
  return out;
}

std::string submit_slurm(const SweepSpec& spec, const std::string& spec_path, const SlurmOptions& o) {
  const SlurmScripts s = slurm_scripts(spec, spec_path, o);
  for (const auto& w : s.warnings) std::fprintf(stderr, "vta: warning: %s\n", w.c_str());
  const std::string pa = s.dir + "/job-A.sh", pb = s.dir + "/job-B.sh", pc = s.dir + "/job-C.sh";
  const std::string dep = " --dependency=afterok:{} --kill-on-invalid-dep=yes ";
  if (o.dry_run) {
    // What would be written and submitted; nothing is.
    std::string sb;
    if (!s.tasks_a.empty())
      sb +=
          fmt::format("sbatch --parsable --array={} {}   # prints job id A\n", array_list(s.tasks_a), shell_quote(pa));
    sb += fmt::format("sbatch --parsable{}{}   # prints job id B\n",
                      s.tasks_a.empty() ? " " : fmt::format(fmt::runtime(dep), "A"), shell_quote(pb));
    sb += fmt::format("sbatch --parsable{}{}\n", fmt::format(fmt::runtime(dep), "B"), shell_quote(pc));
    return fmt::format("# {}\n{}\n# {}\n{}\n# {}\n{}\n# submitted as (dry run: nothing was written or submitted):\n{}",
                       pa, s.a, pb, s.b, pc, s.c, sb);
  }
  if (!have("sbatch")) fail("sweep submit --slurm: sbatch is not on PATH (is this a Slurm login node?)");
  make_dirs(s.dir, "--dir");
  for (const auto& [path, text] : {std::pair{pa, s.a}, std::pair{pb, s.b}, std::pair{pc, s.c}})
    write_file(path, text, "sbatch script");

  // A resubmission replaces the jobs of the last submission that still wait.
  const fs::path jobs_file = fs::path(s.dir) / "slurm-jobs.json";
  if (o.resume && path_exists(jobs_file))
    for (const auto& [k, id] : read_slurm_jobs(s.dir).ids) run_program({"scancel", id});
  nlohmann::ordered_json jobs{{"tasks", o.tasks}, {"spec", s.spec}};
  std::string ja, out;
  if (!s.tasks_a.empty()) {
    ja = submit(pa, "", array_list(s.tasks_a));
    jobs["A"] = ja;
    out += fmt::format("stage 0-1 array job {} (tasks {})\n", ja, array_list(s.tasks_a));
  }
  const std::string jb = submit(pb, ja);
  jobs["B"] = jb;
  const std::string jc = submit(pc, jb);
  jobs["C"] = jc;
  out += fmt::format("stage 2 array job {}\nmerge, stage 3 and report job {}\n", jb, jc);
  // Replaced whole (a resubmission read the one it replaces): written beside
  // it, then renamed over it.
  const std::string tmp = jobs_file.string() + ".new";
  write_file(tmp, jobs.dump(1) + "\n", "job list");
  std::error_code ec;
  fs::rename(tmp, jobs_file, ec);
  if (ec) fail("job list {}: cannot write ({})", jobs_file.string(), ec.message());
  out += fmt::format("shards in {}; watch with: vta sweep status {}\n", s.dir, s.dir);
  return out;
}

std::string slurm_status(const SweepSpec& spec, const std::string& dir) {
  const bool have_jobs = path_exists(fs::path(dir) / "slurm-jobs.json");
  const SlurmJobs jobs = have_jobs ? read_slurm_jobs(dir) : SlurmJobs{};
  const auto stores = shard_stores(dir);
  const int n = have_jobs ? jobs.tasks : static_cast<int>(stores.size());
  std::map<std::string, std::string> state;  // "jobid_task" or "jobid" -> state
  std::string ids;
  for (const auto& [k, id] : jobs.ids) ids += (ids.empty() ? "" : ",") + id;
  if (have("squeue") && !ids.empty()) {
    const Output o = run_program({"squeue", "-h", "-r", "-j", ids, "-o", "%i %T"});
    std::istringstream in(o.text);
    std::string id, st;
    while (in >> id >> st) state[id] = st;
  }
  auto job_state = [&](const char* k, int task) -> std::string {
    if (!jobs.ids.count(k)) return "-";
    const std::string id = jobs.ids.at(k);
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
  if (jobs.ids.count("C"))
    out += fmt::format("merge/stage 3/report job {}: {}\n", jobs.ids.at("C"), job_state("C", -1));
  if (path_exists(fs::path(dir) / "merged.sqlite")) out += fmt::format("merged store: {}/merged.sqlite\n", dir);
  return out;
}

}  // namespace vta::sweeps
