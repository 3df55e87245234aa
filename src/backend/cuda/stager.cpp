// SPDX-License-Identifier: MIT
#include "backend/cuda/stager.hpp"

#include "backend/cuda/codec.hpp"

namespace dfft::detail {

CudaStager::CudaStager(const ExchangeSpec& s, CudaDevice& dev, bool aware, StageUse use)
    : Stager(s, use, dev), gpu_(dev) {
  all_staged_ = !aware;
  using S = CudaDevice::Scratch;
  if (use == StageUse::whole) {
    if (aware) return;
    const Whole w = whole();
    dev.reserve_scratch(S::host_send, w.in);
    dev.reserve_scratch(S::host_recv, w.out);
    if (w.gaps) dev.reserve_scratch(S::dev_recv, w.out);
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
  for (void* p : host_wires_) gpu_.release_host(p);
}

void CudaStager::begin(bool lanes) {
  gpu_.activate();
  // Looked up per call: the calling thread's lane decides the streams (CudaDevice::CommLane).
  on(gpu_.stream());
  used_ = 0;
  tickets_.clear();
  lanes_ = lanes;
  if (!lanes) return;
  pack_ = gpu_.side_stream(0);
  out_ = gpu_.side_stream(1);
  in_ = gpu_.side_stream(2);
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

void CudaStager::pack_on(const Box& box, const void* src, char* out, cudaStream_t s) const {
  const auto& sp = b_.spec;
  if (sp.codec != Codec::none)
    DFFT_CUDA(cuda::encode_box_async(src, sp.src[sp.me], box, sp.src[sp.me].order, out, sp.codec,
                                     sp.is_double, s));
  else
    gpu_.copy_box_async(src, sp.src[sp.me], out, b_.wire_layout(sp.me, box), box, sp.elem, s);
}

void CudaStager::unpack_on(int k, const Box& box, const char* in, void* dst, cudaStream_t s) const {
  const auto& sp = b_.spec;
  if (sp.codec != Codec::none)
    DFFT_CUDA(cuda::decode_box_async(in, sp.src[k].order, dst, sp.dst[sp.me], box, sp.codec, sp.is_double, s));
  else
    gpu_.copy_box_async(in, b_.wire_layout(k, box), dst, sp.dst[sp.me], box, sp.elem, s);
}

void CudaStager::copy_out(int k, const void* src, std::int64_t off, std::int64_t len, cudaStream_t s) const {
  if (all_staged_ && len > 0)
    DFFT_CUDA(cudaMemcpyAsync(hsend() + b_.stage_send_off[k] + off,
                              (b_.direct_send[k] ? static_cast<const char*>(src) + b_.src_offset[k]
                                                 : dsend() + b_.stage_send_off[k]) + off,
                              static_cast<std::size_t>(len), cudaMemcpyDeviceToHost, s));
}

void CudaStager::copy_in(int k, void* dst, std::int64_t off, std::int64_t len, cudaStream_t s) const {
  if (all_staged_ && len > 0)
    DFFT_CUDA(cudaMemcpyAsync((b_.direct_recv[k] ? static_cast<char*>(dst) + b_.dst_offset[k]
                                                 : drecv() + b_.stage_recv_off[k]) + off,
                              hrecv() + b_.stage_recv_off[k] + off,
                              static_cast<std::size_t>(len), cudaMemcpyHostToDevice, s));
}

void CudaStager::pack(int k, const void* src) {
  packed_ = nullptr;
  if (b_.send_bytes[k] == 0 || b_.direct_send[k]) return;
  pack_on(b_.send[k], src, dsend() + b_.stage_send_off[k], pack_);
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
  if (b_.recv_bytes[k] > 0 && !b_.direct_recv[k])
    unpack_on(k, b_.recv[k], drecv() + b_.stage_recv_off[k], dst, in_);
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
  gpu_.synchronize();
}

CudaStager& CudaStager::on(cudaStream_t s) {
  main_ = pack_ = out_ = in_ = s;
  lanes_ = false;
  packed_ = nullptr;
  return *this;
}

// Wire memory under host staging is page-locked host memory, which kernels and copies of this
// GPU address directly (unified addressing); with CUDA-aware MPI it is device memory.
char* CudaStager::wire(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  if (!all_staged_) {
    wires_.emplace_back(gpu_, bytes);
    return static_cast<char*>(wires_.back().get());
  }
  host_wires_.push_back(gpu_.alloc_host(bytes));
  return static_cast<char*>(host_wires_.back());
}

void CudaStager::copy_self(const void* src, void* dst) {
  const auto& sp = b_.spec;
  gpu_.copy_box_async(src, sp.src[sp.me], dst, sp.dst[sp.me], b_.send[sp.me], sp.elem, main_);
}

void CudaStager::pack_at(int k, const void* src, char* out) { pack_on(b_.send[k], src, out, main_); }
void CudaStager::unpack_at(int k, const char* in, void* dst) { unpack_on(k, b_.recv[k], in, dst, main_); }
void CudaStager::wire_copy(char* to, const char* from, std::int64_t len) {
  DFFT_CUDA(cudaMemcpyAsync(to, from, static_cast<std::size_t>(len), cudaMemcpyDefault, main_));
}

std::unique_ptr<Stager> CudaDevice::make_stager(const ExchangeSpec& s, StageUse use) {
  return std::make_unique<CudaStager>(s, *this, use_cuda_aware(s.staging), use);
}

}  // namespace dfft::detail
