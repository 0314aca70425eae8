/* gpucluster.horovod cudnn role: prove the installed cudnn.h and libcudnn agree and which cuDNN they are.
 * cudnnGetVersion() needs no GPU. Prints the library's and the header's version codes. */
#include <stdio.h>
#include <cudnn.h>

int main(void) {
    size_t version = cudnnGetVersion();
    printf("library=%zu header=%d\n", version, (int)CUDNN_VERSION);
    return 0;
}
