# tcore_default_cuda_architectures(<var>): `native` when nvidia-smi lists at
# least one GPU on this machine, else 90 (the sm_90 H100/H200 the benchmarks
# were measured on). Only used when neither CMAKE_CUDA_ARCHITECTURES nor
# CUDAARCHS is given.
function(tcore_default_cuda_architectures var)
  set(archs 90)
  find_program(TCORE_NVIDIA_SMI nvidia-smi)
  if(TCORE_NVIDIA_SMI)
    execute_process(COMMAND ${TCORE_NVIDIA_SMI} -L OUTPUT_VARIABLE gpus RESULT_VARIABLE rc ERROR_QUIET TIMEOUT 20)
    if(rc EQUAL 0 AND gpus MATCHES "GPU [0-9]+:")
      set(archs native)
    endif()
  endif()
  message(STATUS "tcore: CUDA architectures ${archs} (set CMAKE_CUDA_ARCHITECTURES to choose, e.g. \"80;90\")")
  set(${var} ${archs} PARENT_SCOPE)
endfunction()
