# tests/sass/check_sass.cmake - run as `cmake -DCUOBJDUMP=... -DNVDISASM=...
# -DOBJECT=<frag_kernels object> -DLISTING=<out.sass> [-DTOOL_DIRS=a|b]
# -P check_sass.cmake`. Disassembles the kernels of frag_kernels.cu and checks,
# for sm_80 and sm_90:
#   tc_<shape>: the MMA instruction of the shape, as many as expected (sm_90
#     FP64 m16n8k* is one DMMA.16x8xK; sm_80 runs it as 2K/4 DMMA.884), and
#     no other MMA instruction;
#   cc_<shape>: no DMMA / HMMA / BMMA / IMMA at all, and the CUDA-core work
#     the cuda_core backend promises: K * c_count DFMA (FP64) or FFMA (TF32,
#     FP16) per lane, 8 POPC for b1, and shuffles.
# Opcodes are matched as whole mnemonics: HFMA2.MMA (an HFMA2 issued on the
# MMA pipe, used to build constants) is not an MMA instruction.
cmake_minimum_required(VERSION 3.25)

include(${CMAKE_CURRENT_LIST_DIR}/find_sass_tools.cmake)

execute_process(COMMAND "${CUOBJDUMP}" -sass "${OBJECT}"
  OUTPUT_VARIABLE sass ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "sass check: `${CUOBJDUMP} -sass ${OBJECT}` failed (${rc}):\n${err}")
endif()
if(LISTING)
  file(WRITE "${LISTING}" "${sass}")
endif()

# Parse: "code for sm_XX", "Function : name", then one instruction per line.
string(REGEX REPLACE "[][;]" "" sass "${sass}")  # list-unsafe characters
string(REPLACE "\n" ";" lines "${sass}")
set(arch "")
set(fn "")
set(seen "")
foreach(line IN LISTS lines)
  if(line MATCHES "code for sm_([0-9]+)")
    set(arch ${CMAKE_MATCH_1})
  elseif(line MATCHES "Function : ([A-Za-z0-9_]+)")
    set(fn ${CMAKE_MATCH_1})
    list(APPEND seen "${arch}/${fn}")
  elseif(line MATCHES "/\\*[0-9a-f]+\\*/[ \t]+(@!?U?P[0-9T]+[ \t]+)?([A-Z][A-Za-z0-9_.]*)")
    list(APPEND "ops_${arch}_${fn}" "${CMAKE_MATCH_2}")
  endif()
endforeach()

# count_ops(<out> <arch> <kernel> <regex>): instructions whose mnemonic matches.
function(count_ops out arch fn regex)
  set(n 0)
  foreach(op IN LISTS "ops_${arch}_${fn}")
    if(op MATCHES "${regex}")
      math(EXPR n "${n} + 1")
    endif()
  endforeach()
  set(${out} ${n} PARENT_SCOPE)
endfunction()

# shape; cuda_core arithmetic: mnemonic, count per lane (K * c_count, b1: 4 words x 2 outputs).
set(shapes
  "f64_m8n8k4|DFMA|8"
  "f64_m16n8k4|DFMA|16"
  "f64_m16n8k8|DFMA|32"
  "f64_m16n8k16|DFMA|64"
  "tf32_m16n8k8|FFMA|32"
  "f16_m16n8k16_f32acc|FFMA|64"
  "f16_m16n8k16_f16acc|FFMA|64"
  "b1_m8n8k128|POPC|8")
# arch|shape -> tensor_core mnemonic prefix|count
set(expect_90_f64_m8n8k4 "DMMA.8x8x4|1")
set(expect_90_f64_m16n8k4 "DMMA.16x8x4|1")
set(expect_90_f64_m16n8k8 "DMMA.16x8x8|1")
set(expect_90_f64_m16n8k16 "DMMA.16x8x16|1")
set(expect_80_f64_m8n8k4 "DMMA.884|1")
set(expect_80_f64_m16n8k4 "DMMA.884|2")
set(expect_80_f64_m16n8k8 "DMMA.884|4")
set(expect_80_f64_m16n8k16 "DMMA.884|8")
foreach(a 80 90)
  set(expect_${a}_tf32_m16n8k8 "HMMA.1688.F32.TF32|1")
  set(expect_${a}_f16_m16n8k16_f32acc "HMMA.16816.F32|1")
  set(expect_${a}_f16_m16n8k16_f16acc "HMMA.16816.F16|1")
  set(expect_${a}_b1_m8n8k128 "BMMA.88128.AND.POPC|1")
endforeach()

set(mma_family "^(DMMA|HMMA|BMMA|IMMA)(\\.|$)")
set(failures 0)
set(report "")
foreach(a 80 90)
  foreach(entry IN LISTS shapes)
    string(REPLACE "|" ";" entry "${entry}")
    list(GET entry 0 shape)
    list(GET entry 1 cc_op)
    list(GET entry 2 cc_count)
    string(REPLACE "|" ";" want "${expect_${a}_${shape}}")
    list(GET want 0 tc_op)
    list(GET want 1 tc_count)
    string(REPLACE "." "\\." tc_regex "^${tc_op}")

    # tensor_core kernel
    set(status "ok")
    if(NOT "${a}/tc_${shape}" IN_LIST seen)
      set(status "FAIL: kernel missing")
    else()
      count_ops(n_shape ${a} tc_${shape} "${tc_regex}")
      count_ops(n_mma ${a} tc_${shape} "${mma_family}")
      if(NOT n_shape EQUAL tc_count OR NOT n_mma EQUAL tc_count)
        set(status "FAIL: want ${tc_count} x ${tc_op} and no other MMA")
      endif()
    endif()
    if(NOT status STREQUAL "ok")
      math(EXPR failures "${failures} + 1")
    endif()
    string(APPEND report "  sm_${a}  tc_${shape}: ${n_shape} x ${tc_op} (${n_mma} MMA in all)  ${status}\n")

    # cuda_core kernel
    set(status "ok")
    if(NOT "${a}/cc_${shape}" IN_LIST seen)
      set(status "FAIL: kernel missing")
    else()
      count_ops(n_mma ${a} cc_${shape} "${mma_family}")
      count_ops(n_op ${a} cc_${shape} "^${cc_op}(\\.|$)")
      count_ops(n_shfl ${a} cc_${shape} "^SHFL(\\.|$)")
      if(NOT n_mma EQUAL 0)
        set(status "FAIL: MMA instruction in a cuda_core kernel")
      elseif(NOT n_op EQUAL cc_count OR n_shfl EQUAL 0)
        set(status "FAIL: want ${cc_count} x ${cc_op} and shuffles")
      endif()
    endif()
    if(NOT status STREQUAL "ok")
      math(EXPR failures "${failures} + 1")
    endif()
    string(APPEND report "  sm_${a}  cc_${shape}: ${n_mma} MMA, ${n_op} x ${cc_op}, ${n_shfl} x SHFL  ${status}\n")
  endforeach()
endforeach()

message("${report}")
if(failures GREATER 0)
  message(FATAL_ERROR "sass check: ${failures} kernel(s) failed; listing in ${LISTING}")
endif()
message("sass check: all 32 kernels as expected (listing in ${LISTING})")
