// `vta sweep ...` (sweep_command.h): thin wrappers over vta_sweeps.
#include "sweep_command.h"

#include <unistd.h>

#include <fstream>
#include <iostream>

#include "run_and_exit.h"
#include "vta/isa/error.h"
#include "vta/sweeps/export.h"
#include "vta/sweeps/html.h"
#include "vta/sweeps/runner.h"
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
  std::ofstream f(path, std::ios::binary);
  if (!f) fail("{}: cannot write", path);
  f << text;
  f.flush();
  if (!f) fail("{}: cannot write (disk full?)", path);
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto* sweep = app.add_subcommand("sweep", "design-space sweeps: run, status, export, report (sweeps/README.md)");
  sweep->require_subcommand(1);

  struct RunArgs {
    std::string spec, db;
    int jobs = 0, max_stage = 3;
    bool quiet = false;
  };
  auto run_args = std::make_shared<RunArgs>();
  auto* run = sweep->add_subcommand("run", "run or resume a sweep into a results store");
  run->add_option("spec", run_args->spec, "sweep spec (YAML)")->required();
  run->add_option("--db", run_args->db, "results store (SQLite); resumes when it exists")->required();
  run->add_option("-j,--jobs", run_args->jobs, "worker processes (0: one per core)")->capture_default_str();
  run->add_option("--max-stage", run_args->max_stage, "run no stage beyond this (1 analytic, 2 SystemC, 3 verify)")
      ->check(CLI::Range(0, 3))
      ->capture_default_str();
  run->add_flag("-q,--quiet", run_args->quiet, "no progress output");
  run->callback([run_args] {
    run_and_exit([&] {
      const sweeps::SweepSpec spec = sweeps::load_spec(run_args->spec);
      sweeps::Store store(run_args->db, true);
      sweeps::RunOptions o;
      o.jobs = run_args->jobs;
      o.max_stage = run_args->max_stage;
      o.progress = !run_args->quiet;
      o.tool = std::string("vta-lab ") + VTA_VERSION;
      const sweeps::RunSummary s = sweeps::run_sweep(spec, store, o);
      emit(sweeps::summary_text(s) + fmt::format("results in {}\n", run_args->db), "");
      return kExitOk;
    });
  });

  auto status_db = std::make_shared<std::string>();
  auto* status = sweep->add_subcommand("status", "points done, invalid, failed per stage");
  status->add_option("db", *status_db, "results store")->required();
  status->callback([status_db] {
    run_and_exit([&] {
      sweeps::Store store(*status_db, false);
      emit(sweeps::status_text(store), "");
      return kExitOk;
    });
  });

  struct ExportArgs {
    std::string db, out;
    bool csv = false, json = false, layers = false;
  };
  auto ex = std::make_shared<ExportArgs>();
  auto* exp = sweep->add_subcommand("export", "write every point and stage as CSV or JSON");
  exp->add_option("db", ex->db, "results store")->required();
  auto* csv = exp->add_flag("--csv", ex->csv, "CSV: one row per point and stage");
  auto* json = exp->add_flag("--json", ex->json, "JSON: points with their stages");
  csv->excludes(json);
  exp->add_flag("--layers", ex->layers, "--json: include the per-layer rows");
  exp->add_option("-o,--output", ex->out, "output file (default: stdout)");
  exp->callback([ex] {
    run_and_exit([&] {
      if (!ex->csv && !ex->json) fail("sweep export: give --csv or --json");
      if (ex->layers && !ex->json) fail("sweep export: --layers needs --json");
      sweeps::Store store(ex->db, false);
      const auto points = store.load(ex->layers);
      emit(ex->csv ? sweeps::export_csv(points) : sweeps::export_json(store, points, ex->layers).dump(1) + "\n",
           ex->out);
      return kExitOk;
    });
  });

  struct ReportArgs {
    std::string db, out;
    sweeps::SweepReportOptions o;
  };
  auto rep = std::make_shared<ReportArgs>();
  auto* report = sweep->add_subcommand("report", "write a self-contained HTML report with plots");
  report->add_option("db", rep->db, "results store")->required();
  report->add_option("-o,--output", rep->out, "HTML file")->required();
  report->add_option("--heat-x", rep->o.heat_x, "knob on the heat map's x axis (default: the first axis)");
  report->add_option("--heat-y", rep->o.heat_y, "knob on the heat map's y axis (default: the second axis)");
  report->callback([rep] {
    run_and_exit([&] {
      sweeps::Store store(rep->db, false);
      emit(sweeps::sweep_report_html(store, rep->o), rep->out);
      std::cout << fmt::format("wrote {}\n", rep->out);
      return kExitOk;
    });
  });
}

}  // namespace vta::app
