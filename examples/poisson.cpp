// SPDX-License-Identifier: MIT
// Spectral Poisson solver with dfft: solve  laplace(u) = f  on the periodic box [0, 2pi)^3.
//
// In Fourier space the Laplacian is a multiplication by -|k|^2, so
//     u_hat(k) = -f_hat(k) / |k|^2   for k != 0,   u_hat(0) = 0 (u has zero mean).
// Three steps: forward r2c transform of f, divide by -|k|^2, inverse c2r transform (which scales
// by 1/N: Options::norm is backward by default, as in numpy.fft). For a smooth periodic f the error falls
// faster than any power of the grid spacing ("spectral convergence"); this program prints it
// for a forcing whose solution is known: u = exp(sin x + cos y + sin z) minus its mean.
//
//   mpirun -np 4 build/bin/examples/poisson             # N = 8, 16, 32
//   mpirun -np 4 build/bin/examples/poisson 64 pencil   # one size, another decomposition
//
// Exit status 0 when the error at the largest size is below 1e-10.
#include <mpi.h>
#include <dfft/dfft.hpp>

#include <cmath>
#include <complex>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

namespace {

double u_exact(double x, double y, double z) {
  return std::exp(std::sin(x) + std::cos(y) + std::sin(z));
}

// laplace(u) = u * (d2/dx2 + d2/dy2 + d2/dz2 of the exponent plus its squared gradient).
double forcing(double x, double y, double z) {
  const double cx = std::cos(x), sy = std::sin(y), cz = std::cos(z);
  return u_exact(x, y, z) * (cx * cx - std::sin(x) + sy * sy - std::cos(y) + cz * cz - std::sin(z));
}

// Wavenumber of index i on an axis of n points (the upper half of the indices are negative k).
double wavenumber(std::int64_t i, std::int64_t n) {
  return static_cast<double>(i <= n / 2 ? i : i - n);
}

// Calls fn(i, j, k, offset) for every point of this rank's box; offset is the position in the
// local array (the layout may store the axes in any order, so use its strides).
template <class Fn>
void for_each_point(const dfft::Layout& l, Fn fn) {
  const auto& lo = l.box.lo;
  const auto& hi = l.box.hi;
  const auto s = l.strides();
  for (std::int64_t i = lo[0]; i < hi[0]; ++i)
    for (std::int64_t j = lo[1]; j < hi[1]; ++j)
      for (std::int64_t k = lo[2]; k < hi[2]; ++k)
        fn(i, j, k, (i - lo[0]) * s[0] + (j - lo[1]) * s[1] + (k - lo[2]) * s[2]);
}

// Solves on an n^3 grid and returns max |u - u_exact| / max |u_exact| over all ranks.
double solve(std::int64_t n, const dfft::Options& opt, MPI_Comm comm) {
  dfft::Plan<double> plan(comm, {n, n, n}, opt);
  const double h = 2 * std::numbers::pi / static_cast<double>(n);
  std::vector<double> f(static_cast<std::size_t>(plan.input_count()));
  std::vector<std::complex<double>> f_hat(static_cast<std::size_t>(plan.output_count()));
  for_each_point(plan.input_layout(), [&](auto i, auto j, auto k, auto at) {
    f[static_cast<std::size_t>(at)] = forcing(i * h, j * h, k * h);
  });

  plan.forward(f.data(), f_hat.data());
  for_each_point(plan.output_layout(), [&](auto i, auto j, auto k, auto at) {
    const double kx = wavenumber(i, n), ky = wavenumber(j, n),
                 kz = static_cast<double>(k);  // r2c: k >= 0
    const double k2 = kx * kx + ky * ky + kz * kz;
    f_hat[static_cast<std::size_t>(at)] *= k2 > 0 ? -1.0 / k2 : 0.0;
  });
  std::vector<double>& u = f;  // the inverse writes the solution over the forcing
  plan.inverse(f_hat.data(), u.data());

  // The exact solution is defined up to a constant: compare with its zero-mean version.
  double sum = 0, total = 0;
  for_each_point(plan.input_layout(),
                 [&](auto i, auto j, auto k, auto) { sum += u_exact(i * h, j * h, k * h); });
  MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
  const double mean = total / static_cast<double>(n * n * n);
  double err[2] = {0, 0}, all[2];
  for_each_point(plan.input_layout(), [&](auto i, auto j, auto k, auto at) {
    const double exact = u_exact(i * h, j * h, k * h) - mean;
    err[0] = std::max(err[0], std::abs(u[static_cast<std::size_t>(at)] - exact));
    err[1] = std::max(err[1], std::abs(exact));
  });
  MPI_Allreduce(err, all, 2, MPI_DOUBLE, MPI_MAX, comm);
  return all[0] / all[1];
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::vector<std::int64_t> sizes{8, 16, 32};
  dfft::Options opt;  // slab-2d1d, default variant, a2a-sync; r2c
  if (argc > 1) sizes = {std::stoll(argv[1])};
  int status = 0;
  try {
    if (argc > 2) opt.decomposition = dfft::parse_decomposition(argv[2]);
    if (rank == 0)
      std::printf("Poisson, u = exp(sin x + cos y + sin z), %d rank%s, %s\n%6s  %s\n", ranks,
                  ranks == 1 ? "" : "s", dfft::to_string(opt.decomposition).c_str(), "N",
                  "max error / max |u|");
    double err = 0;
    for (auto n : sizes) {
      err = solve(n, opt, MPI_COMM_WORLD);
      if (rank == 0) std::printf("%4lld^3  %.3e\n", static_cast<long long>(n), err);
    }
    status = err < 1e-10 ? 0 : 1;
  } catch (const std::exception& e) {  // dfft::Error: bad options for this rank count, MPI failure
    if (rank == 0) std::fprintf(stderr, "poisson: %s\n", e.what());
    status = 2;
  }
  MPI_Finalize();
  return status;
}
