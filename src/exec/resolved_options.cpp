// SPDX-License-Identifier: MIT
// dfft::resolved_options: the plan's choices read once into a PlanResolution, which every row of
// the option table that the plan resolves applies (OptionField::resolve). Kept apart from the
// table itself, which the fuzzers and tools link without the plan code.
#include "dfft/dfft.hpp"
#include "dfft/option_fields.hpp"

namespace dfft {

template <class T>
Options resolved_options(const Plan<T>& p) {
  PlanResolution r;
  r.grid = p.grid();
  r.exchanges = p.exchange_bytes().size();
  r.codec = p.codec();
  r.staging = p.staging();
  r.chunks = p.chunks();
  r.in_flight = p.in_flight();
  r.overlap_slices = p.overlap_slices();
  r.threads = p.threads();
  Options o = p.options();
  for (const auto& f : option_fields())
    if (f.resolve) f.resolve(o, r);
  return o;
}
template Options resolved_options(const Plan<double>&);
template Options resolved_options(const Plan<float>&);

}  // namespace dfft
