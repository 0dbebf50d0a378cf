/*-------------------------------------------------------------------------
 *
 * planner.c
 *		Offers a GpuAgg path for eligible aggregation queries.
 *
 * Through create_upper_paths_hook at UPPERREL_GROUP_AGG, when the input is
 * one plain heap table and every WHERE qual, group key and aggregate
 * compiles into a device program (program.c), a CustomPath that does scan,
 * filter, grouping and aggregation in one node is added beside the native
 * paths.  Where PostgreSQL considered a parallel aggregate (it built the
 * partially grouped rel, whose target holds the partial Aggrefs), the same
 * node is also offered as a parallel-aware partial path under Gather and a
 * native Finalize HashAggregate: each process scans its share of the
 * blocks, aggregates it on its own device session and returns partial
 * states, which the Finalize node combines with the aggregates' own combine
 * functions.  (PostgreSQL 15 calls the hook for the grouped rel only, after
 * its own partial paths are gathered, so we build Gather and Finalize
 * ourselves.)  Otherwise nothing is added and the reason is reported at DEBUG1,
 * or as a NOTICE when gpuagg.log_fallback is on.  Falling back is never an
 * error.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_class.h"
#include "catalog/pg_constraint.h"
#include "catalog/pg_index.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "mb/pg_wchar.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/plancat.h"
#include "optimizer/planner.h"
#include "optimizer/prep.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "partitioning/partprune.h"
#include "pgtime.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "batch.h"
#include "device.h"
#include "fetch.h"
#include "gpuagg.h"
#include "join.h"
#include "optimizer/cost.h"
#include "optimizer/paths.h"
#include "ledger.h"
#include "program.h"

/* Saved hook value */
static create_upper_paths_hook_type prev_create_upper_paths_hook = NULL;
static planner_hook_type prev_planner_hook = NULL;
static set_join_pathlist_hook_type prev_set_join_pathlist_hook = NULL;

/*
 * The cheapest parallel-safe serial path of each join rel, as the join
 * search makes it (gpuagg_set_join_pathlist): PostgreSQL's own may all
 * read a base rel's Gather, which a fed GpuAgg's exact path cannot.  A
 * copy of the path node, its inputs shared (paths of lower rels, which
 * stay).  Reset for each statement planned (gpuagg_planner).
 */
typedef struct SerialJoin
{
	PlannerInfo *root;
	RelOptInfo *rel;
	Path	   *path;
} SerialJoin;
static List *serial_joins = NIL;
static Path *saved_serial_join(PlannerInfo *root, RelOptInfo *rel);
static SerialJoin *serial_join_of(PlannerInfo *root, RelOptInfo *rel);

/*
 * The cheapest GpuAgg path offered in the statement being planned, and the
 * cheapest native one it competed with (total costs; -1: none), so that a
 * plan without GpuAgg can say it lost on cost.
 */
static double offered_cost = -1;
static double native_cost = -1;

static void report_fallback(const char *reason);

/* Is the extension installed in this database? */
static bool
extension_installed(void)
{
	return OidIsValid(get_extension_oid("gpuagg", true));
}

/*
 * while a second form of the statement is planned (decorrelate.c,
 * distinct.c); the last reason it would have given
 */
static bool quiet_fallback = false;
static char quiet_reason[1024];

/*
 * plan_statement's nesting (a statement planned while another is); the
 * depth of the rewritten statement plan_groups_quietly plans (0: none),
 * and whether its groups' aggregations are forced into GpuAggs; whether
 * a GpuAgg was offered for its groups, and the most a groups' GpuAgg
 * costs more than its native aggregation
 */
static int	plan_depth = 0;
static int	groups_depth = 0;
static bool groups_forced = false;
static bool groups_offered = false;
static double groups_extra = 0;

/* Is root a groups subquery of the statement plan_groups_quietly plans? */
static inline bool
groups_of(PlannerInfo *root)
{
	return groups_depth > 0 && plan_depth == groups_depth &&
		root->parse->queryId == GPUAGG_GROUPS_QUERY_ID;
}

/* gpuagg.force_offload, or a groups subquery plan_groups_quietly forces */
static inline bool
forcing_offload(PlannerInfo *root)
{
	return gpuagg_force_offload || (groups_forced && groups_of(root));
}

/* What the planner chose and why, with gpuagg.log_fallback (not quietly) */
static void
report_choice(const char *what)
{
	if (!quiet_fallback)
		ereport(gpuagg_log_fallback ? NOTICE : DEBUG1,
				(errmsg("gpuagg: %s", what)));
}

static void
report_fallback(const char *reason)
{
	if (quiet_fallback)
	{
		/* (cut at a character's end: it may name a table) */
		int			n = pg_mbcliplen(reason, strlen(reason), sizeof(quiet_reason) - 1);

		memcpy(quiet_reason, reason, n);
		quiet_reason[n] = '\0';
		return;
	}
	report_choice(psprintf("query not offloaded: %s", reason));
}

/*
 * Why a join is not offloaded, naming its tables (up to four, with their
 * aliases), as the fallback reason: "input is a join of lineitem l,
 * orders o: <why>".
 */
static const char *
join_words(PlannerInfo *root, Relids relids, const char *why)
{
	StringInfoData buf;
	int			i = -1,
				n = 0;

	initStringInfo(&buf);
	appendStringInfoString(&buf, "input is a join of ");
	while ((i = bms_next_member(relids, i)) >= 0)
	{
		RangeTblEntry *rte = planner_rt_fetch(i, root);

		if (rte->rtekind == RTE_JOIN)
			continue;
		if (n == 4)
		{
			appendStringInfoString(&buf, ", ...");
			break;
		}
		appendStringInfoString(&buf, n++ > 0 ? ", " : "");
		if (rte->rtekind == RTE_RELATION)
		{
			const char *name = get_rel_name(rte->relid);

			appendStringInfoString(&buf, name);
			if (rte->eref && strcmp(rte->eref->aliasname, name) != 0)
				appendStringInfo(&buf, " %s", rte->eref->aliasname);
		}
		else
			appendStringInfoString(&buf, rte->eref ? rte->eref->aliasname : "a subquery");
	}
	appendStringInfo(&buf, ": %s", why);
	return buf.data;
}

/*
 * Might this expression raise an error for some input?  Not if it is made
 * of leakproof operators and functions (which promise none), boolean
 * logic and NULL tests, and LIKEs the device compiles.
 */
static bool
may_fail(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) || IsA(node, Const) || IsA(node, Param))
		return false;
	if (IsA(node, OpExpr) || IsA(node, DistinctExpr) || IsA(node, NullIfExpr))
	{
		OpExpr	   *op = (OpExpr *) node;
		Const	   *pat = list_length(op->args) == 2 ? lsecond(op->args) : NULL;

		set_opfuncid(op);
		/* a LIKE the device compiles: a constant pattern not ending in an escape */
		if (GpuaggIsLike(op->opfuncid, NULL) &&
			pat != NULL && IsA(pat, Const) && !pat->constisnull &&
			!GpuaggLikeEndsInEscape(pat->constvalue))
			return expression_tree_walker(node, may_fail, context);
		if (!get_func_leakproof(op->opfuncid))
			return true;
	}
	else if (IsA(node, ScalarArrayOpExpr))
	{
		set_sa_opfuncid((ScalarArrayOpExpr *) node);
		if (!get_func_leakproof(((ScalarArrayOpExpr *) node)->opfuncid))
			return true;
	}
	else if (IsA(node, FuncExpr))
	{
		if (!get_func_leakproof(((FuncExpr *) node)->funcid))
			return true;
	}
	else if (!IsA(node, BoolExpr) && !IsA(node, NullTest) && !IsA(node, BooleanTest) &&
			 !IsA(node, RelabelType) && !IsA(node, ArrayExpr))
		return true;
	return expression_tree_walker(node, may_fail, context);
}

/* Does the qual read a string column other than as a LIKE's operand? */
static bool
reads_string(Node *qual)
{
	ListCell   *lc;

	if (IsA(qual, OpExpr))
	{
		set_opfuncid((OpExpr *) qual);
		if (GpuaggIsLike(((OpExpr *) qual)->opfuncid, NULL))
			return false;
	}
	foreach(lc, pull_var_clause(qual, 0))
	{
		Oid			t = exprType(lfirst(lc));

		if (t == TEXTOID || t == VARCHAROID || t == BPCHAROID)
			return true;
	}
	return false;
}

/*
 * The quals again, those that read no string column first, when no qual
 * can raise an error (so that the order decides nothing but the work): a
 * device then codes a row's strings only where those quals keep it
 * (GaDeferred, gpuagg_page.h).  PostgreSQL's own order puts an equality
 * with a constant, which it rebuilds from an equivalence class, last.
 */
static List *
strings_last(List *quals)
{
	List	   *plain = NIL,
			   *strings = NIL;
	ListCell   *lc;

	foreach(lc, quals)
	{
		Node	   *q = lfirst(lc);

		if (may_fail(q, NULL))
			return quals;
		if (reads_string(q))
			strings = lappend(strings, q);
		else
			plain = lappend(plain, q);
	}
	return list_concat(plain, strings);
}

/* (gpuagg.h) */
List *
GpuaggOrderedQuals(PlannerInfo *root, List *quals)
{
	int			n = list_length(quals);
	Node	  **items = palloc(sizeof(Node *) * Max(n, 1));
	Index	   *levels = palloc(sizeof(Index) * Max(n, 1));
	Cost	   *costs = palloc(sizeof(Cost) * Max(n, 1));
	List	   *result = NIL;
	int			i = 0;
	ListCell   *lc;

	foreach(lc, quals)
	{
		QualCost	qcost;

		items[i] = lfirst(lc);
		levels[i] = IsA(items[i], RestrictInfo) ?
			((RestrictInfo *) items[i])->security_level : 0;
		cost_qual_eval_node(&qcost, items[i], root);
		costs[i] = qcost.per_tuple;
		i++;
	}
	for (i = 1; i < n; i++)
	{
		Node	   *item = items[i];
		Index		level = levels[i];
		Cost		cost = costs[i];
		int			j;

		for (j = i; j > 0; j--)
		{
			if (level > levels[j - 1] || (level == levels[j - 1] && cost >= costs[j - 1]))
				break;
			items[j] = items[j - 1];
			levels[j] = levels[j - 1];
			costs[j] = costs[j - 1];
		}
		items[j] = item;
		levels[j] = level;
		costs[j] = cost;
	}
	for (i = 0; i < n; i++)
		result = lappend(result, IsA(items[i], RestrictInfo) ?
						 (Node *) ((RestrictInfo *) items[i])->clause : items[i]);
	return result;
}

typedef struct CollectContext
{
	List	   *aggrefs;
	List	   *groupfuncs;
	List	   *keys;
	List	   *uncovered;		/* Vars outside them */
} CollectContext;

/*
 * Collect the Aggrefs and GROUPING()s of an upper expression and check
 * that every Var outside them lies inside a group key expression
 * (setrefs.c must find each in the node's custom_scan_tlist).
 */
static bool
collect_walker(Node *node, CollectContext *cxt)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		cxt->aggrefs = list_append_unique(cxt->aggrefs, node);
		return false;
	}
	if (IsA(node, GroupingFunc))
	{
		cxt->groupfuncs = list_append_unique(cxt->groupfuncs, node);
		return false;
	}
	if (list_member(cxt->keys, node))
		return false;
	if (IsA(node, Var))
	{
		cxt->uncovered = list_append_unique(cxt->uncovered, node);
		return false;
	}
	return expression_tree_walker(node, collect_walker, (void *) cxt);
}

static bool
rel_has_rls(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	bool		result;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	result = ((Form_pg_class) GETSTRUCT(tup))->relrowsecurity;
	ReleaseSysCache(tup);
	return result;
}

/*
 * Does the relation expand to other tables?  An inheritance parent whose
 * children were dropped still expands, to itself alone; that reads exactly
 * the parent's rows and is eligible.
 */
static bool
has_inheritance_children(PlannerInfo *root, Index relid)
{
	ListCell   *lc;

	foreach(lc, root->append_rel_list)
	{
		AppendRelInfo *appinfo = lfirst_node(AppendRelInfo, lc);

		if (appinfo->parent_relid == relid &&
			planner_rt_fetch(appinfo->child_relid, root)->relid != appinfo->parent_reloid)
			return true;
	}
	return false;
}

/* Bytes of batch data per row for the program's columns. */
static double
row_width(const GaProgram *p)
{
	double		w = 0;

	for (uint32 i = 0; i < p->ncols; i++)
		w += ga_type_width(p->cols[i].type) + 0.125;
	return Max(w, 1.0);
}

/*
 * Slots of a device hash table holding need entries at half load, as
 * engine_half_load_cap sizes it: a power of two, 1024 at least.
 */
static double
half_load_slots(double need)
{
	return pow(2.0, ceil(log2(Max(need, 512.0) * 2.0)));
}

/*
 * Bytes of a device hash table (a group table, a distinct set) that ends
 * with n entries: the engine starts it with room for `first' entries and,
 * before each batch, grows it so that its entries plus a whole batch stay
 * under half load; while the last growth copies, the old table (half the
 * new one) is there too.
 */
static double
table_bytes(double n, double first, int batch_rows, uint32 nkeys, uint32 nslots)
{
	double		start = half_load_slots(first);
	double		slots = Max(half_load_slots(n + batch_rows), start);

	return (slots > start ? 1.5 : 1.0) * slots * ga_slot_bytes(nkeys, nslots);
}

/*
 * Device memory a query needs: two staging batches in flight, the group
 * table, a distinct set per count(DISTINCT) sized for its (group, value)
 * pairs, the packed result (and a GPU Top-N's histogram, and the pairs of
 * the sets the host folds), and the program.
 */
static double
vram_estimate(const GaProgram *p, double groups, const double *pairs,
			  int batch_rows)
{
	double		staging = 2.0 * batch_rows * row_width(p);
	double		bytes;
	bool		any_pairs = false,
				osa = false;

	/* (without group keys, one group: engine.c sizes its table so) */
	bytes = staging +
		(p->nkeys == 0 ? table_bytes(1.0, 1.0, 0, 0, p->nslots) :
		 table_bytes(groups, groups + batch_rows, batch_rows, p->nkeys, p->nslots)) +
		Max(groups, 1.0) * ga_slot_bytes(p->nkeys, p->nslots) + 8 * GA_TOPN_HIST +
		sizeof(GaProgram);

	for (uint32 j = 0; j < p->ndistinct; j++)
		bytes += table_bytes(pairs[j], batch_rows + 1.0, batch_rows, p->nkeys + 1,
							 ga_set_counted(p, j));
	/*
	 * the (group, value) pairs of the sets the host folds, packed, and of an
	 * ordered-set aggregate's, with their rows; the group table's slot
	 * positions they are packed by; the select's scratch, shared
	 * (engine.c's ga_engine_finish)
	 */
	for (uint32 a = 0; a < p->naggs; a++)
	{
		if (!ga_agg_set_pairs(&p->aggs[a]))
			continue;
		any_pairs = true;
		/* (the device selects, with its histograms, but of strings) */
		osa |= ga_agg_ordered(p->aggs[a].kind) && !p->aggs[a].host_select;
		bytes += (ga_agg_ordered(p->aggs[a].kind) ? 24.0 : 16.0) * pairs[p->aggs[a].distinct];
	}
	if (any_pairs)
		bytes += 8.0 * half_load_slots(groups + batch_rows);
	if (osa)
		bytes += (16.0 + 16.0 * GA_OSA_DIGITS) * Max(groups, 1.0);
	return bytes;
}

static int
batch_rows_for(const GaProgram *p)
{
	double		rows = (double) gpuagg_batch_size * 1024.0 / row_width(p);

	rows = Max(rows, 1024.0);
	rows = Min(rows, 4.0 * 1024 * 1024);
	return ((int) rows + 7) & ~7;
}

/*
 * The device a query would run on, or false with *reason.  cuda is taken at
 * its word (a failure at run time moves the query to the CPU device); auto
 * offloads only where a GPU looks usable.
 */
static bool
choose_device(int *device, const char **reason)
{
	const char *why;

	switch (gpuagg_device)
	{
		case GPUAGG_DEVICE_CPU:
			*device = GPUAGG_DEVICE_CPU;
			return true;
		case GPUAGG_DEVICE_CUDA:
			*device = GPUAGG_DEVICE_CUDA;
			return true;
		default:
			if (GpuaggCudaProbe(&why))
			{
				*device = GPUAGG_DEVICE_CUDA;
				return true;
			}
			elog(DEBUG1, "gpuagg: no usable GPU: %s", why);
			*reason = "no usable GPU (gpuagg.device = auto)";
			return false;
	}
}

/*
 * Groups a process would return above which a parallel page-form GpuAgg is
 * fed (gpuagg.fed_groups).  Its default, -1, means: always on CUDA, where
 * the leader's one device session keeps up with the workers pinning pages
 * and fed and partial plans run alike with few groups (so a group
 * estimate far too low costs nothing); above
 * 100,000 on the CPU device, whose fed leader would aggregate every row on
 * its one core, and where parallel_leader_participation is off (no fed
 * plan then).
 */
static double
fed_groups(int device)
{
	if (gpuagg_fed_groups >= 0)
		return gpuagg_fed_groups;
	/* (no fed plan without the leader: partial where groups are few) */
	return device == GPUAGG_DEVICE_CUDA && parallel_leader_participation ? 0 : 100000;
}

/* A GpuAgg path offered to the planner: the cheapest so far is kept. */
static void
note_offer(Path *path)
{
	if (offered_cost < 0 || path->total_cost < offered_cost)
		offered_cost = path->total_cost;
}

/* Does this path aggregate in a GpuAgg node (maybe under Gather, Sort)? */
static bool
path_has_gpuagg(Path *path)
{
	if (IsA(path, CustomPath))
		return ((CustomPath *) path)->methods == &GpuaggPathMethods;
	if (IsA(path, AggPath))
		return path_has_gpuagg(((AggPath *) path)->subpath);
	if (IsA(path, GatherPath))
		return path_has_gpuagg(((GatherPath *) path)->subpath);
	if (IsA(path, GatherMergePath))
		return path_has_gpuagg(((GatherMergePath *) path)->subpath);
	if (IsA(path, SortPath) || IsA(path, IncrementalSortPath))
		return path_has_gpuagg(((SortPath *) path)->subpath);
	if (IsA(path, ProjectionPath))
		return path_has_gpuagg(((ProjectionPath *) path)->subpath);
	if (IsA(path, AppendPath))
	{
		/* the partitions' groupings, partitionwise */
		ListCell   *lc;

		foreach(lc, ((AppendPath *) path)->subpaths)
		{
			if (path_has_gpuagg(lfirst(lc)))
				return true;
		}
	}
	return false;
}

/*
 * gpuagg.force_offload, a developer's knob: only the paths that aggregate
 * in a GpuAgg stay.  Returns false, leaving the rel alone, where none does.
 */
static bool
keep_gpuagg_paths(RelOptInfo *rel)
{
	List	   *keep = NIL;
	ListCell   *lc;

	foreach(lc, rel->pathlist)
	{
		if (path_has_gpuagg(lfirst(lc)))
			keep = lappend(keep, lfirst(lc));
	}
	if (keep == NIL)
		return false;
	rel->pathlist = keep;
	rel->partial_pathlist = NIL;
	return true;
}

/* Processes that share a parallel scan, as costsize.c counts them. */
static double
parallel_divisor(int workers)
{
	double		divisor = workers;

	if (parallel_leader_participation && 1.0 - 0.3 * workers > 0)
		divisor += 1.0 - 0.3 * workers;
	return divisor;
}

/* Whether PostgreSQL can plan this grouping's partial aggregation. */
static bool
partial_possible(GroupPathExtraData *extra)
{
	return (extra->flags & GROUPING_CAN_PARTIAL_AGG) && extra->partial_costs_set;
}

/*
 * The rows LIMIT and OFFSET constants let out (their sum), or -1 (no
 * LIMIT, or one known only at execution).  PostgreSQL's root->limit_tuples
 * is -1 wherever there is grouping: it bounds the scan's rows.
 */
static double
const_limit(Query *parse)
{
	Const	   *count = (Const *) parse->limitCount;
	Const	   *offset = (Const *) parse->limitOffset;
	double		n;

	if (count == NULL || !IsA(count, Const) || count->constisnull ||
		count->consttype != INT8OID)
		return -1;
	n = (double) DatumGetInt64(count->constvalue);
	if (offset != NULL)
	{
		if (!IsA(offset, Const) || offset->consttype != INT8OID)
			return -1;
		if (!offset->constisnull)
			n += (double) Max(DatumGetInt64(offset->constvalue), 0);
	}
	return n;
}

/*
 * The sort keys after the first, up to the first that is not a group key
 * of a type passed by value (topn.c compares them without a dictionary),
 * each group key once (ORDER BY may name one under several aliases; again
 * it breaks no tie), as lists: group key indexes, sort operators,
 * collations, nulls first; and whether they are all the sort keys left
 * (then groups equal in all of them are interchangeable: not under FETCH
 * ... WITH TIES, which returns every one).
 */
static List *
topn_tie_keys(Query *parse, List *keys, const GpuaggProgram *prog)
{
	List	   *idx = NIL,
			   *ops = NIL,
			   *colls = NIL,
			   *nulls = NIL;
	ListCell   *lc;
	bool		whole = true;

	for_each_from(lc, parse->sortClause, 1)
	{
		SortGroupClause *sc = lfirst_node(SortGroupClause, lc);
		TargetEntry *te = get_sortgroupclause_tle(sc, parse->targetList);
		ListCell   *lk;
		int			k = -1;
		int			type;

		whole = false;

		foreach(lk, keys)
		{
			if (equal(lfirst(lk), te->expr))
			{
				k = foreach_current_index(lk);
				break;
			}
		}
		if (k < 0)
			break;
		type = prog->ga.keytype[k];
		if (type == GA_T_TEXT || type == GA_T_BPCHAR || type == GA_T_NULLONLY ||
			type == GA_T_NUMERIC)
			break;
		whole = true;
		if (list_member_int(idx, k))
			continue;
		idx = lappend_int(idx, k);
		ops = lappend_oid(ops, sc->sortop);
		colls = lappend_oid(colls, exprCollation((Node *) te->expr));
		nulls = lappend_int(nulls, sc->nulls_first ? 1 : 0);
	}
	whole &= parse->limitOption != LIMIT_OPTION_WITH_TIES;
	return list_make5(idx, ops, colls, nulls, makeInteger(whole ? 1 : 0));
}

/*
 * ORDER BY count(...) or sum(...) of integers or numerics LIMIT n straight
 * over the grouping (nothing between them that filters or multiplies
 * groups: HAVING, window functions, DISTINCT): the GpuAgg node need return
 * only the groups whose count (sum) reaches the n-th largest (DESC) or
 * smallest (ASC), ties all kept; the
 * Sort and Limit above still order them exactly, by every sort key, and
 * pick.  Sort keys after the count that are group keys of a type passed
 * by value break the count's ties the same way (with a group a row, all
 * counts tie at 1, and every group would go out otherwise).  As (n, the
 * aggregate's index, descending, the tie keys as lists: group key
 * indexes, sort operators, collations, nulls first; and whether a NULL
 * sum ranks first), or (n) alone for a LIMIT without ORDER BY, or NIL.
 */
static List *
topn_for(PlannerInfo *root, List *aggrefs, List *keys, List *fetched, List *outputs,
		 const GpuaggProgram *prog, GroupPathExtraData *extra)
{
	Query	   *parse = root->parse;
	SortGroupClause *sortcl;
	TargetEntry *tle;
	Oid			opfamily;
	Oid			opcintype;
	int16		strategy;
	bool		by_int8;
	bool		by_numeric;
	double		limit = const_limit(parse);
	ListCell   *lc;

	if (limit <= 0 || limit > 1000000.0 ||
		extra->havingQual != NULL || parse->hasWindowFuncs ||
		parse->distinctClause != NIL || parse->hasTargetSRFs)
		return NIL;
	/*
	 * A sum of intervals of a group left out could natively pass their
	 * range (the whole result then takes the exact path, GpuaggIntervalSumsUnsafe)
	 */
	if (GpuaggProgramSumsIntervals(&prog->ga))
		return NIL;

	/*
	 * Nothing computed per group that could fail for a group left out (an
	 * expression over the aggregates, a SubPlan): a native plan computes
	 * such cheap expressions below its Sort, for every group.  (A column
	 * fetched by a primary key, fetched: only for the groups returned.)
	 */
	foreach(lc, outputs)
	{
		Node	   *e = lfirst(lc);

		if (!IsA(e, Aggref) && !IsA(e, Const) && !list_member(keys, e) &&
			!list_member(fetched, e))
			return NIL;
	}
	/*
	 * LIMIT n without ORDER BY: any n groups will do, so the node may return
	 * just n (ClickBench Q18's 10 of 24M groups, and of their search phrases
	 * only those 10 groups show).  Not where a group left out could still
	 * raise an error natively raised as rows are aggregated: a float sum's
	 * overflow, which the devices raise as a group is finished.
	 */
	if (parse->sortClause == NIL)
	{
		for (uint32 a = 0; a < prog->ga.naggs; a++)
			if (ga_agg_flags_slot(prog->ga.aggs[a].kind) >= 0 ||
				ga_agg_set_pairs(&prog->ga.aggs[a]))
				return NIL;
		return list_make1(makeInteger((int) limit));
	}
	sortcl = linitial_node(SortGroupClause, parse->sortClause);
	tle = get_sortgroupclause_tle(sortcl, parse->targetList);
	if (!get_ordering_op_properties(sortcl->sortop, &opfamily, &opcintype, &strategy))
		return NIL;
	by_int8 = opcintype == INT8OID && opfamily == INTEGER_BTREE_FAM_OID;
	by_numeric = opcintype == NUMERICOID &&
		opfamily == lookup_type_cache(NUMERICOID, TYPECACHE_BTREE_OPFAMILY)->btree_opf;
	foreach(lc, aggrefs)
	{
		const GaAgg *ag = &prog->ga.aggs[foreach_current_index(lc)];
		Aggref	   *aggref = lfirst_node(Aggref, lc);

		/*
		 * a count; a sum of int2 or int4 (int8), or of int8 or numeric
		 * (numeric, at one scale: the device's int128s order as they do)
		 */
		/* (a count(DISTINCT) the device counts: its value is the node's) */
		if ((ag->distinct < 0 || (ag->kind == GA_AGG_COUNT && !ga_agg_host_folds(ag))) &&
			equal(aggref, tle->expr) &&
			((ag->kind == GA_AGG_COUNT && by_int8) ||
			 (ag->kind == GA_AGG_SUM_I64 && by_int8 &&
			  (aggref->aggfnoid == F_SUM_INT2 || aggref->aggfnoid == F_SUM_INT4)) ||
			 (ag->kind == GA_AGG_SUM_I128 && by_numeric &&
			  (aggref->aggfnoid == F_SUM_INT8 || aggref->aggfnoid == F_SUM_NUMERIC))))
			return list_make5(makeInteger((int) limit),
							  makeInteger(foreach_current_index(lc)),
							  makeInteger(strategy == BTGreaterStrategyNumber ? 1 : 0),
							  topn_tie_keys(parse, keys, prog),
							  makeInteger(sortcl->nulls_first ? 1 : 0));
	}
	return NIL;
}

/*
 * What try_gpuagg_path learns of one grouping as it decides, a step at a
 * time; each step returns NULL or the reason why there is no GpuAgg path.
 */
typedef struct GpuaggCandidate
{
	PlannerInfo *root;
	RelOptInfo *input_rel;
	RelOptInfo *scan_rel;		/* the table scanned: input_rel, or of a join
								 * the one streamed past the others */
	GpuaggJoinPlan join;		/* a join's other tables (join.c) */
	bool		is_join;
	bool		device_join;	/* ... which the device runs (join.h) */
	RelOptInfo *output_rel;		/* where the path goes */
	RelOptInfo *grouped_rel;	/* ... and Finalize Aggregate, when partial */
	GroupPathExtraData *extra;
	bool		partial;		/* each process aggregates its share */
	bool		feed;			/* workers pin pages for the leader */

	List	   *quals;			/* WHERE on the scan, in evaluation order */
	List	   *gating;			/* one-time quals */
	List	   *host;			/* quals the host evaluates per row */
	int			before_join;	/* GpuaggPlanInfo's */
	List	   *keys;			/* group keys */
	List	   *keyrefs;		/* ... their ressortgrouprefs */
	List	   *named_keys;		/* ... those GROUP BY names (the others each
								 * a column one of these determines) */
	List	   *fetch;			/* GpuaggPlanInfo's: columns determined by a
								 * table's primary key, fetched by it */
	List	   *aggrefs;
	List	   *groupfuncs;		/* GROUPING() in the target list and HAVING */
	List	   *sets;			/* grouping sets (GpuaggPlanInfo.sets), or NIL */
	List	   *grouping_values;	/* GpuaggPlanInfo's */
	GpuaggProgram *prog;
	int			device;			/* GpuaggDeviceKind */
	int			workers;		/* parallel workers (partial or feed) */
	double		divisor;		/* rows a process, of all */
	double		rows;
	double		groups;			/* the device's (every key of every set) */
	double		out_groups;		/* the node's: each grouping set's groups */
	int			batch_rows;
	double		pairs[GA_MAX_DISTINCT]; /* (group, value) of count(DISTINCT) */
	double		vram;			/* estimated device bytes of one session */
	const char *no_pages;		/* why no page form, or NULL */
	List	   *children;		/* partitions or inheritance children: the
								 * range table indexes of the tables to scan,
								 * or NIL for the table itself */
	double		pages;			/* of the tables scanned */
	bool		remap;			/* children laid out otherwise: their columns
								 * found by name, in column form, serially */
	bool		exact;			/* numerics that may not fit: the native plan
								 * goes along as the exact path */
	Path	   *exact_path;		/* ... this one */
	List	   *numeric_scales; /* GpuaggCompile's */
	List	   *key_filters;	/* WHERE quals on group keys alone, the
								 * table's or a joined table's, checked per
								 * group (key_filters_of_table,
								 * GpuaggJoinKeyFilters) */
	Selectivity key_filter_sel; /* ... the share of groups they keep (1
								 * without) */
} GpuaggCandidate;

/*
 * Why the scan will not send page-form batches, or NULL if it will where
 * the device has mapped shared buffers (batch.c's rule, which the scan
 * applies again).
 */
static const char *
page_form_missing(GpuaggCandidate *c)
{
	List	   *rtis = c->children ? c->children : list_make1_int(c->scan_rel->relid);
	const char *why = NULL;
	ListCell   *lc;

	foreach(lc, rtis)
	{
		Relation	rel = table_open(planner_rt_fetch(lfirst_int(lc), c->root)->relid, NoLock);

		why = GpuaggPageFormMissing(&c->prog->ga, rel, batch_rows_for(&c->prog->ga));
		table_close(rel, NoLock);
		if (why != NULL)
			break;
	}
	return why;
}

/*
 * What the statistics of each numeric column without a typmod the query
 * reads say of its values' display scales, into c->numeric_scales for
 * GpuaggCompile (a List a column: its attno, a GpuaggScaleFound, the
 * smallest and the largest display scale seen, its name).  When they all have one,
 * the device reads the column at that scale and checks every value's
 * (a value of another sends the scan to the exact path), so that sums,
 * products and their display scales are PostgreSQL's.  A column whose
 * values are not read (count(n)) needs none: the compiler decides.
 */
static void
numeric_scales(GpuaggCandidate *c)
{
	List	   *exprs = list_concat(list_concat_copy(c->quals, c->keys), c->aggrefs);
	List	   *vars = pull_var_clause((Node *) exprs, PVC_RECURSE_AGGREGATES |
									   PVC_RECURSE_WINDOWFUNCS | PVC_RECURSE_PLACEHOLDERS);
	ListCell   *lc;

	c->numeric_scales = NIL;
	foreach(lc, vars)
	{
		Var		   *var = lfirst_node(Var, lc);
		RangeTblEntry *rte = planner_rt_fetch(var->varno, c->root);
		HeapTuple	tup = NULL;
		int			lo = INT_MAX,
					hi = -1,
					found,
					attno = var->varattno;
		bool		seen = false;
		ListCell   *lc2;
		int32		typmod = var->vartypmod;

		/* (a domain's column: its base type's, as GpuaggCompile reads it) */
		if (getBaseTypeAndTypmod(var->vartype, &typmod) != NUMERICOID || typmod >= 0 ||
			var->varattno <= 0 || var->varlevelsup != 0)
			continue;
		/* a joined table's column: as the program reads it (program.h) */
		if (var->varno != c->scan_rel->relid)
		{
			attno = -1;
			foreach(lc2, c->join.joincols)
			{
				if (linitial_int(lfirst(lc2)) == (int) var->varno &&
					lsecond_int(lfirst(lc2)) == (int) var->varattno)
					attno = GPUAGG_JOIN_ATTNO + foreach_current_index(lc2);
			}
			if (attno < 0)
				continue;		/* (the compiler refuses it) */
		}
		foreach(lc2, c->numeric_scales)
			seen |= intVal(linitial((List *) lfirst(lc2))) == attno;
		if (seen)
			continue;
		/* a parent's over its children, else the table's own */
		if (rte->rtekind == RTE_RELATION)
			tup = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(rte->relid),
								  Int16GetDatum(var->varattno), BoolGetDatum(rte->inh));
		if (rte->rtekind == RTE_RELATION && !HeapTupleIsValid(tup) && rte->inh)
			tup = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(rte->relid),
								  Int16GetDatum(var->varattno), BoolGetDatum(false));
		if (HeapTupleIsValid(tup))
		{
			for (int kind = 0; kind < 2; kind++)
			{
				AttStatsSlot sslot;

				if (!get_attstatsslot(&sslot, tup,
									  kind == 0 ? STATISTIC_KIND_MCV : STATISTIC_KIND_HISTOGRAM,
									  InvalidOid, ATTSTATSSLOT_VALUES))
					continue;
				for (int i = 0; i < sslot.nvalues; i++)
				{
					int			ds = GpuaggNumericDscale(sslot.values[i]);

					if (ds >= 0)
					{
						lo = Min(lo, ds);
						hi = Max(hi, ds);
					}
				}
				free_attstatsslot(&sslot);
			}
			ReleaseSysCache(tup);
		}
		found = !HeapTupleIsValid(tup) ? GPUAGG_SCALE_NO_STATISTICS :
			hi < 0 ? GPUAGG_SCALE_NO_VALUE :
			lo != hi ? GPUAGG_SCALE_SEVERAL : GPUAGG_SCALE_FOUND;
		c->numeric_scales = lappend(c->numeric_scales,
									list_make5(makeInteger(attno), makeInteger(found),
											   makeInteger(lo), makeInteger(hi),
											   makeString(get_rte_attribute_name(rte,
																				 var->varattno))));
	}
}

/*
 * The tables a partitioned table (or an inheritance parent) reads, after
 * the planner's pruning and constraint exclusion: the leaves under parent
 * in the append_rel_list, which holds only the partitions that remain
 * (sub-partitioned tables nest; inheritance is flattened, the parent
 * itself one of its children).  Into c->children and c->pages.
 */
static const char *
collect_children(GpuaggCandidate *c, Index parent)
{
	ListCell   *lc;

	foreach(lc, c->root->append_rel_list)
	{
		AppendRelInfo *appinfo = lfirst_node(AppendRelInfo, lc);
		RangeTblEntry *rte;
		RelOptInfo *rel;
		const char *why;

		if (appinfo->parent_relid != parent)
			continue;
		rte = planner_rt_fetch(appinfo->child_relid, c->root);
		rel = c->root->simple_rel_array[appinfo->child_relid];
		if (rel == NULL || IS_DUMMY_REL(rel))
			continue;			/* excluded by its constraints */
		if (rte->relkind == RELKIND_PARTITIONED_TABLE)
		{
			if ((why = collect_children(c, appinfo->child_relid)) != NULL)
				return why;
			continue;
		}
		if (rte->relkind == RELKIND_FOREIGN_TABLE)
			return psprintf("partition \"%s\" is a foreign table", get_rel_name(rte->relid));
		if (rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW)
			return psprintf("partition \"%s\" is not a plain heap table", get_rel_name(rte->relid));
		c->children = lappend_int(c->children, appinfo->child_relid);
		c->pages += rel->pages;
	}
	return NULL;
}

/* Do the two relations hold the same value for a column added to them later? */
static bool
same_missing(TupleDesc a, TupleDesc b, int attnum)
{
	bool		anull,
				bnull;
	Datum		ad = getmissingattr(a, attnum, &anull);
	Datum		bd = getmissingattr(b, attnum, &bnull);
	Form_pg_attribute att = TupleDescAttr(a, attnum - 1);

	return anull == bnull && (anull || datumIsEqual(ad, bd, att->attbyval, att->attlen));
}

/*
 * May the reader take the children's tuples for the parent's, in page form
 * and in parallel?  NULL if so, else how they differ.  Every attribute up to
 * the last the program reads must lie where the parent has it, with the
 * same name, type and storage, and a column added later must have the same
 * value where a tuple predates it.  A partition created after a column of
 * its parent was dropped, or attached with its columns in another order,
 * differs.
 */
static const char *
children_alike(GpuaggCandidate *c)
{
	const GaProgram *p = &c->prog->ga;
	Relation	parent = table_open(planner_rt_fetch(c->scan_rel->relid, c->root)->relid, NoLock);
	TupleDesc	pd = RelationGetDescr(parent);
	Relation	first = NULL;
	int			maxattno = 0;
	const char *why = NULL;
	ListCell   *lc;

	/*
	 * (the columns the program reads; of a join every one, as the matches
	 * read its key columns too, and not the joined tables' columns past
	 * the table's own, GPUAGG_JOIN_ATTNO on)
	 */
	for (uint32 i = 0; i < p->ncols; i++)
		if (p->cols[i].attno < GPUAGG_JOIN_ATTNO)
			maxattno = Max(maxattno, p->cols[i].attno);
	if (c->is_join)
		maxattno = pd->natts;
	foreach(lc, c->children)
	{
		Relation	rel = table_open(planner_rt_fetch(lfirst_int(lc), c->root)->relid, NoLock);
		TupleDesc	d = RelationGetDescr(rel);

		if (first && rel->rd_rel->relam != first->rd_rel->relam)
			why = "partitions of different table access methods";
		for (int i = 0; why == NULL && i < maxattno; i++)
		{
			Form_pg_attribute a = i < d->natts ? TupleDescAttr(d, i) : NULL;
			Form_pg_attribute b = TupleDescAttr(pd, i);

			if (a == NULL || a->attisdropped != b->attisdropped || a->attlen != b->attlen ||
				a->attalign != b->attalign || a->attbyval != b->attbyval ||
				(!a->attisdropped &&
				 (a->atttypid != b->atttypid || a->atttypmod != b->atttypmod ||
				  a->attcollation != b->attcollation ||
				  strcmp(NameStr(a->attname), NameStr(b->attname)) != 0)))
				why = psprintf("partition \"%s\" lays out its columns otherwise than \"%s\" (a dropped column, or another order)",
							   RelationGetRelationName(rel), RelationGetRelationName(parent));
			else if (first && !a->attisdropped && !same_missing(RelationGetDescr(first), d, i + 1))
				why = psprintf("partitions \"%s\" and \"%s\" hold different values for column \"%s\" where their rows predate it",
							   RelationGetRelationName(first), RelationGetRelationName(rel),
							   NameStr(a->attname));
		}
		if (first == NULL)
			first = rel;
		else
			table_close(rel, NoLock);
		if (why != NULL)
			break;
	}
	if (first)
		table_close(first, NoLock);
	table_close(parent, NoLock);
	return why;
}

/* What the query and its one table must be, whatever the device. */
static const char *
query_eligible(GpuaggCandidate *c)
{
	Query	   *parse = c->root->parse;
	RelOptInfo *input_rel = c->input_rel;
	RangeTblEntry *rte;

	if (parse->commandType != CMD_SELECT)
		return "not a SELECT";
	if (parse->hasTargetSRFs)
		return "set-returning functions in the target list";
	if (input_rel->reloptkind == RELOPT_JOINREL)
	{
		/* the largest table streamed past the others (join.c) */
		const char *why = GpuaggJoinPlanFor(c->root, input_rel, &c->join);

		if (why != NULL)
			return join_words(c->root, input_rel->relids, why);
		c->is_join = true;
		c->scan_rel = c->join.fact;
	}
	else if ((input_rel->reloptkind != RELOPT_BASEREL &&
			  input_rel->reloptkind != RELOPT_OTHER_MEMBER_REL) || input_rel->relid == 0)
		return "input is not a single table";
	else
		c->scan_rel = input_rel;
	if (IS_DUMMY_REL(input_rel))
		return "input is provably empty";
	rte = planner_rt_fetch(c->scan_rel->relid, c->root);
	if (rte->rtekind != RTE_RELATION)
		return "input is not a table";
	c->children = NIL;
	c->pages = c->scan_rel->pages;
	if (rte->inh && (rte->relkind == RELKIND_PARTITIONED_TABLE ||
					 has_inheritance_children(c->root, c->scan_rel->relid)))
	{
		/* the partitions left after pruning, one scan after another */
		const char *why;

		c->pages = 0;
		if ((why = collect_children(c, c->scan_rel->relid)) != NULL)
			return why;
		if (c->children == NIL)
			return "input is provably empty";
	}
	else if (rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW)
		return "input is not a plain heap table";
	if (rte->tablesample)
		return "TABLESAMPLE";
	if (rte->securityQuals != NIL || rel_has_rls(rte->relid))
		return c->is_join ? psprintf("row-level security is enabled on \"%s\", the table scanned",
									 get_rel_name(rte->relid)) :
			"row-level security is enabled on the table";
	return NULL;
}

/*
 * A qual the host evaluates per row of the table with PostgreSQL's
 * executor: [NOT] (x op ANY (hashed subquery)), uncorrelated, x a column
 * of the table, op leakproof (the lookup cannot fail, so evaluating it
 * before the other quals changes no error).
 */
static bool
host_qual(GpuaggCandidate *c, Expr *clause)
{
	SubPlan    *sp;
	OpExpr	   *op;

	if (is_notclause(clause))
		clause = get_notclausearg(clause);
	if (!IsA(clause, SubPlan))
		return false;
	sp = (SubPlan *) clause;
	if (sp->subLinkType != ANY_SUBLINK || !sp->useHashTable || sp->parParam != NIL ||
		sp->args != NIL || sp->testexpr == NULL || !IsA(sp->testexpr, OpExpr))
		return false;
	op = (OpExpr *) sp->testexpr;
	if (list_length(op->args) != 2 || !IsA(linitial(op->args), Var) ||
		((Var *) linitial(op->args))->varno != c->scan_rel->relid ||
		((Var *) linitial(op->args))->varattno <= 0 ||
		!IsA(lsecond(op->args), Param))
		return false;
	set_opfuncid(op);
	return get_func_leakproof(op->opfuncid);
}

/*
 * array_agg keeps NULL values, which a device's set of values (its
 * order's, program.c's compile_list) does not: offloaded only of a column
 * of the scanned table declared NOT NULL.  That table is the preserved
 * side of any join, which nulls none of its columns; a partition's NOT
 * NULL is its parent's too, an inheritance child's need not be.
 */
static const char *
list_nulls(GpuaggCandidate *c)
{
	const char *why = "array_agg of other than a column declared NOT NULL (its array keeps NULLs)";
	RangeTblEntry *rte = planner_rt_fetch(c->scan_rel->relid, c->root);
	ListCell   *lc;

	foreach(lc, c->aggrefs)
	{
		Aggref	   *aggref = lfirst(lc);
		Expr	   *e;
		HeapTuple	tup;
		bool		notnull;

		if (!IsA(aggref, Aggref) || aggref->aggfnoid != F_ARRAY_AGG_ANYNONARRAY)
			continue;
		e = linitial_node(TargetEntry, aggref->args)->expr;
		while (IsA(e, RelabelType))
			e = ((RelabelType *) e)->arg;
		if (!IsA(e, Var) || ((Var *) e)->varno != c->scan_rel->relid ||
			((Var *) e)->varlevelsup != 0 || ((Var *) e)->varattno <= 0)
			return why;
		if (rte->rtekind != RTE_RELATION ||
			(rte->inh && rte->relkind != RELKIND_PARTITIONED_TABLE))
			return why;
		tup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(rte->relid),
							  Int16GetDatum(((Var *) e)->varattno));
		if (!HeapTupleIsValid(tup))
			return why;
		notnull = ((Form_pg_attribute) GETSTRUCT(tup))->attnotnull;
		ReleaseSysCache(tup);
		if (!notnull)
			return why;
	}
	return NULL;
}

/* The Vars of a GpuaggPlanInfo.fetch, all. */
static List *
fetched_vars(List *fetch)
{
	List	   *vars = NIL;
	ListCell   *lc;

	foreach(lc, fetch)
		vars = list_concat(vars, lthird(lfirst(lc)));
	return vars;
}

/*
 * The groups the node is expected to return above which fetching a column
 * by its table's primary key, an index lookup a group on the host (a few
 * microseconds), costs more than grouping by it on the device.
 */
#define FETCH_MAX_GROUPS	10000.0

/*
 * A column the grouping does not name but a group key determines -- a
 * joined table's, whose primary key the group keys hold, as TPC-H Q10's
 * c_name, c_address and c_comment of customer grouped by c_custkey -- is a
 * group key on the device today, and a string one costs a dictionary code
 * for every row of its table, returned with its bytes.  Where the node
 * returns few groups (a GPU Top-N's n, or few estimated), the host fetches
 * such columns instead, through the primary key's index, for each group it
 * returns: the row with the group's key is the one every row of the group
 * joined (same snapshot), and a NULL key (an outer join's unmatched side)
 * has none, so NULLs, as natively.
 *
 * As GpuaggPlanInfo.fetch: per table, (its primary key's index, the group
 * keys' indexes in its columns' order, the Vars fetched); the columns left
 * group keys in *keep.  Not for the scanned table itself (a group per row
 * is its usual grouping), a partial plan (every process returns its
 * groups), inheritance, or a table under row-level security.
 */
static List *
fetched_columns(GpuaggCandidate *c, List *uncovered, List **keep)
{
	List	   *fetch = NIL;
	List	   *varnos = NIL;
	ListCell   *lc;

	*keep = uncovered;
	if (c->partial || c->root->parse->groupingSets != NIL ||
		c->input_rel->reloptkind == RELOPT_OTHER_MEMBER_REL)
		return NIL;
	foreach(lc, uncovered)
	{
		Var		   *var = lfirst_node(Var, lc);

		if (var->varno != c->scan_rel->relid && var->varattno > 0 &&
			var->varlevelsup == 0)
			varnos = list_append_unique_int(varnos, (int) var->varno);
	}
	*keep = NIL;
	foreach(lc, varnos)
	{
		Index		varno = (Index) lfirst_int(lc);
		RangeTblEntry *rte = planner_rt_fetch(varno, c->root);
		Oid			conoid;
		Oid			indexoid;
		HeapTuple	tup;
		Form_pg_index index;
		List	   *keyidx = NIL;
		List	   *vars = NIL;
		ListCell   *lv;

		if (rte->rtekind != RTE_RELATION || rte->inh || rte->relkind != RELKIND_RELATION ||
			rel_has_rls(rte->relid) ||
			get_primary_key_attnos(rte->relid, false, &conoid) == NULL ||
			!OidIsValid(indexoid = get_constraint_index(conoid)))
			continue;
		tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(indexoid));
		if (!HeapTupleIsValid(tup))
			continue;
		index = (Form_pg_index) GETSTRUCT(tup);
		/*
		 * An index this query's snapshot may not use (get_relation_info's
		 * rule: built over HOT chains broken after the snapshot, its
		 * entries miss the row versions the snapshot sees), or not yet
		 * valid: the columns stay keys.  (A plan that skipped such an
		 * index, or used it, holds for this transaction's xmin only.)
		 */
		if (index->indcheckxmin)
			c->root->glob->transientPlan = true;
		if (!GpuaggFetchIndexUsable(tup))
		{
			ReleaseSysCache(tup);
			continue;
		}
		for (int i = 0; i < index->indnkeyatts; i++)
		{
			int			k = -1;

			foreach(lv, c->named_keys)
			{
				Var		   *key = lfirst(lv);

				if (IsA(key, Var) && key->varno == varno && key->varlevelsup == 0 &&
					key->varattno == index->indkey.values[i])
				{
					k = foreach_current_index(lv);
					break;
				}
			}
			if (k < 0)
			{
				keyidx = NIL;
				break;
			}
			keyidx = lappend_int(keyidx, k);
		}
		ReleaseSysCache(tup);
		if (keyidx == NIL)
			continue;
		foreach(lv, uncovered)
		{
			Var		   *var = lfirst(lv);

			if (var->varno == varno && var->varattno > 0 && var->varlevelsup == 0)
				vars = lappend(vars, var);
		}
		fetch = lappend(fetch, list_make3(makeInteger((int) indexoid), keyidx, vars));
	}
	/* the others stay group keys */
	foreach(lc, uncovered)
	{
		bool		fetched = false;
		ListCell   *lf;

		foreach(lf, fetch)
			fetched |= list_member_ptr(lthird(lfirst(lf)), lfirst(lc));
		if (!fetched)
			*keep = lappend(*keep, lfirst(lc));
	}
	return fetch;
}

/*
 * ... and does the node return few enough groups that fetching them costs
 * less, prog being the program that groups by keys without them?
 */
static bool
fetch_worthwhile(GpuaggCandidate *c, const GpuaggProgram *prog, List *keys, List *fetch)
{
	double		groups;
	List	   *topn;

	/* (a key the host maps: the device's groups are not the query's) */
	if (prog->nrekeys > 0)
		return false;
	groups = estimate_num_groups(c->root, c->named_keys, c->input_rel->rows, NULL, NULL);
	topn = topn_for(c->root, c->aggrefs, keys, fetched_vars(fetch),
					c->output_rel->reltarget->exprs, prog, c->extra);
	if (topn != NIL)
		groups = Min(groups, (double) intVal(linitial(topn)));
	return groups <= FETCH_MAX_GROUPS;
}

/* (nothing_fails) an aggregate that cannot fail, replaced by a NULL */
static Node *
aggs_checked(Node *node, bool *ok)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Aggref))
	{
		Aggref	   *a = (Aggref *) node;

		if (a->aggfnoid == F_COUNT_ || a->aggfnoid == F_COUNT_ANY ?
			!GpuaggExprCannotFail((Node *) a->args) ||
			!GpuaggExprCannotFail((Node *) a->aggfilter) :
			!GpuaggExprCannotFail(node))
			*ok = false;
		return (Node *) makeNullConst(a->aggtype, -1, a->aggcollid);
	}
	return expression_tree_mutator(node, aggs_checked, ok);
}

/*
 * Can nothing the node computes for a row or a group fail: its keys, its
 * aggregates (counts, min, max, sums and averages of integers or
 * numerics, of arguments and FILTERs that cannot fail), the query's
 * HAVING, the table's WHERE and the join's conditions?  Then the rows and
 * groups that a WHERE checked per group (a key filter) no longer drops
 * before them raise nothing that PostgreSQL's plan would not.
 */
static bool
nothing_fails(GpuaggCandidate *c)
{
	bool		ok = true;
	Node	   *all = aggs_checked((Node *) list_make4(c->keys, c->aggrefs, c->quals,
													  c->extra->havingQual), &ok);

	return ok && GpuaggExprCannotFail(all) &&
		GpuaggExprCannotFail((Node *) GpuaggJoinConditions(c->join.priv));
}

/*
 * The groups the device makes where key filters of selectivity sel are
 * checked per group: the query's over sel, but no more than the keys'
 * distinct values (of a column, by its statistics over its whole table)
 * allow.
 */
static double
key_filter_groups(GpuaggCandidate *c, Selectivity sel)
{
	double		groups = estimate_num_groups(c->root, c->named_keys, c->input_rel->rows,
											 NULL, NULL) / Max(sel, 1e-12);
	double		values = 1;
	ListCell   *lc;

	foreach(lc, c->named_keys)
	{
		VariableStatData vardata;
		bool		isdefault;

		if (!IsA(lfirst(lc), Var))
		{
			values = -1;
			break;
		}
		examine_variable(c->root, lfirst(lc), 0, &vardata);
		values *= get_variable_numdistinct(&vardata, &isdefault);
		ReleaseVariableStats(vardata);
		if (isdefault)
		{
			values = -1;
			break;
		}
	}
	return values > 0 ? Min(groups, values) : groups;
}

/*
 * Are key filters of selectivity sel worth checking per group: do the
 * groups the device then makes stay under its rows over 50 (each a tuple
 * made and checked on the host, against a row's deforming in column form)
 * and a million?  Not a selective range on a key of many values.  (arg:
 * the GpuaggCandidate; GpuaggJoinKeyFilters')
 */
static bool
key_filters_fit(void *arg, Selectivity sel)
{
	GpuaggCandidate *c = arg;

	return key_filter_groups(c, sel) <= Min(Max(c->scan_rel->tuples / 50.0, 10000.0), 1000000.0);
}

/*
 * The table's own WHERE on group keys alone (GpuaggKeyComparison), which
 * keeps a group whole or not: its quals that are such, in *moved, and the
 * others, returned (with *before_join counting those of them before the
 * join).  Only where none of the table's quals can fail (a native scan
 * runs the others only on the rows these keep), without grouping sets
 * (whose coarser groups mix keys) or a subquery condition; else *moved
 * is NIL.
 */
static List *
split_key_filters(GpuaggCandidate *c, List **moved, int *before_join)
{
	List	   *keep = NIL;
	ListCell   *lc;

	*moved = NIL;
	*before_join = 0;
	if (c->host != NIL || c->root->parse->groupingSets != NIL || !nothing_fails(c))
		return c->quals;
	/* (not a row-level security policy's, nor a security barrier view's) */
	foreach(lc, c->scan_rel->baserestrictinfo)
		if (lfirst_node(RestrictInfo, lc)->security_level > 0)
			return c->quals;
	if (planner_rt_fetch(c->scan_rel->relid, c->root)->securityQuals != NIL)
		return c->quals;
	foreach(lc, c->quals)
	{
		Node	   *qual = lfirst(lc);

		if (GpuaggKeyComparison(qual, c->named_keys) && !contain_volatile_functions(qual))
			*moved = lappend(*moved, qual);
		else
		{
			keep = lappend(keep, qual);
			if (foreach_current_index(lc) < c->before_join)
				(*before_join)++;
		}
	}
	return keep;
}

/*
 * ... checked per group, the others the program's (as compiled into
 * c->prog), if they drop no more groups than key_filters_fit allows.
 */
static bool
take_key_filters(GpuaggCandidate *c, List *moved, List *keep, int before_join)
{
	Selectivity sel = c->key_filter_sel *
		clauselist_selectivity(c->root, moved, c->scan_rel->relid, JOIN_INNER, NULL);

	if (!key_filters_fit(c, sel))
		return false;
	c->key_filter_sel = sel;
	c->key_filters = list_concat(c->key_filters, moved);
	c->quals = keep;
	c->before_join = before_join;
	return true;
}

/*
 * Such quals that keep the scan in column form (a range of strings under
 * the collation, which only the host compares): checked per group
 * instead, as a joined table's (GpuaggJoinKeyFilters), where the program
 * without them takes page form.
 */
static void
key_filters_of_table(GpuaggCandidate *c)
{
	List	   *moved;
	int			before_join;
	List	   *keep = split_key_filters(c, &moved, &before_join);
	GpuaggProgram *saved = c->prog;
	const char *why;

	if (moved == NIL)
		return;
	c->prog = palloc(sizeof(GpuaggProgram));
	if (GpuaggCompile(c->prog, keep, c->keys, c->aggrefs, c->numeric_scales,
					  false, c->scan_rel->relid, c->join.joincols,
					  GpuaggJoinConditions(c->join.priv), before_join, &why) &&
		(!c->prog->uses_zone || GpuaggZoneLoad(c->prog, &c->prog->ga.zone)) &&
		(!c->device_join ||
		 GpuaggJoinDevicePlanned(c->join.priv, &c->prog->ga,
								 planner_rt_fetch(c->scan_rel->relid, c->root)->relid, true)) &&
		page_form_missing(c) == NULL &&
		take_key_filters(c, moved, keep, before_join))
	{
		c->no_pages = NULL;
		return;
	}
	c->prog = saved;
}

/*
 * The group keys, aggregates and quals, compiled into a program, and the
 * device that is to run it.
 */
static const char *
compile_query(GpuaggCandidate *c)
{
	Query	   *parse = c->root->parse;
	CollectContext cxt;
	bool		compiled;
	List	   *scan_rinfos = NIL;
	List	   *native;
	const char *reason;
	ListCell   *lc;

	/*
	 * Group keys in target-list order: the order a native plan computes them
	 * in (its scan projects them), so that the first error is the same.
	 */
	c->keys = NIL;
	c->keyrefs = NIL;
	/* (a partition's grouping: the target list translated to its columns) */
	foreach(lc, c->extra->targetList)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);

		if (tle->ressortgroupref != 0 &&
			get_sortgroupref_clause_noerr(tle->ressortgroupref, parse->groupClause))
		{
			c->keys = lappend(c->keys, tle->expr);
			c->keyrefs = lappend_int(c->keyrefs, (int) tle->ressortgroupref);
		}
	}

	/* aggregates in the target list and HAVING; Vars only inside keys */
	cxt.aggrefs = NIL;
	cxt.groupfuncs = NIL;
	cxt.keys = c->keys;
	cxt.uncovered = NIL;
	collect_walker((Node *) c->output_rel->reltarget->exprs, &cxt);
	/* a partial target already holds the aggregates HAVING needs */
	if (!c->partial)
		collect_walker(c->extra->havingQual, &cxt);
	/*
	 * A column the grouping does not name, which a group key determines (a
	 * primary key's table's: the parser allowed it, or the planner removed
	 * it from GROUP BY, as in TPC-H Q10): one more key, which splits no
	 * group, so that the node returns it.
	 */
	if (cxt.uncovered != NIL && parse->groupingSets != NIL)
		return "a column outside the group keys is used above the aggregation";
	/* (an inheritance parent's primary key holds for the parent's rows only) */
	foreach(lc, cxt.uncovered)
	{
		RangeTblEntry *rte = planner_rt_fetch(((Var *) lfirst(lc))->varno, c->root);

		if (rte->rtekind != RTE_RELATION ||
			(rte->inh && rte->relkind != RELKIND_PARTITIONED_TABLE))
			return "a column outside the group keys is used above the aggregation (a primary key of an inheritance parent)";
	}
	c->named_keys = list_copy(c->keys);
	c->keys = list_concat(c->keys, cxt.uncovered);
	if (cxt.aggrefs == NIL && c->keys == NIL)
		return "nothing to aggregate";
	c->aggrefs = cxt.aggrefs;
	c->groupfuncs = cxt.groupfuncs;
	if ((reason = list_nulls(c)) != NULL)
		return reason;

	/*
	 * Quals without columns (parameters, outer references, stable functions)
	 * are what a native plan checks once, as a one-time filter, before it
	 * scans; GpuAgg checks them on the host before its scan too.
	 */
	c->gating = NIL;
	foreach(lc, c->scan_rel->baserestrictinfo)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (rinfo->pseudoconstant)
			c->gating = lappend(c->gating, rinfo);
		else
			scan_rinfos = lappend(scan_rinfos, rinfo);
	}
	/*
	 * x [NOT] IN (a hashed subquery) on the table (TPC-H Q16's NOT IN):
	 * PostgreSQL's executor evaluates it per row on the host, NULL rules
	 * and all, a bool that cannot fail.
	 */
	c->host = NIL;
	native = GpuaggOrderedQuals(c->root, scan_rinfos);
	foreach(lc, scan_rinfos)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (host_qual(c, rinfo->clause))
			c->host = lappend(c->host, rinfo->clause);
	}
	/*
	 * The table's other quals in the native order, and those a native scan
	 * runs before the first of the host's, on every row: the device, or
	 * the host before its lookups and matches, runs them before the join
	 * too (GaProgram.where_joined).
	 */
	c->quals = NIL;
	c->before_join = -1;
	foreach(lc, native)
	{
		if (!list_member_ptr(c->host, lfirst(lc)))
			c->quals = lappend(c->quals, lfirst(lc));
		else if (c->before_join < 0)
			c->before_join = list_length(c->quals);
	}
	if (c->before_join < 0)
		c->before_join = list_length(c->quals);
	/*
	 * ... or, of a table without children, the join's last dimensions: the
	 * subquery's rows, a semi or (NOT IN) anti join the device may match,
	 * the table in page form.
	 */
	if (c->children == NIL && c->host != NIL)
	{
		/*
		 * (A native scan runs the quals after a subquery condition before
		 * its join too, where here the subquery's dimensions come after
		 * the join's: not where one of them, or a join's condition, may
		 * fail on a row the subquery drops.)
		 */
		if (c->is_join)
		{
			foreach(lc, GpuaggJoinConditions(c->join.priv))
			{
				ListCell   *q;

				/* (a List of each dimension's quals: may_fail fails any List) */
				foreach(q, (List *) lfirst(lc))
					if (may_fail(lfirst(q), NULL))
						return join_words(c->root, c->input_rel->relids,
										  "a join condition that may fail, beside a subquery condition");
			}
			for_each_from(lc, c->quals, c->before_join)
				if (may_fail(lfirst(lc), NULL))
					return join_words(c->root, c->input_rel->relids,
									  "a WHERE condition that may fail after a subquery condition, beside a join");
		}
		foreach(lc, c->host)
			GpuaggJoinAddSubquery(c->root, &c->join, lfirst(lc));
		c->host = NIL;
	}
	/* (strings last only where no subquery condition splits the quals) */
	if (c->before_join == list_length(c->quals))
		c->quals = strings_last(c->quals);
	/* a join's other conditions, after the table's own, as at a join */
	if (c->is_join)
	{
		c->quals = list_concat(c->quals, GpuaggOrderedQuals(c->root, c->join.residual));
		c->gating = list_concat(c->gating, c->join.gating);
	}
	c->gating = GpuaggOrderedQuals(c->root, c->gating);

	numeric_scales(c);
	c->prog = palloc(sizeof(GpuaggProgram));
	compiled = GpuaggCompile(c->prog, c->quals, c->keys, c->aggrefs, c->numeric_scales,
							 parse->groupingSets != NIL, c->scan_rel->relid, c->join.joincols,
							 GpuaggJoinConditions(c->join.priv), c->before_join, &reason);
	/*
	 * A WHERE on group keys the device cannot evaluate at all (a char(n)
	 * range): checked per group instead (above), where the rest compiles.
	 */
	if (!compiled)
	{
		List	   *moved;
		int			before_join;
		List	   *keep = split_key_filters(c, &moved, &before_join);
		GpuaggProgram *prog = palloc(sizeof(GpuaggProgram));
		const char *why;

		if (moved != NIL &&
			GpuaggCompile(prog, keep, c->keys, c->aggrefs, c->numeric_scales, false,
						  c->scan_rel->relid, c->join.joincols,
						  GpuaggJoinConditions(c->join.priv), before_join, &why) &&
			take_key_filters(c, moved, keep, before_join))
		{
			c->prog = prog;
			compiled = true;
		}
	}
	/*
	 * Columns of a joined table whose primary key the group keys hold,
	 * fetched by that key for the few groups returned rather than grouped
	 * by on the device: the program again without them (also where the
	 * device could not group by them at all: a jsonb, a string under a
	 * nondeterministic collation).
	 */
	c->fetch = NIL;
	if (cxt.uncovered != NIL)
	{
		List	   *keep;
		List	   *fetch = fetched_columns(c, cxt.uncovered, &keep);

		if (fetch != NIL)
		{
			GpuaggProgram *prog = palloc(sizeof(GpuaggProgram));
			List	   *all_keys = c->keys;
			List	   *all_scales = c->numeric_scales;
			const char *why;

			c->keys = list_concat_copy(c->named_keys, keep);
			numeric_scales(c);
			if (GpuaggCompile(prog, c->quals, c->keys, c->aggrefs, c->numeric_scales,
							  false, c->scan_rel->relid, c->join.joincols,
							  GpuaggJoinConditions(c->join.priv), c->before_join, &why) &&
				fetch_worthwhile(c, prog, c->keys, fetch))
			{
				c->prog = prog;
				c->fetch = fetch;
				compiled = true;
			}
			else
			{
				c->keys = all_keys;
				c->numeric_scales = all_scales;
			}
		}
	}
	if (!compiled)
		return c->is_join ? join_words(c->root, c->input_rel->relids, reason) : reason;
	if (c->prog->uses_zone && !GpuaggZoneLoad(c->prog, &c->prog->ga.zone))
		return psprintf("%s in the time zone \"%s\", whose transitions gpuagg cannot list",
						c->prog->tz_what, GpuaggZoneName(c->prog));
	if (!choose_device(&c->device, &reason))
		return reason;
	/*
	 * Children laid out otherwise than the parent: each child's columns are
	 * found by name and its tuples deformed on the host, serially (a run
	 * again after a device failure needs page mode's block log).
	 */
	c->remap = c->children != NIL && (reason = children_alike(c)) != NULL;
	/*
	 * (the host's filter and its matches read the scanned row in its own
	 * relation's layout, with the parent's attribute numbers)
	 */
	if (c->remap && (c->host != NIL || c->join.priv != NIL))
		return psprintf("%s, beside %s", reason,
						c->host != NIL ? "a subquery condition the host evaluates" : "a join");
	/* a join of integer keys alone: the device probes its tables */
	c->device_join = c->join.priv != NIL && c->host == NIL &&
		GpuaggJoinDevicePlanned(c->join.priv, &c->prog->ga,
								planner_rt_fetch(c->scan_rel->relid, c->root)->relid, true);
	if (c->device_join)
	{
		/*
		 * (grouping sets combine groups: not their keys' filters; nor
		 * beside a fetch that Top-N's few groups made worthwhile)
		 */
		if (parse->groupingSets == NIL && c->fetch == NIL && nothing_fails(c))
			c->key_filters = list_concat(c->key_filters,
										 GpuaggJoinKeyFilters(c->root, &c->join, c->named_keys,
															  key_filters_fit, c,
															  &c->key_filter_sel));
		GpuaggJoinPreferDeviceScans(c->root, &c->join, false);
	}
	c->no_pages = c->remap ? psprintf("%s, so the scan reads column batches", reason) :
		c->join.priv != NIL && !c->device_join ?
		"a join: the host matches each row of the table with the other tables' rows" :
		c->host != NIL ? "a subquery condition the host evaluates per row" :
		page_form_missing(c);
	if (c->no_pages != NULL && !c->remap && c->fetch == NIL &&
		(c->join.priv == NIL || c->device_join))
		key_filters_of_table(c);
	/* a timestamptz outside the zone's table takes the exact path */
	c->exact = GpuaggProgramNeedsExact(&c->prog->ga) || c->prog->uses_zone ||
		c->prog->guarded != NULL;
	/*
	 * A joined subquery's plan would be made twice, the exact path's join
	 * making it too, and set_plan_references moves a subquery's
	 * append_rel_list in place: not with one there.
	 */
	if (c->exact)
	{
		foreach(lc, c->join.dim_paths)
		{
			int			i = -1;

			while ((i = bms_next_member(((Path *) lfirst(lc))->parent->relids, i)) >= 0)
			{
				RelOptInfo *rel = c->root->simple_rel_array[i];

				if (rel && rel->subroot && rel->subroot->append_rel_list != NIL)
					return join_words(c->root, c->input_rel->relids,
									  "a joined subquery with UNION ALL or inheritance, beside what may need the exact path (numerics, intervals, a time zone, a constant expression that may fail)");
			}
		}
	}
	return NULL;
}

/*
 * GROUPING SETS, ROLLUP and CUBE.  The device groups by every key of every
 * set (the finest grouping, the program's keys), and the node combines
 * those groups' states into each set's groups on the host
 * (GpuaggGroupingSets), as a Finalize Aggregate combines partial states:
 * the combine rules are the aggregates' own.  A set is a List of key
 * indexes, in the order the planner expanded them (a set named twice is
 * returned twice, as natively).  GROUPING() is a column of the node's
 * tuple, one value per set.  A GROUP BY the planner reduced from one set
 * keeps its GROUPING(), which is 0 there.
 */
static const char *
grouping_sets(GpuaggCandidate *c)
{
	Query	   *parse = c->root->parse;
	List	   *refsets = parse->groupingSets;
	ListCell   *lc;

	c->sets = NIL;
	c->grouping_values = NIL;
	c->out_groups = -1;
	if (refsets == NIL && c->groupfuncs == NIL)
		return NULL;
	if (c->partial || c->input_rel->reloptkind == RELOPT_OTHER_MEMBER_REL)
		return "grouping sets in a partial or partitionwise aggregation";
	for (uint32 a = 0; refsets != NIL && a < c->prog->ga.naggs; a++)
		if (ga_agg_ordered(c->prog->ga.aggs[a].kind))
		{
			Aggref	   *aggref = list_nth(c->aggrefs, a);

			/* (array_agg and string_agg keep such a set too: compile_list) */
			return psprintf("%s(...)%s under grouping sets (the coarser sets' values are not combined from the finest's)",
							get_func_name(aggref->aggfnoid),
							aggref->aggkind == AGGKIND_ORDERED_SET ? " WITHIN GROUP" : "");
		}
	/*
	 * A constant key (GROUP BY ROLLUP(1) of SELECT 5): setrefs.c matches no
	 * Const with the node's tuple, so the target list would show the
	 * constant where a set leaves the key out (NULL natively)
	 */
	foreach(lc, c->keys)
		if (refsets != NIL && IsA(lfirst(lc), Const))
			return "a constant group key under grouping sets";
	if (refsets != NIL)
	{
		c->out_groups = 0;
		foreach(lc, refsets)
		{
			List	   *set = NIL;
			List	   *exprs = NIL;
			ListCell   *lr;

			foreach(lr, (List *) lfirst(lc))
			{
				ListCell   *lk;
				int			k = -1;

				foreach(lk, c->keyrefs)
					if (lfirst_int(lk) == lfirst_int(lr))
						k = foreach_current_index(lk);
				if (k < 0)
					return "a grouping set names an expression outside the group keys";
				set = lappend_int(set, k);
				exprs = lappend(exprs, list_nth(c->keys, k));
			}
			c->sets = lappend(c->sets, set);
			c->out_groups += exprs == NIL ? 1 :
				estimate_num_groups(c->root, exprs, c->input_rel->rows, NULL, NULL);
		}
	}
	else
		refsets = list_make1(c->keyrefs);

	/* GROUPING(a, b): bit 1 set where a is not grouped in the set, bit 0 b */
	foreach(lc, c->groupfuncs)
	{
		GroupingFunc *gf = lfirst_node(GroupingFunc, lc);
		List	   *values = NIL;
		ListCell   *ls;

		foreach(ls, refsets)
		{
			int			value = 0;
			ListCell   *lr;

			foreach(lr, gf->refs)
				value = value << 1 | (list_member_int(lfirst(ls), lfirst_int(lr)) ? 0 : 1);
			values = lappend_int(values, value);
		}
		c->grouping_values = lappend(c->grouping_values, values);
	}
	return NULL;
}

static PartitionPruneInfo *run_time_pruning(GpuaggCandidate *c);

/* Does run-time pruning prune as the scan starts (an InitPlan's value)? */
static bool
exec_pruning(PartitionPruneInfo *prune)
{
	ListCell   *lc;
	ListCell   *lc2;

	if (prune == NULL)
		return false;
	foreach(lc, prune->prune_infos)
	{
		foreach(lc2, (List *) lfirst(lc))
		{
			if (((PartitionedRelPruneInfo *) lfirst(lc2))->exec_pruning_steps != NIL)
				return true;
		}
	}
	return false;
}

/* A parallel path (partial or fed): whether there can be one, and workers. */
static const char *
parallel_plan(GpuaggCandidate *c)
{
	Query	   *parse = c->root->parse;
	RelOptInfo *input_rel = c->input_rel;
	int			workers;
	ListCell   *lc;

	c->workers = 0;
	c->divisor = 1.0;
	if (c->feed && c->no_pages)
		return psprintf("no parallel plan with one GPU session: it needs page batches, and %s",
						c->no_pages);
	if (c->feed && !parallel_leader_participation)
		return "no parallel plan with one GPU session: it runs in the leader, and parallel_leader_participation is off";
	if (!c->partial && !c->feed)
		return NULL;
	if (c->remap)
		return psprintf("no parallel plan: %s", c->no_pages);
	if (c->prog->guarded != NULL)
		return "no parallel plan: a constant expression that may fail is evaluated in a subtransaction, which a parallel query cannot start";
	if (c->exact && c->partial)
		return "no parallel plan where each process aggregates: numeric values the device may not hold, or a time zone's offset, need one session's exact path";
	if (!gpuagg_parallel)
		return "no parallel plan: gpuagg.parallel is off";
	/*
	 * Parameters each process can read: a generic plan's $1 (every worker
	 * has the leader's) and an InitPlan's value, which the Gather computes
	 * first and passes on (its initParam); not an outer query's row, which
	 * PostgreSQL's own parallel plans may not read either.  The other scan
	 * constants (now(), current_date, ...) are the same in the workers,
	 * which take the leader's timestamps and settings.
	 */
	if (!is_parallel_safe(c->root, (Node *) c->prog->params) ||
		!is_parallel_safe(c->root, (Node *) c->gating))
		return "no parallel plan: the query reads a value its workers cannot (an outer query's, or a subquery's that is not parallel-safe)";
	/* (each process lays out its partitions' scans before an InitPlan runs) */
	if (exec_pruning(run_time_pruning(c)))
		return "no parallel plan: a subquery's value prunes the partitions as the query runs";
	if (c->host != NIL)
		return "no parallel plan: a subquery condition the host evaluates";
	if (!input_rel->consider_parallel || input_rel->partial_pathlist == NIL ||
		!c->grouped_rel->consider_parallel)
		return "no parallel plan: PostgreSQL planned no parallel scan of the table";
	/*
	 * Each process runs the other tables' plans of a join: their cheapest
	 * parallel-safe ones (a Gather cannot nest).
	 */
	foreach(lc, c->join.dim_safe_paths)
	{
		if (lfirst(lc) == NULL)
			return "no parallel plan: a joined table has no parallel-safe plan";
	}
	if (c->join.subquery_unsafe)
		return "no parallel plan: a subquery that is not parallel-safe";
	if (c->join.priv != NIL)
	{
		/* (and their cost: the safe plans may cost more than the cheapest) */
		c->join.dim_paths = list_copy(c->join.dim_safe_paths);
		c->join.dim_cost = c->join.subquery_cost;
		foreach(lc, c->join.dim_paths)
			c->join.dim_cost += ((Path *) lfirst(lc))->total_cost;
		if (c->device_join)
			GpuaggJoinPreferDeviceScans(c->root, &c->join, true);
		else
			GpuaggJoinScanCosts(c->root, &c->join);
	}
	if (c->partial && parse->groupClause != NIL && !(c->extra->flags & GROUPING_CAN_USE_HASH))
		return "no parallel plan: the group keys cannot be hashed";
	workers = ((Path *) linitial(input_rel->partial_pathlist))->parallel_workers;
	if (workers < 1)
		return "no parallel plan: no parallel workers";

	/*
	 * In page form the processes only pin pages (a microsecond or so each,
	 * mostly cache misses) while the GPU deforms and aggregates: a large
	 * table gets every worker allowed, not the few that PostgreSQL's
	 * logarithmic rule gives a scan.
	 */
	if (!c->no_pages && c->pages >= 8192.0 * workers)
		workers = Max(workers, Min(max_parallel_workers_per_gather,
								   (int) (c->pages / 8192)));
	c->workers = workers;
	c->divisor = parallel_divisor(workers);
	return NULL;
}

/* Rows, groups, batch size, count(DISTINCT) pairs, device memory. */
static const char *
estimate(GpuaggCandidate *c)
{
	PlannerInfo *root = c->root;
	RelOptInfo *input_rel = c->input_rel;
	double		budget;
	double		sessions;
	ListCell   *lc;

	/* (a device join: the device reads every row of the table scanned) */
	c->rows = Max(input_rel->tuples, input_rel->rows);
	if (c->device_join)
		c->rows = Max(c->rows, c->scan_rel->tuples);
	if (root->parse->groupClause == NIL)
		c->groups = 1;
	else
		c->groups = estimate_num_groups(root, c->named_keys, input_rel->rows, NULL, NULL);
	/* (with the groups the key filters drop after) */
	if (c->key_filters != NIL)
		c->groups = Min(key_filter_groups(c, c->key_filter_sel), Max(c->rows, 1.0));
	c->batch_rows = batch_rows_for(&c->prog->ga);
	/* a small table fits one smaller batch */
	c->batch_rows = Min(c->batch_rows,
						((int) Min(Max(c->rows, 65536.0), (double) INT_MAX / 2) + 7) & ~7);
	/* count(DISTINCT x): as many (group, x) pairs as GROUP BY keys, x has */
	foreach(lc, c->aggrefs)
	{
		const GaAgg *ag = &c->prog->ga.aggs[foreach_current_index(lc)];
		Aggref	   *aggref = lfirst(lc);
		Expr	   *arg = linitial_node(TargetEntry, aggref->args)->expr;

		if (ag->distinct < 0)
			continue;
		c->pairs[ag->distinct] =
			Min(estimate_num_groups(root, lappend(list_copy(c->named_keys), arg),
									input_rel->rows, NULL, NULL), Max(c->rows, 1.0));
	}
	/*
	 * Many groups in page form: every process would return nearly all of
	 * them, and the leader would combine them all on one core.  That is what
	 * the fed path is for: the workers pin pages for the leader's session,
	 * which holds every group once.  Where PostgreSQL cannot aggregate
	 * partially (count(DISTINCT)), fed is the only parallel plan, whatever
	 * the groups: one process pinning every page costs about a microsecond
	 * a page.
	 */
	if ((c->partial || (c->feed && partial_possible(c->extra) && !c->exact)) &&
		!c->no_pages && c->prog->nrekeys == 0 &&	/* (with one: below) */
		(estimate_num_groups(root, c->named_keys, input_rel->rows / c->divisor, NULL, NULL) >
		 fed_groups(c->device)) != c->feed)
		return c->feed ? "no parallel plan with one GPU session: few groups (gpuagg.fed_groups), so each process aggregates its share instead" :
			"no parallel plan where each process aggregates: many groups (gpuagg.fed_groups), so one GPU session takes every page instead";
	c->vram = vram_estimate(&c->prog->ga, c->groups, c->pairs, c->batch_rows);
	/* (a join the device runs: its tables' rows and hash tables too) */
	if (c->device_join)
		c->vram += c->join.dim_bytes;
	budget = GpuaggVramBudget();
	/* in parallel, every process holds its own tables (fed: the leader only) */
	sessions = c->partial ? c->workers + 1 : 1;
	/*
	 * A group key the host maps (GpuaggProgram.rekey_expr) is evaluated per
	 * distinct string of the device's groups: partial, each process
	 * evaluates its own share, where fed the leader would evaluate them
	 * all; so fed only where a partial plan cannot be (its tables in every
	 * process over the budget).
	 */
	if (c->feed && c->prog->nrekeys > 0 && partial_possible(c->extra) && !c->exact &&
		(c->vram + c->join.dim_bytes) * (c->workers + 1) <= budget)
		return "no parallel plan with one GPU session: the host maps a group key per distinct string, so each process maps its share instead";
	if (c->vram * sessions > budget)
		return psprintf("estimated device memory %.0f MB exceeds gpuagg.vram_budget (%.0f MB)",
						c->vram * sessions / (1024.0 * 1024.0), budget / (1024.0 * 1024.0));
	/* a join's other tables, hashed in each process (on the host, for now) */
	if (c->join.dim_bytes * sessions > budget)
		return psprintf("the joined tables' estimated %.0f MB exceed gpuagg.vram_budget (%.0f MB)",
						c->join.dim_bytes * sessions / (1024.0 * 1024.0),
						budget / (1024.0 * 1024.0));
	return NULL;
}

/*
 * Column form: the host deforms each row of the table (unless a host join
 * already pays for reading it, below), looks each string it reads up in
 * the query's dictionary, and computes each string predicate or function
 * only it knows once per distinct string of the column, keeping its
 * answer by the string's code.  (Measured on the H100 host, TPC-H SF 10:
 * Q22's avg over customer, its filter SUBSTRING(c_phone ...) over 1.5M
 * distinct phones, 1.4 s in one process against 0.1 s native with 4
 * workers, where this was not counted and the planner offloaded it.)
 */
static Cost
column_form_cost(const GpuaggCandidate *c)
{
	const GaProgram *p = &c->prog->ga;
	double		share = c->rows / (c->feed ? 1.0 : c->divisor);
	double		per_row = (c->join.priv != NIL && !c->device_join) || c->host != NIL ?
		0 : cpu_tuple_cost;
	Cost		once = 0;

	for (uint32 i = 0; i < p->ncols; i++)
	{
		const GaColumn *col = &p->cols[i];

		if (col->dim || GpuaggJoinAttno(col->attno))
			continue;			/* (a joined table's, matched by the host) */
		/* (in column form the host answers a LIKE the device matches in pages) */
		if (col->pred)
		{
			Var		   *var = makeVar(c->scan_rel->relid, col->attno,
									  get_atttype(planner_rt_fetch(c->scan_rel->relid,
																   c->root)->relid,
												  col->attno),
									  -1, InvalidOid, 0);
			VariableStatData vardata;
			bool		isdefault;
			double		distinct;
			QualCost	qc;

			/*
			 * the table's distinct strings, each process's share at most
			 * (a string a row where the statistics do not say)
			 */
			examine_variable(c->root, (Node *) var, 0, &vardata);
			distinct = get_variable_numdistinct(&vardata, &isdefault);
			ReleaseVariableStats(vardata);
			distinct = isdefault ? share : Min(distinct, share);
			qc.startup = qc.per_tuple = 0;
			if (OidIsValid(c->prog->pred_funcid[col->pred - 1]))
				add_function_cost(c->root, c->prog->pred_funcid[col->pred - 1], NULL, &qc);
			else
				cost_qual_eval_node(&qc, (Node *) c->prog->pred_expr[col->pred - 1],
									c->root);
			/* a lookup a row; per distinct string its copy and the function */
			per_row += cpu_operator_cost;
			once += distinct * (2 * cpu_tuple_cost + qc.per_tuple);
		}
		else if (col->type == GA_T_TEXT || col->type == GA_T_BPCHAR)
			per_row += 4 * cpu_operator_cost;	/* its hash and its probe */
	}
	return share * per_row + once;
}

/*
 * Cost: the pages are still read on the host; per row we pay moving it to
 * the device and aggregating it, per batch a transfer, and each group is
 * returned as a tuple.  All of it happens before the first tuple.  Fed,
 * the processes share the pages, the leader's device the rest.
 */
static Cost
gpuagg_cost(const GpuaggCandidate *c)
{
	Cost		join = 0;

	/*
	 * A join: its other tables' plans run in each process, and each row of
	 * the table is read on the host and matched (a hash and an equality a
	 * table) there.
	 */
	/*
	 * (Measured on the H200 host, TPC-H SF 1, one serial process: reading
	 * a row in column form and matching it on the host cost about as much
	 * as a native parallel hash join's whole work on it, 1.1-3.9 s against
	 * 0.09-0.27 s with 8 workers for Q3..Q14: so a row is charged four
	 * tuples' CPU besides its matches, and the native plan wins where it
	 * can run in parallel.)
	 */
	/*
	 * Where the device probes the other tables (gpuagg_join.h), their rows
	 * are hashed once, and a row of the table costs what any row does.
	 */
	if (c->device_join)
	{
		/*
		 * A table the device scans itself costs what the scanned table's
		 * pages and rows do, its pages pinned by the workers where fed.
		 */
		join = c->join.dim_cost - c->join.dim_scan_cost +
			seq_page_cost * c->join.dim_scan_pages / (c->feed ? c->divisor : 1.0) +
			c->join.dim_scan_tuples * gpuagg_tuple_cost +
			2 * (c->join.dim_rows - c->join.dim_scan_rows) * cpu_tuple_cost;
	}
	else if (c->join.priv != NIL && !c->is_join)
		/* (x [NOT] IN (subquery) alone: a lookup a row, as the host filter was) */
		join = c->join.dim_cost + c->join.dim_rows * cpu_tuple_cost +
			c->scan_rel->tuples / c->divisor *
			(cpu_tuple_cost + 2 * cpu_operator_cost * GpuaggJoinDims(c->join.priv));
	else if (c->join.priv != NIL)
		join = c->join.dim_cost + c->join.dim_rows * cpu_tuple_cost +
			c->scan_rel->tuples / c->divisor *
			(4 * cpu_tuple_cost + 2 * cpu_operator_cost * GpuaggJoinDims(c->join.priv));
	/* ... and the host's quals (a hash lookup each) */
	if (c->host != NIL)
		join += c->scan_rel->tuples / c->divisor *
			(cpu_tuple_cost + 2 * cpu_operator_cost * list_length(c->host));
	if (c->no_pages)
		join += column_form_cost(c);
	/* a group key the host maps: its function per group, and the merge */
	for (uint32 k = 0; k < c->prog->ga.nkeys; k++)
		if (c->prog->rekey_expr[k] != NULL)
		{
			QualCost	qc;

			cost_qual_eval_node(&qc, (Node *) c->prog->rekey_expr[k], c->root);
			join += c->groups * (qc.per_tuple + 2 * cpu_tuple_cost);
		}
	return gpuagg_startup_cost + join + seq_page_cost * c->pages / c->divisor +
		(c->rows * gpuagg_tuple_cost + ceil(c->rows / c->batch_rows) * gpuagg_batch_cost) /
		(c->feed ? 1.0 : c->divisor) +
		c->groups * cpu_tuple_cost;
}

/*
 * The exact path of a GpuAgg whose numerics may not fit the device
 * (GA_ERR_NUMERIC_EXACT): PostgreSQL's own aggregation of the same rows,
 * serial, built here so that no other path of the rel owns it.  The node
 * runs it instead, before any group goes out, when the device reports a
 * value it cannot hold.  Fed, it runs in the leader under the GpuAgg's
 * Gather, after the workers have stopped feeding (they return nothing):
 * its scan is the table's cheapest parallel-safe serial path, never a
 * Gather of its own.  Grouping sets take the native plan PostgreSQL made
 * of them.  NULL if there is none.
 */
static Path *
exact_path(GpuaggCandidate *c)
{
	PlannerInfo *root = c->root;
	Query	   *parse = root->parse;
	Path	   *input = c->input_rel->cheapest_total_path;
	AggClauseCosts costs;
	AggStrategy strategy = AGG_PLAIN;

	/*
	 * Grouping sets: PostgreSQL's own plan of them, one of the paths it
	 * added to the rel (a copy: add_path frees the paths it rejects, not
	 * their inputs).
	 */
	if (parse->groupingSets != NIL)
	{
		Path	   *best = NULL;
		Path	   *copy;
		ListCell   *lc;

		foreach(lc, c->output_rel->pathlist)
		{
			Path	   *p = lfirst(lc);

			if (IsA(p, GroupingSetsPath) && (!c->feed || p->parallel_safe) &&
				(best == NULL || p->total_cost < best->total_cost))
				best = p;
		}
		if (best == NULL)
			return NULL;
		copy = (Path *) makeNode(GroupingSetsPath);
		memcpy(copy, best, sizeof(GroupingSetsPath));
		return copy;
	}

	if (c->feed)
	{
		input = GpuaggCheapestSafePath(c->input_rel->pathlist);
		/* (a join: its serial path, which PostgreSQL's Gather may have displaced) */
		if (input == NULL && c->input_rel->reloptkind == RELOPT_JOINREL)
			input = saved_serial_join(root, c->input_rel);
		if (input == NULL)
			return NULL;
	}

	MemSet(&costs, 0, sizeof(costs));
	get_agg_clause_costs(root, AGGSPLIT_SIMPLE, &costs);
	if (parse->groupClause != NIL && (c->extra->flags & GROUPING_CAN_USE_HASH))
		strategy = AGG_HASHED;
	else if (parse->groupClause != NIL)
	{
		strategy = AGG_SORTED;
		input = (Path *) create_sort_path(root, c->input_rel, input, root->group_pathkeys, -1.0);
	}
	return (Path *) create_agg_path(root, c->grouped_rel, input, c->grouped_rel->reltarget,
									strategy, AGGSPLIT_SIMPLE, parse->groupClause,
									(List *) c->extra->havingQual, &costs, c->groups);
}

/*
 * Run-time pruning of a partitioned table's partitions, as an Append has it:
 * the steps that a generic plan's $1 or a LATERAL reference on the
 * partition key decide, for the executor (ExecInitPartitionPruning), or
 * NULL where there are none.  The partitions are numbered in c->children's
 * order; make_partition_pruneinfo reads only each path's parent.
 */
static PartitionPruneInfo *
run_time_pruning(GpuaggCandidate *c)
{
	List	   *subpaths = NIL;
	ListCell   *lc;

	/* (the scanned table's: of a join, the table the join streams) */
	if (!enable_partition_pruning || c->children == NIL ||
		planner_rt_fetch(c->scan_rel->relid, c->root)->relkind != RELKIND_PARTITIONED_TABLE)
		return NULL;
	foreach(lc, c->children)
	{
		Path	   *path = makeNode(Path);

		path->parent = c->root->simple_rel_array[lfirst_int(lc)];
		subpaths = lappend(subpaths, path);
	}
	return make_partition_pruneinfo(c->root, c->scan_rel, subpaths,
									extract_actual_clauses(c->scan_rel->baserestrictinfo,
														   false));
}

/*
 * The CustomPath, with its plan data, added to output_rel: under a Gather
 * when fed, under Gather and Finalize Aggregate (in grouped_rel) when
 * partial.
 */
static void
add_gpuagg_path(GpuaggCandidate *c)
{
	PlannerInfo *root = c->root;
	Query	   *parse = root->parse;
	RelOptInfo *output_rel = c->output_rel;
	CustomPath *cpath = makeNode(CustomPath);
	Cost		cost = gpuagg_cost(c);
	double		groups = c->groups;
	GpuaggPlanInfo info;
	ListCell   *lc;

	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = output_rel;
	cpath->path.pathtarget = output_rel->reltarget;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = c->partial || c->feed;
	cpath->path.parallel_safe = c->partial || c->feed;
	cpath->path.parallel_workers = c->workers;
	if (c->out_groups >= 0)
		groups = c->out_groups;
	cpath->path.rows = groups;
	/* each process returns the groups of its share (all, with key filters) */
	if (c->partial && parse->groupClause != NIL)
		cpath->path.rows = c->key_filters != NIL ? c->groups :
			estimate_num_groups(root, c->named_keys, c->input_rel->rows / c->divisor,
								NULL, NULL);
	cpath->path.startup_cost = cost;
	cpath->path.total_cost = cost;
	cpath->path.pathkeys = NIL;
	cpath->flags = 0;
	cpath->custom_paths = list_concat(c->exact ? list_make1(c->exact_path) : NIL,
									  c->join.dim_paths);
	info.quals = c->quals;
	info.keys = c->keys;
	info.fetch = c->fetch;
	info.aggrefs = c->aggrefs;
	info.having = c->partial ? NIL :
		list_concat_copy((List *) c->extra->havingQual, c->key_filters);
	info.varno = c->scan_rel->relid;
	info.join = c->join.priv;
	info.remap = c->remap;
	info.prune = run_time_pruning(c);
	info.numeric_scales = c->numeric_scales;
	info.children = NIL;
	foreach(lc, c->children)
		info.children = lappend(info.children,
								makeInteger(lfirst_int(lc) - (int) info.varno));
	info.groups = groups;
	info.vram = c->vram;
	info.batch_rows = c->batch_rows;
	info.device = c->device;
	info.gating = c->gating;
	info.host = c->host;
	info.device_join = c->device_join;
	info.before_join = c->before_join;
	info.params = c->prog->params;
	info.feed = c->feed;
	/* (not in a partition's grouping: the Append above gathers the groups) */
	info.sets = c->sets;
	info.groupfuncs = c->groupfuncs;
	info.grouping_values = c->grouping_values;
	/* (not where the host maps a key: the device's groups are not the query's) */
	info.topn = c->partial || c->sets != NIL || c->prog->nrekeys > 0 || c->key_filters != NIL ||
		c->input_rel->reloptkind == RELOPT_OTHER_MEMBER_REL ? NIL :
		topn_for(root, c->aggrefs, c->keys, fetched_vars(c->fetch),
				 output_rel->reltarget->exprs, c->prog, c->extra);
	cpath->custom_private = GpuaggFormPlanInfo(&info);
	/* (the groups the key filters keep) */
	if (c->key_filters != NIL && !c->partial)
	{
		cpath->path.rows = clamp_row_est(cpath->path.rows * c->key_filter_sel);
		groups = cpath->path.rows;
	}
	if (info.topn != NIL)
	{
		/* the n groups and the few tied with the n-th */
		cpath->path.rows = Min(groups, intVal(linitial(info.topn)));
		groups = cpath->path.rows;
	}
	cpath->methods = &GpuaggPathMethods;

	if (c->feed)
	{
		Path	   *gather;

		/*
		 * The groups come from the leader's own copy of the scan, not
		 * through the workers' tuple queues: Gather costs its setup only.
		 */
		gather = (Path *) create_gather_path(root, output_rel, &cpath->path,
											 output_rel->reltarget, NULL, &groups);
		gather->startup_cost = cpath->path.startup_cost + parallel_setup_cost;
		gather->total_cost = cpath->path.total_cost + parallel_setup_cost;
		note_offer(gather);
		add_path(output_rel, gather);
		return;
	}

	if (c->partial)
	{
		double		gathered = cpath->path.rows * c->workers;
		Path	   *gather;
		Path	   *final;

		gather = (Path *) create_gather_path(root, output_rel, &cpath->path,
											 output_rel->reltarget, NULL, &gathered);
		final = (Path *) create_agg_path(root, c->grouped_rel, gather, c->grouped_rel->reltarget,
										 parse->groupClause != NIL ? AGG_HASHED : AGG_PLAIN,
										 AGGSPLIT_FINAL_DESERIAL, parse->groupClause,
										 list_concat_copy((List *) c->extra->havingQual,
														  c->key_filters),
										 &c->extra->agg_final_costs,
										 c->key_filters != NIL ?
										 clamp_row_est(groups * c->key_filter_sel) : groups);
		note_offer(final);
		add_path(c->grouped_rel, final);
		return;
	}
	if (forcing_offload(root) && !keep_gpuagg_paths(output_rel))
	{
		output_rel->pathlist = NIL;
		output_rel->partial_pathlist = NIL;
	}
	note_offer(&cpath->path);
	add_path(output_rel, &cpath->path);
}

/*
 * Build the GpuAgg path for this grouping, or return the reason why not.
 * partial: the parallel-aware partial path in output_rel, the partially
 * grouped rel, under Gather and Finalize Aggregate added to grouped_rel.
 * feed: the parallel-aware path in page form whose workers only pin pages
 * for the leader's one device session, which aggregates everything (many
 * groups, which every process would otherwise return), under a Gather.
 */
static const char *
try_gpuagg_path(PlannerInfo *root, RelOptInfo *input_rel,
				RelOptInfo *output_rel, RelOptInfo *grouped_rel,
				GroupPathExtraData *extra, bool partial, bool feed)
{
	GpuaggCandidate c = {0};
	const char *reason;

	c.root = root;
	c.input_rel = input_rel;
	c.output_rel = output_rel;
	c.grouped_rel = grouped_rel;
	c.extra = extra;
	c.partial = partial;
	c.feed = feed;
	c.key_filter_sel = 1.0;
	if ((reason = query_eligible(&c)) != NULL ||
		(reason = compile_query(&c)) != NULL ||
		(reason = grouping_sets(&c)) != NULL ||
		(reason = parallel_plan(&c)) != NULL ||
		(reason = estimate(&c)) != NULL)
		return reason;
	if (c.exact && (c.exact_path = exact_path(&c)) == NULL)
		return c.root->parse->groupingSets != NIL ?
			"no native plan of the grouping sets for the exact path" :
			"no parallel plan with one GPU session: the table has no parallel-safe serial scan for the exact path";
	add_gpuagg_path(&c);
	return NULL;
}

/*
 * create_upper_paths_hook
 */
static void
gpuagg_create_upper_paths(PlannerInfo *root, UpperRelationKind stage,
						  RelOptInfo *input_rel, RelOptInfo *output_rel,
						  void *extra)
{
	GroupPathExtraData *gextra = (GroupPathExtraData *) extra;
	const char *reason;
	ListCell   *lc;
	double		save_offered,
				native_here;

	if (prev_create_upper_paths_hook)
		prev_create_upper_paths_hook(root, stage, input_rel, output_rel, extra);

	if (stage != UPPERREL_GROUP_AGG || !gpuagg_enabled || extra == NULL)
		return;
	if (!extension_installed())
		return;
	/*
	 * One partition's grouping under enable_partitionwise_aggregate.  The
	 * partitioned table's own grouping, planned after its partitions', gets
	 * one GpuAgg that reads them all in one device session (one set of
	 * groups, returned once), and competes there with the Append of the
	 * partitions' aggregations.  A partition gets its own GpuAgg only where
	 * its groups are whole (the group keys hold the partition key): where
	 * the table's one GpuAgg cannot be (a foreign partition, whose grouping
	 * its server does), the others' still run on the device.  Why one does
	 * not is at DEBUG1 only.
	 */
	if (input_rel->reloptkind == RELOPT_OTHER_MEMBER_REL)
	{
		if (gextra->patype == PARTITIONWISE_AGGREGATE_FULL &&
			(reason = try_gpuagg_path(root, input_rel, output_rel, output_rel,
									  gextra, false, false)) != NULL)
			elog(DEBUG1, "gpuagg: a partition's grouping not offloaded: %s", reason);
		return;
	}

	/* what GpuAgg competes with: PostgreSQL's own paths, all there by now */
	native_here = -1;
	foreach(lc, output_rel->pathlist)
	{
		Path	   *path = lfirst(lc);

		if (native_here < 0 || path->total_cost < native_here)
			native_here = path->total_cost;
	}
	if (native_here >= 0 && (native_cost < 0 || native_here < native_cost))
		native_cost = native_here;
	save_offered = offered_cost;
	offered_cost = -1;
	reason = try_gpuagg_path(root, input_rel, output_rel, output_rel, gextra, false, false);
	if (reason)
	{
		offered_cost = save_offered;
		/* (the partitions' groupings may still run in GpuAggs) */
		if (forcing_offload(root) && keep_gpuagg_paths(output_rel))
			return;
		report_fallback(reason);
		return;
	}
	/* workers pinning pages for the leader's device (the serial path's rival) */
	reason = try_gpuagg_path(root, input_rel, output_rel, output_rel, gextra, false, true);
	if (reason)
		elog(DEBUG1, "gpuagg: %s", reason);

	/*
	 * The parallel variant, where PostgreSQL built a partially grouped rel
	 * (its target holds the partial Aggrefs the Finalize node combines).
	 * Why it is not offered matters less: at DEBUG1 only.
	 */
	if (partial_possible(gextra))
	{
		RelOptInfo *partial_rel = fetch_upper_rel(root, UPPERREL_PARTIAL_GROUP_AGG,
												  output_rel->relids);

		if (partial_rel->reltarget == NULL || partial_rel->reltarget->exprs == NIL)
			reason = "no parallel plan where each process aggregates: PostgreSQL planned no partial aggregation";
		else
			reason = try_gpuagg_path(root, input_rel, partial_rel, output_rel,
									 gextra, true, false);
		if (reason)
			elog(DEBUG1, "gpuagg: %s", reason);
	}
	/* (this aggregation's cheapest GpuAgg path; offered_cost's as before) */
	if (groups_of(root) && offered_cost >= 0 && native_here >= 0)
	{
		/*
		 * (the largest, not the sum: a groups subquery may be planned
		 * twice, as an AlternativeSubPlan's two forms, and the gate this
		 * serves must not shut out a plan that could win)
		 */
		groups_offered = true;
		groups_extra = Max(groups_extra, offered_cost - native_here);
	}
	if (save_offered >= 0 && (offered_cost < 0 || save_offered < offered_cost))
		offered_cost = save_offered;
}

/* Does the plan tree run a GpuAgg? */
static bool
plan_has_gpuagg(Plan *plan)
{
	ListCell   *lc;

	if (plan == NULL)
		return false;
	if (IsA(plan, CustomScan) && ((CustomScan *) plan)->methods == &GpuaggScanMethods)
		return true;
	if (plan_has_gpuagg(plan->lefttree) || plan_has_gpuagg(plan->righttree))
		return true;
	if (IsA(plan, Append))
		foreach(lc, ((Append *) plan)->appendplans)
		{
			if (plan_has_gpuagg(lfirst(lc)))
				return true;
		}
	if (IsA(plan, SubqueryScan))
		return plan_has_gpuagg(((SubqueryScan *) plan)->subplan);
	return false;
}

/*
 * Name the scanned table in each GpuAgg's custom_relids, for EXPLAIN:
 * createplan.c sets them to the upper rel's, none, and EXPLAIN names only
 * the tables that scans' nodes list (a join's columns are shown with their
 * tables' names, the scanned one's too).
 */
static void
name_scanned_tables(Plan *plan)
{
	ListCell   *lc;

	if (plan == NULL)
		return;
	if (IsA(plan, CustomScan) && ((CustomScan *) plan)->methods == &GpuaggScanMethods)
	{
		CustomScan *cscan = (CustomScan *) plan;

		cscan->custom_relids = bms_add_member(cscan->custom_relids, cscan->scan.scanrelid);
		foreach(lc, cscan->custom_plans)
			name_scanned_tables(lfirst(lc));
	}
	name_scanned_tables(plan->lefttree);
	name_scanned_tables(plan->righttree);
	if (IsA(plan, Append))
		foreach(lc, ((Append *) plan)->appendplans)
			name_scanned_tables(lfirst(lc));
	if (IsA(plan, MergeAppend))
		foreach(lc, ((MergeAppend *) plan)->mergeplans)
			name_scanned_tables(lfirst(lc));
	if (IsA(plan, SubqueryScan))
		name_scanned_tables(((SubqueryScan *) plan)->subplan);
}

/* Does the statement's plan hold a GpuAgg node? */
static bool
stmt_has_gpuagg(PlannedStmt *stmt)
{
	bool		used = plan_has_gpuagg(stmt->planTree);
	ListCell   *lc;

	foreach(lc, stmt->subplans)
		used = used || plan_has_gpuagg(lfirst(lc));
	return used;
}

/*
 * One planning of the statement: where a GpuAgg path was offered and the
 * plan has none, it lost on cost: say so with both costs
 * (gpuagg.log_fallback).
 */
static PlannedStmt *
plan_statement(Query *parse, const char *query_string, int cursorOptions,
			   ParamListInfo boundParams)
{
	PlannedStmt *stmt;
	double		save_offered = offered_cost,
				save_native = native_cost;

	List	   *save_serial = serial_joins;

	offered_cost = native_cost = -1;
	serial_joins = NIL;
	plan_depth++;
	PG_TRY();
	{
		ListCell   *lc;

		stmt = prev_planner_hook ?
			prev_planner_hook(parse, query_string, cursorOptions, boundParams) :
			standard_planner(parse, query_string, cursorOptions, boundParams);
		if (offered_cost >= 0)
		{
			if (stmt_has_gpuagg(stmt))
			{
				name_scanned_tables(stmt->planTree);
				foreach(lc, stmt->subplans)
					name_scanned_tables(lfirst(lc));
			}
			else
				report_fallback(psprintf("kept native on cost: the cheapest GpuAgg plan of its aggregation costs %.2f, the native one %.2f (gpuagg.startup_cost, gpuagg.tuple_cost and gpuagg.batch_cost weigh GpuAgg)",
										 offered_cost, native_cost));
		}
	}
	PG_FINALLY();
	{
		/* a statement planned inside this one (a function's) has its own */
		offered_cost = save_offered;
		native_cost = save_native;
		serial_joins = save_serial;
		plan_depth--;
	}
	PG_END_TRY();
	return stmt;
}

/* plan_statement, its fallback reasons unsaid */
static PlannedStmt *
plan_quietly(Query *parse, const char *query_string, int cursorOptions,
			 ParamListInfo boundParams)
{
	PlannedStmt *stmt;
	bool		save_quiet = quiet_fallback;

	quiet_fallback = true;
	PG_TRY();
	{
		stmt = plan_statement(parse, query_string, cursorOptions, boundParams);
	}
	PG_FINALLY();
	{
		quiet_fallback = save_quiet;
	}
	PG_END_TRY();
	return stmt;
}

/*
 * plan_quietly, with whether a GpuAgg was offered for its groups
 * (*offered) and the most one costs more than their native aggregation
 * (*extra).  force: the groups' aggregations in GpuAggs wherever they can
 * be, as gpuagg.force_offload would have them (forcing_offload).  This
 * statement's groups only, not those of a statement planned while it is
 * (a function's that constant folding runs, whose plan a cache may keep).
 */
static PlannedStmt *
plan_groups_quietly(Query *parse, const char *query_string, int cursorOptions,
					ParamListInfo boundParams, bool force, bool *offered, double *extra)
{
	PlannedStmt *stmt;
	int			save_depth = groups_depth;
	bool		save_forced = groups_forced;
	bool		save_offered = groups_offered;
	double		save_extra = groups_extra;

	groups_depth = plan_depth + 1;
	groups_forced = force;
	groups_offered = false;
	groups_extra = 0;
	PG_TRY();
	{
		stmt = plan_quietly(parse, query_string, cursorOptions, boundParams);
		*offered = groups_offered;
		*extra = groups_extra;
	}
	PG_FINALLY();
	{
		groups_depth = save_depth;
		groups_forced = save_forced;
		groups_offered = save_offered;
		groups_extra = save_extra;
	}
	PG_END_TRY();
	return stmt;
}

/*
 * A statement with a correlated scalar aggregate subquery
 * (decorrelate.c), or a SELECT DISTINCT that is a grouping (distinct.c),
 * is planned a second time first, rewritten as a join with the subquery's
 * groups and as a GROUP BY, quietly (once more with the groups forced into
 * GpuAggs, where the first holds none on cost); that plan is
 * kept where it holds a GpuAgg and costs less than the statement's own (or, with
 * gpuagg.force_offload, where the statement's own holds none).  Not a cursor's
 * (DECLARE, PL/pgSQL: CURSOR_OPT_FAST_PLAN), whose WHERE CURRENT OF needs
 * a plain scan and whose costs are not total costs.  (Its fallback
 * reasons are the original's, said while it is planned; the one said
 * afterwards says which plan was kept.)
 */
static PlannedStmt *
plan_with_rewrites(Query *parse, const char *query_string, int cursorOptions,
				   ParamListInfo boundParams)
{
	PlannedStmt *stmt = NULL,
			   *alt = NULL;
	Query	   *joined = NULL,
			   *grouped = NULL,
			   *rewritten,
			   *second;
	const char *form,
			   *kept,
			   *why;
	bool		offloaded,
				groups = false,
				forced = false;
	double		extra = 0;

	if (gpuagg_enabled && parse->commandType == CMD_SELECT &&
		!(cursorOptions & CURSOR_OPT_FAST_PLAN) && extension_installed())
	{
		if (gpuagg_decorrelate)
			joined = GpuaggDecorrelate(parse);
		grouped = GpuaggDistinctAsGroups(joined ? joined : parse, joined == NULL);
	}
	rewritten = grouped ? grouped : joined;
	if (rewritten == NULL)
		return plan_statement(parse, query_string, cursorOptions, boundParams);
	if (joined && grouped)
	{
		form = "a correlated subquery planned as a join with its groups and SELECT DISTINCT as GROUP BY";
		kept = "a correlated subquery and SELECT DISTINCT kept as written: as a join with its groups and a GROUP BY";
	}
	else if (joined)
	{
		form = "a correlated subquery planned as a join with its groups";
		kept = "a correlated subquery kept as written: as a join with its groups";
	}
	else
	{
		form = "SELECT DISTINCT planned as GROUP BY";
		kept = "SELECT DISTINCT kept as written: as GROUP BY";
	}
	quiet_reason[0] = '\0';
	/* (the planner rewrites the Query it plans: a copy for a second plan) */
	second = gpuagg_force_offload || joined == NULL ? NULL : copyObject(rewritten);
	alt = plan_groups_quietly(rewritten, query_string, cursorOptions, boundParams, false,
							  &groups, &extra);
	if (!stmt_has_gpuagg(alt) && second != NULL && groups)
	{
		/*
		 * Its groups aggregated natively cost less than in GpuAggs, but
		 * what competes is the statement as written (TPC-H Q17 at SF 10:
		 * a correlated average over lineitem per part, 2.04M as written;
		 * an index nested loop per group 0.12M, or a GpuAgg 0.29M, the
		 * plan 0.35M).  With its groups in GpuAggs, the rewrite is the one
		 * plan with a GpuAgg this statement can have: planned where the
		 * first plan and what the GpuAggs cost more come to less than the
		 * statement as written, kept below where it costs less.  (Not a
		 * SELECT DISTINCT's alone: as written, it is the native plan of
		 * the same grouping.)
		 */
		stmt = plan_statement(parse, query_string, cursorOptions, boundParams);
		if (alt->planTree->total_cost + extra < stmt->planTree->total_cost)
		{
			char	   *first_reason = pstrdup(quiet_reason);
			PlannedStmt *groups_alt;

			groups_alt = plan_groups_quietly(second, query_string, cursorOptions, boundParams,
											 true, &groups, &extra);
			if (stmt_has_gpuagg(groups_alt))
			{
				alt = groups_alt;
				forced = true;
			}
			/* (none even so: why the first had none) */
			strlcpy(quiet_reason, first_reason, sizeof(quiet_reason));
		}
	}
	if (!stmt_has_gpuagg(alt))
	{
		report_fallback(quiet_reason[0] ?
						psprintf("%s: that plan holds no GpuAgg (%s)", form, quiet_reason) :
						psprintf("%s: that plan holds no GpuAgg", form));
		alt = NULL;
	}
	if (stmt == NULL)
		stmt = plan_statement(parse, query_string, cursorOptions, boundParams);
	if (alt == NULL)
		return stmt;
	offloaded = stmt_has_gpuagg(stmt);
	/* (gpuagg.force_offload: offloaded wherever it can be) */
	if (alt->planTree->total_cost < stmt->planTree->total_cost ||
		(gpuagg_force_offload && !offloaded))
	{
		report_choice(psprintf("%s, offloaded: the plan costs %.2f%s, as written %.2f",
							   form, alt->planTree->total_cost,
							   forced ? " with its groups in GpuAggs" : "",
							   stmt->planTree->total_cost));
		return alt;
	}
	why = psprintf("%s, with a GpuAgg, the plan costs %.2f%s, as written %.2f",
				   kept, alt->planTree->total_cost,
				   forced ? " with its groups in GpuAggs" : "",
				   stmt->planTree->total_cost);
	/* (offloaded as written: not a fallback) */
	if (offloaded)
		report_choice(why);
	else
		report_fallback(why);
	return stmt;
}

/*
 * planner_hook: plan_with_rewrites, whose quiet planning of a rewritten
 * statement does not silence (nor take the reasons of) a statement
 * planned meanwhile, a function's that constant folding runs
 */
static PlannedStmt *
gpuagg_planner(Query *parse, const char *query_string, int cursorOptions,
			   ParamListInfo boundParams)
{
	PlannedStmt *volatile stmt = NULL;
	bool		save_quiet = quiet_fallback;
	char		save_reason[sizeof(quiet_reason)];

	strlcpy(save_reason, quiet_reason, sizeof(save_reason));
	quiet_fallback = false;
	PG_TRY();
	{
		stmt = plan_with_rewrites(parse, query_string, cursorOptions, boundParams);
	}
	PG_FINALLY();
	{
		quiet_fallback = save_quiet;
		strlcpy(quiet_reason, save_reason, sizeof(quiet_reason));
	}
	PG_END_TRY();
	return stmt;
}

/* A rel's kept parallel-safe serial path (SerialJoin), or NULL. */
static SerialJoin *
serial_join_of(PlannerInfo *root, RelOptInfo *rel)
{
	ListCell   *lc;

	foreach(lc, serial_joins)
	{
		SerialJoin *e = lfirst(lc);

		if (e->root == root && e->rel == rel)
			return e;
	}
	return NULL;
}

/* (gpuagg.h) */
Path *
GpuaggCheapestSafePath(List *pathlist)
{
	Path	   *best = NULL;
	ListCell   *lc;

	foreach(lc, pathlist)
	{
		Path	   *p = lfirst(lc);

		if (p->parallel_safe && p->param_info == NULL &&
			(best == NULL || p->total_cost < best->total_cost))
			best = p;
	}
	return best;
}

/* The cheapest parallel-safe unparameterized path of a rel, or NULL. */
static Path *
safe_path_of(PlannerInfo *root, RelOptInfo *rel)
{
	if (rel->reloptkind == RELOPT_JOINREL)
	{
		SerialJoin *e = serial_join_of(root, rel);

		return e ? e->path : NULL;
	}
	return GpuaggCheapestSafePath(rel->pathlist);
}

/*
 * set_join_pathlist_hook: each join rel's cheapest parallel-safe serial
 * path, kept (SerialJoin).  PostgreSQL's own may all read a Gather (a
 * base rel's, cheaper) or be none: then a hash join of the two sides'
 * kept paths on this pair's hashable clauses, as hash_inner_and_outer
 * makes it.
 */
static void
gpuagg_set_join_pathlist(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
						 RelOptInfo *innerrel, JoinType jointype, JoinPathExtraData *extra)
{
	SerialJoin *sj;
	Path	   *best = NULL;
	bool		fresh = false;
	ListCell   *lc;

	if (prev_set_join_pathlist_hook)
		prev_set_join_pathlist_hook(root, joinrel, outerrel, innerrel, jointype, extra);
	/*
	 * (not under GEQO: each of its tours' rels and paths are freed with the
	 * tour's memory; such a join keeps PostgreSQL's paths only)
	 */
	if (!gpuagg_enabled || !joinrel->consider_parallel || root->join_search_private != NULL)
		return;
	foreach(lc, joinrel->pathlist)
	{
		Path	   *p = lfirst(lc);

		if (p->parallel_safe && p->param_info == NULL &&
			(IsA(p, NestPath) || IsA(p, MergePath) || IsA(p, HashPath)) &&
			(best == NULL || p->total_cost < best->total_cost))
			best = p;
	}
	if (best == NULL && jointype != JOIN_UNIQUE_OUTER && jointype != JOIN_UNIQUE_INNER)
	{
		Path	   *outer = safe_path_of(root, outerrel);
		Path	   *inner = safe_path_of(root, innerrel);
		bool		isouter = jointype == JOIN_LEFT || jointype == JOIN_FULL ||
			jointype == JOIN_RIGHT || jointype == JOIN_ANTI;
		List	   *hashclauses = NIL;

		foreach(lc, extra->restrictlist)
		{
			RestrictInfo *ri = lfirst_node(RestrictInfo, lc);

			if (isouter && RINFO_IS_PUSHED_DOWN(ri, joinrel->relids))
				continue;
			if (!ri->can_join || !OidIsValid(ri->hashjoinoperator))
				continue;
			if (bms_is_subset(ri->left_relids, outerrel->relids) &&
				bms_is_subset(ri->right_relids, innerrel->relids))
				ri->outer_is_left = true;
			else if (bms_is_subset(ri->left_relids, innerrel->relids) &&
					 bms_is_subset(ri->right_relids, outerrel->relids))
				ri->outer_is_left = false;
			else
				continue;
			hashclauses = lappend(hashclauses, ri);
		}
		if (outer && inner && hashclauses != NIL)
		{
			JoinCostWorkspace ws;

			initial_cost_hashjoin(root, &ws, jointype, hashclauses, outer, inner, extra, false);
			best = (Path *) create_hashjoin_path(root, joinrel, jointype, &ws, extra, outer, inner,
												 false, extra->restrictlist, NULL, hashclauses);
			fresh = true;
			if (!best->parallel_safe)
				return;
		}
	}
	if (best == NULL)
		return;
	sj = serial_join_of(root, joinrel);
	if (sj == NULL)
	{
		sj = palloc0(sizeof(SerialJoin));
		sj->root = root;
		sj->rel = joinrel;
		serial_joins = lappend(serial_joins, sj);
	}
	else if (sj->path->total_cost <= best->total_cost)
		return;
	if (fresh)
		sj->path = best;
	else
	{
		/* (add_path may free the rel's own path later) */
		Size		size = IsA(best, NestPath) ? sizeof(NestPath) :
			IsA(best, MergePath) ? sizeof(MergePath) : sizeof(HashPath);

		sj->path = palloc(size);
		memcpy(sj->path, best, size);
	}
}

/*
 * A fed GpuAgg's exact path over a join: the top join rel's serial path
 * that PostgreSQL's Gather paths may have displaced (SerialJoin), with the
 * rel's scan/join target, or NULL.
 */
static Path *
saved_serial_join(PlannerInfo *root, RelOptInfo *rel)
{
	SerialJoin *e = serial_join_of(root, rel);
	Path	   *p;

	if (e == NULL)
		return NULL;
	p = (Path *) create_projection_path(root, rel, e->path, rel->reltarget);
	return p->parallel_safe ? p : NULL;
}

void
GpuaggPlannerInit(void)
{
	prev_create_upper_paths_hook = create_upper_paths_hook;
	create_upper_paths_hook = gpuagg_create_upper_paths;
	prev_planner_hook = planner_hook;
	planner_hook = gpuagg_planner;
	prev_set_join_pathlist_hook = set_join_pathlist_hook;
	set_join_pathlist_hook = gpuagg_set_join_pathlist;
}
