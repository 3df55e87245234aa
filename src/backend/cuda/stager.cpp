// SPDX-License-Identifier: MIT
#include "backend/cuda/stager.hpp"

#include "backend/cuda/codec.hpp"

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace dfft::detail {

namespace {

// Elements from a layout's first element to its last: the whole array, or for a slice view
// (overlap) only the part of the parent array the view covers.
std::int64_t span(const Layout& l) {
  if (l.box.empty()) return 0;
  std::vector<std::int64_t> last(l.box.hi);
  for (auto& v : last) --v;
  return l.offset_of(last) + 1;
}

}  // namespace

CudaStager::CudaStager(const ExchangeSpec& s, CudaDevice& dev, bool aware, StageUse use)
    : Stager(s, use), dev_(dev) {
  all_staged_ = !aware;
  using S = CudaDevice::Scratch;
  if (use == StageUse::whole) {
    if (aware) return;
    // The datatype methods without CUDA-aware MPI copy the whole arrays to the host and back,
    // as the thesis does for MPI_Type. A destination with padding or gaps (a slice view, a
    // padded user layout) lands in device scratch first and only its box is copied out, so
    // padding and the neighbouring slices keep their contents.
    const auto& d = s.dst[s.me];
    in_bytes_ = static_cast<std::size_t>(span(s.src[s.me])) * s.elem;
    out_bytes_ = static_cast<std::size_t>(span(d)) * s.elem;
    gaps_ = span(d) != d.box.count();
    dev.reserve_scratch(S::host_send, in_bytes_);
    dev.reserve_scratch(S::host_recv, out_bytes_);
    if (gaps_) dev.reserve_scratch(S::dev_recv, out_bytes_);
    return;
  }
  // Device staging only where blocks need packing; host staging holds every message.
  if (b_.any_pack) dev.reserve_scratch(S::dev_send, static_cast<std::size_t>(b_.stage_send_bytes));
  if (b_.any_unpack) dev.reserve_scratch(S::dev_recv, static_cast<std::size_t>(b_.stage_recv_bytes));
  if (!aware) {
    dev.reserve_scratch(S::host_send, static_cast<std::size_t>(b_.stage_send_bytes));
    dev.reserve_scratch(S::host_recv, static_cast<std::size_t>(b_.stage_recv_bytes));
  }
}

CudaStager::~CudaStager() {
  for (void* p : host_wires_) dev_.release_host(p);
}

void CudaStager::begin(bool lanes) {
  dev_.activate();
  // Looked up per call: the calling thread's lane decides the streams (CudaDevice::CommLane).
  main_ = pack_ = out_ = in_ = dev_.stream();
  used_ = 0;
  tickets_.clear();
  packed_ = nullptr;
  lanes_ = lanes;
  if (!lanes) return;
  pack_ = dev_.side_stream(0);
  out_ = dev_.side_stream(1);
  in_ = dev_.side_stream(2);
  // src is written and dst may still be read by work queued before this exchange.
  start_.record(main_);
  for (cudaStream_t s : {pack_, out_, in_}) DFFT_CUDA(cudaStreamWaitEvent(s, start_.get(), 0));
  // CUDA-aware MPI writes received pieces into device memory behind the streams' backs.
  if (!all_staged_) DFFT_CUDA(cudaEventSynchronize(start_.get()));
}

Event& CudaStager::next_event() {
  if (used_ == events_.size()) events_.push_back(std::make_unique<Event>());
  return *events_[used_++];
}

const char* CudaStager::dev_out(int k, const void* src) const {
  if (b_.direct_send[k]) return static_cast<const char*>(src) + b_.src_offset[k];
  return dsend() + b_.stage_send_off[k];
}

char* CudaStager::dev_in(int k, void* dst) const {
  if (b_.direct_recv[k]) return static_cast<char*>(dst) + b_.dst_offset[k];
  return drecv() + b_.stage_recv_off[k];
}

void CudaStager::pack_on(int k, const void* src, char* out, cudaStream_t s) const {
  const auto& sp = b_.spec;
  if (sp.codec != Codec::none)
    DFFT_CUDA(cuda::encode_box_async(src, sp.src[sp.me], b_.send[k], sp.src[sp.me].order, out, sp.codec,
                                     sp.is_double, s));
  else
    dev_.copy_box_async(src, sp.src[sp.me], out, b_.wire_layout(sp.me, b_.send[k]), b_.send[k], sp.elem, s);
}

void CudaStager::unpack_on(int k, const char* in, void* dst, cudaStream_t s) const {
  const auto& sp = b_.spec;
  if (sp.codec != Codec::none)
    DFFT_CUDA(cuda::decode_box_async(in, sp.src[k].order, dst, sp.dst[sp.me], b_.recv[k], sp.codec,
                                     sp.is_double, s));
  else
    dev_.copy_box_async(in, b_.wire_layout(k, b_.recv[k]), dst, sp.dst[sp.me], b_.recv[k], sp.elem, s);
}

void CudaStager::copy_out(int k, const void* src, std::int64_t off, std::int64_t len, cudaStream_t s) const {
  if (all_staged_ && len > 0)
    DFFT_CUDA(cudaMemcpyAsync(hsend() + b_.stage_send_off[k] + off, dev_out(k, src) + off,
                              static_cast<std::size_t>(len), cudaMemcpyDeviceToHost, s));
}

void CudaStager::copy_in(int k, void* dst, std::int64_t off, std::int64_t len, cudaStream_t s) const {
  if (all_staged_ && len > 0)
    DFFT_CUDA(cudaMemcpyAsync(dev_in(k, dst) + off, hrecv() + b_.stage_recv_off[k] + off,
                              static_cast<std::size_t>(len), cudaMemcpyHostToDevice, s));
}

void CudaStager::pack(int k, const void* src) {
  packed_ = nullptr;
  if (b_.send_bytes[k] == 0 || b_.direct_send[k]) return;
  pack_on(k, src, dsend() + b_.stage_send_off[k], pack_);
  if (!lanes_) return;
  Event& e = next_event();
  e.record(pack_);
  packed_ = e.get();
}

int CudaStager::ship(int k, const void* src, std::int64_t off, std::int64_t len) {
  if (!lanes_) {
    copy_out(k, src, off, len, out_);
    return -1;
  }
  cudaEvent_t ev = packed_;  // CUDA-aware: MPI reads the packed block on the device
  if (all_staged_) {
    if (packed_) DFFT_CUDA(cudaStreamWaitEvent(out_, packed_, 0));
    copy_out(k, src, off, len, out_);
    Event& e = next_event();
    e.record(out_);
    ev = e.get();
  }
  if (!ev) return -1;  // sent from src, which begin() waited for
  tickets_.push_back(ev);
  return static_cast<int>(tickets_.size()) - 1;
}

bool CudaStager::ready(int ticket) {
  if (ticket < 0) return true;
  const cudaError_t e = cudaEventQuery(tickets_[static_cast<std::size_t>(ticket)]);
  if (e == cudaErrorNotReady) {
    // The runtime records "not ready" as the last error; clear it so that the next kernel
    // launch check (which reads cudaGetLastError) is not blamed for it.
    const cudaError_t last = cudaGetLastError();
    if (last != cudaErrorNotReady) DFFT_CUDA(last);
    return false;
  }
  DFFT_CUDA(e);
  return true;
}

void CudaStager::fence() {
  DFFT_CUDA(cudaStreamSynchronize(out_));
  if (pack_ != out_) DFFT_CUDA(cudaStreamSynchronize(pack_));
}

void CudaStager::land(int k, void* dst, std::int64_t off, std::int64_t len) { copy_in(k, dst, off, len, in_); }

void CudaStager::unpack(int k, void* dst) {
  // Behind the block's copies in, on the same stream.
  if (b_.recv_bytes[k] > 0 && !b_.direct_recv[k]) unpack_on(k, drecv() + b_.stage_recv_off[k], dst, in_);
}

void CudaStager::finish() {
  if (lanes_) {
    // The next step reads dst and overwrites src: the side streams' work must be done.
    const cudaStream_t side[] = {pack_, out_, in_};
    for (int i = 0; i < 3; ++i) {
      done_[i].record(side[i]);
      DFFT_CUDA(cudaStreamWaitEvent(main_, done_[i].get(), 0));
    }
  }
  dev_.synchronize();
}

void CudaStager::stage_out_on(int k, const void* src, cudaStream_t s) {
  if (b_.send_bytes[k] == 0) return;
  if (!b_.direct_send[k]) pack_on(k, src, dsend() + b_.stage_send_off[k], s);
  copy_out(k, src, 0, b_.send_bytes[k], s);
}

void CudaStager::stage_in_on(int k, void* dst, cudaStream_t s) {
  if (b_.recv_bytes[k] == 0) return;
  copy_in(k, dst, 0, b_.recv_bytes[k], s);
  if (!b_.direct_recv[k]) unpack_on(k, drecv() + b_.stage_recv_off[k], dst, s);
}

void CudaStager::copy_self_on(const void* src, void* dst, cudaStream_t s) const {
  const auto& sp = b_.spec;
  dev_.copy_box_async(src, sp.src[sp.me], dst, sp.dst[sp.me], b_.send[sp.me], sp.elem, s);
}

// Wire memory under host staging is page-locked host memory, which kernels and copies of this
// GPU address directly (unified addressing); with CUDA-aware MPI it is device memory.
char* CudaStager::wire(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  if (!all_staged_) {
    wires_.emplace_back(dev_, bytes);
    return static_cast<char*>(wires_.back().get());
  }
  host_wires_.push_back(dev_.alloc_host(bytes));
  return static_cast<char*>(host_wires_.back());
}

void CudaStager::pack_at(int k, const void* src, char* out) { pack_on(k, src, out, main_); }
void CudaStager::unpack_at(int k, const char* in, void* dst) { unpack_on(k, in, dst, main_); }
void CudaStager::wire_copy(char* to, const char* from, std::int64_t len) {
  DFFT_CUDA(cudaMemcpyAsync(to, from, static_cast<std::size_t>(len), cudaMemcpyDefault, main_));
}

const void* CudaStager::whole_out(const void* src) {
  if (all_staged_) DFFT_CUDA(cudaMemcpyAsync(hsend(), src, in_bytes_, cudaMemcpyDeviceToHost, main_));
  fence();  // MPI reads src (CUDA-aware) or its image
  return all_staged_ ? hsend() : src;
}

void* CudaStager::whole_recv(void* dst) { return all_staged_ ? hrecv() : dst; }

void CudaStager::whole_in(void* dst) {
  if (!all_staged_) return;
  if (!gaps_) {
    DFFT_CUDA(cudaMemcpyAsync(dst, hrecv(), out_bytes_, cudaMemcpyHostToDevice, main_));
    return;
  }
  const Layout& d = b_.spec.dst[b_.spec.me];
  DFFT_CUDA(cudaMemcpyAsync(drecv(), hrecv(), out_bytes_, cudaMemcpyHostToDevice, main_));
  dev_.copy_box_async(drecv(), d, dst, d, d.box, b_.spec.elem, main_);
}

std::unique_ptr<Stager> CudaDevice::make_stager(const ExchangeSpec& s, StageUse use) {
  return std::make_unique<CudaStager>(s, *this, use_cuda_aware(s.staging), use);
}

bool mpi_is_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

bool use_cuda_aware(Staging s) {
  if (s == Staging::host) return false;
  const bool aware = mpi_is_cuda_aware();
  if (s == Staging::cuda_aware && !aware)
    unsupported("staging cuda-aware needs an MPI built with CUDA support, but this MPI reports none ",
                "(MPIX_Query_cuda_support); use staging host or auto");
  return aware;
}

void require_thread_multiple(const char* method) {
  int provided = MPI_THREAD_SINGLE;
  DFFT_MPI(MPI_Query_thread(&provided));
  if (provided < MPI_THREAD_MULTIPLE)
    unsupported(method, " sends from a second thread and needs MPI initialised with ",
                "MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...); this process has thread level ", provided,
                " (MPI_THREAD_MULTIPLE = ", MPI_THREAD_MULTIPLE, ")");
}

}  // namespace dfft::detail
