// tests/fuzz/fuzz_mtx.cpp - libFuzzer harness for the Matrix Market reader
// (tcore/io/matrix_market.hpp) and the sparse format converters.
//
// Any input must either parse into a valid CSR matrix (sorted, unique, in
// range) or throw tcore::error; anything else - a crash, a sanitizer report,
// another exception type (std::bad_alloc included: the reader must never
// reserve memory from a declared count alone), a hang - is a bug. A parsed
// matrix must also survive write -> parse unchanged (bit for bit), and the
// DASP-like SpMV format and mBSR must round-trip it exactly. A read on 3
// threads must give the same matrix, or the same message, as a serial one.
//
// Build and run: tests/fuzz/run.sh (clang++ -fsanitize=fuzzer,address,undefined).
#include <tcore/io/matrix_market.hpp>
#include <tcore/sparse/csr.hpp>
#include <tcore/sparse/dasp.hpp>
#include <tcore/sparse/mbsr.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <string_view>

namespace {

bool identical(const tcore::sparse::csr& a, const tcore::sparse::csr& b)
{
    if (!tcore::sparse::structure_difference(a, b).empty() || a.values.size() != b.values.size()) return false;
    return a.values.empty() || std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(double)) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    tcore::io::mm_options opts;
    opts.max_dimension = 1 << 16;  // keep allocations proportionate to the input
    opts.max_entries = 1 << 20;
    if (size > 0 && (data[0] & 1)) opts.complex = tcore::io::complex_mode::real_part;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    // The same input read on 3 threads must give the same matrix or the same message.
    tcore::io::mm_options threaded = opts;
    threaded.threads = 3;
    threaded.min_bytes_per_thread = 1;
    tcore::sparse::csr t;
    std::string threaded_error;
    try {
        t = tcore::io::parse_matrix_market(text, threaded, "fuzz");
    } catch (const tcore::error& e) {
        threaded_error = e.what();
    }
    opts.threads = 1;
    tcore::sparse::csr a;
    try {
        a = tcore::io::parse_matrix_market(text, opts, "fuzz");
    } catch (const tcore::error& e) {
        if (threaded_error != e.what()) std::abort();
        return 0;  // rejected with a message: fine
    }
    if (!threaded_error.empty() || !identical(a, t) || a.row_ptr != t.row_ptr) std::abort();
    tcore::sparse::validate(a, "fuzz: parsed matrix", true);  // throws (uncaught: a finding) if not valid

    std::ostringstream out;
    tcore::io::write_matrix_market(out, a);
    const tcore::sparse::csr b = tcore::io::parse_matrix_market(out.str(), opts, "fuzz: written");
    if (!identical(a, b)) std::abort();

    if (a.nnz() <= 4096 && a.rows <= 4096) {
        tcore::sparse::dasp_options o;
        o.long_min = 5 + static_cast<int>(size % 40);
        o.long_piece = 128;
        o.resident_warps = 132 * 32;  // a 132-SM GPU's warps: no device query on the fuzzing host
        o.bundle = size % 3 == 0 ? 0 : (size % 3 == 1 ? 1 : 2);  // automatic, none, pairs
        if (!identical(tcore::sparse::dasp_to_csr(tcore::sparse::build_dasp(a, o)), a)) std::abort();
        if (!identical(tcore::sparse::mbsr_to_csr(tcore::sparse::csr_to_mbsr(a)), a)) std::abort();
    }
    return 0;
}
