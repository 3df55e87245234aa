// SPDX-License-Identifier: MIT
// What dfft bench says under its table: which rows are noisy, and whether a fastest
// configuration is named or the times tie within noise.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_summary.hpp"
#include "report.hpp"

namespace {

using dfftapp::Record;

Record direction(const std::string& decomp, const std::string& dir, std::vector<double> samples) {
  Record r;
  dfft::set_option(r.options, "decomposition", decomp);
  r.options.variant = dfft::Variant::Default;
  r.options.methods = {dfft::Method::a2a_sync};
  r.precision = "double";
  r.options.transform = dfft::Transform::r2c;
  r.size = {32, 30, 28};
  r.ranks = 2;
  r.options.grid = {1, 2};
  r.direction = dir;
  r.samples_ms = samples;
  r.time_min = *std::min_element(samples.begin(), samples.end());
  r.time_max = *std::max_element(samples.begin(), samples.end());
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  r.time_median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  return r;
}

// A configuration whose forward and inverse repetitions take `samples` each.
std::vector<Record> config(const std::string& decomp, const std::vector<double>& samples) {
  return {direction(decomp, "forward", samples), direction(decomp, "inverse", samples)};
}

std::vector<double> around(double ms, int n = 10) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(ms * (1 + 0.002 * ((i * 7) % 10)));
  return v;
}

std::string printed(const dfftapp::Fastest& f) {
  std::FILE* out = std::tmpfile();
  EXPECT_NE(out, nullptr);
  f.print(out);
  std::rewind(out);
  std::string text;
  for (int ch; (ch = std::fgetc(out)) != EOF;) text += static_cast<char>(ch);
  std::fclose(out);
  return text;
}

}  // namespace

TEST(BenchSummary, ClearWinnerIsNamed) {
  dfftapp::Fastest f;
  f.add(config("pencil", around(1.0)));
  f.add(config("slab-2d1d", around(2.0)));
  const std::string text = printed(f);
  EXPECT_NE(text.find("32x30x28 double r2c: pencil"), std::string::npos) << text;
  EXPECT_NE(text.find("runner-up 2.0"), std::string::npos) << text;
  EXPECT_EQ(text.find("tie"), std::string::npos) << text;
}

// Overlapping repetition times: which one is faster is noise's choice, not a result.
TEST(BenchSummary, OverlappingTimesAreATie) {
  dfftapp::Fastest f;
  f.add(config("pencil", around(1.0)));
  f.add(config("slab-2d1d", around(1.001)));
  const std::string text = printed(f);
  EXPECT_NE(text.find("tie within noise"), std::string::npos) << text;
  EXPECT_EQ(text.find("runner-up"), std::string::npos) << text;
}

// A noisy runner-up whose fastest repetitions beat the winner's median may be the faster one.
TEST(BenchSummary, NoisyRunnerUpIsNotBeaten) {
  dfftapp::Fastest f;
  f.add(config("pencil", around(1.0)));
  std::vector<double> stalled(10, 3.0);
  stalled[0] = stalled[1] = 0.6;
  f.add(config("slab-2d1d", stalled));
  const std::string text = printed(f);
  EXPECT_NE(text.find("tie within noise"), std::string::npos) << text;
}

// A third configuration, slower by its median than a clearly beaten second one, is noisy and its
// fastest repetitions beat the winner: still a tie.
TEST(BenchSummary, SlowerNoisyRowBehindAClearRunnerUpStillTies) {
  dfftapp::Fastest f;
  f.add(config("pencil", around(1.0)));
  f.add(config("slab-2d1d", around(2.0)));
  std::vector<double> stalled(10, 5.0);
  stalled[0] = stalled[1] = 0.6;
  f.add(config("slab-1d2d", stalled));
  const std::string text = printed(f);
  EXPECT_NE(text.find("tie within noise, no winner: 2 of 3"), std::string::npos) << text;
  EXPECT_NE(text.find("slab-1d2d"), std::string::npos) << text;
}

// Most repetitions stalled (median 8.05 ms, fastest 0.065 ms): max/median alone misses it.
TEST(BenchSummary, RowWhereMostRepetitionsStalledIsNoisy) {
  std::vector<double> v(10, 8.05);
  v[0] = 0.065;
  v[9] = 8.2;
  const Record r = direction("pencil", "forward", v);
  EXPECT_NE(dfftapp::noise_note(r).find("noisy"), std::string::npos);
  EXPECT_EQ(dfftapp::noise_note(direction("pencil", "forward", around(1.0))), "");
}
