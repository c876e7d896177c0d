#pragma once
// Progress of one stage on stderr: on a terminal a bar redrawn in place with
// points/s, ETA and failures; otherwise (logs, CI) a plain line every few
// seconds and one at the end.
#include <chrono>
#include <cstdint>
#include <string>

namespace vta::sweeps {

class Progress {
 public:
  Progress(std::string label, int64_t total, bool enabled);
  void update(int64_t done, int64_t failed);
  void finish(int64_t done, int64_t failed);

 private:
  std::string line(int64_t done, int64_t failed, bool bar) const;
  std::string label_;
  int64_t total_;
  bool enabled_, tty_;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace vta::sweeps
