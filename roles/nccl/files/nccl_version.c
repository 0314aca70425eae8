/* gpucluster.horovod nccl role: prove the installed nccl.h and libnccl agree and which version they are.
 * ncclGetVersion() needs no GPU. Prints the library's and the header's version codes. */
#include <stdio.h>
#include <nccl.h>

int main(void) {
    int version = 0;
    ncclResult_t rc = ncclGetVersion(&version);
    if (rc != ncclSuccess) {
        fprintf(stderr, "ncclGetVersion failed: %d\n", (int)rc);
        return 1;
    }
    printf("library=%d header=%d\n", version, NCCL_VERSION_CODE);
    return 0;
}
