/*-------------------------------------------------------------------------
 *
 * exec.c
 *		The GpuAgg executor node: scan, aggregate on a device, emit groups.
 *
 * State machine: Begin compiles the program from the plan (host work only;
 * EXPLAIN without ANALYZE stops there and touches no device).  The first
 * Exec call drains the scan -- parameters evaluated into the program's
 * constants, a device session opened, batches in, finish -- and the
 * following calls emit one group per call; HAVING and the final projection
 * are the ordinary CustomScan qual and projection (ExecScan).  ReScan with
 * changed parameters starts over; without, it rewinds the groups.
 *
 * Everything a run allocates lives in run_cxt, whose reset callback closes
 * the device session, so an ERROR or cancel mid-query releases the device
 * as the transaction aborts.
 *
 * When the device itself fails (no driver, an allocation refused, a CUDA
 * error), nothing has been emitted yet -- groups are emitted only after the
 * whole scan -- so the run starts over on the CPU device, with a WARNING.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/explain.h"
#include "executor/executor.h"
#include "access/parallel.h"
#include "access/xact.h"
#include "lib/binaryheap.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "pgstat.h"
#include "portability/instr_time.h"
#include "postmaster/bgworker.h"
#include "rewrite/rewriteManip.h"
#include "storage/condition_variable.h"
#include "storage/spin.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"
#include "utils/sortsupport.h"
#include "utils/typcache.h"

#include "batch.h"
#include "device.h"
#include "gpuagg.h"
#include "ledger.h"
#include "program.h"
#include "result.h"
#include "stat.h"

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
	double		wait_ms;		/* blocked in calls to the device while scanning */
	double		finish_ms;		/* the device's last work, the groups back and
								 * the strings it coded (page form) taken in */
	double		result_ms;
	GpuaggDeviceStats stats;
	uint64		ngroups;
	uint64		strings_coded;	/* page form: strings the device coded */
	uint64		column_reruns;	/* page form given up for a string the
								 * device could not read */
	uint64		groups_back;	/* under a top-N (GpuaggPlanInfo.topn): those the
								 * device sent back (GaTopN), */
	uint64		groups_returned;	/* and those the node returns */
} GpuaggCounters;

typedef struct GpuAggState
{
	CustomScanState css;

	/* from the plan */
	List	   *quals;
	List	   *keys;
	List	   *aggrefs;
	Index		varno;			/* varno of Vars in the lists above */
	double		est_groups;
	double		vram_estimate;
	int			batch_rows;
	const GpuaggDevice *device;
	bool		planned_cuda;	/* the plan chose the CUDA device */
	char	   *fallback;		/* why the planned device was abandoned */
	bool		no_pages;		/* page form given up (GA_ERR_STRING_BACK) */
	bool		feed;			/* parallel: the workers feed pages to the
								 * leader's session (GpuaggPlanInfo.feed) */
	bool		feed_failed;	/* ... and that run failed: the leader reads
								 * the whole table itself */
	ParallelContext *pcxt;		/* the leader's, for its workers' count */
	int			feed_next;		/* the worker to look at first */
	int			topn;			/* ORDER BY a count LIMIT topn above, or 0 */
	int			topn_agg;		/* ... that count's aggregate */
	bool		topn_desc;		/* ... DESC: the largest counts */
	binaryheap_comparator topn_worse;	/* ... > 0: count a ranks after b */
	int			ntie;			/* ... then ORDER BY these group keys */
	int		   *tie_key;		/* ... their indexes */
	Oid		   *tie_op;			/* ... their sort operators */
	SortSupport tie_ssup;		/* ... their orders */

	/* set up by Begin */
	GpuaggProgram *prog;
	List	   *param_states;	/* ExprState per parameter of the program */
	List	   *gating;			/* one-time quals, checked before the scan */
	ExprState  *gating_state;
	GpuaggFinal *finals;
	Node	   *aggcontext;		/* stand-in AggState for final functions */

	/* a parallel GpuAgg's shared scan state (in the DSM), else NULL */
	ParallelTableScanDesc pscan;
	GpuaggBlockLog blocklog;	/* the blocks this process took from it */
	bool		injected;		/* this run failed by gpuagg.debug_fail_batch */
	struct GpuaggSharedCounters *shared;	/* the processes' counters (DSM) */
	struct GpuaggSharedCounters *collected; /* the leader's copy, after */

	/* per run */
	MemoryContext run_cxt;
	GpuaggDict *dict;			/* the run's strings */
	MemoryContextCallback close_cb;
	void	   *session;
	bool		done;			/* aggregation finished, groups in result */
	GaResult	result;
	uint64		next_group;
	const uint64 *topn_count;	/* the run's counts, when a top-N bounds */
	uint64		topn_bound;		/* ... the group ranking last it returns */

	/* shown by EXPLAIN ANALYZE, summed over runs */
	GpuaggCounters counters;
} GpuAggState;

/*
 * A parallel GpuAgg's counters: one slot per process (the leader's last),
 * in the DSM after the parallel scan state; each process writes its own
 * when its aggregation is done -- before it returns a group, so before
 * Gather can have read everything -- and the leader copies them out at
 * shutdown for EXPLAIN ANALYZE.
 */
typedef struct GpuaggSharedCounters
{
	int			nslots;
	Size		feed_off;		/* fed GpuAgg: its GpuaggFeed, from here */
	GpuaggCounters slot[FLEXIBLE_ARRAY_MEMBER];
} GpuaggSharedCounters;

/*
 * A fed GpuAgg (GpuaggPlanInfo.feed): each worker pins its share of the
 * parallel scan's pages and puts the batch's page lists in its buffer (one
 * batch at a time); the leader copies them into its device's buffer, sends
 * them, and counts a worker's batch consumed once the device is done with
 * its pages (its next add_batch, or finish, returned) -- only then does
 * the worker unpin them.  The leader's device thus aggregates every group
 * once, while the pinning is shared.
 *
 * A leader that cannot go on (its device failed, a string sent the scan
 * back, or it takes no page form) sets stop, closes its session -- after
 * which its device reads no page -- and sets drained; the workers unpin and
 * return nothing, and the leader reads the whole table again by itself.
 * The groups are emitted by the leader only, after every worker is at eof.
 */
typedef struct GpuaggFeeder
{
	uint64		published;		/* batches put in its buffer */
	uint64		taken;			/* of them, copied by the leader */
	uint64		consumed;		/* of them, done with by the leader's device */
	int			nrows;			/* the buffer's batch */
	int			npages;
	bool		eof;			/* no more batches */
} GpuaggFeeder;

typedef struct GpuaggFeed
{
	slock_t		mutex;
	ConditionVariable cv;
	bool		stop;			/* the leader takes no more batches */
	bool		drained;		/* ... and its device reads no page any more */
	bool		leaderless;		/* parallel_leader_participation was off when
								 * the plan ran: worker 0 reads the whole
								 * table and returns the groups */
	int			nfeeders;
	Size		refs_bytes;		/* of a worker's buffer */
	GpuaggFeeder feeder[FLEXIBLE_ARRAY_MEMBER];
	/* then a buffer per worker */
} GpuaggFeed;

#define FEED_BUFFERS_OFF(n) \
	TYPEALIGN(16, offsetof(GpuaggFeed, feeder) + sizeof(GpuaggFeeder) * (n))

static GpuaggFeed *feed_of(GpuAggState *st);
static char *feed_buffer(GpuaggFeed *f, int k);
static int	count_worse_desc(Datum a, Datum b, void *arg);
static int	count_worse_asc(Datum a, Datum b, void *arg);

static void gpuagg_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *gpuagg_exec(CustomScanState *node);
static void gpuagg_end(CustomScanState *node);
static void gpuagg_rescan(CustomScanState *node);
static void gpuagg_explain(CustomScanState *node, List *ancestors,
						   ExplainState *es);
static Size gpuagg_estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
static void gpuagg_initialize_dsm(CustomScanState *node, ParallelContext *pcxt,
								  void *coordinate);
static void gpuagg_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt,
									void *coordinate);
static void gpuagg_initialize_worker(CustomScanState *node, shm_toc *toc,
									 void *coordinate);
static void gpuagg_shutdown(CustomScanState *node);

static const CustomExecMethods gpuagg_exec_methods = {
	.CustomName = "GpuAgg",
	.BeginCustomScan = gpuagg_begin,
	.ExecCustomScan = gpuagg_exec,
	.EndCustomScan = gpuagg_end,
	.ReScanCustomScan = gpuagg_rescan,
	.EstimateDSMCustomScan = gpuagg_estimate_dsm,
	.InitializeDSMCustomScan = gpuagg_initialize_dsm,
	.ReInitializeDSMCustomScan = gpuagg_reinitialize_dsm,
	.InitializeWorkerCustomScan = gpuagg_initialize_worker,
	.ShutdownCustomScan = gpuagg_shutdown,
	.ExplainCustomScan = gpuagg_explain,
};

Node *
GpuaggCreateScanState(CustomScan *cscan)
{
	GpuAggState *st = (GpuAggState *) newNode(sizeof(GpuAggState),
											  T_CustomScanState);
	GpuaggPlanInfo info;

	GpuaggDeformPlanInfo(cscan->custom_private, &info);
	st->css.methods = &gpuagg_exec_methods;
	st->quals = info.quals;
	st->keys = info.keys;
	st->aggrefs = info.aggrefs;
	st->varno = info.varno;
	st->est_groups = info.groups;
	st->vram_estimate = info.vram;
	st->batch_rows = info.batch_rows;
	st->feed = info.feed;
	if (info.topn != NIL)
	{
		List	   *topn = info.topn;
		List	   *ties = lfourth(topn);
		List	   *idx = linitial(ties);

		st->topn = intVal(linitial(topn));
		st->topn_agg = intVal(lsecond(topn));
		st->topn_desc = intVal(lthird(topn)) != 0;
		st->topn_worse = st->topn_desc ? count_worse_desc : count_worse_asc;
		st->ntie = list_length(idx);
		st->tie_key = palloc(sizeof(int) * Max(st->ntie, 1));
		st->tie_op = palloc(sizeof(Oid) * Max(st->ntie, 1));
		st->tie_ssup = palloc0(sizeof(SortSupportData) * Max(st->ntie, 1));
		for (int i = 0; i < st->ntie; i++)
		{
			SortSupport ssup = &st->tie_ssup[i];

			st->tie_key[i] = list_nth_int(idx, i);
			st->tie_op[i] = list_nth_oid(lsecond(ties), i);
			ssup->ssup_cxt = CurrentMemoryContext;
			ssup->ssup_collation = list_nth_oid(lthird(ties), i);
			ssup->ssup_nulls_first = list_nth_int(lfourth(ties), i) != 0;
			PrepareSortSupportFromOrderingOp(st->tie_op[i], ssup);
		}
	}
	switch (info.device)
	{
		case GPUAGG_DEVICE_CPU:
			st->device = &GpuaggCpuDevice;
			break;
		case GPUAGG_DEVICE_CUDA:
			st->device = &GpuaggCudaDevice;
			st->planned_cuda = true;
			break;
		default:
			elog(ERROR, "gpuagg: plan names an unknown device");
	}
	return (Node *) st;
}

/*
 * The top-N as the device is to choose its groups (GaTopN): the count, and
 * the tie keys (planner.c's, each group key once, so no more than
 * GA_MAX_KEYS; the arrays' bound is checked all the same) up to the first
 * whose order the device does not know (a type gpuagg_topn.h does not encode, or an order
 * other than its type's default).  Fewer tie keys only return more groups
 * to the host's heap.
 */
static void
device_topn(GpuAggState *st)
{
	GaTopN	   *t = &st->prog->ga.topn;

	memset(t, 0, sizeof(GaTopN));
	if (st->topn <= 0)
		return;
	t->n = (uint64) st->topn;
	t->slot = st->prog->ga.aggs[st->topn_agg].slot;
	t->desc = st->topn_desc;
	for (int i = 0; i < st->ntie; i++)
	{
		int			k = st->tie_key[i];
		Oid			type = getBaseType(st->prog->keytypid[k]);
		TypeCacheEntry *tc;

		if (i == GA_MAX_KEYS)
			return;
		switch (type)
		{
			case BOOLOID:
			case INT2OID:
			case INT4OID:
			case INT8OID:
			case FLOAT4OID:
			case FLOAT8OID:
			case DATEOID:
			case TIMESTAMPOID:
			case TIMESTAMPTZOID:
				break;
			default:
				return;
		}
		tc = lookup_type_cache(type, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
		if (st->tie_op[i] != tc->lt_opr && st->tie_op[i] != tc->gt_opr)
			return;
		t->key[i] = k;
		t->keydesc[i] = st->tie_op[i] == tc->gt_opr;
		t->nullsfirst[i] = st->tie_ssup[i].ssup_nulls_first;
		t->nties++;
	}
}

static void
gpuagg_begin(CustomScanState *node, EState *estate, int eflags)
{
	GpuAggState *st = (GpuAggState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	const char *reason;
	int			i,
				nparams;
	ListCell   *lc;

	st->prog = palloc(sizeof(GpuaggProgram));
	if (!GpuaggCompile(st->prog, st->quals, st->keys, st->aggrefs, &reason))
		elog(ERROR, "gpuagg: plan does not compile: %s", reason);
	device_topn(st);
	nparams = list_length(st->prog->params);
	if (nparams > list_length(cscan->custom_exprs))
		elog(ERROR, "gpuagg: plan parameters do not match its program");

	st->param_states = ExecInitExprList(list_copy_head(cscan->custom_exprs, nparams),
										&node->ss.ps);
	st->gating = list_copy_tail(cscan->custom_exprs, nparams);
	st->gating_state = ExecInitQual(st->gating, &node->ss.ps);
	st->finals = palloc0(sizeof(GpuaggFinal) * Max(st->prog->ga.naggs, 1));
	i = 0;
	foreach(lc, st->aggrefs)
	{
		GpuaggFinalInit(&st->finals[i], lfirst(lc), &st->prog->ga.aggs[i],
						estate->es_query_cxt);
		i++;
	}
	st->aggcontext = GpuaggMakeAggContext(node->ss.ps.ps_ExprContext);
	st->run_cxt = AllocSetContextCreate(estate->es_query_cxt, "GpuAgg run",
										ALLOCSET_DEFAULT_SIZES);
	(void) eflags;				/* EXPLAIN-only: nothing more happens */
}

/* Raise the ERROR PostgreSQL itself raises for a device error code. */
static void
raise_device_error(int err)
{
	switch (err)
	{
		case GA_ERR_INT2_RANGE:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("smallint out of range")));
			break;
		case GA_ERR_INT4_RANGE:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("integer out of range")));
			break;
		case GA_ERR_INT8_RANGE:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("bigint out of range")));
			break;
		case GA_ERR_DIV_ZERO:
			ereport(ERROR,
					(errcode(ERRCODE_DIVISION_BY_ZERO),
					 errmsg("division by zero")));
			break;
		case GA_ERR_FLOAT_OVERFLOW:
			float_overflow_error();
			break;
		case GA_ERR_FLOAT_UNDERFLOW:
			float_underflow_error();
			break;
		case GA_ERR_DATE_RANGE:
			ereport(ERROR,
					(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
					 errmsg("date out of range")));
			break;
		case GA_ERR_DATE_INFINITE:
			ereport(ERROR,
					(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
					 errmsg("cannot subtract infinite dates")));
			break;
		default:
			elog(ERROR, "gpuagg: device failed with error code %d", err);
	}
}

/* Milliseconds since start. */
static double
ms_since(instr_time start)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, start);
	return INSTR_TIME_GET_MILLISEC(now);
}

/*
 * The query whose device may still be reading the pages of page-form
 * batches (at most one per backend: a scan runs through its device in one
 * go, in run_on_device).  If the transaction or subtransaction aborts
 * meanwhile, its session is closed -- which waits for the kernels reading
 * pages -- before the abort releases the buffer pins: the device never
 * reads a page nobody has pinned.
 */
static GpuAggState *pages_in_flight;

/* Reset callback of run_cxt: the device session never outlives it. */
static void
close_session(void *arg)
{
	GpuAggState *st = (GpuAggState *) arg;

	if (pages_in_flight == st)
		pages_in_flight = NULL;
	if (st->session)
	{
		void	   *session = st->session;

		st->session = NULL;
		st->device->close(session);
	}
}

static void
drain_pages_at_abort(void)
{
	if (pages_in_flight)
	{
		GpuAggState *st = pages_in_flight;

		pages_in_flight = NULL;
		close_session(st);
	}
}

static void
exec_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		drain_pages_at_abort();
}

static void
exec_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					  SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		drain_pages_at_abort();
}

void
GpuaggExecInit(void)
{
	RegisterXactCallback(exec_xact_callback, NULL);
	RegisterSubXactCallback(exec_subxact_callback, NULL);
}

/* The pages a reader referred to (page form; none in column form), counted. */
static void
count_pages(GpuAggState *st, GpuaggBatchReader *reader)
{
	uint64		pages,
				all_visible;

	GpuaggBatchPageCounts(reader, &pages, &all_visible);
	st->counters.pages += pages;
	st->counters.pages_all_visible += all_visible;
}

/*---- a fed GpuAgg (GpuaggFeed) ----*/

/* Wait, checking for interrupts, until cond (read under the feed's lock). */
#define FEED_WAIT(f, cond) \
	do { \
		for (;;) \
		{ \
			bool		ok_; \
			SpinLockAcquire(&(f)->mutex); \
			ok_ = (cond); \
			SpinLockRelease(&(f)->mutex); \
			if (ok_) \
				break; \
			ConditionVariableTimedSleep(&(f)->cv, 100, PG_WAIT_EXTENSION); \
		} \
		ConditionVariableCancelSleep(); \
	} while (0)

/*
 * A worker of a fed GpuAgg: its share of the parallel scan's pages pinned,
 * a batch at a time, for the leader's device; returns when the leader's
 * device is done with all of them (and they are unpinned).
 */
static void
feed_pages(GpuAggState *st)
{
	GpuaggFeed *f = feed_of(st);
	int			me = ParallelWorkerNumber;
	GpuaggFeeder *fd;
	GpuaggBatchReader *reader;
	const GaBatch *batch;
	uint64		bytes;
	instr_time	t0;

	if (f == NULL || me < 0 || me >= f->nfeeders)
		elog(ERROR, "gpuagg: a parallel worker of a fed GpuAgg has no feed");
	fd = &f->feeder[me];
	/* no leader to feed: worker 0 reads the whole table (run_aggregation) */
	if (f->leaderless)
		return;
	reader = GpuaggBatchBegin(st->css.ss.ss_currentRelation, st->css.ss.ps.state->es_snapshot,
							  st->pscan, &st->blocklog, st->prog, st->batch_rows, st->dict, true);
	/* (no page form here: then no blocks either, the others take them) */
	while (GpuaggBatchMaxPages(reader) > 0)
	{
		/* its buffer free (the leader took the batch in it), or no more */
		INSTR_TIME_SET_CURRENT(t0);
		FEED_WAIT(f, fd->taken == fd->published || f->stop);
		st->counters.wait_ms += ms_since(t0);
		if (f->stop)
			break;
		INSTR_TIME_SET_CURRENT(t0);
		batch = GpuaggBatchNext(reader, feed_buffer(f, me), &bytes);
		st->counters.scan_ms += ms_since(t0);
		if (batch == NULL)
			break;
		SpinLockAcquire(&f->mutex);
		fd->nrows = batch->nrows;
		fd->npages = batch->npages;
		fd->published++;
		SpinLockRelease(&f->mutex);
		ConditionVariableBroadcast(&f->cv);

		/* its previous batch's pages, once the device is done with them, go */
		INSTR_TIME_SET_CURRENT(t0);
		FEED_WAIT(f, fd->consumed + 1 >= fd->published || f->stop);
		st->counters.wait_ms += ms_since(t0);
		if (f->stop)
			break;
		GpuaggBatchSent(reader);
	}
	SpinLockAcquire(&f->mutex);
	fd->eof = true;
	SpinLockRelease(&f->mutex);
	ConditionVariableBroadcast(&f->cv);
	/* every page the leader's device may still read stays pinned till then */
	FEED_WAIT(f, fd->consumed >= fd->published || f->drained);
	count_pages(st, reader);
	GpuaggBatchEnd(reader);
}

/* The leader's device is done with the pages of worker k's oldest batch. */
static void
feed_consumed(GpuAggState *st, int k)
{
	GpuaggFeed *f = feed_of(st);

	if (k < 0)
		return;
	SpinLockAcquire(&f->mutex);
	f->feeder[k].consumed++;
	SpinLockRelease(&f->mutex);
	ConditionVariableBroadcast(&f->cv);
}

/*
 * The leader takes no more batches and its device reads no page (its
 * session is closed, finished, or never opened): the workers stop and
 * unpin everything.
 */
static void
feed_stop(GpuAggState *st)
{
	GpuaggFeed *f = feed_of(st);

	if (f == NULL)
		return;
	SpinLockAcquire(&f->mutex);
	f->stop = true;
	f->drained = true;
	SpinLockRelease(&f->mutex);
	ConditionVariableBroadcast(&f->cv);
}

/*
 * A fed run that does not go on: the workers stop and unpin, and the leader
 * reads the whole table itself from now on (the blocks its workers took
 * are theirs).
 */
static void
feed_give_up(GpuAggState *st)
{
	st->feed_failed = true;
	feed_stop(st);
}

/*
 * The leader's next batch from its workers, made in buf (*from: whose), or
 * NULL once every worker is at eof with nothing left.  A worker that
 * stopped before eof either never fed (it counts as at eof) or left pages
 * the device may have read unpinned: an ERROR (its own ERROR, if it had
 * one, comes first, with the interrupts the wait checks).
 */
static const GaBatch *
take_fed_batch(GpuAggState *st, GpuaggBatchReader *reader, char *buf, uint64 *bytes, int *from)
{
	GpuaggFeed *f = feed_of(st);
	int			n = Min(f->nfeeders, st->pcxt->nworkers_launched);
	const GaBatch *batch = NULL;

	for (;;)
	{
		int			k = -1,
					nrows = 0,
					npages = 0;
		bool		all_eof = true;

		SpinLockAcquire(&f->mutex);
		for (int i = 0; i < n && k < 0; i++)
		{
			int			j = (st->feed_next + i) % n;
			GpuaggFeeder *fd = &f->feeder[j];

			if (fd->published > fd->taken)
			{
				k = j;
				nrows = fd->nrows;
				npages = fd->npages;
			}
			else if (!fd->eof)
				all_eof = false;
		}
		SpinLockRelease(&f->mutex);
		if (k >= 0)
		{
			batch = GpuaggBatchFromFeed(reader, buf, feed_buffer(f, k), nrows, npages, bytes);
			SpinLockAcquire(&f->mutex);
			f->feeder[k].taken++;
			SpinLockRelease(&f->mutex);
			ConditionVariableBroadcast(&f->cv);
			st->feed_next = k + 1;
			*from = k;
			break;
		}
		if (all_eof)
			break;
		/* a worker's ERROR first, before one that stopped counts as done */
		CHECK_FOR_INTERRUPTS();
		for (int j = 0; j < n; j++)
		{
			pid_t		pid;
			bool		gone;

			if (st->pcxt->worker[j].bgwhandle == NULL ||
				GetBackgroundWorkerPid(st->pcxt->worker[j].bgwhandle, &pid) != BGWH_STOPPED)
				continue;
			SpinLockAcquire(&f->mutex);
			gone = !f->feeder[j].eof;
			if (gone && f->feeder[j].published == 0)
			{
				f->feeder[j].eof = true;
				gone = false;
			}
			SpinLockRelease(&f->mutex);
			if (gone)
				ereport(ERROR,
						(errcode(ERRCODE_INTERNAL_ERROR),
						 errmsg("gpuagg: parallel worker %d stopped while it fed pages", j)));
		}
		ConditionVariableTimedSleep(&f->cv, 10, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();
	return batch;
}

/* A new run: nothing of the last one (its groups, its strings) is kept. */
static void
start_run(GpuAggState *st)
{
	MemoryContextReset(st->run_cxt);
	memset(&st->result, 0, sizeof(st->result));
	st->dict = GpuaggDictCreate(st->run_cxt);
}

/* A run given up: its work does not count, its wait for device memory does. */
static void
discard_run(GpuAggState *st, const GpuaggCounters *before)
{
	double		waited = st->counters.stats.admission_ms - before->stats.admission_ms;

	st->counters = *before;
	st->counters.stats.admission_ms += waited;
}

/*
 * Top-N's order of groups (indexes into the run's result), as binaryheap
 * compares: > 0 when group a ranks after group b, by its count, then by the
 * tie keys.
 */
static int
group_worse(Datum a, Datum b, void *arg)
{
	const GpuAggState *st = (const GpuAggState *) arg;
	const GaResult *res = &st->result;
	uint64		ga = (uint64) a;
	uint64		gb = (uint64) b;
	int			c = st->topn_worse((Datum) st->topn_count[ga], (Datum) st->topn_count[gb],
								   NULL);

	for (int i = 0; i < st->ntie && c == 0; i++)
	{
		int			k = st->tie_key[i];
		int			type = st->prog->ga.keytype[k];
		Size		at = (Size) k * res->ngroups;
		bool		na = res->keynulls[at + ga];
		bool		nb = res->keynulls[at + gb];

		/* by value (planner.c's topn_tie_keys): no dictionary, no palloc */
		c = ApplySortComparator(na ? (Datum) 0 : GpuaggKeyDatum(res->keys[at + ga], type, NULL), na,
								nb ? (Datum) 0 : GpuaggKeyDatum(res->keys[at + gb], type, NULL), nb,
								&st->tie_ssup[i]);
	}
	return c;
}

static inline bool
topn_keeps(const GpuAggState *st, uint64 g)
{
	return group_worse((Datum) g, (Datum) st->topn_bound, (void *) st) <= 0;
}

StaticAssertDecl(SIZEOF_DATUM == 8, "a count fits a Datum");

/* Top-N's order of counts, as binaryheap compares: > 0 when a ranks after b */
static int
count_worse_desc(Datum a, Datum b, void *arg)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

static int
count_worse_asc(Datum a, Datum b, void *arg)
{
	return a > b ? 1 : a < b ? -1 : 0;
}

/*
 * Under ORDER BY a count [, group keys] LIMIT n (GpuaggPlanInfo.topn), of many
 * groups only those that rank with the n-th or before it need go out, ties
 * included: the Sort and Limit above pick from them exactly as from all.
 * One pass with a heap of the n groups best so far; the bound is its top.
 */
static void
topn_bound(GpuAggState *st)
{
	const GaResult *res = &st->result;
	uint64		n = (uint64) st->topn;
	uint64		top;
	binaryheap *heap;

	st->topn_count = NULL;
	if (st->topn <= 0)
		return;
	/* a group's overflow error is raised when it is finished: all go out */
	if (res->ngroups <= n || GpuaggAnyFloatOverflow(&st->prog->ga, res))
	{
		st->counters.groups_returned += res->ngroups;
		return;
	}
	st->topn_count = res->states + (Size) st->prog->ga.aggs[st->topn_agg].slot * res->ngroups;
	/* the heap's top is the group ranking last of those kept */
	heap = binaryheap_allocate(st->topn, group_worse, st);
	for (uint64 g = 0; g < n; g++)
		binaryheap_add_unordered(heap, (Datum) g);
	binaryheap_build(heap);
	top = (uint64) binaryheap_first(heap);
	for (uint64 g = n; g < res->ngroups; g++)
	{
		if (group_worse((Datum) top, (Datum) g, st) > 0)
		{
			binaryheap_replace_first(heap, (Datum) g);
			top = (uint64) binaryheap_first(heap);
		}
	}
	binaryheap_free(heap);
	st->topn_bound = top;
	/* a pass over every group, for EXPLAIN ANALYZE's Groups Returned only */
	if (st->css.ss.ps.instrument)
		for (uint64 g = 0; g < res->ngroups; g++)
			st->counters.groups_returned += topn_keeps(st, g);
}

/*
 * The run is done and its groups may go out; a parallel worker leaves its
 * counters for the leader's EXPLAIN ANALYZE.
 */
static void
end_run(GpuAggState *st)
{
	topn_bound(st);
	if (st->shared && IsParallelWorker() && ParallelWorkerNumber < st->shared->nslots)
		st->shared->slot[ParallelWorkerNumber] = st->counters;
	st->next_group = 0;
	st->done = true;
}

/*
 * One run of the scan through the current device.  Returns false when the
 * device itself failed (GA_ERR_DEVICE), with *why set; SQL errors the
 * device reports are raised here.
 */
static bool
run_on_device(GpuAggState *st, char **why)
{
	Relation	rel = st->css.ss.ss_currentRelation;
	EState	   *estate = st->css.ss.ps.state;
	const GpuaggDevice *dev = st->device;
	GpuaggEstimate est;
	GpuaggBatchReader *reader;
	const GaBatch *batch;
	uint64		bytes;
	instr_time	t0;
	int			err = GA_OK;
	bool		reader_skip = false;
	bool		replayable;
	bool		pages_ok = gpuagg_page_batches && !st->no_pages && dev->takes_pages();

	/*
	 * A fed GpuAgg's leader takes its workers' batches (its own reader only
	 * lays them out); without workers, after a failed run, or without page
	 * form, it reads the whole table itself.
	 */
	bool		fed = st->feed && !st->feed_failed && st->pcxt &&
		st->pcxt->nworkers_launched > 0 && pages_ok;
	int			from = -1,
				prev_from = -1;

	if (st->feed && !fed)
		feed_give_up(st);		/* (its workers, if any, return nothing) */
	reader = GpuaggBatchBegin(rel, estate->es_snapshot,
							  fed || st->feed_failed ? NULL : st->pscan, &st->blocklog,
							  st->prog, st->batch_rows, st->dict, pages_ok);
	if (fed && GpuaggBatchMaxPages(reader) == 0)
	{
		/* no page form after all */
		fed = false;
		feed_give_up(st);
	}
	memset(&est, 0, sizeof(est));
	/* page form with strings: the device's dictionary starts with ours */
	if (GpuaggBatchPageStrings(reader))
	{
		est.seed = GpuaggDictSerialize(st->dict, GA_SEED_MAX, &est.seed_bytes);
		est.nseed = GpuaggDictCount(st->dict);
		if (est.seed == NULL)
		{
			est.nseed = 0;
			GpuaggBatchNoPages(reader);
			if (fed)
			{
				fed = false;
				feed_give_up(st);
			}
		}
	}
	est.groups = st->est_groups;
	est.batch_rows = st->batch_rows;
	est.batch_bytes = GpuaggBatchBufferSize(reader);
	est.batch_host_bytes = GpuaggBatchHostSize(reader);
	est.vram_budget = GpuaggVramBudget();
	est.vram_estimate = st->vram_estimate;
	est.max_pages = GpuaggBatchMaxPages(reader);

	INSTR_TIME_SET_CURRENT(t0);
	st->session = dev->open(&st->prog->ga, &est, st->run_cxt, &st->counters.stats, why);
	st->counters.open_ms += ms_since(t0);
	if (st->session == NULL)
	{
		GpuaggBatchEnd(reader);
		if (fed)
			feed_give_up(st);
		return false;
	}
	st->close_cb.func = close_session;
	st->close_cb.arg = st;
	MemoryContextRegisterResetCallback(st->run_cxt, &st->close_cb);

	/* the one-time filter: when it fails, the scan has no rows */
	if (st->gating_state &&
		!ExecQual(st->gating_state, st->css.ss.ps.ps_ExprContext))
		reader_skip = true;
	while (!reader_skip && (fed || !GpuaggBatchDone(reader)))
	{
		char	   *buf;

		CHECK_FOR_INTERRUPTS();
		INSTR_TIME_SET_CURRENT(t0);
		buf = dev->batch_buffer(st->session, est.batch_bytes);
		st->counters.wait_ms += ms_since(t0);
		if (buf == NULL)
		{
			err = GA_ERR_DEVICE;
			break;
		}
		INSTR_TIME_SET_CURRENT(t0);
		batch = fed ? take_fed_batch(st, reader, buf, &bytes, &from) :
			GpuaggBatchNext(reader, buf, &bytes);
		st->counters.scan_ms += ms_since(t0);
		if (batch == NULL)
			break;
		st->counters.nbatches++;
		/* test: a device failure in the middle of the scan */
		if (gpuagg_debug_fail_batch > 0 && st->fallback == NULL &&
			st->counters.nbatches >= (uint64) gpuagg_debug_fail_batch)
		{
			/* (this batch's pins go with the reader; the last sent's below) */
			st->injected = true;
			err = GA_ERR_DEVICE;
			break;
		}
		st->counters.bytes_in += bytes;
		INSTR_TIME_SET_CURRENT(t0);
		err = dev->add_batch(st->session, batch, &st->counters.stats);
		st->counters.wait_ms += ms_since(t0);
		if (err != GA_OK)
			break;
		if (batch->pagelist)
		{
			/*
			 * The device reads this batch's pages while the next one is
			 * filled; it is done with the previous batch's, which go (a
			 * worker's: it unpins them).
			 */
			pages_in_flight = st;
			if (fed)
			{
				feed_consumed(st, prev_from);
				prev_from = from;
			}
			else
				GpuaggBatchSent(reader);
			st->counters.page_batches++;
		}
	}
	count_pages(st, reader);
	if (err == GA_OK)
	{
		INSTR_TIME_SET_CURRENT(t0);
		err = dev->finish(st->session, &st->result, &st->counters.stats);
		st->counters.finish_ms += ms_since(t0);
	}
	if (err == GA_ERR_DEVICE)
		*why = st->injected ?
			psprintf("failed on purpose after %d batches (gpuagg.debug_fail_batch)",
					 gpuagg_debug_fail_batch) :
			pstrdup(dev->error_detail ? dev->error_detail(st->session) :
					"device failure");
	replayable = GpuaggBatchReplayable(reader);

	/*
	 * The groups are on the host once finished: the device session and its
	 * reservation in the ledger go now, not when the node ends (an open
	 * cursor would hold GPU memory for as long as it stays open).  After a
	 * failure it closes too, which waits for any kernel still reading pages.
	 */
	close_session(st);
	pages_in_flight = NULL;
	GpuaggBatchEnd(reader);
	if (fed && err == GA_OK)
		feed_stop(st);			/* the device reads no page any more */
	else if (fed)
		feed_give_up(st);
	/* a parallel scan runs again only where it can read its blocks again */
	if (err == GA_ERR_DEVICE && !replayable)
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("gpuagg: the %s device failed in a parallel scan that cannot be run again",
						dev->name),
				 errdetail("%s", *why)));
	if (err == GA_ERR_DEVICE)
		return false;
	if (err == GA_ERR_STRING_BACK)
	{
		*why = pstrdup("a string value the device could not read from the page");
		st->no_pages = true;
		return false;
	}
	if (err != GA_OK)
		raise_device_error(err);
	/* page form with strings: the device's strings continue our codes */
	INSTR_TIME_SET_CURRENT(t0);
	if (st->result.nstrings > 0)
		GpuaggDictLoad(st->dict, st->result.strings_first, st->result.nstrings,
					   st->result.strlen, st->result.strat, st->result.strbytes,
					   st->result.nstrbytes);
	st->counters.strings_coded += st->result.nstrings;
	GpuaggPickStringExtremes(&st->prog->ga, &st->result, st->dict);
	st->counters.finish_ms += ms_since(t0);
	return true;
}

/* Add milliseconds to a microsecond counter of gpuagg.stat. */
static void
add_ms(GpuaggStatCounter which, double ms)
{
	if (ms > 0)
		GpuaggStatAdd(which, (uint64) (ms * 1000.0));
}

/* Drain the scan through the device; the groups land in st->result. */
static void
run_aggregation(GpuAggState *st)
{
	MemoryContext old;
	char	   *why = NULL;
	GpuaggCounters before = st->counters;

	old = MemoryContextSwitchTo(st->run_cxt);
	/* this execution's share of a parallel scan starts empty */
	st->blocklog.nranges = 0;
	st->blocklog.have_worker = false;
	st->blocklog.cxt = st->css.ss.ps.state->es_query_cxt;
	st->injected = false;
	/*
	 * A fed GpuAgg's worker pins pages for the leader and returns nothing;
	 * without the leader, worker 0 does what the leader would have done.
	 */
	if (st->feed && IsParallelWorker() && feed_of(st) && feed_of(st)->leaderless &&
		ParallelWorkerNumber == 0)
		st->feed_failed = true;
	else if (st->feed && IsParallelWorker())
	{
		start_run(st);
		feed_pages(st);
		end_run(st);
		MemoryContextSwitchTo(old);
		return;
	}
	for (;;)
	{
		bool		had_pages = !st->no_pages;

		start_run(st);
		for (uint32 a = 0; a < st->prog->ga.naggs; a++)
			st->finals[a].dict = st->dict;
		GpuaggLoadParams(st->prog, st->param_states, st->css.ss.ps.ps_ExprContext, st->dict);
		if (run_on_device(st, &why))
			break;
		if (had_pages && st->no_pages)
		{
			/*
			 * A compressed or TOASTed string in page form: the scan again
			 * in column form on the same device, the host reading every
			 * string.  The work so far does not count.
			 */
			discard_run(st, &before);
			st->counters.column_reruns++;
			continue;
		}
		if (!st->device->gpu && !st->injected)
			elog(ERROR, "gpuagg: the CPU device failed: %s", why);
		/*
		 * One WARNING a query, with the real cause as its message: a
		 * parallel worker's goes to the log only (DEBUG1), since its leader
		 * meets the same missing service or memory and says it once.
		 */
		if (st->counters.stats.no_memory)
			ereport(IsParallelWorker() ? DEBUG1 : WARNING,
					(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
					 errmsg("gpuagg: no GPU memory for the query, running it on the CPU device"),
					 errdetail("%s", why)));
		else if (st->counters.stats.no_service)
			ereport(IsParallelWorker() ? DEBUG1 : WARNING,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("gpuagg: no usable GPU, running the query on the CPU device: %s", why)));
		else
			ereport(IsParallelWorker() ? DEBUG1 : WARNING,
					(errcode(ERRCODE_SYSTEM_ERROR),
					 errmsg("gpuagg: the %s device failed, running the query on the CPU device",
							st->device->name),
					 errdetail("%s", why)));
		GpuaggStatAdd(st->counters.stats.no_memory ? GSTAT_FALLBACKS_ADMISSION :
					  st->counters.stats.no_service ? GSTAT_FALLBACKS_SERVICE :
					  GSTAT_FALLBACKS_DEVICE, 1);
		st->fallback = MemoryContextStrdup(st->css.ss.ps.state->es_query_cxt, why);
		st->device = &GpuaggCpuDevice;
		discard_run(st, &before);
	}
	st->counters.ngroups += st->result.groups_all;
	st->counters.groups_back += st->result.ngroups;

	/* the server-wide statistics: this run's share (a query counts once) */
	if (!IsParallelWorker())
		GpuaggStatAdd(st->device->gpu ? GSTAT_QUERIES_CUDA : GSTAT_QUERIES_CPU, 1);
	GpuaggStatAdd(GSTAT_ROWS_IN, st->counters.stats.rows_in - before.stats.rows_in);
	GpuaggStatAdd(GSTAT_BYTES_TO_DEVICE, st->counters.bytes_in - before.bytes_in);
	add_ms(GSTAT_ADMISSION_US, st->counters.stats.admission_ms - before.stats.admission_ms);
	add_ms(GSTAT_SCAN_US, st->counters.scan_ms - before.scan_ms);
	add_ms(GSTAT_TRANSFER_US, st->counters.stats.transfer_ms - before.stats.transfer_ms);
	add_ms(GSTAT_DEVICE_US, st->counters.stats.device_ms - before.stats.device_ms);
	end_run(st);
	MemoryContextSwitchTo(old);
}

/* ExecScan access method: the next group as a virtual tuple. */
static TupleTableSlot *
gpuagg_next(ScanState *node)
{
	GpuAggState *st = (GpuAggState *) node;
	TupleTableSlot *slot = node->ss_ScanTupleSlot;
	MemoryContext old;
	uint64		g;
	int			nkeys;
	bool		timed;
	instr_time	t0;

	if (!st->done)
		run_aggregation(st);

	ExecClearTuple(slot);
	if (st->topn_count)
		while (st->next_group < st->result.ngroups && !topn_keeps(st, st->next_group))
			st->next_group++;
	if (st->next_group >= st->result.ngroups)
		return slot;
	g = st->next_group++;
	nkeys = st->prog->ga.nkeys;

	/*
	 * Two clock readings a group cost more than the group where the clock
	 * is dear: read only for EXPLAIN ANALYZE's timing.
	 */
	timed = node->ps.instrument && node->ps.instrument->need_timer;
	if (timed)
		INSTR_TIME_SET_CURRENT(t0);
	old = MemoryContextSwitchTo(node->ps.ps_ExprContext->ecxt_per_tuple_memory);
	for (int k = 0; k < nkeys; k++)
	{
		Size		at = (Size) k * st->result.ngroups + g;

		slot->tts_isnull[k] = st->result.keynulls[at];
		slot->tts_values[k] = slot->tts_isnull[k] ? (Datum) 0 :
			GpuaggKeyDatum(st->result.keys[at], st->prog->ga.keytype[k], st->dict);
	}
	for (uint32 a = 0; a < st->prog->ga.naggs; a++)
		slot->tts_values[nkeys + a] =
			GpuaggFinalize(&st->finals[a], &st->result, g, st->aggcontext,
						   &slot->tts_isnull[nkeys + a]);
	MemoryContextSwitchTo(old);
	if (timed)
		st->counters.result_ms += ms_since(t0);
	return ExecStoreVirtualTuple(slot);
}

static bool
gpuagg_recheck(ScanState *node, TupleTableSlot *slot)
{
	return true;
}

static TupleTableSlot *
gpuagg_exec(CustomScanState *node)
{
	return ExecScan(&node->ss, gpuagg_next, gpuagg_recheck);
}

static void
gpuagg_end(CustomScanState *node)
{
	GpuAggState *st = (GpuAggState *) node;

	if (st->run_cxt)
		MemoryContextDelete(st->run_cxt);	/* closes the session */
	st->run_cxt = NULL;
	if (node->ss.ss_ScanTupleSlot)
		ExecClearTuple(node->ss.ss_ScanTupleSlot);
}

static void
gpuagg_rescan(CustomScanState *node)
{
	GpuAggState *st = (GpuAggState *) node;

	if (st->done && node->ss.ps.chgParam == NULL && !st->feed)
	{
		/*
		 * Same parameters: the groups are still right.  (Not for a fed
		 * GpuAgg, whose new workers wait for the leader to take their
		 * pages; Gather's rescan parameter makes a parallel node run again
		 * anyway.)
		 */
		st->next_group = 0;
		return;
	}
	MemoryContextReset(st->run_cxt);
	memset(&st->result, 0, sizeof(st->result));
	st->done = false;
}

/*
 * Parallel GpuAgg: the processes share one parallel heap scan (a block
 * counter in the DSM); each aggregates its blocks on its own device session
 * and returns partial states to Gather.
 */
/*
 * The DSM chunk: where the counters start, the parallel scan state, the
 * workers' counters.
 */
#define DSM_HEADER	MAXALIGN(sizeof(Size))

static Size
counters_bytes(int nworkers)
{
	return MAXALIGN(offsetof(GpuaggSharedCounters, slot) +
					sizeof(GpuaggCounters) * Max(nworkers, 1));
}

/* A fed GpuAgg's state and workers' buffers. */
static Size
feed_bytes(GpuAggState *st, int nworkers)
{
	if (!st->feed)
		return 0;
	return FEED_BUFFERS_OFF(nworkers) +
		TYPEALIGN(16, GpuaggBatchFeedBytes(&st->prog->ga)) * nworkers + 16;
}

static Size
gpuagg_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	GpuAggState *st = (GpuAggState *) node;

	return DSM_HEADER +
		MAXALIGN(table_parallelscan_estimate(node->ss.ss_currentRelation,
											 node->ss.ps.state->es_snapshot)) +
		counters_bytes(pcxt->nworkers) + feed_bytes(st, pcxt->nworkers);
}

static GpuaggFeed *
feed_of(GpuAggState *st)
{
	if (st->shared == NULL || st->shared->feed_off == 0)
		return NULL;
	return (GpuaggFeed *) ((char *) st->shared + st->shared->feed_off);
}

static char *
feed_buffer(GpuaggFeed *f, int k)
{
	return (char *) TYPEALIGN(16, (char *) f + FEED_BUFFERS_OFF(f->nfeeders)) +
		(Size) k * f->refs_bytes;
}

/* A fresh feed, nobody fed yet (the counters are reset with it). */
static void
feed_reset(GpuAggState *st, int nworkers)
{
	GpuaggFeed *f;

	memset(st->shared, 0, counters_bytes(nworkers));
	st->shared->nslots = nworkers;
	if (!st->feed)
		return;
	st->shared->feed_off = counters_bytes(nworkers);
	f = feed_of(st);
	memset(f, 0, offsetof(GpuaggFeed, feeder) + sizeof(GpuaggFeeder) * nworkers);
	SpinLockInit(&f->mutex);
	ConditionVariableInit(&f->cv);
	f->nfeeders = nworkers;
	f->refs_bytes = TYPEALIGN(16, GpuaggBatchFeedBytes(&st->prog->ga));
	/* (Gather reads the same setting when it decides to run this node) */
	f->leaderless = !parallel_leader_participation;
}

static void
gpuagg_initialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	GpuAggState *st = (GpuAggState *) node;
	Size		off = DSM_HEADER +
		MAXALIGN(table_parallelscan_estimate(node->ss.ss_currentRelation,
											 node->ss.ps.state->es_snapshot));

	*(Size *) coordinate = off;
	st->pscan = (ParallelTableScanDesc) ((char *) coordinate + DSM_HEADER);
	table_parallelscan_initialize(node->ss.ss_currentRelation, st->pscan,
								  node->ss.ps.state->es_snapshot);
	st->shared = (GpuaggSharedCounters *) ((char *) coordinate + off);
	st->pcxt = pcxt;
	feed_reset(st, pcxt->nworkers);
}

static void
gpuagg_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	GpuAggState *st = (GpuAggState *) node;

	table_parallelscan_reinitialize(node->ss.ss_currentRelation,
									(ParallelTableScanDesc) ((char *) coordinate + DSM_HEADER));
	st->pcxt = pcxt;
	/* a fed GpuAgg starts its feed anew (its workers are new) */
	if (st->feed && st->shared)
		feed_reset(st, pcxt->nworkers);
}

static void
gpuagg_initialize_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	GpuAggState *st = (GpuAggState *) node;

	st->pscan = (ParallelTableScanDesc) ((char *) coordinate + DSM_HEADER);
	st->shared = (GpuaggSharedCounters *) ((char *) coordinate + *(Size *) coordinate);
}

/* The leader keeps the workers' counters before the DSM goes away. */
static void
gpuagg_shutdown(CustomScanState *node)
{
	GpuAggState *st = (GpuAggState *) node;
	Size		size;

	if (st->shared == NULL || IsParallelWorker())
		return;
	size = offsetof(GpuaggSharedCounters, slot) + sizeof(GpuaggCounters) * st->shared->nslots;
	st->collected = MemoryContextAlloc(node->ss.ps.state->es_query_cxt, size);
	memcpy(st->collected, st->shared, size);
	st->shared = NULL;
}

/* Deparse an expression of the plan for EXPLAIN. */
static char *
deparse(GpuAggState *st, Node *expr, List *context, bool useprefix)
{
	Index		scanrelid = ((Scan *) st->css.ss.ps.plan)->scanrelid;

	expr = copyObject(expr);
	if (st->varno != scanrelid)
		ChangeVarNodes(expr, st->varno, scanrelid, 0);
	return deparse_expression(expr, context, useprefix, false);
}

static void
gpuagg_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	GpuAggState *st = (GpuAggState *) node;
	List	   *context;
	List	   *items = NIL;
	bool		useprefix = es->verbose;
	ListCell   *lc;

	context = set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan,
									   ancestors);
	ExplainPropertyText("Device", st->device->name, es);
	if (st->feed)
		ExplainPropertyText("Aggregation", "in the leader, its workers pinning pages for it", es);
	else if (st->css.ss.ps.plan->parallel_aware)
		ExplainPropertyText("Aggregation", "partial, in each process", es);
	if (st->fallback)
		ExplainPropertyText("Device Fallback", st->fallback, es);
	if (st->gating != NIL)
		ExplainPropertyText("One-Time Filter",
							deparse(st, (Node *) make_ands_explicit(st->gating),
									context, useprefix), es);
	if (st->quals != NIL)
		ExplainPropertyText("Device Filter",
							deparse(st, (Node *) make_ands_explicit(st->quals),
									context, useprefix), es);
	if (st->keys != NIL)
	{
		foreach(lc, st->keys)
			items = lappend(items, deparse(st, lfirst(lc), context, useprefix));
		ExplainPropertyList("Device Group Key", items, es);
	}
	items = NIL;
	foreach(lc, st->aggrefs)
		items = lappend(items, deparse(st, lfirst(lc), context, useprefix));
	ExplainPropertyList("Device Aggregates", items, es);
	if (st->topn > 0)
	{
		StringInfoData buf;

		/* as the Sort above shows its keys: DESC, and NULLS where not so */
		initStringInfo(&buf);
		appendStringInfo(&buf, "%s %s",
						 deparse(st, list_nth(st->aggrefs, st->topn_agg), context, useprefix),
						 st->topn_desc ? "DESC" : "ASC");
		for (int i = 0; i < st->ntie; i++)
		{
			const SortSupportData *ssup = &st->tie_ssup[i];

			appendStringInfo(&buf, ", %s%s",
							 deparse(st, list_nth(st->keys, st->tie_key[i]), context,
									 useprefix),
							 ssup->ssup_reverse ? " DESC" : "");
			if (ssup->ssup_nulls_first != ssup->ssup_reverse)
				appendStringInfoString(&buf, ssup->ssup_nulls_first ?
									   " NULLS FIRST" : " NULLS LAST");
		}
		appendStringInfo(&buf, ", %d groups and their ties", st->topn);
		ExplainPropertyText("Device Top-N", buf.data, es);
	}
	ExplainPropertyInteger("Device Memory Estimate", "kB",
						   (int64) ceil(st->vram_estimate / 1024.0), es);

	if (es->analyze)
	{
		GpuaggCounters all = st->counters;

		/* a parallel GpuAgg: every process's share (times summed) */
		for (int w = 0; st->collected && w < st->collected->nslots; w++)
		{
			const GpuaggCounters *c = &st->collected->slot[w];

			all.nbatches += c->nbatches;
			all.page_batches += c->page_batches;
			all.pages += c->pages;
			all.pages_all_visible += c->pages_all_visible;
			all.bytes_in += c->bytes_in;
			all.open_ms += c->open_ms;
			all.scan_ms += c->scan_ms;
			all.wait_ms += c->wait_ms;
			all.finish_ms += c->finish_ms;
			all.result_ms += c->result_ms;
			all.ngroups += c->ngroups;
			all.groups_back += c->groups_back;
			all.groups_returned += c->groups_returned;
			all.strings_coded += c->strings_coded;
			all.column_reruns += c->column_reruns;
			all.stats.rows_in += c->stats.rows_in;
			all.stats.rows_passed += c->stats.rows_passed;
			all.stats.device_ms += c->stats.device_ms;
			all.stats.transfer_ms += c->stats.transfer_ms;
			all.stats.admission_ms += c->stats.admission_ms;
		}
		ExplainPropertyInteger("Batches", NULL, all.nbatches, es);
		/* tuples sent where they lie, deformed by the device */
		if (all.page_batches > 0)
		{
			ExplainPropertyInteger("Page Batches", NULL, all.page_batches, es);
			/*
			 * Pages whose tuples' visibility the host checked (the others
			 * are all-visible), the bytes the device read from shared
			 * buffers, and the distinct strings the device coded itself.
			 */
			ExplainPropertyInteger("Pages", NULL, all.pages, es);
			ExplainPropertyInteger("Pages Checked by Host", NULL,
								   all.pages - all.pages_all_visible, es);
			ExplainPropertyInteger("Page Bytes", "kB",
								   (int64) (all.pages * (BLCKSZ / 1024)), es);
			if (all.strings_coded > 0)
				ExplainPropertyInteger("Strings Coded by Device", NULL, all.strings_coded, es);
		}
		/*
		 * A string value the device could not read (compressed, TOASTed)
		 * sends the whole scan back to the host: read again in column form.
		 */
		if (all.column_reruns > 0)
			ExplainPropertyInteger("Scans Read Again in Column Form", NULL,
								   all.column_reruns, es);
		ExplainPropertyInteger("Rows In", NULL, all.stats.rows_in, es);
		ExplainPropertyInteger("Rows Removed by Device Filter", NULL,
							   all.stats.rows_in - all.stats.rows_passed, es);
		ExplainPropertyInteger("Groups", NULL, all.ngroups, es);
		if (st->topn > 0)
		{
			ExplainPropertyInteger("Groups From Device", NULL, all.groups_back, es);
			ExplainPropertyInteger("Groups Returned", NULL, all.groups_returned, es);
		}
		ExplainPropertyInteger("Bytes To Device", "kB",
							   (int64) ((all.bytes_in + 1023) / 1024), es);
		if (es->timing)
		{
			if (st->planned_cuda)
				ExplainPropertyFloat("Admission Wait", "ms", all.stats.admission_ms, 3, es);
			/* the session's set-up past the queue: segment, thread, buffers */
			ExplainPropertyFloat("Open Time", "ms",
								 Max(all.open_ms - all.stats.admission_ms, 0.0), 3, es);
			ExplainPropertyFloat("Scan Time", "ms", all.scan_ms, 3, es);
			if (st->device->gpu)
			{
				ExplainPropertyFloat("Wait Time", "ms", all.wait_ms, 3, es);
				ExplainPropertyFloat("Transfer Time", "ms", all.stats.transfer_ms, 3, es);
			}
			ExplainPropertyFloat("Finish Time", "ms", all.finish_ms, 3, es);
			ExplainPropertyFloat("Device Time", "ms", all.stats.device_ms, 3, es);
			ExplainPropertyFloat("Result Time", "ms", all.result_ms, 3, es);
		}
	}
}
