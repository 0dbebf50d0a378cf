/*-------------------------------------------------------------------------
 *
 * fetch.c
 *		Columns a group key determines, fetched per group through their
 *		table's primary key (GpuaggPlanInfo.fetch).
 *
 * GROUP BY c_custkey, c_name, c_address ... of a query joining customer
 * (TPC-H Q10): PostgreSQL groups by c_custkey alone, the others being
 * customer's columns and c_custkey its primary key, and so does the device
 * here: for each group it returns, the node looks the row with the group's
 * key up in the primary key's index, under the query's snapshot, and takes
 * the columns from it.  That is the row each of the group's rows joined; a
 * NULL key (no row joined, an outer join's NULLs) has none, and its
 * columns are NULL, as natively.  planner.c (fetched_columns) chooses this
 * where few groups are returned: a lookup costs a few microseconds, where
 * the device would otherwise group by the columns, coding every string of
 * the table into its dictionary.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/nbtree.h"
#include "access/relscan.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/transam.h"
#include "access/htup_details.h"
#include "catalog/pg_index.h"
#include "executor/tuptable.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "fetch.h"

typedef struct FetchTable
{
	Relation	heap;
	Relation	index;
	IndexScanDesc scan;
	TupleTableSlot *slot;
	int			nkeys;
	int		   *key;			/* the group key of each index column */
	ScanKeyData *skeys;
	int			ncols;
	AttrNumber *attno;			/* the columns fetched, */
	int		   *col;			/* ... into these of the node's tuple */
} FetchTable;

struct GpuaggFetch
{
	int			ntables;
	FetchTable *tables;
};

bool
GpuaggFetchIndexUsable(HeapTuple indextup)
{
	Form_pg_index index = (Form_pg_index) GETSTRUCT(indextup);

	return index->indisvalid && index->indisready && index->indislive &&
		(!index->indcheckxmin ||
		 TransactionIdPrecedes(HeapTupleHeaderGetXmin(indextup->t_data), TransactionXmin));
}

bool
GpuaggIndexEqualityKey(Relation index, int col, ScanKey key)
{
	Oid			type = index->rd_opcintype[col];
	Oid			op = get_opfamily_member(index->rd_opfamily[col], type, type,
										 BTEqualStrategyNumber);

	if (index->rd_rel->relam != BTREE_AM_OID || !OidIsValid(op))
		return false;
	ScanKeyEntryInitialize(key, 0, col + 1, BTEqualStrategyNumber, type,
						   index->rd_indcollation[col], get_opcode(op), (Datum) 0);
	return true;
}

GpuaggFetch *
GpuaggFetchBegin(List *fetch, int first_col, EState *estate)
{
	GpuaggFetch *f = palloc0(sizeof(GpuaggFetch));
	int			col = first_col;
	ListCell   *lc;

	f->tables = palloc0(sizeof(FetchTable) * Max(list_length(fetch), 1));
	foreach(lc, fetch)
	{
		List	   *entry = lfirst(lc);
		FetchTable *t = &f->tables[f->ntables++];
		Oid			indexoid = (Oid) intVal(linitial(entry));
		List	   *keyidx = lsecond(entry);
		List	   *vars = lthird(entry);
		ListCell   *lk;

		/* (the query holds its lock on the table; an index scan takes one on the index) */
		t->index = index_open(indexoid, AccessShareLock);
		t->heap = table_open(t->index->rd_index->indrelid, AccessShareLock);
		/* (the planner's rule, again: a plan holds for its transaction's xmin) */
		if (!GpuaggFetchIndexUsable(t->index->rd_indextuple))
			elog(ERROR, "gpuagg: the primary key of \"%s\" cannot be read under this snapshot",
				 RelationGetRelationName(t->heap));
		if (t->index->rd_rel->relam != BTREE_AM_OID ||
			IndexRelationGetNumberOfKeyAttributes(t->index) != list_length(keyidx))
			elog(ERROR, "gpuagg: the primary key of \"%s\" is not the one planned",
				 RelationGetRelationName(t->heap));
		t->nkeys = list_length(keyidx);
		t->key = palloc(sizeof(int) * t->nkeys);
		t->skeys = palloc(sizeof(ScanKeyData) * t->nkeys);
		foreach(lk, keyidx)
		{
			int			i = foreach_current_index(lk);

			if (!GpuaggIndexEqualityKey(t->index, i, &t->skeys[i]))
				elog(ERROR, "gpuagg: no equality operator of the primary key of \"%s\"",
					 RelationGetRelationName(t->heap));
			t->key[i] = lfirst_int(lk);
		}
		t->ncols = list_length(vars);
		t->attno = palloc(sizeof(AttrNumber) * t->ncols);
		t->col = palloc(sizeof(int) * t->ncols);
		foreach(lk, vars)
		{
			Var		   *var = lfirst_node(Var, lk);
			int			i = foreach_current_index(lk);

			t->attno[i] = var->varattno;
			t->col[i] = col++;
		}
		t->slot = table_slot_create(t->heap, NULL);
		t->scan = index_beginscan(t->heap, t->index, estate->es_snapshot, t->nkeys, 0);
	}
	return f;
}

int
GpuaggFetchRow(GpuaggFetch *f, TupleTableSlot *slot)
{
	int			lookups = 0;

	for (int n = 0; n < f->ntables; n++)
	{
		FetchTable *t = &f->tables[n];
		bool		found = true;

		for (int i = 0; i < t->nkeys; i++)
		{
			if (slot->tts_isnull[t->key[i]])
				found = false;
			t->skeys[i].sk_argument = slot->tts_values[t->key[i]];
		}
		if (found)
		{
			index_rescan(t->scan, t->skeys, t->nkeys, NULL, 0);
			if (!index_getnext_slot(t->scan, ForwardScanDirection, t->slot))
				elog(ERROR, "gpuagg: no row of \"%s\" has a group's primary key",
					 RelationGetRelationName(t->heap));
			lookups++;
		}
		for (int i = 0; i < t->ncols; i++)
		{
			int			c = t->col[i];
			Form_pg_attribute att = TupleDescAttr(t->slot->tts_tupleDescriptor,
												  t->attno[i] - 1);
			Datum		d = found ? slot_getattr(t->slot, t->attno[i], &slot->tts_isnull[c]) : 0;

			if (!found)
				slot->tts_isnull[c] = true;
			/* (the row's buffer is let go at the next lookup) */
			slot->tts_values[c] = slot->tts_isnull[c] ? (Datum) 0 :
				datumCopy(d, att->attbyval, att->attlen);
		}
		if (found)
			ExecClearTuple(t->slot);
	}
	return lookups;
}

void
GpuaggFetchEnd(GpuaggFetch *f)
{
	for (int n = 0; n < f->ntables; n++)
	{
		FetchTable *t = &f->tables[n];

		index_endscan(t->scan);
		ExecDropSingleTupleTableSlot(t->slot);
		index_close(t->index, NoLock);
		table_close(t->heap, NoLock);
	}
	f->ntables = 0;
}
