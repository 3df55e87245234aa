// SPDX-License-Identifier: MIT
// CUDA backend logic that needs no GPU, run on the CPU (and so in CI):
//  - the layout -> cuFFT advanced-layout mapping, for every FFT step the planner makes and for
//    synthetic steps that need the fallbacks: the cuFFT parameters are executed with FFTW's
//    guru interface (the same n/embed/stride/dist semantics) and compared with the CPU backend;
//  - the box-copy kernels' index arithmetic (shared __host__ __device__ code) against the host
//    copy_box, for random layouts, sub-boxes and paddings.
#include <fftw3.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "backend/cpu/copy_box.hpp"
#include "backend/cuda/cuda_device.hpp"
#include "backend/cuda/cufft_layout.hpp"
#include "exec/overlap.hpp"
#include "plan/path.hpp"

namespace {

using namespace dfft;
using namespace dfft::detail;

// Execute a cuFFT description with FFTW (double precision) on host arrays.
void run_with_fftw(const CufftMapping& m, FftDesc::Kind kind, double* in, double* out) {
  const int r = static_cast<int>(m.n.size());
  std::vector<fftw_iodim64> dims(r);
  for (int k = 0; k < r; ++k) {
    long long is = m.istride, os = m.ostride;
    for (int j = k + 1; j < r; ++j) {
      is *= m.inembed[j];
      os *= m.onembed[j];
    }
    dims[k] = {m.n[k], is, os};
  }
  fftw_iodim64 how{m.batch, m.idist, m.odist};
  for (auto [io, oo] : m.loops) {
    fftw_plan p;
    auto* ci = reinterpret_cast<fftw_complex*>(in + 2 * io);
    auto* co = reinterpret_cast<fftw_complex*>(out + 2 * oo);
    if (kind == FftDesc::Kind::r2c) p = fftw_plan_guru64_dft_r2c(r, dims.data(), 1, &how, in + io, co, FFTW_ESTIMATE);
    else if (kind == FftDesc::Kind::c2r) p = fftw_plan_guru64_dft_c2r(r, dims.data(), 1, &how, ci, out + oo, FFTW_ESTIMATE);
    else p = fftw_plan_guru64_dft(r, dims.data(), 1, &how, ci, co,
                                  kind == FftDesc::Kind::forward ? FFTW_FORWARD : FFTW_BACKWARD, FFTW_ESTIMATE);
    ASSERT_NE(p, nullptr) << "FFTW refused the cuFFT description";
    fftw_execute(p);
    fftw_destroy_plan(p);
  }
}

// Relative error of the mapped transform (through temporaries when the mapping says so) vs the
// CPU backend; -1 when the step is empty on this rank.
double mapped_error(const FftDesc& d, bool& used_fallback) {
  for (int a = 0; a < d.in.box.dims(); ++a)
    if (d.in.box.extent(a) == 0 || d.out.box.extent(a) == 0) return -1;
  const std::size_t ie = d.kind == FftDesc::Kind::r2c ? 1 : 2, oe = d.kind == FftDesc::Kind::c2r ? 1 : 2;
  std::vector<double> in(static_cast<std::size_t>(d.in.alloc_count()) * ie), work;
  std::vector<double> got(static_cast<std::size_t>(d.out.alloc_count()) * oe, 0.0), want(got.size(), 0.0);
  std::mt19937 g(1);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& v : in) v = u(g);
  work = in;
  auto cpu = make_cpu_device();
  cpu->make_fft(d, work.data(), want.data())->execute(work.data(), want.data());
  used_fallback = false;
  for (const auto& c : layout_candidates(d)) {
    const CufftMapping m = map_layouts(d, c[0], c[1]);
    if (!m.ok) {
      used_fallback = true;
      continue;
    }
    std::vector<double> tin(in.size()), tout(got.size());
    work = in;
    double* fin = work.data();
    double* fout = got.data();
    if (c[0].order != d.in.order || c[0].padded != d.in.padded) {
      host_copy_box(work.data(), d.in, tin.data(), c[0], d.in.box, ie * 8);
      fin = tin.data();
    }
    const bool tmp_out = c[1].order != d.out.order || c[1].padded != d.out.padded;
    if (tmp_out) fout = tout.data();
    run_with_fftw(m, d.kind, fin, fout);
    if (tmp_out) host_copy_box(tout.data(), c[1], got.data(), d.out, d.out.box, oe * 8);
    break;
  }
  // Compare the box only (padding is not part of the result).
  const Layout dense{d.out.box, d.out.order, {}};
  std::vector<double> a(static_cast<std::size_t>(d.out.box.count()) * oe), b(a.size());
  host_copy_box(got.data(), d.out, a.data(), dense, d.out.box, oe * 8);
  host_copy_box(want.data(), d.out, b.data(), dense, d.out.box, oe * 8);
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return std::sqrt(num / std::max(den, 1e-300));
}

TEST(CufftMapping, MatchesFftwForEveryPlannerStep) {
  const std::vector<std::vector<std::int64_t>> shapes{{17, 12, 10}, {12, 10, 9}, {8, 6, 5, 7}, {9, 8}};
  int checked = 0, loops = 0;
  for (const auto& shape : shapes)
    for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
      for (auto var : {Variant::Default, Variant::Realigned})
        for (auto tr : {Transform::r2c, Transform::c2c})
          for (int batch : {1, 3})
            for (bool in_place : {false, true})
              for (int ranks : {1, 2, 3, 4}) {
                Options o;
                o.decomposition = dec;
                o.variant = var;
                o.transform = tr;
                o.batch = batch;
                o.in_place = in_place && tr == Transform::r2c;
                const auto grid = choose_grid(dec, {}, ranks, static_cast<int>(shape.size()));
                for (int r = 0; r < ranks; ++r) {
                  Path p;
                  try {
                    p = make_path(shape, o, grid, r);
                  } catch (const Error&) {
                    break;  // the grid cannot split this shape
                  }
                  for (const auto& st : p.steps) {
                    if (st.kind != Step::Kind::fft) continue;
                    FftDesc d;
                    d.axes = st.fft.axes;
                    d.in = st.fft.in;
                    d.out = st.fft.out;
                    d.kind = st.fft.r2c ? FftDesc::Kind::r2c : FftDesc::Kind::forward;
                    for (int dir = 0; dir < 2; ++dir) {
                      bool fb = false;
                      const double e = mapped_error(d, fb);
                      if (e < 0) continue;
                      ++checked;
                      loops += map_layouts(d, d.in, d.out).loops.size() > 1;
                      EXPECT_FALSE(fb) << "the planner's steps should map directly";
                      ASSERT_LT(e, 1e-12) << describe(p);
                      std::swap(d.in, d.out);
                      d.kind = st.fft.r2c ? FftDesc::Kind::c2r : FftDesc::Kind::backward;
                    }
                  }
                }
              }
  EXPECT_GT(checked, 5000);
  EXPECT_GT(loops, 1000);  // the Default pencil y-step and friends: several executions per step
}

TEST(CufftMapping, FallbacksForMismatchedOrders) {
  int fallbacks = 0;
  for (auto kind : {FftDesc::Kind::forward, FftDesc::Kind::r2c, FftDesc::Kind::c2r})
    for (const std::vector<int>& axes : {std::vector<int>{1, 2}, {2, 1}, {0, 2}, {2}})
      for (const std::vector<int>& oi : {std::vector<int>{0, 1, 2}, {2, 0, 1}, {1, 2, 0}})
        for (const std::vector<int>& oo : {std::vector<int>{0, 1, 2}, {2, 1, 0}, {1, 0, 2}}) {
          FftDesc d;
          d.kind = kind;
          d.axes = axes;
          Box real{{0, 0, 0}, {5, 6, 7}}, cplx = real;
          const int h = axes.back();  // the halved axis of r2c/c2r
          if (h == 2) cplx.hi[2] = 4;
          else real.hi[h] = 8, cplx.hi[h] = 5;
          if (kind == FftDesc::Kind::forward) d.in = {real, oi, {}}, d.out = {real, oo, {}};
          else if (kind == FftDesc::Kind::r2c) d.in = {real, oi, {}}, d.out = {cplx, oo, {}};
          else d.in = {cplx, oi, {}}, d.out = {real, oo, {}};
          bool fb = false;
          EXPECT_LT(mapped_error(d, fb), 1e-12);
          fallbacks += fb;
        }
  EXPECT_GT(fallbacks, 20);
}

// Which batch axis a strided step gets (docs/gpu.md rule 3): the distance-1 axis once it has
// 32 members (coalesced, the others looped), else the longest. The pencil y-step (z, y, x).
TEST(CufftMapping, StridedStepBatchesOverTheContiguousAxis) {
  for (std::int64_t nx : {40, 20}) {
    FftDesc d;
    d.kind = FftDesc::Kind::forward;
    d.axes = {1};
    d.in = d.out = Layout{Box{{0, 0, 0}, {64, 6, nx}}, {0, 1, 2}, {}};
    const CufftMapping m = map_layouts(d, d.in, d.out);
    ASSERT_TRUE(m.ok);
    EXPECT_EQ(m.istride, nx);
    if (nx >= 32) {  // batched over x (distance 1), looped over the 64 z-planes
      EXPECT_EQ(m.batch, nx);
      EXPECT_EQ(m.idist, 1);
      EXPECT_EQ(m.loops.size(), 64u);
    } else {  // too few columns to coalesce: batched over z, looped over x
      EXPECT_EQ(m.batch, 64);
      EXPECT_EQ(m.idist, 6 * nx);
      EXPECT_EQ(m.loops.size(), static_cast<std::size_t>(nx));
    }
    bool fb = false;
    EXPECT_LT(mapped_error(d, fb), 1e-12);
  }
}

// Overlap slices on GPUs: the executor's check (src/exec/plan_overlap.cpp) lets plan_groups
// slice an FFT only where its slices together take no more cuFFT launches than the whole step
// (or one each). The launches of every sliced step are counted here from the mapping the CUDA
// backend runs (choose_layouts). Without the check the pencil x-step of 1024^3 on 2 x 2 ranks
// was sliced along z: 512 launches per slice where the whole step takes one.
std::size_t launches(const FftDesc& d) {
  return d.in.box.empty() || d.out.box.empty() ? 0 : choose_layouts(d).map.loops.size();
}

TEST(OverlapSlices, KeepEachFftsLaunchesOnGpus) {
  const int k = 4;
  int groups = 0, sliced_steps = 0, big_pencil_groups = 0;
  for (const std::vector<std::int64_t>& shape : {std::vector<std::int64_t>{1024, 1024, 1024}, {97, 64, 50}})
    for (auto dec : {Decomposition::slab_2d1d, Decomposition::pencil})
      for (auto var : {Variant::Default, Variant::Realigned})
        for (auto tr : {Transform::r2c, Transform::c2c})
          for (int ranks : {2, 4}) {
            Options o;
            o.decomposition = dec;
            o.variant = var;
            o.transform = tr;
            const auto grid = choose_grid(dec, {}, ranks, 3);
            for (int r = 0; r < ranks; ++r) {
              const Path path = make_path(shape, o, grid, r);
              for (bool inverse : {false, true}) {
                const auto sched = oriented_steps(path, inverse);
                auto desc = [&](const OrientedStep& st) {
                  FftDesc d;
                  d.axes = st.axes;
                  d.in = st.in;
                  d.out = st.out;
                  const bool r2c = path.steps[st.path_index].fft.r2c;
                  d.kind = r2c ? (inverse ? FftDesc::Kind::c2r : FftDesc::Kind::r2c)
                               : (inverse ? FftDesc::Kind::backward : FftDesc::Kind::forward);
                  return d;
                };
                auto sliced = [&](const FftDesc& d, int axis) {
                  std::size_t n = 0;
                  for (int i = 0; i < k; ++i) {
                    FftDesc v = d;
                    v.in = slice_view(d.in, axis, k, i);
                    v.out = slice_view(d.out, axis, k, i);
                    n += launches(v);
                  }
                  return n;
                };
                const SliceCheck check = [&](const OrientedStep& st, int axis) {
                  const FftDesc d = desc(st);
                  return sliced(d, axis) <= std::max<std::size_t>(launches(d), k);
                };
                const auto planned = plan_groups(sched, MPI_COMM_NULL, check);
                groups += static_cast<int>(planned.size());
                if (shape[0] == 1024 && dec == Decomposition::pencil && ranks == 4)
                  big_pencil_groups += static_cast<int>(planned.size());
                for (const GroupPlan& g : planned)
                  for (std::size_t j : {g.first, g.last()}) {
                    if (!sched[j].fft) continue;
                    const FftDesc d = desc(sched[j]);
                    ++sliced_steps;
                    EXPECT_LE(sliced(d, g.axis), std::max<std::size_t>(launches(d), k))
                        << to_string(dec) << " " << to_string(var) << " " << ranks << " ranks, rank " << r
                        << (inverse ? " inverse" : " forward") << ", step " << j << " sliced along axis "
                        << g.axis << ": " << launches(d) << " launches whole\n" << describe(path);
                  }
              }
            }
          }
  EXPECT_GT(groups, 50);
  EXPECT_GT(sliced_steps, 50);
  // The 2 x 2 pencil of 1024^3 still overlaps both exchanges in both directions (2 variants,
  // 2 transforms, 4 ranks, 2 directions, 2 groups).
  EXPECT_EQ(big_pencil_groups, 64);
}

TEST(CopyKernels, IndexArithmeticMatchesHostCopy) {
  std::mt19937 g(7);
  int transposes = 0;
  for (int it = 0; it < 3000; ++it) {
    const int d = 2 + it % 4;
    Box full{std::vector<std::int64_t>(d, 0), std::vector<std::int64_t>(d)};
    for (int a = 0; a < d; ++a) full.hi[a] = 1 + static_cast<std::int64_t>(g() % 7);
    Box box = full;
    for (int a = 0; a < d; ++a) {
      box.lo[a] = static_cast<std::int64_t>(g() % full.hi[a]);
      box.hi[a] = box.lo[a] + 1 + static_cast<std::int64_t>(g() % (full.hi[a] - box.lo[a]));
    }
    std::vector<int> so(d);
    std::iota(so.begin(), so.end(), 0);
    std::vector<int> dor = so;
    std::shuffle(so.begin(), so.end(), g);
    std::shuffle(dor.begin(), dor.end(), g);
    Layout sl{full, so, {}}, dl{full, dor, {}};
    if (it % 3 == 0)
      for (int a = 0; a < d; ++a) sl.padded.push_back(full.hi[a] + static_cast<std::int64_t>(g() % 3));
    std::vector<std::uint64_t> src(static_cast<std::size_t>(sl.alloc_count()));
    std::vector<std::uint64_t> want(static_cast<std::size_t>(dl.alloc_count()), 0), got(want);
    std::iota(src.begin(), src.end(), 1);
    host_copy_box(src.data(), sl, want.data(), dl, box, 8);
    const auto geom = make_copy_geom(sl, dl, box);
    const std::uint64_t* sp = src.data() + sl.offset_of(box.lo);
    std::uint64_t* dp = got.data() + dl.offset_of(box.lo);
    if (geom.src_fast >= 0) {  // what copy_transpose does, tile by tile
      ++transposes;
      const int A = geom.src_fast, C = geom.dims - 1;
      const std::int64_t rows = geom.count / (geom.ext[A] * geom.ext[C]);
      for (std::int64_t row = 0; row < rows; ++row) {
        std::int64_t s0, d0;
        cuda::row_offsets(geom, row, s0, d0);
        for (std::int64_t ia = 0; ia < geom.ext[A]; ++ia)
          for (std::int64_t ic = 0; ic < geom.ext[C]; ++ic)
            dp[d0 + ia * geom.ds[A] + ic * geom.ds[C]] = sp[s0 + ia * geom.ss[A] + ic * geom.ss[C]];
      }
    } else {  // what copy_flat does
      for (std::uint32_t i = 0; i < geom.count; ++i) {
        std::int64_t s0, d0;
        cuda::flat_offsets<std::uint32_t>(geom, i, s0, d0);
        dp[d0] = sp[s0];
      }
    }
    ASSERT_EQ(got, want) << "iteration " << it;
  }
  EXPECT_GT(transposes, 300);
}

}  // namespace
