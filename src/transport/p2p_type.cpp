// SPDX-License-Identifier: MIT
// p2p-type (thesis Listings 4.4/4.5): Isend/Irecv with derived datatypes, no packing at all.
#include <vector>

#include "transport/box_types.hpp"
#include "util/check.hpp"

namespace dfft::detail {

namespace {

class P2pType final : public InPlaceTransport {
 public:
  P2pType(MPI_Comm comm, const ExchangeSpec& s, Device& dev)
      : InPlaceTransport(s, dev), comm_(comm) {}

  void exchange(const void* src, void* dst, StageTiming& t) override {
    std::vector<MPI_Request> req;
    const auto peers = ring_peers(b_.spec.me, b_.size());
    PhaseTimer pt(t.comm);
    for (int k : peers)
      for (std::size_t p = 0; p < types_.recv[k].size(); ++p) {
        req.emplace_back();
        DFFT_MPI(MPI_Irecv(dst, 1, types_.recv[k][p], k, static_cast<int>(p % 32768), comm_,
                           &req.back()));
      }
    for (int k : peers)
      for (std::size_t p = 0; p < types_.send[k].size(); ++p) {
        req.emplace_back();
        DFFT_MPI(MPI_Isend(src, 1, types_.send[k][p], k, static_cast<int>(p % 32768), comm_,
                           &req.back()));
      }
    DFFT_MPI(MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE));
  }

 private:
  MPI_Comm comm_;
};

}  // namespace

std::unique_ptr<Transport> make_p2p_type(MPI_Comm c, const ExchangeSpec& s, Device& d) {
  return std::make_unique<P2pType>(c, s, d);
}

}  // namespace dfft::detail
