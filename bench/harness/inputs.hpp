// bench/harness/inputs.hpp - small helpers the workloads share: reproducible
// random inputs (splitmix64, never zero: zeros hide unwritten outputs and
// run faster than real data), a device array, the names and numbers of the
// report, and the user's matrices (--matrix): their case names and the size
// line of a Matrix Market file, read before the file itself so that a case
// too large for the device is skipped without reading it.
#pragma once

#include "harness/harness.hpp"

#include <tcore/check.cuh>
#include <tcore/infra/splitmix64.cuh>

#include <cuda_runtime.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace tcore::bench {

/// A stateless input value in [-1, 1) for element i under `seed`, the same
/// on the host and in a kernel (which can fill an array too large to send).
__host__ __device__ inline double hash_unit(std::uint64_t i, std::uint64_t seed)
{
    return -1.0 + 2.0 * static_cast<double>(splitmix64_mix(i * splitmix64_gamma + seed) >> 11) * 0x1.0p-53;
}

/// n values uniform in (lo, hi), never exactly zero, the same for the same seed.
inline std::vector<double> random_uniform(std::size_t n, std::uint64_t seed, double lo = -2.0, double hi = 2.0)
{
    std::vector<double> v(n);
    splitmix64 r(seed);
    for (std::size_t i = 0; i < n; ++i) {
        double x = 0;
        while (x == 0) x = lo + (hi - lo) * r.unit();
        v[i] = x;
    }
    return v;
}

/// The non-empty entries of a comma-separated list ("a,,b" -> a, b).
inline std::vector<std::string> split_list(const std::string& text)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = text.find(',', start);
        const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!item.empty()) out.push_back(item);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

/// A cudaMalloc'd array of n elements (none for n = 0), freed on scope exit.
template <class T>
struct device_array {
    T* ptr = nullptr;
    explicit device_array(std::size_t n)
    {
        if (n) TCORE_CHECK(cudaMalloc(&ptr, n * sizeof(T)));
    }
    ~device_array() { cudaFree(ptr); }
    device_array(const device_array&) = delete;
    device_array& operator=(const device_array&) = delete;
    void upload(const std::vector<T>& host)
    {
        TCORE_CHECK(cudaMemcpy(ptr, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
};

/// "2^k" for a power of two, else the number.
inline std::string pow2_name(long long n)
{
    if (n > 0 && (n & (n - 1)) == 0) {
        int k = 0;
        while ((1LL << k) < n) ++k;
        return "2^" + std::to_string(k);
    }
    return std::to_string(n);
}

/// The case name of a --matrix file: its stem ("a/b/cant.mtx" -> "cant").
inline std::string matrix_case_name(const std::string& path)
{
    const std::size_t slash = path.find_last_of('/');
    std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    const std::size_t dot = name.find_last_of('.');
    if (dot != std::string::npos && dot > 0) name.resize(dot);
    return name;
}

/// Device bytes SpMV on a matrix of `nnz` entries needs at least: CSR three
/// times over (cuSPARSE's copy, the packed formats), x and y twice, and
/// 256 MiB of headroom (the L2 flush buffer, cuSPARSE's workspace).
inline double spmv_device_bytes(double nnz, double rows, double cols)
{
    return 3.0 * (12.0 * nnz + 4.0 * (rows + 1)) + 16.0 * (rows + cols) + double(256u << 20);
}

/// The banner and size line of a Matrix Market file.
struct mtx_size {
    long long rows = 0, cols = 0, entries = 0;  ///< as the size line declares them
    bool symmetric = false;                     ///< symmetry other than general: stored entries up to 2x
    bool size_known = false;                    ///< a coordinate size line was read
};

/// Reads the first lines of `path`: false with `error` if it cannot be
/// opened or does not start with "%%MatrixMarket". The size line is read
/// where it is a coordinate one ("rows cols entries"); otherwise
/// size_known stays false and the reader reports the problem later.
inline bool read_mtx_size(const std::string& path, mtx_size& out, std::string& error)
{
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        error = path + ": cannot open the file";
        return false;
    }
    std::string line;
    std::getline(f, line);
    std::string banner, object, format, field, symmetry;
    std::istringstream words(line);
    words >> banner >> object >> format >> field >> symmetry;
    for (char& c : banner) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (banner != "%%matrixmarket") {
        error = path + ": not a Matrix Market file (the first line does not start with %%MatrixMarket)";
        return false;
    }
    for (char& c : symmetry) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out = mtx_size{};
    out.symmetric = !symmetry.empty() && symmetry != "general";
    while (std::getline(f, line)) {
        const std::size_t first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos || line[first] == '%') continue;
        std::istringstream size(line);
        long long r = -1, c = -1, e = -1;
        if (size >> r >> c >> e && r >= 0 && c >= 0 && e >= 0) {
            out.rows = r, out.cols = c, out.entries = e;
            out.size_known = true;
        }
        break;
    }
    return true;
}

/// The path of a shipped test matrix `name` (.mtx): the first of
/// $TCORE_MATRIX_DIR, <source>/tests/data/matrices (the small ones, in the
/// repository), <source>/../shared/data/matrices and <source>/shared/data/
/// matrices that holds it; where none does, the repository path (reading it
/// then says the file is missing, and the case is skipped).
inline std::string shipped_matrix_path(const std::string& name, const std::string& source_dir)
{
    std::vector<std::string> dirs;
    if (const char* env = std::getenv("TCORE_MATRIX_DIR")) dirs.push_back(env);
    for (const char* d : {"/tests/data/matrices", "/../shared/data/matrices", "/shared/data/matrices"})
        dirs.push_back(source_dir + d);
    for (const std::string& d : dirs) {
        const std::string p = d + "/" + name + ".mtx";
        if (std::FILE* f = std::fopen(p.c_str(), "rb")) {
            std::fclose(f);
            return p;
        }
    }
    return source_dir + "/tests/data/matrices/" + name + ".mtx";
}

/// A whole number in [lo, hi] written in decimal (an optional 2^K form
/// too); false if `text` is anything else.
inline bool parse_whole(const std::string& text, long long lo, long long hi, long long& out)
{
    long long v = 0;
    if (text.rfind("2^", 0) == 0) {
        long long k = 0;
        if (!parse_whole(text.substr(2), 0, 62, k)) return false;
        v = 1LL << k;
    } else {
        if (text.empty() || text.size() > 18) return false;
        for (char c : text) {
            if (c < '0' || c > '9') return false;
            v = 10 * v + (c - '0');
        }
    }
    if (v < lo || v > hi) return false;
    out = v;
    return true;
}

/// The keys of a reduce or scan case of the user's (--input
/// WORKLOAD:n=N,segment=S,type=T): n from 1 to 2^max_log2, segment 0
/// (device-wide) or a length n is a multiple of, type f64 or f16 (FP16:
/// device-wide only; `what` names the segmented operation in that message).
/// "" or what is wrong.
inline std::string segmented_case(const user_input& in, int max_log2, const char* what, long long& n, long long& seg,
                                  bool& f16)
{
    const std::string most = "2^" + std::to_string(max_log2);
    if (in.get("n").empty()) return "n is required (e.g. n=100000000 or n=2^27)";
    if (!parse_whole(in.get("n"), 1, 1LL << max_log2, n)) return "n: a whole number from 1 to " + most + " expected";
    if (!parse_whole(in.get("segment", "0"), 0, n, seg)) return "segment: a whole number from 0 (device-wide) to n expected";
    const std::string type = in.get("type", "f64");
    if (type != "f64" && type != "f16") return "type: f64 or f16 expected";
    f16 = type == "f16";
    if (seg > 0 && f16)
        return std::string("type: segmented ") + what + " are compiled for f64 only (f16: device-wide, segment=0)";
    if (seg > 0 && n % seg != 0)
        return "n: " + std::to_string(n) + " is not a multiple of segment=" + std::to_string(seg) + " (" +
               std::to_string(n / seg * seg) + " and " + std::to_string((n / seg + 1) * seg) + " are)";
    return "";
}

/// A decimal number in [lo, hi] written as digits with at most one point
/// ("2", "2.5", "0.25", ".5"; no sign, exponent, "inf" or "nan"); false if
/// `text` is anything else.
inline bool parse_decimal(const std::string& text, double lo, double hi, double& out)
{
    if (text.empty() || text.size() > 24 || text == ".") return false;
    bool point = false;
    for (char c : text) {
        if (c == '.' && !point) point = true;
        else if (c < '0' || c > '9') return false;
    }
    const double v = std::strtod(text.c_str(), nullptr);
    if (!(v >= lo && v <= hi)) return false;
    out = v;
    return true;
}

/// Extents "4096", "2048x4096" or "256x256x256" (1 to 3 whole numbers in
/// [1, hi], 'x' between them), in the order written; false if malformed.
inline bool parse_extents(const std::string& text, long long hi, std::vector<long long>& out)
{
    out.clear();
    std::size_t start = 0;
    for (;;) {
        const std::size_t x = text.find('x', start);
        long long v = 0;
        if (!parse_whole(text.substr(start, x == std::string::npos ? std::string::npos : x - start), 1, hi, v)) return false;
        out.push_back(v);
        if (x == std::string::npos) break;
        start = x + 1;
    }
    return out.size() <= 3;
}

/// Whether `bytes` of device memory are free on the current device; where
/// not, `why` says how much is needed and free ("needs 12.3 GB, 8.0 GB free").
inline bool device_memory_fits(double bytes, std::string& why)
{
    std::size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
        cudaGetLastError();
        return true;  // no answer: let the allocation say
    }
    if (bytes <= static_cast<double>(free_bytes)) return true;
    char buf[96];
    std::snprintf(buf, sizeof buf, "needs %.1f GB, %.1f GB free", bytes / 1e9, static_cast<double>(free_bytes) / 1e9);
    why = buf;
    return false;
}

/// A ratio with three decimals, for summary lines.
inline std::string fixed3(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}

}  // namespace tcore::bench
