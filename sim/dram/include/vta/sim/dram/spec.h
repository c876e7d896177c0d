#pragma once
// A DRAM device as the timing model sees it: organisation and JEDEC timings
// in controller clock cycles (tCK), resolved from a preset (presets/*.def,
// each value with its source) and the user's options.
//
// Units: the controller runs at the DRAM command clock, f = data rate / 2
// (DDR). Every timing is a whole number of those cycles; a preset states a
// timing as max(n nCK, t ns) the way JEDEC tables do, and resolve() rounds
// t up to cycles at the preset's data rate. Nothing here knows the core
// clock: crossing into it is clock.h's job.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vta/isa/config.h"
#include "vta/sim/dram/clock.h"

namespace vta::sim::dram {

/// The timing constraints the scheduler enforces, in tCK. `burst` (tBURST)
/// is derived: burst_length / 2 on a DDR data bus.
struct Timings {
  uint32_t cl = 0;     ///< RD to first data (read latency, CL/RL)
  uint32_t cwl = 0;    ///< WR to first data (write latency, CWL/WL)
  uint32_t rcd = 0;    ///< ACT to RD/WR, same bank
  uint32_t rp = 0;     ///< PRE to ACT, same bank
  uint32_t ras = 0;    ///< ACT to PRE, same bank
  uint32_t rc = 0;     ///< ACT to ACT, same bank
  uint32_t rrd_s = 0;  ///< ACT to ACT, same rank, other bank group
  uint32_t rrd_l = 0;  ///< ACT to ACT, same rank, same bank group
  uint32_t faw = 0;    ///< window holding at most four ACTs, per rank
  uint32_t ccd_s = 0;  ///< column to column, same rank, other bank group
  uint32_t ccd_l = 0;  ///< column to column, same rank, same bank group
  uint32_t wr = 0;     ///< end of write data to PRE (write recovery)
  uint32_t wtr_s = 0;  ///< end of write data to RD, other bank group
  uint32_t wtr_l = 0;  ///< end of write data to RD, same bank group
  uint32_t rtp = 0;    ///< RD to PRE
  uint32_t rtrs = 0;   ///< data-bus turnaround between ranks (controller, not JEDEC)
  uint32_t refi = 0;   ///< average interval between REF commands, per rank
  uint32_t rfc = 0;    ///< REF to the next ACT (all-bank refresh)
  uint32_t burst = 0;  ///< data-bus cycles of one burst (BL / 2)
};

/// A resolved device: what the controller needs, nothing else.
struct Spec {
  std::string name;           ///< preset name, e.g. "ddr4-2400"
  Freq data_rate;             ///< transfers per second per pin (MT/s x 10^6), exact
  uint32_t channels = 1;      ///< independent channels (own command and data bus)
  uint32_t bus_bits = 64;     ///< data bus width of one channel
  uint32_t burst_length = 8;  ///< BL: transfers per column command
  uint32_t ranks = 1;
  uint32_t bankgroups = 1;
  uint32_t banks_per_group = 8;
  uint32_t rows = 1;     ///< rows per bank
  uint32_t columns = 1;  ///< bus-width columns per row (row bytes = columns x bus_bits / 8)
  Timings t;

  /// The command clock: data rate / 2.
  Freq clock() const { return Freq{data_rate.num, data_rate.den * 2}; }
  /// Bytes moved by one column command.
  uint32_t burst_bytes() const { return bus_bits / 8 * burst_length; }
  /// data rate x bus width x channels, in GB/s (10^9 bytes per second).
  double peak_gbps() const;
  uint32_t banks() const { return bankgroups * banks_per_group; }
  /// Bytes the device holds; addresses wrap at this size (mapping.h).
  uint64_t capacity_bytes() const { return uint64_t{rows} * columns * (bus_bits / 8) * banks() * ranks * channels; }
};

enum class PagePolicy : uint8_t {
  open,    ///< a row stays open until a request for another row of its bank needs the bank
  closed,  ///< after a column access the row is auto-precharged unless a queued request hits it
};

/// The memory.* knobs' defaults, as config_knobs.def declares them (the one
/// place they live).
inline const Config::memory_t& knob_defaults() {
  static const Config::memory_t m;
  return m;
}

/// What the user chooses beside the preset: the memory.* knobs of
/// config_knobs.def (memory.page_policy, memory.channels, memory.dram_*);
/// config.h's setup_of() fills it from a Config.
struct Options {
  PagePolicy page_policy = knob_defaults().page_policy == "closed" ? PagePolicy::closed : PagePolicy::open;
  uint32_t channels = static_cast<uint32_t>(knob_defaults().channels);  ///< 0: the preset's
  std::string mapping = knob_defaults().dram_mapping;  ///< address mapping, MSB to LSB (mapping.h); "": kDefaultMapping
  /// Bursts per channel the scheduler chooses among (an assumption, not a named controller's).
  uint32_t queue_depth = static_cast<uint32_t>(knob_defaults().dram_queue_depth);
  bool refresh = knob_defaults().dram_refresh;  ///< false drops REF (an idealisation, for tests and bounds)
  /// Core-clock side (CorePort): synchroniser cycles of the destination
  /// clock in each direction of the clock-domain crossing (clock.h).
  uint32_t cdc_sync = static_cast<uint32_t>(knob_defaults().dram_cdc_sync);
  /// Core-clock side (CorePort): a fixed controller and PHY pipeline latency
  /// on the request path, in ns. 0 (the default) models none: set it from
  /// your controller's documentation (it is not a JEDEC figure).
  double frontend_ns = knob_defaults().dram_frontend_ns;
  /// Tests only, not a knob: schedule with the first implementation
  /// (sim/dram/src/channel_reference.h), which looks at every queued burst at
  /// every decision, to check that the default one issues the same commands.
  bool reference = false;
};

/// One value of a preset as written in its .def file: max(ck nCK, ns ns)
/// for a timing, `ck` alone for an organisation count.
struct PresetValue {
  const char* key;
  double ns;
  uint32_t ck;
  const char* source;
};

/// A preset as data: its values with their sources (presets/*.def).
struct Preset {
  const char* name;
  const char* doc;
  uint64_t rate_num, rate_den;  ///< data rate in MT/s, as num / den
  const char* rate_source;
  std::vector<PresetValue> values;
};

/// Every preset, in a fixed order.
const std::vector<Preset>& presets();
/// The preset of that name; an Error naming `key` and listing the choices
/// when there is none.
const Preset& preset(std::string_view name, std::string_view key = "memory.dram");
/// The device of a preset under options; an Error naming the preset and the
/// value when the result is not a device the model can run (a missing or
/// zero timing, a count that is not a power of two, ...).
Spec resolve(const Preset& p, const Options& o = {});
/// max(ck, ceil(ns at the data rate)): JEDEC's "max(n nCK, t ns)".
uint32_t to_cycles(double ns, uint32_t ck, Freq data_rate);

}  // namespace vta::sim::dram
