#pragma once
// Structure-aware mutation of ONNX models for libFuzzer:
// libprotobuf-mutator is not packaged by Debian 12, so this is a small one.
// A model that parses as an onnx::ModelProto gets one change made through
// protobuf reflection, and is serialized again: a numeric field anywhere in
// the model (an attribute value, a dimension, a data type, a scalar in a
// repeated field) set to an interesting value, a node or initializer dropped
// or duplicated, or a node input renamed to another value of the graph. One
// mutation in eight, and any input that does not parse, falls back to
// libFuzzer's byte mutation, so the parser stays fuzzed too.
#include <google/protobuf/message.h>
#include <google/protobuf/reflection.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace vta::fuzz {

namespace pb = google::protobuf;

/// Every message in `m`'s tree, `m` first.
inline void collect_messages(pb::Message* m, std::vector<pb::Message*>& out) {
  out.push_back(m);
  const pb::Reflection* r = m->GetReflection();
  std::vector<const pb::FieldDescriptor*> fields;
  r->ListFields(*m, &fields);
  for (const auto* f : fields) {
    if (f->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (f->is_repeated()) {
      for (int i = 0; i < r->FieldSize(*m, f); ++i) collect_messages(r->MutableRepeatedMessage(m, f, i), out);
    } else {
      collect_messages(r->MutableMessage(m, f), out);
    }
  }
}

/// Sets one numeric (or enum) field of `m`, singular or one element of a
/// repeated one, to an interesting value; false when `m` has none set.
inline bool mutate_number(pb::Message* m, std::mt19937_64& rng) {
  const pb::Reflection* r = m->GetReflection();
  std::vector<const pb::FieldDescriptor*> fields, numeric;
  r->ListFields(*m, &fields);
  for (const auto* f : fields)
    if (f->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE && f->cpp_type() != pb::FieldDescriptor::CPPTYPE_STRING)
      numeric.push_back(f);
  if (numeric.empty()) return false;
  const auto* f = numeric[rng() % numeric.size()];
  const int idx = f->is_repeated() ? static_cast<int>(rng() % static_cast<uint64_t>(r->FieldSize(*m, f))) : -1;
  static const int64_t kInts[] = {0,
                                  1,
                                  -1,
                                  2,
                                  3,
                                  7,
                                  255,
                                  256,
                                  65536,
                                  int64_t{1} << 31,
                                  (int64_t{1} << 31) - 1,
                                  -(int64_t{1} << 31),
                                  int64_t{1} << 40,
                                  std::numeric_limits<int64_t>::max(),
                                  std::numeric_limits<int64_t>::min()};
  const int64_t pick = kInts[rng() % std::size(kInts)];
  static const double kReals[] = {0.0,
                                  -0.0,
                                  1.0,
                                  -1.0,
                                  0.5,
                                  1e-30,
                                  1e30,
                                  std::numeric_limits<double>::infinity(),
                                  -std::numeric_limits<double>::infinity(),
                                  std::numeric_limits<double>::quiet_NaN()};
  const double real = kReals[rng() % std::size(kReals)];
  switch (f->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_INT32:
      idx >= 0 ? r->SetRepeatedInt32(m, f, idx, static_cast<int32_t>(pick))
               : r->SetInt32(m, f, static_cast<int32_t>(pick));
      break;
    case pb::FieldDescriptor::CPPTYPE_INT64:
      idx >= 0 ? r->SetRepeatedInt64(m, f, idx, pick) : r->SetInt64(m, f, pick);
      break;
    case pb::FieldDescriptor::CPPTYPE_UINT32:
      idx >= 0 ? r->SetRepeatedUInt32(m, f, idx, static_cast<uint32_t>(pick))
               : r->SetUInt32(m, f, static_cast<uint32_t>(pick));
      break;
    case pb::FieldDescriptor::CPPTYPE_UINT64:
      idx >= 0 ? r->SetRepeatedUInt64(m, f, idx, static_cast<uint64_t>(pick))
               : r->SetUInt64(m, f, static_cast<uint64_t>(pick));
      break;
    case pb::FieldDescriptor::CPPTYPE_FLOAT:
      idx >= 0 ? r->SetRepeatedFloat(m, f, idx, static_cast<float>(real)) : r->SetFloat(m, f, static_cast<float>(real));
      break;
    case pb::FieldDescriptor::CPPTYPE_DOUBLE:
      idx >= 0 ? r->SetRepeatedDouble(m, f, idx, real) : r->SetDouble(m, f, real);
      break;
    case pb::FieldDescriptor::CPPTYPE_BOOL:
      idx >= 0 ? r->SetRepeatedBool(m, f, idx, rng() & 1) : r->SetBool(m, f, rng() & 1);
      break;
    case pb::FieldDescriptor::CPPTYPE_ENUM:  // open enums (proto2 files keep unknown values)
      idx >= 0 ? r->SetRepeatedEnumValue(m, f, idx, static_cast<int>(pick % 32))
               : r->SetEnumValue(m, f, static_cast<int>(pick % 32));
      break;
    default:
      return false;
  }
  return true;
}

/// One structural change to `model`; false when none applied.
inline bool mutate_model(onnx::ModelProto& model, std::mt19937_64& rng) {
  onnx::GraphProto* g = model.mutable_graph();
  switch (rng() % 6) {
    case 0:
    case 1: {  // a number anywhere
      std::vector<pb::Message*> all;
      collect_messages(&model, all);
      for (int tries = 0; tries < 8; ++tries)
        if (mutate_number(all[rng() % all.size()], rng)) return true;
      return false;
    }
    case 2: {  // an attribute value of a node
      if (g->node_size() == 0) return false;
      onnx::NodeProto* n = g->mutable_node(static_cast<int>(rng() % static_cast<uint64_t>(g->node_size())));
      if (n->attribute_size() == 0) return false;
      return mutate_number(n->mutable_attribute(static_cast<int>(rng() % static_cast<uint64_t>(n->attribute_size()))),
                           rng);
    }
    case 3: {  // drop or duplicate a node
      if (g->node_size() == 0) return false;
      const int k = static_cast<int>(rng() % static_cast<uint64_t>(g->node_size()));
      if (rng() & 1) {
        g->mutable_node()->DeleteSubrange(k, 1);
      } else {
        *g->add_node() = g->node(k);
        for (int i = g->node_size() - 1; i > k + 1; --i) g->mutable_node()->SwapElements(i, i - 1);
      }
      return true;
    }
    case 4: {  // drop or duplicate an initializer
      if (g->initializer_size() == 0) return false;
      const int k = static_cast<int>(rng() % static_cast<uint64_t>(g->initializer_size()));
      if (rng() & 1)
        g->mutable_initializer()->DeleteSubrange(k, 1);
      else
        *g->add_initializer() = g->initializer(k);
      return true;
    }
    default: {  // a node input renamed to another value of the graph
      if (g->node_size() == 0) return false;
      std::vector<std::string> names;
      for (const auto& i : g->input()) names.push_back(i.name());
      for (const auto& i : g->initializer()) names.push_back(i.name());
      for (const auto& n : g->node())
        for (const auto& o : n.output()) names.push_back(o);
      onnx::NodeProto* n = g->mutable_node(static_cast<int>(rng() % static_cast<uint64_t>(g->node_size())));
      if (n->input_size() == 0 || names.empty()) return false;
      *n->mutable_input(static_cast<int>(rng() % static_cast<uint64_t>(n->input_size()))) = names[rng() % names.size()];
      return true;
    }
  }
}

inline size_t mutate_onnx(uint8_t* data, size_t size, size_t max_size, unsigned seed) {
  std::mt19937_64 rng(seed);
  onnx::ModelProto model;
  if (rng() % 8 == 0 || !model.ParseFromArray(data, static_cast<int>(size)))
    return LLVMFuzzerMutate(data, size, max_size);
  bool changed = false;
  for (int tries = 0; tries < 4 && !changed; ++tries) changed = mutate_model(model, rng);
  if (!changed) return LLVMFuzzerMutate(data, size, max_size);
  std::string out;
  if (!model.SerializeToString(&out) || out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

}  // namespace vta::fuzz
