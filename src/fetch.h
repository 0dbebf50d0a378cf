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

#include "access/skey.h"
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
 * copying their values into the current memory context; the index lookups
 * it made (none for a NULL key).  ERROR where no
 * row has a non-NULL key (the table changed under the query's snapshot:
 * it cannot).
 */
extern int	GpuaggFetchRow(GpuaggFetch *f, TupleTableSlot *slot);
extern void GpuaggFetchEnd(GpuaggFetch *f);
/*
 * May the query's snapshot read this index (a pg_index tuple)?  Valid,
 * ready and live, and, where built over HOT chains broken after some
 * snapshot (indcheckxmin), older than this transaction's xmin, as
 * get_relation_info decides.
 */
extern bool GpuaggFetchIndexUsable(HeapTuple indextup);
/*
 * A scan key of btree index column col (from 0) = a value set later, by
 * its opfamily's equality of the column's type; false where there is none.
 */
extern bool GpuaggIndexEqualityKey(Relation index, int col, ScanKey key);

#endif							/* GPUAGG_FETCH_H */
