// SPDX-License-Identifier: MIT
// dfft::Error carries the failing call, its return code, the rank and its status (one class per
// kind); names parse both ways.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <exception>
#include <new>
#include <stdexcept>

#include "dfft/types.hpp"
#include "util/check.hpp"

namespace {

using ::testing::HasSubstr;

int rank() {
  int r = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

TEST(Error, ConstructorKeepsFields) {
  dfft::Error e("MPI_Alltoallv", 15, 3, "dfft: boom");
  EXPECT_EQ(e.call(), "MPI_Alltoallv");
  EXPECT_EQ(e.code(), 15);
  EXPECT_EQ(e.rank(), 3);
  EXPECT_STREQ(e.what(), "dfft: boom");
  const std::runtime_error& base = e;  // catchable as a standard exception
  EXPECT_STREQ(base.what(), "dfft: boom");
}

TEST(Error, FailedMpiCallNamesCallCodeAndRank) {
  try {
    DFFT_MPI(MPI_ERR_COUNT);  // what the macro sees when a call returns MPI_ERR_COUNT
    FAIL() << "no exception";
  } catch (const dfft::MpiError& e) {
    EXPECT_EQ(e.status(), dfft::Status::mpi_error);
    EXPECT_EQ(e.call(), "MPI_ERR_COUNT");
    EXPECT_EQ(e.code(), MPI_ERR_COUNT);
    EXPECT_EQ(e.rank(), rank());
    EXPECT_THAT(e.what(), HasSubstr("failed with code " + std::to_string(MPI_ERR_COUNT)));
    EXPECT_THAT(e.what(), HasSubstr("on rank " + std::to_string(rank())));
  }
}

TEST(Error, RealMpiFailureOnReturningCommunicator) {
  // A communicator with MPI_ERRORS_RETURN (as the library uses) and a call with an invalid root.
  MPI_Comm c;
  ASSERT_EQ(MPI_Comm_dup(MPI_COMM_SELF, &c), MPI_SUCCESS);
  ASSERT_EQ(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN), MPI_SUCCESS);
  int x = 0;
  try {
    DFFT_MPI(MPI_Bcast(&x, 1, MPI_INT, 5, c));  // root 5 of a 1-rank communicator
    ADD_FAILURE() << "no exception";
  } catch (const dfft::Error& e) {
    EXPECT_THAT(e.call(), HasSubstr("MPI_Bcast"));
    EXPECT_NE(e.code(), MPI_SUCCESS);
    EXPECT_EQ(e.rank(), rank());
  }
  MPI_Comm_free(&c);
}

TEST(Error, InputErrorsAreCalledPlanWithCodeZero) {
  try {
    dfft::parse_method("foo");
    FAIL() << "no exception";
  } catch (const dfft::InvalidArgument& e) {
    EXPECT_EQ(e.status(), dfft::Status::invalid_argument);
    EXPECT_EQ(e.call(), "plan");
    EXPECT_EQ(e.code(), 0);
    EXPECT_EQ(e.rank(), rank());
  }
}

// A rank reporting another rank's failure throws the class of that failure's status.
template <class E>
void expect_thrown_as(dfft::Status s) {
  try {
    dfft::detail::throw_as(s, "elsewhere");
    ADD_FAILURE() << "no exception";
  } catch (const E& e) {
    EXPECT_EQ(e.status(), s);
    EXPECT_STREQ(e.what(), "dfft: elsewhere");
  }
}

TEST(Error, ThrowAsGivesTheClassOfTheStatus) {
  expect_thrown_as<dfft::InvalidArgument>(dfft::Status::invalid_argument);
  expect_thrown_as<dfft::Unsupported>(dfft::Status::unsupported);
  expect_thrown_as<dfft::OutOfMemory>(dfft::Status::out_of_memory);
  expect_thrown_as<dfft::MpiError>(dfft::Status::mpi_error);
  expect_thrown_as<dfft::LibraryError>(dfft::Status::library_error);
  expect_thrown_as<dfft::Error>(dfft::Status::internal);
  EXPECT_EQ(dfft::detail::status_of(std::make_exception_ptr(dfft::Unsupported("plan", 0, "x"))),
            dfft::Status::unsupported);
  EXPECT_EQ(dfft::detail::status_of(std::make_exception_ptr(std::bad_alloc())), dfft::Status::out_of_memory);
  EXPECT_EQ(dfft::detail::status_of(std::make_exception_ptr(std::logic_error("x"))), dfft::Status::internal);
}

template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const dfft::Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Names, UnknownNamesListTheAllowedOnes) {
  EXPECT_THAT(message_of([] { dfft::parse_method("foo"); }),
              HasSubstr("unknown method 'foo'; allowed: a2a-sync, a2a-type, p2p-sync, p2p-type, p2p-streams, nccl"));
  EXPECT_THAT(message_of([] { dfft::parse_decomposition("slab"); }),
              HasSubstr("unknown decomposition 'slab'; allowed: slab-2d1d, slab-1d2d, pencil"));
  EXPECT_THAT(message_of([] { dfft::parse_variant("fast"); }),
              HasSubstr("unknown variant 'fast'; allowed: default, realigned"));
  EXPECT_THAT(message_of([] { dfft::parse_transform("dct"); }),
              HasSubstr("unknown transform 'dct'; allowed: r2c, c2c"));
  EXPECT_THAT(message_of([] { dfft::parse_backend("gpu"); }),
              HasSubstr("unknown backend 'gpu'; allowed: cpu, cuda"));
  EXPECT_THAT(message_of([] { dfft::parse_method(""); }), HasSubstr("unknown method ''"));
  EXPECT_THAT(message_of([] { dfft::parse_method("A2A-SYNC"); }), HasSubstr("unknown method"));
}

TEST(Names, RoundTrip) {
  using namespace dfft;
  for (auto d : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    EXPECT_EQ(parse_decomposition(to_string(d)), d);
  for (auto v : {Variant::Default, Variant::Realigned}) EXPECT_EQ(parse_variant(to_string(v)), v);
  for (auto t : {Transform::r2c, Transform::c2c}) EXPECT_EQ(parse_transform(to_string(t)), t);
  for (auto m : {Method::a2a_sync, Method::a2a_type, Method::p2p_sync, Method::p2p_type,
                 Method::p2p_streams, Method::nccl, Method::onesided})
    EXPECT_EQ(parse_method(to_string(m)), m);
  for (auto b : {Backend::cpu, Backend::cuda}) EXPECT_EQ(parse_backend(to_string(b)), b);
  EXPECT_EQ(to_string(Method::a2a_type), "a2a-type");
  EXPECT_EQ(to_string(Decomposition::slab_1d2d), "slab-1d2d");
}

}  // namespace
