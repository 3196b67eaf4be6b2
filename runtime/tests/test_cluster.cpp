// RTL card clusters through the C API (afushell/rdma.h): the cluster code under the
// sanitizers (make sanitize). SPGEN_LINK_CARD names a card library built with links
// (the pytest driver and `python -m spgen.runtime sanitize` build it).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "afushell/afushell.h"
#include "afushell/rdma.h"

namespace {
afu_rdma_cluster open_cluster(const std::string& json) {
    const char* card = std::getenv("SPGEN_LINK_CARD");
    if (!card) {
        ADD_FAILURE() << "SPGEN_LINK_CARD is not set: run through pytest or make sanitize";
        return nullptr;
    }
    // one file per process and call: test runners may run several of these programs at once
    static int n = 0;
    std::string path = ::testing::TempDir() + "cluster-" + std::to_string(getpid()) + "-" + std::to_string(n++) + ".json";
    std::FILE* f = std::fopen(path.c_str(), "w");
    std::string text = json.substr(0, json.size() - 1) + ", \"card\": \"" + card + "\"}";
    std::fputs(text.c_str(), f);
    std::fclose(f);
    afu_rdma_cluster cl = nullptr;
    EXPECT_EQ(afuShellRDMAClusterOpenFile(path.c_str(), &cl), FPGA_OK) << afuShellLastError();
    std::remove(path.c_str());
    return cl;
}
}  // namespace

TEST(Cluster, RingPutsGetsStridedUnderFaults) {
    afu_rdma_cluster cl = open_cluster(R"({"topology": "ring", "cards": 3, "seed": 4, "faults": {"per": 0.01, "drop": 0.01}})");
    ASSERT_NE(cl, nullptr);
    ASSERT_EQ(afuShellRDMAClusterIsRTL(cl), 1);
    std::mt19937 rng(3);
    std::vector<std::vector<uint8_t>> src(3, std::vector<uint8_t>(8192));
    for (int c = 0; c < 3; ++c) {
        for (auto& b : src[size_t(c)]) b = uint8_t(rng());
        ASSERT_EQ(afuShellRDMAWriteMem(cl, c, 0, src[size_t(c)].data(), 8192), 0);
    }
    std::vector<afu_rdma_handle> hs;
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
            if (a == b) continue;
            afu_rdma_handle h;
            ASSERT_EQ(afuShellRDMAPutAsync(cl, a, b, 0, 0x10000 + 0x4000 * uint64_t(a), 4096, &h), 0);
            hs.push_back(h);
            ASSERT_EQ(afuShellRDMAGetAsync(cl, a, b, 0x40000 + 0x4000 * uint64_t(b), 64, 2048, &h), 0);
            hs.push_back(h);
        }
    afu_rdma_handle h;
    ASSERT_EQ(afuShellRDMAPutStridedAsync(cl, 0, 2, 8, 0x80000, 12, 10, 40, 64, &h), 0);
    hs.push_back(h);
    for (auto x : hs) EXPECT_EQ(afuShellRDMAWait(cl, x, 0), 0);
    std::vector<uint8_t> got(4096);
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
            if (a == b) continue;
            afuShellRDMAReadMem(cl, b, 0x10000 + 0x4000 * uint64_t(a), got.data(), 4096);
            EXPECT_EQ(got, std::vector<uint8_t>(src[size_t(a)].begin(), src[size_t(a)].begin() + 4096));
            afuShellRDMAReadMem(cl, a, 0x40000 + 0x4000 * uint64_t(b), got.data(), 2048);
            EXPECT_TRUE(std::equal(got.begin(), got.begin() + 2048, src[size_t(b)].begin() + 64));
        }
    for (int k = 0; k < 10; ++k) {
        afuShellRDMAReadMem(cl, 2, 0x80000 + 64 * uint64_t(k), got.data(), 12);
        EXPECT_TRUE(std::equal(got.begin(), got.begin() + 12, src[0].begin() + 8 + 40 * k));
    }
    EXPECT_EQ(afuShellRDMAPut(cl, 0, 7, 0, 0, 64), AFU_ERR_RDMA_NO_ROUTE);
    EXPECT_EQ(afuShellRDMAPut(cl, 0, 1, 0, (8ull << 30) - 16, 64), AFU_ERR_RDMA_REMOTE_RANGE);
    afuShellRDMAClusterClose(cl);
}

// Reductions (cluster_reduce.cpp) under the sanitizers: u32 and f32 sums and allreduces
// along a chain of 3 cards under faults, equal to the host's sums in chain order (an
// allreduce's on every card); the refusals.
TEST(Cluster, ReduceU32F32UnderFaults) {
    afu_rdma_cluster cl = open_cluster(R"({"topology": "ring", "cards": 3, "seed": 2, "faults": {"per": 0.01, "drop": 0.01}})");
    ASSERT_NE(cl, nullptr);
    const int chain[3] = {2, 0, 1};
    const size_t n = 1001;
    std::mt19937 rng(5);
    std::vector<std::vector<uint32_t>> v(3, std::vector<uint32_t>(n));
    for (int c = 0; c < 3; ++c) {
        for (auto& x : v[size_t(c)]) x = uint32_t(rng()) & 0x3FFFFFFFu;  // as f32: no NaN or infinity
        ASSERT_EQ(afuShellRDMAWriteMem(cl, c, 0x104, v[size_t(c)].data(), 4 * n), 0);
    }
    for (int run = 0; run < 4; ++run) {
        const int dtype = run % 2 ? AFU_REDUCE_F32 : AFU_REDUCE_U32;
        const bool all = run >= 2;
        const uint64_t dst = 0x20008 + uint64_t(run) * 0x10000;
        const afu_result rc = all ? afuShellRDMAAllreduce(cl, chain, 3, 0x104, dst, 4 * n, dtype)
                           : afuShellRDMAReduce(cl, chain, 3, 0x104, dst, 4 * n, dtype);
        ASSERT_EQ(rc, 0) << afuShellRDMALastDump(cl);
        std::vector<uint32_t> want(n), got(n);
        for (size_t i = 0; i < n; ++i) {
            want[i] = v[2][i] + v[0][i] + v[1][i];
            if (dtype == AFU_REDUCE_F32) {
                float a, b, c;
                std::memcpy(&a, &v[2][i], 4), std::memcpy(&b, &v[0][i], 4), std::memcpy(&c, &v[1][i], 4);
                const float s = (a + b) + c;
                std::memcpy(&want[i], &s, 4);
            }
        }
        for (int card : all ? std::vector<int>{0, 1, 2} : std::vector<int>{1}) {  // the last card; all: every
            afuShellRDMAReadMem(cl, card, dst, got.data(), 4 * n);
            for (size_t i = 0; i < n; ++i)
                ASSERT_EQ(got[i], want[i]) << "word " << i << " dtype " << dtype << " card " << card << " all " << all;
        }
    }
    EXPECT_EQ(afuShellRDMAReduce(cl, chain, 1, 0x104, 0x20008, 64, AFU_REDUCE_U32), AFU_ERR_RDMA_BAD_CARD);
    EXPECT_EQ(afuShellRDMAReduce(cl, chain, 3, 0x106, 0x20008, 64, AFU_REDUCE_U32), AFU_ERR_RDMA_ALIGN);
    EXPECT_EQ(afuShellRDMAReduce(cl, chain, 3, (8ull << 30) - 32, 0x20008, 64, AFU_REDUCE_U32), AFU_ERR_RDMA_LOCAL_RANGE);
    EXPECT_EQ(afuShellRDMAAllreduce(cl, chain, 1, 0x104, 0x20008, 64, AFU_REDUCE_U32), AFU_ERR_RDMA_BAD_CARD);
    EXPECT_EQ(afuShellRDMAAllreduce(cl, chain, 3, 0x104, 0x2000A, 64, AFU_REDUCE_F32), AFU_ERR_RDMA_ALIGN);
    afuShellRDMAClusterClose(cl);
}

TEST(Cluster, DeadLinkTimesOutWithDump) {
    afu_rdma_cluster cl = open_cluster(R"({"topology": "mesh", "dims": [2], "link_faults": [{"link": 0, "down": [[0, 1e12]]}]})");
    ASSERT_NE(cl, nullptr);
    EXPECT_EQ(afuShellRDMAPut(cl, 0, 1, 0, 0, 64), AFU_ERR_RDMA_TIMEOUT);
    EXPECT_NE(std::string(afuShellRDMALastDump(cl)).find("stuck at link 0 card 0 port 0 -> card 1 port 1 (down)"),
              std::string::npos)
        << afuShellRDMALastDump(cl);
    afuShellRDMAClusterClose(cl);
}

// The cluster clock thread against host threads (the ThreadSanitizer subset): two host
// threads each stream DMA through one card of the cluster while a third moves RDMA puts
// between the cards; every byte arrives.
TEST(Cluster, CardDmaAndRdmaFromThreads) {
    afu_rdma_cluster cl = open_cluster(R"({"topology": "mesh", "dims": [2], "seed": 2})");
    ASSERT_NE(cl, nullptr);
    afu_shell_handle card[2] = {nullptr, nullptr};
    for (int c = 0; c < 2; ++c) ASSERT_EQ(afuShellRDMAClusterCardOpen(cl, c, &card[c]), FPGA_OK);
    const size_t N = 16 << 10;
    int ok[3] = {0, 0, 0};
    std::vector<std::thread> threads;
    for (int c = 0; c < 2; ++c)
        threads.emplace_back([&, c] {
            void *src = nullptr, *dst = nullptr;
            ASSERT_EQ(afuShellAllocH(card[c], N, &src), FPGA_OK);
            ASSERT_EQ(afuShellAllocH(card[c], N, &dst), FPGA_OK);
            std::mt19937 rng(uint32_t(10 + c));
            for (int rep = 0; rep < 3; ++rep) {
                for (size_t i = 0; i < N; ++i) static_cast<uint8_t*>(src)[i] = uint8_t(rng());
                void* fa = reinterpret_cast<void*>(uintptr_t(0x400000 + 0x10000 * rep));
                ASSERT_EQ(afuShellDMATransferH(card[c], fa, src, N, H2F), FPGA_OK) << afuShellLastError();
                ASSERT_EQ(afuShellDMATransferH(card[c], dst, fa, N, F2H), FPGA_OK) << afuShellLastError();
                ASSERT_EQ(std::memcmp(src, dst, N), 0);
            }
            afuShellFreeH(card[c], src);
            afuShellFreeH(card[c], dst);
            ok[c] = 1;
        });
    threads.emplace_back([&] {
        std::vector<uint8_t> pat(4096), got(4096);
        for (int rep = 0; rep < 4; ++rep) {
            for (size_t i = 0; i < pat.size(); ++i) pat[i] = uint8_t(i * 7 + rep);
            const int a = rep % 2, b = 1 - a;
            ASSERT_EQ(afuShellRDMAWriteMem(cl, a, 0x10000, pat.data(), pat.size()), 0);
            ASSERT_EQ(afuShellRDMAPut(cl, a, b, 0x10000, 0x20000 + 0x1000 * uint64_t(rep), pat.size()), FPGA_OK);
            ASSERT_EQ(afuShellRDMAReadMem(cl, b, 0x20000 + 0x1000 * uint64_t(rep), got.data(), got.size()), 0);
            ASSERT_EQ(got, pat);
        }
        ok[2] = 1;
    });
    for (auto& t : threads) t.join();
    EXPECT_EQ(ok[0] + ok[1] + ok[2], 3);
    for (auto h : card) afuShellClose(h);
    afuShellRDMAClusterClose(cl);
}
