/*-------------------------------------------------------------------------
 *
 * fetch.h
 *		Columns a group key determines, fetched per group through their
 *		table's primary key (fetch.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUAGG_FETCH_H
#define GPUAGG_FETCH_H

#include "nodes/execnodes.h"

typedef struct GpuaggFetch GpuaggFetch;

/*
 * fetch: GpuaggPlanInfo.fetch; first_col: the node's tuple's column of the
 * first column fetched.  The indexes are opened and scans begun under the
 * query's snapshot, in the caller's memory context.
 */
extern GpuaggFetch *GpuaggFetchBegin(List *fetch, int first_col, EState *estate);
/*
 * Fill the fetched columns of slot, a group's tuple whose keys are set,
 * copying their values into the current memory context.  ERROR where no
 * row has a non-NULL key (the table changed under the query's snapshot:
 * it cannot).
 */
extern void GpuaggFetchRow(GpuaggFetch *f, TupleTableSlot *slot);
/* The index lookups since the last call. */
extern uint64 GpuaggFetchLookups(GpuaggFetch *f);
extern void GpuaggFetchEnd(GpuaggFetch *f);

#endif							/* GPUAGG_FETCH_H */
