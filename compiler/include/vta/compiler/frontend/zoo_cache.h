#pragma once
// A file cache of calibrated zoo networks: building and calibrating a zoo
// network (seeded weights, the integer reference on the calibration input)
// costs far more than compiling it, so `vta run --model` keeps each built
// network, with the integer reference's output on its run input, in
//   $VTA_CACHE_DIR, else $XDG_CACHE_HOME/vta-lab, else ~/.cache/vta-lab
// one folder per build of the running program (the last 4 builds' folders
// are kept), one file per (network, seed, batch, image, config hash, format
// version). Entries are written atomically (a temporary file renamed into
// place) and carry a checksum: a missing, truncated or corrupt entry is a
// miss (rebuilt and rewritten), never an error; an entry that cannot be
// written (a read-only or full cache folder) is no error either, and its
// reason is returned for the caller to say.
#include <cstdint>
#include <optional>
#include <string>

#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/ir/graph.h"

namespace vta::compiler {

/// What a zoo run needs: the network, its run input (zoo_input(graph,
/// seed + 1000)) and, when asked for, the integer reference's output on it.
struct ZooRun {
  Graph graph;
  Tensor input;
  std::optional<Tensor> reference;    // run_graph(graph, input)[graph.output]
  bool from_cache = false;            // the graph came from a cache entry
  bool reference_from_cache = false;  // and the reference output too
  std::string cache_not_written;      // why an entry to write could not be (empty: written, or none to write)
};

/// The config key of an entry used for many designs at once (a sweep's
/// networks, `vta compare --model`): a zoo network and its reference do not
/// depend on the config, so one entry serves every design point.
inline constexpr const char* kAnyConfig = "any-config";

/// The cache folder (not created).
std::string zoo_cache_dir();
/// The entry's file for these arguments (in this build's folder of zoo_cache_dir()).
std::string zoo_cache_path(const std::string& name, const ZooOptions& o, const std::string& config_hash);

/// Builds zoo network `name` (build_zoo) with its run input, and its
/// reference output when `want_reference`; through the cache unless
/// `use_cache` is false. A hit without the reference it needs computes it and
/// rewrites the entry. Errors of build_zoo propagate; cache I/O problems do
/// not: a failed write leaves its reason in ZooRun::cache_not_written.
ZooRun zoo_run(const std::string& name, const ZooOptions& o, const std::string& config_hash, bool want_reference,
               bool use_cache = true);

}  // namespace vta::compiler
