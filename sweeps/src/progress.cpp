#include "vta/sweeps/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace vta::sweeps {

namespace {
std::string hms(double s) {
  const auto t = static_cast<int64_t>(s + 0.5);
  return t >= 3600 ? fmt::format("{}h{:02}m", t / 3600, t / 60 % 60) : fmt::format("{}m{:02}s", t / 60, t % 60);
}
}  // namespace

Progress::Progress(std::string label, int64_t total, bool enabled)
    : label_(std::move(label)),
      total_(total),
      enabled_(enabled && total > 0),
      tty_(::isatty(2) == 1),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

std::string Progress::line(int64_t done, int64_t failed, bool bar) const {
  const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = el > 0 ? static_cast<double>(done) / el : 0;
  const double frac = total_ > 0 ? static_cast<double>(done) / static_cast<double>(total_) : 1;
  std::string b;
  if (bar) {
    const int width = 24, full = static_cast<int>(frac * width);
    b = "[" + std::string(static_cast<size_t>(full), '#') + std::string(static_cast<size_t>(width - full), '.') + "] ";
  }
  const std::string eta = rate > 0 && done < total_ ? hms(static_cast<double>(total_ - done) / rate) : "-";
  return fmt::format("{}: {}{}/{} ({:.0f} %), {:.1f} points/s, ETA {}, {} failed, {} elapsed", label_, b, done, total_,
                     100 * frac, rate, eta, failed, hms(el));
}

void Progress::update(int64_t done, int64_t failed) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_).count();
  if (since < (tty_ ? 0.1 : 5.0)) return;
  last_ = now;
  if (tty_)
    std::fprintf(stderr, "\r%s\033[K", line(done, failed, true).c_str());
  else
    std::fprintf(stderr, "%s\n", line(done, failed, false).c_str());
  std::fflush(stderr);
}

void Progress::finish(int64_t done, int64_t failed) {
  if (!enabled_) return;
  std::fprintf(stderr, tty_ ? "\r%s\033[K\n" : "%s\n", line(done, failed, tty_).c_str());
  std::fflush(stderr);
}

}  // namespace vta::sweeps
