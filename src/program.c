/*-------------------------------------------------------------------------
 *
 * program.c
 *		Compile WHERE quals, group keys and aggregates into a GaProgram.
 *
 * The planner calls GpuaggCompile to decide eligibility (whatever compiles
 * is eligible, and the reason for the first thing that does not is
 * reported); the executor calls it again on the plan's expressions to get
 * the program it runs.  Only built-in operators and casts whose semantics
 * the interpreter reproduces exactly are accepted: the whitelist below is
 * keyed by operator name and operand types, or by cast function OID.
 *
 * Registers are allocated as a stack: an expression leaves its value in
 * the first free register at its start and frees everything above it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "datatype/timestamp.h"
#include "executor/executor.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "parser/scansup.h"
#include "pgtime.h"
#include "regex/regex.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/fmgroids.h"
#include "utils/formatting.h"
#include "utils/regproc.h"
#include "utils/resowner.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
/*
 * utils/pg_locale.h includes ICU's headers where PostgreSQL was built with
 * ICU, which a build host need not have: only this function is used.
 */
extern bool lc_collate_is_c(Oid collation);
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/typcache.h"
#include "utils/uuid.h"

#include "program.h"
#include "../cuda/gpuagg_page.h"

/* the interpreter's date and timestamp constants are PostgreSQL's */
StaticAssertDecl(GA_POSTGRES_EPOCH_JDATE == POSTGRES_EPOCH_JDATE, "epoch");
StaticAssertDecl(GA_DATE_END_JULIAN == DATE_END_JULIAN, "date range");
StaticAssertDecl(GA_TIMESTAMP_END_JULIAN == TIMESTAMP_END_JULIAN, "timestamp range");
StaticAssertDecl(GA_USECS_PER_DAY == USECS_PER_DAY, "microseconds per day");

typedef struct Compiler
{
	GpuaggProgram *prog;
	int			nextreg;
	const char *reason;
	int			casetest_reg;	/* the operand of the CASE being compiled, or -1 */
	int			casetest_type;
	int			param_scale;	/* a numeric parameter's: the scale of what
								 * it is compared with, or -1 */
	int			param_round;	/* and its GpuaggProgram.paramref_round */
	int			regscale[GA_MAX_REGS];	/* a numeric register's scale, set
										 * when the register is written */
	List	   *numeric_scales; /* GpuaggCompile's */
	int			npairs;			/* two-argument aggregates so far */
	/*
	 * sum/avg of a numeric CASE or COALESCE (mixed_case, the argument
	 * itself) may have branches of different scales: compile_case and
	 * compile_coalesce give each value at the largest, and its own display
	 * scale in mixed_ds_reg (a float8 register), or leave that -1 where
	 * all share one
	 */
	Expr	   *mixed_case;
	int			mixed_ds_reg;
	/*
	 * numeric columns without a typmod whose values have several display
	 * scales (attnos), read where only their values count, or where each
	 * row's display scale goes along (mixed_scale_columns, compile_ds)
	 */
	Bitmapset  *mixed_cols;
	bool		ds_branch;		/* a mixed_case branch reads one */
	/*
	 * A numeric division's arguments (its OpExpr's args) where its display
	 * scale, which numeric_div chooses per row, does not reach the result:
	 * inside round, trunc, floor, ceil, sign and casts, compared, or (with
	 * div_sum) as the argument of sum or avg, which keeps the largest
	 * display scale in mixed_ds_reg (compile_numeric_div)
	 */
	List	   *div_args;
	bool		div_sum;
	bool		trying;			/* compiling a guarded_constant candidate
								 * as the devices would (compile_expr) */
	bool		uuid_ok;		/* the expression compile_expr compiles next
								 * may be a uuid column or constant: a group
								 * key, count's argument, an operand of
								 * uuid = or <> (compile_uuid_var) */
	bool		span_ok;		/* compile_segment's interval may be a
								 * column, by its comparison value
								 * (count(DISTINCT), whose values are equal
								 * as interval_eq says) */
	GpuaggQuotient quotient;	/* the last exact quotient compiled */
} Compiler;

static int	compile_expr(Compiler *c, Expr *expr, int *type);
static bool is_scan_constant(Expr *expr);
static char *const_units(Node *arg);
static int	trunc_unit(int val);
static int	comparison_op(const char *name);
static int	arith_op(const char *name);
static int	compile_numeric_func(Compiler *c, FuncExpr *f, int *type);
static int	compile_width_bucket(Compiler *c, FuncExpr *f, int *type);
static int	compile_named_op(Compiler *c, const char *name, Oid opfuncid, Oid inputcollid,
							 Oid restype, List *args, int *type);
static int	compile_span_cmp(Compiler *c, const char *name, List *args, int *type);
static Expr *strip_relabel(Expr *expr);
static int	derived_column(Compiler *c, Expr *expr, Var *var, int t, int *type);
static int	compile_bool_chain(Compiler *c, List *args, int stepop, bool init);
static int	compile_numeric_div(Compiler *c, List *args, int ra, int lt, bool div_sum,
								int *type);
static int	emit_jump(Compiler *c, int cond);
static List *division_args(Expr *expr);
static bool read_zone(Compiler *c, const char *what, pg_tz *tz, bool fixed, int offset);

/* the kernels read GaProgram from __constant__ memory: 64 kB */
StaticAssertDecl(sizeof(GaProgram) <= 65536, "GaProgram must fit CUDA's constant memory");

/* the program reads the session's time zone, for what (read_zone) */
#define session_zone(c, what) read_zone(c, what, NULL, false, 0)
static bool regex_ok(List *args, Oid collid);
static bool regex_compiles(Expr *e, int cflags, Oid collid);
static int	compile_string_func(Compiler *c, Expr *expr, int *type);
static int	length_counted(Expr *expr);
static int	prefix_coded(Expr *expr, int32 *flags);
static Expr *rekey_inner(Expr *key, List *aggrefs);
static Node *domain_vars_mutator(Node *node, void *cxt);
static bool compile_sorted_set(Compiler *c, Aggref *aggref, GaAgg *ag, Expr *arg,
							   const char *name, bool within_group, int *type);

int
GpuaggTypeOf(Oid typid)
{
	switch (typid)
	{
		case BOOLOID:
			return GA_T_BOOL;
		case INT2OID:
			return GA_T_INT2;
		case INT4OID:
			return GA_T_INT4;
		case INT8OID:
			return GA_T_INT8;
		case FLOAT4OID:
			return GA_T_FLOAT4;
		case FLOAT8OID:
			return GA_T_FLOAT8;
		case DATEOID:
			return GA_T_DATE;
		case TIMESTAMPOID:
			return GA_T_TIMESTAMP;
		case TIMESTAMPTZOID:
			return GA_T_TIMESTAMPTZ;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			return GA_T_TEXT;
		default:
			return GA_T_INVALID;
	}
}

static bool
fail(Compiler *c, const char *fmt,...) pg_attribute_printf(2, 3);

static bool
fail(Compiler *c, const char *fmt,...)
{
	if (c->reason == NULL)
	{
		va_list		ap;
		char		buf[256];

		va_start(ap, fmt);
		vsnprintf(buf, sizeof(buf), fmt, ap);
		va_end(ap);
		c->reason = pstrdup(buf);
	}
	return false;
}

static int
alloc_reg(Compiler *c)
{
	if (c->nextreg >= GA_MAX_REGS)
	{
		fail(c, "expression needs more than %d registers", GA_MAX_REGS);
		return -1;
	}
	c->prog->ga.nregs = Max(c->prog->ga.nregs, (uint32) c->nextreg + 1);
	return c->nextreg++;
}

static int
emit(Compiler *c, int op, int type, int dst, int a, int b, int imm)
{
	GaProgram  *p = &c->prog->ga;
	GaInstr    *in;

	if (p->ninstr >= GA_MAX_INSTR)
	{
		fail(c, "program longer than %d instructions", GA_MAX_INSTR);
		return -1;
	}
	in = &p->code[p->ninstr];
	in->op = op;
	in->type = type;
	in->dst = dst;
	in->a = a;
	in->b = b;
	in->imm = imm;
	return p->ninstr++;
}

/* Point the jumps (instructions jumping to imm) at the next instruction. */
static void
emit_patch(Compiler *c, const int *jumps, int n)
{
	for (int i = 0; i < n; i++)
		c->prog->ga.code[jumps[i]].imm = c->prog->ga.ninstr;
}

static int
add_const(Compiler *c, GaDatum v, bool isnull)
{
	GaProgram  *p = &c->prog->ga;

	if (p->nconsts >= GA_MAX_CONSTS)
	{
		fail(c, "more than %d constants", GA_MAX_CONSTS);
		return -1;
	}
	p->consts[p->nconsts] = v;
	p->constnull[p->nconsts] = isnull;
	return p->nconsts++;
}

bool
GpuaggNumericScaled(Datum d, int scale, int dscale, int64 *out)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	struct varlena *v = pg_detoast_datum_packed(raw);
	bool		ok = ga_numeric_value((const uint8_t *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v),
									  scale, dscale, out);

	if (v != raw)
		pfree(v);
	return ok;
}

int
GpuaggNumericDscale(Datum d)
{
	LOCAL_FCINFO(fcinfo, 1);
	Datum		scale;

	InitFunctionCallInfoData(*fcinfo, NULL, 1, InvalidOid, NULL, NULL);
	fcinfo->args[0].value = d;
	fcinfo->args[0].isnull = false;
	scale = numeric_scale(fcinfo);
	return fcinfo->isnull ? -1 : DatumGetInt32(scale);
}

/* Datum of a supported type to a register value. */
GaDatum
GpuaggDatumToGa(Datum d, int type)
{
	GaDatum		v = {0};

	switch (type)
	{
		case GA_T_BOOL:
			v.i = DatumGetBool(d);
			break;
		case GA_T_INT2:
			v.i = DatumGetInt16(d);
			break;
		case GA_T_INT4:
		case GA_T_DATE:
			v.i = DatumGetInt32(d);
			break;
		case GA_T_INT8:
		case GA_T_TIMESTAMP:
		case GA_T_TIMESTAMPTZ:
			v.i = DatumGetInt64(d);
			break;
		case GA_T_FLOAT4:
			v.f = DatumGetFloat4(d);
			break;
		case GA_T_FLOAT8:
			v.f = DatumGetFloat8(d);
			break;
	}
	return v;
}

static int
emit_const(Compiler *c, Datum value, bool isnull, int type)
{
	GaDatum		v = {0};
	int			k,
				r;

	if (!isnull)
		v = GpuaggDatumToGa(value, type);
	k = add_const(c, v, isnull);
	r = alloc_reg(c);
	if (k < 0 || r < 0 || emit(c, GA_OP_CONST, type, r, 0, 0, k) < 0)
		return -1;
	return r;
}

/*
 * A string constant (or parameter, param >= 0) in a register: its codes
 * are filled in at run time from the query's dictionary.
 */
static int
emit_text_const(Compiler *c, Datum value, bool isnull, Oid typid, int param)
{
	GpuaggProgram *prog = c->prog;
	GaDatum		zero = {0};
	int			k = add_const(c, zero, isnull),
				r = alloc_reg(c),
				t = prog->ntextconsts;

	if (k < 0 || r < 0 || emit(c, GA_OP_CONST, GA_T_TEXT, r, 0, 0, k) < 0)
		return -1;
	if (isnull && param < 0)
		return r;
	prog->textconst_slot[t] = k;
	prog->textconst_param[t] = param;
	prog->textconst_value[t] = isnull ? (Datum) 0 : value;
	prog->textconst_bpchar[t] = (typid == BPCHAROID);
	prog->textconst_uuid[t] = (typid == UUIDOID);
	prog->ntextconsts++;
	return r;
}

/* String equality is byte equality only under a deterministic collation. */
static bool
check_collation(Compiler *c, Oid collid, const char *what)
{
	if (OidIsValid(collid) && !get_collation_isdeterministic(collid))
		return fail(c, "%s under the nondeterministic collation %s", what,
					get_collation_name(collid));
	return true;
}

/*
 * Strings an aggregate orders (min/max, ordered sets) are ranked by the
 * host under collid, which must exist and be deterministic: under a
 * nondeterministic one different strings may tie, and which one wins
 * would depend on the order of the rows.  what ... tail names it.
 */
static bool
check_order_collation(Compiler *c, Oid collid, const char *what, const char *tail)
{
	if (!OidIsValid(collid))
		return fail(c, "%s without a collation%s", what, tail);
	if (!get_collation_isdeterministic(collid))
		return fail(c, "%s under the nondeterministic collation %s%s", what,
					get_collation_name(collid), tail);
	return true;
}

/*
 * A collation under which equal strings are equal bytes (and which LIKE,
 * regular expressions and substring searches accept); not none.
 */
static bool
deterministic(Oid collid)
{
	return OidIsValid(collid) && get_collation_isdeterministic(collid);
}

/* The batch column for attno (string predicate pred - 1 of it, when pred
 * is not 0), added on first use. */
static int
column_for(Compiler *c, AttrNumber attno, int type, int pred, int scale)
{
	GaProgram  *p = &c->prog->ga;

	for (uint32 i = 0; i < p->ncols; i++)
	{
		if (p->cols[i].attno == attno && p->cols[i].pred == pred &&
			!p->cols[i].dscale_of && !p->cols[i].ivpart)
		{
			/* a column read for values wins over a NULL-only one */
			if (type != GA_T_NULLONLY)
			{
				p->cols[i].type = type;
				p->cols[i].scale = scale;
			}
			return i;
		}
	}
	if (p->ncols >= GA_MAX_COLS)
	{
		fail(c, "query reads more than %d columns", GA_MAX_COLS);
		return -1;
	}
	p->cols[p->ncols].attno = attno;
	p->cols[p->ncols].type = type;
	p->cols[p->ncols].pred = pred;
	p->cols[p->ncols].scale = scale;
	return p->ncols++;
}

/*
 * The column of the display scales of numeric column attno's values
 * (GaColumn.dscale_of), or -1.
 */
static int
dscale_column_for(Compiler *c, AttrNumber attno)
{
	GaProgram  *p = &c->prog->ga;

	for (uint32 i = 0; i < p->ncols; i++)
		if (p->cols[i].attno == attno && p->cols[i].dscale_of)
			return i;
	if (p->ncols >= GA_MAX_COLS)
		return fail(c, "query reads more than %d columns", GA_MAX_COLS), -1;
	p->cols[p->ncols].attno = attno;
	p->cols[p->ncols].type = GA_T_FLOAT8;
	p->cols[p->ncols].dscale_of = 1;
	return p->ncols++;
}

/*
 * A register loaded with part `part' (GaIntervalPart) of interval column
 * var's values (GaColumn.ivpart), or -1.
 */
static int
interval_column(Compiler *c, Var *var, int part)
{
	GaProgram  *p = &c->prog->ga;
	int			col = -1,
				r;

	if (var->varlevelsup != 0)
		return fail(c, "outer-level variable"), -1;
	if (var->varattno <= 0)
		return fail(c, "system or whole-row column"), -1;
	if (GpuaggJoinAttno(var->varattno))
		return fail(c, "an interval column of a joined table"), -1;
	for (uint32 i = 0; i < p->ncols && col < 0; i++)
		if (p->cols[i].attno == var->varattno && p->cols[i].ivpart == part)
			col = i;
	if (col < 0)
	{
		if (p->ncols >= GA_MAX_COLS)
			return fail(c, "query reads more than %d columns", GA_MAX_COLS), -1;
		col = p->ncols++;
		p->cols[col].attno = var->varattno;
		p->cols[col].type = GA_T_INT8;
		p->cols[col].ivpart = part;
	}
	if ((r = alloc_reg(c)) < 0 || emit(c, GA_OP_COL, GA_T_INT8, r, 0, 0, col) < 0)
		return -1;
	return r;
}

/*
 * The scale every value of a numeric column has: its typmod's, when that
 * is 0 .. GA_NUMERIC_MAX_SCALE (numeric(p, s) rounds each value it stores
 * to s places and gives it display scale s); else -1.
 */
static int
numeric_typmod_scale(int32 typmod)
{
	int			scale;

	if (typmod < (int32) VARHDRSZ)
		return -1;
	/* numeric.c's NUMERIC_TYPMOD_SCALE: 11 bits, sign-extended */
	scale = ((((typmod - VARHDRSZ) & 0x7ff) ^ 1024) - 1024);
	return scale >= 0 && scale <= GA_NUMERIC_MAX_SCALE ? scale : -1;
}

/*
 * What the planner found of the display scales of numeric column attno
 * without a typmod (GpuaggCompile's numeric_scales: attno, a
 * GpuaggScaleFound, lo, hi, name), or NIL.
 */
static List *
numeric_scale_found(Compiler *c, AttrNumber attno)
{
	ListCell   *lc;

	foreach(lc, c->numeric_scales)
		if (intVal(linitial((List *) lfirst(lc))) == attno)
			return lfirst(lc);
	return NIL;
}

/*
 * The GaType of a value of typid that is not a column: a numeric (whose
 * scale is known from what computes it) too, as in a conditional's
 * branches, GREATEST's arguments or an IN list.
 */
static int
conditional_type(Oid typid)
{
	return typid == NUMERICOID ? GA_T_NUMERIC : GpuaggTypeOf(typid);
}

static int
compile_var(Compiler *c, Var *var, int type)
{
	int			col,
				r,
				scale = 0;
	bool		checked = false;

	if (var->varlevelsup != 0)
		return fail(c, "outer-level variable"), -1;
	if (var->varattno <= 0)
		return fail(c, "system or whole-row column"), -1;
	if (type == GA_T_NUMERIC && (scale = numeric_typmod_scale(var->vartypmod)) < 0)
	{
		/* without a typmod: the scale the planner found, checked per value */
		List	   *found = numeric_scale_found(c, var->varattno);
		int			lo,
					hi,
					kind;
		const char *name;

		if (var->vartypmod >= 0 || found == NIL)
			return fail(c, "column of type %s (numeric needs a scale from 0 to %d)",
						format_type_with_typemod(var->vartype, var->vartypmod),
						GA_NUMERIC_MAX_SCALE), -1;
		lo = intVal(lthird(found));
		hi = intVal(lfourth(found));
		name = strVal(list_nth(found, 4));
		kind = intVal(lsecond(found));
		switch (kind)
		{
			case GPUAGG_SCALE_NO_STATISTICS:
				return fail(c, "numeric column \"%s\" without a typmod, and no statistics to take its scale from (ANALYZE the table)",
							name), -1;
			case GPUAGG_SCALE_NO_VALUE:
				return fail(c, "numeric column \"%s\" without a typmod, and no finite value in its statistics to take its scale from",
							name), -1;
		}
		if (hi > GA_NUMERIC_MAX_SCALE && lo != hi)
			return fail(c, "numeric column \"%s\" without a typmod holds values of display scales %d to %d (the device holds up to %d)",
						name, lo, hi, GA_NUMERIC_MAX_SCALE), -1;
		if (hi > GA_NUMERIC_MAX_SCALE)
			return fail(c, "numeric column \"%s\" without a typmod holds values of display scale %d (the device holds up to %d)",
						name, hi, GA_NUMERIC_MAX_SCALE), -1;
		if (kind == GPUAGG_SCALE_SEVERAL && GpuaggJoinAttno(var->varattno))
			return fail(c, "numeric column \"%s\" of a joined table without a typmod holds values of display scales %d to %d",
						name, lo, hi), -1;
		if (kind == GPUAGG_SCALE_SEVERAL && !bms_is_member(var->varattno, c->mixed_cols))
			return fail(c, "numeric column \"%s\" without a typmod holds values of display scales %d to %d, and the query uses it other than compared, cast to an integer or float, counted, or summed or averaged without DISTINCT",
						name, lo, hi), -1;
		scale = hi;
		/*
		 * one display scale: every value must have it.  Several: each value
		 * is read at the largest (exactly, or the scan takes the exact
		 * path), and where its display scale reaches the result, it goes
		 * along (mixed_scale_uses)
		 */
		checked = kind != GPUAGG_SCALE_SEVERAL;
	}
	/* a bpchar column brings both its codes (GA_T_BPCHAR) */
	col = column_for(c, var->varattno,
					 type == GA_T_TEXT && var->vartype == BPCHAROID ? GA_T_BPCHAR : type, 0,
					 scale);
	r = alloc_reg(c);
	if (col < 0 || r < 0 || emit(c, GA_OP_COL, type, r, 0, 0, col) < 0)
		return -1;
	c->prog->ga.cols[col].dscale_checked = checked;
	c->regscale[r] = scale;
	return r;
}

/*
 * A uuid column: a string column of its values' 16 bytes, whose codes the
 * host gives in column form (batch.c), equal bytes equal codes, so that a
 * group key, count(DISTINCT) and = or <> (uuid_eq compares the bytes)
 * answer as natively; the table's own column only.
 */
static int
compile_uuid_var(Compiler *c, Var *var, bool ok, int *type)
{
	int			col,
				r;

	if (!ok)
		return fail(c, "uuid column used other than as a group key, counted, or compared with = or <>"), -1;
	if (var->varlevelsup != 0)
		return fail(c, "outer-level variable"), -1;
	if (var->varattno <= 0)
		return fail(c, "system or whole-row column"), -1;
	if (GpuaggJoinAttno(var->varattno))
		return fail(c, "uuid column of a joined table"), -1;
	col = column_for(c, var->varattno, GA_T_TEXT, 0, 0);
	r = alloc_reg(c);
	if (col < 0 || r < 0 || emit(c, GA_OP_COL, GA_T_TEXT, r, 0, 0, col) < 0)
		return -1;
	c->prog->uuid_cols |= UINT64CONST(1) << col;
	*type = GA_T_TEXT;
	return r;
}

/*
 * A numeric constant, at its own display scale, or -1 where it does not
 * fit an int64 at that scale (or is NaN or infinite: numeric_scale is
 * NULL for those).
 */
static int
emit_numeric_const(Compiler *c, Const *k)
{
	GaDatum		v = {0};
	int			scale = 0,
				n,
				r;

	if (!k->constisnull)
	{
		if ((scale = GpuaggNumericDscale(k->constvalue)) < 0)
			return fail(c, "a numeric constant NaN or infinite"), -1;
		if (scale > GA_NUMERIC_MAX_SCALE || !GpuaggNumericScaled(k->constvalue, scale, -1, &v.i))
			return fail(c, "a numeric constant of more than 18 digits"), -1;
	}
	n = add_const(c, v, k->constisnull);
	r = alloc_reg(c);
	if (n < 0 || r < 0 || emit(c, GA_OP_CONST, GA_T_NUMERIC, r, 0, 0, n) < 0)
		return -1;
	c->regscale[r] = scale;
	return r;
}

/* Bring numeric register r from scale from to the larger scale to. */
static bool
numeric_rescale(Compiler *c, int r, int from, int to)
{
	if (to > from && emit(c, GA_OP_NUM_SCALE, GA_T_NUMERIC, r, r, 0, to - from) < 0)
		return false;
	c->regscale[r] = to;
	return true;
}

/*
 * A numeric comparison with a parameter: the parameter's value goes to the
 * device at the other operand's scale (GpuaggLoadParams), where it orders
 * as the value does.  A value with digits below that scale (TPC-H Q22's
 * c_acctbal > (SELECT avg(c_acctbal) ...)) is rounded where the
 * comparison allows: for a value v of scale s and x = p * 10^s, v * 10^s
 * is an integer, so it is < x where it is < ceil(x), <= x where it is <=
 * floor(x), and so on.  An equality with such a value, or one past the
 * device's int64, runs the exact path.  Two parameters: not worth a
 * device.
 */
static int
compile_param_comparison(Compiler *c, const char *name, List *args, int *type)
{
	bool		param_first = IsA(linitial(args), Param);
	Expr	   *other = param_first ? lsecond(args) : linitial(args);
	int			op = comparison_op(name),
				ro,
				rp,
				t;

	if (op == 0 || IsA(other, Param))
		return fail(c, "numeric operator %s of parameters", name), -1;
	c->div_args = division_args(other);		/* (a quotient's value alone) */
	ro = compile_expr(c, other, &t);
	c->div_args = NIL;
	if (ro < 0)
		return -1;
	if (t != GA_T_NUMERIC)
		return fail(c, "unexpected numeric comparison operand"), -1;
	c->param_scale = c->regscale[ro];
	/* other < p: ceil; other <= p: floor; ...; p < other: floor; ... */
	c->param_round = (op == GA_OP_LT || op == GA_OP_GE) ? 1 :
		(op == GA_OP_LE || op == GA_OP_GT) ? -1 : 0;
	if (param_first)
		c->param_round = -c->param_round;
	rp = compile_expr(c, param_first ? linitial(args) : lsecond(args), &t);
	c->param_scale = -1;
	c->param_round = 0;
	if (rp < 0)
		return -1;
	if (emit(c, op, GA_T_INT8, ro, param_first ? rp : ro, param_first ? ro : rp, 0) < 0)
		return -1;
	c->nextreg = ro + 1;
	*type = GA_T_BOOL;
	return ro;
}

/* expr's arguments where it is a numeric division (else NIL) */
static List *
division_args(Expr *expr)
{
	OpExpr	   *op = (OpExpr *) expr;

	if (!IsA(expr, OpExpr) || list_length(op->args) != 2)
		return NIL;
	set_opfuncid(op);
	return op->opfuncid == F_NUMERIC_DIV ? op->args : NIL;
}

/*
 * The first base-10000 digit of v / 10^scale (v > 0), and its weight, as
 * a NumericVar holds them (numeric.c: the point at a multiple of 4 places)
 */
static int
first_digit(int128 v, int scale, int *weight)
{
	int			pad = (4 - scale % 4) % 4,
				n = 0;

	for (int i = 0; i < pad; i++)
		v *= 10;
	for (; v >= 10000; n++)
		v /= 10000;
	*weight = n - (scale + pad) / 4;
	return (int) v;
}

/* (program.h) */
int
GpuaggDivScale(int128 xabs, int xscale, int weight2, int fd2, int dscale2)
{
	int			weight1 = 0,
				fd1 = 0,
				qweight,
				rscale;

	if (xabs > 0)
		fd1 = first_digit(xabs, xscale, &weight1);
	qweight = weight1 - weight2;
	if (fd1 <= fd2)
		qweight--;
	rscale = NUMERIC_MIN_SIG_DIGITS - qweight * 4;	/* numeric.c's DEC_DIGITS */
	rscale = Max(rscale, xscale);
	rscale = Max(rscale, dscale2);
	rscale = Max(rscale, NUMERIC_MIN_DISPLAY_SCALE);
	return Min(rscale, NUMERIC_MAX_DISPLAY_SCALE);
}

/*
 * A step of compile_numeric_div's ladder: where |x| (register rabs, in
 * units of 10^-s) >= t, the display scale rsc into register ds; nothing
 * where it is the scale below t (*last).
 */
static bool
ladder_step(Compiler *c, int rabs, int ds, int128 t, int rsc, int *last)
{
	int			cond,
				jump,
				v;

	if (rsc == *last)
		return true;
	*last = rsc;
	if ((cond = emit_const(c, Int64GetDatum((int64) t), false, GA_T_INT8)) < 0 ||
		emit(c, GA_OP_GE, GA_T_INT8, cond, rabs, cond, 0) < 0 ||
		(jump = emit_jump(c, cond)) < 0 ||
		(v = emit_const(c, Float8GetDatum(rsc), false, GA_T_FLOAT8)) < 0 ||
		emit(c, GA_OP_MOVE, GA_T_FLOAT8, ds, v, 0, 0) < 0)
		return false;
	emit_patch(c, &jump, 1);
	c->nextreg = cond;
	return true;
}

/*
 * x / k, x a numeric column of a declared precision and scale (in register
 * ra), k a constant whose digits are 2s and 5s alone (100, 0.5, 8, 1000):
 * every quotient has finitely many digits, x * F / 10^n (1/k = F / 10^n),
 * which numeric_div gives exactly where the display scale it chooses
 * (select_div_scale: from the first digits of x and k) holds them, as it
 * does for every x of the column's range where it does for the largest
 * (the scale shrinks as x grows).  Then the quotient is that integer at
 * its scale; its display scale is the row's, which only sum and avg carry
 * into their results (div_sum): each row's, from a ladder of |x| against
 * the bounds where it changes, goes to mixed_ds_reg, and the largest is
 * the sum's (GA_AGG_SUM_I128_DS).  Other divisions stay native: their
 * quotients are rounded at a scale that changes from row to row.
 */
static int
compile_numeric_div(Compiler *c, List *args, int ra, int lt, bool div_sum, int *type)
{
	Expr	   *x = linitial(args);
	Const	   *k = lsecond(args);
	int32		typmod;
	int			precision,
				s = c->regscale[ra],
				ks,
				a = 0,
				b = 0,
				n,
				rs,
				weight2 = 0,
				fd2,
				kn,
				r;
	int64		kv,
				m;
	int128		xmax,
				f = 1;
	GaDatum		mv;

	while (IsA(x, RelabelType))
		x = ((RelabelType *) x)->arg;
	typmod = exprTypmod((Node *) x);
	/* the digits before the point: a column's typmod's, an integer's type's */
	if (IsA(x, FuncExpr) && ((FuncExpr *) x)->funcid == F_NUMERIC_INT2)
		precision = 5;
	else if (IsA(x, FuncExpr) && ((FuncExpr *) x)->funcid == F_NUMERIC_INT4)
		precision = 10;
	else if (IsA(x, FuncExpr) && ((FuncExpr *) x)->funcid == F_NUMERIC_INT8)
		precision = 19;
	else if (IsA(x, Var) && typmod >= (int32) VARHDRSZ)
		precision = (typmod - VARHDRSZ) >> 16;
	else
		precision = -1;
	if (lt != GA_T_NUMERIC || precision < 0)
		return fail(c, "numeric division of other than a numeric column of a declared precision or an integer"), -1;
	if (!IsA(k, Const) || k->constisnull)
		return fail(c, "numeric division by other than a constant"), -1;
	if ((ks = GpuaggNumericDscale(k->constvalue)) < 0 || ks > GA_NUMERIC_MAX_SCALE ||
		!GpuaggNumericScaled(k->constvalue, ks, -1, &kv) || kv == 0)
		return fail(c, "numeric division by zero, NaN, an infinity or more than 18 digits"), -1;
	m = kv < 0 ? -kv : kv;
	while (m % 2 == 0)
		m /= 2, a++;
	while (m % 5 == 0)
		m /= 5, b++;
	if (m != 1)
		return fail(c, "numeric division by a constant whose quotients have endless digits"), -1;
	n = Max(a, b);
	for (int i = a; i < n; i++)
		f *= 2;
	for (int i = b; i < n; i++)
		f *= 5;
	rs = s + n - ks;
	for (; rs < 0; rs++)
		f *= 10;
	if (rs > GA_NUMERIC_MAX_SCALE || f > PG_INT64_MAX / 10)
		return fail(c, "numeric division whose quotients need scale %d", rs), -1;

	fd2 = first_digit(kv < 0 ? -(int128) kv : kv, ks, &weight2);
	/* the largest |x| of the column (and of an int64 at its scale) */
	xmax = 1;
	for (int i = 0; i < precision && xmax < PG_INT64_MAX; i++)
		xmax *= 10;
	xmax = Min(xmax - 1, (int128) PG_INT64_MAX);
	if (GpuaggDivScale(xmax, s, weight2, fd2, ks) < rs)
		return fail(c, "numeric division whose quotients numeric_div rounds (the column's largest values)"), -1;

	if (div_sum)
	{
		/*
		 * the row's display scale: GpuaggDivScale of |x|, which steps down at
		 * 10000^w and (fd2 + 1) * 10000^w; from the smallest |x| up, each
		 * bound reached moves its scale into the register
		 */
		int			rabs = alloc_reg(c),
					ds,
					last = GpuaggDivScale(0, s, weight2, fd2, ks);

		if (rabs < 0 || emit(c, GA_OP_MOVE, GA_T_NUMERIC, rabs, ra, 0, 0) < 0 ||
			emit(c, GA_OP_NUM_ABS, GA_T_NUMERIC, rabs, rabs, 0, 0) < 0 ||
			(ds = emit_const(c, Float8GetDatum(last), false, GA_T_FLOAT8)) < 0)
			return -1;
		/*
		 * the bounds, in units of 10^-s (a fraction rounded up: the
		 * integers past it), from the smallest nonzero |x|, 1
		 */
		if (!ladder_step(c, rabs, ds, 1, GpuaggDivScale(1, s, weight2, fd2, ks), &last))
			return -1;
		for (int w = -(s / 4) - 2;; w++)
		{
			int			e = 4 * w + s;
			int128		p = 1;

			for (int i = 0; i < Abs(e); i++)
				p *= 10;
			if (e >= 0 && p > xmax)
				break;
			for (int j = 0; j < 2; j++)
			{
				int128		bound = j == 0 ? 1 : fd2 + 1,
							t = e >= 0 ? bound * p : (bound + p - 1) / p;

				if (t < 1 || t > xmax || (j == 1 && fd2 + 1 >= 10000))
					continue;
				if (!ladder_step(c, rabs, ds, t, GpuaggDivScale(t, s, weight2, fd2, ks), &last))
					return -1;
			}
		}
		c->mixed_ds_reg = ds;
		c->nextreg = ds + 1;
	}

	/* the quotient: x * F at scale rs */
	c->quotient.f = (int64) f;
	c->quotient.xscale = s;
	c->quotient.kweight = weight2;
	c->quotient.kdigit = fd2;
	c->quotient.kscale = ks;
	mv.i = (int64) (kv < 0 ? -f : f);
	kn = add_const(c, mv, false);
	r = alloc_reg(c);
	if (kn < 0 || r < 0 || emit(c, GA_OP_CONST, GA_T_NUMERIC, r, 0, 0, kn) < 0 ||
		emit(c, GA_OP_MUL, GA_T_NUMERIC, ra, ra, r, 0) < 0)
		return -1;
	c->regscale[ra] = rs;
	c->nextreg = div_sum ? c->mixed_ds_reg + 1 : ra + 1;
	*type = GA_T_NUMERIC;
	return ra;
}

/*
 * An operator on numerics: comparisons, + and - (at the larger scale, as
 * add_var), * (at the sum of the scales, as numeric_mul), % (at the larger
 * scale, as mod_var: x - trunc(x / y) * y, the sign of x, which is C's %
 * of the scaled integers; a zero y raises 22012), unary - and +.
 * Division keeps the native plan: its result scale depends on the values.
 */
static int
compile_numeric_op(Compiler *c, const char *name, Oid restype, List *args, int *type)
{
	int			ra,
				rb,
				lt,
				rt,
				sa,
				sb,
				op,
				dst,
				scale;

	List	   *div_ok = c->div_args;
	bool		div_sum = c->div_sum;

	c->div_args = NIL;
	c->div_sum = false;
	if (list_length(args) == 2 && restype == BOOLOID &&
		(IsA(linitial(args), Param) || IsA(lsecond(args), Param)))
		return compile_param_comparison(c, name, args, type);
	/* a comparison reads the values alone: either may be a quotient */
	if (list_length(args) == 2 && restype == BOOLOID)
		c->div_args = division_args(linitial(args));
	ra = compile_expr(c, linitial(args), &lt);
	c->div_args = NIL;
	if (ra < 0)
		return -1;
	sa = c->regscale[ra];
	if (list_length(args) == 2 && strcmp(name, "/") == 0 && restype == NUMERICOID)
	{
		if (args != div_ok)
			return fail(c, "numeric division other than as a group key, inside sum, avg (without DISTINCT), min, max, count, round, trunc, floor, ceil, sign or a cast, or compared"), -1;
		return compile_numeric_div(c, args, ra, lt, div_sum, type);
	}
	if (list_length(args) == 1)
	{
		if (lt != GA_T_NUMERIC || restype != NUMERICOID ||
			(strcmp(name, "-") != 0 && strcmp(name, "+") != 0))
			return fail(c, "unsupported numeric operator %s", name), -1;
		if (strcmp(name, "-") == 0 && emit(c, GA_OP_NEG, GA_T_NUMERIC, ra, ra, 0, 0) < 0)
			return -1;
		c->regscale[ra] = sa;
		*type = GA_T_NUMERIC;
		return ra;
	}
	if (restype == BOOLOID)
		c->div_args = division_args(lsecond(args));
	rb = compile_expr(c, lsecond(args), &rt);
	c->div_args = NIL;
	if (rb < 0)
		return -1;
	sb = c->regscale[rb];
	if (lt != GA_T_NUMERIC || rt != GA_T_NUMERIC)
		return fail(c, "unsupported operator %s between %s and %s", name,
					format_type_be(exprType(linitial(args))),
					format_type_be(exprType(lsecond(args)))), -1;
	op = comparison_op(name);
	if (op != 0 && restype == BOOLOID)
	{
		/* compared at one scale, where the scaled integers order as the values */
		if (!numeric_rescale(c, ra, sa, Max(sa, sb)) ||
			!numeric_rescale(c, rb, sb, Max(sa, sb)) ||
			emit(c, op, GA_T_INT8, ra, ra, rb, 0) < 0)
			return -1;
		c->nextreg = ra + 1;
		*type = GA_T_BOOL;
		return ra;
	}
	op = arith_op(name);
	if (restype != NUMERICOID ||
		(op != GA_OP_ADD && op != GA_OP_SUB && op != GA_OP_MUL && op != GA_OP_MOD))
		return fail(c, "numeric operator %s", name), -1;
	if (op == GA_OP_MUL)
	{
		scale = sa + sb;
		if (scale > GA_NUMERIC_MAX_SCALE)
			return fail(c, "a numeric product of scale %d (the device holds up to %d)",
						scale, GA_NUMERIC_MAX_SCALE), -1;
	}
	else
	{
		scale = Max(sa, sb);
		if (!numeric_rescale(c, ra, sa, scale) || !numeric_rescale(c, rb, sb, scale))
			return -1;
	}
	dst = Min(ra, rb);
	if (emit(c, op, GA_T_NUMERIC, dst, ra, rb, 0) < 0)
		return -1;
	c->nextreg = dst + 1;
	c->regscale[dst] = scale;
	*type = GA_T_NUMERIC;
	return dst;
}

/*
 * A value fixed for a scan: a parameter, or a stable function of nothing
 * that cannot fail (is_scan_constant).  The executor evaluates each once
 * a (re)scan (GpuaggLoadParams) into the constants that read it.
 */
static int
compile_scan_constant(Compiler *c, Expr *expr, int type, bool guarded)
{
	GpuaggProgram *prog = c->prog;
	GaDatum		zero = {0};
	int			idx = 0,
				k,
				r;
	ListCell   *lc;
	bool		found = false;

	if (IsA(expr, Param) &&
		((Param *) expr)->paramkind != PARAM_EXTERN && ((Param *) expr)->paramkind != PARAM_EXEC)
		return fail(c, "unsupported parameter kind"), -1;
	foreach(lc, prog->params)
	{
		if (equal(lfirst(lc), expr))
		{
			found = true;
			break;
		}
		idx++;
	}
	if (!found)
		prog->params = lappend(prog->params, copyObject(expr));
	if (guarded)
		prog->guarded = bms_add_member(prog->guarded, idx);
	if (type == GA_T_TEXT)
		return emit_text_const(c, (Datum) 0, true, exprType((Node *) expr), idx);
	k = add_const(c, zero, true);
	r = alloc_reg(c);
	if (k < 0 || r < 0 || emit(c, GA_OP_CONST, type, r, 0, 0, k) < 0)
		return -1;
	prog->paramref_const[prog->nparamrefs] = k;
	prog->paramref_param[prog->nparamrefs] = idx;
	prog->paramref_scale[prog->nparamrefs] = type == GA_T_NUMERIC ? c->param_scale : 0;
	prog->paramref_round[prog->nparamrefs] = type == GA_T_NUMERIC ? c->param_round : 0;
	prog->nparamrefs++;
	if (type == GA_T_NUMERIC)
		c->regscale[r] = c->param_scale;
	return r;
}

/*
 * Offsets a scan constant may add up, each of 12,000 months of 31 days at
 * most (an interval's months, days and time together: 1019 years): with a
 * date_trunc before and after each (a millennium's takes it back to the
 * millennium's start, then no further), three of them take now() no
 * further back than about 4000 BC, inside the range of date and timestamp
 * (from 4713 BC).
 */
#define MAX_TIME_OFFSETS	3
#define MAX_OFFSET_DAYS		(31.0 * 12 * 1000)

/*
 * The time offsets in expr, a scan constant other than a parameter (-1:
 * not one): current_date, current_timestamp, localtimestamp (with or
 * without a precision), now(), transaction_timestamp() or
 * statement_timestamp(); or, of one of those,
 *   - plus or minus a constant interval of MAX_OFFSET_DAYS at most
 *     (now() - interval '1 year', current_date + interval '7 days'): one
 *     offset more;
 *   - date_trunc with a constant unit that timestamp_trunc knows (of a
 *     timestamptz in the session's time zone), or a cast among date,
 *     timestamp and timestamptz (date_trunc('month', current_date)).
 * Stable, the same in parallel workers (which take the leader's timestamps
 * and TimeZone), and, within MAX_TIME_OFFSETS, they raise no error, so
 * evaluating them before any row changes nothing.  (A stable expression
 * that can fail stays native: PostgreSQL evaluates it only for the rows
 * that reach it.)
 */
static int
scan_constant_offsets(Expr *expr)
{
	if (IsA(expr, SQLValueFunction))
	{
		switch (((SQLValueFunction *) expr)->op)
		{
			case SVFOP_CURRENT_DATE:
			case SVFOP_CURRENT_TIMESTAMP:
			case SVFOP_CURRENT_TIMESTAMP_N:
			case SVFOP_LOCALTIMESTAMP:
			case SVFOP_LOCALTIMESTAMP_N:
				return 0;
			default:
				return -1;
		}
	}
	if (IsA(expr, FuncExpr))
	{
		FuncExpr   *f = (FuncExpr *) expr;
		char	   *units;
		int			val;

		if (f->args == NIL)
			return f->funcid == F_NOW || f->funcid == F_TRANSACTION_TIMESTAMP ||
				f->funcid == F_STATEMENT_TIMESTAMP ? 0 : -1;
		if (list_length(f->args) == 1 &&
			(f->funcid == F_DATE_TIMESTAMP || f->funcid == F_DATE_TIMESTAMPTZ ||
			 f->funcid == F_TIMESTAMP_DATE || f->funcid == F_TIMESTAMPTZ_DATE ||
			 f->funcid == F_TIMESTAMP_TIMESTAMPTZ || f->funcid == F_TIMESTAMPTZ_TIMESTAMP))
			return scan_constant_offsets(linitial(f->args));
		if (list_length(f->args) == 2 &&
			(f->funcid == F_DATE_TRUNC_TEXT_TIMESTAMP ||
			 f->funcid == F_DATE_TRUNC_TEXT_TIMESTAMPTZ) &&
			(units = const_units(linitial(f->args))) != NULL &&
			DecodeUnits(0, units, &val) == UNITS && trunc_unit(val) >= 0)
			return scan_constant_offsets(lsecond(f->args));
		return -1;
	}
	if (IsA(expr, OpExpr) && list_length(((OpExpr *) expr)->args) == 2)
	{
		OpExpr	   *op = (OpExpr *) expr;
		Const	   *k = lsecond(op->args);
		Interval   *iv;
		int			n;

		set_opfuncid(op);
		if (op->opfuncid != F_TIMESTAMPTZ_PL_INTERVAL && op->opfuncid != F_TIMESTAMPTZ_MI_INTERVAL &&
			op->opfuncid != F_TIMESTAMP_PL_INTERVAL && op->opfuncid != F_TIMESTAMP_MI_INTERVAL &&
			op->opfuncid != F_DATE_PL_INTERVAL && op->opfuncid != F_DATE_MI_INTERVAL)
			return -1;
		if (!IsA(k, Const) || k->constisnull ||
			(n = scan_constant_offsets(linitial(op->args))) < 0)
			return -1;
		iv = DatumGetIntervalP(k->constvalue);
		return fabs((double) iv->month) * 31 + fabs((double) iv->day) +
			fabs((double) iv->time) / USECS_PER_DAY <= MAX_OFFSET_DAYS ? n + 1 : -1;
	}
	return -1;
}

/* a CaseTestExpr, or a Param other than $n (an InitPlan's, which would run) */
static bool
unguardable_walker(Node *node, void *cxt)
{
	if (node == NULL)
		return false;
	if (IsA(node, CaseTestExpr) ||
		(IsA(node, Param) && ((Param *) node)->paramkind != PARAM_EXTERN))
		return true;
	return expression_tree_walker(node, unguardable_walker, cxt);
}

/*
 * Any other stable expression without columns (to_date('2024-01-01',
 * 'YYYY-MM-DD'), current_setting('report.days')::int, an age() of
 * constants): a scan constant too, evaluated once a (re)scan, but as it
 * may fail where PostgreSQL, evaluating it per row, would meet it on no
 * row, in a subtransaction: where it fails, PostgreSQL's own plan (the
 * exact path) runs instead, and raises the error at the first row that
 * reaches it, as natively (GpuaggLoadParams, GpuaggProgram.guarded).
 * Not inside a CASE's WHEN of its operand (a CaseTestExpr, evaluated
 * with the CASE), nor of an InitPlan's or outer query's parameter: an
 * InitPlan it ran in the subtransaction would keep that one's resources
 * (a scan's pinned buffer) past its end.
 */
static bool
guarded_constant(Expr *expr)
{
	if (IsA(expr, Const) || IsA(expr, Param))
		return false;
	return contain_mutable_functions((Node *) expr) &&
		!contain_volatile_functions((Node *) expr) &&
		!contain_var_clause((Node *) expr) &&
		!contain_subplans((Node *) expr) &&
		!contain_agg_clause((Node *) expr) &&
		!contain_window_function((Node *) expr) &&
		!expression_returns_set((Node *) expr) &&
		!unguardable_walker((Node *) expr, NULL);
}

/* Is expr a scan constant other than a parameter (scan_constant_offsets)? */
static bool
is_scan_constant(Expr *expr)
{
	int			n = scan_constant_offsets(expr);

	return n >= 0 && n <= MAX_TIME_OFFSETS;
}

static bool
is_int_type(int t)
{
	return t == GA_T_INT2 || t == GA_T_INT4 || t == GA_T_INT8;
}

static int
comparison_op(const char *name)
{
	if (strcmp(name, "=") == 0)
		return GA_OP_EQ;
	if (strcmp(name, "<>") == 0)
		return GA_OP_NE;
	if (strcmp(name, "<") == 0)
		return GA_OP_LT;
	if (strcmp(name, "<=") == 0)
		return GA_OP_LE;
	if (strcmp(name, ">") == 0)
		return GA_OP_GT;
	if (strcmp(name, ">=") == 0)
		return GA_OP_GE;
	return 0;
}

static int
arith_op(const char *name)
{
	if (strcmp(name, "+") == 0)
		return GA_OP_ADD;
	if (strcmp(name, "-") == 0)
		return GA_OP_SUB;
	if (strcmp(name, "*") == 0)
		return GA_OP_MUL;
	if (strcmp(name, "/") == 0)
		return GA_OP_DIV;
	if (strcmp(name, "%") == 0)
		return GA_OP_MOD;
	return 0;
}

/*
 * Which operation a comparison of types lt and rt is, or 0.  Only pairs
 * whose built-in operator compares the plain values are accepted: same
 * type, integer widths mixed, float widths mixed.
 */
static bool
comparable(int lt, int rt)
{
	if (lt == rt)
		return lt != GA_T_NULLONLY && lt != GA_T_INVALID;
	if (is_int_type(lt) && is_int_type(rt))
		return true;
	if (ga_type_is_float(lt) && ga_type_is_float(rt))
		return true;
	return false;
}

/* Is this the equality or inequality function of text or bpchar? */
static bool
is_string_eq_func(Oid funcid)
{
	return funcid == F_TEXTEQ || funcid == F_TEXTNE ||
		funcid == F_BPCHAREQ || funcid == F_BPCHARNE ||
		funcid == F_UUID_EQ || funcid == F_UUID_NE;
}

/* (program.h) */
bool
GpuaggIsLike(Oid fn, bool *negated)
{
	if (negated)
		*negated = fn == F_TEXTNLIKE || fn == F_BPCHARNLIKE;
	return fn == F_TEXTLIKE || fn == F_TEXTNLIKE || fn == F_BPCHARLIKE || fn == F_BPCHARNLIKE;
}

/* (program.h) */
bool
GpuaggLikeEndsInEscape(Datum pattern)
{
	const char *p = VARDATA_ANY(DatumGetPointer(pattern));
	int			len = VARSIZE_ANY_EXHDR(DatumGetPointer(pattern)),
				escapes = 0;

	while (escapes < len && p[len - 1 - escapes] == '\\')
		escapes++;
	return escapes % 2 != 0;
}

/*
 * How the devices count a string's characters in this database: its bytes
 * (a single-byte encoding), UTF-8's lead bytes, or not at all (0, another
 * multibyte encoding): GA_LENGTH_OCTETS, GA_LENGTH_CHARS or 0.
 */
static int
device_chars(void)
{
	if (pg_database_encoding_max_length() == 1)
		return GA_LENGTH_OCTETS;
	return GetDatabaseEncoding() == PG_UTF8 ? GA_LENGTH_CHARS : 0;
}

/* A text or varchar column itself (under RelabelTypes), or NULL. */
static Var *
string_column(Expr *e)
{
	while (IsA(e, RelabelType))
		e = ((RelabelType *) e)->arg;
	if (!IsA(e, Var) || (((Var *) e)->vartype != TEXTOID && ((Var *) e)->vartype != VARCHAROID))
		return NULL;
	return (Var *) e;
}

/*
 * column = '' or column <> '' of a text or varchar column under a
 * deterministic collation (where equality is the bytes'):
 * octet_length(column) = 0 or <> 0, a length the devices count in the
 * pages (GaColumn.length), so the column's strings need no codes when
 * nothing else reads them (ClickBench's `WHERE URL <> ''` beside
 * avg(length(URL))).  NULL otherwise.
 */
static Expr *
empty_string_test(Oid opfuncid, Oid inputcollid, List *args)
{
	Expr	   *col,
			   *k;
	Const	   *zero;
	FuncExpr   *len;
	OpExpr	   *op;

	if ((opfuncid != F_TEXTEQ && opfuncid != F_TEXTNE) || list_length(args) != 2)
		return NULL;
	col = linitial(args);
	k = lsecond(args);
	if (IsA(col, Const))
	{
		col = k;
		k = linitial(args);
	}
	if (string_column(col) == NULL || !IsA(k, Const) || ((Const *) k)->constisnull ||
		VARSIZE_ANY_EXHDR(DatumGetPointer(((Const *) k)->constvalue)) != 0 ||
		!OidIsValid(inputcollid) || !get_collation_isdeterministic(inputcollid))
		return NULL;
	len = makeFuncExpr(F_OCTET_LENGTH_TEXT, INT4OID, list_make1(col), InvalidOid,
					   inputcollid, COERCE_EXPLICIT_CALL);
	zero = makeConst(INT4OID, -1, InvalidOid, sizeof(int32), Int32GetDatum(0), false, true);
	op = (OpExpr *) make_opclause(opfuncid == F_TEXTEQ ? Int4EqualOperator : get_negator(Int4EqualOperator),
								  BOOLOID, false, (Expr *) len, (Expr *) zero,
								  InvalidOid, InvalidOid);
	op->opfuncid = opfuncid == F_TEXTEQ ? F_INT4EQ : F_INT4NE;
	return (Expr *) op;
}

/*
 * column LIKE 'pattern' (NOT LIKE: negate) as the devices match it in page
 * form (gpuagg_page.h's ga_like, which says how the pattern is laid out)
 * into prog->ga.likes: 1 + where it lies, or 0 when they cannot: a `_',
 * an encoding of several bytes a character other than UTF-8, no room.
 */
static int
compile_like(GpuaggProgram *prog, Datum pattern, bool negate)
{
	const char *p = VARDATA_ANY(DatumGetPointer(pattern));
	int			len = VARSIZE_ANY_EXHDR(DatumGetPointer(pattern));
	uint8	   *out = prog->ga.likes + prog->nlikebytes;
	int			room = GA_LIKE_BYTES - prog->nlikebytes;
	int			at = 3,			/* flags, parts, the first part's length */
				partlen = 2;	/* where that length is */

	if (device_chars() == 0 || room < 3)
		return 0;
	out[0] = negate ? 1 : 0;
	out[1] = 1;
	out[2] = 0;
	for (int i = 0; i < len; i++)
	{
		if (p[i] == '_')
			return 0;
		if (p[i] == '%')
		{
			if (at >= room || out[1] == 255)
				return 0;
			out[1]++;
			partlen = at;
			out[at++] = 0;
			continue;
		}
		if (p[i] == '\\')
			i++;				/* what follows, literally (it follows) */
		if (at >= room || out[partlen] == 255)
			return 0;
		out[partlen]++;
		out[at++] = (uint8) p[i];
	}
	prog->nlikebytes += at;
	return prog->nlikebytes - at + 1;
}

/*
 * The next string predicate (its pred_* filled in by the caller) as a
 * column of its own, of type, read into a new register: that register, or
 * -1.
 */
static int
host_column(Compiler *c, AttrNumber attno, int type, int *col)
{
	int			r;

	*col = column_for(c, attno, type, ++c->prog->npreds, 0);
	r = alloc_reg(c);
	if (*col < 0 || r < 0 || emit(c, GA_OP_COL, type, r, 0, 0, *col) < 0)
		return -1;
	return r;
}

/* (program.h) */
int
GpuaggCopyPageColumn(GpuaggProgram *to, AttrNumber attno, const GpuaggProgram *from,
					 const GaColumn *fc)
{
	GaProgram  *g = &to->ga;
	GaColumn   *c = &g->cols[g->ncols];
	int			k = fc->pred - 1;

	if (fc->pred == 0 || (!fc->like && !fc->length) || g->ncols >= GA_MAX_COLS ||
		to->npreds >= GA_MAX_COLS)
		return -1;
	memset(c, 0, sizeof(GaColumn));
	c->type = fc->type;
	c->attno = attno;
	c->length = fc->length;
	if (fc->like)
	{
		/* (compile_like's layout: flags, parts, each part's length and bytes) */
		const uint8 *pat = from->ga.likes + fc->like - 1;
		int			n = 2;

		for (int part = 0; part < pat[1]; part++)
			n += 1 + pat[n];
		if (to->nlikebytes + n > GA_LIKE_BYTES)
			return -1;
		memcpy(g->likes + to->nlikebytes, pat, n);
		c->like = to->nlikebytes + 1;
		to->nlikebytes += n;
	}
	/* (the host's hooks answer a value not inline with its function) */
	to->pred_funcid[to->npreds] = from->pred_funcid[k];
	to->pred_collid[to->npreds] = from->pred_collid[k];
	to->pred_pattern[to->npreds] = from->pred_pattern[k];
	to->pred_expr[to->npreds] = from->pred_expr[k];
	to->pred_argtype[to->npreds] = from->pred_argtype[k];
	c->pred = ++to->npreds;
	return g->ncols++;
}

/*
 * column LIKE / NOT LIKE / ILIKE / NOT ILIKE 'pattern' on text, varchar or
 * char(n) (whose value, padded, is what bpcharlike matches), and column <
 * <= > >= 'constant' (either side) on text or varchar: a bool column the host
 * computes with PostgreSQL's own function and the expression's collation
 * (libc, ICU, "C": any deterministic one) once per distinct string of the
 * column (src/batch.c), or -1 with nothing emitted when expr is not of
 * that form.  A pattern ending in an escape is left to PostgreSQL (it
 * raises an error there, for the rows it reaches).
 */
static int
compile_string_pred(Compiler *c, Oid opfuncid, Oid inputcollid, List *args)
{
	GpuaggProgram *prog = c->prog;
	Expr	   *arg = linitial(args);
	Const	   *pat = lsecond(args);
	Var		   *var;
	bool		bp = opfuncid == F_BPCHARLIKE || opfuncid == F_BPCHARNLIKE ||
		opfuncid == F_BPCHARICLIKE || opfuncid == F_BPCHARICNLIKE;
	bool		like = bp || opfuncid == F_TEXTLIKE || opfuncid == F_TEXTNLIKE ||
		opfuncid == F_TEXTICLIKE || opfuncid == F_TEXTICNLIKE;
	bool		negated;
	int			col,
				r;

	if (!like && opfuncid != F_TEXT_LT && opfuncid != F_TEXT_LE &&
		opfuncid != F_TEXT_GT && opfuncid != F_TEXT_GE)
		return -1;
	/* 'constant' < column: column > 'constant' */
	if (!like && IsA(arg, Const) && !IsA(pat, Const))
	{
		arg = lsecond(args);
		pat = linitial(args);
		opfuncid = opfuncid == F_TEXT_LT ? F_TEXT_GT : opfuncid == F_TEXT_GT ? F_TEXT_LT :
			opfuncid == F_TEXT_LE ? F_TEXT_GE : F_TEXT_LE;
	}
	while (IsA(arg, RelabelType))
		arg = ((RelabelType *) arg)->arg;
	if (!IsA(arg, Var) || !IsA(pat, Const) || pat->constisnull)
		return -1;
	var = (Var *) arg;
	/* (a char(n)'s LIKE matches its padded value, as stored) */
	if (var->varlevelsup != 0 || var->varattno <= 0 ||
		(bp ? var->vartype != BPCHAROID :
		 var->vartype != TEXTOID && var->vartype != VARCHAROID))
		return -1;
	if (!deterministic(inputcollid))
		return -1;
	if ((like && GpuaggLikeEndsInEscape(pat->constvalue)) || prog->npreds >= GA_MAX_COLS)
		return -1;
	prog->pred_funcid[prog->npreds] = opfuncid;
	prog->pred_collid[prog->npreds] = inputcollid;
	prog->pred_pattern[prog->npreds] = pat->constvalue;
	if ((r = host_column(c, var->varattno, GA_T_BOOL, &col)) < 0)
		return -2;
	if (GpuaggIsLike(opfuncid, &negated))
		prog->ga.cols[col].like = compile_like(prog, pat->constvalue, negated);
	return r;
}

/*
 * A function call or an operator (e a FuncExpr or an OpExpr): its
 * function, its arguments and its input collation.
 */
static Oid
call_parts(Expr *e, List **args, Oid *collid)
{
	if (IsA(e, FuncExpr))
	{
		*args = ((FuncExpr *) e)->args;
		*collid = ((FuncExpr *) e)->inputcollid;
		return ((FuncExpr *) e)->funcid;
	}
	set_opfuncid((OpExpr *) e);
	*args = ((OpExpr *) e)->args;
	*collid = ((OpExpr *) e)->inputcollid;
	return ((OpExpr *) e)->opfuncid;
}

/*
 * Functions of one string a host column computes per distinct string
 * (derived columns): they raise no error for any string (a substring
 * length, a split_part field and a regular expression are checked here;
 * native evaluates them only for the rows that reach them; a regular
 * expression that compiled may still run out of memory on some string,
 * as natively), and return a string, an integer or a bool (NULL for some
 * strings, as substring(s FROM pattern) where it does not match).
 */
static bool
string_func_arg_ok(Expr *e, Var **var)
{
	while (IsA(e, RelabelType))
		e = ((RelabelType *) e)->arg;
	if (IsA(e, Const))
		return !((Const *) e)->constisnull;
	if (IsA(e, Var))
	{
		Var		   *v = (Var *) e;

		/* (a bpchar only as the text it casts to, below) */
		if (v->varlevelsup != 0 || v->varattno <= 0 ||
			(v->vartype != TEXTOID && v->vartype != VARCHAROID && v->vartype != BPCHAROID) ||
			(*var != NULL && (*var)->varattno != v->varattno))
			return false;
		*var = v;
		return true;
	}
	if (IsA(e, FuncExpr) || IsA(e, OpExpr))
	{
		List	   *args;
		Oid			collid;
		Oid			fn = call_parts(e, &args, &collid);
		ListCell   *lc;

		/*
		 * a bpchar column is read through its cast to text only, but by its
		 * own regular expression operators (which match its padded value)
		 */
		if (fn != F_TEXT_BPCHAR && fn != F_BPCHARREGEXEQ && fn != F_BPCHARREGEXNE &&
			fn != F_BPCHARICREGEXEQ && fn != F_BPCHARICREGEXNE)
		{
			foreach(lc, args)
			{
				Expr	   *a = lfirst(lc);

				while (IsA(a, RelabelType))
					a = ((RelabelType *) a)->arg;
				if (IsA(a, Var) && ((Var *) a)->vartype == BPCHAROID)
					return false;
			}
		}
		switch (fn)
		{
			case F_TEXT_BPCHAR:	/* char(n)::text, without trailing spaces */
			case F_LOWER_TEXT:
			case F_UPPER_TEXT:
			case F_INITCAP:
			case F_TEXTLEN:
			case F_LENGTH_TEXT:
			case F_CHAR_LENGTH_TEXT:
			case F_CHARACTER_LENGTH_TEXT:
			case F_OCTET_LENGTH_TEXT:
			case F_LEFT:
			case F_RIGHT:
			case F_SUBSTR_TEXT_INT4:
			case F_SUBSTRING_TEXT_INT4:
			case F_TEXTCAT:
			case F_BTRIM_TEXT:
			case F_BTRIM_TEXT_TEXT:
			case F_LTRIM_TEXT:
			case F_LTRIM_TEXT_TEXT:
			case F_RTRIM_TEXT:
			case F_RTRIM_TEXT_TEXT:
			case F_REVERSE:
				break;
			case F_STARTS_WITH:
			case F_STRPOS:
			case F_POSITION_TEXT_TEXT:
			case F_REPLACE:
				/* "nondeterministic collations are not supported for substring searches" */
				if (!deterministic(collid))
					return false;
				break;
			case F_SUBSTR_TEXT_INT4_INT4:
			case F_SUBSTRING_TEXT_INT4_INT4:
				/* "negative substring length not allowed" */
				if (!IsA(lthird(args), Const) || ((Const *) lthird(args))->constisnull ||
					DatumGetInt32(((Const *) lthird(args))->constvalue) < 0)
					return false;
				break;
			case F_SPLIT_PART:
				/* "field position must not be zero", and as F_STRPOS */
				if (!IsA(lthird(args), Const) || ((Const *) lthird(args))->constisnull ||
					DatumGetInt32(((Const *) lthird(args))->constvalue) == 0 ||
					!deterministic(collid))
					return false;
				break;
			case F_REGEXP_REPLACE_TEXT_TEXT_TEXT:
			case F_REGEXP_REPLACE_TEXT_TEXT_TEXT_TEXT:
				if (!regex_ok(args, collid))
					return false;
				break;
			case F_TEXTREGEXEQ:	/* ~, !~ */
			case F_TEXTREGEXNE:
			case F_BPCHARREGEXEQ:
			case F_BPCHARREGEXNE:
			case F_REGEXP_LIKE_TEXT_TEXT:
			case F_REGEXP_COUNT_TEXT_TEXT:
			case F_REGEXP_SUBSTR_TEXT_TEXT:
			case F_SUBSTRING_TEXT_TEXT:	/* substring(s FROM pattern) */
				if (!regex_compiles(lsecond(args), REG_ADVANCED, collid))
					return false;
				break;
			case F_TEXTICREGEXEQ:	/* ~*, !~* */
			case F_TEXTICREGEXNE:
			case F_BPCHARICREGEXEQ:
			case F_BPCHARICREGEXNE:
				if (!regex_compiles(lsecond(args), REG_ADVANCED | REG_ICASE, collid))
					return false;
				break;
			case F_TEXTLIKE:
			case F_TEXTNLIKE:
			case F_TEXTICLIKE:
			case F_TEXTICNLIKE:
				/* over a function of the string (compile_string_func) */
				if (!IsA(lsecond(args), Const) || ((Const *) lsecond(args))->constisnull ||
					GpuaggLikeEndsInEscape(((Const *) lsecond(args))->constvalue) ||
					!deterministic(collid))
					return false;
				break;
			case F_TEXT_LT:
			case F_TEXT_LE:
			case F_TEXT_GT:
			case F_TEXT_GE:
				if (!OidIsValid(collid))
					return false;
				break;
			default:
				return false;
		}
		foreach(lc, args)
			if (!string_func_arg_ok(lfirst(lc), var))
				return false;
		return true;
	}
	return false;
}

/*
 * regexp_replace(s, pattern, replacement [, flags]): constants, the flags
 * g and i only, a deterministic collation (as RE_compile_and_cache
 * demands), and a pattern that compiles, so that evaluating it raises
 * nothing.
 */
static bool
regex_ok(List *args, Oid collid)
{
	int			cflags = REG_ADVANCED;

	if (!IsA(lthird(args), Const))
		return false;
	if (list_length(args) == 4)
	{
		Const	   *fl = lfourth(args);

		if (!IsA(fl, Const) || fl->constisnull)
			return false;
		for (char *p = TextDatumGetCString(fl->constvalue); *p; p++)
		{
			if (*p == 'i')
				cflags |= REG_ICASE;
			else if (*p != 'g')
				return false;
		}
	}
	return regex_compiles(lsecond(args), cflags, collid);
}

/*
 * A regular expression pattern that is a constant and compiles with these
 * flags under a deterministic collation (as RE_compile_and_cache demands).
 */
static bool
regex_compiles(Expr *e, int cflags, Oid collid)
{
	Const	   *pat = (Const *) e;
	char	   *p;
	pg_wchar   *w;
	int			wlen;
	regex_t		re;
	int			rc;

	if (!IsA(pat, Const) || pat->constisnull || !deterministic(collid))
		return false;
	p = TextDatumGetCString(pat->constvalue);
	w = palloc((strlen(p) + 1) * sizeof(pg_wchar));
	wlen = pg_mb2wchar_with_len(p, w, strlen(p));
	rc = pg_regcomp(&re, w, wlen, cflags, collid);
	if (rc == REG_OKAY)
		pg_regfree(&re);
	return rc == REG_OKAY;
}

/* Replace the one string column's Vars by Param $1 of its type. */
static Node *
var_to_param(Node *node, void *context)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;
		Param	   *p = makeNode(Param);

		p->paramkind = PARAM_EXTERN;
		p->paramid = 1;
		p->paramtype = v->vartype;
		p->paramtypmod = v->vartypmod;
		p->paramcollid = v->varcollid;
		p->location = -1;
		return (Node *) p;
	}
	return expression_tree_mutator(node, var_to_param, context);
}

/*
 * A function of one text or varchar column (string_func_arg_ok) that
 * yields a string, an integer or a bool: a column of its own that the
 * host fills once per distinct string of the column (src/batch.c), as it
 * does string predicates, or -1 with nothing emitted when expr is not of
 * that form (-2: it is, and failed).  The device sees codes, integers or
 * bools; the scan reads column batches.
 */
static int
compile_string_func(Compiler *c, Expr *expr, int *type)
{
	Var		   *var = NULL;
	int			t = GpuaggTypeOf(exprType((Node *) expr));
	List	   *args;
	Oid			collid;
	Oid			fn = call_parts(expr, &args, &collid);

	/* a LIKE or a comparison of the column itself: compile_string_pred's */
	if (fn == F_TEXTLIKE || fn == F_TEXTNLIKE || fn == F_TEXTICLIKE || fn == F_TEXTICNLIKE ||
		fn == F_TEXT_LT || fn == F_TEXT_LE || fn == F_TEXT_GT || fn == F_TEXT_GE)
	{
		ListCell   *lc;

		foreach(lc, args)
		{
			Expr	   *a = lfirst(lc);

			while (IsA(a, RelabelType))
				a = ((RelabelType *) a)->arg;
			if (IsA(a, Var))
				return -1;
		}
	}
	if ((t != GA_T_TEXT && t != GA_T_INT4 && t != GA_T_BOOL) ||
		exprType((Node *) expr) == BPCHAROID ||
		!string_func_arg_ok(expr, &var) || var == NULL)
		return -1;
	return derived_column(c, expr, var, t, type);
}

/*
 * expr, a function of string column var's values of type t, as a column
 * of its own the host fills (compile_string_func, compile_string_saop), or -1 with nothing
 * emitted (-2: failed).
 */
static int
derived_column(Compiler *c, Expr *expr, Var *var, int t, int *type)
{
	GpuaggProgram *prog = c->prog;
	int			col,
				r;

	if (prog->npreds >= GA_MAX_COLS)
		return -1;
	prog->pred_funcid[prog->npreds] = InvalidOid;
	prog->pred_expr[prog->npreds] = (Expr *) var_to_param((Node *) expr, NULL);
	prog->pred_argtype[prog->npreds] = var->vartype;
	if ((r = host_column(c, var->varattno, t, &col)) < 0)
		return -2;
	prog->ga.cols[col].length = length_counted(expr);
	prog->ga.cols[col].prefix = prefix_coded(expr, &prog->ga.cols[col].prefix_flags);
	*type = t;
	return r;
}

/*
 * The bytes compile_like lays pattern out in (at most), or more than
 * GA_LIKE_BYTES where it cannot (an unescaped `_').
 */
static int
like_bytes(Datum pattern)
{
	const char *p = VARDATA_ANY(DatumGetPointer(pattern));
	int			len = VARSIZE_ANY_EXHDR(DatumGetPointer(pattern)),
				n = 3;

	for (int i = 0; i < len; i++, n++)
	{
		if (p[i] == '_')
			return GA_LIKE_BYTES + 1;
		if (p[i] == '\\')
			i++;
	}
	return n;
}

/*
 * s LIKE ANY (ARRAY['%a%', 'b%']), s !~ ALL ('{...}'): LIKE, ILIKE, their
 * negations or a regular expression match of a text or varchar column (or
 * of a function of one, string_func_arg_ok) with each of a constant
 * array's patterns, at least one (no pattern answers even a NULL string):
 * a bool column the host computes per distinct string with
 * PostgreSQL's own ExecEvalScalarArrayOp (derived_column), or for a few
 * LIKE patterns the devices match, the OR or AND of their LIKEs; -1 with
 * nothing emitted (-2: failed).  Each pattern must be one whose use
 * raises no error: a LIKE pattern not ending in an escape, a regular
 * expression that compiles.
 */
static int
compile_string_saop(Compiler *c, ScalarArrayOpExpr *saop, int *type)
{
	Const	   *arr = lsecond(saop->args);
	Var		   *var = NULL;
	Datum	   *elems;
	bool	   *nulls;
	int			n,
				cflags = 0;
	bool		like = false;

	set_sa_opfuncid(saop);
	switch (saop->opfuncid)
	{
		case F_TEXTLIKE:
		case F_TEXTNLIKE:
		case F_TEXTICLIKE:
		case F_TEXTICNLIKE:
			like = true;
			break;
		case F_TEXTREGEXEQ:
		case F_TEXTREGEXNE:
			cflags = REG_ADVANCED;
			break;
		case F_TEXTICREGEXEQ:
		case F_TEXTICREGEXNE:
			cflags = REG_ADVANCED | REG_ICASE;
			break;
		default:
			return -1;
	}
	if (!IsA(arr, Const) || arr->constisnull ||
		get_element_type(arr->consttype) != TEXTOID || !deterministic(saop->inputcollid) ||
		!string_func_arg_ok(linitial(saop->args), &var) || var == NULL)
		return -1;
	deconstruct_array(DatumGetArrayTypeP(arr->constvalue), TEXTOID, -1, false,
					  TYPALIGN_INT, &elems, &nulls, &n);
	/* (no pattern answers even a NULL string, which a derived column cannot ask) */
	if (n == 0)
		return -1;
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
			continue;
		if (like ? GpuaggLikeEndsInEscape(elems[i]) :
			!regex_compiles((Expr *) makeConst(TEXTOID, -1, saop->inputcollid, -1, elems[i],
											   false, false),
							cflags, saop->inputcollid))
			return -1;
	}

	/*
	 * [NOT] LIKE of the column itself and a few patterns the devices match
	 * themselves in page form (compile_like: no `_', room for them): the
	 * OR (ANY) or AND (ALL) of its LIKEs (compile_string_pred), a column
	 * each, while the program has columns to spare; a NULL pattern's is
	 * NULL, as ExecEvalScalarArrayOp counts it
	 */
	if ((saop->opfuncid == F_TEXTLIKE || saop->opfuncid == F_TEXTNLIKE) &&
		string_column(linitial(saop->args)) != NULL && n <= 8 && device_chars() != 0 &&
		c->prog->ga.ncols + n <= GA_MAX_COLS / 2)
	{
		List	   *likes = NIL;
		int			room = GA_LIKE_BYTES - c->prog->nlikebytes,
					r;

		for (int i = 0; i < n; i++)
		{
			OpExpr	   *op;

			if (nulls[i])
			{
				likes = lappend(likes, makeBoolConst(false, true));
				continue;
			}
			if ((room -= like_bytes(elems[i])) < 0)
				break;
			op = (OpExpr *) make_opclause(saop->opno, BOOLOID, false,
										  copyObject(linitial(saop->args)),
										  (Expr *) makeConst(TEXTOID, -1, saop->inputcollid, -1,
															 elems[i], false, false),
										  InvalidOid, saop->inputcollid);
			op->opfuncid = saop->opfuncid;
			likes = lappend(likes, op);
		}
		if (list_length(likes) == n)
		{
			r = compile_bool_chain(c, likes, saop->useOr ? GA_OP_OR_STEP : GA_OP_AND_STEP,
								   !saop->useOr);
			*type = GA_T_BOOL;
			return r < 0 ? -2 : r;
		}
	}
	return derived_column(c, (Expr *) saop, var, GA_T_BOOL, type);
}

/*
 * substring(s FROM 1 FOR n), substr(s, 1, n) or left(s, n), n a constant
 * from 0 to GA_PREFIX_MAX, of a text or varchar column itself or of a
 * bpchar column cast to text: a string the devices code themselves, the
 * first n characters' bytes (GaColumn.prefix: n + 1), in a UTF-8
 * database or one of a single-byte encoding (*flags says which, and
 * whether the bpchar's trailing spaces go first); else 0 (the host's).
 */
static int
prefix_coded(Expr *expr, int32 *flags)
{
	FuncExpr   *f = (FuncExpr *) expr;
	Expr	   *arg;
	Const	   *from = NULL,
			   *n;
	bool		rtrim = false;

	*flags = 0;
	if (!IsA(expr, FuncExpr))
		return 0;
	if (f->funcid == F_LEFT && list_length(f->args) == 2)
		n = lsecond(f->args);
	else if ((f->funcid == F_SUBSTR_TEXT_INT4_INT4 || f->funcid == F_SUBSTRING_TEXT_INT4_INT4) &&
			 list_length(f->args) == 3 && IsA(lsecond(f->args), Const))
	{
		from = lsecond(f->args);
		n = lthird(f->args);
	}
	else
		return 0;
	if (!IsA(n, Const) || n->constisnull || DatumGetInt32(n->constvalue) < 0 ||
		DatumGetInt32(n->constvalue) > GA_PREFIX_MAX ||
		(from != NULL && (from->constisnull || DatumGetInt32(from->constvalue) != 1)))
		return 0;
	arg = linitial(f->args);
	while (IsA(arg, RelabelType))
		arg = ((RelabelType *) arg)->arg;
	/* char(n)::text, without trailing spaces */
	if (IsA(arg, FuncExpr) && ((FuncExpr *) arg)->funcid == F_TEXT_BPCHAR &&
		list_length(((FuncExpr *) arg)->args) == 1)
	{
		arg = linitial(((FuncExpr *) arg)->args);
		if (!IsA(arg, Var) || ((Var *) arg)->vartype != BPCHAROID)
			return 0;
		rtrim = true;
	}
	else if (string_column(arg) == NULL)
		return 0;
	if (device_chars() == 0)
		return 0;
	*flags = (rtrim ? GA_PREFIX_RTRIM : 0) |
		(device_chars() == GA_LENGTH_OCTETS ? GA_PREFIX_OCTETS : 0);
	return DatumGetInt32(n->constvalue) + 1;
}

/*
 * (program.h) The expression a group key the host maps has the devices
 * group by (GpuaggProgram.rekey_expr), or NULL: the key yields text and
 * is
 * - a function of one text or varchar column, of compile_string_func's
 *   forms, other than a prefix the devices code themselves: the column
 *   (ClickBench's regexp_replace of Referer);
 * - functions, operators and casts, not volatile, that cannot fail
 *   (mapping_cannot_fail) and whose arguments are constants but one, down
 *   to a value e of another type the devices group by, not a float
 *   (`to_char(order_date, 'YYYY-MM')`, `n::text`, `lpad(n::text, 2,
 *   '0')`): e, which the devices must then compile.
 * The host evaluates the key once per distinct value among the device's
 * groups, merging those it makes equal as grouping sets merge finer
 * groups, so the function runs as often as there are such values (on the
 * values native evaluates it on: the rows the WHERE keeps; and nothing on
 * the way may raise an error, which native would raise first), and the
 * scan may read pages however costly it is.  A stable function follows
 * the session's settings there, as natively in the same session.
 */
/* A type the devices group by before the host maps a key to text. */
static bool
inner_type(Oid t)
{
	/* (a float's text tells -0 from 0, which the devices group together) */
	if (t == TEXTOID || t == VARCHAROID || t == BPCHAROID || t == FLOAT4OID || t == FLOAT8OID)
		return false;
	return t == NUMERICOID || t == UUIDOID || GpuaggTypeOf(t) != GA_T_INVALID;
}

/*
 * May the host evaluate this node of a mapped key above its inner value?
 * Only what cannot raise an error for any value (native raises it for the
 * first row in scan order, the host after the scan): leakproof functions
 * and operators, output casts to text, and to_char, concat, ||, lower,
 * upper, initcap and lpad/rpad to a constant length of at most 1000.
 */
static bool
mapping_cannot_fail(Expr *e)
{
	List	   *args;
	Oid			collid;
	Oid			fn;

	if (IsA(e, CoerceViaIO))
		return ((CoerceViaIO *) e)->resulttype == TEXTOID ||
			((CoerceViaIO *) e)->resulttype == VARCHAROID;
	fn = call_parts(e, &args, &collid);
	switch (fn)
	{
		case F_TO_CHAR_TIMESTAMP_TEXT:
		case F_TO_CHAR_TIMESTAMPTZ_TEXT:
		case F_TO_CHAR_NUMERIC_TEXT:
		case F_TO_CHAR_INT4_TEXT:
		case F_TO_CHAR_INT8_TEXT:
		case F_TO_CHAR_FLOAT4_TEXT:
		case F_TO_CHAR_FLOAT8_TEXT:
		case F_TEXT_BOOL:
		case F_CONCAT:
		case F_TEXTCAT:
		case F_LOWER_TEXT:
		case F_UPPER_TEXT:
		case F_INITCAP:
			return true;
		case F_MD5_TEXT:
		case F_MD5_BYTEA:
			return false;		/* leakproof, but FIPS builds refuse it */
		case F_LPAD_TEXT_INT4_TEXT:
		case F_LPAD_TEXT_INT4:
		case F_RPAD_TEXT_INT4_TEXT:
		case F_RPAD_TEXT_INT4:
			return IsA(lsecond(args), Const) && !((Const *) lsecond(args))->constisnull &&
				DatumGetInt32(((Const *) lsecond(args))->constvalue) <= 1000;
		default:
			return get_func_leakproof(fn);
	}
}

Expr *
GpuaggRekeyInner(Expr *key)
{
	Var		   *var = NULL;
	int32		flags;
	Expr	   *e;

	while (IsA(key, RelabelType))
		key = ((RelabelType *) key)->arg;
	if (exprType((Node *) key) != TEXTOID && exprType((Node *) key) != VARCHAROID)
		return NULL;
	/* a string column's own functions: the column */
	if ((IsA(key, FuncExpr) || IsA(key, OpExpr)) && exprType((Node *) key) == TEXTOID &&
		string_func_arg_ok(key, &var) && var != NULL && string_column((Expr *) var) != NULL)
		return prefix_coded(key, &flags) > 0 ? NULL : (Expr *) var;
	if (contain_volatile_functions((Node *) key))
		return NULL;

	/*
	 * Down through functions, operators and casts of one argument that is
	 * not a constant (to_char(e, 'YYYY-MM'), e::text, lpad(e::text, 2,
	 * '0')) to the first value of a type the devices group by.
	 */
	e = key;
	for (;;)
	{
		List	   *args;
		Oid			collid;
		Expr	   *next = NULL;
		ListCell   *lc;

		while (IsA(e, RelabelType))
			e = ((RelabelType *) e)->arg;
		if (e != key && inner_type(exprType((Node *) e)))
			break;
		if ((!IsA(e, FuncExpr) && !IsA(e, OpExpr) && !IsA(e, CoerceViaIO)) ||
			!mapping_cannot_fail(e))
			return NULL;
		if (IsA(e, CoerceViaIO))
			args = list_make1(((CoerceViaIO *) e)->arg);
		else
			call_parts(e, &args, &collid);
		foreach(lc, args)
		{
			Expr	   *a = lfirst(lc);

			while (IsA(a, RelabelType))
				a = ((RelabelType *) a)->arg;
			if (IsA(a, Const))
				continue;
			if (next != NULL)
				return NULL;
			next = lfirst(lc);
		}
		if (next == NULL)
			return NULL;
		e = next;
	}

	/*
	 * (a cast that keeps values apart, as to_char(date) is to_char of the
	 * date as a timestamptz: the devices group by the date, not by an
	 * instant in the session's zone, which needs its zone's table; the
	 * host's cast then raises "date out of range for timestamp" for a date
	 * past 294276 AD, as native does, though perhaps not first)
	 */
	while (IsA(e, FuncExpr) && ((FuncExpr *) e)->funcformat == COERCE_IMPLICIT_CAST &&
		   list_length(((FuncExpr *) e)->args) == 1 &&
		   (((FuncExpr *) e)->funcid == F_TIMESTAMPTZ_DATE ||
			((FuncExpr *) e)->funcid == F_TIMESTAMP_DATE ||
			((FuncExpr *) e)->funcid == F_INT8_INT4 ||
			((FuncExpr *) e)->funcid == F_NUMERIC_INT4 ||
			((FuncExpr *) e)->funcid == F_NUMERIC_INT8))
		e = linitial(((FuncExpr *) e)->args);
	return e;
}

/*
 * GpuaggRekeyInner's expression of a key, unless an ordered-set aggregate
 * is beside it, whose rows the merge does not combine.
 */
static Expr *
rekey_inner(Expr *key, List *aggrefs)
{
	ListCell   *lc;

	foreach(lc, aggrefs)
		if (((Aggref *) lfirst(lc))->aggkind != AGGKIND_NORMAL)
			return NULL;
	return GpuaggRekeyInner(key);
}

/* The key with its inner expression (by pointer) replaced by Param $1. */
static Node *
inner_to_param(Node *node, void *inner)
{
	if (node == NULL)
		return NULL;
	if (node == inner)
	{
		Param	   *p = makeNode(Param);

		p->paramkind = PARAM_EXTERN;
		p->paramid = 1;
		p->paramtype = exprType(node);
		p->paramtypmod = exprTypmod(node);
		p->paramcollid = exprCollation(node);
		p->location = -1;
		return (Node *) p;
	}
	return expression_tree_mutator(node, inner_to_param, inner);
}

/*
 * length(), char_length() or octet_length() of a text or varchar column
 * itself: a length the devices count where the value lies in the page
 * (GaColumn.length), in bytes where text_length would (a single-byte
 * encoding), in characters in a UTF-8 database; else 0 (the host's).
 */
static int
length_counted(Expr *expr)
{
	FuncExpr   *f = (FuncExpr *) expr;

	if (!IsA(expr, FuncExpr) || list_length(f->args) != 1 ||
		string_column(linitial(f->args)) == NULL)
		return 0;
	switch (f->funcid)
	{
		case F_OCTET_LENGTH_TEXT:
			return GA_LENGTH_OCTETS;
		case F_TEXTLEN:
		case F_LENGTH_TEXT:
		case F_CHAR_LENGTH_TEXT:
		case F_CHARACTER_LENGTH_TEXT:
			return device_chars();
		default:
			return 0;
	}
}

/*
 * timestamp +/- interval and date +/- interval (a timestamp), the interval
 * a constant: its parts go to two constants the instruction reads
 * (GA_OP_TS_PL_INTERVAL); minus adds the negated interval, as
 * timestamp_mi_interval does.  timestamptz +/- an interval of hours,
 * minutes and seconds only is the same sum of microseconds
 * (timestamptz_pl_interval adds months and days in the session's time
 * zone, the time part as timestamp_pl_interval does).
 */
static int
compile_pl_interval(Compiler *c, Oid funcid, List *args, int *type)
{
	Const	   *k = lsecond(args);
	bool		minus = funcid == F_TIMESTAMP_MI_INTERVAL || funcid == F_DATE_MI_INTERVAL ||
		funcid == F_TIMESTAMPTZ_MI_INTERVAL;
	bool		of_date = funcid == F_DATE_PL_INTERVAL || funcid == F_DATE_MI_INTERVAL;
	bool		tz = funcid == F_TIMESTAMPTZ_PL_INTERVAL || funcid == F_TIMESTAMPTZ_MI_INTERVAL;
	const char *what = of_date ? "date" : tz ? "timestamptz" : "timestamp";
	Interval   *span;
	int64		usecs;
	int32		months,
				days;
	GaDatum		v = {0};
	int			r,
				t,
				at;

	if (!IsA(k, Const) || k->consttype != INTERVALOID)
		return fail(c, "%s +/- an interval that is not a constant", what), -1;
	if (k->constisnull)
		return fail(c, "%s +/- a NULL interval", what), -1;
	span = DatumGetIntervalP(k->constvalue);
	usecs = span->time;
	months = span->month;
	days = span->day;
	if (tz && (months != 0 || days != 0))
		return fail(c, "timestamptz +/- an interval of days or months (added in the session's time zone)"), -1;
	if (minus && (usecs == PG_INT64_MIN || months == PG_INT32_MIN || days == PG_INT32_MIN))
		return fail(c, "minus an interval that cannot be negated"), -1;
	if (minus)
	{
		usecs = -usecs;
		months = -months;
		days = -days;
	}
	r = compile_expr(c, linitial(args), &t);
	if (r < 0)
		return -1;
	if (t != (of_date ? GA_T_DATE : tz ? GA_T_TIMESTAMPTZ : GA_T_TIMESTAMP))
		return fail(c, "an interval added to an unexpected type"), -1;
	v.i = usecs;
	at = add_const(c, v, false);
	v.u = ((uint64) (uint32) months << 32) | (uint32) days;
	if (at < 0 || add_const(c, v, false) < 0 ||
		emit(c, GA_OP_TS_PL_INTERVAL, tz ? GA_T_TIMESTAMPTZ : GA_T_TIMESTAMP, r, r,
			 of_date ? 1 : 0, at) < 0)
		return -1;
	*type = tz ? GA_T_TIMESTAMPTZ : GA_T_TIMESTAMP;
	return r;
}

static int
compile_opexpr(Compiler *c, Oid opno, Oid opfuncid, Oid inputcollid,
			   Oid restype, List *args, int *type)
{
	char	   *name;

	if (opno >= FirstGenbkiObjectId || opfuncid >= FirstGenbkiObjectId)
		return fail(c, "operator %u is not built in", opno), -1;
	name = get_opname(opno);
	if (name == NULL)
		return fail(c, "operator %u not found", opno), -1;
	return compile_named_op(c, name, opfuncid, inputcollid, restype, args, type);
}

/*
 * A built-in operator by its name and function (compile_opexpr's, or
 * mod()'s: "%" and the function mod()).
 */
static int
compile_named_op(Compiler *c, const char *name, Oid opfuncid, Oid inputcollid, Oid restype,
				 List *args, int *type)
{
	int			op,
				rtype = GpuaggTypeOf(restype),
				lt,
				rt,
				ra,
				rb;
	/* (uuid = and <>: byte equality, as string codes) */
	bool		uuid_eq = opfuncid == F_UUID_EQ || opfuncid == F_UUID_NE;

	if (restype == NUMERICOID || exprType(linitial(args)) == NUMERICOID)
		return compile_numeric_op(c, name, restype, args, type);

	if (list_length(args) == 1)
	{
		ra = compile_expr(c, linitial(args), &lt);
		if (ra < 0)
			return -1;
		if (strcmp(name, "-") == 0 && lt == rtype &&
			(is_int_type(lt) || ga_type_is_float(lt)))
			op = GA_OP_NEG;
		else if (strcmp(name, "+") == 0 && lt == rtype &&
				 (is_int_type(lt) || ga_type_is_float(lt)))
			op = GA_OP_MOVE;
		else
			return fail(c, "unsupported operator %s on %s", name,
						format_type_be(exprType(linitial(args)))), -1;
		if (emit(c, op, rtype, ra, ra, 0, 0) < 0)
			return -1;
		*type = rtype;
		return ra;
	}
	if (list_length(args) != 2)
		return fail(c, "unsupported operator %s", name), -1;

	/* = '' and <> '': a length the devices count (a column of its own) */
	if (c->prog->npreds < GA_MAX_COLS && c->prog->ga.ncols < GA_MAX_COLS)
	{
		Expr	   *test = empty_string_test(opfuncid, inputcollid, args);

		if (test != NULL)
			return compile_expr(c, test, type);
	}

	/* LIKE on a string column: a bool column the host computes */
	ra = compile_string_pred(c, opfuncid, inputcollid, args);
	if (ra != -1)
	{
		*type = GA_T_BOOL;
		return ra < 0 ? -1 : ra;
	}

	if (opfuncid == F_TIMESTAMP_PL_INTERVAL || opfuncid == F_TIMESTAMP_MI_INTERVAL ||
		opfuncid == F_DATE_PL_INTERVAL || opfuncid == F_DATE_MI_INTERVAL ||
		opfuncid == F_TIMESTAMPTZ_PL_INTERVAL || opfuncid == F_TIMESTAMPTZ_MI_INTERVAL)
		return compile_pl_interval(c, opfuncid, args, type);
	if (opfuncid == F_INTERVAL_EQ || opfuncid == F_INTERVAL_NE || opfuncid == F_INTERVAL_LT ||
		opfuncid == F_INTERVAL_LE || opfuncid == F_INTERVAL_GT || opfuncid == F_INTERVAL_GE)
		return compile_span_cmp(c, name, args, type);

	c->uuid_ok = uuid_eq;
	ra = compile_expr(c, linitial(args), &lt);
	if (ra < 0)
		return -1;
	c->uuid_ok = uuid_eq;
	rb = compile_expr(c, lsecond(args), &rt);
	if (rb < 0)
		return -1;

	if ((op = comparison_op(name)) != 0 && rtype == GA_T_BOOL &&
		((lt == GA_T_DATE && rt == GA_T_TIMESTAMP) ||
		 (lt == GA_T_TIMESTAMP && rt == GA_T_DATE)))
	{
		/* date vs timestamp: the date as a timestamp, as date_cmp_timestamp */
		int			rd = (lt == GA_T_DATE) ? ra : rb;

		if (emit(c, GA_OP_CAST, GA_T_TIMESTAMP, rd, rd, GA_T_DATE, 0) < 0 ||
			emit(c, op, GA_T_INT8, ra, ra, rb, 0) < 0)
			return -1;
		c->nextreg = ra + 1;
		*type = GA_T_BOOL;
		return ra;
	}
	if (op != 0 && rtype == GA_T_BOOL &&
		((lt == GA_T_TIMESTAMPTZ && (rt == GA_T_DATE || rt == GA_T_TIMESTAMP)) ||
		 (rt == GA_T_TIMESTAMPTZ && (lt == GA_T_DATE || lt == GA_T_TIMESTAMP))))
	{
		/*
		 * date or timestamp vs timestamptz: the other side as a timestamptz
		 * in the session's time zone, past whose range it sorts, as
		 * date_cmp_timestamptz and timestamp_cmp_timestamptz
		 */
		int			ro = (lt == GA_T_TIMESTAMPTZ) ? rb : ra,
					from = (lt == GA_T_TIMESTAMPTZ) ? rt : lt;

		if (!session_zone(c, psprintf("comparison of timestamptz with %s",
									  from == GA_T_DATE ? "date" : "timestamp")) ||
			emit(c, GA_OP_CAST, GA_T_TIMESTAMPTZ, ro, ro, from, 2) < 0 ||
			emit(c, op, GA_T_INT8, ra, ra, rb, 0) < 0)
			return -1;
		c->nextreg = ra + 1;
		*type = GA_T_BOOL;
		return ra;
	}
	if (op != 0 && (lt == GA_T_TEXT || rt == GA_T_TEXT))
	{
		/* strings: = and <> only, on their dictionary codes */
		if (rtype != GA_T_BOOL || lt != rt || !is_string_eq_func(opfuncid))
			return fail(c, "unsupported comparison %s between %s and %s", name,
						format_type_be(exprType(linitial(args))),
						format_type_be(exprType(lsecond(args)))), -1;
		if (!check_collation(c, inputcollid, "string comparison") ||
			emit(c, op, GA_T_TEXT, ra, ra, rb, 0) < 0)
			return -1;
		c->nextreg = ra + 1;
		*type = GA_T_BOOL;
		return ra;
	}
	if (op != 0)
	{
		if (rtype != GA_T_BOOL || !comparable(lt, rt))
			return fail(c, "unsupported comparison %s between %s and %s", name,
						format_type_be(exprType(linitial(args))),
						format_type_be(exprType(lsecond(args)))), -1;
		if (emit(c, op, ga_type_is_float(lt) ? GA_T_FLOAT8 : GA_T_INT8,
				 ra, ra, rb, 0) < 0)
			return -1;
		c->nextreg = ra + 1;
		*type = GA_T_BOOL;
		return ra;
	}

	op = arith_op(name);
	if (op != 0 && rtype == GA_T_DATE)
	{
		/* date + int4, int4 + date, date - int4 */
		if (op == GA_OP_ADD && lt == GA_T_DATE && rt == GA_T_INT4)
			op = GA_OP_DATE_PLI;
		else if (op == GA_OP_ADD && lt == GA_T_INT4 && rt == GA_T_DATE)
		{
			int			tmp = ra;

			ra = rb;
			rb = tmp;
			op = GA_OP_DATE_PLI;
		}
		else if (op == GA_OP_SUB && lt == GA_T_DATE && rt == GA_T_INT4)
			op = GA_OP_DATE_MII;
		else
			op = 0;
	}
	else if (op == GA_OP_SUB && lt == GA_T_DATE && rt == GA_T_DATE &&
			 rtype == GA_T_INT4)
		op = GA_OP_DATE_MI;
	else if (op != 0 && is_int_type(rtype) && is_int_type(lt) && is_int_type(rt))
		 /* integer arithmetic, checked against the result type */ ;
	else if (op != 0 && op != GA_OP_MOD && ga_type_is_float(rtype) &&
			 ga_type_is_float(lt) && ga_type_is_float(rt))
		 /* float4 op float4 is single precision; anything with float8 double */ ;
	else
		op = 0;
	if (op == 0)
		return fail(c, "unsupported operator %s between %s and %s", name,
					format_type_be(exprType(linitial(args))),
					format_type_be(exprType(lsecond(args)))), -1;
	{
		int			dst = Min(ra, rb);

		if (emit(c, op, rtype, dst, ra, rb, 0) < 0)
			return -1;
		c->nextreg = dst + 1;
		*type = rtype;
		return dst;
	}
}

/* Built-in casts among the supported types: (function, from, to). */
static const struct
{
	Oid			funcid;
	int			from;
	int			to;
}			casts[] =
{
	{F_INT4_INT2, GA_T_INT2, GA_T_INT4},
	{F_INT8_INT2, GA_T_INT2, GA_T_INT8},
	{F_INT2_INT4, GA_T_INT4, GA_T_INT2},
	{F_INT8_INT4, GA_T_INT4, GA_T_INT8},
	{F_INT2_INT8, GA_T_INT8, GA_T_INT2},
	{F_INT4_INT8, GA_T_INT8, GA_T_INT4},
	{F_FLOAT4_INT2, GA_T_INT2, GA_T_FLOAT4},
	{F_FLOAT8_INT2, GA_T_INT2, GA_T_FLOAT8},
	{F_FLOAT4_INT4, GA_T_INT4, GA_T_FLOAT4},
	{F_FLOAT8_INT4, GA_T_INT4, GA_T_FLOAT8},
	{F_FLOAT4_INT8, GA_T_INT8, GA_T_FLOAT4},
	{F_FLOAT8_INT8, GA_T_INT8, GA_T_FLOAT8},
	{F_INT2_FLOAT4, GA_T_FLOAT4, GA_T_INT2},
	{F_INT4_FLOAT4, GA_T_FLOAT4, GA_T_INT4},
	{F_INT8_FLOAT4, GA_T_FLOAT4, GA_T_INT8},
	{F_INT2_FLOAT8, GA_T_FLOAT8, GA_T_INT2},
	{F_INT4_FLOAT8, GA_T_FLOAT8, GA_T_INT4},
	{F_INT8_FLOAT8, GA_T_FLOAT8, GA_T_INT8},
	{F_FLOAT8_FLOAT4, GA_T_FLOAT4, GA_T_FLOAT8},
	{F_FLOAT4_FLOAT8, GA_T_FLOAT8, GA_T_FLOAT4},
};

/*
 * A function call as a fallback reason says it in SQL words: a cast from
 * one type to another, or the function with its argument types.
 */
static const char *
func_words(FuncExpr *f)
{
	/* (a length coercion, char(n) or varchar(n), has its typmod and more) */
	if ((f->funcformat == COERCE_EXPLICIT_CAST || f->funcformat == COERCE_IMPLICIT_CAST) &&
		list_length(f->args) >= 1)
		return psprintf("cast from %s to %s", format_type_be(exprType(linitial(f->args))),
						format_type_with_typemod(f->funcresulttype, exprTypmod((Node *) f)));
	return psprintf("function %s", format_procedure(f->funcid));
}

/* An expression the device cannot evaluate, named as SQL writes it. */
static const char *
expression_words(Node *expr)
{
	switch (nodeTag(expr))
	{
		case T_CaseExpr:
			return "CASE";
		case T_CoalesceExpr:
			return "COALESCE";
		case T_NullIfExpr:
			return "NULLIF";
		case T_DistinctExpr:
			return "IS DISTINCT FROM";
		case T_MinMaxExpr:
			return ((MinMaxExpr *) expr)->op == IS_GREATEST ? "GREATEST" : "LEAST";
		case T_SQLValueFunction:
			switch (((SQLValueFunction *) expr)->op)
			{
				case SVFOP_CURRENT_DATE:
					return "current_date";
				case SVFOP_CURRENT_TIME:
				case SVFOP_CURRENT_TIME_N:
					return "current_time";
				case SVFOP_CURRENT_TIMESTAMP:
				case SVFOP_CURRENT_TIMESTAMP_N:
					return "current_timestamp";
				case SVFOP_LOCALTIME:
				case SVFOP_LOCALTIME_N:
					return "localtime";
				case SVFOP_LOCALTIMESTAMP:
				case SVFOP_LOCALTIMESTAMP_N:
					return "localtimestamp";
				default:
					return "a session value (current_user, current_schema, ...)";
			}
		case T_SubLink:
		case T_SubPlan:
		case T_AlternativeSubPlan:
			return "a subquery";
		case T_ArrayExpr:
			return "ARRAY[...]";
		case T_RowExpr:
			return "ROW(...)";
		case T_RowCompareExpr:
			return "a row comparison";
		case T_CoerceViaIO:
			return psprintf("cast from %s to %s",
							format_type_be(exprType((Node *) ((CoerceViaIO *) expr)->arg)),
							format_type_be(((CoerceViaIO *) expr)->resulttype));
		case T_ArrayCoerceExpr:
			return psprintf("cast to %s", format_type_be(((ArrayCoerceExpr *) expr)->resulttype));
		case T_CoerceToDomain:
			return psprintf("domain %s", format_type_be(((CoerceToDomain *) expr)->resulttype));
		case T_ConvertRowtypeExpr:
			return "a row type conversion";
		case T_CollateExpr:
			return "COLLATE";
		case T_FieldSelect:
			return "a field of a composite value";
		case T_SubscriptingRef:
			return "a subscript";
		case T_XmlExpr:
			return "an XML function";
		case T_NextValueExpr:
			return "nextval";
		case T_WindowFunc:
			return "a window function";
		case T_GroupingFunc:
			return "GROUPING()";
		case T_FuncExpr:
			return func_words((FuncExpr *) expr);
		default:
			{
				/* its node's name as outfuncs writes it ({CURRENTOFEXPR ...) */
				char	   *name = nodeToString(expr);
				size_t		n;

				if (*name == '{')
					name++;
				n = strcspn(name, " }");
				name[n] = '\0';
				return psprintf("an expression of kind %s", asc_tolower(name, n));
			}
	}
}

/*
 * The unit or field argument of date_trunc, extract and date_part, when it
 * is a constant: lower-cased as their functions read it before DecodeUnits;
 * else NULL.
 */
static char *
const_units(Node *arg)
{
	Const	   *u = (Const *) arg;

	if (!IsA(u, Const) || u->constisnull)
		return NULL;
	return downcase_truncate_identifier(TextDatumGetCString(u->constvalue),
										VARSIZE_ANY_EXHDR(DatumGetPointer(u->constvalue)),
										false);
}

/* instants as GaZone holds them: microseconds since 2000-01-01 UTC */
static int64
zone_usecs(pg_time_t t)
{
	return ((int64) t - (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY) *
		USECS_PER_SEC;
}

/* a zone of one offset (seconds east): every instant, every local time */
static bool
zone_fixed(GaZone *z, long off)
{
	z->n = 0;
	z->complete = true;
	z->off0 = z->beyond = (int32) off;
	z->lo = z->local_from = PG_INT64_MIN;
	z->hi = PG_INT64_MAX;
	return true;
}

/*
 * The transitions of zone tz, as pg_next_dst_boundary lists them (the
 * function DetermineTimeZoneOffset asks), from the start of the timestamp
 * range (4714 BC: a zone file's first transition, the end of local mean
 * time, is in the 19th century), or from 1850 where the first one found
 * is before 1800 (a zone of a POSIX rule only, whose table PostgreSQL
 * starts in 1770 and extrapolates backwards), and
 * where they answer as the server would.  A zone of one offset answers for
 * every instant.  Otherwise:
 *
 * - an instant's offset (pg_localtime, for timestamp2tm) from the search's
 *   start if pg_localtime agrees with the search's offset before the first
 *   transition (at both ends), else from the first transition (before the
 *   zone's first transition ever, the search reports its first standard
 *   type, pg_localtime its default one).  Past the tz data's last
 *   transition both functions extrapolate the zone's rule, so a zone with
 *   daylight saving fills the table (GA_MAX_TZ) and the window ends at its
 *   last transition; a zone whose table is whole ends it there too unless
 *   probes of pg_localtime past it, near and far, all find its last offset.
 * - a local time's offset (DetermineTimeZoneOffset) once a day before it
 *   is past the search's start: the offset before the first transition is
 *   that search's.  Past the last transition, the boundary search's own
 *   answer, when the table is whole.
 *
 * Out of the window, a row takes the exact path (GA_ERR_TZ_WINDOW).
 */
static bool
zone_table(GaZone *z, pg_tz *tz)
{
	pg_time_t	from = -210866803200;	/* 4714-11-24 00:00 UTC BC */
	pg_time_t	t = from,
				boundary = 0,
				first;
	long		before,
				after,
				last;
	int			before_dst,
				after_dst,
				res;
	bool		steady = true;

	/* one offset, ever (UTC, 'Etc/GMT+5', '+05:30'): every instant */
	if (pg_get_timezone_offset(tz, &before))
		return zone_fixed(z, before);
	z->n = 0;
	res = pg_next_dst_boundary(&t, &before, &before_dst, &boundary, &after, &after_dst,
							   tz);
	if (res == 1 && boundary < -5364662400)	/* 1800-01-01 */
	{
		/* a rule extrapolated backwards: from 1850 on only */
		from = t = -3786825600;		/* 1850-01-01 00:00 UTC */
		res = pg_next_dst_boundary(&t, &before, &before_dst, &boundary, &after, &after_dst,
								   tz);
	}
	z->off0 = (int32) before;
	first = boundary;
	while (res == 1 && z->n < GA_MAX_TZ)
	{
		z->at[z->n] = zone_usecs(boundary);
		z->off[z->n++] = (int32) after;
		t = boundary;			/* the next one is after it */
		res = pg_next_dst_boundary(&t, &before, &before_dst, &boundary, &after, &after_dst,
								   tz);
	}
	if (res < 0)
		return false;
	z->complete = res == 0;
	z->beyond = (int32) before;
	z->local_from = zone_usecs(from);
	last = z->n > 0 ? z->off[z->n - 1] : z->beyond;
	/* before the first transition: the search's offset, if pg_localtime's */
	z->lo = z->local_from;
	if (z->n > 0)
	{
		pg_time_t	before_first = first - 1;
		struct pg_tm *tm = pg_localtime(&from, tz);

		if (tm == NULL || tm->tm_gmtoff != z->off0 ||
			(tm = pg_localtime(&before_first, tz)) == NULL ||
			tm->tm_gmtoff != z->off0)
			z->lo = z->at[0];
	}
	/* is the future of one offset, the last? */
	for (int i = 1; i <= 36 + 3 && steady; i++)
	{
		pg_time_t	probe = i <= 36 ? t + (pg_time_t) i * 15 * SECS_PER_DAY :
			(pg_time_t) (i - 36) * 100 * 365 * SECS_PER_DAY;	/* 2069, 2169, 2269 */
		struct pg_tm *tm = pg_localtime(&probe, tz);

		steady = tm != NULL && tm->tm_gmtoff == last && last == z->beyond;
	}
	z->hi = z->complete && steady ? PG_INT64_MAX : z->n > 0 ? z->at[z->n - 1] : z->lo;
	return z->hi > z->lo;
}

/*
 * zone_table's last answer.  A zone's table depends on the zone alone, and
 * a backend's pg_tz structs live as long as it does (pg_tzset's cache), so
 * the planner's check and every (re)scan of a scan that reads one zone
 * list its transitions once.
 */
static pg_tz *listed_tz;
static bool listed_ok;
static GaZone listed;

/* (program.h) */
bool
GpuaggZoneLoad(const GpuaggProgram *prog, GaZone *z)
{
	pg_tz	   *tz = prog->zone_tz ? prog->zone_tz : session_timezone;

	if (prog->zone_fixed)
		return zone_fixed(z, prog->zone_offset);
	if (tz == NULL)
		return false;
	if (tz != listed_tz)
	{
		listed_ok = zone_table(&listed, tz);
		listed_tz = tz;
	}
	if (listed_ok)
		memcpy(z, &listed, sizeof(GaZone));
	return listed_ok;
}

/* (program.h) the name of the zone whose table GpuaggZoneLoad lists */
const char *
GpuaggZoneName(const GpuaggProgram *prog)
{
	return pg_get_timezone_name(prog->zone_tz ? prog->zone_tz : session_timezone);
}

/*
 * The program reads the session's time zone (tz and fixed unset) or the
 * zone AT TIME ZONE names (tz, or fixed: an abbreviation of offset
 * seconds east), for what (a timestamptz function): its transitions go to
 * the devices with the scan constants (GpuaggLoadParams), so that
 * compiling does not depend on the session's zone.  A program reads one
 * zone.
 */
static bool
read_zone(Compiler *c, const char *what, pg_tz *tz, bool fixed, int offset)
{
	GpuaggProgram *prog = c->prog;

	if (!prog->uses_zone)
	{
		prog->uses_zone = true;
		prog->zone_tz = tz;
		prog->zone_fixed = fixed;
		prog->zone_offset = offset;
		prog->tz_what = what;
		return true;
	}
	if (prog->zone_tz == tz && prog->zone_fixed == fixed &&
		(!fixed || prog->zone_offset == offset))
		return true;
	return fail(c, "%s and %s in another time zone", prog->tz_what, what), false;
}

/*
 * timestamptz AT TIME ZONE 'zone' (timestamptz_zone: the zone's local
 * time) and timestamp AT TIME ZONE 'zone' (timestamp_zone: that local
 * time's instant), the zone a constant read as they read it: an
 * abbreviation of one offset ('UTC', 'EST'), else a zone name.  The
 * session's time zone casts compute these in another zone.  A dynamic
 * abbreviation, a name no zone has, or a zone not a constant stays native.
 */
static int
compile_at_time_zone(Compiler *c, FuncExpr *f, int *type)
{
	Const	   *zone = linitial(f->args);
	bool		of_tz = f->funcid == F_TIMEZONE_TEXT_TIMESTAMPTZ;
	char	   *name,
			   *lower;
	int			kind,
				offset = 0,
				t,
				r;
	bool		fixed;
	pg_tz	   *tz = NULL;

	if (!IsA(zone, Const) || zone->constisnull)
		return fail(c, "AT TIME ZONE with a zone that is not a constant"), -1;
	name = TextDatumGetCString(zone->constvalue);
	if (strlen(name) > TZ_STRLEN_MAX)
		return fail(c, "AT TIME ZONE with a zone name too long"), -1;
	lower = downcase_truncate_identifier(name, strlen(name), false);
	kind = DecodeTimezoneAbbrev(0, lower, &offset, &tz);
	if (kind == DYNTZ)
		return fail(c, "AT TIME ZONE '%s' (an abbreviation whose offset changed)", name), -1;
	/* (a fixed abbreviation leaves tz NULL) */
	fixed = kind == TZ || kind == DTZ;
	if (!fixed && (tz = pg_tzset(name)) == NULL)
		return fail(c, "AT TIME ZONE '%s' (no such zone)", name), -1;
	r = compile_expr(c, lsecond(f->args), &t);
	if (r < 0)
		return -1;
	if (t != (of_tz ? GA_T_TIMESTAMPTZ : GA_T_TIMESTAMP))
		return fail(c, "AT TIME ZONE of an unexpected type"), -1;
	if (!read_zone(c, psprintf("AT TIME ZONE '%s'", name), tz, fixed, offset))
		return -1;
	*type = of_tz ? GA_T_TIMESTAMP : GA_T_TIMESTAMPTZ;
	if (emit(c, GA_OP_CAST, *type, r, r, t, 0) < 0)
		return -1;
	return r;
}

/* date_trunc's unit as DecodeUnits reads it (DTK_*): GA_TRUNC_*, or -1 */
static int
trunc_unit(int val)
{
	switch (val)
	{
		case DTK_MICROSEC:
			return GA_TRUNC_MICROSECONDS;
		case DTK_MILLISEC:
			return GA_TRUNC_MILLISECONDS;
		case DTK_SECOND:
			return GA_TRUNC_SECOND;
		case DTK_MINUTE:
			return GA_TRUNC_MINUTE;
		case DTK_HOUR:
			return GA_TRUNC_HOUR;
		case DTK_DAY:
			return GA_TRUNC_DAY;
		case DTK_WEEK:
			return GA_TRUNC_WEEK;
		case DTK_MONTH:
			return GA_TRUNC_MONTH;
		case DTK_QUARTER:
			return GA_TRUNC_QUARTER;
		case DTK_YEAR:
			return GA_TRUNC_YEAR;
		case DTK_DECADE:
			return GA_TRUNC_DECADE;
		case DTK_CENTURY:
			return GA_TRUNC_CENTURY;
		case DTK_MILLENNIUM:
			return GA_TRUNC_MILLENNIUM;
		default:
			return -1;
	}
}

/*
 * date_trunc(unit, ts) on a timestamp without time zone, or on a
 * timestamptz in the session's time zone (truncated in its local time, as
 * timestamptz_trunc: session_zone), the unit a constant read as
 * timestamp_trunc reads it (DecodeUnits); the units from microseconds to
 * millennium.  Others stay native.
 */
static int
compile_date_trunc(Compiler *c, FuncExpr *f, int *type)
{
	char	   *units = const_units(linitial(f->args));
	int			val,
				unit,
				t,
				r;

	if (units == NULL)
		return fail(c, "date_trunc with a unit that is not a constant"), -1;
	if (DecodeUnits(0, units, &val) != UNITS || (unit = trunc_unit(val)) < 0)
		return fail(c, "date_trunc('%s')", units), -1;
	r = compile_expr(c, lsecond(f->args), &t);
	if (r < 0)
		return -1;
	if (t != GA_T_TIMESTAMP && t != GA_T_TIMESTAMPTZ)
		return fail(c, "date_trunc of an unexpected type"), -1;
	/* b: 0, or 1 a timestamptz */
	if (t == GA_T_TIMESTAMPTZ && !session_zone(c, "date_trunc of timestamptz"))
		return -1;
	if (emit(c, GA_OP_TS_TRUNC, t, r, r, t == GA_T_TIMESTAMPTZ, unit) < 0)
		return -1;
	*type = t;
	return r;
}

/*
 * An interval that is the difference of two timestamps (timestamp_mi,
 * timestamptz_mi): never any months, its days and time of day
 * interval_justify_hours' of its microseconds, which the register holds
 * (an int8), and which are also interval_cmp's value of it.  Only where
 * such an interval is read: aggregated (min, max, sum, avg, count) or as
 * extract(epoch from ...).  An infinite timestamp raises timestamp_mi's
 * error; a difference past int64 wraps, as natively.  Or, where part is
 * GA_IV_SPAN (compared) or GA_IV_EPOCH (extract's epoch), an interval
 * column's such microseconds (interval_column; its sum and average:
 * compile_interval_sum).
 */
static int
compile_span(Compiler *c, Expr *expr, int part)
{
	OpExpr	   *op = (OpExpr *) expr;
	int			ra,
				rb,
				lt,
				rt;

	/* (a domain over interval) */
	while (IsA(expr, RelabelType))
		expr = ((RelabelType *) expr)->arg;
	op = (OpExpr *) expr;
	if (IsA(expr, Var) && part != GA_IV_NONE)
		return interval_column(c, (Var *) expr, part);
	if (IsA(expr, Var))
		return fail(c, "an interval column other than compared, counted, summed, averaged, tested for NULL or its extract(epoch)"), -1;
	if (IsA(expr, FuncExpr))
		return fail(c, "%s() returning an interval (of intervals, only a difference of two timestamps)",
					get_func_name(((FuncExpr *) expr)->funcid)), -1;
	if (!IsA(expr, OpExpr) || list_length(op->args) != 2)
		return fail(c, "an interval other than a column or the difference of two timestamps"), -1;
	set_opfuncid(op);
	if (op->opfuncid != F_TIMESTAMP_MI && op->opfuncid != F_TIMESTAMPTZ_MI)
		return fail(c, "an interval other than a column or the difference of two timestamps"), -1;
	ra = compile_expr(c, linitial(op->args), &lt);
	if (ra < 0)
		return -1;
	rb = compile_expr(c, lsecond(op->args), &rt);
	if (rb < 0)
		return -1;
	if (lt != rt || (lt != GA_T_TIMESTAMP && lt != GA_T_TIMESTAMPTZ))
		return fail(c, "a difference of timestamps of an unexpected type"), -1;
	if (emit(c, GA_OP_DATE_MI, GA_T_INT8, ra, ra, rb, 1) < 0)
		return -1;
	c->nextreg = ra + 1;
	return ra;
}

/* Is expr age(t1, t2) of two timestamps or two timestamptzs? */
static bool
is_age(Expr *expr)
{
	return IsA(expr, FuncExpr) && list_length(((FuncExpr *) expr)->args) == 2 &&
		(((FuncExpr *) expr)->funcid == F_AGE_TIMESTAMP_TIMESTAMP ||
		 ((FuncExpr *) expr)->funcid == F_AGE_TIMESTAMPTZ_TIMESTAMPTZ);
}

/*
 * age(t1, t2) (and age(t), which the planner inlines as
 * age(current_date, t)): an interval of years, months and days through
 * the calendar (timestamp_age; timestamptz_age in the session's time
 * zone), which the devices compute where it is read: what (GA_AGE_CMP)
 * its interval_cmp value, to compare it with a constant, or a
 * GaPartField of it in extract (numeric) or date_part (float8), of type
 * type.
 */
static int
compile_age(Compiler *c, FuncExpr *f, int what, int type)
{
	bool		tz = f->funcid == F_AGE_TIMESTAMPTZ_TIMESTAMPTZ;
	int			ra,
				rb,
				lt,
				rt;

	ra = compile_expr(c, linitial(f->args), &lt);
	if (ra < 0)
		return -1;
	rb = compile_expr(c, lsecond(f->args), &rt);
	if (rb < 0)
		return -1;
	if (lt != rt || lt != (tz ? GA_T_TIMESTAMPTZ : GA_T_TIMESTAMP))
		return fail(c, "age() of an unexpected type"), -1;
	if (tz && !session_zone(c, "age() of timestamptz"))
		return -1;
	if (emit(c, GA_OP_AGE, type, ra, ra, rb, what | (tz ? GA_AGE_TZ : 0)) < 0)
		return -1;
	c->nextreg = ra + 1;
	return ra;
}

/*
 * =, <>, <, <=, > or >= of two intervals, each a difference of timestamps
 * (compile_span) or a constant, or age() and a constant: by
 * interval_cmp's value, a month as 30 days, which a difference's
 * microseconds are (a constant past int64 stays native; compared with an
 * age, whose value the device holds at int64's ends, one at them too).
 */
static int
compile_span_cmp(Compiler *c, const char *name, List *args, int *type)
{
	int			op = comparison_op(name),
				r[2];
	bool		age = is_age(linitial(args)) || is_age(lsecond(args));

	if (op == 0)
		return fail(c, "unsupported interval operator %s", name), -1;
	for (int i = 0; i < 2; i++)
	{
		Expr	   *e = list_nth(args, i);

		if (IsA(e, Const) && !((Const *) e)->constisnull)
		{
			Interval   *iv = DatumGetIntervalP(((Const *) e)->constvalue);
			int128		v = ((int128) iv->month * DAYS_PER_MONTH + iv->day) * USECS_PER_DAY +
				iv->time;

			if (v < PG_INT64_MIN || v > PG_INT64_MAX ||
				(age && (v == PG_INT64_MIN || v == PG_INT64_MAX)))
				return fail(c, "an interval constant of 292000 years or more compared"), -1;
			r[i] = emit_const(c, Int64GetDatum((int64) v), false, GA_T_INT8);
		}
		else if (IsA(e, Const))
			r[i] = emit_const(c, (Datum) 0, true, GA_T_INT8);
		else if (is_age(e))
		{
			if (!IsA(list_nth(args, 1 - i), Const))
				return fail(c, "age() compared with other than a constant interval"), -1;
			r[i] = compile_age(c, (FuncExpr *) e, GA_AGE_CMP, GA_T_INT8);
		}
		else
			r[i] = compile_span(c, e, GA_IV_SPAN);
		if (r[i] < 0)
			return -1;
	}
	if (emit(c, op, GA_T_INT8, r[0], r[0], r[1], 0) < 0)
		return -1;
	c->nextreg = r[0] + 1;
	*type = GA_T_BOOL;
	return r[0];
}

/*
 * extract(field FROM ts) (numeric), extract(field FROM date) (numeric) and
 * date_part(field, ts) (float8), the field a constant read as
 * timestamp_part_common reads it (DecodeUnits, then DecodeSpecial for
 * epoch); of a timestamptz also timezone, timezone_hour, timezone_minute
 * (its UTC offset in the session's zone).  julian of a timestamp (a
 * fraction of a day) stays native; so does a field PostgreSQL rejects,
 * which raises its error there.  (date_part of a date is of the
 * date::timestamp the parser puts in: compile_func.)  Of an interval:
 * extract's epoch of a difference of timestamps, and extract's and
 * date_part's fields microseconds .. millennium of age(), as
 * interval_part_common reads them.
 */
static int
compile_date_part(Compiler *c, FuncExpr *f, int *type)
{
	static const struct
	{
		int			dtk;
		int			field;
	}			fields[] = {
		{DTK_MICROSEC, GA_PART_MICROSECONDS}, {DTK_MILLISEC, GA_PART_MILLISECONDS},
		{DTK_SECOND, GA_PART_SECOND}, {DTK_MINUTE, GA_PART_MINUTE},
		{DTK_HOUR, GA_PART_HOUR}, {DTK_DAY, GA_PART_DAY}, {DTK_MONTH, GA_PART_MONTH},
		{DTK_QUARTER, GA_PART_QUARTER}, {DTK_YEAR, GA_PART_YEAR},
		{DTK_DECADE, GA_PART_DECADE}, {DTK_CENTURY, GA_PART_CENTURY},
		{DTK_MILLENNIUM, GA_PART_MILLENNIUM}, {DTK_DOW, GA_PART_DOW},
		{DTK_ISODOW, GA_PART_ISODOW}, {DTK_DOY, GA_PART_DOY}, {DTK_WEEK, GA_PART_WEEK},
		{DTK_ISOYEAR, GA_PART_ISOYEAR}, {DTK_JULIAN, GA_PART_JULIAN},
		{DTK_TZ, GA_PART_TZ}, {DTK_TZ_HOUR, GA_PART_TZ_HOUR}, {DTK_TZ_MINUTE, GA_PART_TZ_MINUTE}
	};
	bool		of_date = f->funcid == F_EXTRACT_TEXT_DATE;
	bool		of_tz = f->funcid == F_EXTRACT_TEXT_TIMESTAMPTZ ||
		f->funcid == F_DATE_PART_TEXT_TIMESTAMPTZ;
	bool		numeric = f->funcid != F_DATE_PART_TEXT_TIMESTAMP &&
		f->funcid != F_DATE_PART_TEXT_TIMESTAMPTZ && f->funcid != F_DATE_PART_TEXT_INTERVAL;
	int			how;
	const char *what = numeric ? "extract" : "date_part";
	char	   *units = const_units(linitial(f->args));
	int			kind,
				val,
				field = -1,
				t,
				r;

	if (units == NULL)
		return fail(c, "%s with a field that is not a constant", what), -1;
	kind = DecodeUnits(0, units, &val);
	if (kind == UNKNOWN_FIELD)
		kind = DecodeSpecial(0, units, &val);
	if (kind == RESERV && val == DTK_EPOCH)
		field = GA_PART_EPOCH;
	else if (kind == UNITS)
	{
		for (int i = 0; i < lengthof(fields); i++)
			if (fields[i].dtk == val)
				field = fields[i].field;
	}
	if ((f->funcid == F_EXTRACT_TEXT_INTERVAL || f->funcid == F_DATE_PART_TEXT_INTERVAL) &&
		is_age(lsecond(f->args)))
	{
		/* interval_part_common's fields of an age() (its epoch stays native) */
		if (field < GA_PART_MICROSECONDS || field > GA_PART_MILLENNIUM)
			return fail(c, "%s('%s') of age()", what, units), -1;
		*type = numeric ? GA_T_NUMERIC : GA_T_FLOAT8;
		r = compile_age(c, lsecond(f->args), field, *type);
		if (r >= 0)
			c->regscale[r] = numeric ? ga_part_scale(field, false) : 0;
		return r;
	}
	if (f->funcid == F_DATE_PART_TEXT_INTERVAL)
		return fail(c, "date_part of an interval other than age()"), -1;
	if (f->funcid == F_EXTRACT_TEXT_INTERVAL)
	{
		/*
		 * the epoch of a difference of timestamps: interval_part_common's
		 * day * 86400 * 10^6 + time at scale 6, which is its microseconds
		 */
		if (field != GA_PART_EPOCH)
			return fail(c, "extract('%s') of an interval (only its epoch)", units), -1;
		r = compile_span(c, lsecond(f->args), GA_IV_EPOCH);
		/* (a numeric instruction: a cast to float past 2^53 takes the exact path) */
		if (r < 0 || emit(c, GA_OP_MOVE, GA_T_NUMERIC, r, r, 0, 0) < 0)
			return -1;
		*type = GA_T_NUMERIC;
		c->regscale[r] = 6;
		return r;
	}
	/* a date has no time of day; a timestamp's julian has a fraction */
	if (field < 0 ||
		(of_date && field <= GA_PART_HOUR) || (!of_date && field == GA_PART_JULIAN) ||
		(!of_tz && field >= GA_PART_TZ))
		return fail(c, "%s('%s') of a %s", what, units,
					of_date ? "date" : of_tz ? "timestamptz" : "timestamp"), -1;
	r = compile_expr(c, lsecond(f->args), &t);
	if (r < 0)
		return -1;
	if (t != (of_date ? GA_T_DATE : of_tz ? GA_T_TIMESTAMPTZ : GA_T_TIMESTAMP))
		return fail(c, "%s of an unexpected type", what), -1;
	*type = numeric ? GA_T_NUMERIC : GA_T_FLOAT8;
	/*
	 * b: 0 a timestamp, 1 a date, 2 a timestamptz, whose fields are its
	 * local time's (the epoch is not: a timestamp's then)
	 */
	how = of_date ? 1 : 0;
	if (of_tz && field != GA_PART_EPOCH)
	{
		if (!session_zone(c, numeric ? "extract from timestamptz" : "date_part of timestamptz"))
			return -1;
		how = 2;
	}
	if (emit(c, GA_OP_TS_PART, *type, r, r, how, field) < 0)
		return -1;
	c->regscale[r] = numeric ? ga_part_scale(field, of_date) : 0;
	return r;
}

static int
compile_func(Compiler *c, FuncExpr *f, int *type)
{
	int			from,
				r;

	/* mod() of integers: the % operator's function (int2mod, int4mod, int8mod) */
	if ((f->funcid == F_MOD_INT2_INT2 || f->funcid == F_MOD_INT4_INT4 ||
		 f->funcid == F_MOD_INT8_INT8 || f->funcid == F_MOD_NUMERIC_NUMERIC) &&
		list_length(f->args) == 2)
		return compile_named_op(c, "%", f->funcid, f->inputcollid, f->funcresulttype, f->args,
								type);

	if ((f->funcid == F_DATE_TRUNC_TEXT_TIMESTAMP || f->funcid == F_DATE_TRUNC_TEXT_TIMESTAMPTZ) &&
		list_length(f->args) == 2)
		return compile_date_trunc(c, f, type);
	if ((f->funcid == F_EXTRACT_TEXT_TIMESTAMP || f->funcid == F_EXTRACT_TEXT_DATE ||
		 f->funcid == F_DATE_PART_TEXT_TIMESTAMP || f->funcid == F_EXTRACT_TEXT_TIMESTAMPTZ ||
		 f->funcid == F_DATE_PART_TEXT_TIMESTAMPTZ || f->funcid == F_EXTRACT_TEXT_INTERVAL ||
		 f->funcid == F_DATE_PART_TEXT_INTERVAL) &&
		list_length(f->args) == 2)
		return compile_date_part(c, f, type);
	if ((f->funcid == F_TIMEZONE_TEXT_TIMESTAMPTZ || f->funcid == F_TIMEZONE_TEXT_TIMESTAMP) &&
		list_length(f->args) == 2)
		return compile_at_time_zone(c, f, type);
	if (f->funcid == F_TIMESTAMP_DATE || f->funcid == F_TIMESTAMPTZ_DATE)
	{
		/* date::timestamp, date::timestamptz (the session's zone) */
		int			to = f->funcid == F_TIMESTAMP_DATE ? GA_T_TIMESTAMP : GA_T_TIMESTAMPTZ;

		r = compile_expr(c, linitial(f->args), &from);
		if (r < 0)
			return -1;
		if (from != GA_T_DATE)
			return fail(c, "unexpected cast argument"), -1;
		if (to == GA_T_TIMESTAMPTZ && !session_zone(c, "cast from date to timestamptz"))
			return -1;
		if (emit(c, GA_OP_CAST, to, r, r, GA_T_DATE, 1) < 0)
			return -1;
		*type = to;
		return r;
	}
	if (f->funcid == F_DATE_TIMESTAMP || f->funcid == F_DATE_TIMESTAMPTZ ||
		f->funcid == F_TIMESTAMP_TIMESTAMPTZ || f->funcid == F_TIMESTAMPTZ_TIMESTAMP)
	{
		/*
		 * timestamp::date, and in the session's time zone
		 * timestamptz::date, timestamptz::timestamp and
		 * timestamp::timestamptz, as timestamp_date, timestamptz_date,
		 * timestamptz_timestamp and timestamp_timestamptz
		 */
		int			to = f->funcid == F_TIMESTAMP_TIMESTAMPTZ ? GA_T_TIMESTAMP :
			f->funcid == F_TIMESTAMPTZ_TIMESTAMP ? GA_T_TIMESTAMPTZ : GA_T_DATE;

		r = compile_expr(c, linitial(f->args), &from);
		if (r < 0)
			return -1;
		if (from != (f->funcid == F_DATE_TIMESTAMP || f->funcid == F_TIMESTAMPTZ_TIMESTAMP ?
					 GA_T_TIMESTAMP : GA_T_TIMESTAMPTZ))
			return fail(c, "unexpected cast argument"), -1;
		if ((from == GA_T_TIMESTAMPTZ || to == GA_T_TIMESTAMPTZ) &&
			!session_zone(c, psprintf("cast from %s to %s",
									  from == GA_T_TIMESTAMP ? "timestamp" : "timestamptz",
									  to == GA_T_DATE ? "date" :
									  to == GA_T_TIMESTAMP ? "timestamp" : "timestamptz")))
			return -1;
		if (emit(c, GA_OP_CAST, to, r, r, from, 0) < 0)
			return -1;
		*type = to;
		return r;
	}
	if (f->funcid == F_DROUND || f->funcid == F_ROUND_FLOAT8 || f->funcid == F_DTRUNC ||
		f->funcid == F_TRUNC_FLOAT8 || f->funcid == F_FLOOR_FLOAT8 ||
		f->funcid == F_CEIL_FLOAT8 || f->funcid == F_CEILING_FLOAT8 ||
		f->funcid == F_SIGN_FLOAT8)
	{
		/* round (rint, half to even), trunc, floor, ceil and sign of a float8 */
		int			how = f->funcid == F_DROUND || f->funcid == F_ROUND_FLOAT8 ? GA_ROUND_HALF :
			f->funcid == F_DTRUNC || f->funcid == F_TRUNC_FLOAT8 ? GA_ROUND_TRUNC :
			f->funcid == F_FLOOR_FLOAT8 ? GA_ROUND_FLOOR : GA_ROUND_CEIL;

		if (list_length(f->args) != 1)
			return fail(c, "%s", func_words(f)), -1;
		r = compile_expr(c, linitial(f->args), &from);
		if (r < 0)
			return -1;
		if (from != GA_T_FLOAT8)
			return fail(c, "unexpected float8 function argument"), -1;
		if (f->funcid == F_SIGN_FLOAT8 ?
			emit(c, GA_OP_FLT_SIGN, GA_T_FLOAT8, r, r, 0, 0) < 0 :
			emit(c, GA_OP_FLT_ROUND, GA_T_FLOAT8, r, r, how, 0) < 0)
			return -1;
		*type = GA_T_FLOAT8;
		return r;
	}
	if ((f->funcid == F_ABS_INT2 || f->funcid == F_ABS_INT4 || f->funcid == F_ABS_INT8 ||
		 f->funcid == F_ABS_FLOAT4 || f->funcid == F_ABS_FLOAT8) && list_length(f->args) == 1)
	{
		/* int2abs, int4abs, int8abs (the type's minimum out of range), fabs */
		int			want = GpuaggTypeOf(f->funcresulttype);

		r = compile_expr(c, linitial(f->args), &from);
		if (r < 0)
			return -1;
		if (from != want)
			return fail(c, "unexpected abs() argument"), -1;
		if (emit(c, GA_OP_NUM_ABS, want, r, r, 0, 0) < 0)
			return -1;
		*type = want;
		return r;
	}
	if (f->funcid == F_WIDTH_BUCKET_NUMERIC_NUMERIC_NUMERIC_INT4)
		return compile_width_bucket(c, f, type);
	if (f->funcid == F_ROUND_NUMERIC || f->funcid == F_TRUNC_NUMERIC ||
		f->funcid == F_ROUND_NUMERIC_INT4 || f->funcid == F_TRUNC_NUMERIC_INT4 ||
		f->funcid == F_FLOOR_NUMERIC || f->funcid == F_CEIL_NUMERIC ||
		f->funcid == F_CEILING_NUMERIC || f->funcid == F_SIGN_NUMERIC ||
		f->funcid == F_ABS_NUMERIC || f->funcid == F_INT2_NUMERIC ||
		f->funcid == F_INT4_NUMERIC || f->funcid == F_INT8_NUMERIC ||
		f->funcid == F_FLOAT4_NUMERIC || f->funcid == F_FLOAT8_NUMERIC ||
		f->funcid == F_NUMERIC_NUMERIC_INT4)
		return compile_numeric_func(c, f, type);
	if (f->funcid == F_NUMERIC_INT2 || f->funcid == F_NUMERIC_INT4 ||
		f->funcid == F_NUMERIC_INT8)
	{
		/* an integer is a numeric of scale 0: the same int64 */
		r = compile_expr(c, linitial(f->args), &from);
		if (r < 0)
			return -1;
		if (!is_int_type(from))
			return fail(c, "unexpected cast argument"), -1;
		c->regscale[r] = 0;
		*type = GA_T_NUMERIC;
		return r;
	}
	if (f->funcretset || list_length(f->args) != 1)
		return fail(c, "%s", func_words(f)), -1;
	for (int i = 0; i < lengthof(casts); i++)
	{
		if (casts[i].funcid != f->funcid)
			continue;
		r = compile_expr(c, linitial(f->args), &from);
		if (r < 0)
			return -1;
		if (from != casts[i].from)
			return fail(c, "unexpected cast argument"), -1;
		if (emit(c, GA_OP_CAST, casts[i].to, r, r, from, 0) < 0)
			return -1;
		*type = casts[i].to;
		return r;
	}
	return fail(c, "%s", func_words(f)), -1;
}

/* pg_catalog's operator name of (lt, rt), as an OpExpr of l and r */
static Expr *
catalog_op(const char *name, Oid lt, Oid rt, Oid restype, Expr *l, Expr *r)
{
	Oid			opno = OpernameGetOprid(list_make2(makeString("pg_catalog"),
												   makeString(pstrdup(name))), lt, rt);
	OpExpr	   *op;

	if (!OidIsValid(opno))
		elog(ERROR, "gpuagg: no operator %s(%s, %s)", name, format_type_be(lt),
			 format_type_be(rt));
	op = (OpExpr *) make_opclause(opno, restype, false, l, r, InvalidOid, InvalidOid);
	set_opfuncid(op);
	return (Expr *) op;
}

static Const *
int8_const(int64 v)
{
	return makeConst(INT8OID, -1, InvalidOid, 8, Int64GetDatum(v), false, FLOAT8PASSBYVAL);
}

/*
 * width_bucket(x, lo, hi, n) of a numeric x of a declared scale and
 * constant bounds and count: 0 below the range, n + 1 past it, else
 * floor((x - lo) * n / (hi - lo)) + 1 (lo > hi: the other way round), as
 * compute_bucket makes it, computed as that CASE of the scaled integers,
 * which the devices compute:
 *
 *   CASE WHEN x < lo THEN 0 WHEN x >= hi THEN n + 1
 *        ELSE (((x - lo) * 10^S)::int8 * n / B + 1)::int4 END
 *
 * S the largest scale of x, lo and hi, B = (hi - lo) * 10^S.  PostgreSQL
 * 15 rounds the quotient at 16 digits or more (select_div_scale) before
 * its floor, which is the exact floor where B < 10^15 (a quotient not an
 * integer lies at least 1/B from one), with n < 10000; so are the
 * integers in range (B * 10^S and B * n under 10^18).  Otherwise, and for
 * the errors (n <= 0, lo = hi, NaN or infinite bounds), native.
 */
static int
compile_width_bucket(Compiler *c, FuncExpr *f, int *type)
{
	Expr	   *x = linitial(f->args);
	Const	   *lo = lsecond(f->args),
			   *hi = lthird(f->args),
			   *n = lfourth(f->args);
	int32		typmod = exprTypmod((Node *) x);
	int			sx,
				slo,
				shi,
				S;
	int			cmp;
	int64		B,
				count,
				p = 1;
	Datum		scaled;
	CaseExpr   *ce;
	CaseWhen   *below,
			   *past;
	Expr	   *e;

	if (!IsA(lo, Const) || !IsA(hi, Const) || !IsA(n, Const) ||
		lo->constisnull || hi->constisnull || n->constisnull)
		return fail(c, "width_bucket(numeric) with bounds or a count other than constants"), -1;
	if (typmod < (int32) VARHDRSZ)
		return fail(c, "width_bucket of a numeric without a declared scale"), -1;
	if (contain_volatile_functions((Node *) x))
		return fail(c, "width_bucket of a volatile expression (evaluated more than once here)"), -1;
	count = DatumGetInt32(n->constvalue);
	if (numeric_is_nan(DatumGetNumeric(lo->constvalue)) ||
		numeric_is_nan(DatumGetNumeric(hi->constvalue)) ||
		numeric_is_inf(DatumGetNumeric(lo->constvalue)) ||
		numeric_is_inf(DatumGetNumeric(hi->constvalue)) || count <= 0 || count >= 10000)
		return fail(c, "width_bucket(numeric) with a count outside 1 .. 9999 or bounds not finite"), -1;
	sx = (((typmod - VARHDRSZ) & 0x7ff) ^ 1024) - 1024;
	slo = DatumGetInt32(DirectFunctionCall1(numeric_scale, lo->constvalue));
	shi = DatumGetInt32(DirectFunctionCall1(numeric_scale, hi->constvalue));
	S = Max(Max(sx, slo), shi);
	if (sx < 0 || S > 18)
		return fail(c, "width_bucket(numeric) at scale %d", sx < 0 ? sx : S), -1;
	cmp = DatumGetInt32(DirectFunctionCall2(numeric_cmp, lo->constvalue, hi->constvalue));
	if (cmp == 0)
		return fail(c, "width_bucket(numeric) with equal bounds"), -1;
	for (int i = 0; i < S; i++)
		p *= 10;
	/* B = |hi - lo| * 10^S */
	scaled = DirectFunctionCall2(numeric_mul,
								 DirectFunctionCall1(numeric_abs,
													 DirectFunctionCall2(numeric_sub, hi->constvalue,
																		 lo->constvalue)),
								 DirectFunctionCall1(int8_numeric, Int64GetDatum(p)));
	/* B < 10^15, B * n < 10^18, B * 10^S < 10^18 */
	if (DatumGetInt32(DirectFunctionCall2(numeric_cmp, scaled,
										  DirectFunctionCall1(int8_numeric,
															  Int64GetDatum((int64) 1000000000000000)))) >= 0)
		return fail(c, "width_bucket(numeric) of a range too fine for the devices' integers"), -1;
	B = DatumGetInt64(DirectFunctionCall1(numeric_int8, scaled));
	/* (and the bounds themselves at scale S, which x is compared with) */
	if ((double) B * count >= 1e18 || (double) B * p >= 1e18 ||
		fabs(DatumGetFloat8(DirectFunctionCall1(numeric_float8, lo->constvalue))) * p >= 1e17 ||
		fabs(DatumGetFloat8(DirectFunctionCall1(numeric_float8, hi->constvalue))) * p >= 1e17)
		return fail(c, "width_bucket(numeric) of a range too fine for the devices' integers"), -1;

	/* ((x - lo) * 10^S)::int8, or (lo - x) reversed */
	e = catalog_op("-", NUMERICOID, NUMERICOID, NUMERICOID,
				   cmp > 0 ? (Expr *) lo : x, cmp > 0 ? x : (Expr *) lo);
	e = catalog_op("*", NUMERICOID, NUMERICOID, NUMERICOID, e,
				   (Expr *) makeConst(NUMERICOID, -1, InvalidOid, -1,
									  DirectFunctionCall1(int8_numeric, Int64GetDatum(p)),
									  false, false));
	e = (Expr *) makeFuncExpr(F_INT8_NUMERIC, INT8OID, list_make1(e), InvalidOid, InvalidOid,
							  COERCE_EXPLICIT_CAST);
	e = catalog_op("*", INT8OID, INT8OID, INT8OID, e, (Expr *) int8_const(count));
	e = catalog_op("/", INT8OID, INT8OID, INT8OID, e, (Expr *) int8_const(B));
	e = catalog_op("+", INT8OID, INT8OID, INT8OID, e, (Expr *) int8_const(1));
	e = (Expr *) makeFuncExpr(F_INT4_INT8, INT4OID, list_make1(e), InvalidOid, InvalidOid,
							  COERCE_EXPLICIT_CAST);
	below = makeNode(CaseWhen);
	below->expr = catalog_op(cmp > 0 ? ">" : "<", NUMERICOID, NUMERICOID, BOOLOID, x, (Expr *) lo);
	below->result = (Expr *) makeConst(INT4OID, -1, InvalidOid, 4, Int32GetDatum(0), false, true);
	below->location = -1;
	past = makeNode(CaseWhen);
	past->expr = catalog_op(cmp > 0 ? "<=" : ">=", NUMERICOID, NUMERICOID, BOOLOID, x, (Expr *) hi);
	past->result = (Expr *) makeConst(INT4OID, -1, InvalidOid, 4, Int32GetDatum((int32) count + 1),
									  false, true);
	past->location = -1;
	ce = makeNode(CaseExpr);
	ce->casetype = INT4OID;
	ce->casecollid = InvalidOid;
	ce->arg = NULL;
	ce->args = list_make2(below, past);
	ce->defresult = e;
	ce->location = -1;
	return compile_expr(c, (Expr *) ce, type);
}

/*
 * Functions of a numeric: round and trunc to a constant number of places
 * from -18 to 18 (the result's display scale, never below 0, as round_var
 * and trunc_var set it), floor, ceil and sign (at scale 0, as floor_var,
 * ceil_var and numeric_sign give them), abs, casts to the integers and floats, and the
 * cast to a typmod, numeric(p, s): rounded to s places as round(x, s), as
 * apply_typmod does, then checked against p (GA_OP_NUM_PRECISION).
 */
static int
compile_numeric_func(Compiler *c, FuncExpr *f, int *type)
{
	int			r,
				t,
				s,
				k = 0,
				precision = -1;
	bool		rounding = (f->funcid == F_ROUND_NUMERIC || f->funcid == F_TRUNC_NUMERIC ||
							f->funcid == F_ROUND_NUMERIC_INT4 ||
							f->funcid == F_TRUNC_NUMERIC_INT4);
	bool		trunc = (f->funcid == F_TRUNC_NUMERIC || f->funcid == F_TRUNC_NUMERIC_INT4);

	if (f->funcid == F_NUMERIC_NUMERIC_INT4)
	{
		Const	   *typmod = lsecond(f->args);
		int32		tm;

		if (!IsA(typmod, Const) || typmod->constisnull)
			return fail(c, "a numeric typmod other than a constant"), -1;
		tm = DatumGetInt32(typmod->constvalue);
		if (tm < (int32) VARHDRSZ)
		{
			/* no typmod: the value as it is */
			r = compile_expr(c, linitial(f->args), &t);
			*type = t;
			return r;
		}
		precision = ((tm - VARHDRSZ) >> 16) & 0xffff;
		k = ((((tm - VARHDRSZ) & 0x7ff) ^ 1024) - 1024);
		if (k < -GA_NUMERIC_MAX_SCALE || k > GA_NUMERIC_MAX_SCALE)
			return fail(c, "a cast to %s (the device holds scales from %d to %d)",
						format_type_with_typemod(NUMERICOID, tm), -GA_NUMERIC_MAX_SCALE,
						GA_NUMERIC_MAX_SCALE), -1;
		rounding = true;
	}
	else if (list_length(f->args) == 2)
	{
		Const	   *places = lsecond(f->args);

		if (!IsA(places, Const) || places->constisnull ||
			DatumGetInt32(places->constvalue) < -GA_NUMERIC_MAX_SCALE ||
			DatumGetInt32(places->constvalue) > GA_NUMERIC_MAX_SCALE)
			return fail(c, "%s(numeric, places) with places other than a constant from %d to %d",
						get_func_name(f->funcid), -GA_NUMERIC_MAX_SCALE,
						GA_NUMERIC_MAX_SCALE), -1;
		k = DatumGetInt32(places->constvalue);
	}
	else if (list_length(f->args) != 1)
		return fail(c, "%s", func_words(f)), -1;
	/* all but abs give a value whose display scale is not the argument's */
	if (f->funcid != F_ABS_NUMERIC)
		c->div_args = division_args(linitial(f->args));
	r = compile_expr(c, linitial(f->args), &t);
	c->div_args = NIL;
	if (r < 0)
		return -1;
	if (t != GA_T_NUMERIC)
		return fail(c, "unexpected numeric function argument"), -1;
	s = c->regscale[r];
	if (rounding)
	{
		/*
		 * fewer places: digits dropped; more: the same value at more;
		 * places < 0: the digits down to 10^-places dropped, then the zeros
		 * put back, at scale 0 (round_var's display scale is never below 0)
		 */
		if (k >= s)
		{
			if (!numeric_rescale(c, r, s, k))
				return -1;
		}
		else if (s - k > GA_NUMERIC_MAX_SCALE)
			return fail(c, "%s(numeric, %d) of a numeric of scale %d (more than %d digits dropped)",
						get_func_name(f->funcid), k, s, GA_NUMERIC_MAX_SCALE), -1;
		else if (emit(c, GA_OP_NUM_ROUND, GA_T_NUMERIC, r, r,
					  trunc ? GA_ROUND_TRUNC : GA_ROUND_HALF, s - k) < 0 ||
				 (k < 0 && emit(c, GA_OP_NUM_SCALE, GA_T_NUMERIC, r, r, 0, -k) < 0))
			return -1;
		/* numeric(p, s): at most p - s digits before the point */
		if (precision >= 0 && precision - k + Max(k, 0) < 19 &&
			emit(c, GA_OP_NUM_PRECISION, GA_T_NUMERIC, r, r, 0,
				 precision - k + Max(k, 0)) < 0)
			return -1;
		c->regscale[r] = Max(k, 0);
		*type = GA_T_NUMERIC;
		return r;
	}
	if (f->funcid == F_FLOOR_NUMERIC || f->funcid == F_CEIL_NUMERIC ||
		f->funcid == F_CEILING_NUMERIC)
	{
		if (s > 0 && emit(c, GA_OP_NUM_ROUND, GA_T_NUMERIC, r, r,
						  f->funcid == F_FLOOR_NUMERIC ? GA_ROUND_FLOOR : GA_ROUND_CEIL,
						  s) < 0)
			return -1;
		c->regscale[r] = 0;
		*type = GA_T_NUMERIC;
		return r;
	}
	if (f->funcid == F_ABS_NUMERIC || f->funcid == F_SIGN_NUMERIC)
	{
		bool		sign = f->funcid == F_SIGN_NUMERIC;

		if (emit(c, GA_OP_NUM_ABS, GA_T_NUMERIC, r, r, sign ? 1 : 0, 0) < 0)
			return -1;
		c->regscale[r] = sign ? 0 : s;
		*type = GA_T_NUMERIC;
		return r;
	}
	*type = f->funcid == F_INT2_NUMERIC ? GA_T_INT2 :
		f->funcid == F_INT4_NUMERIC ? GA_T_INT4 :
		f->funcid == F_INT8_NUMERIC ? GA_T_INT8 :
		f->funcid == F_FLOAT4_NUMERIC ? GA_T_FLOAT4 : GA_T_FLOAT8;
	if (emit(c, GA_OP_CAST, *type, r, r, GA_T_NUMERIC, s) < 0)
		return -1;
	return r;
}

/* AND/OR chains: dst starts at the identity, each argument steps it. */
static int
compile_bool_chain(Compiler *c, List *args, int stepop, bool init)
{
	int			dst = emit_const(c, BoolGetDatum(init), false, GA_T_BOOL);
	int			patches[GA_MAX_INSTR];
	int			npatches = 0;
	ListCell   *lc;

	if (dst < 0)
		return -1;
	foreach(lc, args)
	{
		int			t,
					r = compile_expr(c, lfirst(lc), &t);

		if (r < 0)
			return -1;
		if (t != GA_T_BOOL)
			return fail(c, "non-boolean argument of AND/OR"), -1;
		patches[npatches] = emit(c, stepop, GA_T_BOOL, dst, r, 0, 0);
		if (patches[npatches++] < 0)
			return -1;
		c->nextreg = dst + 1;
	}
	emit_patch(c, patches, npatches);
	return dst;
}

/*
 * One element of an IN list, already in register re: compare it with the
 * scalar in sreg and step the OR (ANY) or AND (ALL) chain in dst; the jump
 * is patched by the caller.  False when re failed or the program is full.
 */
static bool
emit_in_element(Compiler *c, ScalarArrayOpExpr *saop, int cmp, int lt, int sreg,
				int dst, int re, int *patches, int *npatches)
{
	if (re < 0)
		return false;
	/* numerics compared at one scale (the scalar's grows as needed) */
	if (lt == GA_T_NUMERIC)
	{
		int			to = Max(c->regscale[re], c->regscale[sreg]);

		if (!numeric_rescale(c, sreg, c->regscale[sreg], to) ||
			!numeric_rescale(c, re, c->regscale[re], to))
			return false;
	}
	if (emit(c, cmp, lt == GA_T_TEXT ? GA_T_TEXT : ga_type_is_float(lt) ? GA_T_FLOAT8 : GA_T_INT8,
			 re, sreg, re, 0) < 0)
		return false;
	patches[*npatches] = emit(c, saop->useOr ? GA_OP_OR_STEP : GA_OP_AND_STEP,
							  GA_T_BOOL, dst, re, 0, 0);
	if (patches[(*npatches)++] < 0)
		return false;
	c->nextreg = sreg + 1;
	return true;
}

/*
 * x op ANY/ALL (constant array): the scalar once, then an OR (ANY) or AND
 * (ALL) chain of comparisons with each element; NULL elements and a NULL
 * scalar give NULL through the chain exactly as ExecEvalScalarArrayOp.
 */
static int
compile_saop(Compiler *c, ScalarArrayOpExpr *saop, int *type)
{
	Expr	   *scalar = linitial(saop->args);
	Const	   *arr = (Const *) lsecond(saop->args);
	Oid			elemtype;
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;
	Datum	   *elems;
	bool	   *elemnulls;
	int			nelems,
				dst,
				sreg,
				lt,
				et,
				cmp,
				patches[GA_MAX_INSTR],
				npatches = 0;
	char	   *name;
	bool		uuid;

	/* LIKE ANY (...) and regular expressions of a string column: the host's */
	if ((dst = compile_string_saop(c, saop, type)) != -1)
		return dst < 0 ? -1 : dst;
	name = get_opname(saop->opno);
	if (saop->opno >= FirstGenbkiObjectId || name == NULL || (cmp = comparison_op(name)) == 0)
		return fail(c, "unsupported operator %s in ANY/ALL", name ? name : "(unnamed)"), -1;
	/* (a uuid's values and constants: string codes, compile_uuid_var) */
	uuid = exprType((Node *) scalar) == UUIDOID;
	lt = uuid ? GA_T_TEXT : conditional_type(exprType((Node *) scalar));
	*type = GA_T_BOOL;
	if (lt == GA_T_TEXT)
	{
		set_sa_opfuncid(saop);
		if (!is_string_eq_func(saop->opfuncid))
			return fail(c, "unsupported operator %s in ANY/ALL over strings", name), -1;
		if (!check_collation(c, saop->inputcollid, "string comparison"))
			return -1;
	}

	if (IsA(arr, ArrayExpr) && !((ArrayExpr *) arr)->multidims)
	{
		/* IN (1, $1, x + 1): each element is an expression of its own */
		List	   *items = ((ArrayExpr *) arr)->elements;
		ListCell   *lc;

		et = uuid ? GA_T_TEXT : conditional_type(((ArrayExpr *) arr)->element_typeid);
		if (!comparable(lt, et))
			return fail(c, "unsupported IN list of %s",
						format_type_be(((ArrayExpr *) arr)->element_typeid)), -1;
		dst = emit_const(c, BoolGetDatum(!saop->useOr), false, GA_T_BOOL);
		c->uuid_ok = uuid;
		if (dst < 0 || (sreg = compile_expr(c, scalar, &lt)) < 0)
			return -1;
		/*
		 * PostgreSQL builds the whole array before comparing, so an element
		 * that raises an error raises it even after an earlier match: the
		 * elements that can raise are evaluated once up front.
		 */
		foreach(lc, items)
		{
			if (IsA(lfirst(lc), Const) || IsA(lfirst(lc), Param))
				continue;
			c->uuid_ok = uuid;
			if (compile_expr(c, lfirst(lc), &et) < 0)
				return -1;
			c->nextreg = sreg + 1;
		}
		foreach(lc, items)
		{
			c->uuid_ok = uuid;
			if (!emit_in_element(c, saop, cmp, lt, sreg, dst,
								 compile_expr(c, lfirst(lc), &et), patches, &npatches))
				return -1;
		}
	}
	else
	{
		if (!IsA(arr, Const))
			return fail(c, "IN list is neither constant nor a list of expressions"), -1;
		elemtype = get_element_type(arr->consttype);
		et = elemtype == UUIDOID ? GA_T_TEXT : conditional_type(elemtype);
		if (!comparable(lt, et))
			return fail(c, "unsupported IN list of %s", format_type_be(elemtype)), -1;

		dst = emit_const(c, BoolGetDatum(!saop->useOr), false, GA_T_BOOL);
		if (dst < 0)
			return -1;
		if (arr->constisnull)
		{
			/* x op ANY (NULL::array) is NULL */
			c->prog->ga.constnull[c->prog->ga.code[c->prog->ga.ninstr - 1].imm] = true;
			return dst;
		}
		get_typlenbyvalalign(elemtype, &elmlen, &elmbyval, &elmalign);
		deconstruct_array(DatumGetArrayTypeP(arr->constvalue), elemtype, elmlen,
						  elmbyval, elmalign, &elems, &elemnulls, &nelems);
		c->uuid_ok = uuid;
		sreg = compile_expr(c, scalar, &lt);
		if (sreg < 0)
			return -1;
		for (int i = 0; i < nelems; i++)
		{
			if (!emit_in_element(c, saop, cmp, lt, sreg, dst,
								 et == GA_T_TEXT ?
								 emit_text_const(c, elems[i], elemnulls[i], elemtype, -1) :
								 et == GA_T_NUMERIC ?
								 emit_numeric_const(c, makeConst(NUMERICOID, -1, InvalidOid, -1,
																 elems[i], elemnulls[i], false)) :
								 emit_const(c, elems[i], elemnulls[i], et),
								 patches, &npatches))
				return -1;
		}
	}
	emit_patch(c, patches, npatches);
	c->nextreg = dst + 1;
	return dst;
}

/*---- conditionals: CASE, COALESCE, NULLIF, GREATEST, LEAST ----
 *
 * Compiled to forward jumps, so that a branch PostgreSQL does not evaluate
 * is not evaluated here either (and raises nothing).  A jump is a
 * GA_OP_QUAL_STEP, which jumps when its operand is not true; an
 * unconditional one steps on a register holding false.  Every branch
 * leaves its value in the construct's register by GA_OP_MOVE.
 */

/* A jump to be patched (emit_patch): on cond not true, or always (cond = f). */
static int
emit_jump(Compiler *c, int cond)
{
	return emit(c, GA_OP_QUAL_STEP, GA_T_BOOL, cond, cond, 0, 0);
}

/* A jump past what follows unless cond (of type ct) is true; -1 on failure. */
static int
emit_jump_unless(Compiler *c, int cond, int ct, const char *what)
{
	if (cond < 0)
		return -1;
	if (ct != GA_T_BOOL)
		return fail(c, "non-boolean condition of %s", what), -1;
	return emit_jump(c, cond);
}

/* A NULL of type t (its Oid typid) in a new register. */
static int
emit_null(Compiler *c, int t, Oid typid)
{
	if (t == GA_T_TEXT)
		return emit_text_const(c, (Datum) 0, true, typid, -1);
	return emit_const(c, (Datum) 0, true, t);
}

/*
 * expr, of the construct's type t, into register r.  Numeric branches must
 * share one scale (*scale, -1 until the first that is not a NULL
 * constant): a value keeps its display scale, so branches of different
 * scales would give rows different ones.
 */
static bool
compile_branch(Compiler *c, Expr *expr, int t, int r, const char *what, int *scale)
{
	int			vt,
				v = compile_expr(c, expr, &vt);

	if (v < 0)
		return false;
	if (vt != t)
		return fail(c, "%s whose branches differ in type", what);
	if (t == GA_T_NUMERIC && !(IsA(expr, Const) && ((Const *) expr)->constisnull))
	{
		if (*scale >= 0 && *scale != c->regscale[v])
			return fail(c, "%s of numerics of different scales (%d and %d)", what,
						*scale, c->regscale[v]);
		*scale = c->regscale[v];
	}
	return emit(c, GA_OP_MOVE, t, r, v, 0, 0) >= 0;
}

/* Does node read a numeric column of several display scales? */
static bool
reads_mixed_walker(Node *node, Compiler *c)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return ((Var *) node)->varlevelsup == 0 &&
			bms_is_member(((Var *) node)->varattno, c->mixed_cols);
	return expression_tree_walker(node, reads_mixed_walker, c);
}

static bool
reads_mixed(Compiler *c, Node *node)
{
	return c->mixed_cols != NULL && reads_mixed_walker(node, c);
}

/* max(*d, e): each a float8 register, or a constant where it is -1 */
static bool
ds_max(Compiler *c, int *d, int *dfix, int e, int efix)
{
	int			tmp,
				jump;

	if (*d < 0 && e < 0)
	{
		*dfix = Max(*dfix, efix);
		return true;
	}
	if (*d < 0)
	{
		/* (d and e swapped: the register one first) */
		int			f = *dfix;

		*d = e;
		e = -1;
		efix = f;
	}
	if (e < 0 && efix == 0)
		return true;			/* a display scale is never below 0 */
	if (e < 0 && (e = emit_const(c, Float8GetDatum((double) efix), false, GA_T_FLOAT8)) < 0)
		return false;
	if ((tmp = alloc_reg(c)) < 0 ||
		emit(c, GA_OP_GT, GA_T_FLOAT8, tmp, e, *d, 0) < 0 ||
		(jump = emit_jump(c, tmp)) < 0 ||
		emit(c, GA_OP_MOVE, GA_T_FLOAT8, *d, e, 0, 0) < 0)
		return false;
	emit_patch(c, &jump, 1);
	return true;
}

/*
 * The display scale PostgreSQL gives each row's value of numeric
 * expression e, which reads a column of several (mixed_cols): into a new
 * float8 register (*reg), or *fixed where it is one for every row (*reg
 * -1), as numeric.c's operators set it -- the column's from its values'
 * headers (GaColumn.dscale_of), a product's the sum of its operands', a
 * sum's or difference's the larger, unary minus and abs the operand's,
 * round and trunc to n places n, floor, ceil and sign 0, a cast to
 * numeric(p, s) s.  Anything else reading the column fails: its display
 * scale is not followed.
 */
static bool
compile_ds(Compiler *c, Expr *e, int *reg, int *fixed)
{
	*reg = *fixed = -1;
	if (IsA(e, RelabelType))
		return compile_ds(c, ((RelabelType *) e)->arg, reg, fixed);
	if (!reads_mixed(c, (Node *) e))
	{
		Oid			typid = exprType((Node *) e);

		if (typid == INT2OID || typid == INT4OID || typid == INT8OID)
			*fixed = 0;
		else if (IsA(e, FuncExpr) &&
				 (((FuncExpr *) e)->funcid == F_NUMERIC_INT2 ||
				  ((FuncExpr *) e)->funcid == F_NUMERIC_INT4 ||
				  ((FuncExpr *) e)->funcid == F_NUMERIC_INT8))
			*fixed = 0;			/* an integer's cast */
		else if (IsA(e, Const) && typid == NUMERICOID && !((Const *) e)->constisnull)
			*fixed = GpuaggNumericDscale(((Const *) e)->constvalue);
		else if (IsA(e, Var) && typid == NUMERICOID &&
				 (*fixed = numeric_typmod_scale(((Var *) e)->vartypmod)) < 0)
		{
			/* without a typmod, of one display scale (compile_var) */
			List	   *found = numeric_scale_found(c, ((Var *) e)->varattno);

			if (found != NIL && intVal(lsecond(found)) == GPUAGG_SCALE_FOUND)
				*fixed = intVal(lfourth(found));
		}
		if (*fixed < 0)
			return fail(c, "an operand of a numeric of several display scales other than a numeric(p, s) column, an integer or a constant");
		return true;
	}
	if (IsA(e, Var))
	{
		int			col = dscale_column_for(c, ((Var *) e)->varattno);

		return col >= 0 && (*reg = alloc_reg(c)) >= 0 &&
			emit(c, GA_OP_COL, GA_T_FLOAT8, *reg, 0, 0, col) >= 0;
	}
	if (IsA(e, OpExpr) && ((OpExpr *) e)->opresulttype == NUMERICOID)
	{
		OpExpr	   *op = (OpExpr *) e;
		int			r2,
					f2;

		if (list_length(op->args) == 1 &&
			(op->opfuncid == F_NUMERIC_UMINUS || op->opfuncid == F_NUMERIC_UPLUS))
			return compile_ds(c, linitial(op->args), reg, fixed);
		if (list_length(op->args) != 2 ||
			(op->opfuncid != F_NUMERIC_ADD && op->opfuncid != F_NUMERIC_SUB &&
			 op->opfuncid != F_NUMERIC_MUL))
			return fail(c, "a numeric operator other than +, - and * on a numeric of several display scales");
		if (!compile_ds(c, linitial(op->args), reg, fixed) ||
			!compile_ds(c, lsecond(op->args), &r2, &f2))
			return false;
		if (op->opfuncid != F_NUMERIC_MUL)
			return ds_max(c, reg, fixed, r2, f2);
		/* a product: the sum */
		if (*reg < 0 && r2 < 0)
			*fixed += f2;
		else if (*reg < 0 || r2 < 0)
		{
			int			f = *reg < 0 ? *fixed : f2,
						k;

			*reg = Max(*reg, r2);
			if (f > 0 &&
				((k = emit_const(c, Float8GetDatum((double) f), false, GA_T_FLOAT8)) < 0 ||
				 emit(c, GA_OP_ADD, GA_T_FLOAT8, *reg, *reg, k, 0) < 0))
				return false;
		}
		else if (emit(c, GA_OP_ADD, GA_T_FLOAT8, *reg, *reg, r2, 0) < 0)
			return false;
		return true;
	}
	if (IsA(e, FuncExpr))
	{
		FuncExpr   *f = (FuncExpr *) e;
		Node	   *places = list_length(f->args) == 2 ? lsecond(f->args) : NULL;

		switch (f->funcid)
		{
			case F_ABS_NUMERIC:
				return compile_ds(c, linitial(f->args), reg, fixed);
			case F_ROUND_NUMERIC:
			case F_TRUNC_NUMERIC:
			case F_FLOOR_NUMERIC:
			case F_CEIL_NUMERIC:
			case F_CEILING_NUMERIC:
			case F_SIGN_NUMERIC:
				*fixed = 0;
				return true;
			case F_ROUND_NUMERIC_INT4:
			case F_TRUNC_NUMERIC_INT4:
				if (!IsA(places, Const) || ((Const *) places)->constisnull)
					break;
				*fixed = Max(DatumGetInt32(((Const *) places)->constvalue), 0);
				return true;
			case F_NUMERIC_NUMERIC_INT4:
				if (!IsA(places, Const) || ((Const *) places)->constisnull)
					break;
				if (DatumGetInt32(((Const *) places)->constvalue) < (int32) VARHDRSZ)
					return compile_ds(c, linitial(f->args), reg, fixed);
				if ((*fixed = numeric_typmod_scale(DatumGetInt32(((Const *) places)->constvalue))) < 0)
					return fail(c, "a cast to %s of a numeric of several display scales (a scale from 0 to %d only)",
								format_type_with_typemod(NUMERICOID,
														 DatumGetInt32(((Const *) places)->constvalue)),
								GA_NUMERIC_MAX_SCALE);
				return true;
		}
	}
	return fail(c, "a numeric of several display scales summed or averaged through %s (only +, -, *, abs, round, trunc, floor, ceil, sign, a cast to numeric(p, s), and a CASE's or COALESCE's branches follow it)",
				IsA(e, FuncExpr) ? get_func_name(((FuncExpr *) e)->funcid) : "another expression");
}

/*
 * A branch of a mixed-scale CASE (Compiler.mixed_case) into register r: a
 * NULL constant as it is; else the value, a rescale to the largest scale
 * (*at: the instruction, whose imm the caller sets once every branch's
 * scale is known; *from: this one's), and its display scale into ds.
 */
static bool
compile_mixed_branch(Compiler *c, Expr *expr, int r, int ds, int *at, int *from)
{
	int			vt,
				k,
				v;

	v = compile_expr(c, expr, &vt);
	*at = *from = -1;
	if (v < 0)
		return false;
	if (vt != GA_T_NUMERIC)
		return fail(c, "CASE whose branches differ in type");
	if (emit(c, GA_OP_MOVE, GA_T_NUMERIC, r, v, 0, 0) < 0)
		return false;
	if (IsA(expr, Const) && ((Const *) expr)->constisnull)
		return true;
	*from = c->regscale[v];
	if ((*at = emit(c, GA_OP_NUM_SCALE, GA_T_NUMERIC, r, r, 0, 0)) < 0)
		return false;
	if (reads_mixed(c, (Node *) expr))
	{
		/* a column of several display scales: the row's own */
		int			fixed;

		c->ds_branch = true;
		if (!compile_ds(c, expr, &k, &fixed) ||
			(k < 0 && (k = emit_const(c, Float8GetDatum((double) fixed), false,
									  GA_T_FLOAT8)) < 0))
			return false;
		return emit(c, GA_OP_MOVE, GA_T_FLOAT8, ds, k, 0, 0) >= 0;
	}
	k = emit_const(c, Float8GetDatum((double) *from), false, GA_T_FLOAT8);
	return k >= 0 && emit(c, GA_OP_MOVE, GA_T_FLOAT8, ds, k, 0, 0) >= 0;
}

/*
 * The values of a mixed-scale CASE's or COALESCE's nb branches, each
 * rescaled up to the largest scale (at[i], from[i]: compile_mixed_branch's);
 * where they had more than one, ds holds each row's display scale.
 */
static int
mixed_scales(Compiler *c, int nb, const int *at, const int *from, int ds)
{
	int			smax = -1,
				nscales = 0;

	for (int i = 0; i < nb; i++)
		if (from[i] >= 0 && from[i] != smax)
		{
			nscales++;
			smax = Max(smax, from[i]);
		}
	for (int i = 0; i < nb; i++)
		if (at[i] >= 0)
			c->prog->ga.code[at[i]].imm = smax - from[i];
	if (nscales > 1 || c->ds_branch)
		c->mixed_ds_reg = ds;
	c->ds_branch = false;
	return smax;
}

static int
compile_case(Compiler *c, CaseExpr *ce, int *type)
{
	int			t = conditional_type(ce->casetype),
				scale = -1,
				r,
				f,
				base,
				nends = 0,
				saved_reg = c->casetest_reg,
				saved_type = c->casetest_type;
	int		   *ends = palloc(sizeof(int) * (list_length(ce->args) + 1));
	/* sum/avg's own argument: branches of different scales allowed */
	bool		mixed = (Expr *) ce == c->mixed_case && t == GA_T_NUMERIC;
	int			ds = -1,
				nb = 0;
	int		   *at = palloc(sizeof(int) * (list_length(ce->args) + 1));
	int		   *from = palloc(sizeof(int) * (list_length(ce->args) + 1));
	ListCell   *lc;

	c->mixed_case = NULL;
	if (t == GA_T_INVALID || t == GA_T_NULLONLY)
		return fail(c, "CASE of type %s", format_type_be(ce->casetype)), -1;
	if (mixed && (ds = alloc_reg(c)) < 0)
		return -1;
	r = alloc_reg(c);
	f = emit_const(c, BoolGetDatum(false), false, GA_T_BOOL);
	if (r < 0 || f < 0)
		return -1;
	if (ce->arg)
	{
		/* CASE x WHEN v ...: x once, read by each WHEN's CaseTestExpr */
		c->casetest_reg = compile_expr(c, ce->arg, &c->casetest_type);
		if (c->casetest_reg < 0)
			return -1;
	}
	base = c->nextreg;
	foreach(lc, ce->args)
	{
		CaseWhen   *w = lfirst_node(CaseWhen, lc);
		int			ct,
					cond = compile_expr(c, w->expr, &ct),
					skip;

		if ((skip = emit_jump_unless(c, cond, ct, "CASE")) < 0)
			return -1;
		c->nextreg = base;
		if (mixed ? !compile_mixed_branch(c, w->result, r, ds, &at[nb], &from[nb]) :
			!compile_branch(c, w->result, t, r, "CASE", &scale))
			return -1;
		nb++;
		if ((ends[nends++] = emit_jump(c, f)) < 0)
			return -1;
		emit_patch(c, &skip, 1);
		c->nextreg = base;
	}
	if (mixed ? !compile_mixed_branch(c, ce->defresult, r, ds, &at[nb], &from[nb]) :
		!compile_branch(c, ce->defresult, t, r, "CASE", &scale))
		return -1;
	nb++;
	emit_patch(c, ends, nends);
	if (mixed)
		scale = mixed_scales(c, nb, at, from, ds);
	c->casetest_reg = saved_reg;
	c->casetest_type = saved_type;
	c->nextreg = r + 1;
	c->regscale[r] = Max(scale, 0);
	*type = t;
	return r;
}

/* The CASE operand, copied: the WHEN's comparison writes its register. */
static int
compile_case_test(Compiler *c, int *type)
{
	int			r;

	if (c->casetest_reg < 0)
		return fail(c, "a CASE operand outside CASE"), -1;
	r = alloc_reg(c);
	if (r < 0 || emit(c, GA_OP_MOVE, c->casetest_type, r, c->casetest_reg, 0, 0) < 0)
		return -1;
	c->regscale[r] = c->regscale[c->casetest_reg];
	*type = c->casetest_type;
	return r;
}

/*
 * COALESCE: the first argument that is not NULL; the rest not evaluated.
 * As sum/avg's own argument (Compiler.mixed_case, sum(COALESCE(amount,
 * 0))) its numeric arguments may differ in scale, as a CASE's branches.
 */
static int
compile_coalesce(Compiler *c, CoalesceExpr *ce, int *type)
{
	int			t = conditional_type(ce->coalescetype),
				scale = -1,
				r,
				base,
				nends = 0;
	int		   *ends = palloc(sizeof(int) * list_length(ce->args));
	bool		mixed = (Expr *) ce == c->mixed_case && t == GA_T_NUMERIC;
	int			ds = -1,
				nb = 0;
	int		   *at = palloc(sizeof(int) * list_length(ce->args));
	int		   *from = palloc(sizeof(int) * list_length(ce->args));
	ListCell   *lc;

	c->mixed_case = NULL;
	if (t == GA_T_INVALID || t == GA_T_NULLONLY)
		return fail(c, "COALESCE of type %s", format_type_be(ce->coalescetype)), -1;
	if (mixed && (ds = alloc_reg(c)) < 0)
		return -1;
	if ((r = alloc_reg(c)) < 0)
		return -1;
	base = c->nextreg;
	foreach(lc, ce->args)
	{
		int			isnull;

		if (mixed ? !compile_mixed_branch(c, lfirst(lc), r, ds, &at[nb], &from[nb]) :
			!compile_branch(c, lfirst(lc), t, r, "COALESCE", &scale))
			return -1;
		nb++;
		c->nextreg = base;
		if (lnext(ce->args, lc) == NULL)
			break;
		/* not NULL: done */
		if ((isnull = alloc_reg(c)) < 0 ||
			emit(c, GA_OP_ISNULL, GA_T_BOOL, isnull, r, 0, 0) < 0 ||
			(ends[nends++] = emit_jump(c, isnull)) < 0)
			return -1;
		c->nextreg = base;
	}
	emit_patch(c, ends, nends);
	if (mixed)
		scale = mixed_scales(c, nb, at, from, ds);
	c->nextreg = r + 1;
	c->regscale[r] = Max(scale, 0);
	*type = t;
	return r;
}

/* NULLIF(a, b): NULL where a = b (the operator's own), else a. */
static int
compile_nullif(Compiler *c, NullIfExpr *ne, int *type)
{
	Oid			typid = exprType(linitial(ne->args));
	int			t = conditional_type(typid),
				scale = -1,
				r,
				f,
				base,
				et,
				eq,
				skip,
				end,
				n;

	if (t == GA_T_INVALID || t == GA_T_NULLONLY)
		return fail(c, "NULLIF of type %s", format_type_be(typid)), -1;
	set_opfuncid((OpExpr *) ne);
	r = alloc_reg(c);
	f = emit_const(c, BoolGetDatum(false), false, GA_T_BOOL);
	if (r < 0 || f < 0)
		return -1;
	base = c->nextreg;
	eq = compile_opexpr(c, ne->opno, ne->opfuncid, ne->inputcollid, BOOLOID, ne->args, &et);
	if ((skip = emit_jump_unless(c, eq, et, "NULLIF")) < 0)
		return -1;
	c->nextreg = base;
	if ((n = emit_null(c, t, typid)) < 0 ||
		emit(c, GA_OP_MOVE, t, r, n, 0, 0) < 0 ||
		(end = emit_jump(c, f)) < 0)
		return -1;
	emit_patch(c, &skip, 1);
	c->nextreg = base;
	if (!compile_branch(c, linitial(ne->args), t, r, "NULLIF", &scale))
		return -1;
	emit_patch(c, &end, 1);
	c->nextreg = r + 1;
	c->regscale[r] = Max(scale, 0);
	*type = t;
	return r;
}

/* arg IS [NOT] NULL, of a scalar */
static NullTest *
null_test(Expr *arg, NullTestType kind)
{
	NullTest   *n = makeNode(NullTest);

	n->arg = copyObject(arg);
	n->nulltesttype = kind;
	n->argisrow = false;
	n->location = -1;
	return n;
}

/*
 * a IS DISTINCT FROM b: two NULLs are not distinct, a NULL and a value
 * are, two values are where the operator's own equality says they are not
 * equal (ExecEvalDistinct).  Compiled as the CASE
 *
 *	  CASE WHEN a IS NULL THEN b IS NOT NULL WHEN b IS NULL THEN true
 *		   ELSE NOT (a = b) END
 *
 * so each argument is evaluated twice: not where one is volatile.  (IS
 * NOT DISTINCT FROM is a NOT above it.)
 */
static int
compile_distinct(Compiler *c, DistinctExpr *de, int *type)
{
	Expr	   *a = linitial(de->args),
			   *b = lsecond(de->args);
	CaseExpr   *ce = makeNode(CaseExpr);
	CaseWhen   *w1 = makeNode(CaseWhen),
			   *w2 = makeNode(CaseWhen);
	OpExpr	   *eq;

	if (contain_volatile_functions((Node *) de->args))
		return fail(c, "IS DISTINCT FROM of a volatile expression"), -1;
	set_opfuncid((OpExpr *) de);
	eq = (OpExpr *) make_opclause(de->opno, BOOLOID, false, copyObject(a), copyObject(b),
								  InvalidOid, de->inputcollid);
	eq->opfuncid = de->opfuncid;
	w1->expr = (Expr *) null_test(a, IS_NULL);
	w1->result = (Expr *) null_test(b, IS_NOT_NULL);
	w1->location = -1;
	w2->expr = (Expr *) null_test(b, IS_NULL);
	w2->result = (Expr *) makeBoolConst(true, false);
	w2->location = -1;
	ce->casetype = BOOLOID;
	ce->casecollid = InvalidOid;
	ce->arg = NULL;
	ce->args = list_make2(w1, w2);
	ce->defresult = (Expr *) makeBoolExpr(NOT_EXPR, list_make1(eq), -1);
	ce->location = -1;
	return compile_case(c, ce, type);
}

/*
 * GREATEST/LEAST: NULLs skipped, NULL only when all are; an argument
 * replaces the result where it compares greater (less), as
 * ExecEvalMinMax does with the type's btree order.
 */
static int
compile_minmax(Compiler *c, MinMaxExpr *mm, int *type)
{
	const char *what = mm->op == IS_GREATEST ? "GREATEST" : "LEAST";
	int			t = conditional_type(mm->minmaxtype),
				scale = -1,
				r,
				base;
	ListCell   *lc;

	if (t == GA_T_INVALID || t == GA_T_NULLONLY || t == GA_T_TEXT)
		return fail(c, "%s of type %s", what, format_type_be(mm->minmaxtype)), -1;
	if ((r = alloc_reg(c)) < 0)
		return -1;
	base = c->nextreg;
	foreach(lc, mm->args)
	{
		int			vt,
					v,
					tmp,
					jumps[3];

		if (lc == list_head(mm->args))
		{
			if (!compile_branch(c, lfirst(lc), t, r, what, &scale))
				return -1;
			c->nextreg = base;
			continue;
		}
		if ((v = compile_expr(c, lfirst(lc), &vt)) < 0)
			return -1;
		if (vt != t)
			return fail(c, "%s whose arguments differ in type", what), -1;
		/* numerics: one scale, as a CASE's branches (compile_branch) */
		if (t == GA_T_NUMERIC &&
			!(IsA(lfirst(lc), Const) && ((Const *) lfirst(lc))->constisnull))
		{
			if (scale >= 0 && scale != c->regscale[v])
				return fail(c, "%s of numerics of different scales (%d and %d)", what,
							scale, c->regscale[v]), -1;
			scale = c->regscale[v];
		}
		if ((tmp = alloc_reg(c)) < 0 ||
		/* v NULL: skip it */
			emit(c, GA_OP_ISNOTNULL, GA_T_BOOL, tmp, v, 0, 0) < 0 ||
			(jumps[0] = emit_jump(c, tmp)) < 0 ||
		/* the result NULL: take v */
			emit(c, GA_OP_ISNOTNULL, GA_T_BOOL, tmp, r, 0, 0) < 0 ||
			(jumps[1] = emit_jump(c, tmp)) < 0 ||
		/* v beyond the result: take it, else skip it */
			emit(c, mm->op == IS_GREATEST ? GA_OP_GT : GA_OP_LT,
				 ga_type_is_float(t) ? GA_T_FLOAT8 : GA_T_INT8, tmp, v, r, 0) < 0 ||
			(jumps[2] = emit_jump(c, tmp)) < 0)
			return -1;
		emit_patch(c, &jumps[1], 1);
		if (emit(c, GA_OP_MOVE, t, r, v, 0, 0) < 0)
			return -1;
		emit_patch(c, &jumps[0], 1);
		emit_patch(c, &jumps[2], 1);
		c->nextreg = base;
	}
	c->nextreg = r + 1;
	c->regscale[r] = Max(scale, 0);
	*type = t;
	return r;
}

static int
compile_expr(Compiler *c, Expr *expr, int *type)
{
	int			r,
				t;
	bool		uuid_ok = c->uuid_ok;

	if (expr == NULL)
		return fail(c, "missing expression"), -1;
	check_stack_depth();
	/* (this expression's, not its arguments') */
	c->uuid_ok = false;
	/* (a domain's column relabeled as uuid: the column's bytes) */
	while (uuid_ok && IsA(expr, RelabelType) && exprType((Node *) expr) == UUIDOID)
		expr = ((RelabelType *) expr)->arg;
	if (IsA(expr, Var) && ((Var *) expr)->vartype == UUIDOID)
		return compile_uuid_var(c, (Var *) expr, uuid_ok, type);
	if (IsA(expr, Const) && ((Const *) expr)->consttype == UUIDOID && uuid_ok)
	{
		*type = GA_T_TEXT;
		return emit_text_const(c, ((Const *) expr)->constvalue, ((Const *) expr)->constisnull,
							   UUIDOID, -1);
	}

	if (is_scan_constant(expr))
	{
		t = GpuaggTypeOf(exprType((Node *) expr));
		if (t == GA_T_INVALID)
			return fail(c, "%s", expression_words((Node *) expr)), -1;
		*type = t;
		return compile_scan_constant(c, expr, t, false);
	}
	/*
	 * A stable expression without columns the devices cannot compute
	 * (current_date - 30 they can, and in parallel plans): a guarded scan
	 * constant, the largest such expression around it
	 */
	if (!c->trying && guarded_constant(expr))
	{
		GpuaggProgram *saved = palloc(sizeof(GpuaggProgram));
		Compiler	savedc = *c;
		int			nparams = list_length(c->prog->params);

		memcpy(saved, c->prog, sizeof(GpuaggProgram));
		saved->guarded = bms_copy(c->prog->guarded);
		c->trying = true;
		r = compile_expr(c, expr, type);
		c->trying = false;
		if (r >= 0)
		{
			pfree(saved);
			return r;
		}
		memcpy(c->prog, saved, sizeof(GpuaggProgram));
		/* (a List appended to in place) */
		c->prog->params = list_truncate(c->prog->params, nparams);
		*c = savedc;
		pfree(saved);
		t = GpuaggTypeOf(exprType((Node *) expr));
		if (t == GA_T_INVALID)
			return fail(c, "%s", expression_words((Node *) expr)), -1;
		*type = t;
		return compile_scan_constant(c, expr, t, true);
	}
	if ((IsA(expr, FuncExpr) || IsA(expr, OpExpr)) &&
		(r = compile_string_func(c, expr, type)) != -1)
		return r < 0 ? -1 : r;
	switch (nodeTag(expr))
	{
		case T_Var:
			t = ((Var *) expr)->vartype == NUMERICOID ? GA_T_NUMERIC :
				GpuaggTypeOf(((Var *) expr)->vartype);
			if (t == GA_T_INVALID)
				return fail(c, "column of type %s",
							format_type_be(((Var *) expr)->vartype)), -1;
			*type = t;
			return compile_var(c, (Var *) expr, t);
		case T_Const:
			{
				Const	   *k = (Const *) expr;

				if (k->consttype == NUMERICOID)
				{
					*type = GA_T_NUMERIC;
					return emit_numeric_const(c, k);
				}
				t = GpuaggTypeOf(k->consttype);
				if (t == GA_T_INVALID)
					return fail(c, "constant of type %s",
								format_type_be(k->consttype)), -1;
				*type = t;
				if (t == GA_T_TEXT)
					return emit_text_const(c, k->constvalue, k->constisnull,
										   k->consttype, -1);
				return emit_const(c, k->constvalue, k->constisnull, t);
			}
		case T_Param:
			/* a numeric one at the scale of what it is compared with */
			if (((Param *) expr)->paramtype == NUMERICOID && c->param_scale < 0)
				return fail(c, "a numeric parameter other than an operand of a comparison"), -1;
			t = conditional_type(((Param *) expr)->paramtype);
			if (t == GA_T_INVALID)
				return fail(c, "parameter of type %s",
							format_type_be(((Param *) expr)->paramtype)), -1;
			*type = t;
			return compile_scan_constant(c, expr, t, false);
		case T_OpExpr:
			{
				OpExpr	   *op = (OpExpr *) expr;

				set_opfuncid(op);
				return compile_opexpr(c, op->opno, op->opfuncid, op->inputcollid,
									  op->opresulttype, op->args, type);
			}
		case T_FuncExpr:
			return compile_func(c, (FuncExpr *) expr, type);
		case T_CaseExpr:
			return compile_case(c, (CaseExpr *) expr, type);
		case T_CaseTestExpr:
			return compile_case_test(c, type);
		case T_CoalesceExpr:
			return compile_coalesce(c, (CoalesceExpr *) expr, type);
		case T_NullIfExpr:
			return compile_nullif(c, (NullIfExpr *) expr, type);
		case T_DistinctExpr:
			return compile_distinct(c, (DistinctExpr *) expr, type);
		case T_MinMaxExpr:
			return compile_minmax(c, (MinMaxExpr *) expr, type);
		case T_BoolExpr:
			{
				BoolExpr   *b = (BoolExpr *) expr;

				*type = GA_T_BOOL;
				if (b->boolop == AND_EXPR)
					return compile_bool_chain(c, b->args, GA_OP_AND_STEP, true);
				if (b->boolop == OR_EXPR)
					return compile_bool_chain(c, b->args, GA_OP_OR_STEP, false);
				r = compile_expr(c, linitial(b->args), &t);
				if (r < 0 || emit(c, GA_OP_NOT, GA_T_BOOL, r, r, 0, 0) < 0)
					return -1;
				return r;
			}
		case T_NullTest:
			{
				NullTest   *n = (NullTest *) expr;
				Expr	   *arg = strip_relabel(n->arg);
				Oid			argtype = exprType((Node *) n->arg);
				Oid			base = getBaseType(argtype);

				if (n->argisrow)
					return fail(c, "row-valued IS NULL"), -1;
				/*
				 * a column of a type the devices do not read (interval,
				 * jsonb, inet, ...): its NULL-ness alone, as count(x)'s
				 */
				if (IsA(arg, Var) && argtype != UUIDOID &&
					GpuaggTypeOf(base) == GA_T_INVALID && base != NUMERICOID)
					r = compile_var(c, (Var *) arg, GA_T_NULLONLY);
				else
				{
					c->uuid_ok = true;
					r = compile_expr(c, n->arg, &t);
				}
				if (r < 0 ||
					emit(c, n->nulltesttype == IS_NULL ? GA_OP_ISNULL : GA_OP_ISNOTNULL,
						 GA_T_BOOL, r, r, 0, 0) < 0)
					return -1;
				*type = GA_T_BOOL;
				return r;
			}
		case T_BooleanTest:
			{
				BooleanTest *bt = (BooleanTest *) expr;
				int			op;

				switch (bt->booltesttype)
				{
					case IS_TRUE:
						op = GA_OP_ISTRUE;
						break;
					case IS_NOT_TRUE:
						op = GA_OP_ISNOTTRUE;
						break;
					case IS_FALSE:
						op = GA_OP_ISFALSE;
						break;
					case IS_NOT_FALSE:
						op = GA_OP_ISNOTFALSE;
						break;
					case IS_UNKNOWN:
						op = GA_OP_ISNULL;
						break;
					default:
						op = GA_OP_ISNOTNULL;
						break;
				}
				r = compile_expr(c, bt->arg, &t);
				if (r < 0 || emit(c, op, GA_T_BOOL, r, r, 0, 0) < 0)
					return -1;
				*type = GA_T_BOOL;
				return r;
			}
		case T_ScalarArrayOpExpr:
			return compile_saop(c, (ScalarArrayOpExpr *) expr, type);
		case T_RelabelType:
			{
				RelabelType *rl = (RelabelType *) expr;

				r = compile_expr(c, rl->arg, &t);
				if (r >= 0 && t != (rl->resulttype == NUMERICOID ? GA_T_NUMERIC :
									GpuaggTypeOf(rl->resulttype)))
					return fail(c, "unsupported type relabeling"), -1;
				*type = t;
				return r;
			}
		default:
			return fail(c, "%s", expression_words((Node *) expr)), -1;
	}
}

/* Compile a segment that leaves one value in a register. */
static bool
compile_segment(Compiler *c, Expr *expr, GaSegment *seg, int *type)
{
	c->nextreg = 0;
	seg->start = c->prog->ga.ninstr;
	/* an interval: a difference of timestamps, by its microseconds */
	if (exprType((Node *) expr) == INTERVALOID)
	{
		seg->reg = compile_span(c, expr, c->span_ok ? GA_IV_SPAN : GA_IV_NONE);
		*type = GA_T_INT8;
	}
	else
		seg->reg = compile_expr(c, expr, type);
	seg->end = c->prog->ga.ninstr;
	return seg->reg >= 0;
}

/* The device accumulator for an aggregate's transition function. */
static int
agg_kind(Oid transfn)
{
	switch (transfn)
	{
		case F_INT8INC:
		case F_INT8INC_ANY:
			return GA_AGG_COUNT;
		case F_INT2_SUM:
		case F_INT4_SUM:
		case F_INT2_AVG_ACCUM:
		case F_INT4_AVG_ACCUM:
			return GA_AGG_SUM_I64;
		case F_INT8_AVG_ACCUM:
		case F_NUMERIC_AVG_ACCUM:	/* numeric arguments: scaled int64s */
			return GA_AGG_SUM_I128;
		case F_INT2_ACCUM:
		case F_INT4_ACCUM:
			return GA_AGG_VAR_I128;
		case F_INT8_ACCUM:
		case F_NUMERIC_ACCUM:
			return GA_AGG_VAR_I192;
		case F_FLOAT4PL:
			return GA_AGG_SUM_F4;
		case F_FLOAT8PL:
			return GA_AGG_SUM_F8;
		case F_FLOAT4_ACCUM:
		case F_FLOAT8_ACCUM:
			return GA_AGG_ACCUM_F8;
		case F_INT2LARGER:
		case F_INT4LARGER:
		case F_INT8LARGER:
		case F_FLOAT4LARGER:
		case F_FLOAT8LARGER:
		case F_DATE_LARGER:
		case F_TIMESTAMP_LARGER:
		case F_TIMESTAMPTZ_LARGER:
		case F_NUMERIC_LARGER:
			return GA_AGG_MAX;
		case F_INT2SMALLER:
		case F_INT4SMALLER:
		case F_INT8SMALLER:
		case F_FLOAT4SMALLER:
		case F_FLOAT8SMALLER:
		case F_DATE_SMALLER:
		case F_TIMESTAMP_SMALLER:
		case F_TIMESTAMPTZ_SMALLER:
		case F_NUMERIC_SMALLER:
			return GA_AGG_MIN;
		case F_BOOLAND_STATEFUNC:
			return GA_AGG_BOOL_AND;
		case F_BOOLOR_STATEFUNC:
			return GA_AGG_BOOL_OR;
		case F_FLOAT8_REGR_ACCUM:
			return GA_AGG_REGR_F8;
		case F_INTERVAL_LARGER:	/* of a difference of timestamps */
			return GA_AGG_MAX;
		case F_INTERVAL_SMALLER:
			return GA_AGG_MIN;
		case F_INTERVAL_PL:
		case F_INTERVAL_ACCUM:
			return GA_AGG_SUM_IV;
		case F_INT8INC_FLOAT8_FLOAT8:	/* regr_count(Y, X) */
			return GA_AGG_COUNT;
		default:
			return 0;
	}
}

static bool compile_filter(Compiler *c, Aggref *aggref, GaAgg *ag);
static bool compile_interval_sum(Compiler *c, GaAgg *ag, Var *var);
static bool compile_ordered(Compiler *c, Aggref *aggref, GaAgg *ag);

/*
 * corr(Y, X), covar_pop/covar_samp, regr_*: one segment computes Y, then
 * X above it (compile_expr leaves its result on top of the register
 * stack), both float8 as the aggregates' signatures make them; a row
 * where either is NULL is skipped (the transition functions are strict).
 */
static bool
compile_pair(Compiler *c, Aggref *aggref, GaAgg *ag)
{
	int			ty,
				tx;

	if (ag->kind != GA_AGG_REGR_F8 && ag->kind != GA_AGG_COUNT)
		return fail(c, "aggregate with 2 arguments");
	if (c->npairs >= GA_MAX_PAIRS)
		return fail(c, "more than %d two-argument aggregates", GA_MAX_PAIRS);
	c->nextreg = 0;
	ag->arg.start = c->prog->ga.ninstr;
	ag->arg.reg = compile_expr(c, ((TargetEntry *) linitial(aggref->args))->expr, &ty);
	if (ag->arg.reg < 0)
		return false;
	ag->arg2 = compile_expr(c, ((TargetEntry *) lsecond(aggref->args))->expr, &tx);
	if (ag->arg2 < 0)
		return false;
	ag->arg.end = c->prog->ga.ninstr;
	if (ty != GA_T_FLOAT8 || tx != GA_T_FLOAT8)
		return fail(c, "%s of other than float8", get_func_name(aggref->aggfnoid));
	ag->argtype = GA_T_FLOAT8;
	ag->pair = c->npairs++;
	return compile_filter(c, aggref, ag);
}

/*
 * Room for one more distinct set (a DISTINCT, ordered-set or min/max of
 * strings aggregate's), keyed by the group keys and the value.
 */
static bool
reserve_set(Compiler *c, const char *what)
{
	GaProgram  *p = &c->prog->ga;

	if (p->ndistinct >= GA_MAX_DISTINCT)
		return fail(c, "more than %d DISTINCT, ordered-set and min/max of strings aggregates",
					GA_MAX_DISTINCT);
	if (p->nkeys + 1 > GA_MAX_KEYS)
		return fail(c, "%s with more than %d group keys", what, GA_MAX_KEYS - 1);
	return true;
}

/*
 * percentile_disc(f), percentile_cont(f) and mode() WITHIN GROUP (ORDER BY
 * x [DESC]): x goes to a counted set (each value with its rows), which
 * the device selects from at the end (GA_AGG_PCT_*, GA_AGG_MODE); f is a
 * constant, checked by the host when it finishes a group (result.c), as
 * the final functions check it.  Values are ordered by their bits
 * (ga_order_bits); strings, whose order is the collation's, and an array
 * of fractions are selected by the host.
 */
static bool
compile_ordered(Compiler *c, Aggref *aggref, GaAgg *ag)
{
	const char *name = psprintf("%s(%s)", get_func_name(aggref->aggfnoid),
								aggref->aggdirectargs ? "..." : "");
	SortGroupClause *sgc;
	TypeCacheEntry *tc;
	Oid			argtype;
	int			t;
	bool		multi = false;

	switch (aggref->aggfnoid)
	{
		case F_PERCENTILE_DISC_FLOAT8_ANYELEMENT:
			ag->kind = GA_AGG_PCT_DISC;
			break;
		case F_PERCENTILE_CONT_FLOAT8_FLOAT8:
		case F_PERCENTILE_CONT_FLOAT8_INTERVAL:
			ag->kind = GA_AGG_PCT_CONT;
			break;
		case F_PERCENTILE_DISC__FLOAT8_ANYELEMENT:
			ag->kind = GA_AGG_PCT_DISC;
			multi = true;
			break;
		case F_PERCENTILE_CONT__FLOAT8_FLOAT8:
		case F_PERCENTILE_CONT__FLOAT8_INTERVAL:
			ag->kind = GA_AGG_PCT_CONT;
			multi = true;
			break;
		case F_MODE:
			ag->kind = GA_AGG_MODE;
			break;
		default:
			return fail(c, "%s(%s) WITHIN GROUP (ORDER BY %s)",
						get_func_name(aggref->aggfnoid),
						list_length(aggref->aggdirectargs) == 1 ?
						format_type_be(exprType(linitial(aggref->aggdirectargs))) : "",
						format_type_be(exprType((Node *) linitial_node(TargetEntry, aggref->args)->expr)));
	}
	ag->distinct = -1;
	ag->arg2 = -1;
	ag->pair = -1;
	ag->fraction = 0.0;
	ag->host_select = 0;
	if (ag->kind != GA_AGG_MODE)
	{
		Node	   *f = linitial(aggref->aggdirectargs);

		if (!IsA(f, Const))
			return fail(c, "%s with a fraction other than a constant", name);
		/*
		 * an array of fractions: the host selects each from the set, as
		 * it does strings (result.c's ordered_array)
		 */
		if (multi)
			ag->host_select = 1;
		else if (!((Const *) f)->constisnull)
			ag->fraction = DatumGetFloat8(((Const *) f)->constvalue);
	}
	if (list_length(aggref->args) != 1 || list_length(aggref->aggorder) != 1)
		return fail(c, "%s(...) WITHIN GROUP of %d values", name, list_length(aggref->args));
	argtype = exprType((Node *) linitial_node(TargetEntry, aggref->args)->expr);
	sgc = linitial_node(SortGroupClause, aggref->aggorder);
	tc = lookup_type_cache(argtype, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
	if (sgc->sortop != tc->lt_opr && sgc->sortop != tc->gt_opr)
		return fail(c, "%s WITHIN GROUP (ORDER BY ... USING %s)", name,
					get_opname(sgc->sortop));
	ag->desc = (sgc->sortop == tc->gt_opr);
	if (!compile_sorted_set(c, aggref, ag, linitial_node(TargetEntry, aggref->args)->expr,
							name, true, &t))
		return false;
	if (ag->kind == GA_AGG_PCT_CONT && t != GA_T_FLOAT8 &&
		!(t == GA_T_INT8 && argtype == INTERVALOID))
		return fail(c, "%s of other than float8 or interval", name);
	return compile_filter(c, aggref, ag);
}

/*
 * The counted set of an ordered-set aggregate (compile_ordered) or of
 * array_agg or string_agg in order (compile_list), of the values of arg,
 * ordered by its type's < or > (ag->desc set); *type its GaType.
 */
static bool
compile_sorted_set(Compiler *c, Aggref *aggref, GaAgg *ag, Expr *arg, const char *name,
				   bool within_group, int *type)
{
	GaProgram  *p = &c->prog->ga;
	Oid			argtype = exprType((Node *) arg);
	int			t;

	if (!reserve_set(c, within_group ? "an ordered-set aggregate" : name))
		return false;
	if (!compile_segment(c, arg, &ag->arg, &t))
		return false;
	/*
	 * bpchar: its strings' codes are of their values without trailing
	 * spaces, which bpcharcmp orders and bpchareq counts together; the
	 * host pads the value it picks to n again (host_datum), the value
	 * every such string of a char(n) holds.  An unbounded bpchar's values
	 * may differ in their spaces alone: not offloaded.
	 */
	if (getBaseType(argtype) == BPCHAROID)
	{
		int32		typmod = exprTypmod((Node *) arg);

		if (typmod <= VARHDRSZ)
			return within_group ?
				fail(c, "%s WITHIN GROUP (ORDER BY bpchar without a length: only char(n))", name) :
				fail(c, "%s of bpchar without a length (only of char(n))", name);
		c->prog->extreme_typmod[p->ndistinct] = typmod;
	}
	if (t == GA_T_TEXT)
	{
		/*
		 * Strings sort by their collation, which the device does not know:
		 * it returns each group's strings with their rows, and the host
		 * selects (GpuaggSortOrderedSets).
		 */
		Oid			collid = exprCollation((Node *) arg);

		if (!(within_group ?
			  check_order_collation(c, collid, psprintf("%s WITHIN GROUP (ORDER BY strings", name), ")") :
			  check_order_collation(c, collid, psprintf("%s of strings", name), "")))
			return false;
		ag->host_select = 1;
		c->prog->extreme_collid[p->ndistinct] = collid;
	}
	ag->argtype = t;
	if (t == GA_T_NUMERIC)
		ag->argscale = c->regscale[ag->arg.reg];
	ag->distinct = p->ndistinct++;
	*type = t;
	return true;
}

/* expr without the relabelings (a collation, a binary cast) over it */
static Expr *
strip_relabel(Expr *expr)
{
	while (IsA(expr, RelabelType))
		expr = ((RelabelType *) expr)->arg;
	return expr;
}

/*
 * array_agg(x) and string_agg(x, delimiter) with DISTINCT or ORDER BY x
 * [DESC]: what they return is the group's values in x's order (each once,
 * or as often as it came), which is the counted set an ordered-set
 * aggregate keeps (compile_ordered), sorted by the host
 * (GpuaggSortOrderedSets) and made into the array or string there
 * (result.c's list_value).  Without either their order is the input's,
 * which no device keeps.  NULLs: string_agg skips them, as the set does;
 * array_agg keeps them, so the planner offloads it only of a column that
 * holds none (planner.c).  The delimiter is a constant.
 */
static bool
compile_list(Compiler *c, Aggref *aggref, GaAgg *ag)
{
	const char *name = aggref->aggfnoid == F_ARRAY_AGG_ANYNONARRAY ? "array_agg" : "string_agg";
	List	   *sortlist = aggref->aggdistinct != NIL ? aggref->aggdistinct : aggref->aggorder;
	TargetEntry *arg = linitial_node(TargetEntry, aggref->args);
	TargetEntry *sort;
	TypeCacheEntry *tc;
	SortGroupClause *sgc;
	ListCell   *lc;
	int			t;

	if (sortlist == NIL)
		return fail(c, "%s without DISTINCT or ORDER BY (its order is the input's)", name);
	if (aggref->aggfnoid == F_STRING_AGG_TEXT_TEXT &&
		!IsA(lsecond_node(TargetEntry, aggref->args)->expr, Const))
		return fail(c, "string_agg with a delimiter other than a constant");
	/*
	 * The first sort column the value itself, by its type's order; the
	 * others constants (DISTINCT's of string_agg: the delimiter), which
	 * break no tie.
	 */
	sgc = linitial_node(SortGroupClause, sortlist);
	sort = get_sortgroupclause_tle(sgc, aggref->args);
	/* (the value, maybe under another collation or before a binary cast) */
	if (sort != arg && !equal(strip_relabel(sort->expr), strip_relabel(arg->expr)))
		return fail(c, "%s(... ORDER BY other than its value)", name);
	foreach(lc, sortlist)
	{
		TargetEntry *tle = get_sortgroupclause_tle(lfirst_node(SortGroupClause, lc),
												   aggref->args);

		if (foreach_current_index(lc) > 0 && !IsA(tle->expr, Const))
			return fail(c, "%s(... ORDER BY more than its value)", name);
	}
	tc = lookup_type_cache(exprType((Node *) sort->expr), TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
	if (sgc->sortop != tc->lt_opr && sgc->sortop != tc->gt_opr)
		return fail(c, "%s(... ORDER BY ... USING %s)", name, get_opname(sgc->sortop));
	ag->kind = GA_AGG_MODE;		/* (the device keeps the set as mode()'s) */
	ag->desc = (sgc->sortop == tc->gt_opr);
	ag->arg2 = -1;
	ag->pair = -1;
	ag->fraction = 0.0;
	/* the host makes the list from the set, in order */
	ag->host_select = 1;
	/* (the value under the ORDER BY's collation: ORDER BY t COLLATE "C") */
	if (!compile_sorted_set(c, aggref, ag, sort->expr, name, false, &t))
		return false;
	/*
	 * The set keeps -0 as 0 (ga_canonical_key), which a list, showing every
	 * value, would show
	 */
	if (ga_type_is_float(t))
		return fail(c, "%s of floats (their set does not tell -0 from 0)", name);
	return compile_filter(c, aggref, ag);
}

static bool
compile_aggref(Compiler *c, Aggref *aggref, GaAgg *ag)
{
	HeapTuple	tup;
	Oid			transfn;
	int			t;

	if (aggref->agglevelsup != 0)
		return fail(c, "outer-level aggregate");
	/* a user-defined aggregate may reuse a built-in transition function
	 * with another initial value or final function: only built-ins */
	if (aggref->aggfnoid >= FirstGenbkiObjectId)
		return fail(c, "user-defined aggregate %s", get_func_name(aggref->aggfnoid));
	if (aggref->aggkind == AGGKIND_ORDERED_SET)
		return compile_ordered(c, aggref, ag);
	if (aggref->aggkind != AGGKIND_NORMAL)
		return fail(c, "%s(...) WITHIN GROUP (a hypothetical-set aggregate)",
					get_func_name(aggref->aggfnoid));
	if (aggref->aggfnoid == F_ARRAY_AGG_ANYNONARRAY ||
		aggref->aggfnoid == F_STRING_AGG_TEXT_TEXT)
		return compile_list(c, aggref, ag);
	if (aggref->aggorder != NIL)
		return fail(c, "ORDER BY inside an aggregate");
	if (aggref->aggvariadic)
		return fail(c, "variadic aggregate call");
	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggref->aggfnoid));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for aggregate %u", aggref->aggfnoid);
	transfn = ((Form_pg_aggregate) GETSTRUCT(tup))->aggtransfn;
	ReleaseSysCache(tup);

	ag->kind = agg_kind(transfn);
	ag->distinct = -1;
	ag->arg2 = -1;
	ag->pair = -1;
	if (transfn == F_TEXT_LARGER || transfn == F_TEXT_SMALLER ||
		transfn == F_BPCHAR_LARGER || transfn == F_BPCHAR_SMALLER)
	{
		/*
		 * min/max of text: the device keeps the set of (group, value) and
		 * the host picks each group's smallest or largest string as
		 * text_smaller and text_larger do, by varstr_cmp under the
		 * aggregate's collation.  Of a char(n) likewise, as bpchar_smaller
		 * and bpchar_larger do, by the values without their trailing
		 * spaces (a string register's equality code); every value of a
		 * char(n) is padded to n, so the one picked is too.  An unbounded
		 * bpchar's values may differ in their spaces alone, and native
		 * keeps the first of those it meets: not offloaded.
		 */
		GaProgram  *p = &c->prog->ga;
		bool		bpchar = transfn == F_BPCHAR_LARGER || transfn == F_BPCHAR_SMALLER;
		int32		typmod = exprTypmod((Node *) linitial_node(TargetEntry, aggref->args)->expr);

		if (bpchar && typmod <= VARHDRSZ)
			return fail(c, "%s of bpchar without a length (only of char(n))",
						get_func_name(aggref->aggfnoid));
		if (!check_order_collation(c, aggref->inputcollid,
								   psprintf("%s of strings", get_func_name(aggref->aggfnoid)), ""))
			return false;
		if (!reserve_set(c, "min/max of strings"))
			return false;
		ag->kind = (transfn == F_TEXT_LARGER || transfn == F_BPCHAR_LARGER) ?
			GA_AGG_MAX : GA_AGG_MIN;
		c->prog->extreme_collid[p->ndistinct] = aggref->inputcollid;
		c->prog->extreme_typmod[p->ndistinct] = bpchar ? typmod : 0;
		ag->distinct = p->ndistinct++;
	}
	if (ag->kind == 0)
		return fail(c, "aggregate %s", format_procedure(aggref->aggfnoid));
	if (aggref->aggdistinct != NIL &&
		(ag->kind == GA_AGG_MIN || ag->kind == GA_AGG_MAX ||
		 ag->kind == GA_AGG_BOOL_AND || ag->kind == GA_AGG_BOOL_OR))
		 /* DISTINCT changes nothing in min, max, bool_and and bool_or */ ;
	else if (aggref->aggdistinct != NIL && list_length(aggref->args) > 1)
		return fail(c, "DISTINCT inside %s", get_func_name(aggref->aggfnoid));
	else if (aggref->aggdistinct != NIL)
	{
		/*
		 * count(DISTINCT x): the device de-duplicates (group, x) pairs and
		 * counts them; sum, avg, variance and stddev of DISTINCT x: it
		 * de-duplicates them, and the host folds each group's values in
		 * their sorted order (GpuaggFoldDistinct), as nodeAgg does
		 */
		GaProgram  *p = &c->prog->ga;

		if (aggref->aggstar)
			return fail(c, "DISTINCT inside an aggregate other than count");
		if (ag->kind == GA_AGG_SUM_IV)
			return fail(c, "DISTINCT inside %s of an interval", get_func_name(aggref->aggfnoid));
		if (!reserve_set(c, "a DISTINCT aggregate"))
			return false;
		if (!check_collation(c, aggref->inputcollid, "count(DISTINCT)"))
			return false;
		ag->distinct = p->ndistinct++;
	}
	if (ag->kind == GA_AGG_COUNT && aggref->aggstar)
	{
		ag->argtype = 0;
		ag->arg.reg = -1;
	}
	else
	{
		Expr	   *arg;

		if (list_length(aggref->args) == 2)
			return compile_pair(c, aggref, ag);
		if (list_length(aggref->args) != 1)
			return fail(c, "aggregate with %d arguments", list_length(aggref->args));
		arg = ((TargetEntry *) linitial(aggref->args))->expr;
		if (ag->kind == GA_AGG_SUM_IV && ag->distinct < 0 && IsA(strip_relabel(arg), Var))
		{
			if (!compile_interval_sum(c, ag, (Var *) strip_relabel(arg)))
				return false;
		}
		else if (ag->kind == GA_AGG_COUNT && ag->distinct < 0 && IsA(arg, Var))
		{
			/* count(col) of any type needs only the column's NULL-ness */
			c->nextreg = 0;
			ag->arg.start = c->prog->ga.ninstr;
			ag->arg.reg = compile_var(c, (Var *) arg, GA_T_NULLONLY);
			ag->arg.end = c->prog->ga.ninstr;
			ag->argtype = GA_T_NULLONLY;
			if (ag->arg.reg < 0)
				return false;
		}
		else
		{
			bool		extreme = ag->kind == GA_AGG_MIN || ag->kind == GA_AGG_MAX;
			bool		branched,
						ok;
			List	   *quotient = NIL;

			/*
			 * sum/avg of a numeric CASE or COALESCE: its branches may
			 * differ in scale, the largest display scale going along
			 * (GA_AGG_SUM_I128_DS)
			 */
			c->mixed_case = ag->kind == GA_AGG_SUM_I128 && ag->distinct < 0 &&
				(IsA(arg, CaseExpr) || IsA(arg, CoalesceExpr)) &&
				exprType((Node *) arg) == NUMERICOID ? arg : NULL;
			c->mixed_ds_reg = -1;
			/*
			 * ... or of a numeric quotient (compile_numeric_div), whose
			 * display scale min and max show (the host's, from the value)
			 * and count does not
			 */
			if ((ag->kind == GA_AGG_SUM_I128 && ag->distinct < 0) || extreme ||
				ag->kind == GA_AGG_COUNT)
				quotient = division_args(arg);
			c->div_args = quotient;
			c->div_sum = quotient != NIL && ag->kind == GA_AGG_SUM_I128;
			branched = c->mixed_case != NULL;
			c->uuid_ok = ag->kind == GA_AGG_COUNT;
			c->span_ok = ag->kind == GA_AGG_COUNT && ag->distinct >= 0;
			ok = compile_segment(c, arg, &ag->arg, &t);
			c->uuid_ok = false;
			c->span_ok = false;
			if (!ok)
				return false;
			/*
			 * ... or of columns of several display scales: each row's
			 * display scale computed after its value (a CASE's or
			 * COALESCE's branches each their own: compile_mixed_branch)
			 */
			if (!branched && (aggref->aggfnoid == F_SUM_NUMERIC ||
							  aggref->aggfnoid == F_AVG_NUMERIC) &&
				reads_mixed(c, (Node *) arg))
			{
				int			ds,
							fixed;

				if (ag->kind != GA_AGG_SUM_I128 || ag->distinct >= 0 || c->mixed_ds_reg >= 0)
					return fail(c, "%s of a numeric column of several display scales",
								get_func_name(aggref->aggfnoid));
				c->nextreg = ag->arg.reg + 1;
				if (!compile_ds(c, arg, &ds, &fixed) ||
					(ds < 0 && (ds = emit_const(c, Float8GetDatum((double) fixed), false,
												GA_T_FLOAT8)) < 0))
					return false;
				ag->arg.end = c->prog->ga.ninstr;
				c->mixed_ds_reg = ds;
			}
			if (extreme && quotient != NIL)
				c->prog->agg_quotient[c->prog->ga.naggs] = c->quotient;
			c->mixed_case = NULL;
			c->div_args = NIL;
			c->div_sum = false;
			ag->argtype = t;
			if (t == GA_T_NUMERIC)
				ag->argscale = c->regscale[ag->arg.reg];
			if (c->mixed_ds_reg >= 0)
			{
				if (c->npairs >= GA_MAX_PAIRS)
					return fail(c, "more than %d two-argument aggregates and sums of numeric CASEs or quotients of per-row display scales",
								GA_MAX_PAIRS);
				ag->kind = GA_AGG_SUM_I128_DS;
				ag->arg2 = c->mixed_ds_reg;
				ag->pair = c->npairs++;
			}
		}
	}
	return compile_filter(c, aggref, ag);
}

/*
 * sum or avg of interval column var: its time the argument, its day and
 * month the second (GA_IV_DAYMON), which GA_AGG_SUM_IV sums apart.
 */
static bool
compile_interval_sum(Compiler *c, GaAgg *ag, Var *var)
{
	if (c->npairs >= GA_MAX_PAIRS)
		return fail(c, "more than %d two-argument aggregates and sums of intervals",
					GA_MAX_PAIRS);
	c->nextreg = 0;
	ag->arg.start = c->prog->ga.ninstr;
	ag->arg.reg = interval_column(c, var, GA_IV_TIME);
	if (ag->arg.reg < 0 || (ag->arg2 = interval_column(c, var, GA_IV_DAYMON)) < 0)
		return false;
	ag->arg.end = c->prog->ga.ninstr;
	ag->argtype = GA_T_INT8;
	ag->pair = c->npairs++;
	return true;
}

/* The aggregate's FILTER (WHERE ...), if any. */
static bool
compile_filter(Compiler *c, Aggref *aggref, GaAgg *ag)
{
	int			t;

	if (aggref->aggfilter)
	{
		if (!compile_segment(c, aggref->aggfilter, &ag->filter, &t))
			return false;
		if (t != GA_T_BOOL)
			return fail(c, "non-boolean FILTER");
	}
	else
		ag->filter.reg = -1;
	return true;
}

typedef struct JoinVarsContext
{
	Index		varno;			/* the scanned table's */
	List	   *joincols;		/* GpuaggCompile's */
	bool		unknown;		/* a Var of another table, not among them */
} JoinVarsContext;

/*
 * A join's columns of its other tables (dimensions) as columns of the
 * scanned table past its own: Var (varno, attno) of joincols' k-th pair
 * becomes attribute GPUAGG_JOIN_ATTNO + k, whose values the batch reader
 * takes from the rows the join matched (join.c).
 */
static Node *
join_vars_mutator(Node *node, JoinVarsContext *cxt)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0 &&
		((Var *) node)->varno != cxt->varno)
	{
		Var		   *var = (Var *) node;
		ListCell   *lc;

		foreach(lc, cxt->joincols)
		{
			List	   *pair = lfirst(lc);

			if (linitial_int(pair) == (int) var->varno &&
				lsecond_int(pair) == (int) var->varattno)
			{
				var = copyObject(var);
				var->varno = cxt->varno;
				var->varattno = GPUAGG_JOIN_ATTNO + foreach_current_index(lc);
				return (Node *) var;
			}
		}
		cxt->unknown = true;
		return node;
	}
	return expression_tree_mutator(node, join_vars_mutator, (void *) cxt);
}

/*
 * A column of a domain type is its base type's bytes: the devices read it
 * as the base type (with the domain's typmod, a numeric's scale).  Only
 * the copies compiled change: a domain's checks apply where a value is
 * cast to it (CoerceToDomain, which stays the host's), never where it is
 * read.
 */
Node *
GpuaggBaseTypedVars(Node *node)
{
	return domain_vars_mutator(node, NULL);
}

static Node *
domain_vars_mutator(Node *node, void *cxt)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var))
	{
		Var		   *var = (Var *) node;
		int32		typmod = var->vartypmod;
		Oid			base = getBaseTypeAndTypmod(var->vartype, &typmod);

		if (base == var->vartype)
			return node;
		var = copyObject(var);
		var->vartype = base;
		var->vartypmod = typmod;
		return (Node *) var;
	}
	return expression_tree_mutator(node, domain_vars_mutator, cxt);
}

/*
 * A numeric column without a typmod whose statistics show values of
 * several display scales: the devices read each value at the largest,
 * exactly (a value that does not fit sends the scan to the exact path),
 * but PostgreSQL shows a value at its own display scale, and a sum or an
 * average at the largest of its group's.  So such a column offloads where
 * only its values count -- compared, cast to an integer or a float,
 * through +, -, *, abs and the conditionals on the way, or rounded,
 * truncated, floored, ceiled or cast to numeric(p, s), whose display
 * scale is fixed -- and where each row's display scale goes along:
 * count of it, and sum or avg of it, of +, -, * over it or of a CASE's
 * or COALESCE's branches over it (GA_AGG_SUM_I128_DS, compile_ds, which
 * refuses what it does not follow).  Elsewhere (a group key, min, max, a
 * division) the compiler refuses the column.
 */
typedef struct MixedUses
{
	AttrNumber	attno;
	bool		value_only;		/* only the value of what is walked counts */
	bool		ok;
} MixedUses;

static bool mixed_uses_walker(Node *node, MixedUses *m);

static void
mixed_uses_under(Node *node, MixedUses *m, bool value_only)
{
	bool		saved = m->value_only;

	m->value_only = value_only;
	(void) mixed_uses_walker(node, m);
	m->value_only = saved;
}

static bool
is_column(Node *node, AttrNumber attno)
{
	return node != NULL && IsA(node, Var) && ((Var *) node)->varattno == attno &&
		((Var *) node)->varlevelsup == 0;
}

static bool
mixed_uses_walker(Node *node, MixedUses *m)
{
	bool		saved = m->value_only;

	if (node == NULL || !m->ok)
		return false;
	if (IsA(node, Var))
	{
		if (is_column(node, m->attno) && !m->value_only)
			m->ok = false;
		return false;
	}
	if (IsA(node, OpExpr))
	{
		OpExpr	   *op = (OpExpr *) node;

		if (op->opresulttype == BOOLOID)
			m->value_only = true;	/* a comparison */
		else if (op->opfuncid != F_NUMERIC_ADD && op->opfuncid != F_NUMERIC_SUB &&
				 op->opfuncid != F_NUMERIC_MUL && op->opfuncid != F_NUMERIC_UMINUS &&
				 op->opfuncid != F_NUMERIC_UPLUS)
			m->value_only = false;	/* a division's scale is its operands' */
	}
	else if (IsA(node, DistinctExpr) || IsA(node, ScalarArrayOpExpr) ||
			 IsA(node, NullTest) || IsA(node, BooleanTest))
		m->value_only = true;
	else if (IsA(node, FuncExpr))
	{
		switch (((FuncExpr *) node)->funcid)
		{
			case F_INT2_NUMERIC:
			case F_INT4_NUMERIC:
			case F_INT8_NUMERIC:
			case F_FLOAT4_NUMERIC:
			case F_FLOAT8_NUMERIC:
			case F_ROUND_NUMERIC:
			case F_ROUND_NUMERIC_INT4:
			case F_TRUNC_NUMERIC:
			case F_TRUNC_NUMERIC_INT4:
			case F_FLOOR_NUMERIC:
			case F_CEIL_NUMERIC:
			case F_CEILING_NUMERIC:
			case F_SIGN_NUMERIC:
				m->value_only = true;
				break;
			case F_NUMERIC_NUMERIC_INT4:
				/* a typmod's scale, or (none) the value's */
				if (!IsA(lsecond(((FuncExpr *) node)->args), Const) ||
					DatumGetInt32(((Const *) lsecond(((FuncExpr *) node)->args))->constvalue) >=
					(int32) VARHDRSZ)
					m->value_only = true;
				break;
			case F_ABS_NUMERIC:
				break;
			default:
				m->value_only = false;
		}
	}
	else if (IsA(node, CaseExpr))
	{
		CaseExpr   *ce = (CaseExpr *) node;
		ListCell   *lc;

		mixed_uses_under((Node *) ce->arg, m, true);
		foreach(lc, ce->args)
		{
			CaseWhen   *w = lfirst_node(CaseWhen, lc);

			mixed_uses_under((Node *) w->expr, m, false);
			mixed_uses_under((Node *) w->result, m, m->value_only);
		}
		mixed_uses_under((Node *) ce->defresult, m, m->value_only);
		return false;
	}
	else if (!IsA(node, CoalesceExpr) && !IsA(node, MinMaxExpr) &&
			 !IsA(node, NullIfExpr) && !IsA(node, RelabelType) &&
			 !IsA(node, List))
		m->value_only = false;
	(void) expression_tree_walker(node, mixed_uses_walker, m);
	m->value_only = saved;
	return false;
}

/*
 * sum or avg's own argument, or a CASE's or COALESCE's branches there: its
 * display scale goes along, as compile_ds follows it or refuses it
 */
static void
mixed_uses_summed(Node *arg, MixedUses *m)
{
	ListCell   *lc;

	if (IsA(arg, CaseExpr))
	{
		CaseExpr   *ce = (CaseExpr *) arg;

		mixed_uses_under((Node *) ce->arg, m, true);
		foreach(lc, ce->args)
			mixed_uses_under((Node *) lfirst_node(CaseWhen, lc)->expr, m, false);
	}
}

/* The attnos of the columns of several display scales the query may read. */
static Bitmapset *
mixed_scale_columns(List *numeric_scales, List *quals, List *keys, List *aggrefs)
{
	Bitmapset  *ok = NULL;
	ListCell   *lc;

	foreach(lc, numeric_scales)
	{
		List	   *found = lfirst(lc);
		MixedUses	m = {intVal(linitial(found)), false, true};
		ListCell   *la;

		if (intVal(lsecond(found)) != GPUAGG_SCALE_SEVERAL || GpuaggJoinAttno(m.attno))
			continue;
		mixed_uses_under((Node *) quals, &m, false);
		mixed_uses_under((Node *) keys, &m, false);
		foreach(la, aggrefs)
		{
			Aggref	   *aggref = lfirst_node(Aggref, la);
			Node	   *arg = list_length(aggref->args) == 1 ?
				(Node *) linitial_node(TargetEntry, aggref->args)->expr : NULL;

			if ((aggref->aggfnoid == F_SUM_NUMERIC || aggref->aggfnoid == F_AVG_NUMERIC) &&
				aggref->aggdistinct == NIL && aggref->aggorder == NIL)
				mixed_uses_summed(arg, &m);
			else if (!(aggref->aggfnoid == F_COUNT_ANY && is_column(arg, m.attno)))
				mixed_uses_under((Node *) aggref->args, &m, false);
			mixed_uses_under((Node *) aggref->aggdirectargs, &m, false);
			mixed_uses_under((Node *) aggref->aggfilter, &m, false);
		}
		if (m.ok)
			ok = bms_add_member(ok, m.attno);
	}
	return ok;
}

/*
 * An implicitly-ANDed list of quals into seg, ExecQual's rule: the first
 * one not true ends it.  Where the first qual that reads a string column
 * starts (GaProgram.where_strings), and the qual numbered before (from 0:
 * GaProgram.where_joined), where asked: seg->end where there is none.
 * False, and c->reason, where one does not compile.
 */
static bool
compile_quals(Compiler *c, List *quals, GaSegment *seg, int32_t *strings, int before,
			  int32_t *joined)
{
	GaProgram  *p = &c->prog->ga;
	int			dst,
				t,
				start = p->ninstr,
				patches[GA_MAX_INSTR],
				npatches = 0;
	int32_t		strings_at = -1,
				joined_at = -1;
	ListCell   *lc;

	c->nextreg = 0;
	dst = emit_const(c, BoolGetDatum(true), false, GA_T_BOOL);
	foreach(lc, quals)
	{
		int			r,
					n = foreach_current_index(lc),
					qual_start = n == 0 ? start : p->ninstr;

		if (dst < 0)
			break;
		if (n == before)
			joined_at = qual_start;
		r = compile_expr(c, lfirst(lc), &t);
		if (r < 0)
			break;
		if (t != GA_T_BOOL)
		{
			fail(c, "non-boolean qual");
			break;
		}
		patches[npatches] = emit(c, GA_OP_QUAL_STEP, GA_T_BOOL, dst, r, 0, 0);
		if (patches[npatches++] < 0)
			break;
		c->nextreg = dst + 1;
		for (int i = qual_start; i < (int) p->ninstr && strings_at < 0; i++)
			if (p->code[i].op == GA_OP_COL &&
				(p->cols[p->code[i].imm].type == GA_T_TEXT ||
				 p->cols[p->code[i].imm].type == GA_T_BPCHAR))
				strings_at = qual_start;
	}
	if (c->reason)
		return false;
	emit_patch(c, patches, npatches);
	seg->start = start;
	seg->end = p->ninstr;
	seg->reg = dst;
	if (strings)
		*strings = strings_at < 0 ? seg->end : strings_at;
	if (joined)
		*joined = joined_at < 0 ? seg->end : joined_at;
	return true;
}

bool
GpuaggCompile(GpuaggProgram *prog, List *quals, List *keys, List *aggrefs,
			  List *numeric_scales, bool grouping_sets, Index varno, List *joincols,
			  List *dimconds, int before_join, const char **reason)
{
	GaProgram  *p = &prog->ga;
	Compiler	c = {prog, 0, NULL, -1, 0, -1};
	ListCell   *lc;
	int			t;

	memset(prog, 0, sizeof(GpuaggProgram));
	if (joincols != NIL)
	{
		JoinVarsContext jc = {varno, joincols, false};

		quals = (List *) join_vars_mutator((Node *) quals, &jc);
		keys = (List *) join_vars_mutator((Node *) keys, &jc);
		aggrefs = (List *) join_vars_mutator((Node *) aggrefs, &jc);
		if (jc.unknown)
		{
			*reason = "a column of a joined table the join does not bring";
			return false;
		}
	}
	quals = (List *) domain_vars_mutator((Node *) quals, NULL);
	keys = (List *) domain_vars_mutator((Node *) keys, NULL);
	aggrefs = (List *) domain_vars_mutator((Node *) aggrefs, NULL);
	c.numeric_scales = numeric_scales;
	c.mixed_cols = mixed_scale_columns(numeric_scales, quals, keys, aggrefs);
	p->abi_version = GA_ABI_VERSION;
	p->where.reg = -1;
	p->keyseg.reg = -1;

	if (list_length(keys) > GA_MAX_KEYS)
	{
		*reason = psprintf("more than %d group keys", GA_MAX_KEYS);
		return false;
	}
	if (list_length(aggrefs) > GA_MAX_AGGS)
	{
		*reason = psprintf("more than %d aggregates", GA_MAX_AGGS);
		return false;
	}

	/* WHERE: ExecQual semantics, stop at the first qual not true */
	if (quals != NIL && !compile_quals(&c, quals, &p->where, &p->where_strings,
									 before_join, &p->where_joined))
	{
		*reason = c.reason;
		return false;
	}

	/* group keys: each in its own register, kept until the probe */
	p->keyseg.start = p->ninstr;
	c.nextreg = 0;
	foreach(lc, keys)
	{
		Expr	   *key = lfirst(lc);
		Expr	   *rekey = rekey_inner(key, aggrefs);
		List	   *quotient;
		int			r;

		if (rekey != NULL)
		{
			/* the devices group by the inner value, the host maps it */
			prog->rekey_expr[p->nkeys] = (Expr *) (IsA(rekey, Var) ?
												   var_to_param((Node *) key, NULL) :
												   inner_to_param((Node *) key, rekey));
			prog->rekey_argtype[p->nkeys] = exprType((Node *) rekey);
			prog->nrekeys++;
			key = rekey;
		}
		/* an exact quotient, shown at its display scale (the host's) */
		quotient = rekey == NULL ? division_args(key) : NIL;
		c.div_args = quotient;
		c.uuid_ok = true;
		r = compile_expr(&c, key, &t);
		c.uuid_ok = false;
		c.div_args = NIL;
		if (r < 0)
		{
			*reason = c.reason;
			return false;
		}
		if (quotient != NIL)
			prog->key_quotient[p->nkeys] = c.quotient;
		prog->keytypid[p->nkeys] = exprType((Node *) lfirst(lc));
		/* (a key the host maps is text, whatever the devices group by) */
		if ((t == GA_T_TEXT || rekey != NULL) &&
			!check_collation(&c, exprCollation((Node *) lfirst(lc)), "string group key"))
		{
			*reason = c.reason;
			return false;
		}
		p->keyreg[p->nkeys] = r;
		p->keytype[p->nkeys] = t;
		p->keyscale[p->nkeys] = (t == GA_T_NUMERIC) ? c.regscale[r] : 0;
		p->nkeys++;
	}
	p->keyseg.end = p->ninstr;
	p->keyseg.reg = p->nkeys > 0 ? p->keyreg[0] : -1;

	foreach(lc, aggrefs)
	{
		GaAgg	   *ag = &p->aggs[p->naggs];

		if (!compile_aggref(&c, lfirst(lc), ag))
		{
			*reason = c.reason;
			return false;
		}
		ag->slot = p->nslots;
		p->nslots += ga_agg_nslots(ag->kind);
		if (p->nslots > GA_MAX_SLOTS)
		{
			*reason = "too many aggregate state slots";
			return false;
		}
		/* grouping sets: a set's group counts its finer groups' values once */
		if ((grouping_sets || prog->nrekeys > 0) && ag->distinct >= 0 &&
			ag->kind == GA_AGG_COUNT)
			ag->count_on_host = 1;
		p->naggs++;
	}

	/*
	 * Each dimension's other conditions of its join, for a device's join:
	 * all of them, or none (the host's join), leaving the program as it was.
	 */
	for (int d = 0; d < GA_MAX_DIMS; d++)
		p->dimcond[d].reg = -1;
	if (dimconds != NIL && list_length(dimconds) <= GA_MAX_DIMS)
	{
		JoinVarsContext jc = {varno, joincols, false};
		GpuaggProgram *saved = palloc(sizeof(GpuaggProgram));
		int			nparams = list_length(prog->params);
		bool		ok = true;

		memcpy(saved, prog, sizeof(GpuaggProgram));
		foreach(lc, dimconds)
		{
			List	   *conds = (List *) join_vars_mutator(lfirst(lc), &jc);

			if (conds != NIL && !jc.unknown &&
				!compile_quals(&c, conds, &p->dimcond[foreach_current_index(lc)], NULL,
							   -1, NULL))
				ok = false;
		}
		/*
		 * (no parameter, scan constant, time zone or numeric the device may
		 * not hold: such a condition is the host's, not a reason for the
		 * whole query to take the exact path or stay native)
		 */
		if (!ok || jc.unknown || list_length(prog->params) != nparams ||
			(prog->uses_zone && !saved->uses_zone) ||
			(GpuaggProgramNeedsExact(p) && !GpuaggProgramNeedsExact(&saved->ga)))
		{
			memcpy(prog, saved, sizeof(GpuaggProgram));
			/* (a List appended to in place) */
			prog->params = list_truncate(prog->params, nparams);
		}
		pfree(saved);
	}
	*reason = NULL;
	return true;
}

/* (program.h; for a parameter: compile_param_comparison's rounding) */
bool
GpuaggNumericRounded(Datum d, int scale, int round, int64 *out)
{
	Datum		x;

	if (GpuaggNumericScaled(d, scale, -1, out))
		return true;
	if (round == 0 || scale > GA_NUMERIC_MAX_SCALE || numeric_is_nan(DatumGetNumeric(d)) ||
		numeric_is_inf(DatumGetNumeric(d)))
		return false;
	/* past int64 already (and its product might overflow numeric itself) */
	if (DatumGetBool(DirectFunctionCall2(numeric_gt,
										 DirectFunctionCall1(numeric_abs, d),
										 NumericGetDatum(int64_to_numeric(PG_INT64_MAX)))))
		return false;
	x = DirectFunctionCall2(numeric_mul, d,
							NumericGetDatum(int64_to_numeric(ga_pow10(scale))));
	x = DirectFunctionCall1(round < 0 ? numeric_floor : numeric_ceil, x);
	return GpuaggNumericScaled(x, 0, -1, out);
}

/*
 * The guarded scan constants' values, evaluated in a subtransaction (as
 * PL/pgSQL's EXCEPTION block does): false where one raised an error,
 * which is dropped (a cancel, a recovery conflict or a shutdown raised
 * again).  As in such a block, what the expression did before its error
 * (a NOTICE) stays done.
 */
static bool
eval_guarded(Bitmapset *guarded, List *param_states, ExprContext *econtext,
			 Datum *values, bool *nulls)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	volatile bool ok = true;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		int			i = -1;

		while ((i = bms_next_member(guarded, i)) >= 0)
			values[i] = ExecEvalExpr(list_nth(param_states, i), econtext, &nulls[i]);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		/* (a cancel, a recovery conflict, a shutdown: not the expression's) */
		if (ERRCODE_TO_CATEGORY(edata->sqlerrcode) == ERRCODE_OPERATOR_INTERVENTION ||
			ERRCODE_TO_CATEGORY(edata->sqlerrcode) == ERRCODE_TRANSACTION_ROLLBACK)
			ReThrowError(edata);
		FreeErrorData(edata);
		ok = false;
	}
	PG_END_TRY();
	return ok;
}

/* (program.h) */
void
GpuaggEvalGuarded(GpuaggProgram *prog, List *param_states, ExprContext *econtext)
{
	int			n = list_length(param_states);
	MemoryContext old = MemoryContextSwitchTo(prog->guarded_cxt);

	prog->guarded_values = palloc0(sizeof(Datum) * Max(n, 1));
	prog->guarded_nulls = palloc0(sizeof(bool) * Max(n, 1));
	/* (a query run inside a parallel one's process: its plan) */
	prog->guarded_state =
		!IsInParallelMode() && eval_guarded(prog->guarded, param_states, econtext,
											prog->guarded_values, prog->guarded_nulls) ?
		GPUAGG_GUARDED_OK : GPUAGG_GUARDED_FAILED;
	MemoryContextSwitchTo(old);
}

/* (program.h) */
bool
GpuaggLoadParams(GpuaggProgram *prog, List *param_states, ExprContext *econtext,
				 GpuaggDict *dict)
{
	Datum	   *values;
	bool	   *nulls;
	int			n = list_length(param_states),
				i = 0;
	bool		fits = true;
	ListCell   *lc;

	values = palloc(sizeof(Datum) * Max(n, 1));
	nulls = palloc(sizeof(bool) * Max(n, 1));
	/* (the run's first scan, where the node did not evaluate them at its start) */
	if (prog->guarded != NULL && prog->guarded_state == GPUAGG_GUARDED_UNSET)
		GpuaggEvalGuarded(prog, param_states, econtext);
	foreach(lc, param_states)
	{
		if (!bms_is_member(i, prog->guarded))
			values[i] = ExecEvalExpr(lfirst(lc), econtext, &nulls[i]);
		else if (prog->guarded_state == GPUAGG_GUARDED_OK)
		{
			values[i] = prog->guarded_values[i];
			nulls[i] = prog->guarded_nulls[i];
		}
		i++;
	}
	/* (one failed: PostgreSQL's plan, the exact path, meets its error) */
	if (prog->guarded != NULL && prog->guarded_state != GPUAGG_GUARDED_OK)
		return false;
	for (i = 0; i < prog->nparamrefs; i++)
	{
		int			k = prog->paramref_const[i];
		int			p = prog->paramref_param[i];
		Oid			typid = exprType(list_nth(prog->params, p));
		GaDatum		v = {0};

		if (nulls[p])
			;
		else if (typid == NUMERICOID)
		{
			if (!GpuaggNumericRounded(values[p], prog->paramref_scale[i],
									  prog->paramref_round[i], &v.i))
				fits = false;
		}
		else
			v = GpuaggDatumToGa(values[p], GpuaggTypeOf(typid));
		prog->ga.consts[k] = v;
		prog->ga.constnull[k] = nulls[p];
	}
	for (i = 0; i < prog->ntextconsts; i++)
	{
		int			k = prog->textconst_slot[i];
		int			p = prog->textconst_param[i];
		bool		isnull = p >= 0 ? nulls[p] : false;
		Datum		d = p >= 0 ? values[p] : prog->textconst_value[i];
		GaDatum		v = {0};

		if (!isnull && prog->textconst_uuid[i])
		{
			/* (both codes: a uuid has no trailing spaces to trim) */
			v.u = GpuaggDictEncodeBytes(dict, (const char *) DatumGetUUIDP(d)->data, UUID_LEN);
			v.u |= v.u << 32;
		}
		else if (!isnull)
			v.u = GpuaggDictRegister(dict, d, prog->textconst_bpchar[i]);
		prog->ga.consts[k] = v;
		prog->ga.constnull[k] = isnull;
	}
	/* a zone whose transitions cannot be listed: PostgreSQL's own plan */
	if (prog->uses_zone && !GpuaggZoneLoad(prog, &prog->ga.zone))
		fits = false;
	return fits;
}
