/*-------------------------------------------------------------------------
 *
 * stat.c
 *		Server-wide statistics of gpuagg: gpuagg.stat and gpuagg.stat_reset().
 *
 * Counters in shared memory (atomics; preloaded only), added to by every
 * process at the end of each offloaded run, in the manner of
 * pg_stat_statements: a function and a view of the same name, a reset
 * function kept from PUBLIC, and the time of the last reset.  A query that
 * runs in parallel counts once (in its leader); its rows and times are
 * every process's.  Each process keeps its own share as well, which
 * gpuagg.backend_stats() shows (with or without shared memory).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "port/atomics.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "gpuagg.h"
#include "stat.h"

typedef struct StatShared
{
	pg_atomic_uint64 counters[GSTAT_NCOUNTERS];
	slock_t		mutex;			/* guards reset_time */
	TimestampTz reset_time;
} StatShared;

static StatShared *stats = NULL;

/* this process's share of the counters, for gpuagg.backend_stats() */
static uint64 mine[GSTAT_NCOUNTERS];

Size
GpuaggStatShmemSize(void)
{
	return sizeof(StatShared);
}

/* Under AddinShmemInitLock (ledger.c's startup). */
void
GpuaggStatShmemInit(void)
{
	bool		found;

	stats = ShmemInitStruct("gpuagg stat", sizeof(StatShared), &found);
	if (!found)
	{
		for (int i = 0; i < GSTAT_NCOUNTERS; i++)
			pg_atomic_init_u64(&stats->counters[i], 0);
		SpinLockInit(&stats->mutex);
		stats->reset_time = GetCurrentTimestamp();
	}
}

void
GpuaggStatAdd(GpuaggStatCounter which, uint64 amount)
{
	mine[which] += amount;
	if (stats != NULL && amount > 0)
		pg_atomic_fetch_add_u64(&stats->counters[which], amount);
}

static void
require_stats(void)
{
	if (stats == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gpuagg's statistics need gpuagg in shared_preload_libraries")));
}

PG_FUNCTION_INFO_V1(gpuagg_stat);

/* gpuagg.stat(): the counters, times in milliseconds, and the last reset. */
Datum
gpuagg_stat(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[GSTAT_NCOUNTERS + 1];
	bool		nulls[GSTAT_NCOUNTERS + 1] = {0};

	require_stats();
	tupdesc = GpuaggResultRow(fcinfo, GSTAT_NCOUNTERS + 1, "gpuagg.stat()");
	for (int i = 0; i < GSTAT_NCOUNTERS; i++)
	{
		uint64		v = pg_atomic_read_u64(&stats->counters[i]);

		if (i >= GSTAT_ADMISSION_US)
			values[i] = Float8GetDatum(v / 1000.0);
		else
			values[i] = Int64GetDatum((int64) v);
	}
	SpinLockAcquire(&stats->mutex);
	values[GSTAT_NCOUNTERS] = TimestampTzGetDatum(stats->reset_time);
	SpinLockRelease(&stats->mutex);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

PG_FUNCTION_INFO_V1(gpuagg_stat_reset);

/* gpuagg.stat_reset(): every counter to zero, the reset time to now. */
Datum
gpuagg_stat_reset(PG_FUNCTION_ARGS)
{
	require_stats();
	for (int i = 0; i < GSTAT_NCOUNTERS; i++)
		pg_atomic_write_u64(&stats->counters[i], 0);
	SpinLockAcquire(&stats->mutex);
	stats->reset_time = GetCurrentTimestamp();
	SpinLockRelease(&stats->mutex);
	PG_RETURN_VOID();
}

PG_FUNCTION_INFO_V1(gpuagg_backend_stats);

/*
 * gpuagg.backend_stats(): what this backend's offloaded queries ran on, and
 * how often one moved to the CPU device.
 */
Datum
gpuagg_backend_stats(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[3];
	bool		nulls[3] = {0};

	tupdesc = GpuaggResultRow(fcinfo, 3, "gpuagg.backend_stats()");
	values[0] = Int64GetDatum((int64) mine[GSTAT_QUERIES_CUDA]);
	values[1] = Int64GetDatum((int64) mine[GSTAT_QUERIES_CPU]);
	values[2] = Int64GetDatum((int64) (mine[GSTAT_FALLBACKS_DEVICE] +
									   mine[GSTAT_FALLBACKS_ADMISSION] +
									   mine[GSTAT_FALLBACKS_SERVICE]));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
