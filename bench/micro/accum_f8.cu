/*
 * bench/micro/accum_f8.cu -- what an avg(float8) over a hundred groups costs
 * the aggregate kernel, by design (not built by the Makefile; run on the GPU
 * host: nvcc -O3 -arch=sm_90 -o /tmp/accum bench/micro/accum_f8.cu && /tmp/accum).
 *
 * Rows as db-benchmark q4 at 1e8 reaches gpuagg_aggregate: 250 batches of
 * 400,000 rows, a key of 100 values, a float8 value; grid and block as the
 * engine launches them (2 blocks of 256 an SM, a 512-slot table in shared
 * memory a block, merged into the global table at the end).  The state is
 * PostgreSQL's (N, Sx, Sxx) with float8_accum's Youngs-Cramer update.
 * The slot a key takes and the merge copies stand in for the engine's
 * lookups: what it times is the folding and the merging.
 *
 * On the H200 (bench/results/2026-12-03-h200, sixth session): a lock a row
 * 4.5 ms, then every block merging under the global table's locks 616 ms;
 * merging into 32 copies instead 8.6 ms.  gpuagg_aggregate took such merge
 * tables, then gave up merging after every batch: each block now keeps its
 * table in device memory from one batch to the next, and the tables are
 * added into the global table once, after the last batch.
 */
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cuda_runtime.h>

#define NGROUPS 100
#define ROWS 400000
#define BATCHES 250
#define BLOCK 256
#define CAP 512

enum Mode { ROW_LOCK, WARP_LOCK, SHIFTED_ATOMIC, NOP_STATE, WARP_PRIVATE };
#define PCAP 128				/* a warp's own table: 8 of them in 24 kB */
enum Merge { MERGE_LOCK, MERGE_NONE, MERGE_SPREAD };

__device__ __forceinline__ void lock(uint32_t *l, bool block)
{
	while (atomicCAS(l, 0u, 1u) != 0u)
		;
	if (block) __threadfence_block(); else __threadfence();
}

__device__ __forceinline__ void unlock(uint32_t *l, bool block)
{
	if (block) __threadfence_block(); else __threadfence();
	atomicExch(l, 0u);
}

__device__ __forceinline__ void accum(volatile double *st, uint32_t stride, double x)
{
	double N = st[0], Sx = st[stride], Sxx = st[2 * stride];

	N += 1.0;
	Sx += x;
	if (N > 1.0)
	{
		double tmp = x * N - Sx;
		Sxx += tmp * tmp / (N * (N - 1.0));
	}
	else
		Sxx = 0;
	st[0] = N;
	st[stride] = Sx;
	st[2 * stride] = Sxx;
}

__device__ __forceinline__ void combine(volatile double *d, uint32_t ds, const volatile double *s, uint32_t ss)
{
	double N1 = d[0], N2 = s[0];

	if (N2 == 0) return;
	if (N1 == 0) { d[0] = N2; d[ds] = s[ss]; d[2 * ds] = s[2 * ss]; return; }
	double Sx1 = d[ds], Sx2 = s[ss], N = N1 + N2;
	double tmp = Sx1 / N1 - Sx2 / N2;
	d[0] = N;
	d[ds] = Sx1 + Sx2;
	d[2 * ds] = d[2 * ds] + s[2 * ss] + N1 * N2 * tmp * tmp / N;
}

template <int mode, int merge>
__global__ void agg(const int32_t *key, const double *val, uint32_t nrows,
					double *gstates, uint32_t *glock, uint32_t gcap)
{
	/* states[3][CAP] (+ shift[CAP] for SHIFTED), lock[CAP] */
	__shared__ double st[4 * CAP];
	__shared__ uint32_t lk[CAP];
	__shared__ double pst[mode == WARP_PRIVATE ? (BLOCK / 32) * 3 * PCAP : 1];

	if (mode == WARP_PRIVATE)
		for (uint32_t i = threadIdx.x; i < (BLOCK / 32) * 3 * PCAP; i += blockDim.x)
			pst[i] = 0;

	for (uint32_t i = threadIdx.x; i < 4 * CAP; i += blockDim.x)
		st[i] = 0;
	for (uint32_t i = threadIdx.x; i < CAP; i += blockDim.x)
		lk[i] = 0;
	__syncthreads();
	for (uint32_t base = blockIdx.x * blockDim.x + (threadIdx.x & ~31u); base < nrows;
		 base += gridDim.x * blockDim.x)
	{
		uint32_t row = base + (threadIdx.x & 31);
		int slot = -1;
		double x = 0;

		if (row < nrows)
		{
			/* stands for find_slot: the key's slot (spread as a hash would) */
			slot = (key[row] * 37) & (CAP - 1);
			x = val[row];
		}
		if (mode == ROW_LOCK)
		{
			if (slot >= 0)
			{
				lock(&lk[slot], true);
				accum(st + slot, CAP, x);
				unlock(&lk[slot], true);
			}
		}
		else if (mode == WARP_LOCK)
		{
			uint32_t lane = threadIdx.x & 31;
			unsigned long long label = slot < 0 ? (1ull << 63) | lane : (unsigned long long) slot;
			uint32_t peers = __match_any_sync(0xffffffffu, label);
			uint32_t lead = __ffs(peers) - 1;

			if (slot >= 0)
			{
				if (lane == lead)
					lock(&lk[slot], true);
				for (uint32_t m = peers; m; m &= m - 1)
				{
					double y = __shfl_sync(peers, x, __ffs(m) - 1);

					if (lane == lead)
						accum(st + slot, CAP, y);
				}
				if (lane == lead)
					unlock(&lk[slot], true);
			}
		}
		else if (mode == SHIFTED_ATOMIC)
		{
			if (slot >= 0)
			{
				/* sums of d = x - c and d*d for a shift c (0 here: what
				 * finding a slot's shift would cost is not timed) */
				double c = 0.0;
				double d = x - c;

				atomicAdd(&st[slot], 1.0);
				atomicAdd(&st[CAP + slot], d);
				atomicAdd(&st[2 * CAP + slot], d * d);
			}
		}
		else if (mode == WARP_PRIVATE)
		{
			/* the warp's own states: no lock, the lanes of a slot in turn */
			uint32_t lane = threadIdx.x & 31;
			int ps = slot < 0 ? -1 : slot & (PCAP - 1);
			unsigned long long label = ps < 0 ? (1ull << 63) | lane : (unsigned long long) ps;
			uint32_t peers = __match_any_sync(0xffffffffu, label);
			uint32_t lead = __ffs(peers) - 1;
			double *mine = pst + (threadIdx.x / 32) * 3 * PCAP;

			if (ps >= 0)
				for (uint32_t m = peers; m; m &= m - 1)
				{
					double y = __shfl_sync(peers, x, __ffs(m) - 1);

					if (lane == lead)
						accum(mine + ps, PCAP, y);
				}
			__syncwarp();
		}
		else
		{
			if (slot >= 0)
				atomicAdd((unsigned long long *) &st[slot], 1ull);
		}
	}
	__syncthreads();
	if (mode == WARP_PRIVATE)
	{
		/* the warps' tables into the block's, a slot a thread (the
		 * slot numbers stand in for a lookup: the cost is the same) */
		for (uint32_t i = threadIdx.x; i < PCAP; i += blockDim.x)
			for (int w = 0; w < BLOCK / 32; w++)
				combine(st + i, CAP, pst + w * 3 * PCAP + i, PCAP);
		__syncthreads();
	}
	if (merge == MERGE_NONE)
		return;
	for (uint32_t i = threadIdx.x; i < CAP; i += blockDim.x)
	{
		if (st[i] == 0)
			continue;
		uint32_t gi = merge == MERGE_SPREAD ? (i + (blockIdx.x & 31) * CAP) % gcap : i % gcap;

		lock(&glock[gi], false);
		combine(gstates + gi, gcap, st + i, CAP);
		unlock(&glock[gi], false);
	}
}

template <int mode, int merge>
static void run(const char *name, const int32_t *dk, const double *dv, double *gs, uint32_t *gl, uint32_t gcap, int sms)
{
	cudaEvent_t a, b;
	float ms;
	int grid = sms * 2;

	cudaEventCreate(&a);
	cudaEventCreate(&b);
	agg<mode, merge><<<grid, BLOCK>>>(dk, dv, ROWS, gs, gl, gcap);
	cudaEventRecord(a);
	for (int i = 0; i < BATCHES; i++)
		agg<mode, merge><<<grid, BLOCK>>>(dk, dv, ROWS, gs, gl, gcap);
	cudaEventRecord(b);
	cudaEventSynchronize(b);
	cudaEventElapsedTime(&ms, a, b);
	printf("%-34s %8.1f ms for %d x %d rows (%s)\n", name, ms, BATCHES, ROWS,
		   cudaGetErrorString(cudaGetLastError()));
}

int main()
{
	int32_t *hk = (int32_t *) malloc(ROWS * 4);
	double *hv = (double *) malloc(ROWS * 8);
	int32_t *dk;
	double *dv, *gs;
	uint32_t *gl;
	uint32_t gcap = 32 * CAP;
	int sms;

	srand(1);
	for (int i = 0; i < ROWS; i++)
	{
		hk[i] = rand() % NGROUPS;
		hv[i] = (rand() % 10000) / 100.0;
	}
	cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
	cudaMalloc(&dk, ROWS * 4);
	cudaMalloc(&dv, ROWS * 8);
	cudaMalloc(&gs, 3 * 8 * gcap);
	cudaMalloc(&gl, 4 * gcap);
	cudaMemcpy(dk, hk, ROWS * 4, cudaMemcpyHostToDevice);
	cudaMemcpy(dv, hv, ROWS * 8, cudaMemcpyHostToDevice);
	cudaMemset(gs, 0, 3 * 8 * gcap);
	cudaMemset(gl, 0, 4 * gcap);
	printf("%d SMs, grid %d x %d\n", sms, 2 * sms, BLOCK);
	run<NOP_STATE, MERGE_NONE>("count only, no merge", dk, dv, gs, gl, gcap, sms);
	run<ROW_LOCK, MERGE_NONE>("lock a row, no merge", dk, dv, gs, gl, gcap, sms);
	run<ROW_LOCK, MERGE_LOCK>("lock a row, locked merge", dk, dv, gs, gl, gcap, sms);
	run<WARP_LOCK, MERGE_NONE>("warp lock, no merge", dk, dv, gs, gl, gcap, sms);
	run<WARP_LOCK, MERGE_LOCK>("warp lock, locked merge", dk, dv, gs, gl, gcap, sms);
	run<WARP_LOCK, MERGE_SPREAD>("warp lock, merge over 32 copies", dk, dv, gs, gl, gcap, sms);
	run<ROW_LOCK, MERGE_SPREAD>("lock a row, merge over 32 copies", dk, dv, gs, gl, gcap, sms);
	run<WARP_PRIVATE, MERGE_SPREAD>("warp-own states, merge over 32 copies", dk, dv, gs, gl, gcap, sms);
	run<WARP_PRIVATE, MERGE_NONE>("warp-own states, no merge", dk, dv, gs, gl, gcap, sms);
	run<WARP_PRIVATE, MERGE_LOCK>("warp-own states, locked merge", dk, dv, gs, gl, gcap, sms);
	run<SHIFTED_ATOMIC, MERGE_NONE>("shifted atomics, no merge", dk, dv, gs, gl, gcap, sms);
	run<SHIFTED_ATOMIC, MERGE_LOCK>("shifted atomics, locked merge", dk, dv, gs, gl, gcap, sms);
	return 0;
}
