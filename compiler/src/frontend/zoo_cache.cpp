#include "vta/compiler/frontend/zoo_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "vta/compiler/ir/graph_io.h"
#include "vta/compiler/ops/reference.h"
#include "vta/isa/error.h"

namespace vta::compiler {

namespace {

namespace fs = std::filesystem;

// Bump when the entry layout or graph_io's record changes.
constexpr uint32_t kZooCacheFormat = 13;
constexpr char kMagic[8] = {'V', 'T', 'A', 'Z', 'O', 'O', '\n', '\0'};

// The running program's build: entries made by another build of the zoo,
// calibrator or reference are never read (size and modification time of the
// executable; empty when unknown, which only shares entries between builds).
std::string build_stamp() {
  struct stat st {};
  if (::stat("/proc/self/exe", &st) != 0) return "";
  return fmt::format("{}.{}.{}", st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : s) h = (h ^ ch) * 0x100000001b3ull;
  return h;
}

// A fast 64-bit checksum (four independent multiply-xorshift lanes).
uint64_t checksum(const char* p, size_t n) {
  uint64_t lane[4] = {0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull, 0x94d049bb133111ebull, n};
  size_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int k = 0; k < 4; ++k) {
      uint64_t w;
      std::memcpy(&w, p + i + 8 * k, 8);
      lane[k] = (lane[k] ^ w) * 0xff51afd7ed558ccdull;
      lane[k] ^= lane[k] >> 31;
    }
  uint64_t h = lane[0] ^ (lane[1] * 3) ^ (lane[2] * 5) ^ (lane[3] * 7);
  for (; i < n; ++i) h = (h ^ static_cast<unsigned char>(p[i])) * 0x100000001b3ull;
  return h ^ (h >> 33);
}

// Entries of this many builds of `vta` are kept (the running one and the
// most recently written others); older builds' folders are removed when an
// entry is written, so that rebuilding does not grow the cache without bound.
constexpr size_t kKeptBuilds = 4;

fs::path build_dir() { return fs::path(zoo_cache_dir()) / fmt::format("build-{:016x}", fnv1a(build_stamp())); }

void prune_other_builds(const fs::path& own) {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> others;
  for (fs::directory_iterator it(own.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (p != own && p.filename().string().rfind("build-", 0) == 0 && it->is_directory(ec))
      others.emplace_back(fs::last_write_time(p, ec), p);
  }
  if (others.size() < kKeptBuilds) return;
  std::sort(others.begin(), others.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = kKeptBuilds - 1; i < others.size(); ++i) fs::remove_all(others[i].second, ec);
}

std::string entry_key(const std::string& name, const ZooOptions& o, const std::string& config_hash) {
  return fmt::format("{}|seed={}|batch={}|image={}|a={}|w={}|config={}|format={}|build={}", name, o.seed, o.batch,
                     o.image, o.act_bits, o.wgt_bits, config_hash, kZooCacheFormat, build_stamp());
}

struct Entry {
  Graph graph;
  std::optional<Tensor> reference;
};

// The entry at `path` for `key`, or nothing when it is missing or not
// exactly a well-formed entry for that key.
std::optional<Entry> read_entry(const std::string& path, const std::string& key) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return std::nullopt;
  std::ifstream f(path, std::ios::binary);
  std::string bytes(size, '\0');  // one allocation: VGG-16's entry is 138 MB
  if (!f.read(bytes.data(), static_cast<std::streamsize>(size)) || f.peek() != EOF) return std::nullopt;
  if (bytes.size() < sizeof kMagic + 4 + 8) return std::nullopt;
  const size_t body = bytes.size() - 8;
  uint64_t sum;
  std::memcpy(&sum, bytes.data() + body, 8);
  if (sum != checksum(bytes.data(), body) || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) return std::nullopt;
  try {
    size_t pos = sizeof kMagic;
    const std::string what = "zoo cache entry " + path;
    uint32_t format;
    std::memcpy(&format, bytes.data() + pos, 4);
    pos += 4;
    if (format != kZooCacheFormat) return std::nullopt;
    Tensor k = read_tensor(bytes, pos, what);  // the key, as int8 bytes
    if (std::string(k.data.begin(), k.data.end()) != key) return std::nullopt;
    Entry e;
    e.graph = read_graph(bytes, pos, what);
    if (pos >= body) return std::nullopt;
    if (bytes[pos++] != 0) e.reference = read_tensor(bytes, pos, what);
    if (pos != body) return std::nullopt;
    return e;
  } catch (const Error&) {
    return std::nullopt;
  }
}

// Writes the entry to a temporary file beside `path` and renames it into
// place, so that a reader sees the old entry, the new one or none. Best
// effort: a cache that cannot be written is no error, but the reason is
// returned (empty when written) so that the caller never claims it was.
std::string write_entry(const std::string& path, const std::string& key, const Entry& e) {
  std::string bytes(kMagic, sizeof kMagic);
  bytes.append(reinterpret_cast<const char*>(&kZooCacheFormat), 4);
  write_tensor(bytes,
               Tensor{Shape{1, static_cast<int64_t>(key.size()), 1, 1}, std::vector<int16_t>(key.begin(), key.end())});
  write_graph(bytes, e.graph);
  bytes.push_back(e.reference ? 1 : 0);
  if (e.reference) write_tensor(bytes, *e.reference);
  const uint64_t sum = checksum(bytes.data(), bytes.size());
  bytes.append(reinterpret_cast<const char*>(&sum), 8);

  static std::atomic<unsigned> counter{0};
  std::error_code ec;
  const fs::path dir = fs::path(path).parent_path();
  fs::create_directories(dir, ec);
  if (ec) return fmt::format("cannot create {} ({})", dir.string(), ec.message());
  const std::string tmp = fmt::format("{}.tmp.{}.{}", path, ::getpid(), counter++);
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return fmt::format("cannot create a file in {} ({})", dir.string(), std::strerror(errno));
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.close();
    if (!f) {
      const int err = errno;
      fs::remove(tmp, ec);
      return fmt::format("cannot write {} bytes in {} ({})", bytes.size(), dir.string(), std::strerror(err));
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    const std::string why = fmt::format("cannot rename the entry into place ({})", ec.message());
    fs::remove(tmp, ec);
    return why;
  }
  prune_other_builds(fs::path(path).parent_path());
  return "";
}

}  // namespace

std::string zoo_cache_dir() {
  if (const char* d = std::getenv("VTA_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (fs::path(x) / "vta-lab").string();
  if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".cache" / "vta-lab").string();
  return (fs::temp_directory_path() / "vta-lab-cache").string();
}

std::string zoo_cache_path(const std::string& name, const ZooOptions& o, const std::string& config_hash) {
  std::string safe;
  for (char ch : name) safe += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return (build_dir() / fmt::format("zoo-{}-{:016x}.bin", safe.substr(0, 64), fnv1a(entry_key(name, o, config_hash))))
      .string();
}

ZooRun zoo_run(const std::string& name, const ZooOptions& o, const std::string& config_hash, bool want_reference,
               bool use_cache) {
  const std::string key = entry_key(name, o, config_hash);
  const std::string path = use_cache ? zoo_cache_path(name, o, config_hash) : "";
  ZooRun run;
  std::optional<Entry> e = use_cache ? read_entry(path, key) : std::nullopt;
  bool dirty = false;
  if (e) {
    run.from_cache = true;
  } else {
    e = Entry{build_zoo(name, o), std::nullopt};
    dirty = true;
  }
  run.input = zoo_input(e->graph, o.seed + 1000);
  run.reference_from_cache = want_reference && e->reference.has_value();
  if (want_reference && !e->reference) {
    std::vector<Tensor> values = run_graph(e->graph, run.input);
    e->reference = std::move(values[static_cast<size_t>(e->graph.output)]);
    dirty = true;
  }
  if (use_cache && dirty) run.cache_not_written = write_entry(path, key, *e);
  run.graph = std::move(e->graph);
  if (want_reference) run.reference = std::move(e->reference);
  return run;
}

}  // namespace vta::compiler
