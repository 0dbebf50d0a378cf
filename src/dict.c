/*-------------------------------------------------------------------------
 *
 * dict.c
 *		The per-query string dictionary: text values as int32 codes.
 *
 * Devices never see string bytes.  The batch reader, which already deforms
 * every tuple on the host, looks each string up here and sends its code;
 * equal bytes get equal codes, so grouping, = / <> / IN and count(DISTINCT)
 * work on codes on both devices, and a group's key code is turned back into
 * the string at the end.  This is dictionary encoding as columnar engines
 * use it; it is right under a deterministic collation (the planner checks),
 * where equality is byte equality.
 *
 * bpchar compares without trailing spaces, yet a group shows the first
 * value it saw, spaces and all (as a native hash aggregate does).  So a
 * bpchar value has two codes, that of its trimmed bytes, used for equality,
 * and that of its exact bytes, carried along; devices keep a group's first
 * pair (cuda/gpuagg_abi.h, GA_T_BPCHAR).
 *
 * A simplehash table maps a string to its code; its slots hold a string's
 * first 16 bytes, so short strings are hashed and compared within the slot.
 * Codes index an array of the values, copied once into large chunks.  In
 * front of the table, a direct-mapped cache of short strings per code space
 * answers the common case -- a column of few distinct short values -- with
 * one multiply and one comparison.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "dict.h"
#include "../cuda/gpuagg_page.h"

#define CHUNK_SIZE	(256 * 1024)
#define INLINE_BYTES 16

/*
 * A string as the hash table sees it: length, code space, its first 16
 * bytes inline (zero-padded), so that short strings -- most group keys --
 * are hashed and compared without touching their bytes elsewhere.
 */
typedef struct DictKey
{
	int32		len;
	uint64		w[2];			/* the first INLINE_BYTES bytes */
	const char *data;			/* all the bytes */
} DictKey;

/* A direct-mapped cache entry: a short string (len < 0: empty) and its code. */
typedef struct DictCacheEntry
{
	int32		len;
	uint32		code;
	uint64		w[2];
} DictCacheEntry;

#define CACHE_BITS	12
#define CACHE_SIZE	(1 << CACHE_BITS)

static inline DictCacheEntry *
cache_entry(DictCacheEntry *cache, const DictKey *k)
{
	uint64		h = (k->w[0] * UINT64CONST(0x9e3779b97f4a7c15)) ^
		(k->w[1] * UINT64CONST(0xc2b2ae3d27d4eb4f)) ^ (uint64) k->len;

	return &cache[(h * UINT64CONST(0xff51afd7ed558ccd)) >> (64 - CACHE_BITS)];
}

typedef struct DictSlot
{
	DictKey		key;
	uint32		hash;
	uint32		code;
	char		status;
} DictSlot;

static inline uint64
mix64(uint64 h)
{
	h ^= h >> 33;
	h *= UINT64CONST(0xff51afd7ed558ccd);
	h ^= h >> 33;
	return h;
}

/* Hash of a string, eight bytes at a time. */
static inline uint32
dict_key_hash(const DictKey *k)
{
	uint64		h = (uint64) k->len * UINT64CONST(0x9e3779b97f4a7c15);
	const char *p = k->data + INLINE_BYTES;
	int32		len = k->len - INLINE_BYTES;

	h = mix64((h ^ k->w[0]) * UINT64CONST(0xbf58476d1ce4e5b9));
	h = (h ^ k->w[1]) * UINT64CONST(0x94d049bb133111eb);
	for (; len >= 8; p += 8, len -= 8)
	{
		uint64		w;

		memcpy(&w, p, 8);
		h = mix64(h ^ w) * UINT64CONST(0xbf58476d1ce4e5b9);
	}
	if (len > 0)
	{
		uint64		w = 0;

		memcpy(&w, p, len);
		h = (h ^ w) * UINT64CONST(0x94d049bb133111eb);
	}
	return (uint32) mix64(h);
}

static inline bool
dict_key_equal(const DictKey *a, const DictKey *b)
{
	return a->len == b->len &&
		a->w[0] == b->w[0] && a->w[1] == b->w[1] &&
		(a->len <= INLINE_BYTES ||
		 memcmp(a->data + INLINE_BYTES, b->data + INLINE_BYTES,
				a->len - INLINE_BYTES) == 0);
}

#define SH_PREFIX		dictslot
#define SH_ELEMENT_TYPE DictSlot
#define SH_KEY_TYPE		DictKey
#define SH_KEY			key
#define SH_HASH_KEY(tb, k) dict_key_hash(&(k))
#define SH_EQUAL(tb, a, b) dict_key_equal(&(a), &(b))
#define SH_STORE_HASH
#define SH_GET_HASH(tb, a) ((a)->hash)
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

struct GpuaggDict
{
	MemoryContext cxt;
	dictslot_hash *table;
	Datum	   *values;			/* by code: a copy of the value */
	uint32		nvalues;
	uint32		capacity;
	char	   *chunk;			/* where the next copy goes */
	Size		chunk_left;
	DictCacheEntry *cache;		/* [CACHE_SIZE] */
	bool		sealed;			/* a device's strings appended: no more codes */
	/* ... or some of them only (GpuaggDictLoadSome): codes [first, end) */
	uint32		sparse_first;
	uint32		sparse_end;
	uint32		nsparse;
	uint32	   *sparse_codes;	/* sorted */
	Datum	   *sparse_values;
};

GpuaggDict *
GpuaggDictCreate(MemoryContext cxt)
{
	GpuaggDict *d = MemoryContextAllocZero(cxt, sizeof(GpuaggDict));

	d->cxt = cxt;
	d->capacity = 1024;
	d->values = MemoryContextAlloc(cxt, sizeof(Datum) * d->capacity);
	d->table = dictslot_create(cxt, 1024, d);
	d->cache = MemoryContextAlloc(cxt, sizeof(DictCacheEntry) * CACHE_SIZE);
	for (int j = 0; j < CACHE_SIZE; j++)
		d->cache[j].len = -1;
	return d;
}

/*
 * A copy of a varlena, MAXALIGNed, from the current chunk (bpchar values
 * keep their trailing spaces here: this is the value a group shows).
 */
static char *
dict_copy_space(GpuaggDict *d, Size len)
{
	char	   *p;

	len = MAXALIGN(len);
	if (len > CHUNK_SIZE / 4)
		return MemoryContextAllocHuge(d->cxt, len);
	if (d->chunk_left < len)
	{
		d->chunk = MemoryContextAlloc(d->cxt, CHUNK_SIZE);
		d->chunk_left = CHUNK_SIZE;
	}
	p = d->chunk;
	d->chunk += len;
	d->chunk_left -= len;
	return p;
}

static Datum
dict_copy(GpuaggDict *d, struct varlena *v)
{
	Size		size = VARSIZE_ANY(v);
	char	   *copy = dict_copy_space(d, size);

	memcpy(copy, v, size);
	return PointerGetDatum(copy);
}

/* A text value of len bytes at data, copied. */
static Datum
dict_copy_bytes(GpuaggDict *d, const char *data, int32 len)
{
	char	   *copy = dict_copy_space(d, VARHDRSZ + len);

	SET_VARSIZE(copy, VARHDRSZ + len);
	memcpy(VARDATA(copy), data, len);
	return PointerGetDatum(copy);
}

/*
 * The code of len bytes at data; v is the varlena they are of, copied when
 * new, or NULL to copy them.
 */
static uint32
dict_encode(GpuaggDict *d, struct varlena *v, const char *data, int32 len)
{
	DictKey		k;
	DictSlot   *slot;
	DictCacheEntry *ce = NULL;
	bool		found;

	k.len = len;
	k.w[0] = k.w[1] = 0;
	memcpy(k.w, data, Min(len, INLINE_BYTES));
	k.data = data;

	/* a short string seen lately? */
	if (len <= INLINE_BYTES)
	{
		ce = cache_entry(d->cache, &k);
		if (ce->len == len && ce->w[0] == k.w[0] && ce->w[1] == k.w[1])
			return ce->code;
	}

	if (d->sealed)
		elog(ERROR, "gpuagg: a string coded after the device's strings came back");

	/* most strings were seen before: the lighter lookup first */
	slot = dictslot_lookup(d->table, k);
	found = (slot != NULL);
	if (!found)
		slot = dictslot_insert(d->table, k, &found);
	if (!found)
	{
		Datum		copy;

		if (d->nvalues >= (uint32) PG_INT32_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("too many distinct strings for gpuagg")));
		if (d->nvalues == d->capacity)
		{
			d->capacity *= 2;
			d->values = repalloc_huge(d->values, sizeof(Datum) * (Size) d->capacity);
		}
		/* the slot keeps the bytes of a copy, not of the tuple */
		copy = v ? dict_copy(d, v) : dict_copy_bytes(d, data, len);
		slot->key.data = VARDATA_ANY((struct varlena *) DatumGetPointer(copy));
		slot->code = d->nvalues;
		d->values[d->nvalues++] = copy;
	}
	if (ce)
	{
		ce->len = len;
		ce->w[0] = k.w[0];
		ce->w[1] = k.w[1];
		ce->code = slot->code;
	}
	return slot->code;
}

/*
 * The code of a detoasted string, or with trimmed of its bytes without
 * their trailing spaces (a bpchar's equality code: the code of those
 * bytes as a string of their own, which a device coding the bytes the
 * same way finds too).
 */
static uint32
encode_varlena(GpuaggDict *d, struct varlena *v, bool trimmed)
{
	const char *data = VARDATA_ANY(v);
	int32		full = VARSIZE_ANY_EXHDR(v);
	int32		len = trimmed ? (int32) ga_bpchar_len((const uint8_t *) data, full) : full;

	return dict_encode(d, len == full ? v : NULL, data, len);
}

uint32
GpuaggDictEncode(GpuaggDict *d, Datum value)
{
	return (uint32) (GpuaggDictRegister(d, value, false) >> 32);
}

Datum
GpuaggDictValue(GpuaggDict *d, uint32 code)
{
	if (code >= d->sparse_first && code < d->sparse_end)
	{
		uint32		lo = 0,
					hi = d->nsparse;

		while (lo < hi)
		{
			uint32		mid = lo + (hi - lo) / 2;

			if (d->sparse_codes[mid] < code)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == d->nsparse || d->sparse_codes[lo] != code)
			elog(ERROR, "gpuagg: string code %u is not among those the device returned", code);
		return d->sparse_values[lo];
	}
	if (code >= d->nvalues || d->values[code] == (Datum) 0)
		elog(ERROR, "gpuagg: string code %u out of range", code);
	return d->values[code];
}

uint64
GpuaggDictRegister(GpuaggDict *d, Datum value, bool bpchar)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(value);
	struct varlena *v = pg_detoast_datum_packed(raw);	/* once, for both codes */
	uint64		shown = encode_varlena(d, v, false);
	uint64		eq = bpchar ? encode_varlena(d, v, true) : shown;

	if (v != raw)
		pfree(v);
	return shown << 32 | eq;
}

uint32
GpuaggDictAppend(GpuaggDict *d, Datum value)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(value);
	struct varlena *v;

	if (d->sparse_end > 0)
		elog(ERROR, "gpuagg: a string appended after only some of the device's came back");
	v = pg_detoast_datum_packed(raw);
	if (d->nvalues >= (uint32) PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many distinct strings for gpuagg")));
	if (d->nvalues == d->capacity)
	{
		d->capacity = Max(d->capacity * 2, 1024);
		d->values = repalloc_huge(d->values, sizeof(Datum) * (Size) d->capacity);
	}
	d->values[d->nvalues] = dict_copy(d, v);
	if (v != raw)
		pfree(v);
	return d->nvalues++;
}

uint32
GpuaggDictEncodeBytes(GpuaggDict *d, const char *data, int32 len)
{
	return dict_encode(d, NULL, data, len);
}

uint32
GpuaggDictCount(GpuaggDict *d)
{
	return Max(d->nvalues, d->sparse_end);
}

/*
 * The strings so far in code order, for a device's dictionary to start
 * with (gpuagg_page.h): each a uint32 length, its bytes, zeros to a
 * multiple of 4.  NULL when they take more than max bytes.
 */
char *
GpuaggDictSerialize(GpuaggDict *d, Size max, uint32 *bytes)
{
	Size		size = 0;
	char	   *buf;

	if (d->sparse_end > 0)
		elog(ERROR, "gpuagg: only some of the device's strings came back");
	for (uint32 i = 0; i < d->nvalues; i++)
		size += 4 + TYPEALIGN(4, VARSIZE_ANY_EXHDR(DatumGetPointer(d->values[i])));
	if (size > max)
		return NULL;
	buf = palloc0(Max(size, 1));
	size = 0;
	for (uint32 i = 0; i < d->nvalues; i++)
	{
		struct varlena *v = (struct varlena *) DatumGetPointer(d->values[i]);
		uint32		len = VARSIZE_ANY_EXHDR(v);

		memcpy(buf + size, &len, 4);
		memcpy(buf + size + 4, VARDATA_ANY(v), len);
		size += 4 + TYPEALIGN(4, len);
	}
	*bytes = (uint32) size;
	return buf;
}

/*
 * The nseed strings GpuaggDictSerialize laid out in seed, coded in order
 * into an empty dictionary (a CPU device's own, which so gives them the
 * codes the host gave them).
 */
void
GpuaggDictDeserialize(GpuaggDict *d, const char *seed, uint32 nseed)
{
	Size		at = 0;

	for (uint32 i = 0; i < nseed; i++)
	{
		uint32		len;

		memcpy(&len, seed + at, 4);
		if (GpuaggDictEncodeBytes(d, seed + at + 4, (int32) len) != i)
			elog(ERROR, "gpuagg: the host's strings repeat a string");
		at += 4 + TYPEALIGN(4, len);
	}
}

/* A device's n strings from code first on may follow the host's codes. */
static void
load_check(GpuaggDict *d, uint32 first, uint64 n)
{
	if (first != d->nvalues || d->sparse_end > 0)
		elog(ERROR, "gpuagg: the device's strings start at code %u, not %u",
			 first, d->nvalues);
	if (n > (uint64) PG_INT32_MAX - first)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many distinct strings for gpuagg")));
}

/*
 * The strings a device's dictionary added (GaResult): n of them, string i
 * len[i] bytes at bytes + at[i], with codes first, first + 1, ...  They
 * only have to be found by code from now on (the run codes nothing after
 * its device finished), so they are appended, copied into one block, and
 * the dictionary is sealed.
 */
void
GpuaggDictLoad(GpuaggDict *d, uint32 first, uint64 n, const uint32 *len,
			   const uint64 *at, const char *bytes, uint64 nbytes)
{
	Size		total = 0;
	char	   *block;

	load_check(d, first, n);
	for (uint64 i = 0; i < n; i++)
	{
		if (at[i] > nbytes || len[i] > nbytes - at[i] || len[i] > MaxAllocSize - VARHDRSZ)
			elog(ERROR, "gpuagg: the device's string " UINT64_FORMAT " lies outside its bytes", i);
		total += MAXALIGN(VARHDRSZ + (Size) len[i]);
	}
	if (d->nvalues + n > d->capacity)
	{
		d->capacity = d->nvalues + n;
		d->values = repalloc_huge(d->values, sizeof(Datum) * (Size) d->capacity);
	}
	block = MemoryContextAllocHuge(d->cxt, Max(total, 1));
	for (uint64 i = 0; i < n; i++)
	{
		SET_VARSIZE(block, VARHDRSZ + len[i]);
		memcpy(VARDATA(block), bytes + at[i], len[i]);
		d->values[d->nvalues++] = PointerGetDatum(block);
		block += MAXALIGN(VARHDRSZ + (Size) len[i]);
	}
	d->sealed = true;
}

/*
 * ... or some of them (GaResult.strings_selected): of the n strings from
 * code first on, the nsel at indexes sel[j] (sorted), string j len[j]
 * bytes at bytes + at[j].  A code of the others is an error when read.
 */
void
GpuaggDictLoadSome(GpuaggDict *d, uint32 first, uint64 n, uint32 nsel, const uint32 *sel,
				   const uint32 *len, const uint64 *at, const char *bytes, uint64 nbytes)
{
	load_check(d, first, n);
	d->sparse_codes = MemoryContextAlloc(d->cxt, sizeof(uint32) * Max(nsel, 1));
	d->sparse_values = MemoryContextAlloc(d->cxt, sizeof(Datum) * Max(nsel, 1));
	for (uint32 j = 0; j < nsel; j++)
	{
		char	   *v;

		if (sel[j] >= n || (j > 0 && sel[j] <= sel[j - 1]) ||
			at[j] > nbytes || len[j] > nbytes - at[j] || len[j] > MaxAllocSize - VARHDRSZ)
			elog(ERROR, "gpuagg: the device's string %u lies outside its bytes", sel[j]);
		v = MemoryContextAlloc(d->cxt, VARHDRSZ + (Size) len[j]);
		SET_VARSIZE(v, VARHDRSZ + len[j]);
		memcpy(VARDATA(v), bytes + at[j], len[j]);
		d->sparse_codes[j] = first + sel[j];
		d->sparse_values[j] = PointerGetDatum(v);
	}
	d->nsparse = nsel;
	d->sparse_first = first;
	d->sparse_end = first + (uint32) n;
	d->sealed = true;
}
