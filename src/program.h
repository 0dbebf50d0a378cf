/*-------------------------------------------------------------------------
 *
 * program.h
 *		Compiling WHERE, group keys and aggregates into a gpuagg program.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUAGG_PROGRAM_H
#define GPUAGG_PROGRAM_H

#include "nodes/execnodes.h"
#include "nodes/pg_list.h"
#include "nodes/primnodes.h"
#include "pgtime.h"

#include "../cuda/gpuagg_abi.h"
#include "dict.h"

/*
 * A group key, min or max whose value is an exact numeric quotient x / k
 * (program.c's compile_numeric_div): the devices hold x * f at the key's or
 * argument's scale, and numeric_div shows each quotient at the display
 * scale select_div_scale gives its own x (of display scale xscale) and k
 * (of weight kweight, first base-10000 digit kdigit and display scale
 * kscale), which the host finds from the value (result.h's GpuaggQuotientDatum).
 * f 0: not a quotient.
 */
typedef struct GpuaggQuotient
{
	int64		f;
	int16		xscale;
	int16		kweight;
	int16		kdigit;
	int16		kscale;
} GpuaggQuotient;

/* The host's view of a compiled program: the device part plus parameters. */
typedef struct GpuaggProgram
{
	GaProgram	ga;
	List	   *params;			/* distinct scan constants (Params, now(), ...),
								 * in first-use order */
	int			nparamrefs;		/* constants to fill from params at run time */
	int16		paramref_const[GA_MAX_CONSTS];	/* constant slot */
	int16		paramref_param[GA_MAX_CONSTS];	/* index into params */
	int16		paramref_scale[GA_MAX_CONSTS];	/* a numeric's scale */
	/*
	 * a numeric compared by <, <=, > or >=, whose digits go below that
	 * scale: rounded down (-1) or up (1) to it, where the comparison with
	 * values of the scale keeps its answer; 0: it runs the exact path
	 */
	int8		paramref_round[GA_MAX_CONSTS];
	Oid			keytypid[GA_MAX_KEYS];	/* PostgreSQL type of each key */
	GpuaggQuotient key_quotient[GA_MAX_KEYS];	/* a key's that is one */
	GpuaggQuotient agg_quotient[GA_MAX_AGGS];	/* min/max's of one */
	/*
	 * min/max of strings and ordered-set aggregates of them: by distinct
	 * set, the collation the host compares in
	 */
	Oid			extreme_collid[GA_MAX_DISTINCT];
	/*
	 * ... and min/max or an ordered-set aggregate of a char(n): its typmod
	 * (else 0).  The device's codes are of the values without their
	 * trailing spaces, which bpcharcmp compares; the host pads the one it
	 * picks to n again, the value every such string of the column holds.
	 */
	int32		extreme_typmod[GA_MAX_DISTINCT];

	/*
	 * String constants and parameters, encoded into the constants by the
	 * executor through the query's dictionary (dict.h).
	 */
	/*
	 * String predicates (LIKE and friends on a column and a constant
	 * pattern), evaluated by the host once per distinct string and sent as
	 * bool columns: PostgreSQL's function, collation and pattern.
	 */
	int			npreds;
	Oid			pred_funcid[GA_MAX_COLS];
	Oid			pred_collid[GA_MAX_COLS];
	Datum		pred_pattern[GA_MAX_COLS];
	/*
	 * ... or, where pred_funcid is invalid, a function of the string (lower,
	 * length, substring, ||, regexp_replace, ...): its expression over
	 * Param $1, the string, and a column of its result type (text: codes)
	 */
	Expr	   *pred_expr[GA_MAX_COLS];
	Oid			pred_argtype[GA_MAX_COLS];	/* the string's type ($1's) */
	int			nlikebytes;		/* of ga.likes, used */

	/*
	 * Group keys the host maps (GpuaggRekeyInner): the devices group by an
	 * inner value (a string column, or the e of to_char(e, format) or
	 * e::text), and the host maps each group's value to the key's, the
	 * expression over Param $1, and merges the groups that then agree
	 * (result.c's GpuaggRekey); NULL for every other key.  Such a key's
	 * values are strings from then on (GpuaggKeyType).
	 */
	int			nrekeys;
	Expr	   *rekey_expr[GA_MAX_KEYS];
	Oid			rekey_argtype[GA_MAX_KEYS]; /* the inner value's type ($1's) */

	int			ntextconsts;
	int16		textconst_slot[GA_MAX_CONSTS];	/* constant slot */
	int16		textconst_param[GA_MAX_CONSTS]; /* index into params, or -1 */
	bool		textconst_bpchar[GA_MAX_CONSTS];	/* bpchar equality */
	bool		textconst_uuid[GA_MAX_CONSTS];	/* a uuid's 16 bytes */
	/*
	 * columns of type uuid (bits by column): GA_T_TEXT columns whose
	 * codes the host gives the values' 16 bytes in the query's dictionary
	 * (column form: not variable-length, so the pages' deformer reads no
	 * such column); read as group keys, counted, or compared with = or <>
	 * (compile_uuid_var), and given back as uuid (GpuaggUuidDatum)
	 */
	uint64		uuid_cols;
	Datum		textconst_value[GA_MAX_CONSTS]; /* a Const's value */

	/*
	 * Reads a time zone: the session's (date_trunc, extract, date_part of
	 * a timestamptz, casts from and to one), or one AT TIME ZONE names, a
	 * zone (zone_tz) or an abbreviation of one offset (zone_fixed,
	 * zone_offset seconds east); a program reads one.  Its transitions go
	 * to ga.zone with the scan constants (GpuaggLoadParams); what read it
	 * first, for the planner's reason.
	 */
	bool		uses_zone;
	/*
	 * scan constants that may fail (program.c's guarded_constant), as
	 * indexes into params (NULL: none): evaluated in a subtransaction, and
	 * where one fails the exact path runs instead (GpuaggLoadParams)
	 */
	Bitmapset  *guarded;
	/*
	 * ... their values, the same for the whole run (stable, of $n at
	 * most): evaluated once (GpuaggEvalGuarded), at the run's first scan,
	 * as natively (a setting changed after a cursor's DECLARE counts), or
	 * in a statement that enters parallel mode, which starts no
	 * subtransaction, when the node starts, before it; kept in
	 * guarded_cxt (the query's context) for the rescans
	 */
	MemoryContext guarded_cxt;
	int			guarded_state;	/* GPUAGG_GUARDED_* */
	Datum	   *guarded_values;
	bool	   *guarded_nulls;
	pg_tz	   *zone_tz;
	bool		zone_fixed;
	int			zone_offset;
	const char *tz_what;
} GpuaggProgram;

/*
 * numeric_div's display scale of x / k, for |x| = xabs / 10^xscale of
 * display scale xscale and k of weight kweight, first base-10000 digit
 * kdigit and display scale kscale (numeric.c's select_div_scale)
 */
extern int	GpuaggDivScale(int128 xabs, int xscale, int kweight, int kdigit, int kscale);

/* node with each Var of a domain type as its base type (as compiled) */
extern Node *GpuaggBaseTypedVars(Node *node);

/*
 * A group key the host maps: the expression inside it the devices group
 * by, or NULL (program.c says which keys).
 */
extern Expr *GpuaggRekeyInner(Expr *key);

/* Group key k's type in a run's groups: text where the host mapped it. */
static inline int
GpuaggKeyType(const GpuaggProgram *prog, int k)
{
	return prog->rekey_expr[k] != NULL ? GA_T_TEXT : prog->ga.keytype[k];
}

/*
 * A uuid's Datum from the dictionary's string of its 16 bytes (uuid_cols):
 * those bytes, where the dictionary keeps them.
 */
static inline Datum
GpuaggUuidDatum(Datum bytes)
{
	return PointerGetDatum(VARDATA_ANY(DatumGetPointer(bytes)));
}

/* What the planner found of a numeric column's scale (GpuaggCompile). */
typedef enum GpuaggScaleFound
{
	GPUAGG_SCALE_FOUND,			/* one display scale in its statistics */
	GPUAGG_SCALE_NO_STATISTICS,
	GPUAGG_SCALE_NO_VALUE,		/* statistics without a finite value */
	GPUAGG_SCALE_SEVERAL		/* values of several display scales */
} GpuaggScaleFound;

/*
 * Compile into prog.  quals is an implicitly-ANDed list evaluated in order
 * with short-circuit on false or NULL (ExecQual); keys are the group key
 * expressions; aggrefs the Aggref nodes; numeric_scales what the planner
 * found of the scale of each numeric column without a typmod (a List a
 * column: Integers attno, a GpuaggScaleFound, the smallest and the largest
 * display scale in its statistics, and a String, its name): a column read
 * at a scale found must have it in every value (else the exact path).
 * Under grouping sets the device returns count(DISTINCT)'s values as pairs
 * too (GaAgg.count_on_host, ga_agg_host_folds), so that a set's group
 * counts the values of all its finer groups once.
 * dimconds (a join's, join.c's GpuaggJoinConditions): a List of quals per
 * dimension, each compiled to GaProgram.dimcond[d] where all of them
 * compile (else every dimcond is absent, reg -1, and nothing else changes).
 * before_join: how many of the quals run before the join
 * (GaProgram.where_joined).
 * Returns false and sets *reason when something is not device-evaluable.
 */
extern bool GpuaggCompile(GpuaggProgram *prog, List *quals, List *keys,
						  List *aggrefs, List *numeric_scales, bool grouping_sets,
						  Index varno, List *joincols, List *dimconds,
						  int before_join, const char **reason);

/*
 * A join's columns of its other tables (joincols above: IntLists (varno,
 * attno), the k-th read as attribute GPUAGG_JOIN_ATTNO + k of the scanned
 * table varno; join.c fills them), past any table's own attributes.
 */
#define GPUAGG_JOIN_ATTNO	4096

static inline bool
GpuaggJoinAttno(int attno)
{
	return attno >= GPUAGG_JOIN_ATTNO;
}

/*
 * Put the current parameter values (param_states: an ExprState per Param
 * of prog->params) into the program's constants, and the codes of its
 * string constants and parameters in the run's dictionary.  False when a
 * numeric parameter's value does not fit the scale it was compiled at
 * (digits below it, NaN, an infinity, past int64), or when the program
 * reads the time zone and the session's has no one offset: the exact path
 * runs.
 */
#define GPUAGG_GUARDED_UNSET	0
#define GPUAGG_GUARDED_OK		1
#define GPUAGG_GUARDED_FAILED	2
extern void GpuaggEvalGuarded(GpuaggProgram *prog, List *param_states,
							  ExprContext *econtext);
extern bool GpuaggLoadParams(GpuaggProgram *prog, List *param_states,
							 ExprContext *econtext, GpuaggDict *dict);

/*
 * The time zone prog reads, as the devices read it (GaZone): false where
 * its transitions cannot be listed (then PostgreSQL's own plan runs).
 */
extern bool GpuaggZoneLoad(const GpuaggProgram *prog, GaZone *z);
extern const char *GpuaggZoneName(const GpuaggProgram *prog);

/*
 * May the program meet a numeric it cannot hold (GA_ERR_NUMERIC_EXACT)?
 * It reads numeric columns or computes with numerics; the plan then
 * carries an exact path (planner.c).  extract of a field that an infinite
 * value has not (month, dow, hour, ...: NULL there) gives small integers
 * only, and alone needs none; nor does a field of age().
 */
static inline bool
GpuaggProgramNumericExact(const GaProgram *p)
{
	for (uint32 i = 0; i < p->ncols; i++)
		if (p->cols[i].type == GA_T_NUMERIC)
			return true;
	for (uint32 i = 0; i < p->ninstr; i++)
	{
		const GaInstr *in = &p->code[i];

		if (in->type != GA_T_NUMERIC)
			continue;
		if ((in->op == GA_OP_TS_PART && !ga_part_grows(in->imm)) || in->op == GA_OP_AGE)
			continue;
		return true;
	}
	return false;
}

/*
 * Does it sum intervals, whose running sum natively may leave their range
 * (result.h's GpuaggIntervalSumsUnsafe: then the exact path runs)?
 */
static inline bool
GpuaggProgramSumsIntervals(const GaProgram *p)
{
	for (uint32 i = 0; i < p->naggs; i++)
		if (p->aggs[i].kind == GA_AGG_SUM_IV)
			return true;
	return false;
}

/*
 * Does it read an interval column's comparison value or epoch, which past
 * int64 sends the scan to the exact path (GA_ERR_NUMERIC_EXACT too)?
 */
static inline bool
GpuaggProgramIntervalExact(const GaProgram *p)
{
	for (uint32 i = 0; i < p->ncols; i++)
		if (p->cols[i].ivpart == GA_IV_SPAN || p->cols[i].ivpart == GA_IV_EPOCH)
			return true;
	return false;
}

/* Does the plan need an exact path for any of them? */
static inline bool
GpuaggProgramNeedsExact(const GaProgram *p)
{
	return GpuaggProgramNumericExact(p) || GpuaggProgramSumsIntervals(p) ||
		GpuaggProgramIntervalExact(p);
}

/* The GaType of a PostgreSQL type, or GA_T_INVALID. */
extern int	GpuaggTypeOf(Oid typid);

/*
 * A numeric Datum (any varlena form) as an int64 in units of 10^-scale
 * (gpuagg_abi.h, GA_T_NUMERIC); false where that is not exact, or where
 * dscale >= 0 and the value's display scale is another.
 */
extern bool GpuaggNumericScaled(Datum d, int scale, int dscale, int64 *out);

/*
 * Or, where round is -1 or 1 and d has digits below scale, d times
 * 10^scale rounded down or up to an integer; false for NaN, an infinity,
 * a value past int64, or digits below scale where round is 0.
 */
extern bool GpuaggNumericRounded(Datum d, int scale, int round, int64 *out);

/*
 * Does a LIKE pattern end in an escape?  PostgreSQL raises an error for
 * it, at the rows it reaches, so such a LIKE is left to PostgreSQL.
 */
extern bool GpuaggLikeEndsInEscape(Datum pattern);

/*
 * Is fn LIKE or NOT LIKE (not ILIKE) of text or char(n): byte matching,
 * which the devices do in page form (NOT LIKE: *negated)?
 */
extern bool GpuaggIsLike(Oid fn, bool *negated);

/*
 * A column of program `to' for attribute attno that is program from's
 * column fc, a LIKE or a length a device answers in the pages, with what
 * the host needs of it (a joined table the device scans: src/join.c).
 */
extern int	GpuaggCopyPageColumn(GpuaggProgram *to, AttrNumber attno,
								 const GpuaggProgram *from, const GaColumn *fc);

/* A numeric's display scale (numeric_scale), -1 for NaN and the infinities. */
extern int	GpuaggNumericDscale(Datum d);

/* The dscale argument above for a column's values: checked, or -1. */
static inline int
GpuaggColumnDscale(const GaColumn *c)
{
	return c->dscale_checked ? c->scale : -1;
}

/* A Datum of a supported type as a register value. */
extern GaDatum GpuaggDatumToGa(Datum d, int type);

/*
 * Does only the host know column c's values: a string predicate's answer
 * or a function's value, other than a LIKE the device matches itself, a
 * string's length it counts and a prefix it codes?  A program with such a
 * column cannot take page-form batches.  (A text, varchar or bpchar column
 * can: the device codes its strings itself, gpuagg_page.h.)
 */
static inline bool
GpuaggColumnFromHost(const GaColumn *c)
{
	return c->pred && !c->like && !c->length && !c->prefix;
}

#endif							/* GPUAGG_PROGRAM_H */
