/*-------------------------------------------------------------------------
 *
 * cuda_process.c
 *		The process that runs CUDA: a child of the GPU service that the
 *		postmaster does not know of.
 *
 * The service (service.c) forks it before any CUDA call.  It creates one
 * CUDA context per GPU (engine.c), maps shared buffers for page-form
 * batches, and serves each query with a thread of its own that makes the
 * engine calls the query's backend writes in its call block (call.h).
 *
 * Why a process of its own: a process the postmaster started that dies by
 * a signal (a segfault in a driver thread, kill -9, the OOM killer) makes
 * the postmaster restart every backend of the server.  This one is the
 * service's child, not the postmaster's: when it dies, the service sees
 * its socket close and reaps it; queries on the GPU fail over to the CPU
 * device, as on any CUDA error, and the service starts a new one.  No
 * session is lost.
 *
 * What makes that safe is what it never touches: no PostgreSQL lock,
 * latch, palloc, elog or shared structure (its two PostgreSQL calls, at its
 * start, empty its copy of the service's exit callbacks and set the title
 * ps shows, both in its own memory).  It sees only
 *   - the query segments, mapped by their names (dsm_impl's names for the
 *     handle; the backend owns the segment and keeps it until the query's
 *     thread is done or gone: a mapping outlives an unlink),
 *   - shared buffers, which the GPU reads (page-locked here; the kernels
 *     never write them),
 *   - its socket pair with the service.
 * A death at any instant leaves no lock held and no shared structure half
 * written.  The service bumps its generation only once the process is
 * reaped (its CUDA contexts are gone with it, so no DMA still reads a page
 * a backend may unpin); the backends waiting on a call see the change and
 * fail over.
 *
 * It ends with _exit() whatever happens: exit() would run the service's
 * atexit and on_proc_exit callbacks, which belong to the service.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "storage/dsm_impl.h"
#include "storage/ipc.h"
#include "utils/ps_status.h"

#include "call.h"
#include "cuda_process.h"
#include "engine.h"

#define MAX_SESSIONS	128

typedef struct CpSession
{
	bool		used;
	ServiceCall *call;
	void	   *addr;			/* the segment as mapped here */
	size_t		size;
	pthread_t	thread;
	int			slot;
} CpSession;

static const CudaProcessArgs *cp;
static int	cp_sock = -1;
static CpSession sessions[MAX_SESSIONS];
static int	nsessions = 0;
static int	done_pipe[2] = {-1, -1};
static int	wake_pipe[2] = {-1, -1};
static volatile sig_atomic_t term_pending = 0;
static volatile int stopping = 0;
static bool pages_mapped = false;

/* A message to the service; lost if the service is gone (then so are we). */
static void
send_msg(CpMsg *m)
{
	(void) send(cp_sock, m, sizeof(CpMsg), MSG_NOSIGNAL);
}

static void
send_text(int kind, int count, const char *text)
{
	CpMsg		m;

	memset(&m, 0, sizeof(m));
	m.kind = kind;
	m.count = count;
	strlcpy(m.text, text, sizeof(m.text));
	send_msg(&m);
}

static void
handle_term(int signo)
{
	int			save_errno = errno;

	term_pending = 1;
	if (write(wake_pipe[1], "t", 1) < 0)
		(void) 0;				/* the pipe is full: we are being woken already */
	errno = save_errno;
}

/*
 * Signals as a plain process: SIGTERM stops it, the service's other
 * handlers (which would touch its latch and flags) are gone.
 */
static void
reset_signals(void)
{
	struct sigaction sa;
	sigset_t	none;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)
	{
		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		sa.sa_handler = SIG_DFL;
		if (sig == SIGHUP || sig == SIGINT || sig == SIGPIPE || sig == SIGUSR1 ||
			sig == SIGUSR2 || sig == SIGALRM || sig == SIGURG)
			sa.sa_handler = SIG_IGN;
		else if (sig == SIGTERM)
			sa.sa_handler = handle_term;
		(void) sigaction(sig, &sa, NULL);
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/*
 * A query's segment, mapped by the name dsm_impl.c gives its handle.  NULL
 * if it is gone (the backend gave up) or smaller than a call block.
 */
static void *
map_segment(uint32 handle, size_t *size)
{
	char		name[64];
	int			fd = -1;
	struct stat st;
	void	   *addr;

	switch (cp->dsm_type)
	{
		case DSM_IMPL_POSIX:
			snprintf(name, sizeof(name), "/PostgreSQL.%u", handle);
			fd = shm_open(name, O_RDWR, 0);
			break;
		case DSM_IMPL_MMAP:
			snprintf(name, sizeof(name), PG_DYNSHMEM_DIR "/" PG_DYNSHMEM_MMAP_FILE_PREFIX "%u",
					 handle);
			fd = open(name, O_RDWR, 0);
			break;
		case DSM_IMPL_SYSV:
			{
				key_t		key = (key_t) handle;
				int			id;
				struct shmid_ds ds;

				if (key < 1)
					key = -key;
				if ((id = shmget(key, 0, 0)) < 0 || shmctl(id, IPC_STAT, &ds) != 0)
					return NULL;
				addr = shmat(id, NULL, 0);
				if (addr == (void *) -1)
					return NULL;
				*size = ds.shm_segsz;
				if (*size < CALL_BYTES)
				{
					shmdt(addr);
					return NULL;
				}
				return addr;
			}
		default:
			return NULL;
	}
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || (size_t) st.st_size < CALL_BYTES)
	{
		close(fd);
		return NULL;
	}
	addr = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (addr == MAP_FAILED)
		return NULL;
	*size = st.st_size;
	return addr;
}

static void
unmap_segment(void *addr, size_t size)
{
	if (cp->dsm_type == DSM_IMPL_SYSV)
		shmdt(addr);
	else
		munmap(addr, size);
}

/* A query's CUDA thread: calls until CLOSE, or until its backend is gone. */
static void *
session_thread(void *arg)
{
	CpSession  *ss = (CpSession *) arg;
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
			call_futex_wait(&c->req_seq, seen, 1000000000L);
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
			GpuaggRunCall(c, &s, host);
		seen = req;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		c->done_seq = req;
		call_futex_wake(&c->done_seq);
		if (op == OP_CLOSE)
			break;
	}
	/* tell the main thread, which unmaps the segment */
	if (write(done_pipe[1], &ss->slot, sizeof(int)) != sizeof(int))
		abort();				/* cannot happen: the pipe holds MAX_SESSIONS ints */
	return NULL;
}

static void
report_sessions(void)
{
	CpMsg		m;

	memset(&m, 0, sizeof(m));
	m.kind = CP_SESSIONS;
	m.count = nsessions;
	send_msg(&m);
}

/* Serve the query whose segment has this handle, with a thread. */
static void
accept_session(uint32 handle)
{
	int			i;
	size_t		size = 0;
	void	   *addr;
	ServiceCall *c;
	sigset_t	all,
				old;

	addr = map_segment(handle, &size);
	if (addr == NULL)
		return;					/* the backend gave up already */
	c = (ServiceCall *) addr;
	for (i = 0; i < MAX_SESSIONS && sessions[i].used; i++)
		;
	if (c->generation != cp->generation || i == MAX_SESSIONS ||
		c->host_off != CALL_BYTES || c->host_off + c->host_bytes > size)
	{
		if (c->generation != cp->generation)
			GpuaggAnswerWithoutThread(c, "queued for an earlier GPU service");
		else if (i == MAX_SESSIONS)
			GpuaggAnswerWithoutThread(c, "the GPU service runs its most queries already");
		else
			GpuaggAnswerWithoutThread(c, "the query's segment is not as its call block says");
		unmap_segment(addr, size);
		return;
	}
	sessions[i].used = true;
	sessions[i].call = c;
	sessions[i].addr = addr;
	sessions[i].size = size;
	sessions[i].slot = i;
	/* signals stay with the main thread */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&sessions[i].thread, NULL, session_thread, &sessions[i]) != 0)
	{
		GpuaggAnswerWithoutThread(c, "the GPU service could not start a thread");
		unmap_segment(addr, size);
		sessions[i].used = false;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (sessions[i].used)
	{
		nsessions++;
		report_sessions();
	}
}

/* Join the threads that are done, and unmap their segments. */
static void
reap_sessions(void)
{
	int			slot;
	int			flags = fcntl(done_pipe[0], F_GETFL);
	bool		any = false;

	fcntl(done_pipe[0], F_SETFL, flags | O_NONBLOCK);
	while (read(done_pipe[0], &slot, sizeof(int)) == sizeof(int))
	{
		pthread_join(sessions[slot].thread, NULL);
		unmap_segment(sessions[slot].addr, sessions[slot].size);
		sessions[slot].used = false;
		nsessions--;
		any = true;
	}
	fcntl(done_pipe[0], F_SETFL, flags);
	if (any)
		report_sessions();
}

/*
 * The end: the threads stop (their calls fail, the queries run on the CPU
 * device) and are joined, then the process leaves.  A thread stuck in the
 * driver for 30 s is left to the exit.
 */
static void
stop_and_exit(int code)
{
	stopping = 1;
	for (int i = 0; i < MAX_SESSIONS; i++)
		if (sessions[i].used)
		{
			if (sessions[i].call->cancel == 0)
				sessions[i].call->cancel = CANCEL_STOP;
			call_futex_wake(&sessions[i].call->req_seq);
		}
	for (int i = 0; i < MAX_SESSIONS; i++)
		if (sessions[i].used)
		{
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 30;
			if (pthread_timedjoin_np(sessions[i].thread, NULL, &ts) != 0)
			{
				send_text(CP_LOG, 0, "a CUDA thread did not stop in 30 s");
				_exit(code ? code : 1);
			}
		}
	_exit(code);
}

/* The driver's own threads start with every signal blocked. */
static bool
engine_init_masked(char *err, size_t errlen)
{
	sigset_t	all,
				old;
	bool		ok;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ok = ga_engine_init(cp->fatbin, err, errlen);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ok;
}

/*
 * Shared buffers into the GPUs' address space, for page-form batches; the
 * address is the same in every process of the server (all forked from the
 * postmaster after it mapped shared memory).  Page-locking makes all of
 * shared_buffers resident.
 */
static void
map_pages(void)
{
	char		err[256];
	double		t0;
	CpMsg		m;

	if (pages_mapped)
		return;
	t0 = GpuaggCallNowMs();
	pages_mapped = ga_engine_register_pages(cp->pages, cp->pages_bytes, cp->blcksz,
											err, sizeof(err));
	memset(&m, 0, sizeof(m));
	m.kind = CP_PAGES;
	m.count = pages_mapped;
	m.ms = GpuaggCallNowMs() - t0;
	if (!pages_mapped)
		strlcpy(m.text, err, sizeof(m.text));
	send_msg(&m);
}

/* What each GPU has free, for gpuagg.devices(). */
static void
report_free_memory(void)
{
	CpMsg		m;

	memset(&m, 0, sizeof(m));
	m.kind = CP_FREE;
	m.ngpus = ga_engine_gpus();
	for (int g = 0; g < m.ngpus; g++)
	{
		uint64		total;

		if (!ga_engine_mem_info(g, &m.free_bytes[g], &total))
			m.free_bytes[g] = PG_UINT64_MAX;	/* not known now */
	}
	send_msg(&m);
}

void
GpuaggCudaProcessMain(int sock, const CudaProcessArgs *args)
{
	char		err[256];
	bool		have_gpu = false;
	time_t		last_mem = 0;

	cp = args;
	cp_sock = sock;
	/*
	 * The service's exit callbacks are not ours: should anything in this
	 * process call exit() after all (a library), PostgreSQL's atexit hook
	 * then finds none to run (process-local lists only).
	 */
	on_exit_reset();
	if (pipe(wake_pipe) != 0 || pipe(done_pipe) != 0)
		_exit(1);
	reset_signals();
	/* the service's death is ours (and one before this line, too) */
	(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != cp->service_pid)
		_exit(0);
	/* the title ps shows (process-local memory only) */
	init_ps_display("gpuagg cuda");

	if (cp->no_gpu)
		send_text(CP_NO_GPU, 0, cp->no_gpu);
	else if (!engine_init_masked(err, sizeof(err)))
		send_text(CP_NO_GPU, 0, err);
	else
	{
		CpMsg		m;

		memset(&m, 0, sizeof(m));
		m.kind = CP_READY;
		m.ngpus = ga_engine_gpus();
		for (int g = 0; g < m.ngpus; g++)
			ga_engine_device(g, &m.device[g]);
		send_msg(&m);
		have_gpu = true;
		report_free_memory();
		if (cp->map_pages)
			map_pages();
	}

	for (;;)
	{
		struct pollfd fds[3];

		fds[0].fd = cp_sock;
		fds[0].events = POLLIN;
		fds[1].fd = done_pipe[0];
		fds[1].events = POLLIN;
		fds[2].fd = wake_pipe[0];
		fds[2].events = POLLIN;
		if (poll(fds, 3, 1000) < 0 && errno != EINTR)
			stop_and_exit(1);
		if (term_pending)
			stop_and_exit(0);
		if (fds[1].revents & POLLIN)
			reap_sessions();
		if (fds[0].revents & (POLLIN | POLLHUP | POLLERR))
		{
			CpMsg		m;
			ssize_t		n = recv(cp_sock, &m, sizeof(m), MSG_DONTWAIT);

			if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
				stop_and_exit(0);	/* the service is gone */
			if (n == sizeof(m) && m.kind == CP_SESSION)
			{
				if (have_gpu)
					accept_session(m.handle);
				else
				{
					size_t		size;
					void	   *addr = map_segment(m.handle, &size);

					if (addr)
					{
						GpuaggAnswerWithoutThread((ServiceCall *) addr,
												  cp->no_gpu ? cp->no_gpu : "no usable GPU");
						unmap_segment(addr, size);
					}
				}
			}
			else if (n == sizeof(m) && m.kind == CP_MAP_PAGES && have_gpu)
				map_pages();
		}

		/*
		 * A sticky error: the context is unusable.  The process ends (its
		 * threads fail their queries over first); the service starts a new
		 * one, with a new context: nothing of the broken one can outlive
		 * the process.
		 */
		if (have_gpu && ga_engine_broken())
		{
			send_text(CP_LOG, 0, "a CUDA error left the context unusable: the CUDA process ends, and a new one starts");
			stop_and_exit(2);
		}

		if (have_gpu && time(NULL) != last_mem)
		{
			report_free_memory();
			last_mem = time(NULL);
		}
	}
}
