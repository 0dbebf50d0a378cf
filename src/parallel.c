/*-------------------------------------------------------------------------
 *
 * parallel.c
 *		A parallel GpuAgg: its DSM chunk, and the protocol of a fed plan.
 *
 * The processes of a parallel GpuAgg share one parallel heap scan (a block
 * counter in the DSM).  Either each aggregates its blocks on its own device
 * session and returns partial states to Gather, or -- a fed GpuAgg
 * (GpuaggPlanInfo.feed) -- the workers only pin their blocks' pages for
 * the leader's session, which aggregates every group once.  The DSM chunk
 * holds the parallel scan state, a slot of EXPLAIN ANALYZE counters per
 * process, a fed GpuAgg's GpuaggFeed with a buffer per worker, and the
 * state of a partial GpuAgg's mapped keys (GpuaggMapCache: its table and
 * chunks in the query's DSA area).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/tableam.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "port/pg_bitutils.h"
#include "storage/condition_variable.h"
#include "storage/spin.h"

#include "exec.h"

/*
 * A fed GpuAgg (GpuaggPlanInfo.feed): each worker pins its share of the
 * parallel scan's pages and puts the batch's page lists in its buffer (one
 * batch at a time); the leader copies them into its device's buffer, sends
 * them, and counts a worker's batch consumed once the device is done with
 * its pages (its next add_batch, or finish, returned) -- only then does
 * the worker unpin them.  The leader's device thus aggregates every group
 * once, while the pinning is shared.
 *
 * A join's tables the device scans itself (GaDimDesc.scan) come first,
 * each in a phase of its own that the leader starts (GpuaggFeedPhase): the
 * workers pin their shares of a parallel scan of it (its state in the DSM
 * too) the same way, until each has put its last batch (dim_done); the
 * leader then reads the blocks none took (a worker that could not read
 * it), ends the table (its hash table is made) and starts the next phase,
 * the scanned table's last (FEED_TABLE).  So the pinning of a large joined
 * table (TPC-H Q4's lineitem) is shared too.
 *
 * A leader that cannot go on (its device failed, a string sent the scan
 * back, or it takes no page form) sets stop, closes its session -- after
 * which its device reads no page -- and sets drained; the workers unpin and
 * return nothing, and the leader reads the whole table again by itself.
 * The groups are emitted by the leader only, after every worker is at eof.
 */
typedef struct GpuaggFeeder
{
	uint64		published;		/* batches put in its buffer */
	uint64		taken;			/* of them, copied by the leader */
	uint64		consumed;		/* of them, done with by the leader's device */
	int			nrows;			/* the buffer's batch */
	int			npages;
	int			phase;			/* ... of this phase (its table) */
	int			dim_done;		/* the last joined table's phase it has put
								 * all its batches of */
	bool		eof;			/* no more batches */
} GpuaggFeeder;

/* GpuaggFeed.phase: 0 before the leader says, d + 1 joined table d's pages */
#define FEED_TABLE		(GA_MAX_DIMS + 1)	/* the scanned table's */

typedef struct GpuaggFeed
{
	slock_t		mutex;
	ConditionVariable cv;
	int			phase;			/* what the workers pin now */
	bool		stop;			/* the leader takes no more batches */
	bool		drained;		/* ... and its device reads no page any more */
	bool		leaderless;		/* parallel_leader_participation was off when
								 * the plan ran: worker 0 reads the whole
								 * table and returns the groups */
	int			nfeeders;
	Size		refs_bytes;		/* of a worker's buffer */
	GpuaggFeeder feeder[FLEXIBLE_ARRAY_MEMBER];
	/* then a buffer per worker */
} GpuaggFeed;

#define FEED_BUFFERS_OFF(n) \
	TYPEALIGN(16, offsetof(GpuaggFeed, feeder) + sizeof(GpuaggFeeder) * (n))

static GpuaggFeed *feed_of(GpuAggState *st);
static void map_cache_create(GpuAggState *st, int nworkers);
static char *feed_buffer(GpuaggFeed *f, int k);

/* Is there no leader to feed (worker 0 then reads the whole table)? */
bool
GpuaggFeedLeaderless(GpuAggState *st)
{
	GpuaggFeed *f = feed_of(st);

	return f != NULL && f->leaderless;
}

/*
 * The run of a parallel worker is done and its groups may go out: its
 * counters go to its slot for the leader's EXPLAIN ANALYZE.
 */
void
GpuaggShareCounters(GpuAggState *st)
{
	if (st->shared && IsParallelWorker() && ParallelWorkerNumber < st->shared->nslots)
		st->shared->slot[ParallelWorkerNumber] = st->counters;
}

/* Wait, checking for interrupts, until cond (read under the feed's lock). */
#define FEED_WAIT(f, cond) \
	do { \
		for (;;) \
		{ \
			bool		ok_; \
			SpinLockAcquire(&(f)->mutex); \
			ok_ = (cond); \
			SpinLockRelease(&(f)->mutex); \
			if (ok_) \
				break; \
			ConditionVariableTimedSleep(&(f)->cv, 100, PG_WAIT_EXTENSION); \
		} \
		ConditionVariableCancelSleep(); \
	} while (0)

/*
 * A worker's batches of one phase from reader, each put in its buffer once
 * the leader took the one before; false where the leader stopped.  The
 * pages of its last batch stay pinned (the caller's wait).
 */
static bool
feed_batches(GpuAggState *st, GpuaggFeed *f, GpuaggFeeder *fd, GpuaggBatchReader *reader,
			 int phase)
{
	const GaBatch *batch;
	uint64		bytes;
	instr_time	t0;

	/* (no page form here: then no blocks either, the others take them) */
	while (GpuaggBatchMaxPages(reader) > 0)
	{
		/* its buffer free (the leader took the batch in it), or no more */
		INSTR_TIME_SET_CURRENT(t0);
		FEED_WAIT(f, fd->taken == fd->published || f->stop);
		st->counters.wait_ms += GpuaggMsSince(t0);
		if (f->stop)
			return false;
		INSTR_TIME_SET_CURRENT(t0);
		batch = GpuaggBatchNext(reader, feed_buffer(f, ParallelWorkerNumber), &bytes);
		st->counters.scan_ms += GpuaggMsSince(t0);
		if (batch == NULL)
			break;
		SpinLockAcquire(&f->mutex);
		fd->nrows = batch->nrows;
		fd->npages = batch->npages;
		fd->phase = phase;
		fd->published++;
		SpinLockRelease(&f->mutex);
		ConditionVariableBroadcast(&f->cv);

		/* its previous batch's pages, once the device is done with them, go */
		INSTR_TIME_SET_CURRENT(t0);
		FEED_WAIT(f, fd->consumed + 1 >= fd->published || f->stop);
		st->counters.wait_ms += GpuaggMsSince(t0);
		if (f->stop)
			return false;
		GpuaggBatchSent(reader);
	}
	return true;
}

/*
 * A worker's share of joined table d (phase d + 1): its batches, then,
 * once the leader's device is done with their pages, unpinned; false
 * where the leader stopped.
 */
static bool
feed_joined_table(GpuAggState *st, GpuaggFeed *f, GpuaggFeeder *fd, int d)
{
	GpuaggBatchReader *reader;
	bool		going = true;

	/* (without its share of a parallel scan, a worker would read it all) */
	if (st->dimscans[d] == NULL)
		elog(ERROR, "gpuagg: a parallel worker has no parallel scan of joined table %d", d);
	reader = GpuaggJoinScanReader(st->join, d, st->prog, st->css.ss.ps.state->es_snapshot,
								  st->plan->batch_rows, st->dict,
								  st->css.ss.ps.ps_ExprContext, st->dimscans[d]);
	if (reader)
		going = feed_batches(st, f, fd, reader, d + 1);
	SpinLockAcquire(&f->mutex);
	fd->dim_done = d + 1;
	SpinLockRelease(&f->mutex);
	ConditionVariableBroadcast(&f->cv);
	if (reader)
	{
		FEED_WAIT(f, fd->consumed >= fd->published || f->drained);
		GpuaggBatchEnd(reader);
	}
	return going && !f->stop;
}

/*
 * A worker of a fed GpuAgg: its share of the parallel scan's pages pinned,
 * a batch at a time, for the leader's device (first of each joined table
 * the device scans, in the leader's phases); returns when the leader's
 * device is done with all of them (and they are unpinned).
 */
void
GpuaggFeedPages(GpuAggState *st)
{
	GpuaggFeed *f = feed_of(st);
	int			me = ParallelWorkerNumber;
	GpuaggFeeder *fd;
	GpuaggBatchReader *reader;
	bool		going = true;

	if (f == NULL || me < 0 || me >= f->nfeeders)
		elog(ERROR, "gpuagg: a parallel worker of a fed GpuAgg has no feed");
	fd = &f->feeder[me];
	/* no leader to feed: worker 0 reads the whole table (run_aggregation) */
	if (f->leaderless)
		return;
	for (;;)
	{
		int			phase;

		FEED_WAIT(f, f->phase > fd->dim_done || f->stop);
		SpinLockAcquire(&f->mutex);
		phase = f->phase;
		SpinLockRelease(&f->mutex);
		if (f->stop || phase == FEED_TABLE)
			break;
		if (!feed_joined_table(st, f, fd, phase - 1))
			break;
	}
	going = !f->stop;
	reader = GpuaggBatchBegin(st->rels, st->nrels,
							  st->remap_from,
							  st->css.ss.ps.state->es_snapshot,
							  st->pscans, st->blocklogs, st->prog, st->plan->batch_rows,
							  st->dict, true, NULL);
	if (going)
		(void) feed_batches(st, f, fd, reader, FEED_TABLE);
	SpinLockAcquire(&f->mutex);
	fd->eof = true;
	SpinLockRelease(&f->mutex);
	ConditionVariableBroadcast(&f->cv);
	/* every page the leader's device may still read stays pinned till then */
	FEED_WAIT(f, fd->consumed >= fd->published || f->drained);
	GpuaggCountPages(st, reader);
	GpuaggBatchEnd(reader);
}

/*
 * The leader: the workers pin joined table d's pages now (d + 1), or the
 * scanned table's (-1).
 */
void
GpuaggFeedPhase(GpuAggState *st, int d)
{
	GpuaggFeed *f = feed_of(st);

	if (f == NULL)
		return;
	SpinLockAcquire(&f->mutex);
	f->phase = d < 0 ? FEED_TABLE : d + 1;
	SpinLockRelease(&f->mutex);
	ConditionVariableBroadcast(&f->cv);
}

/* The leader's device is done with the pages of worker k's oldest batch. */
void
GpuaggFeedConsumed(GpuAggState *st, int k)
{
	GpuaggFeed *f = feed_of(st);

	if (k < 0)
		return;
	SpinLockAcquire(&f->mutex);
	f->feeder[k].consumed++;
	SpinLockRelease(&f->mutex);
	ConditionVariableBroadcast(&f->cv);
}

/*
 * The leader takes no more batches and its device reads no page (its
 * session is closed, finished, or never opened): the workers stop and
 * unpin everything.
 */
void
GpuaggFeedStop(GpuAggState *st)
{
	GpuaggFeed *f = feed_of(st);

	if (f == NULL)
		return;
	SpinLockAcquire(&f->mutex);
	f->stop = true;
	f->drained = true;
	SpinLockRelease(&f->mutex);
	ConditionVariableBroadcast(&f->cv);
}

/*
 * A fed run that does not go on: the workers stop and unpin, and the leader
 * reads the whole table itself from now on (the blocks its workers took
 * are theirs).
 */
void
GpuaggFeedGiveUp(GpuAggState *st)
{
	st->feed_failed = true;
	GpuaggFeedStop(st);
}

/*
 * The leader's next batch from its workers in the current phase (of joined
 * table d, or of the scanned table where d < 0; reader lays it out), made
 * in buf (*from: whose), or NULL once every worker is past it with nothing
 * left.  A worker that stopped before eof either never fed (it counts as
 * at eof) or left pages the device may have read unpinned: an ERROR (its
 * own ERROR, if it had one, comes first, with the interrupts the wait
 * checks).
 */
const GaBatch *
GpuaggTakeFedBatch(GpuAggState *st, GpuaggBatchReader *reader, char *buf, uint64 *bytes,
				   int *from, int d)
{
	GpuaggFeed *f = feed_of(st);
	int			n = Min(f->nfeeders, st->pcxt->nworkers_launched);
	int			phase = d < 0 ? FEED_TABLE : d + 1;
	const GaBatch *batch = NULL;

	for (;;)
	{
		int			k = -1,
					nrows = 0,
					npages = 0;
		bool		all_eof = true;

		SpinLockAcquire(&f->mutex);
		for (int i = 0; i < n && k < 0; i++)
		{
			int			j = (st->feed_next + i) % n;
			GpuaggFeeder *fd = &f->feeder[j];

			if (fd->published > fd->taken)
			{
				k = j;
				nrows = fd->nrows;
				npages = fd->npages;
				if (fd->phase != phase)
				{
					k = -2;
					break;
				}
			}
			else if (!fd->eof && (phase == FEED_TABLE || fd->dim_done < phase))
				all_eof = false;
		}
		SpinLockRelease(&f->mutex);
		if (k == -2)
			elog(ERROR, "gpuagg: a parallel worker fed pages of another table than the leader reads");
		if (k >= 0)
		{
			batch = GpuaggBatchFromFeed(reader, buf, feed_buffer(f, k), nrows, npages, bytes);
			SpinLockAcquire(&f->mutex);
			f->feeder[k].taken++;
			SpinLockRelease(&f->mutex);
			ConditionVariableBroadcast(&f->cv);
			st->feed_next = k + 1;
			*from = k;
			break;
		}
		if (all_eof)
			break;
		/* a worker's ERROR first, before one that stopped counts as done */
		CHECK_FOR_INTERRUPTS();
		for (int j = 0; j < n; j++)
		{
			pid_t		pid;
			bool		gone;

			if (st->pcxt->worker[j].bgwhandle == NULL ||
				GetBackgroundWorkerPid(st->pcxt->worker[j].bgwhandle, &pid) != BGWH_STOPPED)
				continue;
			SpinLockAcquire(&f->mutex);
			gone = !f->feeder[j].eof;
			if (gone && f->feeder[j].published == 0)
			{
				f->feeder[j].eof = true;
				gone = false;
			}
			SpinLockRelease(&f->mutex);
			if (gone)
				ereport(ERROR,
						(errcode(ERRCODE_INTERNAL_ERROR),
						 errmsg("gpuagg: parallel worker %d stopped while it fed pages", j)));
		}
		ConditionVariableTimedSleep(&f->cv, 10, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();
	return batch;
}

/*
 * Parallel GpuAgg: the processes share one parallel heap scan (a block
 * counter in the DSM); each aggregates its blocks on its own device session
 * and returns partial states to Gather.
 */
/*
 * The DSM chunk: where the counters start and where each relation's
 * parallel scan state lies (Sizes from the chunk's start), then those of
 * the joined tables a fed GpuAgg's device scans (0: none), those states,
 * the workers' counters.
 */
#define DSM_HEADER(nrels)	MAXALIGN(sizeof(Size) * (1 + (nrels) + GA_MAX_DIMS))

/* The joined table d whose pages a fed GpuAgg's workers pin, or NULL. */
static Relation
fed_dim_rel(GpuAggState *st, int d)
{
	return st->plan->feed ? GpuaggJoinScanRel(st->join, d) : NULL;
}

/* Bytes of the header and the parallel scan states. */
static Size
scans_bytes(GpuAggState *st)
{
	Snapshot	snapshot = st->css.ss.ps.state->es_snapshot;
	Size		size = DSM_HEADER(st->nrels);

	for (int i = 0; i < st->nrels; i++)
		size += MAXALIGN(table_parallelscan_estimate(st->rels[i], snapshot));
	for (int d = 0; d < GA_MAX_DIMS; d++)
		if (fed_dim_rel(st, d))
			size += MAXALIGN(table_parallelscan_estimate(fed_dim_rel(st, d), snapshot));
	return size;
}

/* This process's pointers to the scan states. */
static void
attach_scans(GpuAggState *st, void *coordinate)
{
	Size	   *offs = (Size *) coordinate + 1;

	st->pscans = MemoryContextAlloc(st->css.ss.ps.state->es_query_cxt,
									sizeof(ParallelTableScanDesc) * st->nrels);
	for (int i = 0; i < st->nrels; i++)
		st->pscans[i] = (ParallelTableScanDesc) ((char *) coordinate + offs[i]);
	for (int d = 0; d < GA_MAX_DIMS; d++)
		st->dimscans[d] = offs[st->nrels + d] == 0 ? NULL :
			(ParallelTableScanDesc) ((char *) coordinate + offs[st->nrels + d]);
	st->shared = (GpuaggSharedCounters *) ((char *) coordinate + *(Size *) coordinate);
}

static Size
counters_bytes(int nworkers)
{
	return MAXALIGN(offsetof(GpuaggSharedCounters, slot) +
					sizeof(GpuaggCounters) * Max(nworkers, 1));
}

/* A fed GpuAgg's worker's buffer: the page lists of any table it feeds. */
static Size
feed_refs_bytes(GpuAggState *st)
{
	Size		size = GpuaggBatchFeedBytes(&st->prog->ga);

	for (int d = 0; d < GA_MAX_DIMS; d++)
	{
		double		rows;

		if (fed_dim_rel(st, d))
			size = Max(size, GpuaggBatchFeedBytes(GpuaggJoinScanProgram(st->join, d, &rows)));
	}
	return TYPEALIGN(16, size);
}

/* A fed GpuAgg's state and workers' buffers. */
static Size
feed_bytes(GpuAggState *st, int nworkers)
{
	if (!st->plan->feed)
		return 0;
	return FEED_BUFFERS_OFF(nworkers) + feed_refs_bytes(st) * nworkers + 16;
}

Size
GpuaggEstimateDSM(CustomScanState *node, ParallelContext *pcxt)
{
	GpuAggState *st = (GpuAggState *) node;

	return scans_bytes(st) + counters_bytes(pcxt->nworkers) + feed_bytes(st, pcxt->nworkers);
}

static GpuaggFeed *
feed_of(GpuAggState *st)
{
	if (st->shared == NULL || st->shared->feed_off == 0)
		return NULL;
	return (GpuaggFeed *) ((char *) st->shared + st->shared->feed_off);
}

static char *
feed_buffer(GpuaggFeed *f, int k)
{
	return (char *) TYPEALIGN(16, (char *) f + FEED_BUFFERS_OFF(f->nfeeders)) +
		(Size) k * f->refs_bytes;
}

/* A fresh feed, nobody fed yet (the counters are reset with it). */
static void
feed_reset(GpuAggState *st, int nworkers)
{
	GpuaggFeed *f;

	memset(st->shared, 0, counters_bytes(nworkers));
	st->shared->nslots = nworkers;
	if (!st->plan->feed)
		return;
	st->shared->feed_off = counters_bytes(nworkers);
	f = feed_of(st);
	memset(f, 0, offsetof(GpuaggFeed, feeder) + sizeof(GpuaggFeeder) * nworkers);
	SpinLockInit(&f->mutex);
	ConditionVariableInit(&f->cv);
	f->nfeeders = nworkers;
	f->refs_bytes = feed_refs_bytes(st);
	/* (Gather reads the same setting when it decides to run this node) */
	f->leaderless = !parallel_leader_participation;
}

void
GpuaggInitializeDSM(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	GpuAggState *st = (GpuAggState *) node;
	Size	   *offs = (Size *) coordinate + 1;
	Size		off = DSM_HEADER(st->nrels);

	for (int i = 0; i < st->nrels + GA_MAX_DIMS; i++)
	{
		Relation	rel = i < st->nrels ? st->rels[i] : fed_dim_rel(st, i - st->nrels);

		offs[i] = 0;
		if (rel == NULL)
			continue;
		offs[i] = off;
		table_parallelscan_initialize(rel, (ParallelTableScanDesc) ((char *) coordinate + off),
									  node->ss.ps.state->es_snapshot);
		off += MAXALIGN(table_parallelscan_estimate(rel, node->ss.ps.state->es_snapshot));
	}
	*(Size *) coordinate = off;
	attach_scans(st, coordinate);
	st->pcxt = pcxt;
	feed_reset(st, pcxt->nworkers);
	/* (a fresh parallel context: a cache of an earlier one went with it) */
	st->map_cache = NULL;
	map_cache_create(st, pcxt->nworkers);
}

void
GpuaggReinitializeDSM(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	GpuAggState *st = (GpuAggState *) node;

	for (int i = 0; i < st->nrels; i++)
		table_parallelscan_reinitialize(st->rels[i], st->pscans[i]);
	/* (a joined table the device no longer scans, its join off: none) */
	for (int d = 0; d < GA_MAX_DIMS; d++)
		if (st->dimscans[d] && fed_dim_rel(st, d))
			table_parallelscan_reinitialize(fed_dim_rel(st, d), st->dimscans[d]);
	st->pcxt = pcxt;
	/* a fed GpuAgg starts its feed anew (its workers are new) */
	if (st->plan->feed && st->shared)
		feed_reset(st, pcxt->nworkers);
	if (st->shared)
		map_cache_create(st, pcxt->nworkers);
}

void
GpuaggInitializeWorker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	attach_scans((GpuAggState *) node, coordinate);
}

/* The leader keeps the workers' counters before the DSM goes away. */
void
GpuaggShutdown(CustomScanState *node)
{
	GpuAggState *st = (GpuAggState *) node;
	Size		size;

	if (st->shared == NULL || IsParallelWorker())
		return;
	size = offsetof(GpuaggSharedCounters, slot) + sizeof(GpuaggCounters) * st->shared->nslots;
	st->collected = MemoryContextAlloc(node->ss.ps.state->es_query_cxt, size);
	memcpy(st->collected, st->shared, size);
	st->shared = NULL;
	/* (the DSA area goes with the parallel context: so does the cache) */
	st->map_cache = NULL;
}


/*
 * The mapped keys of a partial GpuAgg (GpuaggRekey).  Where the host maps
 * a group key per distinct string (ClickBench's REGEXP_REPLACE(Referer,
 * ...) over the device's groups by Referer), each process maps the strings
 * of its own groups, and most strings are in the groups of several: at
 * 1e7 rows, 3 processes held 1.43M strings of 0.79M distinct, and at 1e8
 * (8 workers) about 20M of 7.7M, each costing PostgreSQL's regex some
 * 3 us.  A table in the query's DSA area keeps each string's value once a
 * process mapped it, so that the others take it instead.
 *
 * Only inserted into, never changed, and read by every process at once,
 * it takes no lock: a slot holds 0 or the dsa_pointer of an entry (the
 * string's hash, key number, bytes and value), which a process fills in
 * its own chunk of DSA memory and then publishes with a compare-and-swap
 * on the first empty slot of its probe (the swap's barrier makes the
 * entry whole before another process can see it).  A string another
 * process published meanwhile leaves the newer entry unpublished (its
 * bytes go back to the chunk); a probe stops at an empty slot or after
 * MAP_PROBES, where the string is then mapped but not kept.  Its locked
 * alternative, a dshash table allocating each entry in the area, cost
 * more than it saved where the function is cheap: with lower(), 1.5 us a
 * string more than each process mapping its strings itself (3 processes).
 * This one still costs about 1 us a string, mostly its slots and entries
 * out of the CPU's caches, so result.c shares only a key that costs more
 * (REKEY_SHARE_US).
 *
 * The first process to map creates the slots, for its own strings times
 * the processes (each holds about as many), within a quarter of the
 * cache's memory: hash_mem for each
 * process, a Parallel Hash's budget; the chunks take the rest, past which
 * values are mapped but not kept, as they are once a process finds no
 * free slot for one.  A process that finds the slots not yet there maps
 * without them.  (The DSA area's segments are DSM segments: a system short
 * of shared memory fails the query there, as it fails a Parallel Hash.)
 */
#define MAP_PROBES	32
#define MAP_CHUNK	(1024 * 1024)

/* A string and its value, in a process's chunk. */
typedef struct MapEntry
{
	uint64		hash;			/* of the string's bytes and the key */
	uint32		key;			/* the group key's number */
	uint32		len;			/* the string's bytes */
	uint32		vlen;			/* the value's */
	bool		isnull;
	char		bytes[FLEXIBLE_ARRAY_MEMBER];	/* the string's, the value's */
} MapEntry;

/*
 * A slot: its entry, and a tag, the entry's hash's high half with the low
 * bit set, written once the slot is taken, so that a probe passes over
 * another string's slot without reading its entry (a tag still 0: the
 * entry is read).
 */
typedef struct MapSlot
{
	pg_atomic_uint64 entry;		/* a MapEntry, or 0 */
	pg_atomic_uint32 tag;
	uint32		pad;
} MapSlot;

typedef struct MapSlots
{
	uint64		mask;			/* slots - 1, a power of two less one */
	MapSlot		slot[FLEXIBLE_ARRAY_MEMBER];
} MapSlots;

#define MAP_TAG(hash)	((uint32) ((hash) >> 32) | 1)

/* A chunk's head: the next chunk (the leader frees them all). */
typedef struct MapChunk
{
	dsa_pointer next;
} MapChunk;

struct GpuaggMapCache
{
	dsa_area   *area;
	GpuaggSharedCounters *shared;
	MapSlots   *slots;			/* NULL until found */
	uint64		expect;			/* this process's strings */
	dsa_pointer chunk;			/* this process's last chunk */
	Size		used;			/* ... its bytes given */
	Size		size;			/* ... and all of them */
	bool		full;			/* no more chunks: the memory is spent */
	bool		off;			/* no slots: they could not be made */
	bool		crowded;		/* a probe found no free slot: add no more */
	uint64		unkept;			/* values mapped here and not kept, since
								 * last taken */
};

/* The slots and every chunk (the processes that used them are done). */
static void
map_cache_destroy(GpuaggMapCache *cache)
{
	GpuaggSharedCounters *sh = cache->shared;
	dsa_pointer dp = (dsa_pointer) pg_atomic_read_u64(&sh->map_chunks);
	dsa_pointer slots = (dsa_pointer) pg_atomic_read_u64(&sh->map_slots);

	while (DsaPointerIsValid(dp))
	{
		dsa_pointer next = ((MapChunk *) dsa_get_address(cache->area, dp))->next;

		dsa_free(cache->area, dp);
		dp = next;
	}
	if (DsaPointerIsValid(slots))
		dsa_free(cache->area, slots);
	pfree(cache);
}

/* Does the host map a key the cache holds (GpuaggRekeyShareable)? */
static bool
any_shareable(const GpuaggProgram *prog)
{
	for (uint32 k = 0; k < prog->ga.nkeys; k++)
		if (GpuaggRekeyShareable(prog, k))
			return true;
	return false;
}

static GpuaggMapCache *
map_cache_local(dsa_area *area, GpuaggSharedCounters *sh)
{
	GpuaggMapCache *cache = palloc0(sizeof(GpuaggMapCache));

	cache->area = area;
	cache->shared = sh;
	cache->chunk = InvalidDsaPointer;
	return cache;
}

/*
 * A fresh cache for a partial GpuAgg's processes (the leader, before they
 * start), where its host maps string keys.
 */
static void
map_cache_create(GpuAggState *st, int nworkers)
{
	EState	   *estate = st->css.ss.ps.state;
	GpuaggSharedCounters *sh = st->shared;
	MemoryContext old;

	if (st->map_cache != NULL)
	{
		/* a rescan: the last run's workers are gone (the values may differ) */
		map_cache_destroy(st->map_cache);
		st->map_cache = NULL;
	}
	sh->map_on = false;
	pg_atomic_init_u64(&sh->map_slots, InvalidDsaPointer);
	pg_atomic_init_u64(&sh->map_chunks, InvalidDsaPointer);
	pg_atomic_init_u32(&sh->map_creating, 0);
	pg_atomic_init_u64(&sh->map_bytes, 0);
	if (st->plan->feed || estate->es_query_dsa == NULL || nworkers == 0 ||
		!any_shareable(st->prog))
		return;
#ifdef PG_HAVE_ATOMIC_U64_SIMULATION
	/* (zeroed slots are not initialized ones where atomics are spinlocks) */
	return;
#endif
	sh->map_processes = nworkers + 1;
	sh->map_limit = (Size) Min(get_hash_memory_limit() * (double) (nworkers + 1),
							   (double) MaxAllocHugeSize);
	old = MemoryContextSwitchTo(estate->es_query_cxt);
	st->map_cache = map_cache_local(estate->es_query_dsa, sh);
	MemoryContextSwitchTo(old);
	sh->map_on = true;
}

/* (exec.h) A worker makes its own the first time. */
GpuaggMapCache *
GpuaggMapCacheOf(GpuAggState *st)
{
	dsa_area   *area = st->css.ss.ps.state->es_query_dsa;
	MemoryContext old;

	if (!IsParallelWorker())
	{
		/* (alone, the leader shares with nobody) */
		if (st->shared == NULL || st->pcxt == NULL || st->pcxt->nworkers_launched == 0)
			return NULL;
		return st->map_cache;
	}
	if (st->map_cache != NULL)
		return st->map_cache;
	if (st->shared == NULL || !st->shared->map_on || area == NULL)
		return NULL;
	old = MemoryContextSwitchTo(st->css.ss.ps.state->es_query_cxt);
	st->map_cache = map_cache_local(area, st->shared);
	MemoryContextSwitchTo(old);
	return st->map_cache;
}

/* (result.h) */
void
GpuaggMapCacheExpect(GpuaggMapCache *cache, uint64 strings)
{
	cache->expect += strings;
}

/*
 * The slots, once there: the first process to ask creates them, for its
 * strings times the processes, within a quarter of the memory.
 */
static MapSlots *
map_slots(GpuaggMapCache *cache)
{
	GpuaggSharedCounters *sh = cache->shared;
	dsa_pointer dp;
	uint32		expected = 0;
	uint64		n;
	Size		size;

	if (cache->slots != NULL || cache->off)
		return cache->slots;
	dp = (dsa_pointer) pg_atomic_read_u64(&sh->map_slots);
	if (DsaPointerIsValid(dp))
	{
		/* (the barrier: the mask after the pointer) */
		pg_read_barrier();
		cache->slots = dsa_get_address(cache->area, dp);
		return cache->slots;
	}
	if (pg_atomic_read_u32(&sh->map_creating) != 0 ||
		!pg_atomic_compare_exchange_u32(&sh->map_creating, &expected, 1))
	{
		/* another process makes them, or could not */
		cache->off = pg_atomic_read_u32(&sh->map_creating) == 2;
		return NULL;
	}
	n = pg_nextpower2_64(Max(cache->expect * (uint64) sh->map_processes, 1024));
	n = Min(n, pg_prevpower2_64(Max(sh->map_limit / 4 / sizeof(MapSlot), 1024)));
	size = offsetof(MapSlots, slot) + sizeof(MapSlot) * n;
	dp = InvalidDsaPointer;
	if (pg_atomic_add_fetch_u64(&sh->map_bytes, size) <= sh->map_limit)
		dp = dsa_allocate_extended(cache->area, size,
								   DSA_ALLOC_HUGE | DSA_ALLOC_NO_OOM | DSA_ALLOC_ZERO);
	if (!DsaPointerIsValid(dp))
	{
		pg_atomic_sub_fetch_u64(&sh->map_bytes, size);
		pg_atomic_write_u32(&sh->map_creating, 2);
		cache->off = true;
		return NULL;
	}
	cache->slots = dsa_get_address(cache->area, dp);
	cache->slots->mask = n - 1;
	/* (the barrier: the mask before the pointer) */
	pg_write_barrier();
	pg_atomic_write_u64(&sh->map_slots, (uint64) dp);
	return cache->slots;
}

/*
 * Does the slot, taken by entry there, hold key k's string s?  Its tag
 * answers no without the entry where it is written.
 */
static inline bool
map_slot_holds(GpuaggMapCache *cache, MapSlot *slot, dsa_pointer there, uint64 hash, int k,
			   const char *s, uint32 len)
{
	uint32		tag = pg_atomic_read_u32(&slot->tag);
	MapEntry   *e;

	if (tag != 0 && tag != MAP_TAG(hash))
		return false;
	pg_read_barrier();
	e = dsa_get_address(cache->area, there);
	return e->hash == hash && e->key == (uint32) k && e->len == len &&
		memcmp(e->bytes, s, len) == 0;
}

/* (result.h) */
bool
GpuaggMapCacheFind(GpuaggMapCache *cache, int k, const char *s, uint32 len,
				   uint64 *hash, bool *isnull, Datum *out)
{
	MapSlots   *slots = map_slots(cache);

	*hash = hash_bytes_extended((const unsigned char *) s, (int) len, (uint64) k);
	if (slots == NULL)
		return false;
	for (uint64 i = 0; i < MAP_PROBES; i++)
	{
		MapSlot    *slot = &slots->slot[(*hash + i) & slots->mask];
		dsa_pointer dp = (dsa_pointer) pg_atomic_read_u64(&slot->entry);
		MapEntry   *e;
		text	   *t;

		if (!DsaPointerIsValid(dp))
			return false;
		if (!map_slot_holds(cache, slot, dp, *hash, k, s, len))
			continue;
		e = dsa_get_address(cache->area, dp);
		*isnull = e->isnull;
		*out = (Datum) 0;
		if (e->isnull)
			return true;
		t = palloc(VARHDRSZ + e->vlen);
		SET_VARSIZE(t, VARHDRSZ + e->vlen);
		memcpy(VARDATA(t), e->bytes + len, e->vlen);
		*out = PointerGetDatum(t);
		return true;
	}
	return false;
}

/*
 * size bytes of this process's chunk, a new chunk where they do not fit
 * (InvalidDsaPointer past the cache's memory).
 */
static dsa_pointer
map_chunk_alloc(GpuaggMapCache *cache, Size size)
{
	GpuaggSharedCounters *sh = cache->shared;
	dsa_pointer dp;
	MapChunk   *chunk;
	uint64		head;
	Size		csize;

	if (DsaPointerIsValid(cache->chunk) && cache->size - cache->used >= size)
	{
		dp = cache->chunk + cache->used;
		cache->used += size;
		return dp;
	}
	/* (a chunk a process, at least, within a small hash_mem) */
	csize = Min(MAP_CHUNK, sh->map_limit / 4 / sh->map_processes);
	if (cache->full || size > csize / 4)
		return InvalidDsaPointer;	/* (a long string's value is not kept) */
	if (pg_atomic_add_fetch_u64(&sh->map_bytes, csize) > sh->map_limit ||
		!DsaPointerIsValid(dp = dsa_allocate_extended(cache->area, csize, DSA_ALLOC_NO_OOM)))
	{
		pg_atomic_sub_fetch_u64(&sh->map_bytes, csize);
		cache->full = true;
		return InvalidDsaPointer;
	}
	chunk = dsa_get_address(cache->area, dp);
	head = pg_atomic_read_u64(&sh->map_chunks);
	do
		chunk->next = (dsa_pointer) head;
	while (!pg_atomic_compare_exchange_u64(&sh->map_chunks, &head, (uint64) dp));
	cache->chunk = dp;
	cache->size = csize;
	cache->used = MAXALIGN(sizeof(MapChunk)) + size;
	return dp + MAXALIGN(sizeof(MapChunk));
}

/* (result.h) */
void
GpuaggMapCacheAdd(GpuaggMapCache *cache, int k, const char *s, uint32 len, uint64 hash,
				  bool isnull, Datum value)
{
	MapSlots   *slots = map_slots(cache);
	struct varlena *t = NULL;
	const char *vbytes = NULL;
	uint32		vlen = 0;
	Size		size;
	dsa_pointer dp;
	MapEntry   *e;

	if (slots == NULL || cache->crowded)
	{
		cache->unkept++;
		return;
	}
	if (!isnull)
	{
		t = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(value));
		vbytes = VARDATA_ANY(t);
		vlen = VARSIZE_ANY_EXHDR(t);
	}
	size = MAXALIGN(offsetof(MapEntry, bytes) + len + vlen);
	dp = map_chunk_alloc(cache, size);
	if (DsaPointerIsValid(dp))
	{
		e = dsa_get_address(cache->area, dp);
		e->hash = hash;
		e->key = (uint32) k;
		e->len = len;
		e->vlen = vlen;
		e->isnull = isnull;
		memcpy(e->bytes, s, len);
		if (vlen > 0)
			memcpy(e->bytes + len, vbytes, vlen);
	}
	if (t != NULL && t != (struct varlena *) DatumGetPointer(value))
		pfree(t);
	if (!DsaPointerIsValid(dp))
	{
		cache->unkept++;
		return;
	}
	for (uint64 i = 0; i < MAP_PROBES; i++)
	{
		MapSlot    *slot = &slots->slot[(hash + i) & slots->mask];
		uint64		there = pg_atomic_read_u64(&slot->entry);

		/* (a full barrier: the entry is whole before the slot shows it) */
		if (there == 0 && pg_atomic_compare_exchange_u64(&slot->entry, &there, (uint64) dp))
		{
			pg_atomic_write_u32(&slot->tag, MAP_TAG(hash));
			return;
		}
		if (map_slot_holds(cache, slot, (dsa_pointer) there, hash, k, s, len))
		{
			/* another process kept this string's */
			cache->used -= size;
			return;
		}
	}
	/* no free slot near: this process adds no more */
	cache->crowded = true;
	cache->unkept++;
	cache->used -= size;
}

/* (result.h) */
uint64
GpuaggMapCacheTakeUnkept(GpuaggMapCache *cache)
{
	uint64		n = cache ? cache->unkept : 0;

	if (cache)
		cache->unkept = 0;
	return n;
}
