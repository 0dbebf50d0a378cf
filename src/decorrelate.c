/*-------------------------------------------------------------------------
 *
 * decorrelate.c
 *	  A correlated scalar aggregate subquery as a join with its groups.
 *
 * TPC-H Q17 filters lineitem by a subquery per part:
 *
 *	  WHERE l_quantity < (SELECT 0.2 * avg(l_quantity) FROM lineitem
 *						  WHERE l_partkey = p_partkey)
 *
 * PostgreSQL runs it as a SubPlan once per outer row, which a GpuAgg can
 * only serve by scanning the table once per row.  Rewritten, the subquery
 * is an aggregation of its own, grouped by its side of the correlation,
 * joined where the correlation held:
 *
 *	  FROM ..., (SELECT l_partkey, 0.2 * avg(l_quantity) FROM lineitem
 *				 GROUP BY l_partkey) d
 *	  WHERE d.k1 = p_partkey AND l_quantity < d.v
 *
 * which GpuAgg offloads as two scans (the groups become a dimension).
 * The planner hook plans this form beside the original and keeps it only
 * where it holds a GpuAgg and costs less (planner.c).
 *
 * The rewrite keeps the answer where:
 * - the subquery is an aggregate without GROUP BY, HAVING, DISTINCT,
 *	 ORDER BY, LIMIT, window functions, set operations or sublinks, over
 *	 plain tables and inner joins of them: one row per outer row;
 * - each correlation is a conjunct `inner = outer` of its WHERE, with the
 *	 equality of inner's type's default btree family (the GROUP BY's own
 *	 equality, so at most one group matches) and no nondeterministic
 *	 collation; nothing else in it reads the outer query;
 * - over no rows it yields NULL (sum, avg, min and max, and strict
 *	 functions of them), and the conjunct of the outer WHERE that holds it
 *	 is NULL where it is (strict functions of it, by their shape: nothing
 *	 is evaluated to find out): an outer row without a group then fails
 *	 it as it fails with the subquery's NULL, and an inner join will do;
 * - nothing either evaluates can raise an error (the join computes every
 *	 group, the SubPlan only those an outer row asks for, and the rest of
 *	 the conjunct runs only for rows with a group): leakproof functions and
 *	 operators, comparisons of numerics and of dates with timestamps,
 *	 integer to numeric casts, LIKE with a constant pattern, sums and
 *	 averages of integers and numerics, min and max, and immutable
 *	 expressions of constants (folded while either form is planned).  One
 *	 exception: numeric +, - and * over the aggregates, whose only error
 *	 is a result past numeric's 131072 digits;
 * - the query level takes no row locks (FOR UPDATE's recheck would keep
 *	 an old row's group), and the statement is not a cursor's (planner.c).
 *
 * Copyright (c) 2026, gpuagg authors
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_am.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "parser/parse_oper.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "gpuagg.h"
#include "program.h"

/* LIKEs whose pattern is a constant not ending in an escape cannot fail */
static bool
like_cannot_fail(OpExpr *op)
{
	Const	   *pat;

	if (!GpuaggIsLike(op->opfuncid, NULL))
		return false;
	if (OidIsValid(op->inputcollid) && !get_collation_isdeterministic(op->inputcollid))
		return false;			/* (LIKE refuses nondeterministic collations) */
	pat = list_length(op->args) == 2 ? lsecond(op->args) : NULL;
	return pat != NULL && IsA(pat, Const) && !pat->constisnull &&
		!GpuaggLikeEndsInEscape(pat->constvalue);
}

/*
 * (gpuagg.h) Functions that raise no error for any input: leakproof ones,
 * and these, though not marked so.
 */
bool
GpuaggFuncCannotFail(Oid fn)
{
	switch (fn)
	{
		case F_NUMERIC_EQ:
		case F_NUMERIC_NE:
		case F_NUMERIC_LT:
		case F_NUMERIC_LE:
		case F_NUMERIC_GT:
		case F_NUMERIC_GE:
		case F_DATE_EQ_TIMESTAMP:
		case F_DATE_NE_TIMESTAMP:
		case F_DATE_LT_TIMESTAMP:
		case F_DATE_LE_TIMESTAMP:
		case F_DATE_GT_TIMESTAMP:
		case F_DATE_GE_TIMESTAMP:
		case F_TIMESTAMP_EQ_DATE:
		case F_TIMESTAMP_NE_DATE:
		case F_TIMESTAMP_LT_DATE:
		case F_TIMESTAMP_LE_DATE:
		case F_TIMESTAMP_GT_DATE:
		case F_TIMESTAMP_GE_DATE:
		case F_NUMERIC_INT2:
		case F_NUMERIC_INT4:
		case F_NUMERIC_INT8:
			return true;		/* (dates past timestamp's range compare as such) */
		default:
			return get_func_leakproof(fn);
	}
}

/* numeric +, - and *: an error only past numeric's range (see above) */
static bool
numeric_arith(Oid fn)
{
	return fn == F_NUMERIC_ADD || fn == F_NUMERIC_SUB || fn == F_NUMERIC_MUL;
}

/*
 * An aggregate over no rows NULL whose work cannot fail: sum or avg of an
 * integer or numeric, min or max of anything; no ORDER BY, DISTINCT or
 * FILTER that could fail either (checked by the caller's walk).
 */
static bool
agg_ok(Aggref *agg)
{
	HeapTuple	tup;
	Form_pg_proc proc;
	const char *name;
	bool		ok = false;
	Oid			argtype;

	if (agg->agglevelsup != 0 || agg->aggkind != AGGKIND_NORMAL ||
		list_length(agg->args) != 1)
		return false;
	argtype = exprType((Node *) linitial_node(TargetEntry, agg->args)->expr);
	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(agg->aggfnoid));
	if (!HeapTupleIsValid(tup))
		return false;
	proc = (Form_pg_proc) GETSTRUCT(tup);
	name = NameStr(proc->proname);
	if (proc->pronamespace == PG_CATALOG_NAMESPACE)
	{
		if (strcmp(name, "min") == 0 || strcmp(name, "max") == 0)
			ok = true;
		else if (strcmp(name, "sum") == 0 || strcmp(name, "avg") == 0)
			ok = argtype == INT2OID || argtype == INT4OID || argtype == INT8OID ||
				argtype == NUMERICOID;
	}
	ReleaseSysCache(tup);
	return ok;
}

/* Does the expression read anything but constants (a column, a parameter)? */
static bool
reads_anything(Node *node, void *cxt)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) || IsA(node, Param) || IsA(node, Aggref) ||
		IsA(node, GroupingFunc) || IsA(node, WindowFunc) || IsA(node, SubLink) ||
		IsA(node, SubPlan) || IsA(node, PlaceHolderVar) || IsA(node, CaseTestExpr))
		return true;
	return expression_tree_walker(node, reads_anything, cxt);
}

typedef struct FailContext
{
	bool		arith_ok;		/* numeric +, -, * allowed (over the groups) */
	bool		params_ok;		/* parameters read (evaluated either way) */
} FailContext;

/* Might evaluating node raise an error for some row? */
static bool
may_fail(Node *node, FailContext *cxt)
{
	if (node == NULL)
		return false;
	/*
	 * An immutable expression of no column is folded while either form is
	 * planned (date '1994-01-01' + interval '1' year): an error there is
	 * both forms'.
	 */
	if (!IsA(node, List) && !IsA(node, TargetEntry) && !reads_anything(node, NULL) &&
		!contain_mutable_functions(node))
		return false;
	switch (nodeTag(node))
	{
		case T_Param:
			if (!cxt->params_ok)
				return true;
			break;
		case T_Var:
		case T_Const:
		case T_BoolExpr:
		case T_NullTest:
		case T_BooleanTest:
		case T_RelabelType:
		case T_TargetEntry:
		case T_List:
			break;
		case T_Aggref:
			if (!agg_ok((Aggref *) node))
				return true;
			{
				/* its argument and FILTER row by row, no arithmetic */
				FailContext inner = {false, cxt->params_ok};

				return expression_tree_walker(node, may_fail, &inner);
			}
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			{
				OpExpr	   *op = (OpExpr *) node;

				set_opfuncid(op);
				if (!like_cannot_fail(op) && !GpuaggFuncCannotFail(op->opfuncid) &&
					!(cxt->arith_ok && numeric_arith(op->opfuncid)))
					return true;
			}
			break;
		case T_ScalarArrayOpExpr:
			set_sa_opfuncid((ScalarArrayOpExpr *) node);
			if (!GpuaggFuncCannotFail(((ScalarArrayOpExpr *) node)->opfuncid))
				return true;
			break;
		case T_FuncExpr:
			if (!GpuaggFuncCannotFail(((FuncExpr *) node)->funcid) &&
				!(cxt->arith_ok && numeric_arith(((FuncExpr *) node)->funcid)))
				return true;
			break;
		default:
			return true;
	}
	return expression_tree_walker(node, may_fail, cxt);
}

/* (gpuagg.h) */
bool
GpuaggExprCannotFail(Node *node)
{
	FailContext fc = {false, false};

	return !may_fail(node, &fc);
}

/*
 * Might the FROM list raise an error for some row, or read a row
 * otherwise once than per outer row?  Only plain tables (their row
 * security quals checked too) and joins of them whose conditions cannot
 * fail; not a view or subquery, a function, VALUES or TABLESAMPLE.
 */
static bool
from_may_fail(Node *node, List *rtable, FailContext *cxt)
{
	ListCell   *lc;

	if (node == NULL)
		return false;
	if (IsA(node, RangeTblRef))
	{
		RangeTblEntry *rte = rt_fetch(((RangeTblRef *) node)->rtindex, rtable);

		return rte->rtekind != RTE_RELATION || rte->tablesample != NULL ||
			may_fail((Node *) rte->securityQuals, cxt);
	}
	if (IsA(node, JoinExpr))
		return ((JoinExpr *) node)->jointype != JOIN_INNER ||
			may_fail(((JoinExpr *) node)->quals, cxt) ||
			from_may_fail(((JoinExpr *) node)->larg, rtable, cxt) ||
			from_may_fail(((JoinExpr *) node)->rarg, rtable, cxt);
	if (IsA(node, List))
	{
		foreach(lc, (List *) node)
			if (from_may_fail(lfirst(lc), rtable, cxt))
				return true;
		return false;
	}
	return true;
}

/*
 * Does the query (at depth levels below the subquery) read a level above
 * the subquery's own?  Vars, placeholders, aggregates and GROUPING() of an
 * outer query's.
 */
static bool
reads_outer_walker(Node *node, int *depth)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return ((Var *) node)->varlevelsup > (Index) *depth;
	if (IsA(node, PlaceHolderVar))
		return ((PlaceHolderVar *) node)->phlevelsup > (Index) *depth;
	if (IsA(node, Aggref) && ((Aggref *) node)->agglevelsup > (Index) *depth)
		return true;
	if (IsA(node, GroupingFunc) && ((GroupingFunc *) node)->agglevelsup > (Index) *depth)
		return true;
	if (IsA(node, Query))
	{
		bool		r;

		(*depth)++;
		r = query_tree_walker((Query *) node, reads_outer_walker, depth, 0);
		(*depth)--;
		return r;
	}
	return expression_tree_walker(node, reads_outer_walker, depth);
}

static bool
query_reads_outer(Query *q)
{
	int			depth = 0;

	return query_tree_walker(q, reads_outer_walker, &depth, 0);
}

/* Only Vars of level 0 (inner) or only of level 1 (outer), and some? */
typedef struct LevelsContext
{
	bool		level0;
	bool		level1;
	bool		other;
} LevelsContext;

static bool
levels_walker(Node *node, LevelsContext *cxt)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		if (((Var *) node)->varlevelsup == 0)
			cxt->level0 = true;
		else if (((Var *) node)->varlevelsup == 1)
			cxt->level1 = true;
		else
			cxt->other = true;
		return false;
	}
	if (IsA(node, Aggref) || IsA(node, GroupingFunc) || IsA(node, SubLink) ||
		IsA(node, PlaceHolderVar) || IsA(node, WindowFunc))
	{
		cxt->other = true;
		return false;
	}
	return expression_tree_walker(node, levels_walker, cxt);
}

/*
 * A correlation: `inner = outer`, inner of the subquery's own columns,
 * outer of the enclosing query's, the operator the equality of inner's
 * type's default btree family.  Its two arguments, or false.
 */
static bool
correlation(Node *conj, Expr **inner, Expr **outer)
{
	OpExpr	   *op;
	LevelsContext l,
				r;
	Oid			type,
				opclass;
	int			side;

	if (!IsA(conj, OpExpr) || list_length(((OpExpr *) conj)->args) != 2)
		return false;
	op = (OpExpr *) conj;
	for (side = 0; side < 2; side++)
	{
		Node	   *a = list_nth(op->args, side);
		Node	   *b = list_nth(op->args, 1 - side);

		memset(&l, 0, sizeof(l));
		memset(&r, 0, sizeof(r));
		levels_walker(a, &l);
		levels_walker(b, &r);
		if (l.level0 && !l.level1 && !l.other && r.level1 && !r.level0 && !r.other &&
			!contain_volatile_functions(a) && !contain_volatile_functions(b))
		{
			*inner = (Expr *) a;
			*outer = (Expr *) b;
			break;
		}
	}
	if (side == 2)
		return false;
	type = exprType((Node *) *inner);
	opclass = GetDefaultOpClass(type, BTREE_AM_OID);
	if (!OidIsValid(opclass) ||
		get_op_opfamily_strategy(op->opno, get_opclass_family(opclass)) != BTEqualStrategyNumber)
		return false;
	if (OidIsValid(op->inputcollid) && !get_collation_isdeterministic(op->inputcollid))
		return false;
	if (OidIsValid(exprCollation((Node *) *inner)) &&
		!get_collation_isdeterministic(exprCollation((Node *) *inner)))
		return false;
	return true;
}

/* Replace the SubLink (by pointer) with a node. */
typedef struct ReplaceContext
{
	SubLink    *from;
	Node	   *to;
} ReplaceContext;

static Node *
replace_mutator(Node *node, ReplaceContext *cxt)
{
	if (node == (Node *) cxt->from)
		return copyObject(cxt->to);
	return expression_tree_mutator(node, replace_mutator, cxt);
}

/*
 * Is node NULL wherever target is (target the SubLink, or NULL for any
 * aggregate)?  By its shape, evaluating nothing: target itself, or a
 * strict function, operator or cast of one argument that is, or NOT of
 * one.
 */
static bool
null_if(Node *node, Node *target)
{
	List	   *args;
	ListCell   *lc;

	if (node == NULL)
		return false;
	if (target != NULL ? node == target : IsA(node, Aggref))
		return true;
	switch (nodeTag(node))
	{
		case T_RelabelType:
			return null_if((Node *) ((RelabelType *) node)->arg, target);
		case T_CoerceViaIO:
			return null_if((Node *) ((CoerceViaIO *) node)->arg, target);
		case T_BoolExpr:
			return ((BoolExpr *) node)->boolop == NOT_EXPR &&
				null_if(linitial(((BoolExpr *) node)->args), target);
		case T_OpExpr:
			set_opfuncid((OpExpr *) node);
			if (!func_strict(((OpExpr *) node)->opfuncid))
				return false;
			args = ((OpExpr *) node)->args;
			break;
		case T_FuncExpr:
			if (!func_strict(((FuncExpr *) node)->funcid) ||
				((FuncExpr *) node)->funcretset)
				return false;
			args = ((FuncExpr *) node)->args;
			break;
		default:
			return false;
	}
	foreach(lc, args)
		if (null_if(lfirst(lc), target))
			return true;
	return false;
}

/*
 * A SELECT of one level: no set operation, GROUP BY, grouping sets,
 * HAVING, window functions, set-returning functions in its select list,
 * sublinks, LIMIT or OFFSET, CTEs or row locks, and a FROM.
 */
static bool
plain_select(Query *q)
{
	return q->commandType == CMD_SELECT && q->setOperations == NULL &&
		q->groupClause == NIL && q->groupingSets == NIL && q->havingQual == NULL &&
		!q->hasWindowFuncs && !q->hasTargetSRFs && !q->hasSubLinks &&
		q->limitCount == NULL && q->limitOffset == NULL && q->cteList == NIL &&
		q->rowMarks == NIL && !q->hasForUpdate && q->jointree != NULL;
}

/*
 * Does an expression of the enclosing query read its table r only (no
 * other of its tables, nothing of a query above it)?  At depth, inside
 * subqueries of its SubLinks.
 */
typedef struct OnlyRelContext
{
	Index		r;
	int			depth;
	bool		other;
} OnlyRelContext;

static bool
only_rel_walker(Node *node, OnlyRelContext *cxt)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		if (v->varlevelsup > (Index) cxt->depth ||
			(v->varlevelsup == (Index) cxt->depth && v->varno != (int) cxt->r))
			cxt->other = true;
		return false;
	}
	if (IsA(node, PlaceHolderVar) || IsA(node, Aggref) || IsA(node, GroupingFunc) ||
		IsA(node, WindowFunc))
	{
		cxt->other = true;
		return false;
	}
	if (IsA(node, Query))
	{
		bool		r;

		cxt->depth++;
		r = query_tree_walker((Query *) node, only_rel_walker, cxt, 0);
		cxt->depth--;
		return r;
	}
	return expression_tree_walker(node, only_rel_walker, cxt);
}

/*
 * `x IN (SELECT ...)` whose subquery is columns of plain tables and inner
 * joins of them, and whose every part cannot fail (may_fail's sense).
 */
static bool
in_cannot_fail(SubLink *sl, FailContext *cxt)
{
	Query	   *sub = (Query *) sl->subselect;

	if (sl->subLinkType != ANY_SUBLINK || !IsA(sub, Query) ||
		may_fail(sl->testexpr, cxt) || !plain_select(sub) || sub->hasAggs)
		return false;
	return !may_fail((Node *) sub->targetList, cxt) &&
		!may_fail(sub->jointree->quals, cxt) &&
		!from_may_fail((Node *) sub->jointree->fromlist, sub->rtable, cxt);
}

/*
 * The groups an outer row can ask for, where the correlations' outer sides
 * are columns of one table r of the enclosing query q: only the keys of r's
 * rows that pass the conjuncts of q's WHERE that read r alone (a semi join,
 * "magic sets").  TPC-H Q17 asks for the parts of one brand and container,
 * some 2,000 of 2M, Q20 for the partsupp rows of the 'forest%' parts:
 *
 *	  (SELECT l_partkey, 0.2 * avg(l_quantity) FROM lineitem
 *	   WHERE l_partkey IN (SELECT p_partkey FROM part
 *						   WHERE p_brand = 'Brand#23' AND p_container = 'MED BOX')
 *	   GROUP BY l_partkey)
 *
 * which the device runs as a semi join with the filtered table.  The
 * answer is the same: an outer row that joins a group passes those
 * conjuncts, so its key is among them.  The conjuncts are evaluated for
 * every row of r where q may evaluate them for fewer, so none may fail
 * (an IN subquery as in_cannot_fail allows, or what may_fail allows).
 * Returns the SubLink, or NULL where r is not one table or nothing
 * restricts it.
 */
static SubLink *
magic_keys(Query *q, Index r, List *corrs, List *inners, List *outers)
{
	RangeTblEntry *rte = rt_fetch(r, q->rtable);
	List	   *quals = NIL,
			   *tests = NIL;
	Query	   *m;
	SubLink    *sl;
	RangeTblRef *rtr;
	FailContext fc = {false, true};
	ListCell   *lc;
	int			k = 0;

	if (rte->rtekind != RTE_RELATION || rte->tablesample != NULL ||
		may_fail((Node *) rte->securityQuals, &fc))
		return NULL;
	foreach(lc, make_ands_implicit((Expr *) q->jointree->quals))
	{
		Node	   *conj = lfirst(lc);
		OnlyRelContext oc = {r, 0, false};

		only_rel_walker(conj, &oc);
		if (oc.other || contain_volatile_functions(conj))
			continue;
		if (IsA(conj, SubLink) ? !in_cannot_fail((SubLink *) conj, &fc) : may_fail(conj, &fc))
			continue;
		conj = copyObject(conj);
		ChangeVarNodes(conj, r, 1, 0);
		quals = lappend(quals, conj);
	}
	if (quals == NIL)
		return NULL;

	m = makeNode(Query);
	m->commandType = CMD_SELECT;
	m->querySource = QSRC_ORIGINAL;
	m->canSetTag = true;
	/* (its row security quals, written for r, read table 1 too) */
	rte = copyObject(rte);
	ChangeVarNodes((Node *) rte->securityQuals, r, 1, 0);
	m->rtable = list_make1(rte);
	rtr = makeNode(RangeTblRef);
	rtr->rtindex = 1;
	m->jointree = makeFromExpr(list_make1(rtr), (Node *) make_ands_explicit(quals));
	m->hasSubLinks = checkExprHasSubLink((Node *) quals);
	foreach(lc, outers)
	{
		Var		   *outer = lfirst(lc);
		OpExpr	   *corr = list_nth(corrs, k);
		Expr	   *inner = list_nth(inners, k);
		Param	   *prm = makeNode(Param);
		bool		inner_first = linitial(corr->args) == inner;

		k++;
		m->targetList = lappend(m->targetList,
								makeTargetEntry((Expr *) makeVar(1, outer->varattno, outer->vartype,
																 outer->vartypmod, outer->varcollid, 0),
												k, psprintf("m%d", k), false));
		prm->paramkind = PARAM_SUBLINK;
		prm->paramid = k;
		prm->paramtype = outer->vartype;
		prm->paramtypmod = outer->vartypmod;
		prm->paramcollid = outer->varcollid;
		prm->location = -1;
		tests = lappend(tests,
						make_opclause(corr->opno, BOOLOID, false,
									  inner_first ? copyObject(inner) : (Expr *) prm,
									  inner_first ? (Expr *) prm : copyObject(inner),
									  InvalidOid, corr->inputcollid));
	}
	sl = makeNode(SubLink);
	sl->subLinkType = ANY_SUBLINK;
	sl->testexpr = list_length(tests) == 1 ? linitial(tests) : (Node *) make_andclause(tests);
	sl->operName = list_make1(makeString("="));
	sl->subselect = (Node *) m;
	sl->location = -1;
	return sl;
}

/*
 * The SubLink of q's WHERE conjunct conj as a join, if it is one the
 * rewrite keeps right (file header).  True where q changed.
 */
static bool
decorrelate_sublink(Query *q, Node **conj, SubLink *sl, List **added)
{
	Query	   *sub;
	TargetEntry *tle;
	List	   *conjs,
			   *rest = NIL,
			   *corrs = NIL,
			   *inners = NIL,
			   *outers = NIL,
			   *tlist = NIL,
			   *groups = NIL,
			   *colnames = NIL,
			   *tables = NIL;
	ListCell   *lc;
	FailContext fc = {false, true};
	RangeTblEntry *rte;
	RangeTblRef *rtr;
	Index		rti;
	int			k;
	Var		   *value;
	ReplaceContext rc;

	if (sl->subLinkType != EXPR_SUBLINK || !IsA(sl->subselect, Query))
		return false;
	sub = (Query *) sl->subselect;
	if (!plain_select(sub) || !sub->hasAggs || sub->distinctClause != NIL ||
		sub->sortClause != NIL || sub->hasRecursive || sub->hasModifyingCTE ||
		sub->jointree->quals == NULL || list_length(sub->targetList) != 1)
		return false;
	if (linitial_node(TargetEntry, sub->targetList)->resjunk)
		return false;
	/* (the copy is changed; the SubLink stays as it was if this gives up) */
	sub = copyObject(sub);
	tle = linitial_node(TargetEntry, sub->targetList);
	/* nothing per group that can fail, and NULL over no rows */
	fc.arith_ok = true;
	if (may_fail((Node *) tle->expr, &fc) || !null_if((Node *) tle->expr, NULL))
		return false;
	fc.arith_ok = false;

	/* the WHERE: correlations, and the rest (which must not fail) */
	conjs = make_ands_implicit((Expr *) sub->jointree->quals);
	foreach(lc, conjs)
	{
		Expr	   *inner,
				   *outer;

		if (correlation(lfirst(lc), &inner, &outer))
		{
			/* (inner is a group key, computed for every row) */
			if (may_fail((Node *) inner, &fc) || may_fail((Node *) outer, &fc))
				return false;
			corrs = lappend(corrs, lfirst(lc));
			inners = lappend(inners, inner);
			outers = lappend(outers, outer);
		}
		else if (may_fail(lfirst(lc), &fc))
			return false;
		else
			rest = lappend(rest, lfirst(lc));
	}
	if (inners == NIL || list_length(inners) > 8)
		return false;
	sub->jointree->quals = rest == NIL ? NULL : (Node *) make_ands_explicit(rest);
	/* (the join quals of its FROM are evaluated for every row too) */
	if (from_may_fail((Node *) sub->jointree->fromlist, sub->rtable, &fc) ||
		query_reads_outer(sub))
		return false;

	/*
	 * The conjunct must fail where the value is NULL (so an outer row
	 * without a group fails it as natively), and the rest of it, which the
	 * join evaluates only for rows with a group, cannot fail or change
	 * anything.
	 */
	if (!null_if(*conj, (Node *) sl) || contain_volatile_functions(*conj))
		return false;
	rc.from = sl;
	rc.to = (Node *) makeNullConst(exprType((Node *) tle->expr), exprTypmod((Node *) tle->expr),
								   exprCollation((Node *) tle->expr));
	if (may_fail(replace_mutator(*conj, &rc), &fc))
		return false;

	/* only the groups an outer row can ask for, table by table */
	foreach(lc, outers)
	{
		Var		   *outer = lfirst(lc);
		List	   *c_r = NIL,
				   *i_r = NIL,
				   *o_r = NIL;
		SubLink    *magic;

		if (!IsA(outer, Var) || outer->varlevelsup != 1 ||
			list_member_int(tables, outer->varno))
			continue;
		tables = lappend_int(tables, outer->varno);
		/* (the correlations whose outer side is a column of that table) */
		for (int i = 0; i < list_length(outers); i++)
		{
			Var		   *o = list_nth(outers, i);

			if (IsA(o, Var) && o->varlevelsup == 1 && o->varno == outer->varno)
			{
				c_r = lappend(c_r, list_nth(corrs, i));
				i_r = lappend(i_r, list_nth(inners, i));
				o_r = lappend(o_r, o);
			}
		}
		magic = magic_keys(q, outer->varno, c_r, i_r, o_r);
		if (magic != NULL)
		{
			rest = lappend(rest, magic);
			sub->hasSubLinks = true;
		}
	}
	if (sub->hasSubLinks)
		sub->jointree->quals = (Node *) make_ands_explicit(rest);

	/* the subquery grouped by its sides of the correlations */
	k = 0;
	foreach(lc, inners)
	{
		Expr	   *inner = lfirst(lc);
		TargetEntry *key;
		SortGroupClause *sgc = makeNode(SortGroupClause);
		Oid			sortop,
					eqop;
		bool		hashable;

		get_sort_group_operators(exprType((Node *) inner), false, true, false,
								 &sortop, &eqop, NULL, &hashable);
		if (!OidIsValid(eqop))
			return false;
		k++;
		key = makeTargetEntry(inner, k, psprintf("k%d", k), false);
		key->ressortgroupref = k;
		tlist = lappend(tlist, key);
		sgc->tleSortGroupRef = k;
		sgc->eqop = eqop;
		sgc->sortop = sortop;
		sgc->nulls_first = false;
		sgc->hashable = hashable;
		groups = lappend(groups, sgc);
		colnames = lappend(colnames, makeString(psprintf("k%d", k)));
	}
	tle->resno = k + 1;
	tle->resname = pstrdup("v");
	tlist = lappend(tlist, tle);
	colnames = lappend(colnames, makeString("v"));
	sub->targetList = tlist;
	sub->groupClause = groups;
	sub->queryId = GPUAGG_GROUPS_QUERY_ID;

	/* a table of the enclosing query */
	rte = makeNode(RangeTblEntry);
	rte->rtekind = RTE_SUBQUERY;
	rte->subquery = sub;
	rte->alias = makeAlias("gpuagg_groups", list_copy(colnames));
	rte->eref = makeAlias("gpuagg_groups", colnames);
	rte->inFromCl = true;
	q->rtable = lappend(q->rtable, rte);
	rti = list_length(q->rtable);
	rtr = makeNode(RangeTblRef);
	rtr->rtindex = rti;
	q->jointree->fromlist = lappend(q->jointree->fromlist, rtr);

	/* the value for the SubLink, and the correlations as join clauses */
	value = makeVar(rti, k + 1, exprType((Node *) tle->expr), exprTypmod((Node *) tle->expr),
					exprCollation((Node *) tle->expr), 0);
	rc.to = (Node *) value;
	*conj = replace_mutator(*conj, &rc);
	k = 0;
	foreach(lc, corrs)
	{
		/* the correlation as written, inner now the groups' key column */
		OpExpr	   *clause = copyObject(lfirst(lc));
		Expr	   *inner = list_nth(inners, k);
		bool		inner_first = linitial(((OpExpr *) lfirst(lc))->args) == inner;
		Node	   *outer = list_nth(clause->args, inner_first ? 1 : 0);
		Var		   *kv;

		IncrementVarSublevelsUp(outer, -1, 1);
		kv = makeVar(rti, k + 1, exprType((Node *) inner), exprTypmod((Node *) inner),
					 exprCollation((Node *) inner), 0);
		lfirst(list_nth_cell(clause->args, inner_first ? 0 : 1)) = kv;
		*added = lappend(*added, clause);
		k++;
	}
	return true;
}

/* Find the SubLinks of an expression (not below another SubLink). */
static bool
sublinks_walker(Node *node, List **found)
{
	if (node == NULL)
		return false;
	if (IsA(node, SubLink))
	{
		*found = lappend(*found, node);
		return false;
	}
	return expression_tree_walker(node, sublinks_walker, found);
}

/*
 * Each Query of the tree, its WHERE's correlated aggregates rewritten: a
 * conjunct with one SubLink, which may be one.
 */
static bool
decorrelate_walker(Node *node, bool *changed)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		Query	   *q = (Query *) node;

		/* (not under FOR UPDATE: a recheck would keep the old row's group) */
		if (q->commandType == CMD_SELECT && q->jointree != NULL &&
			q->jointree->quals != NULL && q->setOperations == NULL &&
			q->rowMarks == NIL && !q->hasForUpdate)
		{
			List	   *conjs = list_copy(make_ands_implicit((Expr *) q->jointree->quals));
			List	   *added = NIL;
			ListCell   *lc;

			foreach(lc, conjs)
			{
				List	   *found = NIL;
				Node	   *conj = lfirst(lc);

				sublinks_walker(conj, &found);
				if (list_length(found) == 1 &&
					decorrelate_sublink(q, &conj, linitial(found), &added))
					lfirst(lc) = conj;
			}
			if (added != NIL)
			{
				q->jointree->quals = (Node *) make_ands_explicit(list_concat(conjs, added));
				*changed = true;
			}
		}
		return query_tree_walker(q, decorrelate_walker, changed, 0);
	}
	return expression_tree_walker(node, decorrelate_walker, changed);
}

/* Is there a scalar aggregate subquery anywhere in the tree? */
static bool
candidate_walker(Node *node, void *cxt)
{
	if (node == NULL)
		return false;
	if (IsA(node, SubLink) && ((SubLink *) node)->subLinkType == EXPR_SUBLINK &&
		IsA(((SubLink *) node)->subselect, Query) &&
		((Query *) ((SubLink *) node)->subselect)->hasAggs)
		return true;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, candidate_walker, cxt, 0);
	return expression_tree_walker(node, candidate_walker, cxt);
}

/* (gpuagg.h) */
Query *
GpuaggDecorrelate(Query *parse)
{
	Query	   *q;
	bool		changed = false;

	/* (a subquery in FROM may hold one where parse has no SubLink) */
	if (!candidate_walker((Node *) parse, NULL))
		return NULL;
	q = copyObject(parse);
	decorrelate_walker((Node *) q, &changed);
	return changed ? q : NULL;
}
