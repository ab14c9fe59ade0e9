// libs: tcore_nccl
// tests/gpu/test_multi_gpu_spmv.cu - the row-split multi-GPU SpMV of
// examples/multi_gpu (spmv_mgpu.cuh, spmv_mgpu_split.hpp) on 1 and 2 GPUs
// and on every count present up to 4 (one process, ncclCommInitAll): for
// each backend (tc, cc, cce) and x gather (allgather, broadcast, each with
// and without the local product overlapping the gather), y of the
// multi-GPU product against y of the single-GPU tcore::dasp_spmv of the same
// backend on the whole matrix, and against the FP64 CPU reference, element
// by element. A count needing more GPUs than present is skipped with a
// message; no GPU: exit 77.
//
// Tolerance: a row of k entries is the sum of the same k products a_ij x_j
// in every version, only in another order (the part is packed on its own, so
// its rows fall into other groups, widths and pieces than in the whole
// matrix; overlapped, a row is the sum of its own-piece and its remote
// entries' partial sums). Any order of k FP64 products and sums lies within
// gamma_k S_r of the exact sum, S_r = sum_j |a_ij x_j|, gamma_k = k u /
// (1 - k u), u = 2^-53; two such results lie within 2 gamma_k S_r of each
// other. That is the bound checked against both the single-GPU y and the
// reference; an empty row must give exactly 0.
//
// Inputs: random non-zero values and x; x (the pieces of other ranks) and y
// poisoned with NaN before every run, so a piece the gather misses or a row
// left unwritten shows; row counts that no GPU count divides, a rectangular
// matrix (x pieces split apart from the rows), empty rows and one long row,
// fewer rows than GPUs (empty parts), a fem3d grid and a banded matrix.
#include "common/test_util.hpp"
#include "examples/spmv/spmv_cce.cuh"
#include "spmv_mgpu.cuh"

#include <tcore/patterns/device/spmv.cuh>
#include <tcore/sparse/generate.hpp>

#include <cfloat>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace {

namespace mg = tcore::mgpu;
namespace gen = tcore::sparse::gen;
using tcore::examples::spmv::spmv_cce;
using tcore::sparse::csr;
using tcore::test::tally;

struct test_matrix {
    std::string name;
    csr a;
};

/// `a` with row `row` replaced by `len` distinct random columns (a long row).
csr with_long_row(const csr& a, int row, int len, tcore::test::rng& r)
{
    std::vector<tcore::sparse::triplet> t;
    for (int i = 0; i < a.rows; ++i)
        if (i != row)
            for (int e = a.row_ptr[i]; e < a.row_ptr[i + 1]; ++e) t.push_back({i, a.col_idx[e], a.values[e]});
    for (int c = 0, placed = 0; c < a.cols && placed < len; ++c)
        if (r.next() % static_cast<unsigned>(a.cols) < static_cast<unsigned>(len) + 32) {
            t.push_back({row, c, 1.0});
            ++placed;
        }
    return tcore::sparse::from_triplets(a.rows, a.cols, t);
}

std::vector<test_matrix> matrices(tcore::test::rng& r)
{
    const std::uint64_t s = r.next();
    std::vector<test_matrix> m;
    csr uneven = gen::random_rows(1001, 1001, 0, 40, s);  // rows of 0 (empty) to 40 entries
    m.push_back({"1001x1001 rows of 0-40, one of ~900", with_long_row(uneven, 517, 900, r)});
    m.push_back({"777x1234 rectangular, rows of 1-30", gen::random_rows(777, 1234, 1, 30, s + 1)});
    m.push_back({"fem3d 7x6x5 (630 rows)", gen::fem3d_grid(7, 6, 5, s + 2)});
    m.push_back({"banded 10007 rows", gen::banded_n(10007, 64, s + 3)});
    m.push_back({"3x3 (fewer rows than GPUs)", gen::random_rows(3, 3, 0, 3, s + 4)});
    for (test_matrix& t : m)
        for (double& v : t.a.values) v = r.nonzero();
    return m;
}

/// The split itself: contiguous ranges that cover the rows, each part within
/// nnz / parts + the longest row of its share.
void check_split(tally& t, const test_matrix& m, const mg::row_split& s, int parts)
{
    const csr& a = m.a;
    bool ok = s.parts() == parts && s.row_begin.front() == 0 && s.row_begin.back() == a.rows &&
              s.col_begin.front() == 0 && s.col_begin.back() == a.cols;
    int longest = 0;
    for (int r = 0; r < a.rows; ++r) longest = std::max(longest, a.row_length(r));
    for (int p = 0; ok && p < parts; ++p) {
        ok = s.row_begin[p] <= s.row_begin[p + 1] && s.col_begin[p] <= s.col_begin[p + 1];
        const long long part_nnz = a.row_ptr[s.row_begin[p + 1]] - a.row_ptr[s.row_begin[p]];
        ok = ok && part_nnz <= a.nnz() / parts + 1 + longest;
        if (a.rows == a.cols) ok = ok && s.col_begin[p] == s.row_begin[p];
    }
    t.check(ok, "%s: split into %d parts is not contiguous, complete and balanced by nonzeros", m.name.c_str(), parts);
}

/// Compares y (rows [row0, row0 + y.size())) with `want` within the bound; returns the bad rows.
int count_bad(const std::vector<double>& y, const std::vector<double>& want, const std::vector<double>& tol,
              std::size_t want_offset, std::string& first)
{
    int bad = 0;
    for (std::size_t r = 0; r < y.size(); ++r)
        if (!tcore::test::close(y[r], want[want_offset + r], tol[r])) {
            if (bad++ == 0) {
                char buf[160];
                std::snprintf(buf, sizeof buf, "row %zu: got %.17g, expected %.17g (tol %.3g)", want_offset + r, y[r],
                              want[want_offset + r], tol[r]);
                first = buf;
            }
        }
    return bad;
}

template <class Backend>
std::vector<double> single_gpu_y(const csr& a, const std::vector<double>& x)
{
    TCORE_CHECK(cudaSetDevice(0));
    const tcore::dasp_spmv s(a);
    tcore::test::device_buffer<double> dx(x.size()), dy(static_cast<std::size_t>(a.rows));
    dx.upload(x);
    dy.poison();
    s.run_with<Backend>(dx.ptr, dy.ptr);
    TCORE_CHECK(cudaDeviceSynchronize());
    return dy.download();
}

template <class Backend>
void check_backend(tally& t, const char* bname, const test_matrix& m, const std::vector<double>& x,
                   const std::vector<double>& ref, const std::vector<double>& one_gpu, mg::row_split_spmv& s)
{
    const mg::row_split& split = s.split();
    s.poison_x();
    s.poison_y();
    for (int i = 0; i < s.local(); ++i)
        s.set_x_piece(i, x.data() + split.col_begin[s.part(i).rank]);
    s.run<Backend>();
    s.ranks().synchronize();
    int bad_ref = 0, bad_one = 0;
    std::string first_ref, first_one;
    for (int i = 0; i < s.local(); ++i) {
        const mg::rank_part& p = s.part(i);
        std::vector<double> y = s.y_of(i);
        if (tcore::test::planted("mgpu_spmv_perturb") && i == s.local() - 1 && !y.empty()) y.back() += 1e-6;
        std::string f;
        bad_ref += count_bad(y, ref, p.y_tol, static_cast<std::size_t>(p.row0), f);
        if (first_ref.empty()) first_ref = f;
        f.clear();
        bad_one += count_bad(y, one_gpu, p.y_tol, static_cast<std::size_t>(p.row0), f);
        if (first_one.empty()) first_one = f;
    }
    const char* g = mg::gather_name(s.gather_mode());
    const char* ov = s.overlapped() ? " (overlapped)" : "";
    t.check(bad_ref == 0, "%s, %s, %d GPUs, %s%s: %d rows off the FP64 reference, first %s", m.name.c_str(), bname,
            s.ranks().ranks(), g, ov, bad_ref, first_ref.c_str());
    t.check(bad_one == 0, "%s, %s, %d GPUs, %s%s: %d rows off the single-GPU y, first %s", m.name.c_str(), bname,
            s.ranks().ranks(), g, ov, bad_one, first_one.c_str());
}

void check_errors(tally& t, int present)
{
    const csr a = gen::random_rows(50, 50, 1, 5, 7);
    t.expect_error("more GPUs than present", [&] { (void)mg::rank_set::all_local(present + 1); }, "GPUs asked for");
    t.expect_error("zero parts", [&] { (void)mg::split_rows_by_nnz(a, 0); }, "parts must be at least 1");
    t.expect_error("several ranks without a communicator",
                   [&] { (void)mg::rank_set::of_communicator(nullptr, 0, 2, 0, false); }, "communicator");
    const mg::rank_set one = mg::rank_set::all_local(1);
    t.expect_error("a split of 2 parts on 1 rank",
                   [&] { mg::row_split_spmv s(one, a, mg::split_rows_by_nnz(a, 2), mg::x_gather::allgather, false); },
                   "parts for");
    t.expect_error("x of the wrong length",
                   [&] {
                       mg::row_split_spmv s(one, a, mg::split_rows_by_nnz(a, 1), mg::x_gather::allgather, false, {},
                                            std::vector<double>(49, 1.0));
                   },
                   "x has");
    csr unsorted = a;
    std::swap(unsorted.col_idx[unsorted.row_ptr[3]], unsorted.col_idx[unsorted.row_ptr[3] + 1]);
    t.expect_error("unsorted columns",
                   [&] { mg::row_split_spmv s(one, unsorted, mg::split_rows_by_nnz(unsorted, 1), mg::x_gather::allgather, false); },
                   "not sorted");
    mg::row_split bad = mg::split_rows_by_nnz(a, 1);
    bad.row_begin.back() = 49;
    t.expect_error("a split that misses rows",
                   [&] { mg::row_split_spmv s(one, a, bad, mg::x_gather::allgather, false); }, "cover rows");
}

}  // namespace

int main()
{
    tcore::test::require_gpu_or_skip();
    tally t;
    tcore::test::rng r(tcore::test::seed());
    int present = 0;
    TCORE_CHECK(cudaGetDeviceCount(&present));
    std::printf("%d GPUs present\n", present);
    const std::vector<test_matrix> ms = matrices(r);
    try {
        check_errors(t, present);
        std::vector<std::vector<double>> xs, refs;
        std::vector<std::map<std::string, std::vector<double>>> one_gpu(ms.size());
        for (const test_matrix& m : ms) {
            std::vector<double> x(static_cast<std::size_t>(m.a.cols));
            for (double& v : x) v = r.nonzero();
            refs.push_back(tcore::sparse::spmv_reference(m.a, x));
            xs.push_back(std::move(x));
        }
        for (std::size_t k = 0; k < ms.size(); ++k) {
            one_gpu[k]["tc"] = single_gpu_y<tcore::tensor_core>(ms[k].a, xs[k]);
            one_gpu[k]["cc"] = single_gpu_y<tcore::cuda_core>(ms[k].a, xs[k]);
            one_gpu[k]["cce"] = single_gpu_y<spmv_cce>(ms[k].a, xs[k]);
        }
        for (const int n : {1, 2, 3, 4}) {
            if (n > present) {
                if (n != 3) t.skip("%d GPUs: only %d present", n, present);
                continue;
            }
            if (n == 3 && present != 3) continue;  // 3 only where exactly 3 are present
            const mg::rank_set rs = mg::rank_set::all_local(n);
            for (std::size_t k = 0; k < ms.size(); ++k) {
                const test_matrix& m = ms[k];
                const mg::row_split split = mg::split_rows_by_nnz(m.a, n);
                check_split(t, m, split, n);
                for (int mode = 0; mode < 4; ++mode) {  // allgather, broadcast; each plain, then overlapped
                    const mg::x_gather g = mode % 2 == 0 ? mg::x_gather::allgather : mg::x_gather::broadcast;
                    const bool overlap = mode >= 2;
                    if (n == 1 && mode > 0) continue;  // one GPU gathers nothing
                    mg::row_split_spmv s(rs, m.a, split, g, overlap, {}, xs[k]);
                    t.check(s.overlapped() == (overlap && n > 1), "%s, %d GPUs: overlapped() is %d", m.name.c_str(), n,
                            static_cast<int>(s.overlapped()));
                    check_backend<tcore::tensor_core>(t, "tc", m, xs[k], refs[k], one_gpu[k]["tc"], s);
                    check_backend<tcore::cuda_core>(t, "cc", m, xs[k], refs[k], one_gpu[k]["cc"], s);
                    check_backend<spmv_cce>(t, "cce", m, xs[k], refs[k], one_gpu[k]["cce"], s);
                    if (n > 1 && m.name.rfind("banded", 0) == 0) {
                        // Banded rows reach at most 2 x 64 columns away: only neighbouring parts' entries.
                        int most = 0;
                        for (int i = 0; i < s.local(); ++i) most = std::max(most, s.part(i).remote.source_ranks);
                        t.check(most <= 2, "%s, %d GPUs: a part reads x from %d other ranks (neighbours only expected)",
                                m.name.c_str(), n, most);
                    }
                }
            }
            std::printf("%d GPUs: %d checks passed so far\n", n, t.passed);
        }
    } catch (const std::exception& e) {
        t.check(false, "unexpected error: %s", e.what());
    }
    return t.finish();
}
