#include "vta/isa/io_guard.h"

#include <sys/stat.h>

#include <mutex>
#include <vector>

#include "vta/isa/control_chars.h"
#include "vta/isa/error.h"

namespace vta {

namespace {

struct Input {
  dev_t dev;
  ino_t ino;
  std::string name;
};

std::mutex& inputs_mutex() {
  static std::mutex m;
  return m;
}

std::vector<Input>& inputs() {
  static std::vector<Input> v;
  return v;
}

std::string named(const std::string& path, std::string_view what) {
  return what.empty() ? path : fmt::format("{} {}", what, path);
}

}  // namespace

void note_input(const std::string& path, std::string_view what) {
  struct stat st {};
  // Only regular files can be overwritten by an output: a pipe, /dev/stdin or
  // /dev/null is an input and an output at once without loss.
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  const std::lock_guard<std::mutex> lock(inputs_mutex());
  for (const Input& i : inputs())
    if (i.dev == st.st_dev && i.ino == st.st_ino) return;
  inputs().push_back({st.st_dev, st.st_ino, named(path, what)});
}

void check_output(const std::string& path, std::string_view what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  const std::lock_guard<std::mutex> lock(inputs_mutex());
  for (const Input& i : inputs())
    if (i.dev == st.st_dev && i.ino == st.st_ino)
      fail("{}: is this command's input ({}); refusing to overwrite it", named(path, what), i.name);
}

bool is_plain_file_name(std::string_view name) {
  if (name.empty() || name == "." || name == "..") return false;
  for (const char c : name)
    if (c == '/' || c == '\\' || is_control_char(c)) return false;
  return true;
}

}  // namespace vta
