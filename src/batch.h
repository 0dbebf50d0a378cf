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
#include "dict.h"
#include "join.h"
#include "program.h"

typedef struct GpuaggBatchReader GpuaggBatchReader;

/*
 * The blocks a process has taken from a parallel scan, kept across the
 * scans of one execution: a scan run again after a device failure must read
 * the blocks the failed run took (no other process will) and then go on
 * where it stopped, in the middle of its chunk of blocks.  Zeroed by the
 * caller before the first scan; it lives in memory that outlasts the scans.
 */
typedef struct GpuaggBlockRange
{
	BlockNumber start;
	BlockNumber count;
} GpuaggBlockRange;

typedef struct GpuaggBlockLog
{
	GpuaggBlockRange *ranges;	/* the blocks taken, in order */
	int			nranges;
	int			cap;
	MemoryContext cxt;			/* where the arrays grow */
	bool		have_worker;	/* worker holds the scan's chunk state */
	ParallelBlockTableScanWorkerData worker;
} GpuaggBlockLog;

/* rels: read one after another (a table, or the partitions left of one --
 * none, where run-time pruning removed them all --
 * which the planner has checked lay out the program's columns alike, or,
 * with remap_from, the parent's descriptor: each relation's columns are
 * found by name, its tuples deformed in the slot, never in page form);
 * strings are sent as their codes in dict; pscans: this process's share of
 * a parallel scan of each relation, or NULL for the whole of each; logs:
 * with pscans, the blocks this process has taken of each (replayed first,
 * then added to); pages: the device takes page-form batches (GaBatch),
 * sent where GpuaggPageFormMissing (of every relation) and the scan
 * allow; join: the rows of the other tables of a join (join.h) each row
 * matches, one row sent per match (column form), or NULL. */
extern GpuaggBatchReader *GpuaggBatchBegin(Relation *rels, int nrels,
										   TupleDesc remap_from,
										   Snapshot snapshot,
										   ParallelTableScanDesc *pscans,
										   GpuaggBlockLog *logs,
										   const GpuaggProgram *prog,
										   int batch_rows, GpuaggDict *dict,
										   bool pages, GpuaggJoin *join);
/* NULL if the scans of rel can send prog's rows in page form, else why not. */
extern const char *GpuaggPageFormMissing(const GaProgram *prog, Relation rel,
										 int batch_rows);
/* Can a scan of this reader be run again on the same blocks (see above)? */
extern bool GpuaggBatchReplayable(GpuaggBatchReader *reader);
/* Bytes of the buffer a batch is laid out in. */
extern Size GpuaggBatchBufferSize(GpuaggBatchReader *reader);
/* Of a buffer, the leading bytes the scan itself writes: in page form the
 * pages' lists and the layout (the columns are the deformer's), else all. */
extern Size GpuaggBatchHostSize(GpuaggBatchReader *reader);
/* Is the scan exhausted? */
extern bool GpuaggBatchDone(GpuaggBatchReader *reader);

/*
 * Fill the next batch into buf (GpuaggBatchBufferSize bytes; columns at
 * fixed offsets in it); NULL at the end of the scan.  *bytes gets the bytes
 * of column data the batch holds.
 */
extern const GaBatch *GpuaggBatchNext(GpuaggBatchReader *reader, char *buf,
									  uint64 *bytes);
/*
 * Page form: the device has taken the last batch, and is done with the
 * pages of the batch before it: unpin those.
 */
extern void GpuaggBatchSent(GpuaggBatchReader *reader);
/* Page form: the device is done with every batch's pages: unpin them. */
extern void GpuaggBatchConsumed(GpuaggBatchReader *reader);
/*
 * Parallel page form fed to one device (parallel.c): a worker's batches are
 * their page lists in a buffer of GpuaggBatchFeedBytes (GpuaggBatchNext
 * writes them, the worker keeping the pins); the leader's reader makes a
 * batch of them in its device's buffer.
 */
extern Size GpuaggBatchFeedBytes(const GaProgram *prog);
extern const GaBatch *GpuaggBatchFromFeed(GpuaggBatchReader *reader, char *buf,
										  const char *refs, int nrows, int npages,
										  uint64 *bytes);
/*
 * Has a numeric value not fitted its column's scaled int64 (NaN, too large:
 * gpuagg_abi.h's GA_T_NUMERIC)?  The query then takes its exact path.
 */
extern bool GpuaggBatchNumericUnfit(GpuaggBatchReader *reader);
/*
 * Row row of vals, an array of column c's values, the value d (not NULL)
 * as the reader stores it: a join's dimension rows, which the device
 * joins (join.c).  A numeric it cannot hold makes GpuaggBatchNumericUnfit
 * true.  False: the column's value is NULL (a function of a string that
 * returned NULL for d).
 */
extern bool GpuaggBatchStoreValue(GpuaggBatchReader *r, int c, void *vals, int64 row,
								  Datum d);
/* A join: the rows of the table read and matched so far. */
extern uint64 GpuaggBatchTuplesRead(GpuaggBatchReader *reader);
/* Page form: does the device code strings read from the pages? */
extern bool GpuaggBatchPageStrings(GpuaggBatchReader *reader);
/* Column form after all (before the first batch). */
extern void GpuaggBatchNoPages(GpuaggBatchReader *reader);
/*
 * Before the first batch, of one table scanned by one process: its rows
 * are from now on those whose column the btree index indexoid has first
 * holds one of the n values (Datums of that column's type, each once),
 * found through the index under the reader's snapshot, in column form
 * (exec.c's index probe); and how many the lookups found.
 */
extern void GpuaggBatchProbe(GpuaggBatchReader *reader, Oid indexoid, Datum *values, int n);
extern uint64 GpuaggBatchProbeRows(GpuaggBatchReader *reader);
/*
 * A page-form reader of one table, not yet read, not parallel: read only
 * the rows index indexoid (btree, its first column) finds for values[0 ..
 * n) under the reader's snapshot, in the pages that hold them, and of
 * those pages only those rows (a joined table the device scans, whose rows
 * that can match are those: exec.c's dim_probe).  The values of integer
 * attributes collect[0 .. ncollect) in the rows found, NULLs left out, go
 * to out[i] (palloc'd, nout[i] of them).  Returns the rows found.
 */
extern uint64 GpuaggBatchProbePages(GpuaggBatchReader *reader, Oid indexoid,
									const Datum *values, int n, const AttrNumber *collect,
									int ncollect, int64 **out, uint64 *nout);
/* Page form: the most pages one batch refers to (0: column form). */
extern int	GpuaggBatchMaxPages(GpuaggBatchReader *reader);
/* Page form: pages referred to so far, and how many were all-visible. */
extern void GpuaggBatchPageCounts(GpuaggBatchReader *reader, uint64 *pages,
								  uint64 *all_visible);
extern void GpuaggBatchEnd(GpuaggBatchReader *reader);

#endif							/* GPUAGG_BATCH_H */
