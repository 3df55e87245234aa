# SPDX-License-Identifier: MIT
# CUDA backend selection.
#   DFFT_CUDA=AUTO|ON|OFF  AUTO (default) builds the backend when a CUDA compiler is found.
#   DFFT_NCCL=AUTO|ON|OFF  the `nccl` transport (needs the CUDA backend and nccl.h/libnccl).
# Without CUDA, src/backend/no_cuda.cpp makes "--backend cuda" a clear plan-time error.
# Results: DFFT_HAS_CUDA, DFFT_HAS_NCCL (normal and cache variables, for tests/ and the package
# config), and the compile definitions DFFT_HAS_CUDA=1 / DFFT_HAS_NCCL=1 on the dfft target.
set(DFFT_HAS_CUDA OFF)
set(DFFT_HAS_NCCL OFF)
string(TOUPPER "${DFFT_CUDA}" _dfft_cuda)
string(TOUPPER "${DFFT_NCCL}" _dfft_nccl)

if(NOT _dfft_cuda STREQUAL "OFF")
  # nvcc is often installed outside PATH; look where the toolkit usually lives.
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    find_program(_dfft_nvcc nvcc)
    if(NOT _dfft_nvcc)
      set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
    endif()
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # Hopper: sm_90 machine code plus compute_90 PTX so newer GPUs can JIT it.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "90-real;90-virtual")
    endif()
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(DFFT_HAS_CUDA ON)
  elseif(_dfft_cuda STREQUAL "ON")
    message(FATAL_ERROR "DFFT_CUDA=ON but no CUDA compiler was found (set CMAKE_CUDA_COMPILER "
                        "or CUDACXX to nvcc, or configure with -DDFFT_CUDA=OFF)")
  endif()
endif()

if(DFFT_HAS_CUDA AND NOT _dfft_nccl STREQUAL "OFF")
  find_path(DFFT_NCCL_INCLUDE_DIR nccl.h
            HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda/include /usr/include ENV NCCL_HOME
            PATH_SUFFIXES include)
  find_library(DFFT_NCCL_LIBRARY nccl
               HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda/lib64 /usr/lib/x86_64-linux-gnu
                     ENV NCCL_HOME
               PATH_SUFFIXES lib lib64)
  if(DFFT_NCCL_INCLUDE_DIR AND DFFT_NCCL_LIBRARY)
    set(DFFT_HAS_NCCL ON)
  elseif(_dfft_nccl STREQUAL "ON")
    message(FATAL_ERROR "DFFT_NCCL=ON but nccl.h/libnccl were not found (set "
                        "DFFT_NCCL_INCLUDE_DIR and DFFT_NCCL_LIBRARY, or -DDFFT_NCCL=OFF)")
  endif()
elseif(_dfft_nccl STREQUAL "ON")
  message(FATAL_ERROR "DFFT_NCCL=ON needs the CUDA backend (DFFT_CUDA)")
endif()

set(DFFT_HAS_CUDA ${DFFT_HAS_CUDA} CACHE INTERNAL "dfft builds the CUDA backend")
set(DFFT_HAS_NCCL ${DFFT_HAS_NCCL} CACHE INTERNAL "dfft builds the NCCL transport")
message(STATUS "dfft: CUDA backend ${DFFT_HAS_CUDA}, NCCL transport ${DFFT_HAS_NCCL}")

function(dfft_add_cuda_backend target)
  if(NOT DFFT_HAS_CUDA)
    target_sources(${target} PRIVATE src/backend/no_cuda.cpp)
    return()
  endif()
  target_sources(${target} PRIVATE
    src/backend/cuda/check.cpp
    src/backend/cuda/cuda_device.cpp
    src/backend/cuda/live_counts.cpp
    src/backend/cuda/cufft_layout.cpp
    src/backend/cuda/cufft_local.cpp
    src/backend/cuda/column_fft.cpp
    src/backend/cuda/column_fft.cu
    src/backend/cuda/plane_fft.cpp
    src/backend/cuda/plane_fft.cu
    src/backend/cuda/kernels.cu
    src/backend/cuda/r2r.cu
    src/backend/cuda/r2r_local.cpp
    src/backend/cuda/codec.cu
    src/backend/cuda/stager.cpp
    src/backend/cuda/p2p_streams.cpp
    src/backend/cuda/transports.cpp
    src/backend/cuda/nccl.cpp
    src/backend/cuda/ipc.cpp
    src/backend/cuda/reference.cpp
    src/backend/cuda/store_callbacks.cpp)
  # The normalising store callbacks as LTO-IR in a C array (src/backend/cuda/scale_callbacks.cu):
  # cuFFT links them into its kernels at plan time. compute_75 LTO-IR links on every newer GPU.
  set(_cb_dir ${CMAKE_CURRENT_BINARY_DIR}/generated)
  set(_cb_src ${PROJECT_SOURCE_DIR}/src/backend/cuda/scale_callbacks.cu)
  add_custom_command(
    OUTPUT ${_cb_dir}/scale_callbacks_fatbin.h
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_cb_dir}
    COMMAND ${CMAKE_CUDA_COMPILER} -std=c++17 --generate-code arch=compute_75,code=lto_75 -dc -fatbin
            ${_cb_src} -o ${_cb_dir}/scale_callbacks.fatbin
    COMMAND ${CUDAToolkit_BIN_DIR}/bin2c --const --static --name dfft_scale_callbacks_fatbin --type longlong
            ${_cb_dir}/scale_callbacks.fatbin > ${_cb_dir}/scale_callbacks_fatbin.h
    DEPENDS ${_cb_src})
  target_sources(${target} PRIVATE ${_cb_dir}/scale_callbacks_fatbin.h)
  target_include_directories(${target} PRIVATE ${_cb_dir})
  target_compile_definitions(${target} PUBLIC DFFT_HAS_CUDA=1)
  target_link_libraries(${target} PRIVATE CUDA::cudart CUDA::cufft)
  # cuFFT links the callbacks with nvJitLink; linking it here makes a missing library a load-time
  # error instead of a plan without callbacks.
  if(TARGET CUDA::nvJitLink)
    target_link_libraries(${target} PRIVATE CUDA::nvJitLink)
  endif()
  if(DFFT_HAS_NCCL)
    target_compile_definitions(${target} PUBLIC DFFT_HAS_NCCL=1)
    target_include_directories(${target} SYSTEM PRIVATE ${DFFT_NCCL_INCLUDE_DIR})
    target_link_libraries(${target} PRIVATE ${DFFT_NCCL_LIBRARY})
  endif()
  # Host code sees the CUDA headers as system headers (no warnings from them); the kernels
  # file gets the same warning flags through the host compiler.
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra,-Wshadow --expt-relaxed-constexpr>)
  set_target_properties(${target} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
endfunction()
