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
 * Reserve bytes of GPU memory for this process's session on the GPU with
 * the most room (*gpu), waiting in the FIFO admission queue up to
 * gpuagg.admission_timeout when every GPU's gpuagg.device_memory_limit
 * would be passed.  Returns false, with *why, when the reservation cannot
 * fit the limit at all or the wait timed out; *wait_ms gets the time spent
 * queued.  Without the shared ledger (gpuagg not preloaded) every
 * reservation is granted, on GPU 0.
 */
extern bool GpuaggLedgerAdmit(uint64 bytes, int *gpu, double *wait_ms, char **why);

/* gpuagg.vram_budget in bytes, its auto value (-1) resolved. */
extern double GpuaggVramBudget(void);

/* Grow this process's reservation on gpu by bytes, without waiting; false
 * if the GPU's limit would be passed. */
extern bool GpuaggLedgerGrow(int gpu, uint64 bytes);

/* Give back bytes of this process's reservation on gpu. */
extern void GpuaggLedgerRelease(int gpu, uint64 bytes);

/* GPU gpu in the ledger now (false without shared memory); limit
 * UINT64_MAX: none; queued: the server-wide queue. */
extern bool GpuaggLedgerNow(int gpu, uint64 *limit, uint64 *reserved, int *running,
							int *queued);

/* The GPUs and their memory, once the service (or a single-user backend)
 * has seen them (each GPU's limit = 75 % of its memory when
 * gpuagg.device_memory_limit is 0). */
extern void GpuaggLedgerSetDevices(int ngpus, const uint64 *device_bytes);

#endif							/* GPUAGG_LEDGER_H */
