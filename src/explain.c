/*-------------------------------------------------------------------------
 *
 * explain.c
 *		What EXPLAIN shows of a GpuAgg: the plan's device work in SQL, and
 *		under ANALYZE the counters of every process that ran it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "commands/explain.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "rewrite/rewriteManip.h"
#include "utils/ruleutils.h"

#include "exec.h"

/* Add c's counts and times to all's. */
static void
counters_add(GpuaggCounters *all, const GpuaggCounters *c)
{
	all->nbatches += c->nbatches;
	all->page_batches += c->page_batches;
	all->pages += c->pages;
	all->pages_all_visible += c->pages_all_visible;
	all->bytes_in += c->bytes_in;
	all->open_ms += c->open_ms;
	all->scan_ms += c->scan_ms;
	all->dims_ms += c->dims_ms;
	all->dims_scanned += c->dims_scanned;
	all->dim_batches_fed += c->dim_batches_fed;
	all->wait_ms += c->wait_ms;
	all->finish_ms += c->finish_ms;
	all->result_ms += c->result_ms;
	all->map_ms += c->map_ms;
	all->map_eval_ms += c->map_eval_ms;
	all->ngroups += c->ngroups;
	all->groups_back += c->groups_back;
	all->groups_returned += c->groups_returned;
	all->groups_unmapped += c->groups_unmapped;
	all->mapped_elsewhere += c->mapped_elsewhere;
	all->map_unkept += c->map_unkept;
	all->strings_coded += c->strings_coded;
	all->column_reruns += c->column_reruns;
	all->exact_runs += c->exact_runs;
	all->rows_read += c->rows_read;
	all->host_removed += c->host_removed;
	all->stats.rows_in += c->stats.rows_in;
	all->rows_counted += c->rows_counted;
	all->rows_fetched += c->rows_fetched;
	all->strings_returned += c->strings_returned;
	all->probe_keys += c->probe_keys;
	all->probe_rows += c->probe_rows;
	all->dims_probed += c->dims_probed;
	all->dim_probe_rows += c->dim_probe_rows;
	all->stats.rows_passed += c->stats.rows_passed;
	all->stats.device_ms += c->stats.device_ms;
	all->stats.transfer_ms += c->stats.transfer_ms;
	all->stats.admission_ms += c->stats.admission_ms;
	all->stats.session_ms += c->stats.session_ms;
	all->stats.memory_ms += c->stats.memory_ms;
}

/* Deparse an expression of the plan for EXPLAIN. */
static char *
deparse(GpuAggState *st, Node *expr, List *context, bool useprefix)
{
	Index		scanrelid = ((Scan *) st->css.ss.ps.plan)->scanrelid;

	expr = copyObject(expr);
	/* (a join's other tables moved as the scanned one did) */
	if (st->plan->varno != scanrelid)
		OffsetVarNodes(expr, (int) scanrelid - (int) st->plan->varno, 0);
	return deparse_expression(expr, context, useprefix, false);
}

void
GpuaggExplain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	GpuAggState *st = (GpuAggState *) node;
	List	   *context;
	List	   *items = NIL;
	bool		useprefix = es->verbose || st->plan->join != NIL;
	ListCell   *lc;

	context = set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan,
									   ancestors);
	ExplainPropertyText("Device", st->device->name, es);
	/* a partitioned table's: the partitions left after pruning, in scan order */
	if (st->plan->children != NIL && st->nrels > 0)
	{
		for (int i = 0; i < st->nrels; i++)
			items = lappend(items, RelationGetRelationName(st->rels[i]));
		ExplainPropertyList(node->ss.ss_currentRelation->rd_rel->relkind ==
							RELKIND_PARTITIONED_TABLE ? "Partitions" : "Tables",
							items, es);
		items = NIL;
		if (st->plan->remap)
			ExplainPropertyText("Partition Columns",
								"found by name in each, read in column batches", es);
	}
	/*
	 * A join: each other table's key conditions, in the order its plan
	 * below is matched (after the exact path's).
	 */
	if (st->plan->join != NIL)
	{
		for (int d = 0; d < GpuaggJoinDims(st->plan->join); d++)
		{
			const char *kind = GpuaggJoinKindName(st->plan->join, d);
			List	   *clauses = GpuaggJoinKeyClauses(st->plan->join, d);
			bool		notin;
			SubPlan    *sub = GpuaggSubqueryOf(linitial(clauses), &notin);
			char	   *keys;

			if (sub)
			{
				/* x [NOT] IN (a subquery's rows): SubPlan n, below */
				keys = psprintf("%s %sIN (%s)",
								deparse(st, linitial(castNode(OpExpr, sub->testexpr)->args),
										context, useprefix),
								notin ? "NOT " : "", sub->plan_name);
			}
			else
				keys = deparse(st, (Node *) make_ands_explicit(clauses), context, useprefix);
			items = lappend(items, kind ? psprintf("%s %s", kind, keys) : keys);
		}
		ExplainPropertyList("Join Keys", items, es);
		items = NIL;
		/* who matches the rows: the device probes hash tables of the others */
		ExplainPropertyText("Join Matched By", st->prog->ga.ndims > 0 ? "device" : "host", es);
	}
	/* pruned at the start, as an Append says "Subplans Removed" */
	if (st->nremoved > 0)
		ExplainPropertyInteger("Partitions Removed", NULL, st->nremoved, es);
	if (st->plan->feed)
		ExplainPropertyText("Aggregation", "in the leader, its workers pinning pages for it", es);
	else if (st->css.ss.ps.plan->parallel_aware)
		ExplainPropertyText("Aggregation", "partial, in each process", es);
	if (st->fallback)
		ExplainPropertyText("Device Fallback", st->fallback, es);
	if (st->gating != NIL)
		ExplainPropertyText("One-Time Filter",
							deparse(st, (Node *) make_ands_explicit(st->gating),
									context, useprefix), es);
	if (st->host != NIL)
		ExplainPropertyText("Host Filter",
							deparse(st, (Node *) make_ands_explicit(st->host),
									context, useprefix), es);
	if (st->plan->quals != NIL)
		ExplainPropertyText("Device Filter",
							deparse(st, (Node *) make_ands_explicit(st->plan->quals),
									context, useprefix), es);
	if (st->plan->keys != NIL)
	{
		List	   *mapped = NIL;

		foreach(lc, st->plan->keys)
		{
			Node	   *key = lfirst(lc);

			/* a key the host maps: the device's, the value inside it */
			if (st->prog->rekey_expr[foreach_current_index(lc)] != NULL)
			{
				mapped = lappend(mapped, deparse(st, key, context, useprefix));
				key = (Node *) GpuaggRekeyInner((Expr *) GpuaggBaseTypedVars(key));
			}
			items = lappend(items, deparse(st, key, context, useprefix));
		}
		ExplainPropertyList("Device Group Key", items, es);
		if (mapped != NIL)
			ExplainPropertyList("Group Key Mapped by Host", mapped, es);
	}
	if (st->plan->fetch != NIL)
	{
		/* columns of a table whose primary key the group keys hold */
		items = NIL;
		foreach(lc, st->plan->fetch)
		{
			ListCell   *lv;

			foreach(lv, (List *) lthird(lfirst(lc)))
				items = lappend(items, deparse(st, lfirst(lv), context, useprefix));
		}
		ExplainPropertyList("Fetched by Primary Key", items, es);
		items = NIL;
	}
	if (st->plan->sets != NIL)
	{
		/* each set, combined on the host from the device's groups */
		items = NIL;
		foreach(lc, st->plan->sets)
		{
			StringInfoData buf;
			ListCell   *lk;

			initStringInfo(&buf);
			appendStringInfoChar(&buf, '(');
			foreach(lk, (List *) lfirst(lc))
				appendStringInfo(&buf, "%s%s", foreach_current_index(lk) > 0 ? ", " : "",
								 deparse(st, list_nth(st->plan->keys, lfirst_int(lk)),
										 context, useprefix));
			appendStringInfoChar(&buf, ')');
			items = lappend(items, buf.data);
		}
		ExplainPropertyList("Grouping Sets", items, es);
	}
	items = NIL;
	foreach(lc, st->plan->aggrefs)
		items = lappend(items, deparse(st, lfirst(lc), context, useprefix));
	if (items != NIL)			/* (none: a grouping alone, SELECT DISTINCT) */
		ExplainPropertyList("Device Aggregates", items, es);
	if (st->topn.n > 0 && st->topn.agg < 0)
		ExplainPropertyText("Device Limit",
							psprintf("any %d groups (no ORDER BY)", st->topn.n), es);
	else if (st->topn.n > 0)
	{
		StringInfoData buf;

		/* as the Sort above shows its keys: DESC, and NULLS where not so */
		initStringInfo(&buf);
		appendStringInfo(&buf, "%s %s",
						 deparse(st, list_nth(st->plan->aggrefs, st->topn.agg), context, useprefix),
						 st->topn.desc ? "DESC" : "ASC");
		/* (a sum may be NULL; a count never is) */
		if (st->prog->ga.aggs[st->topn.agg].kind != GA_AGG_COUNT &&
			st->topn.aggnullsfirst != st->topn.desc)
			appendStringInfoString(&buf, st->topn.aggnullsfirst ? " NULLS FIRST" : " NULLS LAST");
		for (int i = 0; i < st->topn.ntie; i++)
		{
			const SortSupportData *ssup = &st->topn.tie_ssup[i];

			appendStringInfo(&buf, ", %s%s",
							 deparse(st, list_nth(st->plan->keys, st->topn.tie_key[i]), context,
									 useprefix),
							 ssup->ssup_reverse ? " DESC" : "");
			if (ssup->ssup_nulls_first != ssup->ssup_reverse)
				appendStringInfoString(&buf, ssup->ssup_nulls_first ?
									   " NULLS FIRST" : " NULLS LAST");
		}
		/* (whole: of groups tied in the whole ORDER BY, any n will do) */
		appendStringInfo(&buf, st->topn.whole ? ", %d groups" :
						 ", %d groups and their ties", st->topn.n);
		ExplainPropertyText("Device Top-N", buf.data, es);
	}
	/* HAVING's leading checks, which the device applies as it packs the groups */
	if (st->prog->ga.nhaving > 0)
		ExplainPropertyInteger("HAVING Conjuncts Checked by Device", NULL,
							   st->prog->ga.nhaving, es);
	ExplainPropertyInteger("Device Memory Estimate", "kB",
						   (int64) ceil(st->plan->vram / 1024.0), es);
	/* the plan below the node: PostgreSQL's own, for numerics too large */
	if (st->exact_ps != NULL)
	{
		bool		numerics = GpuaggProgramNumericExact(&st->prog->ga);

		StringInfoData why;

		initStringInfo(&why);
		if (numerics)
			appendStringInfoString(&why, "a numeric value does not fit the device");
		if (GpuaggProgramSumsIntervals(&st->prog->ga))
			appendStringInfo(&why, "%sa sum of intervals may leave their range",
							 why.len > 0 ? " or " : "");
		if (GpuaggProgramIntervalExact(&st->prog->ga))
			appendStringInfo(&why, "%san interval's value passes what the device holds",
							 why.len > 0 ? " or " : "");
		if (st->prog->uses_zone)
			appendStringInfo(&why, "%sa timestamptz lies outside the time zone's table",
							 why.len > 0 ? " or " : "");
		if (st->prog->guarded != NULL)
			appendStringInfo(&why, "%sa constant expression fails", why.len > 0 ? " or " : "");
		ExplainPropertyText("Exact Path",
							psprintf("the %s below, if %s",
									 st->plan->join != NIL ? "first plan" : "plan", why.data),
							es);
	}

	if (es->analyze)
	{
		GpuaggCounters all = st->counters;

		/* a parallel GpuAgg: every process's share (times summed) */
		for (int w = 0; st->collected && w < st->collected->nslots; w++)
			counters_add(&all, &st->collected->slot[w]);
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
			/* ... of which those the returned groups' keys show, where few */
			if (all.strings_returned < all.strings_coded)
				ExplainPropertyInteger("Strings Returned by Device", NULL,
									   all.strings_returned, es);
		}
		/*
		 * A string value the device could not read (compressed, TOASTed)
		 * sends the whole scan back to the host: read again in column form.
		 */
		if (all.column_reruns > 0)
			ExplainPropertyInteger("Scans Read Again in Column Form", NULL,
								   all.column_reruns, es);
		/* a numeric value past the device's int64: the plan below ran */
		if (st->exact_ps != NULL)
			ExplainPropertyInteger("Exact Path Runs", NULL, all.exact_runs, es);
		/* a join: the table's rows read and matched on the host */
		if (st->join != NULL)
			ExplainPropertyInteger("Table Rows Read", NULL, all.rows_read, es);
		/* ... of them those an index found for a joined table's few keys */
		if (all.probe_keys > 0)
		{
			ExplainPropertyInteger("Index Probe Keys", NULL, all.probe_keys, es);
			ExplainPropertyInteger("Rows Found by Index Probe", NULL, all.probe_rows, es);
		}
		if (st->host != NIL)
			ExplainPropertyInteger("Rows Removed by Host Filter", NULL, all.host_removed, es);
		/* the device's join: the joined tables it read itself, in page form */
		if (all.dims_scanned > 0)
			ExplainPropertyInteger("Joined Tables Scanned by Device", NULL, all.dims_scanned, es);
		/* ... of them those whose rows an index found, for another's few keys */
		if (all.dims_probed > 0)
		{
			ExplainPropertyInteger("Joined Tables Probed by Index", NULL, all.dims_probed, es);
			ExplainPropertyInteger("Their Rows Found by Index Probe", NULL,
								   all.dim_probe_rows, es);
		}
		/* ... fed: their batches of pages the workers pinned */
		if (st->plan->feed && all.dims_scanned > 0)
			ExplainPropertyInteger("Joined Table Batches From Workers", NULL,
								   all.dim_batches_fed, es);
		ExplainPropertyInteger("Rows In", NULL, all.stats.rows_in, es);
		if (all.rows_counted > 0)
			ExplainPropertyInteger("Rows Counted by Host", NULL, all.rows_counted, es);
		/* (the device's join may make several rows of one row in) */
		if (st->prog->ga.ndims > 0)
			ExplainPropertyInteger("Rows Out of Device Join and Filter", NULL,
								   all.stats.rows_passed, es);
		else
			ExplainPropertyInteger("Rows Removed by Device Filter", NULL,
								   all.stats.rows_in - all.stats.rows_passed, es);
		if (st->prog->nrekeys > 0)
		{
			ExplainPropertyInteger("Groups Before Mapping", NULL, all.groups_unmapped, es);
			/* (a parallel plan's processes share the strings they mapped) */
			if (all.mapped_elsewhere > 0)
				ExplainPropertyInteger("Strings Mapped by Another Process", NULL,
									   all.mapped_elsewhere, es);
			/* ... and those not shared: the table's memory (hash_mem) spent */
			if (all.map_unkept > 0)
				ExplainPropertyInteger("Strings Not Shared", NULL, all.map_unkept, es);
		}
		ExplainPropertyInteger("Groups", NULL, all.ngroups, es);
		if (st->plan->fetch != NIL)
			ExplainPropertyInteger("Rows Fetched by Primary Key", NULL, all.rows_fetched, es);
		if (st->topn.n > 0)
		{
			ExplainPropertyInteger("Groups From Device", NULL, all.groups_back, es);
			ExplainPropertyInteger("Groups Returned", NULL, all.groups_returned, es);
		}
		else if (st->prog->ga.nhaving > 0)
			ExplainPropertyInteger("Groups From Device", NULL, all.groups_back, es);
		ExplainPropertyInteger("Bytes To Device", "kB",
							   (int64) ((all.bytes_in + 1023) / 1024), es);
		if (es->timing)
		{
			if (st->planned_cuda)
				ExplainPropertyFloat("Admission Wait", "ms", all.stats.admission_ms, 3, es);
			/* the session's set-up past the queue: segment, thread, buffers */
			ExplainPropertyFloat("Open Time", "ms",
								 Max(all.open_ms - all.stats.admission_ms, 0.0), 3, es);
			/* (of it, the GPU's: the session's context, streams and buffers; its memory) */
			if (st->device->gpu)
			{
				ExplainPropertyFloat("Session Set-Up Time", "ms", all.stats.session_ms, 3, es);
				ExplainPropertyFloat("Device Memory Set-Up Time", "ms", all.stats.memory_ms, 3, es);
			}
			/* the device's join: the other tables' rows, before the scan */
			if (all.dims_ms > 0)
				ExplainPropertyFloat("Joined Tables Time", "ms", all.dims_ms, 3, es);
			ExplainPropertyFloat("Scan Time", "ms", all.scan_ms, 3, es);
			if (st->device->gpu)
			{
				ExplainPropertyFloat("Wait Time", "ms", all.wait_ms, 3, es);
				ExplainPropertyFloat("Transfer Time", "ms", all.stats.transfer_ms, 3, es);
			}
			ExplainPropertyFloat("Finish Time", "ms", all.finish_ms, 3, es);
			/* (of it, the keys the host mapped) */
			if (st->prog->nrekeys > 0)
			{
				ExplainPropertyFloat("Mapping Time", "ms", all.map_ms, 3, es);
				/* (... of it, the key expressions' own: the rest is ours) */
				ExplainPropertyFloat("Mapping Expression Time", "ms", all.map_eval_ms, 3, es);
			}
			ExplainPropertyFloat("Device Time", "ms", all.stats.device_ms, 3, es);
			ExplainPropertyFloat("Result Time", "ms", all.result_ms, 3, es);
		}
	}
}
