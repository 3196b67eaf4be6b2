/* A stand-in for the CUDA driver (libcuda.so.1) with the calls the simulated peer device
 * uses, over host memory: "device" allocations come from fake_alloc. It lets the tests run
 * the CUDA path of the simulation (loading, pointer checks, contexts, copies) without a GPU.
 * Signatures and enumeration values as in cuda.h. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t CUdeviceptr;
enum { MAX_ALLOCS = 64, ATTR_CONTEXT = 1, ATTR_MEMORY_TYPE = 2, MEMORYTYPE_DEVICE = 2,
       ERR_INVALID_VALUE = 1, ERR_NOT_INITIALIZED = 3, ERR_INVALID_CONTEXT = 201 };

static struct { CUdeviceptr base; size_t size; } allocs[MAX_ALLOCS];
static int n_allocs, initialised, depth, copies;
static char the_context;

void *fake_alloc(size_t size) {
    void *p = calloc(1, size);
    if (p && n_allocs < MAX_ALLOCS) {
        allocs[n_allocs].base = (CUdeviceptr)(uintptr_t)p;
        allocs[n_allocs++].size = size;
    }
    return p;
}
int fake_depth(void) { return depth; }   /* contexts pushed and not popped */
int fake_copies(void) { return copies; }

static int find(CUdeviceptr p) {
    for (int i = 0; i < n_allocs; ++i)
        if (p >= allocs[i].base && p < allocs[i].base + allocs[i].size) return i;
    return -1;
}

int cuInit(unsigned flags) { (void)flags; initialised = 1; return 0; }
int cuPointerGetAttribute(void *data, int attribute, CUdeviceptr ptr) {
    if (!initialised) return ERR_NOT_INITIALIZED;
    if (find(ptr) < 0) return ERR_INVALID_VALUE;
    if (attribute == ATTR_MEMORY_TYPE) { *(unsigned *)data = MEMORYTYPE_DEVICE; return 0; }
    if (attribute == ATTR_CONTEXT) { *(void **)data = &the_context; return 0; }
    return ERR_INVALID_VALUE;
}
int cuCtxPushCurrent_v2(void *ctx) { if (ctx != &the_context) return ERR_INVALID_CONTEXT; ++depth; return 0; }
int cuCtxPopCurrent_v2(void **ctx) { if (!depth) return ERR_INVALID_CONTEXT; --depth; if (ctx) *ctx = &the_context; return 0; }
static int in_range(CUdeviceptr p, size_t n) {
    int i = find(p);
    return i >= 0 && p + n <= allocs[i].base + allocs[i].size;
}
int cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
    if (!depth) return ERR_INVALID_CONTEXT;
    if (!in_range(dst, n)) return ERR_INVALID_VALUE;
    memcpy((void *)(uintptr_t)dst, src, n);
    ++copies;
    return 0;
}
int cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) {
    if (!depth) return ERR_INVALID_CONTEXT;
    if (!in_range(src, n)) return ERR_INVALID_VALUE;
    memcpy(dst, (const void *)(uintptr_t)src, n);
    ++copies;
    return 0;
}
int cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size, CUdeviceptr p) {
    int i = find(p);
    if (!depth) return ERR_INVALID_CONTEXT;
    if (i < 0) return ERR_INVALID_VALUE;
    *base = allocs[i].base;
    *size = allocs[i].size;
    return 0;
}
