/*-------------------------------------------------------------------------
 *
 * service.c
 *		The GPU service: a background worker that supervises the process
 *		that runs CUDA.
 *
 * With gpuagg in shared_preload_libraries the postmaster starts "gpuagg
 * service".  It calls no CUDA itself: it forks the CUDA process
 * (cuda_process.c), which creates the CUDA contexts and serves the
 * queries, and it stands between that process and PostgreSQL:
 *   - backends queue their queries' segment handles here (under the
 *     spinlock, in shared memory), and the service passes them on over a
 *     socket pair;
 *   - what the CUDA process reports (its GPUs, free memory, shared buffers
 *     mapped, queries served, log lines) the service publishes in shared
 *     memory, tells the ledger, and logs;
 *   - when the CUDA process dies, whatever the cause (a signal, a sticky
 *     CUDA error, a crash in the driver), the service reaps it, changes its
 *     generation so that the backends waiting on it fail over to the CPU
 *     device, and starts a new one.  The postmaster never learns of it, so
 *     no other session is touched.
 *
 * Backends see the service through service.h: is it usable, are shared
 * buffers mapped, has the generation they queued for gone, queue this.
 * The backend's side of the protocol is device_cuda.c.
 *
 * If the service itself stops (pg_terminate_backend, FATAL), it stops its
 * CUDA process first; backends see its generation change and fail over;
 * the postmaster starts it again after a second.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
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
#include "storage/dsm_impl.h"
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

#include "call.h"
#include "cuda_process.h"
#include "device.h"
#include "engine.h"
#include "gpuagg.h"
#include "ledger.h"
#include "service.h"

#define QUEUE_LEN		256

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
	uint32		generation;		/* one more at every start of the service
								 * and every end of its CUDA process */
	char		detail[256];
	TimestampTz started;
	int64		starts;
	int64		resets;			/* CUDA processes started again */
	int			cuda_pid;		/* the CUDA process; 0: none now */
	int			sessions;
	bool		pages_mapped;	/* shared buffers mapped for the GPUs */
	int			ngpus;			/* 0: none (yet) */
	GaEngineDevice device[GA_ENGINE_MAX_GPUS];
	uint64		free_bytes[GA_ENGINE_MAX_GPUS];
	int			nqueued;
	dsm_handle	queue[QUEUE_LEN];
} ServiceShared;

static ServiceShared *service = NULL;

/*---- the service's own state (the background worker) ----*/

static pid_t cuda_pid = 0;		/* the CUDA process, 0: none */
static int	cuda_sock = -1;		/* our end of its socket pair */
static bool map_requested = false;	/* CP_MAP_PAGES sent, no answer yet */
static TimestampTz next_start = 0;	/* start a CUDA process from then on */
static int	quick_ends = 0;		/* ends in a row soon after a start */
static TimestampTz cuda_started = 0;
static char *fatbin_path = NULL;
static const char *no_gpu_reason = NULL;

static void
set_state(ServiceState st, const char *detail)
{
	SpinLockAcquire(&service->mutex);
	service->state = st;
	strlcpy(service->detail, detail ? detail : "", sizeof(service->detail));
	SpinLockRelease(&service->mutex);
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

		if (seg == NULL)
			continue;
		GpuaggAnswerWithoutThread(dsm_segment_address(seg), why);
		dsm_detach(seg);
	}
}

/* Fork the CUDA process; on failure try again a second later. */
static void
start_cuda_process(void)
{
	int			sv[2];
	pid_t		pid;
	CudaProcessArgs args;

	memset(&args, 0, sizeof(args));
	SpinLockAcquire(&service->mutex);
	args.generation = service->generation;
	SpinLockRelease(&service->mutex);
	args.service_pid = MyProcPid;
	args.fatbin = fatbin_path;
	args.no_gpu = no_gpu_reason;
	args.map_pages = gpuagg_page_batches;
	args.pages = BufferBlocks;
	args.pages_bytes = (uint64) NBuffers * BLCKSZ;
	args.blcksz = BLCKSZ;
	args.dsm_type = dynamic_shared_memory_type;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
	{
		ereport(LOG, (errmsg("gpuagg service: could not create a socket pair: %m")));
		next_start = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), 1000);
		return;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0)
	{
		close(sv[0]);
		GpuaggCudaProcessMain(sv[1], &args);
	}
	close(sv[1]);
	if (pid < 0)
	{
		close(sv[0]);
		ereport(LOG, (errmsg("gpuagg service: could not start the CUDA process: %m")));
		next_start = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), 1000);
		return;
	}
	cuda_pid = pid;
	cuda_sock = sv[0];
	map_requested = args.map_pages;
	cuda_started = GetCurrentTimestamp();
	SpinLockAcquire(&service->mutex);
	service->cuda_pid = pid;
	service->sessions = 0;
	service->pages_mapped = false;
	SpinLockRelease(&service->mutex);
}

/*
 * Wait for the CUDA process to be gone, at most timeout_ms (then kill it),
 * and return its wait status.
 */
static int
reap_cuda_process(int timeout_ms)
{
	int			status = 0;

	for (int waited = 0;; waited += 10)
	{
		pid_t		r = waitpid(cuda_pid, &status, WNOHANG);

		if (r == cuda_pid || (r < 0 && errno != EINTR))
			break;
		if (waited >= timeout_ms)
		{
			kill(cuda_pid, SIGKILL);
			(void) waitpid(cuda_pid, &status, 0);
			break;
		}
		pg_usleep(10000L);
	}
	return status;
}

/*
 * The CUDA process has ended (status from waitpid): the queries it served
 * fail over (a new generation), and a new one starts: at once, or, after
 * three in a row that ended within 10 s of their start, after a pause that
 * doubles from 1 s up to 30 s (a driver that fails at every start is not
 * hammered).
 */
static void
cuda_process_ended(int status)
{
	char		how[128];
	TimestampTz now = GetCurrentTimestamp();
	int			pause_ms;

	if (WIFSIGNALED(status))
		snprintf(how, sizeof(how), "was terminated by signal %d: %s",
				 WTERMSIG(status), pg_strsignal(WTERMSIG(status)));
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
		snprintf(how, sizeof(how), "ended after a CUDA error left its context unusable");
	else
		snprintf(how, sizeof(how), "exited with exit code %d",
				 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	close(cuda_sock);
	cuda_sock = -1;
	SpinLockAcquire(&service->mutex);
	service->generation++;
	service->cuda_pid = 0;
	service->sessions = 0;
	service->pages_mapped = false;
	service->state = SERVICE_RECOVERING;
	strlcpy(service->detail, "the GPU service is starting its CUDA process again",
			sizeof(service->detail));
	service->resets++;
	SpinLockRelease(&service->mutex);
	refuse_queue("the GPU service's CUDA process ended");
	ereport(LOG,
			(errmsg("gpuagg service: the CUDA process (PID %d) %s", (int) cuda_pid, how),
			 errdetail("Queries on the GPU fail over to the CPU device; a new CUDA process starts.")));
	cuda_pid = 0;
	map_requested = false;

	if (TimestampDifferenceExceeds(cuda_started, now, 10000))
		quick_ends = 0;
	pause_ms = quick_ends < 3 ? 0 : Min(1000 << Min(quick_ends - 3, 5), 30000);
	quick_ends++;
	next_start = TimestampTzPlusMilliseconds(now, pause_ms);
}

/* What the CUDA process says. */
static void
cuda_message(const CpMsg *m)
{
	switch (m->kind)
	{
		case CP_READY:
			{
				StringInfoData names;
				uint64		bytes[GA_ENGINE_MAX_GPUS];
				int			n = Min(m->ngpus, GA_ENGINE_MAX_GPUS);

				SpinLockAcquire(&service->mutex);
				memcpy(service->device, m->device, sizeof(GaEngineDevice) * n);
				service->ngpus = n;
				SpinLockRelease(&service->mutex);
				for (int g = 0; g < n; g++)
					bytes[g] = m->device[g].total_bytes;
				GpuaggLedgerSetDevices(n, bytes);
				initStringInfo(&names);
				if (n > 1)
					appendStringInfo(&names, "%d GPUs: ", n);
				for (int g = 0; g < n; g++)
					appendStringInfo(&names, "%s%s", g ? ", " : "", m->device[g].name);
				set_state(SERVICE_READY, names.data);
				for (int g = 0; g < n; g++)
					ereport(LOG,
							(errmsg("gpuagg service: ready on GPU %d, %s (%.0f MB)", g,
									m->device[g].name,
									m->device[g].total_bytes / (1024.0 * 1024.0))));
				break;
			}
		case CP_NO_GPU:
			set_state(SERVICE_NO_GPU, m->text);
			break;
		case CP_PAGES:
			map_requested = false;
			SpinLockAcquire(&service->mutex);
			service->pages_mapped = m->count != 0;
			SpinLockRelease(&service->mutex);
			if (m->count)
				ereport(LOG,
						(errmsg("gpuagg service: shared buffers (%.0f MB) mapped for the GPU in %.0f ms",
								(double) NBuffers * BLCKSZ / (1024.0 * 1024.0), m->ms)));
			else
				ereport(LOG,
						(errmsg("gpuagg service: shared buffers could not be mapped for the GPU: %s",
								m->text),
						 errdetail("GPU queries use column batches (the backends deform the tuples)."),
						 errhint("Page batches need all of shared_buffers page-locked for the GPU; gpuagg.page_batches = off in the server's configuration stops the attempt.")));
			break;
		case CP_FREE:
			SpinLockAcquire(&service->mutex);
			for (int g = 0; g < Min(m->ngpus, GA_ENGINE_MAX_GPUS); g++)
				if (m->free_bytes[g] != PG_UINT64_MAX)
					service->free_bytes[g] = m->free_bytes[g];
			SpinLockRelease(&service->mutex);
			break;
		case CP_SESSIONS:
			SpinLockAcquire(&service->mutex);
			service->sessions = m->count;
			SpinLockRelease(&service->mutex);
			break;
		case CP_LOG:
			ereport(LOG, (errmsg("gpuagg service: %s", m->text)));
			break;
	}
}

/* Read what the CUDA process sent; false when its socket closed. */
static bool
read_cuda_messages(void)
{
	for (;;)
	{
		CpMsg		m;
		ssize_t		n = recv(cuda_sock, &m, sizeof(m), MSG_DONTWAIT);

		if (n == sizeof(m))
			cuda_message(&m);
		else if (n == 0)
			return false;
		else if (n < 0 && errno == EINTR)
			continue;
		else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return true;
		else if (n < 0)
			return false;
		/* a short packet cannot come from our process: ignore it */
	}
}

/* Send a message to the CUDA process; false if it cannot take it. */
static bool
send_cuda(CpMsg *m)
{
	return cuda_sock >= 0 && send(cuda_sock, m, sizeof(CpMsg), MSG_NOSIGNAL) == sizeof(CpMsg);
}

/* Pass the queued queries on to the CUDA process. */
static void
pass_queue(void)
{
	for (;;)
	{
		dsm_handle	h = DSM_HANDLE_INVALID;
		CpMsg		m;

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
		memset(&m, 0, sizeof(m));
		m.kind = CP_SESSION;
		m.handle = h;
		if (!send_cuda(&m))
		{
			dsm_segment *seg = dsm_attach(h);

			if (seg != NULL)
			{
				GpuaggAnswerWithoutThread(dsm_segment_address(seg),
										  "the GPU service could not reach its CUDA process");
				dsm_detach(seg);
			}
		}
	}
}

/*
 * On the way out (SIGTERM, FATAL): the CUDA process stops its threads,
 * whose queries fail over, and is reaped; one that does not end in 35 s
 * (its threads get 30) is killed.
 */
static void
service_stop_cuda(int code, Datum arg)
{
	if (cuda_pid > 0)
	{
		kill(cuda_pid, SIGTERM);
		(void) reap_cuda_process(35000);
		cuda_pid = 0;
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
	service->cuda_pid = 0;
	SpinLockRelease(&service->mutex);
}

void
gpuagg_service_main(Datum arg)
{
	pqsignal(SIGTERM, die);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGINT, SIG_IGN);	/* a query cancel is not for the service */
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	pgstat_report_appname("gpuagg service");

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
	service->cuda_pid = 0;
	SpinLockRelease(&service->mutex);
	on_shmem_exit(service_exit, 0);
	before_shmem_exit(service_stop_cuda, 0);

	/* what can be known without CUDA; the CUDA process does the rest */
	no_gpu_reason = GpuaggCudaMissing(&fatbin_path);

	for (;;)
	{
		int			rc;
		int			events = WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH;
		long		timeout = 1000L;

		if (cuda_pid == 0)
		{
			TimestampTz now = GetCurrentTimestamp();

			if (now >= next_start)
				start_cuda_process();
			else
				timeout = Min(timeout, TimestampDifferenceMilliseconds(now, next_start) + 1);
		}
		if (cuda_sock >= 0)
			events |= WL_SOCKET_READABLE;
		rc = WaitLatchOrSocket(MyLatch, events, cuda_sock, timeout, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}

		/* what the CUDA process said; its end */
		if (cuda_pid > 0 && ((rc & WL_SOCKET_READABLE) == 0 || read_cuda_messages()))
		{
			int			status;

			if (waitpid(cuda_pid, &status, WNOHANG) == cuda_pid)
				cuda_process_ended(status);
		}
		else if (cuda_pid > 0)
			cuda_process_ended(reap_cuda_process(5000));

		if (service->state != SERVICE_READY)
		{
			refuse_queue(service->detail[0] ? service->detail : "the GPU service is starting");
			continue;
		}

		/* gpuagg.page_batches turned on server-wide: map shared buffers */
		if (gpuagg_page_batches && !service->pages_mapped && !map_requested)
		{
			CpMsg		m;

			memset(&m, 0, sizeof(m));
			m.kind = CP_MAP_PAGES;
			map_requested = send_cuda(&m);
		}
		pass_queue();
	}
}

/*---- what backends ask of the service (service.h) ----*/

const char *
GpuaggServiceUnusable(void)
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
			return "the GPU service is starting its CUDA process again";
		default:
			return "the GPU service is not running";
	}
}

bool
GpuaggServicePagesMapped(void)
{
	bool		mapped;

	if (service == NULL)
		return false;
	SpinLockAcquire(&service->mutex);
	mapped = service->state == SERVICE_READY && service->pages_mapped;
	SpinLockRelease(&service->mutex);
	return mapped;
}

bool
GpuaggServiceGone(uint32 generation)
{
	bool		gone;

	SpinLockAcquire(&service->mutex);
	gone = service->pid == 0 || service->generation != generation;
	SpinLockRelease(&service->mutex);
	return gone;
}

bool
GpuaggServiceEnqueue(uint32 handle, ServiceCall *call)
{
	bool		queued = false;
	Latch	   *latch;

	SpinLockAcquire(&service->mutex);
	call->generation = service->generation;
	if (service->pid != 0 && service->nqueued < QUEUE_LEN)
	{
		service->queue[service->nqueued++] = handle;
		queued = true;
	}
	latch = service->latch;
	SpinLockRelease(&service->mutex);
	if (queued && latch)
		SetLatch(latch);
	return queued;
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
	GpuaggCheckColumns(rsinfo->setDesc, 11, "gpuagg.devices()");
	if (!IsUnderPostmaster)
		n = GpuaggCudaDirectGpus(dev, free_bytes);
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

/*
 * The service: pid, state, why, since when, starts, CUDA processes started
 * again, queries, the CUDA process's pid.
 */
Datum
gpuagg_service(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[8];
	bool		nulls[8] = {0};
	ServiceShared snap;

	tupdesc = GpuaggResultRow(fcinfo, 8, "gpuagg.service()");
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
	nulls[7] = snap.pid == 0 || snap.cuda_pid == 0;
	values[7] = Int32GetDatum(snap.cuda_pid);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
