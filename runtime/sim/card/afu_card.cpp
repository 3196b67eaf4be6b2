// A simulated-card library: the Verilated afu_top behind the spg_afu_* ABI (afu_pins.h).
// Compiled together with the Verilator output of one `spgen build`; SPG_CARD_INFO is
// the build's "key=value\n" description, passed by the build script.
#include <cstring>

#include "Vafu_top.h"
#include "afu_pins.h"
#include "verilated.h"

#ifndef SPG_CARD_INFO
#define SPG_CARD_INFO ""
#endif

namespace {
struct Afu {
    VerilatedContext ctx;
    Vafu_top* top;
};

template <class W>
void put(W& wide, const uint64_t* src) { std::memcpy(&wide[0], src, 64); }
template <class W>
void get(uint64_t* dst, const W& wide) { std::memcpy(dst, &wide[0], 64); }
}  // namespace

extern "C" {

int spg_afu_abi(void) { return SPG_AFU_ABI; }

const char* spg_afu_info(void) { return SPG_CARD_INFO; }

void* spg_afu_new(void) {
    auto* a = new Afu;
    a->top = new Vafu_top(&a->ctx, "afu");
    a->top->clk = 0;
    a->top->rst = 1;
    a->top->eval();
    return a;
}

void spg_afu_free(void* p) {
    auto* a = static_cast<Afu*>(p);
    a->top->final();
    delete a->top;
    delete a;
}

void spg_afu_eval(void* p, spg_afu_pins* s, int clk) {
    Vafu_top* t = static_cast<Afu*>(p)->top;
    t->rst = s->rst;
    t->mmio_wr_valid = s->mmio_wr_valid;
    t->mmio_wr_addr = s->mmio_wr_addr;
    t->mmio_wr_data = s->mmio_wr_data;
    t->mmio_rd_valid = s->mmio_rd_valid;
    t->mmio_rd_addr = s->mmio_rd_addr;
    t->tx_rd_waitrequest = s->tx_rd.waitrequest;
    t->tx_rd_readdatavalid = s->tx_rd.readdatavalid;
    if (s->tx_rd.readdatavalid) put(t->tx_rd_readdata, s->tx_rd.readdata);
    t->dsc_rd_waitrequest = s->dsc_rd.waitrequest;
    t->dsc_rd_readdatavalid = s->dsc_rd.readdatavalid;
    if (s->dsc_rd.readdatavalid) put(t->dsc_rd_readdata, s->dsc_rd.readdata);
    t->rx_wr_waitrequest = s->rx_wr.waitrequest;
    t->clk = uint8_t(clk);
    t->eval();
    s->mmio_rd_resp_valid = t->mmio_rd_resp_valid;
    s->mmio_rd_resp_data = t->mmio_rd_resp_data;
    s->tx_rd.address = t->tx_rd_address;
    s->tx_rd.read = t->tx_rd_read;
    s->tx_rd.burstcount = t->tx_rd_burstcount;
    s->dsc_rd.address = t->dsc_rd_address;
    s->dsc_rd.read = t->dsc_rd_read;
    s->dsc_rd.burstcount = t->dsc_rd_burstcount;
    s->rx_wr.address = t->rx_wr_address;
    s->rx_wr.write = t->rx_wr_write;
    s->rx_wr.burstcount = t->rx_wr_burstcount;
    s->rx_wr.byteenable = t->rx_wr_byteenable;
    if (t->rx_wr_write) get(s->rx_wr.writedata, t->rx_wr_writedata);
    s->irq = t->irq;
}

}  // extern "C"
