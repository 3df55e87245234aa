// SPDX-License-Identifier: MIT
#include "fftw_mpi/distribution.hpp"

#include <algorithm>
#include <numeric>

#include "dfft/fft1d.hpp"

namespace dfft::fftw_mpi {

std::int64_t default_block(std::int64_t n, int ranks) {
  return std::max<std::int64_t>(1, (n + ranks - 1) / ranks);
}

Range block_range(std::int64_t n, std::int64_t block, int rank) {
  const std::int64_t lo = std::min(n, block * rank);
  const std::int64_t hi = std::min(n, lo + block);
  return {lo, hi - lo};
}

bool blocks_fit(std::int64_t n, std::int64_t block, int ranks) {
  return block > 0 && (n + block - 1) / block <= ranks;
}

bool is_distributed_1d(const Problem& p, int ranks) {
  return p.kind == Kind::dft && p.n.size() == 1 && ranks > 1 && p.block_in == 0 && p.block_out == 0;
}

namespace {

// Which side of the transform holds real numbers.
bool real_in(Kind k) { return k == Kind::r2c || k == Kind::r2r; }
bool real_out(Kind k) { return k == Kind::c2r || k == Kind::r2r; }

// The global shape of a side, without the vector axis: an r2c's spectrum (the c2r's input)
// has n/2+1 complex numbers on the last axis.
std::vector<std::int64_t> logical_shape(const Problem& p, bool spectral) {
  auto s = p.n;
  if (spectral && !s.empty()) s.back() = s.back() / 2 + 1;
  return s;
}

Side make_side(const Problem& p, bool input, int rank, int ranks) {
  const bool real = input ? real_in(p.kind) : real_out(p.kind);
  const bool spectral = (input && p.kind == Kind::c2r) || (!input && p.kind == Kind::r2c);
  const bool padded = real && p.kind != Kind::r2r;
  const bool transposed = (input ? p.transposed_in : p.transposed_out) && p.n.size() > 1;
  const std::int64_t given = input ? p.block_in : p.block_out;

  Side s;
  s.real = real;
  s.shape = logical_shape(p, spectral);
  const int rnk = static_cast<int>(s.shape.size());
  if (p.howmany > 1) s.shape.push_back(p.howmany);
  const int dims = static_cast<int>(s.shape.size());
  const int axis = transposed ? 1 : 0;
  const std::int64_t block = given > 0 ? given : default_block(s.shape[axis], ranks);
  Range r = block_range(s.shape[axis], block, rank);
  if (is_distributed_1d(p, ranks)) {
    // dfft::Fft1d's forward runs from its input blocks to its output blocks, its inverse back.
    const Fft1dBlocks b = fft1d_blocks(p.n[0], ranks, rank);
    const bool first = input != p.backward;
    r = first ? Range{b.input_start, b.input_count} : Range{b.output_start, b.output_count};
  }

  Layout& l = s.layout;
  l.box.lo.assign(dims, 0);
  l.box.hi = s.shape;
  l.box.lo[axis] = r.start;
  l.box.hi[axis] = r.start + r.count;
  l.order.resize(dims);
  std::iota(l.order.begin(), l.order.end(), 0);
  if (transposed) std::swap(l.order[0], l.order[1]);
  if (padded) {
    for (int a = 0; a < dims; ++a) l.padded.push_back(l.box.extent(a));
    l.padded[rnk - 1] = 2 * (p.n.back() / 2 + 1);
  }
  return s;
}

}  // namespace

Side input_side(const Problem& p, int rank, int ranks) { return make_side(p, true, rank, ranks); }
Side output_side(const Problem& p, int rank, int ranks) { return make_side(p, false, rank, ranks); }

bool distribution_fits(const Problem& p, int ranks) {
  for (bool input : {true, false}) {
    const Side s = make_side(p, input, 0, ranks);
    const int axis = (input ? p.transposed_in : p.transposed_out) && p.n.size() > 1 ? 1 : 0;
    const std::int64_t given = input ? p.block_in : p.block_out;
    if (given > 0 && !blocks_fit(s.shape[axis], given, ranks)) return false;
  }
  return true;
}

std::int64_t local_alloc(const Problem& p, int rank, int ranks) {
  // Counted in FFTW's units: complex numbers for every transform but r2r, where a padded real
  // row of 2 (n/2+1) numbers is n/2+1 complex ones.
  auto units = [&](const Side& s) {
    const std::int64_t e = s.elements();
    return s.real && p.kind != Kind::r2r ? (e + 1) / 2 : e;
  };
  return std::max({p.howmany, units(input_side(p, rank, ranks)), units(output_side(p, rank, ranks))});
}

}  // namespace dfft::fftw_mpi
