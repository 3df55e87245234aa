// SPDX-License-Identifier: MIT
// The inverse's c2r on the caller's const array (src/exec/keep_input_c2r.hpp): every way of
// keeping the input (the copy, and each split into a c2c over leading axes then a c2r) must give
// the inverse of a spectrum computed here with FFTW's serial r2c, leave the input bit for bit as
// it was, and the choice made by timing must be one of them. Odd and even sizes, 2-4 axes, a
// permuted memory order, both precisions, every backend, with and without a normalisation
// folded in (the grouped c2r of the CPU). Each rank runs it alone.
#include <complex>
#include <cstring>

#include "backend/device.hpp"
#include "exec/keep_input_c2r.hpp"
#include "features/feature_util.hpp"

namespace dfft_test {
namespace {
namespace keep_input {  // names of its own in a unity build

using dfft::detail::Buffer;
using dfft::detail::Device;
using dfft::detail::FftDesc;
using dfft::Decomposition;

struct Case {
  Shape shape;
  std::vector<int> order;  // memory order of the spectrum (the real side is row-major)
};

std::unique_ptr<Device> make_device() {
  if (on_cuda()) return dfft::detail::make_cuda_device(MPI_COMM_SELF, test_device());
  return dfft::detail::make_cpu_device(1);
}

Layout layout(const Shape& ext, std::vector<int> order) {
  Layout l;
  l.box = Box{Shape(ext.size(), 0), ext};
  l.order = std::move(order);
  return l;
}

// A real array x and its unnormalised r2c spectrum, from FFTW's serial r2c in double.
void signal(const Shape& shape, std::vector<double>& x, std::vector<std::complex<double>>& spec) {
  std::int64_t n = 1;
  for (auto e : shape) n *= e;
  const std::int64_t m = shape.back() / 2 + 1, nc = n / shape.back() * m;
  x.resize(static_cast<std::size_t>(n));
  std::mt19937 g(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& v : x) v = u(g);
  spec.resize(static_cast<std::size_t>(nc));
  std::vector<int> dims(shape.begin(), shape.end());
  std::vector<double> tmp = x;  // FFTW_ESTIMATE plans do not touch the arrays; this is belt and braces
  fftw_plan p = fftw_plan_dft_r2c(static_cast<int>(dims.size()), dims.data(), tmp.data(),
                                  reinterpret_cast<fftw_complex*>(spec.data()), FFTW_ESTIMATE);
  ASSERT_NE(p, nullptr);
  fftw_execute(p);
  fftw_destroy_plan(p);
}

template <class T>
void check(const Case& c, int choice, dfft::Effort effort, double factor, std::string* name = nullptr) {
  using C = std::complex<T>;
  const int r = static_cast<int>(c.shape.size());
  std::vector<double> x;
  std::vector<std::complex<double>> spec;
  signal(c.shape, x, spec);
  Shape half = c.shape;
  half.back() = c.shape.back() / 2 + 1;
  std::vector<int> row(static_cast<std::size_t>(r));
  std::iota(row.begin(), row.end(), 0);
  FftDesc d;
  d.kind = FftDesc::Kind::c2r;
  d.axes = row;
  d.in = layout(half, c.order);
  d.out = layout(c.shape, row);
  d.is_double = sizeof(T) == 8;
  d.effort = effort;
  d.scale = factor;  // as the plan asks of its inverse's last FFT (a GPU FFT may apply it)
  // The spectrum in the input's memory order.
  std::vector<C> in_host(spec.size());
  const Layout rowl = layout(half, row);
  for_box(d.in.box, [&](const Shape& k) {
    in_host[static_cast<std::size_t>(padded_offset(d.in, k))] = C(spec[static_cast<std::size_t>(padded_offset(rowl, k))]);
  });
  auto dev = make_device();
  const std::size_t bytes = std::max(in_host.size() * sizeof(C), x.size() * sizeof(T));
  Buffer a(*dev, bytes), b(*dev, bytes);
  auto whole = dev->make_fft(d, a.get(), b.get());
  auto keep = dfft::detail::make_keep_input_c2r(*dev, d, *whole, a.get(), b.get(), factor, choice);
  ASSERT_NE(keep, nullptr);
  if (name) *name = keep->name();
  if (choice == 0) {
    EXPECT_EQ(keep->name(), "copy");
  } else if (choice > 0) {
    EXPECT_NE(keep->name().find("then c2r"), std::string::npos) << keep->name();
  }
  DevArray<C> in(in_host);
  DevArray<T> out(x.size());
  Buffer scratch(*dev, bytes);
  const bool applied = keep->execute(in.get(), scratch.get(), out.get(), factor);
  dev->synchronize();
  const auto cands = dfft::detail::keep_input_candidates(*dev, d);
  if (choice >= 0 && cands[static_cast<std::size_t>(choice)].grouped) {
    EXPECT_TRUE(applied) << "the grouped c2r scales as it goes";
  }
  if (choice >= 0 && cands[static_cast<std::size_t>(choice)].copying) {
    EXPECT_TRUE(applied) << "the copying c2c scales as it copies";
    EXPECT_NE(keep->name().find("copying block by block"), std::string::npos) << keep->name();
  }
  const auto got = out.host();
  double err = 0, ref = 0, n = 1;
  for (auto e : c.shape) n *= static_cast<double>(e);
  const double want = applied ? factor * n : n;  // what `out` holds: N x, scaled where applied
  for (std::size_t i = 0; i < x.size(); ++i) {
    err += std::norm(static_cast<double>(got[i]) - want * x[i]);
    ref += std::norm(want * x[i]);
  }
  EXPECT_LE(std::sqrt(err / ref), sizeof(T) == 8 ? 1e-13 : 2e-6) << keep->name();
  const auto after = in.host();
  EXPECT_EQ(std::memcmp(after.data(), in_host.data(), in_host.size() * sizeof(C)), 0)
      << keep->name() << " overwrote its input";
}

const std::vector<Case> kCases = {
    {{17, 12, 10}, {0, 1, 2}}, {{17, 12, 10}, {1, 0, 2}}, {{9, 15}, {0, 1}},
    {{5, 6, 7, 4}, {0, 1, 2, 3}}, {{16, 9, 11}, {2, 0, 1}},
    // lines of the last axis in several groups and a shorter last one (the grouped c2r)
    {{33, 41, 512}, {0, 1, 2}},
    // a leading axis of a length the GPU's column kernel is built for (64 to 2048): under
    // measure its c2c may run there
    {{64, 6, 10}, {0, 1, 2}}, {{1024, 3, 4}, {0, 1, 2}}};

// cuFFT plans at most 3 axes in one step (a plan of more splits its steps before this point).
bool skip_on_backend(const Case& c) { return on_cuda() && c.shape.size() > 3; }

TEST(KeepInputC2r, EveryChoiceInvertsAndKeepsTheInput) {
  if (!backend_unavailable().empty()) GTEST_SKIP() << backend_unavailable();
  for (const Case& c : kCases) {
    if (skip_on_backend(c)) continue;
    auto dev = make_device();
    FftDesc d;
    d.kind = FftDesc::Kind::c2r;
    d.axes.resize(c.shape.size());
    std::iota(d.axes.begin(), d.axes.end(), 0);
    Shape half = c.shape;
    half.back() = half.back() / 2 + 1;
    d.in = layout(half, c.order);
    d.out = layout(c.shape, d.axes);
    const int r = static_cast<int>(c.shape.size());
    for (double factor : {1.0, 0.25}) {
      d.scale = factor;
      const auto cands = dfft::detail::keep_input_candidates(*dev, d);
      const auto grouped = std::count_if(cands.begin(), cands.end(), [](const auto& k) { return k.grouped; });
      const auto moved = std::count_if(cands.begin(), cands.end(), [](const auto& k) {
        return (k.scale_first || k.scale_on_load) && !k.copying;
      });
      const auto copying = std::count_if(cands.begin(), cands.end(), [](const auto& k) { return k.copying; });
      // On the CPU every row-major case has the grouped candidate and the copying one (the
      // slowest axis first); the permuted orders have neither.
      EXPECT_EQ(grouped, !on_cuda() && c.order == d.axes ? 1 : 0);
      EXPECT_EQ(copying, grouped);
      // On a GPU, where the c2r normalises, each split also with the factor in the c2c's stores,
      // the c2c's loads and the c2r's loads.
      EXPECT_EQ(moved, on_cuda() && factor != 1 ? 3 * (r - 1) : 0);
      EXPECT_EQ(static_cast<int>(cands.size()), r + grouped + moved + copying);
      for (int choice = 0; choice < static_cast<int>(cands.size()); ++choice) {
        SCOPED_TRACE("shape of " + std::to_string(r) + " axes, choice " + std::to_string(choice) +
                     ", factor " + std::to_string(factor));
        check<double>(c, choice, dfft::Effort::estimate, factor);
        check<float>(c, choice, dfft::Effort::estimate, factor);
      }
    }
  }
}

TEST(KeepInputC2r, TimedChoiceInvertsAndKeepsTheInput) {
  if (!backend_unavailable().empty()) GTEST_SKIP() << backend_unavailable();
  for (const Case& c : kCases) {
    if (skip_on_backend(c)) continue;
    check<double>(c, -1, dfft::Effort::measure, 0.5);
    check<float>(c, -1, dfft::Effort::measure, 1);
  }
}

// On a GPU, with DFFT_COLUMN_FFT=1, the split's c2c over the leading axis runs on dfft's column
// kernel (which also takes the factor where the c2c applies it), and the inverse is still right.
TEST(KeepInputC2r, SplitOnTheColumnKernel) {
  if (!backend_unavailable().empty()) GTEST_SKIP() << backend_unavailable();
  if (!on_cuda()) GTEST_SKIP() << "the column kernel is the CUDA backend's";
  ASSERT_EQ(setenv("DFFT_COLUMN_FFT", "1", 1), 0);
  const Case c{{64, 6, 10}, {0, 1, 2}};
  // Candidates of 3 axes on a GPU: 0 the copy, 1 and 2 the splits after axis 0 and 1 (the c2r
  // normalising), then per split the factor in the c2r's loads, the c2c's stores and the c2c's
  // loads: 4 is the split after axis 0 with the c2c normalising as it stores.
  for (int choice : {1, 4}) {
    std::string name;
    check<double>(c, choice, dfft::Effort::estimate, 0.25, &name);
    EXPECT_NE(name.find("the c2c by dfft's column kernel"), std::string::npos) << name;
    check<float>(c, choice, dfft::Effort::estimate, 0.25, &name);
    EXPECT_NE(name.find("the c2c by dfft's column kernel"), std::string::npos) << name;
  }
  ASSERT_EQ(unsetenv("DFFT_COLUMN_FFT"), 0);
}

TEST(KeepInputC2r, NothingToChooseForOneAxis) {
  if (!backend_unavailable().empty()) GTEST_SKIP() << backend_unavailable();
  auto dev = make_device();
  FftDesc d;
  d.kind = FftDesc::Kind::c2r;
  d.axes = {1};
  d.in = layout({4, 6}, {0, 1});
  d.out = layout({4, 10}, {0, 1});
  Buffer a(*dev, 4096), b(*dev, 4096);
  auto whole = dev->make_fft(d, a.get(), b.get());
  EXPECT_EQ(dfft::detail::make_keep_input_c2r(*dev, d, *whole, a.get(), b.get(), 1), nullptr);
}

// Through a plan: a 1-rank plan planned with measure reports its choice, and its inverse keeps
// the caller's spectrum (the sweep covers estimate, where the copy is chosen).
TEST(KeepInputC2r, PlanReportsItsChoice) {
  if (!backend_unavailable().empty()) GTEST_SKIP() << backend_unavailable();
  if (world_size() != 1) GTEST_SKIP() << "a 1-rank inverse starts with its c2r";
  dfft::Options o = backend_options();
  o.effort = dfft::Effort::measure;
  o.fftw_wisdom = false;
  auto plan = make_plan<double>(Shape{17, 12, 10}, o);
  ASSERT_NE(plan, nullptr);
  EXPECT_NE(plan->describe().find("inverse from the caller's array: "), std::string::npos) << plan->describe();
  std::vector<double> x(static_cast<std::size_t>(plan->input_count()));
  std::mt19937 g(3);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& v : x) v = u(g);
  DevArray<double> xin(x), back(x.size());
  DevArray<std::complex<double>> spec(static_cast<std::size_t>(plan->output_count()));
  plan->forward(xin.get(), spec.get());
  const auto before = spec.host();
  plan->inverse(spec.get(), back.get());
  const auto y = back.host();
  double err = 0;
  for (std::size_t i = 0; i < x.size(); ++i) err = std::max(err, std::abs(y[i] - x[i]));
  EXPECT_LE(err, 1e-13);
  EXPECT_TRUE(spec.host() == before) << "the inverse overwrote its input";
}

// Options::destroy_input: the inverse may run its c2r on the caller's spectrum. Its result must
// be the input-keeping inverse's (and the input times the round trip's factor), on every
// decomposition, both precisions, the default norm and none; the default inverse must leave
// the caller's spectrum bit for bit as it was. On one rank the inverse starts with its c2r, so
// there the plan says that it overwrites the input, except a transposed one of three or more
// axes on the CPU (not slab-1d2d, whose transposed order is the natural one): its first c2c FFT
// reorders as it reads the caller's array into the workspace. With a transposed output on
// several ranks it starts with a c2c FFT, which (on the CPU) then transforms the caller's array
// where it lies.
template <class T>
void destroy_input_matches_keeping(Decomposition dec, const Shape& shape, dfft::Norm norm, bool transposed) {
  using C = std::complex<T>;
  dfft::Options o = backend_options();
  o.decomposition = dec;
  o.norm = norm;
  o.transposed_out = transposed;
  auto keep = make_plan<T>(shape, o);
  o.destroy_input = true;
  auto destroy = make_plan<T>(shape, o);
  if (!keep || !destroy) return;
  ASSERT_EQ(keep->output_count(), destroy->output_count());
  ASSERT_EQ(keep->input_count(), destroy->input_count());
  const auto x = make_local<T>(keep->input_layout(), shape, 6, T(0));
  DevArray<T> dx(x), kept(x.size()), destroyed(x.size());
  DevArray<C> spec(static_cast<std::size_t>(keep->output_count()));
  keep->forward(dx.get(), spec.get());
  const auto before = spec.host();
  keep->inverse(spec.get(), kept.get());
  EXPECT_TRUE(all_ranks(same_bits(spec.host(), before))) << "the default inverse changed its input\n"
                                                         << keep->describe();
  destroy->inverse(spec.get(), destroyed.get());
  const double tol = std::is_same_v<T, double> ? 1e-12 : 1e-5;
  EXPECT_LE(local_rel(destroyed.host(), kept.host()), tol) << destroy->describe();
  double n = 1;
  for (auto e : shape) n *= static_cast<double>(e);
  auto want = x;
  for (auto& v : want) v *= static_cast<T>(norm == dfft::Norm::none ? n : 1);
  EXPECT_LE(local_rel(destroyed.host(), want), tol) << destroy->describe();
  if (world_size() == 1 && transposed && o.backend == dfft::Backend::cpu && dec != Decomposition::slab_1d2d &&
      shape.size() >= 3) {
    // The inverse's first FFT reorders (the exchange before it moves nothing): it reads the
    // caller's array into the workspace.
    EXPECT_NE(keep->describe().find("inverse input: kept (the first FFT reads it"), std::string::npos) << keep->describe();
    EXPECT_NE(destroy->describe().find("inverse input: kept (the first FFT reads it block by block while reordering; "
                                       "destroy_input changes nothing)"),
              std::string::npos)
        << destroy->describe();
  } else if (world_size() == 1) {
    EXPECT_NE(keep->describe().find("inverse input: kept"), std::string::npos) << keep->describe();
    EXPECT_NE(destroy->describe().find("inverse input: overwritten (destroy_input"), std::string::npos)
        << destroy->describe();
  } else if (transposed && dec == Decomposition::slab_2d1d && o.backend == dfft::Backend::cpu) {
    EXPECT_NE(destroy->describe().find("the first FFT transforms the caller's array where it lies"), std::string::npos)
        << destroy->describe();
  }
}

TEST(DestroyInput, C2rMatchesTheInputKeepingInverse) {
  if (!backend_unavailable().empty()) GTEST_SKIP() << backend_unavailable();
  for (auto norm : {dfft::Norm::backward, dfft::Norm::none})
    for (const Shape& shape : {Shape{17, 12, 10}, Shape{7, 6}, Shape{9, 7, 7}})
      for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil}) {
        if (shape.size() == 2 && dec == Decomposition::pencil) continue;  // a 2-D pencil is a slab
        SCOPED_TRACE(to_string(dec) + " " + std::to_string(shape[0]) + "x" + std::to_string(shape[1]) + " " +
                     to_string(norm));
        for (bool transposed : {false, true}) {
          destroy_input_matches_keeping<double>(dec, shape, norm, transposed);
          destroy_input_matches_keeping<float>(dec, shape, norm, transposed);
        }
      }
}

}  // namespace keep_input
}  // namespace
}  // namespace dfft_test
