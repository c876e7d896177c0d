#include "vta/isa/read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "vta/isa/error.h"

namespace vta {

std::string read_file(const std::string& path, std::string_view what) {
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
  std::string bytes;
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
    bytes.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return bytes;
}

}  // namespace vta
