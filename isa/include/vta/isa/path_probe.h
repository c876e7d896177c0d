#pragma once
// Questions about a path that the user gave (a preset name, a spec's `base`,
// an ONNX file, a store, a test folder), asked without exceptions:
// std::filesystem's throwing forms report a name too long, a loop of links
// or a folder that cannot be searched as `filesystem error: cannot check
// file status: ...`, which is neither one of our messages nor a reason to
// stop. Here each reads as "no", and the caller's own message follows
// (SweepSpecErrors.BaseNameTooLongForTheSystem in tests/test_sweep_errors.cpp).
#include <filesystem>
#include <string>
#include <vector>

namespace vta {

/// Whether `p` names a regular file (after links).
inline bool path_is_file(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec);
}

/// Whether `p` names a folder (after links).
inline bool path_is_dir(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_directory(p, ec);
}

/// What `p` is when it exists but is not a regular file (after links): "a
/// directory" (read_file's word), "a fifo", "a socket", "a character device", "a block device";
/// empty for a regular file or a path that does not exist. For messages that
/// say why a config or a model file was refused ("not a regular file (it is
/// a fifo)"), asked before anything opens it, so that a fifo never blocks.
inline std::string special_file_kind(const std::filesystem::path& p) {
  namespace fs = std::filesystem;
  std::error_code ec;
  switch (fs::status(p, ec).type()) {
    case fs::file_type::directory:
      return "a directory";
    case fs::file_type::fifo:
      return "a fifo";
    case fs::file_type::socket:
      return "a socket";
    case fs::file_type::character:
      return "a character device";
    case fs::file_type::block:
      return "a block device";
    default:
      return "";
  }
}

/// Whether `p` names anything at all.
inline bool path_exists(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::exists(p, ec);
}

/// Whether `a` and `b` name the same file; false when either does not exist.
inline bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code ec;
  const bool same = std::filesystem::equivalent(a, b, ec);
  return !ec && same;
}

/// The entries of folder `dir`, or none when it cannot be listed.
inline std::vector<std::filesystem::directory_entry> list_dir(const std::filesystem::path& dir) {
  std::vector<std::filesystem::directory_entry> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) out.push_back(*it);
  return out;
}

}  // namespace vta
