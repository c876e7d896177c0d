#include "vta/isa/yaml_documents.h"

#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <sstream>
#include <vector>

namespace vta {

namespace {

// Records where each document starts, and nothing else.
class DocumentStarts : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;
  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

}  // namespace

YamlDocuments load_yaml_documents(const std::string& text) {
  // First pass: up to three document starts. The broken case repeats one
  // start without consuming input, so it shows by the third at the latest.
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts h;
  while (h.starts.size() < 3 && parser.HandleNextDocument(h)) {
    const size_t n = h.starts.size();
    if (n >= 2 && h.starts[n - 1].pos <= h.starts[n - 2].pos)
      throw YAML::ParserException(h.starts[n - 2], "unexpected character (no node can start here)");
  }
  YamlDocuments d;
  d.count = std::min<size_t>(h.starts.size(), 2);
  if (d.count == 0) return d;
  d.first = YAML::Load(text);  // one document: yaml-cpp's loader stops after it
  if (d.count == 2) d.second_start = h.starts[1];
  return d;
}

}  // namespace vta
