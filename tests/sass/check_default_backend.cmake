# tests/sass/check_default_backend.cmake - run as `cmake -DCUOBJDUMP=...
# -DNVDISASM=... -DOBJECT=<default_backend object> [-DTOOL_DIRS=a|b] -P ...`.
# The object is tests/sass/default_backend.cu built with
# -DTCORE_BACKEND=cuda_core: no kernel in it may hold DMMA, HMMA, BMMA or IMMA.
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/find_sass_tools.cmake)
execute_process(COMMAND "${CUOBJDUMP}" -sass "${OBJECT}" OUTPUT_VARIABLE sass ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "default-backend check: `${CUOBJDUMP} -sass ${OBJECT}` failed (${rc}):\n${err}")
endif()
string(REGEX MATCHALL "Function : [A-Za-z0-9_]+" kernels "${sass}")
list(LENGTH kernels kernel_count)
if(kernel_count LESS 10)
  message(FATAL_ERROR "default-backend check: only ${kernel_count} kernels in ${OBJECT}; the launchers did not instantiate")
endif()
# Whole mnemonics after the address comment: HFMA2.MMA is no MMA instruction.
string(REGEX MATCHALL "\\*/[ \t]+(@!?U?P[0-9T]+[ \t]+)?(DMMA|HMMA|BMMA|IMMA)[ .]" mma "${sass}")
list(LENGTH mma mma_count)
if(mma_count GREATER 0)
  message(FATAL_ERROR "default-backend check: ${mma_count} MMA instructions with TCORE_BACKEND=cuda_core; "
                      "some entry point does not take its default from TCORE_BACKEND")
endif()
message(STATUS "default-backend check: ${kernel_count} kernels, no MMA instruction with TCORE_BACKEND=cuda_core")
