#include <mpi.h>
#include <cstdio>
#include <cmath>
#include "dfft/dfft.hpp"
#include "dfft/validate.hpp"
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int bad = 0;
  for (auto dec : {dfft::Decomposition::slab_2d1d, dfft::Decomposition::slab_1d2d, dfft::Decomposition::pencil})
  for (auto var : {dfft::Variant::Default, dfft::Variant::Realigned})
  for (auto m : {dfft::Method::a2a_sync, dfft::Method::a2a_type, dfft::Method::p2p_sync, dfft::Method::p2p_type})
  for (auto tr : {dfft::Transform::r2c, dfft::Transform::c2c}) {
    dfft::Options o; o.decomposition = dec; o.variant = var; o.methods = {m}; o.transform = tr;
    try {
    dfft::Plan<double> p(MPI_COMM_WORLD, {17, 12, 10}, o);
    double e1 = dfft::validate::reference_error(p, MPI_COMM_WORLD);
    double e2 = dfft::validate::roundtrip_error(p, MPI_COMM_WORLD);
    double e3 = dfft::validate::laplacian_error(p, MPI_COMM_WORLD);
    bool ok = e1 < 1e-12 && e2 < 1e-12 && e3 < 1e-10;
    bad += !ok;
    if (rank == 0) std::printf("%s %s %s %s ref=%.2e rt=%.2e lap=%.2e %s\n", to_string(dec).c_str(), to_string(var).c_str(), to_string(m).c_str(), to_string(tr).c_str(), e1, e2, e3, ok?"ok":"FAIL");
    if (rank == 0 && !ok) std::printf("%s", p.describe().c_str());
    } catch (std::exception& e) { std::printf("rank %d: %s\n", rank, e.what()); bad++; }
  }
  MPI_Finalize();
  return bad != 0;
}
