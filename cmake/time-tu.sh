#!/bin/sh
# Compiler launcher (CMAKE_<LANG>_COMPILER_LAUNCHER) that appends
# "<milliseconds> <object file> <end, ms since 1970>" for each compilation to
# $TCORE_TIME_TUS.
# Set by CMakeLists.txt when the environment variable TCORE_TIME_TUS names a
# file; .ci/run prints the slowest translation units from it.
start=$(date +%s%N)
"$@"
status=$?
end=$(date +%s%N)
object=unknown
previous=
for arg in "$@"; do
  [ "$previous" = "-o" ] && object=$arg
  previous=$arg
done
echo "$(( (end - start) / 1000000 )) $object $(( end / 1000000 ))" >> "$TCORE_TIME_TUS"
exit $status
