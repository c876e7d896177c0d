#include "vta/isa/read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "vta/isa/error.h"
#include "vta/isa/io_guard.h"
#include "vta/isa/path_probe.h"

namespace vta {

namespace {

[[noreturn]] void too_large(const std::string& name, std::uint64_t max_bytes, std::string_view over_limit) {
  if (!over_limit.empty()) fail("{}: {}", name, over_limit);
  fail("{}: larger than {} MiB, the limit for this kind of file", name, max_bytes >> 20);
}

std::string name_of(const std::string& path, std::string_view what) {
  return what.empty() ? path : fmt::format("{} {}", what, path);
}

}  // namespace

void require_regular_file(const std::string& path, std::string_view what) {
  if (const std::string kind = special_file_kind(path); !kind.empty())
    fail("{}: not a regular file (it is {})", name_of(path, what), kind);
}

std::string read_file(const std::string& path, std::string_view what, std::uint64_t max_bytes,
                      std::string_view over_limit) {
  // POSIX calls rather than a stream: each reports errno, and a directory is
  // told apart before reading.
  const std::string name = name_of(path, what);
  // O_NONBLOCK: opening a fifo does not wait for a writer (open() would
  // block forever on one nobody writes); reads then block as usual.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) fail("{}: cannot open ({})", name, std::strerror(errno));
  if (const int flags = ::fcntl(fd, F_GETFL); flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    const int err = errno;
    ::close(fd);
    fail("{}: cannot read ({})", name, S_ISDIR(st.st_mode) ? "it is a directory" : std::strerror(err));
  }
  // A regular file's size is known up front; a device or a fifo is read up
  // to the limit and refused past it.
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    too_large(name, max_bytes, over_limit);
  }
  note_input(path, what);
  std::string bytes;
  if (S_ISREG(st.st_mode)) bytes.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      fail("{}: cannot read ({})", name, std::strerror(err));
    }
    if (bytes.size() + static_cast<size_t>(n) > max_bytes) {
      ::close(fd);
      too_large(name, max_bytes, over_limit);
    }
    bytes.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return bytes;
}

}  // namespace vta
