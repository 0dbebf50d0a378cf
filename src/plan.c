/*-------------------------------------------------------------------------
 *
 * plan.c
 *		Turns a GpuAgg CustomPath into a CustomScan plan node.
 *
 * The node scans the base relation (scanrelid), so EXPLAIN names it and the
 * executor opens it.  Its custom_scan_tlist is (group keys, aggregates): the
 * tuple the node produces per group.  setrefs.c rewrites the node's target
 * list and qual (HAVING) into references to that tuple, so any expression
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

static Plan *
plan_gpuagg(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
			List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	List	   *priv = best_path->custom_private;
	List	   *keys = list_nth(priv, GPUAGG_PRIV_KEYS);
	List	   *aggrefs = list_nth(priv, GPUAGG_PRIV_AGGREFS);
	List	   *having = list_nth(priv, GPUAGG_PRIV_HAVING);
	List	   *scan_tlist = NIL;
	AttrNumber	resno = 1;
	ListCell   *lc;

	Assert(clauses == NIL);		/* an upper rel has no restriction clauses */

	foreach(lc, keys)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry(copyObject(lfirst(lc)), resno++, NULL, false));
	foreach(lc, aggrefs)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry(copyObject(lfirst(lc)), resno++, NULL, false));

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = having;
	cscan->scan.scanrelid = intVal(list_nth(priv, GPUAGG_PRIV_VARNO));
	cscan->flags = best_path->flags;
	cscan->custom_plans = NIL;
	cscan->custom_exprs = list_concat(list_copy(list_nth(priv, GPUAGG_PRIV_PARAMS)),
									  list_nth(priv, GPUAGG_PRIV_GATING));
	cscan->custom_private = priv;
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
