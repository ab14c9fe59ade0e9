# Compiles one snippet and checks the outcome:
#   EXPECT=fail: the compiler must reject it with output matching PATTERN;
#   EXPECT=ok:   it must compile (with -DTCORE_EXPECT_OK).
# -D: COMPILER, SOURCE, INCLUDE, ARCH, EXPECT, PATTERN, OBJECT
set(args -std=c++17 -arch=${ARCH} -I${INCLUDE} -c ${SOURCE} -o ${OBJECT})
if(EXPECT STREQUAL "ok")
  list(APPEND args -DTCORE_EXPECT_OK)
endif()
execute_process(COMMAND ${COMPILER} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(text "${out}${err}")
if(EXPECT STREQUAL "ok")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${SOURCE} with -DTCORE_EXPECT_OK must compile; it failed:\n${text}")
  endif()
  message(STATUS "compiled, as it must: ${SOURCE} (TCORE_EXPECT_OK)")
else()
  if(rc EQUAL 0)
    message(FATAL_ERROR "${SOURCE} compiled, but it must be rejected")
  endif()
  if(NOT text MATCHES "${PATTERN}")
    message(FATAL_ERROR "${SOURCE} was rejected, but not for the expected reason (/${PATTERN}/):\n${text}")
  endif()
  message(STATUS "rejected, as it must be: ${SOURCE} (/${PATTERN}/)")
endif()
