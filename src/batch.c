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
 * dictionary (dict.c), detoasted here on the host when needed.
 *
 * A batch is laid out in one buffer the device provides (pinned staging
 * memory for CUDA), each column's values and bitmap at fixed, 16-byte
 * aligned offsets, so that a device can copy columns without repacking.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/tuptable.h"
#include "miscadmin.h"

#include "batch.h"

struct GpuaggBatchReader
{
	TableScanDesc scan;
	TupleTableSlot *slot;
	const GaProgram *prog;
	GpuaggDict *dict;
	int			batch_rows;
	AttrNumber	maxattno;
	bool		eof;
	Size		valoff[GA_MAX_COLS];	/* offset of values in the buffer */
	Size		nulloff[GA_MAX_COLS];	/* offset of the bitmap */
	Size		size;			/* bytes of the whole buffer */
	GaBatch		batch;
};

GpuaggBatchReader *
GpuaggBatchBegin(Relation rel, Snapshot snapshot, ParallelTableScanDesc pscan,
				 const GaProgram *prog, int batch_rows, GpuaggDict *dict)
{
	GpuaggBatchReader *r = palloc0(sizeof(GpuaggBatchReader));

	r->prog = prog;
	r->dict = dict;
	r->batch_rows = batch_rows;
	r->slot = table_slot_create(rel, NULL);
	r->scan = pscan ? table_beginscan_parallel(rel, pscan) :
		table_beginscan(rel, snapshot, 0, NULL);
	for (uint32 c = 0; c < prog->ncols; c++)
	{
		int			w = ga_type_width(prog->cols[c].type);

		r->maxattno = Max(r->maxattno, prog->cols[c].attno);
		r->valoff[c] = r->size;
		r->size += TYPEALIGN(16, (Size) w * batch_rows);
		r->nulloff[c] = r->size;
		r->size += TYPEALIGN(16, (batch_rows + 7) / 8);
	}
	r->size = Max(r->size, 16);
	return r;
}

Size
GpuaggBatchBufferSize(GpuaggBatchReader *r)
{
	return r->size;
}

bool
GpuaggBatchDone(GpuaggBatchReader *r)
{
	return r->eof;
}

/* Store a non-NULL Datum at its native width. */
static inline void
store_value(GpuaggBatchReader *r, const GaColumn *col, void *vals, int row,
			Datum d)
{
	switch (col->type)
	{
		case GA_T_TEXT:
			((uint32 *) vals)[row] = GpuaggDictEncode(r->dict, d);
			break;
		case GA_T_BPCHAR:
			((uint64 *) vals)[row] = GpuaggDictRegister(r->dict, d, true);
			break;
		case GA_T_BOOL:
			((uint8 *) vals)[row] = DatumGetBool(d);
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
		default:
			break;
	}
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
	for (uint32 c = 0; c < p->ncols; c++)
	{
		values[c] = ga_type_width(p->cols[c].type) > 0 ? buf + r->valoff[c] : NULL;
		nulls[c] = (uint8 *) buf + r->nulloff[c];
		memset(nulls[c], 0, (r->batch_rows + 7) / 8);
	}

	while (n < r->batch_rows)
	{
		if (!table_scan_getnextslot(r->scan, ForwardScanDirection, r->slot))
		{
			r->eof = true;
			break;
		}
		/* a long scan under a selective WHERE must stay cancellable */
		if ((n & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		slot_getsomeattrs(r->slot, r->maxattno);
		for (uint32 c = 0; c < p->ncols; c++)
		{
			int			i = p->cols[c].attno - 1;

			if (r->slot->tts_isnull[i])
			{
				nulls[c][n >> 3] |= (uint8) (1 << (n & 7));
				anynull[c] = true;
			}
			else if (values[c])
				store_value(r, &p->cols[c], values[c], n, r->slot->tts_values[i]);
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
		r->batch.nulls[c] = anynull[c] ? nulls[c] : NULL;
		*bytes += (uint64) n * ga_type_width(p->cols[c].type) +
			(anynull[c] ? (n + 7) / 8 : 0);
	}
	return &r->batch;
}

void
GpuaggBatchEnd(GpuaggBatchReader *r)
{
	if (r->scan)
		table_endscan(r->scan);
	if (r->slot)
		ExecDropSingleTupleTableSlot(r->slot);
	r->scan = NULL;
	r->slot = NULL;
}
