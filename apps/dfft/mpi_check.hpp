// SPDX-License-Identifier: MIT
// Return-code check for the app's own MPI calls (the library checks its own).
#pragma once

#include <mpi.h>

#include <stdexcept>
#include <string>

namespace dfftapp {

inline void mpi_check(int code, const char* call) {
  if (code != MPI_SUCCESS) throw std::runtime_error(std::string("dfft: ") + call + " failed with code " + std::to_string(code));
}

}  // namespace dfftapp

#define APP_MPI(call) ::dfftapp::mpi_check((call), #call)
