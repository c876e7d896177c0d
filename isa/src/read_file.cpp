#include "vta/isa/read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "vta/isa/error.h"
#include "vta/isa/io_guard.h"

namespace vta {

namespace {

[[noreturn]] void too_large(const std::string& name, std::uint64_t max_bytes) {
  fail("{}: larger than {} MiB, the limit for this kind of file", name, max_bytes >> 20);
}

}  // namespace

std::string read_file(const std::string& path, std::string_view what, std::uint64_t max_bytes) {
  // POSIX calls rather than a stream: each reports errno, and a directory is
  // told apart before reading.
  const std::string name = what.empty() ? path : fmt::format("{} {}", what, path);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("{}: cannot open ({})", name, std::strerror(errno));
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
    too_large(name, max_bytes);
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
      too_large(name, max_bytes);
    }
    bytes.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return bytes;
}

}  // namespace vta
