// Moves a buffer host -> FPGA memory A -> FPGA memory B -> host on the simulated card
// and prints the bandwidth of each hop (simulated time).
//   dma_roundtrip [URI] [BYTES]     default URI sim:loopback, BYTES 4 MiB
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include <afushell/afushell.hpp>

int main(int argc, char** argv) {
    const char* uri = argc > 1 ? argv[1] : "sim:loopback";
    size_t bytes = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : (4u << 20);
    try {
        auto card = afushell::Card::open(uri);
        card->require_plain_copy("dma_roundtrip");
        auto in = card->alloc(bytes), out = card->alloc(bytes);
        std::mt19937 rng(1);
        for (size_t i = 0; i < bytes / 4; ++i) in->as<uint32_t>()[i] = rng();
        void* a = reinterpret_cast<void*>(uintptr_t(0x0));          // FPGA memory A
        void* b = reinterpret_cast<void*>(uintptr_t(0x100000000));  // FPGA memory B
        struct { const char* name; void* dst; const void* src; dma_transfer_type_t type; } hops[] = {
            {"H2F", a, in->data(), H2F}, {"F2F", b, a, F2F}, {"F2H", out->data(), b, F2H}};
        std::printf("%-4s %12s %12s %10s\n", "hop", "bytes", "time [us]", "GB/s");
        for (auto& h : hops) {
            uint64_t ns = card->dma(h.dst, h.src, bytes, h.type);
            std::printf("%-4s %12zu %12.2f %10.3f\n", h.name, bytes, ns / 1e3, double(bytes) / double(ns));
        }
        bool same = std::memcmp(in->data(), out->data(), bytes) == 0;
        std::printf("round trip %s\n", same ? "intact" : "CORRUPTED");
        return same ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "dma_roundtrip: %s\n", e.what());
        return 1;
    }
}
