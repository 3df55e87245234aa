// SPDX-License-Identifier: MIT
// Links against an installed dfft and runs one small r2c round trip. Exit code 0 means the
// installed headers, library and its link dependencies (MPI, FFTW) all work from outside the tree.
#include <mpi.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <vector>

#include "dfft/dfft.hpp"

int main(int argc, char** argv) {
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
  int code = 0;
  try {
    dfft::Options opt;
    opt.decomposition = dfft::Decomposition::pencil;
    opt.norm = dfft::Norm::backward;
    dfft::Plan<double> plan(MPI_COMM_WORLD, {9, 8, 6}, opt);
    std::vector<double> in(plan.input_count()), back(plan.input_count());
    std::vector<std::complex<double>> out(plan.output_count());
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = std::sin(0.37 * static_cast<double>(i));
    plan.forward(in.data(), out.data());
    plan.inverse(out.data(), back.data());
    double err = 0;
    for (std::size_t i = 0; i < in.size(); ++i) err = std::max(err, std::abs(back[i] - in[i]));
    std::printf("downstream: dfft round trip max error %.2e\n", err);
    code = err < 1e-12 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "downstream: %s\n", e.what());
    code = 1;
  }
  if (MPI_Finalize() != MPI_SUCCESS) return 1;
  return code;
}
