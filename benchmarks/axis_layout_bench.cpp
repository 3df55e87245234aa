// SPDX-License-Identifier: MIT
// axis-layout-bench: what the memory order costs a strided 1-D FFT stage. A slab's last stage
// transforms the first axis x of a local block of x = N, y = Y (the rank's share), z = N/2+1
// complex elements. In dfft's natural order (x, y, z) consecutive x are Y(N/2+1) elements apart;
// with y slowest (y, x, z: FFTW-MPI's transposed output) they are N/2+1 apart; with x contiguous
// (y, z, x) 1 apart. One FFTW plan per order (FFTW_MEASURE, out of place, same order in and out;
// and natural in, y-slowest out), timed on one core: the best of `reps` executions after one.
//   axis-layout-bench N Y [reps]      e.g. axis-layout-bench 512 32
#include <fftw3.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

namespace {

struct Order {
  const char* name;
  fftw_iodim64 axis, batch[2];  // x; then y and z (in and out strides alike except where noted)
};

double best_ms(fftw_plan p, int reps) {
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r <= reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    fftw_execute(p);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0 && ms < best) best = ms;
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: axis-layout-bench N Y [reps]\n");
    return 2;
  }
  const std::ptrdiff_t n = std::atol(argv[1]), y = std::atol(argv[2]), m = n / 2 + 1;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 5;
  if (n < 2 || y < 1 || reps < 1) {
    std::fprintf(stderr, "axis-layout-bench: N >= 2, Y >= 1, reps >= 1\n");
    return 2;
  }
  const std::size_t count = static_cast<std::size_t>(n * y * m);
  fftw_complex* a = fftw_alloc_complex(count);
  fftw_complex* b = fftw_alloc_complex(count);
  if (!a || !b) {
    std::fprintf(stderr, "axis-layout-bench: cannot allocate 2 x %zu complex values\n", count);
    return 1;
  }
  const Order orders[] = {
      {"x,y,z (natural)", {n, y * m, y * m}, {{y, m, m}, {m, 1, 1}}},
      {"y,x,z (y slowest)", {n, m, m}, {{y, n * m, n * m}, {m, 1, 1}}},
      {"y,z,x (x contiguous)", {n, 1, 1}, {{y, m * n, m * n}, {m, n, n}}},
      {"x,y,z in, y,x,z out", {n, y * m, m}, {{y, m, n * m}, {m, 1, 1}}},
  };
  std::printf("1-D complex FFT along x of a %td x %td x %td block (x, y, z), double, one core\n", n, y, m);
  std::printf("%-24s %10s\n", "memory order", "best ms");
  for (const Order& o : orders) {
    fftw_plan p = fftw_plan_guru64_dft(1, &o.axis, 2, o.batch, a, b, FFTW_FORWARD, FFTW_MEASURE);
    if (!p) {
      std::fprintf(stderr, "axis-layout-bench: FFTW could not plan %s\n", o.name);
      return 1;
    }
    for (std::size_t i = 0; i < count; ++i) a[i][0] = 1, a[i][1] = 0;
    std::printf("%-24s %10.2f\n", o.name, best_ms(p, reps));
    fftw_destroy_plan(p);
  }
  fftw_free(a);
  fftw_free(b);
  return 0;
}
