// Schedule tuning on the SystemC cycle model (tune.h).
#include "vta/sweeps/tune.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <mutex>

#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/zoo_cache.h"
#include "vta/compiler/run/runtime.h"
#include "vta/compiler/schedule/fusion.h"
#include "vta/compiler/schedule/tile_search.h"
#include "vta/isa/error.h"
#include "vta/isa/json_error.h"
#include "vta/isa/path_probe.h"
#include "vta/isa/read_file.h"
#include "vta/isa/write_file.h"
#include "vta/model/backend.h"

namespace vta::sweeps {

using namespace vta::compiler;
namespace fs = std::filesystem;

size_t TunedLayer::best() const {
  size_t b = 0;
  for (size_t i = 1; i < measured.size(); ++i)
    if (measured[i] + kTuneMargin <= measured[0] && (b == 0 || measured[i] < measured[b])) b = i;
  return b;
}

std::string tune_cache_path(const std::string& override_path) {
  if (!override_path.empty()) return override_path;
  return (fs::path(zoo_cache_dir()) / "tune.json").string();
}

void check_tune_count(int64_t n, const std::string& what) {
  if (n < 1 || n > 64) fail("{} {}: give the number of tile candidates to measure per layer, 1 to 64", what, n);
}

namespace {

// A cache entry: the candidates measured for one key, and how many were asked
// for (an entry answers any request up to that many).
struct Entry {
  int asked = 0;
  std::string layer;
  std::vector<Tile> candidates;
  std::vector<uint64_t> measured;
};
using Cache = std::map<std::string, Entry>;

std::mutex& cache_mutex() {
  static std::mutex mu;
  return mu;
}

// The cache at `path`; empty when there is none or it is of another format.
// A file edited or damaged outside vta is refused naming the entry and the
// key (json_error.h), never with nlohmann's message or an unchecked cast.
Cache read_cache(const std::string& path) {
  Cache cache;
  if (path.empty() || !path_exists(path)) return cache;
  const std::string text = read_file(path, "tuning cache");
  constexpr int64_t kMaxTileSide = int64_t{1} << 31;  // the tiling pass checks the tile against the layer
  try {
    const nlohmann::json j = parse_json(text, "");
    if (!j.is_object() || !j.contains("format")) fail("no \"format\"");
    if (json_int(j, "format", 0, INT32_MAX, "") != kTuneFormat) return cache;  // another version's file: replaced
    const auto layers = j.find("layers");
    if (layers == j.end() || !layers->is_object()) fail("layers must be an object of layer entries");
    for (const auto& [key, e] : layers->items()) {
      const std::string at = "layer entry " + nlohmann::json(key).dump();  // quoted, control characters escaped
      if (!e.is_object()) fail("{}: not an object", at);
      Entry en;
      en.asked = static_cast<int>(json_int(e, "asked", 1, 64, at));
      en.layer = json_string(e, "layer", at);
      const auto cands = e.find("candidates");
      if (cands == e.end() || !cands->is_array() || cands->empty() || cands->size() > 64)
        fail("{}: candidates must be a list of 1 to 64 tiles", at);
      for (size_t k = 0; k < cands->size(); ++k) {
        const nlohmann::json& t = (*cands)[k];
        const std::string ct = fmt::format("{} candidate {}", at, k);
        en.candidates.push_back(Tile{json_int(t, "th", 1, kMaxTileSide, ct), json_int(t, "tw", 1, kMaxTileSide, ct),
                                     json_int(t, "toc", 1, kMaxTileSide, ct), json_int(t, "tic", 1, kMaxTileSide, ct),
                                     json_number(t, "est", ct)});
        en.measured.push_back(static_cast<uint64_t>(json_int(t, "cycles", 0, INT64_MAX, ct)));
      }
      cache[key] = std::move(en);
    }
  } catch (const Error& e) {
    fail("tuning cache {}: not a valid tuning cache ({}); delete it to tune afresh", path, e.what());
  }
  return cache;
}

void write_cache(const std::string& path, const Cache& cache) {
  nlohmann::ordered_json j;
  j["format"] = kTuneFormat;
  j["layers"] = nlohmann::ordered_json::object();
  for (const auto& [key, e] : cache) {
    nlohmann::ordered_json je;
    je["asked"] = e.asked;
    je["layer"] = e.layer;
    je["candidates"] = nlohmann::ordered_json::array();
    for (size_t i = 0; i < e.candidates.size(); ++i) {
      const Tile& t = e.candidates[i];
      je["candidates"].push_back({{"th", t.th},
                                  {"tw", t.tw},
                                  {"toc", t.toc},
                                  {"tic", t.tic},
                                  {"est", t.est_cycles},
                                  {"cycles", e.measured[i]}});
    }
    j["layers"][key] = std::move(je);
  }
  const fs::path p(path);
  if (p.has_parent_path()) make_dirs(p.parent_path().string(), "tuning cache");
  const std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  write_file(tmp, j.dump(1) + "\n", "tuning cache");
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) fail("tuning cache {}: cannot replace it ({})", path, ec.message());
}

// The fused Add or max pool of conv/dense `id` in the compiled graph, or null.
const Node* fused(const CompiledNetwork& net, int id, const Config& c) {
  const int add = fused_epilogue(net.graph, id, c);
  return add >= 0 ? &net.graph.at(add) : nullptr;
}

}  // namespace

TuneResult tune_network(const Graph& g, const Config& c, int candidates, const Tensor& input,
                        const std::string& cache_path, const CompileOptions& options) {
  check_tune_count(candidates, "--tune");
  const auto t0 = std::chrono::steady_clock::now();
  TuneResult r;
  r.cache_path = cache_path;
  std::lock_guard<std::mutex> lock(cache_mutex());  // one read-modify-write of the file at a time
  Cache cache = read_cache(cache_path);
  const CompiledNetwork base = compile(g, c, options);
  // The distinct layers, in network order, and the node measuring each.
  std::vector<std::pair<std::string, int>> order;
  std::map<std::string, size_t> index;
  for (const auto& [id, info] : base.layers) {
    const Node& n = base.graph.at(id);
    if (n.op != Op::Conv2d && n.op != Op::Dense) continue;
    if (index.emplace(info.key, order.size()).second) order.emplace_back(info.key, id);
  }
  std::vector<TunedLayer> layers(order.size());
  std::vector<size_t> pending;  // layers to measure
  for (size_t i = 0; i < order.size(); ++i) {
    const auto& [key, id] = order[i];
    TunedLayer& t = layers[i];
    t.key = key;
    t.layer = base.graph.at(id).name;
    if (auto it = cache.find(key); it != cache.end() && it->second.asked >= candidates) {
      const Entry& e = it->second;
      const size_t n = std::min(e.candidates.size(), static_cast<size_t>(candidates));
      t.candidates.assign(e.candidates.begin(), e.candidates.begin() + static_cast<std::ptrdiff_t>(n));
      t.measured.assign(e.measured.begin(), e.measured.begin() + static_cast<std::ptrdiff_t>(n));
      ++r.from_cache;
      continue;
    }
    const Node& n = base.graph.at(id);
    t.candidates = tile_candidates(n, base.graph.at(n.inputs[0]).out, c, fused(base, id, c), candidates);
    t.measured.assign(t.candidates.size(), 0);
    pending.push_back(i);
  }
  // Rank r of every layer still to tune in one run (a layer with fewer
  // candidates keeps its last); rank 0 is the cost model's own pick.
  size_t ranks = 0;
  for (size_t i : pending) ranks = std::max(ranks, layers[i].candidates.size());
  BackendOptions bo;
  bo.timing_only = true;
  for (size_t rank = 0; rank < ranks; ++rank) {
    CompileOptions o = options;
    for (size_t i : pending)
      o.tiles[layers[i].key] = layers[i].candidates[std::min(rank, layers[i].candidates.size() - 1)];
    const CompiledNetwork net = rank == 0 ? base : compile(g, c, o);
    auto backend = make_backend("systemc", c, bo);
    const NetworkResult res = run_network(net, *backend, input);
    ++r.systemc_runs;
    std::map<int, uint64_t> cycles;
    for (const LayerResult& l : res.layers)
      if (l.stats.has("cycles.total")) cycles[l.node] = l.stats.get("cycles.total");
    for (size_t i : pending) {
      if (rank >= layers[i].candidates.size()) continue;
      const auto it = cycles.find(order[i].second);
      if (it == cycles.end()) fail("tuning: layer {} reported no cycles on the SystemC backend", layers[i].layer);
      layers[i].measured[rank] = it->second;
    }
  }
  // Merged into the file as it is now: another process (a sweep's worker)
  // may have added entries since it was read.
  if (!pending.empty() && !cache_path.empty()) cache.merge(read_cache(cache_path));
  for (size_t i : pending) {
    Entry& e = cache[layers[i].key];
    e.asked = candidates, e.layer = layers[i].layer, e.candidates = layers[i].candidates;
    e.measured = layers[i].measured;
  }
  if (!pending.empty() && !cache_path.empty()) write_cache(cache_path, cache);
  for (const TunedLayer& t : layers) r.tiles[t.key] = t.candidates[t.best()];
  r.layers = std::move(layers);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

namespace {

std::string tile_text(const Tile& t) { return fmt::format("{}x{} oc{} ic{}", t.th, t.tw, t.toc, t.tic); }

double pct(double a, double b) { return b > 0 ? 100.0 * (a - b) / b : 0.0; }

}  // namespace

std::string tune_table(const TuneResult& r) {
  std::string s =
      fmt::format("tuning: {} distinct layers, {} from the cache, {} SystemC runs, {:.2f} s{}\n", r.layers.size(),
                  r.from_cache, r.systemc_runs, r.seconds, r.cache_path.empty() ? "" : " (cache " + r.cache_path + ")");
  s += fmt::format("{:<24} {:>16} {:>10} {:>8} {:>16} {:>10} {:>8}\n", "layer", "model pick", "cycles", "est err",
                   "tuned pick", "cycles", "gain");
  uint64_t model = 0, tuned = 0;
  for (const TunedLayer& t : r.layers) {
    const size_t b = t.best();
    model += t.measured[0], tuned += t.measured[b];
    const std::string name = t.layer.size() > 24 ? t.layer.substr(0, 23) + "~" : t.layer;
    s += fmt::format("{:<24} {:>16} {:>10} {:>+7.1f}% {:>16} {:>10} {:>+7.2f}%\n", name, tile_text(t.candidates[0]),
                     t.measured[0], pct(t.candidates[0].est_cycles, static_cast<double>(t.measured[0])),
                     b == 0 ? "=" : tile_text(t.candidates[b]), t.measured[b],
                     -pct(static_cast<double>(t.measured[b]), static_cast<double>(t.measured[0])));
  }
  s += fmt::format("{:<24} {:>16} {:>10} {:>8} {:>16} {:>10} {:>+7.2f}%  (one layer of each distinct shape)\n", "sum",
                   "", model, "", "", tuned, -pct(static_cast<double>(tuned), static_cast<double>(model)));
  return s;
}

nlohmann::ordered_json tune_json(const TuneResult& r) {
  nlohmann::ordered_json j;
  j["candidates_run"] = r.systemc_runs;
  j["layers_from_cache"] = r.from_cache;
  j["seconds"] = r.seconds;
  j["cache"] = r.cache_path;
  j["layers"] = nlohmann::ordered_json::array();
  for (const TunedLayer& t : r.layers) {
    const size_t b = t.best();
    auto tile = [](const Tile& x) {
      return nlohmann::ordered_json{{"th", x.th}, {"tw", x.tw}, {"toc", x.toc}, {"tic", x.tic}};
    };
    j["layers"].push_back({{"layer", t.layer},
                           {"key", t.key},
                           {"model_tile", tile(t.candidates[0])},
                           {"model_cycles", t.measured[0]},
                           {"model_est_cycles", t.candidates[0].est_cycles},
                           {"model_est_err_pct", pct(t.candidates[0].est_cycles, static_cast<double>(t.measured[0]))},
                           {"tuned_tile", tile(t.candidates[b])},
                           {"tuned_cycles", t.measured[b]},
                           {"candidates_measured", t.measured.size()}});
  }
  return j;
}

}  // namespace vta::sweeps
