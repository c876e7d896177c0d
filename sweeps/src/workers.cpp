#include "vta/sweeps/workers.h"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <deque>

#include "vta/isa/error.h"

namespace vta::sweeps {

namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

bool write_all(int fd, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t w = ::write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w, n -= static_cast<size_t>(w);
  }
  return true;
}

bool read_all(int fd, void* p, size_t n) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    const ssize_t r = ::read(fd, c, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    c += r, n -= static_cast<size_t>(r);
  }
  return true;
}

// Length-prefixed messages.
bool send_msg(int fd, const std::string& s) {
  const uint64_t n = s.size();
  return write_all(fd, &n, sizeof n) && write_all(fd, s.data(), s.size());
}

bool recv_msg(int fd, std::string& s) {
  uint64_t n = 0;
  if (!read_all(fd, &n, sizeof n) || n > (uint64_t{1} << 32)) return false;
  s.resize(n);
  return read_all(fd, s.data(), n);
}

std::string death(int status) {
  if (WIFSIGNALED(status))
    return fmt::format("the worker was killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  if (WIFEXITED(status)) return fmt::format("the worker exited with status {}", WEXITSTATUS(status));
  return "the worker stopped";
}

}  // namespace

WorkerPool::WorkerPool(int workers, std::function<std::string(const std::string&)> work, double timeout_s)
    : work_(std::move(work)), timeout_s_(timeout_s), workers_(static_cast<size_t>(std::max(1, workers))) {
  std::signal(SIGPIPE, SIG_IGN);  // a dead worker's pipe reports EPIPE instead
  for (auto& w : workers_) spawn(w);
}

WorkerPool::~WorkerPool() {
  for (auto& w : workers_) {
    if (w.to >= 0) ::close(w.to);  // EOF: the worker exits
    if (w.from >= 0) ::close(w.from);
    if (w.pid > 0) ::waitpid(w.pid, nullptr, 0);
  }
}

void WorkerPool::spawn(Worker& w) {
  int down[2], up[2];
  if (::pipe(down) != 0 || ::pipe(up) != 0) fail("sweep: cannot create a pipe: {}", std::strerror(errno));
  const pid_t parent = ::getpid();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) fail("sweep: cannot fork a worker: {}", std::strerror(errno));
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(0);  // the parent died before prctl
    ::close(down[1]);
    ::close(up[0]);
    for (auto& other : workers_)  // siblings' pipes: keep only ours
      if (other.pid > 0) ::close(other.to), ::close(other.from);
    std::string req;
    while (recv_msg(down[0], req))
      if (!send_msg(up[1], work_(req))) break;
    ::_exit(0);  // no destructors, no atexit: the parent's files are the parent's
  }
  ::close(down[0]);
  ::close(up[1]);
  w.pid = pid;
  w.to = down[1];
  w.from = up[0];
  w.task = -1;
}

void WorkerPool::reap(Worker& w) {
  ::close(w.to);
  ::close(w.from);
  ::kill(w.pid, SIGKILL);
  ::waitpid(w.pid, nullptr, 0);
  w.pid = w.to = w.from = -1;
}

void WorkerPool::run(const std::vector<std::string>& requests,
                     const std::function<void(size_t, bool, const std::string&)>& done) {
  size_t next = 0, finished = 0;
  const size_t run = std::clamp<size_t>(requests.size() / (workers_.size() * 8), 1, 256);
  for (auto& w : workers_) w.run_next = w.run_end = 0;
  while (finished < requests.size()) {
    // Hand out work to idle workers: the next of its run, or a new run.
    for (auto& w : workers_) {
      if (w.pid < 0) spawn(w);
      while (w.task < 0) {
        if (w.run_next == w.run_end) {
          if (next == requests.size()) break;
          w.run_next = next, w.run_end = next = std::min(requests.size(), next + run);
        }
        const size_t i = w.run_next;
        if (send_msg(w.to, requests[i])) {
          ++w.run_next;
          w.task = static_cast<long>(i);
          w.deadline = now_s() + timeout_s_;
          break;
        }
        int status = 0;  // the worker died idle: replace it, retry the request
        ::close(w.to), ::close(w.from);
        ::waitpid(w.pid, &status, 0);
        w.pid = -1;
        spawn(w);
      }
    }
    std::vector<pollfd> fds;
    std::vector<Worker*> owners;
    double nearest = 1e300;
    for (auto& w : workers_)
      if (w.task >= 0) {
        fds.push_back({w.from, POLLIN, 0});
        owners.push_back(&w);
        nearest = std::min(nearest, w.deadline);
      }
    const int wait_ms = static_cast<int>(std::clamp((nearest - now_s()) * 1e3 + 1, 0.0, 1000.0));
    const int ready = ::poll(fds.data(), fds.size(), wait_ms);
    if (ready < 0 && errno != EINTR) fail("sweep: poll failed: {}", std::strerror(errno));
    for (size_t k = 0; k < fds.size(); ++k) {
      Worker& w = *owners[k];
      const auto task = static_cast<size_t>(w.task);
      if (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) {
        std::string reply;
        if (recv_msg(w.from, reply)) {
          w.task = -1;
          ++finished;
          done(task, true, reply);
          continue;
        }
        int status = 0;
        ::close(w.to), ::close(w.from);
        ::waitpid(w.pid, &status, 0);
        w.pid = w.to = w.from = -1;
        w.task = -1;
        ++finished;
        done(task, false, death(status));
      } else if (now_s() > w.deadline) {
        reap(w);
        w.task = -1;
        ++finished;
        done(task, false, fmt::format("timeout: no result after {:g} s (the worker was killed)", timeout_s_));
      }
    }
  }
}

}  // namespace vta::sweeps
