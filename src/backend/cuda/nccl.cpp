// SPDX-License-Identifier: MIT
// nccl: grouped ncclSend/ncclRecv on the plan's streams, device memory only. Blocks that need
// packing are packed (or encoded) on the device first; blocks already contiguous are sent from
// (received into) the FFT buffers directly; the rank's own block is copied on a side stream
// meanwhile. With `chunks` > 1 (Options::chunks) blocks that need packing or unpacking are cut
// into chunks and pipelined: pack of chunk c+1, transfer of chunk c and unpack of chunk c-1 run
// together on three streams. Phase times come from CUDA events, so the streams are
// synchronised only once, at the end.
#include "backend/cuda/stager.hpp"

#if defined(DFFT_HAS_NCCL)

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>

#include "backend/cuda/codec.hpp"
#include "plan/geometry.hpp"

namespace dfft::detail {

namespace {

[[noreturn]] void throw_nccl(const char* call, ncclResult_t code) {
  const int r = world_rank();
  std::ostringstream s;
  s << "dfft: " << call << " failed with code " << static_cast<int>(code) << " ("
    << ncclGetErrorString(code) << ") on rank " << r;
  throw LibraryError(LibraryError::Library::nccl, call, static_cast<long>(code), r, s.str());
}

#define DFFT_NCCL(call)                                      \
  do {                                                       \
    const ncclResult_t dfft_nccl_rc_ = (call);               \
    if (dfft_nccl_rc_ != ncclSuccess) throw_nccl(#call, dfft_nccl_rc_); \
  } while (0)

// NCCL cannot put two ranks of one communicator on one GPU; say so clearly, on every rank of
// the plan (the check is collective over the plan's communicator, so no rank is left waiting).
void check_distinct_gpus(MPI_Comm sub, MPI_Comm plan, int ordinal) {
  cudaDeviceProp p{};
  DFFT_CUDA(cudaGetDeviceProperties(&p, ordinal));
  int n = 0;
  DFFT_MPI(MPI_Comm_size(sub, &n));
  std::vector<char> all(static_cast<std::size_t>(n) * sizeof(p.uuid));
  DFFT_MPI(MPI_Allgather(&p.uuid, sizeof(p.uuid), MPI_BYTE, all.data(), sizeof(p.uuid), MPI_BYTE, sub));
  int ok = 1, dup_a = -1, dup_b = -1;
  for (int i = 0; i < n && ok; ++i)
    for (int j = i + 1; j < n && ok; ++j)
      if (std::memcmp(&all[i * sizeof(p.uuid)], &all[j * sizeof(p.uuid)], sizeof(p.uuid)) == 0) {
        ok = 0;
        dup_a = i;
        dup_b = j;
      }
  int all_ok = 0;
  DFFT_MPI(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, plan));
  if (!all_ok) {
    std::ostringstream s;
    s << "method nccl needs one GPU per rank within each exchange's communicator, but ranks ";
    if (ok) s << "of another communicator";
    else s << dup_a << " and " << dup_b << " of this rank's communicator";
    s << " share a GPU; use fewer ranks per GPU or an MPI method";
    fail(s.str());
  }
}

// Blocks cut into chunks along their slowest wire axis (the sender's memory order, extent-1
// axes skipped): each chunk is packed (encoded), sent and unpacked (decoded) on its own, at the
// offsets below, so that sender and receiver, computing the same cut from the same box, pair
// their messages one to one. A chunk is at least `min_chunk` wire bytes. With `taper` (and at
// least 3 chunks) the first and the last chunk are half the others: the first transfer starts
// after packing half as much, and the last unpack after it is half as long (split_range).
struct NcclChunk {
  Box box;
  std::int64_t bytes = 0;  // on the wire (with the codec's header)
  std::int64_t off = 0;    // in the staging buffer
};

std::vector<NcclChunk> cut_block(const Box& box, const std::vector<int>& order, int chunks,
                                 std::int64_t min_chunk, bool taper, const ExchangeSpec& sp) {
  std::int64_t n = chunks;
  if (min_chunk > 0)
    n = std::min<std::int64_t>(n, std::max<std::int64_t>(1, wire_bytes(sp.codec, sp.elem, box.count()) / min_chunk));
  std::vector<NcclChunk> out;
  for (const Box& b : slabs_of(box, order, n, taper)) out.push_back({b, wire_bytes(sp.codec, sp.elem, b.count()), 0});
  return out;
}

/// DFFT_NCCL_MIN_CHUNK (bytes): the smallest chunk nccl cuts a block into (default 1 MiB; 0 lets
/// every block be cut into as many chunks as asked, which the tests use on small sizes).
std::int64_t nccl_min_chunk() {
  const char* v = std::getenv("DFFT_NCCL_MIN_CHUNK");
  if (!v || !*v) return std::int64_t{1} << 20;
  char* end = nullptr;
  const long long x = std::strtoll(v, &end, 10);
  if (*end || x < 0) fail("DFFT_NCCL_MIN_CHUNK must be a byte count >= 0, got '", v, "'");
  return x;
}

class NcclExchange final : public Transport {
 public:
  NcclExchange(MPI_Comm comm, const ExchangeSpec& s, CudaDevice& dev, int chunks, bool taper)
      : st_(s, dev, true, StageUse::blocks),
        ev_{Event(true), Event(true), Event(true), Event(true)},
        taper_(taper) {
    if (st_.blocks().size() > 1) nccl_ = dev.nccl_comm(comm);
    if (chunks < 1) fail("nccl: chunks must be >= 1, got ", chunks);
    if (chunks > 1 && st_.blocks().size() > 1) plan_chunks(comm, chunks);
  }

  void execute(const void* src, void* dst, StageTiming& t) override {
    enqueue(src, dst);
    finish(t);
  }
  // Everything is ordered on the calling thread's stream (ev_[3] last); only finish() waits.
  bool can_enqueue() const override { return true; }
  void enqueue(const void* src, void* dst) override {
    if (pipelined_) queue_chunked(src, dst);
    else queue_whole(src, dst);
  }
  void collect(StageTiming& t) override { finish(t); }

 private:
  // One message per peer: pack everything, one grouped send/receive, unpack everything.
  void queue_whole(const void* src, void* dst) {
    auto& dev = st_.dev();
    dev.activate();
    const cudaStream_t s = dev.stream();
    side_ = dev.side_stream(0);  // per call: the calling thread's lane decides (CommLane)
    const auto& b = st_.blocks();
    const int n = b.size(), me = b.spec.me;
    ev_[0].record(s);
    // The rank's own block moves on a side stream, beside packing and communication.
    DFFT_CUDA(cudaStreamWaitEvent(side_, ev_[0].get(), 0));
    st_.on(side_).copy_self(src, dst);
    self_done_.record(side_);
    for (int k = 0; k < n; ++k)
      if (k != me) st_.on(s).stage_out(k, src);
    ev_[1].record(s);
    if (n > 1) {
      DFFT_NCCL(ncclGroupStart());
      for (int k = 0; k < n; ++k) {
        if (k == me) continue;
        if (b.send_bytes[k] > 0)
          DFFT_NCCL(ncclSend(st_.send_ptr(k, src), static_cast<std::size_t>(b.send_bytes[k]),
                             ncclUint8, k, nccl_, s));
        if (b.recv_bytes[k] > 0)
          DFFT_NCCL(ncclRecv(st_.recv_ptr(k, dst), static_cast<std::size_t>(b.recv_bytes[k]),
                             ncclUint8, k, nccl_, s));
      }
      DFFT_NCCL(ncclGroupEnd());
    }
    ev_[2].record(s);
    DFFT_CUDA(cudaStreamWaitEvent(s, self_done_.get(), 0));
    for (int k = 0; k < n; ++k)
      if (k != me) st_.on(s).stage_in(k, dst);
    ev_[3].record(s);
  }

  // Chunk c is packed on the main stream, sent and received on a communication stream once
  // packed, and unpacked on a third stream once received: packing chunk c+1, moving chunk c
  // and unpacking chunk c-1 run at the same time; the rank's own block is copied once all
  // chunks are packed. Phases: pack = until the last chunk is
  // packed, comm = until it has arrived, unpack = the rest (so they add up to the exchange).
  void queue_chunked(const void* src, void* dst) {
    auto& dev = st_.dev();
    dev.activate();
    const cudaStream_t s = dev.stream();
    side_ = dev.side_stream(0);
    // The transfer kernels run at high priority: without it the pack kernel of chunk c+1, which
    // fills every SM, keeps them until it ends and the pipeline degenerates to a sequence.
    const cudaStream_t cs = dev.side_stream(3, true), us = dev.side_stream(2);
    const auto& b = st_.blocks();
    const auto& sp = b.spec;
    const int n = b.size(), me = sp.me;
    char* sbuf = dev.scratch(CudaDevice::Scratch::dev_send);
    char* rbuf = dev.scratch(CudaDevice::Scratch::dev_recv);
    ev_[0].record(s);
    for (cudaStream_t x : {cs, us}) DFFT_CUDA(cudaStreamWaitEvent(x, ev_[0].get(), 0));
    for (int c = 0; c < rounds_; ++c) {
      for (int k = 0; k < n; ++k) {
        if (k == me || c >= static_cast<int>(send_[k].size()) || direct_send(k)) continue;
        st_.pack_on(send_[k][c].box, src, sbuf + send_[k][c].off, s);
      }
      packed_[c]->record(s);
      DFFT_CUDA(cudaStreamWaitEvent(cs, packed_[c]->get(), 0));
      DFFT_NCCL(ncclGroupStart());
      for (int k = 0; k < n; ++k) {
        if (k == me) continue;
        if (c < static_cast<int>(send_[k].size())) {
          const NcclChunk& ch = send_[k][c];
          const char* from = direct_send(k)
                                 ? static_cast<const char*>(src) + sp.src[me].offset_of(ch.box.lo) * sp.elem
                                 : sbuf + ch.off;
          DFFT_NCCL(ncclSend(from, static_cast<std::size_t>(ch.bytes), ncclUint8, k, nccl_, cs));
        }
        if (c < static_cast<int>(recv_[k].size())) {
          const NcclChunk& ch = recv_[k][c];
          char* into = direct_recv(k) ? static_cast<char*>(dst) + sp.dst[me].offset_of(ch.box.lo) * sp.elem
                                      : rbuf + ch.off;
          DFFT_NCCL(ncclRecv(into, static_cast<std::size_t>(ch.bytes), ncclUint8, k, nccl_, cs));
        }
      }
      DFFT_NCCL(ncclGroupEnd());
      moved_[c]->record(cs);
      DFFT_CUDA(cudaStreamWaitEvent(us, moved_[c]->get(), 0));
      for (int k = 0; k < n; ++k) {
        if (k == me || c >= static_cast<int>(recv_[k].size()) || direct_recv(k)) continue;
        st_.unpack_on(k, recv_[k][c].box, rbuf + recv_[k][c].off, dst, us);
      }
    }
    ev_[1].record(s);  // the last chunk packed
    // The rank's own block moves after the packing, while the transfers go on: packing and
    // copying are both bound by memory bandwidth, the transfers by the link.
    DFFT_CUDA(cudaStreamWaitEvent(side_, ev_[1].get(), 0));
    st_.on(side_).copy_self(src, dst);
    self_done_.record(side_);
    ev_[2].record(cs);  // the last chunk arrived
    unpacked_.record(us);
    for (cudaEvent_t e : {self_done_.get(), unpacked_.get(), ev_[2].get()})
      DFFT_CUDA(cudaStreamWaitEvent(s, e, 0));
    ev_[3].record(s);
  }

  void finish(StageTiming& t) {
    DFFT_CUDA(cudaEventSynchronize(ev_[3].get()));
    float ms[3] = {};
    for (int i = 0; i < 3; ++i) DFFT_CUDA(cudaEventElapsedTime(&ms[i], ev_[i].get(), ev_[i + 1].get()));
    // Events of different streams: a phase that ended before the previous one counts as zero.
    t.pack += std::max(0.0f, ms[0]) * 1e-3;
    t.comm += std::max(0.0f, ms[1]) * 1e-3;
    t.unpack += std::max(0.0f, ms[2]) * 1e-3;
  }

  bool direct_send(int k) const { return st_.blocks().direct_send[k]; }
  bool direct_recv(int k) const { return st_.blocks().direct_recv[k]; }

  // The cut of every block and where its chunks are staged. A pair of ranks pipelines when
  // the sender packs or the receiver unpacks (both learn which from one all-to-all of flags);
  // a pair with neither sends its block whole.
  void plan_chunks(MPI_Comm comm, int chunks) {
    const auto& b = st_.blocks();
    const auto& sp = b.spec;
    const int n = b.size(), me = sp.me;
    // To k: {I pack what I send you, I unpack what you send me}; from k the same of k.
    std::vector<int> mine(2 * n), theirs(2 * n);
    for (int k = 0; k < n; ++k) {
      mine[2 * k] = k != me && !b.direct_send[k];
      mine[2 * k + 1] = k != me && !b.direct_recv[k];
    }
    DFFT_MPI(MPI_Alltoall(mine.data(), 2, MPI_INT, theirs.data(), 2, MPI_INT, comm));
    const std::int64_t min_chunk = nccl_min_chunk();
    send_.assign(n, {});
    recv_.assign(n, {});
    std::int64_t soff = 0, roff = 0;
    const auto align = [](std::int64_t x) { return (x + 255) / 256 * 256; };
    for (int k = 0; k < n; ++k) {
      if (k == me) continue;
      const bool out_piped = !b.direct_send[k] || theirs[2 * k + 1];
      const bool in_piped = !b.direct_recv[k] || theirs[2 * k];
      send_[k] = cut_block(b.send[k], sp.src[me].order, out_piped ? chunks : 1, min_chunk, taper_, sp);
      recv_[k] = cut_block(b.recv[k], sp.src[k].order, in_piped ? chunks : 1, min_chunk, taper_, sp);
      for (auto& c : send_[k]) {
        c.off = soff;
        if (!b.direct_send[k]) soff += align(c.bytes);
      }
      for (auto& c : recv_[k]) {
        c.off = roff;
        if (!b.direct_recv[k]) roff += align(c.bytes);
      }
      rounds_ = std::max({rounds_, static_cast<int>(send_[k].size()), static_cast<int>(recv_[k].size())});
    }
    int most = rounds_;
    DFFT_MPI(MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_INT, MPI_MAX, comm));
    pipelined_ = most > 1;  // every member takes the same path (grouped calls must pair up)
    if (!pipelined_) return;
    using S = CudaDevice::Scratch;
    if (soff > 0) st_.dev().reserve_scratch(S::dev_send, static_cast<std::size_t>(soff));
    if (roff > 0) st_.dev().reserve_scratch(S::dev_recv, static_cast<std::size_t>(roff));
    for (int c = 0; c < rounds_; ++c) {
      packed_.emplace_back(std::make_unique<Event>());
      moved_.emplace_back(std::make_unique<Event>());
    }
  }

  CudaStager st_;
  ncclComm_t nccl_ = nullptr;
  Event ev_[4];
  Event self_done_, unpacked_;
  cudaStream_t side_ = nullptr;
  bool taper_ = false;
  bool pipelined_ = false;
  int rounds_ = 0;
  std::vector<std::vector<NcclChunk>> send_, recv_;
  std::vector<std::unique_ptr<Event>> packed_, moved_;
};

}  // namespace

ncclComm_t CudaDevice::nccl_comm(MPI_Comm sub) {
  auto it = nccl_.find(sub);
  if (it != nccl_.end()) return it->second;
  activate();
  check_distinct_gpus(sub, comm_, ordinal_);
  // NVLink multicast (NVLS) can take shared GPUs out of service on the machines this is
  // developed on; never use it unless the user asked for it explicitly.
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  int n = 0, r = 0;
  DFFT_MPI(MPI_Comm_size(sub, &n));
  DFFT_MPI(MPI_Comm_rank(sub, &r));
  ncclUniqueId id{};
  if (r == 0) DFFT_NCCL(ncclGetUniqueId(&id));
  DFFT_MPI(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, sub));
  ncclComm_t c = nullptr;
  DFFT_LIVE(Live::nccl_comm, DFFT_NCCL(ncclCommInitRank(&c, n, id, r)));
  nccl_[sub] = c;
  return c;
}

std::unique_ptr<Transport> make_device_nccl(MPI_Comm c, const ExchangeSpec& s, CudaDevice& d,
                                            int chunks, bool taper) {
  return std::make_unique<NcclExchange>(c, s, d, chunks, taper);
}

void CudaDevice::nccl_prepare(MPI_Comm comm) { nccl_comm(comm); }

void CudaDevice::nccl_send_recv(MPI_Comm comm, const std::vector<Message>& sends, const std::vector<Message>& recvs) {
  ncclComm_t c = nccl_comm(comm);
  activate();
  DFFT_NCCL(ncclGroupStart());
  // A failed call inside the group still closes it, so that NCCL is left usable.
  try {
    for (const Message& m : recvs) DFFT_NCCL(ncclRecv(m.data, m.bytes, ncclChar, m.peer, c, stream()));
    for (const Message& m : sends) DFFT_NCCL(ncclSend(m.data, m.bytes, ncclChar, m.peer, c, stream()));
  } catch (...) {
    ncclGroupEnd();
    throw;
  }
  DFFT_NCCL(ncclGroupEnd());
  synchronize();
}

std::string nccl_library_version() {
  int v = 0;
  DFFT_NCCL(ncclGetVersion(&v));
  // NCCL_VERSION(X, Y, Z) is X * 10000 + Y * 100 + Z from NCCL 2.9 on, X * 1000 + Y * 100 + Z before.
  const int major = v >= 20900 ? v / 10000 : v / 1000;
  const int minor = v >= 20900 ? v / 100 % 100 : v / 100 % 10;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(v % 100);
}

}  // namespace dfft::detail

#else  // built without NCCL

namespace dfft::detail {
namespace {
[[noreturn]] void no_nccl() {
  unsupported("method nccl: this dfft was built without NCCL (configure with -DDFFT_NCCL=ON where ",
              "nccl.h and libnccl are installed); use an MPI method");
}
}  // namespace
std::unique_ptr<Transport> make_device_nccl(MPI_Comm, const ExchangeSpec&, CudaDevice&, int, bool) { no_nccl(); }
void CudaDevice::nccl_prepare(MPI_Comm) { no_nccl(); }
void CudaDevice::nccl_send_recv(MPI_Comm, const std::vector<Message>&, const std::vector<Message>&) { no_nccl(); }
}  // namespace dfft::detail

#endif
