// RTL models on demand: the cache, its keys and the build of one model
// (vta/rtl/model_cache.h; sim/rtl/README.md, "Models on demand").
#include "vta/rtl/model_cache.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "model_build_env.h"
#include "model_spawn.h"
#include "verilator_backend.h"
#include "vta/isa/error.h"
#include "vta/isa/fields.h"

namespace fs = std::filesystem;

namespace vta::rtl {

namespace {

// Bumped when the layout of a cache entry or the generated sources change.
constexpr const char* kFormat = "vta-rtl-model 2";
// The verilated class of a model: a name of its own, so that two models in
// one process never share a symbol.
std::string prefix_of(const std::string& key) { return "Vvta_" + key; }

std::vector<std::string> lines_of(const char* text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) out.push_back(l);
  return out;
}

std::vector<std::string> words_of(const char* text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  out.close();
  if (!out) fail("verilator: cannot write {}", p.string());
}

// FNV-1a, 64 bits, over each part and its length.
class Hasher {
 public:
  void add(std::string_view s) {
    for (const char ch : s) byte(static_cast<unsigned char>(ch));
    for (size_t n = s.size(), k = 0; k < 8; ++k, n >>= 8) byte(static_cast<unsigned char>(n & 0xff));
  }
  std::string hex() const { return fmt::format("{:016x}", h_); }

 private:
  void byte(unsigned char b) { h_ = (h_ ^ b) * 0x100000001b3ULL; }
  uint64_t h_ = 0xcbf29ce484222325ULL;
};

// The include folders, definitions and options a model is compiled with:
// those of vta_sim_rtl (verilator) or of vta_sim_rtl_cosim (systemc-rtl).
const char* includes_of(ModelKind k) {
  return k == ModelKind::systemc_rtl ? build_env().cosim_includes : build_env().includes;
}
const char* definitions_of(ModelKind k) {
  return k == ModelKind::systemc_rtl ? build_env().cosim_definitions : build_env().definitions;
}
const char* options_of(ModelKind k) {
  return k == ModelKind::systemc_rtl ? build_env().cosim_options : build_env().options;
}

// The include folders, once each, less the folders of the models built into
// the binary (in the build tree) and the compiler's own /usr/include (which
// -I would put before the C++ library's wrappers of the C headers).
std::vector<std::string> include_dirs(ModelKind k) {
  const std::string bin = std::string(build_env().binary_dir) + "/";
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& d : lines_of(includes_of(k)))
    if (d.rfind(bin, 0) != 0 && d != "/usr/include" && seen.insert(d).second) out.push_back(d);
  return out;
}

// A file a model is made from: a header (the harness and what it includes)
// or an RTL source or waiver. The .cpp files beside them are the program's,
// not the model's (model_cache.cpp itself is one).
bool is_model_input(const fs::path& p) {
  static const std::set<std::string> exts{".h", ".hpp", ".def", ".inc", ".sv", ".vlt"};
  return exts.count(p.extension().string()) != 0;
}

// `verilator --version`, once per process.
const std::string& verilator_version() {
  static const std::string v = command_output({build_env().verilator, "--version"});
  return v;
}

// The files under the source tree's include folders a model is made from
// (is_model_input), sorted.
std::vector<fs::path> source_inputs(ModelKind k) {
  const std::string src = build_env().source_dir;
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& d : include_dirs(k)) {
    if (d.rfind(src, 0) != 0 || !fs::is_directory(d, ec)) continue;
    for (auto it = fs::recursive_directory_iterator(d, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->is_regular_file(ec) && is_model_input(it->path())) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

// Every input of a model but the package: the RTL and harness sources, the
// headers under the source tree it includes, the tools and their flags.
std::string tool_hash_of(ModelKind k) {
  const BuildEnv& e = build_env();
  Hasher hash;
  hash.add(kFormat);
  // A verilator model's hash is the one it had before co-simulation models
  // existed; a systemc-rtl model's differs by its kind.
  if (k == ModelKind::systemc_rtl) hash.add(kind_name(k));
  hash.add(verilator_version());
  hash.add(e.compiler);
  hash.add(e.compiler_id);
  hash.add(e.flags);
  hash.add(definitions_of(k));
  hash.add(options_of(k));
  for (const auto& d : include_dirs(k)) hash.add(d);
  for (const auto& f : source_inputs(k)) {
    hash.add(f.string());
    hash.add(read_text(f));
  }
  return hash.hex();
}

// A model is compiled against the source tree's headers and runs inside this
// program, built from the headers of its own day: a header changed since
// (a `git pull` without a rebuild) would make the two disagree on a class
// layout, and the model crash. Refused, naming the header and the program.
void check_program_is_current(ModelKind k) {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&build_env), &info) == 0 || !info.dli_fname) return;
  std::error_code ec;
  const auto built = fs::last_write_time(info.dli_fname, ec);
  if (ec) return;
  for (const auto& f : source_inputs(k)) {
    const std::string ext = f.extension().string();
    if (ext == ".sv" || ext == ".vlt") continue;  // the RTL is in the model alone
    const auto t = fs::last_write_time(f, ec);
    if (!ec && t > built)
      fail(
          "{}: {} changed after this program ({}) was built, and an RTL model built now would be compiled against "
          "it: rebuild the program (scripts/build.sh) first",
          kind_name(k), f.string(), info.dli_fname);
  }
}

const std::string& tool_hash(ModelKind k) {
  static const std::string v = tool_hash_of(ModelKind::verilator);
  static const std::string sc = tool_hash_of(ModelKind::systemc_rtl);
  return k == ModelKind::systemc_rtl ? sc : v;
}

fs::path rtl_src() { return fs::path(build_env().source_dir) / "sim/rtl/src"; }

std::vector<fs::path> sv_sources() {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(rtl_src(), ec))
    if (f.path().extension() == ".sv") out.push_back(f.path());
  std::sort(out.begin(), out.end());
  return out;
}

// The package as the verilated model sees it: without its comments (the
// design's name and config hash) and without the ALU initiation intervals,
// which the RTL never reads (README.md, "Compile-time and run-time knobs"),
// so that designs differing only there share one model.
std::string hardware_of(const std::string& package) {
  std::string out;
  std::istringstream in(package);
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find("//"));
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.pop_back();
    if (line.empty() || line.find("ALU_II_IMM") != std::string::npos || line.find("ALU_II_VECTOR") != std::string::npos)
      continue;
    out += line + "\n";
  }
  return out;
}

std::string key_of(const std::string& package, ModelKind kind) {
  Hasher h;
  h.add(tool_hash(kind));
  h.add(hardware_of(package));
  return h.hex();
}

// The translation unit that instantiates the harness on the model and
// exports its factory (the built-in models' verilator_model.cpp.in, with C
// linkage for dlsym); for systemc-rtl, the function that constructs its
// CoSim in the SystemC top level (cosim_model.cpp.in).
std::string harness_source(const std::string& key, ModelKind kind) {
  if (kind == ModelKind::systemc_rtl)
    return fmt::format(
        "// GENERATED by vta (sim/rtl/src/model_cache.cpp) for the co-simulated RTL model {0}; rebuilt on demand, "
        "do not edit.\n"
        "#include \"{1}.h\"\n"
        "#include \"{1}__Syms.h\"\n"
        "#include \"cosim.h\"\n\n"
        "void {1}___024root___ctor_var_reset({1}___024root* vlSelf);\n\n"
        "namespace {{\n"
        "void power_on_state({1}& model) {{\n"
        "  {1}___024root___ctor_var_reset(model.rootp);\n"
        "  model.rootp->vlSymsp->__Vm_didInit = false;\n"
        "}}\n"
        "}}  // namespace\n\n"
        "extern \"C\" __attribute__((visibility(\"default\"))) void vta_rtl_elaborate_cosim() {{\n"
        "  new vta::rtl::CoSim<{1}>(\"vta_rtl\", &power_on_state);\n"
        "}}\n",
        key, prefix_of(key));
  return fmt::format(
      "// GENERATED by vta (sim/rtl/src/model_cache.cpp) for the RTL model {}; rebuilt on demand, do not edit.\n"
      "#include \"{}.h\"\n"
      "#include \"verilator_harness.h\"\n\n"
      "extern \"C\" __attribute__((visibility(\"default\"))) std::unique_ptr<vta::rtl::Core> vta_rtl_make_core() {{\n"
      "  return std::make_unique<vta::rtl::Harness<{}>>();\n"
      "}}\n",
      key, prefix_of(key), prefix_of(key));
}

// Holds flock() on the key's lock file while alive.
class KeyLock {
 public:
  KeyLock(const fs::path& file, bool wait) {
    fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) fail("verilator: cannot open the lock file {} ({})", file.string(), std::strerror(errno));
    int rc;
    while ((rc = ::flock(fd_, LOCK_EX | (wait ? 0 : LOCK_NB))) != 0 && errno == EINTR) {
    }
    held_ = rc == 0;
  }
  ~KeyLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }
  bool held() const { return held_; }
  // True when another process holds it now (checked without waiting).
  static bool busy(const fs::path& file) {
    const int fd = ::open(file.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return false;
    const bool busy = ::flock(fd, LOCK_EX | LOCK_NB) != 0;
    ::close(fd);
    return busy;
  }

 private:
  int fd_ = -1;
  bool held_ = false;
};

// The seconds of the last builds recorded in the cache ("SECONDS KEY" lines).
std::vector<double> past_builds(const fs::path& cache) {
  std::vector<double> out;
  std::istringstream in(read_text(cache / "build-times"));
  double s;
  std::string key;
  while (in >> s >> key) out.push_back(s);
  return out;
}

// Progress on stderr: a start and an end line; on a terminal, one line
// rewritten every half second with the step and the time so far.
class Progress {
 public:
  Progress(const std::string& what, const fs::path& cache) : what_(what), t0_(std::chrono::steady_clock::now()) {
    tty_ = ::isatty(2) != 0;
    ++active();
    const std::vector<double> past = past_builds(cache);
    if (!past.empty()) {
      const size_t n = std::min<size_t>(past.size(), 5);
      double sum = 0;
      for (size_t k = past.size() - n; k < past.size(); ++k) sum += past[k];
      estimate_ = fmt::format(" (the last build{} took about {:.0f} s)", n == 1 ? "" : "s", sum / n);
    }
    std::fprintf(stderr, "vta: building %s%s\n", what_.c_str(), estimate_.c_str());
  }
  void step(const std::string& s) {
    step_ = s;
    show();
  }
  ~Progress() { --active(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  void show() {
    if (!tty_ || active() != 1) return;  // builds in parallel (sweep stage 3): their start and end lines only
    std::fprintf(stderr, "\r\033[K  %s, %.0f s", step_.c_str(), seconds());
    std::fflush(stderr);
  }
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }
  void finish(bool ok) {
    if (tty_) std::fprintf(stderr, "\r\033[K");
    if (ok) std::fprintf(stderr, "vta: built %s in %.0f s\n", what_.c_str(), seconds());
    std::fflush(stderr);
  }

 private:
  static std::atomic<int>& active() {
    static std::atomic<int> n{0};
    return n;
  }
  std::string what_, step_, estimate_;
  std::chrono::steady_clock::time_point t0_;
  bool tty_ = false;
};

uint64_t folder_bytes(const fs::path& dir) {
  uint64_t n = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file(ec)) n += it->file_size(ec);
  return n;
}

CachedModel entry(const fs::path& dir) {
  CachedModel m;
  m.key = dir.filename().string();
  m.path = dir.string();
  m.bytes = folder_bytes(dir);
  try {
    const auto j = nlohmann::json::parse(read_text(dir / "info.json"));
    m.config = j.value("config", "");
    m.build_s = j.value("build_s", 0.0);
    m.kind = j.value("kind", kind_name(ModelKind::verilator));
  } catch (const std::exception&) {
  }
  return m;
}

// The compile and link commands of a model whose verilated sources are in
// `obj`, relative to the build folder (so that ccache hits across folders).
std::vector<Argv> compile_commands(const fs::path& build, ModelKind kind, std::vector<std::string>& objects) {
  const BuildEnv& e = build_env();
  Argv base;
  static const std::string ccache = find_on_path("ccache");
  if (!ccache.empty()) base.push_back(ccache);
  base.push_back(e.compiler);
  for (const auto& w : words_of(e.flags)) base.push_back(w);
  for (const auto& d : lines_of(definitions_of(kind))) base.push_back("-D" + d);
  base.push_back("-Iobj");
  base.push_back("-I" + rtl_src().string());
  for (const auto& d : include_dirs(kind)) base.push_back("-I" + d);
  for (const auto& o : lines_of(options_of(kind))) base.push_back(o);
  for (const char* o : {"-fPIC", "-w", "-g0"}) base.push_back(o);
  std::vector<fs::path> sources;
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(build / "obj", ec))
    if (f.path().extension() == ".cpp") sources.push_back(fs::path("obj") / f.path().filename());
  std::sort(sources.begin(), sources.end());
  sources.push_back("model.cpp");
  std::vector<Argv> out;
  for (const auto& s : sources) {
    Argv a = base;
    // Verilator's split: the slow (initialisation) code at -O1, the rest at
    // -O3, as the built-in models (sim/rtl/CMakeLists.txt, OPT_SLOW/OPT_FAST).
    a.push_back(s.string().find("Slow") != std::string::npos ? "-O1" : "-O3");
    const std::string o = (fs::path(s).replace_extension(".o")).string();
    for (const std::string& w : {std::string("-c"), s.string(), std::string("-o"), o}) a.push_back(w);
    objects.push_back(o);
    out.push_back(std::move(a));
  }
  return out;
}

// Keeps a failed build's folder as KEY.failed and throws naming its log.
[[noreturn]] void fail_build(const Config& c, const fs::path& cache, const fs::path& tmp, const std::string& key,
                             const std::string& step, const std::string& why) {
  const fs::path kept = cache / (key + ".failed");
  std::error_code ec;
  fs::remove_all(kept, ec);
  fs::rename(tmp, kept, ec);
  const fs::path log = (ec ? tmp : kept) / "build.log";
  fail("verilator: cannot build the RTL model of config '{}' ({}): {} failed ({}); build log: {}", c.name, c.source,
       step, why, log.string());
}

}  // namespace

std::string cache_dir() {
  if (const char* d = std::getenv("VTA_RTL_CACHE"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (fs::path(x) / "vta/rtl").string();
  if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".cache/vta/rtl").string();
  fail("verilator: no cache folder for RTL models: set VTA_RTL_CACHE (or HOME)");
}

const char* kind_name(ModelKind k) { return k == ModelKind::systemc_rtl ? "systemc-rtl" : "verilator"; }

std::string model_key(const Config& c, ModelKind kind) { return key_of(isa::generate_sv_package(c), kind); }

CachedModel build_model(const Config& c, int jobs, ModelKind kind) {
  check_supported(kind_name(kind), c, {});  // a config outside the RTL is an error, not a model
  if (kind == ModelKind::systemc_rtl && *build_env().cosim_includes == 0)
    fail(
        "systemc-rtl: this binary is built without SystemC (VTA_WITH_SYSTEMC=OFF): no co-simulated model can be built");
  check_program_is_current(kind);
  const std::string package = isa::generate_sv_package(c);
  const std::string key = key_of(package, kind);
  const fs::path cache = cache_dir();
  const fs::path final_dir = cache / key;
  const fs::path so = final_dir / "model.so";
  std::error_code ec;
  if (fs::exists(so, ec)) return entry(final_dir);
  fs::create_directories(cache, ec);
  if (ec) fail("verilator: cannot create the RTL model cache {} ({}); set VTA_RTL_CACHE", cache.string(), ec.message());
  if (verilator_version().empty())
    fail("verilator: cannot build the RTL model of config '{}' ({}): {} does not run (install Verilator)", c.name,
         c.source, build_env().verilator);

  const fs::path lock_file = cache / (key + ".lock");
  if (KeyLock::busy(lock_file))
    std::fprintf(stderr, "vta: waiting for another process building the RTL model %s (config '%s')\n", key.c_str(),
                 c.name.c_str());
  const KeyLock lock(lock_file, true);
  if (fs::exists(so, ec)) return entry(final_dir);  // the other process built it

  std::string tmpl = (cache / (".tmp-" + key + "-XXXXXX")).string();
  if (!::mkdtemp(tmpl.data()))
    fail("verilator: cannot create a build folder in {} ({})", cache.string(), std::strerror(errno));
  const fs::path tmp = tmpl;
  Progress progress(fmt::format("the {}RTL model of config '{}' ({}) into {}",
                                kind == ModelKind::systemc_rtl ? "co-simulated (SystemC) " : "", c.name, c.source,
                                final_dir.string()),
                    cache);
  try {
    write_text(tmp / "vta_pkg.sv", package);
    write_text(tmp / "model.cpp", harness_source(key, kind));
    const std::string log = (tmp / "build.log").string();
    const int j = jobs > 0 ? jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    auto tick = [&progress](size_t) { progress.show(); };

    progress.step("verilating");
    // The built-in models' options (CMakeLists.txt, verilate_args).
    // The co-simulated core is built without tracing, as the built-in one.
    Argv v{build_env().verilator,
           kind == ModelKind::systemc_rtl ? "--sc" : "--cc",
           "--prefix",
           prefix_of(key),
           "--Mdir",
           "obj",
           "--top",
           "vta_core"};
    if (kind == ModelKind::verilator) v.push_back("--trace");
    for (const char* o : {"-O3", "--x-assign", "fast", "--x-initial", "fast"}) v.push_back(o);
    v.push_back((rtl_src() / "lint.vlt").string());
    v.push_back("vta_pkg.sv");
    for (const auto& s : sv_sources()) v.push_back(s.string());
    if (const auto f = run_commands({v}, tmp.string(), log, 1, tick); f.index >= 0)
      fail_build(c, cache, tmp, key, "verilator", f.why);

    std::vector<std::string> objects;
    const std::vector<Argv> compiles = compile_commands(tmp, kind, objects);
    const size_t n = compiles.size();
    progress.step(fmt::format("compiling {} files", n));
    if (const auto f = run_commands(compiles, tmp.string(), log, j,
                                    [&](size_t done) { progress.step(fmt::format("compiling {}/{}", done, n)); });
        f.index >= 0)
      fail_build(c, cache, tmp, key, fmt::format("compiling {}", compiles[static_cast<size_t>(f.index)].back()), f.why);

    progress.step("linking");
    Argv link{build_env().compiler};
    for (const auto& w : words_of(build_env().flags)) link.push_back(w);
    for (const char* o : {"-shared", "-fPIC", "-o", "model.so"}) link.push_back(o);
    for (const auto& o : objects) link.push_back(o);
    if (const auto f = run_commands({link}, tmp.string(), log, 1, tick); f.index >= 0)
      fail_build(c, cache, tmp, key, "linking", f.why);

    // The object files are not needed once linked (the log and sources stay).
    for (const auto& o : objects) fs::remove(tmp / o, ec);
    const double secs = progress.seconds();
    nlohmann::ordered_json info{{"key", key},
                                {"config", c.name},
                                {"source", c.source},
                                {"kind", kind_name(kind)},
                                {"build_s", secs},
                                {"verilator", verilator_version()},
                                {"compiler", build_env().compiler_id}};
    write_text(tmp / "info.json", info.dump(1) + "\n");
    fs::remove_all(final_dir, ec);  // never a model: only a folder without model.so could be here
    fs::rename(tmp, final_dir, ec);
    if (ec) fail("verilator: cannot move the RTL model into {} ({})", final_dir.string(), ec.message());
    fs::remove_all(cache / (key + ".failed"), ec);
    std::ofstream(cache / "build-times", std::ios::app) << fmt::format("{:.1f} {}\n", secs, key);
    progress.finish(true);
  } catch (...) {
    progress.finish(false);
    fs::remove_all(tmp, ec);  // fail_build has moved it away already when it threw
    throw;
  }
  CachedModel m = entry(final_dir);
  m.built = true;
  return m;
}

std::vector<CachedModel> cached_models() {
  std::vector<CachedModel> out;
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(cache_dir(), ec))
    if (f.is_directory(ec) && fs::exists(f.path() / "model.so", ec)) out.push_back(entry(f.path()));
  std::sort(out.begin(), out.end(), [](const CachedModel& a, const CachedModel& b) { return a.key < b.key; });
  return out;
}

size_t clean_cache() {
  const fs::path cache = cache_dir();
  size_t n = 0;
  std::error_code ec;
  std::vector<fs::path> entries;
  for (const auto& f : fs::directory_iterator(cache, ec)) entries.push_back(f.path());
  for (const auto& p : entries) {
    const std::string name = p.filename().string();
    // A key's files: KEY/, KEY.failed/, KEY.lock, .tmp-KEY-XXXXXX/.
    const std::string key = name.rfind(".tmp-", 0) == 0 ? name.substr(5, 16) : name.substr(0, 16);
    if (name == "build-times" || (name.size() >= 5 && name.substr(name.size() - 5) == ".lock")) continue;
    if (KeyLock::busy(cache / (key + ".lock"))) continue;  // being built now
    if (fs::remove_all(p, ec) > 0 && !ec) ++n;
  }
  return n;
}

}  // namespace vta::rtl
