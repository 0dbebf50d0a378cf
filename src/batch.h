/*-------------------------------------------------------------------------
 *
 * batch.h
 *		Filling column batches from a table scan.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUAGG_BATCH_H
#define GPUAGG_BATCH_H

#include "access/tableam.h"
#include "utils/rel.h"
#include "utils/snapshot.h"

#include "../cuda/gpuagg_abi.h"

typedef struct GpuaggBatchReader GpuaggBatchReader;

extern GpuaggBatchReader *GpuaggBatchBegin(Relation rel, Snapshot snapshot,
										   const GaProgram *prog,
										   int batch_rows);
/* The next batch, or NULL at the end of the scan; *bytes gets its size. */
extern const GaBatch *GpuaggBatchNext(GpuaggBatchReader *reader, uint64 *bytes);
extern void GpuaggBatchEnd(GpuaggBatchReader *reader);

#endif							/* GPUAGG_BATCH_H */
