#pragma once
// Schedule tuning on the cycle model (`vta run --tune N`, a sweep's `tune:`
// key): for each distinct conv/dense layer (tile_key(): shape in blocks,
// epilogue, config hash) the cost model's best N tiles (tile_candidates())
// are compiled and run timing-only on the SystemC backend through the Backend
// interface, and the fastest measured is kept; the compiler takes the result
// as CompileOptions::tiles. It lives here, above the backends, because the
// compiler must never run one (docs/design.md: layers).
//
// The candidates are measured in place: rank r of every layer still to tune
// is forced at once and the network run (one SystemC run per rank, N runs in
// all, rank 0 being the cost model's own pick), each layer's cycles read from
// its region. Measured results are kept in a JSON file, one entry per
// tile_key() (which holds the config hash), with a format version:
//   --tune-cache FILE, else $VTA_CACHE_DIR/tune.json, else
//   $XDG_CACHE_HOME/vta-lab/tune.json, else ~/.cache/vta-lab/tune.json
// A later tuning with the same or a smaller N reuses an entry without a
// SystemC run. The file is rewritten atomically (temporary file renamed into
// place) after merging the entries other processes (a sweep's workers) added
// meanwhile, so a concurrent writer can at worst drop an entry that is then
// measured again; a file of another format version is ignored and replaced, and a
// file that is not a valid tuning cache is an error naming it (delete it to
// start afresh) rather than silently re-running minutes of tuning.
// Tested in tests/test_tune.cpp.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "vta/compiler/ir/network.h"
#include "vta/compiler/passes/pass.h"

namespace vta::sweeps {

/// Bumped whenever what an entry means changes (candidate order, measurement).
inline constexpr int kTuneFormat = 1;

/// Candidates are measured in place (rank r of every layer in one run), so a
/// layer's cycles also move with its neighbours' tiles (their tails overlap
/// its head, their uop buffers shift DRAM addresses): up to a few hundred
/// cycles. A gain smaller than this is not a gain: without the margin,
/// MobileNet-v1 on vta-1x32x32 came out 271 cycles slower tuned than not.
inline constexpr uint64_t kTuneMargin = 512;

/// One distinct layer's tuning: every candidate measured, cheapest-estimate first.
struct TunedLayer {
  std::string key, layer;                  // tile_key(); the first layer of the network with it
  std::vector<compiler::Tile> candidates;  // est_cycles: the cost model's estimate
  std::vector<uint64_t> measured;          // SystemC cycles of each candidate
  /// The index of the fastest measured candidate that beats the model's pick
  /// (index 0) by at least kTuneMargin cycles; 0 when none does.
  size_t best() const;
};

struct TuneResult {
  std::vector<TunedLayer> layers;               // in network order, one per distinct key
  std::map<std::string, compiler::Tile> tiles;  // CompileOptions::tiles: the tuned pick of each key
  int systemc_runs = 0;                         // runs made by this call (0: everything from the cache)
  int from_cache = 0;                           // layers whose entry was reused
  double seconds = 0;
  std::string cache_path;
};

/// The tuning cache's file: `override_path` when not empty, else the rule above.
std::string tune_cache_path(const std::string& override_path = "");

/// Tunes every VTA conv/dense layer of `g` on `c` with `candidates` (>= 1)
/// tiles each, reading and updating the cache at `cache_path` (empty: no
/// cache). `input`: the network input (timing-only runs compute no tensors,
/// only its shape matters). `options`: what the network is compiled with
/// besides the tiles (the host ops of `--host-ops`). Throws vta::Error on a
/// bad cache file or an uncompilable network.
TuneResult tune_network(const compiler::Graph& g, const Config& c, int candidates, const compiler::Tensor& input,
                        const std::string& cache_path, const compiler::CompileOptions& options = {});

/// The per-layer tuning report: for each tuned layer the model's pick and the
/// tuned pick, both measured, and the cost model's error on the model's pick.
std::string tune_table(const TuneResult& r);
nlohmann::ordered_json tune_json(const TuneResult& r);

/// Throws vta::Error unless `n` is a valid candidate count (1 .. 64), naming `what`.
void check_tune_count(int64_t n, const std::string& what);

}  // namespace vta::sweeps
