// The runtime through the C API and the RAII layer on the loop-back simulated card
// (SPGEN_LOOPBACK_CARD names the card library; the pytest driver builds it).
#include <gtest/gtest.h>

#include <afushell/afushell.hpp>
#include <opae/spgen_sim.h>

#include "afushell_csr.h"

#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

using afushell::Card;

namespace {

constexpr uint64_t kB = 0x100000000ull;

void* fpga(uint64_t a) { return reinterpret_cast<void*>(uintptr_t(a)); }

std::shared_ptr<Card> open_card() { return Card::open("sim:loopback"); }

void fill(void* p, size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    auto* w = static_cast<uint32_t*>(p);
    for (size_t i = 0; i < n / 4; ++i) w[i] = rng();
}

}  // namespace

TEST(Runtime, AllTypesRandomSizesAndOffsetsWithGuards) {
    auto card = open_card();
    const size_t N = 1 << 20;
    auto hs = card->alloc(N), hd = card->alloc(N), chk = card->alloc(N);
    std::mt19937 rng(7);
    for (int it = 0; it < 24; ++it) {
        size_t n = 4 * (1 + rng() % 4096);
        size_t so = 4 * (rng() % 1024), d_off = 4 * (rng() % 1024) + 64;
        int type = it % 4;
        fill(hs->data(), N, uint32_t(it));
        std::memset(hd->data(), 0x5A, N);
        uint8_t* src_h = hs->as<uint8_t>() + so;
        uint8_t* dst_h = hd->as<uint8_t>() + d_off;
        uint64_t fa = 4 * (rng() % 100000), fb = kB + 4 * (rng() % 100000);
        // Stage: the source in FPGA memory when the type reads FPGA memory.
        if (type == F2H || type == F2F) card->dma(fpga(fa), src_h, n, H2F);
        if (type == F2F) {
            // Guard words around the FPGA destination, then read them back.
            card->dma(fpga(fb - 64), hd->data(), n + 128, H2F);
        }
        switch (type) {
            case H2F: card->dma(fpga(fb), src_h, n, H2F); break;
            case F2H: card->dma(dst_h, fpga(fa), n, F2H); break;
            case F2F: card->dma(fpga(fb), fpga(fa), n, F2F); break;
            case H2H: card->dma(dst_h, src_h, n, H2H); break;
        }
        if (type == H2F || type == F2F) {
            std::memset(chk->data(), 0, N);
            card->dma(chk->data(), fpga(fb - 64), n + 128, F2H);
            ASSERT_EQ(std::memcmp(chk->as<uint8_t>() + 64, src_h, n), 0) << "type " << type << " n " << n;
            if (type == F2F) {
                for (int i = 0; i < 64; ++i) {
                    ASSERT_EQ(chk->as<uint8_t>()[i], 0x5A);
                    ASSERT_EQ(chk->as<uint8_t>()[64 + n + i], 0x5A);
                }
            }
        } else {
            ASSERT_EQ(std::memcmp(dst_h, src_h, n), 0) << "type " << type << " n " << n;
            for (int i = 1; i <= 64; ++i) {
                ASSERT_EQ(dst_h[-i], 0x5A);
                ASSERT_EQ(dst_h[n - 1 + i], 0x5A);
            }
        }
    }
    EXPECT_EQ(card->sim_stats().bus_errors, 0u);
}

TEST(Runtime, LargeTransfersAreSplitAndChained) {
    auto card = open_card();
    card->set_max_descriptor(4096);
    const size_t N = 1 << 20;
    auto a = card->alloc(N), b = card->alloc(N);
    fill(a->data(), N, 3);
    card->dma(fpga(0x1000), a->data(), N, H2F);
    card->dma(fpga(kB + 0x2000), fpga(0x1000), N, F2F);
    card->dma(b->data(), fpga(kB + 0x2000), N, F2H);
    EXPECT_EQ(std::memcmp(a->data(), b->data(), N), 0);
    // 256 chained descriptors each way: TX finished them all.
    EXPECT_GE(card->read_reg("TX_STATUS") >> 32, 256u);
}

TEST(Runtime, EightThreadsSubmitAsyncTransfersAtOnce) {
    auto card = open_card();
    card->set_max_descriptor(8192);
    const size_t N = 64 << 10;
    std::vector<std::thread> threads;
    std::vector<int> ok(8, 0);
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&, t] {
            auto src = card->alloc(N), mid = card->alloc(N), dst = card->alloc(N);
            fill(src->data(), N, uint32_t(100 + t));
            uint64_t fa = uint64_t(t) * (1 << 20), fb = kB + uint64_t(t) * (1 << 20);
            for (int rep = 0; rep < 3; ++rep) {
                auto x = card->dma_async(fpga(fa), src->data(), N, H2F);
                ASSERT_TRUE(x->wait(UINT64_MAX));
                auto y = card->dma_async(fpga(fb), fpga(fa), N, F2F);
                auto z = card->dma_async(mid->data(), src->data(), N, H2H);
                ASSERT_TRUE(y->wait(UINT64_MAX));
                ASSERT_TRUE(z->wait(UINT64_MAX));
                auto w = card->dma_async(dst->data(), fpga(fb), N, F2H);
                while (!w->wait(20000)) {}
                ASSERT_EQ(std::memcmp(src->data(), dst->data(), N), 0);
                ASSERT_EQ(std::memcmp(src->data(), mid->data(), N), 0);
                std::memset(dst->data(), 0, N);
            }
            ok[t] = 1;
        });
    for (auto& th : threads) th.join();
    for (int t = 0; t < 8; ++t) EXPECT_EQ(ok[t], 1) << t;
}

TEST(Runtime, WaitTimesOutThenCompletes) {
    auto card = open_card();
    const size_t N = 4 << 20;
    auto a = card->alloc(N), b = card->alloc(N);
    fill(a->data(), N, 9);
    auto x = card->dma_async(b->data(), a->data(), N, H2H);
    EXPECT_FALSE(x->wait(1000));  // 1 us of simulated time is far too short for 4 MiB
    EXPECT_FALSE(x->done());
    EXPECT_TRUE(x->wait(UINT64_MAX));
    EXPECT_EQ(std::memcmp(a->data(), b->data(), N), 0);
    EXPECT_GT(x->elapsed_ns(), N / 8);  // slower than 8 GB/s
}

TEST(Runtime, HostTimeOperationsFromC) {
    // every operation but NOW acts without a place for its answer (NULL `now`)
    afu_shell_handle h = nullptr;
    ASSERT_EQ(afuShellOpen("sim:loopback", &h), FPGA_OK);
    uint64_t t = 0, later = 0;
    ASSERT_EQ(afuShellSimHostTime(h, AFU_SIM_HOST_NOW, 0, &t), FPGA_OK);
    EXPECT_EQ(afuShellSimHostTime(h, AFU_SIM_HOST_NOW, 0, nullptr), AFU_ERR_NULL_POINTER);
    EXPECT_EQ(afuShellSimHostTime(h, AFU_SIM_HOST_SYNC, t + 500, nullptr), FPGA_OK);
    ASSERT_EQ(afuShellSimHostTime(h, AFU_SIM_HOST_NOW, 0, &later), FPGA_OK);
    EXPECT_EQ(later, t + 500);
    EXPECT_EQ(afuShellSimHostTime(h, AFU_SIM_HOST_BLOCK, 0, nullptr), FPGA_OK);
    EXPECT_EQ(afuShellSimHostTime(h, AFU_SIM_HOST_WAKE, t + 900, nullptr), FPGA_OK);
    ASSERT_EQ(afuShellSimHostTime(h, AFU_SIM_HOST_NOW, 0, &later), FPGA_OK);
    EXPECT_EQ(later, t + 900);
    EXPECT_EQ(afuShellSimHostTime(h, 7, 0, nullptr), FPGA_INVALID_PARAM);
    afuShellClose(h);
}

TEST(Runtime, BadArgumentsGiveDistinctCodesAndTouchNothing) {
    afu_shell_handle h = nullptr;
    ASSERT_EQ(afuShellOpen("sim:loopback", &h), FPGA_OK);
    void *a = nullptr, *b = nullptr;
    ASSERT_EQ(afuShellAllocH(h, 4096, &a), FPGA_OK);
    ASSERT_EQ(afuShellAllocH(h, 4096, &b), FPGA_OK);
    std::memset(a, 0x11, 4096);
    std::memset(b, 0x22, 4096);
    ASSERT_EQ(afuShellDMATransferH(h, fpga(0x100), a, 4096, H2F), FPGA_OK);
    std::vector<uint8_t> unprepared(4096, 0x33);
    struct Case { void* dst; const void* src; size_t n; int type; int code; };
    const Case cases[] = {
        {nullptr, a, 64, H2H, AFU_ERR_NULL_POINTER},
        {b, nullptr, 64, H2F, AFU_ERR_NULL_POINTER},
        {b, a, 0, H2H, AFU_ERR_ZERO_COUNT},
        {b, a, 6, H2H, AFU_ERR_BAD_COUNT},
        {fpga(0xFFFFFFF0ull), a, 64, H2F, AFU_ERR_OUT_OF_RANGE},
        {fpga(2 * kB), a, 64, H2F, AFU_ERR_OUT_OF_RANGE},
        {b, fpga(2 * kB - 32), 64, F2H, AFU_ERR_OUT_OF_RANGE},
        {b, unprepared.data(), 64, H2H, AFU_ERR_NOT_PREPARED},
        {b, static_cast<uint8_t*>(a) + 4064, 64, H2H, AFU_ERR_NOT_PREPARED},
        {static_cast<uint8_t*>(b) + 2, a, 64, H2H, AFU_ERR_ALIGNMENT},
        {b, a, 64, 7, AFU_ERR_BAD_TYPE},
    };
    std::vector<int> seen;
    for (const auto& c : cases) {
        afu_result r = afuShellDMATransferH(h, c.dst, c.src, c.n, dma_transfer_type_t(c.type));
        EXPECT_EQ(int(r), c.code);
        EXPECT_STRNE(afuShellLastError(), "");
        seen.push_back(int(r));
    }
    for (int i = 0; i < 4096; ++i) ASSERT_EQ(static_cast<uint8_t*>(b)[i], 0x22);
    for (uint8_t v : unprepared) ASSERT_EQ(v, 0x33);
    // FPGA memory untouched: the earlier H2F data is still there and nothing else.
    ASSERT_EQ(afuShellDMATransferH(h, b, fpga(0x100), 4096, F2H), FPGA_OK);
    for (int i = 0; i < 4096; ++i) ASSERT_EQ(static_cast<uint8_t*>(b)[i], 0x11);
    EXPECT_EQ(int(afuShellWriteReg(h, "NO_SUCH_REG", 1)), AFU_ERR_UNKNOWN_REG);
    EXPECT_EQ(int(afuShellDMATransferAsyncH(h, b, a, 64, H2H, nullptr)), AFU_ERR_NULL_POINTER);
    EXPECT_EQ(int(afuShellWait(nullptr, 0, nullptr)), AFU_ERR_BAD_REQUEST);
    ASSERT_EQ(afuShellClose(h), FPGA_OK);
    EXPECT_EQ(int(afuShellDMATransferH(h, b, a, 64, H2H)), AFU_ERR_CLOSED);
    EXPECT_EQ(int(afuShellClose(h)), AFU_ERR_CLOSED);
    EXPECT_EQ(int(afuShellOpen("sim:/no/such/build", &h)), AFU_ERR_BAD_URI);
    EXPECT_EQ(int(afuShellOpen(nullptr, &h)), AFU_ERR_NULL_POINTER);
}

TEST(Runtime, CurrentShellCallsAndShellErrorsNeverHang) {
    afu_shell_handle h = nullptr;
    ASSERT_EQ(afuShellOpen("sim:loopback", &h), FPGA_OK);
    void *a = nullptr, *b = nullptr;
    ASSERT_EQ(afuShellAlloc(1024, &a), FPGA_OK);
    ASSERT_EQ(afuShellAlloc(1024, &b), FPGA_OK);
    fill(a, 1024, 5);
    ASSERT_EQ(afuShellDMATransfer(b, a, 1024, H2H), FPGA_OK);
    EXPECT_EQ(std::memcmp(a, b, 1024), 0);
    // Without the runtime's checks the shell itself rejects the descriptor.
    ASSERT_EQ(afuShellSetChecks(h, 0), FPGA_OK);
    EXPECT_EQ(int(afuShellDMATransfer(fpga(2 * kB + 0x1000), a, 1024, H2F)), AFU_ERR_DEVICE);
    EXPECT_NE(std::string(afuShellLastError()).find("ERR_ADDR_RANGE"), std::string::npos) << afuShellLastError();
    EXPECT_EQ(int(afuShellDMATransfer(b, a, 6, H2H)), AFU_ERR_DEVICE);
    EXPECT_NE(std::string(afuShellLastError()).find("ERR_BAD_LENGTH"), std::string::npos) << afuShellLastError();
    ASSERT_EQ(afuShellSetChecks(h, 1), FPGA_OK);
    // The shell recovered: transfers work again.
    std::memset(b, 0, 1024);
    ASSERT_EQ(afuShellDMATransfer(b, a, 1024, H2H), FPGA_OK);
    EXPECT_EQ(std::memcmp(a, b, 1024), 0);
    ASSERT_EQ(afuShellFree(a), FPGA_OK);
    EXPECT_EQ(int(afuShellFree(a)), AFU_ERR_NOT_PREPARED);
    ASSERT_EQ(afuShellClose(h), FPGA_OK);
    EXPECT_EQ(int(afuShellDMATransfer(b, a, 4, H2H)), AFU_ERR_NO_SHELL);
}

TEST(Runtime, RegistersAndLoopbackRun) {
    auto card = open_card();
    card->write_reg("SCRATCH", 0x1234567890ABCDEFull);
    EXPECT_EQ(card->read_reg("SCRATCH"), 0x1234567890ABCDEFull);
    EXPECT_EQ(card->read_reg_at(0x30), 0x1234567890ABCDEFull);
    EXPECT_EQ(card->read_reg("DFH"), 0x1000010000000000ull);
    auto i = card->info();
    EXPECT_EQ(i.n_cores, 0u);
    EXPECT_EQ(i.simulated, 1u);
    const size_t n = 10000;
    auto a = card->alloc(n * 4), b = card->alloc(n * 4);
    fill(a->data(), n * 4, 11);
    card->dma(fpga(0x40000), a->data(), n * 4, H2F);
    auto r = card->run(0x40000, kB + 0x80000, n);
    card->dma(b->data(), fpga(kB + 0x80000), n * 4, F2H);
    EXPECT_EQ(std::memcmp(a->data(), b->data(), n * 4), 0);
    EXPECT_GE(r.total_cycles, r.moved_cycles);
    // Loop-back: the counted stream is the 512-bit one, 16 records a beat.
    EXPECT_EQ(r.moved_cycles, (n * 4 + 63) / 64);
    EXPECT_GT(r.elapsed_ns, 0u);
    EXPECT_LT(r.stall_rate, 1.0);
}

// Peer-device memory from C: host- and card-initiated P2F/F2P, the staged path, the
// refusals, and card sequences in one thread while another moves host data.
TEST(Runtime, PeerTransfersFromCWithConcurrentHostDma) {
    afu_shell_handle h = nullptr;
    ASSERT_EQ(afuShellOpen("sim:loopback", &h), FPGA_OK);
    const size_t n = 64 << 10;
    uint64_t src = 0, dst = 0;
    ASSERT_EQ(afuShellPeerRegister(h, 0, n, &src), FPGA_OK);
    ASSERT_EQ(afuShellPeerRegister(h, 0, n, &dst), FPGA_OK);
    std::vector<uint8_t> data(n), back(n, 0);
    fill(data.data(), n, 21);
    ASSERT_EQ(afuShellPeerWrite(h, src, data.data(), n), FPGA_OK);
    ASSERT_EQ(afuShellDMATransferH(h, fpga(kB), fpga(src), n, P2F), FPGA_OK);
    afu_shell_card_dma_result r{};
    ASSERT_EQ(afuShellCardDMA(h, fpga(dst + 4), fpga(kB), n - 8, F2P, 1, 0, 0, &r), FPGA_OK);
    EXPECT_EQ(r.transfers, 1u);
    EXPECT_GT(r.last_cycles, 0u);
    ASSERT_EQ(afuShellPeerRead(h, back.data(), dst, n), FPGA_OK);
    EXPECT_EQ(std::memcmp(back.data() + 4, data.data(), n - 8), 0);
    EXPECT_EQ(back[0] | back[1] | back[2] | back[3], 0);
    uint64_t ns = 0;
    ASSERT_EQ(afuShellPeerStaged(h, fpga(0x1000), fpga(src), 4096, P2F, &ns), FPGA_OK);
    EXPECT_GT(ns, r.elapsed_ns);

    EXPECT_EQ(int(afuShellDMATransferH(h, fpga(kB), fpga(dst + n), 4, P2F)), AFU_ERR_NOT_PREPARED);  // past the last buffer
    EXPECT_EQ(int(afuShellPeerStaged(h, fpga(0), fpga(0), 4, F2F, &ns)), AFU_ERR_BAD_TYPE);
    EXPECT_EQ(int(afuShellCardDMA(h, fpga(0), fpga(src), 4, P2F, 1, 0, 0, nullptr)), AFU_ERR_NULL_POINTER);
    EXPECT_EQ(int(afuShellPeerRegister(h, 0, 6, &src)), AFU_ERR_BAD_COUNT);

    void* host = nullptr;
    ASSERT_EQ(afuShellAllocH(h, n, &host), FPGA_OK);
    std::thread card_side([&] {
        afu_shell_card_dma_result q{};
        for (int i = 0; i < 8; ++i)
            EXPECT_EQ(afuShellCardDMA(h, fpga(kB + 0x100000), fpga(src), 4096, P2F, 16, 4096, 4096, &q), FPGA_OK);
    });
    for (int i = 0; i < 8; ++i) {
        fill(host, n, uint32_t(100 + i));
        std::vector<uint8_t> want(static_cast<uint8_t*>(host), static_cast<uint8_t*>(host) + n);
        ASSERT_EQ(afuShellDMATransferH(h, fpga(0x200000), host, n, H2F), FPGA_OK);
        std::memset(host, 0, n);
        ASSERT_EQ(afuShellDMATransferH(h, host, fpga(0x200000), n, F2H), FPGA_OK);
        EXPECT_EQ(std::memcmp(host, want.data(), n), 0) << i;
    }
    card_side.join();
    ASSERT_EQ(afuShellDMATransferH(h, host, fpga(kB + 0x100000), n, F2H), FPGA_OK);
    EXPECT_EQ(std::memcmp(host, data.data(), n), 0);
    ASSERT_EQ(afuShellPeerUnregister(h, src), FPGA_OK);
    EXPECT_EQ(int(afuShellPeerUnregister(h, src)), FPGA_NOT_FOUND);
    ASSERT_EQ(afuShellClose(h), FPGA_OK);
}

// Reprogramming the card's AFU slot (docs/reconf.md) through the C API and the RAII layer:
// refused while a transfer is in flight, DDR kept or cleared, the AFU ID checked.
TEST(Runtime, ReconfigureKeepsOrClearsDdrAndChecksTheAfu) {
    const char* lib = std::getenv("SPGEN_LOOPBACK_CARD");
    ASSERT_NE(lib, nullptr);
    auto card = open_card();
    const size_t n = 1 << 16;
    auto a = card->alloc(n), b = card->alloc(n);
    fill(a->data(), n, 21);
    card->dma(fpga(0x1000), a->data(), n, H2F);
    card->dma(fpga(kB + 0x1000), a->data(), n, H2F);
    {
        auto t = card->dma_async(b->data(), fpga(0x1000), n, F2H);
        try {
            card->reconfigure(lib, true);
            FAIL() << "reconfigured with a transfer in flight";
        } catch (const afushell::Failure& e) {
            EXPECT_EQ(e.code(), FPGA_BUSY);
            EXPECT_NE(std::string(e.what()).find("in flight"), std::string::npos) << e.what();
        }
        EXPECT_TRUE(t->wait());
        EXPECT_EQ(std::memcmp(a->data(), b->data(), n), 0);
    }
    const uint64_t t0 = card->sim_stats().now_ns;
    EXPECT_EQ(card->reconfigure(lib, true), 1390000000u);
    EXPECT_GE(card->sim_stats().now_ns - t0, 1390000000u);
    for (uint64_t at : {uint64_t(0x1000), kB + 0x1000}) {
        std::memset(b->data(), 0, n);
        card->dma(b->data(), fpga(at), n, F2H);
        EXPECT_EQ(std::memcmp(a->data(), b->data(), n), 0) << at;
    }
    EXPECT_EQ(card->reconfigure(lib), 1390000000u);
    std::vector<uint8_t> zeros(n, 0);
    card->dma(b->data(), fpga(kB + 0x1000), n, F2H);
    EXPECT_EQ(std::memcmp(zeros.data(), b->data(), n), 0);
    uint64_t ns = 0;
    afu_shell_handle h = card->handle();
    EXPECT_EQ(afuShellReconfigure(h, lib, 0, "not-an-id", &ns), FPGA_INVALID_PARAM);
    EXPECT_EQ(afuShellReconfigure(h, lib, 0, "00000000-0000-0000-0000-000000000001", &ns), AFU_ERR_AFU_ID);
    EXPECT_NE(std::string(afuShellLastError()).find("not loaded"), std::string::npos) << afuShellLastError();
    EXPECT_STREQ(afuShellErrStr(AFU_ERR_AFU_ID), "AFU ID mismatch");
    EXPECT_EQ(afuShellReconfigure(h, lib, 8, nullptr, &ns), FPGA_INVALID_PARAM);
    EXPECT_EQ(afuShellReconfigure(h, "/nonexistent", 0, nullptr, &ns), AFU_ERR_BAD_URI);
    card->dma(fpga(0x2000), a->data(), n, H2F);  // the card still works
    card->dma(b->data(), fpga(0x2000), n, F2H);
    EXPECT_EQ(std::memcmp(a->data(), b->data(), n), 0);
}

namespace {

// One descriptor on engine base (TX reads src, RX writes dst), as the runtime writes it.
void push_desc(fpga_handle h, uint64_t base, uint64_t src, uint64_t dst, uint64_t len) {
    const uint64_t v[] = {src, dst, len, 0, 0,
                          AFUSHELL_DMA_DESC_CTRL_GO_MASK | AFUSHELL_DMA_DESC_CTRL_SOP_MASK |
                              AFUSHELL_DMA_DESC_CTRL_EOP_MASK | AFUSHELL_DMA_DESC_CTRL_IRQ_MASK};
    const uint64_t off[] = {AFUSHELL_DMA_DESC_SRC, AFUSHELL_DMA_DESC_DST, AFUSHELL_DMA_DESC_LEN,
                            AFUSHELL_DMA_DESC_STRIDE, AFUSHELL_DMA_DESC_NEXT, AFUSHELL_DMA_DESC_CTRL};
    for (int i = 0; i < 6; ++i) ASSERT_EQ(fpgaWriteMMIO64(h, 0, base + off[i], v[i]), FPGA_OK);
}

uint64_t rx_done(fpga_handle h) {
    uint64_t st = 0;
    fpgaReadMMIO64(h, 0, AFUSHELL_RX_BASE + AFUSHELL_DMA_STATUS, &st);
    return st >> AFUSHELL_DMA_STATUS_DONE_COUNT_SHIFT;
}

}  // namespace

// The simulated OPAE library itself, driven as a program without the runtime would: a
// transfer in flight when fpgaReconfigureSlot comes completes first, and lands intact.
TEST(Runtime, OpaeReconfigureSlotCompletesTrafficFirst) {
    const char* lib = std::getenv("SPGEN_LOOPBACK_CARD");
    ASSERT_NE(lib, nullptr);
    fpga_guid guid;
    char err[256] = {0};
    ASSERT_EQ(spgenSimRegisterCard(lib, "", guid, err, sizeof err), FPGA_OK) << err;
    fpga_properties filter = nullptr;
    ASSERT_EQ(fpgaGetProperties(nullptr, &filter), FPGA_OK);
    fpgaPropertiesSetGUID(filter, guid);
    fpga_token tok = nullptr;
    uint32_t n_tok = 0;
    ASSERT_EQ(fpgaEnumerate(&filter, 1, &tok, 1, &n_tok), FPGA_OK);
    fpgaDestroyProperties(&filter);
    fpga_handle h = nullptr;
    ASSERT_EQ(fpgaOpen(tok, &h, 0), FPGA_OK);
    fpgaDestroyToken(&tok);
    const uint64_t n = 1 << 18, host_bit = 1ull << AFUSHELL_HOST_ADDR_BIT;
    void *src = nullptr, *dst = nullptr;
    uint64_t ws = 0, wd = 0, io_s = 0, io_d = 0;
    ASSERT_EQ(fpgaPrepareBuffer(h, n, &src, &ws, 0), FPGA_OK);
    ASSERT_EQ(fpgaPrepareBuffer(h, n, &dst, &wd, 0), FPGA_OK);
    fpgaGetIOAddress(h, ws, &io_s);
    fpgaGetIOAddress(h, wd, &io_d);
    fill(src, n, 31);
    fpgaWriteMMIO64(h, 0, AFUSHELL_SHELL_CTRL, AFUSHELL_SHELL_CTRL_SOFT_RESET_MASK);
    push_desc(h, AFUSHELL_TX_BASE, host_bit | io_s, 0, n);  // host -> memory A at 0x0
    push_desc(h, AFUSHELL_RX_BASE, 0, 0x0, n);
    EXPECT_EQ(rx_done(h), 0u);  // 256 KiB take far longer than one status read
    const std::string path = lib;
    const uint64_t t0 = spgenSimNowNs(h);
    ASSERT_EQ(fpgaReconfigureSlot(h, 0, reinterpret_cast<const uint8_t*>(path.data()), path.size(),
                                  SPGEN_SIM_RECONF_KEEP_DDR), FPGA_OK) << spgenSimReconfError();
    EXPECT_EQ(spgenSimReconfNs(h), 1390000000u);
    EXPECT_GE(spgenSimNowNs(h) - t0, 1390000000u);
    EXPECT_EQ(rx_done(h), 0u);  // a new AFU: its engines count from 0
    fpgaWriteMMIO64(h, 0, AFUSHELL_SHELL_CTRL, AFUSHELL_SHELL_CTRL_SOFT_RESET_MASK);
    push_desc(h, AFUSHELL_TX_BASE, 0x0, 0, n);  // memory A -> host: what the old AFU wrote
    push_desc(h, AFUSHELL_RX_BASE, 0, host_bit | io_d, n);
    for (int i = 0; i < 100000 && rx_done(h) < 1; ++i) {}
    EXPECT_EQ(rx_done(h), 1u);
    EXPECT_EQ(std::memcmp(src, dst, n), 0);
    EXPECT_EQ(spgenSimBusErrors(h), 0u);
    EXPECT_EQ(fpgaReconfigureSlot(h, 1, reinterpret_cast<const uint8_t*>(path.data()), path.size(), 0),
              FPGA_INVALID_PARAM);
    const std::string none = "/nonexistent/libafucard.so";
    EXPECT_EQ(fpgaReconfigureSlot(h, 0, reinterpret_cast<const uint8_t*>(none.data()), none.size(), 0),
              FPGA_INVALID_PARAM);
    EXPECT_NE(std::string(spgenSimReconfError()).find("cannot load"), std::string::npos);
    fpgaReleaseBuffer(h, ws);
    fpgaReleaseBuffer(h, wd);
    fpgaClose(h);
}
