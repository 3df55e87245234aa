// SPDX-License-Identifier: MIT
// The one idea of dfft: a distributed FFT is a path through layouts.
//
// make_path() turns (shape, decomposition, variant, grid, this rank's grid coordinates) into a
// list of steps. An FFT step transforms some axes locally (all of them unsplit on every rank)
// from one memory order to another; an Exchange step moves data within the sub-communicator of
// one grid dimension from one distribution to the next. Every decomposition is only a list of
// distributions and the axes transformed in each; Default and Realigned differ only in the
// memory order the FFT before each exchange writes. Whether an exchange must pack or unpack is
// derived from the layouts (geometry.hpp), never written per variant.
#pragma once

#include <string>
#include <vector>

#include "dfft/types.hpp"
#include "plan/geometry.hpp"

namespace dfft::detail {

struct FftStep {
  std::vector<int> axes;  // transformed axes; with r2c the last one is the halved axis
  bool r2c = false;       // the real <-> complex step (forward r2c, inverse c2r)
  std::vector<R2R> r2r;   // per axis of the layouts: DCT/DST axes; empty: all periodic
  Layout in, out;         // this rank; for r2c `in` is the real box, `out` the complex box
  /// Padding (Options::padding): `out` with the whole spectrum of the padded grid on the
  /// transformed padded axes, which the executor truncates to `out` (forward) or zero-pads
  /// `out` into (inverse). No dimensions: no padded axis in this step.
  Layout wide;
};

struct ExchangeStep {
  int grid_dim = 0;               // sub-communicator: ranks that differ only in this coordinate;
                                  // -1: the whole communicator (a reshape from/to user boxes)
  bool real = false;              // moves reals (r2r plans; reshape of an r2c plan's input)
  std::vector<Layout> src, dst;   // per member of the sub-communicator (index = coordinate)
  int me = 0;                     // this rank's index in the sub-communicator
  int index = -1;                 // which exchange of the decomposition (Options::methods order)
};

struct Step {
  enum class Kind { fft, exchange } kind;
  FftStep fft;
  ExchangeStep exchange;
};

struct Path {
  std::vector<int> grid, coords;
  std::vector<Distribution> distributions;  // one per FFT step
  int exchanges = 0;  // exchanges of the decomposition, trivial ones merged away included
  std::vector<Step> steps;
  Layout input, output;
};

/// Shape on the spectral side: last axis n/2+1 for r2c.
std::vector<std::int64_t> spectral_shape(const std::vector<std::int64_t>& shape, Transform t);

/// The grid the plan uses: validates a given one or picks one for `ranks`.
std::vector<int> choose_grid(Decomposition d, const std::vector<int>& requested, int ranks,
                             int dims);

/// Layouts the user asked for, one per rank of the communicator (d-dimensional, without the
/// batch axis); empty: the decomposition's own.
struct UserLayouts {
  std::vector<Layout> in, out;
};

/// Build the path for this rank (`rank` of the communicator; grid coordinates follow from it).
/// Throws dfft::Error for sizes the grid cannot split and for user boxes that do not tile.
Path make_path(const std::vector<std::int64_t>& shape, const Options& opt,
               const std::vector<int>& grid, int rank, const UserLayouts& user = {});

/// Checks that the boxes tile `shape` exactly (disjoint, covering); throws naming `what`.
void check_tiling(const std::vector<Layout>& layouts, const std::vector<std::int64_t>& shape,
                  const char* what);

/// Text description (for --verbose and docs).
std::string describe(const Path& p);

}  // namespace dfft::detail
