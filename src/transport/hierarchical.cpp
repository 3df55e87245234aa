// SPDX-License-Identifier: MIT
// hierarchical: blocks between ranks of one node go directly; blocks bound for another node go
// through one leader rank per node (its lowest member), so that each ordered pair of nodes
// exchanges one aggregated message. Every rank sends its blocks for node B to its leader in one
// message, which lands in place inside the leader's aggregate for B; the leader sends the
// aggregate to B's leader as soon as its last piece has arrived, while other pieces are still
// coming. A leader that receives an aggregate from node C sends each member its blocks from C in
// one message. All receives are posted first, so gathers, aggregates and scatters overlap.
#include <vector>

#include "codec/codec.hpp"
#include "transport/stage.hpp"
#include "transport/topology.hpp"
#include "util/check.hpp"

namespace dfft::detail {

namespace {

// Where every block travels, from the global geometry (the same on every member). An aggregate
// from node C to node B holds, for each sender c of C in order, its blocks for the members of B
// in order, each taking stage_span() bytes.
struct HierSchedule {
  explicit HierSchedule(const ExchangeSpec& spec) : s(spec) {
    for (int k = 0; k < static_cast<int>(s.src.size()); ++k) topo.node.push_back(node_of(s, k));
    nodes = topo.nodes();
    for (int n = 0; n < nodes; ++n) mem.push_back(topo.members(n));
    local.resize(topo.node.size());
    for (const auto& m : mem)
      for (std::size_t i = 0; i < m.size(); ++i) local[m[i]] = static_cast<int>(i);
    mine = topo.node[s.me];
    leader = mem[mine][0];
    lead = leader == s.me;
    // Every block the schedule looks at has its sender or its receiver on this node.
    const int n = static_cast<int>(s.src.size());
    for (int a : mem[mine])
      for (int k = 0; k < n; ++k) {
        from_here.push_back(block_span(a, k));
        to_here.push_back(block_span(k, a));
      }
  }
  std::int64_t block_span(int a, int b) const {
    return stage_span(s, wire_bytes(s.codec, s.elem, intersect(s.src[a].box, s.dst[b].box).count()));
  }
  // Bytes block a -> b takes in an aggregate (a or b on this node).
  std::int64_t span(int a, int b) const {
    const auto n = s.src.size();
    if (topo.node[a] == mine) return from_here[static_cast<std::size_t>(local[a]) * n + b];
    return to_here[static_cast<std::size_t>(local[b]) * n + a];
  }
  // Bytes member a sends to node B (its segment of an aggregate).
  std::int64_t segment(int a, int B) const {
    std::int64_t n = 0;
    for (int b : mem[B]) n += span(a, b);
    return n;
  }
  // Offset of sender a's segment inside the aggregate from a's node to node B.
  std::int64_t segment_offset(int a, int B) const {
    std::int64_t off = 0;
    for (int c : mem[topo.node[a]]) {
      if (c == a) break;
      off += segment(c, B);
    }
    return off;
  }
  std::int64_t aggregate(int C, int B) const {
    std::int64_t n = 0;
    for (int c : mem[C]) n += segment(c, B);
    return n;
  }
  // Bytes member a receives from node C (what its leader scatters to it).
  std::int64_t part(int C, int a) const {
    std::int64_t n = 0;
    for (int c : mem[C]) n += span(c, a);
    return n;
  }
  // Offset of block b inside sender a's segment for b's node.
  std::int64_t block_offset(int a, int b) const {
    std::int64_t off = 0;
    for (int x : mem[topo.node[b]]) {
      if (x == b) break;
      off += span(a, x);
    }
    return off;
  }
  // Tags: fixed per message kind (the chunks of one message keep their order).
  static constexpr int kDirect = 0;
  int gather_tag(int B) const { return 1 + B; }
  int scatter_tag(int C) const { return 1 + nodes + C; }
  int aggregate_tag() const { return 1 + 2 * nodes; }

  const ExchangeSpec& s;
  Topology topo;
  std::vector<std::vector<int>> mem;
  std::vector<int> local;  // index of each member inside its node
  std::vector<std::int64_t> from_here, to_here;  // spans of blocks from / to this node's members
  int nodes = 1, mine = 0, leader = 0;
  bool lead = true;
};

// Offsets of per-node regions laid end to end: region n has size(n) bytes (none for `skip`).
template <class F>
std::vector<std::int64_t> regions(int nodes, int skip, std::int64_t& total, F size) {
  std::vector<std::int64_t> off(static_cast<std::size_t>(nodes), 0);
  total = 0;
  for (int n = 0; n < nodes; ++n) {
    off[n] = total;
    if (n != skip) total += size(n);
  }
  return off;
}

class Hierarchical final : public Transport {
 public:
  Hierarchical(MPI_Comm comm, const ExchangeSpec& s, Device& dev)
      : comm_(comm), st_(dev.make_stager(s, StageUse::blocks)), b_(st_->blocks()), chunk_(chunk_bytes(b_)),
        h_(b_.spec) {
    if (h_.aggregate_tag() > 32767)
      fail("hierarchical: at most 16382 nodes per exchange (MPI tags), got ", h_.nodes);
    const int me = s.me, A = h_.mine;
    std::int64_t out = 0, in = 0;
    if (h_.lead) {
      out_off_ = regions(h_.nodes, A, out, [&](int B) { return h_.aggregate(A, B); });
      in_off_ = regions(h_.nodes, A, in, [&](int C) { return h_.aggregate(C, A); });
      // Laid out like the incoming aggregates: the parts of one aggregate may still be on their
      // way to the members when the next aggregate arrives.
      scatter_ = st_->wire(static_cast<std::size_t>(in));
    } else {
      out_off_ = regions(h_.nodes, A, out, [&](int B) { return h_.segment(me, B); });
      in_off_ = regions(h_.nodes, A, in, [&](int C) { return h_.part(C, me); });
    }
    out_ = st_->wire(static_cast<std::size_t>(out));
    in_ = st_->wire(static_cast<std::size_t>(in));
  }

  void execute(const void* src, void* dst, StageTiming& t) override {
    Pending p;
    st_->begin(false);
    {
      PhaseTimer pt(t.comm);
      post_receives(dst, p);
    }
    send_direct(src, p, t);
    send_remote(src, p, t);
    {
      PhaseTimer pt(t.unpack);
      st_->copy_self(src, dst);
    }
    p.recv.each(t.comm, [&](int o) { arrived(p.msgs[o], dst, p, t); });
    {
      PhaseTimer pt(t.comm);
      DFFT_MPI(MPI_Waitall(static_cast<int>(p.sreq.size()), p.sreq.data(), MPI_STATUSES_IGNORE));
    }
    PhaseTimer pt(t.unpack);
    st_->finish();
  }

 private:
  enum class Kind { direct, gather, aggregate, part };
  struct Msg {
    Kind kind;
    int x;  // direct: peer; gather: target node; aggregate, part: source node
  };
  struct Pending {
    std::vector<Msg> msgs;
    ChunkedReceives recv;  // owned by the index of their message
    std::vector<MPI_Request> sreq;
    std::vector<int> gather_left;  // leader: members' pieces of the aggregate for node B still coming
  };

  char* out_at(std::int64_t off) const { return out_ + off; }
  char* in_at(std::int64_t off) const { return in_ + off; }

  // Posts the receives of one message (in chunks); returns whether there is one.
  bool expect(Pending& p, Kind kind, int x, char* base, std::int64_t bytes, int peer, int tag) {
    if (!p.recv.post(static_cast<int>(p.msgs.size()), base, bytes, peer, tag, chunk_, comm_)) return false;
    p.msgs.push_back({kind, x});
    return true;
  }

  void post_receives(void* dst, Pending& p) {
    const int me = b_.spec.me, A = h_.mine;
    for (int k : h_.mem[A]) {
      if (k == me) continue;
      expect(p, Kind::direct, k, st_->recv_ptr(k, dst), b_.recv_bytes[k], k, HierSchedule::kDirect);
    }
    p.gather_left.assign(static_cast<std::size_t>(h_.nodes), 0);
    for (int C = 0; C < h_.nodes; ++C) {
      if (C == A) continue;
      if (!h_.lead) {
        expect(p, Kind::part, C, in_at(in_off_[C]), h_.part(C, me), h_.leader, h_.scatter_tag(C));
        continue;
      }
      expect(p, Kind::aggregate, C, in_at(in_off_[C]), h_.aggregate(C, A), h_.mem[C][0], h_.aggregate_tag());
      for (int a : h_.mem[A])
        if (a != me)
          p.gather_left[C] += expect(p, Kind::gather, C, out_at(out_off_[C] + h_.segment_offset(a, C)),
                                     h_.segment(a, C), a, h_.gather_tag(C));
    }
  }

  void send_direct(const void* src, Pending& p, StageTiming& t) {
    const int me = b_.spec.me;
    for (int k : h_.mem[h_.mine]) {
      if (k == me || b_.send_bytes[k] == 0) continue;
      {
        PhaseTimer pt(t.pack);
        st_->stage_out(k, src);
        st_->fence();
      }
      PhaseTimer pt(t.comm);
      post_chunks(const_cast<char*>(st_->send_ptr(k, src)), b_.send_bytes[k], k, HierSchedule::kDirect, chunk_, comm_, p.sreq, false);
    }
  }

  // My blocks for every other node, packed into my segment (in place in the aggregate on the
  // leader), then sent to the leader, or (leader) the aggregates that need no other piece.
  void send_remote(const void* src, Pending& p, StageTiming& t) {
    const int me = b_.spec.me;
    for (int B = 0; B < h_.nodes; ++B) {
      if (B == h_.mine) continue;
      char* seg = out_at(out_off_[B] + (h_.lead ? h_.segment_offset(me, B) : 0));
      {
        PhaseTimer pt(t.pack);
        for (int b : h_.mem[B])
          if (b_.send_bytes[b] > 0) st_->pack_at(b, src, seg + h_.block_offset(me, b));
        st_->fence();
      }
      PhaseTimer pt(t.comm);
      if (!h_.lead)
        post_chunks(seg, h_.segment(me, B), h_.leader, h_.gather_tag(B), chunk_, comm_, p.sreq, false);
      else if (p.gather_left[B] == 0)
        send_aggregate(B, p);
    }
  }

  void send_aggregate(int B, Pending& p) {
    post_chunks(out_at(out_off_[B]), h_.aggregate(h_.mine, B), h_.mem[B][0], h_.aggregate_tag(), chunk_,
                comm_, p.sreq, false);
  }

  void arrived(const Msg& m, void* dst, Pending& p, StageTiming& t) {
    switch (m.kind) {
      case Kind::direct:
        {
          PhaseTimer pt(t.unpack);
          st_->stage_in(m.x, dst);
        }
        return;
      case Kind::gather:
        if (--p.gather_left[m.x] == 0) {
          PhaseTimer pt(t.comm);
          send_aggregate(m.x, p);
        }
        return;
      case Kind::aggregate: scatter(m.x, dst, p, t); return;
      case Kind::part: {
        PhaseTimer pt(t.unpack);
        std::int64_t off = in_off_[m.x];
        for (int c : h_.mem[m.x]) {
          if (b_.recv_bytes[c] > 0) st_->unpack_at(c, in_at(off), dst);
          off += h_.span(c, b_.spec.me);
        }
        return;
      }
    }
  }

  // Leader: the aggregate from node C is here; unpack my blocks and send each member its own.
  void scatter(int C, void* dst, Pending& p, StageTiming& t) {
    const int me = b_.spec.me, A = h_.mine;
    const char* agg = in_at(in_off_[C]);
    std::int64_t at = in_off_[C];  // the members' parts laid end to end in C's region
    for (int a : h_.mem[A]) {
      PhaseTimer pt(a == me ? t.unpack : t.pack);
      char* part = scatter_ + at;
      std::int64_t len = 0;
      for (int c : h_.mem[C]) {
        const auto span = h_.span(c, a);
        const char* block = agg + h_.segment_offset(c, A) + h_.block_offset(c, a);
        if (span > 0 && a == me) st_->unpack_at(c, block, dst);
        if (span > 0 && a != me) st_->wire_copy(part + len, block, span);
        len += a == me ? 0 : span;
      }
      if (len > 0) st_->fence();
      if (len > 0) post_chunks(part, len, a, h_.scatter_tag(C), chunk_, comm_, p.sreq, false);
      at += len;
    }
  }

  MPI_Comm comm_;
  std::unique_ptr<Stager> st_;
  const Blocks& b_;
  std::int64_t chunk_;
  HierSchedule h_;
  std::vector<std::int64_t> out_off_, in_off_;  // per node: my outgoing and incoming regions
  char *out_ = nullptr, *in_ = nullptr, *scatter_ = nullptr;  // owned by the stager, where MPI reads
};

}  // namespace

NodeTraffic hierarchical_traffic(const ExchangeSpec& s) {
  const HierSchedule h(s);
  NodeTraffic t;
  const int me = s.me, A = h.mine;
  for (int k : h.mem[A])
    if (k != me && h.span(me, k) > 0) count_message(t, s, me, k, wire_bytes(s.codec, s.elem, intersect(s.src[me].box, s.dst[k].box).count()));
  for (int B = 0; B < h.nodes; ++B) {
    if (B == A) continue;
    if (!h.lead) {
      if (h.segment(me, B) > 0) count_message(t, s, me, h.leader, h.segment(me, B));
      continue;
    }
    if (h.aggregate(A, B) > 0) count_message(t, s, me, h.mem[B][0], h.aggregate(A, B));
    for (int a : h.mem[A])
      if (a != me && h.part(B, a) > 0) count_message(t, s, me, a, h.part(B, a));
  }
  return t;
}

std::unique_ptr<Transport> make_hierarchical(MPI_Comm c, const ExchangeSpec& s, Device& d) {
  return std::make_unique<Hierarchical>(c, s, d);
}

}  // namespace dfft::detail
