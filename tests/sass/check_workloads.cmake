# tests/sass/check_workloads.cmake - run as `cmake -DCUOBJDUMP=... -DNVDISASM=...
# -DCXXFILT=... -DARCH=sm_90 -DWORKLOADS=a|b -DFILES_a=x.o|y.a ...
# [-DTOOL_DIRS=a|b] [-DSKIP_WITHOUT_ARCH=ON] [-DSUMMARY=<out.txt>] -P ...`.
# For every workload, disassembles the ARCH SASS of its files (the object of
# tcore_workload_<w> and, where there is one, the tcore_kernels_<w> static
# library), demangles each kernel's name and checks it by class:
#   tensor_core: the name mentions tcore::tensor_core; at least one MMA
#     instruction;
#   cuda_core: the name mentions tcore::cuda_core, or holds "cce" as a word
#     of an identifier (boris_push_cce_kernel, warp_sum_cce<...>,
#     spgemm_numeric<...::numeric_cce>, dasp_kernel<...::spmv_cce, ...>,
#     stencil2d_kernel<..., ...::stencil_cce, ...>: the plain CUDA-core
#     opponents); no MMA instruction;
#   unchecked: neither (helpers, baselines, CUB kernels); counted, and those
#     holding MMA counted too.
# A name that falls in both classes is a violation. Names are matched whole
# (template and parameter lists included). MMA instructions: DMMA, HMMA, IMMA,
# BMMA and the sm_90 warpgroup forms HGMMA, IGMMA, BGMMA, QGMMA, matched as
# whole mnemonics (HFMA2.MMA, an HFMA2 issued on the MMA pipe, is none).
# Fails on any violation, or when a workload has no tensor_core kernel (the
# classification no longer sees them). SUMMARY gets one line per kernel:
# workload, class, MMA count, demangled name.
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/find_sass_tools.cmake)

if(NOT CXXFILT OR NOT EXISTS "${CXXFILT}")
  find_program(CXXFILT_NOW NAMES c++filt)
  set(CXXFILT "${CXXFILT_NOW}")
endif()
if(NOT CXXFILT)
  message(FATAL_ERROR "workload sass check: c++filt (GNU binutils) not found; configure with -DTCORE_CXXFILT=<path>")
endif()
if(NOT ARCH)
  set(ARCH sm_90)
endif()
if(NOT WORKLOADS)
  message(FATAL_ERROR "workload sass check: no workloads given (-DWORKLOADS=a|b)")
endif()
if(NOT SUMMARY)
  set(SUMMARY "${CMAKE_CURRENT_BINARY_DIR}/workload_kernels.txt")
endif()
get_filename_component(work_dir "${SUMMARY}" DIRECTORY)

set(mma_family "^(DMMA|HMMA|IMMA|BMMA|HGMMA|IGMMA|BGMMA|QGMMA)(\\.|$)")
set(tensor_core_name "tcore::tensor_core([^A-Za-z0-9_]|$)")
set(cuda_core_name "tcore::cuda_core([^A-Za-z0-9_]|$)")
set(cce_word "(^|[^A-Za-z])cce([^A-Za-z]|$)")

string(REPLACE "|" ";" workloads "${WORKLOADS}")
set(failures 0)
set(report "")
set(summary_text "")
set(arch_seen FALSE)
foreach(w IN LISTS workloads)
  string(REPLACE "|" ";" files "${FILES_${w}}")
  # Kernels of this workload, by position: mangled name and MMA count.
  set(n_kernels 0)
  foreach(file IN LISTS files)
    if(NOT EXISTS "${file}")
      message(FATAL_ERROR "workload sass check: ${file} (workload ${w}) is not built; build the tree first")
    endif()
    execute_process(COMMAND "${CUOBJDUMP}" -sass -arch ${ARCH} "${file}"
      OUTPUT_VARIABLE sass ERROR_VARIABLE err RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "workload sass check: `${CUOBJDUMP} -sass -arch ${ARCH} ${file}` failed (${rc}):\n${err}")
    endif()
    # Only kernel headers and instructions whose mnemonic holds MMA; the
    # listing (hundreds of MB for the largest workloads) is not kept.
    string(REGEX MATCHALL "Function : [A-Za-z0-9_$.]+|\\*/[ \t]+(@!?U?P[0-9T]+[ \t]+)?[A-Z]*MMA[.A-Za-z0-9]*"
           tokens "${sass}")
    set(sass "")
    foreach(token IN LISTS tokens)
      if(token MATCHES "^Function : (.*)")
        math(EXPR n_kernels "${n_kernels} + 1")
        set(mangled_${n_kernels} "${CMAKE_MATCH_1}")
        set(mma_${n_kernels} 0)
        set(ops_${n_kernels} "")
      elseif(n_kernels GREATER 0 AND token MATCHES "([A-Z][A-Za-z0-9_.]*)$")
        set(op "${CMAKE_MATCH_1}")
        if(op MATCHES "${mma_family}")
          math(EXPR mma_${n_kernels} "${mma_${n_kernels}} + 1")
          string(REGEX REPLACE "\\..*" "" family "${op}")
          if(NOT family IN_LIST ops_${n_kernels})
            list(APPEND ops_${n_kernels} ${family})
          endif()
        endif()
      endif()
    endforeach()
  endforeach()
  if(n_kernels EQUAL 0)
    string(APPEND report "  ${w}: no ${ARCH} kernels\n")
    if(NOT SKIP_WITHOUT_ARCH)
      string(APPEND report "    FAIL: no ${ARCH} code in ${FILES_${w}}\n")
      math(EXPR failures "${failures} + 1")
    endif()
    continue()
  endif()
  set(arch_seen TRUE)

  # Demangle all names of the workload in one c++filt run, one name a line.
  set(names "")
  foreach(i RANGE 1 ${n_kernels})
    string(APPEND names "${mangled_${i}}\n")
  endforeach()
  file(WRITE "${work_dir}/workload_kernels_${w}.names" "${names}")
  execute_process(COMMAND "${CXXFILT}" INPUT_FILE "${work_dir}/workload_kernels_${w}.names"
    OUTPUT_VARIABLE demangled RESULT_VARIABLE rc)
  file(REMOVE "${work_dir}/workload_kernels_${w}.names")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "workload sass check: ${CXXFILT} failed (${rc})")
  endif()
  string(REGEX REPLACE "[][;]" "" demangled "${demangled}")  # list-unsafe characters
  string(REGEX REPLACE "\n$" "" demangled "${demangled}")
  string(REPLACE "\n" ";" demangled "${demangled}")
  list(LENGTH demangled n_names)
  if(NOT n_names EQUAL n_kernels)
    message(FATAL_ERROR "workload sass check: c++filt gave ${n_names} names for ${n_kernels} kernels (${w})")
  endif()

  set(tc 0)
  set(cc 0)
  set(other 0)
  set(other_mma 0)
  set(bad "")
  set(i 0)
  foreach(name IN LISTS demangled)
    math(EXPR i "${i} + 1")
    set(mma ${mma_${i}})
    set(is_tc FALSE)
    set(is_cc FALSE)
    if(name MATCHES "${tensor_core_name}")
      set(is_tc TRUE)
    endif()
    if(name MATCHES "${cuda_core_name}" OR name MATCHES "${cce_word}")
      set(is_cc TRUE)
    endif()
    if(is_tc AND is_cc)
      set(class both)
      string(APPEND bad "    FAIL names both tensor_core and a CUDA-core class (${mma} MMA): ${name}\n")
    elseif(is_tc)
      set(class tensor_core)
      math(EXPR tc "${tc} + 1")
      if(mma EQUAL 0)
        string(APPEND bad "    FAIL tensor_core kernel without an MMA instruction: ${name}\n")
      endif()
    elseif(is_cc)
      set(class cuda_core)
      math(EXPR cc "${cc} + 1")
      if(mma GREATER 0)
        string(REPLACE ";" "," ops "${ops_${i}}")
        string(APPEND bad "    FAIL cuda_core/cce kernel with ${mma} MMA instruction(s) (${ops}): ${name}\n")
      endif()
    else()
      set(class unchecked)
      math(EXPR other "${other} + 1")
      if(mma GREATER 0)
        math(EXPR other_mma "${other_mma} + 1")
      endif()
    endif()
    string(APPEND summary_text "${w}\t${class}\t${mma}\t${name}\n")
  endforeach()
  if(tc EQUAL 0)
    string(APPEND bad "    FAIL no tensor_core kernel found: the classification by name no longer sees them\n")
  endif()
  set(status ok)
  if(NOT bad STREQUAL "")
    set(status FAIL)
    string(REGEX MATCHALL "    FAIL" hits "${bad}")
    list(LENGTH hits n_bad)
    math(EXPR failures "${failures} + ${n_bad}")
  endif()
  string(APPEND report "  ${w}: ${n_kernels} kernels: ${tc} tensor_core (MMA required), ${cc} cuda_core/cce (no MMA), "
                       "${other} unchecked (${other_mma} of them with MMA)  ${status}\n${bad}")
endforeach()

file(WRITE "${SUMMARY}" "${summary_text}")
if(NOT arch_seen AND SKIP_WITHOUT_ARCH)
  message("${report}")
  message("workload sass check: skipped, no ${ARCH} code in the workloads (the build targets other architectures)")
  return()
endif()
message("${report}")
if(failures GREATER 0)
  message(FATAL_ERROR "workload sass check: ${failures} violation(s); every kernel in ${SUMMARY}")
endif()
message("workload sass check: every tensor_core kernel issues MMA, no cuda_core/cce kernel does (${ARCH}; every kernel in ${SUMMARY})")
