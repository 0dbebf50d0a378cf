/*-------------------------------------------------------------------------
 *
 * exec.h
 *		The GpuAgg executor node's state, shared by its files: exec.c (the
 *		node's life and its runs), parallel.c (the DSM and a fed plan),
 *		topn.c (the host's Top-N) and explain.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUAGG_EXEC_H
#define GPUAGG_EXEC_H

#include "access/parallel.h"
#include "commands/explain.h"
#include "access/relscan.h"
#include "lib/binaryheap.h"
#include "nodes/execnodes.h"
#include "port/atomics.h"
#include "portability/instr_time.h"
#include "utils/dsa.h"
#include "utils/sortsupport.h"

#include "batch.h"
#include "device.h"
#include "gpuagg.h"
#include "program.h"
#include "result.h"

/* What EXPLAIN ANALYZE shows of a GpuAgg's work, summed over its runs. */
typedef struct GpuaggCounters
{
	uint64		nbatches;
	uint64		page_batches;	/* of them in page form */
	uint64		pages;			/* pages they referred to */
	uint64		pages_all_visible;	/* of them all-visible */
	uint64		bytes_in;
	double		open_ms;		/* opening the device session, queue included */
	double		scan_ms;
	double		dims_ms;		/* the device's join: the joined tables' plans
								 * run, their rows laid out */
	double		wait_ms;		/* blocked in calls to the device while scanning */
	double		finish_ms;		/* the device's last work, the groups back and
								 * the strings it coded (page form) taken in */
	double		result_ms;
	double		map_ms;			/* of finish_ms, GpuaggRekey's */
	double		map_eval_ms;	/* ... of it, the keys' expressions' (timed
								 * under EXPLAIN ANALYZE only) */
	GpuaggDeviceStats stats;
	uint64		ngroups;
	uint64		strings_coded;	/* page form: strings the device coded */
	uint64		rows_read;	/* a join: rows of the table read and matched */
	uint64		host_removed;	/* ... of them, those the Host Filter dropped */
	uint64		dims_scanned;	/* ... joined tables the device scanned */
	uint64		dim_batches_fed;	/* ... their batches the workers pinned */
	uint64		exact_runs;		/* runs that took the exact path (a numeric
								 * value the device cannot hold) */
	uint64		column_reruns;	/* page form given up for a string the
								 * device could not read */
	uint64		groups_back;	/* under a top-N (GpuaggPlanInfo.topn): those the
								 * device sent back (GaTopN), */
	uint64		groups_returned;	/* and those the node returns */
	uint64		groups_unmapped;	/* keys the host maps: the device's groups,
									 * before GpuaggRekey merged them */
	uint64		mapped_elsewhere;	/* ... their strings another process of a
									 * parallel plan had mapped */
	uint64		map_unkept;		/* ... values mapped here the shared table
								 * could not keep (its memory spent) */
	uint64		rows_counted;	/* count(*) alone: rows the host counted in
								 * its batches, which went to no device */
	uint64		rows_fetched;	/* rows looked up by a primary key (fetch.c) */
	uint64		strings_returned;	/* ... of strings_coded, those the device
									 * returned (GaResult.strings_selected) */
	uint64		probe_keys;		/* an index probe (exec.c): the keys looked up */
	uint64		probe_rows;		/* ... and the rows they found */
	uint64		dims_probed;	/* joined tables the device scans read so */
	uint64		dim_probe_rows; /* ... the rows found of them */
} GpuaggCounters;

/*
 * The host's Top-N (topn.c), from GpuaggPlanInfo.topn: n is 0 without one.
 * After a run, states is the aggregate's first state slot of the run's
 * groups when the Top-N bounds them (NULL: every group goes out), and
 * bound the group ranking last of those that go out.
 */
typedef struct GpuaggTopN
{
	int			n;				/* ORDER BY a count or sum LIMIT n above, or 0 */
	int			agg;			/* ... that aggregate; -1: LIMIT n without
								 * ORDER BY, any n groups */
	int			kind;			/* ... its GaAggKind (a count's or a sum's) */
	bool		desc;			/* ... DESC: the largest first */
	bool		aggnullsfirst;	/* ... a sum of no rows, NULL, first */
	int			ntie;			/* ... then ORDER BY these group keys */
	bool		whole;			/* ... and no other sort keys */
	int		   *tie_key;		/* ... their indexes */
	Oid		   *tie_op;			/* ... their sort operators */
	SortSupport tie_ssup;		/* ... their orders */
	const uint64 *states;		/* the run's, when the Top-N bounds */
	uint64		bound;			/* ... the group ranking last that goes out */
	const GaResult *res;		/* ... the run's groups */
	const int  *keytype;		/* ... their keys' GaTypes */
} GpuaggTopN;

typedef struct GpuAggState
{
	CustomScanState css;

	/* from the plan */
	const GpuaggPlanInfo *plan;
	const GpuaggDevice *device;
	bool		planned_cuda;	/* the plan chose the CUDA device */
	char	   *fallback;		/* why the planned device was abandoned */
	bool		no_pages;		/* page form given up (GA_ERR_STRING_BACK) */
	bool		exact;			/* the exact path returns the rows */
	bool		feed_failed;	/* a fed GpuAgg's run failed: the leader reads
								 * the whole table itself */
	ParallelContext *pcxt;		/* the leader's, for its workers' count */
	int			feed_next;		/* the worker to look at first */
	GpuaggTopN	topn;			/* ORDER BY a count or sum LIMIT n above */
	GpuaggHaving having;		/* HAVING's checks of a group's states */

	/* set up by Begin */
	GpuaggProgram *prog;
	List	   *param_states;	/* ExprState per parameter of the program */
	List	   *gating;			/* one-time quals, checked before the scan */
	List	   *host;			/* quals the host evaluates per row */
	ExprState  *gating_state;
	GpuaggFinal *finals;
	Node	   *aggcontext;		/* stand-in AggState for final functions */

	/* the relations scanned: the table, or the partitions left of it */
	Relation   *rels;
	int			nrels;
	int			nremoved;		/* partitions pruned at the start */
	TupleDesc	remap_from;		/* the parent's, where the partitions lay out
								 * the columns otherwise (plan->remap) */
	struct PartitionPruneState *prunestate; /* run-time pruning, or NULL */
	PlanState  *exact_ps;		/* the exact path (planner.c), or NULL */
	GpuaggJoin *join;			/* a join's other tables (join.c), or NULL */
	struct GpuaggFetch *fetch;	/* columns fetched by a primary key, or NULL */
	/* a parallel GpuAgg's shared scan state of each (in the DSM), else NULL */
	ParallelTableScanDesc *pscans;
	/* ... a fed GpuAgg's of each joined table the device scans, else NULL */
	ParallelTableScanDesc dimscans[GA_MAX_DIMS];
	GpuaggBlockLog *blocklogs;	/* [nrels]: the blocks this process took */
	bool		injected;		/* this run failed by gpuagg.debug_fail_batch */
	bool		join_rerun;		/* the run ended: the host matches the join */
	struct GpuaggSharedCounters *shared;	/* the processes' counters (DSM) */
	struct GpuaggSharedCounters *collected; /* the leader's copy, after */
	GpuaggMapCache *map_cache;	/* the values of keys the host maps, shared
								 * by the processes (parallel.c), or NULL */

	/* per run */
	MemoryContext run_cxt;
	GpuaggDict *dict;			/* the run's strings */
	MemoryContextCallback close_cb;
	void	   *session;
	bool		done;			/* aggregation finished, groups in result */
	GaResult	result;
	uint32	   *setof;			/* grouping sets: each group's set */
	uint64		next_group;

	/* shown by EXPLAIN ANALYZE, summed over runs */
	GpuaggCounters counters;
} GpuAggState;

/*
 * A parallel GpuAgg's counters: one slot per worker (the leader keeps its
 * own in its state), in the DSM after the parallel scan state; each worker
 * writes its own when its aggregation is done -- before it returns a group, so before
 * Gather can have read everything -- and the leader copies them out at
 * shutdown for EXPLAIN ANALYZE.
 */
typedef struct GpuaggSharedCounters
{
	int			nslots;
	Size		feed_off;		/* fed GpuAgg: its GpuaggFeed, from here */
	/* a partial GpuAgg whose host maps group keys: their values (parallel.c) */
	bool		map_on;			/* the processes share them */
	int			map_processes;	/* the leader and its workers */
	Size		map_limit;		/* bytes it may keep */
	pg_atomic_uint64 map_bytes; /* bytes it holds (chunks whole) */
	pg_atomic_uint64 map_slots; /* its MapSlots, or InvalidDsaPointer */
	pg_atomic_uint32 map_creating;	/* a process makes (or made) them */
	pg_atomic_uint64 map_chunks;	/* the chunks' list */
	GpuaggCounters slot[FLEXIBLE_ARRAY_MEMBER];
} GpuaggSharedCounters;

/* Milliseconds since start. */
static inline double
GpuaggMsSince(instr_time start)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, start);
	return INSTR_TIME_GET_MILLISEC(now);
}

/* The pages a reader referred to (page form; none in column form), counted. */
static inline void
GpuaggCountPages(GpuAggState *st, GpuaggBatchReader *reader)
{
	uint64		pages,
				all_visible;

	GpuaggBatchPageCounts(reader, &pages, &all_visible);
	st->counters.pages += pages;
	st->counters.pages_all_visible += all_visible;
}

/* topn.c */
extern void GpuaggTopNInit(GpuaggTopN *t, List *topn);
extern void GpuaggTopNForDevice(const GpuaggTopN *t, GpuaggProgram *prog);
/*
 * Find the run's bound (res: its groups); returns the number of groups
 * that go out where count_kept (a pass over all of them), else 0.
 */
extern uint64 GpuaggTopNBound(GpuaggTopN *t, const GaProgram *prog, const GaResult *res,
							  bool count_kept);
/* Does group g go out? */
extern bool GpuaggTopNKeeps(const GpuaggTopN *t, uint64 g);

/* parallel.c: the DSM callbacks */
extern Size GpuaggEstimateDSM(CustomScanState *node, ParallelContext *pcxt);
extern void GpuaggInitializeDSM(CustomScanState *node, ParallelContext *pcxt,
								void *coordinate);
extern void GpuaggReinitializeDSM(CustomScanState *node, ParallelContext *pcxt,
								  void *coordinate);
extern void GpuaggInitializeWorker(CustomScanState *node, shm_toc *toc,
								   void *coordinate);
extern void GpuaggShutdown(CustomScanState *node);
/* a parallel worker's counters, for the leader's EXPLAIN ANALYZE */
extern void GpuaggShareCounters(GpuAggState *st);
/* the processes' shared values of keys the host maps, or NULL */
extern GpuaggMapCache *GpuaggMapCacheOf(GpuAggState *st);

/* parallel.c: a fed GpuAgg (GpuaggPlanInfo.feed) */
extern bool GpuaggFeedLeaderless(GpuAggState *st);
extern void GpuaggFeedPages(GpuAggState *st);
extern void GpuaggFeedConsumed(GpuAggState *st, int k);
extern void GpuaggFeedStop(GpuAggState *st);
extern void GpuaggFeedGiveUp(GpuAggState *st);
extern void GpuaggFeedPhase(GpuAggState *st, int d);
extern const GaBatch *GpuaggTakeFedBatch(GpuAggState *st, GpuaggBatchReader *reader,
										 char *buf, uint64 *bytes, int *from, int d);

/* explain.c */
extern void GpuaggExplain(CustomScanState *node, List *ancestors, ExplainState *es);

#endif							/* GPUAGG_EXEC_H */
