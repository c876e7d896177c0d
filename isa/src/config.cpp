// Strict YAML loading, overrides, validation and derivation of vta::Config.
#include "vta/isa/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "vta/isa/control_chars.h"
#include "vta/isa/error.h"
#include "vta/isa/fields.h"
#include "vta/isa/host_cpu.h"
#include "vta/isa/path_probe.h"
#include "vta/isa/read_file.h"
#include "vta/isa/yaml_documents.h"

#ifndef VTA_SOURCE_DIR
#define VTA_SOURCE_DIR "."
#endif

namespace vta {

namespace {

#define VTA_MIN_INT(x) (x)
#define VTA_MIN_POW2(x) (x)
#define VTA_MIN_SIZE(x) (x)
#define VTA_MIN_REAL(x) (x)
#define VTA_MIN_BOOL(x) (x)
#define VTA_MIN_ENUM(x) 0
#define VTA_MIN_STR(x) 0
#define VTA_CHOICES_INT(x) ""
#define VTA_CHOICES_POW2(x) ""
#define VTA_CHOICES_SIZE(x) ""
#define VTA_CHOICES_REAL(x) ""
#define VTA_CHOICES_BOOL(x) ""
#define VTA_CHOICES_ENUM(x) x
#define VTA_CHOICES_STR(x) ""

std::vector<KnobInfo> make_knobs() {
  std::vector<KnobInfo> v;
#define VTA_SECTION(sec, doc)
#define VTA_END(sec)
#define VTA_KNOB(sec, nm, kind, def, mn, mx, doc, ...)                                           \
  v.push_back(KnobInfo{#sec, #nm, KnobKind::kind, #def, static_cast<double>(VTA_MIN_##kind(mn)), \
                       static_cast<double>(VTA_MIN_##kind(mx)), VTA_CHOICES_##kind(mn), doc,     \
                       [](Config& c) -> KnobInfo::Ref { return &c.sec.nm; }});
#define VTA_KNOB_LATE(sec, nm, kind, def, mn, mx, doc, ...) \
  VTA_KNOB(sec, nm, kind, def, mn, mx, doc)                 \
  v.back().late = true;
#include "vta/isa/config_knobs.def"
#undef VTA_SECTION
#undef VTA_KNOB
#undef VTA_KNOB_LATE
#undef VTA_END
  return v;
}

std::vector<SectionInfo> make_sections() {
  std::vector<SectionInfo> v;
#define VTA_SECTION(sec, doc) v.push_back(SectionInfo{#sec, doc});
#define VTA_END(sec)
#define VTA_KNOB(...)
#define VTA_KNOB_LATE(...)
#include "vta/isa/config_knobs.def"
#undef VTA_SECTION
#undef VTA_KNOB
#undef VTA_KNOB_LATE
#undef VTA_END
  return v;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t p = s.find(sep, start);
    out.emplace_back(s.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
    if (p == std::string_view::npos) break;
    start = p + 1;
  }
  return out;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// " (did you mean 'x'?)" for the closest candidate, or "".
std::string suggest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = 3;
  for (const auto& c : candidates) {
    size_t d = edit_distance(word, c);
    if (d < best_d) best_d = d, best = c;
  }
  return best.empty() ? "" : fmt::format(" (did you mean '{}'?)", best);
}

bool parse_int(std::string_view t, int64_t& out) {
  if (t.empty()) return false;
  std::string s(t);
  char* end = nullptr;
  errno = 0;
  // Decimal, or hex with 0x; never octal ("010" is ten).
  const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  long long v = std::strtoll(s.c_str(), &end, hex ? 16 : 10);
  if (errno != 0 || end != s.c_str() + s.size()) return false;
  out = v;
  return true;
}

bool parse_real(std::string_view t, double& out) {
  if (t.empty()) return false;
  std::string s(t);
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return false;
  out = v;
  return true;
}

std::string where(const std::string& source, int line) {
  return line > 0 ? fmt::format("{}:{}", source, line) : source;
}

// Sets knob `k` of `c` from scalar text; `loc()` prefixes errors ("file:line"),
// built only when there is one (a sweep sets a dozen knobs per design point).
template <typename Loc>
void set_knob_at(Config& c, const KnobInfo& k, const std::string& text, const Loc& loc_of) {
  auto bad = [&](std::string_view expected) { fail("{}: {} = '{}' is not {}", loc_of(), k.key(), text, expected); };
  auto ref = k.ref(c);
  switch (k.kind) {
    case KnobKind::INT:
    case KnobKind::POW2:
    case KnobKind::SIZE: {
      int64_t v = 0;
      bool ok = k.kind == KnobKind::SIZE ? parse_size(text, v) : parse_int(text, v);
      if (!ok) bad(k.kind == KnobKind::SIZE ? "a size (e.g. 4096, 32KiB, 1MiB)" : "an integer");
      if (v < k.min || v > k.max) {
        if (k.min == k.max)
          fail("{}: {} = {} is not supported: this version implements only {}", loc_of(), k.key(), text,
               static_cast<int64_t>(k.min));
        if (k.kind == KnobKind::SIZE)
          fail("{}: {} = {} is out of range [{}, {}]", loc_of(), k.key(), text,
               format_size(static_cast<int64_t>(k.min)), format_size(static_cast<int64_t>(k.max)));
        fail("{}: {} = {} is out of range [{}, {}]", loc_of(), k.key(), text, static_cast<int64_t>(k.min),
             static_cast<int64_t>(k.max));
      }
      if (k.kind != KnobKind::INT && !std::has_single_bit(static_cast<uint64_t>(v)))
        fail("{}: {} = {} must be a power of two", loc_of(), k.key(), text);
      *std::get<int64_t*>(ref) = v;
      break;
    }
    case KnobKind::REAL: {
      double v = 0;
      if (!parse_real(text, v)) bad("a number");
      if (v < k.min || v > k.max) fail("{}: {} = {} is out of range [{}, {}]", loc_of(), k.key(), text, k.min, k.max);
      *std::get<double*>(ref) = v;
      break;
    }
    case KnobKind::BOOL:
      if (text == "true")
        *std::get<bool*>(ref) = true;
      else if (text == "false")
        *std::get<bool*>(ref) = false;
      else
        bad("a boolean (true or false)");
      break;
    case KnobKind::ENUM: {
      bool known = false;  // text is one of the '|'-separated choices
      for (std::string_view rest = k.choices; !known;) {
        const size_t bar = rest.find('|');
        known = rest.substr(0, bar) == text;
        if (bar == std::string_view::npos) break;
        rest.remove_prefix(bar + 1);
      }
      if (!known) {
        const auto choices = split(k.choices, '|');
        fail("{}: {} = '{}' is not one of {}{}", loc_of(), k.key(), text, k.choices, suggest(text, choices));
      }
      *std::get<std::string*>(ref) = text;
      break;
    }
    case KnobKind::STR:
      *std::get<std::string*>(ref) = text;
      break;
  }
}

void set_knob(Config& c, const KnobInfo& k, const std::string& text, const std::string& loc) {
  set_knob_at(c, k, text, [&] { return loc; });
}

std::vector<std::string> knob_names_in(std::string_view section) {
  std::vector<std::string> out;
  for (const auto& k : knobs())
    if (section == k.section) out.emplace_back(k.name);
  return out;
}

std::vector<std::string> section_names() {
  std::vector<std::string> out{"name"};
  for (const auto& s : sections()) out.emplace_back(s.name);
  return out;
}

int log2_exact(int64_t v) { return std::countr_zero(static_cast<uint64_t>(v)); }

// The knob to name when the fields do not fit (check_fit fails): of the knobs
// that set a width in the first word that overflows (its buffers, and the GEMM
// shape, which sizes every element), one the user gave, preferring an override
// (--set, a sweep's axis) over the file (an override breaks a valid preset),
// then a buffer over the shape, then the deepest buffer. nullptr when none was
// given (all defaults).
template <typename LineOf>
const char* fit_culprit(const Config& c, const LineOf& line_of) {
  const auto& d = c.derived;
  isa::Layout l(c);
  std::vector<isa::WidthSrc> srcs;
  for (isa::Format f : {isa::Format::MEM, isa::Format::GEMM, isa::Format::ALU, isa::Format::UOP}) {
    const bool uop = f == isa::Format::UOP;
    for (int word = 0; word < (uop ? 1 : 2) && srcs.empty(); ++word)
      if (l.used_bits(f, word) > (uop ? 32 : 64))
        for (const auto& p : l.fields(f))
          if (p.word == word) srcs.push_back(p.width_src);
    if (!srcs.empty()) break;
  }
  auto uses = [&](isa::WidthSrc s) { return std::find(srcs.begin(), srcs.end(), s) != srcs.end(); };
  struct Candidate {
    const char* key;
    bool used;
    int log;  // -1 for a GEMM shape knob
  };
  const Candidate candidates[] = {
      {"buffers.uop", uses(isa::WidthSrc::LOG_UOP), d.log_uop_depth},
      {"buffers.inp", uses(isa::WidthSrc::LOG_INP) || uses(isa::WidthSrc::LOG_SRC), d.log_inp_depth},
      {"buffers.wgt", uses(isa::WidthSrc::LOG_WGT), d.log_wgt_depth},
      {"buffers.acc", uses(isa::WidthSrc::LOG_ACC) || uses(isa::WidthSrc::LOG_SRC), d.log_acc_depth},
      {"gemm.batch", true, -1},
      {"gemm.block_in", true, -1},
      {"gemm.block_out", true, -1},
  };
  const char* best = nullptr;
  std::pair<int, int> best_rank{0, 0};
  for (const auto& cand : candidates) {
    const int line = line_of(cand.key);
    if (!cand.used || line == 0) continue;
    const std::pair<int, int> rank{line < 0 ? 2 : 1, cand.log};
    if (best == nullptr || rank > best_rank) best = cand.key, best_rank = rank;
  }
  return best;
}

// The element widths the datapath builds (docs/design.md, "Data types"):
// operands and outputs of 4, 8 or 16 bits, accumulators of 16 or 32 bits
// that hold one product (so OUT, at most 16 bits, never exceeds ACC), and
// elements of whole bytes.
template <typename Loc>
void check_widths(const Config& c, const Loc& loc) {
  const struct {
    const char* key;
    int64_t bits;
    bool acc;
  } widths[] = {{"dtype.inp_bits", c.dtype.inp_bits, false},
                {"dtype.wgt_bits", c.dtype.wgt_bits, false},
                {"dtype.acc_bits", c.dtype.acc_bits, true},
                {"dtype.out_bits", c.dtype.out_bits, false}};
  for (const auto& w : widths) {
    const bool ok = w.acc ? (w.bits == 16 || w.bits == 32) : (w.bits == 4 || w.bits == 8 || w.bits == 16);
    if (!ok)
      fail("{}: {} = {} is not a width the datapath builds ({})", loc(w.key), w.key, w.bits,
           w.acc ? "16 or 32" : "4, 8 or 16");
  }
  if (c.dtype.inp_bits + c.dtype.wgt_bits > c.dtype.acc_bits)
    fail(
        "{}: dtype.acc_bits = {} cannot hold one product of dtype.inp_bits = {} and dtype.wgt_bits = {} ({} bits): use "
        "32",
        loc("dtype.acc_bits"), c.dtype.acc_bits, c.dtype.inp_bits, c.dtype.wgt_bits,
        c.dtype.inp_bits + c.dtype.wgt_bits);
  const struct {
    const char* key;
    const char* mem;
    int64_t values;
    int64_t bits;
    const char* count;
  } elems[] = {
      {"dtype.inp_bits", "INP", c.gemm.batch * c.gemm.block_in, c.dtype.inp_bits, "gemm.batch x gemm.block_in"},
      {"dtype.wgt_bits", "WGT", c.gemm.block_out * c.gemm.block_in, c.dtype.wgt_bits, "gemm.block_out x gemm.block_in"},
      {"dtype.out_bits", "OUT", c.gemm.batch * c.gemm.block_out, c.dtype.out_bits, "gemm.batch x gemm.block_out"}};
  for (const auto& e : elems)
    if (e.values * e.bits % 8 != 0)
      fail("{}: {} = {} makes an {} element of {} bits ({} = {} values), not whole bytes", loc(e.key), e.key, e.bits,
           e.mem, e.values * e.bits, e.count, e.values);
}
// Computes `derived` and checks every cross-knob rule. `line_of` gives the
// line of a key in the source (0 if unknown, -1 if set by an override);
// `loc` names where a key was set, for a message.
template <typename LineOf, typename Loc>
void derive_and_check(Config& c, const LineOf& line_of, const Loc& loc) {
  // A host CPU preset fills the host model's knobs that the config leaves
  // unset (isa/host_cpus/README.md); an explicit value wins.
  if (c.host.cpu != "custom") {
    const HostCpuFigures f = host_cpu_figures(host_cpu_preset(c.host.cpu));
    double* const knob[] = {&c.host.mem_gbps, &c.host.flush_gbps, &c.host.op_ns, &c.host.mac_ns};
    const double value[] = {f.mem_gbps, f.flush_gbps, f.op_ns, f.mac_ns};
    for (size_t i = 0; i < std::size(knob); ++i)
      if (line_of(kHostCpuKnobs[i]) == 0) *knob[i] = value[i];
  }
  check_widths(c, loc);
  auto& d = c.derived;
  d.inp_elem_bytes = c.gemm.batch * c.gemm.block_in * c.dtype.inp_bits / 8;
  d.wgt_elem_bytes = c.gemm.block_out * c.gemm.block_in * c.dtype.wgt_bits / 8;
  d.acc_elem_bytes = c.gemm.batch * c.gemm.block_out * c.dtype.acc_bits / 8;
  d.out_elem_bytes = c.gemm.batch * c.gemm.block_out * c.dtype.out_bits / 8;
  d.uop_elem_bytes = 4;
  struct Buf {
    const char* key;
    const char* mem;
    int64_t size, elem;
    int64_t* depth;
    int* log;
  };
  Buf bufs[] = {
      {"buffers.uop", "UOP", c.buffers.uop, d.uop_elem_bytes, &d.uop_depth, &d.log_uop_depth},
      {"buffers.inp", "INP", c.buffers.inp, d.inp_elem_bytes, &d.inp_depth, &d.log_inp_depth},
      {"buffers.wgt", "WGT", c.buffers.wgt, d.wgt_elem_bytes, &d.wgt_depth, &d.log_wgt_depth},
      {"buffers.acc", "ACC", c.buffers.acc, d.acc_elem_bytes, &d.acc_depth, &d.log_acc_depth},
  };
  for (auto& b : bufs) {
    if (b.size < b.elem)
      fail("{}: {} = {} is smaller than one {} element ({} bytes for this GEMM shape)", loc(b.key), b.key,
           format_size(b.size), b.mem, b.elem);
    *b.depth = b.size / b.elem;
    *b.log = log2_exact(*b.depth);
    int64_t sram_limit = int64_t{1} << isa::kSramBaseBits;
    if (*b.depth > sram_limit)
      fail("{}: {} = {} gives a {} depth of {} elements; the LOAD/STORE field sram_base has {} bits (limit {})",
           loc(b.key), b.key, format_size(b.size), b.mem, *b.depth, isa::kSramBaseBits, sram_limit);
  }
  d.out_depth = d.acc_depth;
  if (c.alu.lanes > c.gemm.batch * c.gemm.block_out)
    fail("{}: alu.lanes = {} exceeds the {} elements of one ACC element (gemm.batch x gemm.block_out)",
         loc("alu.lanes"), c.alu.lanes, c.gemm.batch * c.gemm.block_out);
  // The concurrent ALU splits the ACC and OUT buffers into two banks
  // (docs/timing.md, "Concurrent ALU"): a one-element ACC has no halves.
  if (c.alu.concurrent && d.acc_depth < 2)
    fail("{}: alu.concurrent = true needs an ACC of at least 2 elements (two banks), but buffers.acc = {} holds {}",
         loc("alu.concurrent"), format_size(c.buffers.acc), d.acc_depth);
  int64_t max_dram = (int64_t{1} << isa::kDramBaseBits) * d.uop_elem_bytes;
  if (c.memory.dram_size > max_dram)
    fail("{}: memory.dram_size = {} exceeds what the 32-bit dram_base field addresses in 4-byte UOP elements ({})",
         loc("memory.dram_size"), format_size(c.memory.dram_size), format_size(max_dram));
  // The DRAM model's knobs (docs/timing.md, "DRAM model"); the preset's own
  // limits are checked where the device is resolved (sim/dram, dram_setup).
  if (c.memory.channels != 0 && !std::has_single_bit(static_cast<uint64_t>(c.memory.channels)))
    fail("{}: memory.channels = {} must be a power of two (0: the DRAM preset's)", loc("memory.channels"),
         c.memory.channels);
  if (c.memory.dram == "fixed") {
    static const Config defaults;
    for (const auto& k : knobs()) {
      if (!k.late || std::string_view(k.section) != "memory" || std::string_view(k.name) == "dram") continue;
      const std::string v = knob_value_text(c, k);
      if (v != knob_value_text(defaults, k))
        fail(
            "{}: {} = {} has no effect with memory.dram = fixed (latencies in core cycles, no DRAM device): "
            "choose a DRAM preset for memory.dram, or drop {}",
            loc(k.key().c_str()), k.key(), v, k.key());
    }
  }
  // Every instruction and the uop must fit its encoding.
  if (auto problem = isa::check_fit(c)) {
    const char* key = fit_culprit(c, line_of);
    if (key == nullptr) fail("{}: {}", c.source, *problem);
    const std::string widths = nondefault_widths(c);
    fail("{}: {} = {}: {}{}", loc(key), key, knob_value_text(c, *find_knob(key)), *problem,
         widths.empty() ? "" : fmt::format(" (with {}, the same bytes hold more, narrower elements)", widths));
  }
}

}  // namespace

const std::vector<KnobInfo>& knobs() {
  static const std::vector<KnobInfo> v = make_knobs();
  return v;
}

const std::vector<SectionInfo>& sections() {
  static const std::vector<SectionInfo> v = make_sections();
  return v;
}

const KnobInfo* find_knob(std::string_view key) {
  // By key: a sweep looks up a dozen knobs per design point.
  static const auto by_key = [] {
    std::map<std::string, const KnobInfo*, std::less<>> m;
    for (const auto& k : knobs()) m.emplace(k.key(), &k);
    return m;
  }();
  const auto it = by_key.find(key);
  return it == by_key.end() ? nullptr : it->second;
}

bool parse_size(std::string_view text, int64_t& out) {
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) != 0)) ++i;
  if (i == 0) return false;
  int64_t n = 0;
  if (!parse_int(text.substr(0, i), n)) return false;
  std::string_view unit = text.substr(i);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  int shift = 0;
  if (unit.empty() || unit == "B")
    shift = 0;
  else if (unit == "KiB" || unit == "K")
    shift = 10;
  else if (unit == "MiB" || unit == "M")
    shift = 20;
  else if (unit == "GiB" || unit == "G")
    shift = 30;
  else
    return false;
  if (n > (int64_t{1} << (62 - shift))) return false;
  out = n << shift;
  return true;
}

namespace {

// format_size's text, appended to `out`.
void append_size(fmt::memory_buffer& out, int64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  while (u < 3 && bytes != 0 && bytes % 1024 == 0) bytes /= 1024, ++u;
  fmt::format_to(std::back_inserter(out), "{}{}", bytes, units[u]);
}

// knob_value_text's text, appended to `out` (Config::hash() needs no string per knob).
void append_value_text(fmt::memory_buffer& out, const Config& c, const KnobInfo& k) {
  auto ref = k.ref(const_cast<Config&>(c));
  switch (k.kind) {
    case KnobKind::SIZE:
      append_size(out, *std::get<int64_t*>(ref));
      return;
    case KnobKind::INT:
    case KnobKind::POW2:
      fmt::format_to(std::back_inserter(out), "{}", *std::get<int64_t*>(ref));
      return;
    case KnobKind::REAL:
      fmt::format_to(std::back_inserter(out), "{}", *std::get<double*>(ref));
      return;
    case KnobKind::BOOL:
      out.append(std::string_view(*std::get<bool*>(ref) ? "true" : "false"));
      return;
    case KnobKind::ENUM:
    case KnobKind::STR:
      out.append(std::string_view(*std::get<std::string*>(ref)));
      return;
  }
}

}  // namespace

std::string format_size(int64_t bytes) {
  fmt::memory_buffer b;
  append_size(b, bytes);
  return fmt::to_string(b);
}

std::string knob_value_text(const Config& c, const KnobInfo& k) {
  fmt::memory_buffer b;
  append_value_text(b, c, k);
  return fmt::to_string(b);
}

std::string nondefault_widths(const Config& c) {
  static const Config upstream;
  std::string out;
  for (const auto& k : knobs()) {
    if (std::string_view(k.section) != "dtype") continue;
    const std::string v = knob_value_text(c, k);
    if (v != knob_value_text(upstream, k)) out += fmt::format("{}{} = {}", out.empty() ? "" : ", ", k.key(), v);
  }
  return out;
}

int64_t Config::elem_bytes(int mem_id) const {
  using isa::MemId;
  switch (static_cast<MemId>(mem_id)) {
    case MemId::UOP:
      return derived.uop_elem_bytes;
    case MemId::WGT:
      return derived.wgt_elem_bytes;
    case MemId::INP:
      return derived.inp_elem_bytes;
    case MemId::ACC:
      return derived.acc_elem_bytes;
    case MemId::OUT:
      return derived.out_elem_bytes;
    case MemId::ACC_8BIT:
      return derived.out_elem_bytes;  // batch x block_out bytes, like OUT
  }
  fail("memory type {} does not exist (0..{})", mem_id, isa::memories().back().value);
}

std::string Config::hash() const {
  // Each knob's "key=" and, for a late knob, its default's text, made once.
  struct Line {
    const KnobInfo* knob;
    std::string key, late_default;
  };
  static const std::vector<Line> lines = [] {
    static const Config defaults;
    std::vector<Line> v;
    for (const auto& k : knobs()) v.push_back({&k, k.key() + "=", k.late ? knob_value_text(defaults, k) : ""});
    return v;
  }();
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::string_view s) {
    for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  };
  fmt::memory_buffer value;
  for (const Line& l : lines) {
    value.clear();
    append_value_text(value, *this, *l.knob);
    const std::string_view v(value.data(), value.size());
    if (l.knob->late && v == l.late_default) continue;  // stores keyed before it existed keep their keys
    mix(l.key), mix(v), mix("\n");
  }
  return fmt::format("{:016x}", h);
}

Override parse_override(std::string_view text, std::string_view what) {
  auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) fail("{} '{}': expected key=value (e.g. gemm.block_out=32)", what, text);
  return {std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

namespace {

// A config file as its YAML sets it, before overrides: the knobs, the line
// of each key (for later messages), the line of `name:` (0 when it came
// from the file name).
struct ParsedYaml {
  Config c;
  std::vector<std::pair<std::string, int>> lines;
  int name_line = 0;
};

ParsedYaml parse_config_yaml(const std::string& yaml, const std::string& source) {
  ParsedYaml p;
  Config& c = p.c;
  auto& lines = p.lines;
  int& name_line = p.name_line;
  auto line_of = [&](std::string_view key) {
    int line = 0;
    for (auto& [k, l] : lines)
      if (k == key) line = l;
    return line;
  };
  c.source = source;
  c.name = std::filesystem::path(source).stem().string();
  YAML::Node root;
  try {
    // One document: a second one (after `---`) would otherwise be ignored.
    const YamlDocuments docs = load_yaml_documents(yaml);
    if (docs.count > 1)
      fail("{}:{}: a second YAML document ('---'); a config is one document", source, docs.second_start.line + 1);
    root = docs.first;
  } catch (const YAML::Exception& e) {
    // yaml-cpp marks an error at the end of the input one line past the
    // last; name a line the file has.
    const auto count =
        static_cast<int>(std::count(yaml.begin(), yaml.end(), '\n')) + (yaml.empty() || yaml.back() != '\n' ? 1 : 0);
    fail("{}:{}: YAML syntax error: {}", source, std::clamp(e.mark.line + 1, 1, std::max(count, 1)), e.msg);
  }
  if (root && !root.IsNull()) {
    if (!root.IsMap()) fail("{}:{}: a config must be a YAML mapping of sections", source, root.Mark().line + 1);
    std::vector<std::string> seen;  // a section (or name) given twice is an error, not merged
    for (auto it = root.begin(); it != root.end(); ++it) {
      int line = it->first.Mark().line + 1;
      if (!it->first.IsScalar()) fail("{}: a section name must be a plain word", where(source, line));
      std::string sec = it->first.as<std::string>();
      if (std::find(seen.begin(), seen.end(), sec) != seen.end())
        fail("{}: '{}' is given twice", where(source, line), sec);
      seen.push_back(sec);
      const YAML::Node body = it->second;  // a handle: it->second lives only as long as the iterator's proxy
      if (sec == "name") {
        if (!body.IsScalar()) fail("{}: name must be a string", where(source, line));
        c.name = body.as<std::string>();
        name_line = line;
        continue;
      }
      auto names = knob_names_in(sec);
      if (names.empty()) fail("{}: unknown section '{}'{}", where(source, line), sec, suggest(sec, section_names()));
      if (!body.IsMap()) fail("{}: section '{}' must be a mapping of knobs", where(source, line), sec);
      for (auto kt = body.begin(); kt != body.end(); ++kt) {
        int kline = kt->first.Mark().line + 1;
        if (!kt->first.IsScalar()) fail("{}: a key in section '{}' must be a plain word", where(source, kline), sec);
        std::string name = kt->first.as<std::string>();
        std::string key = sec + "." + name;
        const KnobInfo* k = find_knob(key);
        if (!k) fail("{}: unknown key '{}'{}", where(source, kline), key, suggest(name, names));
        if (line_of(key) != 0) fail("{}: key '{}' is given twice", where(source, kline), key);
        if (!kt->second.IsScalar())
          fail("{}: {} must be a single value, not a {}", where(source, kline), key,
               kt->second.IsMap()        ? "mapping"
               : kt->second.IsSequence() ? "list"
                                         : "null");
        lines.emplace_back(key, kline);
        set_knob(c, *k, kt->second.as<std::string>(), where(source, kline));
      }
    }
  }
  return p;
}

}  // namespace

Config load_config_text(const std::string& yaml, const std::string& source, const std::vector<Override>& overrides,
                        const OverrideOrigin& origin) {
  // A sweep loads the same base text once per design point, with other
  // overrides: the parse of the last text is kept (per thread).
  thread_local std::string last_yaml, last_source;
  thread_local std::optional<ParsedYaml> last;
  if (!last || yaml != last_yaml || source != last_source) {
    last.reset();
    ParsedYaml parsed = parse_config_yaml(yaml, source);
    last_yaml = yaml, last_source = source;
    last = std::move(parsed);
  }
  Config c = last->c;
  const auto& lines = last->lines;  // key -> line, for later messages
  const int name_line = last->name_line;
  // The override that sets `key` (the last: it wins), or -1.
  auto override_of = [&](std::string_view key) {
    int found = -1;
    for (size_t i = 0; i < overrides.size(); ++i)
      if (overrides[i].first == key) found = static_cast<int>(i);
    return found;
  };
  // The line of `key` in the file, -1 when an override set it, 0 if unset.
  auto line_of = [&](std::string_view key) {
    if (override_of(key) >= 0) return -1;
    int line = 0;
    for (auto& [k, l] : lines)
      if (k == key) line = l;
    return line;
  };
  // Where override `i` came from, and where `key` was set: made only for a message.
  auto origin_of = [&](size_t i) { return origin ? origin(i) : "--set " + overrides[i].first; };
  auto loc = [&](std::string_view key) {
    const int i = override_of(key);
    return i >= 0 ? origin_of(static_cast<size_t>(i)) : where(source, line_of(key));
  };
  for (size_t i = 0; i < overrides.size(); ++i) {
    const std::string& key = overrides[i].first;
    const KnobInfo* k = find_knob(key);
    if (!k) {
      std::vector<std::string> all;
      for (const auto& kk : knobs()) all.push_back(kk.key());
      fail("{}: unknown key '{}'{}", origin_of(i), key, suggest(key, all));
    }
    set_knob_at(c, *k, overrides[i].second, [&] { return origin_of(i); });
  }
  // The name is written into generated SystemVerilog and OpenCL sources
  // (a comment line each) and into the OpenCL kernel built at run time: a
  // control character there would end the comment and start code.
  if (has_control_char(c.name))
    fail("{}: name holds a control character (such as a newline){}; a design name is one line of text",
         name_line > 0 ? where(source, name_line) : source,
         name_line > 0 ? "" : " (it came from the file name: give name:)");
  derive_and_check(c, line_of, loc);
  return c;
}

Config load_config(const std::string& path, const std::vector<Override>& overrides) {
  return load_config_text(read_file(path, "config file"), path, overrides);
}

Config default_config() { return load_config_text("", "<default>"); }

std::string presets_dir() {
  if (const char* env = std::getenv("VTA_CONFIG_DIR")) return env;
  return std::string(VTA_SOURCE_DIR) + "/configs";
}

std::string resolve_config_path(const std::string& name_or_path) {
  namespace fs = std::filesystem;
  if (path_exists(name_or_path) && path_is_file(name_or_path)) return name_or_path;
  fs::path preset = fs::path(presets_dir()) / (name_or_path + ".yaml");
  if (path_exists(preset)) return preset.string();
  std::vector<std::string> names;
  if (path_is_dir(presets_dir()))
    for (const auto& e : list_dir(presets_dir()))
      if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  // A folder, fifo or device of that name is no preset either: say what it is.
  if (const std::string kind = special_file_kind(name_or_path); !kind.empty())
    fail("{}: not a regular file (it is {}), so it cannot be a config file", name_or_path, kind);
  std::sort(names.begin(), names.end());
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  fail("{}: no such config file or preset (presets in {}: {})", name_or_path, presets_dir(),
       list.empty() ? "none" : list);
}

namespace {
// A YAML double-quoted scalar: escapes what would end or change it, so that
// any name or string knob reads back as itself.
std::string yaml_quoted(std::string_view v) {
  std::string q = "\"";
  for (char ch : v) {
    const auto u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\')
      q += {'\\', ch};
    else if (ch == '\n')
      q += "\\n";
    else if (u < 0x20 || u == 0x7f)
      q += fmt::format("\\x{:02x}", u);
    else
      q += ch;
  }
  return q + "\"";
}
}  // namespace

std::string to_yaml(const Config& c) {
  std::string out =
      fmt::format("# Resolved VTA config (source: {}, hash {})\nname: {}\n", c.source, c.hash(), yaml_quoted(c.name));
  for (const auto& s : sections()) {
    out += fmt::format("{}:\n", s.name);
    for (const auto& k : knobs()) {
      if (std::string_view(k.section) != s.name) continue;
      std::string v = knob_value_text(c, k);
      if (k.kind == KnobKind::STR) v = yaml_quoted(v);
      out += fmt::format("  {}: {}\n", k.name, v);
    }
  }
  return out;
}

std::string describe(const Config& c) {
  const auto& d = c.derived;
  std::string out = to_yaml(c);
  out += "# derived (as upstream VTA derives them)\n";
  out += fmt::format("#   element bytes: INP {} WGT {} ACC {} OUT {} UOP {} ACC_8BIT {}\n", d.inp_elem_bytes,
                     d.wgt_elem_bytes, d.acc_elem_bytes, d.out_elem_bytes, d.uop_elem_bytes, d.out_elem_bytes);
  out += fmt::format("#   depths: UOP {} INP {} WGT {} ACC {} OUT {}\n", d.uop_depth, d.inp_depth, d.wgt_depth,
                     d.acc_depth, d.out_depth);
  out += fmt::format("#   index widths (log2 depth): UOP {} INP {} WGT {} ACC {}\n", d.log_uop_depth, d.log_inp_depth,
                     d.log_wgt_depth, d.log_acc_depth);
  if (c.host.cpu != "custom") out += "# " + host_cpu_summary(c) + "\n";
  out += isa::describe_layout(c);
  return out;
}

std::string schema_markdown() {
  std::string out =
      "<!-- Generated by `vta config schema` from isa/include/vta/isa/config_knobs.def; do not edit. -->\n"
      "# Config reference\n\nEvery knob of a design YAML file. Sizes take units (`32KiB`). Unknown keys, wrong "
      "types and out-of-range values are errors that name the file, line and key.\n";
  const Config defaults = default_config();
  for (const auto& s : sections()) {
    out += fmt::format("\n## `{}`: {}\n\n| key | type | default | range | meaning |\n|---|---|---|---|---|\n", s.name,
                       s.doc);
    for (const auto& k : knobs()) {
      if (std::string_view(k.section) != s.name) continue;
      std::string type, range;
      switch (k.kind) {
        case KnobKind::INT:
          type = "integer";
          range = fmt::format("{} .. {}", k.min, k.max);
          break;
        case KnobKind::POW2:
          type = "power of two";
          range = fmt::format("{} .. {}", k.min, k.max);
          break;
        case KnobKind::SIZE:
          type = "size (power of two)";
          range = fmt::format("{} .. {}", format_size(static_cast<int64_t>(k.min)),
                              format_size(static_cast<int64_t>(k.max)));
          break;
        case KnobKind::REAL:
          type = "number";
          range = fmt::format("{} .. {}", k.min, k.max);
          break;
        case KnobKind::BOOL:
          type = "boolean";
          range = "true, false";
          break;
        case KnobKind::ENUM:
          type = "choice";
          range = fmt::format("{}", fmt::join(split(k.choices, '|'), ", "));
          break;
        case KnobKind::STR:
          type = "text";
          range = "any";
          break;
      }
      std::string def = knob_value_text(defaults, k);
      out += fmt::format("| `{}` | {} | `{}` | {} | {} |\n", k.key(), type, def, range, k.doc);
    }
  }
  return out;
}

}  // namespace vta

namespace vta {

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  return suggest(word, candidates);
}

void check_knob_value(const KnobInfo& k, const std::string& text, const std::string& loc) {
  Config scratch;
  set_knob(scratch, k, text, loc);
}

}  // namespace vta
