/*-------------------------------------------------------------------------
 *
 * distinct.c
 *	  SELECT DISTINCT as the GROUP BY it equals.
 *
 * A query level without aggregates
 *
 *	  SELECT DISTINCT l_returnflag, l_linestatus FROM lineitem
 *
 * returns what
 *
 *	  SELECT l_returnflag, l_linestatus FROM lineitem
 *	   GROUP BY l_returnflag, l_linestatus
 *
 * returns: the same rows, each once, compared with the same equality (a
 * DISTINCT's SortGroupClauses are the ones a GROUP BY of the same columns
 * gets), NULLs equal to each other.  PostgreSQL plans the first as a
 * Unique or a HashAggregate above the scan, which the upper-path hook
 * never sees; as a GROUP BY it is a grouping GpuAgg offloads (a group
 * key per column, no aggregates).  The planner hook plans this form
 * beside the original and keeps it only where it holds a GpuAgg and costs
 * less (planner.c), so a native plan stays the one PostgreSQL chose.
 *
 * Only where the two forms are one: no aggregates, GROUP BY, grouping sets
 * or HAVING (DISTINCT then applies to the groups), no window functions
 * (it applies after them), no set-returning functions in the select list
 * (it applies to the rows they return, a GROUP BY before), no DISTINCT ON,
 * no set operation at that level, and every entry of the select list one
 * of the DISTINCT's columns; and only where it could gain: keys that hash,
 * a level that reads a table of the user's.  Each such level of a SELECT
 * statement is rewritten: subqueries in FROM, CTEs, sublinks.
 *
 * Copyright (c) 2026, gpuagg authors
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "catalog/pg_class.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/tlist.h"

#include "gpuagg.h"

/*
 * Does the level read a table of the user's (not a catalog's), which a
 * GpuAgg could scan?  (Else planning it twice gains nothing.)
 */
static bool
reads_user_table(Query *q)
{
	ListCell   *lc;

	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

		if (rte->rtekind == RTE_RELATION && rte->relid >= FirstNormalObjectId &&
			(rte->relkind == RELKIND_RELATION || rte->relkind == RELKIND_MATVIEW ||
			 rte->relkind == RELKIND_PARTITIONED_TABLE))
			return true;
	}
	return false;
}

/* May this query level's DISTINCT be its GROUP BY? */
static bool
distinct_is_grouping(Query *q)
{
	ListCell   *lc;

	if (q->commandType != CMD_SELECT || q->distinctClause == NIL || q->hasDistinctOn ||
		q->groupClause != NIL || q->groupingSets != NIL || q->hasAggs ||
		q->havingQual != NULL || q->hasWindowFuncs || q->hasTargetSRFs ||
		q->setOperations != NULL || q->rowMarks != NIL)
		return false;
	/*
	 * Keys a hash groups (GpuAgg's own need): a DISTINCT that only a sort
	 * implements, or neither, stays as written, its plan and its errors
	 * PostgreSQL's ("could not implement DISTINCT").
	 */
	if (!grouping_is_hashable(q->distinctClause) || !reads_user_table(q))
		return false;
	foreach(lc, q->targetList)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		ListCell   *lc2;
		bool		found = false;

		foreach(lc2, q->distinctClause)
			if (tle->ressortgroupref != 0 &&
				lfirst_node(SortGroupClause, lc2)->tleSortGroupRef == tle->ressortgroupref)
				found = true;
		if (!found)
			return false;
	}
	return true;
}

/*
 * Rewrite each such level (*apply), or only say whether there is one (the
 * walk then stops at the first).
 */
static bool
distinct_walker(Node *node, bool *apply)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		Query	   *q = (Query *) node;

		if (distinct_is_grouping(q))
		{
			if (!*apply)
				return true;
			q->groupClause = q->distinctClause;
			q->distinctClause = NIL;
		}
		return query_tree_walker(q, distinct_walker, apply, 0);
	}
	return expression_tree_walker(node, distinct_walker, apply);
}

/* (gpuagg.h) */
Query *
GpuaggDistinctAsGroups(Query *parse, bool copy)
{
	bool		apply = false;

	if (!distinct_walker((Node *) parse, &apply))
		return NULL;
	if (copy)
		parse = copyObject(parse);
	apply = true;
	distinct_walker((Node *) parse, &apply);
	return parse;
}
