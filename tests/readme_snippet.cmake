# The README's quick-start code must be the example's code, verbatim: takes
# the lines between "// example-begin quickstart" and "// example-end
# quickstart" in examples/quickstart/quickstart.cu and looks for them in README.md.
file(READ ${SOURCE_DIR}/examples/quickstart/quickstart.cu source)
file(READ ${SOURCE_DIR}/README.md readme)
string(REGEX MATCH "// example-begin quickstart\n(.*)// example-end quickstart" _ "${source}")
set(snippet "${CMAKE_MATCH_1}")
if(snippet STREQUAL "")
  message(FATAL_ERROR "no example-begin/end quickstart region in quickstart.cu")
endif()
string(FIND "${readme}" "${snippet}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "README.md's quick start differs from examples/quickstart/quickstart.cu")
endif()
