/* A C program linked only against the runtime library (libafushell): opens a cluster of RTL
 * cards from its cluster file, sets a core Reg on every card through its CSR, and streams
 * records through the cards' cascades in a chain (afuShellRDMAPipeline), then writes the
 * output records and the figures.
 *   rdma_pipeline_run CLUSTER.json IN.bin OUT.bin RECORD_BYTES PASSES REG_INDEX REG_BITS CARD...
 * Prints one line per card of the chain ("card C: in_total in_moved tx_words rx_words
 * link_words") and "ok CYCLES", or the error and exits 1. */
#include <afushell/rdma.h>

#include <stdio.h>
#include <stdlib.h>

#define CORE_REG(i) (0x800u + 8u * (unsigned)(i)) /* AFUSHELL_CORE_REG of afushell_csr.h */

int main(int argc, char **argv) {
    if (argc < 10) {
        fprintf(stderr, "usage: %s CLUSTER IN OUT RECORD_BYTES PASSES REG_INDEX REG_BITS CARD CARD...\n", argv[0]);
        return 2;
    }
    afu_rdma_cluster cl;
    if (afuShellRDMAClusterOpenFile(argv[1], &cl)) {
        fprintf(stderr, "%s\n", afuShellLastError());
        return 1;
    }
    FILE *f = fopen(argv[2], "rb");
    if (!f) return perror(argv[2]), 1;
    fseek(f, 0, SEEK_END);
    long bytes = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *in = malloc((size_t)bytes), *out = malloc((size_t)bytes);
    if (!in || !out || fread(in, 1, (size_t)bytes, f) != (size_t)bytes) return fprintf(stderr, "read failed\n"), 1;
    fclose(f);
    unsigned long long rec = strtoull(argv[4], NULL, 0), passes = strtoull(argv[5], NULL, 0);
    int n = argc - 8, chain[64];
    for (int k = 0; k < n && k < 64; ++k) chain[k] = atoi(argv[8 + k]);
    for (int k = 0; k < n; ++k) {
        afu_result rc = afuShellRDMACardWriteCSR(cl, chain[k], CORE_REG(atoi(argv[6])), strtoull(argv[7], NULL, 0));
        if (rc) return fprintf(stderr, "CSR write: %s\n", afuShellLastError()), 1;
    }
    afu_rdma_pipeline_opts opts = {25, 200, 7, 0}; /* random chunks and gaps at both ends */
    afu_rdma_pipeline_stats st[64];
    uint64_t cycles = 0;
    afu_result rc = afuShellRDMAPipeline(cl, chain, n, in, out, rec, (unsigned long long)bytes / rec, passes, &opts, st,
                                  &cycles);
    if (rc) {
        fprintf(stderr, "pipeline: %s\n%s\n", afuShellLastError(), afuShellRDMALastDump(cl));
        return 1;
    }
    for (int k = 0; k < n; ++k)
        printf("card %d: %llu %llu %llu %llu %llu %llu\n", chain[k], (unsigned long long)st[k].in_total_cycles,
               (unsigned long long)st[k].in_moved_cycles, (unsigned long long)st[k].stream_tx_words,
               (unsigned long long)st[k].stream_rx_words, (unsigned long long)st[k].link_words,
               (unsigned long long)st[k].in_first_cycles);
    f = fopen(argv[3], "wb");
    if (!f || fwrite(out, 1, (size_t)bytes, f) != (size_t)bytes) return perror(argv[3]), 1;
    fclose(f);
    int bad[2] = {chain[0], chain[0]};
    rc = afuShellRDMAPipeline(cl, bad, 2, in, out, rec, (unsigned long long)bytes / rec, 1, NULL, NULL, NULL);
    printf("same card twice: %s\n", afuShellLastError());
    afuShellRDMAClusterClose(cl);
    free(in);
    free(out);
    printf("ok %llu\n", (unsigned long long)cycles);
    return 0;
}
