// The D2Q9 lattice and the LBM record: generated from cores/lbm/lbm_record.json by
// cores/lbm/gen_layout.py; do not edit (spgen.lbm reads the same file).
#pragma once

#include <cstdint>

namespace afushell {
namespace lbm {

// One stream element, little-endian 32-bit words, port 0 lowest.
struct Record {
    float f[9];  // post-collision distributions f0..f8, directions as lattice.e
    std::uint32_t attr;  // bits [1:0] the cell type (attr_codes), other bits pass through
};
inline constexpr unsigned RECORD_BYTES = 40;
static_assert(sizeof(Record) == RECORD_BYTES, "an LBM record has no padding");
// numpy's descr of the record (spgen.lbm.RECORD_DTYPE), for .npy files
inline constexpr const char* RECORD_NPY_DESCR = "[('f0', '<f4'), ('f1', '<f4'), ('f2', '<f4'), ('f3', '<f4'), ('f4', '<f4'), ('f5', '<f4'), ('f6', '<f4'), ('f7', '<f4'), ('f8', '<f4'), ('attr', '<u4')]";

// attr bits [1:0] (3: the mask); the other codes are walls to the core.
enum : std::uint32_t { FLUID = 0, WALL = 1, MOVING_WALL = 2 };
inline constexpr std::uint32_t ATTR_MASK = 3;

inline constexpr int Q = 9;
inline constexpr int E[Q][2] = {{0, 0}, {1, 0}, {0, 1}, {-1, 0}, {0, -1}, {1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
// numerator / denominator in double, as spgen.lbm.WEIGHTS
inline constexpr double W[Q] = {4.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36};
inline constexpr int OPP[Q] = {0, 3, 4, 1, 2, 7, 8, 5, 6};

}  // namespace lbm
}  // namespace afushell
