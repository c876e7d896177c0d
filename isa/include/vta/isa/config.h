#pragma once
// vta::Config: one accelerator design, parsed once, strictly, from YAML and
// then read-only (pass it by const&). Knobs are declared in config_knobs.def;
// the quantities derived from them (buffer depths, index widths, element
// sizes) are computed and checked once by the loader and live in `derived`.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace vta {

struct Config {
#define VTA_CTYPE_INT int64_t
#define VTA_CTYPE_POW2 int64_t
#define VTA_CTYPE_SIZE int64_t
#define VTA_CTYPE_REAL double
#define VTA_CTYPE_BOOL bool
#define VTA_CTYPE_ENUM std::string
#define VTA_CTYPE_STR std::string
#define VTA_SECTION(sec, doc) struct sec##_t {
#define VTA_KNOB(sec, name, kind, def, mn, mx, doc, ...) VTA_CTYPE_##kind name = def;
#define VTA_KNOB_LATE VTA_KNOB
#define VTA_END(sec) \
  }                  \
  sec;
#include "vta/isa/config_knobs.def"
#undef VTA_SECTION
#undef VTA_KNOB
#undef VTA_KNOB_LATE
#undef VTA_END

  /// Design name (the YAML `name`, or the file stem).
  std::string name = "vta";
  /// Where the config came from ("configs/vta-1x16x16.yaml", "<default>").
  std::string source = "<default>";

  /// Quantities derived from the knobs exactly as upstream VTA derives them.
  struct Derived {
    // Bytes of one element of each memory, as laid out in DRAM.
    int64_t inp_elem_bytes, wgt_elem_bytes, acc_elem_bytes, out_elem_bytes, uop_elem_bytes;
    // Buffer depths in elements (OUT has the ACC depth).
    int64_t uop_depth, inp_depth, wgt_depth, acc_depth, out_depth;
    // log2 of the depths: the index widths used by the ISA.
    int log_uop_depth, log_inp_depth, log_wgt_depth, log_acc_depth;
  } derived{};

  /// The element size in bytes of DRAM memory `mem_id` (UOP 0 .. ACC_8BIT 5).
  int64_t elem_bytes(int mem_id) const;
  /// A stable 64-bit FNV-1a hash of every knob's resolved value, as hex; a
  /// VTA_KNOB_LATE knob counts only when it differs from its default.
  std::string hash() const;
};

/// Kinds of knob values (see config_knobs.def).
enum class KnobKind { INT, POW2, SIZE, REAL, BOOL, ENUM, STR };

/// Reflection over config_knobs.def: one entry per knob, in file order.
struct KnobInfo {
  const char* section;
  const char* name;
  KnobKind kind;
  const char* default_text;  // the default as written in the .def file
  double min, max;           // numeric range (INT/POW2/SIZE/REAL)
  const char* choices;       // "|"-separated (ENUM)
  const char* doc;
  using Ref = std::variant<int64_t*, double*, bool*, std::string*>;
  Ref (*ref)(Config&);
  /// Declared with VTA_KNOB_LATE: enters Config::hash() only when it differs
  /// from its default.
  bool late = false;
  std::string key() const { return std::string(section) + "." + name; }
};
struct SectionInfo {
  const char* name;
  const char* doc;
};
const std::vector<KnobInfo>& knobs();
const std::vector<SectionInfo>& sections();
/// The knob with dotted key `key` ("gemm.batch"), or nullptr.
const KnobInfo* find_knob(std::string_view key);
/// The value of a knob rendered as YAML scalar text ("32KiB", "true", "64").
std::string knob_value_text(const Config& c, const KnobInfo& k);

/// A `key=value` override applied on top of a loaded file (`--set`).
using Override = std::pair<std::string, std::string>;
/// Parses "gemm.block_out=32"; throws vta::Error naming `what` when malformed.
Override parse_override(std::string_view text, std::string_view what = "--set");

/// Where override `i` of a load came from, as its messages name it: a sweep
/// gives the spec line of the axis that set the knob ("s.yaml:12: axis
/// buffers.inp"). Called only when a message is made, so a load that
/// succeeds builds no text.
using OverrideOrigin = std::function<std::string(size_t i)>;

/// Loads a YAML config file, applies overrides, validates and derives.
/// Throws vta::Error naming the file, line and key on any problem.
Config load_config(const std::string& path, const std::vector<Override>& overrides = {});
/// Same from YAML text; `source` names it in messages, and `origin` names
/// where each override came from (without it, "--set KEY").
Config load_config_text(const std::string& yaml, const std::string& source, const std::vector<Override>& overrides = {},
                        const OverrideOrigin& origin = {});
/// The defaults (upstream VTA 1x16x16), validated.
Config default_config();
/// Resolves a preset name ("vta-1x16x16") or a path to a YAML file.
std::string resolve_config_path(const std::string& name_or_path);
/// Directory holding the presets (VTA_CONFIG_DIR, else the source tree's configs/).
std::string presets_dir();

/// Checks `text` as a value of knob `k` (type, range, power of two, choice)
/// exactly as the loader does; throws vta::Error prefixed by `loc`.
void check_knob_value(const KnobInfo& k, const std::string& text, const std::string& loc);
/// " (did you mean 'x'?)" for the candidate closest to `word`, or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

/// "" when `c` has upstream's element widths (dtype 8/8/32/8); else its
/// other widths, "dtype.inp_bits = 4, dtype.acc_bits = 16", for the message
/// of a consumer that implements only those.
std::string nondefault_widths(const Config& c);

/// Writes the fully resolved config as YAML (every knob, with units).
std::string to_yaml(const Config& c);
/// Human-readable listing of every knob and every derived width and depth.
std::string describe(const Config& c);
/// Markdown table of the schema (docs/config.md is generated from this).
std::string schema_markdown();
/// Converts an upstream vta_config.json (text) to our YAML; throws on bad input.
std::string import_upstream_json(const std::string& json_text, const std::string& source);

/// Parses a size with optional unit suffix (B, KiB, MiB, GiB; also K/M/G).
/// Returns false when the text is not a size.
bool parse_size(std::string_view text, int64_t& out);
/// Renders bytes with the largest exact binary unit ("32KiB").
std::string format_size(int64_t bytes);

}  // namespace vta
