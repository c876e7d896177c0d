// The sweep's worker pool (workers.h): every request answered once, and
// handed out in runs of consecutive requests, so that neighbouring design
// points, which share most knobs, meet the same worker's memo tables.
#include <gtest/gtest.h>
#include <unistd.h>

#include <map>
#include <string>
#include <vector>

#include "vta/sweeps/workers.h"

namespace {

using vta::sweeps::WorkerPool;

TEST(SweepWorkers, ConsecutiveRequestsGoToOneWorkerInRuns) {
  // 2 workers, 64 requests: runs of 64 / (2 x 8) = 4.
  WorkerPool pool(
      2, [](const std::string&) { return std::to_string(::getpid()); }, 60);
  std::vector<std::string> requests;
  for (int i = 0; i < 64; ++i) requests.push_back(std::to_string(i));
  std::vector<std::string> by(requests.size());
  int answered = 0;
  pool.run(requests, [&](size_t i, bool ok, const std::string& text) {
    EXPECT_TRUE(ok) << text;
    EXPECT_TRUE(by[i].empty()) << "request " << i << " answered twice";
    by[i] = text;
    ++answered;
  });
  EXPECT_EQ(answered, 64);
  for (size_t run = 0; run < by.size(); run += 4)
    for (size_t i = run; i < run + 4; ++i) EXPECT_EQ(by[i], by[run]) << "request " << i << " left its run";
}

TEST(SweepWorkers, AFailedRequestLeavesTheRestOfItsRunToTheNewWorker) {
  // Request 1 kills its worker; the replacement answers 2 and 3 (same run).
  WorkerPool pool(
      1,
      [](const std::string& r) {
        if (r == "1") ::_exit(3);
        return r;
      },
      60);
  std::map<size_t, std::pair<bool, std::string>> got;
  pool.run({"0", "1", "2", "3"}, [&](size_t i, bool ok, const std::string& text) { got[i] = {ok, text}; });
  ASSERT_EQ(got.size(), 4u);
  EXPECT_FALSE(got[1].first);
  EXPECT_NE(got[1].second.find("status 3"), std::string::npos) << got[1].second;
  for (size_t i : {0u, 2u, 3u}) EXPECT_EQ(got[i], std::make_pair(true, std::to_string(i)));
}

}  // namespace
