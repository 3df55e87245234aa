// SPDX-License-Identifier: MIT
// The staging steps of an exchange, supplied by the device (Device::make_stager) so that every
// schedule in src/transport is written once for host and device memory. A schedule asks the
// stager where MPI reads and writes each block and to move blocks there and back; the stager
// decides how: on the CPU it packs into host buffers; on a GPU it packs with kernels and, under
// host staging (MPI without CUDA support), copies between device and page-locked host memory.
// Device work is queued; the schedule calls fence() (or polls ready()) before MPI reads.
#pragma once

#include "transport/pack_common.hpp"

namespace dfft::detail {

/// What a transport needs staged.
enum class StageUse {
  blocks,   // each block where MPI reads/writes it, packed only where needed
  uniform,  // the same, but when any block needs packing all are (one base pointer per side)
  whole,    // the arrays themselves (MPI datatypes describe the blocks in place)
};

class Stager {
 public:
  Stager(const ExchangeSpec& s, StageUse use, Device& dev);
  virtual ~Stager() = default;
  Stager(const Stager&) = delete;
  Stager& operator=(const Stager&) = delete;

  const Blocks& blocks() const { return b_; }
  /// Where MPI reads block k from / writes block k into.
  const char* send_ptr(int k, const void* src) const;
  char* recv_ptr(int k, void* dst) const;
  /// Bytes from the side's base pointer to block k (uniform stagers: one base per side).
  std::int64_t send_disp(int k) const { return staged_send(k) ? b_.stage_send_off[k] : b_.src_offset[k]; }
  std::int64_t recv_disp(int k) const { return staged_recv(k) ? b_.stage_recv_off[k] : b_.dst_offset[k]; }
  const char* send_base(const void* src) const;
  char* recv_base(void* dst) const;

  /// The exchange starts (after the work queued before it). `lanes`: packing, copies out and
  /// copies in run on separate queues that overlap each other (p2p-pipelined).
  virtual void begin(bool /*lanes*/) {}
  /// Pack block k (queued on a device); nothing where it is sent as it lies.
  virtual void pack(int k, const void* src) = 0;
  /// Bytes [off, off+len) of block k (packed, or in src) to where MPI reads them. Returns a
  /// ticket for ready(), or -1 when only fence() tells that they are there.
  virtual int ship(int /*k*/, const void* /*src*/, std::int64_t /*off*/, std::int64_t /*len*/) { return -1; }
  /// Whether the shipment of a ticket is where MPI reads it (never blocks).
  virtual bool ready(int /*ticket*/) { return true; }
  /// The host waits for everything packed and shipped so far.
  virtual void fence() {}
  /// Received bytes [off, off+len) of block k from where MPI wrote them to where unpack reads.
  virtual void land(int /*k*/, void* /*dst*/, std::int64_t /*off*/, std::int64_t /*len*/) {}
  /// Unpack block k into dst (nothing where it was received in place).
  virtual void unpack(int k, void* dst) = 0;
  virtual void copy_self(const void* src, void* dst) = 0;
  /// The exchange's device work is done: dst is complete and src may be overwritten.
  virtual void finish() {}

  /// Schedules that build their own messages (hierarchical): `bytes` of memory MPI reads and
  /// writes, owned by the stager; pack block k to / unpack it from there; copy inside it.
  virtual char* wire(std::size_t bytes) = 0;
  virtual void pack_at(int k, const void* src, char* out) = 0;
  virtual void unpack_at(int k, const char* in, void* dst) = 0;
  virtual void wire_copy(char* to, const char* from, std::int64_t len) = 0;

  /// StageUse::whole: the source array where MPI can read it, the array MPI receives into, and
  /// the step that brings what it received to dst (the rank's own block is copied afterwards).
  /// Under host staging these are host images of the arrays, as the thesis does for MPI_Type
  /// without CUDA-awareness; a destination with padding or gaps (a slice view, a padded user
  /// layout) lands on the device first and only its box is copied out, so padding and the
  /// neighbouring slices keep their contents.
  const void* whole_out(const void* src);
  void* whole_recv(void* dst) { return all_staged_ ? recv_area() : dst; }
  void whole_in(void* dst);
  /// Bytes of the host images (StageUse::whole), and whether dst has gaps to keep.
  struct Whole {
    std::size_t in = 0, out = 0;
    bool gaps = false;
  };
  Whole whole() const;

  void stage_out(int k, const void* src) {
    pack(k, src);
    ship(k, src, 0, b_.send_bytes[k]);
  }
  void stage_in(int k, void* dst) {
    land(k, dst, 0, b_.recv_bytes[k]);
    unpack(k, dst);
  }

 protected:
  /// Where staged blocks lie for MPI (host staging: every block; else those that need packing).
  virtual char* send_area() const = 0;
  virtual char* recv_area() const = 0;
  /// Device memory of the receive side (whole_in with gaps).
  virtual char* device_recv_area() const { return nullptr; }
  bool staged_send(int k) const { return all_staged_ || !b_.direct_send[k]; }
  bool staged_recv(int k) const { return all_staged_ || !b_.direct_recv[k]; }

  Blocks b_;
  Device& dev_;
  bool all_staged_ = false;  // MPI cannot read the device's memory: every block goes through the host
};

/// The stager of a device whose memory MPI reads and writes as it is (the CPU's).
std::unique_ptr<Stager> make_host_stager(const ExchangeSpec& s, Device& dev, StageUse use);

/// True when the MPI library reports CUDA support at run time (Open MPI's MPIX extension).
bool mpi_is_cuda_aware();
/// Whether a device stages through host memory under `s` (Staging::automatic: where MPI cannot
/// read device memory); throws when cuda_aware is asked for but MPI cannot.
bool use_cuda_aware(Staging s);
/// Throws unless MPI was initialised with MPI_THREAD_MULTIPLE.
void require_thread_multiple(const char* method);

}  // namespace dfft::detail
