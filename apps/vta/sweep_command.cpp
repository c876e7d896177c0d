// `vta sweep ...` (sweep_command.h): thin wrappers over vta_sweeps.
#include "sweep_command.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <tuple>

#include "run_and_exit.h"
#include "vta/isa/error.h"
#include "vta/isa/path_probe.h"
#include "vta/isa/write_file.h"
#include "vta/sweeps/export.h"
#include "vta/sweeps/html.h"
#include "vta/sweeps/runner.h"
#include "vta/sweeps/show.h"
#include "vta/sweeps/slurm.h"
#include "vta/sweeps/spec.h"
#include "vta/sweeps/store.h"

#ifndef VTA_VERSION
#define VTA_VERSION "0.0.0"
#endif

namespace vta::app {

namespace {

// Writes `text` to `path` ("-" or empty: stdout) and checks that it landed.
void emit(const std::string& text, const std::string& path) {
  if (path.empty() || path == "-") {
    std::cout << text;
    std::cout.flush();
    if (!std::cout) fail("cannot write to standard output");
    return;
  }
  write_file(path, text);
}

// A store, or a sharded sweep's folder: its shard stores (and merged.sqlite,
// when the last job wrote it) merged in memory.
std::unique_ptr<sweeps::Store> open_results(const std::string& path) {
  if (!path_is_dir(path)) return std::make_unique<sweeps::Store>(path, false);
  auto merged = std::make_unique<sweeps::Store>(":memory:", true);
  const auto shards = sweeps::shard_stores(path);
  if (shards.empty()) fail("{}: no shard-*.sqlite stores in this folder", path);
  for (const auto& s : shards) merged->merge_from(s);
  // The last job's merged store holds stage 3, which runs after the merge.
  if (const auto m = std::filesystem::path(path) / "merged.sqlite"; path_exists(m)) merged->merge_from(m.string());
  return merged;
}

// This program's own path (stage 4 runs it to generate a design's
// SystemVerilog package); "" when the system does not say.
std::string self_path() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "" : p.string();
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto* sweep = app.add_subcommand("sweep", "design-space sweeps: run, status, export, report (sweeps/README.md)");
  sweep->require_subcommand(1);

  struct RunArgs {
    std::string spec, db, shard, peers;
    int jobs = 0, max_stage = 4;
    bool quiet = false, no_cache = false;
  };
  auto run_args = std::make_shared<RunArgs>();
  auto* run = sweep->add_subcommand("run", "run or resume a sweep into a results store");
  run->add_option("spec", run_args->spec, "sweep spec (YAML)")->required();
  run->add_option("--db", run_args->db, "results store (SQLite); resumes when it exists")->required();
  run->add_option("-j,--jobs", run_args->jobs, "worker processes (0: one per core)")->capture_default_str();
  run->add_option("--max-stage", run_args->max_stage,
                  "run no stage beyond this (1 analytic, 2 SystemC, 3 verify, 4 pnr)")
      ->check(CLI::Range(0, 4))
      ->capture_default_str();
  run->add_flag("-q,--quiet", run_args->quiet, "no progress output");
  run->add_flag("--no-cache", run_args->no_cache, "build and calibrate zoo networks anew (no zoo cache)");
  run->add_option("--shard", run_args->shard, "run shard I of N (I/N): a deterministic slice of the points");
  run->add_option("--peers", run_args->peers,
                  "--shard: folder of the other shards' stores (shard-*.sqlite), whose stage 1 stage 2 selects over");
  run->callback([run_args] {
    run_and_exit([&] {
      const sweeps::SweepSpec spec = sweeps::load_spec(run_args->spec);
      sweeps::Store store(run_args->db, true);
      sweeps::RunOptions o;
      o.jobs = run_args->jobs;
      o.max_stage = run_args->max_stage;
      o.progress = !run_args->quiet;
      o.use_cache = !run_args->no_cache;
      o.tool = std::string("vta-lab ") + VTA_VERSION;
      o.vta = self_path();  // stage 4 generates each design's SystemVerilog package with this program
      if (!run_args->shard.empty()) std::tie(o.shard, o.shards) = sweeps::parse_shard(run_args->shard, "--shard");
      if (!run_args->peers.empty()) {
        if (run_args->shard.empty()) fail("sweep run: --peers needs --shard");
        for (const auto& p : sweeps::shard_stores(run_args->peers))
          if (!same_file(p, run_args->db)) o.peers.push_back(p);
      }
      const sweeps::RunSummary s = sweeps::run_sweep(spec, store, o);
      emit(sweeps::summary_text(s) + fmt::format("results in {}\n", run_args->db), "");
      return sweeps::checks_passed(s) ? kExitOk : kExitMismatch;  // a stage-3 check failed or did not run
    });
  });

  auto status_db = std::make_shared<std::string>();
  auto* status = sweep->add_subcommand("status", "points done, invalid, failed per stage");
  status->add_option("db", *status_db, "results store, or a sharded sweep's folder")->required();
  status->callback([status_db] {
    run_and_exit([&] {
      if (path_is_dir(*status_db) && path_exists(*status_db + "/slurm-jobs.json")) {
        const auto jobs = sweeps::read_slurm_jobs(*status_db);
        emit(sweeps::slurm_status(sweeps::load_spec(jobs.spec), *status_db), "");
      }
      const auto store = open_results(*status_db);
      emit(sweeps::status_text(*store), "");
      return kExitOk;
    });
  });

  struct ExportArgs {
    std::string db, out;
    bool csv = false, json = false, layers = false;
  };
  auto ex = std::make_shared<ExportArgs>();
  auto* exp = sweep->add_subcommand("export", "write every point and stage as CSV or JSON");
  exp->add_option("db", ex->db, "results store, or a folder of shard stores")->required();
  auto* csv = exp->add_flag("--csv", ex->csv, "CSV: one row per point and stage");
  auto* json = exp->add_flag("--json", ex->json, "JSON: points with their stages");
  csv->excludes(json);
  exp->add_flag("--layers", ex->layers, "--json: include the per-layer rows");
  exp->add_option("-o,--output", ex->out, "output file (default: stdout)");
  exp->callback([ex] {
    run_and_exit([&] {
      if (!ex->csv && !ex->json) fail("sweep export: give --csv or --json");
      if (ex->layers && !ex->json) fail("sweep export: --layers needs --json");
      const auto store = open_results(ex->db);
      emit(ex->csv ? sweeps::export_csv(*store)
                   : sweeps::export_json(*store, store->load(ex->layers), ex->layers).dump(1) + "\n",
           ex->out);
      return kExitOk;
    });
  });

  struct ShowArgs {
    std::string db, point, network, out;
  };
  auto sh = std::make_shared<ShowArgs>();
  auto* show = sweep->add_subcommand(
      "show", "a stored point as a design: its config YAML (loadable by --config), its results and its vta run line");
  show->add_option("db", sh->db, "results store, or a folder of shard stores")->required();
  show->add_option("point", sh->point, "the point's index in the design space, or its key HASH/NETWORK")->required();
  show->add_option("--network", sh->network, "with an index: the network (default: the first)");
  show->add_option("-o,--output", sh->out, "write the YAML to this file (default: stdout)");
  show->callback([sh] {
    run_and_exit([&] {
      const auto store = open_results(sh->db);
      emit(sweeps::show_point(*store, sh->point, sh->network), sh->out);
      return kExitOk;
    });
  });

  struct MergeArgs {
    std::vector<std::string> inputs;
    std::string out;
  };
  auto mg = std::make_shared<MergeArgs>();
  auto* merge = sweep->add_subcommand("merge", "combine shard stores into one (idempotent)");
  merge->add_option("inputs", mg->inputs, "stores, or folders of shard-*.sqlite")->required();
  merge->add_option("-o,--output", mg->out, "merged store (created or extended)")->required();
  merge->callback([mg] {
    run_and_exit([&] {
      std::vector<std::string> files;
      for (const auto& in : mg->inputs) {
        if (path_is_dir(in)) {
          const auto s = sweeps::shard_stores(in);
          if (s.empty()) fail("{}: no shard-*.sqlite stores in this folder", in);
          files.insert(files.end(), s.begin(), s.end());
        } else {
          files.push_back(in);
        }
      }
      // Created with the first input's spec, then filled by plain inserts.
      sweeps::Store out(mg->out, true);
      int64_t added = 0;
      for (const auto& f : files) {
        if (path_exists(mg->out) && same_file(f, mg->out)) continue;
        added += out.merge_from(f);
      }
      emit(fmt::format("merged {} stores into {}: {} rows added\n", files.size(), mg->out, added), "");
      return kExitOk;
    });
  });

  struct SubmitArgs {
    std::string spec;
    bool slurm = false;
    sweeps::SlurmOptions o;
  };
  auto sb = std::make_shared<SubmitArgs>();
  auto* submit = sweep->add_subcommand("submit", "run a sweep as Slurm job arrays, one shard per array task");
  submit->add_option("spec", sb->spec, "sweep spec (YAML)")->required();
  submit->add_flag("--slurm", sb->slurm, "submit to Slurm with sbatch (the only scheduler so far)")->required();
  submit->add_option("--dir", sb->o.dir, "folder of the shards, scripts and logs")->required();
  submit->add_option("--tasks", sb->o.tasks, "array tasks (shards)")->capture_default_str();
  submit->add_option("--partition", sb->o.partition, "Slurm partition");
  submit->add_option("--account", sb->o.account, "Slurm account");
  submit->add_option("--time", sb->o.time, "time limit per task")->capture_default_str();
  submit->add_option("--time-a", sb->o.time_a, "time limit per task of job A (stages 0-1; default: --time)");
  submit->add_option("--time-b", sb->o.time_b, "time limit per task of job B (stage 2; default: --time)");
  submit->add_option("--time-c", sb->o.time_c, "time limit of job C (merge, stage 3, report; default: --time)");
  submit->add_option("--vta", sb->o.vta,
                     "the vta the jobs run (default: `vta` on the compute node's PATH, checked when each job starts)");
  submit->add_option("--mem", sb->o.mem, "memory per task")->capture_default_str();
  submit->add_option("--cpus-per-task", sb->o.cpus_per_task, "CPUs per task (default: 1 for stage 1, 2 for stage 2)");
  submit->add_option("--setup", sb->o.setup, "a shell line each job runs first (e.g. 'module load gcc'; repeatable)");
  submit->add_flag("--resume", sb->o.resume, "resubmit only the shards that are unfinished");
  submit->add_flag("--dry-run", sb->o.dry_run,
                   "print the job scripts and the sbatch lines with their dependencies; write and submit nothing");
  submit->callback([sb] {
    run_and_exit([&] {
      const sweeps::SweepSpec spec = sweeps::load_spec(sb->spec);
      emit(sweeps::submit_slurm(spec, sb->spec, sb->o), "");
      return kExitOk;
    });
  });

  struct ReportArgs {
    std::string db, out;
    sweeps::SweepReportOptions o;
  };
  auto rep = std::make_shared<ReportArgs>();
  auto* report = sweep->add_subcommand("report", "write a self-contained HTML report with plots");
  report->add_option("db", rep->db, "results store, or a folder of shard stores")->required();
  report->add_option("-o,--output", rep->out, "HTML file")->required();
  report->add_option("--heat-x", rep->o.heat_x, "knob on the heat map's x axis (default: the first axis)");
  report->add_option("--heat-y", rep->o.heat_y, "knob on the heat map's y axis (default: the second axis)");
  report->callback([rep] {
    run_and_exit([&] {
      const auto store = open_results(rep->db);
      emit(sweeps::sweep_report_html(*store, rep->o), rep->out);
      std::cout << fmt::format("wrote {}\n", rep->out);
      return kExitOk;
    });
  });
}

}  // namespace vta::app
