// SPDX-License-Identifier: MIT
#include "io/agree.hpp"

#include <cstdint>
#include <new>
#include <string>

#include "dfft/types.hpp"
#include "util/check.hpp"

namespace dfft::io::detail {

namespace {

// What travels from the failing rank: the error's fields, then call and message as text.
struct Wire {
  std::int64_t status = 0, code = 0, rank = -1, library = 0, call_len = 0, what_len = 0;
};

void describe(const std::exception_ptr& e, Wire& w, std::string& call, std::string& what) {
  try {
    std::rethrow_exception(e);
  } catch (const LibraryError& x) {
    w.library = static_cast<std::int64_t>(x.library());
    call = x.call(), what = x.what(), w.status = static_cast<std::int64_t>(x.status());
    w.code = x.code(), w.rank = x.rank();
  } catch (const Error& x) {
    call = x.call(), what = x.what(), w.status = static_cast<std::int64_t>(x.status());
    w.code = x.code(), w.rank = x.rank();
  } catch (const std::bad_alloc&) {
    call = "allocation", what = "dfft: host memory allocation failed";
    w.status = static_cast<std::int64_t>(Status::out_of_memory);
  } catch (const std::exception& x) {
    call = "io", what = x.what(), w.status = static_cast<std::int64_t>(Status::internal);
  } catch (...) {
    call = "io", what = "dfft: unknown exception", w.status = static_cast<std::int64_t>(Status::internal);
  }
  if (w.rank < 0) w.rank = dfft::detail::world_rank();
}

[[noreturn]] void rethrow(const Wire& w, const std::string& call, const std::string& what) {
  const int r = static_cast<int>(w.rank);
  switch (static_cast<Status>(w.status)) {
    case Status::invalid_argument: throw InvalidArgument(call, r, what);
    case Status::unsupported: throw Unsupported(call, r, what);
    case Status::out_of_memory: throw OutOfMemory(call, w.code, r, what);
    case Status::mpi_error: throw MpiError(call, w.code, r, what);
    case Status::library_error:
      throw LibraryError(static_cast<LibraryError::Library>(w.library), call, w.code, r, what);
    default: throw Error(call, w.code, r, what, Status::internal);
  }
}

}  // namespace

void agree(MPI_Comm comm, const std::exception_ptr& mine) {
  int rank = 0, size = 1;
  DFFT_MPI(MPI_Comm_rank(comm, &rank));
  DFFT_MPI(MPI_Comm_size(comm, &size));
  int cand = mine ? rank : size, root = size;
  DFFT_MPI(MPI_Allreduce(&cand, &root, 1, MPI_INT, MPI_MIN, comm));
  if (root == size) return;
  Wire w;
  std::string call, what;
  if (rank == root) {
    describe(mine, w, call, what);
    w.call_len = static_cast<std::int64_t>(call.size());
    w.what_len = static_cast<std::int64_t>(what.size());
  }
  DFFT_MPI(MPI_Bcast(&w, 6, MPI_INT64_T, root, comm));
  std::string text = call + what;
  text.resize(static_cast<std::size_t>(w.call_len + w.what_len));
  DFFT_MPI(MPI_Bcast(text.data(), static_cast<int>(text.size()), MPI_CHAR, root, comm));
  if (rank == root) std::rethrow_exception(mine);
  rethrow(w, text.substr(0, static_cast<std::size_t>(w.call_len)), text.substr(static_cast<std::size_t>(w.call_len)));
}

}  // namespace dfft::io::detail
