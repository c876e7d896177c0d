#include "vta/compiler/run/runtime.h"

#include <chrono>
#include <cstring>

#include "vta/compiler/ops/reference.h"
#include "vta/compiler/schedule/blocked_layout.h"
#include "vta/isa/error.h"

namespace vta::compiler {

NetworkResult run_network(const CompiledNetwork& net, Backend& backend, const Tensor& input) {
  const auto t0 = std::chrono::steady_clock::now();
  const Config& c = backend.config();
  if (c.hash() != net.config_hash)
    fail("the network was compiled for another config (hash {}), the backend runs {} (hash {})", net.config_hash,
         c.name, c.hash());
  Dram& dram = backend.dram();
  if (!dram.allocations().empty()) fail("run_network needs a backend with no DRAM allocated");
  for (const auto& b : net.buffers) {
    const uint64_t at =
        dram.alloc(b.bytes, Dram::align_for(static_cast<uint64_t>(c.elem_bytes(static_cast<int>(b.mem)))));
    if (at != b.addr) fail("DRAM planning mismatch for {}: planned 0x{:x}, allocated 0x{:x}", b.name, b.addr, at);
    if (!b.init.empty()) dram.write(at, b.init);
  }
  const Graph& g = net.graph;
  auto buffer_of = [&](int node) -> const Buffer& { return net.buffers[static_cast<size_t>(net.activation.at(node))]; };
  // int32 and float32 tensors (host only) sit in DRAM as plain NCHW words, int8 ones blocked.
  auto read = [&](int node) {
    std::vector<uint8_t> bytes = dram.read(buffer_of(node).addr, buffer_of(node).bytes);
    if (g.at(node).real) {
      Tensor t{g.at(node).out, {}, {}, std::vector<float>(bytes.size() / 4)};
      std::memcpy(t.real.data(), bytes.data(), t.real.size() * 4);
      return t;
    }
    if (!g.at(node).int32_out) return unpack(bytes, g.at(node).out, c);
    Tensor t{g.at(node).out, {}, std::vector<int32_t>(bytes.size() / 4)};
    std::memcpy(t.wide.data(), bytes.data(), t.wide.size() * 4);
    return t;
  };
  auto write = [&](int node, const Tensor& t) {
    if (g.at(node).real) {
      if (t.real.size() != static_cast<size_t>(g.at(node).out.size()))
        fail("network {}: '{}' needs {} float32 values", g.name, g.at(node).name, g.at(node).out.size());
      const auto* p = reinterpret_cast<const uint8_t*>(t.real.data());
      return dram.write(buffer_of(node).addr, std::vector<uint8_t>(p, p + t.real.size() * 4));
    }
    if (!g.at(node).int32_out) return dram.write(buffer_of(node).addr, pack(t, c));
    const auto* p = reinterpret_cast<const uint8_t*>(t.wide.data());
    dram.write(buffer_of(node).addr, std::vector<uint8_t>(p, p + t.wide.size() * 4));
  };

  NetworkResult res;
  std::vector<LayerResult> by_node(g.nodes.size());
  size_t next_segment = 0;
  bool queued = false;  // a device run was queued since the host last waited for the device
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    by_node[i].node = static_cast<int>(i);
    if (n.op == Op::DeviceCopy) {
      // The value is already in the DRAM both sides see; what a real host would do is modelled (host_cost.h).
      by_node[i].copy_in_bytes = buffer_of(static_cast<int>(i)).bytes;
      // Batch queue: the host waits for the device only when it needs a device result.
      if (copy_target(g, n) == Device::Host && queued) ++res.syncs, queued = false;
      continue;
    }
    if (n.op == Op::Input) {
      if (!(input.shape == n.out))
        fail("network {}: the input must be {}x{}x{}x{}", g.name, n.out.n, n.out.c, n.out.h, n.out.w);
      write(static_cast<int>(i), input);
      continue;
    }
    if (n.device == Device::Host) {
      const auto h0 = std::chrono::steady_clock::now();
      std::vector<Tensor> ins;
      for (int k : n.inputs) ins.push_back(read(k));
      std::vector<const Tensor*> ptrs;
      for (const auto& t : ins) ptrs.push_back(&t);
      write(static_cast<int>(i), run_node(n, ptrs));
      by_node[i].host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - h0).count();
      continue;
    }
    // A VTA node: run its whole segment when reaching its first node.
    if (next_segment >= net.segments.size() || net.segments[next_segment].nodes.front() != static_cast<int>(i))
      continue;
    const Segment& seg = net.segments[next_segment++];
    const Buffer& ib = net.buffers[static_cast<size_t>(seg.insn_buffer)];
    backend.run(Launch{ib.addr, seg.insn_count, seg.regions});
    ++res.segments_run;
    queued = true;
    const RunStats st = backend.stats();
    for (size_t r = 0; r < seg.nodes.size(); ++r)
      by_node[static_cast<size_t>(seg.nodes[r])].stats = st.regions.at(r).second;
  }
  if (queued) ++res.syncs;  // the end of the inference waits for the last run
  res.output = read(g.output);
  for (size_t i = 1; i < by_node.size(); ++i) res.layers.push_back(std::move(by_node[i]));
  res.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace vta::compiler
