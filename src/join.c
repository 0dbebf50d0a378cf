/*-------------------------------------------------------------------------
 *
 * join.c
 *		Aggregation over a join: the planner's choice of the table to scan
 *		and of the dimensions, and the executor's hash tables of them.
 *
 * An analytic GROUP BY joins a large table to smaller ones.  Of a join of
 * inner joins, the plain heap table with the most pages is scanned in
 * batches, in parallel as any other (the "fact" table); every other table
 * is a *dimension*: PostgreSQL's own cheapest plan of it (its WHERE, any
 * kind of relation: a table, a subquery, VALUES, a function), which the
 * node runs once per (re)scan, below it in EXPLAIN (custom_plans).  Each
 * dimension is reached from the tables before it by equalities the planner
 * derived (its equivalence classes, generate_join_implied_equalities):
 * those between a column of the dimension and a column of the fact table or
 * of an earlier dimension, with a hashable operator, are its *keys*; its
 * rows go into a simplehash table by the hash of their keys (the
 * operator's own hash functions, PostgreSQL's hash join's rule), chained,
 * so that duplicate keys multiply the rows as natively.  The other join
 * conditions (a non-equality, an expression, a cycle such as TPC-H Q5's
 * c_nationkey = s_nationkey) are the *residual*: compiled with the fact
 * table's WHERE and evaluated by the device after the match.
 *
 * The batch reader matches each row of the fact table (GpuaggJoinFirst,
 * GpuaggJoinNext, depth first over the dimensions in probe order, with
 * the operator's own equality) and sends one row per match; a dimension's
 * columns the query reads are columns of the batch past the table's own
 * (GPUAGG_JOIN_ATTNO, program.h), so the device sees a wider table and
 * nothing else changes: both devices, strings through the dictionary,
 * numerics, the exact path (PostgreSQL's plan of the whole join).  NULL
 * keys match nothing, on either side.
 *
 * The inner side of a semi, anti or left join is a dimension too, its
 * join's other conditions checked per candidate.  Where every key is an
 * integer or a string (text, deterministic), the device matches instead (GpuaggJoinToDevice,
 * cuda/gpuagg_join.h): the dimensions' rows go to it as hash tables, and
 * the table in page form.  Not yet: full joins, LATERAL.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "commands/defrem.h"
#include "common/hashfn.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "batch.h"
#include "device.h"
#include "gpuagg.h"
#include "join.h"
#include "ledger.h"
#include "program.h"

/*---- planner -------------------------------------------------------------*/

/*
 * A key's values as a device's join holds them: an integer of so many
 * bytes, or (KEY_TEXT) a string's code.
 */
#define KEY_TEXT	(-1)

static bool integer_equality(Oid fn, int *l, int *r);
static bool key_type_fits(int t, int w);
static bool text_equality(Oid opno, Oid collid);

/* custom_private's join: a List of these, then one List per dimension */
enum
{
	JOIN_PRIV_COLUMNS,			/* joincols: IntLists (varno, attno) */
	JOIN_PRIV_COLUMN_AT,		/* IntLists (dimension, column) per joincol */
	JOIN_PRIV_FIRST_DIM
};

/*
 * A dimension's List: Integer varno, Integer columns of its plan's rows,
 * a List of keys (IntLists: source dimension or -1 for the fact table,
 * source column (the table's attno, or the dimension's column from 0),
 * this dimension's column, operator, collation, whether this dimension's
 * column is the operator's left operand), a List of the key conditions
 * (for EXPLAIN), Integer JoinType: JOIN_INNER, or JOIN_SEMI, JOIN_ANTI,
 * JOIN_LEFT for the one relation on the inner side of such a join, and
 * the join's other conditions, for the host (DIM_COND) and the device
 * (DIM_COND_EXPRS).
 */
enum
{
	DIM_VARNO,
	DIM_NATTS,
	DIM_KEYS,
	DIM_CLAUSES,
	DIM_KIND,					/* JoinType: inner, semi, anti or left */
	DIM_COND,					/* a semi, anti or left join's other
								 * conditions: the scanned table's Vars, and
								 * the dimension's as INNER_VAR (its plan's
								 * columns from 1), for ExecQual per match */
	DIM_COND_EXPRS,				/* ... as written: GpuaggCompile's, whose
								 * columns of the dimension are joincols */
	DIM_SUBPLAN,				/* Integer: 0, or the plan_id of the hashed
								 * subquery whose rows these are (x [NOT] IN
								 * (subquery): GpuaggJoinAddSubquery) */
	DIM_NOTIN					/* Integer: an anti join with NOT IN's NULL
								 * rules */
};

/* The Var an expression is, through binary-compatible casts, or NULL. */
static Var *
plain_var(Node *n)
{
	while (n && IsA(n, RelabelType))
		n = (Node *) ((RelabelType *) n)->arg;
	if (n && IsA(n, Var) && ((Var *) n)->varlevelsup == 0 && ((Var *) n)->varattno > 0)
		return (Var *) n;
	return NULL;
}

/* Var's column in rel's output (its reltarget), from 0, or -1. */
static int
output_column(RelOptInfo *rel, Var *var)
{
	ListCell   *lc;

	foreach(lc, rel->reltarget->exprs)
	{
		Var		   *v = lfirst(lc);

		if (IsA(v, Var) && v->varno == var->varno && v->varattno == var->varattno &&
			v->varlevelsup == 0)
			return foreach_current_index(lc);
	}
	return -1;
}

/* A table's name and alias, as join_words says them. */
static const char *
rel_words(PlannerInfo *root, RelOptInfo *rel)
{
	RangeTblEntry *rte;

	/* a join: its relations' */
	if (rel->reloptkind == RELOPT_JOINREL)
	{
		StringInfoData buf;
		int			i = -1;

		initStringInfo(&buf);
		while ((i = bms_next_member(rel->relids, i)) >= 0)
			appendStringInfo(&buf, "%s%s", buf.len > 0 ? " ⋈ " : "",
							 rel_words(root, root->simple_rel_array[i]));
		return buf.data;
	}
	rte = planner_rt_fetch(rel->relid, root);

	if (rte->rtekind == RTE_RELATION)
	{
		const char *name = get_rel_name(rte->relid);

		if (rte->eref && strcmp(rte->eref->aliasname, name) != 0)
			return psprintf("\"%s\" (%s)", name, rte->eref->aliasname);
		return psprintf("\"%s\"", name);
	}
	return psprintf("\"%s\"", rte->eref ? rte->eref->aliasname : "?");
}

typedef struct DimVarsContext
{
	Relids		fact;
	List	   *vars;
} DimVarsContext;

static bool
dim_vars_walker(Node *node, DimVarsContext *cxt)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0)
	{
		if (!bms_is_member(((Var *) node)->varno, cxt->fact))
			cxt->vars = lappend(cxt->vars, node);
		return false;
	}
	return expression_tree_walker(node, dim_vars_walker, (void *) cxt);
}

/*
 * Of the equalities eq between dimension d and the tables in avail, the
 * keys (IntLists: source dimension or -1, source column, d's column,
 * operator, collation, d's column on the left) and their conditions; the
 * others go to *rest.
 */
static void
dim_keys(PlannerInfo *root, RelOptInfo *fact, List *dims, RelOptInfo *d,
		 Relids avail, List *eq, List **keys, List **keyclauses, List **rest)
{
	ListCell   *lc;

	*keys = *keyclauses = *rest = NIL;
	foreach(lc, eq)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
		OpExpr	   *op = (OpExpr *) rinfo->clause;
		Var		   *l,
				   *r,
				   *dv,
				   *sv;
		RegProcedure lh,
					rh;
		int			src_dim = -1,
					src_col = -1,
					col;
		List	   *key;

		if (!IsA(op, OpExpr) || list_length(op->args) != 2 ||
			(l = plain_var(linitial(op->args))) == NULL ||
			(r = plain_var(lsecond(op->args))) == NULL ||
			!get_op_hash_functions(op->opno, &lh, &rh) || !op_strict(op->opno))
		{
			*rest = lappend(*rest, rinfo);
			continue;
		}
		dv = bms_is_member(l->varno, d->relids) ? l : r;
		sv = dv == l ? r : l;
		if (!bms_is_member(dv->varno, d->relids) || !bms_is_member(sv->varno, avail) ||
			(col = output_column(d, dv)) < 0)
		{
			*rest = lappend(*rest, rinfo);
			continue;
		}
		if (bms_is_member(sv->varno, fact->relids))
			src_col = sv->varattno;
		else
		{
			/* a column of an earlier dimension's rows */
			ListCell   *lc2;

			foreach(lc2, dims)
			{
				if (intVal(list_nth(lfirst(lc2), DIM_VARNO)) == (int) sv->varno)
					src_dim = foreach_current_index(lc2);
			}
			if (src_dim >= 0)
				src_col = output_column(root->simple_rel_array[sv->varno], sv);
			if (src_col < 0)
			{
				*rest = lappend(*rest, rinfo);
				continue;
			}
		}
		key = list_make5_int(src_dim, src_col, col, (int) op->opno, (int) op->inputcollid);
		*keys = lappend(*keys, lappend_int(key, dv == l ? 1 : 0));
		*keyclauses = lappend(*keyclauses, rinfo->clause);
	}
}

/* Is a the condition b, or b with its operands the other way round? */
static bool
same_condition(OpExpr *a, OpExpr *b)
{
	if (equal(a, b))
		return true;
	return IsA(b, OpExpr) && list_length(b->args) == 2 &&
		OidIsValid(a->opno) && get_commutator(a->opno) == b->opno &&
		equal(linitial(a->args), lsecond(b->args)) &&
		equal(lsecond(a->args), linitial(b->args));
}

/* Is op, or op commuted, in the list? */
static bool
has_condition(List *list, OpExpr *op)
{
	ListCell   *lc;

	foreach(lc, list)
	{
		if (same_condition(op, lfirst(lc)))
			return true;
	}
	return false;
}

/*
 * The equalities every arm of an OR among d's join conditions (over
 * relids) holds, as conditions of their own: TPC-H Q19's
 * (p_partkey = l_partkey AND ...) OR (p_partkey = l_partkey AND ...)
 * matches on p_partkey = l_partkey, the OR evaluated after the match.
 */
static List *
or_common_equalities(PlannerInfo *root, RelOptInfo *d, Relids relids)
{
	List	   *result = NIL;
	ListCell   *lc;

	foreach(lc, d->joininfo)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
		List	   *common = NIL;
		ListCell   *lc2;

		if (!restriction_is_or_clause(rinfo) || !rinfo->is_pushed_down ||
			!bms_is_subset(rinfo->required_relids, relids))
			continue;
		foreach(lc2, ((BoolExpr *) rinfo->clause)->args)
		{
			Node	   *arm = lfirst(lc2);
			List	   *conj = is_andclause(arm) ? ((BoolExpr *) arm)->args : list_make1(arm);
			List	   *keep = NIL;
			ListCell   *lc3;

			foreach(lc3, conj)
			{
				OpExpr	   *op = lfirst(lc3);
				Var		   *l,
						   *r;

				if (IsA(op, OpExpr) && list_length(op->args) == 2 &&
					(l = plain_var(linitial(op->args))) != NULL &&
					(r = plain_var(lsecond(op->args))) != NULL && l->varno != r->varno &&
					(foreach_current_index(lc2) == 0 || has_condition(common, op)))
					keep = lappend(keep, op);
			}
			common = keep;
		}
		foreach(lc2, common)
			result = lappend(result, make_simple_restrictinfo(root, lfirst(lc2)));
	}
	return result;
}

/*
 * Of the conditions of a left or anti join with dimension d on its inner
 * side (those in d's joininfo not pushed down), the keys to the tables in
 * avail, as dim_keys; false where another condition decides the match.
 */
static void
outer_keys(PlannerInfo *root, RelOptInfo *fact, List *dims, RelOptInfo *d,
		   Relids avail, Relids joinrelids, List **keys, List **keyclauses,
		   List **rest)
{
	/* (joinrelids: the join's relations, every condition's) */
	List	   *eq = NIL;
	ListCell   *lc;

	foreach(lc, d->joininfo)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (!rinfo->is_pushed_down && bms_is_subset(rinfo->required_relids, joinrelids))
			eq = lappend(eq, rinfo);
	}
	dim_keys(root, fact, dims, d, avail, eq, keys, keyclauses, rest);
}

/* Does the expression read a Param? */
static bool
has_param(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param))
		return true;
	return expression_tree_walker(node, has_param, context);
}

typedef struct InnerVarsContext
{
	RelOptInfo *d;
	Relids		fact;
	bool		other;			/* a Var of neither, or one d does not return */
} InnerVarsContext;

/* A match condition's Vars of d as INNER_VAR, its plan's columns from 1. */
static Node *
inner_vars_mutator(Node *node, InnerVarsContext *cxt)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0)
	{
		Var		   *var = (Var *) node;
		int			col;

		if (bms_is_member(var->varno, cxt->fact) && var->varattno > 0)
			return node;
		if (!bms_is_member(var->varno, cxt->d->relids) || var->varattno <= 0 ||
			(col = output_column(cxt->d, var)) < 0)
		{
			cxt->other = true;
			return node;
		}
		var = copyObject(var);
		var->varno = INNER_VAR;
		var->varattno = col + 1;
		return (Node *) var;
	}
	return expression_tree_mutator(node, inner_vars_mutator, (void *) cxt);
}

/*
 * Can the partitioned table rel be the table a join scans: are its
 * partitions left after pruning heap tables that lay out their columns as
 * the parent (pd) does (as planner.c's collect_children and children_alike
 * want; the latter also that they hold the same value for a column added
 * later where their rows predate it, which is left to it)?
 * Otherwise another table is scanned and this one is a dimension, its own
 * plan reading it, as before partitioned tables could be scanned.
 */
static bool
partitions_alike(PlannerInfo *root, RelOptInfo *rel, TupleDesc pd)
{
	int			p = -1;

	if (rel->part_scheme == NULL || rel->part_rels == NULL)
		return false;
	while ((p = bms_next_member(rel->live_parts, p)) >= 0)
	{
		RelOptInfo *child = rel->part_rels[p];
		RangeTblEntry *rte;
		Relation	r;
		TupleDesc	d;
		bool		alike;

		if (child == NULL || IS_DUMMY_REL(child))
			continue;
		rte = planner_rt_fetch(child->relid, root);
		if (rte->relkind == RELKIND_PARTITIONED_TABLE)
		{
			if (!partitions_alike(root, child, pd))
				return false;
			continue;
		}
		if (rte->relkind != RELKIND_RELATION)
			return false;
		r = table_open(rte->relid, NoLock);
		d = RelationGetDescr(r);
		alike = r->rd_rel->relam == HEAP_TABLE_AM_OID && d->natts == pd->natts;
		for (int i = 0; alike && i < d->natts; i++)
		{
			Form_pg_attribute a = TupleDescAttr(d, i);
			Form_pg_attribute b = TupleDescAttr(pd, i);

			alike = a->attisdropped == b->attisdropped &&
				(a->attisdropped ||
				 (a->atttypid == b->atttypid && a->atttypmod == b->atttypmod &&
				  a->attcollation == b->attcollation &&
				  strcmp(NameStr(a->attname), NameStr(b->attname)) == 0));
		}
		table_close(r, NoLock);
		if (!alike)
			return false;
	}
	return true;
}

/* ... of the partitioned table relid, rel */
static bool
partitioned_alike(PlannerInfo *root, RelOptInfo *rel, Oid relid)
{
	Relation	parent = table_open(relid, NoLock);
	bool		alike = partitions_alike(root, rel, RelationGetDescr(parent));

	table_close(parent, NoLock);
	return alike;
}

/*
 * The pages a scan of rel reads: a partitioned table's (whose own
 * RelOptInfo counts none) are its partitions' left after pruning.
 */
static double
scan_pages(RelOptInfo *rel)
{
	double		pages = rel->pages;
	int			p = -1;

	if (rel->part_scheme == NULL || rel->part_rels == NULL)
		return pages;
	while ((p = bms_next_member(rel->live_parts, p)) >= 0)
		if (rel->part_rels[p] != NULL && !IS_DUMMY_REL(rel->part_rels[p]))
			pages += scan_pages(rel->part_rels[p]);
	return pages;
}

/*
 * The bytes the node holds of a joined table's rows, natts columns of
 * width bytes a row: a row's Datums and NULL flags, its bytes, a hash
 * table entry.
 */
static double
held_bytes(double rows, int width, int natts)
{
	return rows * (MAXALIGN(width) + natts * 9.0 + 48.0);
}

/* ... as path makes them */
static double
path_held_bytes(Path *path)
{
	return held_bytes(path->rows, path->pathtarget->width,
					  list_length(path->parent->reltarget->exprs));
}

const char *
GpuaggJoinPlanFor(PlannerInfo *root, RelOptInfo *input_rel, GpuaggJoinPlan *jp)
{
	RelOptInfo *fact = NULL;
	double		fact_pages = 0;
	List	   *rels = NIL;
	List	   *special = NIL;	/* the inner sides of semi, anti, left joins */
	List	   *kinds = NIL;	/* ... their JoinTypes */
	Relids		hidden = NULL;	/* ... of semi joins (whose columns nothing
								 * above reads; an anti join's read NULL) */
	List	   *order = NIL;
	List	   *dims = NIL;
	List	   *clauses = NIL;
	List	   *at = NIL;
	Relids		avail;
	Relids		nullable = NULL;
	DimVarsContext dvc;
	ListCell   *lc;
	int			i = -1;

	memset(jp, 0, sizeof(GpuaggJoinPlan));
	if (root->placeholder_list != NIL)
		return "a join with placeholder expressions";
	if (root->hasLateralRTEs)
		return "a LATERAL reference in the join";

	/*
	 * Semi, anti and left joins whose inner side is one relation, matched
	 * after the inner joins' (whose conditions cannot read it: PostgreSQL
	 * has made inner a left join whose nullable columns a strict condition
	 * above reads).
	 */
	foreach(lc, root->join_info_list)
	{
		SpecialJoinInfo *sj = lfirst_node(SpecialJoinInfo, lc);
		RelOptInfo *rhs;
		bool		inside = false;
		int			d;
		ListCell   *lc2;

		if (sj->jointype != JOIN_SEMI && sj->jointype != JOIN_ANTI &&
			sj->jointype != JOIN_LEFT)
			return "a full join (gpuagg offloads inner, semi, anti and left joins)";
		if (!bms_is_subset(sj->syn_righthand, input_rel->relids))
			return "a join above the aggregation's input";
		/* a join within another's inner side is part of that one's plan */
		foreach(lc2, root->join_info_list)
		{
			SpecialJoinInfo *other = lfirst_node(SpecialJoinInfo, lc2);

			if (other != sj && bms_is_subset(sj->syn_righthand, other->syn_righthand) &&
				!bms_equal(sj->syn_righthand, other->syn_righthand))
				inside = true;
		}
		if (inside)
			continue;
		/* its inner side as written: one relation, or a join of several */
		rhs = bms_get_singleton_member(sj->syn_righthand, &d) ? root->simple_rel_array[d] :
			find_join_rel(root, sj->syn_righthand);
		if (rhs == NULL)
			return psprintf("no plan of the inner side of %s",
							sj->jointype == JOIN_LEFT ? "a left join" :
							sj->jointype == JOIN_SEMI ? "a semi join (EXISTS, IN)" :
							"an anti join (NOT EXISTS)");
		special = lappend(special, rhs);
		kinds = lappend_int(kinds, (int) sj->jointype);
		nullable = bms_add_members(nullable, sj->syn_righthand);
		if (sj->jointype == JOIN_SEMI)
			hidden = bms_add_members(hidden, sj->syn_righthand);
	}

	/*
	 * The relations; the one scanned is the plain heap table of the most
	 * pages that is on no join's inner side.
	 */
	while ((i = bms_next_member(input_rel->relids, i)) >= 0)
	{
		RelOptInfo *rel = root->simple_rel_array[i];
		RangeTblEntry *rte;

		if (rel == NULL || rel->reloptkind != RELOPT_BASEREL)
			return "a join of other than base relations";
		if (!bms_is_member(i, nullable))
			rels = lappend(rels, rel);
		rte = planner_rt_fetch(rel->relid, root);
		if (rte->rtekind == RTE_RELATION && !bms_is_member(i, nullable) &&
			((!rte->inh && (rte->relkind == RELKIND_RELATION || rte->relkind == RELKIND_MATVIEW)) ||
			 (rte->inh && rte->relkind == RELKIND_PARTITIONED_TABLE)))
		{
			double		pages = scan_pages(rel);

			if ((fact == NULL || pages > fact_pages ||
				 (pages == fact_pages && rel->tuples > fact->tuples)) &&
				(!rte->inh || partitioned_alike(root, rel, rte->relid)))
			{
				fact = rel;
				fact_pages = pages;
			}
		}
	}
	if (fact == NULL)
		return "no plain heap or partitioned table in the join to scan in batches (an inherited table, or none outside the inner sides of semi, anti or left joins)";

	/*
	 * The inner joins' dimensions, in an order in which each is reached from
	 * the relations before it by a hashable equality of columns.
	 */
	avail = bms_copy(fact->relids);
	rels = list_delete_ptr(rels, fact);
	while (rels != NIL)
	{
		RelOptInfo *found = NULL;
		List	   *keys = NIL,
				   *keyclauses = NIL,
				   *rest = NIL;

		foreach(lc, rels)
		{
			RelOptInfo *d = lfirst(lc);

			dim_keys(root, fact, dims, d, avail,
					 list_concat(generate_join_implied_equalities(root, bms_union(avail, d->relids),
																  avail, d),
								 or_common_equalities(root, d, bms_union(avail, d->relids))),
					 &keys, &keyclauses, &rest);
			if (keys != NIL)
			{
				found = d;
				break;
			}
		}
		if (found == NULL)
			return psprintf("%s is joined to the others by no equality of columns gpuagg can hash",
							rel_words(root, linitial(rels)));
		clauses = list_concat(clauses, rest);
		dims = lappend(dims, list_concat(list_make5(makeInteger((int) found->relid),
													makeInteger(list_length(found->reltarget->exprs)),
													keys, keyclauses, makeInteger(JOIN_INNER)),
										 list_make4(NIL, NIL, makeInteger(0), makeInteger(0))));
		order = lappend(order, found);
		avail = bms_add_members(avail, found->relids);
		rels = list_delete_ptr(rels, found);
	}

	/*
	 * Then the inner sides of semi, anti and left joins, each matched by
	 * keys to the relations above alone: a semi join's equalities are the
	 * planner's equivalence classes', an anti or left join's its ON
	 * clauses; any other condition of the join would decide the match.
	 */
	foreach(lc, special)
	{
		RelOptInfo *d = lfirst(lc);
		JoinType	kind = (JoinType) list_nth_int(kinds, foreach_current_index(lc));
		Relids		joinrelids = bms_union(avail, d->relids);
		List	   *keys = NIL,
				   *keyclauses = NIL,
				   *rest = NIL;
		ListCell   *lc2;

		List	   *cond = NIL;
		List	   *cond_exprs = NIL;
		const char *what = kind == JOIN_LEFT ? "a left join" :
			kind == JOIN_SEMI ? "a semi join (EXISTS, IN)" : "an anti join (NOT EXISTS)";

		if (kind == JOIN_SEMI)
		{
			dim_keys(root, fact, dims, d, avail,
					 generate_join_implied_equalities(root, joinrelids, avail, d),
					 &keys, &keyclauses, &rest);
			foreach(lc2, d->joininfo)
			{
				RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc2);

				/* (a WHERE without columns gates the whole scan, below) */
				if (bms_is_subset(rinfo->required_relids, input_rel->relids) &&
					!(rinfo->pseudoconstant && rinfo->is_pushed_down))
					rest = lappend(rest, rinfo);
			}
		}
		else
			outer_keys(root, fact, dims, d, avail, input_rel->relids, &keys, &keyclauses,
					   &rest);
		/* (nested: A LEFT JOIN B ... LEFT JOIN C ON c.x = b.y) */
		foreach(lc2, list_concat(list_copy(rest), keyclauses))
		{
			Node	   *n = lfirst(lc2);
			Relids		other = bms_difference(nullable, d->relids);
			Relids		varnos = pull_varnos(root, IsA(n, RestrictInfo) ?
											 (Node *) ((RestrictInfo *) n)->clause : n);
			Relids		inner;

			if (!bms_overlap(varnos, other))
				continue;
			/*
			 * (the condition of a later join, which has d on its outer side:
			 * that join is to the relations it reads beyond that side)
			 */
			if (IsA(n, RestrictInfo) &&
				bms_is_subset(d->relids, ((RestrictInfo *) n)->outer_relids) &&
				!bms_is_empty(inner = bms_difference(varnos,
													   ((RestrictInfo *) n)->outer_relids)))
				return psprintf("a join to %s on a condition that reads %s, the inner side of %s",
								rel_words(root, root->simple_rel_array[bms_next_member(inner, -1)]),
								rel_words(root, d), what);
			return psprintf("%s to %s on a condition that reads the inner side of another outer, semi or anti join",
							what, rel_words(root, d));
		}

		/*
		 * The join's other conditions decide each match on the host: over
		 * the scanned table's columns and d's only, without parameters or
		 * subplans (TPC-H Q21's l2.l_suppkey <> l1.l_suppkey).
		 */
		foreach(lc2, rest)
		{
			Expr	   *clause = lfirst_node(RestrictInfo, lc2)->clause;
			InnerVarsContext ivc = {d, fact->relids, false};
			Node	   *conv;

			if (contain_subplans((Node *) clause) || has_param((Node *) clause, NULL))
				return psprintf("%s to %s on a condition with a parameter or a subquery",
								what, rel_words(root, d));
			/*
			 * (it runs for every row of the table, before the table's own
			 * WHERE, which natively comes first: only what cannot fail)
			 */
			if (contain_volatile_functions((Node *) clause) ||
				contain_leaked_vars((Node *) clause))
				return psprintf("%s to %s on a condition that may raise an error (only leakproof operators and functions are matched on the host)",
								what, rel_words(root, d));
			conv = inner_vars_mutator((Node *) clause, &ivc);
			if (ivc.other)
				return psprintf("%s to %s on a condition that reads other relations than it and the table scanned",
								what, rel_words(root, d));
			cond = lappend(cond, conv);
			cond_exprs = lappend(cond_exprs, clause);
			keyclauses = lappend(keyclauses, clause);
		}
		if (keys == NIL)
			return psprintf("%s to %s by no equality of columns gpuagg can hash",
							kind == JOIN_LEFT ? "a left join" :
							kind == JOIN_SEMI ? "a semi join (EXISTS, IN)" :
							"an anti join (NOT EXISTS)",
							rel_words(root, d));
		if (d->cheapest_total_path == NULL || d->cheapest_total_path->param_info != NULL)
			return psprintf("no plan of %s to run on its own", rel_words(root, d));
		dims = lappend(dims, list_concat(list_make5(makeInteger((int) d->relid),
													makeInteger(list_length(d->reltarget->exprs)),
													keys, keyclauses, makeInteger(kind)),
										 list_make4(cond, cond_exprs, makeInteger(0),
													makeInteger(0))));
		order = lappend(order, d);
	}
	/* (no key reads a semi, anti or left join's inner side) */
	foreach(lc, order)
		avail = bms_add_members(avail, ((RelOptInfo *) lfirst(lc))->relids);

	/* the other join conditions: residual, or gating where without columns */
	for (int r = 0; r <= list_length(order); r++)
	{
		RelOptInfo *rel = r == 0 ? fact : list_nth(order, r - 1);

		foreach(lc, rel->joininfo)
		{
			RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

			/*
			 * (a special join's own conditions are its keys and match
			 * conditions; one above a left join reads its NULLs as natively)
			 */
			if (!bms_is_subset(rinfo->required_relids, input_rel->relids))
				continue;
			/* a WHERE without columns: the scan's one-time filter */
			if (rinfo->pseudoconstant && rinfo->is_pushed_down)
				clauses = list_append_unique_ptr(clauses, rinfo);
			else if (!bms_overlap(rinfo->required_relids, hidden) &&
					 (rinfo->is_pushed_down || !bms_overlap(rinfo->required_relids, nullable)))
				clauses = list_append_unique_ptr(clauses, rinfo);
		}
	}
	foreach(lc, clauses)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (rinfo->pseudoconstant)
			jp->gating = lappend(jp->gating, rinfo);
		else
			jp->residual = lappend(jp->residual, rinfo);
	}

	/*
	 * The dimensions' columns the device may read: those the join's output
	 * holds (the group keys' and aggregates'), the residual's, and those of
	 * each join's other conditions.
	 */
	dvc.fact = fact->relids;
	dvc.vars = NIL;
	dim_vars_walker((Node *) input_rel->reltarget->exprs, &dvc);
	foreach(lc, jp->residual)
		dim_vars_walker((Node *) lfirst_node(RestrictInfo, lc)->clause, &dvc);
	foreach(lc, dims)
		dim_vars_walker((Node *) list_nth(lfirst(lc), DIM_COND_EXPRS), &dvc);
	foreach(lc, dvc.vars)
	{
		Var		   *var = lfirst_node(Var, lc);
		int			d = -1,
					col = -1;
		bool		seen = false;
		ListCell   *lc2;

		foreach(lc2, jp->joincols)
			seen |= linitial_int(lfirst(lc2)) == (int) var->varno &&
				lsecond_int(lfirst(lc2)) == (int) var->varattno;
		if (seen)
			continue;
		if (var->varattno <= 0)
			return "a whole-row or system column of a joined table";
		foreach(lc2, order)
		{
			if (bms_is_member(var->varno, ((RelOptInfo *) lfirst(lc2))->relids))
				d = foreach_current_index(lc2);
		}
		if (d < 0 || (col = output_column(list_nth(order, d), var)) < 0)
			return "a column of a joined table that its plan does not return";
		jp->joincols = lappend(jp->joincols, list_make2_int((int) var->varno,
															 (int) var->varattno));
		at = lappend(at, list_make2_int(d, col));
	}
	jp->priv = list_concat(list_make2(jp->joincols, at), dims);

	jp->fact = fact;
	foreach(lc, order)
	{
		RelOptInfo *d = lfirst(lc);
		Path	   *path = d->cheapest_total_path;

		jp->dim_paths = lappend(jp->dim_paths, path);
		jp->dim_safe_paths = lappend(jp->dim_safe_paths,
									 GpuaggCheapestSafePath(d->pathlist));
		jp->dim_rows += path->rows;
		jp->dim_bytes += path_held_bytes(path);
		jp->dim_cost += path->total_cost;
	}
	GpuaggJoinScanCosts(root, jp);
	return NULL;
}

/*
 * Can the device scan a joined table with these quals (of range table
 * entry varno) itself: do they compile into dp, without parameters, a
 * time zone or a numeric it might not hold?  (For the planner's costs and
 * the executor's scan_program alike.)
 */
static bool
scan_quals_compile(GpuaggProgram *dp, List *quals, Index varno)
{
	const char *reason;

	return GpuaggCompile(dp, quals, NIL, NIL, NIL, false, varno, NIL, NIL, 0, &reason) &&
		dp->params == NIL && !dp->uses_zone && !GpuaggProgramNeedsExact(&dp->ga);
}

/*
 * Is path a plan of a joined table the device may scan itself, as
 * scan_program decides at run time (its column checks aside: a
 * pseudoconstant qual would put a Result above the scan)?
 */
static bool
device_scannable(PlannerInfo *root, Path *path)
{
	RelOptInfo *rel = path->parent;
	GpuaggProgram *dp;
	Relation	r;
	bool		scans;

	if (path->pathtype != T_SeqScan || path->parallel_aware || path->param_info != NULL ||
		rel->rtekind != RTE_RELATION || rel->reloptkind != RELOPT_BASEREL ||
		extract_actual_clauses(rel->baserestrictinfo, true) != NIL)
		return false;
	dp = palloc0(sizeof(GpuaggProgram));
	scans = scan_quals_compile(dp, extract_actual_clauses(rel->baserestrictinfo, false),
							   rel->relid);
	if (scans)
	{
		/* (page batches on, a heap table in shared buffers) */
		r = table_open(planner_rt_fetch(rel->relid, root)->relid, NoLock);
		scans = GpuaggPageFormMissing(&dp->ga, r, 65536) == NULL;
		table_close(r, NoLock);
	}
	pfree(dp);
	return scans;
}

/* (join.h) */
bool
GpuaggKeyComparison(Node *clause, List *keys)
{
	List	   *args = NIL;
	Oid			opno = InvalidOid;
	Node	   *left,
			   *right;
	Var		   *var;
	Oid			opclass;
	bool		found = false;
	ListCell   *lc;

	if (IsA(clause, BoolExpr))
	{
		foreach(lc, ((BoolExpr *) clause)->args)
			if (!GpuaggKeyComparison(lfirst(lc), keys))
				return false;
		return true;
	}
	if (IsA(clause, NullTest) && !((NullTest *) clause)->argisrow)
		left = (Node *) ((NullTest *) clause)->arg;
	else if (IsA(clause, OpExpr))
	{
		opno = ((OpExpr *) clause)->opno;
		args = ((OpExpr *) clause)->args;
	}
	else if (IsA(clause, ScalarArrayOpExpr))
	{
		opno = ((ScalarArrayOpExpr *) clause)->opno;
		args = ((ScalarArrayOpExpr *) clause)->args;
	}
	else
		return false;
	if (!IsA(clause, NullTest))
	{
		if (list_length(args) != 2)
			return false;
		left = linitial(args);
		right = lsecond(args);
		if (IsA(left, Const) && IsA(clause, OpExpr))
		{
			left = lsecond(args);
			right = linitial(args);
		}
		if (!IsA(right, Const))
			return false;
	}
	var = plain_var(left);
	if (var == NULL)
		return false;
	/* (a key that is the column itself: grouping by its type's equality) */
	foreach(lc, keys)
		found |= IsA(lfirst(lc), Var) && equal(lfirst(lc), var);
	/* (and a grouping that tells apart what its comparisons do not) */
	if (OidIsValid(var->varcollid) && !get_collation_isdeterministic(var->varcollid))
		return false;
	if (IsA(clause, NullTest))
		return found;
	opclass = GetDefaultOpClass(var->vartype, BTREE_AM_OID);
	return found && OidIsValid(opclass) &&
		op_in_opfamily(opno, get_opclass_family(opclass));
}

/* (join.h) */
List *
GpuaggJoinKeyFilters(PlannerInfo *root, GpuaggJoinPlan *jp, List *keys,
					 bool (*fit) (void *arg, Selectivity sel), void *arg, Selectivity *sel)
{
	List	   *moved_all = NIL;
	ListCell   *lc;

	foreach(lc, jp->dim_paths)
	{
		Path	   *path = lfirst(lc);
		RelOptInfo *rel = path->parent;
		int			d = foreach_current_index(lc);
		List	   *dim = list_nth(jp->priv, JOIN_PRIV_FIRST_DIM + d);
		RangeTblEntry *rte;
		RelOptInfo *copy;
		Path	   *seq;
		List	   *moved = NIL,
				   *rest = NIL;
		Selectivity moved_sel;
		ListCell   *lc2;

		if (intVal(list_nth(dim, DIM_KIND)) != JOIN_INNER ||
			rel->rtekind != RTE_RELATION || rel->reloptkind != RELOPT_BASEREL ||
			device_scannable(root, path))
			continue;
		rte = planner_rt_fetch(rel->relid, root);
		if (rte->inh || rte->tablesample != NULL || rte->securityQuals != NIL ||
			!GpuaggExprCannotFail((Node *) extract_actual_clauses(rel->baserestrictinfo, false)))
			continue;
		/* (not where the device could read it with them: PreferDeviceScans) */
		if (device_scannable(root, create_seqscan_path(root, rel, NULL, 0)))
			continue;
		foreach(lc2, rel->baserestrictinfo)
		{
			RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc2);

			/* (a row-level security policy's or a security barrier view's) */
			if (rinfo->security_level > 0)
			{
				moved = NIL;
				break;
			}

			if (!rinfo->pseudoconstant && GpuaggKeyComparison((Node *) rinfo->clause, keys) &&
				!contain_volatile_functions((Node *) rinfo->clause) &&
				!contain_subplans((Node *) rinfo->clause))
				moved = lappend(moved, rinfo);
			else
				rest = lappend(rest, rinfo);
		}
		if (moved == NIL)
			continue;
		/* (not where the groups it drops would crowd out the others) */
		moved_sel = clauselist_selectivity(root, moved, rel->relid, JOIN_INNER, NULL);
		if (!fit(arg, *sel * moved_sel))
			continue;

		/*
		 * The table without those quals: its estimates as set_base_rel_sizes
		 * makes them, and a sequential scan of it.  (Its plan's quals are
		 * its RelOptInfo's, create_scan_plan's.)
		 */
		copy = makeNode(RelOptInfo);
		/* (its arrays shared: set_rel_width writes the same widths again) */
		memcpy(copy, rel, sizeof(RelOptInfo));
		copy->baserestrictinfo = rest;
		copy->reltarget = copy_pathtarget(rel->reltarget);
		set_baserel_size_estimates(root, copy);
		seq = create_seqscan_path(root, copy, NULL, 0);
		/* (its rows unfiltered in device memory: not where they crowd it) */
		if (!device_scannable(root, seq) ||
			path_held_bytes(seq) - path_held_bytes(path) > GpuaggVramBudget() / 4)
			continue;
		*sel *= moved_sel;
		jp->dim_rows += seq->rows - path->rows;
		jp->dim_bytes += path_held_bytes(seq) - path_held_bytes(path);
		jp->dim_cost += seq->total_cost - path->total_cost;
		lfirst(lc) = seq;
		lfirst(list_nth_cell(jp->dim_safe_paths, d)) = seq->parallel_safe ? seq : NULL;
		foreach(lc2, moved)
			moved_all = lappend(moved_all, lfirst_node(RestrictInfo, lc2)->clause);
	}
	return moved_all;
}

/* (join.h) */
void
GpuaggJoinPreferDeviceScans(PlannerInfo *root, GpuaggJoinPlan *jp, bool parallel_safe)
{
	ListCell   *lc;

	foreach(lc, jp->dim_paths)
	{
		Path	   *path = lfirst(lc);
		RelOptInfo *rel = path->parent;
		RangeTblEntry *rte;
		Path	   *seq = NULL;
		ListCell   *lc2;

		if (path->pathtype == T_SeqScan || rel->rtekind != RTE_RELATION ||
			rel->reloptkind != RELOPT_BASEREL)
			continue;
		/*
		 * Not an inheritance parent's (its own rows alone), nor a
		 * TABLESAMPLE's; and only where the table's WHERE cannot raise an
		 * error, which the scan evaluates on every row where the cheapest
		 * plan may have read a few through an index.
		 */
		rte = planner_rt_fetch(rel->relid, root);
		if (rte->inh || rte->tablesample != NULL ||
			!GpuaggExprCannotFail((Node *) extract_actual_clauses(rel->baserestrictinfo, false)))
			continue;
		foreach(lc2, rel->pathlist)
		{
			Path	   *p = lfirst(lc2);

			if (p->pathtype == T_SeqScan && p->param_info == NULL && !p->parallel_aware &&
				(p->parallel_safe || !parallel_safe))
				seq = p;
		}
		/* (add_path drops a sequential scan an index-only scan beats) */
		if (seq == NULL && (!parallel_safe || rel->consider_parallel))
			seq = create_seqscan_path(root, rel, NULL, 0);
		/*
		 * the host's plan and its rows hashed, against the device's scan
		 * (as estimate() charges them)
		 */
		if (seq == NULL ||
			seq_page_cost * rel->pages + rel->tuples * gpuagg_tuple_cost >=
			path->total_cost + 2 * path->rows * cpu_tuple_cost ||
			!device_scannable(root, seq))
			continue;
		jp->dim_cost += seq->total_cost - path->total_cost;
		lfirst(lc) = seq;
	}
	GpuaggJoinScanCosts(root, jp);
}

/* (join.h) */
void
GpuaggJoinScanCosts(PlannerInfo *root, GpuaggJoinPlan *jp)
{
	ListCell   *lc;

	jp->dim_scan_cost = 0;
	jp->dim_scan_pages = 0;
	jp->dim_scan_tuples = 0;
	jp->dim_scan_rows = 0;
	foreach(lc, jp->dim_paths)
	{
		Path	   *path = lfirst(lc);
		RelOptInfo *rel = path->parent;

		if (!device_scannable(root, path))
			continue;
		jp->dim_scan_cost += path->total_cost;
		jp->dim_scan_pages += rel->pages;
		jp->dim_scan_tuples += rel->tuples;
		jp->dim_scan_rows += path->rows;
	}
}

/* (join.h) */
SubPlan *
GpuaggSubqueryOf(Node *clause, bool *notin)
{
	*notin = is_notclause(clause);
	if (*notin)
		clause = (Node *) get_notclausearg((Expr *) clause);
	return IsA(clause, SubPlan) ? (SubPlan *) clause : NULL;
}

/* (join.h) */
void
GpuaggJoinAddSubquery(PlannerInfo *root, GpuaggJoinPlan *jp, Expr *clause)
{
	bool		notin;
	SubPlan    *sp = castNode(SubPlan, GpuaggSubqueryOf((Node *) clause, &notin));
	OpExpr	   *op = castNode(OpExpr, sp->testexpr);
	Var		   *x = linitial_node(Var, op->args);
	Plan	   *plan = list_nth(root->glob->subplans, sp->plan_id - 1);
	int			natts = list_length(plan->targetlist);
	List	   *key;

	Assert(sp->subLinkType == ANY_SUBLINK && sp->parParam == NIL && sp->args == NIL &&
		   list_length(sp->paramIds) == 1);
	/* x op the subquery's first column; x the left operand */
	key = list_make5_int(-1, (int) x->varattno, 0, (int) op->opno, (int) op->inputcollid);
	key = lappend_int(key, 0);
	if (jp->priv == NIL)
		jp->priv = list_make2(NIL, NIL);
	jp->priv = lappend(jp->priv,
					   list_concat(list_make5(makeInteger(0), makeInteger(natts),
											  list_make1(key), list_make1(clause),
											  makeInteger(notin ? JOIN_ANTI : JOIN_SEMI)),
								   list_make4(NIL, NIL, makeInteger(sp->plan_id),
											  makeInteger(notin))));
	jp->dim_rows += plan->plan_rows;
	jp->dim_bytes += held_bytes(plan->plan_rows, plan->plan_width, natts);
	/* (a hashed subquery's startup: its plan's run and the hashing) */
	jp->subquery_cost += sp->startup_cost;
	jp->dim_cost += sp->startup_cost;
	jp->subquery_unsafe |= !sp->parallel_safe;
}

List *
GpuaggJoinColumns(List *priv)
{
	return priv == NIL ? NIL : list_nth(priv, JOIN_PRIV_COLUMNS);
}

List *
GpuaggJoinConditions(List *priv)
{
	List	   *out = NIL;
	bool		any = false;

	for (int d = 0; d < GpuaggJoinDims(priv); d++)
	{
		List	   *exprs = list_nth(list_nth(priv, JOIN_PRIV_FIRST_DIM + d), DIM_COND_EXPRS);

		out = lappend(out, exprs);
		any |= exprs != NIL;
	}
	return any ? out : NIL;
}

int
GpuaggJoinDims(List *priv)
{
	return priv == NIL ? 0 : list_length(priv) - JOIN_PRIV_FIRST_DIM;
}

List *
GpuaggJoinSubqueries(List *priv)
{
	List	   *out = NIL;

	for (int d = 0; d < GpuaggJoinDims(priv); d++)
	{
		List	   *dl = list_nth(priv, JOIN_PRIV_FIRST_DIM + d);

		if (intVal(list_nth(dl, DIM_SUBPLAN)) != 0)
			out = lappend(out, linitial(list_nth(dl, DIM_CLAUSES)));
	}
	return out;
}

int
GpuaggJoinPlanDims(List *priv)
{
	int			n = 0;

	for (int d = 0; d < GpuaggJoinDims(priv); d++)
		n += intVal(list_nth(list_nth(priv, JOIN_PRIV_FIRST_DIM + d), DIM_SUBPLAN)) == 0;
	return n;
}

List *
GpuaggJoinKeyClauses(List *priv, int d)
{
	return list_nth(list_nth(priv, JOIN_PRIV_FIRST_DIM + d), DIM_CLAUSES);
}

const char *
GpuaggJoinKindName(List *priv, int d)
{
	if (intVal(list_nth(list_nth(priv, JOIN_PRIV_FIRST_DIM + d), DIM_SUBPLAN)) != 0)
		return NULL;			/* (its key clause says it: [NOT] x op ANY) */
	switch ((JoinType) intVal(list_nth(list_nth(priv, JOIN_PRIV_FIRST_DIM + d), DIM_KIND)))
	{
		case JOIN_SEMI:
			return "semi";
		case JOIN_ANTI:
			return "anti";
		case JOIN_LEFT:
			return "left";
		default:
			return NULL;
	}
}
/* (join.h) */
bool
GpuaggJoinDevicePlanned(List *priv, GaProgram *p, Oid fact, bool setting)
{
	int			ndims = GpuaggJoinDims(priv);
	List	   *at = list_nth(priv, JOIN_PRIV_COLUMN_AT);
	int			npay[GA_MAX_DIMS] = {0};
	List	   *links = NIL;	/* IntLists (dimension, column): key sources */
	List	   *factkeys = NIL; /* attnos */

	if ((setting && !gpuagg_device_joins) || ndims == 0 || ndims > GA_MAX_DIMS)
		return false;
	for (int d = 0; d < ndims; d++)
	{
		List	   *dl = list_nth(priv, JOIN_PRIV_FIRST_DIM + d);
		List	   *keys = list_nth(dl, DIM_KEYS);
		ListCell   *lc;

		/* (its other conditions compiled: GpuaggCompile's dimconds) */
		if ((list_nth(dl, DIM_COND) != NIL && p->dimcond[d].reg < 0) ||
			list_length(keys) > GA_MAX_DIM_KEYS)
			return false;
		foreach(lc, keys)
		{
			List	   *kl = lfirst(lc);
			int			src_dim = list_nth_int(kl, 0);
			int			src_col = list_nth_int(kl, 1);
			bool		dim_left = list_nth_int(kl, 5) != 0;
			int			lw = 0,
						rw = 0,
						t;
			bool		text = text_equality((Oid) list_nth_int(kl, 3),
											 (Oid) list_nth_int(kl, 4));

			if (!text && !integer_equality(get_opcode((Oid) list_nth_int(kl, 3)), &lw, &rw))
				return false;
			if (src_dim >= 0)
			{
				/* a column of an earlier dimension's rows, held by the device */
				List	   *link = list_make2_int(src_dim, src_col);

				if (!list_member(links, link))
				{
					links = lappend(links, link);
					npay[src_dim]++;
				}
				continue;
			}
			/* the table's column, as GpuaggJoinToDevice's key_column reads it */
			t = GpuaggTypeOf(getBaseType(get_atttype(fact, (AttrNumber) src_col)));
			if (!key_type_fits(t, text ? KEY_TEXT : dim_left ? rw : lw))
				return false;
			factkeys = list_append_unique_int(factkeys, src_col);
		}
	}
	for (uint32 c = 0; c < p->ncols; c++)
		if (GpuaggJoinAttno(p->cols[c].attno))
			npay[linitial_int(list_nth(at, p->cols[c].attno - GPUAGG_JOIN_ATTNO))]++;
	for (int d = 0; d < ndims; d++)
		if (npay[d] > GA_MAX_DIM_COLS)
			return false;
	if (p->ncols + list_length(factkeys) > GA_MAX_COLS)
		return false;
	/* (the executor's GpuaggJoinToDevice says where the columns lie) */
	for (uint32 c = 0; c < p->ncols; c++)
		if (GpuaggJoinAttno(p->cols[c].attno))
			p->cols[c].dim = linitial_int(list_nth(at, p->cols[c].attno - GPUAGG_JOIN_ATTNO)) + 1;
	p->ndims = ndims;
	return true;
}

/*---- executor ------------------------------------------------------------*/

/* A dimension's row: its plan's columns, chained behind others of its hash */
typedef struct JoinRow
{
	struct JoinRow *next;
	Datum		values[FLEXIBLE_ARRAY_MEMBER];	/* then natts NULL flags */
} JoinRow;

#define JOINROW_ISNULL(row, natts)	((bool *) &(row)->values[(natts)])

/* a simplehash entry: the rows whose keys hash to hash */
typedef struct JoinEntry
{
	uint32		hash;
	char		status;
	JoinRow    *rows;
} JoinEntry;

#define SH_PREFIX joinhash
#define SH_ELEMENT_TYPE JoinEntry
#define SH_KEY_TYPE uint32
#define SH_KEY hash
#define SH_HASH_KEY(tb, key) murmurhash32(key)
#define SH_EQUAL(tb, a, b) ((a) == (b))
#define SH_SCOPE static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

typedef struct JoinKey
{
	int			src_dim;		/* -1: the scanned table */
	int			src_col;		/* its attno, or the dimension's column */
	int			col;			/* this dimension's column */
	bool		dim_left;		/* this dimension's value is the left operand */
	Oid			collid;
	FmgrInfo	eq;				/* the operator's function */
	FmgrInfo	hash_probe;		/* the source side's hash function */
	FmgrInfo	hash_build;		/* this dimension's side's */
	/*
	 * Integers (int2, int4, int8, date, timestamp, of any two widths) are
	 * hashed and compared as int64 here, not through fmgr: each side's
	 * width in bytes, 0 for other types.  (A table is built and probed
	 * the same way, so its hash need not be the type's.)
	 */
	int			probe_w;
	int			build_w;
	/*
	 * text = text (text, varchar) under a deterministic collation: equal
	 * strings are equal bytes, so a device's join compares their codes in
	 * the run's dictionary (GA_T_TEXT's register value, as int64).
	 */
	bool		text;
} JoinKey;

/* A key's width on its source's side (probe) or this dimension's (key_type_fits). */
static int
key_width(const JoinKey *k, bool probe)
{
	return k->text ? KEY_TEXT : probe ? k->probe_w : k->build_w;
}

/* The widths of an integer equality's left and right operands, or false. */
static bool
integer_equality(Oid fn, int *l, int *r)
{
	switch (fn)
	{
		case F_INT2EQ:
			*l = 2, *r = 2;
			return true;
		case F_INT4EQ:
		case F_DATE_EQ:
			*l = 4, *r = 4;
			return true;
		case F_INT8EQ:
		case F_TIMESTAMP_EQ:
			*l = 8, *r = 8;
			return true;
		case F_INT24EQ:
			*l = 2, *r = 4;
			return true;
		case F_INT42EQ:
			*l = 4, *r = 2;
			return true;
		case F_INT28EQ:
			*l = 2, *r = 8;
			return true;
		case F_INT82EQ:
			*l = 8, *r = 2;
			return true;
		case F_INT48EQ:
			*l = 4, *r = 8;
			return true;
		case F_INT84EQ:
			*l = 8, *r = 4;
			return true;
		default:
			return false;
	}
}

/*
 * Is opno text's equality (text and varchar alike) under a collation whose
 * equal strings are equal bytes?
 */
static bool
text_equality(Oid opno, Oid collid)
{
	return get_opcode(opno) == F_TEXTEQ && OidIsValid(collid) &&
		get_collation_isdeterministic(collid);
}

typedef struct JoinDim
{
	PlanState  *ps;
	JoinType	kind;			/* JOIN_INNER, _SEMI, _ANTI or _LEFT */
	bool		notin;			/* ... an anti join with NOT IN's NULL rules: */
	int			notin_state;	/* its rows' GaDimDesc.notin */
	int			natts;
	int			nkeys;
	JoinKey    *keys;
	joinhash_hash *table;
	bool		ran;			/* its plan has run (a rebuild rescans it) */
	bool		subquery;		/* x [NOT] IN (a hashed subquery)'s rows */
	/* the match being looked at */
	uint32		hash;
	JoinRow    *cur;			/* (NULL: a left join's NULLs) */
	bool		once;			/* the one row of a semi, anti, unmatched left join */
	ExprState  *cond;			/* the join's other conditions, or NULL */
	TupleTableSlot *inner;		/* ... a candidate row, their INNER_VAR */
	Datum	   *probe;			/* [nkeys]: the values it matches */
	bool	   *probe_null;		/* [nkeys] */
	/* a join the device runs (GpuaggJoinToDevice) */
	int			npay;			/* the columns of its rows the device holds: */
	int			pay_at[GA_MAX_DIM_COLS];	/* the plan's column, */
	int			pay_prog[GA_MAX_DIM_COLS];	/* the program's column it fills,
											 * or -1: a later key's source, */
	int			pay_w[GA_MAX_DIM_COLS]; /* ... an integer of this width */
	/* ... whose table the device scans itself (GaDimDesc.scan): */
	struct GpuaggProgram *scan; /* its program, or NULL */
	Relation	scanrel;
	GpuaggBlockLog blocklog;	/* (a parallel scan's: its blocks, read once) */
} JoinDim;

struct GpuaggJoin
{
	int			ndims;
	JoinDim    *dims;
	int			ncols;
	int		   *col_dim;		/* joincol k: its dimension, */
	int		   *col_at;			/* ... and column there */
	MemoryContext cxt;			/* the tables */
	MemoryContext probe_cxt;	/* what hashing and comparing a row leaves */
	MemoryContext query_cxt;	/* the executor's, where the plans run */
	bool		built;
	int			max_attno;
	TupleTableSlot *slot;		/* the scanned table's row being matched */
	ExprContext *econtext;		/* the conditions': slot as the scan tuple */
	ExprState  *filter;			/* WHERE quals the host evaluates first */
	uint64		filtered;		/* rows they dropped, since last taken */
	uint64		candidates;		/* rows they were evaluated for */
	bool		device;			/* the program's join (GaProgram.ndims) */
	uint32		prog_ncols;		/* ... its columns before the table's keys */
};

/* The largest attribute of the scanned table (not INNER_VAR) node reads. */
static bool
scan_attnos(Node *node, int *max)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) && ((Var *) node)->varno != INNER_VAR)
	{
		*max = Max(*max, ((Var *) node)->varattno);
		return false;
	}
	return expression_tree_walker(node, scan_attnos, (void *) max);
}

static void GpuaggJoinBuild(GpuaggJoin *j);

/* (join.h) */
GpuaggJoin *
GpuaggJoinWithFilter(GpuaggJoin *j, List *quals, PlanState *parent)
{
	if (j == NULL)
	{
		/* no other table: the filter alone */
		j = palloc0(sizeof(GpuaggJoin));
		j->cxt = AllocSetContextCreate(parent->state->es_query_cxt, "GpuAgg join",
									   ALLOCSET_SMALL_SIZES);
		j->probe_cxt = AllocSetContextCreate(parent->state->es_query_cxt,
											 "GpuAgg join probe", ALLOCSET_SMALL_SIZES);
		j->query_cxt = parent->state->es_query_cxt;
		j->built = true;
	}
	if (j->econtext == NULL)
		j->econtext = CreateExprContext(parent->state);
	j->filter = ExecInitQual(quals, parent);
	scan_attnos((Node *) quals, &j->max_attno);
	return j;
}

/* (join.h) */
bool
GpuaggJoinNone(GpuaggJoin *j)
{
	if (j == NULL || j->ndims == 0 || j->device)
		return false;
	GpuaggJoinBuild(j);
	for (int d = 0; d < j->ndims; d++)
		if ((j->dims[d].kind == JOIN_INNER || j->dims[d].kind == JOIN_SEMI) &&
			!j->dims[d].subquery && j->dims[d].table->members == 0)
			return true;
	return false;
}

/* (join.h) */
uint64
GpuaggJoinTakeFiltered(GpuaggJoin *j)
{
	uint64		n = j ? j->filtered : 0;

	if (j)
		j->filtered = 0;
	return n;
}

GpuaggJoin *
GpuaggJoinInit(List *priv, List *dims, PlanState *parent)
{
	MemoryContext cxt = parent->state->es_query_cxt;
	GpuaggJoin *j = palloc0(sizeof(GpuaggJoin));
	List	   *at = list_nth(priv, JOIN_PRIV_COLUMN_AT);
	ListCell   *lc;

	j->cxt = AllocSetContextCreate(cxt, "GpuAgg join", ALLOCSET_DEFAULT_SIZES);
	j->probe_cxt = AllocSetContextCreate(cxt, "GpuAgg join probe", ALLOCSET_SMALL_SIZES);
	j->query_cxt = cxt;
	j->ndims = GpuaggJoinDims(priv);
	j->dims = palloc0(sizeof(JoinDim) * j->ndims);
	Assert(list_length(dims) == GpuaggJoinPlanDims(priv));
	for (int d = 0; d < j->ndims; d++)
	{
		List	   *dl = list_nth(priv, JOIN_PRIV_FIRST_DIM + d);
		List	   *keys = list_nth(dl, DIM_KEYS);
		JoinDim    *dim = &j->dims[d];

		if (intVal(list_nth(dl, DIM_SUBPLAN)) != 0)
		{
			/*
			 * A hashed subquery's rows: its plan is the query's subplan,
			 * whose state ExecInitExpr makes (the node's, in EXPLAIN),
			 * never evaluated: the node runs the plan itself.
			 */
			(void) ExecInitExpr(linitial(list_nth(dl, DIM_CLAUSES)), parent);
			dim->ps = llast_node(SubPlanState, parent->subPlan)->planstate;
			if (dim->ps == NULL)
				elog(ERROR, "gpuagg: a subquery's plan is not initialized");
			/*
			 * (shared with every other SubPlan of it, which may have run it
			 * already, a native exact path's or another partition's node:
			 * rescanned before each read, as buildSubPlanHash does)
			 */
			dim->ran = true;
			dim->subquery = true;
		}
		else
			dim->ps = list_nth(dims, d);
		dim->kind = (JoinType) intVal(list_nth(dl, DIM_KIND));
		dim->notin = intVal(list_nth(dl, DIM_NOTIN)) != 0;
		if (list_nth(dl, DIM_COND) != NIL)
		{
			List	   *cond = list_nth(dl, DIM_COND);

			if (j->econtext == NULL)
				j->econtext = CreateExprContext(parent->state);
			dim->cond = ExecInitQual(cond, parent);
			dim->inner = MakeSingleTupleTableSlot(ExecGetResultType(dim->ps), &TTSOpsVirtual);
			/* the scanned table's columns they read, deformed before */
			scan_attnos((Node *) cond, &j->max_attno);
		}
		dim->natts = intVal(list_nth(dl, DIM_NATTS));
		dim->nkeys = list_length(keys);
		dim->keys = palloc0(sizeof(JoinKey) * dim->nkeys);
		dim->probe = palloc0(sizeof(Datum) * dim->nkeys);
		dim->probe_null = palloc0(sizeof(bool) * dim->nkeys);
		foreach(lc, keys)
		{
			List	   *kl = lfirst(lc);
			JoinKey    *k = &dim->keys[foreach_current_index(lc)];
			Oid			opno = (Oid) list_nth_int(kl, 3);
			RegProcedure lh,
						rh;

			k->src_dim = list_nth_int(kl, 0);
			k->src_col = list_nth_int(kl, 1);
			k->col = list_nth_int(kl, 2);
			k->collid = (Oid) list_nth_int(kl, 4);
			k->dim_left = list_nth_int(kl, 5) != 0;
			if (!get_op_hash_functions(opno, &lh, &rh))
				elog(ERROR, "gpuagg: operator %u of a join is not hashable", opno);
			fmgr_info(get_opcode(opno), &k->eq);
			fmgr_info(k->dim_left ? rh : lh, &k->hash_probe);
			fmgr_info(k->dim_left ? lh : rh, &k->hash_build);
			{
				int			lw,
							rw;

				if (integer_equality(get_opcode(opno), &lw, &rw))
				{
					k->probe_w = k->dim_left ? rw : lw;
					k->build_w = k->dim_left ? lw : rw;
				}
				k->text = text_equality(opno, k->collid);
			}
			if (k->src_dim < 0)
				j->max_attno = Max(j->max_attno, k->src_col);
		}
	}
	j->ncols = list_length(at);
	j->col_dim = palloc(sizeof(int) * Max(j->ncols, 1));
	j->col_at = palloc(sizeof(int) * Max(j->ncols, 1));
	foreach(lc, at)
	{
		j->col_dim[foreach_current_index(lc)] = linitial_int(lfirst(lc));
		j->col_at[foreach_current_index(lc)] = lsecond_int(lfirst(lc));
	}
	return j;
}

int
GpuaggJoinMaxAttno(GpuaggJoin *j)
{
	return j->max_attno;
}

/* The hash of a row's keys (values by key); false where one is NULL. */
static inline bool
keys_hash(JoinDim *dim, bool build, const Datum *values, const bool *isnull,
		  uint32 *hash)
{
	uint32		h = 0;

	for (int i = 0; i < dim->nkeys; i++)
	{
		JoinKey    *k = &dim->keys[i];

		if (isnull[i])
			return false;
		if (k->probe_w > 0)
		{
			uint64		v = (uint64) GpuaggIntegerDatum(values[i], build ? k->build_w : k->probe_w);

			h = hash_combine(h, murmurhash32((uint32) v ^ murmurhash32((uint32) (v >> 32))));
			continue;
		}
		h = hash_combine(h, DatumGetUInt32(FunctionCall1Coll(build ? &k->hash_build :
															 &k->hash_probe,
															 k->collid, values[i])));
	}
	*hash = h;
	return true;
}

/*
 * x NOT IN (the subquery's rows) is true where x is none of them and no
 * row is NULL, or of none: GaDimDesc.notin, after nrows rows, null_key
 * where a row's was NULL.
 */
static int
notin_state(JoinDim *dim, uint64 nrows, bool null_key)
{
	return !dim->notin || nrows == 0 ? 0 : null_key ? 2 : 1;
}

/*
 * Start reading a dimension's plan: from its first row again where it ran
 * before (a host build after the device's collection, a rescan, or another
 * SubPlan sharing a subquery's planstate, as buildSubPlanHash does).
 */
static void
dim_start(JoinDim *dim)
{
	if (dim->ran)
		ExecReScan(dim->ps);
	dim->ran = true;
}

/* Run the dimensions' plans and hash their rows, unless done already. */
static void
GpuaggJoinBuild(GpuaggJoin *j)
{
	MemoryContext caller,
				old;
	uint64		nrows;

	if (j->built)
		return;
	/*
	 * (The plans run in the executor's context: a scan's state lives on
	 * across the rebuilds, the rows in j->cxt do not.)
	 */
	caller = MemoryContextSwitchTo(j->query_cxt);
	MemoryContextReset(j->cxt);
	for (int d = 0; d < j->ndims; d++)
	{
		JoinDim    *dim = &j->dims[d];
		Datum	   *kv = MemoryContextAlloc(j->cxt, sizeof(Datum) * dim->nkeys);
		bool	   *kn = MemoryContextAlloc(j->cxt, sizeof(bool) * dim->nkeys);

		bool		null_key = false;

		dim_start(dim);
		nrows = 0;
		dim->table = joinhash_create(j->cxt, 1024, NULL);
		for (;;)
		{
			TupleTableSlot *slot = ExecProcNode(dim->ps);
			TupleDesc	desc;
			JoinRow    *row;
			JoinEntry  *e;
			uint32		hash;
			bool		found;

			if (TupIsNull(slot))
				break;
			nrows++;
			slot_getallattrs(slot);
			desc = slot->tts_tupleDescriptor;
			if (desc->natts != dim->natts)
				elog(ERROR, "gpuagg: a joined table's plan returns %d columns, not %d",
					 desc->natts, dim->natts);
			for (int i = 0; i < dim->nkeys; i++)
			{
				kv[i] = slot->tts_values[dim->keys[i].col];
				kn[i] = slot->tts_isnull[dim->keys[i].col];
			}
			/* a NULL key matches nothing */
			MemoryContextReset(j->probe_cxt);
			old = MemoryContextSwitchTo(j->probe_cxt);
			found = keys_hash(dim, true, kv, kn, &hash);
			MemoryContextSwitchTo(old);
			if (!found)
			{
				null_key = true;
				continue;
			}
			old = MemoryContextSwitchTo(j->cxt);
			row = palloc(offsetof(JoinRow, values) +
						 (sizeof(Datum) + sizeof(bool)) * dim->natts);
			for (int i = 0; i < dim->natts; i++)
			{
				Form_pg_attribute att = TupleDescAttr(desc, i);

				JOINROW_ISNULL(row, dim->natts)[i] = slot->tts_isnull[i];
				row->values[i] = slot->tts_isnull[i] ? (Datum) 0 :
					datumCopy(slot->tts_values[i], att->attbyval, att->attlen);
			}
			MemoryContextSwitchTo(j->query_cxt);
			e = joinhash_insert(dim->table, hash, &found);
			row->next = found ? e->rows : NULL;
			e->rows = row;
			if ((nrows & 65535) == 0)
				CHECK_FOR_INTERRUPTS();
		}
		dim->notin_state = notin_state(dim, nrows, null_key);
	}
	j->built = true;
	MemoryContextSwitchTo(caller);
}

void
GpuaggJoinReScan(GpuaggJoin *j, Bitmapset *chgParam)
{
	if (chgParam == NULL)
		return;
	/* (only those whose plans read a parameter that changed) */
	for (int d = 0; d < j->ndims; d++)
	{
		UpdateChangedParamSet(j->dims[d].ps, chgParam);
		if (j->dims[d].ps->chgParam != NULL)
			j->built = false;
	}
}

/* Is row the match of dimension d's probe values (and conditions)? */
static inline bool
row_matches(GpuaggJoin *j, JoinDim *dim, JoinRow *row)
{
	for (int i = 0; i < dim->nkeys; i++)
	{
		JoinKey    *k = &dim->keys[i];
		Datum		v = row->values[k->col];

		if (JOINROW_ISNULL(row, dim->natts)[k->col])
			return false;
		if (k->probe_w > 0)
		{
			if (GpuaggIntegerDatum(v, k->build_w) != GpuaggIntegerDatum(dim->probe[i], k->probe_w))
				return false;
			continue;
		}
		if (!DatumGetBool(k->dim_left ?
						  FunctionCall2Coll(&k->eq, k->collid, v, dim->probe[i]) :
						  FunctionCall2Coll(&k->eq, k->collid, dim->probe[i], v)))
			return false;
	}
	if (dim->cond)
	{
		TupleTableSlot *in = dim->inner;

		ExecClearTuple(in);
		memcpy(in->tts_values, row->values, sizeof(Datum) * dim->natts);
		memcpy(in->tts_isnull, JOINROW_ISNULL(row, dim->natts), sizeof(bool) * dim->natts);
		ExecStoreVirtualTuple(in);
		/* (a long chain of candidates: cancellable, in bounded memory) */
		if ((++j->candidates & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		ResetExprContext(j->econtext);
		j->econtext->ecxt_scantuple = j->slot;
		j->econtext->ecxt_innertuple = in;
		return ExecQual(dim->cond, j->econtext);
	}
	return true;
}

/* The first row of dimension d matching the current rows before it. */
static bool
probe_first(GpuaggJoin *j, int d)
{
	JoinDim    *dim = &j->dims[d];
	bool	   *kn = dim->probe_null;
	JoinEntry  *e;

	for (int i = 0; i < dim->nkeys; i++)
	{
		JoinKey    *k = &dim->keys[i];

		if (k->src_dim < 0)
		{
			dim->probe[i] = j->slot->tts_values[k->src_col - 1];
			kn[i] = j->slot->tts_isnull[k->src_col - 1];
		}
		else
		{
			JoinDim    *src = &j->dims[k->src_dim];

			dim->probe[i] = src->cur->values[k->src_col];
			kn[i] = JOINROW_ISNULL(src->cur, src->natts)[k->src_col];
		}
	}
	dim->cur = NULL;
	if (!keys_hash(dim, false, dim->probe, kn, &dim->hash) ||
		(e = joinhash_lookup(dim->table, dim->hash)) == NULL)
		return false;
	for (JoinRow *row = e->rows; row; row = row->next)
	{
		if (row_matches(j, dim, row))
		{
			dim->cur = row;
			return true;
		}
	}
	return false;
}

/* The next row of dimension d matching the same values. */
static bool
probe_next(GpuaggJoin *j, int d)
{
	JoinDim    *dim = &j->dims[d];

	for (JoinRow *row = dim->cur->next; row; row = row->next)
	{
		if (row_matches(j, dim, row))
		{
			dim->cur = row;
			return true;
		}
	}
	dim->cur = NULL;
	return false;
}

/*
 * Dimension d's first (fresh) or next row for the current rows before it:
 * an inner join's matches; a semi join's first match only; an anti join's
 * one row without columns where nothing matches; a left join's matches,
 * or one row of NULLs.
 */
static bool
step(GpuaggJoin *j, int d, bool fresh)
{
	JoinDim    *dim = &j->dims[d];
	bool		found;

	switch (dim->kind)
	{
		case JOIN_SEMI:
			return fresh && probe_first(j, d);
		case JOIN_ANTI:
			if (!fresh || dim->notin_state == 2)
				return false;
			found = probe_first(j, d);
			dim->cur = NULL;
			/* (NOT IN: a NULL x is not true where there are rows) */
			if (!found && dim->notin_state == 1)
			{
				for (int i = 0; i < dim->nkeys; i++)
					if (dim->probe_null[i])
						return false;
			}
			return !found;
		case JOIN_LEFT:
			if (fresh)
			{
				dim->once = !probe_first(j, d);
				return true;
			}
			return !dim->once && probe_next(j, d);
		default:
			return fresh ? probe_first(j, d) : probe_next(j, d);
	}
}

/*
 * Depth first over the dimensions: from dimension d on, fresh (its first
 * match) or not (its next), backtracking where one has no match.
 */
static bool
search(GpuaggJoin *j, int d, bool fresh)
{
	while (d >= 0)
	{
		if (step(j, d, fresh))
		{
			if (d == j->ndims - 1)
				return true;
			d++;
			fresh = true;
		}
		else
		{
			d--;
			fresh = false;
		}
	}
	return false;
}

bool
GpuaggJoinFirst(GpuaggJoin *j, TupleTableSlot *slot)
{
	MemoryContext old;
	bool		found;

	/*
	 * The other relations' plans run at the table's first row, once the
	 * scan's one-time filter passed and the exact path is not taken, as
	 * a native hash join builds its table
	 */
	j->slot = slot;
	if (j->econtext)
		ResetExprContext(j->econtext);
	/* the host's quals (a hashed subquery's lookup) before any match */
	if (j->filter)
	{
		j->econtext->ecxt_scantuple = slot;
		if (!ExecQual(j->filter, j->econtext))
		{
			j->filtered++;
			return false;
		}
		if (j->ndims == 0)
			return true;
	}
	if (!j->built)
		GpuaggJoinBuild(j);
	/* (a detoasted key's copy, per row) */
	MemoryContextReset(j->probe_cxt);
	old = MemoryContextSwitchTo(j->probe_cxt);
	found = search(j, 0, true);
	MemoryContextSwitchTo(old);
	return found;
}

bool
GpuaggJoinNext(GpuaggJoin *j)
{
	MemoryContext old;
	bool		found;

	if (j->ndims == 0)
		return false;			/* (the filter alone: one row) */
	old = MemoryContextSwitchTo(j->probe_cxt);
	found = search(j, j->ndims - 1, false);
	MemoryContextSwitchTo(old);
	return found;
}

Datum
GpuaggJoinValue(GpuaggJoin *j, int k, bool *isnull)
{
	JoinDim    *dim = &j->dims[j->col_dim[k]];
	int			c = j->col_at[k];

	if (dim->cur == NULL)
	{
		/* a left join's row of NULLs */
		*isnull = true;
		return (Datum) 0;
	}
	*isnull = JOINROW_ISNULL(dim->cur, dim->natts)[c];
	return dim->cur->values[c];
}

/*---- a join the device runs ----------------------------------------------*/

/*
 * Can a column of type t hold a key's values of width w (key_width)?  For
 * an integer width the types a device's join compares as int64 (the
 * integers, dates, timestamps: integer_equality's) of that many bytes; for
 * KEY_TEXT a string's code.
 */
static bool
key_type_fits(int t, int w)
{
	if (w == KEY_TEXT)
		return t == GA_T_TEXT;
	return (t == GA_T_INT2 || t == GA_T_INT4 || t == GA_T_INT8 || t == GA_T_DATE ||
			t == GA_T_TIMESTAMP || t == GA_T_TIMESTAMPTZ) && ga_type_width(t) == w;
}

/* The type of a key's values of width w (key_width): an integer, or a string. */
static int
key_type(int w)
{
	return w == KEY_TEXT ? GA_T_TEXT : w == 2 ? GA_T_INT2 : w == 4 ? GA_T_INT4 : GA_T_INT8;
}

/* Dimension d's column that holds plan column at for prog column c (-1: a key's source of w bytes). */
static int
payload(JoinDim *dim, int at, int c, int w)
{
	for (int i = 0; i < dim->npay; i++)
		if (dim->pay_at[i] == at && dim->pay_prog[i] == c && (c >= 0 || dim->pay_w[i] == w))
			return i;
	if (dim->npay == GA_MAX_DIM_COLS)
		return -1;
	dim->pay_at[dim->npay] = at;
	dim->pay_prog[dim->npay] = c;
	dim->pay_w[dim->npay] = w;
	return dim->npay++;
}

/*
 * The program's column of attribute attno of the scanned table holding a
 * key's values of width w (a key's source, key_type_fits), added where it
 * reads none; -1 where it cannot.
 */
static int
key_column(GaProgram *p, Relation rel, int attno, int w)
{
	int			t;

	if (attno < 1 || attno > RelationGetDescr(rel)->natts)
		return -1;
	t = GpuaggTypeOf(getBaseType(TupleDescAttr(RelationGetDescr(rel), attno - 1)->atttypid));
	if (!key_type_fits(t, w))
		return -1;
	for (uint32 c = 0; c < p->ncols; c++)
		if (p->cols[c].attno == attno && p->cols[c].type == t && !p->cols[c].pred &&
			!p->cols[c].dim)
			return c;
	if (p->ncols == GA_MAX_COLS)
		return -1;
	memset(&p->cols[p->ncols], 0, sizeof(GaColumn));
	p->cols[p->ncols].type = t;
	p->cols[p->ncols].attno = attno;
	return p->ncols++;
}

/* Column attno of a dimension's program of type t (added unless there). */
static int
scan_column(GaProgram *g, int attno, const GaColumn *like)
{
	for (uint32 c = 0; c < g->ncols; c++)
		if (g->cols[c].attno == attno && g->cols[c].type == like->type &&
			g->cols[c].scale == like->scale && !g->cols[c].pred && !g->cols[c].like &&
			g->cols[c].dscale_checked == like->dscale_checked)
			return c;
	if (g->ncols == GA_MAX_COLS)
		return -1;
	memset(&g->cols[g->ncols], 0, sizeof(GaColumn));
	g->cols[g->ncols].type = like->type;
	g->cols[g->ncols].scale = like->scale;
	g->cols[g->ncols].dscale_checked = like->dscale_checked;
	g->cols[g->ncols].attno = attno;
	return g->ncols++;
}

/* The table's attribute a scan's output column col is, or 0. */
static int
scan_attno(Plan *plan, int col)
{
	TargetEntry *te;

	if (col < 0 || col >= list_length(plan->targetlist))
		return 0;
	te = list_nth(plan->targetlist, col);
	if (!IsA(te->expr, Var) || ((Var *) te->expr)->varno != ((Scan *) plan)->scanrelid ||
		((Var *) te->expr)->varattno <= 0)
		return 0;
	return ((Var *) te->expr)->varattno;
}

/*
 * Can the device scan dimension d's table itself (GaDimDesc.scan)?  Where
 * its plan is a plain sequential scan of a heap table whose WHERE and
 * columns the device evaluates in page form (no parameters, no numeric it
 * might not hold), make its program and say so in main.
 */
static void
scan_program(GpuaggJoin *j, int d, GpuaggProgram *mainprog, int batch_rows)
{
	GaProgram  *main = &mainprog->ga;
	JoinDim    *dim = &j->dims[d];
	GaDimDesc  *dd = &main->dims[d];
	Plan	   *plan = dim->ps->plan;
	Relation	rel;
	GpuaggProgram *dp;
	GaProgram  *g;
	uint32		codes = 0;

	dd->scan = 0;
	/* (NOT IN: the host counts the subquery's rows and NULLs) */
	if (dim->notin || !IsA(dim->ps, SeqScanState) || plan->parallel_aware ||
		(rel = ((ScanState *) dim->ps)->ss_currentRelation) == NULL)
		return;
	dp = palloc0(sizeof(GpuaggProgram));
	g = &dp->ga;
	if (!scan_quals_compile(dp, plan->qual, ((Scan *) plan)->scanrelid))
		return;
	for (int k = 0; k < dim->nkeys; k++)
	{
		int			attno = scan_attno(plan, dim->keys[k].col);
		GaColumn	want = {0};

		if (attno == 0)
			return;
		want.type = GpuaggTypeOf(getBaseType(TupleDescAttr(RelationGetDescr(rel), attno - 1)->atttypid));
		if (!key_type_fits(want.type, key_width(&dim->keys[k], false)) ||
			(dd->scan_key[k] = scan_column(g, attno, &want)) < 0)
			return;
	}
	for (int c = 0; c < dim->npay; c++)
	{
		int			attno = scan_attno(plan, dim->pay_at[c]);
		GaColumn	want = {0};

		if (attno == 0)
			return;
		if (dim->pay_prog[c] >= 0)
		{
			const GaColumn *mc = &main->cols[dim->pay_prog[c]];

			/*
			 * a string predicate or function of it is the host's, but a
			 * LIKE or a length the device answers in the pages (TPC-H
			 * Q14's p_type LIKE 'PROMO%')
			 */
			if (mc->pred)
			{
				if ((dd->scan_col[c] = GpuaggCopyPageColumn(dp, attno, mainprog, mc)) < 0)
					return;
				continue;
			}
			want.type = mc->type;
			want.scale = mc->scale;
			want.dscale_checked = mc->dscale_checked;
		}
		else
		{
			Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel), attno - 1);

			want.type = key_type(dim->pay_w[c]);
			if (dim->pay_w[c] == KEY_TEXT ? GpuaggTypeOf(getBaseType(att->atttypid)) != GA_T_TEXT :
				att->attlen != dim->pay_w[c])
				return;
		}
		if ((dd->scan_col[c] = scan_column(g, attno, &want)) < 0)
			return;
	}
	g->dimscan = 1;
	if (GpuaggPageFormMissing(g, rel, batch_rows) != NULL)
		return;
	for (uint32 c = 0; c < g->ncols; c++)
	{
		if (g->cols[c].type == GA_T_TEXT && !g->cols[c].pred)
			codes++;
		if (g->cols[c].type == GA_T_BPCHAR)
		{
			codes += 2;
			main->dim_bpchar = 1;
		}
	}
	main->dim_strcodes = Max(main->dim_strcodes, codes);
	dd->scan = 1;
	dim->scan = dp;
	dim->scanrel = rel;
}

/* (join.h) */
bool
GpuaggJoinToDevice(GpuaggJoin *j, GpuaggProgram *prog, Relation rel, int batch_rows)
{
	GaProgram  *p = &prog->ga;
	GaProgram  *saved;
	bool		ok = true;

	if (j->filter || j->ndims == 0 || j->ndims > GA_MAX_DIMS)
		return false;
	for (int d = 0; d < j->ndims; d++)
	{
		JoinDim    *dim = &j->dims[d];

		if ((dim->cond && p->dimcond[d].reg < 0) || dim->nkeys > GA_MAX_DIM_KEYS)
			return false;
		for (int i = 0; i < dim->nkeys; i++)
			if (dim->keys[i].probe_w == 0 && !dim->keys[i].text)
				return false;
		dim->npay = 0;
	}
	saved = palloc(sizeof(GaProgram));
	memcpy(saved, p, sizeof(GaProgram));

	/* the columns the program reads of each dimension */
	for (uint32 c = 0; c < p->ncols && ok; c++)
	{
		int			k = p->cols[c].attno - GPUAGG_JOIN_ATTNO;
		int			at;

		if (!GpuaggJoinAttno(p->cols[c].attno))
			continue;
		Assert(k < j->ncols);
		at = payload(&j->dims[j->col_dim[k]], j->col_at[k], (int) c, 0);
		ok = at >= 0;
		p->cols[c].dim = j->col_dim[k] + 1;
		p->cols[c].dimcol = at;
	}
	/* each key's source: a column of the table, or of an earlier dimension */
	j->prog_ncols = p->ncols;
	for (int d = 0; d < j->ndims && ok; d++)
	{
		JoinDim    *dim = &j->dims[d];
		GaDimDesc  *dd = &p->dims[d];

		memset(dd, 0, sizeof(GaDimDesc));
		dd->kind = dim->kind == JOIN_SEMI ? GA_JOIN_SEMI : dim->kind == JOIN_ANTI ?
			GA_JOIN_ANTI : dim->kind == JOIN_LEFT ? GA_JOIN_LEFT : GA_JOIN_INNER;
		dd->subquery = dim->subquery;
		dd->nkeys = dim->nkeys;
		for (int i = 0; i < dim->nkeys && ok; i++)
		{
			JoinKey    *k = &dim->keys[i];

			dd->keydim[i] = k->src_dim;
			dd->keysrc[i] = k->src_dim < 0 ? key_column(p, rel, k->src_col, key_width(k, true)) :
				payload(&j->dims[k->src_dim], k->src_col, -1, key_width(k, true));
			ok = dd->keysrc[i] >= 0;
		}
	}
	for (int d = 0; d < j->ndims && ok; d++)
	{
		JoinDim    *dim = &j->dims[d];
		GaDimDesc  *dd = &p->dims[d];

		dd->ncols = dim->npay;
		for (int i = 0; i < dim->npay; i++)
			dd->coltype[i] = dim->pay_prog[i] >= 0 ? p->cols[dim->pay_prog[i]].type :
				key_type(dim->pay_w[i]);
	}
	if (!ok)
	{
		memcpy(p, saved, sizeof(GaProgram));
		pfree(saved);
		return false;
	}
	pfree(saved);
	p->ndims = j->ndims;
	j->device = true;
	for (int d = 0; d < j->ndims; d++)
		scan_program(j, d, prog, batch_rows);
	return true;
}

/* (join.h) */
void
GpuaggJoinDeviceOff(GpuaggJoin *j, GpuaggProgram *prog)
{
	prog->ga.ndims = 0;
	/* (the table's key columns the device's join added go too) */
	if (j->device)
		prog->ga.ncols = j->prog_ncols;
	prog->ga.dim_strcodes = 0;
	prog->ga.dim_bpchar = 0;
	for (uint32 c = 0; c < prog->ga.ncols; c++)
		prog->ga.cols[c].dim = 0;
	j->device = false;
}

/* (join.h) */
void
GpuaggJoinCollect(GpuaggJoin *j, GaProgram *p, GpuaggBatchReader *reader,
				  GpuaggDict *dict, MemoryContext cxt, GaDimData *out)
{
	MemoryContext caller = MemoryContextSwitchTo(j->query_cxt);

	Assert(j->device);
	for (int d = 0; d < j->ndims; d++)
	{
		JoinDim    *dim = &j->dims[d];
		GaDimData  *dm = &out[d];
		uint64		cap = 0;
		uint64		n = 0;
		uint64		nnull = 0;
		bool		anynull[GA_MAX_DIM_COLS] = {0};

		memset(dm, 0, sizeof(GaDimData));
		if (p->dims[d].scan)
			continue;			/* (the device scans its table) */
		/* (a later host build runs the plan again) */
		dim_start(dim);
		j->built = false;
		cap = GpuaggDimRoom(&p->dims[d], dm, 0,
							Min(Max(dim->ps->plan->plan_rows, 1024), 1 << 20), cxt);
		for (;;)
		{
			TupleTableSlot *slot = ExecProcNode(dim->ps);
			bool		null = false;

			if (TupIsNull(slot))
				break;
			slot_getallattrs(slot);
			if (slot->tts_tupleDescriptor->natts != dim->natts)
				elog(ERROR, "gpuagg: a joined table's plan returns %d columns, not %d",
					 slot->tts_tupleDescriptor->natts, dim->natts);
			/* a NULL key matches nothing: not sent */
			for (int k = 0; k < dim->nkeys && !null; k++)
				null = slot->tts_isnull[dim->keys[k].col];
			if (null)
			{
				nnull++;
				continue;
			}
			if (n == cap)
				cap = GpuaggDimRoom(&p->dims[d], dm, cap, 2 * cap, cxt);
			for (int k = 0; k < dim->nkeys; k++)
				dm->keys[k][n] = dim->keys[k].text ?
					(int64) GpuaggDictRegister(dict, slot->tts_values[dim->keys[k].col], false) :
					GpuaggIntegerDatum(slot->tts_values[dim->keys[k].col], dim->keys[k].build_w);
			for (int c = 0; c < dim->npay; c++)
			{
				Datum		v = slot->tts_values[dim->pay_at[c]];
				int			w = dim->pay_w[c];
				bool		stored = !slot->tts_isnull[dim->pay_at[c]];

				/* (a function of a string may be NULL for the string) */
				if (!stored)
					;
				else if (dim->pay_prog[c] >= 0)
					stored = GpuaggBatchStoreValue(reader, dim->pay_prog[c], dm->cols[c],
												   (int64) n, v);
				else if (w == KEY_TEXT)
					((uint32 *) dm->cols[c])[n] = GpuaggDictEncode(dict, v);
				else if (w == 2)
					((int16 *) dm->cols[c])[n] = (int16) GpuaggIntegerDatum(v, 2);
				else if (w == 4)
					((int32 *) dm->cols[c])[n] = (int32) GpuaggIntegerDatum(v, 4);
				else
					((int64 *) dm->cols[c])[n] = GpuaggIntegerDatum(v, 8);
				if (!stored)
				{
					dm->nulls[c][n >> 3] |= (uint8) (1 << (n & 7));
					anynull[c] = true;
				}
			}
			n++;
			if ((n & 65535) == 0)
				CHECK_FOR_INTERRUPTS();
		}
		dm->nrows = n;
		dim->notin_state = notin_state(dim, n + nnull, nnull > 0);
		p->dims[d].notin = dim->notin_state;
		for (int c = 0; c < dim->npay; c++)
			if (!anynull[c])
				dm->nulls[c] = NULL;
	}
	MemoryContextSwitchTo(caller);
}

/*
 * Follow dimension d's key k back to where its value comes from: a column
 * of an earlier dimension's rows that is itself that dimension's key (its
 * rows matched so: equal), and so on, to a column of dimension e, or of
 * the scanned table where e is -1: that column's attno in its table, and
 * its width in *width; 0 where the chain ends elsewhere.  Integer keys
 * only (equal as integers, whatever their widths).
 */
static int
bound_column(GpuaggJoin *j, int d, int k, int e, int *width)
{
	JoinDim    *dim = &j->dims[d];
	JoinKey    *key = &dim->keys[k];

	if ((dim->kind != JOIN_INNER && dim->kind != JOIN_SEMI) || dim->subquery || d == e)
		return 0;
	for (;;)
	{
		JoinDim    *src;
		JoinKey    *next = NULL;

		if (key->probe_w == 0 || key->build_w == 0 || key->text)
			return 0;
		if (key->src_dim == e)
		{
			*width = key->probe_w;
			return e < 0 ? key->src_col : scan_attno(j->dims[e].ps->plan, key->src_col);
		}
		if (key->src_dim < 0)
			return 0;
		src = &j->dims[key->src_dim];
		for (int i = 0; i < src->nkeys && next == NULL; i++)
			if (src->keys[i].col == key->src_col)
				next = &src->keys[i];
		if (next == NULL)
			return 0;
		key = next;
	}
}

/* (join.h) */
int
GpuaggJoinBoundColumn(GpuaggJoin *j, int d, int k, int *width)
{
	return bound_column(j, d, k, -1, width);
}

/* (join.h) */
Relation
GpuaggJoinProbeableDim(GpuaggJoin *j, int e)
{
	JoinDim    *dim;

	if (j == NULL || !j->device || e < 0 || e >= j->ndims)
		return NULL;
	dim = &j->dims[e];
	if ((dim->kind != JOIN_INNER && dim->kind != JOIN_SEMI) || dim->subquery ||
		dim->notin || dim->scan == NULL ||
		(dim->scan->ga.where.reg >= 0 && !GpuaggExprCannotFail((Node *) dim->ps->plan->qual)))
		return NULL;
	return dim->scanrel;
}

/* (join.h) */
int
GpuaggJoinDimBoundColumn(GpuaggJoin *j, int e, int d, int k, int *width)
{
	return bound_column(j, d, k, e, width);
}

/* (join.h) */
int
GpuaggJoinDimKeySource(GpuaggJoin *j, int e, int k, int *src, int *src_attno, int *width)
{
	JoinDim    *dim = &j->dims[e];
	JoinKey    *key = &dim->keys[k];
	int			attno;

	*src = -1;
	if (key->src_dim < 0 || key->probe_w == 0 || key->build_w == 0 || key->text ||
		j->dims[key->src_dim].scan == NULL ||
		(attno = scan_attno(dim->ps->plan, key->col)) == 0 ||
		(*src_attno = scan_attno(j->dims[key->src_dim].ps->plan, key->src_col)) == 0)
		return 0;
	*src = key->src_dim;
	*width = key->build_w;
	return attno;
}

/* (join.h) */
int
GpuaggJoinDimKeys(GpuaggJoin *j, int e)
{
	return j->dims[e].nkeys;
}

/* (join.h) */
GpuaggBatchReader *
GpuaggJoinScanReader(GpuaggJoin *j, int d, GpuaggProgram *prog, Snapshot snapshot,
					 int batch_rows, GpuaggDict *dict, ExprContext *econtext,
					 ParallelTableScanDesc pscan)
{
	JoinDim    *dim = &j->dims[d];
	GpuaggBatchReader *r;

	if (dim->scan == NULL)
		return NULL;
	/* its string constants coded in the run's dictionary */
	if (!GpuaggLoadParams(dim->scan, NIL, econtext, dict))
		return NULL;
	/* (a parallel scan's blocks are read once: its log starts empty) */
	if (dim->blocklog.ranges)
		pfree(dim->blocklog.ranges);
	memset(&dim->blocklog, 0, sizeof(GpuaggBlockLog));
	dim->blocklog.cxt = j->query_cxt;
	r = GpuaggBatchBegin(&dim->scanrel, 1, NULL, snapshot, pscan ? &pscan : NULL,
						 pscan ? &dim->blocklog : NULL, dim->scan, batch_rows, dict, true, NULL);
	if (GpuaggBatchMaxPages(r) == 0)
	{
		GpuaggBatchEnd(r);
		return NULL;
	}
	prog->ga.dims[d].scan = 1;
	return r;
}

/* (join.h) */
Relation
GpuaggJoinScanRel(GpuaggJoin *j, int d)
{
	return j != NULL && j->device && d < j->ndims && j->dims[d].scan ? j->dims[d].scanrel : NULL;
}

/* (join.h) */
const GaProgram *
GpuaggJoinScanProgram(GpuaggJoin *j, int d, double *rows)
{
	*rows = j->dims[d].ps->plan->plan_rows;
	return &j->dims[d].scan->ga;
}
