#pragma once
// The ISA as data: the field table of fields.def, laid out for one config.
// Everything that encodes, decodes, prints or generates instructions goes
// through isa::Layout, so no bit offset exists anywhere else.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vta {
struct Config;
}

namespace vta::isa {

inline constexpr int kSramBaseBits = 16;  // LOAD/STORE sram_base
inline constexpr int kDramBaseBits = 32;  // LOAD/STORE dram_base
inline constexpr int kInsnBytes = 16;
inline constexpr int kUopBytes = 4;

// The codes of opcodes.def, one enumerator per line.
#define VTA_OPCODE(name, value, format, doc) name = value,
#define VTA_MEMORY(...)
#define VTA_ALU_OP(...)
enum class Opcode : uint8_t {
#include "vta/isa/opcodes.def"
};
#undef VTA_OPCODE
#undef VTA_MEMORY
#define VTA_OPCODE(...)
#define VTA_MEMORY(name, value, ext, doc) name = value,
enum class MemId : uint8_t {
#include "vta/isa/opcodes.def"
};
#undef VTA_MEMORY
#undef VTA_ALU_OP
#define VTA_MEMORY(...)
#define VTA_ALU_OP(name, value, ext, c_expr, sv_expr, doc) name = value,
enum class AluOp : uint8_t {
#include "vta/isa/opcodes.def"
};
#undef VTA_OPCODE
#undef VTA_MEMORY
#undef VTA_ALU_OP
/// Instruction formats: LOAD/STORE share MEM, GEMM/FINISH share GEMM.
enum class Format : uint8_t { MEM, GEMM, ALU, UOP };
enum class WidthSrc : uint8_t { ZERO, LOG_UOP, LOG_INP, LOG_WGT, LOG_ACC, LOG_SRC };
enum class Render : uint8_t { DEC, HEX, FLAG, PAD, SIGNED, OPCODE, MEMTYPE, ALUOP };

/// One line of opcodes.def: an opcode, a memory type or an ALU op.
struct Code {
  const char* name;
  uint8_t value;
  Format format;          // opcodes: the format it is encoded in
  const char* extension;  // the isa.* knob that enables it ("alu_mul"), or nullptr (upstream)
  const char* c_expr;     // ALU ops: the semantics as C over `int a, b` (opcodes.def)
  const char* sv_expr;    // ALU ops: the same in SystemVerilog over `logic [31:0] a, b`
  const char* doc;
  bool (*enabled_in)(const Config&);  // reads the extension knob; nullptr for upstream codes
  /// Whether a program for `c` may use it (upstream, or its extension enabled).
  bool enabled(const Config& c) const { return !enabled_in || enabled_in(c); }
};
/// The codes in table order (which is value order).
const std::vector<Code>& opcodes();
const std::vector<Code>& memories();
const std::vector<Code>& alu_ops();
/// The table line of a value; nullptr when the table has none.
const Code* find_opcode(uint32_t value);
const Code* find_memory(uint32_t value);
const Code* find_alu_op(uint32_t value);
/// "LOAD 0, STORE 1, GEMM 2, FINISH 3, ALU 4": the codes for a message.
std::string code_list(const std::vector<Code>& codes);

const char* opcode_name(Opcode op);
const char* mem_name(MemId m);
const char* alu_name(AluOp a);
std::optional<Opcode> opcode_from_name(std::string_view s);
std::optional<MemId> mem_from_name(std::string_view s);
std::optional<AluOp> alu_from_name(std::string_view s);
Format format_of(Opcode op);

/// Members of a decoded instruction, one per VTA_MEMBER.
enum class Member : uint8_t {
#define VTA_MEMBER(name, doc) name,
#define VTA_FIELD(...)
#include "vta/isa/fields.def"
#undef VTA_MEMBER
#undef VTA_FIELD
  kCount
};
const char* member_name(Member m);
std::optional<Member> member_from_name(std::string_view s);

/// A decoded instruction or uop: every field of every format, raw bits
/// (zero where the format has no such field). Use the accessors for typed views.
struct Insn {
  std::array<uint32_t, static_cast<size_t>(Member::kCount)> f{};
  uint32_t& operator[](Member m) { return f[static_cast<size_t>(m)]; }
  uint32_t operator[](Member m) const { return f[static_cast<size_t>(m)]; }
  Opcode opcode() const { return static_cast<Opcode>((*this)[Member::opcode]); }
  MemId mem() const { return static_cast<MemId>((*this)[Member::memory_type]); }
  AluOp alu() const { return static_cast<AluOp>((*this)[Member::alu_opcode]); }
  /// The immediate, sign-extended from its 16 bits.
  int32_t imm() const { return static_cast<int16_t>(static_cast<uint16_t>((*this)[Member::imm])); }
  bool operator==(const Insn&) const = default;
};

/// A raw 128-bit instruction, little-endian words: w[0] holds bits 0..63.
struct Raw128 {
  uint64_t w[2] = {0, 0};
  bool operator==(const Raw128&) const = default;
};

/// One field of the table, placed for a config.
struct FieldPos {
  Format format;
  Member member;
  int word;   // 0 or 1 (UOP: 0)
  int lsb;    // absolute bit offset (word 1 fields start at 64)
  int width;  // in bits
  Render render;
  WidthSrc width_src;
  int width_add;
};

/// The field table as written in fields.def (offsets not yet placed).
struct FieldSpec {
  Format format;
  Member member;
  int word;
  WidthSrc width_src;
  int width_add;
  Render render;
};
const std::vector<FieldSpec>& field_specs();

/// Fields placed for one config. Construction never fails; check_fit() says
/// whether the result is encodable.
class Layout {
 public:
  explicit Layout(const Config& c);
  const std::vector<FieldPos>& fields(Format f) const { return by_format_[static_cast<size_t>(f)]; }
  const FieldPos* find(Format f, Member m) const;
  /// Bits used in word `word` of format `f`.
  int used_bits(Format f, int word) const;

  Raw128 encode(const Insn& insn) const;
  /// Decodes; throws vta::Error for an unknown opcode. `index` names the
  /// instruction in the message.
  Insn decode(const Raw128& raw, int64_t index = -1) const;
  uint32_t encode_uop(const Insn& uop) const;
  Insn decode_uop(uint32_t word) const;

  /// One line of text, e.g. "LOAD INP sram_base=0 dram_base=0x100 ...".
  std::string disasm(const Insn& insn) const;
  std::string disasm_uop(const Insn& uop) const;
  /// Parses one line of disasm() output (plus comments); throws vta::Error
  /// naming `where` on unknown mnemonics, keys or values that do not fit.
  Insn assemble(std::string_view line, std::string_view where = "<asm>") const;
  Insn assemble_uop(std::string_view line, std::string_view where = "<asm>") const;

 private:
  std::array<std::vector<FieldPos>, 4> by_format_;
};

/// Why `c` cannot be encoded (a field that does not fit 128/32 bits), or
/// nullopt when it can. Names the format, word, fields and limit.
std::optional<std::string> check_fit(const Config& c);
/// A table of every field's offset and width for `c` (for `vta config show`).
std::string describe_layout(const Config& c);

/// Where a marked knob stands in the generated package (VTA_PKG in config_knobs.def).
enum class PackagePlace : uint8_t { SHAPE, UARCH, EXT };
/// How a built RTL model's constant must relate to a config's for the model
/// to run the config (VTA_PKG in config_knobs.def; sim/rtl verilator_select).
enum class PackageMatch : uint8_t { EXACT, UP_TO, PORT };
/// One named constant of the generated package and defines.
struct PackageParam {
  std::string name;  // BATCH, OPCODE_ALU, GEM_UOP_BGN_LSB ...
  int64_t value;
  std::string doc;
  PackageMatch match;
  std::string knob;  // the knob's key (gemm.batch) for a marked knob, else empty
};
/// Every named constant both generated files carry for `c`, in order: the
/// knobs marked VTA_PKG, the derived sizes, the codes, the field offsets.
std::vector<PackageParam> package_params(const Config& c);
/// Generated SystemVerilog package for `c` (first line says how to regenerate).
std::string generate_sv_package(const Config& c);
/// Generated OpenCL C defines header for `c`.
std::string generate_opencl_defines(const Config& c);

}  // namespace vta::isa
