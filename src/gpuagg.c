/*-------------------------------------------------------------------------
 *
 * gpuagg.c
 *		Module entry point and configuration of gpuagg.
 *
 * gpuagg must be loaded through shared_preload_libraries (or
 * session_preload_libraries): the planner hook has to be in place before
 * the first query is planned.  Offload then happens only in databases where
 * CREATE EXTENSION gpuagg was run.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <float.h>

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "utils/builtins.h"
#include "utils/guc.h"

#include "gpuagg.h"
#include "ledger.h"
#include "service.h"

PG_MODULE_MAGIC;

/*---- GUC variables ----*/

bool		gpuagg_enabled = true;
int			gpuagg_device = GPUAGG_DEVICE_AUTO;
int			gpuagg_vram_budget = -1;
bool		gpuagg_force_offload = false;
bool		gpuagg_log_fallback = false;
bool		gpuagg_parallel = true;
int			gpuagg_fed_groups = -1;
int			gpuagg_device_memory_limit = 0;
int			gpuagg_admission_timeout = 10000;
int			gpuagg_batch_size = 16384;
bool		gpuagg_debug_inject_fault = false;
int			gpuagg_debug_fail_batch = 0;
bool		gpuagg_page_batches = true;
bool		gpuagg_device_joins = true;
bool		gpuagg_decorrelate = true;
double		gpuagg_startup_cost = 2000.0;
double		gpuagg_tuple_cost = 0.002;
double		gpuagg_batch_cost = 10.0;

static const struct config_enum_entry device_options[] = {
	{"auto", GPUAGG_DEVICE_AUTO, false},
	{"cuda", GPUAGG_DEVICE_CUDA, false},
	{"cpu", GPUAGG_DEVICE_CPU, false},
	{NULL, 0, false}
};

void		_PG_init(void);

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static void
gpuagg_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	GpuaggLedgerRequest();
	RequestAddinShmemSpace(GpuaggServiceShmemSize());
}

static void
gpuagg_shmem_startup(void)
{
	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	GpuaggLedgerStartup();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	GpuaggServiceShmemInit();
	LWLockRelease(AddinShmemInitLock);
}

/*
 * Module load callback
 */
void
_PG_init(void)
{
	DefineCustomBoolVariable("gpuagg.enabled",
							 "Offloads eligible aggregation queries to GpuAgg.",
							 NULL,
							 &gpuagg_enabled,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomEnumVariable("gpuagg.device",
							 "Device that runs offloaded aggregations.",
							 "auto uses CUDA when a usable GPU is present and "
							 "otherwise keeps native plans; cpu runs GpuAgg on "
							 "the host (reference semantics, for testing).",
							 &gpuagg_device,
							 GPUAGG_DEVICE_AUTO,
							 device_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("gpuagg.vram_budget",
							"Device memory one query may use.",
							"A query whose estimate exceeds this keeps its "
							"native plan.  -1: what one GPU admits "
							"(gpuagg.device_memory_limit), or 8GB where "
							"no GPU is known.",
							&gpuagg_vram_budget,
							-1,
							-1,
							INT_MAX / 2,
							PGC_USERSET,
							GUC_UNIT_MB,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuagg.force_offload",
							 "Offloads every eligible query regardless of cost.",
							 "Developer setting for tests.",
							 &gpuagg_force_offload,
							 false,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuagg.parallel",
							 "Offers parallel GpuAgg plans: partial (each process aggregates a share) and fed (workers pin pages for the leader's one device session).",
							 "A partial GpuAgg under Gather produces partial states that a "
							 "Finalize Aggregate combines; a fed GpuAgg aggregates every group "
							 "once in the leader (page batches only).",
							 &gpuagg_parallel,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("gpuagg.fed_groups",
							"Groups a parallel process would return, above which GpuAgg in page form feeds one device session.",
							"Where each process's share of the table would hold more groups "
							"than this, the workers only pin pages for the leader's device "
							"session, which aggregates every group once; otherwise each "
							"process aggregates its share and a Finalize Aggregate combines "
							"them.  0: always fed; -1: always on CUDA, 100000 on the "
							"CPU device.",
							&gpuagg_fed_groups,
							-1,
							-1, INT_MAX,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("gpuagg.device_memory_limit",
							"GPU memory all offloaded queries together may reserve on one GPU.",
							"0: three quarters of each GPU's memory.  Queries that "
							"would pass it wait (gpuagg.admission_timeout).",
							&gpuagg_device_memory_limit,
							0,
							0,
							INT_MAX,
							PGC_SIGHUP,
							GUC_UNIT_MB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("gpuagg.admission_timeout",
							"How long a query waits for GPU memory before it runs on the CPU device.",
							"A waiting query may keep younger ones waiting "
							"this long, so only a superuser sets it.",
							&gpuagg_admission_timeout,
							10000,
							0,
							INT_MAX,
							PGC_SUSET,
							GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuagg.log_fallback",
							 "Reports why a query was not offloaded as a NOTICE.",
							 "Otherwise the reason goes to DEBUG1.",
							 &gpuagg_log_fallback,
							 false,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("gpuagg.batch_size",
							"Size of one batch of column data sent to the device.",
							NULL,
							&gpuagg_batch_size,
							16384,
							64,
							1024 * 1024,
							PGC_USERSET,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomRealVariable("gpuagg.startup_cost",
							 "Planner's estimate of the cost of starting an offloaded query.",
							 NULL,
							 &gpuagg_startup_cost,
							 2000.0,
							 0.0,
							 DBL_MAX,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("gpuagg.tuple_cost",
							 "Planner's estimate of the cost of moving one row to the device and aggregating it.",
							 NULL,
							 &gpuagg_tuple_cost,
							 0.002,
							 0.0,
							 DBL_MAX,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("gpuagg.batch_cost",
							 "Planner's estimate of the cost of one batch transfer.",
							 NULL,
							 &gpuagg_batch_cost,
							 10.0,
							 0.0,
							 DBL_MAX,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuagg.page_batches",
							 "Sends heap tuples where they lie in shared buffers, for the device to deform.",
							 "On the CPU device, and on CUDA once the GPU service has mapped "
							 "shared buffers, which it does at its start when this is on in the "
							 "server's configuration (the default); otherwise column batches.",
							 &gpuagg_page_batches,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuagg.device_joins",
							 "Joins the tables of an offloaded join on the device.",
							 "Where every joined table is matched on integer keys (and the "
							 "device evaluates its join's other conditions), its rows go to "
							 "the device as a hash table, which each row of the scanned table "
							 "probes, once per row of its key.  Off: the host matches every "
							 "row.",
							 &gpuagg_device_joins,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuagg.decorrelate",
							 "Plans a correlated scalar aggregate subquery also as a join with its groups.",
							 "WHERE x < (SELECT avg(y) FROM t WHERE t.k = outer.k) is planned "
							 "a second time as a join with (SELECT k, avg(y) FROM t GROUP BY k), "
							 "whose aggregation GpuAgg can offload; that plan is kept where it "
							 "holds a GpuAgg and costs less than the original.",
							 &gpuagg_decorrelate,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuagg.debug_inject_fault",
							 "Test only: the GPU kernels of the query read an illegal address.",
							 "The CUDA context becomes unusable; the GPU service starts anew "
							 "and the query runs on the CPU device.",
							 &gpuagg_debug_inject_fault,
							 false,
							 PGC_SUSET,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("gpuagg.debug_fail_batch",
							"Test only: the device fails after taking this many batches (0: never).",
							"Each process's first run of the scan fails after that many "
							"batches (of the table, or of a joined table the device scans), "
							"on any device, and runs again on the CPU device, as after a GPU "
							"failure in the middle of a scan.",
							&gpuagg_debug_fail_batch,
							0,
							0,
							INT_MAX,
							PGC_SUSET,
							GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);

	MarkGUCPrefixReserved("gpuagg");

	RegisterCustomScanMethods(&GpuaggScanMethods);
	GpuaggPlannerInit();

	GpuaggExecInit();

	/*
	 * The GPU memory ledger lives in shared memory, and the GPU service is a
	 * background worker: preloaded only.
	 */
	if (process_shared_preload_libraries_in_progress)
	{
		GpuaggServiceRegister();
		prev_shmem_request_hook = shmem_request_hook;
		shmem_request_hook = gpuagg_shmem_request;
		prev_shmem_startup_hook = shmem_startup_hook;
		shmem_startup_hook = gpuagg_shmem_startup;
	}
}

/*---- SQL-callable functions ----*/

PG_FUNCTION_INFO_V1(gpuagg_library_version);

/*
 * gpuagg.library_version(): the version this library was built as, so that a
 * test can catch a library and catalog of different versions.
 */
Datum
gpuagg_library_version(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(GPUAGG_VERSION));
}

void
GpuaggCheckColumns(TupleDesc tupdesc, int natts, const char *function)
{
	if (tupdesc->natts != natts)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s is declared with %d columns, but the gpuagg library (version %s) returns %d",
						function, tupdesc->natts, GPUAGG_VERSION, natts),
				 errdetail("The extension's SQL objects are of an older version than its library."),
				 errhint("Run ALTER EXTENSION gpuagg UPDATE in this database.")));
}

TupleDesc
GpuaggResultRow(FunctionCallInfo fcinfo, int natts, const char *function)
{
	TupleDesc	tupdesc;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	GpuaggCheckColumns(tupdesc, natts, function);
	return tupdesc;
}
