// The DRAM model's scheduler gives the same commands at the same cycles as
// the original one (commit 842f98b), which looked at the whole queue at
// every decision:
//  - fingerprints of long randomized traces taken with that original model
//    (pinned below): the controller's commands, burst completion times and
//    counters, and the AXI port's beat and write-completion cycles;
//  - the original scheduler itself, kept for tests as Options::reference
//    (sim/dram/src/channel_reference.h), against the default one on further
//    random traces, command by command.
#include <cstdio>
#include <random>
#include <string>
#include <tuple>

#include "dram_rig.h"
#include "vta/sim/dram/axi_port.h"

namespace {

using namespace dram_rig;

// Traffic that exercises every path of the scheduler: back-to-back requests
// (a full queue, so bursts wait outside it), idle gaps across refreshes,
// sequential streams, random addresses, a few rows of one bank hammered
// (row conflicts), reads and writes, requests of 1 to 8 bursts that need
// not be burst-aligned.
std::vector<Request> traffic(const Spec& s, unsigned seed, size_t n) {
  std::mt19937_64 rng(seed);
  std::vector<Request> v;
  uint64_t t = 0, seq = 0;
  const uint64_t bb = s.burst_bytes();
  for (size_t i = 0; i < n; ++i) {
    const uint64_t mode = rng() % 16;
    t += mode < 8 ? 0 : mode < 13 ? rng() % 24 : mode < 15 ? rng() % 400 : rng() % 6000;
    const uint64_t kind = rng() % 3;
    uint64_t addr = kind == 0   ? seq
                    : kind == 1 ? rng() % s.capacity_bytes()
                                : (rng() % 4) * (bb << 16) + rng() % 64 * bb;
    if (rng() % 5 == 0) addr += rng() % bb;  // not burst-aligned: one more burst
    const auto bytes = static_cast<uint32_t>(bb * (1 + rng() % 8));
    if (kind == 0) seq += bytes;
    v.push_back(Request{addr % s.capacity_bytes(), bytes, rng() % 3 == 0, t});
  }
  return v;
}

struct Outcome {
  std::vector<Command> commands;  // sorted by cycle, then channel, command, place
  std::vector<BurstDone> done;    // as take_done() gives them
  Stats stats;
};

// Runs `reqs` on a controller, advancing it at random points in between
// (the result must not depend on them).
Outcome run(const Spec& s, const Options& o, const std::vector<Request>& reqs, unsigned seed) {
  std::mt19937_64 rng(seed);
  Outcome out;
  Controller c(s, o);
  c.trace(&out.commands);
  for (const Request& q : reqs) {
    if (rng() % 4 == 0 && q.arrive > c.now()) c.advance(c.now() + 1 + rng() % (q.arrive - c.now()));
    c.submit(q);
    if (rng() % 8 == 0) c.take_done(out.done);
  }
  c.drain();
  c.take_done(out.done);
  std::sort(out.done.begin(), out.done.end(), [](const BurstDone& a, const BurstDone& b) {
    return std::tie(a.done, a.request, a.burst) < std::tie(b.done, b.request, b.burst);
  });
  std::sort(out.commands.begin(), out.commands.end(), [](const Command& x, const Command& y) {
    return std::tie(x.cycle, x.channel, x.cmd, x.rank, x.bankgroup, x.bank, x.row, x.automatic) <
           std::tie(y.cycle, y.channel, y.cmd, y.rank, y.bankgroup, y.bank, y.row, y.automatic);
  });
  out.stats = c.stats();
  return out;
}

// FNV-1a, 64-bit, over every field of every command and completion and the counters.
struct Fnv {
  uint64_t h = 14695981039346656037ull;
  void add(uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  }
};

uint64_t fingerprint(const Outcome& o) {
  Fnv f;
  for (const Command& c : o.commands)
    for (uint64_t v : {c.cycle, uint64_t{static_cast<uint8_t>(c.cmd)}, uint64_t{c.channel}, uint64_t{c.rank},
                       uint64_t{c.bankgroup}, uint64_t{c.bank}, uint64_t{c.row}, uint64_t{c.automatic}})
      f.add(v);
  for (const BurstDone& d : o.done)
    for (uint64_t v : {d.request, uint64_t{d.burst}, d.done}) f.add(v);
  const Stats& s = o.stats;
  for (uint64_t v :
       {s.act, s.pre, s.rd, s.wr, s.ref, s.row_hits, s.row_misses, s.row_conflicts, s.read_bytes, s.write_bytes})
    f.add(v);
  return f.h;
}

std::string hex(uint64_t h) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llxull, ", static_cast<unsigned long long>(h));
  return buf;
}

struct Case {
  std::string name;
  Spec spec;
  Options options;
};

Options with(PagePolicy p, uint32_t depth, bool refresh = true) {
  Options o;
  o.page_policy = p;
  o.queue_depth = depth;
  o.refresh = refresh;
  return o;
}

// Two ranks (tRTRS, staggered refresh) on DDR4's organisation.
Spec two_ranks() {
  Spec s = resolve(preset("ddr4-2400"));
  s.ranks = 2;
  s.rows /= 2;
  s.t.refi = 4000;  // many refreshes in a short trace
  return s;
}

std::vector<Case> cases() {
  std::vector<Case> v;
  for (const char* p : {"ddr3-1066", "ddr3-1600", "ddr4-2400", "lpddr4-3200", "hbm2-2000"}) {
    v.push_back(Case{std::string(p) + " open", resolve(preset(p)), with(PagePolicy::open, 32)});
    v.push_back(Case{std::string(p) + " closed", resolve(preset(p)), with(PagePolicy::closed, 6)});
  }
  v.push_back(Case{"ddr4-2400 fcfs", resolve(preset("ddr4-2400")), with(PagePolicy::open, 1)});
  v.push_back(Case{"ddr4-2400 no refresh", resolve(preset("ddr4-2400")), with(PagePolicy::open, 64, false)});
  v.push_back(Case{"two ranks", two_ranks(), with(PagePolicy::open, 16)});
  v.push_back(Case{"two ranks closed", two_ranks(), with(PagePolicy::closed, 32)});
  v.push_back(Case{"toy", toy(), with(PagePolicy::open, 8)});
  return v;
}

// Taken with the original model (commit 842f98b, before the event-driven
// scheduler): a change to any command's cycle, any burst's completion or any
// counter changes its trace's fingerprint.
TEST(DramGolden, LongRandomTracesMatchTheOriginalModel) {
  const std::vector<Case> cs = cases();
  const std::vector<uint64_t> want = {0x77d5c80ce6ff6bccull, 0x2ae6b63a263d1d7eull, 0x29c3d21916baa10aull,
                                      0x89bace3b45101f34ull, 0x6dcc66c4d46755feull, 0x5664dd48e31b6a37ull,
                                      0xc16db10a767a7ec0ull, 0xb993b2f3db9baa2dull, 0x2194e8cd3ed2e936ull,
                                      0x0f3da235ac439740ull, 0x645c85948757b422ull, 0x8a5088ebc232d798ull,
                                      0x21e3424a7e6753c8ull, 0x84850669e85d82efull, 0x24a6c3c1688af42eull};
  std::vector<uint64_t> got;
  for (size_t i = 0; i < cs.size(); ++i) {
    const std::vector<Request> reqs = traffic(cs[i].spec, 100 + static_cast<unsigned>(i), 15000);
    const Outcome o = run(cs[i].spec, cs[i].options, reqs, 7);
    got.push_back(fingerprint(o));
    EXPECT_GT(o.stats.ref + (cs[i].options.refresh ? 0 : 1), 0u) << cs[i].name;
    if (cs[i].options.page_policy == PagePolicy::open) {
      EXPECT_GT(o.stats.row_conflicts, 0u) << cs[i].name;
    }
    EXPECT_GT(o.stats.wr, 0u) << cs[i].name;
    if (i < want.size()) {
      EXPECT_EQ(got[i], want[i]) << cs[i].name;
    }
  }
  std::string list;
  for (uint64_t h : got) list += hex(h);
  EXPECT_EQ(want.size(), cs.size()) << "fingerprints: " << list;
}

// Further random traces (other seeds, sizes and queue depths), each run on
// the default scheduler and on the reference one: the same commands at the
// same cycles, the same completions and counters. On a difference the first
// differing command is printed.
TEST(DramGolden, RandomTracesMatchTheReferenceScheduler) {
  const std::vector<Case> cs = cases();
  for (unsigned seed = 1; seed <= 3; ++seed) {
    for (const Case& k : cs) {
      Options fast = k.options, ref = k.options;
      fast.queue_depth = ref.queue_depth = 1 + (k.options.queue_depth * seed) % 48;
      ref.reference = true;
      const std::vector<Request> reqs = traffic(k.spec, 1000 * seed + k.options.queue_depth, 2500);
      const Outcome a = run(k.spec, fast, reqs, seed), b = run(k.spec, ref, reqs, seed + 1);
      size_t i = 0;
      while (i < a.commands.size() && i < b.commands.size() && a.commands[i] == b.commands[i]) ++i;
      if (i < a.commands.size() || i < b.commands.size()) {
        const auto show = [](const std::vector<Command>& v, size_t n) {
          if (n >= v.size()) return std::string("(none)");
          const Command& c = v[n];
          return std::string(cmd_name(c.cmd)) + " at " + std::to_string(c.cycle) + " channel " +
                 std::to_string(c.channel) + " rank " + std::to_string(c.rank) + " group " +
                 std::to_string(c.bankgroup) + " bank " + std::to_string(c.bank) + " row " + std::to_string(c.row) +
                 (c.automatic ? " (auto)" : "");
        };
        ADD_FAILURE() << k.name << " seed " << seed << ": command " << i << " is " << show(a.commands, i)
                      << ", the reference's " << show(b.commands, i);
        continue;
      }
      EXPECT_EQ(a.done, b.done) << k.name << " seed " << seed;
      EXPECT_EQ(fingerprint(a), fingerprint(b)) << k.name << " seed " << seed;
    }
  }
}

// The AXI port on top (what DramPort, so the SystemC model and the Verilator
// harness, call): read bursts and write bursts of 1 to 32 beats at random
// core cycles, on several core clocks and beat widths; every read beat's
// delivery cycle and every write's completion, fingerprinted as above.
uint64_t axi_fingerprint(const char* name, double mhz, uint32_t bus_bytes, unsigned seed) {
  const Spec s = resolve(preset(name));
  AxiPort p(s, {}, Freq::mhz(mhz), bus_bytes);
  std::mt19937_64 rng(seed);
  struct Issued {
    uint64_t id;
    uint32_t beats;
    bool write;
  };
  std::vector<Issued> issued;
  uint64_t c = 0, seq = 0;
  for (int i = 0; i < 4000; ++i) {
    const uint64_t mode = rng() % 8;
    c += mode < 4 ? 1 : mode < 7 ? rng() % 16 : rng() % 3000;
    const auto beats = static_cast<uint32_t>(1 + rng() % 32);
    const uint64_t bytes = uint64_t{beats} * bus_bytes;
    uint64_t addr = rng() % 2 ? seq : rng() % s.capacity_bytes() / bus_bytes * bus_bytes;
    seq += bytes;
    addr %= s.capacity_bytes() - bytes;
    const bool write = rng() % 4 == 0;
    issued.push_back(Issued{write ? p.write(c, addr, beats) : p.read(c, addr, beats), beats, write});
    if (rng() % 3 == 0) p.advance(c);
  }
  p.advance(c + 1000000);
  Fnv f;
  for (const Issued& q : issued) {
    if (q.write) {
      const auto done = p.write_done(q.id);
      EXPECT_TRUE(done.has_value());
      f.add(done.value_or(UINT64_MAX));
    } else {
      for (uint32_t k = 0; k < q.beats; ++k) {
        const auto beat = p.read_beat(q.id, k);
        EXPECT_TRUE(beat.has_value());
        f.add(beat.value_or(UINT64_MAX));
      }
    }
  }
  return f.h;
}

TEST(DramGolden, AxiPortBeatsMatchTheOriginalModel) {
  struct AxiCase {
    const char* preset;
    double mhz;
    uint32_t bus_bytes;
  };
  const std::vector<AxiCase> cs = {{"ddr3-1066", 100, 8},
                                   {"ddr3-1066", 333, 8},
                                   {"ddr4-2400", 300, 16},
                                   {"lpddr4-3200", 250, 64},
                                   {"hbm2-2000", 187.5, 4}};
  const std::vector<uint64_t> want = {0xc474b1d88288809dull, 0xa868d5a01123ea3eull, 0x60bd1ac0febeba1dull,
                                      0x6ec7b88c0a253170ull, 0x7d51374117bce6a1ull};
  std::string list;
  for (size_t i = 0; i < cs.size(); ++i) {
    const uint64_t h = axi_fingerprint(cs[i].preset, cs[i].mhz, cs[i].bus_bytes, 50 + static_cast<unsigned>(i));
    list += hex(h);
    if (i < want.size()) {
      EXPECT_EQ(h, want[i]) << cs[i].preset << " at " << cs[i].mhz << " MHz";
    }
  }
  EXPECT_EQ(want.size(), cs.size()) << "fingerprints: " << list;
}

}  // namespace
