/*-------------------------------------------------------------------------
 *
 * join.h
 *		Aggregation over a join: the large table scanned in batches, each
 *		other table (a dimension) run first and matched per row.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUAGG_JOIN_H
#define GPUAGG_JOIN_H

#include "access/relscan.h"
#include "nodes/execnodes.h"
#include "nodes/pathnodes.h"
#include "utils/relcache.h"

#include "../cuda/gpuagg_abi.h"

/*
 * The planner's view (GpuaggJoinPlanFor): what try_gpuagg_path needs of a
 * join to offload its aggregation.
 */
typedef struct GpuaggJoinPlan
{
	RelOptInfo *fact;			/* the table scanned in batches */
	List	   *dim_paths;		/* Path: each dimension's, in probe order (the
								 * node's custom_paths after the exact path) */
	List	   *dim_safe_paths; /* ... each one's cheapest parallel-safe one
								 * (no Gather: each process of a parallel
								 * GpuAgg runs it), or NULL */
	List	   *residual;		/* RestrictInfo: join conditions the device
								 * evaluates after the match, with the
								 * table's WHERE */
	List	   *gating;			/* RestrictInfo: pseudoconstant ones */
	List	   *joincols;		/* GpuaggCompile's: IntLists (varno, attno) */
	List	   *priv;			/* GpuaggPlanInfo.join */
	double		dim_rows;		/* rows of the dimensions, all */
	double		dim_bytes;		/* ... and their bytes as the node holds them */
	Cost		dim_cost;		/* running their plans */
	/*
	 * ... of which those whose plans are sequential scans the device may
	 * read itself, in page batches (GaDimDesc.scan): their plans' cost,
	 * pages and rows (GpuaggJoinScanCosts)
	 */
	Cost		dim_scan_cost;
	double		dim_scan_pages;
	double		dim_scan_tuples;
	double		dim_scan_rows;	/* (their rows, which never reach the host) */
	Cost		subquery_cost;	/* ... of which the hashed subqueries' */
	bool		subquery_unsafe;	/* one of them is not parallel-safe */
} GpuaggJoinPlan;

/*
 * Can the aggregation over input_rel, a join, run as a GpuAgg?  NULL and
 * *jp filled if so, else why not.
 */
extern const char *GpuaggJoinPlanFor(PlannerInfo *root, RelOptInfo *input_rel,
									 GpuaggJoinPlan *jp);

/*
 * Set jp's dim_scan_* for the plans in its dim_paths: those a device join
 * reads in page batches, filtering them on the device (join.c's
 * scan_program), cost what the scanned table's pages and rows do, not a
 * serial scan's CPU.
 */
extern void GpuaggJoinScanCosts(PlannerInfo *root, GpuaggJoinPlan *jp);
/*
 * Where the device runs the join: a joined table whose cheapest plan is
 * not a sequential scan (an index-only scan of orders' o_custkey for
 * TPC-H Q22's NOT EXISTS) but which the device could scan itself, in page
 * batches, for less than the host's plan and the hashing of its rows,
 * gets its sequential scan (parallel-safe ones only where parallel_safe):
 * a plain table, not an inheritance parent nor a TABLESAMPLE, whose WHERE
 * cannot raise an error (GpuaggExprCannotFail).  Then GpuaggJoinScanCosts.
 */
extern void GpuaggJoinPreferDeviceScans(PlannerInfo *root, GpuaggJoinPlan *jp,
										bool parallel_safe);

/*
 * A GROUP BY's filters on a joined table: an inner-joined table's WHERE
 * conditions that read only columns the query groups by (keys, the
 * grouping's expressions) keep every row of a group or none, so they may
 * be checked per group after the aggregation instead, as HAVING would.
 * Where such conditions alone keep the device from scanning the table in
 * page batches (a range of strings under the database's collation: SSB
 * Q2.2's p_brand1 BETWEEN ...), and they and the others cannot fail,
 * the table's plan becomes a sequential scan without them (a copy of its
 * RelOptInfo with the other conditions and the estimates they give).
 * Returns those conditions' clauses (NIL for none) and multiplies *sel
 * (the selectivity of those the caller has already taken) by theirs,
 * where fit(arg, the product) says they drop few enough groups (the
 * caller's bound); jp's costs, rows and bytes follow, but for its
 * dim_scan_* (GpuaggJoinPreferDeviceScans, which the caller runs next,
 * sets them).  Inner joins only (a
 * semi, anti or left join's table filtered is not the join unfiltered),
 * not a table with a row-level security policy or under a security
 * barrier, and not where the device could read the table with them.  The
 * caller sees that nothing the node computes for a row or group can fail.
 */
/*
 * Is clause a comparison of one of keys (a Var) with a constant by
 * an operator of its type's default btree family, or IS [NOT] NULL of
 * it, or an AND, OR, NOT of such?  Equal keys then answer alike: it keeps
 * a group whole or not.
 */
extern bool GpuaggKeyComparison(Node *clause, List *keys);
extern List *GpuaggJoinKeyFilters(PlannerInfo *root, GpuaggJoinPlan *jp, List *keys,
								  bool (*fit) (void *arg, Selectivity sel), void *arg,
								  Selectivity *sel);

/*
 * x [NOT] IN (subquery) in the WHERE of the table scanned (planner.c's
 * host_qual: uncorrelated, hashed, x a column of the table) as one more
 * dimension, the last: a semi join, or an anti join with NOT IN's NULL
 * rules, whose rows are the subquery's (its plan stays PostgreSQL's
 * subplan, run by the node).  jp may be of no join yet.
 */
extern void GpuaggJoinAddSubquery(PlannerInfo *root, GpuaggJoinPlan *jp, Expr *clause);

/*
 * The SubPlan of such a clause, x IN (subquery) or NOT (x IN (subquery)),
 * and whether it is NOT IN; NULL for any other clause.
 */
extern SubPlan *GpuaggSubqueryOf(Node *clause, bool *notin);

/*
 * Will the device run the join (GpuaggJoinToDevice, below)?  Where every
 * dimension is matched on integer keys alone (the scanned table's, fact's,
 * of their operator's width), within the device's limits, and (setting)
 * gpuagg.device_joins is on, mark p's columns of the dimensions as a
 * device's (page form is possible) and say so.  The executor asks again
 * without the setting (a plan's decision stands), and then
 * GpuaggJoinToDevice does as the planner said.  A semi, anti or left
 * join's other conditions are the device's where GpuaggCompile compiled
 * them all (GaProgram.dimcond).
 */
extern bool GpuaggJoinDevicePlanned(List *priv, GaProgram *p, Oid fact, bool setting);
/* The joincols of a GpuaggPlanInfo.join (NIL without one). */
extern List *GpuaggJoinColumns(List *priv);
/*
 * ... and each dimension's other conditions of its join as written (a
 * List of Expr a dimension, NIL for none; NIL without any): GpuaggCompile's
 * dimconds.
 */
extern List *GpuaggJoinConditions(List *priv);
/* Its dimensions' count; ... of those with a plan below the node (custom_plans). */
extern int	GpuaggJoinDims(List *priv);
extern int	GpuaggJoinPlanDims(List *priv);
/*
 * ... and the clauses of the others (x [NOT] IN (subquery)), whose
 * parameters the plan's custom_exprs carry (plan.c).
 */
extern List *GpuaggJoinSubqueries(List *priv);
/* Dimension d's key conditions (Exprs, the planner's varnos), for EXPLAIN. */
extern List *GpuaggJoinKeyClauses(List *priv, int d);
/* ... and its join's kind: "semi", "anti", "left", or NULL (inner). */
extern const char *GpuaggJoinKindName(List *priv, int d);

/* The executor's: the dimensions' rows in hash tables, and the matching. */
typedef struct GpuaggJoin GpuaggJoin;

/*
 * dims: each dimension's PlanState, in priv's order, those of subqueries
 * left out (their SubPlanStates are made here, parent's subPlan); parent:
 * the node (its query's memory and parameters).
 */
extern GpuaggJoin *GpuaggJoinInit(List *priv, List *dims, PlanState *parent);
/*
 * WHERE quals (x [NOT] IN (hashed subquery)) the host evaluates per row of
 * the table, before any match: added to j, or, for a table without a
 * join (j NULL), a GpuaggJoin of no other table, whose one row per row
 * of the table is the row itself where the quals hold.
 */
extern GpuaggJoin *GpuaggJoinWithFilter(GpuaggJoin *j, List *quals, PlanState *parent);
/*
 * Where the host matches the join: does an inner or semi join with a
 * table of no rows (once built; not a subquery's) leave the scanned table
 * none?
 */
extern bool GpuaggJoinNone(GpuaggJoin *j);
/* The rows the host's filter dropped since the last call. */
extern uint64 GpuaggJoinTakeFiltered(GpuaggJoin *j);
/* A rescan with chgParam changed: where it reaches a dimension's plan, the
 * dimensions are run again at the next run's first row. */
extern void GpuaggJoinReScan(GpuaggJoin *j, Bitmapset *chgParam);
/* The largest attribute number of the scanned table the matching reads. */
extern int	GpuaggJoinMaxAttno(GpuaggJoin *j);

/*
 * The rows of the join for one row of the scanned table (slot, deformed up
 * to GpuaggJoinMaxAttno): First finds the first match (at a run's first
 * row, it runs the dimensions' plans and hashes their rows, as a native
 * hash join builds its table once it has an outer row), Next moves on to
 * the next; false when there is none (more).  GpuaggJoinValue is column k
 * (attribute GPUAGG_JOIN_ATTNO + k) of the current match.
 */
extern bool GpuaggJoinFirst(GpuaggJoin *j, TupleTableSlot *slot);
extern bool GpuaggJoinNext(GpuaggJoin *j);
extern Datum GpuaggJoinValue(GpuaggJoin *j, int k, bool *isnull);

/*
 * A join the device runs (cuda/gpuagg_join.h): where every dimension is
 * matched on integer keys (its other conditions compiled, no host filter)
 * and gpuagg.device_joins is on, describe it in prog (GaProgram.ndims: the
 * columns it reads of the dimensions, the table's key columns, added where
 * it reads none) and return true; else leave prog as it is.
 */
struct GpuaggProgram;
extern bool GpuaggJoinToDevice(GpuaggJoin *j, struct GpuaggProgram *prog, Relation rel,
							   int batch_rows);
/* Back to the host's matching, for good (too many strings for the device). */
extern void GpuaggJoinDeviceOff(GpuaggJoin *j, struct GpuaggProgram *prog);
/*
 * A run's start (the device's join): the dimensions' plans run, their rows
 * with no NULL key into out[d] (in cxt), their values as reader stores
 * the program's columns (strings, string keys too: codes in dict, the
 * reader's); a NOT IN's p->dims[d].notin as its rows say.
 */
struct GpuaggBatchReader;
struct GpuaggDict;
extern void GpuaggJoinCollect(GpuaggJoin *j, GaProgram *p,
							  struct GpuaggBatchReader *reader, struct GpuaggDict *dict,
							  MemoryContext cxt, GaDimData *out);

/*
 * Do dimension d's rows bound the scanned table's (an inner or semi join,
 * not a subquery's x IN): is its key k, through the keys of the
 * dimensions it is matched to, a column of the scanned table, so that a
 * row of it whose column holds none of d's keys has no match?  TPC-H Q18:
 * l_orderkey = o_orderkey and o_orderkey IN (SELECT l_orderkey ...).
 * That column's attno, and in *width its width as an integer; or 0.
 */
extern int	GpuaggJoinBoundColumn(GpuaggJoin *j, int d, int k, int *width);

/*
 * The table of dimension e, where the device scans it (GaDimDesc.scan),
 * it is an inner or semi join (not a subquery's x IN, nor NOT IN) and has
 * no WHERE of its own that could raise an error (GpuaggExprCannotFail):
 * a table whose rows an index probe may bound.  NULL otherwise.
 */
extern Relation GpuaggJoinProbeableDim(GpuaggJoin *j, int e);
/*
 * As GpuaggJoinBoundColumn, for dimension e's table in place of the
 * scanned table's: where dimension d's key k leads, through the keys of
 * the dimensions between, to a column of e's rows (TPC-H Q18's o_orderkey
 * IN (SELECT l_orderkey ...) and orders), the attno of e's table it is,
 * *width its width; 0 otherwise.
 */
extern int	GpuaggJoinDimBoundColumn(GpuaggJoin *j, int e, int d, int k, int *width);
/*
 * Dimension e's key k where it matches a column of an earlier dimension
 * the device scans (Q18's c_custkey = o_custkey): that dimension in *src
 * (else -1), its table's attno in *src_attno; e's table's attno
 * (returned, or 0) and its width in *width.  Integer keys only.
 */
extern int	GpuaggJoinDimKeySource(GpuaggJoin *j, int e, int k, int *src, int *src_attno,
								   int *width);
extern int	GpuaggJoinDimKeys(GpuaggJoin *j, int e);

/*
 * A dimension the device scans itself (GaDimDesc.scan: a plain sequential
 * scan of a heap table whose WHERE the device evaluates): a page-form
 * reader of its table for this run, with its program (of the whole table,
 * or with pscan of this process's share of a parallel scan of it); NULL
 * where the run cannot (then GpuaggJoinCollect's rows are its,
 * GaDimDesc.scan 0).
 */
struct GpuaggDict;
extern struct GpuaggBatchReader *GpuaggJoinScanReader(GpuaggJoin *j, int d,
													  struct GpuaggProgram *prog,
													  Snapshot snapshot, int batch_rows,
													  struct GpuaggDict *dict,
													  ExprContext *econtext,
													  ParallelTableScanDesc pscan);
/* ... the table it scans, where it may (NULL: none) */
extern Relation GpuaggJoinScanRel(GpuaggJoin *j, int d);
/* ... and its program, and the rows its plan expects */
extern const GaProgram *GpuaggJoinScanProgram(GpuaggJoin *j, int d, double *rows);

#endif							/* GPUAGG_JOIN_H */
