/* The ABI between the simulation library and a simulated-card shared library
 * (one per `spgen build` directory): the pins of afu_top (docs/internals.md,
 * "AFU top <-> simulated card") as a plain struct, and the functions the card
 * library exports. Plain C so the library can be built by Verilator's makefiles
 * and loaded with dlopen. Bump SPG_AFU_ABI on any change. */
#ifndef SPG_AFU_PINS_H
#define SPG_AFU_PINS_H
#include <stdint.h>

#define SPG_AFU_ABI 3
/* Serial-link ports of a card with the RDMA block, and the widest link beat (32-bit
 * words: 1024 bits, a 100 Gb/s port at 200 MHz). */
#define SPG_MAX_LINKS 4
#define SPG_LINK_WORDS 32

#ifdef __cplusplus
extern "C" {
#endif

/* An Avalon-MM 512-bit read master seen from the memory side. */
typedef struct {
    uint64_t address;       /* out */
    uint8_t read;           /* out */
    uint8_t burstcount;     /* out */
    uint8_t waitrequest;    /* in */
    uint8_t readdatavalid;  /* in */
    uint64_t readdata[8];   /* in */
} spg_rd_master;

/* An Avalon-MM 512-bit write master seen from the memory side. */
typedef struct {
    uint64_t address;       /* out */
    uint8_t write;          /* out */
    uint8_t burstcount;     /* out */
    uint8_t waitrequest;    /* in */
    uint64_t byteenable;    /* out */
    uint64_t writedata[8];  /* out */
} spg_wr_master;

typedef struct {
    uint8_t rst;                 /* in */
    uint8_t mmio_wr_valid;       /* in */
    uint32_t mmio_wr_addr;       /* in */
    uint64_t mmio_wr_data;       /* in */
    uint8_t mmio_rd_valid;       /* in */
    uint32_t mmio_rd_addr;       /* in */
    uint8_t mmio_rd_resp_valid;  /* out */
    uint64_t mmio_rd_resp_data;  /* out */
    spg_rd_master tx_rd;
    spg_wr_master rx_wr;
    spg_rd_master dsc_rd;
    uint8_t irq;                 /* out, [0] TX done, [1] RX done, [2] RDMA (afu_rdma_top) */
    /* Serial links of the RDMA block, one beat of info's link_bits per port and cycle
     * (32-bit units, low first); unused on cards built without links. link_out_ready is
     * the PHY's: a port holds its beat while its bit is 0. */
    uint8_t link_out_valid;      /* out, bit per port */
    uint8_t link_out_last;       /* out */
    uint8_t link_out_ready;      /* in */
    uint8_t link_in_valid;       /* in */
    uint8_t link_in_last;        /* in */
    uint32_t link_out_data[SPG_MAX_LINKS][SPG_LINK_WORDS];  /* out */
    uint32_t link_in_data[SPG_MAX_LINKS][SPG_LINK_WORDS];   /* in */
} spg_afu_pins;

/* Exported by every card library. */
typedef int (*spg_afu_abi_fn)(void);
typedef void *(*spg_afu_new_fn)(void);
typedef void (*spg_afu_free_fn)(void *afu);
/* Drive `pins` inputs and clk into the model, evaluate, read the outputs back. */
typedef void (*spg_afu_eval_fn)(void *afu, spg_afu_pins *pins, int clk);
/* Text describing the build: "key=value" lines (afu_id, n_cores, record_words, ...). */
typedef const char *(*spg_afu_info_fn)(void);

#ifdef __cplusplus
}
#endif
#endif
