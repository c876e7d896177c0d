// First-mismatch diagnosis (see diagnose.h).
#include "vta/bringup/diagnose.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "vta/isa/error.h"
#include "vta/isa/write_file.h"
#include "vta/model/backend.h"
#include "vta/model/builders.h"
#include "vta/model/program.h"
#include "vta/model/race.h"

namespace vta::bringup {

using isa::Insn;
using isa::Member;
using isa::MemId;

namespace {

constexpr MemId kSrams[] = {MemId::UOP, MemId::INP, MemId::WGT, MemId::ACC, MemId::OUT};

/// Everything a program leaves behind on one backend.
struct State {
  std::vector<std::vector<uint8_t>> dram;  // per image buffer
  std::vector<std::vector<uint8_t>> sram;  // per kSrams entry
  std::string error;                       // the run's vta::Error, if any
};

uint32_t depth_of(const Config& c, MemId m) {
  switch (m) {
    case MemId::UOP:
      return static_cast<uint32_t>(c.derived.uop_depth);
    case MemId::INP:
      return static_cast<uint32_t>(c.derived.inp_depth);
    case MemId::WGT:
      return static_cast<uint32_t>(c.derived.wgt_depth);
    case MemId::OUT:
      return static_cast<uint32_t>(c.derived.out_depth);
    default:
      return static_cast<uint32_t>(c.derived.acc_depth);
  }
}

/// Bytes of one element as read_sram returns it (packed at its width).
uint64_t sram_elem(const Config& c, MemId m) {
  return m == MemId::UOP ? 4 : static_cast<uint64_t>(c.elem_bytes(static_cast<int>(m)));
}

State run_on(const std::string& backend, const Config& c, ProgramImage image) {
  State s;
  auto b = make_backend(backend, c);
  const Launch l = install(image, *b);
  try {
    b->run(l);
  } catch (const DeviceError&) {
    throw;  // the device itself failed: no comparison means anything now
  } catch (const Error& e) {
    s.error = e.what();
  }
  for (const auto& buf : image.buffers) s.dram.push_back(b->dram().read(buf.addr, buf.bytes()));
  for (MemId m : kSrams) s.sram.push_back(b->read_sram(m, 0, depth_of(c, m)));
  return s;
}

/// The first difference between the golden state `g` and the device state
/// `d`, or "" when they are equal.
std::string first_difference(const std::string& backend, const Config& c, const ProgramImage& image, const State& g,
                             const State& d) {
  if (g.error != d.error)
    return fmt::format("golden {} but {} {}", g.error.empty() ? "runs" : "fails: " + g.error, backend,
                       d.error.empty() ? "runs" : "fails: " + d.error);
  for (size_t i = 0; i < g.dram.size(); ++i) {
    const auto& a = g.dram[i];
    const auto& b = d.dram[i];
    for (size_t k = 0; k < a.size(); ++k) {
      if (a[k] == b[k]) continue;
      const auto e = static_cast<size_t>(c.elem_bytes(static_cast<int>(image.buffers[i].mem)));
      size_t diffs = 0;
      for (size_t j = k; j < a.size(); ++j) diffs += a[j] != b[j];
      return fmt::format("DRAM buffer '{}' byte {} (element {}, byte {}): expected {}, actual {} ({} bytes differ)",
                         image.buffers[i].name, k, k / e, k % e, static_cast<int8_t>(a[k]), static_cast<int8_t>(b[k]),
                         diffs);
    }
  }
  for (size_t s = 0; s < g.sram.size(); ++s) {
    const auto& a = g.sram[s];
    const auto& b = d.sram[s];
    const MemId m = kSrams[s];
    const uint64_t e = sram_elem(c, m);
    for (size_t k = 0; k < a.size(); ++k) {
      if (a[k] == b[k]) continue;
      size_t diffs = 0;
      for (size_t j = k; j < a.size(); ++j) diffs += a[j] != b[j];
      if ((m == MemId::ACC && c.dtype.acc_bits == 32) || m == MemId::UOP) {  // 32-bit words
        const size_t w = k / 4 * 4;
        int32_t x = 0, y = 0;
        std::memcpy(&x, a.data() + w, 4);
        std::memcpy(&y, b.data() + w, 4);
        return fmt::format("{} buffer element {} {} {}: expected {}, actual {} ({} bytes differ)", isa::mem_name(m),
                           k / e, m == MemId::ACC ? "lane" : "word", (k % e) / 4, x, y, diffs);
      }
      return fmt::format("{} buffer element {} byte {}: expected {}, actual {} ({} bytes differ)", isa::mem_name(m),
                         k / e, k % e, static_cast<int8_t>(a[k]), static_cast<int8_t>(b[k]), diffs);
    }
  }
  return "";
}

/// The first differing instruction, found by binary search over prefixes of
/// the golden execution order (tokens cleared, so that they run in that
/// order) run on both backends.
struct Localised {
  bool found = false;
  uint32_t index = 0;  // program index of the instruction
  std::string text;    // "; first differing instruction: ..." or why none was found
};

Localised localise(const std::string& backend, const Config& c, const ProgramImage& image) {
  const isa::Layout layout(c);
  model::Program prog;
  model::Schedule sched;
  try {
    auto g = make_backend("golden", c);
    ProgramImage copy = image;
    const Launch l = install(copy, *g);
    prog = model::fetch_program(c, layout, g->dram(), l);
    sched = model::schedule(c, prog);
  } catch (const Error&) {
    return {};
  }
  auto prefix = [&](size_t k) {
    ProgramImage p = image;
    p.insns.clear();
    p.regions.clear();
    p.expect.clear();
    for (size_t i = 0; i < k; ++i) {
      Insn insn = prog.insns[sched.order[i]];
      if (insn.opcode() == isa::Opcode::FINISH) continue;
      insn[Member::pop_prev] = insn[Member::pop_next] = insn[Member::push_prev] = insn[Member::push_next] = 0;
      p.insns.push_back(layout.encode(insn));
    }
    p.insns.push_back(layout.encode(build::finish()));
    return p;
  };
  auto differs = [&](size_t k, std::string* what) {
    const ProgramImage p = prefix(k);
    const std::string d = first_difference(backend, c, p, run_on("golden", c, p), run_on(backend, c, p));
    if (what) *what = d;
    return !d.empty();
  };
  size_t lo = 0, hi = sched.order.size();
  std::string what;
  if (!differs(hi, &what))
    return {false, 0, " (the prefixes of its execution order all match: the difference needs the tokens)"};
  while (hi - lo > 1) {
    const size_t mid = (lo + hi) / 2;
    std::string w;
    if (differs(mid, &w))
      hi = mid, what = w;
    else
      lo = mid;
  }
  const uint32_t i = sched.order[hi - 1];
  return {true, i,
          fmt::format("; first differing instruction: {} (position {} of the execution order), after which {}",
                      model::insn_label(layout, prog.insns[i], i), hi - 1, what)};
}

/// The backend whose waveform shows `backend`'s core: the RTL backends run
/// the same SystemVerilog (the co-simulated core is built without tracing,
/// so its waveform comes from the Verilator model); "" for the others.
std::string wave_backend(const std::string& backend) {
  return backend == "verilator" || backend == "systemc-rtl" ? "verilator" : "";
}

/// Cycles [start, end) of instruction `index` of `image` on `backend`, from
/// its Chrome trace (sim/common run_record.h: a slice per instruction,
/// args.index its program index).
std::pair<uint64_t, uint64_t> insn_cycles(const std::string& backend, const Config& c, ProgramImage image,
                                          uint32_t index, const std::string& trace_file) {
  BackendOptions o;
  o.trace_path = trace_file;
  auto b = make_backend(backend, c, o);
  try {
    b->run(install(image, *b));
  } catch (const DeviceError&) {
    throw;
  } catch (const Error&) {
  }
  std::ifstream in(trace_file);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  std::filesystem::remove(trace_file);
  const nlohmann::json& events = j.is_object() && j.contains("traceEvents") ? j["traceEvents"] : j;
  if (!events.is_array()) fail("bring-up: the trace of {} could not be read back from {}", backend, trace_file);
  try {  // written by the backend a moment ago; a file changed since is named, never nlohmann's type_error
    for (const auto& e : events) {
      if (!e.is_object() || e.value("ph", "") != "X" || !e.contains("args") || !e["args"].contains("index")) continue;
      if (e["args"]["index"].get<uint64_t>() != index) continue;
      const auto ts = e.at("ts").get<uint64_t>();
      return {ts, ts + e.at("dur").get<uint64_t>()};
    }
  } catch (const nlohmann::json::exception&) {
    fail("bring-up: the trace of {} could not be read back from {} (a slice without its times)", backend, trace_file);
  }
  fail("bring-up: the trace of {} has no slice for instruction {}", backend, index);
}

/// Writes the VCD window around instruction `index` to `wave_file`; returns
/// the sentence the report adds.
std::string write_wave_window(const std::string& backend, const Config& c, const ProgramImage& image, uint32_t index,
                              const std::string& wave_file) {
  const std::string wb = wave_backend(backend);
  if (wb.empty() || wave_file.empty()) return "";
  if (const auto dir = std::filesystem::path(wave_file).parent_path(); !dir.empty())
    make_dirs(dir.string(), "--wave-dir");
  const auto [start, end] = insn_cycles(wb, c, image, index, wave_file + ".trace.json");
  constexpr uint64_t kMargin = 100;  // cycles shown before the instruction starts
  const uint64_t from = start > kMargin ? start - kMargin : 0;
  const uint64_t cycles = std::min<uint64_t>(end + kMargin - from, kWaveWindowCycles);
  BackendOptions o;
  o.wave_path = wave_file;
  o.wave_from = from;
  o.wave_cycles = cycles;
  auto b = make_backend(wb, c, o);
  ProgramImage copy = image;
  try {
    b->run(install(copy, *b));
  } catch (const DeviceError&) {
    throw;
  } catch (const Error&) {
  }
  return fmt::format("; waveform of cycles [{}, {}) ({} runs instruction {} in cycles [{}, {})) in {}", from,
                     from + cycles, wb, index, start, end, wave_file);
}

}  // namespace

std::string race_in(const Config& c, ProgramImage image) {
  auto golden = make_backend("golden", c);
  const Launch l = install(image, *golden);
  try {
    model::check_races(c, golden->dram(), l);
  } catch (const model::RaceError& e) {
    return e.what();
  } catch (const Error&) {
    // Not a race: a bounds error or a deadlock the comparison expects on
    // every backend. A race after it cannot happen on any backend either.
  }
  return "";
}

std::string compare_with_golden(const std::string& backend, const Config& c, const ProgramImage& image,
                                const std::string& wave_file) {
  const std::string d = first_difference(backend, c, image, run_on("golden", c, image), run_on(backend, c, image));
  if (d.empty()) return "";
  const Localised l = localise(backend, c, image);
  return d + l.text + (l.found ? write_wave_window(backend, c, image, l.index, wave_file) : "");
}

}  // namespace vta::bringup
