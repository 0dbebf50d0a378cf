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
 * A parallel GpuAgg's DSM and a fed plan are parallel.c's, the host's
 * Top-N topn.c's, EXPLAIN explain.c's (the node's state: exec.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/nbtree.h"
#include "access/xact.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "executor/execPartition.h"
#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "miscadmin.h"
#include "utils/float.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "exec.h"
#include "fetch.h"
#include "ledger.h"
#include "stat.h"

static void gpuagg_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *gpuagg_exec(CustomScanState *node);
static void gpuagg_end(CustomScanState *node);
static void gpuagg_rescan(CustomScanState *node);

static const CustomExecMethods gpuagg_exec_methods = {
	.CustomName = "GpuAgg",
	.BeginCustomScan = gpuagg_begin,
	.ExecCustomScan = gpuagg_exec,
	.EndCustomScan = gpuagg_end,
	.ReScanCustomScan = gpuagg_rescan,
	.EstimateDSMCustomScan = GpuaggEstimateDSM,
	.InitializeDSMCustomScan = GpuaggInitializeDSM,
	.ReInitializeDSMCustomScan = GpuaggReinitializeDSM,
	.InitializeWorkerCustomScan = GpuaggInitializeWorker,
	.ShutdownCustomScan = GpuaggShutdown,
	.ExplainCustomScan = GpuaggExplain,
};

Node *
GpuaggCreateScanState(CustomScan *cscan)
{
	GpuAggState *st = (GpuAggState *) newNode(sizeof(GpuAggState),
											  T_CustomScanState);
	GpuaggPlanInfo *info = palloc(sizeof(GpuaggPlanInfo));

	GpuaggDeformPlanInfo(cscan->custom_private, info);
	st->css.methods = &gpuagg_exec_methods;
	st->plan = info;
	GpuaggTopNInit(&st->topn, info->topn);
	switch (info->device)
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
 * The relations the node reads: the table itself, or the partitions the
 * planner left less those that run-time pruning removes at the start (a
 * generic plan's $n on the partition key).  Pruning then keeps the
 * remaining ones' numbers, in st->rels, for each run's pruning.
 */
static void
open_relations(GpuAggState *st, EState *estate)
{
	CustomScan *cscan = (CustomScan *) st->css.ss.ps.plan;
	int			n = list_length(st->plan->children);
	Bitmapset  *valid = NULL;
	ListCell   *lc;

	if (n == 0)
	{
		st->nrels = 1;
		st->rels = palloc(sizeof(Relation));
		st->rels[0] = st->css.ss.ss_currentRelation;
	}
	else
	{
		if (st->plan->prune)
		{
			/* its range table indexes, moved as the plan's were */
			PartitionPruneInfo *prune = copyObject(st->plan->prune);
			int			delta = (int) cscan->scan.scanrelid - (int) st->plan->varno;
			ExprContext *econtext = st->css.ss.ps.ps_ExprContext;
			ListCell   *lc2;

			foreach(lc, prune->prune_infos)
			{
				foreach(lc2, (List *) lfirst(lc))
					((PartitionedRelPruneInfo *) lfirst(lc2))->rtindex += delta;
			}

			/*
			 * It makes the node a new ExprContext, for its steps; the
			 * node's projection keeps the one it was built with.
			 */
			st->prunestate = ExecInitPartitionPruning(&st->css.ss.ps, n, prune, &valid);
			st->css.ss.ps.ps_ExprContext = econtext;
		}
		else
			valid = bms_add_range(NULL, 0, n - 1);
		st->nrels = bms_num_members(valid);
		st->nremoved = n - st->nrels;
		st->rels = palloc(sizeof(Relation) * Max(st->nrels, 1));
		st->nrels = 0;
		foreach(lc, st->plan->children)
		{
			if (bms_is_member(foreach_current_index(lc), valid))
				st->rels[st->nrels++] =
					ExecGetRangeTableRelation(estate, cscan->scan.scanrelid + intVal(lfirst(lc)));
		}
	}
	st->blocklogs = palloc0(sizeof(GpuaggBlockLog) * Max(st->nrels, 1));
	if (st->plan->remap)
		st->remap_from = RelationGetDescr(st->css.ss.ss_currentRelation);
}

/*
 * setrefs.c rewrites custom_exprs against custom_scan_tlist, so where a
 * group key has no column (GROUP BY current_date), a parameter or gating
 * qual that is or holds the same expression comes back as a reference to
 * the per-group tuple, which does not exist before the scan.  Those are
 * column-free (their Vars are the planner's Params), so every INDEX_VAR
 * Var in them is such a match: the key's expression goes back in.
 */
static Node *
unmatch_keys(Node *node, void *context)
{
	List	   *scan_tlist = (List *) context;

	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varno == INDEX_VAR)
		return copyObject((Node *) list_nth_node(TargetEntry, scan_tlist,
												 ((Var *) node)->varattno - 1)->expr);
	return expression_tree_mutator(node, unmatch_keys, context);
}

static void
gpuagg_begin(CustomScanState *node, EState *estate, int eflags)
{
	GpuAggState *st = (GpuAggState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	const char *reason;
	int			i,
				nparams,
				nsub,
				nhost,
				ngating;
	ListCell   *lc;

	st->prog = palloc(sizeof(GpuaggProgram));
	if (!GpuaggCompile(st->prog, st->plan->quals, st->plan->keys, st->plan->aggrefs,
					   st->plan->numeric_scales, st->plan->sets != NIL, st->plan->varno,
					   GpuaggJoinColumns(st->plan->join), GpuaggJoinConditions(st->plan->join),
					   st->plan->before_join, &reason))
		elog(ERROR, "gpuagg: plan does not compile: %s", reason);
	GpuaggTopNForDevice(&st->topn, st->prog);
	nparams = list_length(st->prog->params);
	/* custom_exprs: parameters, gating quals, then subqueries' (plan.c) */
	nsub = GpuaggJoinDims(st->plan->join) - GpuaggJoinPlanDims(st->plan->join);
	nhost = list_length(st->plan->host);
	ngating = list_length(cscan->custom_exprs) - nparams - nsub - nhost;
	/* (a session setting may compile otherwise than when planned) */
	if (ngating < 0 || !equal(st->prog->params, st->plan->params))
		elog(ERROR, "gpuagg: plan parameters do not match its program");

	st->param_states =
		ExecInitExprList((List *) unmatch_keys((Node *) list_copy_head(cscan->custom_exprs, nparams),
											   cscan->custom_scan_tlist),
						 &node->ss.ps);
	/*
	 * Guarded scan constants (program.c's guarded_constant): one value a
	 * run, evaluated at its first scan (GpuaggLoadParams); in a statement
	 * that enters parallel mode (ExecutorRun), where no subtransaction
	 * starts, now, before it
	 */
	st->prog->guarded_cxt = estate->es_query_cxt;
	if (st->prog->guarded != NULL && !(eflags & EXEC_FLAG_EXPLAIN_ONLY) &&
		estate->es_plannedstmt->parallelModeNeeded)
		GpuaggEvalGuarded(st->prog, st->param_states, node->ss.ps.ps_ExprContext);
	st->gating = (List *) unmatch_keys((Node *) list_copy_head(list_copy_tail(cscan->custom_exprs, nparams),
																ngating),
									   cscan->custom_scan_tlist);
	st->host = st->plan->host;
	st->gating_state = ExecInitQual(st->gating, &node->ss.ps);
	st->finals = palloc0(sizeof(GpuaggFinal) * Max(st->prog->ga.naggs, 1));
	i = 0;
	foreach(lc, st->plan->aggrefs)
	{
		const GaAgg *agg = &st->prog->ga.aggs[i];

		GpuaggFinalInit(&st->finals[i], lfirst(lc), agg,
						agg->distinct >= 0 ? st->prog->extreme_typmod[agg->distinct] : 0,
						estate->es_query_cxt);
		if (st->prog->agg_quotient[i].f != 0)
			st->finals[i].quotient = &st->prog->agg_quotient[i];
		i++;
	}
	GpuaggHavingInit(&st->having, cscan->scan.plan.qual, st->prog->ga.nkeys, st->finals,
					 st->prog->ga.naggs, &node->ss.ps);
	GpuaggHavingForDevice(&st->having, st->finals, st->prog, st->plan->sets != NIL);
	st->aggcontext = GpuaggMakeAggContext(node->ss.ps.ps_ExprContext);
	open_relations(st, estate);
	/*
	 * The exact path (planner.c), run only if a numeric does not fit, and
	 * a join's other tables, run before the scan (join.c).
	 */
	{
		int			nexact = list_length(cscan->custom_plans) -
			GpuaggJoinPlanDims(st->plan->join);
		List	   *dims = NIL;

		foreach(lc, cscan->custom_plans)
		{
			PlanState  *ps = ExecInitNode(lfirst(lc), estate, eflags);

			node->custom_ps = lappend(node->custom_ps, ps);
			if (foreach_current_index(lc) < nexact)
				st->exact_ps = ps;
			else
				dims = lappend(dims, ps);
		}
		if (st->plan->join != NIL)
			st->join = GpuaggJoinInit(st->plan->join, dims, &node->ss.ps);
		/*
		 * Where the host matches the join or looks a subquery condition up,
		 * the WHERE's quals a native scan runs before either run there
		 * first too: a row the join drops then gets their errors, and one
		 * they drop meets no join condition (the device runs them again on
		 * the rows kept, true).
		 */
		if ((st->plan->join != NIL && !st->plan->device_join) || st->host != NIL)
			st->host = list_concat(list_copy_head(st->plan->quals, st->plan->before_join),
								   st->host);
		if (st->host != NIL)
			st->join = GpuaggJoinWithFilter(st->join, st->host, &node->ss.ps);
		/* (a join of integer or text keys: the device probes its tables) */
		if (st->plan->join != NIL)
		{
			GaProgram  *scratch = palloc(sizeof(GaProgram));

			/* (as the planner decided, gpuagg.device_joins then) */
			memcpy(scratch, &st->prog->ga, sizeof(GaProgram));
			if (st->plan->device_join &&
				(!GpuaggJoinDevicePlanned(st->plan->join, scratch,
										  RelationGetRelid(node->ss.ss_currentRelation), false) ||
				 !GpuaggJoinToDevice(st->join, st->prog, node->ss.ss_currentRelation,
									 st->plan->batch_rows)))
				elog(ERROR, "gpuagg: the device cannot run the join the plan gave it");
			pfree(scratch);
		}
	}
	/* (after the GROUPING()s in the node's tuple: plan.c) */
	if (st->plan->fetch != NIL && !(eflags & EXEC_FLAG_EXPLAIN_ONLY))
		st->fetch = GpuaggFetchBegin(st->plan->fetch,
									 st->prog->ga.nkeys + st->prog->ga.naggs +
									 list_length(st->plan->grouping_values), estate);
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
		case GA_ERR_TS_INFINITE:
			ereport(ERROR,
					(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
					 errmsg("cannot subtract infinite timestamps")));
			break;
		case GA_ERR_TIMESTAMP_RANGE:
			ereport(ERROR,
					(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
					 errmsg("timestamp out of range")));
			break;
		case GA_ERR_DATE_TS_RANGE:
			ereport(ERROR,
					(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
					 errmsg("date out of range for timestamp")));
			break;
		default:
			elog(ERROR, "gpuagg: device failed with error code %d", err);
	}
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

/*
 * Does nothing read the strings a device codes but the group keys of the
 * groups the node returns?  Not where the host maps keys (of every group),
 * combines grouping sets, or an aggregate reads strings (min/max of text,
 * the sets the host folds): then a device returns every string it coded.
 */
static bool
keys_strings_only(GpuAggState *st)
{
	const GaProgram *p = &st->prog->ga;

	if (st->prog->nrekeys > 0 || st->plan->sets != NIL)
		return false;
	for (uint32 a = 0; a < p->naggs; a++)
	{
		const GaAgg *ag = &p->aggs[a];

		if (ag->distinct >= 0 || ag->argtype == GA_T_TEXT || ag->argtype == GA_T_BPCHAR)
			return false;
	}
	return true;
}

/* A new run: nothing of the last one (its groups, its strings) is kept. */
static void
start_run(GpuAggState *st)
{
	MemoryContextReset(st->run_cxt);
	memset(&st->result, 0, sizeof(st->result));
	st->setof = NULL;
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
 * The run is done and its groups may go out; a parallel worker leaves its
 * counters for the leader's EXPLAIN ANALYZE.
 */
static void
end_run(GpuAggState *st)
{
	st->counters.groups_returned +=
		GpuaggTopNBound(&st->topn, &st->prog->ga, &st->result,
						st->css.ss.ps.instrument != NULL);
	GpuaggShareCounters(st);
	st->next_group = 0;
	st->having.bound_run = false;
	st->done = true;
}

/*
 * A joined table the device scans itself (GaDimDesc.scan): its program,
 * its page batches, their end; the device keeps the rows its program's
 * WHERE keeps and makes their hash table.  *empty: no page had a row.
 */
static int
send_dim_scan(GpuAggState *st, const GpuaggDevice *dev, int d, GpuaggBatchReader *r,
			  Size batch_bytes, bool fed, bool *empty)
{
	GaBatch		hb;
	const GaBatch *b;
	char	   *buf;
	uint64		bytes;
	double		rows;
	int			err,
				sent = 0,
				from = -1,
				prev_from = -1;

	if ((buf = dev->batch_buffer(st->session, batch_bytes)) == NULL)
		return GA_ERR_DEVICE;
	memcpy(buf, GpuaggJoinScanProgram(st->join, d, &rows), sizeof(GaProgram));
	memset(&hb, 0, sizeof(hb));
	hb.values[0] = buf;
	hb.dim = d + 1;
	hb.dim_scan = 3;
	hb.dim_rows = (uint64) Min(Max(rows, 0.0), 1e8);
	if ((err = dev->add_batch(st->session, &hb, &st->counters.stats)) != GA_OK)
		return err;
	/* fed: the workers' shares of its pages first (parallel.c), then the rest */
	if (fed)
		GpuaggFeedPhase(st, d);
	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		if ((buf = dev->batch_buffer(st->session, batch_bytes)) == NULL)
			return GA_ERR_DEVICE;
		from = -1;
		if ((!fed || (b = GpuaggTakeFedBatch(st, r, buf, &bytes, &from, d)) == NULL) &&
			(b = GpuaggBatchNext(r, buf, &bytes)) == NULL)
			break;
		if (from < 0)
			fed = false;		/* (the workers' are all taken) */
		else
			st->counters.dim_batches_fed++;
		/* test: a device failure in the middle of a joined table's pages */
		if (gpuagg_debug_fail_batch > 0 && st->fallback == NULL &&
			++sent >= gpuagg_debug_fail_batch)
		{
			st->injected = true;
			return GA_ERR_DEVICE;
		}
		hb = *b;
		hb.dim = d + 1;
		hb.dim_scan = 1;
		*empty &= hb.nrows == 0;
		st->counters.bytes_in += bytes;
		if ((err = dev->add_batch(st->session, &hb, &st->counters.stats)) != GA_OK)
			return err;
		/* (the device is done with the previous batch's pages) */
		pages_in_flight = st;
		GpuaggFeedConsumed(st, prev_from);
		prev_from = from;
		if (from < 0)
			GpuaggBatchSent(r);
	}
	memset(&hb, 0, sizeof(hb));
	hb.dim = d + 1;
	hb.dim_scan = 2;
	if ((err = dev->add_batch(st->session, &hb, &st->counters.stats)) == GA_OK)
		GpuaggFeedConsumed(st, prev_from);
	return err;
}

/* The page-form readers of the joined tables the device scanned, ended. */
static void
end_dim_readers(GpuaggBatchReader **readers)
{
	for (int d = 0; d < GA_MAX_DIMS; d++)
		if (readers[d])
			GpuaggBatchEnd(readers[d]);
}

/*
 * count(*) alone, without WHERE, keys, grouping sets or a join: a batch's
 * rows are the rows the query sees (the host found them visible, as a
 * native scan would), which is all such a program reads of them, so they
 * are counted here and the batch is not sent: no page crosses to a device
 * that would read no column of it.  The device's one group takes the count.
 */
static bool
counts_rows_only(const GpuAggState *st)
{
	const GaProgram *p = &st->prog->ga;

	if (p->nkeys > 0 || p->naggs == 0 || p->where.reg >= 0 || p->ndims > 0 ||
		st->plan->join != NULL || st->host != NIL || st->plan->sets != NIL)
		return false;
	for (uint32 a = 0; a < p->naggs; a++)
	{
		const GaAgg *ag = &p->aggs[a];

		if (ag->kind != GA_AGG_COUNT || ag->arg.reg >= 0 || ag->filter.reg >= 0 ||
			ag->distinct >= 0)
			return false;
	}
	return true;
}

/*
 * The rows a value of values[0 .. n) has on average in rel, as index
 * (btree, on that column first) lists them under snapshot for up to
 * GPUAGG_PROBE_SAMPLE of the values spread over them (entries, dead ones
 * too: an estimate).  ANALYZE's n_distinct is no guide here: of lineitem's
 * l_orderkey it says 356K where there are 1.5M (SF 1), four rows a value
 * said seventeen.
 */
#define GPUAGG_PROBE_SAMPLE 64
static double
rows_per_value(Relation rel, Oid indexoid, const Datum *values, int n, Snapshot snapshot)
{
	Relation	index = index_open(indexoid, AccessShareLock);
	IndexScanDesc scan;
	ScanKeyData key;
	int			step = Max(n / GPUAGG_PROBE_SAMPLE, 1);
	uint64		entries = 0;
	int			sampled = 0;

	/* (no value in the column's range: nothing to find) */
	if (n == 0)
	{
		index_close(index, AccessShareLock);
		return 0;
	}
	if (!GpuaggIndexEqualityKey(index, 0, &key))
	{
		index_close(index, AccessShareLock);
		return -1;
	}
	scan = index_beginscan(rel, index, snapshot, 1, 0);
	for (int i = 0; i < n; i += step)
	{
		key.sk_argument = values[i];
		index_rescan(scan, &key, 1, NULL, 0);
		while (index_getnext_tid(scan, ForwardScanDirection) != NULL)
			entries++;
		sampled++;
		CHECK_FOR_INTERRUPTS();
	}
	index_endscan(scan);
	index_close(index, AccessShareLock);
	return sampled > 0 ? Max((double) entries / sampled, 1.0) : -1;
}

/* An index's access method. */
static Oid
index_relam(Oid indexoid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(indexoid));
	Oid			am = InvalidOid;

	if (HeapTupleIsValid(tup))
	{
		am = ((Form_pg_class) GETSTRUCT(tup))->relam;
		ReleaseSysCache(tup);
	}
	return am;
}

static int
cmp_int64(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

/* A valid btree index of rel, usable now, whose first column is attno, or 0. */
static Oid
index_on(Relation rel, AttrNumber attno)
{
	List	   *indexes = RelationGetIndexList(rel);
	Oid			found = InvalidOid;
	ListCell   *lc;

	foreach(lc, indexes)
	{
		Oid			indexoid = lfirst_oid(lc);
		HeapTuple	tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(indexoid));
		Form_pg_index index;
		oidvector  *opclass;
		bool		isnull;

		if (!HeapTupleIsValid(tup))
			continue;
		index = (Form_pg_index) GETSTRUCT(tup);
		opclass = (oidvector *) DatumGetPointer(SysCacheGetAttr(INDEXRELID, tup,
																 Anum_pg_index_indclass,
																 &isnull));
		if (!isnull && index->indnkeyatts >= 1 && index->indkey.values[0] == attno &&
			GpuaggFetchIndexUsable(tup) &&
			heap_attisnull(tup, Anum_pg_index_indexprs, NULL) &&
			heap_attisnull(tup, Anum_pg_index_indpred, NULL) &&
			index_relam(indexoid) == BTREE_AM_OID &&
			get_opclass_input_type(opclass->values[0]) ==
			TupleDescAttr(RelationGetDescr(rel), attno - 1)->atttypid)
			found = indexoid;
		ReleaseSysCache(tup);
		if (OidIsValid(found))
			break;
	}
	list_free(indexes);
	return found;
}

/*
 * keys[0 .. n) as an index scan's values of a column of width bytes: each
 * once, in order, only those of its range (no other can match); *nout.
 */
static Datum *
probe_values(const int64 *keys, uint64 n, int width, int *nout)
{
	int64	   *sorted = palloc(sizeof(int64) * Max(n, 1));
	Datum	   *values = palloc(sizeof(Datum) * Max(n, 1));

	memcpy(sorted, keys, sizeof(int64) * n);
	qsort(sorted, n, sizeof(int64), cmp_int64);
	*nout = 0;
	for (uint64 i = 0; i < n; i++)
	{
		int64		v = sorted[i];

		if ((i > 0 && v == sorted[i - 1]) ||
			(width == 2 && (v < PG_INT16_MIN || v > PG_INT16_MAX)) ||
			(width == 4 && (v < PG_INT32_MIN || v > PG_INT32_MAX)))
			continue;
		values[(*nout)++] = width == 2 ? Int16GetDatum((int16) v) :
			width == 4 ? Int32GetDatum((int32) v) : Int64GetDatum(v);
	}
	pfree(sorted);
	return values;
}

/*
 * An index probe: where a joined table whose rows the host ran (an inner
 * or semi join) has few keys, and those keys are, through the join's
 * keys, a column of the scanned table that a btree index leads with (TPC-H
 * Q18's 640 order keys of IN (SELECT l_orderkey ... HAVING ...) at SF 10,
 * l_orderkey = o_orderkey, and lineitem's primary key), the scanned
 * table's rows are those the index finds for them, not a scan of all its
 * pages: no other row can match.  Only where the rows to find are few
 * (their estimate, keys times the rows a value has as the index lists a
 * sample of them, at most one in GPUAGG_PROBE_SHARE of the table's), a
 * serial scan of one table without a WHERE of its own that could raise
 * an error (GpuaggExprCannotFail: a native scan evaluates it on every
 * row), and integer keys.  The other joined tables the device scans stay
 * in page form.  True where the reader now probes.
 */
#define GPUAGG_PROBE_SHARE 1000
static bool
index_probe(GpuAggState *st, GpuaggBatchReader *reader, GaDimData *dims, Relation rel,
			bool fed)
{
	const GaProgram *p = &st->prog->ga;
	double		tuples = rel->rd_rel->reltuples;

	if (fed || st->plan->feed || st->pscans != NULL || st->nrels != 1 ||
		st->remap_from != NULL || st->host != NIL || tuples <= 0 ||
		(p->where.reg >= 0 && !GpuaggExprCannotFail((Node *) st->plan->quals)))
		return false;
	/*
	 * No string of the table: the host would code its strings as the
	 * device codes the joined tables' it scans, in page form, in one
	 * dictionary.
	 */
	for (uint32 c = 0; c < p->ncols; c++)
		if (!p->cols[c].dim &&
			(p->cols[c].type == GA_T_TEXT || p->cols[c].type == GA_T_BPCHAR || p->cols[c].pred))
			return false;
	for (int d = 0; d < (int) p->ndims; d++)
	{
		for (int k = 0; !p->dims[d].scan && k < p->dims[d].nkeys; k++)
		{
			int			width;
			int			attno = GpuaggJoinBoundColumn(st->join, d, k, &width);
			double		per;
			Oid			indexoid;
			Datum	   *values;
			int			n;

			if (attno <= 0 || dims[d].nrows > (uint64) (tuples / GPUAGG_PROBE_SHARE) ||
				!OidIsValid(indexoid = index_on(rel, attno)))
				continue;
			values = probe_values(dims[d].keys[k], dims[d].nrows, width, &n);
			if ((per = rows_per_value(rel, indexoid, values, n,
										st->css.ss.ps.state->es_snapshot)) < 0 ||
				n * per > tuples / GPUAGG_PROBE_SHARE)
			{
				pfree(values);
				continue;
			}
			GpuaggBatchProbe(reader, indexoid, values, n);
			st->counters.probe_keys += n;
			return true;
		}
	}
	return false;
}

/*
 * Index probes of the joined tables the device scans itself: where the
 * rows of such a table that can match are only those whose column holds
 * one of the few keys of a joined table the host ran (TPC-H Q18's orders,
 * whose o_orderkey must be one of its IN subquery's 640 order keys at SF
 * 10), or one of the values a column has in the rows found of a table
 * probed before it (those orders' o_custkey, customer's c_custkey), and a
 * btree index leads with that column, the device reads only the rows the
 * index finds, in the pages that hold them, not every page of the table
 * (GpuaggBatchProbePages).  As index_probe: serial only, a table without
 * a WHERE that could raise an error (GpuaggJoinProbeableDim), at most one in
 * GPUAGG_PROBE_SHARE of its rows found, integer keys.
 */
static void
dim_probe(GpuAggState *st, GaDimData *dims, GpuaggBatchReader **dimreaders, bool fed)
{
	const GaProgram *p = &st->prog->ga;
	Snapshot	snapshot = st->css.ss.ps.state->es_snapshot;
	bool		probed[GA_MAX_DIMS] = {0};
	AttrNumber	collect[GA_MAX_DIMS][GA_MAX_DIM_KEYS];	/* a probed table's
															 * columns later ones
															 * match, */
	int			ncollect[GA_MAX_DIMS] = {0};
	int64	   *found[GA_MAX_DIMS][GA_MAX_DIM_KEYS];	/* ... their values in
														 * its rows found */
	uint64		nfound[GA_MAX_DIMS][GA_MAX_DIM_KEYS];

	if (fed || st->pscans != NULL)
		return;
	for (int e = 0; e < (int) p->ndims; e++)
	{
		Relation	rel;
		double		tuples;
		const int64 *keys = NULL;
		uint64		nkeys = 0;
		Oid			indexoid = InvalidOid;
		int			width = 0;
		Datum	   *values;
		int			n;
		double		per;

		if (dimreaders[e] == NULL || (rel = GpuaggJoinProbeableDim(st->join, e)) == NULL ||
			(tuples = rel->rd_rel->reltuples) <= 0)
			continue;
		/* a table the host ran whose keys lead to a column of e's */
		for (int d = 0; d < (int) p->ndims && !OidIsValid(indexoid); d++)
			for (int k = 0; !p->dims[d].scan && k < p->dims[d].nkeys && !OidIsValid(indexoid); k++)
			{
				int			attno = GpuaggJoinDimBoundColumn(st->join, e, d, k, &width);

				if (attno > 0 && dims[d].nrows <= (uint64) (tuples / GPUAGG_PROBE_SHARE) &&
					OidIsValid(indexoid = index_on(rel, attno)))
				{
					keys = dims[d].keys[k];
					nkeys = dims[d].nrows;
				}
			}
		/* or e's key, a column of a table probed before */
		for (int k = 0; k < GpuaggJoinDimKeys(st->join, e) && !OidIsValid(indexoid); k++)
		{
			int			src,
						src_attno;
			int			attno = GpuaggJoinDimKeySource(st->join, e, k, &src, &src_attno, &width);

			if (attno <= 0 || src < 0 || !probed[src])
				continue;
			for (int c = 0; c < ncollect[src]; c++)
				if (collect[src][c] == src_attno &&
					nfound[src][c] <= (uint64) (tuples / GPUAGG_PROBE_SHARE) &&
					OidIsValid(indexoid = index_on(rel, attno)))
				{
					keys = found[src][c];
					nkeys = nfound[src][c];
					break;
				}
		}
		if (!OidIsValid(indexoid))
			continue;
		values = probe_values(keys, nkeys, width, &n);
		if ((per = rows_per_value(rel, indexoid, values, n, snapshot)) < 0 ||
			n * per > tuples / GPUAGG_PROBE_SHARE)
		{
			pfree(values);
			continue;
		}
		/* the columns of its rows that later tables' keys match */
		for (int g = e + 1; g < (int) p->ndims; g++)
			for (int k = 0; k < GpuaggJoinDimKeys(st->join, g); k++)
			{
				int			src,
							src_attno,
							w;
				bool		have = false;

				if (GpuaggJoinDimKeySource(st->join, g, k, &src, &src_attno, &w) <= 0 ||
					src != e)
					continue;
				for (int c = 0; c < ncollect[e]; c++)
					have |= collect[e][c] == src_attno;
				if (!have && ncollect[e] < GA_MAX_DIM_KEYS)
					collect[e][ncollect[e]++] = src_attno;
			}
		st->counters.dim_probe_rows +=
			GpuaggBatchProbePages(dimreaders[e], indexoid, values, n, collect[e], ncollect[e],
								  found[e], nfound[e]);
		st->counters.dims_probed++;
		probed[e] = true;
		pfree(values);
	}
	for (int e = 0; e < (int) p->ndims; e++)
		for (int c = 0; probed[e] && c < ncollect[e]; c++)
			pfree(found[e][c]);
}

/*
 * One run of the scan through the current device.  Returns false when the
 * device itself failed (GA_ERR_DEVICE), with *why set; SQL errors the
 * device reports are raised here.
 */
static bool
run_on_device(GpuAggState *st, char **why)
{
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
	bool		pages_ok = !st->no_pages && dev->takes_pages();
	GaDimData  *dims = NULL;	/* a join the device runs: its tables' rows */
	GpuaggBatchReader *dimreaders[GA_MAX_DIMS] = {0};	/* ... the tables it scans */
	bool		scans = false;
	bool		page_strings;
	bool		count_only = counts_rows_only(st);
	uint64		counted = 0;	/* ... the rows so */
	bool		probing = false;	/* the rows an index finds (index_probe) */

	/*
	 * A fed GpuAgg's leader takes its workers' batches (its own reader only
	 * lays them out); without workers, after a failed run, or without page
	 * form, it reads the whole table itself.
	 */
	bool		fed = st->plan->feed && !st->feed_failed && st->pcxt &&
		st->pcxt->nworkers_launched > 0 && pages_ok;
	int			from = -1,
				prev_from = -1;
	Relation   *rels = st->rels;
	int			nrels = st->nrels;

	if (st->plan->feed && !fed)
		GpuaggFeedGiveUp(st);		/* (its workers, if any, return nothing) */
	/* a LATERAL reference on the partition key: this run's partitions */
	if (st->prunestate && st->prunestate->do_exec_prune)
	{
		Bitmapset  *valid = ExecFindMatchingSubPlans(st->prunestate, false);
		int			x = -1;

		/* (a parallel plan: refused where a parameter prunes, planner.c) */
		Assert(!st->pscans);
		rels = palloc(sizeof(Relation) * Max(st->nrels, 1));
		nrels = 0;
		while ((x = bms_next_member(valid, x)) >= 0)
			rels[nrels++] = st->rels[x];
	}
	/*
	 * A join the device runs: its tables' plans run now, before the table's
	 * scan (where the one-time filter lets it), their strings coded before
	 * the device's dictionary starts with ours.
	 */
	/* the one-time filter: when it fails, the scan has no rows */
	if (st->gating_state &&
		!ExecQual(st->gating_state, st->css.ss.ps.ps_ExprContext))
		reader_skip = true;
	if (st->prog->ga.ndims > 0 && !reader_skip)
		dims = palloc0(sizeof(GaDimData) * st->prog->ga.ndims);
	reader = GpuaggBatchBegin(rels, nrels,
							  st->remap_from,
							  estate->es_snapshot,
							  fed || st->feed_failed ? NULL : st->pscans, st->blocklogs,
							  st->prog, st->plan->batch_rows, st->dict, pages_ok,
							  st->prog->ga.ndims > 0 ? NULL : st->join);
	if (dims)
	{
		/*
		 * the tables the device scans itself (in page form, as this one);
		 * fed, the workers' shares of each first
		 */
		for (int d = 0; d < (int) st->prog->ga.ndims; d++)
		{
			st->prog->ga.dims[d].scan = 0;
			if (GpuaggBatchMaxPages(reader) > 0)
				dimreaders[d] = GpuaggJoinScanReader(st->join, d, st->prog, estate->es_snapshot,
													 st->plan->batch_rows, st->dict,
													 st->css.ss.ps.ps_ExprContext,
													 fed ? st->dimscans[d] : NULL);
			scans |= dimreaders[d] != NULL;
		}
	}
	/* fed: the workers pin the table's pages now, where they pin no other's first */
	if (fed && !scans)
		GpuaggFeedPhase(st, -1);
	if (dims)
	{
		INSTR_TIME_SET_CURRENT(t0);
		GpuaggJoinCollect(st->join, &st->prog->ga, reader, st->dict, st->run_cxt, dims);
		st->counters.dims_ms += GpuaggMsSince(t0);
		dim_probe(st, dims, dimreaders, fed);
		probing = nrels == 1 && index_probe(st, reader, dims, rels[0], fed);
	}
	if (fed && GpuaggBatchMaxPages(reader) == 0)
	{
		/* no page form after all */
		fed = false;
		GpuaggFeedGiveUp(st);
	}
	memset(&est, 0, sizeof(est));
	/* page form with strings: the device's dictionary starts with ours */
	page_strings = GpuaggBatchPageStrings(reader);
	for (int d = 0; d < GA_MAX_DIMS; d++)
		if (dimreaders[d])
			page_strings |= GpuaggBatchPageStrings(dimreaders[d]);
	if (page_strings)
	{
		est.seed = GpuaggDictSerialize(st->dict, GA_SEED_MAX, &est.seed_bytes);
		est.nseed = GpuaggDictCount(st->dict);
		if (est.seed == NULL && scans)
		{
			/* the joined tables the device scans need page form: the host's join */
			end_dim_readers(dimreaders);
			GpuaggBatchEnd(reader);
			if (fed)
				GpuaggFeedGiveUp(st);
			GpuaggJoinDeviceOff(st->join, st->prog);
			st->join_rerun = true;
			*why = pstrdup("the joined tables' strings are too many for the device's dictionary");
			return false;
		}
		if (est.seed == NULL)
		{
			est.nseed = 0;
			GpuaggBatchNoPages(reader);
			if (fed)
			{
				fed = false;
				GpuaggFeedGiveUp(st);
			}
		}
	}
	est.groups = st->plan->groups;
	est.batch_rows = st->plan->batch_rows;
	est.batch_bytes = GpuaggBatchBufferSize(reader);
	est.batch_host_bytes = GpuaggBatchHostSize(reader);
	for (int d = 0; d < GA_MAX_DIMS; d++)
		if (dimreaders[d])
		{
			/* (their batches, and a scan's program, go through the same buffers) */
			est.batch_bytes = Max(est.batch_bytes, GpuaggBatchBufferSize(dimreaders[d]));
			est.batch_bytes = Max(est.batch_bytes, sizeof(GaProgram));
			est.batch_host_bytes = Max(est.batch_host_bytes, GpuaggBatchHostSize(dimreaders[d]));
			est.batch_host_bytes = Max(est.batch_host_bytes, sizeof(GaProgram));
		}
	est.dims = dims;
	est.vram_budget = GpuaggVramBudget();
	est.vram_estimate = st->plan->vram;
	est.max_pages = GpuaggBatchMaxPages(reader);
	/* (an index probe's rows come in column form, the joined tables' in pages) */
	for (int d = 0; d < GA_MAX_DIMS; d++)
		if (dimreaders[d])
			est.max_pages = Max(est.max_pages, GpuaggBatchMaxPages(dimreaders[d]));

	INSTR_TIME_SET_CURRENT(t0);
	st->session = dev->open(&st->prog->ga, &est, st->run_cxt, &st->counters.stats, why);
	st->counters.open_ms += GpuaggMsSince(t0);
	if (st->session == NULL)
	{
		GpuaggBatchEnd(reader);
		for (int d = 0; d < GA_MAX_DIMS; d++)
			if (dimreaders[d])
				GpuaggBatchEnd(dimreaders[d]);
		if (fed)
			GpuaggFeedGiveUp(st);
		return false;
	}
	st->close_cb.func = close_session;
	st->close_cb.arg = st;
	MemoryContextRegisterResetCallback(st->run_cxt, &st->close_cb);

	/* a join's dimension numeric no scaled int64 holds: the exact path */
	if (!reader_skip && dims && GpuaggBatchNumericUnfit(reader))
	{
		reader_skip = true;
		err = GA_ERR_NUMERIC_EXACT;
	}
	for (int d = 0; !reader_skip && dims && d < (int) st->prog->ga.ndims; d++)
	{
		bool		empty = true;

		INSTR_TIME_SET_CURRENT(t0);
		if (dimreaders[d])
			err = send_dim_scan(st, dev, d, dimreaders[d], est.batch_bytes, fed, &empty);
		else
		{
			err = dev->add_dim(st->session, d, &dims[d], &st->counters.stats);
			empty = dims[d].nrows == 0;
		}
		st->counters.dims_scanned += dimreaders[d] != NULL;
		st->counters.dims_ms += GpuaggMsSince(t0);
		if (err != GA_OK)
			reader_skip = true;
		/*
		 * An inner or semi join with a table of no rows (one the device
		 * scans: no row in its pages) has none: the table is not read, as
		 * a native Hash Join with nothing to hash reads no outer row past
		 * its first, so no row of it raises its quals' errors either.  Not
		 * x IN (a subquery of no rows), the join's last dimensions: a
		 * native scan's filter, whose quals before it run on every row.
		 */
		else if (empty && ga_join_needs_rows(&st->prog->ga.dims[d]))
			reader_skip = true;
	}
	/* ... and so where the host matches the join */
	if (!reader_skip && st->join && !dims && GpuaggJoinNone(st->join))
		reader_skip = true;
	if (fed && !reader_skip)
		GpuaggFeedPhase(st, -1);
	while (!reader_skip && (fed || !GpuaggBatchDone(reader)))
	{
		char	   *buf;

		CHECK_FOR_INTERRUPTS();
		INSTR_TIME_SET_CURRENT(t0);
		buf = dev->batch_buffer(st->session, est.batch_bytes);
		st->counters.wait_ms += GpuaggMsSince(t0);
		if (buf == NULL)
		{
			err = GA_ERR_DEVICE;
			break;
		}
		INSTR_TIME_SET_CURRENT(t0);
		batch = fed ? GpuaggTakeFedBatch(st, reader, buf, &bytes, &from, -1) :
			GpuaggBatchNext(reader, buf, &bytes);
		st->counters.scan_ms += GpuaggMsSince(t0);
		if (batch == NULL)
			break;
		st->counters.nbatches++;
		if (dims)
			st->counters.rows_read += batch->nrows;	/* (the device matches them) */
		/* a numeric value no scaled int64 holds: the exact path runs */
		if (GpuaggBatchNumericUnfit(reader))
		{
			err = GA_ERR_NUMERIC_EXACT;
			break;
		}
		/* test: a device failure in the middle of the scan */
		if (gpuagg_debug_fail_batch > 0 && st->fallback == NULL &&
			st->counters.nbatches >= (uint64) gpuagg_debug_fail_batch)
		{
			/* (this batch's pins go with the reader; the last sent's below) */
			st->injected = true;
			err = GA_ERR_DEVICE;
			break;
		}
		if (count_only)
		{
			counted += batch->nrows;
			st->counters.stats.rows_in += batch->nrows;
			st->counters.stats.rows_passed += batch->nrows;
		}
		else
		{
			st->counters.bytes_in += bytes;
			INSTR_TIME_SET_CURRENT(t0);
			err = dev->add_batch(st->session, batch, &st->counters.stats);
			st->counters.wait_ms += GpuaggMsSince(t0);
		}
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
				GpuaggFeedConsumed(st, prev_from);
				prev_from = from;
			}
			else
				GpuaggBatchSent(reader);
			st->counters.page_batches++;
		}
	}
	GpuaggCountPages(st, reader);
	if (err == GA_OK)
	{
		INSTR_TIME_SET_CURRENT(t0);
		st->result.keys_strings_only = keys_strings_only(st);
		/* (a LIMIT without ORDER BY above: any n groups will do) */
		st->result.limit_groups = st->topn.agg < 0 ? st->topn.n : 0;
		err = dev->finish(st->session, &st->result, &st->counters.stats);
		st->counters.finish_ms += GpuaggMsSince(t0);
	}
	if (err == GA_OK && count_only)
	{
		/* (the plain aggregate's one group, of no rows the device saw) */
		if (st->result.ngroups != 1)
			elog(ERROR, "gpuagg: a plain aggregate with " UINT64_FORMAT " groups",
				 st->result.ngroups);
		for (uint32 a = 0; a < st->prog->ga.naggs; a++)
			st->result.states[st->prog->ga.aggs[a].slot] += counted;
		st->counters.rows_counted += counted;
	}
	if (err == GA_ERR_DEVICE)
		*why = st->injected ?
			psprintf("failed on purpose after %d batches (gpuagg.debug_fail_batch)",
					 gpuagg_debug_fail_batch) :
			pstrdup(dev->error_detail ? dev->error_detail(st->session) :
					"device failure");
	if (probing)
		st->counters.probe_rows += GpuaggBatchProbeRows(reader);
	replayable = GpuaggBatchReplayable(reader);
	if (st->join)
		st->counters.rows_read += GpuaggBatchTuplesRead(reader);
	st->counters.host_removed += GpuaggJoinTakeFiltered(st->join);

	/*
	 * The groups are on the host once finished: the device session and its
	 * reservation in the ledger go now, not when the node ends (an open
	 * cursor would hold GPU memory for as long as it stays open).  After a
	 * failure it closes too, which waits for any kernel still reading pages.
	 */
	close_session(st);
	pages_in_flight = NULL;
	GpuaggBatchEnd(reader);
	end_dim_readers(dimreaders);
	if (fed && err == GA_OK)
		GpuaggFeedStop(st);			/* the device reads no page any more */
	else if (fed)
		GpuaggFeedGiveUp(st);
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
	if ((err == GA_ERR_NUMERIC_EXACT || err == GA_ERR_TZ_WINDOW) && st->exact_ps != NULL)
	{
		*why = pstrdup(err == GA_ERR_TZ_WINDOW ?
					   "a timestamptz outside the time zone's table" :
					   "a numeric or interval value the device cannot hold exactly");
		st->exact = true;
		return false;
	}
	/*
	 * A row's error where a sum of intervals may natively have passed its
	 * range first, in an order of the rows the device does not know: the
	 * exact path says which error PostgreSQL raises.
	 */
	if (err != GA_OK && GpuaggProgramSumsIntervals(&st->prog->ga) && st->exact_ps != NULL)
	{
		*why = pstrdup("a row's error, where a sum of intervals may have passed its range before");
		st->exact = true;
		return false;
	}
	if (err != GA_OK)
		raise_device_error(err);
	/* page form with strings: the device's strings continue our codes */
	INSTR_TIME_SET_CURRENT(t0);
	if (st->result.nstrings > 0 && st->result.strings_selected)
		GpuaggDictLoadSome(st->dict, st->result.strings_first, st->result.nstrings,
						   st->result.nstrsel, st->result.strsel, st->result.strlen,
						   st->result.strat, st->result.strbytes, st->result.nstrbytes);
	else if (st->result.nstrings > 0)
		GpuaggDictLoad(st->dict, st->result.strings_first, st->result.nstrings,
					   st->result.strlen, st->result.strat, st->result.strbytes,
					   st->result.nstrbytes);
	st->counters.strings_coded += st->result.nstrings;
	st->counters.strings_returned += st->result.strings_selected ?
		st->result.nstrsel : st->result.nstrings;
	if (st->prog->nrekeys > 0)
	{
		instr_time	t1;

		GpuaggMapCache *cache = GpuaggMapCacheOf(st);

		INSTR_TIME_SET_CURRENT(t1);
		st->counters.groups_unmapped += st->result.ngroups;
		if ((err = GpuaggRekey(st->prog, &st->result, st->dict, cache,
							   &st->counters.mapped_elsewhere,
							   st->css.ss.ps.instrument && st->css.ss.ps.instrument->need_timer ?
							   &st->counters.map_eval_ms : NULL)) != GA_OK)
			raise_device_error(err);
		st->result.groups_all = st->result.ngroups;
		st->counters.map_unkept += GpuaggMapCacheTakeUnkept(cache);
		st->counters.map_ms += GpuaggMsSince(t1);
	}
	if (st->plan->sets != NIL &&
		(err = GpuaggGroupingSets(st->prog, &st->result, st->plan->sets, &st->setof)) != GA_OK)
		raise_device_error(err);
	GpuaggPickStringExtremes(st->prog, &st->result, st->dict);
	GpuaggSortOrderedSets(st->prog, &st->result, st->dict);
	if ((err = GpuaggFoldDistinct(st->prog, &st->result)) != GA_OK)
		raise_device_error(err);
	st->counters.finish_ms += GpuaggMsSince(t0);
	/*
	 * A sum of intervals whose running sum natively could leave the
	 * interval's range in some order of its rows: PostgreSQL's own plan
	 * says whether it does (or raises the error where it ends outside).
	 */
	if (GpuaggIntervalSumsUnsafe(&st->prog->ga, &st->result))
	{
		if (st->exact_ps == NULL)
			elog(ERROR, "gpuagg: an interval sum may overflow, and the plan has no exact path");
		*why = pstrdup("an interval sum that may leave the interval's range");
		st->exact = true;
		return false;
	}
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
	for (int i = 0; i < st->nrels; i++)
	{
		st->blocklogs[i].nranges = 0;
		st->blocklogs[i].have_worker = false;
		st->blocklogs[i].cxt = st->css.ss.ps.state->es_query_cxt;
	}
	st->injected = false;
	/*
	 * A fed GpuAgg's worker pins pages for the leader and returns nothing;
	 * without the leader, worker 0 does what the leader would have done.
	 */
	if (st->plan->feed && IsParallelWorker() && GpuaggFeedLeaderless(st) &&
		ParallelWorkerNumber == 0)
		st->feed_failed = true;
	else if (st->plan->feed && IsParallelWorker())
	{
		start_run(st);
		GpuaggFeedPages(st);
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
		if (!GpuaggLoadParams(st->prog, st->param_states, st->css.ss.ps.ps_ExprContext,
							  st->dict))
		{
			/*
			 * a numeric parameter the device cannot hold at its scale, a
			 * time zone whose transitions cannot be listed, or a guarded
			 * scan constant that failed
			 */
			if (st->exact_ps == NULL)
				elog(ERROR, "gpuagg: a scan constant does not fit the device, and the plan has no exact path");
			st->exact = true;
			/* (fed: the workers stop, and return nothing) */
			if (st->plan->feed)
				GpuaggFeedGiveUp(st);
		}
		else if (run_on_device(st, &why))
			break;
		if (st->exact)
		{
			/*
			 * A numeric past the device's int64 (or an interval's
			 * comparison value or epoch), or a timestamptz outside the
			 * zone's table: PostgreSQL's own plan, the exact path,
			 * aggregates the rows instead (gpuagg_exec).  The device's work
			 * does not count.
			 */
			discard_run(st, &before);
			st->counters.exact_runs++;
			GpuaggStatAdd(GSTAT_EXACT_RUNS, 1);
			start_run(st);		/* no groups of the device's */
			end_run(st);
			MemoryContextSwitchTo(old);
			return;
		}
		if (st->join_rerun)
		{
			/* the host matches the join's rows now (too many strings for the device) */
			st->join_rerun = false;
			discard_run(st, &before);
			continue;
		}
		if (had_pages && st->no_pages)
		{
			/*
			 * A compressed or TOASTed string in page form: the scan again
			 * in column form on the same device, the host reading every
			 * string.  The work so far does not count.
			 */
			discard_run(st, &before);
			st->counters.column_reruns++;
			GpuaggStatAdd(GSTAT_COLUMN_RERUNS, 1);
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
	/*
	 * A float aggregate's overflow from finite inputs that a GPU noted
	 * (GA_DEFER_FLOAT_OVERFLOW): natively raised as the rows are
	 * aggregated, whichever groups then go out (a LIMIT above may take
	 * none of that group's), so raised now.
	 */
	if (GpuaggAnyFloatOverflow(&st->prog->ga, &st->result))
		float_overflow_error();
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

/* ExecScan access method: the next group as a virtual tuple (gpuagg_exec
 * has run the aggregation). */
static TupleTableSlot *
gpuagg_next(ScanState *node)
{
	GpuAggState *st = (GpuAggState *) node;
	TupleTableSlot *slot = node->ss_ScanTupleSlot;
	MemoryContext old;
	uint64		g;
	int			nkeys;
	bool		timed;
	ListCell   *lc;
	instr_time	t0;

	ExecClearTuple(slot);
	/* (a HAVING check's bound that is a Param's: read at the first group) */
	if (st->having.params && !st->having.bound_run && st->next_group < st->result.ngroups)
	{
		GpuaggHavingBind(&st->having, node->ps.ps_ExprContext);
		st->having.bound_run = true;
	}
	while (st->next_group < st->result.ngroups)
	{
		if (!GpuaggTopNKeeps(&st->topn, st->next_group))
			st->next_group++;
		else if (!GpuaggHavingKeeps(&st->having, st->finals, &st->result, st->next_group))
		{
			/* (counted as the qual's, EXPLAIN's Rows Removed by Filter) */
			InstrCountFiltered1(node, 1);
			st->next_group++;
		}
		else
			break;
	}
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
			st->prog->key_quotient[k].f != 0 ?
			GpuaggQuotientDatum(&st->prog->key_quotient[k], st->result.keys[at].i,
								st->prog->ga.keyscale[k]) :
			GpuaggKeyDatum(st->result.keys[at], GpuaggKeyType(st->prog, k),
						   st->prog->ga.keyscale[k], st->dict);
		if (st->prog->keytypid[k] == UUIDOID && !slot->tts_isnull[k])
			slot->tts_values[k] = GpuaggUuidDatum(slot->tts_values[k]);
	}
	for (uint32 a = 0; a < st->prog->ga.naggs; a++)
		slot->tts_values[nkeys + a] =
			GpuaggFinalize(&st->finals[a], &st->result, g, st->aggcontext,
						   &slot->tts_isnull[nkeys + a]);
	/* GROUPING(): its value in the group's set */
	foreach(lc, st->plan->grouping_values)
	{
		int			at = nkeys + (int) st->prog->ga.naggs + foreach_current_index(lc);

		slot->tts_isnull[at] = false;
		slot->tts_values[at] = Int32GetDatum(list_nth_int(lfirst(lc),
														  st->setof ? st->setof[g] : 0));
	}
	if (st->fetch)
		st->counters.rows_fetched += GpuaggFetchRow(st->fetch, slot);
	MemoryContextSwitchTo(old);
	if (timed)
		st->counters.result_ms += GpuaggMsSince(t0);
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
	GpuAggState *st = (GpuAggState *) node;
	TupleTableSlot *slot;

	if (!st->done)
		run_aggregation(st);
	if (!st->exact)
		return ExecScan(&node->ss, gpuagg_next, gpuagg_recheck);

	/*
	 * The exact path returns the node's rows itself: its target list is the
	 * node's, HAVING included.
	 */
	slot = ExecProcNode(st->exact_ps);
	if (TupIsNull(slot))
		return ExecClearTuple(node->ss.ps.ps_ResultTupleSlot);
	return ExecCopySlot(node->ss.ps.ps_ResultTupleSlot, slot);
}

static void
gpuagg_end(CustomScanState *node)
{
	GpuAggState *st = (GpuAggState *) node;
	ListCell   *lc;

	if (st->run_cxt)
		MemoryContextDelete(st->run_cxt);	/* closes the session */
	st->run_cxt = NULL;
	if (st->fetch)
		GpuaggFetchEnd(st->fetch);
	st->fetch = NULL;
	foreach(lc, node->custom_ps)
		ExecEndNode(lfirst(lc));
	if (node->ss.ss_ScanTupleSlot)
		ExecClearTuple(node->ss.ss_ScanTupleSlot);
}

static void
gpuagg_rescan(CustomScanState *node)
{
	GpuAggState *st = (GpuAggState *) node;

	if (st->exact_ps != NULL)
	{
		if (node->ss.ps.chgParam != NULL)
			UpdateChangedParamSet(st->exact_ps, node->ss.ps.chgParam);
		ExecReScan(st->exact_ps);
	}
	if (st->join)
		GpuaggJoinReScan(st->join, node->ss.ps.chgParam);
	if (st->done && node->ss.ps.chgParam == NULL && !st->plan->feed)
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
	st->setof = NULL;
	st->done = false;
	st->exact = false;
}

