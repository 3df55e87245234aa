// SPDX-License-Identifier: MIT
// The Laplacian validation of the thesis (section 2.6) as a user program: differentiate a smooth
// periodic function spectrally with dfft and compare with the analytic Laplacian.
//
//   laplace(u) = inverse( -|k|^2 * forward(u) )   (the inverse scales by 1/N: norm backward)
//
// with u = exp(sin x + cos y + sin z) on [0, 2pi)^3. The relative L2 error shrinks
// spectrally with N until rounding (times |k|^2) limits it. Here with the pencil decomposition;
// any decomposition, variant and method gives the same numbers.
//
//   mpirun -np 4 build/bin/examples/laplacian            # N = 8, 16, 32, 64
//   mpirun -np 4 build/bin/examples/laplacian 48 slab-1d2d
//
// Exit status 0 when the error at the largest size is below 1e-9.
#include <mpi.h>
#include <dfft/dfft.hpp>

#include <cmath>
#include <complex>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

namespace {

double u_of(double x, double y, double z) {
  return std::exp(std::sin(x) + std::cos(y) + std::sin(z));
}

double laplacian_of(double x, double y, double z) {
  const double cx = std::cos(x), sy = std::sin(y), cz = std::cos(z);
  return u_of(x, y, z) * (cx * cx - std::sin(x) + sy * sy - std::cos(y) + cz * cz - std::sin(z));
}

double wavenumber(std::int64_t i, std::int64_t n) {
  return static_cast<double>(i <= n / 2 ? i : i - n);
}

// Calls fn(i, j, k, offset) for every point of this rank's box in a layout of any memory order.
template <class Fn>
void for_each_point(const dfft::Layout& l, Fn fn) {
  const auto s = l.strides();
  for (std::int64_t i = l.box.lo[0]; i < l.box.hi[0]; ++i)
    for (std::int64_t j = l.box.lo[1]; j < l.box.hi[1]; ++j)
      for (std::int64_t k = l.box.lo[2]; k < l.box.hi[2]; ++k)
        fn(i, j, k, (i - l.box.lo[0]) * s[0] + (j - l.box.lo[1]) * s[1] + (k - l.box.lo[2]) * s[2]);
}

// Relative L2 error of the spectral Laplacian on an n^3 grid.
double laplacian_error(std::int64_t n, const dfft::Options& opt, MPI_Comm comm) {
  dfft::Plan<double> plan(comm, {n, n, n}, opt);
  const double h = 2 * std::numbers::pi / static_cast<double>(n);
  std::vector<double> u(static_cast<std::size_t>(plan.input_count()));
  std::vector<std::complex<double>> u_hat(static_cast<std::size_t>(plan.output_count()));
  for_each_point(plan.input_layout(), [&](auto i, auto j, auto k, auto at) {
    u[static_cast<std::size_t>(at)] = u_of(i * h, j * h, k * h);
  });
  plan.forward(u.data(), u_hat.data());
  for_each_point(plan.output_layout(), [&](auto i, auto j, auto k, auto at) {
    const double kx = wavenumber(i, n), ky = wavenumber(j, n), kz = static_cast<double>(k);
    u_hat[static_cast<std::size_t>(at)] *= -(kx * kx + ky * ky + kz * kz);
  });
  plan.inverse(u_hat.data(), u.data());  // u now holds the spectral Laplacian
  double sums[2] = {0, 0}, all[2];
  for_each_point(plan.input_layout(), [&](auto i, auto j, auto k, auto at) {
    const double exact = laplacian_of(i * h, j * h, k * h),
                 d = u[static_cast<std::size_t>(at)] - exact;
    sums[0] += d * d;
    sums[1] += exact * exact;
  });
  MPI_Allreduce(sums, all, 2, MPI_DOUBLE, MPI_SUM, comm);
  return std::sqrt(all[0] / all[1]);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::vector<std::int64_t> sizes{8, 16, 32, 64};
  dfft::Options opt;
  opt.decomposition = dfft::Decomposition::pencil;
  if (argc > 1) sizes = {std::stoll(argv[1])};
  int status = 0;
  try {
    if (argc > 2) opt.decomposition = dfft::parse_decomposition(argv[2]);
    if (rank == 0)
      std::printf("Spectral Laplacian of exp(sin x + cos y + sin z), %d rank%s, %s\n%6s  %s\n",
                  ranks, ranks == 1 ? "" : "s", dfft::to_string(opt.decomposition).c_str(), "N",
                  "relative L2 error");
    double err = 0;
    for (auto n : sizes) {
      err = laplacian_error(n, opt, MPI_COMM_WORLD);
      if (rank == 0) std::printf("%4lld^3  %.3e\n", static_cast<long long>(n), err);
    }
    status = err < 1e-9 ? 0 : 1;
  } catch (const std::exception& e) {
    if (rank == 0) std::fprintf(stderr, "laplacian: %s\n", e.what());
    status = 2;
  }
  MPI_Finalize();
  return status;
}
