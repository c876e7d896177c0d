// The sweep runner (runner.h). The parent process loads each design (stage 0:
// the config loader's checks and the spec's constraints), decides which
// points go on, and writes results; worker processes run stages 1-3.
#include "vta/sweeps/runner.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "vta/compiler/schedule/tile_search.h"
#include "vta/estimate/devices.h"
#include "vta/estimate/estimate.h"
#include "vta/isa/error.h"
#include "vta/model/backend_prepare.h"
#include "vta/sweeps/constraints.h"
#include "vta/sweeps/pareto.h"
#include "vta/sweeps/progress.h"
#include "vta/sweeps/show.h"
#include "vta/sweeps/slurm.h"
#include "vta/sweeps/space.h"
#include "vta/sweeps/stage_pnr.h"
#include "vta/sweeps/stages.h"
#include "vta/sweeps/workers.h"

namespace vta::sweeps {

namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A visited design point on one network.
struct Visit {
  int64_t index = 0;
  int net = 0;
  PointInfo info;
  bool valid = false;
  bool own = true;  // in this shard (false: known only to select over every shard)
};

// Test hook (documented in sweeps/README.md): VTA_SWEEP_FAULT=crash:STAGE:INDEX
// or hang:STAGE:INDEX makes the worker crash (SIGSEGV) or hang on that point,
// so the tests can show that such a point is recorded and the sweep goes on.
void inject_fault(int stage, int64_t index) {
  const char* f = std::getenv("VTA_SWEEP_FAULT");
  if (!f) return;
  std::string kind;
  int s = -1;
  long long i = -1;
  std::istringstream in{std::string(f)};
  std::getline(in, kind, ':');
  char colon = 0;
  in >> s >> colon >> i;
  if (s != stage || i != index) return;
  if (kind == "crash") std::raise(SIGSEGV);
  if (kind == "hang")
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

// Buffers finished rows and writes them in one transaction per flush: every
// `batch` rows, or `seconds` after the last flush. `background`: each flush
// is written by a thread of its own while the caller goes on (stages 0 and
// 1, where a flush into a large store would otherwise hold up the threads
// that load the designs, or the workers waiting for their next request);
// the next flush, and the Writer's end, wait for it and pass on its error.
class Writer {
 public:
  Writer(Store& s, size_t batch, double seconds = 0.25, bool background = false)
      : store_(s), batch_(batch), seconds_(seconds), background_(background), last_(std::chrono::steady_clock::now()) {}
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  ~Writer() noexcept(false) {
    if (std::uncaught_exceptions() == 0) {
      flush();
      wait();                       // the last flush's, written in the background
    } else if (writing_.valid()) {  // unwinding: the error is on its way already; the store outlives no write
      try {
        writing_.get();
      } catch (...) {
      }
    }
  }
  void add(PointInfo p, StageResult r) {
    pending_.emplace_back(std::move(p), std::move(r));
    if (pending_.size() >= batch_ || since(last_) > seconds_) flush();
  }
  // A stored point moved by an edit of the space (Store::renumber).
  void renumber(const PointInfo& p) {
    moved_.push_back(p);
    if (moved_.size() >= batch_) flush();
  }
  // A stored stage result judged anew (Store::replace).
  void replace(const PointInfo& p, const StageResult& r) {
    replaced_.emplace_back(p, r);
    if (replaced_.size() >= batch_) flush();
  }
  void flush() {
    wait();
    auto write = [this, rows = std::exchange(pending_, {}), moved = std::exchange(moved_, {}),
                  replaced = std::exchange(replaced_, {})] {
      store_.put_many(rows);
      store_.renumber(moved);
      store_.replace(replaced);
    };
    if (background_)
      writing_ = std::async(std::launch::async, std::move(write));
    else
      write();
    last_ = std::chrono::steady_clock::now();
  }

 private:
  // The flush in flight, if any: its error, if it failed, is this caller's.
  void wait() {
    if (writing_.valid()) writing_.get();
  }
  Store& store_;
  size_t batch_;
  double seconds_;
  bool background_;
  std::vector<std::pair<PointInfo, StageResult>> pending_, replaced_;
  std::vector<PointInfo> moved_;
  std::chrono::steady_clock::time_point last_;
  std::future<void> writing_;
};

// Shards of design point `idx`: a seeded hash of its index, not a slice of
// the visiting order, so every axis spreads over every shard (a slice of a
// grid would give one shard all of an axis value, say every design that is
// invalid) and each shard gets a like share of cheap and expensive designs.
int shard_of(const SweepSpec& spec, int64_t idx, int shards) {
  uint64_t h = static_cast<uint64_t>(idx) ^ (spec.seed * 0x9e3779b97f4a7c15ull);
  h ^= h >> 33, h *= 0xff51afd7ed558ccdull, h ^= h >> 33, h *= 0xc4ceb9fe1a85ec53ull, h ^= h >> 33;
  return static_cast<int>(h % static_cast<uint64_t>(shards));
}

// The values the spec's axes give knob `key` that parse as a T in full,
// for the tile search to search its designs together (set_search_depths(),
// set_search_clocks()); a value that does not is stage 0's to refuse, and
// left out here.
template <typename T>
std::vector<T> axis_numbers(const SweepSpec& spec, std::string_view key) {
  std::vector<T> out;
  for (const Axis& a : spec.axes)
    for (size_t j = 0; j < a.keys.size(); ++j)
      if (a.keys[j] == key)
        for (const auto& v : a.values) {
          T x{};
          const std::string& t = v[j];
          const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), x);
          if (ec == std::errc() && end == t.data() + t.size()) out.push_back(x);
        }
  return out;
}

// Stage 0 of a design: loads it and checks the constraints (parent process).
// An invalid design's key is an FNV-1a hash of its knobs: stable across
// machines, as the keys of shards must be.
struct Design {
  std::string hash, knobs;
  StageResult r0;
  std::vector<PointInfo> points;  // on each network (stage0_in_order)
};

// The point of design `d` on the network of key `net`.
PointInfo point_info(const Design& d, const std::string& net) {
  return PointInfo{d.hash + "/" + net, 0, net, d.hash.starts_with("invalid-") ? "" : d.hash, d.knobs};
}
Design load_design(const SweepSpec& spec, const Space& space, ConstraintSet& constraints, int64_t idx) {
  Design d;
  d.knobs = space.knobs_json(idx);
  d.r0.stage = kStageConfig;
  try {
    const Config c = space.config(idx);
    d.hash = c.hash();
    d.r0.metrics.set("mac_units", static_cast<double>(c.gemm.batch * c.gemm.block_in * c.gemm.block_out));
    // The FPGA estimate: resource columns, fit to the spec's device, clock against Fmax.
    const estimate::Estimate est = estimate::estimate(c, estimate_options(spec));
    const auto cols = estimate::columns(est);
    add_resources(d.r0.metrics, cols);
    std::string why = constraints.violated(c, cols);
    // Fit and clock are judged against a part the spec names (device or family).
    const bool judged = !spec.device.empty() || !spec.family.empty();
    if (why.empty() && judged && !est.problems.empty() && (!est.fits || !est.clock_ok))
      why = fmt::format("{}{}", spec.device.empty() ? "" : spec.device + ": ", fmt::join(est.problems, "; "));
    if (!why.empty()) d.r0.status = "invalid", d.r0.error = why;
  } catch (const Error& e) {
    d.r0.status = "invalid";
    d.r0.error = e.what();
    uint64_t h = 1469598103934665603ull;
    for (unsigned char ch : d.knobs) h = (h ^ ch) * 1099511628211ull;
    d.hash = fmt::format("invalid-{:016x}", h);
  }
  return d;
}

// Stage 0 of `indices`, handed to `consume(idx, Design&&)` in their order:
// computed by `threads` threads, a chunk of points each at a time (each
// with its own ConstraintSet: muParser is not thread-safe), while this
// thread consumes the chunks before them (it alone writes the store).
// Each Design comes with its points on the networks of keys `nets`.
template <typename Consume>
void stage0_in_order(const SweepSpec& spec, const Space& space, const std::vector<int64_t>& indices, int threads,
                     const std::vector<std::string>& nets, Consume&& consume) {
  constexpr size_t kChunk = 1024;
  auto compute = [&spec, &space, &indices, &nets](size_t begin, size_t end) {
    ConstraintSet constraints(spec.constraints, spec.source);
    std::vector<Design> out;
    out.reserve(end - begin);
    for (size_t i = begin; i < end; ++i) {
      Design& d = out.emplace_back(load_design(spec, space, constraints, indices[i]));
      for (const auto& net : nets) d.points.push_back(point_info(d, net)), d.points.back().index = indices[i];
    }
    return out;
  };
  const size_t n = indices.size();
  if (threads <= 1 || n <= kChunk) {
    std::vector<Design> all = compute(0, n);
    for (size_t i = 0; i < n; ++i) consume(indices[i], std::move(all[i]));
    return;
  }
  std::deque<std::future<std::vector<Design>>> running;
  size_t next = 0;
  auto launch = [&] {
    running.push_back(std::async(std::launch::async, compute, next, std::min(n, next + kChunk)));
    next += kChunk;
  };
  while (next < n && running.size() < static_cast<size_t>(threads)) launch();
  for (size_t at = 0; !running.empty();) {
    std::vector<Design> chunk = running.front().get();
    running.pop_front();
    if (next < n) launch();
    for (auto& d : chunk) consume(indices[at++], std::move(d));
  }
}

class Runner {
 public:
  Runner(const SweepSpec& spec, Store& store, const RunOptions& opts)
      : spec_(spec), store_(store), opts_(opts), space_(spec), constraints_(spec.constraints, spec.source) {}

  RunSummary run() {
    const auto t0 = std::chrono::steady_clock::now();
    edit_ = store_.begin(spec_, opts_.tool);
    if (edit_.edited && !edit_.space && !edit_.constraints)
      std::fprintf(stderr, "%s\n",
                   fmt::format("{}: edited since its results were stored, in nothing they depend on: they are reused",
                               spec_.source)
                       .c_str());
    sum_.space = space_.size();
    // The networks are built meanwhile stage 0 runs (which needs only their
    // keys); the workers, forked with them, start when a stage needs them (pool()).
    // So are the zoo networks at the space's other element widths, which
    // the workers would otherwise each build on first use (network_at_widths()).
    preparing_ = std::async(std::launch::async, [this] {
      std::vector<PreparedNetwork> nets;
      for (const auto& n : spec_.networks) nets.push_back(prepare_network(n, spec_.source, opts_.use_cache));
      if (opts_.max_stage >= kStageAnalytic)
        for (const auto& [a, w] : sweep_widths(spec_))
          for (const PreparedNetwork& n : nets) try {
              network_at_widths(n, a, w);
            } catch (const std::exception&) {  // the points at these widths say why, each in its stage
            }
      return nets;
    });
    for (const auto& n : spec_.networks) net_keys_.push_back(n.key());
    done_ = store_.results(false);
    jobs_ = opts_.jobs > 0 ? opts_.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

    if (spec_.strategy == Strategy::Evolve) {
      if (opts_.shards > 1)
        fail("{}: the evolve strategy adapts to its own results and cannot be sharded", spec_.source);
      evolve();
    } else {
      const std::vector<int64_t> all = space_.initial_points();
      std::vector<int64_t> mine;
      for (int64_t idx : all)
        if (shard_of(spec_, idx, opts_.shards) == opts_.shard) mine.push_back(idx);
      visit(mine);
      if (edit_.space || edit_.constraints) say_edit();
      if (opts_.shards > 1 && opts_.max_stage >= kStageSystemC) know_other_shards(all);
    }
    if (opts_.max_stage >= kStageSystemC) run_stage(kStageSystemC, checked_stage2(select_stage2()));
    // Stage 3 selects over every shard's stage 2: after a merge (sweeps/README.md, "Slurm").
    if (opts_.max_stage >= kStageVerify && spec_.funnel.stage3_top_k > 0 && opts_.shards == 1)
      run_stage(kStageVerify, select_stage3());
    if (opts_.max_stage >= kStagePnr && spec_.funnel.stage4_pnr && opts_.shards == 1) run_pnr(select_stage4());
    networks();  // a network that cannot be built is an error even when no stage needed it
    pool_.reset();
    sum_.points = std::count_if(visits_.begin(), visits_.end(), [](const Visit& v) { return v.own; });
    sum_.wall_s = since(t0);
    return sum_;
  }

 private:
  // Inside a worker: "STAGE INDEX NET LAYERS" -> a StageResult as JSON
  // (LAYERS 0: stage 1 without its rows per layer).
  std::string work(const std::string& req) {
    int stage = 0, net = 0, layers = 1;
    long long index = 0;
    std::istringstream in(req);
    in >> stage >> index >> net >> layers;
    RtlCheck rtl{spec_.funnel.stage3_verilator, spec_.funnel.stage3_verilator_optional, ""};
    in.ignore(1);                             // the newline before a reason
    std::getline(in, rtl.unavailable, '\0');  // why the RTL model is not there (prepare_rtl_models)
    StageResult r;
    try {
      inject_fault(stage, index);
      const Config c = design_config(index);
      const PreparedNetwork& n = nets_[static_cast<size_t>(net)];
      // Energy's static term: the spec device's static power (dynamic only without a device).
      const double static_w = spec_.device.empty() ? 0.0 : estimate::find_device(spec_.device).static_w;
      r = stage == kStageAnalytic  ? stage_analytic(c, n, layers != 0)
          : stage == kStageSystemC ? stage_systemc(c, n, static_w, static_cast<int>(spec_.funnel.tune))
                                   : stage_verify(c, n, rtl, static_w, static_cast<int>(spec_.funnel.tune));
      add_resources(r.metrics, resource_columns(c, estimate_options(spec_)));  // objectives such as gops_per_dsp
    } catch (const std::exception& e) {
      r = StageResult{};
      r.stage = stage;
      r.status = "failed";
      r.error = e.what();
    }
    r.stage = stage;
    return r.to_json().dump();
  }

  // Design point `index` as the workers build it: named for its knobs
  // ("vta-1x16x16 memory.bus_bits=256", as `vta sweep show` names it), so
  // that a later stage's message (the RTL model's) names the design, not
  // the base. The name is no part of the config's hash.
  Config design_config(int64_t index) const {
    Config c = space_.config(index);
    c.name = point_name(c.name, space_.overrides(index));
    return c;
  }

  const StageResult* stored(const std::string& key, int stage) const {
    auto it = done_.find(key);
    if (it == done_.end()) return nullptr;
    auto jt = it->second.find(stage);
    return jt == it->second.end() ? nullptr : &jt->second;
  }

  void count(int stage, const StageResult& r) {
    if (stage == kStageVerify || stage == kStagePnr)
      for (const Check& k : parse_checks(r.check)) {
        CheckCounts& n = sum_.checks[k.name];
        ++(k.outcome == "passed"     ? n.passed
           : k.outcome == "optional" ? n.optional
           : k.outcome == "not run"  ? n.not_run
                                     : n.failed);
      }
    StageCounts& c = sum_.stages[static_cast<size_t>(stage)];
    if (r.status == "ok")
      ++c.ok;
    else if (r.status == "invalid")
      ++c.invalid;
    else if (r.status == "timeout")
      ++c.timeout;
    else
      ++c.failed;
  }

  // The points of other shards, with their keys, and the other shards'
  // results: stage 2 selects over every shard's stage 1.
  void know_other_shards(const std::vector<int64_t>& all) {
    for (int64_t idx : all) {
      if (shard_of(spec_, idx, opts_.shards) == opts_.shard) continue;
      const Design d = design(idx);
      for (size_t n = 0; n < net_keys_.size(); ++n) {
        Visit v;
        v.index = idx;
        v.net = static_cast<int>(n);
        v.info = point_info(d, n);
        v.valid = d.r0.status == "ok";
        v.own = false;
        visits_.push_back(std::move(v));
      }
    }
    for (const auto& peer : opts_.peers) {
      const Store other(peer, false);
      if (auto i = other.info(); i && i->spec_text != spec_.text)
        fail("{}: a shard of another spec ({})", peer, i->spec_source);
      for (auto& [key, stages] : other.results(false))
        for (auto& [st, r] : stages) done_[key].try_emplace(st, std::move(r));
    }
    int64_t missing = 0;
    std::string first;
    for (const auto& v : visits_)
      if (v.valid && !stored(v.info.key, kStageAnalytic) && missing++ == 0) first = v.info.key;
    if (missing)
      fail(
          "stage 2 selects over every shard, but {} points have no stage-1 result in this shard or its peers "
          "(first: {}); run stage 1 of every shard first (--max-stage 1), then stage 2 with --peers",
          missing, first);
  }

  Design design(int64_t idx) { return load_design(spec_, space_, constraints_, idx); }

  // The prepared networks, once built (run() starts them), and the workers,
  // forked once they are (no other thread of this process runs then).
  const std::vector<PreparedNetwork>& networks() {
    if (preparing_.valid()) nets_ = preparing_.get();
    return nets_;
  }
  WorkerPool& pool() {
    if (!pool_) {
      networks();
      compiler::set_search_depths(axis_numbers<int64_t>(spec_, "gemm.pipeline_depth"));  // the workers inherit them
      compiler::set_search_clocks(axis_numbers<double>(spec_, "clock.mhz"));
      pool_ = std::make_unique<WorkerPool>(
          jobs_, [this](const std::string& req) { return work(req); }, spec_.timeout_s);
    }
    return *pool_;
  }

  // After a grid's space or constraints were edited (Store::Edit): the
  // points outside the new space marked (their rows stay, for an edit that
  // takes them back), and one line on how many points were new and how
  // many came from the store.
  void say_edit() {
    if (edit_.space && opts_.shards == 1) {
      std::vector<std::string> keys;
      keys.reserve(visits_.size());
      for (const auto& v : visits_) keys.push_back(v.info.key);
      store_.mark_outside(keys);
    }
    if (opts_.shards == 1) store_.adopt(spec_, edit_.space);
    const StageCounts& c0 = sum_.stages[kStageConfig];
    std::fprintf(
        stderr, "%s\n",
        fmt::format("{}: {} since its results were stored: {} points new, {} reused from the store{}", spec_.source,
                    edit_.space && edit_.constraints ? "space and constraints edited"
                    : edit_.space                    ? "space edited"
                                                     : "constraints edited",
                    c0.planned - c0.resumed, c0.resumed,
                    rejudged_ ? fmt::format(" ({} judged anew by the edited constraints)", rejudged_) : "")
            .c_str());
  }

  // A point of this run whose stage-0 result is stored (`was`; `now` is
  // this run's): after an edit of the space its index and knobs are this
  // space's, and after an edit of the constraints a changed verdict
  // replaces the stored one (and the point's later stages, which a design
  // now invalid does not have and one now valid has yet to run). A message
  // that differs only in where it says the knob was set (an edit moved the
  // axis to another line) is the same verdict.
  void refresh(const PointInfo& info, const StageResult& was, const StageResult& now, Writer& w) {
    auto same = [&] {
      return was.status == now.status &&
             (was.error == now.error || without_origin(was.error) == without_origin(now.error));
    };
    if (edit_.constraints && !same()) {
      ++rejudged_;
      w.replace(info, now);
      done_[info.key].clear();
      done_[info.key][kStageConfig] = now;
    }
    if (edit_.space) w.renumber(info);
  }
  PointInfo point_info(const Design& d, size_t net) const { return sweeps::point_info(d, net_keys_[net]); }

  // Stage 0 (threads of the parent, stage0_in_order), then stage 1 over
  // the workers, for new indices.
  void visit(const std::vector<int64_t>& indices) {
    std::vector<int64_t> fresh;
    for (int64_t idx : indices)
      if (seen_.insert(idx).second) fresh.push_back(idx);
    std::vector<size_t> pending;
    {
      // Large transactions: a point's keys are hashes, so each row lands on
      // its own page of the B-trees, and a commit writes every page it
      // touched (slides-1m's stage 0: 98 s with flushes every 0.25 s).
      // Written beside the loading (slides-1m: 60 s with the inserts on
      // the thread that hands the designs on).
      Writer w(store_, 65536, 4.0, true);
      Progress progress("stage 0 config", static_cast<int64_t>(fresh.size()), opts_.progress);
      int64_t designs = 0, failed = 0;
      stage0_in_order(spec_, space_, fresh, jobs_, net_keys_, [&](int64_t idx, Design&& d) {
        const bool valid = d.r0.status == "ok";
        failed += d.r0.status == "failed";
        progress.update(++designs, failed);
        for (size_t n = 0; n < d.points.size(); ++n) {
          PointInfo& info = d.points[n];
          Visit v;
          v.index = idx;
          v.net = static_cast<int>(n);
          v.valid = valid;
          // An invalid point goes no further than stage 0: its key is all the runner keeps of it.
          if (valid)
            v.info = info;
          else
            v.info.key = info.key, v.info.index = idx;
          StageCounts& c0 = sum_.stages[kStageConfig];
          ++c0.planned;
          count(kStageConfig, d.r0);
          if (const StageResult* r = stored(info.key, kStageConfig)) {
            ++c0.resumed;
            refresh(info, *r, d.r0, w);
          } else {
            w.add(std::move(info), n + 1 == d.points.size() ? std::move(d.r0) : StageResult(d.r0));
          }
          visits_.push_back(std::move(v));
          if (valid && opts_.max_stage >= kStageAnalytic) pending.push_back(visits_.size() - 1);
        }
      });
      progress.finish(designs, failed);
    }
    depths_together(pending);
    run_stage(kStageAnalytic, pending);
  }

  // Stage 1's visits with the designs one tile search serves side by side
  // (Space::depth_innermost()): the pool hands a worker contiguous runs, so
  // the worker that searched a layer at four depths at once answers the
  // other depths from its memo. In the spec's order a grid puts the depth
  // outside the clock and memory axes, and both workers searched the same
  // depths (slides-1m: blocks of 420 designs).
  void depths_together(std::vector<size_t>& pending) const {
    std::vector<int64_t> indices(pending.size());
    for (size_t i = 0; i < pending.size(); ++i) indices[i] = visits_[pending[i]].index;
    const std::vector<size_t> order = space_.depth_innermost(indices);
    std::vector<size_t> out(pending.size());
    for (size_t i = 0; i < order.size(); ++i) out[i] = pending[order[i]];
    pending = std::move(out);
  }

  // Stage 3's RTL models, built before the stage (the workers then only
  // load them): the designs of `pending`, at most `jobs` builds at a time,
  // sharing the cores. Returns why a visit's model could not be built.
  std::map<size_t, std::string> prepare_rtl_models(const std::vector<size_t>& pending) {
    std::map<size_t, std::string> why;
    std::vector<std::pair<size_t, Config>> to_build;
    std::set<std::string> seen;
    for (size_t v : pending) {
      try {
        Config c = design_config(visits_[v].index);
        if (seen.insert(c.hash()).second) to_build.emplace_back(v, std::move(c));
      } catch (const std::exception&) {  // the worker reports it
      }
    }
    if (to_build.empty()) return why;
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int jobs = std::min<int>(opts_.jobs > 0 ? opts_.jobs : cores, static_cast<int>(to_build.size()));
    const int each = std::max(1, cores / jobs);
    std::map<std::string, std::string> failed;  // by config hash
    std::mutex mu;
    std::atomic<size_t> next{0};
    auto build = [&] {
      for (size_t i; (i = next++) < to_build.size();) {
        try {
          prepare_backend("verilator", to_build[i].second, each);
        } catch (const std::exception& e) {
          const std::lock_guard<std::mutex> g(mu);
          failed[to_build[i].second.hash()] = e.what();
        }
      }
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < jobs; ++t) threads.emplace_back(build);
    for (auto& t : threads) t.join();
    if (failed.empty()) return why;
    for (size_t v : pending) {
      try {
        const Config c = space_.config(visits_[v].index);
        if (auto it = failed.find(c.hash()); it != failed.end()) why[v] = it->second;
      } catch (const std::exception&) {
      }
    }
    return why;
  }

  // The visits of `which` this shard runs at `stage` and has no result of
  // yet (counting the stored ones as resumed).
  std::vector<size_t> unstored(int stage, const std::vector<size_t>& which) {
    StageCounts& sc = sum_.stages[static_cast<size_t>(stage)];
    std::vector<size_t> pending;
    for (size_t v : which) {
      if (!visits_[v].own) continue;  // another shard runs it
      ++sc.planned;
      if (const StageResult* r = stored(visits_[v].info.key, stage)) {
        ++sc.resumed;
        count(stage, *r);
      } else {
        pending.push_back(v);
      }
    }
    return pending;
  }

  // Records visit `v`'s result at `stage`; false when it is not ok.
  bool record(int stage, size_t v, StageResult r, Writer& w) {
    const PointInfo& info = visits_[v].info;
    w.add(info, r);
    count(stage, r);
    const bool ok = r.status == "ok";
    // The runner selects on metrics alone (as a resume reads them,
    // Store::results(false)): the layers are in the store, and a million
    // points of ResNet-50's 70 rows would not fit in memory.
    r.layers.clear();
    r.layers.shrink_to_fit();
    done_[info.key][stage] = std::move(r);
    return ok;
  }

  // Stage 1's rows per layer for the stage-1 results of visits `which`,
  // estimated again (the same tiles and cycles: the estimate is a function
  // of the design) where stage 1 stored its totals alone (funnel.stage1's
  // `layers: selected`). The stored result rows stay as they are.
  void add_stage1_layers(const std::vector<size_t>& which) {
    std::vector<size_t> again;
    for (size_t v : which)
      if (auto d = done_.find(visits_[v].info.key); d != done_.end())
        if (auto s = d->second.find(kStageAnalytic); s != d->second.end() && s->second.status == "ok")
          again.push_back(v);
    std::vector<std::string> reqs;
    for (size_t v : again) reqs.push_back(fmt::format("{} {} {} 1", kStageAnalytic, visits_[v].index, visits_[v].net));
    Writer w(store_, 256);
    pool().run(reqs, [&](size_t i, bool ok, const std::string& text) {
      if (!ok) return;  // stage 2 runs the point anyway, and reports its failure
      const StageResult r = StageResult::from_json(nlohmann::json::parse(text));
      if (r.status == "ok") w.add(visits_[again[i]].info, r);
    });
    w.flush();
  }

  // Runs `stage` on visits `which` (those not stored yet), recording each.
  void run_stage(int stage, const std::vector<size_t>& which) {
    const std::vector<size_t> pending = unstored(stage, which);
    std::map<size_t, std::string> unavailable;
    if (stage == kStageVerify && spec_.funnel.stage3_verilator) unavailable = prepare_rtl_models(pending);
    if (stage == kStageSystemC && !spec_.funnel.stage1_layers_all) add_stage1_layers(pending);
    const int layers = stage != kStageAnalytic || spec_.funnel.stage1_layers_all;
    std::vector<std::string> reqs;
    for (size_t v : pending) {
      reqs.push_back(fmt::format("{} {} {} {}", stage, visits_[v].index, visits_[v].net, layers));
      if (auto it = unavailable.find(v); it != unavailable.end()) reqs.back() += "\n" + it->second;
    }
    Progress progress(fmt::format("stage {} {}", stage, stage_name(stage)), static_cast<int64_t>(pending.size()),
                      opts_.progress);
    int64_t finished = 0, failed = 0;
    // Stage 1's rows in large transactions written beside the workers'
    // replies: a flush into a store of a million points' B-trees takes tens
    // of milliseconds, in which a worker waiting for its next request
    // would idle (slides-1m: the workers at 80 % of a core each).
    Writer w = stage == kStageAnalytic ? Writer(store_, 8192, 2.0, true) : Writer(store_, 1);
    pool().run(reqs, [&](size_t i, bool ok, const std::string& text) {
      StageResult r;
      if (ok) {
        r = StageResult::from_json(nlohmann::json::parse(text));
      } else {
        r.stage = stage;
        r.status = text.starts_with("timeout") ? "timeout" : "failed";
        r.error = text;
      }
      failed += !record(stage, pending[i], std::move(r), w);
      progress.update(++finished, failed);
    });
    w.flush();
    progress.finish(finished, failed);
  }

  // Stage 4: stage 3's verified points placed and routed, one design at a
  // time in this process (the driver is a process of its own, and one
  // nextpnr run takes minutes to hours); a design two networks verified is
  // placed and routed once.
  void run_pnr(const std::vector<size_t>& which) {
    const std::vector<size_t> pending = unstored(kStagePnr, which);
    if (pending.empty()) return;
    PnrOptions po;
    po.script = opts_.pnr_script.empty() ? default_pnr_script() : opts_.pnr_script;
    po.vta = opts_.vta;
    po.work = opts_.pnr_work.empty() ? store_.path() + ".pnr" : opts_.pnr_work;
    po.device = spec_.device;
    po.seed = static_cast<int>(spec_.funnel.stage4_seed);
    po.timeout_s = spec_.funnel.stage4_timeout_s;
    po.optional = spec_.funnel.stage4_pnr_optional;
    const std::string unavailable =
        po.vta.empty() ? "no vta program to generate the design's SystemVerilog package with" : pnr_unavailable(po);
    Progress progress("stage 4 pnr", static_cast<int64_t>(pending.size()), opts_.progress);
    int64_t finished = 0, failed = 0;
    Writer w(store_, 1);
    std::map<std::string, StageResult> by_design;  // config hash -> its result
    for (size_t v : pending) {
      StageResult r;
      try {
        const Config c = design_config(visits_[v].index);
        auto it = by_design.find(c.hash());
        if (it == by_design.end()) it = by_design.emplace(c.hash(), stage_pnr(c, po, unavailable)).first;
        r = it->second;
      } catch (const std::exception& e) {
        r = StageResult{};
        r.stage = kStagePnr;
        r.status = "failed";
        r.error = e.what();
      }
      failed += !record(kStagePnr, v, std::move(r), w);
      progress.update(++finished, failed);
    }
    w.flush();
    progress.finish(finished, failed);
  }

  // Stage 3's points whose checks passed.
  std::vector<size_t> select_stage4() const {
    std::vector<size_t> out;
    for (size_t v = 0; v < visits_.size(); ++v)
      if (const StageResult* r = stored(visits_[v].info.key, kStageVerify); r && r->status == "ok") out.push_back(v);
    if (opts_.progress)
      std::fprintf(stderr, "stage 4 places and routes %zu points (those stage 3 verified) on %s\n", out.size(),
                   spec_.device.c_str());
    return out;
  }

  // Objective vectors of the visits `which` at `stage` (NaN rows when not ok).
  std::vector<std::vector<double>> rows(const std::vector<size_t>& which, int stage) const {
    std::vector<std::vector<double>> out;
    for (size_t v : which) {
      const StageResult* r = stored(visits_[v].info.key, stage);
      out.push_back(r && r->status == "ok" ? oriented(r->metrics, spec_.objectives)
                                           : std::vector<double>(spec_.objectives.size(), std::nan("")));
    }
    return out;
  }

  // Valid visits per network, in visiting order.
  std::vector<std::vector<size_t>> by_network() const {
    std::vector<std::vector<size_t>> out(net_keys_.size());
    for (size_t v = 0; v < visits_.size(); ++v)
      if (visits_[v].valid) out[static_cast<size_t>(visits_[v].net)].push_back(v);
    return out;  // every shard's points: selection is global, running is per shard (run_stage)
  }

  // The stage-2 selection, with what each rule chose said on stderr (with
  // progress), refused above funnel.stage2.max_points before any of it runs.
  std::vector<size_t> checked_stage2(std::vector<size_t> chosen) const {
    const int64_t n = static_cast<int64_t>(chosen.size()), limit = spec_.funnel.stage2_max_points;
    if (opts_.progress || n > limit) {
      std::string rules;
      for (const auto& [rule, count] : stage2_rule_counts_)
        rules += fmt::format("{}{} {}", rules.empty() ? "" : ", ", rule, count);
      const std::string what =
          fmt::format("stage 2 selects {} points ({})", n, rules.empty() ? "every valid point" : rules);
      if (n > limit)
        fail(
            "{}: {}, more than funnel.stage2.max_points = {}; narrow the funnel (top_k counts per objective and per "
            "network; within_pct keeps every point that close to the stage-1 front, and discrete objectives such as "
            "dsp tie many points) or raise max_points",
            spec_.source, what, limit);
      std::fprintf(stderr, "%s\n", what.c_str());
    }
    return chosen;
  }

  std::vector<size_t> select_stage2() const {
    const Funnel& f = spec_.funnel;
    std::set<size_t> keep;
    stage2_rule_counts_.clear();
    for (const auto& group : by_network()) {
      const auto r = rows(group, kStageAnalytic);
      if (f.stage2_top_k == 0 &&
          f.stage2_within_pct < 0) {  // every point stage 1 ran (its objectives may be NaN: energy)
        for (size_t v : group)
          if (const StageResult* s1 = stored(visits_[v].info.key, kStageAnalytic); s1 && s1->status == "ok")
            keep.insert(v);
        continue;
      }
      if (f.stage2_top_k > 0)
        for (size_t k = 0; k < spec_.objectives.size(); ++k) {
          std::vector<size_t> order;
          for (size_t i = 0; i < group.size(); ++i)
            if (std::isfinite(r[i][k])) order.push_back(i);
          std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return r[a][k] < r[b][k]; });
          const size_t took = std::min(order.size(), static_cast<size_t>(f.stage2_top_k));
          for (size_t j = 0; j < took; ++j) keep.insert(group[order[j]]);
          stage2_rule_counts_[fmt::format("top_k of {}", spec_.objectives[k].metric)] += static_cast<int64_t>(took);
        }
      if (f.stage2_within_pct >= 0) {
        const auto near = within_front(r, f.stage2_within_pct);
        for (size_t i : near) keep.insert(group[i]);
        stage2_rule_counts_[fmt::format("within {} % of the front", f.stage2_within_pct)] +=
            static_cast<int64_t>(near.size());
      }
    }
    return {keep.begin(), keep.end()};
  }

  // Up to top_k points of each network's stage-2 Pareto front, said on
  // stderr with the front's size (a front smaller than top_k gives fewer).
  std::vector<size_t> select_stage3() const {
    std::vector<size_t> out;
    std::string fronts;
    const auto groups = by_network();
    for (size_t net = 0; net < groups.size(); ++net) {
      const auto& group = groups[net];
      const auto r = rows(group, kStageSystemC);
      std::vector<size_t> front = pareto_front(r);
      std::stable_sort(front.begin(), front.end(), [&](size_t a, size_t b) { return r[a][0] < r[b][0]; });
      for (size_t j = 0; j < front.size() && j < static_cast<size_t>(spec_.funnel.stage3_top_k); ++j)
        out.push_back(group[front[j]]);
      fronts += fmt::format("{}{} {}", fronts.empty() ? "" : ", ", spec_.networks[net].key(), front.size());
    }
    if (opts_.progress)
      std::fprintf(stderr, "stage 3 selects %zu points (top_k %lld of each network's stage-2 Pareto front: %s)\n",
                   out.size(), static_cast<long long>(spec_.funnel.stage3_top_k), fronts.c_str());
    std::sort(out.begin(), out.end());
    return out;
  }

  // Stage-1 objectives of design point `idx`, each network's in turn (NaN
  // where not ok): a design ranks by how it does on every network of the spec.
  std::vector<double> fitness(int64_t idx) const {
    const size_t k = spec_.objectives.size();
    std::vector<double> out(k * net_keys_.size(), std::nan(""));
    for (const auto& v : visits_) {
      if (v.index != idx) continue;
      const StageResult* r = stored(v.info.key, kStageAnalytic);
      if (!r || r->status != "ok") continue;
      const std::vector<double> o = oriented(r->metrics, spec_.objectives);
      std::copy(o.begin(), o.end(), out.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(v.net) * k));
    }
    return out;
  }

  // A simple evolutionary search on the stage-1 objectives of every
  // network (fitness()): tournament selection by Pareto rank, mutation of one or two
  // axes, survivors by (rank, first objective). Deterministic for a seed.
  void evolve() {
    std::mt19937_64 rng(spec_.seed ^ 0x9e3779b97f4a7c15ull);
    std::vector<int64_t> pop = space_.initial_points();
    visit(pop);
    const auto P = pop.size();
    for (int64_t g = 0; g < spec_.generations; ++g) {
      std::vector<std::vector<double>> fit;
      for (int64_t i : pop) fit.push_back(fitness(i));
      const std::vector<int> rank = pareto_ranks(fit);
      std::vector<int64_t> kids;
      for (size_t k = 0; k < P; ++k) {
        const size_t a = std::uniform_int_distribution<size_t>(0, P - 1)(rng);
        const size_t b = std::uniform_int_distribution<size_t>(0, P - 1)(rng);
        int64_t child = space_.mutate(pop[rank[a] <= rank[b] ? a : b], rng);
        for (int tries = 0; tries < 8 && seen_.count(child); ++tries) child = space_.mutate(child, rng);
        if (!seen_.count(child)) kids.push_back(child);
      }
      visit(kids);
      std::vector<int64_t> all = pop;
      for (int64_t k : kids)
        if (std::find(all.begin(), all.end(), k) == all.end()) all.push_back(k);
      fit.clear();
      for (int64_t i : all) fit.push_back(fitness(i));
      const std::vector<int> r = pareto_ranks(fit);
      std::vector<size_t> order(all.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
        return r[x] != r[y] ? r[x] < r[y]
                            : (fit[x][0] < fit[y][0] || (std::isfinite(fit[x][0]) && !std::isfinite(fit[y][0])));
      });
      pop.clear();
      for (size_t i = 0; i < order.size() && i < P; ++i) pop.push_back(all[order[i]]);
    }
  }

  const SweepSpec& spec_;
  Store& store_;
  RunOptions opts_;
  Space space_;
  ConstraintSet constraints_;
  std::vector<PreparedNetwork> nets_;
  std::future<std::vector<PreparedNetwork>> preparing_;  // nets_, being built (networks())
  std::vector<std::string> net_keys_;                    // NetworkSpec::key() of each
  std::map<std::string, std::map<int, StageResult>> done_;
  std::unique_ptr<WorkerPool> pool_;
  int jobs_ = 1;
  Store::Edit edit_;
  int64_t rejudged_ = 0;  // stored stage-0 verdicts the edited constraints changed
  std::vector<Visit> visits_;
  std::set<int64_t> seen_;
  RunSummary sum_;
  mutable std::map<std::string, int64_t> stage2_rule_counts_;  // rule -> points it chose (select_stage2)
};

}  // namespace

std::vector<std::pair<int, int>> sweep_widths(const SweepSpec& spec) {
  std::set<std::pair<int, int>> pairs;
  try {
    const Config base = load_config_text(spec.base_text, spec.base, spec.set);
    pairs.emplace(static_cast<int>(base.dtype.inp_bits), static_cast<int>(base.dtype.wgt_bits));
  } catch (const Error&) {
    return {};
  }
  auto number = [](const std::string& t, int fallback) {
    int v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    return ec == std::errc() && end == t.data() + t.size() ? v : fallback;
  };
  for (const Axis& a : spec.axes) {
    const auto at = [&](const char* key) {
      const auto it = std::find(a.keys.begin(), a.keys.end(), key);
      return it == a.keys.end() ? -1 : static_cast<int>(it - a.keys.begin());
    };
    const int ia = at("dtype.inp_bits"), iw = at("dtype.wgt_bits");
    if (ia < 0 && iw < 0) continue;
    std::set<std::pair<int, int>> next;
    for (const auto& [pa, pw] : pairs)
      for (const auto& v : a.values)
        next.emplace(ia < 0 ? pa : number(v[static_cast<size_t>(ia)], pa),
                     iw < 0 ? pw : number(v[static_cast<size_t>(iw)], pw));
    pairs = std::move(next);
  }
  return {pairs.begin(), pairs.end()};
}

RunSummary run_sweep(const SweepSpec& spec, Store& store, const RunOptions& opts) {
  return Runner(spec, store, opts).run();
}

int64_t shard_unfinished(const SweepSpec& spec, const std::string& store_path, int shard, int shards, int stage) {
  const Space space(spec);
  ConstraintSet constraints(spec.constraints, spec.source);
  const auto done = Store(store_path, false).results(false);
  const std::vector<int64_t> all = space.initial_points();
  int64_t missing = 0;
  for (int64_t idx : all) {
    if (shard_of(spec, idx, shards) != shard) continue;
    const Design d = load_design(spec, space, constraints, idx);
    if (stage != kStageConfig && d.r0.status != "ok") continue;
    for (const auto& n : spec.networks) {
      auto it = done.find(d.hash + "/" + n.key());
      missing += it == done.end() || !it->second.count(stage);
    }
  }
  return missing;
}

std::pair<int, int> parse_shard(const std::string& text, const std::string& what) {
  int i = -1, n = -1;
  char slash = 0, extra = 0;
  std::istringstream in(text);
  if (!(in >> i >> slash >> n) || slash != '/' || (in >> extra) || n < 1 || i < 0 || i >= n || n > 100000)
    fail("{} '{}': expected I/N with 0 <= I < N (e.g. 0/4)", what, text);
  return {i, n};
}

std::string summary_text(const RunSummary& s) {
  std::string out = fmt::format("design space: {} points; visited {} (design points x networks) in {:.1f} s\n", s.space,
                                s.points, s.wall_s);
  for (int st = 0; st < kStages; ++st) {
    const StageCounts& c = s.stages[static_cast<size_t>(st)];
    if (c.planned == 0) continue;
    out += fmt::format("stage {} {:<8}: {} points ({} from the store), {} ok, {} invalid, {} failed, {} timed out\n",
                       st, stage_name(st), c.planned, c.resumed, c.ok, c.invalid, c.failed, c.timeout);
  }
  for (const auto& [name, n] : s.checks) {
    out += fmt::format("check {:<9}: {} passed, {} failed, {} not run", name, n.passed, n.failed, n.not_run);
    if (n.optional) out += fmt::format(", {} not run (optional)", n.optional);
    out += "\n";
  }
  return out;
}

bool checks_passed(const RunSummary& s) {
  // A design that misses its clock or does not fit at stage 4 is a result
  // (the point is invalid), not a failed verification; a flow that did not
  // run is still not a pass.
  for (const auto& [name, n] : s.checks)
    if ((n.failed > 0 && name != "pnr") || n.not_run > 0) return false;
  return true;
}

}  // namespace vta::sweeps
