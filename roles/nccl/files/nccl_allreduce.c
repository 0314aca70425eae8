/* gpucluster.horovod nccl role: with GPUs, one process all-reduces a buffer over every local GPU with NCCL
 * (ncclCommInitAll) and checks the sums. Run only where gpu_facts found a GPU. Prints "allreduce ok ..." or fails. */
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#define COUNT (1 << 20)
#define CHECK_CUDA(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e)); return 2; } } while (0)
#define CHECK_NCCL(call) do { ncclResult_t r = (call); if (r != ncclSuccess) { \
    fprintf(stderr, "%s failed: %s\n", #call, ncclGetErrorString(r)); return 2; } } while (0)

int main(void) {
    int n = 0;
    CHECK_CUDA(cudaGetDeviceCount(&n));
    if (n < 1) { fprintf(stderr, "no CUDA device\n"); return 2; }
    ncclComm_t *comms = calloc((size_t)n, sizeof(ncclComm_t));
    float **buf = calloc((size_t)n, sizeof(float *));
    cudaStream_t *streams = calloc((size_t)n, sizeof(cudaStream_t));
    float *host = malloc(COUNT * sizeof(float));
    if (!comms || !buf || !streams || !host) { fprintf(stderr, "out of memory\n"); return 2; }
    CHECK_NCCL(ncclCommInitAll(comms, n, NULL));
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < COUNT; j++) host[j] = (float)(i + 1);
        CHECK_CUDA(cudaSetDevice(i));
        CHECK_CUDA(cudaStreamCreate(&streams[i]));
        CHECK_CUDA(cudaMalloc((void **)&buf[i], COUNT * sizeof(float)));
        CHECK_CUDA(cudaMemcpy(buf[i], host, COUNT * sizeof(float), cudaMemcpyHostToDevice));
    }
    CHECK_NCCL(ncclGroupStart());
    for (int i = 0; i < n; i++)
        CHECK_NCCL(ncclAllReduce(buf[i], buf[i], COUNT, ncclFloat, ncclSum, comms[i], streams[i]));
    CHECK_NCCL(ncclGroupEnd());
    float expected = (float)n * (float)(n + 1) / 2.0f;
    for (int i = 0; i < n; i++) {
        CHECK_CUDA(cudaSetDevice(i));
        CHECK_CUDA(cudaStreamSynchronize(streams[i]));
        CHECK_CUDA(cudaMemcpy(host, buf[i], COUNT * sizeof(float), cudaMemcpyDeviceToHost));
        for (int j = 0; j < COUNT; j++)
            if (host[j] != expected) {
                fprintf(stderr, "device %d element %d: %f, expected %f\n", i, j, host[j], expected);
                return 1;
            }
        cudaFree(buf[i]);
        ncclCommDestroy(comms[i]);
    }
    printf("allreduce ok devices=%d elements=%d sum=%.0f\n", n, COUNT, expected);
    return 0;
}
