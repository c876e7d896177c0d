#include "vta/isa/write_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "vta/isa/error.h"
#include "vta/isa/io_guard.h"

namespace vta {

void write_file(const std::string& path, std::string_view bytes, std::string_view what) {
  // stdio rather than a stream: fwrite, fflush and fclose each report errno.
  const std::string name = what.empty() ? path : fmt::format("{} {}", what, path);
  check_output(path, what);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) fail("{}: cannot write ({})", name, std::strerror(errno));
  const bool wrote = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size() && std::fflush(f) == 0;
  const int err = errno;
  const bool closed = std::fclose(f) == 0;
  if (!wrote || !closed) fail("{}: cannot write ({})", name, std::strerror(wrote ? errno : err));
}

void make_dirs(const std::string& path, std::string_view what) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec)
    fail("{}: cannot create the folder ({})", what.empty() ? path : fmt::format("{} {}", what, path), ec.message());
}

}  // namespace vta
