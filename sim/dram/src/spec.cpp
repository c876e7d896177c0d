#include "vta/sim/dram/spec.h"

#include <bit>
#include <cmath>
#include <string>

#include "vta/isa/error.h"

namespace vta::sim::dram {

double Spec::peak_gbps() const { return data_rate.hz() * bus_bits / 8.0 * channels / 1e9; }

uint32_t to_cycles(double ns, uint32_t ck, Freq data_rate) {
  // Command clock = data rate / 2; cycles = ns * 1e-9 * clock. The 1e-9
  // slack keeps an exact multiple (13.75 ns at 1.25 ns) from rounding up on
  // its last floating-point bit.
  const double clock_ghz = data_rate.hz() / 2e9;
  const double cycles = std::ceil(ns * clock_ghz - 1e-9);
  return std::max(ck, static_cast<uint32_t>(std::max(0.0, cycles)));
}

const Preset& preset(std::string_view name, std::string_view key) {
  std::string names;
  for (const Preset& p : presets()) {
    if (name == p.name) return p;
    names += names.empty() ? "" : ", ";
    names += p.name;
  }
  fail("{}: unknown DRAM preset '{}' (choices: {})", key, name, names);
}

namespace {

// Field tables: every key a preset must give, once.
struct OrgField {
  const char* key;
  uint32_t Spec::*member;
};
constexpr OrgField kOrg[] = {
    {"channels", &Spec::channels}, {"bus_bits", &Spec::bus_bits},     {"burst_length", &Spec::burst_length},
    {"ranks", &Spec::ranks},       {"bankgroups", &Spec::bankgroups}, {"banks_per_group", &Spec::banks_per_group},
    {"rows", &Spec::rows},         {"columns", &Spec::columns},
};
struct TimeField {
  const char* key;
  uint32_t Timings::*member;
};
constexpr TimeField kTime[] = {
    {"cl", &Timings::cl},       {"cwl", &Timings::cwl},     {"rcd", &Timings::rcd},     {"rp", &Timings::rp},
    {"ras", &Timings::ras},     {"rc", &Timings::rc},       {"rrd_s", &Timings::rrd_s}, {"rrd_l", &Timings::rrd_l},
    {"faw", &Timings::faw},     {"ccd_s", &Timings::ccd_s}, {"ccd_l", &Timings::ccd_l}, {"wr", &Timings::wr},
    {"wtr_s", &Timings::wtr_s}, {"wtr_l", &Timings::wtr_l}, {"rtp", &Timings::rtp},     {"rtrs", &Timings::rtrs},
    {"refi", &Timings::refi},   {"rfc", &Timings::rfc},
};

const PresetValue* find(const Preset& p, const char* key) {
  const PresetValue* hit = nullptr;
  for (const PresetValue& v : p.values) {
    if (std::string_view(v.key) != key) continue;
    if (hit) fail("DRAM preset {}: '{}' is given twice", p.name, key);
    hit = &v;
  }
  if (!hit) fail("DRAM preset {}: '{}' is missing", p.name, key);
  if (hit->source == nullptr || *hit->source == 0) fail("DRAM preset {}: '{}' names no source", p.name, key);
  return hit;
}

}  // namespace

Spec resolve(const Preset& p, const Options& o) {
  Spec s;
  s.name = p.name;
  if (p.rate_num == 0 || p.rate_den == 0) fail("DRAM preset {}: no data rate", p.name);
  s.data_rate = Freq{p.rate_num * 1000000, p.rate_den};
  for (const PresetValue& v : p.values) {
    bool known = false;
    for (const OrgField& f : kOrg) known |= std::string_view(v.key) == f.key;
    for (const TimeField& f : kTime) known |= std::string_view(v.key) == f.key;
    if (!known) fail("DRAM preset {}: unknown key '{}'", p.name, v.key);
  }
  for (const OrgField& f : kOrg) {
    const PresetValue* v = find(p, f.key);
    if (v->ck == 0 || v->ns != 0.0 || !std::has_single_bit(v->ck))
      fail("DRAM preset {}: '{}' must be a power-of-two count, not {}", p.name, f.key, v->ck);
    s.*f.member = v->ck;
  }
  for (const TimeField& f : kTime) {
    const PresetValue* v = find(p, f.key);
    if (v->ns < 0) fail("DRAM preset {}: '{}' is negative ({} ns)", p.name, f.key, v->ns);
    s.t.*f.member = to_cycles(v->ns, v->ck, s.data_rate);
  }
  s.t.burst = s.burst_length / 2;
  if (s.bus_bits < 8) fail("DRAM preset {}: 'bus_bits' {} is under a byte", p.name, s.bus_bits);
  if (s.burst_length < 2) fail("DRAM preset {}: 'burst_length' {} is under 2", p.name, s.burst_length);
  if (s.columns < s.burst_length)
    fail("DRAM preset {}: a row of {} columns holds no burst of {}", p.name, s.columns, s.burst_length);
  for (const char* k : {"cl", "rcd", "rp", "ras", "rc", "refi", "rfc"})
    for (const TimeField& f : kTime)
      if (std::string_view(k) == f.key && s.t.*f.member == 0) fail("DRAM preset {}: '{}' is 0 cycles", p.name, k);
  if (s.t.refi <= s.t.rfc) fail("DRAM preset {}: tREFI ({}) must exceed tRFC ({})", p.name, s.t.refi, s.t.rfc);
  if (o.channels != 0) {
    if (!std::has_single_bit(o.channels) || o.channels > 64)
      fail("memory.channels: {} is not a power of two from 1 to 64", o.channels);
    s.channels = o.channels;
  }
  if (o.queue_depth == 0 || o.queue_depth > 1024) fail("memory.dram_queue_depth: {} is not in 1..1024", o.queue_depth);
  return s;
}

}  // namespace vta::sim::dram
