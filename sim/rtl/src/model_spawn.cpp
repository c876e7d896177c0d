#include "model_spawn.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "vta/isa/shell_quote.h"

extern char** environ;

namespace vta::rtl {

namespace {

std::string line_of(const Argv& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    s += shell_quote(a);
  }
  return s;
}

void append(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the log is best effort; the command's status is what counts
    done += static_cast<size_t>(n);
  }
}

// Starts `argv` in `dir` with stdout and stderr on `out_fd`; 0 or an errno.
int start(const Argv& argv, const std::string& dir, int out_fd, pid_t& pid) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
  posix_spawn_file_actions_adddup2(&fa, out_fd, 2);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  if (!dir.empty()) posix_spawn_file_actions_addchdir_np(&fa, dir.c_str());
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int rc = ::posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  return rc;
}

std::string status_text(int st) {
  if (WIFEXITED(st)) return fmt::format("exit {}", WEXITSTATUS(st));
  if (WIFSIGNALED(st)) return fmt::format("killed by signal {}", WTERMSIG(st));
  return "stopped";
}

}  // namespace

SpawnFailure run_commands(const std::vector<Argv>& commands, const std::string& dir, const std::string& log, int jobs,
                          const std::function<void(size_t done)>& tick) {
  SpawnFailure failure;
  const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    failure.index = 0;
    failure.why = fmt::format("cannot write the build log {} ({})", log, std::strerror(errno));
    return failure;
  }
  std::vector<std::pair<pid_t, size_t>> running;
  size_t next = 0, done = 0;
  auto last_tick = std::chrono::steady_clock::now();
  while (done < commands.size() && (failure.index < 0 || !running.empty())) {
    while (failure.index < 0 && next < commands.size() && running.size() < static_cast<size_t>(std::max(1, jobs))) {
      append(fd, "$ " + line_of(commands[next]) + "\n");
      pid_t pid = 0;
      if (const int rc = start(commands[next], dir, fd, pid); rc != 0) {
        failure.index = static_cast<long>(next);
        failure.why = fmt::format("cannot run {} ({})", commands[next].front(), std::strerror(rc));
        append(fd, failure.why + "\n");
        break;
      }
      running.emplace_back(pid, next++);
    }
    if (running.empty()) break;
    // Only our own children, by pid: the process may have others (sweep workers).
    for (size_t k = 0; k < running.size();) {
      int st = 0;
      const pid_t r = ::waitpid(running[k].first, &st, WNOHANG);
      if (r == 0 || (r < 0 && errno == EINTR)) {
        ++k;
        continue;
      }
      const bool ok = r > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
      if (!ok && failure.index < 0) {
        failure.index = static_cast<long>(running[k].second);
        failure.why = r > 0 ? status_text(st) : "lost";
      }
      ++done;
      running.erase(running.begin() + static_cast<long>(k));
    }
    const auto now = std::chrono::steady_clock::now();
    if (now - last_tick > std::chrono::milliseconds(500)) {
      last_tick = now;
      if (tick) tick(done);
    }
    if (!running.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::close(fd);
  return failure;
}

std::string command_output(const Argv& argv) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return "";
  pid_t pid = 0;
  const int rc = start(argv, "", fds[1], pid);
  ::close(fds[1]);
  std::string text;
  if (rc == 0) {
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(fds[0], buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      if (text.size() < 65536) text.append(buf, static_cast<size_t>(n));
    }
  }
  ::close(fds[0]);
  if (rc != 0) return "";
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return "";
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return "";
  std::string p = path;
  for (size_t at = 0; at <= p.size();) {
    const size_t end = std::min(p.find(':', at), p.size());
    const std::string dir = p.substr(at, end - at);
    if (!dir.empty() && dir.front() == '/') {
      const std::string f = dir + "/" + name;
      struct stat st {};
      if (::stat(f.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(f.c_str(), X_OK) == 0) return f;
    }
    at = end + 1;
  }
  return "";
}

}  // namespace vta::rtl
