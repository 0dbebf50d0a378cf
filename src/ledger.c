/*-------------------------------------------------------------------------
 *
 * ledger.c
 *		The server-wide ledger of GPU memory and the admission queue.
 *
 * Every offloaded query that runs on the GPU first reserves its planner
 * estimate of device memory in a ledger in shared memory; the sum of the
 * reservations never passes gpuagg.device_memory_limit (default: 75 % of
 * the GPU's memory).  A query whose reservation does not fit waits in a
 * FIFO queue, on a condition variable, cancellable, for at most
 * gpuagg.admission_timeout; then it runs on the CPU device instead.  A
 * running query whose tables must grow extends its reservation without
 * waiting, or moves to the CPU device.  So many concurrent sessions share
 * the card without one of them running it out of memory.
 *
 * The queue holds the waiters' PGPROC numbers, oldest first; only the
 * oldest may take a reservation, so a large query is not starved by small
 * ones behind it.  A waiter that errors out (cancel, timeout) leaves the
 * queue in PG_CATCH; a process that exits gives back what it holds.
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
#include "utils/builtins.h"
#include "utils/wait_event.h"

#include "gpuagg.h"
#include "ledger.h"
#include "stat.h"

typedef struct LedgerShared
{
	slock_t		mutex;
	ConditionVariable cv;		/* reservations given back, queue moved */
	uint64		device_bytes;	/* the GPU's memory; 0 until a backend saw it */
	uint64		reserved;		/* bytes reserved by running queries */
	int			running;		/* processes holding a reservation */
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
static uint64 my_reserved = 0;	/* what this process holds */
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

/* The server-wide limit in bytes, under the mutex; UINT64_MAX: none known. */
static uint64
limit_bytes(void)
{
	if (gpuagg_device_memory_limit > 0)
		return (uint64) gpuagg_device_memory_limit * 1024 * 1024;
	if (ledger->device_bytes > 0)
		return ledger->device_bytes / 4 * 3;
	return PG_UINT64_MAX;
}

/* Take bytes, under the mutex. */
static void
take(uint64 bytes)
{
	ledger->reserved += bytes;
	if (my_reserved == 0)
		ledger->running++;
	my_reserved += bytes;
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
	if (ledger != NULL && my_reserved > 0)
		GpuaggLedgerRelease(my_reserved);
}

bool
GpuaggLedgerAdmit(uint64 bytes, double *wait_ms, char **why)
{
	int			me = MyProc->pgprocno;
	uint64		limit;
	volatile bool granted = false,
				timed_out = false;
	instr_time	start,
				now;

	*wait_ms = 0;
	if (ledger == NULL)
		return true;
	if (!exit_callback_registered)
	{
		on_shmem_exit(release_at_exit, (Datum) 0);
		exit_callback_registered = true;
	}

	SpinLockAcquire(&ledger->mutex);
	limit = limit_bytes();
	if (bytes > limit)
	{
		ledger->refused++;
		SpinLockRelease(&ledger->mutex);
		*why = psprintf("the query's device memory estimate (%.0f MB) exceeds gpuagg.device_memory_limit (%.0f MB)",
						bytes / 1048576.0, limit / 1048576.0);
		return false;
	}
	if (ledger->nqueued == 0 && ledger->reserved + bytes <= limit)
	{
		take(bytes);
		ledger->admitted++;
		SpinLockRelease(&ledger->mutex);
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
			if (ledger->queue[0] == me && ledger->reserved + bytes <= limit_bytes())
			{
				dequeue(me);
				take(bytes);
				ledger->admitted++;
				granted = true;
			}
			SpinLockRelease(&ledger->mutex);
			if (granted)
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
	return granted;
}

bool
GpuaggLedgerGrow(uint64 bytes)
{
	bool		ok;

	if (ledger == NULL)
		return true;
	SpinLockAcquire(&ledger->mutex);
	ok = ledger->reserved + bytes <= limit_bytes();
	if (ok)
		take(bytes);
	SpinLockRelease(&ledger->mutex);
	return ok;
}

void
GpuaggLedgerRelease(uint64 bytes)
{
	if (ledger == NULL || bytes == 0)
		return;
	bytes = Min(bytes, my_reserved);
	SpinLockAcquire(&ledger->mutex);
	ledger->reserved -= Min(bytes, ledger->reserved);
	my_reserved -= bytes;
	if (my_reserved == 0 && bytes > 0)
		ledger->running--;
	SpinLockRelease(&ledger->mutex);
	ConditionVariableBroadcast(&ledger->cv);
}

bool
GpuaggLedgerNow(uint64 *limit, uint64 *reserved, int *running, int *queued)
{
	if (ledger == NULL)
		return false;
	SpinLockAcquire(&ledger->mutex);
	*limit = limit_bytes();
	*reserved = ledger->reserved;
	*running = ledger->running;
	*queued = ledger->nqueued;
	SpinLockRelease(&ledger->mutex);
	return true;
}

void
GpuaggLedgerSetDeviceMemory(uint64 bytes)
{
	if (ledger == NULL)
		return;
	SpinLockAcquire(&ledger->mutex);
	ledger->device_bytes = bytes;
	SpinLockRelease(&ledger->mutex);
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
	uint64		limit;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (ledger == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gpuagg's ledger needs gpuagg in shared_preload_libraries")));
	SpinLockAcquire(&ledger->mutex);
	memcpy(&copy, ledger, offsetof(LedgerShared, queue));
	limit = limit_bytes();
	SpinLockRelease(&ledger->mutex);

	nulls[0] = (limit == PG_UINT64_MAX);
	values[0] = Int64GetDatum(nulls[0] ? 0 : (int64) (limit / 1048576));
	nulls[1] = (copy.device_bytes == 0);
	values[1] = Int64GetDatum((int64) (copy.device_bytes / 1048576));
	values[2] = Int64GetDatum((int64) ((copy.reserved + 1048575) / 1048576));
	values[3] = Int32GetDatum(copy.running);
	values[4] = Int32GetDatum(copy.nqueued);
	values[5] = Int64GetDatum((int64) copy.admitted);
	values[6] = Int64GetDatum((int64) copy.queued_total);
	values[7] = Int64GetDatum((int64) copy.timeouts);
	values[8] = Int64GetDatum((int64) copy.refused);
	values[9] = Float8GetDatum(copy.wait_ms);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*---- SQL-callable: gpuagg.debug_reserve(), the ledger without a GPU ----*/

static uint64 debug_held = 0;	/* held by gpuagg.debug_reserve() */
static bool debug_callback = false;

static void
debug_release(XactEvent event, void *arg)
{
	if (debug_held > 0 &&
		(event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		 event == XACT_EVENT_PREPARE || event == XACT_EVENT_PARALLEL_COMMIT ||
		 event == XACT_EVENT_PARALLEL_ABORT))
	{
		GpuaggLedgerRelease(debug_held);
		debug_held = 0;
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
	if (!GpuaggLedgerAdmit(bytes, &waited, &why))
	{
		bool		timed_out;

		SpinLockAcquire(&ledger->mutex);
		timed_out = ledger->timeouts != timeouts;
		SpinLockRelease(&ledger->mutex);
		PG_RETURN_TEXT_P(cstring_to_text(timed_out ? "timed out" : "refused"));
	}
	debug_held += bytes;
	PG_RETURN_TEXT_P(cstring_to_text("admitted"));
}

