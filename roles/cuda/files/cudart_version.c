/* gpucluster.horovod cuda role: prove the toolkit's headers and libcudart agree and which CUDA they are.
 * cudaRuntimeGetVersion() needs no GPU and no driver. Prints the library's and the header's codes. */
#include <stdio.h>
#include <cuda_runtime_api.h>

int main(void) {
    int version = 0;
    cudaError_t rc = cudaRuntimeGetVersion(&version);
    if (rc != cudaSuccess) {
        fprintf(stderr, "cudaRuntimeGetVersion failed: %d\n", (int)rc);
        return 1;
    }
    printf("library=%d header=%d\n", version, CUDART_VERSION);
    return 0;
}
