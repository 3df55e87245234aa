// SPDX-License-Identifier: MIT
#include "transport/box_types.hpp"

#include "plan/geometry.hpp"
#include "util/check.hpp"

namespace dfft::detail {

MPI_Datatype make_elem_type(std::size_t bytes) {
  MPI_Datatype t;
  DFFT_MPI(MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &t));
  DFFT_MPI(MPI_Type_commit(&t));
  return t;
}

MPI_Datatype make_box_type(const Box& box, const std::vector<int>& traversal, const Layout& mem,
                           MPI_Datatype elem, std::size_t elem_bytes) {
  const auto st = mem.strides();
  const auto eb = static_cast<MPI_Aint>(elem_bytes);
  MPI_Datatype t = elem;
  bool owned = false;
  MPI_Aint run = 1;  // elements covered contiguously by t so far (while it stays contiguous)
  bool contiguous = true;
  for (int k = static_cast<int>(traversal.size()) - 1; k >= 0; --k) {
    int a = traversal[k];
    auto n = box.extent(a);
    if (n == 1) continue;
    MPI_Datatype next;
    if (contiguous && st[a] == run) {
      DFFT_MPI(MPI_Type_contiguous(static_cast<int>(n), t, &next));
      run *= n;
    } else {
      DFFT_MPI(MPI_Type_create_hvector(static_cast<int>(n), 1, st[a] * eb, t, &next));
      contiguous = false;
    }
    if (owned) DFFT_MPI(MPI_Type_free(&t));
    t = next;
    owned = true;
  }
  MPI_Aint disp = mem.offset_of(box.lo) * eb;
  int one = 1;
  MPI_Datatype out;
  DFFT_MPI(MPI_Type_create_hindexed(1, &one, &disp, t, &out));
  if (owned) DFFT_MPI(MPI_Type_free(&t));
  DFFT_MPI(MPI_Type_commit(&out));
  return out;
}

BoxTypes::BoxTypes(const Blocks& b, MPI_Datatype elem) {
  const auto& s = b.spec;
  const auto max_elems = std::max<std::int64_t>(1, s.max_message_bytes / static_cast<std::int64_t>(s.elem));
  send.resize(b.size());
  recv.resize(b.size());
  for (int k = 0; k < b.size(); ++k) {
    if (k == s.me) continue;
    if (!b.send[k].empty())
      for (const Box& piece : split_box(b.send[k], max_elems))
        send[k].push_back(make_box_type(piece, s.src[s.me].order, s.src[s.me], elem, s.elem));
    if (!b.recv[k].empty())
      for (const Box& piece : split_box(b.recv[k], max_elems))
        recv[k].push_back(make_box_type(piece, s.src[k].order, s.dst[s.me], elem, s.elem));
  }
}

BoxTypes::~BoxTypes() {
  for (auto* v : {&send, &recv})
    for (auto& per : *v)
      for (auto& t : per) MPI_Type_free(&t);
}

void InPlaceTransport::execute(const void* src, void* dst, StageTiming& t) {
  st_->begin(false);
  const void* s = nullptr;
  void* d = nullptr;
  {
    PhaseTimer pt(t.pack);
    s = st_->whole_out(src);
    d = st_->whole_recv(dst);
  }
  const bool in_place = d == dst;
  if (in_place) {  // overlaps the messages
    PhaseTimer pt(t.unpack);
    st_->copy_self(src, dst);
  }
  exchange(s, d, t);
  PhaseTimer pt(t.unpack);
  st_->whole_in(dst);
  if (!in_place) st_->copy_self(src, dst);  // after the image, which lacks the own block
  st_->finish();
}

}  // namespace dfft::detail
