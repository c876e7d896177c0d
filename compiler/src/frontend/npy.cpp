#include "vta/compiler/frontend/npy.h"

#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "vta/isa/error.h"
#include "vta/isa/read_file.h"
#include "vta/isa/write_file.h"

namespace vta::compiler {

namespace {

struct TypeInfo {
  NpyType type;
  const char* descr;
  size_t bytes;
};
constexpr TypeInfo kTypes[] = {{NpyType::Int8, "|i1", 1},
                               {NpyType::Uint8, "|u1", 1},
                               {NpyType::Int32, "<i4", 4},
                               {NpyType::Int64, "<i8", 8},
                               {NpyType::Float32, "<f4", 4}};

const TypeInfo& info(NpyType t) {
  for (const auto& i : kTypes)
    if (i.type == t) return i;
  fail("npy: unknown element type");
}

int64_t element(const char* p, NpyType t) {
  switch (t) {
    case NpyType::Int8:
      return static_cast<int8_t>(*p);
    case NpyType::Uint8:
      return static_cast<uint8_t>(*p);
    case NpyType::Int32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case NpyType::Int64: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
    case NpyType::Float32: {  // the float's bits (NpyArray::values)
      uint32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
  }
  return 0;
}

}  // namespace

uint64_t tensor_read_limit(const TensorExpect& e, bool pb, std::string& over_limit) {
  over_limit.clear();
  if (e.elements < 0 || e.elements > (int64_t{1} << 31)) return kDataReadLimit;
  const uint64_t most = (uint64_t{1} << 16) + static_cast<uint64_t>(e.elements) * (pb ? 11 : 8) + 12;
  if (most >= kDataReadLimit) return kDataReadLimit;
  over_limit = fmt::format("longer than tensor '{}' can be: its {} elements take at most {} bytes as {}", e.name,
                           e.elements, most, pb ? "a TensorProto" : ".npy");
  return most;
}

NpyArray read_npy(const std::string& path, const TensorExpect& expect) {
  std::string over_limit;
  const uint64_t limit = tensor_read_limit(expect, false, over_limit);
  const std::string b = read_file(path, {}, limit, over_limit);
  if (b.size() < 10 || b.compare(0, 6, "\x93NUMPY") != 0) fail("{}: not a .npy file (no \\x93NUMPY magic)", path);
  const int major = static_cast<unsigned char>(b[6]);
  if (major != 1 && major != 2) fail("{}: .npy format version {} is not supported (1 or 2)", path, major);
  const size_t pre = major == 1 ? 10 : 12;
  if (b.size() < pre) fail("{}: truncated .npy header", path);
  size_t hlen = static_cast<unsigned char>(b[8]) | (static_cast<size_t>(static_cast<unsigned char>(b[9])) << 8);
  if (major == 2)
    hlen |= (static_cast<size_t>(static_cast<unsigned char>(b[10])) << 16) |
            (static_cast<size_t>(static_cast<unsigned char>(b[11])) << 24);
  if (b.size() < pre + hlen) fail("{}: truncated .npy header", path);
  const std::string header = b.substr(pre, hlen);
  std::smatch descr, shape;
  if (!std::regex_search(header, descr, std::regex("'descr':\\s*'([^']*)'")) ||
      !std::regex_search(header, shape, std::regex("'shape':\\s*\\(([^)]*)\\)")))
    fail("{}: .npy header lacks descr or shape: {}", path, header);
  if (std::regex_search(header, std::regex("'fortran_order':\\s*True")))
    fail("{}: Fortran-ordered .npy arrays are not supported", path);
  NpyArray a;
  const TypeInfo* t = nullptr;
  for (const auto& i : kTypes)
    if (descr[1] == i.descr) t = &i;
  if (!t)
    fail("{}: .npy element type '{}' is not supported (int8, uint8, int32, int64, float32)", path, descr[1].str());
  a.type = t->type;
  std::stringstream dims(shape[1].str());
  int64_t count = 1;
  for (std::string d; std::getline(dims, d, ',');) {
    d.erase(0, d.find_first_not_of(" "));
    d.erase(d.find_last_not_of(" ") + 1);
    if (d.empty()) continue;
    size_t pos = 0;
    int64_t v = -1;
    try {
      v = std::stoll(d, &pos);
    } catch (...) {
    }
    if (v < 0 || pos != d.size() || v > (int64_t{1} << 31)) fail("{}: bad .npy dimension '{}'", path, d);
    a.dims.push_back(v);
    count *= v;
    if (count > (int64_t{1} << 31)) fail("{}: .npy array too large", path);
  }
  const size_t need = static_cast<size_t>(count) * t->bytes;
  if (b.size() - pre - hlen != need)
    fail("{}: .npy data holds {} bytes, the header's shape needs {}", path, b.size() - pre - hlen, need);
  a.values.resize(static_cast<size_t>(count));
  for (size_t i = 0; i < a.values.size(); ++i) a.values[i] = element(b.data() + pre + hlen + i * t->bytes, a.type);
  return a;
}

void write_npy(const std::string& path, const NpyArray& a) {
  const TypeInfo& t = info(a.type);
  std::string shape = "(";
  for (size_t i = 0; i < a.dims.size(); ++i) shape += fmt::format("{}{}", i ? ", " : "", a.dims[i]);
  shape += a.dims.size() == 1 ? ",)" : ")";
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", t.descr, shape);
  header += std::string(63 - (header.size() + 10) % 64, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  for (int64_t v : a.values) {
    char buf[8];
    const uint32_t v32 = static_cast<uint32_t>(v);  // int32, or a float32's bits
    if (t.bytes == 1)
      buf[0] = static_cast<char>(v);
    else if (t.bytes == 4)
      std::memcpy(buf, &v32, 4);
    else
      std::memcpy(buf, &v, 8);
    out.append(buf, t.bytes);
  }
  write_file(path, out);
}

std::vector<float> npy_floats(const NpyArray& a) {
  if (a.type != NpyType::Float32) fail("npy: the array is not float32");
  std::vector<float> out(a.values.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const uint32_t bits = static_cast<uint32_t>(a.values[i]);
    std::memcpy(&out[i], &bits, 4);
  }
  return out;
}

std::vector<int64_t> float_bits(const std::vector<float>& v) {
  std::vector<int64_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &v[i], 4);
    out[i] = bits;
  }
  return out;
}

NpyArray npy_of(const Tensor& t, const std::vector<int64_t>& dims) {
  NpyArray a;
  a.dims = dims;
  if (!t.wide.empty()) {
    a.type = NpyType::Int32;
    a.values.assign(t.wide.begin(), t.wide.end());
  } else {
    a.values.assign(t.data.begin(), t.data.end());
  }
  int64_t count = 1;
  for (auto d : dims) count *= d;
  if (count != static_cast<int64_t>(a.values.size()))
    fail("npy: dims hold {} elements, the tensor {}", count, a.values.size());
  return a;
}

}  // namespace vta::compiler
