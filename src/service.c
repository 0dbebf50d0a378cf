/*-------------------------------------------------------------------------
 *
 * service.c
 *		The GPU service: one background worker owns the GPUs for the server.
 *
 * With gpuagg in shared_preload_libraries the postmaster starts "gpuagg
 * service", which creates one CUDA context per GPU (engine.c) once;
 * backends and parallel workers never initialise CUDA.  A query that runs
 * on the GPU (the "cuda" device of device.h, implemented here as the
 * service's client) reserves its device memory in the ledger (ledger.c),
 * which picks its GPU, then creates a
 * dynamic shared memory segment holding a call block and the engine's host
 * region (the two batch buffers), and puts the segment's handle in the
 * service's queue.  The service's main thread attaches the segment and
 * starts a CUDA thread for the query; from then on backend and thread talk
 * through the call block alone:
 *
 *		backend: write the call's arguments, req_seq++, futex wake
 *		thread:  futex wait on req_seq, run the call with the engine,
 *				 write the answer, done_seq = req_seq, futex wake
 *		backend: futex wait on done_seq (10 ms at a time, then
 *				 CHECK_FOR_INTERRUPTS and a look at the service's health)
 *
 * A futex on the shared segment is the cheapest wake-up both ways and needs
 * nothing of PostgreSQL in the thread (a latch would: the threads call CUDA
 * and the C library only).  The batch reader writes each batch straight
 * into the segment, which the thread has page-locked, so the GPU copies
 * from where the backend wrote.  The result comes back through the same
 * buffers, a buffer-full at a time.
 *
 * Device memory beyond the reservation: the engine answers GA_NEED_MEMORY;
 * the backend grows its reservation in the ledger and repeats the call.
 *
 * Faults: an engine error fails the query over to the CPU device (the
 * executor does that).  A sticky error (the context is unusable) marks the
 * engine broken: the other sessions fail over too, and the service exits to
 * be started again with a new context (a process of its own is the one sure
 * way to leave nothing of the broken context behind).  If the service itself
 * stops (pg_terminate_backend, FATAL), backends see its generation change
 * and fail over; the postmaster starts it again after a second.  A query
 * whose backend dies is closed by its thread, which watches the backend's
 * pid.
 *
 * In a single-user backend there is no service: the same calls run in the
 * backend itself.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "access/htup_details.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/bufmgr.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "device.h"
#include "engine.h"
#include "gpuagg.h"
#include "ledger.h"
#include "service.h"

#define QUEUE_LEN		256
#define MAX_SESSIONS	128

typedef enum ServiceState
{
	SERVICE_STOPPED = 0,
	SERVICE_STARTING,
	SERVICE_READY,
	SERVICE_NO_GPU,
	SERVICE_RECOVERING
} ServiceState;

static const char *const state_names[] = {
	"stopped", "starting", "ready", "no_gpu", "recovering"
};

typedef struct ServiceShared
{
	slock_t		mutex;
	int			pid;			/* 0 when not running */
	Latch	   *latch;
	int			state;
	uint32		generation;		/* one more at every start */
	char		detail[256];
	TimestampTz started;
	int64		starts;
	int64		resets;			/* contexts made anew after a sticky error */
	int			sessions;
	bool		pages_mapped;	/* shared buffers mapped for the GPUs */
	int			ngpus;			/* 0: none (yet) */
	GaEngineDevice device[GA_ENGINE_MAX_GPUS];
	uint64		free_bytes[GA_ENGINE_MAX_GPUS];
	int			nqueued;
	dsm_handle	queue[QUEUE_LEN];
} ServiceShared;

static ServiceShared *service = NULL;

/*---- the call block at the start of a query's segment ----*/

typedef enum CallOp
{
	OP_OPEN = 1,
	OP_START,
	OP_WAITBUF,
	OP_ADD,
	OP_FINISH,
	OP_FETCH,
	OP_CLOSE
} CallOp;

typedef struct ServiceCall
{
	volatile uint32 req_seq;
	volatile uint32 done_seq;
	volatile uint32 cancel;		/* CANCEL_STOP: stop waiting;
								 * CANCEL_ABANDONED: the backend is gone */
	volatile uint32 no_thread;	/* the service answered without a thread */
	uint32		generation;		/* of the service the backend queued it for */
	int			backend_pid;
	/* the call */
	int			op;
	int			b;
	int			part;
	uint64		offset;
	uint64		bytes;
	uint64		grant;			/* more reserved bytes, before the call */
	GaBatch		batch;			/* pointers as offsets into buffer b */
	/* the answer */
	int			result;
	uint64		need;
	GaEngineShape shape;
	char		err[512];
	/* set once, by the backend */
	GaProgram	prog;
	GaEngineArgs args;
	uint64		host_off;		/* the engine's region in the segment */
	uint64		host_bytes;
	char		seed[GA_SEED_MAX];	/* the host's strings (args.seed_bytes) */
} ServiceCall;

#define CALL_BYTES		TYPEALIGN(8192, sizeof(ServiceCall))

#define CANCEL_STOP			1
#define CANCEL_ABANDONED	2

/*---- futexes on shared memory ----*/

static void
futex_wait(volatile uint32 *addr, uint32 val, long timeout_ns)
{
	struct timespec ts;

	ts.tv_sec = timeout_ns / 1000000000L;
	ts.tv_nsec = timeout_ns % 1000000000L;
	(void) syscall(SYS_futex, addr, FUTEX_WAIT, val, &ts, NULL, 0);
}

static void
futex_wake(volatile uint32 *addr)
{
	(void) syscall(SYS_futex, addr, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/*
 * Run one call on the engine: in a CUDA thread of the service, or in a
 * single-user backend.  No PostgreSQL function here.
 */
static void
run_call(ServiceCall *c, GaEngineSession **sp, char *host)
{
	GaEngineSession *s = *sp;
	int			err = GA_OK;

	c->err[0] = '\0';
	c->need = 0;
	if (s && c->grant > 0)
	{
		ga_engine_grant(s, c->grant);
		c->grant = 0;
	}
	if (c->cancel && c->op != OP_CLOSE)
	{
		snprintf(c->err, sizeof(c->err), "the query was cancelled");
		c->result = GA_ERR_DEVICE;
		return;
	}
	switch (c->op)
	{
		case OP_OPEN:
			s = *sp = ga_engine_open(&c->prog, &c->args, c->seed, host, c->host_bytes,
									 &c->cancel, c->err, sizeof(c->err));
			if (s == NULL)
			{
				err = GA_ERR_DEVICE;
				break;
			}
			/* FALLTHROUGH */
		case OP_START:
			err = s ? ga_engine_start(s) : GA_ERR_DEVICE;
			break;
		case OP_WAITBUF:
			err = s ? ga_engine_wait_buffer(s, c->b) : GA_ERR_DEVICE;
			break;
		case OP_ADD:
			if (s)
			{
				GaBatch		batch = c->batch;
				char	   *base = ga_engine_buffer(s, c->b);

				for (int i = 0; i < GA_MAX_COLS; i++)
				{
					if (batch.values[i])
						batch.values[i] = base + ((uintptr_t) batch.values[i] - 1);
					if (batch.nulls[i])
						batch.nulls[i] = (const uint8_t *) base + ((uintptr_t) batch.nulls[i] - 1);
				}
				if (batch.pagelist)
				{
					batch.pagelist = (const uint32_t *) (base + ((uintptr_t) batch.pagelist - 1));
					batch.pagerows = (const uint32_t *) (base + ((uintptr_t) batch.pagerows - 1));
					batch.pagevis = (const uint32_t *) (base + ((uintptr_t) batch.pagevis - 1));
				}
				if (batch.layout)
					batch.layout = base + ((uintptr_t) batch.layout - 1);
				err = ga_engine_add_batch(s, c->b, &batch);
			}
			else
				err = GA_ERR_DEVICE;
			break;
		case OP_FINISH:
			err = s ? ga_engine_finish(s, &c->shape) : GA_ERR_DEVICE;
			break;
		case OP_FETCH:
			err = s ? ga_engine_fetch(s, c->part, c->offset, c->bytes,
									  ga_engine_buffer(s, 0)) : GA_ERR_DEVICE;
			break;
		case OP_CLOSE:
			ga_engine_close(s);
			*sp = NULL;
			break;
	}
	if (err == GA_NEED_MEMORY)
		c->need = ga_engine_need(s);
	else if (err == GA_ERR_DEVICE && s && c->err[0] == '\0')
		snprintf(c->err, sizeof(c->err), "%s", ga_engine_error(s));
	if (err == GA_ERR_DEVICE && c->err[0] == '\0')
		snprintf(c->err, sizeof(c->err), "the GPU service could not run the call");
	c->result = err;
}

/*---- the service: main thread ----*/

typedef struct ServiceSession
{
	bool		used;
	dsm_segment *seg;
	ServiceCall *call;
	pthread_t	thread;
	int			slot;
} ServiceSession;

static ServiceSession sessions[MAX_SESSIONS];
static int	done_pipe[2] = {-1, -1};
static volatile int stopping = 0;

/* A query's CUDA thread: calls until CLOSE, or until its backend is gone. */
static void *
session_thread(void *arg)
{
	ServiceSession *ss = (ServiceSession *) arg;
	ServiceCall *c = ss->call;
	GaEngineSession *s = NULL;
	uint32		seen = c->done_seq;
	char	   *host = (char *) c + c->host_off;

	for (;;)
	{
		uint32		req = c->req_seq;

		int			op;

		if (req == seen)
		{
			/* stopping, abandoned by the backend, or the backend died */
			if (stopping || c->cancel == CANCEL_ABANDONED ||
				(kill(c->backend_pid, 0) != 0 && errno == ESRCH))
			{
				ga_engine_close(s);
				break;
			}
			futex_wait(&c->req_seq, seen, 1000000000L);
			continue;
		}
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		/* the backend may post its next call once done_seq is out: read op now */
		op = c->op;
		if (stopping && op != OP_CLOSE)
		{
			snprintf(c->err, sizeof(c->err), "the GPU service is stopping");
			c->result = GA_ERR_DEVICE;
		}
		else
			run_call(c, &s, host);
		seen = req;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		c->done_seq = req;
		futex_wake(&c->done_seq);
		if (op == OP_CLOSE)
			break;
	}
	/* tell the main thread, which detaches the segment */
	if (write(done_pipe[1], &ss->slot, sizeof(int)) != sizeof(int))
		abort();				/* cannot happen: the pipe holds MAX_SESSIONS ints */
	return NULL;
}

static void
set_state(ServiceState st, const char *detail)
{
	SpinLockAcquire(&service->mutex);
	service->state = st;
	strlcpy(service->detail, detail ? detail : "", sizeof(service->detail));
	SpinLockRelease(&service->mutex);
}

/*
 * Before the segments are detached at exit: the CUDA threads stop (their
 * calls fail over, the queries run on the CPU device) and are joined, so
 * none touches a segment after it is gone.
 */
static void
service_stop_threads(int code, Datum arg)
{
	stopping = 1;
	for (int i = 0; i < MAX_SESSIONS; i++)
		if (sessions[i].used)
		{
			if (sessions[i].call->cancel == 0)
				sessions[i].call->cancel = CANCEL_STOP;
			futex_wake(&sessions[i].call->req_seq);
		}
	for (int i = 0; i < MAX_SESSIONS; i++)
		if (sessions[i].used)
		{
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 30;
			if (pthread_timedjoin_np(sessions[i].thread, NULL, &ts) != 0)
			{
				/*
				 * A thread stuck in the driver for 30 s: detaching its
				 * segment under it could crash the process later, so leave
				 * now; the postmaster treats that as a crash (the server
				 * restarts), which a hung GPU warrants.
				 */
				write_stderr("gpuagg service: a CUDA thread did not stop in 30 s\n");
				_exit(1);
			}
			dsm_detach(sessions[i].seg);
			sessions[i].used = false;
		}
}

static void
service_exit(int code, Datum arg)
{
	SpinLockAcquire(&service->mutex);
	service->pid = 0;
	service->latch = NULL;
	service->state = SERVICE_STOPPED;
	service->pages_mapped = false;
	service->sessions = 0;
	SpinLockRelease(&service->mutex);
}

/*
 * Answer a query's open call with an error, from the main thread: no
 * thread will serve it, so the backend does not send it a CLOSE.
 */
static void
answer_without_thread(ServiceCall *c, const char *why)
{
	snprintf(c->err, sizeof(c->err), "%s", why);
	c->result = GA_ERR_DEVICE;
	c->no_thread = 1;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	c->done_seq = c->req_seq;
	futex_wake(&c->done_seq);
}

/* Start a CUDA thread for a query's segment. */
static void
accept_session(dsm_handle h)
{
	dsm_segment *seg;
	int			i;
	sigset_t	all,
				old;

	for (i = 0; i < MAX_SESSIONS && sessions[i].used; i++)
		;
	seg = dsm_attach(h);
	if (seg == NULL)
		return;					/* the backend gave up already */
	if (i == MAX_SESSIONS || ((ServiceCall *) dsm_segment_address(seg))->generation !=
		service->generation)
	{
		ServiceCall *c = dsm_segment_address(seg);

		if (i < MAX_SESSIONS)
			answer_without_thread(c, "queued for an earlier GPU service");
		else
			answer_without_thread(c, psprintf("the GPU service runs %d queries already",
											  MAX_SESSIONS));
		dsm_detach(seg);
		return;
	}
	sessions[i].used = true;
	sessions[i].seg = seg;
	sessions[i].call = dsm_segment_address(seg);
	sessions[i].slot = i;
	/* signals stay with the main thread */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&sessions[i].thread, NULL, session_thread, &sessions[i]) != 0)
	{
		ServiceCall *c = sessions[i].call;

		answer_without_thread(c, "the GPU service could not start a thread");
		dsm_detach(seg);
		sessions[i].used = false;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (sessions[i].used)
	{
		SpinLockAcquire(&service->mutex);
		service->sessions++;
		SpinLockRelease(&service->mutex);
	}
}

/* Answer every queued query that cannot be served with the reason. */
static void
refuse_queue(const char *why)
{
	dsm_handle	h[QUEUE_LEN];
	int			n;

	SpinLockAcquire(&service->mutex);
	n = service->nqueued;
	memcpy(h, service->queue, sizeof(dsm_handle) * n);
	service->nqueued = 0;
	SpinLockRelease(&service->mutex);
	for (int i = 0; i < n; i++)
	{
		dsm_segment *seg = dsm_attach(h[i]);
		ServiceCall *c;

		if (seg == NULL)
			continue;
		c = dsm_segment_address(seg);
		answer_without_thread(c, why);
		dsm_detach(seg);
	}
}

/* The engine's GPUs and their memory to the ledger (each GPU's default
 * gpuagg.device_memory_limit is a share of its memory). */
static void
tell_ledger(void)
{
	uint64		bytes[GA_ENGINE_MAX_GPUS];
	int			n = ga_engine_gpus();

	for (int g = 0; g < n; g++)
	{
		GaEngineDevice dev;

		bytes[g] = ga_engine_device(g, &dev) ? dev.total_bytes : 0;
	}
	GpuaggLedgerSetDevices(n, bytes);
}

/*
 * What each GPU has free, for gpuagg.devices(): asked of CUDA first, then
 * published under the spinlock (a GPU that does not answer keeps its last
 * figure).
 */
static void
publish_free_memory(void)
{
	int			n = ga_engine_gpus();
	uint64		free_bytes[GA_ENGINE_MAX_GPUS];
	bool		known[GA_ENGINE_MAX_GPUS];

	for (int g = 0; g < n; g++)
	{
		uint64		total;

		known[g] = ga_engine_mem_info(g, &free_bytes[g], &total);
	}
	SpinLockAcquire(&service->mutex);
	for (int g = 0; g < n; g++)
		if (known[g])
			service->free_bytes[g] = free_bytes[g];
	SpinLockRelease(&service->mutex);
}

/* The driver's own threads start with every signal blocked. */
static bool
engine_init_masked(const char *fatbin, char *err, size_t errlen)
{
	sigset_t	all,
				old;
	bool		ok;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ok = ga_engine_init(fatbin, err, errlen);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ok;
}

/*
 * Shared buffers into the GPU's address space, for page-form batches; the
 * address is the same in every process of the server (all forked from the
 * postmaster after it mapped shared memory).  Done when gpuagg.page_batches
 * is on in the server's configuration: page-locking makes all of
 * shared_buffers resident.
 */
static void
map_shared_buffers(void)
{
	char		err[256];
	TimestampTz start = GetCurrentTimestamp();
	bool		ok;

	ok = ga_engine_register_pages(BufferBlocks, (uint64) NBuffers * BLCKSZ, BLCKSZ,
								  err, sizeof(err));
	SpinLockAcquire(&service->mutex);
	service->pages_mapped = ok;
	SpinLockRelease(&service->mutex);
	if (ok)
		ereport(LOG,
				(errmsg("gpuagg service: shared buffers (%.0f MB) mapped for the GPU in %.0f ms",
						(double) NBuffers * BLCKSZ / (1024.0 * 1024.0),
						TimestampDifferenceMilliseconds(start, GetCurrentTimestamp()) * 1.0)));
	else
		ereport(LOG, (errmsg("gpuagg service: %s; page-form batches stay on the CPU device", err)));
}

void
gpuagg_service_main(Datum arg)
{
	char		err[256];
	char	   *fatbin;
	TimestampTz last_mem = 0;

	pqsignal(SIGTERM, die);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGINT, SIG_IGN);	/* a query cancel is not for the service */
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	pgstat_report_appname("gpuagg service");

	if (pipe2(done_pipe, O_CLOEXEC) != 0)
		elog(FATAL, "gpuagg service: pipe failed: %m");
	SpinLockAcquire(&service->mutex);
	service->pid = MyProcPid;
	service->latch = MyLatch;
	service->generation++;
	service->nqueued = 0;		/* queued for an earlier service: they gave up */
	service->pages_mapped = false;
	service->starts++;
	service->started = GetCurrentTimestamp();
	service->state = SERVICE_STARTING;
	service->sessions = 0;
	SpinLockRelease(&service->mutex);
	on_shmem_exit(service_exit, 0);
	before_shmem_exit(service_stop_threads, 0);

	fatbin = psprintf("%s/gpuagg.fatbin", pkglib_path);
	if (access(fatbin, R_OK) != 0)
		set_state(SERVICE_NO_GPU, "gpuagg.fatbin is not installed (built without nvcc)");
	else if (access("/dev/nvidiactl", F_OK) != 0)
		set_state(SERVICE_NO_GPU, "no NVIDIA device node (/dev/nvidiactl)");
	else if (!engine_init_masked(fatbin, err, sizeof(err)))
		set_state(SERVICE_NO_GPU, err);
	else
	{
		int			n = ga_engine_gpus();
		GaEngineDevice dev[GA_ENGINE_MAX_GPUS];

		for (int g = 0; g < n; g++)
			ga_engine_device(g, &dev[g]);
		SpinLockAcquire(&service->mutex);
		memcpy(service->device, dev, sizeof(GaEngineDevice) * n);
		service->ngpus = n;
		SpinLockRelease(&service->mutex);
		publish_free_memory();
		tell_ledger();
		if (gpuagg_page_batches)
			map_shared_buffers();
		{
			StringInfoData names;

			initStringInfo(&names);
			if (n > 1)
				appendStringInfo(&names, "%d GPUs: ", n);
			for (int g = 0; g < n; g++)
				appendStringInfo(&names, "%s%s", g ? ", " : "", service->device[g].name);
			set_state(SERVICE_READY, names.data);
		}
		for (int g = 0; g < n; g++)
			ereport(LOG,
					(errmsg("gpuagg service: ready on GPU %d, %s (%.0f MB)", g,
							service->device[g].name,
							service->device[g].total_bytes / (1024.0 * 1024.0))));
	}

	for (;;)
	{
		int			rc;
		int			slot;

		rc = WaitLatchOrSocket(MyLatch,
							   WL_LATCH_SET | WL_SOCKET_READABLE | WL_TIMEOUT |
							   WL_EXIT_ON_PM_DEATH,
							   done_pipe[0], 1000L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			/* gpuagg.page_batches turned on server-wide: map shared buffers */
			if (gpuagg_page_batches && !service->pages_mapped && service->ngpus > 0 &&
				service->state == SERVICE_READY)
				map_shared_buffers();
		}

		/* queries that are done: their threads have ended */
		if (rc & WL_SOCKET_READABLE)
		{
			int			flags = fcntl(done_pipe[0], F_GETFL);

			fcntl(done_pipe[0], F_SETFL, flags | O_NONBLOCK);
			while (read(done_pipe[0], &slot, sizeof(int)) == sizeof(int))
			{
				pthread_join(sessions[slot].thread, NULL);
				dsm_detach(sessions[slot].seg);
				sessions[slot].used = false;
				SpinLockAcquire(&service->mutex);
				service->sessions--;
				SpinLockRelease(&service->mutex);
			}
			fcntl(done_pipe[0], F_SETFL, flags);
		}

		if (service->state != SERVICE_READY && service->state != SERVICE_RECOVERING)
		{
			refuse_queue(service->detail);
			continue;
		}

		/*
		 * A sticky error: the context is unusable.  The service stops (its
		 * threads fail their queries over and are joined on the way out) and
		 * the postmaster starts it again a second later, with a new context
		 * in a new process: nothing of the broken one can outlive it.
		 */
		if (ga_engine_broken())
		{
			set_state(SERVICE_RECOVERING, "a CUDA error left the context unusable");
			refuse_queue("the GPU service is making its CUDA context anew");
			SpinLockAcquire(&service->mutex);
			service->resets++;
			SpinLockRelease(&service->mutex);
			ereport(LOG,
					(errmsg("gpuagg service: a CUDA error left the context unusable, restarting")));
			proc_exit(1);
		}

		/* new queries */
		for (;;)
		{
			dsm_handle	h = DSM_HANDLE_INVALID;

			SpinLockAcquire(&service->mutex);
			if (service->nqueued > 0)
			{
				h = service->queue[0];
				service->nqueued--;
				memmove(service->queue, service->queue + 1,
						sizeof(dsm_handle) * service->nqueued);
			}
			SpinLockRelease(&service->mutex);
			if (h == DSM_HANDLE_INVALID)
				break;
			accept_session(h);
		}

		/* what the GPUs have free, for gpuagg.devices(), once a second */
		if (TimestampDifferenceExceeds(last_mem, GetCurrentTimestamp(), 1000))
		{
			publish_free_memory();
			last_mem = GetCurrentTimestamp();
		}
	}
}

/*---- set-up, from _PG_init and the shared memory hooks ----*/

Size
GpuaggServiceShmemSize(void)
{
	return MAXALIGN(sizeof(ServiceShared));
}

void
GpuaggServiceShmemInit(void)
{
	bool		found;

	service = ShmemInitStruct("gpuagg service", sizeof(ServiceShared), &found);
	if (!found)
	{
		memset(service, 0, sizeof(ServiceShared));
		SpinLockInit(&service->mutex);
	}
}

void
GpuaggServiceRegister(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	/* "connected" to no database, so that it shows in pg_stat_activity */
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_ConsistentState;
	worker.bgw_restart_time = 1;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "gpuagg");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "gpuagg_service_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "gpuagg service");
	snprintf(worker.bgw_type, BGW_MAXLEN, "gpuagg service");
	RegisterBackgroundWorker(&worker);
}

/*---- the backend's side: the "cuda" device ----*/

typedef struct CudaClient
{
	MemoryContext cxt;
	GaProgram	prog;
	bool		direct;			/* single-user: the engine runs here */
	GaEngineSession *engine;	/* direct only */
	dsm_segment *seg;
	ServiceCall *call;
	char	   *host;			/* the engine's region, as this process sees it */
	void	   *direct_mem;
	uint32		generation;
	int			gpu;			/* the ledger's choice */
	uint64		reserved;		/* bytes held in the ledger, on that GPU */
	uint64		host_batch;		/* bytes of each of the host's batch buffers */
	int			next;
	char		errbuf[512];
} CudaClient;

/* Why the GPU cannot be used now, or NULL. */
static const char *
service_unusable(void)
{
	static char why[300];
	int			state;

	if (service == NULL)
		return "the GPU service is not running (gpuagg is not in shared_preload_libraries)";
	SpinLockAcquire(&service->mutex);
	state = service->state;
	snprintf(why, sizeof(why), "%s", service->detail);
	SpinLockRelease(&service->mutex);
	switch (state)
	{
		case SERVICE_READY:
			return NULL;
		case SERVICE_NO_GPU:
			return why;
		case SERVICE_STARTING:
			return "the GPU service is starting";
		case SERVICE_RECOVERING:
			return "the GPU service is making its CUDA context anew";
		default:
			return "the GPU service is not running";
	}
}

static int	direct_state = 0;	/* single-user: 0 untried, 1 ready, -1 no */
static bool direct_pages = false;
static char direct_failure[256];

static bool
direct_init(void)
{
	if (direct_state == 0)
	{
		char	   *fatbin = psprintf("%s/gpuagg.fatbin", pkglib_path);

		direct_state = -1;
		if (access(fatbin, R_OK) != 0)
			strlcpy(direct_failure, "gpuagg.fatbin is not installed (built without nvcc)",
					sizeof(direct_failure));
		else if (access("/dev/nvidiactl", F_OK) != 0)
			strlcpy(direct_failure, "no NVIDIA device node (/dev/nvidiactl)",
					sizeof(direct_failure));
		else if (ga_engine_init(fatbin, direct_failure, sizeof(direct_failure)))
		{
			tell_ledger();
			direct_pages = gpuagg_page_batches &&
				ga_engine_register_pages(BufferBlocks, (uint64) NBuffers * BLCKSZ,
										 BLCKSZ, direct_failure, sizeof(direct_failure));
			direct_failure[0] = '\0';
			direct_state = 1;
		}
	}
	return direct_state == 1;
}

/* Does the GPU take page-form batches (shared buffers mapped)? */
bool
GpuaggCudaPages(void)
{
	bool		mapped;

	if (!IsUnderPostmaster)
		return direct_init() && direct_pages;
	if (service == NULL)
		return false;
	SpinLockAcquire(&service->mutex);
	mapped = service->state == SERVICE_READY && service->pages_mapped;
	SpinLockRelease(&service->mutex);
	return mapped;
}

bool
GpuaggCudaProbe(const char **reason)
{
	const char *why;

	if (!IsUnderPostmaster)
	{
		if (direct_init())
			return true;
		*reason = direct_failure;
		return false;
	}
	why = service_unusable();
	if (why == NULL)
		return true;
	*reason = why;
	return false;
}

/* Has the service this query talks to stopped? */
static bool
service_gone(CudaClient *c)
{
	bool		gone;

	SpinLockAcquire(&service->mutex);
	gone = service->pid == 0 || service->generation != c->generation;
	SpinLockRelease(&service->mutex);
	return gone;
}

/*
 * Make the call written in the call block and wait for its answer.
 * interruptible: CHECK_FOR_INTERRUPTS while waiting (not while closing).
 */
static uint32
post(CudaClient *c, int op)
{
	ServiceCall *k = c->call;
	uint32		seq = k->req_seq + 1;

	k->op = op;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	k->req_seq = seq;
	futex_wake(&k->req_seq);
	return seq;
}

static int
wait_answer(CudaClient *c, uint32 seq, bool interruptible)
{
	ServiceCall *k = c->call;

	for (int waited = 0;; waited++)
	{
		uint32		done = k->done_seq;

		if (done == seq)
			break;
		futex_wait(&k->done_seq, done, 10000000L);
		if (k->done_seq == seq)
			break;
		if (interruptible)
			CHECK_FOR_INTERRUPTS();
		else if (waited > 3000)
		{
			snprintf(k->err, sizeof(k->err), "the GPU service did not answer in 30 s");
			return GA_ERR_DEVICE;
		}
		if (waited % 10 == 9 && service_gone(c))
		{
			snprintf(k->err, sizeof(k->err), "the GPU service stopped during the query");
			return GA_ERR_DEVICE;
		}
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return k->result;
}

static int
call(CudaClient *c, int op, bool interruptible)
{
	if (c->direct)
	{
		c->call->op = op;
		run_call(c->call, &c->engine, c->host);
		return c->call->result;
	}
	return wait_answer(c, post(c, op), interruptible);
}

/*
 * A call that may need more device memory: grow the reservation, again.
 * err: the first call's answer, or -1 to make it here.
 */
static int
call_growing(CudaClient *c, int op, int err, bool interruptible)
{
	if (err < 0)
		err = call(c, op, interruptible);
	for (; err == GA_NEED_MEMORY; err = call(c, op, interruptible))
	{
		uint64		more = c->call->need;

		if (!GpuaggLedgerGrow(c->gpu, more))
		{
			snprintf(c->call->err, sizeof(c->call->err),
					 "the query's tables would pass gpuagg.device_memory_limit");
			return GA_ERR_DEVICE;
		}
		c->reserved += more;
		c->call->grant = more;
		if (op == OP_OPEN)
			op = OP_START;
	}
	return err;
}

static void cuda_close(void *session);

/*
 * The client of a query: its call block and batch buffers (a shared
 * segment the service is told of, or in a single-user backend plain
 * memory).  NULL with *error when there is none.
 */
static CudaClient *
open_client(const GaProgram *prog, const GpuaggEstimate *est, MemoryContext cxt,
			int gpu, uint64 want, uint64 batch_bytes, uint64 host_batch, char **error,
			volatile uint32 *seq)
{
	CudaClient *c;
	uint64		host_bytes = GA_ENGINE_SCRATCH + 2 * host_batch;

	c = MemoryContextAllocZero(cxt, sizeof(CudaClient));
	c->cxt = cxt;
	c->prog = *prog;
	c->gpu = gpu;
	c->reserved = want;
	c->host_batch = host_batch;
	c->direct = !IsUnderPostmaster;
	if (c->direct)
	{
		if (posix_memalign(&c->direct_mem, 4096, CALL_BYTES + host_bytes) != 0)
		{
			*error = pstrdup("out of memory for the batch buffers");
			return NULL;
		}
		memset(c->direct_mem, 0, CALL_BYTES);
		c->call = (ServiceCall *) c->direct_mem;
	}
	else
	{
		/* the mapping lives until close, even past an abort's resource cleanup */
		c->seg = dsm_create(CALL_BYTES + host_bytes, DSM_CREATE_NULL_IF_MAXSEGMENTS);
		if (c->seg == NULL)
		{
			*error = pstrdup("no dynamic shared memory segment for the batch buffers");
			return NULL;
		}
		dsm_pin_mapping(c->seg);
		c->call = dsm_segment_address(c->seg);
		memset(c->call, 0, sizeof(ServiceCall));
	}
	c->host = (char *) c->call + CALL_BYTES;
	c->call->backend_pid = MyProcPid;
	c->call->prog = *prog;
	c->call->args.groups = est->groups;
	c->call->args.batch_rows = est->batch_rows;
	c->call->args.batch_bytes = batch_bytes;
	c->call->args.host_batch_bytes = host_batch;
	c->call->args.vram_budget = est->vram_budget;
	c->call->args.reserved = want;
	c->call->args.inject_fault = gpuagg_debug_inject_fault;
	c->call->args.max_pages = est->max_pages;
	c->call->args.gpu = gpu;
	if (est->seed_bytes > GA_SEED_MAX)
	{
		*error = pstrdup("the query's strings do not fit the GPU service's call");
		return NULL;
	}
	c->call->args.nseed = est->nseed;
	c->call->args.seed_bytes = est->seed_bytes;
	if (est->seed_bytes > 0)
		memcpy(c->call->seed, est->seed, est->seed_bytes);
	c->call->host_off = CALL_BYTES;
	c->call->host_bytes = host_bytes;

	if (!c->direct)
	{
		bool		queued = false;

		/* the open call is posted before the service can see the segment */
		*seq = post(c, OP_OPEN);
		SpinLockAcquire(&service->mutex);
		c->generation = service->generation;
		c->call->generation = service->generation;
		if (service->pid != 0 && service->nqueued < QUEUE_LEN)
		{
			service->queue[service->nqueued++] = dsm_segment_handle(c->seg);
			queued = true;
		}
		SpinLockRelease(&service->mutex);
		if (!queued)
		{
			dsm_detach(c->seg);
			*error = pstrdup("the GPU service's queue is full or the service stopped");
			return NULL;
		}
		if (service->latch)
			SetLatch(service->latch);
	}
	return c;
}

static void *
cuda_open(const GaProgram *prog, const GpuaggEstimate *est, MemoryContext cxt,
		  GpuaggDeviceStats *stats, char **error)
{
	/* the planner's estimate (a page-form batch's pages are read in place) */
	uint64		want = (uint64) Max(est->vram_estimate, 0.0);
	uint64		batch_bytes = TYPEALIGN(4096, est->batch_bytes);

	/*
	 * The host's buffers: what the scan writes (in page form only the pages'
	 * lists: the GPU deforms the columns into its own buffers), so less to
	 * create and page-lock; at least 1 MB, as results come back through
	 * them.
	 */
	uint64		host_batch = TYPEALIGN(4096, Max(est->batch_host_bytes,
												 Min(est->batch_bytes, 1024 * 1024)));
	double		waited = 0;
	const char *why;
	int			gpu;
	volatile uint32 seq = 0;
	CudaClient *volatile c = NULL;
	int			err;

	/*
	 * The server-wide ledger first: wait for room, or run elsewhere.  (An
	 * estimate over an explicit gpuagg.device_memory_limit is refused here
	 * whether or not there is a GPU.)
	 */
	if (!IsUnderPostmaster)
		(void) direct_init();
	if (!GpuaggLedgerAdmit(want, &gpu, &waited, error))
	{
		stats->admission_ms += waited;
		stats->no_memory = true;
		return NULL;
	}
	stats->admission_ms += waited;
	if (IsUnderPostmaster ? (why = service_unusable()) != NULL :
		direct_state != 1 && (why = direct_failure) != NULL)
	{
		GpuaggLedgerRelease(gpu, want);
		stats->no_service = true;
		*error = pstrdup(why);
		return NULL;
	}

	/*
	 * Until the session is open an ERROR (no memory, /dev/shm too small for
	 * the segment) must give the reservation back here.
	 */
	PG_TRY();
	{
		c = open_client(prog, est, cxt, gpu, want, batch_bytes, host_batch, error, &seq);
	}
	PG_CATCH();
	{
		GpuaggLedgerRelease(gpu, want);
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (c == NULL)
	{
		GpuaggLedgerRelease(gpu, want);
		stats->no_service = true;
		return NULL;
	}
	/* the executor's reset callback takes over only once open returns */
	PG_TRY();
	{
		err = call_growing(c, OP_OPEN, c->direct ? call(c, OP_OPEN, true) :
						   wait_answer(c, seq, true), true);
	}
	PG_CATCH();
	{
		cuda_close(c);
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (err != GA_OK)
	{
		*error = pstrdup(c->call->err);
		cuda_close(c);
		return NULL;
	}
	return c;
}

static char *
cuda_batch_buffer(void *session, Size size)
{
	CudaClient *c = (CudaClient *) session;
	int			b = c->next;

	/* a batch is no larger than announced at open */
	Assert(size <= c->call->args.batch_bytes);
	c->call->b = b;
	/* the DMA engine may still be reading this buffer */
	if (call(c, OP_WAITBUF, true) != GA_OK)
		return NULL;
	return c->host + GA_ENGINE_SCRATCH + b * c->host_batch;
}

static int
cuda_add_batch(void *session, const GaBatch *batch, GpuaggDeviceStats *stats)
{
	CudaClient *c = (CudaClient *) session;
	int			b = c->next;
	char	   *base = c->host + GA_ENGINE_SCRATCH + b * c->host_batch;
	GaBatch    *k = &c->call->batch;
	int			err;

	/* pointers into the buffer travel as offsets + 1 (0 stays "none") */
	memset(k, 0, sizeof(GaBatch));
	k->nrows = batch->nrows;
	for (uint32 i = 0; i < c->prog.ncols; i++)
	{
		if (batch->values[i])
			k->values[i] = (const void *) ((const char *) batch->values[i] - base + 1);
		if (batch->nulls[i])
			k->nulls[i] = (const uint8_t *) ((const char *) batch->nulls[i] - base + 1);
	}
	/* page form: the pages are shared buffers, at one address in every process */
	if (batch->pagelist)
	{
		k->pagelist = (const uint32_t *) ((const char *) batch->pagelist - base + 1);
		k->pagerows = (const uint32_t *) ((const char *) batch->pagerows - base + 1);
		k->pagevis = (const uint32_t *) ((const char *) batch->pagevis - base + 1);
		k->npages = batch->npages;
		k->layout = (const void *) ((const char *) batch->layout - base + 1);
		k->pages = batch->pages;
	}
	c->call->b = b;

	/*
	 * A page-form batch's pages stay pinned until the GPU has read them:
	 * its call is not interrupted (it is short), so no ERROR or FATAL can
	 * unpin them under the kernel.
	 */
	err = call_growing(c, OP_ADD, -1, batch->pagelist == NULL);
	if (err == GA_OK)
	{
		c->next = 1 - b;
		stats->rows_in += batch->nrows;
	}
	return err;
}

/* Bring part of the result back, a buffer-full at a time. */
static int
fetch(CudaClient *c, int part, void *dst, uint64 bytes)
{
	uint64		done = 0;

	while (done < bytes)
	{
		uint64		n = Min(bytes - done, c->host_batch);
		int			err;

		c->call->part = part;
		c->call->offset = done;
		c->call->bytes = n;
		if ((err = call(c, OP_FETCH, true)) != GA_OK)
			return err;
		memcpy((char *) dst + done, c->host + GA_ENGINE_SCRATCH, n);
		done += n;
	}
	return GA_OK;
}

static int
cuda_finish(void *session, GaResult *result, GpuaggDeviceStats *stats)
{
	CudaClient *c = (CudaClient *) session;
	GaEngineShape *shape = &c->call->shape;
	uint32		nk = c->prog.nkeys;
	uint32		ns = c->prog.nslots;
	uint64		n;
	int			err;

	if ((err = call_growing(c, OP_FINISH, -1, true)) != GA_OK)
		return err;
	stats->rows_passed += shape->rows_passed;
	stats->device_ms += shape->device_ms;
	stats->transfer_ms += shape->transfer_ms;
	/* page form with strings: the strings its dictionary added */
	result->nstrings = shape->nstrings;
	result->strings_first = shape->strings_first;
	result->nstrbytes = shape->strbytes;
	if (shape->nstrings > 0)
	{
		result->strlen = MemoryContextAllocHuge(c->cxt, 4 * shape->nstrings);
		result->strat = MemoryContextAllocHuge(c->cxt, 8 * shape->nstrings);
		result->strbytes = MemoryContextAllocHuge(c->cxt, Max(shape->strbytes, 1));
		if ((err = fetch(c, GA_PART_STRLEN, result->strlen, 4 * shape->nstrings)) != GA_OK ||
			(err = fetch(c, GA_PART_STRAT, result->strat, 8 * shape->nstrings)) != GA_OK ||
			(err = fetch(c, GA_PART_STRBYTES, result->strbytes, shape->strbytes)) != GA_OK)
			return err;
	}
	n = shape->ngroups;
	if (n == 0 && nk == 0)
	{
		/* a plain aggregate over no rows still has its one group */
		result->ngroups = result->groups_all = 1;
		result->keys = MemoryContextAllocZero(c->cxt, sizeof(GaDatum));
		result->keynulls = MemoryContextAllocZero(c->cxt, 1);
		result->states = MemoryContextAllocZero(c->cxt, sizeof(uint64) * Max(ns, 1));
		return GA_OK;
	}
	result->ngroups = n;
	result->groups_all = shape->groups;
	result->keys = MemoryContextAllocHuge(c->cxt, sizeof(GaDatum) * n * Max(nk, 1));
	result->keynulls = MemoryContextAllocHuge(c->cxt, n * Max(nk, 1));
	result->states = MemoryContextAllocHuge(c->cxt, sizeof(uint64) * n * Max(ns, 1));
	if (n == 0)
		return GA_OK;
	if ((err = fetch(c, GA_PART_KEYS, result->keys, 8 * (uint64) nk * n)) != GA_OK ||
		(err = fetch(c, GA_PART_KEYNULLS, result->keynulls, (uint64) nk * n)) != GA_OK ||
		(err = fetch(c, GA_PART_STATES, result->states, 8 * (uint64) ns * n)) != GA_OK)
		return err;
	for (uint32 a = 0; a < c->prog.naggs; a++)
	{
		const GaAgg *ag = &c->prog.aggs[a];
		int			j = ag->distinct;
		uint64		m;

		if (j < 0 || !ga_agg_host_order(ag->kind, ag->argtype))
			continue;
		m = shape->npairs[j];
		result->npairs[j] = m;
		result->pairgroup[j] = MemoryContextAllocHuge(c->cxt, 8 * Max(m, 1));
		result->pairvalue[j] = MemoryContextAllocHuge(c->cxt, 8 * Max(m, 1));
		if (m > 0 &&
			((err = fetch(c, GA_PART_PAIRGROUP + 2 * j, result->pairgroup[j], 8 * m)) != GA_OK ||
			 (err = fetch(c, GA_PART_PAIRVALUE + 2 * j, result->pairvalue[j], 8 * m)) != GA_OK))
			return err;
	}
	return GA_OK;
}

static void
cuda_close(void *session)
{
	CudaClient *c = (CudaClient *) session;
	ServiceCall *k = c->call;

	/* called from a reset callback, maybe during abort: never throw here */
	if (k == NULL)
		return;
	if (c->direct)
	{
		k->op = OP_CLOSE;
		run_call(k, &c->engine, c->host);
		free(c->direct_mem);
	}
	else
	{
		if (!k->no_thread && !service_gone(c))
		{
			/* a call still running (we were cancelled): stop it, wait for it */
			if (k->done_seq != k->req_seq)
			{
				k->cancel = CANCEL_STOP;
				for (int i = 0; i < 3000 && k->done_seq != k->req_seq && !service_gone(c); i++)
					futex_wait(&k->done_seq, k->done_seq, 10000000L);
			}
			if (k->done_seq == k->req_seq && !k->no_thread)
				(void) call(c, OP_CLOSE, false);
		}
		/* whatever happened above, a thread still there ends the session */
		k->cancel = CANCEL_ABANDONED;
		futex_wake(&k->req_seq);
		dsm_detach(c->seg);
	}
	c->call = NULL;
	GpuaggLedgerRelease(c->gpu, c->reserved);
	c->reserved = 0;
}

static const char *
cuda_error_detail(void *session)
{
	CudaClient *c = (CudaClient *) session;

	return c->call ? c->call->err : "the GPU session is closed";
}

const GpuaggDevice GpuaggCudaDevice = {
	.name = "cuda",
	.pages = true,				/* where GpuaggCudaPages() says so */
	.open = cuda_open,
	.batch_buffer = cuda_batch_buffer,
	.add_batch = cuda_add_batch,
	.finish = cuda_finish,
	.close = cuda_close,
	.error_detail = cuda_error_detail,
};

/*---- SQL-callable ----*/

PG_FUNCTION_INFO_V1(gpuagg_devices);

/*
 * One row per GPU the service uses (none without a GPU or the service).
 * Nothing here touches CUDA: the service keeps these numbers current.
 */
Datum
gpuagg_devices(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	GaEngineDevice dev[GA_ENGINE_MAX_GPUS];
	uint64		free_bytes[GA_ENGINE_MAX_GPUS] = {0};
	int			n = 0;

	InitMaterializedSRF(fcinfo, 0);
	if (!IsUnderPostmaster)
	{
		uint64		total;

		int			gpus = direct_init() ? ga_engine_gpus() : 0;

		for (int g = 0; g < gpus; g++)
			if (ga_engine_device(g, &dev[n]) && ga_engine_mem_info(g, &free_bytes[n], &total))
				n++;
	}
	else if (service)
	{
		SpinLockAcquire(&service->mutex);
		if (service->state != SERVICE_NO_GPU)
			n = service->ngpus;
		memcpy(dev, service->device, sizeof(GaEngineDevice) * n);
		memcpy(free_bytes, service->free_bytes, sizeof(uint64) * n);
		SpinLockRelease(&service->mutex);
	}
	for (int g = 0; g < n; g++)
	{
		Datum		values[11];
		bool		nulls[11] = {0};
		uint64		limit = 0,
					reserved = 0;
		int			running = 0,
					queued = 0;

		values[0] = Int32GetDatum(g);
		values[1] = CStringGetTextDatum(dev[g].name);
		values[2] = Int64GetDatum((int64) (dev[g].total_bytes >> 20));
		values[3] = Int64GetDatum((int64) (free_bytes[g] >> 20));
		values[4] = CStringGetTextDatum(psprintf("%d.%d", dev[g].major, dev[g].minor));
		values[5] = Int32GetDatum(dev[g].sms);
		values[6] = CStringGetTextDatum(psprintf("%d.%d", dev[g].driver / 1000,
												 (dev[g].driver % 1000) / 10));
		/* the ledger's view of the GPU */
		if (GpuaggLedgerNow(g, &limit, &reserved, &running, &queued))
		{
			nulls[7] = (limit == PG_UINT64_MAX);
			values[7] = Int64GetDatum(nulls[7] ? 0 : (int64) (limit >> 20));
			values[8] = Int64GetDatum((int64) ((reserved + (1 << 20) - 1) >> 20));
			values[9] = Int32GetDatum(running);
			values[10] = Int32GetDatum(queued);
		}
		else
			nulls[7] = nulls[8] = nulls[9] = nulls[10] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	PG_RETURN_VOID();
}

PG_FUNCTION_INFO_V1(gpuagg_service);

/* The service: pid, state, why, since when, starts, context resets, queries. */
Datum
gpuagg_service(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[7];
	bool		nulls[7] = {0};
	ServiceShared snap;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (service == NULL)
	{
		memset(&snap, 0, sizeof(snap));
		strlcpy(snap.detail, "gpuagg is not in shared_preload_libraries", sizeof(snap.detail));
	}
	else
	{
		SpinLockAcquire(&service->mutex);
		snap = *service;
		SpinLockRelease(&service->mutex);
	}
	nulls[0] = snap.pid == 0;
	values[0] = Int32GetDatum(snap.pid);
	values[1] = CStringGetTextDatum(state_names[snap.state]);
	values[2] = CStringGetTextDatum(snap.detail);
	nulls[3] = snap.started == 0;
	values[3] = TimestampTzGetDatum(snap.started);
	values[4] = Int64GetDatum(snap.starts);
	values[5] = Int64GetDatum(snap.resets);
	values[6] = Int32GetDatum(snap.pid ? snap.sessions : 0);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
