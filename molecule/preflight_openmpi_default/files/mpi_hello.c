/* Every rank prints its rank, the world size and the host it runs on; then the ranks move data between the
 * nodes and check it: an MPI_Allreduce (sum) of 1M doubles (8 MB, past every eager limit, so the TCP transport
 * streams it) and a ring exchange of 1 MB (each rank sends its pattern to the next). Rank 0 prints
 * "allreduce ok ranks=N elements=E" and "ring ok ranks=N bytes=B", or the same with FAILED and the number of
 * wrong elements, and the program exits 1 then. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ELEMENTS (1 << 20)
#define RING_BYTES (1 << 20)

int main(int argc, char **argv)
{
    int rank, size, len;
    char host[MPI_MAX_PROCESSOR_NAME];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);
    printf("rank %d of %d on %s\n", rank, size, host);
    fflush(stdout);

    double *in = malloc(ELEMENTS * sizeof(double)), *out = malloc(ELEMENTS * sizeof(double));
    unsigned char *send = malloc(RING_BYTES), *recv = malloc(RING_BYTES);
    if (!in || !out || !send || !recv) {
        fprintf(stderr, "rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < ELEMENTS; i++) in[i] = (double)(rank + 1) * (double)(i % 7 + 1);
    MPI_Allreduce(in, out, ELEMENTS, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    long bad_sum = 0, bad_ring = 0, all_sum = 0, all_ring = 0;
    double ranks_sum = (double)size * (double)(size + 1) / 2.0;
    for (int i = 0; i < ELEMENTS; i++)
        if (out[i] != ranks_sum * (double)(i % 7 + 1)) bad_sum++;

    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int i = 0; i < RING_BYTES; i++) send[i] = (unsigned char)((rank * 31 + i) & 0xff);
    MPI_Sendrecv(send, RING_BYTES, MPI_UNSIGNED_CHAR, next, 7, recv, RING_BYTES, MPI_UNSIGNED_CHAR, prev, 7,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < RING_BYTES; i++)
        if (recv[i] != (unsigned char)((prev * 31 + i) & 0xff)) bad_ring++;

    MPI_Reduce(&bad_sum, &all_sum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&bad_ring, &all_ring, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("allreduce %s ranks=%d elements=%d wrong=%ld\n", all_sum ? "FAILED" : "ok", size, ELEMENTS, all_sum);
        printf("ring %s ranks=%d bytes=%d wrong=%ld\n", all_ring ? "FAILED" : "ok", size, RING_BYTES, all_ring);
    }
    free(in); free(out); free(send); free(recv);
    MPI_Finalize();
    return (all_sum || all_ring) ? 1 : 0;
}
