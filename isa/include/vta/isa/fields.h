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

enum class Opcode : uint8_t { LOAD = 0, STORE = 1, GEMM = 2, FINISH = 3, ALU = 4 };
enum class MemId : uint8_t { UOP = 0, WGT = 1, INP = 2, ACC = 3, OUT = 4, ACC_8BIT = 5 };
enum class AluOp : uint8_t { MIN = 0, MAX = 1, ADD = 2, SHR = 3, MUL = 4 };
/// Instruction formats: LOAD/STORE share MEM, GEMM/FINISH share GEMM.
enum class Format : uint8_t { MEM, GEMM, ALU, UOP };
enum class WidthSrc : uint8_t { ZERO, LOG_UOP, LOG_INP, LOG_WGT, LOG_ACC, LOG_SRC };
enum class Render : uint8_t { DEC, HEX, FLAG, PAD, SIGNED, OPCODE, MEMTYPE, ALUOP };

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

/// Generated SystemVerilog package for `c` (first line says how to regenerate).
std::string generate_sv_package(const Config& c);
/// Generated OpenCL C defines header for `c`.
std::string generate_opencl_defines(const Config& c);

}  // namespace vta::isa
