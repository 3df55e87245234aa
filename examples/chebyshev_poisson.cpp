// SPDX-License-Identifier: MIT
// Chebyshev-Fourier-Fourier Poisson solver with dfft: solve  laplace(u) = f  on
// [-1, 1] x [0, 2pi) x [0, 2pi) with u = 0 at x = -1 and x = 1 (Dirichlet), periodic in y and z.
//
// x is sampled on the n Chebyshev-Gauss-Lobatto points x_i = cos(pi i / M), M = n - 1, y and z on
// uniform periodic grids. One r2c plan with r2r = {dct1, none, none} takes f to its Chebyshev
// coefficients in x and Fourier coefficients in y and z: the DCT-I of samples on those points is,
// per x line, F_m = M c_m a_m with a_m the coefficient of the Chebyshev polynomial T_m and
// c_0 = c_M = 2, c_m = 1 otherwise (docs/r2r.md has the DCT-I's definition). For each Fourier
// mode (ky, kz) the x line then solves
//     u'' - (ky^2 + kz^2) u = f,   u(-1) = u(1) = 0
// by the Chebyshev tau method: rows m = 0..M-2 equate the coefficients of u'' - K^2 u and f,
// with the coefficients of u'' from those of u,
//     a''_m = (1 / c'_m) sum_{p = m+2, m+p even}^{M} p (p^2 - m^2) a_p   (c'_0 = 2, c'_m = 1),
// and the last two rows are the boundary values u(1) = sum_p a_p, u(-1) = sum_p (-1)^p a_p.
// The inverse transform takes the solution's coefficients back to the grid (forward then
// inverse is the identity: Options::norm is backward).
//
// The solve needs whole x lines in the spectral array. Every decomposition transforms x last, so
// the forward output holds whole x lines whichever decomposition the plan picks; the program
// checks that rather than assuming it.
//
// The manufactured solution u = sin(pi x) exp(sin y + cos z) is entire, so its Chebyshev and
// Fourier coefficients fall faster than any power: the error falls spectrally with n until
// rounding limits it. Rounding is amplified by the tau system, whose condition number grows like
// M^4 (about 1e6 at M = 32), so the error of the largest default size (n = 33, truncation error
// far below 1e-13) is bounded by 1e6 times double rounding, about 1e-10; the program fails above
// 1e-8, which leaves a factor 100 of margin for the accumulated rounding of the transforms.
//
//   mpirun -np 2 build/bin/examples/chebyshev_poisson            # n = 9, 17, 33
//   mpirun -np 4 build/bin/examples/chebyshev_poisson 25 pencil  # one size, another decomposition
//
// Exit status 0 when the error at the largest size is below 1e-8.
#include <mpi.h>
#include <dfft/dfft.hpp>

#include <cmath>
#include <complex>
#include <cstdio>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using cplx = std::complex<double>;
constexpr double kPi = std::numbers::pi;

double periodic_part(double y, double z) { return std::exp(std::sin(y) + std::cos(z)); }

double u_exact(double x, double y, double z) { return std::sin(kPi * x) * periodic_part(y, z); }

// laplace(u): -pi^2 u from x, and g (cos^2 y - sin y + sin^2 z - cos z) from g = exp(sin y + cos
// z).
double forcing(double x, double y, double z) {
  const double g = periodic_part(y, z), cy = std::cos(y), sz = std::sin(z);
  return std::sin(kPi * x) * g * (-kPi * kPi + cy * cy - std::sin(y) + sz * sz - std::cos(z));
}

// Wavenumber of index i on a periodic axis of n points (the upper half of the indices are negative
// k).
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

// The tau system of u'' - k2 u = f on n Chebyshev coefficients, row-major n x n.
std::vector<double> tau_matrix(int n, double k2) {
  const int M = n - 1;
  std::vector<double> A(static_cast<std::size_t>(n) * n, 0.0);
  auto at = [&](int r, int c) -> double& { return A[static_cast<std::size_t>(r) * n + c]; };
  for (int m = 0; m <= M - 2; ++m) {
    const double c = m == 0 ? 2.0 : 1.0;
    for (int p = m + 2; p <= M; p += 2)
      at(m, p) = p * (static_cast<double>(p) * p - static_cast<double>(m) * m) / c;
    at(m, m) -= k2;
  }
  for (int p = 0; p <= M; ++p) {
    at(M - 1, p) = 1.0;                  // u(1)
    at(M, p) = p % 2 == 0 ? 1.0 : -1.0;  // u(-1)
  }
  return A;
}

// Solves A x = b in place (Gaussian elimination with partial pivoting; A is overwritten).
void solve_dense(int n, std::vector<double>& A, std::vector<cplx>& b) {
  auto at = [&](int r, int c) -> double& { return A[static_cast<std::size_t>(r) * n + c]; };
  for (int col = 0; col < n; ++col) {
    int piv = col;
    for (int r = col + 1; r < n; ++r)
      if (std::abs(at(r, col)) > std::abs(at(piv, col))) piv = r;
    if (at(piv, col) == 0.0) throw std::runtime_error("singular tau system");
    if (piv != col) {
      for (int c = 0; c < n; ++c) std::swap(at(col, c), at(piv, c));
      std::swap(b[col], b[piv]);
    }
    for (int r = col + 1; r < n; ++r) {
      const double f = at(r, col) / at(col, col);
      if (f == 0.0) continue;
      for (int c = col; c < n; ++c) at(r, c) -= f * at(col, c);
      b[r] -= f * b[col];
    }
  }
  for (int r = n - 1; r >= 0; --r) {
    cplx s = b[r];
    for (int c = r + 1; c < n; ++c) s -= at(r, c) * b[c];
    b[r] = s / at(r, r);
  }
}

// Solves on an n^3 grid and returns max |u - u_exact| / max |u_exact| over all ranks.
double solve(std::int64_t n, dfft::Options opt, MPI_Comm comm) {
  opt.transform = dfft::Transform::r2c;
  opt.r2r = {dfft::R2R::dct1, dfft::R2R::none, dfft::R2R::none};
  dfft::Plan<double> plan(comm, {n, n, n}, opt);
  const double h = 2 * kPi / static_cast<double>(n);
  const auto M = n - 1;
  auto x_of = [&](std::int64_t i) {
    return std::cos(kPi * static_cast<double>(i) / static_cast<double>(M));
  };
  std::vector<double> f(static_cast<std::size_t>(plan.input_count()));
  std::vector<cplx> f_hat(static_cast<std::size_t>(plan.output_count()));
  for_each_point(plan.input_layout(), [&](auto i, auto j, auto k, auto at) {
    f[static_cast<std::size_t>(at)] = forcing(x_of(i), j * h, k * h);
  });
  plan.forward(f.data(), f_hat.data());

  const auto& out = plan.output_layout();
  // Checked on every rank together, so that all of them stop (one rank alone would leave the
  // others waiting in the inverse transform).
  int whole = out.box.count() == 0 || (out.box.lo[0] == 0 && out.box.hi[0] == n), all_whole = 0;
  MPI_Allreduce(&whole, &all_whole, 1, MPI_INT, MPI_MIN, comm);
  if (!all_whole)
    throw std::runtime_error("the spectral array does not hold whole x lines on every rank");
  const auto s = out.strides();
  // DCT-I output m of a line is M c_m times the Chebyshev coefficient a_m.
  auto scale = [&](std::int64_t m) {
    return static_cast<double>(M) * (m == 0 || m == M ? 2.0 : 1.0);
  };
  const int coefficients = static_cast<int>(n);
  std::vector<cplx> b(static_cast<std::size_t>(n));
  for (std::int64_t j = out.box.lo[1]; j < out.box.hi[1]; ++j)
    for (std::int64_t k = out.box.lo[2]; k < out.box.hi[2]; ++k) {
      const double ky = wavenumber(j, n), kz = static_cast<double>(k);  // r2c: kz >= 0
      const std::int64_t base = (j - out.box.lo[1]) * s[1] + (k - out.box.lo[2]) * s[2];
      auto elem = [&](std::int64_t m) -> cplx& {
        return f_hat[static_cast<std::size_t>(base + m * s[0])];
      };
      // Right-hand side: f's Chebyshev coefficients in rows 0..M-2, the boundary values 0.
      for (std::int64_t m = 0; m < n; ++m)
        b[static_cast<std::size_t>(m)] = m <= M - 2 ? elem(m) / scale(m) : 0.0;
      auto A = tau_matrix(coefficients, ky * ky + kz * kz);
      solve_dense(coefficients, A, b);
      for (std::int64_t m = 0; m < n; ++m) elem(m) = b[static_cast<std::size_t>(m)] * scale(m);
    }
  std::vector<double>& u = f;  // the inverse writes the solution over the forcing
  plan.inverse(f_hat.data(), u.data());

  double err[2] = {0, 0}, all[2];
  for_each_point(plan.input_layout(), [&](auto i, auto j, auto k, auto at) {
    const double exact = u_exact(x_of(i), j * h, k * h);
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
  std::vector<std::int64_t> sizes{9, 17, 33};
  dfft::Options opt;  // decomposition, variant and methods chosen when the plan is made
  int status = 0;
  try {
    if (argc > 1) sizes = {std::stoll(argv[1])};
    if (argc > 2) opt.decomposition = dfft::parse_decomposition(argv[2]);
    if (rank == 0)
      std::printf(
          "Chebyshev-Fourier-Fourier Poisson, u = sin(pi x) exp(sin y + cos z), Dirichlet in x, %d "
          "rank%s\n"
          "%6s  %s\n",
          ranks, ranks == 1 ? "" : "s", "n", "max error / max |u|");
    double err = 0;
    for (auto n : sizes) {
      err = solve(n, opt, MPI_COMM_WORLD);
      if (rank == 0) std::printf("%4lld^3  %.3e\n", static_cast<long long>(n), err);
    }
    status = err < 1e-8 ? 0 : 1;
  } catch (const std::exception& e) {  // dfft::Error: bad options for this rank count, MPI failure
    if (rank == 0) std::fprintf(stderr, "chebyshev_poisson: %s\n", e.what());
    status = 2;
  }
  MPI_Finalize();
  return status;
}
