// SPDX-License-Identifier: MIT
// MPI derived datatypes for blocks (a2a-type, p2p-type): no packing, MPI walks the strides.
// Both ends traverse a block in the sender's memory order, so a type pair also transposes
// when the receiver's memory order differs (Realigned).
#pragma once

#include <mpi.h>

#include <vector>

#include "transport/stage.hpp"

namespace dfft::detail {

/// Datatype covering `box` inside `mem`, visited in `traversal` order (slowest first), with the
/// box's start offset folded in (use the array base as buffer, displacement 0).
MPI_Datatype make_box_type(const Box& box, const std::vector<int>& traversal, const Layout& mem,
                           MPI_Datatype elem, std::size_t elem_bytes);

/// Contiguous type of `bytes` bytes: the element of every exchange.
MPI_Datatype make_elem_type(std::size_t bytes);

/// Pieces of each block under the message limit, with their datatypes, for both directions.
class BoxTypes {
 public:
  BoxTypes(const Blocks& b, MPI_Datatype elem);
  ~BoxTypes();
  BoxTypes(const BoxTypes&) = delete;
  BoxTypes& operator=(const BoxTypes&) = delete;
  std::vector<std::vector<MPI_Datatype>> send, recv;  // [peer][piece]
};

/// A datatype exchange (a2a-type, p2p-type): MPI reads and writes the arrays in place where it
/// can read the device's memory, else host images of them the stager makes (StageUse::whole).
class InPlaceTransport : public Transport {
 public:
  InPlaceTransport(const ExchangeSpec& s, Device& dev)
      : st_(dev.make_stager(s, StageUse::whole)), b_(st_->blocks()), elem_(make_elem_type(s.elem)),
        types_(b_, elem_) {}
  ~InPlaceTransport() override { MPI_Type_free(&elem_); }
  void execute(const void* src, void* dst, StageTiming& t) final;

 protected:
  /// The messages, between arrays MPI can read and write.
  virtual void exchange(const void* src, void* dst, StageTiming& t) = 0;

  std::unique_ptr<Stager> st_;
  const Blocks& b_;
  MPI_Datatype elem_;
  BoxTypes types_;
};

}  // namespace dfft::detail
