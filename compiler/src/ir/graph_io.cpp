#include "vta/compiler/ir/graph_io.h"

#include <cstring>
#include <type_traits>

#include "vta/isa/error.h"

namespace vta::compiler {

// A field added to Node must be written and read below (and the zoo cache's
// format version bumped): this fails to compile until the sizes agree again.
static_assert(sizeof(Node) == 752, "Node changed: update graph_io.cpp and kZooCacheFormat in zoo_cache.cpp");

namespace {

template <class T>
void put(std::string& out, T v) {
  static_assert(std::is_trivially_copyable_v<T>);
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
template <class T>
void put_vec(std::string& out, const std::vector<T>& v) {
  put<uint64_t>(out, v.size());
  if (!v.empty()) out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}
void put_str(std::string& out, const std::string& s) {
  put<uint64_t>(out, s.size());
  out.append(s);
}
void put_shape(std::string& out, const Shape& s) { put(out, s.n), put(out, s.c), put(out, s.h), put(out, s.w); }

void put_frq(std::string& out, const FloatRequantVta& f) {
  put<uint8_t>(out, f.on), put<uint8_t>(out, f.row);
  put(out, f.t_hi), put(out, f.span), put(out, f.j0), put(out, f.m), put(out, f.c);
  put(out, f.s), put(out, f.zmin);
  put_vec(out, f.fixes);
  put_vec(out, f.segs), put_vec(out, f.seg_dc);
  put<uint8_t>(out, f.two_lines), put(out, f.c2), put_vec(out, f.segs2), put_vec(out, f.seg_dc2);
}

class Reader {
 public:
  Reader(const std::string& b, size_t& pos, const std::string& what) : b_(b), pos_(pos), what_(what) {}
  template <class T>
  T get() {
    T v;
    need(sizeof v);
    std::memcpy(&v, b_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  template <class T>
  std::vector<T> vec() {
    const auto n = get<uint64_t>();
    if (n > (b_.size() - pos_) / sizeof(T)) fail("{}: truncated or corrupt (a length of {} is past the end)", what_, n);
    std::vector<T> v(n);
    if (n != 0) std::memcpy(v.data(), b_.data() + pos_, n * sizeof(T));  // an empty vector's data() may be null
    pos_ += n * sizeof(T);
    return v;
  }
  std::string str() {
    const std::vector<char> v = vec<char>();
    return {v.begin(), v.end()};
  }
  Shape shape() {
    Shape s;
    s.n = get<int64_t>(), s.c = get<int64_t>(), s.h = get<int64_t>(), s.w = get<int64_t>();
    int64_t size = 1;
    for (int64_t d : {s.n, s.c, s.h, s.w})
      if (d < 0 || __builtin_mul_overflow(size, d, &size)) fail("{}: corrupt (a dimension of {})", what_, d);
    return s;
  }
  bool flag() {
    const auto v = get<uint8_t>();
    if (v > 1) fail("{}: corrupt (a flag of {})", what_, v);
    return v != 0;
  }
  [[noreturn]] void bad(const std::string& why) const { fail("{}: corrupt ({})", what_, why); }

 private:
  void need(size_t n) const {
    if (b_.size() - pos_ < n) fail("{}: truncated or corrupt (ends inside a record)", what_);
  }
  const std::string& b_;
  size_t& pos_;
  const std::string& what_;
};

void write_node(std::string& out, const Node& n) {
  put_str(out, n.name);
  put<int32_t>(out, static_cast<int32_t>(n.op));
  put_vec(out, n.inputs);
  put_shape(out, n.out);
  put<int32_t>(out, n.exp);
  put<int32_t>(out, static_cast<int32_t>(n.device));
  put<uint8_t>(out, n.pin_host);
  put(out, n.kernel), put(out, n.stride), put(out, n.pad), put(out, n.groups);
  put_vec(out, n.weight.get());
  put_vec(out, n.bias);
  put_vec(out, n.real_weight.get());
  put<int32_t>(out, n.real_w_exp);
  put_vec(out, n.real_bias);
  put<int32_t>(out, n.bits);
  put<int32_t>(out, n.shift);
  put<uint8_t>(out, n.relu);
  put<int32_t>(out, n.shift_a), put<int32_t>(out, n.shift_b);
  put(out, n.mult);
  put(out, n.pool), put(out, n.pool_stride), put(out, n.pool_pad);
  put(out, n.x_zp), put(out, n.w_zp), put(out, n.zp);
  put<uint8_t>(out, n.uint8);
  put<uint8_t>(out, n.int32_out);
  put<uint8_t>(out, n.real);
  put(out, n.scale);
  put<int32_t>(out, n.vta_rq.pre), put(out, n.vta_rq.m), put<int32_t>(out, n.vta_rq.s);
  put(out, n.weight_sets);
  put<uint8_t>(out, n.round_even);
  put(out, n.fmult);
  put_vec(out, n.fmults);
  put(out, n.ort.a), put(out, n.ort.b), put(out, n.ort.out);
  put_frq(out, n.frq);
  put<uint64_t>(out, n.frqs.size());
  for (const FloatRequantVta& f : n.frqs) put_frq(out, f);
  put_vec(out, n.lshift);
  put_vec(out, n.in_scales), put_vec(out, n.in_zps);
  put_str(out, n.lookup.onnx_op), put_vec(out, n.lookup.table);
  for (const Node::Banding* b : {&n.band, &n.band_src}) put(out, b->h), put(out, b->w), put(out, b->cols);
}

FloatRequantVta read_frq(Reader& r) {
  FloatRequantVta f;
  f.on = r.flag(), f.row = r.flag();
  f.t_hi = r.get<int32_t>(), f.span = r.get<int32_t>(), f.j0 = r.get<int32_t>();
  f.m = r.get<int64_t>(), f.c = r.get<int64_t>();
  f.s = r.get<int32_t>(), f.zmin = r.get<int32_t>();
  f.fixes = r.vec<int32_t>();
  f.segs = r.vec<int32_t>(), f.seg_dc = r.vec<int64_t>();
  f.two_lines = r.flag(), f.c2 = r.get<int64_t>(), f.segs2 = r.vec<int32_t>(), f.seg_dc2 = r.vec<int64_t>();
  return f;
}

Node read_node(Reader& r, int index) {
  Node n;
  n.name = r.str();
  const auto op = r.get<int32_t>();
  if (op < 0 || op > static_cast<int32_t>(Op::Upsample)) r.bad(fmt::format("node {} has op {}", index, op));
  n.op = static_cast<Op>(op);
  n.inputs = r.vec<int>();
  for (int in : n.inputs)
    if (in < 0 || in >= index) r.bad(fmt::format("node {} reads node {}", index, in));
  n.out = r.shape();
  n.exp = r.get<int32_t>();
  const auto dev = r.get<int32_t>();
  if (dev != 0 && dev != 1) r.bad(fmt::format("node {} has device {}", index, dev));
  n.device = static_cast<Device>(dev);
  n.pin_host = r.flag();
  n.kernel = r.get<int64_t>(), n.stride = r.get<int64_t>(), n.pad = r.get<int64_t>(), n.groups = r.get<int64_t>();
  n.weight = r.vec<int16_t>();
  n.bias = r.vec<int32_t>();
  n.real_weight = r.vec<int16_t>();
  n.real_w_exp = r.get<int32_t>();
  n.real_bias = r.vec<double>();
  n.bits = r.get<int32_t>();
  if (n.bits != 4 && n.bits != 8 && n.bits != 16) r.bad(fmt::format("node {} has {}-bit elements", index, n.bits));
  n.shift = r.get<int32_t>();
  n.relu = r.flag();
  n.shift_a = r.get<int32_t>(), n.shift_b = r.get<int32_t>();
  n.mult = r.get<int32_t>();
  n.pool = r.get<int64_t>(), n.pool_stride = r.get<int64_t>(), n.pool_pad = r.get<int64_t>();
  n.x_zp = r.get<int32_t>(), n.w_zp = r.get<int32_t>(), n.zp = r.get<int32_t>();
  n.uint8 = r.flag();
  n.int32_out = r.flag();
  n.real = r.flag();
  n.scale = r.get<double>();
  n.vta_rq.pre = r.get<int32_t>(), n.vta_rq.m = r.get<int32_t>(), n.vta_rq.s = r.get<int32_t>();
  n.weight_sets = r.get<int64_t>();
  n.round_even = r.flag();
  n.fmult = r.get<float>();
  n.fmults = r.vec<float>();
  n.ort.a = r.get<float>(), n.ort.b = r.get<float>(), n.ort.out = r.get<float>();
  n.frq = read_frq(r);
  const auto channels = r.get<uint64_t>();
  if (channels > static_cast<uint64_t>(n.out.c)) r.bad("more per-channel requantizations than output channels");
  for (uint64_t c = 0; c < channels; ++c) n.frqs.push_back(read_frq(r));
  n.lshift = r.vec<int8_t>();
  n.in_scales = r.vec<float>();
  n.in_zps = r.vec<int32_t>();
  n.lookup.onnx_op = r.str();
  n.lookup.table = r.vec<int8_t>();
  if (!n.lookup.table.empty() && n.lookup.table.size() != 256)
    r.bad(fmt::format("node {} has a table of {} codes", index, n.lookup.table.size()));
  for (Node::Banding* b : {&n.band, &n.band_src})
    b->h = r.get<int64_t>(), b->w = r.get<int64_t>(), b->cols = r.get<int64_t>();
  return n;
}

}  // namespace

void write_graph(std::string& out, const Graph& g) {
  put_str(out, g.name);
  put<int32_t>(out, g.output);
  put<int32_t>(out, g.wgt_bits);
  put<uint64_t>(out, g.nodes.size());
  for (const Node& n : g.nodes) write_node(out, n);
}

void write_tensor(std::string& out, const Tensor& t) {
  put_shape(out, t.shape);
  put_vec(out, t.data);
  put_vec(out, t.wide);
}

Graph read_graph(const std::string& bytes, size_t& pos, const std::string& what) {
  Reader r(bytes, pos, what);
  Graph g;
  g.name = r.str();
  g.output = r.get<int32_t>();
  g.wgt_bits = r.get<int32_t>();
  const auto count = r.get<uint64_t>();
  if (count > bytes.size()) r.bad(fmt::format("{} nodes", count));
  g.nodes.reserve(count);
  for (uint64_t i = 0; i < count; ++i) g.nodes.push_back(read_node(r, static_cast<int>(i)));
  if (g.output < 0 || static_cast<uint64_t>(g.output) >= count) r.bad(fmt::format("output node {}", g.output));
  return g;
}

Tensor read_tensor(const std::string& bytes, size_t& pos, const std::string& what) {
  Reader r(bytes, pos, what);
  Tensor t;
  t.shape = r.shape();
  t.data = r.vec<int16_t>();
  t.wide = r.vec<int32_t>();
  if (t.data.size() + t.wide.size() != static_cast<uint64_t>(t.shape.size()))
    r.bad("a tensor's size does not match its shape");
  return t;
}

}  // namespace vta::compiler
