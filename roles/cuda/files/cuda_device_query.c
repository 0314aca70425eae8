/* gpucluster.horovod cuda role: with a GPU, list the devices the runtime sees (run only where gpu_facts found one).
 * Prints one line per device: index, name, compute capability, memory in MiB; exits 2 when none is usable. */
#include <stdio.h>
#include <cuda_runtime_api.h>

int main(void) {
    int count = 0;
    cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess) {
        fprintf(stderr, "cudaGetDeviceCount failed: %s (%d)\n", cudaGetErrorString(rc), (int)rc);
        return 2;
    }
    for (int i = 0; i < count; i++) {
        struct cudaDeviceProp prop;
        rc = cudaGetDeviceProperties(&prop, i);
        if (rc != cudaSuccess) {
            fprintf(stderr, "cudaGetDeviceProperties(%d) failed: %s\n", i, cudaGetErrorString(rc));
            return 2;
        }
        printf("device=%d name=%s cc=%d.%d memory_mib=%zu\n", i, prop.name, prop.major, prop.minor,
               (size_t)(prop.totalGlobalMem >> 20));
    }
    printf("devices=%d\n", count);
    return count > 0 ? 0 : 2;
}
