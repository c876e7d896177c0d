#pragma once
// Sweeps as Slurm job arrays (sweeps/README.md, "Slurm"). A sharded sweep
// lives in one folder: shard-I.sqlite per array task, the submitted scripts
// and slurm-jobs.json (the job ids), and after the last job merged.sqlite and
// report.html. Three jobs, each waiting for the one before:
//   A  array: stages 0-1 of shard I            (vta sweep run --shard I/N --max-stage 1)
//   B  array: stage 2 of shard I's part of the points the funnel selects over
//      every shard                             (--max-stage 2 --peers DIR)
//   C  one task: merge the shards, run stage 3 on the merged store, write the report
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "vta/sweeps/spec.h"

namespace vta::sweeps {

struct SlurmOptions {
  int tasks = 4;
  std::string dir;  // the sweep's folder (created)
  std::string partition, account, time = "01:00:00", mem = "4G";
  std::string time_a, time_b, time_c;  // the time limit of job A, B or C; empty: `time`
  int cpus_per_task = 0;               // 0: from the stage mix (1 for stage 1 only, else 2)
  std::vector<std::string> setup;      // shell lines run before vta in each job (module load ...)
  std::string vta;                     // the vta program the jobs run; empty: `vta` on the compute node's PATH
  bool resume = false;                 // resubmit only what is unfinished
  bool dry_run = false;                // print the scripts, submit nothing
};

/// What `vta sweep submit` recorded in DIR/slurm-jobs.json.
struct SlurmJobs {
  int tasks = 0;
  std::string spec;                        // the sweep spec's absolute path
  std::map<std::string, std::string> ids;  // "A", "B", "C" -> Slurm job id (digits)
};

/// DIR/slurm-jobs.json, checked: a damaged or crafted file (a job id that is
/// not a number, tasks out of range, not JSON) is one error naming the file.
SlurmJobs read_slurm_jobs(const std::string& dir);

/// The store of shard `i` in `dir`.
std::string shard_store(const std::string& dir, int i);
/// Every shard-*.sqlite in `dir` that was created (store_created()), sorted.
std::vector<std::string> shard_stores(const std::string& dir);

/// The three job scripts of a submission, built without writing or
/// submitting anything; every string from the spec or the options in them
/// is quoted (shell_quote) or refused (a control character on an #SBATCH
/// line). `warnings`: a --dir only this node sees.
struct SlurmScripts {
  std::string a, b, c;       // job A, B and C
  std::vector<int> tasks_a;  // the array tasks of job A to (re)run
  std::string dir, spec;     // absolute
  std::vector<std::string> warnings;
};
SlurmScripts slurm_scripts(const SweepSpec& spec, const std::string& spec_path, const SlurmOptions& o);
/// The line each script runs first when the jobs use the `vta` on PATH.
std::string_view vta_on_path_line();

/// Writes the job scripts and submits them with sbatch; returns what to
/// print (the job ids). With dry_run: writes and submits nothing and returns
/// the scripts and the sbatch lines with their dependencies.
std::string submit_slurm(const SweepSpec& spec, const std::string& spec_path, const SlurmOptions& o);

/// Per shard: points done / failed / pending, and each job's Slurm state
/// (squeue) while it is queued or running.
std::string slurm_status(const SweepSpec& spec, const std::string& dir);

/// How many of shard i's points (of n) lack a result at `stage` (0 or 1):
/// stage 1 is due only for valid designs.
int64_t shard_unfinished(const SweepSpec& spec, const std::string& store, int i, int n, int stage);

}  // namespace vta::sweeps
