#pragma once
// A runnable program image: named DRAM buffers with initial contents, the
// instructions, optional regions, and expected results. Read from a
// conformance-vector folder (tests/data/conformance/README.md) or from the
// text assembler format (.vasm, docs/asm.md), and installed into any Backend.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vta/isa/config.h"
#include "vta/isa/fields.h"
#include "vta/model/backend.h"

namespace vta {

struct ImageBuffer {
  std::string name;
  isa::MemId mem = isa::MemId::INP;  // element type (for dram_base symbols and dumps)
  std::vector<uint8_t> init;         // initial contents; its size is the buffer's size unless `size` is larger
  uint64_t addr = 0;                 // physical address once installed
  uint64_t size = 0;                 // the buffer's size when larger than init, zero-filled (conformance files
                                     // are whole pages, a .vasm `zero` fill has no init); DRAM accesses past it
                                     // are errors
  /// The buffer's size in DRAM.
  uint64_t bytes() const { return size > init.size() ? size : init.size(); }
};

/// An expected result: the first bytes of a DRAM buffer, or on-chip buffer
/// elements (the conformance `relu` vector checks the OUT buffer).
struct Expectation {
  enum class Where { DRAM, SRAM } where = Where::DRAM;
  std::string buffer;                // DRAM: buffer name
  isa::MemId mem = isa::MemId::OUT;  // SRAM: which buffer
  uint32_t index = 0;                // SRAM: first element
  std::vector<uint8_t> bytes;
};

struct ProgramImage {
  std::string source;
  std::vector<ImageBuffer> buffers;  // allocated in this order, then the instructions
  std::vector<isa::Raw128> insns;
  std::vector<Region> regions;
  std::vector<Expectation> expect;

  const ImageBuffer* buffer(const std::string& name) const;
};

/// Reads a conformance-vector folder. Throws vta::Error naming missing or
/// malformed files.
ProgramImage read_conformance_dir(const std::string& dir);
/// The files of a conformance-vector folder, by name (kNames).
struct ConformanceFiles {
  static constexpr std::array<const char*, 7> kNames = {
      "input.bin", "weight.bin", "out.bin", "uop.bin", "accumulator.bin", "instructions.bin", "expected_out.bin"};
  std::array<std::vector<uint8_t>, 7> bytes;
  /// The bytes of file `name` (one of kNames); throws vta::Error for another name.
  std::vector<uint8_t>& file(std::string_view name);
};
/// The image of a conformance-vector folder's files (read_conformance_dir
/// without the file system); `dir` names it in errors.
ProgramImage conformance_image(ConformanceFiles files, const std::string& dir);
/// Assembles .vasm text for config `c`; `source` names it in errors and is
/// the base for relative file paths.
ProgramImage assemble_program(const std::string& text, const std::string& source, const Config& c);
/// Reads a .vasm file or a conformance folder, whichever `path` is.
ProgramImage read_program(const std::string& path, const Config& c);

/// Allocates and fills the buffers and instructions in the backend's DRAM
/// (in order, from 0x1000 on a fresh backend) and returns the launch.
/// Updates the buffers' addresses in `image`.
Launch install(ProgramImage& image, Backend& backend);

/// One difference from an expectation.
struct Mismatch {
  std::string what;  // "buffer out byte 17" / "OUT[0] byte 3"
  uint64_t offset = 0;
  int expected = 0, actual = 0;
  size_t total_diffs = 0;  // differing bytes in this expectation
};
/// Compares the expectations with the backend's state after run(); empty when all match.
std::vector<Mismatch> check_expectations(const ProgramImage& image, const Backend& backend);

/// Text disassembly of a whole image in .vasm form (instructions and uops).
std::string disassemble_image(const ProgramImage& image, const Config& c);

}  // namespace vta
