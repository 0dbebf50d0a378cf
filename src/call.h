/*-------------------------------------------------------------------------
 *
 * call.h
 *		The call block: how a backend asks the CUDA process for engine calls.
 *
 * A query that runs on the GPU creates a dynamic shared memory segment
 * whose first CALL_BYTES are a ServiceCall, followed by the engine's host
 * region (the two batch buffers).  Backend and CUDA process (a thread of
 * it per query) talk through the call block alone:
 *
 *		backend: write the call's arguments, req_seq++, futex wake
 *		thread:  futex wait on req_seq, run the call with the engine,
 *				 write the answer, done_seq = req_seq, futex wake
 *		backend: futex wait on done_seq (10 ms at a time, then
 *				 CHECK_FOR_INTERRUPTS and a look at the service's health)
 *
 * A futex on the shared segment is the cheapest wake-up both ways and needs
 * nothing of PostgreSQL on the CUDA side (a latch would).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUAGG_CALL_H
#define GPUAGG_CALL_H

#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"

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
	volatile uint32 no_thread;	/* answered without a thread */
	uint32		generation;		/* of the CUDA process it was queued for */
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
	double		open_ms;		/* OP_OPEN: the engine's set-up of the session */
	double		start_ms;		/* ... and of its device memory (OP_START too) */
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

static inline void
call_futex_wait(volatile uint32 *addr, uint32 val, long timeout_ns)
{
	struct timespec ts;

	ts.tv_sec = timeout_ns / 1000000000L;
	ts.tv_nsec = timeout_ns % 1000000000L;
	(void) syscall(SYS_futex, addr, FUTEX_WAIT, val, &ts, NULL, 0);
}

static inline void
call_futex_wake(volatile uint32 *addr)
{
	(void) syscall(SYS_futex, addr, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/*
 * Milliseconds on the monotonic clock (the CUDA process calls no
 * PostgreSQL function for its timings: its own clock).
 */
static inline double
GpuaggCallNowMs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

/*
 * Run the call written in c on the engine session *sp (opened by OP_OPEN,
 * closed and set to NULL by OP_CLOSE); host is the engine's region.  In a
 * thread of the CUDA process, or in a single-user backend: it calls no
 * PostgreSQL function.
 */
extern void GpuaggRunCall(ServiceCall *c, GaEngineSession **sp, char *host);

/*
 * Answer c's pending call with an error, where no thread will serve it
 * (so the backend sends no CLOSE).
 */
extern void GpuaggAnswerWithoutThread(ServiceCall *c, const char *why);

#endif							/* GPUAGG_CALL_H */
