// SPDX-License-Identifier: MIT
// a2a-sync (thesis Listing 4.6): pack every block, one MPI_Alltoallv (more rounds when a block
// exceeds the message limit), unpack. Blocks that are already contiguous are sent from and
// received into the FFT buffers directly (Realigned).
#include <climits>
#include <vector>

#include "codec/codec.hpp"
#include "transport/pack_common.hpp"
#include "util/check.hpp"

namespace dfft::detail {

namespace {

class A2aSync final : public Transport {
 public:
  A2aSync(MPI_Comm comm, const ExchangeSpec& s, Device& dev)
      : comm_(comm), b_(s), dev_(dev), chunk_(chunk_bytes(b_)) {
    if (b_.any_pack) send_stage_ = Buffer(dev, b_.stage_send_bytes);
    if (b_.any_unpack) recv_stage_ = Buffer(dev, b_.stage_recv_bytes);
    DFFT_MPI(MPI_Type_contiguous(static_cast<int>(b_.unit), MPI_BYTE, &elem_type_));
    DFFT_MPI(MPI_Type_commit(&elem_type_));
    rounds_ = a2a_rounds(s, chunk_);
    const int n = b_.size();
    for (int k = 0; k < n; ++k) {
      auto hi = std::max({b_.src_offset[k], b_.dst_offset[k], b_.stage_send_off[k],
                          b_.stage_recv_off[k]}) / b_.unit;
      if (hi + chunk_ / b_.unit > INT_MAX)
        unsupported("a2a-sync addresses at most 2^31 elements per rank (MPI_Alltoallv displacements); "
             "use p2p-sync or p2p-type for this size");
    }
  }
  ~A2aSync() override { MPI_Type_free(&elem_type_); }

  void execute(const void* src, void* dst, StageTiming& t) override {
    const int n = b_.size(), me = b_.spec.me;
    const auto e = b_.unit;
    if (b_.any_pack) {
      PhaseTimer pt(t.pack);
      for (int k = 0; k < n; ++k)
        if (k != me) pack_block(dev_, b_, k, src, send_stage_.get());
    }
    const char* sbase = b_.any_pack ? static_cast<const char*>(send_stage_.get())
                                    : static_cast<const char*>(src);
    char* rbase = b_.any_unpack ? static_cast<char*>(recv_stage_.get()) : static_cast<char*>(dst);
    std::vector<int> sc(n), sd(n), rc(n), rd(n);
    {
      PhaseTimer pt(t.comm);
      for (std::int64_t r = 0; r < rounds_; ++r) {
        for (int k = 0; k < n; ++k) {
          auto so = b_.any_pack ? b_.stage_send_off[k] : b_.src_offset[k];
          auto ro = b_.any_unpack ? b_.stage_recv_off[k] : b_.dst_offset[k];
          auto sl = k == me ? 0 : std::clamp<std::int64_t>(b_.send_bytes[k] - r * chunk_, 0, chunk_);
          auto rl = k == me ? 0 : std::clamp<std::int64_t>(b_.recv_bytes[k] - r * chunk_, 0, chunk_);
          sc[k] = static_cast<int>(sl / e);
          rc[k] = static_cast<int>(rl / e);
          sd[k] = static_cast<int>((so + r * chunk_) / e * (sl > 0));
          rd[k] = static_cast<int>((ro + r * chunk_) / e * (rl > 0));
        }
        DFFT_MPI(MPI_Alltoallv(sbase, sc.data(), sd.data(), elem_type_, rbase, rc.data(), rd.data(),
                               elem_type_, comm_));
      }
    }
    PhaseTimer pt(t.unpack);
    copy_self(dev_, b_, src, dst);
    if (b_.any_unpack)
      for (int k = 0; k < n; ++k)
        if (k != me) unpack_block(dev_, b_, k, recv_stage_.get(), dst);
  }

 private:
  MPI_Comm comm_;
  Blocks b_;
  Device& dev_;
  std::int64_t chunk_;
  std::int64_t rounds_ = 0;
  Buffer send_stage_, recv_stage_;
  MPI_Datatype elem_type_ = MPI_DATATYPE_NULL;
};

}  // namespace

std::unique_ptr<Transport> make_a2a_sync(MPI_Comm c, const ExchangeSpec& s, Device& d) {
  return std::make_unique<A2aSync>(c, s, d);
}

}  // namespace dfft::detail
