/*-------------------------------------------------------------------------
 *
 * batch.c
 *		Scan a table under the query's snapshot into column batches.
 *
 * MVCC is decided here on the host by the table access method; the device
 * only ever sees visible rows.  Only the columns the program reads are
 * copied, each at its native width, with a validity bitmap that is handed
 * to the device only when the batch holds a NULL in that column.
 *
 * Strings (text, varchar, bpchar) are sent as their codes in the query's
 * dictionary (dict.c), detoasted here on the host when needed.  A LIKE on a
 * string column is sent as a bool column: PostgreSQL's own function is
 * called once per distinct string, its answer kept by the string's code.
 *
 * A batch is laid out in one buffer the device provides (for CUDA, a
 * shared segment the GPU service has page-locked), each column's values and
 * bitmap at fixed, 16-byte aligned offsets, so that a device can copy
 * columns without repacking.  In page form (gpuagg.page_batches) the batch
 * is instead pinned shared-buffer pages, each with the bitmap of its tuples
 * the query sees, which the device deforms with cuda/gpuagg_page.h.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/attmap.h"
#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/nbtree.h"
#include "access/syncscan.h"
#include "access/tableam.h"
#include "access/tupmacs.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "nodes/params.h"
#include "port/pg_bitutils.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "storage/proc.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "batch.h"
#include "fetch.h"
#include "gpuagg.h"
#include "../cuda/gpuagg_page.h"

/* gpuagg_page.h's view of a heap tuple is PostgreSQL's */
StaticAssertDecl(offsetof(HeapTupleHeaderData, t_infomask2) == GA_TUP_INFOMASK2_OFF &&
				 offsetof(HeapTupleHeaderData, t_infomask) == GA_TUP_INFOMASK_OFF &&
				 offsetof(HeapTupleHeaderData, t_hoff) == GA_TUP_HOFF_OFF &&
				 offsetof(HeapTupleHeaderData, t_bits) == GA_TUP_BITS_OFF &&
				 HEAP_NATTS_MASK == GA_TUP_NATTS_MASK && HEAP_HASNULL == GA_TUP_HASNULL &&
				 sizeof(bool) == sizeof(uint8_t),
				 "gpuagg_page.h's heap tuple layout");

/* page form: pages pinned and prefetched ahead of reading their headers */
#define PAGE_LOOKAHEAD 16

struct GpuaggBatchReader
{
	/* the relations, read one after another (a table, or its partitions) */
	Relation   *rels;
	int			nrels;
	int			cur;			/* the one scan reads */
	Snapshot	snapshot;
	ParallelTableScanDesc *pscans;	/* [nrels], or NULL: not parallel */
	GpuaggBlockLog *logs;		/* [nrels], with pscans */
	TableScanDesc scan;			/* of rels[cur] */
	TupleDesc	remap_from;		/* the parent's, where rels lay their columns
								 * out otherwise: then ... */
	AttrNumber	attmap[GA_MAX_COLS];	/* ... each column's attno in rels[cur] */
	AttrNumber	maxmapped;		/* the largest of them */
	TupleTableSlot *slot;
	const GaProgram *prog;
	const GpuaggProgram *host;	/* string predicates */
	GpuaggJoin *join;			/* the rows each row of the table matches */
	bool		join_pending;	/* ... the slot's row has more matches */
	HeapTupleData join_tuple;	/* page at a time: the slot's tuple */
	GpuaggDict *dict;
	uint8	   *predcache[GA_MAX_COLS];	/* per predicate, by code: 0 not yet
										 * known, 1 false, 2 true (a function
										 * of the string: 1 a value, 2 NULL) */
	uint32		predcap[GA_MAX_COLS];
	FmgrInfo	predfn[GA_MAX_COLS];
	/* functions of a string (GpuaggProgram.pred_expr), evaluated by code */
	ExprState  *predstate[GA_MAX_COLS];
	uint64	   *predvalue[GA_MAX_COLS];	/* its stored value, by code */
	ExprContext *predcontext;	/* with the string as parameter $1 */
	int			batch_rows;
	AttrNumber	maxattno;
	uint64		tuples_read;	/* through the slot */
	bool		eof;
	bool		numeric_unfit;	/* a numeric did not fit its column's int64 */
	/* page at a time (heap, MVCC snapshot): see fill_from_pages */
	bool		page_mode;
	TupleDesc	desc;
	int		   *need;			/* [maxattno]: first program column, or -1 */
	int			next_same[GA_MAX_COLS];	/* the next column of its attribute */
	int		   *fixoff;			/* [maxattno]: offset of a fixed-width
								 * attribute of the leading fixed-width run */
	bool		all_fixed;		/* every attribute read lies in that run */
	bool		shared;			/* deform with gpuagg_page.h */
	GaTupleLayout layout;		/* its description of the attributes */
	GaHostStrings hooks;		/* its strings' codes: the query's dictionary */
	/* page-form batches: pinned pages and their visibility bitmaps */
	bool		page_batches;
	Buffer	   *held;			/* pins of the batch being filled */
	int			nheld;
	Buffer	   *sent;			/* pins of the batch the device reads */
	int			nsent;
	int			max_pages;		/* pages one batch may pin */
	uint64		pages_sent;		/* page form: pages referred to, by batch */
	uint64		pages_all_visible;	/* of them marked all-visible */
	Size		pagelist_off;	/* page form: the batch's pages, */
	Size		pagerows_off;	/* their first rows, */
	Size		pagevis_off;	/* their visibility bitmaps, */
	Size		layout_off;		/* the layout, then the columns */
	Size		cols_off;
	bool		started;
	BlockNumber block;
	BlockNumber blocks_left;
	GpuaggBlockLog *log;		/* parallel: the blocks this process took of
								 * rels[cur] */
	int			replay_range;	/* next range of log to read again, */
	BlockNumber replay_at;		/* and the next block of it */
	int			replay_ranges;	/* ranges the earlier runs took */
	int			index;			/* next of the page's visible tuples */
	int			ntuples;
	Size		valoff[GA_MAX_COLS];	/* offset of values in the buffer */
	Size		nulloff[GA_MAX_COLS];	/* offset of the bitmap */
	Size		size;			/* bytes of the whole buffer */
	GaBatch		batch;
	/* GpuaggBatchProbe: the rows an index finds for each of some values */
	Relation	probe_index;
	IndexScanDesc probe_scan;
	ScanKeyData probe_key;
	Datum	   *probe_values;
	int			probe_n;
	int			probe_next;		/* the next value to look up */
	bool		probe_started;	/* ... after the first */
	uint64		probe_rows;		/* rows the lookups found */
	/* GpuaggBatchProbePages: the rows to read, in order */
	ItemPointerData *tids;
	uint64		ntids;
	uint64		tid_block;		/* the next for next_block, */
	uint64		tid_row;		/* ... for probed_rows_of */
};

static bool page_mode_possible(Relation rel, TableScanDesc scan);
static bool column_deformable(const GaColumn *col, Form_pg_attribute att);
static bool shared_deform_possible(GpuaggBatchReader *r);

/*
 * Pages one page-form batch may pin: two batches are pinned at once (the
 * one the device reads, the one being filled), within a backend's fair
 * share of the buffer pool (PostgreSQL 16's rule for pins held at once), so
 * that concurrent scans never leave other backends without an unpinned
 * buffer.
 */
static int
page_batch_max_pages(void)
{
	return Max(1, Min(NBuffers / (MaxBackends + NUM_AUXILIARY_PROCS) / 2, 4096));
}

/*
 * A page-form buffer: the pages' buffer ids, first rows and visibility
 * bitmaps, the layout (for a device in another process), then room for the
 * deformed columns at the column form's offsets.  Returns where the
 * columns start: the bytes the scan writes.
 */
static Size
page_refs_layout(int max_pages, int maxattno, Size *pagerows_off, Size *pagevis_off,
				 Size *layout_off)
{
	*pagerows_off = TYPEALIGN(16, sizeof(uint32) * (Size) max_pages);
	*pagevis_off = *pagerows_off + TYPEALIGN(16, sizeof(uint32) * (Size) max_pages);
	*layout_off = *pagevis_off +
		TYPEALIGN(16, sizeof(uint32) * GA_PAGE_VIS_WORDS * (Size) max_pages);
	return TYPEALIGN(16, *layout_off + GA_LAYOUT_ATTRS_OFF +
					 sizeof(GaAttr) * Max(maxattno, 1));
}

Size
GpuaggBatchFeedBytes(const GaProgram *prog)
{
	int			maxattno = 0;
	Size		a,
				b,
				c;

	for (uint32 i = 0; i < prog->ncols; i++)
		maxattno = Max(maxattno, prog->cols[i].attno);
	return page_refs_layout(page_batch_max_pages(), maxattno, &a, &b, &c);
}

/*
 * Start reading rels[i]: its scan, and with a parallel scan, the blocks an
 * earlier run of this process took of it, replayed first.
 */
static void
open_rel(GpuaggBatchReader *r, int i)
{
	Relation	rel = r->rels[i];

	r->cur = i;
	r->log = r->pscans ? &r->logs[i] : NULL;
	r->replay_range = 0;
	r->replay_ranges = r->log ? r->log->nranges : 0;
	r->replay_at = r->replay_ranges > 0 ? r->log->ranges[0].start : InvalidBlockNumber;
	r->started = false;
	r->index = r->ntuples = 0;
	r->slot = table_slot_create(rel, NULL);
	r->scan = r->pscans ? table_beginscan_parallel(rel, r->pscans[i]) :
		table_beginscan(rel, r->snapshot, 0, NULL);
	if (r->remap_from)
	{
		/* each parent column's attno in rel (an ERROR if one is missing) */
		AttrMap    *map = build_attrmap_by_name(RelationGetDescr(rel), r->remap_from);

		r->maxmapped = 0;
		for (uint32 c = 0; c < r->prog->ncols; c++)
		{
			r->attmap[c] = map->attnums[r->prog->cols[c].attno - 1];
			r->maxmapped = Max(r->maxmapped, r->attmap[c]);
		}
		free_attrmap(map);
	}
}

/* The current relation is read to its end: on to the next, if any. */
static bool
next_rel(GpuaggBatchReader *r)
{
	if (r->cur + 1 >= r->nrels)
		return false;
	table_endscan(r->scan);
	ExecDropSingleTupleTableSlot(r->slot);
	open_rel(r, r->cur + 1);
	return true;
}

GpuaggBatchReader *
GpuaggBatchBegin(Relation *rels, int nrels, TupleDesc remap_from, Snapshot snapshot,
				 ParallelTableScanDesc *pscans, GpuaggBlockLog *logs,
				 const GpuaggProgram *hostprog, int batch_rows,
				 GpuaggDict *dict, bool pages, GpuaggJoin *join)
{
	GpuaggBatchReader *r = palloc0(sizeof(GpuaggBatchReader));
	const GaProgram *prog = &hostprog->ga;
	Relation	rel = nrels > 0 ? rels[0] : NULL;
	const char *why = NULL;

	r->prog = prog;
	r->rels = rels;
	r->nrels = nrels;
	r->remap_from = remap_from;
	r->snapshot = snapshot;
	r->pscans = pscans;
	r->logs = logs;
	r->host = hostprog;
	r->join = join;
	for (int k = 0; k < hostprog->npreds; k++)
	{
		if (OidIsValid(hostprog->pred_funcid[k]))
		{
			fmgr_info(hostprog->pred_funcid[k], &r->predfn[k]);
			continue;
		}
		if (r->predcontext == NULL)
		{
			r->predcontext = CreateStandaloneExprContext();
			r->predcontext->ecxt_param_list_info = makeParamList(1);
		}
		r->predstate[k] = ExecInitExpr(hostprog->pred_expr[k], NULL);
	}
	r->dict = dict;
	r->batch_rows = batch_rows;
	if (nrels > 0)
		open_rel(r, 0);
	for (uint32 c = 0; c < prog->ncols; c++)
	{
		int			w = ga_type_width(prog->cols[c].type);

		if (!GpuaggJoinAttno(prog->cols[c].attno))
			r->maxattno = Max(r->maxattno, prog->cols[c].attno);
		r->valoff[c] = r->size;
		r->size += TYPEALIGN(16, (Size) w * batch_rows);
		r->nulloff[c] = r->size;
		r->size += TYPEALIGN(16, (batch_rows + 7) / 8);
	}
	r->size = Max(r->size, 16);
	if (join)
		r->maxattno = Max(r->maxattno, GpuaggJoinMaxAttno(join));

	/* run-time pruning left no partition: no rows */
	if (nrels == 0)
	{
		r->eof = true;
		return r;
	}
	/* (columns found by name: the slot deforms each relation's tuples) */
	r->page_mode = remap_from == NULL && page_mode_possible(rel, r->scan);
	if (r->page_mode)
	{
		r->desc = RelationGetDescr(rel);
		r->need = palloc(sizeof(int) * Max(r->maxattno, 1));
		for (int i = 0; i < r->maxattno; i++)
			r->need[i] = -1;
		for (int c = (int) prog->ncols - 1; c >= 0; c--)
		{
			if (GpuaggJoinAttno(prog->cols[c].attno))
				continue;
			r->next_same[c] = r->need[prog->cols[c].attno - 1];
			r->need[prog->cols[c].attno - 1] = c;
		}

		/* offsets of the leading fixed-width attributes (attcacheoff's rule) */
		r->fixoff = palloc(sizeof(int) * Max(r->maxattno, 1));
		r->all_fixed = true;
		{
			uint32		off = 0;

			for (int i = 0; i < r->maxattno; i++)
			{
				Form_pg_attribute att = TupleDescAttr(r->desc, i);

				if (att->attlen <= 0 || !r->all_fixed)
				{
					r->all_fixed = false;
					r->fixoff[i] = -1;
					continue;
				}
				off = att_align_nominal(off, att->attalign);
				r->fixoff[i] = off;
				off += att->attlen;
			}
		}
		/* (a join: each tuple in the slot, matched there) */
		r->shared = join == NULL && shared_deform_possible(r);

		/*
		 * Page form: the device deforms the tuples where they lie in shared
		 * buffers.  A batch pins its pages until the device is done with
		 * them.
		 */
		for (int i = 0; pages && r->shared && why == NULL && i < nrels; i++)
			why = GpuaggPageFormMissing(prog, rels[i], batch_rows);
		if (pages && r->shared && why != NULL)
			elog(DEBUG1, "gpuagg: no page batches: %s", why);
		else if (pages && r->shared)
		{
			r->page_batches = true;
			r->max_pages = page_batch_max_pages();
			r->held = palloc(sizeof(Buffer) * r->max_pages);
			r->sent = palloc(sizeof(Buffer) * r->max_pages);
			r->pagelist_off = 0;
			r->cols_off = page_refs_layout(r->max_pages, r->maxattno, &r->pagerows_off,
										   &r->pagevis_off, &r->layout_off);
			r->size += r->cols_off;
		}
	}
	return r;
}

Size
GpuaggBatchBufferSize(GpuaggBatchReader *r)
{
	return r->size;
}

bool
GpuaggBatchReplayable(GpuaggBatchReader *r)
{
	/* every block of a parallel scan goes through next_block in page mode */
	return r->log == NULL || r->page_mode;
}

Size
GpuaggBatchHostSize(GpuaggBatchReader *r)
{
	return r->page_batches ? r->cols_off : r->size;
}

bool
GpuaggBatchDone(GpuaggBatchReader *r)
{
	return r->eof;
}

/*
 * Room in predicate k's cache for code (and in its values, for a function
 * of the string).
 */
static void
pred_cache_reserve(GpuaggBatchReader *r, int k, uint32 code)
{
	uint32		cap = Max(1024, r->predcap[k]);

	if (code < r->predcap[k])
		return;
	while (cap <= code)
		cap *= 2;
	r->predcache[k] = r->predcache[k] ?
		repalloc_huge(r->predcache[k], cap) : MemoryContextAllocHuge(CurrentMemoryContext, cap);
	memset(r->predcache[k] + r->predcap[k], 0, cap - r->predcap[k]);
	if (r->predstate[k])
		r->predvalue[k] = r->predvalue[k] ?
			repalloc_huge(r->predvalue[k], cap * sizeof(uint64)) :
			MemoryContextAllocHuge(CurrentMemoryContext, cap * sizeof(uint64));
	r->predcap[k] = cap;
}

/* String predicate k of a non-NULL string: from its code's cache. */
static uint8
pred_value(GpuaggBatchReader *r, int k, Datum d)
{
	uint32		code = GpuaggDictEncode(r->dict, d);

	pred_cache_reserve(r, k, code);
	if (r->predcache[k][code] == 0)
		r->predcache[k][code] = 1 +
			DatumGetBool(FunctionCall2Coll(&r->predfn[k], r->host->pred_collid[k],
										   GpuaggDictValue(r->dict, code),
										   r->host->pred_pattern[k]));
	return r->predcache[k][code] - 1;
}

/*
 * Function k of a non-NULL string (GpuaggProgram.pred_expr) as column col
 * stores it: from its code's cache (1: a value, 2: NULL), else evaluated
 * by PostgreSQL with the string as $1 (a string result coded in the
 * dictionary).  *isnull: the function returned NULL (substring(s FROM
 * pattern) where the pattern does not match).
 */
static uint64
derived_value(GpuaggBatchReader *r, const GaColumn *col, int k, Datum d, bool *isnull)
{
	uint32		code = GpuaggDictEncode(r->dict, d);

	pred_cache_reserve(r, k, code);
	if (r->predcache[k][code] == 0)
	{
		ParamExternData *prm = &r->predcontext->ecxt_param_list_info->params[0];
		Datum		v;
		bool		vnull;

		prm->value = GpuaggDictValue(r->dict, code);
		prm->isnull = false;
		prm->pflags = PARAM_FLAG_CONST;
		prm->ptype = r->host->pred_argtype[k];
		v = ExecEvalExprSwitchContext(r->predstate[k], r->predcontext, &vnull);
		r->predvalue[k][code] = vnull ? 0 : col->type == GA_T_TEXT ? GpuaggDictEncode(r->dict, v) :
			col->type == GA_T_BOOL ? (uint64) DatumGetBool(v) : (uint64) (uint32) DatumGetInt32(v);
		r->predcache[k][code] = vnull ? 2 : 1;
		ResetExprContext(r->predcontext);
	}
	*isnull = r->predcache[k][code] == 2;
	return r->predvalue[k][code];
}

/* gpuagg_page.h's string column on the host: the code in the dictionary. */
static int
host_string_code(void *arg, const uint8_t *p, uint32_t *code)
{
	GpuaggBatchReader *r = (GpuaggBatchReader *) arg;

	*code = GpuaggDictEncode(r->dict, PointerGetDatum(p));
	return 1;
}

/* ... a LIKE column's match of a compressed or TOASTed string ... */
static int
host_like(void *arg, const uint8_t *p, int c, uint8_t *match)
{
	GpuaggBatchReader *r = (GpuaggBatchReader *) arg;

	*match = pred_value(r, r->prog->cols[c].pred - 1, PointerGetDatum(p));
	return 1;
}

/* ... a length column's characters of one ... */
static int
host_length(void *arg, const uint8_t *p, int c, int32_t *n)
{
	GpuaggBatchReader *r = (GpuaggBatchReader *) arg;
	bool		isnull;			/* (never: a length) */

	*n = (int32) derived_value(r, &r->prog->cols[c], r->prog->cols[c].pred - 1,
							   PointerGetDatum(p), &isnull);
	Assert(!isnull);
	return 1;
}

/* ... a prefix column's code of one ... */
static int
host_prefix(void *arg, const uint8_t *p, int c, uint32_t *code)
{
	GpuaggBatchReader *r = (GpuaggBatchReader *) arg;
	bool		isnull;			/* (never: a prefix) */

	*code = (uint32) derived_value(r, &r->prog->cols[c], r->prog->cols[c].pred - 1,
								   PointerGetDatum(p), &isnull);
	Assert(!isnull);
	return 1;
}

/* ... the code of a string's bytes ... */
static int
host_bytes(void *arg, const uint8_t *data, uint32_t len, uint32_t *code)
{
	GpuaggBatchReader *r = (GpuaggBatchReader *) arg;

	*code = GpuaggDictEncodeBytes(r->dict, (const char *) data, (int32) len);
	return 1;
}

/* ... and a bpchar column's two codes. */
static int
host_bpchar_codes(void *arg, const uint8_t *p, uint64_t *codes)
{
	GpuaggBatchReader *r = (GpuaggBatchReader *) arg;

	*codes = GpuaggDictRegister(r->dict, PointerGetDatum(p), true);
	return 1;
}

/*
 * Store a non-NULL Datum at its native width; false where the value to
 * store is NULL (a function of a string that returned NULL for it).
 */
static inline bool
store_value(GpuaggBatchReader *r, const GaColumn *col, void *vals, int64 row,
			Datum d)
{
	/* a function of the string: its value for the string */
	if (col->pred && r->predstate[col->pred - 1])
	{
		bool		isnull;
		uint64		v = derived_value(r, col, col->pred - 1, d, &isnull);

		if (col->type == GA_T_TEXT || col->type == GA_T_INT4)
			((uint32 *) vals)[row] = (uint32) v;
		else
			((uint8 *) vals)[row] = (uint8) v;
		return !isnull;
	}
	if (col->dscale_of)
	{
		/* a numeric's display scale (NaN's: its value takes the exact path) */
		((float8 *) vals)[row] = Max(GpuaggNumericDscale(d), 0);
		return true;
	}
	if (col->ivpart)
	{
		/* a part of an interval (past int64: the exact path) */
		Interval   *iv = DatumGetIntervalP(d);
		uint8		bytes[16];	/* as it lies in a page, little-endian */

		for (int i = 0; i < 8; i++)
			bytes[i] = (uint8) ((uint64) iv->time >> (8 * i));
		for (int i = 0; i < 4; i++)
		{
			bytes[8 + i] = (uint8) ((uint32) iv->day >> (8 * i));
			bytes[12 + i] = (uint8) ((uint32) iv->month >> (8 * i));
		}
		if (!ga_interval_part(bytes, col->ivpart, &((int64 *) vals)[row]))
		{
			((int64 *) vals)[row] = 0;
			r->numeric_unfit = true;
		}
		return true;
	}
	switch (col->type)
	{
		case GA_T_TEXT:
			/* (a uuid: its 16 bytes, program.h's uuid_cols) */
			((uint32 *) vals)[row] =
				r->host != NULL && (r->host->uuid_cols >> (col - r->prog->cols)) & 1 ?
				GpuaggDictEncodeBytes(r->dict, (const char *) DatumGetUUIDP(d)->data, UUID_LEN) :
				GpuaggDictEncode(r->dict, d);
			break;
		case GA_T_BPCHAR:
			((uint64 *) vals)[row] = GpuaggDictRegister(r->dict, d, true);
			break;
		case GA_T_BOOL:
			/* a string predicate's column holds its answer for the string */
			((uint8 *) vals)[row] = col->pred ? pred_value(r, col->pred - 1, d) :
				DatumGetBool(d);
			break;
		case GA_T_INT2:
			((int16 *) vals)[row] = DatumGetInt16(d);
			break;
		case GA_T_INT4:
		case GA_T_DATE:
			((int32 *) vals)[row] = DatumGetInt32(d);
			break;
		case GA_T_FLOAT4:
			((float4 *) vals)[row] = DatumGetFloat4(d);
			break;
		case GA_T_FLOAT8:
			((float8 *) vals)[row] = DatumGetFloat8(d);
			break;
		case GA_T_INT8:
		case GA_T_TIMESTAMP:
		case GA_T_TIMESTAMPTZ:
			((int64 *) vals)[row] = DatumGetInt64(d);
			break;
		case GA_T_NUMERIC:
			if (!GpuaggNumericScaled(d, col->scale, GpuaggColumnDscale(col),
									 &((int64 *) vals)[row]))
			{
				((int64 *) vals)[row] = 0;
				r->numeric_unfit = true;
			}
			break;
		default:
			break;
	}
	return true;
}

/* (batch.h) */
bool
GpuaggBatchStoreValue(GpuaggBatchReader *r, int c, void *vals, int64 row, Datum d)
{
	return store_value(r, &r->prog->cols[c], vals, row, d);
}

/* (batch.h) */
uint64
GpuaggBatchTuplesRead(GpuaggBatchReader *reader)
{
	return reader->tuples_read;
}

/* (batch.h) */
bool
GpuaggBatchNumericUnfit(GpuaggBatchReader *reader)
{
	return reader->numeric_unfit;
}

/*---- page at a time: heap pages read in place ---------------------------
 *
 * The slot interface costs a buffer pin and a full deform per tuple.  For a
 * heap table under an MVCC snapshot (page mode, as every plain seq scan
 * runs) the reader instead asks heapam for one page at a time
 * (heapgetpage: pin, prune, visibility of every tuple under the snapshot,
 * serializable conflict checks -- exactly what a seq scan does) and reads
 * the visible tuples where they lie on the pinned page, deforming only the
 * attributes up to the last one the program reads and storing only those it
 * reads.  The page order is a seq scan's: from the synchronized-scan start
 * block around, or the parallel scan's next blocks.
 */

/* Can this scan be read page at a time? */
static bool
page_mode_possible(Relation rel, TableScanDesc scan)
{
	return rel->rd_tableam == GetHeapamTableAmRoutine() &&
		(scan->rs_flags & SO_ALLOW_PAGEMODE) != 0;
}

/* Note block blk as taken from the parallel scan. */
static void
log_block(GpuaggBlockLog *log, BlockNumber blk)
{
	int			n = log->nranges;

	if (n > 0 && log->ranges[n - 1].start + log->ranges[n - 1].count == blk)
	{
		log->ranges[n - 1].count++;
		return;
	}
	if (n == log->cap)
	{
		log->cap = Max(16, 2 * log->cap);
		log->ranges = log->ranges ?
			repalloc(log->ranges, sizeof(GpuaggBlockRange) * log->cap) :
			MemoryContextAlloc(log->cxt, sizeof(GpuaggBlockRange) * log->cap);
	}
	log->ranges[n].start = blk;
	log->ranges[n].count = 1;
	log->nranges++;
}

/* The next block of the current relation's scan, or InvalidBlockNumber at its end. */
static BlockNumber
next_block(GpuaggBatchReader *r)
{
	HeapScanDesc h = (HeapScanDesc) r->scan;

	if (r->tids)
	{
		/* GpuaggBatchProbePages: the blocks of the rows found */
		BlockNumber blk;

		if (r->tid_block >= r->ntids)
			return InvalidBlockNumber;
		blk = ItemPointerGetBlockNumber(&r->tids[r->tid_block]);
		while (r->tid_block < r->ntids &&
			   ItemPointerGetBlockNumber(&r->tids[r->tid_block]) == blk)
			r->tid_block++;
		if (blk >= h->rs_nblocks)
			elog(ERROR, "gpuagg: an index probe found a row past the end of \"%s\"",
				 RelationGetRelationName(h->rs_base.rs_rd));
		return blk;
	}
	if (h->rs_base.rs_parallel != NULL)
	{
		ParallelBlockTableScanDesc pb = (ParallelBlockTableScanDesc) h->rs_base.rs_parallel;
		GpuaggBlockLog *log = r->log;
		BlockNumber blk;

		/* first the blocks an earlier run of this process took */
		if (r->replay_range < r->replay_ranges)
		{
			const GpuaggBlockRange *range = &log->ranges[r->replay_range];

			blk = r->replay_at++;
			if (r->replay_at == range->start + range->count &&
				++r->replay_range < r->replay_ranges)
				r->replay_at = range[1].start;
			return blk;
		}
		if (!r->started)
		{
			/* where the earlier run stopped, inside its chunk */
			if (log && log->have_worker)
				*h->rs_parallelworkerdata = log->worker;
			else
				table_block_parallelscan_startblock_init(h->rs_base.rs_rd,
														 h->rs_parallelworkerdata, pb);
		}
		r->started = true;
		blk = table_block_parallelscan_nextpage(h->rs_base.rs_rd,
												h->rs_parallelworkerdata, pb);
		if (log)
		{
			log->worker = *h->rs_parallelworkerdata;
			log->have_worker = true;
			if (blk != InvalidBlockNumber)
				log_block(log, blk);
		}
		return blk;
	}
	if (!r->started)
	{
		r->started = true;
		r->blocks_left = h->rs_nblocks;
		if (h->rs_numblocks != InvalidBlockNumber)
			r->blocks_left = Min(r->blocks_left, h->rs_numblocks);
		r->block = h->rs_startblock;
	}
	else if (++r->block >= h->rs_nblocks)
		r->block = 0;
	if (r->blocks_left == 0)
		return InvalidBlockNumber;
	r->blocks_left--;
	if (h->rs_base.rs_flags & SO_ALLOW_SYNC)
		ss_report_location(h->rs_base.rs_rd, r->block);
	return r->block;
}

/* Row row of column c: NULL, or the value d. */
static inline void
put_value(GpuaggBatchReader *r, int c, void **values, uint8 **nulls, bool *anynull,
		  int row, Datum d, bool isnull)
{
	if (isnull || (values[c] && !store_value(r, &r->prog->cols[c], values[c], row, d)))
	{
		nulls[c][row >> 3] |= (uint8) (1 << (row & 7));
		anynull[c] = true;
	}
}

/*
 * Deform the attributes 1 .. maxattno of a tuple as slot_deform_heap_tuple
 * does, storing those the program reads (need[attno - 1] = its column).
 */
static inline void
deform_tuple(GpuaggBatchReader *r, HeapTupleHeader tup, int row, void **values,
			 uint8 **nulls, bool *anynull)
{
	TupleDesc	desc = r->desc;
	int			natts = HeapTupleHeaderGetNatts(tup);
	bool		hasnulls = (tup->t_infomask & HEAP_HASNULL) != 0;
	char	   *tp = (char *) tup + tup->t_hoff;
	bits8	   *bp = tup->t_bits;
	uint32		off = 0;
	bool		slow = false;

	/* no NULLs and every attribute read at a fixed offset */
	if (r->all_fixed && !hasnulls && natts >= r->maxattno)
	{
		for (uint32 c = 0; c < r->prog->ncols; c++)
		{
			int			i = r->prog->cols[c].attno - 1;

			if (r->prog->cols[c].dim)
				continue;		/* (the device's join fills it) */
			put_value(r, c, values, nulls, anynull, row,
					  fetchatt(TupleDescAttr(desc, i), tp + r->fixoff[i]), false);
		}
		return;
	}

	for (int i = 0; i < r->maxattno; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		int			c = r->need[i];

		if (i >= natts || (hasnulls && att_isnull(i, bp)))
		{
			bool		isnull = true;
			Datum		d = (Datum) 0;

			slow = true;
			/* an attribute added after the tuple: its default, or NULL */
			if (c >= 0 && i >= natts)
				d = getmissingattr(desc, i + 1, &isnull);
			for (; c >= 0; c = r->next_same[c])
				put_value(r, c, values, nulls, anynull, row, d, isnull);
			continue;
		}
		if (!slow && att->attcacheoff >= 0)
			off = att->attcacheoff;
		else if (att->attlen == -1)
			off = att_align_pointer(off, att->attalign, -1, tp + off);
		else
			off = att_align_nominal(off, att->attalign);
		for (; c >= 0; c = r->next_same[c])
			put_value(r, c, values, nulls, anynull, row, fetchatt(att, tp + off), false);
		off = att_addlength_pointer(off, att->attlen, tp + off);
		if (att->attlen <= 0)
			slow = true;
	}
}

/*
 * Can gpuagg_page.h deform column col, attribute att, where it lies: a
 * fixed-width value stored as it lies, a text or varchar value stored as
 * its code (or bpchar's two codes), whether it matches a LIKE the device
 * matches, or its length, or any value of which only NULL-ness is read?
 */
static bool
column_deformable(const GaColumn *col, Form_pg_attribute att)
{
	if (GpuaggColumnFromHost(col))
		return false;
	if (col->type == GA_T_NULLONLY)
		return true;			/* (count(x): any attribute, its NULL bit) */
	if (col->type == GA_T_TEXT || col->type == GA_T_BPCHAR || col->like || col->length)
		return att->attlen == -1;
	if (col->type == GA_T_NUMERIC || col->dscale_of)
		return getBaseType(att->atttypid) == NUMERICOID;
	if (col->ivpart)
		return getBaseType(att->atttypid) == INTERVALOID;
	return att->attbyval && att->attlen == ga_type_width(col->type);
}

/*
 * The string columns (of strings) whose values a device codes only in the
 * rows a part of the WHERE keeps (GaTupleLayout.deferred, defer_end), at
 * most GA_MAX_DEFERRED: all of them when quals that read no string come
 * first (then those quals decide), else those the WHERE does not read.
 */
static uint64
deferred_strings(const GaProgram *p, uint64 strings, int32 *end)
{
	uint64		deferred = 0;
	int			n = 0;

	*end = p->where.end;
	if (p->where.reg < 0)
		return 0;
	if (p->where_strings > p->where.start)
		*end = p->where_strings;
	for (int i = p->where.start; i < *end; i++)
		if (p->code[i].op == GA_OP_COL)
			strings &= ~(UINT64CONST(1) << p->code[i].imm);
	for (uint32 c = 0; c < p->ncols && n < GA_MAX_DEFERRED; c++)
		if ((strings >> c) & 1)
		{
			deferred |= UINT64CONST(1) << c;
			n++;
		}
	return deferred;
}

/*
 * A default (GaAttr.missing) is one value for every column of its
 * attribute's chain: a string's code, or its Datum as it is.  A LIKE
 * column's match, a length column's count, a prefix column's code of it
 * or a numeric's display scale would be other values:
 * does a column of the chain from c need one?
 */
static bool
missing_differs(const GaProgram *p, const int *next_same, int c)
{
	for (; c >= 0; c = next_same[c])
		if (p->cols[c].like || p->cols[c].length || p->cols[c].prefix ||
			p->cols[c].dscale_of || p->cols[c].ivpart)
			return true;
	return false;
}

/*
 * Can gpuagg_page.h deform for this program -- the deformer the GPU runs
 * on pages, which the host runs too?  If every column it reads is
 * column_deformable, describe the attributes for it.
 */
static bool
shared_deform_possible(GpuaggBatchReader *r)
{
	const GaProgram *p = r->prog;
	GaAttr	   *attrs;

#ifdef WORDS_BIGENDIAN
	/* gpuagg_page.h reads headers and values as little-endian bytes */
	return false;
#endif
	for (uint32 c = 0; c < p->ncols; c++)
	{
		int			t = p->cols[c].type;

		if (GpuaggJoinAttno(p->cols[c].attno) && !p->cols[c].dim)
			return false;		/* (the host's join fills it) */
		if (p->cols[c].dim)
		{
			/* a dimension's: no attribute, the device's join fills it */
			r->layout.width[c] = ga_type_width(t);
			r->layout.next_same[c] = -1;
			continue;
		}
		if (!column_deformable(&p->cols[c], TupleDescAttr(r->desc, p->cols[c].attno - 1)))
			return false;
		if (t == GA_T_TEXT || t == GA_T_BPCHAR)
			r->layout.strings |= UINT64CONST(1) << c;
		if (t == GA_T_BPCHAR)
			r->layout.bpchars |= UINT64CONST(1) << c;
		if (t == GA_T_NUMERIC)
			r->layout.numerics |= UINT64CONST(1) << c;
		if (t == GA_T_NUMERIC && p->cols[c].dscale_checked)
			r->layout.dscale_checked |= UINT64CONST(1) << c;
		if (p->cols[c].dscale_of)
			r->layout.dscales |= UINT64CONST(1) << c;
		if (p->cols[c].ivpart)
			r->layout.ivparts |= UINT64CONST(1) << c;
		r->layout.scale[c] = p->cols[c].ivpart ? p->cols[c].ivpart : p->cols[c].scale;
		r->layout.width[c] = ga_type_width(t);
		r->layout.next_same[c] = r->next_same[c];
		r->layout.like[c] = p->cols[c].like;
		if (p->cols[c].length)
			r->layout.lengths |= UINT64CONST(1) << c;
		if (p->cols[c].length == GA_LENGTH_OCTETS ||
			(p->cols[c].prefix_flags & GA_PREFIX_OCTETS))
			r->layout.octets |= UINT64CONST(1) << c;
		if (p->cols[c].prefix_flags & GA_PREFIX_RTRIM)
			r->layout.rtrim |= UINT64CONST(1) << c;
		r->layout.prefix[c] = (int16) p->cols[c].prefix;
	}
	memcpy(r->layout.likes, p->likes, sizeof(r->layout.likes));
	/*
	 * (a join the device runs comes before the WHERE, after the deformer:
	 * no string waits for the WHERE)
	 */
	r->layout.deferred = p->ndims > 0 || p->dimscan ? 0 :
		deferred_strings(p, r->layout.strings, &r->layout.defer_end);
	r->hooks.code = host_string_code;
	r->hooks.bpcodes = host_bpchar_codes;
	r->hooks.like = host_like;
	r->hooks.length = host_length;
	r->hooks.prefix = host_prefix;
	r->hooks.bytes = host_bytes;
	r->hooks.arg = r;
	attrs = palloc0(sizeof(GaAttr) * Max(r->maxattno, 1));
	for (int i = 0; i < r->maxattno; i++)
	{
		Form_pg_attribute att = TupleDescAttr(r->desc, i);
		GaAttr	   *a = &attrs[i];

		a->len = att->attlen;
		a->align = att->attalign == TYPALIGN_DOUBLE ? ALIGNOF_DOUBLE :
			att->attalign == TYPALIGN_INT ? ALIGNOF_INT :
			att->attalign == TYPALIGN_SHORT ? ALIGNOF_SHORT : 1;
		a->fixoff = r->fixoff[i];
		a->col = r->need[i];
		a->missing_null = true;
		if (a->col >= 0)
		{
			bool		isnull;
			Datum		d = getmissingattr(r->desc, i + 1, &isnull);

			a->missing_null = isnull;
			if (isnull)
				continue;
			/*
			 * a string's default: its code, which every device knows; a
			 * numeric's: its scaled value.  The host deforms where there is
			 * none, or where the chain's one value cannot serve each column.
			 */
			if (missing_differs(p, r->next_same, a->col) ||
				(((r->layout.numerics >> a->col) & 1) &&
				 !GpuaggNumericScaled(d, r->layout.scale[a->col],
									  GpuaggColumnDscale(&p->cols[a->col]), &a->missing.i)))
			{
				/* (r->shared false: the layout is never read) */
				pfree(attrs);
				return false;
			}
			if ((r->layout.bpchars >> a->col) & 1)
				a->missing.u = GpuaggDictRegister(r->dict, d, true);
			else if (!((r->layout.numerics >> a->col) & 1))
				a->missing.u = (r->layout.strings >> a->col) & 1 ?
					GpuaggDictEncode(r->dict, d) : (uint64) d;
		}
	}
	r->layout.natts = r->maxattno;
	/* (its shortcut stores the attributes' bytes: not an interval's parts) */
	r->layout.all_fixed = r->all_fixed && r->layout.ivparts == 0;
	r->layout.attrs = attrs;
	return true;
}

/*
 * Can the scans of rel send this program's rows in page form, the device
 * deforming the tuples where they lie in shared buffers?  NULL if so, or
 * why not.  The one rule, for the planner (page form decides the parallel
 * plans) and the scan alike; what only a run knows is added there: the
 * device has mapped shared buffers, the scan reads a page at a time.
 */
const char *
GpuaggPageFormMissing(const GaProgram *prog, Relation rel, int batch_rows)
{
	TupleDesc	desc = RelationGetDescr(rel);
	ItemIdData	lp;
	uint32		raw;

	if (!gpuagg_page_batches)
		return "gpuagg.page_batches is off";
	if (rel->rd_tableam != GetHeapamTableAmRoutine())
		return "not a heap table";
	if (RelationUsesLocalBuffers(rel))
		return "a temporary table, in local buffers";
	if (batch_rows < MaxHeapTuplesPerPage)
		return "a batch (gpuagg.batch_size) holds fewer rows than a page";

	/* a page's line pointers as gpuagg_page.h reads them (little-endian) */
	ItemIdSetNormal(&lp, 0x1234, 0x56);
	memcpy(&raw, &lp, sizeof(raw));
#ifdef WORDS_BIGENDIAN
	raw = 0;
#endif
	if (MaxHeapTuplesPerPage > GA_PAGE_VIS_WORDS * 32 ||
		raw != (0x1234 | (GA_LP_NORMAL << GA_LP_FLAGS_SHIFT) | (0x56 << GA_LP_LEN_SHIFT)) ||
		SizeOfPageHeaderData != GA_PAGE_LINP_OFF)
		return "this server lays pages out otherwise than the device reads them";

	for (uint32 c = 0; c < prog->ncols; c++)
		if (GpuaggJoinAttno(prog->cols[c].attno) && !prog->cols[c].dim)
			return "a join: the host matches each row with the joined tables' rows";
	for (uint32 c = 0; c < prog->ncols; c++)
		if (!prog->cols[c].dim &&
			!column_deformable(&prog->cols[c], TupleDescAttr(desc, prog->cols[c].attno - 1)))
			return TupleDescAttr(desc, prog->cols[c].attno - 1)->atttypid == UUIDOID ?
				"a uuid column (the host codes its values)" :
				"a string predicate or function only the host computes (ILIKE, a LIKE with _, <, lower(), ...)";
	return NULL;
}

/*
 * GpuaggBatchProbePages: of block blk's visible rows, in bitmap vis, those
 * the index found (blocks come in the order of r->tids).  Returns them.
 */
static int
probed_rows_of(GpuaggBatchReader *r, BlockNumber blk, uint32 *vis)
{
	uint32		found[GA_PAGE_VIS_WORDS] = {0};
	int			count = 0;

	while (r->tid_row < r->ntids &&
		   ItemPointerGetBlockNumber(&r->tids[r->tid_row]) < blk)
		r->tid_row++;
	for (; r->tid_row < r->ntids &&
		 ItemPointerGetBlockNumber(&r->tids[r->tid_row]) == blk; r->tid_row++)
	{
		OffsetNumber off = ItemPointerGetOffsetNumber(&r->tids[r->tid_row]);

		if (off >= FirstOffsetNumber && off <= MaxHeapTuplesPerPage)
			found[(off - 1) >> 5] |= 1u << ((off - 1) & 31);
	}
	for (int w = 0; w < GA_PAGE_VIS_WORDS; w++)
	{
		vis[w] &= found[w];
		count += pg_popcount32(vis[w]);
	}
	return count;
}

/*
 * Page form: pages pinned, each with the bitmap of its line pointers whose
 * tuples the query sees, until the batch holds max_pages pages, its next
 * page might not fit its rows, or the scan ends.  Each page a batch refers
 * to stays pinned until the device is done with it (GpuaggBatchSent of the
 * batch after it, or GpuaggBatchConsumed); the device reads the tuples
 * where they lie.
 *
 * A page marked all-visible (under the buffer's share lock, as heapgetpage
 * decides) has every normal line pointer's tuple visible to every MVCC
 * snapshot: its bitmap is its normal line pointers, and its tuples are not
 * touched on the host.  While the page is pinned, those line pointers and
 * tuples stay where they are (pruning and defragmentation need a cleanup
 * lock, which waits for our pin); a tuple inserted later, into a new or a
 * reused line pointer, has no bit, and an update or delete changes only
 * the header fields the deformer does not read.  Any other page -- or any
 * page, when a serializable transaction must check for conflicts -- is
 * read by heapgetpage, the seq scan's own page visibility check, and its
 * visible tuples make the bitmap.
 */
static int
fill_page_refs(GpuaggBatchReader *r, uint32 *pagelist, uint32 *pagerows, uint32 *pagevis)
{
	int			n = 0;

	while (!r->eof && r->nheld < r->max_pages && n + MaxHeapTuplesPerPage <= r->batch_rows)
	{
		HeapScanDesc h = (HeapScanDesc) r->scan;
		Relation	rel = h->rs_base.rs_rd;
		bool		trust_flag = !r->snapshot->takenDuringRecovery &&
			!CheckForSerializableConflictOutNeeded(rel, r->snapshot);
		Buffer		bufs[PAGE_LOOKAHEAD];
		BlockNumber blks[PAGE_LOOKAHEAD];
		int			nstaged = 0;
		bool		rel_done = false;

		/*
		 * Pin a few pages ahead and prefetch their headers and line
		 * pointers: reading a page's header is a cache miss (the host
		 * touches nothing else of an all-visible page), and this way the
		 * misses of several pages overlap.
		 */
		while (nstaged < PAGE_LOOKAHEAD && r->nheld + nstaged < r->max_pages &&
			   n + (nstaged + 1) * MaxHeapTuplesPerPage <= r->batch_rows)
		{
			BlockNumber blk = next_block(r);
			char	   *p;

			if (blk == InvalidBlockNumber)
			{
				rel_done = true;
				break;
			}
			CHECK_FOR_INTERRUPTS();
			bufs[nstaged] = ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL, h->rs_strategy);
			blks[nstaged] = blk;
			p = (char *) BufferGetPage(bufs[nstaged]);
			__builtin_prefetch(p);
			__builtin_prefetch(p + 256);
			__builtin_prefetch(p + 512);
			nstaged++;
		}
		for (int i = 0; i < nstaged; i++)
		{
			Buffer		buf = bufs[i];
			uint32	   *vis = pagevis + (Size) r->nheld * GA_PAGE_VIS_WORDS;
			Page		page = BufferGetPage(buf);
			int			count = 0;

			memset(vis, 0, sizeof(uint32) * GA_PAGE_VIS_WORDS);
			LockBuffer(buf, BUFFER_LOCK_SHARE);
			if (trust_flag && PageIsAllVisible(page))
			{
				int			maxoff = Min(PageGetMaxOffsetNumber(page), MaxHeapTuplesPerPage);
				ItemId		lps = PageGetItemId(page, FirstOffsetNumber);

				/* the normal line pointers, 32 to a word, without branches */
				for (int w = 0; w * 32 < maxoff; w++)
				{
					uint32		word = 0;
					int			end = Min(32, maxoff - w * 32);

					/* (counted as they are found: pg_popcount32 is a call) */
					for (int j = 0; j < end; j++)
					{
						uint32		normal = lps[w * 32 + j].lp_flags == LP_NORMAL;

						word |= normal << j;
						count += normal;
					}
					vis[w] = word;
				}
				LockBuffer(buf, BUFFER_LOCK_UNLOCK);
				r->pages_all_visible++;
			}
			else
			{
				LockBuffer(buf, BUFFER_LOCK_UNLOCK);
				ReleaseBuffer(buf);
				heapgetpage(r->scan, blks[i]);
				buf = h->rs_cbuf;
				IncrBufferRefCount(buf);
				for (int t = 0; t < h->rs_ntuples; t++)
				{
					OffsetNumber off = h->rs_vistuples[t];

					vis[(off - 1) >> 5] |= 1u << ((off - 1) & 31);
				}
				count = h->rs_ntuples;
			}
			if (r->tids)
				count = probed_rows_of(r, blks[i], vis);
			r->pages_sent++;
			if (count == 0)
			{
				ReleaseBuffer(buf);
				continue;
			}
			pagelist[r->nheld] = (uint32) (buf - 1);
			pagerows[r->nheld] = n;
			r->held[r->nheld++] = buf;
			n += count;
		}
		/* (the staged pages were the relation's: heapgetpage read them) */
		if (rel_done && !next_rel(r))
			r->eof = true;
	}
	return n;
}

int
GpuaggBatchMaxPages(GpuaggBatchReader *r)
{
	return r->page_batches ? r->max_pages : 0;
}

bool
GpuaggBatchPageStrings(GpuaggBatchReader *r)
{
	return r->page_batches && r->layout.strings != 0;
}

void
GpuaggBatchNoPages(GpuaggBatchReader *r)
{
	if (!r->page_batches)
		return;
	Assert(r->nheld == 0 && r->nsent == 0);
	r->page_batches = false;
	r->size -= r->cols_off;
}

void
GpuaggBatchPageCounts(GpuaggBatchReader *r, uint64 *pages, uint64 *all_visible)
{
	*pages = r->pages_sent;
	*all_visible = r->pages_all_visible;
}

/* Unpin a batch's pages. */
static void
unpin(Buffer *bufs, int *n)
{
	for (int i = 0; i < *n; i++)
		ReleaseBuffer(bufs[i]);
	*n = 0;
}

/*
 * The device has taken the batch just filled: its pins become the sent
 * batch's, and those of the batch sent before it, which the device is done
 * with, go.
 */
void
GpuaggBatchSent(GpuaggBatchReader *r)
{
	Buffer	   *t = r->sent;

	unpin(r->sent, &r->nsent);
	r->sent = r->held;
	r->nsent = r->nheld;
	r->held = t;
	r->nheld = 0;
}

/* The device is done with every page: unpin them all. */
void
GpuaggBatchConsumed(GpuaggBatchReader *r)
{
	unpin(r->sent, &r->nsent);
	unpin(r->held, &r->nheld);
}

/*
 * A join: rows n on of the batch, one per match of the slot's row, until
 * the batch is full or the matches end (r->join_pending then false).
 */
static int
join_rows(GpuaggBatchReader *r, void **values, uint8 **nulls, bool *anynull, int n)
{
	const GaProgram *p = r->prog;

	while (r->join_pending && n < r->batch_rows)
	{
		for (uint32 c = 0; c < p->ncols; c++)
		{
			int			attno = p->cols[c].attno;
			bool		isnull;
			Datum		d;

			if (GpuaggJoinAttno(attno))
				d = GpuaggJoinValue(r->join, attno - GPUAGG_JOIN_ATTNO, &isnull);
			else
			{
				d = r->slot->tts_values[attno - 1];
				isnull = r->slot->tts_isnull[attno - 1];
			}
			put_value(r, c, values, nulls, anynull, n, d, isnull);
		}
		n++;
		r->join_pending = GpuaggJoinNext(r->join);
	}
	return n;
}

/* The slot's row, read: its first match, if any (r->join_pending). */
static void
join_start(GpuaggBatchReader *r)
{
	if ((++r->tuples_read & 4095) == 0)
		CHECK_FOR_INTERRUPTS();
	slot_getsomeattrs(r->slot, r->maxattno);
	r->join_pending = GpuaggJoinFirst(r->join, r->slot);
}

/* Fill rows from pages until the batch is full or the scan ends. */
static int
fill_from_pages(GpuaggBatchReader *r, void **values, uint8 **nulls, bool *anynull)
{
	int			n = 0;

	/* (GpuaggBatchProbePages' readers send page batches only) */
	if (r->tids)
		elog(ERROR, "gpuagg: an index probe's rows read as columns");

	while (n < r->batch_rows)
	{
		HeapScanDesc h = (HeapScanDesc) r->scan;
		Page		page;

		if (r->join_pending)
		{
			n = join_rows(r, values, nulls, anynull, n);
			continue;
		}

		if (r->index >= r->ntuples)
		{
			BlockNumber blk = next_block(r);

			if (blk == InvalidBlockNumber)
			{
				if (next_rel(r))
					continue;
				r->eof = true;
				break;
			}
			heapgetpage(r->scan, blk);	/* checks for interrupts */
			r->index = 0;
			r->ntuples = h->rs_ntuples;
			continue;
		}
		page = BufferGetPage(h->rs_cbuf);
		while (r->index < r->ntuples && n < r->batch_rows)
		{
			ItemId		lp = PageGetItemId(page, h->rs_vistuples[r->index]);

			if (r->join)
			{
				/* the tuple in the slot, matched; its rows sent above */
				r->join_tuple.t_data = (HeapTupleHeader) PageGetItem(page, lp);
				r->join_tuple.t_len = ItemIdGetLength(lp);
				r->join_tuple.t_tableOid = RelationGetRelid(r->scan->rs_rd);
				ItemPointerSet(&r->join_tuple.t_self, BufferGetBlockNumber(h->rs_cbuf),
							   h->rs_vistuples[r->index]);
				ExecStoreBufferHeapTuple(&r->join_tuple, r->slot, h->rs_cbuf);
				r->index++;
				join_start(r);
				break;
			}
			if (r->shared)
			{
				int			got = ga_deform_tuple(&r->layout, (const uint8_t *) PageGetItem(page, lp),
												  ItemIdGetLength(lp), n, values, nulls,
												  (uint8_t *) anynull, &r->hooks, NULL);

				/*
				 * The host codes every string; a numeric past int64 or one
				 * compressed in place (a huge one) is for the exact path.
				 */
				if (got == GA_DEFORM_NUMERIC || got == GA_DEFORM_STRING)
					r->numeric_unfit = true;
				else if (got == GA_DEFORM_BAD)
					ereport(ERROR,
							(errcode(ERRCODE_DATA_CORRUPTED),
							 errmsg("gpuagg: a tuple of relation \"%s\" does not hold what its header says",
									RelationGetRelationName(r->scan->rs_rd))));
			}
			else
				deform_tuple(r, (HeapTupleHeader) PageGetItem(page, lp), n, values, nulls,
							 anynull);
			r->index++;
			n++;
		}
	}
	return n;
}

/*
 * The page-form batch of nrows rows on npages pages whose lists lie in buf:
 * the layout written after them, the columns' places in the device's copy.
 */
static const GaBatch *
page_batch_at(GpuaggBatchReader *r, char *buf, int nrows, int npages, uint64 *bytes)
{
	GaTupleLayout *L = (GaTupleLayout *) (buf + r->layout_off);

	memset(&r->batch, 0, sizeof(GaBatch));
	r->batch.nrows = nrows;
	r->batch.pagelist = (const uint32_t *) (buf + r->pagelist_off);
	r->batch.pagerows = (const uint32_t *) (buf + r->pagerows_off);
	r->batch.pagevis = (const uint32_t *) (buf + r->pagevis_off);
	r->batch.npages = npages;
	r->batch.pages = BufferBlocks;
	*L = r->layout;
	L->attrs = (const GaAttr *) ((char *) L + GA_LAYOUT_ATTRS_OFF);
	memcpy((char *) L->attrs, r->layout.attrs, sizeof(GaAttr) * r->layout.natts);
	r->batch.layout = L;
	/* where a device deforms the columns to */
	for (uint32 c = 0; c < r->prog->ncols; c++)
	{
		r->batch.values[c] = buf + r->cols_off + r->valoff[c];
		r->batch.nulls[c] = (const uint8 *) buf + r->cols_off + r->nulloff[c];
	}
	*bytes = (uint64) npages * sizeof(uint32) * (2 + GA_PAGE_VIS_WORDS);
	return &r->batch;
}

const GaBatch *
GpuaggBatchFromFeed(GpuaggBatchReader *r, char *buf, const char *refs, int nrows,
					int npages, uint64 *bytes)
{
	Assert(r->page_batches && npages <= r->max_pages);
	memcpy(buf + r->pagelist_off, refs + r->pagelist_off, sizeof(uint32) * npages);
	memcpy(buf + r->pagerows_off, refs + r->pagerows_off, sizeof(uint32) * npages);
	memcpy(buf + r->pagevis_off, refs + r->pagevis_off,
		   sizeof(uint32) * GA_PAGE_VIS_WORDS * npages);
	return page_batch_at(r, buf, nrows, npages, bytes);
}

/* GpuaggBatchProbe's next row into the slot: false after the last value's. */
static bool
next_probed(GpuaggBatchReader *r)
{
	for (;;)
	{
		if (r->probe_started &&
			index_getnext_slot(r->probe_scan, ForwardScanDirection, r->slot))
		{
			r->probe_rows++;
			return true;
		}
		if (r->probe_next >= r->probe_n)
			return false;
		CHECK_FOR_INTERRUPTS();
		r->probe_key.sk_argument = r->probe_values[r->probe_next++];
		index_rescan(r->probe_scan, &r->probe_key, 1, NULL, 0);
		r->probe_started = true;
	}
}

/* An index probe's index, opened, and its key = a value set per lookup. */
static Relation
probe_index_open(Oid indexoid, ScanKey key)
{
	Relation	index = index_open(indexoid, AccessShareLock);

	if (!GpuaggIndexEqualityKey(index, 0, key))
		elog(ERROR, "gpuagg: index \"%s\" has no btree equality on its first column",
			 RelationGetRelationName(index));
	return index;
}

void
GpuaggBatchProbe(GpuaggBatchReader *r, Oid indexoid, Datum *values, int n)
{
	Relation	index;

	Assert(r->nrels == 1 && !r->started && r->pscans == NULL && r->join == NULL);
	index = probe_index_open(indexoid, &r->probe_key);
	/* column form: the rows come one at a time, through the slot */
	GpuaggBatchNoPages(r);
	r->page_mode = false;
	r->shared = false;
	r->probe_index = index;
	r->probe_values = values;
	r->probe_n = n;
	r->probe_scan = index_beginscan(r->rels[0], index, r->snapshot, 1, 0);
}

static int
cmp_tid(const void *a, const void *b)
{
	return ItemPointerCompare((ItemPointer) a, (ItemPointer) b);
}

uint64
GpuaggBatchProbePages(GpuaggBatchReader *r, Oid indexoid, const Datum *values, int n,
					  const AttrNumber *collect, int ncollect, int64 **out, uint64 *nout)
{
	Relation	rel = r->rels[0];
	TupleDesc	desc = RelationGetDescr(rel);
	Relation	index;
	IndexScanDesc scan;
	ScanKeyData key;
	TupleTableSlot *slot;
	uint64		cap = 64,
				nt = 0;
	uint64		ocap[GA_MAX_DIM_KEYS] = {0};
	ItemPointerData *tids;

	Assert(r->page_batches && r->nrels == 1 && !r->started && r->pscans == NULL &&
		   r->join == NULL && r->tids == NULL && ncollect <= GA_MAX_DIM_KEYS);
	index = probe_index_open(indexoid, &key);
	for (int c = 0; c < ncollect; c++)
	{
		ocap[c] = 64;
		out[c] = palloc(sizeof(int64) * ocap[c]);
		nout[c] = 0;
	}
	tids = palloc(sizeof(ItemPointerData) * cap);
	slot = table_slot_create(rel, NULL);
	scan = index_beginscan(rel, index, r->snapshot, 1, 0);
	for (int i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		key.sk_argument = values[i];
		index_rescan(scan, &key, 1, NULL, 0);
		while (index_getnext_slot(scan, ForwardScanDirection, slot))
		{
			/* (the row's own place: a HOT chain's member, not its root) */
			if (nt == cap)
				tids = repalloc_huge(tids, sizeof(ItemPointerData) * (cap *= 2));
			tids[nt++] = slot->tts_tid;
			for (int c = 0; c < ncollect; c++)
			{
				bool		isnull;
				Datum		d = slot_getattr(slot, collect[c], &isnull);

				if (isnull)
					continue;	/* (it matches nothing) */
				if (nout[c] == ocap[c])
					out[c] = repalloc_huge(out[c], sizeof(int64) * (ocap[c] *= 2));
				out[c][nout[c]++] = GpuaggIntegerDatum(d, TupleDescAttr(desc, collect[c] - 1)->attlen);
			}
		}
	}
	index_endscan(scan);
	index_close(index, NoLock);
	ExecDropSingleTupleTableSlot(slot);
	qsort(tids, nt, sizeof(ItemPointerData), cmp_tid);
	r->tids = tids;
	r->ntids = nt;
	r->tid_block = r->tid_row = 0;
	return nt;
}

uint64
GpuaggBatchProbeRows(GpuaggBatchReader *r)
{
	return r->probe_rows;
}

const GaBatch *
GpuaggBatchNext(GpuaggBatchReader *r, char *buf, uint64 *bytes)
{
	const GaProgram *p = r->prog;
	bool		anynull[GA_MAX_COLS] = {0};
	void	   *values[GA_MAX_COLS];
	uint8	   *nulls[GA_MAX_COLS];
	int			n = 0;

	if (r->eof)
		return NULL;
	if (r->page_batches)
	{
		n = fill_page_refs(r, (uint32 *) (buf + r->pagelist_off),
						   (uint32 *) (buf + r->pagerows_off), (uint32 *) (buf + r->pagevis_off));
		if (n == 0)
			return NULL;		/* (and nothing newly pinned) */
		return page_batch_at(r, buf, n, r->nheld, bytes);
	}
	for (uint32 c = 0; c < p->ncols; c++)
	{
		values[c] = ga_type_width(p->cols[c].type) > 0 ? buf + r->valoff[c] : NULL;
		nulls[c] = (uint8 *) buf + r->nulloff[c];
		memset(nulls[c], 0, (r->batch_rows + 7) / 8);
	}

	if (r->page_mode)
		n = fill_from_pages(r, values, nulls, anynull);
	while (!r->page_mode && n < r->batch_rows)
	{
		/* a join: the row once per match, not at all without one */
		if (r->join_pending)
		{
			n = join_rows(r, values, nulls, anynull, n);
			continue;
		}
		if (r->probe_index ? !next_probed(r) :
			!table_scan_getnextslot(r->scan, ForwardScanDirection, r->slot))
		{
			if (!r->probe_index && next_rel(r))
				continue;
			r->eof = true;
			break;
		}
		if (r->join)
		{
			join_start(r);
			continue;
		}
		/* a long scan under a selective WHERE must stay cancellable */
		if ((n & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		slot_getsomeattrs(r->slot, r->remap_from ? r->maxmapped : r->maxattno);
		for (uint32 c = 0; c < p->ncols; c++)
		{
			int			i = (r->remap_from ? r->attmap[c] : p->cols[c].attno) - 1;

			if (p->cols[c].dim)
				continue;		/* (the device's join fills it) */

			put_value(r, c, values, nulls, anynull, n, r->slot->tts_values[i],
					  r->slot->tts_isnull[i]);
		}
		n++;
	}
	if (n == 0)
		return NULL;

	r->batch.nrows = n;
	*bytes = 0;
	for (uint32 c = 0; c < p->ncols; c++)
	{
		r->batch.values[c] = values[c];
		/* (a dimension's column: the device's join writes its bitmap) */
		r->batch.nulls[c] = anynull[c] || p->cols[c].dim ? nulls[c] : NULL;
		*bytes += (uint64) n * ga_type_width(p->cols[c].type) +
			(anynull[c] ? (n + 7) / 8 : 0);
	}
	return &r->batch;
}

void
GpuaggBatchEnd(GpuaggBatchReader *r)
{
	if (r->page_batches)
		GpuaggBatchConsumed(r);
	if (r->probe_scan)
		index_endscan(r->probe_scan);
	if (r->probe_index)
		index_close(r->probe_index, NoLock);
	r->probe_scan = NULL;
	r->probe_index = NULL;
	if (r->tids)
		pfree(r->tids);
	r->tids = NULL;
	if (r->scan)
		table_endscan(r->scan);
	if (r->slot)
		ExecDropSingleTupleTableSlot(r->slot);
	r->scan = NULL;
	r->slot = NULL;
}
