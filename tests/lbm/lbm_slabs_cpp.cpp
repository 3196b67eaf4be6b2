// afushell::lbm::run_slabs (afushell/lbm_card.hpp) from C++: a grid across the cards of an
// RTL cluster, slabs with halo exchange.
//   lbm_slabs_cpp CLUSTER.json IN.records.npy WIDTH STEPS OUT.records.npy
// Prints "ok N halo puts, C cycles" and exits 0, or the error code's name and message and exits 1.
#include <afushell/lbm_card.hpp>

#include <cstdio>
#include <cstdlib>

namespace lbm = afushell::lbm;

int main(int argc, char** argv) {
    if (argc != 6) {
        std::fprintf(stderr, "usage: %s CLUSTER.json IN.records.npy WIDTH STEPS OUT.records.npy\n", argv[0]);
        return 2;
    }
    afu_rdma_cluster cl = nullptr;
    if (afuShellRDMAClusterOpenFile(argv[1], &cl) != FPGA_OK) {
        std::fprintf(stderr, "%s\n", afuShellLastError());
        return 1;
    }
    auto rec = lbm::read_records_npy(argv[2]);
    lbm::SlabsResult r = lbm::run_slabs(cl, rec, std::atoi(argv[3]), std::strtoull(argv[4], nullptr, 10),
                                        lbm::Params{1.3, 0.07, 0.01});
    afuShellRDMAClusterClose(cl);
    if (!r.ok()) {
        std::fprintf(stderr, "%s: %s\n", afuShellErrStr(r.code), r.message.c_str());
        return 1;
    }
    lbm::write_records_npy(argv[5], rec);
    std::printf("ok %llu halo puts, %llu cycles\n", static_cast<unsigned long long>(r.halo_puts),
                static_cast<unsigned long long>(r.cycles));
    return 0;
}
