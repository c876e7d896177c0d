#pragma once
// A pool of forked worker processes. The SystemC model is a process-wide
// singleton and a crashing or hanging point must not take the sweep down, so
// every task runs in a worker: the parent sends it a request over a pipe and
// reads back a reply. A worker that dies (a signal, an abort) or overruns the
// per-task timeout is killed and replaced, and its task is reported failed
// with the reason. Workers inherit the parent's memory at fork (the built
// networks), die with the parent (PR_SET_PDEATHSIG) and never touch its files.
#include <functional>
#include <string>
#include <vector>

namespace vta::sweeps {

class WorkerPool {
 public:
  /// `work` maps a request to a reply inside a worker; it must not throw.
  WorkerPool(int workers, std::function<std::string(const std::string&)> work, double timeout_s);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// Runs every request; calls `done(i, ok, text)` in the parent as request i
  /// finishes (text: the reply, or why the worker failed), in finishing order.
  /// A worker takes the requests in runs of consecutive ones (about an eighth
  /// of its share, at most 256): neighbouring requests of a sweep are
  /// neighbouring design points, which share most knobs, so what a worker
  /// keeps from one (the tile search's memo) serves the next.
  void run(const std::vector<std::string>& requests, const std::function<void(size_t, bool, const std::string&)>& done);

 private:
  struct Worker {
    int pid = -1, to = -1, from = -1;
    long task = -1;                    // request index in flight, -1 when idle
    size_t run_next = 0, run_end = 0;  // the rest of its run of requests
    double deadline = 0;               // monotonic seconds
  };
  void spawn(Worker& w);
  void reap(Worker& w);

  std::function<std::string(const std::string&)> work_;
  double timeout_s_;
  std::vector<Worker> workers_;
};

}  // namespace vta::sweeps
