#pragma once
// The sweep runner: expands the spec into points, builds each network once,
// runs the funnel's stages over worker processes and writes every finished
// point and stage to the store at once. Points already in the store are
// skipped, so running again resumes. The stages themselves are in stages.h;
// this file only schedules them.
#include <array>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "vta/sweeps/spec.h"
#include "vta/sweeps/stages.h"
#include "vta/sweeps/store.h"

namespace vta::sweeps {

struct RunOptions {
  int jobs = 0;               // worker processes; 0: one per core
  int max_stage = kStagePnr;  // run no stage beyond this
  bool progress = true;       // progress on stderr: a bar on a terminal, else a line every few seconds
  std::string tool = "vta-lab";
  // Shard `shard` of `shards` (a Slurm array task): stages 0 and 1 run on the
  // design points a seeded hash of their index assigns to it (deterministic,
  // so a re-run task redoes only its own unfinished points; every axis is
  // spread over every shard). Stages 2 and 3 run on this shard's part of the
  // points the funnel selects over every shard: `peers` are the other shards'
  // stores, whose stage 1 must be complete (the runner says which is not).
  int shard = 0, shards = 1;
  std::vector<std::string> peers;
  // Zoo networks built through the zoo cache (compiler/zoo_cache.h, one
  // entry for every design point); false builds and calibrates them anew.
  bool use_cache = true;
  // Stage 4: the vta program that generates a design's SystemVerilog
  // package (`vta sweep run` passes itself; "": stage 4 cannot run), the
  // driver ("": default_pnr_script()) and the folder of netlists and
  // reports ("": the store's path + ".pnr").
  std::string vta, pnr_script, pnr_work;
};

struct StageCounts {
  int64_t planned = 0;  // points the stage was asked to run
  int64_t resumed = 0;  // of those, found in the store (not redone)
  int64_t ok = 0, invalid = 0, failed = 0, timeout = 0;
};

/// Outcomes of one stage-3 or stage-4 check (stages.h, Check) over the points.
struct CheckCounts {
  int64_t passed = 0, failed = 0, not_run = 0, optional = 0;  // optional: an optional check that did not run
};

struct RunSummary {
  std::array<StageCounts, kStages> stages{};
  int64_t space = 0;                          // points in the spec's full design space
  int64_t points = 0;                         // design points visited x networks
  std::map<std::string, CheckCounts> checks;  // stage 3, by check name
  double wall_s = 0;
};

/// Runs (or resumes) the sweep. Throws vta::Error for what stops the whole
/// sweep (an unknown network, an unwritable store); a failing point is a
/// recorded row, never an exception.
RunSummary run_sweep(const SweepSpec& spec, Store& store, const RunOptions& opts);

/// The (dtype.inp_bits, dtype.wgt_bits) pairs the space's designs can have:
/// the base's (with `set`) overlaid with every combination of the axes that
/// set either (a zip's rows as they are). Empty where the base does not load
/// (stage 0 then says why, design by design). run_sweep() builds its zoo
/// networks at each (network_at_widths()) before it forks the workers.
std::vector<std::pair<int, int>> sweep_widths(const SweepSpec& spec);

/// Parses "I/N" (0 <= I < N); throws vta::Error naming `what`.
std::pair<int, int> parse_shard(const std::string& text, const std::string& what);

/// "stage N: a ok, b invalid, ..." lines of a summary, then one line per
/// stage-3 check: "check rtl: a passed, b failed, c not run".
std::string summary_text(const RunSummary& s);

/// True when every stage-3 check that was asked for passed and stage 4's
/// place and route ran where asked for (an optional check that did not run
/// does not count against it; a design that misses its clock at stage 4 is
/// an invalid point, not a failed check): `vta sweep run`'s exit code.
bool checks_passed(const RunSummary& s);

}  // namespace vta::sweeps
