/*-------------------------------------------------------------------------
 *
 * gpuagg.h
 *		Declarations shared across gpuagg's host files.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUAGG_H
#define GPUAGG_H

#include "nodes/extensible.h"
#include "nodes/pathnodes.h"

/* gpuagg.device */
typedef enum GpuaggDeviceKind
{
	GPUAGG_DEVICE_AUTO,
	GPUAGG_DEVICE_CUDA,
	GPUAGG_DEVICE_CPU
} GpuaggDeviceKind;

/* GUC variables (gpuagg.c) */
extern bool gpuagg_enabled;
extern int	gpuagg_device;
extern int	gpuagg_vram_budget;		/* MB; -1: auto (GpuaggVramBudget) */
extern bool gpuagg_force_offload;
extern bool gpuagg_log_fallback;
extern bool gpuagg_parallel;
extern int	gpuagg_fed_groups;
extern int	gpuagg_device_memory_limit;	/* MB, 0: 75 % of the GPU's memory */
extern int	gpuagg_admission_timeout;	/* ms */
extern int	gpuagg_batch_size;		/* kB */
extern bool gpuagg_debug_inject_fault;
extern int	gpuagg_debug_fail_batch;
extern bool gpuagg_page_batches;
extern bool gpuagg_device_joins;
extern bool gpuagg_decorrelate;
extern double gpuagg_startup_cost;
extern double gpuagg_tuple_cost;
extern double gpuagg_batch_cost;

/* An integer Datum of w bytes (2, 4 or 8) as int64. */
static inline int64
GpuaggIntegerDatum(Datum d, int w)
{
	return w == 2 ? (int64) DatumGetInt16(d) : w == 4 ? (int64) DatumGetInt32(d) :
		DatumGetInt64(d);
}

/* planner.c */
/* The cheapest parallel-safe unparameterized path of a pathlist, or NULL. */
struct Path;
extern struct Path *GpuaggCheapestSafePath(List *pathlist);

/*
 * Quals (RestrictInfos or plain clauses) in the order PostgreSQL evaluates
 * them: by security level, then by cost, stably (createplan.c's
 * order_qual_clauses, which create_agg_plan also applies to HAVING); the
 * clauses.
 */
extern List *GpuaggOrderedQuals(PlannerInfo *root, List *quals);
extern void GpuaggPlannerInit(void);

/* decorrelate.c */
extern bool GpuaggFuncCannotFail(Oid fn);
/*
 * Can evaluating node (an expression, or a List of quals) raise no error,
 * for any row?  Leakproof functions and those GpuaggFuncCannotFail names,
 * a LIKE of a constant pattern, immutable expressions of constants; no
 * parameter (its InitPlan may fail), no subquery.  A scan that reads only
 * some rows of a table (an index probe) may skip quals so on the others,
 * which a native scan evaluates on every row.
 */
struct Node;
extern bool GpuaggExprCannotFail(struct Node *node);
/*
 * A copy of the query whose correlated scalar aggregate subqueries in
 * WHERE are joins with their groups, or NULL where none is.
 */
struct Query;
extern struct Query *GpuaggDecorrelate(struct Query *parse);

/*
 * The queryId of a groups subquery GpuaggDecorrelate makes, which the
 * planner hook knows it by (copies keep it; PostgreSQL sets and reads
 * only the top-level Query's, and this one is never at the top)
 */
#define GPUAGG_GROUPS_QUERY_ID	UINT64CONST(0x6770756167677270)

/* distinct.c */
/*
 * The query (a copy where copy is true) with each SELECT DISTINCT that is
 * a grouping as its GROUP BY, or NULL where none is.
 */
extern struct Query *GpuaggDistinctAsGroups(struct Query *parse, bool copy);

/* plan.c */
extern const CustomPathMethods GpuaggPathMethods;
extern const CustomScanMethods GpuaggScanMethods;

/*
 * What the planner hands to the plan and the executor.  It travels in
 * custom_private as a List (which copyObject and parallel workers'
 * plan serialisation keep); GpuaggFormPlanInfo and GpuaggDeformPlanInfo
 * (plan.c) are the one place that knows the List's layout.
 */
typedef struct GpuaggPlanInfo
{
	List	   *quals;			/* Expr: WHERE, in evaluation order */
	List	   *keys;			/* Expr: group keys */
	List	   *aggrefs;		/* Aggref */
	List	   *having;			/* Expr: HAVING (the path's; the plan has it
								 * as its qual) */
	Index		varno;			/* of the Vars above */
	List	   *children;		/* NIL: the table varno; else Integers, the
								 * range table indexes of the partitions (or
								 * inheritance children) to scan instead,
								 * less varno (set_plan_references moves
								 * them all alike) */
	List	   *numeric_scales; /* GpuaggCompile's: the scales the planner
								 * found for numeric columns without a typmod */
	struct PartitionPruneInfo *prune;	/* with children: run-time pruning
										 * (its rtindexes less varno's
										 * offset, as children), or NULL */
	bool		remap;			/* the children lay out the columns read
								 * otherwise than the parent: found by name,
								 * read in column form */
	double		groups;			/* estimated groups */
	double		vram;			/* estimated device bytes */
	int			batch_rows;		/* rows per batch */
	int			device;			/* GpuaggDeviceKind chosen */
	List	   *gating;			/* Expr: one-time quals (the plan has them in
								 * custom_exprs, after the parameters) */
	List	   *params;			/* Param the program reads (the plan's
								 * custom_exprs) */
	bool		feed;			/* parallel workers only feed pages to the
								 * leader's session */
	bool		device_join;	/* the device runs the join (join.h) */
	int			before_join;	/* the first quals, which a native scan runs
								 * on every row before the join or a
								 * subquery condition's lookup (host) */
	List	   *sets;			/* GROUPING SETS: per set a List of the indexes
								 * of the keys it groups by, or NIL (one
								 * grouping by every key) */
	List	   *groupfuncs;		/* GroupingFunc: GROUPING() of the target list
								 * and HAVING, columns of the node's tuple
								 * after the aggregates */
	List	   *grouping_values;	/* ... per GroupingFunc, its value in each
									 * set (IntLists; one value without sets) */
	List	   *topn;			/* NIL, or Integers (n, aggregate, desc), a
								 * List of the tie keys' lists (group key
								 * indexes, sort operators, collations, nulls
								 * first; and an Integer: they are all the
								 * ORDER BY's other keys) and an Integer (a
								 * NULL sum first): ORDER BY that count or
								 * sum, those keys, LIMIT n above, so only
								 * groups reaching the n-th need be returned;
								 * or (n) alone: LIMIT n without ORDER BY */
	List	   *join;			/* NIL, or the join's other tables (join.c):
								 * their plans are the node's custom_plans
								 * after the exact path, in this order */
	List	   *fetch;			/* columns the host fetches per group through
								 * their table's primary key, which group
								 * keys hold: per table a List (its index's
								 * Oid, an IntList of the group keys' indexes
								 * in the index's column order, the Vars),
								 * columns of the node's tuple after the
								 * GROUPING()s (planner.c's fetched_columns) */
	List	   *host;			/* Expr: WHERE quals the host evaluates per
								 * row (x [NOT] IN (hashed subquery)); here,
								 * not in custom_exprs, whose Vars setrefs.c
								 * would look for in custom_scan_tlist */
} GpuaggPlanInfo;

extern List *GpuaggFormPlanInfo(const GpuaggPlanInfo *info);
extern void GpuaggDeformPlanInfo(List *priv, GpuaggPlanInfo *info);

/* exec.c */
extern Node *GpuaggCreateScanState(CustomScan *cscan);
extern void GpuaggExecInit(void);

/*
 * gpuagg.c: the row type of a C function returning a row of natts columns
 * (fcinfo's declared one), or an ERROR naming ALTER EXTENSION UPDATE when
 * the catalog's declaration is another version's; and the same check of a
 * set-returning function's tuple descriptor.
 */
extern TupleDesc GpuaggResultRow(FunctionCallInfo fcinfo, int natts, const char *function);
extern void GpuaggCheckColumns(TupleDesc tupdesc, int natts, const char *function);

#endif							/* GPUAGG_H */
