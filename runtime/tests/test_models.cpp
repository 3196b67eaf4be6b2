// Memory and link models on their own: latency, bandwidth, refresh, turnaround, storage.
#include <gtest/gtest.h>

#include <vector>

#include "models.hpp"

using namespace spgsim;

TEST(Params, OverrideAndReject) {
    Params p;
    EXPECT_EQ(p.apply("ddr_read_latency=40,pcie_read_latency_ns=1200"), "");
    EXPECT_EQ(p.ddr_read_latency, 40);
    EXPECT_EQ(p.pcie_read_latency_ns, 1200);
    EXPECT_NE(p.apply("no_such_knob=1"), "");
    EXPECT_NE(p.apply("pcie_mps=abc"), "");
    EXPECT_NE(p.describe().find("ddr_refresh_ns=350"), std::string::npos);
}

TEST(Sparse, LazyZeroedAndByteEnables) {
    SparseMemory m;
    uint8_t buf[64];
    m.read(0xFFFFFFC0ull, buf, 64);
    for (uint8_t b : buf) EXPECT_EQ(b, 0);
    EXPECT_EQ(m.allocated_bytes(), 0u);
    std::vector<uint8_t> src(64, 0xAB);
    m.write(128, src.data(), 64, 0x0F0Full);
    m.read(128, buf, 64);
    for (int i = 0; i < 64; ++i) EXPECT_EQ(buf[i], ((0x0F0Full >> i) & 1) ? 0xAB : 0) << i;
    EXPECT_EQ(m.allocated_bytes(), SparseMemory::kPage);
}

TEST(Ddr, LatencyRefreshAndTurnaround) {
    Params p;
    DdrChannel d(p);
    std::vector<uint64_t> ready;
    d.schedule(1000, 4, false, &ready);
    // Cycle 1000 is outside the refresh blackout [0, 70) of period 1560.
    EXPECT_EQ(ready[0], 1000u + 30u);
    EXPECT_EQ(ready[3], 1003u + 30u);
    // A write right after the reads pays the turnaround.
    std::vector<uint64_t> w;
    d.schedule(1004, 1, true, &w);
    EXPECT_EQ(w[0], 1004u + 6u);
    // Streaming reads for 100 refresh periods: refresh costs 350/7800 of the bus.
    DdrChannel s(p);
    uint64_t t = 0, beats = 0;
    while (t < 156000) {
        s.schedule(t, 16, false, &ready);
        t = ready.back() - 30 + 1;
        beats += 16;
    }
    double eff = double(beats) / double(t);
    EXPECT_NEAR(eff, 1.0 - 70.0 / 1560.0, 0.01);
}

TEST(Pcie, ReadLatencyAndWriteBandwidth) {
    Params p;
    PcieLink l(p);
    std::vector<uint64_t> ready;
    ASSERT_TRUE(l.can_read(0, 64));
    l.read(0, 0, 64, &ready);
    ASSERT_EQ(ready.size(), 1u);
    // 800 ns = 160 cycles plus serialisation of request and completion.
    EXPECT_GE(ready[0], 160u);
    EXPECT_LE(ready[0], 166u);
    // Back-to-back 256-byte write TLPs: 7.877 GB/s * 256 / (256 + 30).
    PcieLink w(p);
    uint64_t now = 0, bytes = 0;
    for (int i = 0; i < 40000; ++i) {
        while (!w.can_write(now)) ++now;
        w.write_beat(now, 64, (i % 4) == 3);
        bytes += 64;
    }
    double gbs = double(bytes) / (double(now) * 5.0);
    EXPECT_NEAR(gbs, 7.877 * 256 / 286, 0.1);
}

TEST(Pcie, TagLimitBoundsOutstandingReads) {
    Params p;
    p.apply("pcie_max_reads=2");
    PcieLink l(p);
    std::vector<uint64_t> ready;
    EXPECT_TRUE(l.can_read(0, 1024));
    l.read(0, 0, 1024, &ready);  // two 512-byte requests
    EXPECT_FALSE(l.can_read(1, 64));
    EXPECT_TRUE(l.can_read(ready.back(), 64));
}

TEST(HostMemory, TranslateInsideOneBufferOnly) {
    HostMemory h;
    std::vector<uint8_t> a(8192), b(8192);
    uint64_t wa, wb, ia, ib;
    ia = h.add(a.data(), a.size(), false, &wa);
    ib = h.add(b.data(), b.size(), false, &wb);
    EXPECT_EQ(h.translate(ia + 100, 64), a.data() + 100);
    EXPECT_EQ(h.translate(ia + 8190, 4), nullptr);
    EXPECT_EQ(h.translate(ib, 8192), b.data());
    HostRegion r;
    EXPECT_TRUE(h.remove(wa, &r));
    EXPECT_EQ(h.translate(ia, 4), nullptr);
}
