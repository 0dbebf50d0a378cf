/*-------------------------------------------------------------------------
 *
 * gpuagg_filter.cu
 *		Device-side evaluation of a program's WHERE segment.
 *
 * The first kernel built on the shared interpreter (gpuagg_eval.h): one
 * thread per row evaluates the WHERE segment and writes a pass flag, or the
 * first error code any row raised.  The CUDA device (src/device_cuda.c, next
 * issue) loads it from gpuagg.fatbin with cuModuleLoadData; the grouping
 * kernels join it there.  Includes nothing from PostgreSQL.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuagg_eval.h"

extern "C" __global__ void
gpuagg_filter(const GaProgram *prog, GaBatch batch, uint8_t *pass, int *error)
{
	uint32_t	row = blockIdx.x * blockDim.x + threadIdx.x;
	GaDatum		regs[GA_MAX_REGS];
	uint8_t		nulls[GA_MAX_REGS];
	int			err;

	if (row >= batch.nrows)
		return;
	if (prog->where.reg < 0)
	{
		pass[row] = 1;
		return;
	}
	err = ga_eval(prog, &prog->where, &batch, row, regs, nulls);
	if (err != GA_OK)
	{
		atomicCAS(error, 0, err);
		pass[row] = 0;
		return;
	}
	pass[row] = !nulls[prog->where.reg] && regs[prog->where.reg].i != 0;
}
