// SPDX-License-Identifier: MIT
// a2a-type (thesis Listing 4.7, and the mpi4py-fft exchange): MPI_Alltoallw with one datatype
// per peer describing its block in place; more rounds when a block exceeds the message limit.
#include <vector>

#include "plan/geometry.hpp"
#include "transport/box_types.hpp"
#include "util/check.hpp"

namespace dfft::detail {

namespace {

class A2aType final : public InPlaceTransport {
 public:
  A2aType(MPI_Comm comm, const ExchangeSpec& s, Device& dev)
      : InPlaceTransport(s, dev), comm_(comm) {
    const int n = b_.size();
    const auto max_elems =
        std::max<std::int64_t>(1, s.max_message_bytes / static_cast<std::int64_t>(s.elem));
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        Box blk = intersect(s.src[i].box, s.dst[j].box);
        if (i != j && !blk.empty())
          rounds_ = std::max(rounds_, static_cast<int>(split_box(blk, max_elems).size()));
      }
  }

  void exchange(const void* src, void* dst, StageTiming& t) override {
    const int n = b_.size();
    std::vector<int> sc(n), rc(n), zero(n, 0);
    std::vector<MPI_Datatype> st(n, elem_), rt(n, elem_);
    PhaseTimer pt(t.comm);
    for (int r = 0; r < rounds_; ++r) {
      for (int k = 0; k < n; ++k) {
        bool s_has = r < static_cast<int>(types_.send[k].size());
        bool r_has = r < static_cast<int>(types_.recv[k].size());
        sc[k] = s_has;
        rc[k] = r_has;
        st[k] = s_has ? types_.send[k][r] : elem_;
        rt[k] = r_has ? types_.recv[k][r] : elem_;
      }
      DFFT_MPI(MPI_Alltoallw(src, sc.data(), zero.data(), st.data(), dst, rc.data(), zero.data(),
                             rt.data(), comm_));
    }
  }

 private:
  MPI_Comm comm_;
  int rounds_ = 0;
};

}  // namespace

std::unique_ptr<Transport> make_a2a_type(MPI_Comm c, const ExchangeSpec& s, Device& d) {
  return std::make_unique<A2aType>(c, s, d);
}

}  // namespace dfft::detail
