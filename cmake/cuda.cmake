# CUDA backend selection (DFFT_CUDA=AUTO|ON|OFF). Without it, src/backend/no_cuda.cpp makes
# "--backend cuda" a clear error. The CUDA sources themselves live in src/backend/cuda.
set(DFFT_HAS_CUDA OFF)
set(DFFT_HAS_NCCL OFF)
function(dfft_add_cuda_backend target)
  target_sources(${target} PRIVATE src/backend/no_cuda.cpp)
endfunction()
