/*-------------------------------------------------------------------------
 *
 * ledger.h
 *		The server-wide ledger of GPU memory and the admission queue.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUAGG_LEDGER_H
#define GPUAGG_LEDGER_H

/* Shared memory hooks (gpuagg.c, when gpuagg is in shared_preload_libraries). */
extern void GpuaggLedgerRequest(void);
extern void GpuaggLedgerStartup(void);

/*
 * Reserve bytes of GPU memory for this process's session, waiting in the
 * FIFO admission queue up to gpuagg.admission_timeout when the server-wide
 * gpuagg.device_memory_limit would be passed.  Returns false, with *why,
 * when the reservation cannot fit the limit at all or the wait timed out;
 * *wait_ms gets the time spent queued.  Without the shared ledger (gpuagg
 * not preloaded) every reservation is granted.
 */
extern bool GpuaggLedgerAdmit(uint64 bytes, double *wait_ms, char **why);

/* Grow this process's reservation by bytes, without waiting; false if the
 * limit would be passed. */
extern bool GpuaggLedgerGrow(uint64 bytes);

/* Give back bytes of this process's reservation. */
extern void GpuaggLedgerRelease(uint64 bytes);

/* The ledger now (false without shared memory); limit UINT64_MAX: none. */
extern bool GpuaggLedgerNow(uint64 *limit, uint64 *reserved, int *running,
							int *queued);

/* The memory of the GPU, once a backend has seen it (limit = 75 % of it
 * when gpuagg.device_memory_limit is 0). */
extern void GpuaggLedgerSetDeviceMemory(uint64 bytes);

#endif							/* GPUAGG_LEDGER_H */
