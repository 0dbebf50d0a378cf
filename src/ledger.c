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
 * whose reservation fits no GPU waits, on a condition variable,
 * cancellable, for at most gpuagg.admission_timeout; then it runs on the
 * CPU device instead.  A running query whose tables must grow extends its
 * reservation on its GPU without waiting, or moves to the CPU device.  So
 * many concurrent sessions share the cards without one of them running a
 * card out of memory.
 *
 * Who waits for whom: waiters are served oldest first.  A waiter whose
 * reservation fits goes ahead of older waiters that do not fit, unless one
 * of them has waited HOLD_MS or longer: from then on it is served first,
 * so a large query is not starved by a stream of small ones, and the small
 * ones wait for it at most until it goes or its own admission_timeout ends
 * (a setting only a superuser may change).
 *
 * Everything the ledger knows of a process lives in that process's slot,
 * indexed by its PGPROC number: its pid, what it reserved on each GPU, and
 * whether and since when it waits.  The GPUs' sums are kept beside the
 * slots.  A slot belongs to a live process: the process clears it on its
 * way out (ERROR in PG_CATCH, FATAL and proc_exit in an on_shmem_exit
 * callback), and whoever looks at a slot whose pid is no longer alive, or
 * no longer owns that PGPROC, gives its reservations back and drops its
 * place in the queue (sweep()).  There is no queue array to overflow: the
 * queue is the set of waiting slots, ordered by their tickets.
 *
 * Until the GPU service has told the ledger its GPUs there is one GPU
 * slot, limited by gpuagg.device_memory_limit alone.  The ledger lives in
 * shared memory only when gpuagg is loaded through
 * shared_preload_libraries; otherwise every reservation is granted.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <signal.h>

#include "miscadmin.h"
#include "funcapi.h"
#include "access/htup_details.h"
#include "access/xact.h"
#include "storage/condition_variable.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "engine.h"
#include "gpuagg.h"
#include "ledger.h"
#include "stat.h"

/* how long the oldest waiter lets younger ones that fit go first */
#define HOLD_MS		1000

typedef struct LedgerGpu
{
	uint64		device_bytes;	/* the GPU's memory; 0 until the service saw it */
	uint64		reserved;		/* bytes reserved, the sum of the slots' */
	int			running;		/* slots holding a reservation on it */
} LedgerGpu;

/* One process's part of the ledger, in the slot of its PGPROC number. */
typedef struct LedgerProc
{
	int			pid;			/* the owner; 0: free */
	bool		waiting;		/* in the admission queue */
	uint64		ticket;			/* place in the queue: smaller is older */
	TimestampTz waiting_since;
	uint64		want;			/* bytes it waits for */
	uint64		reserved[GA_ENGINE_MAX_GPUS];
} LedgerProc;

typedef struct LedgerShared
{
	LWLock	   *lock;			/* every field below */
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
	/* the queue */
	uint64		next_ticket;
	int			nwaiting;
	int			nslots;
	LedgerProc	slot[FLEXIBLE_ARRAY_MEMBER];
} LedgerShared;

static LedgerShared *ledger = NULL;
static bool exit_callback_registered = false;

/* PGPROCs that can run a query: backends and background workers */
static int
ledger_slots(void)
{
	return MaxBackends;
}

static Size
ledger_size(void)
{
	return add_size(offsetof(LedgerShared, slot),
					mul_size(sizeof(LedgerProc), ledger_slots()));
}

void
GpuaggLedgerRequest(void)
{
	RequestAddinShmemSpace(add_size(ledger_size(), GpuaggStatShmemSize()));
	RequestNamedLWLockTranche("gpuagg ledger", 1);
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
		ledger->lock = &(GetNamedLWLockTranche("gpuagg ledger"))->lock;
		ConditionVariableInit(&ledger->cv);
		ledger->nslots = ledger_slots();
		ledger->next_ticket = 1;
	}
	GpuaggStatShmemInit();
	LWLockRelease(AddinShmemInitLock);
}

/* GPUs of the ledger (slots): one until the service told how many. */
static int
gpu_slots(void)
{
	return Max(ledger->ngpus, 1);
}

/* GPU g's limit in bytes, under the lock; UINT64_MAX: none known. */
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
 * gpuagg.vram_budget in bytes.  Where it is -1 (auto): what one GPU would
 * admit, the largest gpuagg.device_memory_limit of the GPUs the service
 * told the ledger of (three quarters of the GPU's memory by default), or 8
 * GB where the ledger knows no limit (gpuagg not preloaded, or no GPU yet).
 */
double
GpuaggVramBudget(void)
{
	uint64		best = 0;

	if (gpuagg_vram_budget >= 0)
		return (double) gpuagg_vram_budget * 1024.0 * 1024.0;
	if (ledger)
	{
		LWLockAcquire(ledger->lock, LW_SHARED);
		for (int g = 0; g < gpu_slots(); g++)
		{
			uint64		limit = limit_bytes(g);

			if (limit != PG_UINT64_MAX)
				best = Max(best, limit);
		}
		LWLockRelease(ledger->lock);
	}
	return best > 0 ? (double) best : 8192.0 * 1024.0 * 1024.0;
}

/* The GPU with the most room left that bytes fit, under the lock; -1: none. */
static int
choose(uint64 bytes)
{
	int			best = -1;
	uint64		best_room = 0;

	for (int g = 0; g < gpu_slots(); g++)
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

/* Leave the queue, under the exclusive lock (a no-op when not in it). */
static void
unqueue(LedgerProc *p)
{
	if (p->waiting)
	{
		p->waiting = false;
		ledger->nwaiting--;
	}
}

/*
 * Give back up to bytes of slot p's reservation on GPU g, under the
 * exclusive lock (take's inverse).
 */
static void
give_back(LedgerProc *p, int g, uint64 bytes)
{
	bytes = Min(bytes, p->reserved[g]);
	ledger->gpu[g].reserved -= Min(bytes, ledger->gpu[g].reserved);
	p->reserved[g] -= bytes;
	if (p->reserved[g] == 0 && bytes > 0)
		ledger->gpu[g].running--;
}

/*
 * Empty slot p: its reservations go back to their GPUs and it leaves the
 * queue.  Under the exclusive lock.
 */
static void
clear_slot(LedgerProc *p)
{
	for (int g = 0; g < GA_ENGINE_MAX_GPUS; g++)
		give_back(p, g, p->reserved[g]);
	unqueue(p);
	p->pid = 0;
}

/* Is the owner of slot i still the live process that took it? */
static bool
owner_alive(int i)
{
	int			pid = ledger->slot[i].pid;

	if (ProcGlobal->allProcs[i].pid != pid)
		return false;			/* its PGPROC is free or another's now */
	return kill(pid, 0) == 0 || errno != ESRCH;
}

/*
 * Drop the slots of processes that are gone without clearing them (killed
 * before their exit callback ran).  Under the exclusive lock.  True if it
 * dropped one: room or the queue's head may have changed.
 */
static bool
sweep(void)
{
	bool		dropped = false;

	for (int i = 0; i < ledger->nslots; i++)
	{
		LedgerProc *p = &ledger->slot[i];

		if (p->pid == 0 || p->pid == MyProcPid || owner_alive(i))
			continue;
		clear_slot(p);
		dropped = true;
	}
	return dropped;
}

/* At exit, whatever the way (proc_exit, FATAL): leave nothing behind. */
static void
release_at_exit(int code, Datum arg)
{
	if (ledger == NULL || MyProc == NULL || MyProc->pgprocno >= ledger->nslots)
		return;
	LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
	if (ledger->slot[MyProc->pgprocno].pid == MyProcPid)
		clear_slot(&ledger->slot[MyProc->pgprocno]);
	LWLockRelease(ledger->lock);
	ConditionVariableBroadcast(&ledger->cv);
}

/*
 * This process's slot, taken on first use (a slot a dead process left in
 * this PGPROC is cleared first).  Under the exclusive lock.  NULL: the
 * process has no slot (not a backend or background worker).
 */
static LedgerProc *
my_slot(void)
{
	LedgerProc *p;

	if (MyProc == NULL || MyProc->pgprocno >= ledger->nslots)
		return NULL;
	p = &ledger->slot[MyProc->pgprocno];
	if (p->pid != MyProcPid)
	{
		if (p->pid != 0)
		{
			clear_slot(p);
		}
		p->pid = MyProcPid;
	}
	return p;
}

/* Take bytes on GPU g for slot p, under the exclusive lock. */
static void
take(LedgerProc *p, int g, uint64 bytes)
{
	ledger->gpu[g].reserved += bytes;
	if (p->reserved[g] == 0)
		ledger->gpu[g].running++;
	p->reserved[g] += bytes;
}

/*
 * May slot me (wanting bytes; ticket 0: not queued yet) go now?  Only if
 * its bytes fit a GPU, and no older waiter should go first: one that fits
 * too, or one that has waited HOLD_MS.  Under the exclusive lock.
 */
static int
may_go(LedgerProc *me, uint64 bytes, TimestampTz now)
{
	int			g = choose(bytes);

	if (g < 0)
		return -1;
	for (int i = 0; i < ledger->nslots && ledger->nwaiting > 0; i++)
	{
		LedgerProc *o = &ledger->slot[i];

		if (o == me || !o->waiting || (me->waiting && o->ticket > me->ticket))
			continue;
		if (choose(o->want) >= 0 ||
			TimestampDifferenceExceeds(o->waiting_since, now, HOLD_MS))
			return -1;
	}
	return g;
}

bool
GpuaggLedgerAdmit(uint64 bytes, int *gpu, double *wait_ms, char **why)
{
	uint64		limit = 0;
	volatile int chosen = -1;
	volatile bool timed_out = false;
	LedgerProc *me;
	TimestampTz start;

	*wait_ms = 0;
	*gpu = 0;
	if (ledger == NULL)
		return true;
	if (!exit_callback_registered)
	{
		on_shmem_exit(release_at_exit, (Datum) 0);
		exit_callback_registered = true;
	}

	start = GetCurrentTimestamp();
	LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
	me = my_slot();
	for (int g = 0; g < gpu_slots(); g++)
		limit = Max(limit, limit_bytes(g));
	if (me == NULL || bytes > limit)
	{
		ledger->refused++;
		LWLockRelease(ledger->lock);
		*why = me == NULL ?
			pstrdup("this process has no place in gpuagg's ledger") :
			psprintf("the query's device memory estimate (%.0f MB) exceeds gpuagg.device_memory_limit (%.0f MB)",
					 bytes / 1048576.0, limit / 1048576.0);
		return false;
	}
	if ((chosen = may_go(me, bytes, start)) < 0 && sweep())
		chosen = may_go(me, bytes, start);
	if (chosen >= 0)
	{
		take(me, chosen, bytes);
		ledger->admitted++;
		LWLockRelease(ledger->lock);
		*gpu = chosen;
		return true;
	}
	me->waiting = true;
	me->ticket = ledger->next_ticket++;
	me->waiting_since = start;
	me->want = bytes;
	ledger->nwaiting++;
	ledger->queued_total++;
	LWLockRelease(ledger->lock);

	/* wait for room and for our turn (the rule in the header comment) */
	ConditionVariablePrepareToSleep(&ledger->cv);
	PG_TRY();
	{
		for (;;)
		{
			long		left;
			TimestampTz now = GetCurrentTimestamp();

			LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
			(void) sweep();
			if ((chosen = may_go(me, bytes, now)) >= 0)
			{
				unqueue(me);
				take(me, chosen, bytes);
				ledger->admitted++;
			}
			LWLockRelease(ledger->lock);
			if (chosen >= 0)
				break;
			left = gpuagg_admission_timeout -
				TimestampDifferenceMilliseconds(start, now);
			if (left <= 0)
			{
				timed_out = true;
				break;
			}
			/*
			 * Checks for interrupts: a cancel lands here.  At most HOLD_MS
			 * asleep, so that an older waiter's hold starting is seen.
			 */
			(void) ConditionVariableTimedSleep(&ledger->cv, Min(left, HOLD_MS),
											   PG_WAIT_EXTENSION);
		}
	}
	PG_CATCH();
	{
		LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
		unqueue(me);
		LWLockRelease(ledger->lock);
		ConditionVariableCancelSleep();
		ConditionVariableBroadcast(&ledger->cv);
		PG_RE_THROW();
	}
	PG_END_TRY();
	ConditionVariableCancelSleep();

	*wait_ms = TimestampDifferenceMilliseconds(start, GetCurrentTimestamp());
	LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
	if (timed_out)
	{
		unqueue(me);
		ledger->timeouts++;
	}
	ledger->wait_ms += *wait_ms;
	LWLockRelease(ledger->lock);
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
	LedgerProc *me;

	if (ledger == NULL)
		return true;
	Assert(gpu >= 0 && gpu < GA_ENGINE_MAX_GPUS);
	LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
	me = my_slot();
	ok = me != NULL && ledger->gpu[gpu].reserved + bytes <= limit_bytes(gpu);
	if (ok)
		take(me, gpu, bytes);
	LWLockRelease(ledger->lock);
	return ok;
}

void
GpuaggLedgerRelease(int gpu, uint64 bytes)
{
	LedgerProc *me;

	if (ledger == NULL || bytes == 0)
		return;
	Assert(gpu >= 0 && gpu < GA_ENGINE_MAX_GPUS);
	LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
	me = my_slot();
	if (me != NULL)
		give_back(me, gpu, bytes);
	LWLockRelease(ledger->lock);
	ConditionVariableBroadcast(&ledger->cv);
}

bool
GpuaggLedgerNow(int gpu, uint64 *limit, uint64 *reserved, int *running, int *queued)
{
	if (ledger == NULL || gpu < 0 || gpu >= GA_ENGINE_MAX_GPUS)
		return false;
	LWLockAcquire(ledger->lock, LW_SHARED);
	*limit = limit_bytes(gpu);
	*reserved = ledger->gpu[gpu].reserved;
	*running = ledger->gpu[gpu].running;
	*queued = ledger->nwaiting;
	LWLockRelease(ledger->lock);
	return true;
}

/* The GPUs the ledger counts, under the exclusive lock. */
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
	LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
	ledger->real_ngpus = ngpus;
	memcpy(ledger->real_bytes, device_bytes, sizeof(uint64) * ngpus);
	if (!ledger->pretend)
		count_gpus(ngpus, device_bytes);
	LWLockRelease(ledger->lock);
	/* waiters may fit a GPU that was not there */
	ConditionVariableBroadcast(&ledger->cv);
}

static void
require_ledger(void)
{
	if (ledger == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gpuagg's ledger needs gpuagg in shared_preload_libraries")));
}

/*---- SQL-callable: gpuagg.ledger() ----*/

PG_FUNCTION_INFO_V1(gpuagg_ledger);

/*
 * gpuagg.ledger(): the server-wide reservations of GPU memory, the
 * admission queue, and what admission has done since the server started.
 * Looking drops the slots of processes that died without clearing them.
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
	bool		dropped;

	tupdesc = GpuaggResultRow(fcinfo, 10, "gpuagg.ledger()");
	require_ledger();
	LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
	dropped = sweep();
	memcpy(&copy, ledger, offsetof(LedgerShared, slot));
	/* the sums over the GPUs; a limit of "none known" on any: none known */
	for (int g = 0; g < gpu_slots(); g++)
	{
		uint64		l = limit_bytes(g);

		limit = (limit == PG_UINT64_MAX || l == PG_UINT64_MAX) ? PG_UINT64_MAX : limit + l;
		device_bytes += ledger->gpu[g].device_bytes;
		reserved += ledger->gpu[g].reserved;
		running += ledger->gpu[g].running;
	}
	LWLockRelease(ledger->lock);
	if (dropped)
		ConditionVariableBroadcast(&ledger->cv);

	nulls[0] = (limit == PG_UINT64_MAX);
	values[0] = Int64GetDatum(nulls[0] ? 0 : (int64) (limit / 1048576));
	nulls[1] = (copy.ngpus == 0 || device_bytes == 0);
	values[1] = Int64GetDatum((int64) (device_bytes / 1048576));
	values[2] = Int64GetDatum((int64) ((reserved + 1048575) / 1048576));
	values[3] = Int32GetDatum(running);
	values[4] = Int32GetDatum(copy.nwaiting);
	values[5] = Int64GetDatum((int64) copy.admitted);
	values[6] = Int64GetDatum((int64) copy.queued_total);
	values[7] = Int64GetDatum((int64) copy.timeouts);
	values[8] = Int64GetDatum((int64) copy.refused);
	values[9] = Float8GetDatum(copy.wait_ms);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*---- SQL-callable: gpuagg.debug_reserve(), the ledger without a GPU ----*/

/*
 * What gpuagg.debug_reserve() holds, by the subtransaction that took it:
 * given back when that subtransaction aborts (ROLLBACK TO SAVEPOINT), passed
 * to the parent when it commits, all given back at the end of the
 * transaction.
 */
typedef struct DebugHold
{
	SubTransactionId subid;
	int			gpu;
	uint64		bytes;
} DebugHold;

static List *debug_held = NIL;	/* of DebugHold, in TopMemoryContext */
static bool debug_callback = false;

/* Give back the holds of subtransaction subid, or all (InvalidSubTransactionId). */
static void
debug_give_back(SubTransactionId subid)
{
	ListCell   *lc;

	foreach(lc, debug_held)
	{
		DebugHold  *h = lfirst(lc);

		if (subid != InvalidSubTransactionId && h->subid != subid)
			continue;
		GpuaggLedgerRelease(h->gpu, h->bytes);
		pfree(h);
		debug_held = foreach_delete_current(debug_held, lc);
	}
}

static void
debug_xact(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PREPARE || event == XACT_EVENT_PARALLEL_COMMIT ||
		event == XACT_EVENT_PARALLEL_ABORT)
		debug_give_back(InvalidSubTransactionId);
}

static void
debug_subxact(SubXactEvent event, SubTransactionId mySubid,
			  SubTransactionId parentSubid, void *arg)
{
	ListCell   *lc;

	if (event == SUBXACT_EVENT_ABORT_SUB)
		debug_give_back(mySubid);
	else if (event == SUBXACT_EVENT_COMMIT_SUB)
		foreach(lc, debug_held)
		{
			DebugHold  *h = lfirst(lc);

			if (h->subid == mySubid)
				h->subid = parentSubid;
		}
}

PG_FUNCTION_INFO_V1(gpuagg_debug_reserve);

/*
 * gpuagg.debug_reserve(mb): reserve mb MB as an offloaded query does --
 * refused over the limit, else queued for at most gpuagg.admission_timeout,
 * cancellable -- and hold it to the end of the transaction (or of the
 * subtransaction, if that aborts).  'admitted', 'timed out' or 'refused'.
 * For testing queueing without a GPU.
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
	DebugHold  *h;
	MemoryContext old;

	require_ledger();
	if (mb <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the reservation must be positive")));
	if (!debug_callback)
	{
		RegisterXactCallback(debug_xact, NULL);
		RegisterSubXactCallback(debug_subxact, NULL);
		debug_callback = true;
	}
	bytes = (uint64) mb * 1024 * 1024;
	LWLockAcquire(ledger->lock, LW_SHARED);
	timeouts = ledger->timeouts;
	LWLockRelease(ledger->lock);
	/* the list cell first: once admitted, nothing may fail before it is kept */
	old = MemoryContextSwitchTo(TopMemoryContext);
	h = palloc(sizeof(DebugHold));
	debug_held = lappend(debug_held, h);
	MemoryContextSwitchTo(old);
	h->subid = GetCurrentSubTransactionId();
	h->gpu = 0;
	h->bytes = 0;
	if (!GpuaggLedgerAdmit(bytes, &gpu, &waited, &why))
	{
		bool		timed_out;

		LWLockAcquire(ledger->lock, LW_SHARED);
		timed_out = ledger->timeouts != timeouts;
		LWLockRelease(ledger->lock);
		PG_RETURN_TEXT_P(cstring_to_text(timed_out ? "timed out" : "refused"));
	}
	h->gpu = gpu;
	h->bytes = bytes;
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

	require_ledger();
	if (!PG_ARGISNULL(0))
	{
		ArrayType  *a = PG_GETARG_ARRAYTYPE_P(0);
		Datum	   *elems;
		bool	   *enulls;
		int			n;
		uint64		bytes[GA_ENGINE_MAX_GPUS];

		if (ARR_NDIM(a) > 1)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("the GPUs' sizes must be a one-dimensional array")));
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
		LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
		ledger->pretend = n > 0;
		if (n > 0)
			count_gpus(n, bytes);
		else
			count_gpus(ledger->real_ngpus, ledger->real_bytes);
		LWLockRelease(ledger->lock);
		ConditionVariableBroadcast(&ledger->cv);
	}

	InitMaterializedSRF(fcinfo, 0);
	GpuaggCheckColumns(rsinfo->setDesc, 5, "gpuagg.debug_gpus()");
	LWLockAcquire(ledger->lock, LW_SHARED);
	memcpy(&copy, ledger, offsetof(LedgerShared, slot));
	for (int g = 0; g < ledger->ngpus; g++)
		limit[g] = limit_bytes(g);
	LWLockRelease(ledger->lock);
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
