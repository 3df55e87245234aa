// SPDX-License-Identifier: MIT
// The names of each enum of dfft/types.hpp, in the order of its name table (names.cpp), so that
// a list of allowed values is read from the one table that parses them.
#pragma once

#include <string>
#include <vector>

#include "dfft/types.hpp"

namespace dfft::detail {

template <class E>
std::vector<std::string> names_of();
template <> std::vector<std::string> names_of<Decomposition>();
template <> std::vector<std::string> names_of<Variant>();
template <> std::vector<std::string> names_of<Transform>();
template <> std::vector<std::string> names_of<Method>();
template <> std::vector<std::string> names_of<Backend>();
template <> std::vector<std::string> names_of<R2R>();
template <> std::vector<std::string> names_of<Codec>();
template <> std::vector<std::string> names_of<OneSidedSync>();
template <> std::vector<std::string> names_of<Staging>();
template <> std::vector<std::string> names_of<Tune>();
template <> std::vector<std::string> names_of<Norm>();
template <> std::vector<std::string> names_of<Directions>();

}  // namespace dfft::detail
