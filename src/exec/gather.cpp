// SPDX-License-Identifier: MIT
#include "exec/gather.hpp"

#include <algorithm>

#include "plan/path.hpp"
#include "util/check.hpp"

namespace dfft::detail {

std::vector<Layout> allgather_layouts(MPI_Comm comm_, const Layout& l, int d) {
  int size_ = 0;
  DFFT_MPI(MPI_Comm_size(comm_, &size_));
  // Every rank's layout, as 5*d+1 int64 per rank: lo, hi, order, padded (0 = none), whether it
  // has an offset, offset.
  // Checked collectively: a rank that throws alone would leave the others in MPI_Allgather.
  int ok = l.box.dims() == d && static_cast<int>(l.box.hi.size()) == d &&
           static_cast<int>(l.order.size()) == d &&
           (l.padded.empty() || static_cast<int>(l.padded.size()) == d) &&
           (l.offset.empty() || static_cast<int>(l.offset.size()) == d);
  int all_ok = 0;
  DFFT_MPI(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm_));
  if (!all_ok)
    fail("a user layout must have ", d, " entries in lo, hi, order (and padded, offset, if given)",
         ok ? " (another rank's layout is wrong)" : "");
  std::vector<std::int64_t> mine;
  for (int a = 0; a < d; ++a) mine.push_back(l.box.lo[a]);
  for (int a = 0; a < d; ++a) mine.push_back(l.box.hi[a]);
  for (int a = 0; a < d; ++a) mine.push_back(l.order[a]);
  for (int a = 0; a < d; ++a) mine.push_back(l.padded.empty() ? 0 : l.padded[a]);
  mine.push_back(l.offset.empty() ? 0 : 1);
  for (int a = 0; a < d; ++a) mine.push_back(l.offset.empty() ? 0 : l.offset[a]);
  std::vector<std::int64_t> all(mine.size() * static_cast<std::size_t>(size_));
  DFFT_MPI(MPI_Allgather(mine.data(), 5 * d + 1, MPI_INT64_T, all.data(), 5 * d + 1, MPI_INT64_T, comm_));
  std::vector<Layout> out(size_);
  for (int r = 0; r < size_; ++r) {
    const std::int64_t* v = all.data() + static_cast<std::size_t>(r) * (5 * d + 1);
    out[r].box.lo.assign(v, v + d);
    out[r].box.hi.assign(v + d, v + 2 * d);
    out[r].order.assign(v + 2 * d, v + 3 * d);
    if (v[3 * d] != 0) out[r].padded.assign(v + 3 * d, v + 4 * d);
    if (v[4 * d] != 0) out[r].offset.assign(v + 4 * d + 1, v + 5 * d + 1);
  }
  return out;
}

int common_dims(MPI_Comm comm, int d) {
  int dmin = 0, dmax = 0;
  DFFT_MPI(MPI_Allreduce(&d, &dmin, 1, MPI_INT, MPI_MIN, comm));
  DFFT_MPI(MPI_Allreduce(&d, &dmax, 1, MPI_INT, MPI_MAX, comm));
  if (dmin != dmax || dmin < 1) fail("ranks disagree on the number of dimensions of the boxes");
  return d;
}

std::vector<std::int64_t> tiled_shape(const std::vector<Layout>& ls, const char* what) {
  const int d = ls.empty() ? 0 : ls[0].box.dims();
  std::vector<std::int64_t> shape(d, 0);
  for (const auto& l : ls)
    if (!l.box.empty())
      for (int a = 0; a < d && a < l.box.dims(); ++a) shape[a] = std::max(shape[a], l.box.hi[a]);
  check_tiling(ls, shape, what);
  return shape;
}

}  // namespace dfft::detail
