// SPDX-License-Identifier: MIT
// User workspaces (Options::user_workspace, forward(in, out, work)), checked the same way on
// every backend: arrays and workspaces come from Plan::allocate() and travel by upload() and
// download(), so the CPU suite and the GPU suite run this one code. The results are compared
// with a serial FFTW transform of the whole array and with the plan that owns its buffers.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "backend/device.hpp"
#include "dfft/dfft.hpp"
#include "features/feature_util.hpp"

namespace dfft_test {

/// Memory of the plan's backend, freed with the plan's deallocate().
class PlanArray {
 public:
  PlanArray(const dfft::Plan<double>& p, std::size_t bytes) : p_(p), bytes_(bytes), data_(p.allocate(bytes)) {}
  ~PlanArray() { p_.deallocate(data_); }
  PlanArray(const PlanArray&) = delete;
  PlanArray& operator=(const PlanArray&) = delete;
  void* get() const { return data_; }
  template <class V>
  V* as() const { return static_cast<V*>(data_); }
  /// Every byte 0xff: a NaN in every double, so a result that reads it shows.
  void fill_garbage() const {
    const std::vector<unsigned char> junk(bytes_, 0xff);
    p_.upload(data_, junk.data(), bytes_);
  }
  template <class V>
  void upload(const std::vector<V>& v) const { p_.upload(data_, v.data(), v.size() * sizeof(V)); }
  template <class V>
  std::vector<V> download(std::size_t n) const {
    std::vector<V> v(n);
    p_.download(v.data(), data_, n * sizeof(V));
    return v;
  }

 private:
  const dfft::Plan<double>& p_;
  std::size_t bytes_;
  void* data_;
};

inline bool all_finite(const std::vector<cd>& v) {
  bool ok = true;
  for (const cd& x : v) ok = ok && std::isfinite(x.real()) && std::isfinite(x.imag());
  return all_ranks(ok);
}

inline std::int64_t total_bytes(const dfft::Memory& m) { return m.host_bytes + m.device_bytes; }

/// Forward of `plan` on `in` into `out` (V: double for r2c, cd for c2c), with `work` or without.
template <class V>
void run_forward(const dfft::Plan<double>& plan, const PlanArray& in, const PlanArray& out, const PlanArray* work,
                 std::int64_t work_bytes) {
  if (work) plan.forward(in.as<V>(), out.as<cd>(), dfft::Workspace{work->get(), work_bytes});
  else plan.forward(in.as<V>(), out.as<cd>());
}

/// A plan made with `o` plus user_workspace against the same plan holding its buffers: equal
/// results (and equal to serial FFTW) from a workspace full of garbage, memory() smaller by the
/// workspace and nothing held beyond it, and absent, short or misaligned workspaces refused.
template <class V>
void check_user_workspace(dfft::Options o) {
  const Shape shape{17, 12, 10};
  const bool r2c = o.transform == dfft::Transform::r2c;
  // What each plan really holds: the buffers alive after its constructor returned.
  const std::int64_t start = dfft::detail::live_buffer_bytes;
  const dfft::Plan<double> own(MPI_COMM_WORLD, shape, o);
  const std::int64_t own_held = dfft::detail::live_buffer_bytes - start;
  o.user_workspace = true;
  const dfft::Plan<double> user(MPI_COMM_WORLD, shape, o);
  const std::int64_t held = dfft::detail::live_buffer_bytes - start - own_held;
  const std::int64_t ws = user.workspace_bytes();
  EXPECT_GT(ws, 0);
  EXPECT_EQ(ws, own.workspace_bytes());
  EXPECT_EQ(total_bytes(own.memory()) - total_bytes(user.memory()), ws);
  EXPECT_EQ(ws % 256, 0);
  EXPECT_EQ(own_held - held, ws) << "the plan holds buffers it leaves to the workspace";

  const auto in_host = make_local<V>(user.input_layout(), shape, 3);
  const auto n_out = static_cast<std::size_t>(user.output_count());
  PlanArray in(user, in_host.size() * sizeof(V)), out_own(user, n_out * sizeof(cd)),
      out_user(user, n_out * sizeof(cd)), back(user, in_host.size() * sizeof(V)), work(user, static_cast<std::size_t>(ws));
  in.upload(in_host);
  work.fill_garbage();
  out_user.fill_garbage();
  run_forward<V>(own, in, out_own, nullptr, 0);
  run_forward<V>(user, in, out_user, &work, ws);
  const auto spectral = user.spectral_shape();
  const auto got = gather_padded(user.output_layout(), spectral, out_user.download<cd>(n_out).data());
  const auto mine = gather_padded(own.output_layout(), spectral, out_own.download<cd>(n_out).data());
  ASSERT_TRUE(all_finite(got)) << "the result read the workspace's old contents";
  EXPECT_LT(rel_max(got, serial_forward(shape, global_signal(shape, 3, r2c), r2c)), ref_tol<double>());
  EXPECT_LT(rel_max(got, mine), ref_tol<double>());

  work.fill_garbage();
  back.fill_garbage();
  user.inverse(out_user.as<cd>(), back.as<V>(), dfft::Workspace{work.get(), ws});
  const auto round = gather_padded(user.input_layout(), shape, back.download<V>(in_host.size()).data());
  ASSERT_TRUE(all_finite(round));
  EXPECT_LT(rel_max(round, global_signal(shape, 3, r2c)), lap_tol<double>());

  // Refused on every rank before any collective: nobody is left waiting.
  EXPECT_THROW(run_forward<V>(user, in, out_user, nullptr, 0), dfft::InvalidArgument);
  EXPECT_THROW(run_forward<V>(user, in, out_user, &work, ws - 1), dfft::InvalidArgument);
  EXPECT_THROW(user.forward(in.as<V>(), out_user.as<cd>(), dfft::Workspace{work.as<char>() + 8, ws}),
               dfft::InvalidArgument);
  // A plan holding its buffers takes a workspace as well.
  out_own.fill_garbage();
  run_forward<V>(own, in, out_own, &work, ws);
  EXPECT_LT(rel_max(gather_padded(own.output_layout(), spectral, out_own.download<cd>(n_out).data()), mine), 1e-15);
}

/// check_user_workspace for r2c (real input) or c2c.
inline void check_user_workspace_any(const dfft::Options& o) {
  if (o.transform == dfft::Transform::r2c) check_user_workspace<double>(o);
  else check_user_workspace<cd>(o);
}

/// The cases both suites run: decomposition, transform, overlap slices (2: three work buffers).
using WorkspaceCase = std::tuple<dfft::Decomposition, dfft::Transform, int>;
inline auto workspace_cases() {
  return ::testing::Combine(::testing::Values(dfft::Decomposition::slab_2d1d, dfft::Decomposition::pencil),
                            ::testing::Values(dfft::Transform::r2c, dfft::Transform::c2c), ::testing::Values(1, 2));
}
inline std::string workspace_case_name(const ::testing::TestParamInfo<WorkspaceCase>& p) {
  const auto& [d, t, overlap] = p.param;
  return std::string(d == dfft::Decomposition::pencil ? "pencil" : "slab") + "_" + to_string(t) + "_overlap" +
         std::to_string(overlap);
}
/// Options of a case on `backend`.
inline dfft::Options workspace_case_options(const WorkspaceCase& c, dfft::Backend backend) {
  dfft::Options o;
  o.backend = backend;
  o.decomposition = std::get<0>(c);
  o.transform = std::get<1>(c);
  o.overlap = std::get<2>(c);
  o.effort = dfft::Effort::estimate;
  return o;
}

}  // namespace dfft_test
