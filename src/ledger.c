/*-------------------------------------------------------------------------
 *
 * ledger.c
 *		The server-wide ledger of GPU memory and the admission queue.
 *
 * Every offloaded query that runs on the GPU first reserves its planner
 * estimate of device memory in a ledger in shared memory, on one GPU; the
 * sum of the reservations on a GPU never passes gpuagg.device_memory_limit
 * (per GPU; default: 75 % of the GPU's memory).  The ledger picks the GPU:
 * the one with the most room left under its limit, so the processes of a
 * parallel query, each reserving for itself, spread over the GPUs.  A query
 * whose reservation fits no GPU waits in a FIFO queue, on a condition
 * variable, cancellable, for at most gpuagg.admission_timeout; then it runs
 * on the CPU device instead.  A running query whose tables must grow
 * extends its reservation on its GPU without waiting, or moves to the CPU
 * device.  So many concurrent sessions share the cards without one of them
 * running a card out of memory.
 *
 * The queue holds the waiters' PGPROC numbers, oldest first; only the
 * oldest may take a reservation, so a large query is not starved by small
 * ones behind it.  A waiter that errors out (cancel, timeout) leaves the
 * queue in PG_CATCH; a process that exits gives back what it holds.  Until
 * the GPU service has told the ledger its GPUs there is one slot, limited
 * by gpuagg.device_memory_limit alone.
 *
 * The ledger lives in shared memory only when gpuagg is loaded through
 * shared_preload_libraries; otherwise every reservation is granted.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "funcapi.h"
#include "access/htup_details.h"
#include "access/xact.h"
#include "portability/instr_time.h"
#include "storage/condition_variable.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/wait_event.h"

#include "engine.h"
#include "gpuagg.h"
#include "ledger.h"
#include "stat.h"

typedef struct LedgerGpu
{
	uint64		device_bytes;	/* the GPU's memory; 0 until the service saw it */
	uint64		reserved;		/* bytes reserved by running queries */
	int			running;		/* processes holding a reservation */
} LedgerGpu;

typedef struct LedgerShared
{
	slock_t		mutex;
	ConditionVariable cv;		/* reservations given back, queue moved */
	int			ngpus;			/* GPUs counted; 0 until the service told */
	LedgerGpu	gpu[GA_ENGINE_MAX_GPUS];
	/* the service's GPUs, while gpuagg.debug_gpus() makes others count */
	bool		pretend;
	int			real_ngpus;
	uint64		real_bytes[GA_ENGINE_MAX_GPUS];
	/* cumulative */
	uint64		admitted;
	uint64		queued_total;
	uint64		timeouts;
	uint64		refused;
	double		wait_ms;
	/* the admission queue: PGPROC numbers, oldest first */
	int			nqueued;
	int			queue[FLEXIBLE_ARRAY_MEMBER];
} LedgerShared;

static LedgerShared *ledger = NULL;
static uint64 my_reserved[GA_ENGINE_MAX_GPUS];	/* what this process holds */
static bool exit_callback_registered = false;

static Size
ledger_size(void)
{
	return add_size(offsetof(LedgerShared, queue), mul_size(sizeof(int), MaxBackends));
}

void
GpuaggLedgerRequest(void)
{
	RequestAddinShmemSpace(add_size(ledger_size(), GpuaggStatShmemSize()));
}

void
GpuaggLedgerStartup(void)
{
	bool		found;

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	ledger = ShmemInitStruct("gpuagg ledger", ledger_size(), &found);
	if (!found)
	{
		memset(ledger, 0, ledger_size());
		SpinLockInit(&ledger->mutex);
		ConditionVariableInit(&ledger->cv);
	}
	GpuaggStatShmemInit();
	LWLockRelease(AddinShmemInitLock);
}

/* GPUs of the ledger (slots): one until the service told how many. */
static int
slots(void)
{
	return Max(ledger->ngpus, 1);
}

/* GPU g's limit in bytes, under the mutex; UINT64_MAX: none known. */
static uint64
limit_bytes(int g)
{
	if (gpuagg_device_memory_limit > 0)
		return (uint64) gpuagg_device_memory_limit * 1024 * 1024;
	if (ledger->gpu[g].device_bytes > 0)
		return ledger->gpu[g].device_bytes / 4 * 3;
	return PG_UINT64_MAX;
}

/*
 * gpuagg.vram_budget in bytes.  Where it is 0 (auto): what one GPU would
 * admit, the largest gpuagg.device_memory_limit of the GPUs the service
 * told the ledger of (three quarters of the GPU's memory by default), or 8
 * GB where the ledger knows no limit (gpuagg not preloaded, or no GPU yet).
 */
double
GpuaggVramBudget(void)
{
	uint64		best = 0;

	if (gpuagg_vram_budget > 0)
		return (double) gpuagg_vram_budget * 1024.0 * 1024.0;
	if (ledger)
	{
		SpinLockAcquire(&ledger->mutex);
		for (int g = 0; g < slots(); g++)
		{
			uint64		limit = limit_bytes(g);

			if (limit != PG_UINT64_MAX)
				best = Max(best, limit);
		}
		SpinLockRelease(&ledger->mutex);
	}
	return best > 0 ? (double) best : 8192.0 * 1024.0 * 1024.0;
}

/* The GPU with the most room left that bytes fit, under the mutex; -1: none. */
static int
choose(uint64 bytes)
{
	int			best = -1;
	uint64		best_room = 0;

	for (int g = 0; g < slots(); g++)
	{
		uint64		limit = limit_bytes(g);
		uint64		used = ledger->gpu[g].reserved;

		if (used + bytes <= limit && (best < 0 || limit - used > best_room))
		{
			best = g;
			best_room = limit - used;
		}
	}
	return best;
}

/* Take bytes on GPU g, under the mutex. */
static void
take(int g, uint64 bytes)
{
	ledger->gpu[g].reserved += bytes;
	if (my_reserved[g] == 0)
		ledger->gpu[g].running++;
	my_reserved[g] += bytes;
}

/* Leave the queue, under the mutex (a no-op when not in it). */
static void
dequeue(int me)
{
	for (int i = 0; i < ledger->nqueued; i++)
	{
		if (ledger->queue[i] != me)
			continue;
		memmove(&ledger->queue[i], &ledger->queue[i + 1],
				sizeof(int) * (ledger->nqueued - i - 1));
		ledger->nqueued--;
		return;
	}
}

/* At exit: give back what this process still holds. */
static void
release_at_exit(int code, Datum arg)
{
	for (int g = 0; ledger != NULL && g < GA_ENGINE_MAX_GPUS; g++)
		if (my_reserved[g] > 0)
			GpuaggLedgerRelease(g, my_reserved[g]);
}

bool
GpuaggLedgerAdmit(uint64 bytes, int *gpu, double *wait_ms, char **why)
{
	int			me = MyProc->pgprocno;
	uint64		limit = 0;
	volatile int chosen = -1;
	volatile bool timed_out = false;
	instr_time	start,
				now;

	*wait_ms = 0;
	*gpu = 0;
	if (ledger == NULL)
		return true;
	if (!exit_callback_registered)
	{
		on_shmem_exit(release_at_exit, (Datum) 0);
		exit_callback_registered = true;
	}

	SpinLockAcquire(&ledger->mutex);
	for (int g = 0; g < slots(); g++)
		limit = Max(limit, limit_bytes(g));
	if (bytes > limit)
	{
		ledger->refused++;
		SpinLockRelease(&ledger->mutex);
		*why = psprintf("the query's device memory estimate (%.0f MB) exceeds gpuagg.device_memory_limit (%.0f MB)",
						bytes / 1048576.0, limit / 1048576.0);
		return false;
	}
	if (ledger->nqueued == 0 && (chosen = choose(bytes)) >= 0)
	{
		take(chosen, bytes);
		ledger->admitted++;
		SpinLockRelease(&ledger->mutex);
		*gpu = chosen;
		return true;
	}
	ledger->queue[ledger->nqueued++] = me;
	ledger->queued_total++;
	SpinLockRelease(&ledger->mutex);

	/* wait our turn: the oldest waiter whose reservation fits goes */
	INSTR_TIME_SET_CURRENT(start);
	ConditionVariablePrepareToSleep(&ledger->cv);
	PG_TRY();
	{
		for (;;)
		{
			long		left;

			SpinLockAcquire(&ledger->mutex);
			if (ledger->queue[0] == me && (chosen = choose(bytes)) >= 0)
			{
				dequeue(me);
				take(chosen, bytes);
				ledger->admitted++;
			}
			SpinLockRelease(&ledger->mutex);
			if (chosen >= 0)
				break;
			INSTR_TIME_SET_CURRENT(now);
			INSTR_TIME_SUBTRACT(now, start);
			left = gpuagg_admission_timeout - (long) INSTR_TIME_GET_MILLISEC(now);
			if (left <= 0)
			{
				timed_out = true;
				break;
			}
			/* checks for interrupts: a cancel lands here */
			(void) ConditionVariableTimedSleep(&ledger->cv, left, PG_WAIT_EXTENSION);
		}
	}
	PG_CATCH();
	{
		SpinLockAcquire(&ledger->mutex);
		dequeue(me);
		SpinLockRelease(&ledger->mutex);
		ConditionVariableCancelSleep();
		ConditionVariableBroadcast(&ledger->cv);
		PG_RE_THROW();
	}
	PG_END_TRY();
	ConditionVariableCancelSleep();

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, start);
	*wait_ms = INSTR_TIME_GET_MILLISEC(now);
	SpinLockAcquire(&ledger->mutex);
	if (timed_out)
	{
		dequeue(me);
		ledger->timeouts++;
	}
	ledger->wait_ms += *wait_ms;
	SpinLockRelease(&ledger->mutex);
	/* the next in line may fit now, or may be first now */
	ConditionVariableBroadcast(&ledger->cv);
	if (timed_out)
		*why = psprintf("waited %.0f ms for %.0f MB of device memory (gpuagg.admission_timeout)",
						*wait_ms, bytes / 1048576.0);
	*gpu = Max(chosen, 0);
	return chosen >= 0;
}

bool
GpuaggLedgerGrow(int gpu, uint64 bytes)
{
	bool		ok;

	if (ledger == NULL)
		return true;
	Assert(gpu >= 0 && gpu < GA_ENGINE_MAX_GPUS);
	SpinLockAcquire(&ledger->mutex);
	ok = ledger->gpu[gpu].reserved + bytes <= limit_bytes(gpu);
	if (ok)
		take(gpu, bytes);
	SpinLockRelease(&ledger->mutex);
	return ok;
}

void
GpuaggLedgerRelease(int gpu, uint64 bytes)
{
	LedgerGpu  *lg;

	if (ledger == NULL || bytes == 0)
		return;
	Assert(gpu >= 0 && gpu < GA_ENGINE_MAX_GPUS);
	lg = &ledger->gpu[gpu];
	bytes = Min(bytes, my_reserved[gpu]);
	SpinLockAcquire(&ledger->mutex);
	lg->reserved -= Min(bytes, lg->reserved);
	my_reserved[gpu] -= bytes;
	if (my_reserved[gpu] == 0 && bytes > 0)
		lg->running--;
	SpinLockRelease(&ledger->mutex);
	ConditionVariableBroadcast(&ledger->cv);
}

bool
GpuaggLedgerNow(int gpu, uint64 *limit, uint64 *reserved, int *running, int *queued)
{
	if (ledger == NULL || gpu < 0 || gpu >= GA_ENGINE_MAX_GPUS)
		return false;
	SpinLockAcquire(&ledger->mutex);
	*limit = limit_bytes(gpu);
	*reserved = ledger->gpu[gpu].reserved;
	*running = ledger->gpu[gpu].running;
	*queued = ledger->nqueued;
	SpinLockRelease(&ledger->mutex);
	return true;
}

/* The GPUs the ledger counts, under the mutex. */
static void
count_gpus(int ngpus, const uint64 *device_bytes)
{
	ledger->ngpus = ngpus;
	for (int g = 0; g < GA_ENGINE_MAX_GPUS; g++)
		ledger->gpu[g].device_bytes = g < ngpus ? device_bytes[g] : 0;
}

void
GpuaggLedgerSetDevices(int ngpus, const uint64 *device_bytes)
{
	if (ledger == NULL)
		return;
	ngpus = Min(ngpus, GA_ENGINE_MAX_GPUS);
	SpinLockAcquire(&ledger->mutex);
	ledger->real_ngpus = ngpus;
	memcpy(ledger->real_bytes, device_bytes, sizeof(uint64) * ngpus);
	if (!ledger->pretend)
		count_gpus(ngpus, device_bytes);
	SpinLockRelease(&ledger->mutex);
	/* waiters may fit a GPU that was not there */
	ConditionVariableBroadcast(&ledger->cv);
}

/*---- SQL-callable: gpuagg.ledger() ----*/

PG_FUNCTION_INFO_V1(gpuagg_ledger);

/*
 * gpuagg.ledger(): the server-wide reservations of GPU memory, the
 * admission queue, and what admission has done since the server started.
 */
Datum
gpuagg_ledger(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[10];
	bool		nulls[10] = {0};
	LedgerShared copy;
	uint64		limit = 0,
				device_bytes = 0,
				reserved = 0;
	int			running = 0;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (ledger == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gpuagg's ledger needs gpuagg in shared_preload_libraries")));
	SpinLockAcquire(&ledger->mutex);
	memcpy(&copy, ledger, offsetof(LedgerShared, queue));
	/* the sums over the GPUs; a limit of "none known" on any: none known */
	for (int g = 0; g < slots(); g++)
	{
		uint64		l = limit_bytes(g);

		limit = (limit == PG_UINT64_MAX || l == PG_UINT64_MAX) ? PG_UINT64_MAX : limit + l;
		device_bytes += ledger->gpu[g].device_bytes;
		reserved += ledger->gpu[g].reserved;
		running += ledger->gpu[g].running;
	}
	SpinLockRelease(&ledger->mutex);

	nulls[0] = (limit == PG_UINT64_MAX);
	values[0] = Int64GetDatum(nulls[0] ? 0 : (int64) (limit / 1048576));
	nulls[1] = (copy.ngpus == 0 || device_bytes == 0);
	values[1] = Int64GetDatum((int64) (device_bytes / 1048576));
	values[2] = Int64GetDatum((int64) ((reserved + 1048575) / 1048576));
	values[3] = Int32GetDatum(running);
	values[4] = Int32GetDatum(copy.nqueued);
	values[5] = Int64GetDatum((int64) copy.admitted);
	values[6] = Int64GetDatum((int64) copy.queued_total);
	values[7] = Int64GetDatum((int64) copy.timeouts);
	values[8] = Int64GetDatum((int64) copy.refused);
	values[9] = Float8GetDatum(copy.wait_ms);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*---- SQL-callable: gpuagg.debug_reserve(), the ledger without a GPU ----*/

static uint64 debug_held[GA_ENGINE_MAX_GPUS];	/* held by gpuagg.debug_reserve() */
static bool debug_callback = false;

static void
debug_release(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PREPARE || event == XACT_EVENT_PARALLEL_COMMIT ||
		event == XACT_EVENT_PARALLEL_ABORT)
	{
		for (int g = 0; g < GA_ENGINE_MAX_GPUS; g++)
		{
			GpuaggLedgerRelease(g, debug_held[g]);
			debug_held[g] = 0;
		}
	}
}

PG_FUNCTION_INFO_V1(gpuagg_debug_reserve);

/*
 * gpuagg.debug_reserve(mb): reserve mb MB as an offloaded query does --
 * refused over the limit, else queued for at most gpuagg.admission_timeout,
 * cancellable -- and hold it to the end of the transaction.  'admitted',
 * 'timed out' or 'refused'.  For testing queueing without a GPU.
 */
Datum
gpuagg_debug_reserve(PG_FUNCTION_ARGS)
{
	int32		mb = PG_GETARG_INT32(0);
	uint64		bytes;
	double		waited = 0;
	char	   *why = NULL;
	uint64		timeouts;
	int			gpu;

	if (ledger == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gpuagg's ledger needs gpuagg in shared_preload_libraries")));
	if (mb <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the reservation must be positive")));
	if (!debug_callback)
	{
		RegisterXactCallback(debug_release, NULL);
		debug_callback = true;
	}
	bytes = (uint64) mb * 1024 * 1024;
	SpinLockAcquire(&ledger->mutex);
	timeouts = ledger->timeouts;
	SpinLockRelease(&ledger->mutex);
	if (!GpuaggLedgerAdmit(bytes, &gpu, &waited, &why))
	{
		bool		timed_out;

		SpinLockAcquire(&ledger->mutex);
		timed_out = ledger->timeouts != timeouts;
		SpinLockRelease(&ledger->mutex);
		PG_RETURN_TEXT_P(cstring_to_text(timed_out ? "timed out" : "refused"));
	}
	debug_held[gpu] += bytes;
	PG_RETURN_TEXT_P(cstring_to_text("admitted"));
}


PG_FUNCTION_INFO_V1(gpuagg_debug_gpus);

/*
 * gpuagg.debug_gpus(mb int[]): with sizes in MB, the ledger counts that many
 * GPUs of those sizes instead of the service's (an empty array: the
 * service's again); then, or with NULL, a row per GPU counted: memory,
 * limit, reserved, processes holding a reservation.  For testing how the
 * ledger spreads reservations over GPUs on a host with one GPU or none;
 * queries admitted to a GPU the service does not have run on the CPU
 * device.
 */
Datum
gpuagg_debug_gpus(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	LedgerShared copy;
	uint64		limit[GA_ENGINE_MAX_GPUS];

	if (ledger == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gpuagg's ledger needs gpuagg in shared_preload_libraries")));
	if (!PG_ARGISNULL(0))
	{
		ArrayType  *a = PG_GETARG_ARRAYTYPE_P(0);
		Datum	   *elems;
		bool	   *enulls;
		int			n;
		uint64		bytes[GA_ENGINE_MAX_GPUS];

		deconstruct_array(a, INT4OID, sizeof(int32), true, TYPALIGN_INT,
						  &elems, &enulls, &n);
		if (n > GA_ENGINE_MAX_GPUS)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("at most %d GPUs", GA_ENGINE_MAX_GPUS)));
		for (int g = 0; g < n; g++)
		{
			if (enulls[g] || DatumGetInt32(elems[g]) <= 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("a GPU's memory must be positive")));
			bytes[g] = (uint64) DatumGetInt32(elems[g]) * 1024 * 1024;
		}
		SpinLockAcquire(&ledger->mutex);
		ledger->pretend = n > 0;
		if (n > 0)
			count_gpus(n, bytes);
		else
			count_gpus(ledger->real_ngpus, ledger->real_bytes);
		SpinLockRelease(&ledger->mutex);
		ConditionVariableBroadcast(&ledger->cv);
	}

	InitMaterializedSRF(fcinfo, 0);
	SpinLockAcquire(&ledger->mutex);
	memcpy(&copy, ledger, offsetof(LedgerShared, queue));
	for (int g = 0; g < ledger->ngpus; g++)
		limit[g] = limit_bytes(g);
	SpinLockRelease(&ledger->mutex);
	for (int g = 0; g < copy.ngpus; g++)
	{
		Datum		values[5];
		bool		nulls[5] = {0};

		values[0] = Int32GetDatum(g);
		values[1] = Int64GetDatum((int64) (copy.gpu[g].device_bytes >> 20));
		nulls[2] = limit[g] == PG_UINT64_MAX;
		values[2] = Int64GetDatum(nulls[2] ? 0 : (int64) (limit[g] >> 20));
		values[3] = Int64GetDatum((int64) ((copy.gpu[g].reserved + (1 << 20) - 1) >> 20));
		values[4] = Int32GetDatum(copy.gpu[g].running);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	PG_RETURN_VOID();
}
