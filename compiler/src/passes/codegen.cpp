// The "codegen" pass: instructions, uops and dependency tokens for conv/dense
// (with a fused residual Add or max pool), add and pool layers. This file
// plans each layer's buffers and encodes each segment's stream; the layers'
// instruction sequences are codegen/emit_conv.cpp, emit_add.cpp and
// emit_pool.cpp, over the stream of codegen/emitter.h.
//
// Token protocol (two virtual threads, see tile_search.cpp): step q of a layer
// uses the INP/WGT halves q % 2, output tile t the ACC/OUT half t % 2.
//   load    step q: pops compute->load when q >= 2 (compute is done with the
//           half), loads, pushes load->compute.
//   compute step q: pops load->compute, GEMMs, pushes compute->load. The
//           first step of tile t >= 2 pops store->compute (the store of tile
//           t-2 has drained the ACC half); the last step requantizes and
//           pushes compute->store. A bias by GEMM (bias_gemm.h) is the first
//           step's first GEMM, after the reset, and pops its load->compute.
//           A fused Add's operand by GEMM is one more step per tile (its
//           loads follow the last conv step's GEMM, its GEMM the conv's
//           requantization).
//   store   tile t: pops compute->store, stores, pushes store->compute.
// At a layer's end compute pops the outstanding store tokens (every output is
// in DRAM) and, when another layer follows, pushes compute->load; the next
// layer's load stream starts by popping every outstanding compute->load
// token. Every pop thus waits on an instruction emitted earlier, so no
// program can deadlock behind the in-order fetch, whatever the queue depths.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "codegen/constants.h"
#include "codegen/emit_add.h"
#include "codegen/emit_conv.h"
#include "codegen/emit_pool.h"
#include "codegen/emitter.h"
#include "schedule/planner.h"
#include "vta/compiler/ops/requant.h"
#include "vta/compiler/passes/pipeline.h"
#include "vta/compiler/schedule/bias_gemm.h"
#include "vta/compiler/schedule/blocked_layout.h"
#include "vta/compiler/schedule/conv_geom.h"
#include "vta/compiler/schedule/fusion.h"
#include "vta/isa/error.h"
#include "vta/model/builders.h"

namespace vta::compiler {

using isa::MemId;
using namespace codegen;

CompiledNetwork codegen_pass(CompiledNetwork net, const Config& c, const CompileOptions&) {
  const Graph& g = net.graph;
  isa::Layout layout(c);
  Planner plan(net, c);
  int bias_lanes = -1;            // the buffer of bias_input(), once a layer needs it
  std::map<int, int> identities;  // operand shift -> the buffer of its scaled_identity()
  auto identity = [&](int s) {    // one scaled identity per shift for the network
    if (!identities.count(s))
      identities[s] = plan.add(Buffer{fmt::format("identity_x{}", 1 << s), MemId::WGT,
                                      static_cast<uint64_t>(c.derived.wgt_elem_bytes), 0, scaled_identity(s, c), -1});
    return identities[s];
  };
  for (auto& seg : net.segments) {
    Emitter e;
    for (size_t k = 0; k < seg.nodes.size(); ++k) {
      const int id = seg.nodes[k];
      const Node& n = g.at(id);
      const Shape in = g.at(n.inputs[0]).out;
      if (fused_into(g, id, c) >= 0 || pool_fused_into(g, id, c) >= 0) {  // computed and stored by its conv's epilogue
        const auto at = static_cast<uint32_t>(e.insns.size());
        seg.regions.push_back(Region{n.name, at, at});
        net.layers[id] = LayerInfo{id, {}, 0, 0, {}, {}};
        continue;
      }
      // The load module's pops of the previous layer's compute->load tokens
      // wait through that layer's tail: they belong to no layer, so that
      // regions do not overlap and their cycles add up to the run's.
      e.begin_layer();
      const auto begin = static_cast<uint32_t>(e.insns.size());
      LayerAddrs a;
      const bool by_gemm = (n.op == Op::MaxPool || n.op == Op::AvgPool) && pool_by_gemm(n, c);
      const bool alu_only = n.op != Op::Conv2d && n.op != Op::Dense && !by_gemm;  // ACC_8BIT loads
      a.in = plan.elem(net.activation[n.inputs[0]], c, alu_only ? MemId::ACC_8BIT : MemId::INP);
      a.out = plan.elem(net.activation[id], c, MemId::OUT);
      std::vector<uint32_t> uops;
      LayerInfo info;
      info.node = id;
      if (n.op == Op::MaxPool || n.op == Op::AvgPool) {
        const int64_t nuops = pool_layer_uops(n, c);
        const int ub = plan.add(Buffer{n.name + ".uop", MemId::UOP, static_cast<uint64_t>(nuops * 4), 0, {}, -1});
        a.uop = plan.elem(ub, c);
        if (by_gemm) a.identity = plan.elem(identity(0), c);
        emit_pool(e, n, in, a, c, uops, layout);
        net.buffers[static_cast<size_t>(ub)].init.assign(reinterpret_cast<uint8_t*>(uops.data()),
                                                         reinterpret_cast<uint8_t*>(uops.data()) + uops.size() * 4);
      } else if (n.op == Op::Add) {
        a.in2 = plan.elem(net.activation[n.inputs[1]], c, MemId::ACC_8BIT);
        // The uop buffer is planned after codegen decides the uops: reserve its index first.
        const int ub = plan.add(Buffer{n.name + ".uop", MemId::UOP, 16, 0, {}, -1});
        a.uop = plan.elem(ub, c);
        emit_add(e, n, blocked(n.out, c).elems() * out_per_pos(c), a, c, uops, layout);
        net.buffers[static_cast<size_t>(ub)].init.assign(reinterpret_cast<uint8_t*>(uops.data()),
                                                         reinterpret_cast<uint8_t*>(uops.data()) + uops.size() * 4);
      } else {
        const int fused_id = fused_epilogue(g, id, c);
        const Node* fused = fused_id >= 0 ? &g.at(fused_id) : nullptr;
        const Node* add = fused && fused->op == Op::Add ? fused : nullptr;
        const int add_id = add ? fused_id : -1;
        const ConvGeom geo = conv_geom(n, in, c, fused);
        if (fused && !add) a.out = plan.elem(net.activation[fused_id], c, MemId::OUT);  // the pooled map
        if (add) {
          const int other = add->inputs[0] == id ? add->inputs[1] : add->inputs[0];
          a.in2 = plan.elem(net.activation[other], c, MemId::ACC_8BIT);
          a.out = plan.elem(net.activation[add_id], c, MemId::OUT);
        }
        a.self = id;
        info = net.layers.at(id);  // the tiling pass's choice (tile, key, the model's pick)
        std::vector<uint8_t> w = pack_weights(n, in, geo, c);
        // The first requantization step's immediate is folded in (packed_bias(), bias_fold()): as ACC
        // rows, or as WGT rows over a constant INP element (bias_by_gemm()).
        std::vector<uint8_t> bias = geo.bias_gemm
                                        ? pack_bias_weights(n, geo.cob * geo.ro, c)
                                        : pack_channels(n, geo, c, [&](int64_t o) { return packed_bias(n, o); });
        if (geo.bias_gemm && bias_lanes < 0)  // one constant INP element for the network
          bias_lanes = plan.add(
              Buffer{"bias_lanes", MemId::INP, static_cast<uint64_t>(c.derived.inp_elem_bytes), 0, bias_input(c), -1});
        if (geo.bias_gemm) a.bias_inp = plan.elem(bias_lanes, c);
        if (add && geo.skip_gemm) {
          const int s = operand_shift(*add, id);
          if (s != fused_operand_shift(*add))
            fail("layer {}: its fused Add {} is not its later input", n.name, add->name);
          a.identity = plan.elem(identity(s), c);
        }
        if (geo.rows > 0) {  // one after another in one buffer
          std::vector<uint8_t> rows;
          for (const std::vector<int32_t>& row : requant_rows(n)) {
            const std::vector<uint8_t> r =
                pack_channels(n, geo, c, [&](int64_t o) { return row[static_cast<size_t>(o)]; });
            rows.insert(rows.end(), r.begin(), r.end());
          }
          a.row_pitch = geo.cob * geo.ro;
          const int rb = plan.add(Buffer{n.name + ".rows", MemId::ACC, rows.size(), 0, std::move(rows), -1});
          a.row = plan.elem(rb, c);
        }
        const int wb = plan.add(Buffer{n.name + ".weight", MemId::WGT, w.size(), 0, std::move(w), -1});
        const int bb = plan.add(
            Buffer{n.name + ".bias", geo.bias_gemm ? MemId::WGT : MemId::ACC, bias.size(), 0, std::move(bias), -1});
        const Tile& t = info.tile;
        if (!tile_fits(geo, t, c, add != nullptr))
          fail("layer {}: its tile {}x{} oc{} ic{} does not fit config {}{}", n.name, t.th, t.tw, t.toc, t.tic, c.name,
               geo.pk
                   ? fmt::format(" with the max pool {} fused (whole rows, a multiple of {} high)", fused->name, geo.ps)
                   : "");
        const uint64_t nuops = static_cast<uint64_t>(conv_uops(t, geo, add != nullptr));
        const int ub = plan.add(Buffer{n.name + ".uop", MemId::UOP, nuops * 4, 0, {}, -1});
        a.wgt = plan.elem(wb, c);
        a.bias = plan.elem(bb, c);
        a.uop = plan.elem(ub, c);
        emit_conv(e, n, geo, t, a, c, uops, layout, fused);
        net.buffers[static_cast<size_t>(ub)].init.assign(reinterpret_cast<uint8_t*>(uops.data()),
                                                         reinterpret_cast<uint8_t*>(uops.data()) + uops.size() * 4);
      }
      e.end_layer(k + 1 < seg.nodes.size());
      info.uops = uops.size();
      info.insns = e.insns.size() - begin;
      seg.regions.push_back(Region{n.name, begin, static_cast<uint32_t>(e.insns.size())});
      net.layers[id] = info;
    }
    e.begin_layer();  // balance the compute->load tokens of the last layer
    e.emit(build::finish());
    // The tail belongs to the last layer that emitted code (a fused Add's region stays empty).
    const auto end = static_cast<uint32_t>(e.insns.size());
    auto last = seg.regions.rbegin();
    for (; last != seg.regions.rend() && last->begin == last->end; ++last) last->begin = last->end = end;
    if (last != seg.regions.rend()) last->end = end;
    std::vector<uint8_t> bytes(e.insns.size() * isa::kInsnBytes);
    for (size_t i = 0; i < e.insns.size(); ++i) {
      const isa::Raw128 r = layout.encode(e.insns[i]);
      std::memcpy(bytes.data() + i * isa::kInsnBytes, r.w, isa::kInsnBytes);
    }
    seg.insn_count = static_cast<uint32_t>(e.insns.size());
    Buffer ib{
        fmt::format("segment{}.insns", &seg - net.segments.data()), MemId::UOP, bytes.size(), 0, std::move(bytes), -1};
    seg.insn_buffer = plan.add(std::move(ib));
  }
  return net;
}

std::string codegen_dump(const CompiledNetwork& net) {
  std::string s;
  for (size_t k = 0; k < net.segments.size(); ++k) {
    const Segment& seg = net.segments[k];
    const Buffer& ib = net.buffers.at(static_cast<size_t>(seg.insn_buffer));
    s += fmt::format("segment {}: {} instructions at 0x{:x}\n", k, seg.insn_count, ib.addr);
    for (const Region& r : seg.regions) {
      const auto it = std::find_if(net.layers.begin(), net.layers.end(),
                                   [&](const auto& l) { return net.graph.at(l.first).name == r.name; });
      s += fmt::format("  {}: instructions [{}, {}), {} uops\n", r.name, r.begin, r.end,
                       it == net.layers.end() ? 0 : it->second.uops);
    }
  }
  for (const Buffer& b : net.buffers)
    if (b.node < 0 && !b.init.empty()) s += fmt::format("{} {} bytes at 0x{:x}\n", b.name, b.bytes, b.addr);
  return s;
}

}  // namespace vta::compiler
