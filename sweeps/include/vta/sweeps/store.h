#pragma once
// The results store: one SQLite file (WAL mode) per sweep. Each finished
// point and stage is written in one transaction (its row in `results` and its
// rows in `layers`), so a killed runner loses nothing it reported finished
// and leaves no half-written point. Rows are keyed by (point_key, stage), a
// point_key being "CONFIG_HASH/NETWORK"; writes ignore keys already present,
// so several processes may write one store, a resumed sweep redoes nothing
// and a merge is a plain insert. The schema is documented in sweeps/README.md.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vta/sweeps/spec.h"
#include "vta/sweeps/stages.h"

namespace vta::sweeps {

// 1: the first; 2: energy_uj in results and layers; 3: results' `check`
// renamed verify_status (`check` is an SQL keyword); later versions: the
// metric columns that metrics.def gives them. A store of an older version is
// upgraded in place when opened, one version at a time.
constexpr int kSchemaVersion = [] {
  int v = 3;
#define VTA_METRIC(name, from, column, expr, doc) v = column > v ? column : v;
#include "vta/sweeps/metrics.def"
#undef VTA_METRIC
  return v;
}();

/// A design point of the sweep: one config and one network.
struct PointInfo {
  std::string key;          // CONFIG_HASH/NETWORK, or invalid-HASH/NETWORK when the design does not load
  int64_t index = 0;        // index in the spec's design space
  std::string network;      // NetworkSpec::key()
  std::string config_hash;  // "" when the design does not load
  std::string knobs;        // JSON object of the axis values (with the spec, they reproduce the config)
};

struct StoredPoint {
  PointInfo info;
  std::map<int, StageResult> stages;  // by stage number
};

struct SweepInfo {
  std::string name, spec_text, spec_source, tool, created;
  int schema_version = 0;
};

/// Whether `path` (or the folder it would be created in) lies on a network
/// file system (NFS, Lustre, GPFS, CIFS/SMB, BeeGFS, Ceph, FUSE), where a
/// store keeps a rollback journal instead of SQLite's WAL.
bool on_network_file_system(const std::string& path);

class Store {
 public:
  /// Opens (creating when `create`) the store at `path`. Throws vta::Error
  /// naming the file when it cannot be opened, is not a sweep store or has
  /// another schema version.
  Store(const std::string& path, bool create);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  /// How the spec a run begins with differs from the stored one.
  struct Edit {
    bool edited = false;       // the stored spec is replaced (its results are reused)
    bool space = false;        // a grid's axes or networks changed: points move (renumber, mark_outside, adopt)
    bool constraints = false;  // a grid's constraints changed: stage 0 may judge a stored point anew
  };
  /// Records the sweep's spec in a new store. In an existing one the spec
  /// must be the stored one, or an edit of it that leaves every part of
  /// result_basis() as it was (comments, the name, the funnel, the
  /// objectives of a grid or random search), or, for a grid, changes only
  /// its axes, constraints or list of networks (sweeps/README.md, "The
  /// store"): the edited spec then replaces the stored one. Any other spec
  /// is an error naming the first part that differs.
  Edit begin(const SweepSpec& spec, const std::string& tool);
  /// Takes `spec` as the store's spec (an edit begin() allowed); with
  /// `space`, the wide view is made anew for its axes. A run calls it for an
  /// edited space or constraints once every point is in place, so that a run
  /// stopped before then finds the edit again.
  void adopt(const SweepSpec& spec, bool space);
  std::optional<SweepInfo> info() const;
  /// The stored spec, loaded (its base resolved against the spec's folder);
  /// nullopt for an empty store or a spec that no longer loads (a moved base).
  std::optional<SweepSpec> spec() const;

  /// (point_key, stage) pairs already stored.
  std::map<std::string, std::map<int, StageResult>> results(bool with_layers) const;
  /// Writes a point and one stage result in one transaction (both ignored
  /// when already present). Throws vta::Error on a write failure (full disk,
  /// read-only file), having written nothing.
  void put(const PointInfo& p, const StageResult& r);
  /// Several in one transaction (the analytic stage finishes thousands a second).
  void put_many(const std::vector<std::pair<PointInfo, StageResult>>& rows);
  /// Moves stored points to their place in an edited space: each row of
  /// `points` replaces the stored one of its key (index and knobs), in one
  /// transaction.
  void renumber(const std::vector<PointInfo>& points);
  /// Stage results judged anew (a grid's edited constraints): each replaces
  /// the stored one of its key and stage, and the key's later stages (and
  /// their layers) are deleted; one transaction.
  void replace(const std::vector<std::pair<PointInfo, StageResult>>& rows);
  /// Marks every stored point whose key is not in `keys` as outside the
  /// spec's space (index -1): its rows stay, to be reused when the space
  /// takes it back, but load() and wide() leave it out.
  void mark_outside(const std::vector<std::string>& keys);
  /// Inserts every row of the store at `other` that this one lacks, in one
  /// transaction (a merge of shards; running it twice changes nothing).
  /// Throws vta::Error when `other` holds another spec. Returns rows added.
  int64_t merge_from(const std::string& other);
  /// Every point of the spec's space with its stage results (not those an
  /// edit of the space left out: mark_outside).
  std::vector<StoredPoint> load(bool with_layers) const;
  /// A query's result: column names, and rows of cells (null, a number or text).
  struct Table {
    std::vector<std::string> columns;
    std::vector<std::vector<nlohmann::json>> rows;
  };
  /// The wide table of the store (sweeps/wide.h), as the view points_wide
  /// holds it, then a column for each other metric the store holds
  /// (with_other_metrics); also for a store that cannot be written (and so
  /// lacks the view, when an older vta made it).
  Table wide() const;
  const std::string& path() const { return path_; }

 private:
  struct Impl;
  void migrate_from(int version);  // schema version `version` -> kSchemaVersion, in place
  void ensure_wide_view();         // creates points_wide when the store has a sweep and lacks it
  std::unique_ptr<Impl> impl_;
  std::string path_;
};

/// Whether a store was created at `path`: false where no file is, and for an
/// interrupted creation, an SQLite file without any table (its process was
/// stopped between creating the file and committing the schema, as a Slurm
/// task cancelled at its start is). Such a file is a shard not begun: status,
/// merge and --resume treat it as missing, and `sweep run` creates the schema
/// in it. Anything else (a store, or a file that is not one) is true, and
/// opening it says what it is.
bool store_created(const std::string& path);

}  // namespace vta::sweeps
