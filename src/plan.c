/*-------------------------------------------------------------------------
 *
 * plan.c
 *		Turns a GpuAgg CustomPath into a CustomScan plan node.
 *
 * The node scans the base relation (scanrelid), so EXPLAIN names it and the
 * executor opens it; a partitioned table's or inheritance parent's node
 * reads the children the planner left instead (GpuaggPlanInfo.children, and
 * .prune for run-time pruning: setrefs.c moves neither range table index,
 * so the executor moves them as scanrelid moved from varno).  Its
 * custom_scan_tlist is (group keys, aggregates, GROUPING()s, columns
 * fetched by a primary key the group keys hold): the tuple
 * the node produces per group.  setrefs.c rewrites the node's target list and qual
 * (HAVING) into references to that tuple, so any expression
 * over keys and aggregates -- sum(v)/count(*), count(*)+10, constants -- is
 * evaluated by the ordinary CustomScan projection and never blocks offload.
 *
 * Parameters ($1 under generic plans, outer references of a LATERAL
 * subquery) go in custom_exprs, so that the planner accounts for them
 * (extParam/chgParam) and the executor can evaluate them per (re)scan.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"

#include "gpuagg.h"
#include "join.h"

/* custom_private's slots, in order */
enum GpuaggPrivateIndex
{
	PRIV_QUALS,
	PRIV_KEYS,
	PRIV_AGGREFS,
	PRIV_HAVING,
	PRIV_VARNO,
	PRIV_GROUPS,
	PRIV_VRAM,
	PRIV_BATCHROWS,
	PRIV_DEVICE,
	PRIV_GATING,
	PRIV_PARAMS,
	PRIV_FEED,
	PRIV_TOPN,
	PRIV_CHILDREN,
	PRIV_REMAP,
	PRIV_PRUNE,
	PRIV_NUMERIC_SCALES,
	PRIV_SETS,
	PRIV_GROUPFUNCS,
	PRIV_GROUPING_VALUES,
	PRIV_JOIN,
	PRIV_HOST,
	PRIV_DEVICE_JOIN,
	PRIV_BEFORE_JOIN,
	PRIV_FETCH
};

List *
GpuaggFormPlanInfo(const GpuaggPlanInfo *info)
{
	List	   *priv = NIL;

	priv = lappend(priv, info->quals);
	priv = lappend(priv, info->keys);
	priv = lappend(priv, info->aggrefs);
	priv = lappend(priv, info->having);
	priv = lappend(priv, makeInteger(info->varno));
	/* Floats with a decimal point: an integral one would read back as an Integer */
	priv = lappend(priv, makeFloat(psprintf("%.1f", info->groups)));
	priv = lappend(priv, makeFloat(psprintf("%.1f", info->vram)));
	priv = lappend(priv, makeInteger(info->batch_rows));
	priv = lappend(priv, makeInteger(info->device));
	priv = lappend(priv, info->gating);
	priv = lappend(priv, info->params);
	priv = lappend(priv, makeInteger(info->feed ? 1 : 0));
	priv = lappend(priv, info->topn);
	priv = lappend(priv, info->children);
	priv = lappend(priv, makeInteger(info->remap ? 1 : 0));
	priv = lappend(priv, info->prune);
	priv = lappend(priv, info->numeric_scales);
	priv = lappend(priv, info->sets);
	priv = lappend(priv, info->groupfuncs);
	priv = lappend(priv, info->grouping_values);
	priv = lappend(priv, info->join);
	priv = lappend(priv, info->host);
	priv = lappend(priv, makeInteger(info->device_join ? 1 : 0));
	priv = lappend(priv, makeInteger(info->before_join));
	priv = lappend(priv, info->fetch);
	Assert(list_length(priv) == PRIV_FETCH + 1);
	return priv;
}

/* A number of custom_private: a Float, or an Integer where one read back so. */
static double
number_of(Node *n)
{
	return IsA(n, Integer) ? (double) intVal(n) : floatVal(n);
}

void
GpuaggDeformPlanInfo(List *priv, GpuaggPlanInfo *info)
{
	info->quals = list_nth(priv, PRIV_QUALS);
	info->keys = list_nth(priv, PRIV_KEYS);
	info->aggrefs = list_nth(priv, PRIV_AGGREFS);
	info->having = list_nth(priv, PRIV_HAVING);
	info->varno = intVal(list_nth(priv, PRIV_VARNO));
	info->groups = number_of(list_nth(priv, PRIV_GROUPS));
	info->vram = number_of(list_nth(priv, PRIV_VRAM));
	info->batch_rows = intVal(list_nth(priv, PRIV_BATCHROWS));
	info->device = intVal(list_nth(priv, PRIV_DEVICE));
	info->gating = list_nth(priv, PRIV_GATING);
	info->params = list_nth(priv, PRIV_PARAMS);
	info->feed = intVal(list_nth(priv, PRIV_FEED)) != 0;
	info->topn = list_nth(priv, PRIV_TOPN);
	info->children = list_nth(priv, PRIV_CHILDREN);
	info->remap = intVal(list_nth(priv, PRIV_REMAP)) != 0;
	info->prune = list_nth(priv, PRIV_PRUNE);
	info->numeric_scales = list_nth(priv, PRIV_NUMERIC_SCALES);
	info->sets = list_nth(priv, PRIV_SETS);
	info->groupfuncs = list_nth(priv, PRIV_GROUPFUNCS);
	info->grouping_values = list_nth(priv, PRIV_GROUPING_VALUES);
	info->join = list_nth(priv, PRIV_JOIN);
	info->host = list_nth(priv, PRIV_HOST);
	info->device_join = intVal(list_nth(priv, PRIV_DEVICE_JOIN)) != 0;
	info->before_join = intVal(list_nth(priv, PRIV_BEFORE_JOIN));
	info->fetch = list_nth(priv, PRIV_FETCH);
}

/*
 * The parameters of the subqueries a join's dimensions or the host's quals
 * are (x [NOT] IN (subquery), whose plan may read outer ones): copies of
 * their SubPlans without x, so that the planner counts those parameters
 * the node's (finalize_plan: extParam, a rescan's chgParam), never run.
 */
static List *
subplan_params(List *clauses)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, clauses)
	{
		bool		notin;
		SubPlan    *sp = castNode(SubPlan, GpuaggSubqueryOf(lfirst(lc), &notin));

		sp = copyObject(sp);
		sp->testexpr = NULL;
		out = lappend(out, sp);
	}
	return out;
}

static Plan *
plan_gpuagg(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
			List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	GpuaggPlanInfo info;
	List	   *scan_tlist = NIL;
	AttrNumber	resno = 1;
	ListCell   *lc;

	Assert(clauses == NIL);		/* an upper rel has no restriction clauses */

	GpuaggDeformPlanInfo(best_path->custom_private, &info);
	foreach(lc, info.keys)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry(copyObject(lfirst(lc)), resno++, NULL, false));
	foreach(lc, info.aggrefs)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry(copyObject(lfirst(lc)), resno++, NULL, false));
	/* (never evaluated: the node fills the column per grouping set) */
	foreach(lc, info.groupfuncs)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry(copyObject(lfirst(lc)), resno++, NULL, false));
	/* (the node fetches them by a primary key the group keys hold) */
	foreach(lc, info.fetch)
	{
		ListCell   *lv;

		foreach(lv, (List *) lthird(lfirst(lc)))
			scan_tlist = lappend(scan_tlist,
								 makeTargetEntry(copyObject(lfirst(lv)), resno++, NULL, false));
	}

	cscan->scan.plan.targetlist = tlist;
	/*
	 * HAVING in the order an Agg evaluates it, so that a conjunct that may
	 * fail runs for the groups it does natively (grouping sets: as written,
	 * as create_groupingsets_plan keeps it)
	 */
	cscan->scan.plan.qual = info.sets != NIL ? info.having :
		GpuaggOrderedQuals(root, info.having);
	cscan->scan.scanrelid = info.varno;
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;	/* the exact path, if any; a join's
										 * other tables */
	cscan->custom_exprs = list_concat(list_copy(info.params), info.gating);
	cscan->custom_exprs = list_concat(cscan->custom_exprs,
									  subplan_params(GpuaggJoinSubqueries(info.join)));
	cscan->custom_exprs = list_concat(cscan->custom_exprs, subplan_params(info.host));
	cscan->custom_private = best_path->custom_private;
	cscan->custom_scan_tlist = scan_tlist;
	cscan->methods = &GpuaggScanMethods;

	return &cscan->scan.plan;
}

const CustomPathMethods GpuaggPathMethods = {
	.CustomName = "GpuAgg",
	.PlanCustomPath = plan_gpuagg,
};

const CustomScanMethods GpuaggScanMethods = {
	.CustomName = "GpuAgg",
	.CreateCustomScanState = GpuaggCreateScanState,
};
