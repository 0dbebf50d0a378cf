/*-------------------------------------------------------------------------
 *
 * gpuagg_page.h
 *		Deforming a heap tuple where it lies, for the host and for kernels.
 *
 * Plain C, no PostgreSQL headers (like gpuagg_abi.h): the rules of
 * slot_deform_heap_tuple written once, so that the GPU can deform heap
 * tuples from the pages of shared buffers with the code the CPU
 * device runs in every test.  The host describes the relation's attributes
 * up to the last one the program reads (GaAttr: length, alignment, where a
 * fixed-width prefix puts them, which program column reads them, the value
 * of an attribute added after the tuple was written); the deformer walks a
 * tuple's header, null bitmap and attributes and writes the values read at
 * their native width into the batch's columns.
 *
 * Fixed-width values are stored as they lie; a numeric column as an int64
 * in units of 10^-scale (ga_numeric_value).  A string column (text,
 * varchar) is stored as its code in a string dictionary (the `strings'
 * argument): on the GPU the device's own (GaDict, below), on the host a
 * function the caller gives (GaHostStrings).  A value the kernels cannot
 * read -- compressed, or a TOAST pointer -- has no code there: the deformer
 * says so, and the caller reads the scan again on the host.  Varlena and
 * cstring attributes in front of the ones read are stepped over by their
 * length, in either header form, TOAST pointers included.
 *
 * The offsets below are those of HeapTupleHeaderData and the varlena
 * headers on little-endian machines; src/batch.c checks them against
 * PostgreSQL's own at compile time.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUAGG_PAGE_H
#define GPUAGG_PAGE_H

#include <string.h>

#include "gpuagg_abi.h"

#define GA_TUP_INFOMASK2_OFF	18	/* t_infomask2 */
#define GA_TUP_INFOMASK_OFF		20	/* t_infomask */
#define GA_TUP_HOFF_OFF			22	/* t_hoff */
#define GA_TUP_BITS_OFF			23	/* t_bits */
#define GA_TUP_NATTS_MASK		0x07FF	/* HEAP_NATTS_MASK */
#define GA_TUP_HASNULL			0x0001	/* HEAP_HASNULL */
#define GA_PAGE_LINP_OFF		24	/* SizeOfPageHeaderData: the line pointers */
#define GA_LP_OFF_MASK			0x7FFF	/* ItemIdData's lp_off, lp_flags, lp_len */
#define GA_LP_FLAGS_SHIFT		15
#define GA_LP_LEN_SHIFT			17
#define GA_LP_NORMAL			1

/* One attribute of the relation, as the deformer needs it. */
typedef struct GaAttr
{
	int16_t		len;			/* attlen: > 0 fixed, -1 varlena, -2 cstring */
	uint8_t		align;			/* 1, 2, 4 or 8 */
	uint8_t		missing_null;	/* added later without a default */
	int32_t		fixoff;			/* offset when every attribute before it is
								 * fixed-width and not NULL, else -1 */
	int32_t		col;			/* first program column reading it, or -1 */
	GaDatum		missing;		/* its value in tuples written before it */
} GaAttr;

/*
 * The attributes 1 .. natts a program needs, and the columns' chains.  In a
 * page-form batch the attributes follow the struct at GA_LAYOUT_ATTRS_OFF.
 */
#define GA_LAYOUT_ATTRS_OFF	((sizeof(GaTupleLayout) + 15) & ~(size_t) 15)

typedef struct GaTupleLayout
{
	uint32_t	natts;			/* the last attribute read */
	uint32_t	all_fixed;		/* every attribute read has a fixoff */
	uint64_t	strings;		/* bit c: column c is a string's code */
	uint64_t	bpchars;		/* ... and a bpchar's two (GA_T_BPCHAR) */
	uint64_t	numerics;		/* bit c: column c is a numeric, stored as an
								 * int64 in units of 10^-scale[c] */
	uint64_t	dscale_checked; /* ... whose values must have display scale
								 * scale[c] (GaColumn.dscale_checked) */
	uint64_t	dscales;		/* bit c: column c is a numeric's display
								 * scale, as a double (GaColumn.dscale_of) */
	uint64_t	ivparts;		/* bit c: column c is part scale[c] of an
								 * interval (GaColumn.ivpart) */
	int32_t		scale[GA_MAX_COLS];
	int32_t		next_same[GA_MAX_COLS];	/* next column of the same attribute */
	int32_t		width[GA_MAX_COLS];	/* bytes stored per value of a column */
	uint64_t	deferred;		/* bit c: a string column coded only in the
								 * rows the WHERE's instructions up to
								 * defer_end keep (GaDeferred) */
	int32_t		defer_end;
	uint64_t	lengths;		/* bit c: column c is its string's length
								 * (GaColumn.length) ... */
	uint64_t	octets;			/* ... in bytes (GA_LENGTH_OCTETS), or a
								 * prefix column's characters are bytes */
	uint64_t	rtrim;			/* bit c: prefix column c's string is a
								 * bpchar's without trailing spaces */
	int16_t		prefix[GA_MAX_COLS];	/* each column's GaColumn.prefix */
	int16_t		like[GA_MAX_COLS];	/* each column's GaColumn.like */
	uint8_t		likes[GA_LIKE_BYTES];	/* GaProgram.likes */
	const GaAttr *attrs;		/* [natts] */
} GaTupleLayout;

/*
 * String values of a tuple left to code until its row has passed the
 * WHERE, or the quals of the WHERE in front of the first that reads a
 * string (GaTupleLayout.deferred, defer_end): a selective filter over a
 * column of many distinct strings (ClickBench's URL) would otherwise put
 * every one of them in the dictionary.  Coded by ga_put_deferred.
 */
#define GA_MAX_DEFERRED		4

typedef struct GaDeferred
{
	uint32_t	n;
	int32_t		col[GA_MAX_DEFERRED];
	const uint8_t *src[GA_MAX_DEFERRED];
} GaDeferred;

GA_HD uint16_t
ga_read16(const uint8_t *p)
{
	return (uint16_t) (p[0] | (p[1] << 8));
}

GA_HD uint32_t
ga_read32(const uint8_t *p)
{
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8) | ((uint32_t) p[2] << 16) |
		((uint32_t) p[3] << 24);
}

#ifdef __CUDA_ARCH__
#define ga_popcount(x) __popc(x)
#else
#define ga_popcount(x) __builtin_popcount(x)
#endif

/*
 * The tuple line pointer k + 1 of a page points at (*tuplen its bytes), or
 * NULL when it is not a normal line pointer to a tuple inside the page
 * (which the host, having set its bit in the page's visibility bitmap,
 * should never send).
 */
GA_HD const uint8_t *
ga_page_tuple(const uint8_t *page, uint32_t blcksz, uint32_t k, uint32_t *tuplen)
{
	uint32_t	lp;
	uint32_t	off,
				len;

	if (GA_PAGE_LINP_OFF + 4 * (k + 1) > blcksz)
		return NULL;
	lp = ga_read32(page + GA_PAGE_LINP_OFF + 4 * k);
	off = lp & GA_LP_OFF_MASK;
	len = lp >> GA_LP_LEN_SHIFT;
	if (((lp >> GA_LP_FLAGS_SHIFT) & 3) != GA_LP_NORMAL || off < GA_PAGE_LINP_OFF ||
		len < GA_TUP_BITS_OFF || off + len > blcksz)
		return NULL;
	*tuplen = len;
	return page + off;
}

/* The rank of line pointer k + 1 among a page's visible ones (bits below k). */
GA_HD uint32_t
ga_page_rank(const uint32_t *vis, uint32_t k)
{
	uint32_t	n = 0;

	for (uint32_t w = 0; w < (k >> 5); w++)
		n += ga_popcount(vis[w]);
	return n + ga_popcount(vis[k >> 5] & ((1u << (k & 31)) - 1));
}

/* VARSIZE_ANY of a varlena in either header form, TOAST pointers included. */
GA_HD uint32_t
ga_varsize_any(const uint8_t *p)
{
	if ((p[0] & 0x01) == 0)
		return (ga_read32(p) >> 2) & 0x3FFFFFFF;	/* 4-byte header */
	if (p[0] == 0x01)
	{
		/* external: VARHDRSZ_EXTERNAL + the size of its tag's pointer */
		uint8_t		tag = p[1];

		return 2 + (tag == 18 ? 16 : 8);	/* VARTAG_ONDISK, else 8-byte ones */
	}
	return (p[0] >> 1) & 0x7F;	/* 1-byte header */
}

GA_HD uint32_t
ga_align(uint32_t off, uint32_t align)
{
	return (off + align - 1) & ~(align - 1);
}

/*
 * The bytes of a varlena that lies inline and uncompressed (a 1-byte or a
 * 4-byte header); 0 for a compressed value or a TOAST pointer.
 */
GA_HD int
ga_varlena_inline(const uint8_t *p, const uint8_t **data, uint32_t *len)
{
	if (p[0] == 0x01)
		return 0;				/* external: a TOAST pointer */
	if (p[0] & 0x01)
	{
		*data = p + 1;
		*len = ((p[0] >> 1) & 0x7F) - 1;
		return 1;
	}
	if (p[0] & 0x02)
		return 0;				/* compressed inline */
	*data = p + 4;
	*len = ((ga_read32(p) >> 2) & 0x3FFFFFFF) - 4;
	return 1;
}

/*
 * The length of the string at p (GaColumn.length): its bytes, of a value
 * compressed inline or TOASTed too, from the size its header keeps (as
 * toast_raw_datum_size reads it); or its characters, counted as
 * pg_mbstrlen_with_len counts UTF-8 (a lead byte says how many bytes its
 * character takes, a NUL ends the count), of an inline value only.
 * Returns 0 where the host must count (a value not inline, or one whose
 * last character is cut short, which a UTF-8 database never stores).
 */
GA_HD int
ga_varlena_length(const uint8_t *p, int octets, int32_t *out)
{
	const uint8_t *data;
	uint32_t	len,
				i,
				n = 0;

	if (!ga_varlena_inline(p, &data, &len))
	{
		if (!octets)
			return 0;
		if (p[0] == 0x01)
		{
			/* varatt_external's va_rawsize counts the header */
			if (p[1] != 18)
				return 0;		/* not VARTAG_ONDISK: not on a page */
			*out = (int32_t) ga_read32(p + 2) - 4;
			return 1;
		}
		/* compressed inline: va_tcinfo's size bits */
		*out = (int32_t) (ga_read32(p + 4) & 0x3FFFFFFF);
		return 1;
	}
	if (octets)
	{
		*out = (int32_t) len;
		return 1;
	}
	for (i = 0; i < len && data[i] != 0; n++)
	{
		uint32_t	l = (data[i] & 0x80) == 0 ? 1 : (data[i] & 0xE0) == 0xC0 ? 2 :
			(data[i] & 0xF0) == 0xE0 ? 3 : (data[i] & 0xF8) == 0xF0 ? 4 : 1;

		if (l > len - i)
			return 0;			/* a character cut short: PostgreSQL decides */
		i += l;
	}
	*out = (int32_t) n;
	return 1;
}

/*
 * A numeric's bytes (after its varlena header: PostgreSQL's on-disk form,
 * numeric.c's NumericShort or NumericLong header and base-10000 digits) as
 * an int64 holding the value times 10^scale (gpuagg_abi.h, GA_T_NUMERIC).
 * Returns 0 where that is not exact: NaN, an infinity, digits below the
 * scale, or a value past int64; and, with dscale >= 0, a value whose
 * display scale is not dscale.
 */
#define GA_NUMERIC_SIGN_MASK	0xC000
#define GA_NUMERIC_NEG			0x4000
#define GA_NUMERIC_SHORT		0x8000
#define GA_NUMERIC_SPECIAL		0xC000

/* The display scale in a numeric's first two bytes (short or long header). */
GA_HD int
ga_numeric_head_dscale(uint16_t head)
{
	return (head & GA_NUMERIC_SHORT) ? (head & 0x1F80) >> 7 : head & 0x3FFF;
}

GA_HD int
ga_numeric_value(const uint8_t *p, uint32_t len, int scale, int dscale, int64_t *out)
{
	uint16_t	head;
	int			neg,
				weight,
				hdr;
	__int128	acc = 0;

	if (len < 2)
		return 0;
	head = ga_read16(p);
	if ((head & GA_NUMERIC_SIGN_MASK) == GA_NUMERIC_SPECIAL)
		return 0;
	if (dscale >= 0 && ga_numeric_head_dscale(head) != dscale)
		return 0;
	if (head & GA_NUMERIC_SHORT)
	{
		neg = (head & 0x2000) != 0;
		weight = (head & 0x0040) ? (int) (head & 0x003F) - 64 : (int) (head & 0x003F);
		hdr = 2;
	}
	else
	{
		if (len < 4)
			return 0;
		neg = (head & GA_NUMERIC_SIGN_MASK) == GA_NUMERIC_NEG;
		weight = (int16_t) ga_read16(p + 2);
		hdr = 4;
	}
	for (uint32_t i = 0; hdr + 2 * i + 1 < len; i++)
	{
		int64_t		d = ga_read16(p + hdr + 2 * i);
		int			e = 4 * (weight - (int) i) + scale;	/* d's power of ten */

		if (d == 0)
			continue;
		if (e > GA_NUMERIC_MAX_SCALE)
			return 0;
		if (e < 0)
		{
			/* digits below the scale must be zeros */
			if (e < -3 || d % ga_pow10(-e) != 0)
				return 0;
			acc += d / ga_pow10(-e);
		}
		else
			acc += (__int128) d * ga_pow10(e);
		if (acc > (__int128) INT64_MAX)
			return 0;
	}
	*out = neg ? -(int64_t) acc : (int64_t) acc;
	return 1;
}

/*
 * The display scale of a numeric's bytes (as ga_numeric_value reads them),
 * as a double.  Returns 0 for NaN or an infinity (whose value sends the
 * scan to the exact path anyway).
 */
GA_HD int
ga_numeric_dscale(const uint8_t *p, uint32_t len, double *out)
{
	uint16_t	head;

	if (len < 2)
		return 0;
	head = ga_read16(p);
	if ((head & GA_NUMERIC_SIGN_MASK) == GA_NUMERIC_SPECIAL)
		return 0;
	*out = (double) ga_numeric_head_dscale(head);
	return 1;
}

/*
 * Part `part' (GaIntervalPart) of an interval's 16 bytes at p (Interval:
 * time int64, day int32, month int32, little-endian) into *out; 0 where a
 * span or an epoch is past int64 (then the exact path answers, as for a
 * numeric).
 */
GA_HD int
ga_interval_part(const uint8_t *p, int part, int64_t *out)
{
	int64_t		time = (int64_t) ((uint64_t) ga_read32(p) | ((uint64_t) ga_read32(p + 4) << 32));
	int32_t		day = (int32_t) ga_read32(p + 8);
	int32_t		month = (int32_t) ga_read32(p + 12);
	__int128	v;

	switch (part)
	{
		case GA_IV_TIME:
			*out = time;
			return 1;
		case GA_IV_DAYMON:
			*out = (int64_t) (((uint64_t) (uint32_t) month << 32) | (uint32_t) day);
			return 1;
		case GA_IV_SPAN:
			/* interval_cmp_value: (month * 30 + day) days and time */
			v = ((__int128) month * 30 + day) * GA_USECS_PER_DAY + time;
			break;
		case GA_IV_EPOCH:
			/* interval_part_common's seconds of the months and days */
			v = ((__int128) ((int64_t) 31557600 * (month / 12) +
							 (int64_t) 2592000 * (month % 12) +
							 (int64_t) 86400 * day)) * 1000000 + time;
			break;
		default:
			return 0;
	}
	if (v > (__int128) INT64_MAX || v < (__int128) INT64_MIN)
		return 0;
	*out = (int64_t) v;
	return 1;
}

/*
 * The string dictionary of a device (page form with string columns): equal
 * bytes, equal codes, the codes given in the order the strings are first
 * seen, counting on from the host's (whose strings, the query's constants,
 * are put in first, in their order).  Open addressing over cap slots (a
 * power of two): slot_code is 0 (empty), 1 (being claimed) or code + 2;
 * by code, where a string's bytes lie in the arena and how many there are.
 * The host keeps a dictionary at most half full and the arena with room
 * for every byte of a batch's pages, so an insert always finds room.
 */
typedef struct GaDict
{
	uint64_t	cap;
	uint64_t	arena_cap;
	uint32_t   *slot_code;		/* [cap] */
	uint32_t   *slot_hash;		/* [cap] */
	uint64_t   *str_at;			/* [cap] by code */
	uint32_t   *str_len;		/* [cap] by code */
	uint8_t    *arena;			/* [arena_cap] */
	unsigned long long *counters;	/* GA_CNT_DICT_N, GA_CNT_DICT_BYTES */
} GaDict;

#ifdef __CUDA_ARCH__
/* in gpuagg_agg.cu: the code of an inline string in a GaDict */
static __device__ int ga_dict_code(const GaDict *d, const uint8_t *data, uint32_t len,
								   uint32_t *code);
#else
/*
 * The host's dictionary: the code of a varlena (of any form), and a
 * bpchar's two codes (gpuagg_abi.h, GA_T_BPCHAR); 0 if none.
 */
typedef struct GaHostStrings
{
	int			(*code) (void *arg, const uint8_t *varlena, uint32_t *code);
	int			(*bpcodes) (void *arg, const uint8_t *varlena, uint64_t *codes);
	/* column c's LIKE of a compressed or TOASTed value; NULL: none */
	int			(*like) (void *arg, const uint8_t *varlena, int c, uint8_t *match);
	/* ... and length column c's characters of one */
	int			(*length) (void *arg, const uint8_t *varlena, int c, int32_t *n);
	/* prefix column c's code of one (NULL: none); a string's bytes' code */
	int			(*prefix) (void *arg, const uint8_t *varlena, int c, uint32_t *code);
	int			(*bytes) (void *arg, const uint8_t *data, uint32_t len, uint32_t *code);
	void	   *arg;
} GaHostStrings;
#endif

/* Column c's LIKE of a value not inline (the host's hook), 0 if none. */
GA_HD int
ga_host_like(const void *strings, const uint8_t *p, int c, uint8_t *match)
{
#ifdef __CUDA_ARCH__
	return 0;
#else
	const GaHostStrings *h = (const GaHostStrings *) strings;

	return h->like != NULL && h->like(h->arg, p, c, match);
#endif
}

/*
 * Length column c's characters of a value not inline, and prefix column
 * c's code of one the device cannot read (the host's hooks), 0 if none.
 */
GA_HD int
ga_host_length(const void *strings, const uint8_t *p, int c, int32_t *n)
{
#ifdef __CUDA_ARCH__
	return 0;
#else
	const GaHostStrings *h = (const GaHostStrings *) strings;

	return h->length != NULL && h->length(h->arg, p, c, n);
#endif
}

GA_HD int
ga_host_prefix(const void *strings, const uint8_t *p, int c, uint32_t *code)
{
#ifdef __CUDA_ARCH__
	return 0;
#else
	const GaHostStrings *h = (const GaHostStrings *) strings;

	return h->prefix != NULL && h->prefix(h->arg, p, c, code);
#endif
}

/* The code of the string column value at p, 0 when it has none here. */
GA_HD int
ga_string_code(const void *strings, const uint8_t *p, uint32_t *code)
{
#ifdef __CUDA_ARCH__
	const uint8_t *data;
	uint32_t	len;

	return ga_varlena_inline(p, &data, &len) &&
		ga_dict_code((const GaDict *) strings, data, len, code);
#else
	const GaHostStrings *h = (const GaHostStrings *) strings;

	return h->code(h->arg, p, code);
#endif
}

/*
 * Does the string of n bytes at s match the compiled LIKE pattern at pat?
 * The pattern (program.c's compile_like) is PostgreSQL's with no `_': byte
 * 0 is 1 for NOT LIKE, byte 1 the number of parts it has split at its
 * `%'s (one more than there are), then each part as a length byte and its
 * bytes, escapes resolved.  The first part must begin the string, the last
 * end it, and those between follow one another in order, each found where
 * it first occurs: that decides as MatchText does for `%' and literal
 * characters.  Byte for byte, which is PostgreSQL's answer in a
 * single-byte encoding and in UTF-8 (whose characters no other character's
 * bytes contain), the encodings the compiler allows.
 */
/* Are the n bytes at a those at b? */
GA_HD int
ga_bytes_eq(const uint8_t *a, const uint8_t *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

GA_HD int
ga_like(const uint8_t *pat, const uint8_t *s, uint32_t n)
{
	uint32_t	nparts = pat[1];
	const uint8_t *part = pat + 2;
	const uint8_t *last = part;
	uint32_t	pos,
				end;
	int			m = 0;

	for (uint32_t i = 1; i < nparts; i++)
		last += 1 + last[0];
	if (nparts == 1)
		m = n == part[0] && ga_bytes_eq(s, part + 1, n);
	else if (n >= (uint32_t) part[0] + last[0] &&
			 ga_bytes_eq(s, part + 1, part[0]) &&
			 ga_bytes_eq(s + n - last[0], last + 1, last[0]))
	{
		pos = part[0];
		end = n - last[0];
		m = 1;
		for (part += 1 + part[0]; part < last && m; part += 1 + part[0])
		{
			uint32_t	len = part[0];

			while (pos + len <= end && !ga_bytes_eq(s + pos, part + 1, len))
				pos++;
			if (pos + len > end)
				m = 0;
			pos += len;
		}
	}
	return m ^ (pat[0] & 1);
}

/* A bpchar's bytes that count, as bpchartruelen: without trailing spaces. */
GA_HD uint32_t
ga_bpchar_len(const uint8_t *data, uint32_t len)
{
	while (len > 0 && data[len - 1] == ' ')
		len--;
	return len;
}

/*
 * The two codes of the bpchar value at p: its exact bytes' (high 32 bits)
 * and those without trailing spaces (low 32 bits, what equality decides
 * on, as bpchareq), each the code of those bytes as a string.
 */
GA_HD int
ga_bpchar_codes(const void *strings, const uint8_t *p, uint64_t *codes)
{
#ifdef __CUDA_ARCH__
	const uint8_t *data;
	uint32_t	len,
				shown,
				eq;

	if (!ga_varlena_inline(p, &data, &len))
		return 0;
	if (!ga_dict_code((const GaDict *) strings, data, len, &shown) ||
		!ga_dict_code((const GaDict *) strings, data, ga_bpchar_len(data, len), &eq))
		return 0;
	*codes = (uint64_t) shown << 32 | eq;
	return 1;
#else
	const GaHostStrings *h = (const GaHostStrings *) strings;

	return h->bpcodes(h->arg, p, codes);
#endif
}

/* Store one value (or NULL) of column c at row. */
GA_HD void
ga_put(const GaTupleLayout *L, int c, uint32_t row, void *const *values,
	   uint8_t *const *nulls, uint8_t *anynull, const uint8_t *src, int isnull)
{
	if (isnull)
	{
#ifdef __CUDA_ARCH__
		/* threads of neighbouring rows share the word (little-endian bits) */
		atomicOr((unsigned int *) nulls[c] + (row >> 5), 1u << (row & 31));
#else
		nulls[c][row >> 3] |= (uint8_t) (1 << (row & 7));
#endif
		anynull[c] = 1;
	}
	else if (values[c])
	{
		uint8_t    *dst = (uint8_t *) values[c] + (uint64_t) row * L->width[c];

		/* constant sizes: each a plain load and store */
		switch (L->width[c])
		{
			case 1:
				dst[0] = src[0];
				break;
			case 2:
				memcpy(dst, src, 2);
				break;
			case 4:
				memcpy(dst, src, 4);
				break;
			case 8:
				memcpy(dst, src, 8);
				break;
			default:
				break;			/* GA_T_NULLONLY: only NULL-ness */
		}
	}
}

/* What ga_deform_tuple found. */
#define GA_DEFORM_OK		1
#define GA_DEFORM_STRING	0	/* a string had no code (ga_string_code), or
								 * a numeric is compressed or TOASTed */
#define GA_DEFORM_BAD		(-1)	/* the tuple does not hold what its header
									 * says: nothing past it was read */
#define GA_DEFORM_NUMERIC	(-2)	/* a numeric no int64 holds at its scale
									 * (ga_numeric_value): the exact path */

/*
 * The bytes of the first n characters of the string of len bytes at s, as
 * text_substring(s, 1, n) and text_left find them: UTF-8 characters as
 * pg_mblen steps over them (or bytes, octets), the whole string where it
 * has fewer.  0 where PostgreSQL must decide (a NUL, or a character cut
 * short, which a UTF-8 database never stores).
 */
GA_HD int
ga_prefix_len(const uint8_t *s, uint32_t len, uint32_t n, int octets, uint32_t *plen)
{
	uint32_t	i = 0;

	if (octets)
	{
		*plen = n < len ? n : len;
		return 1;
	}
	for (uint32_t k = 0; k < n && i < len; k++)
	{
		uint32_t	l = (s[i] & 0x80) == 0 ? 1 : (s[i] & 0xE0) == 0xC0 ? 2 :
			(s[i] & 0xF0) == 0xE0 ? 3 : (s[i] & 0xF8) == 0xF0 ? 4 : 1;

		if (s[i] == 0 || l > len - i)
			return 0;
		i += l;
	}
	*plen = i;
	return 1;
}

/*
 * Prefix column c's code of the string value at p: the code of its first
 * L->prefix[c] - 1 characters' bytes, which the device puts in its
 * dictionary; of a value not inline, the host's (none on a device).
 */
GA_HD int
ga_prefix_code(const GaTupleLayout *L, int c, const void *strings, const uint8_t *p,
			   uint32_t *code)
{
	const uint8_t *data;
	uint32_t	len,
				plen;

	if (!ga_varlena_inline(p, &data, &len))
		return ga_host_prefix(strings, p, c, code);
	if ((L->rtrim >> c) & 1)
		len = ga_bpchar_len(data, len);
	if (!ga_prefix_len(data, len, (uint32_t) (L->prefix[c] - 1), (L->octets >> c) & 1, &plen))
		return ga_host_prefix(strings, p, c, code);
#ifdef __CUDA_ARCH__
	return ga_dict_code((const GaDict *) strings, data, plen, code);
#else
	return ((const GaHostStrings *) strings)->bytes(((const GaHostStrings *) strings)->arg,
													data, plen, code);
#endif
}

/* Store string column c's code (a bpchar's two) of the value at src. */
GA_HD int
ga_put_string(const GaTupleLayout *L, int c, uint32_t row, void *const *values,
			  uint8_t *const *nulls, uint8_t *anynull, const uint8_t *src,
			  const void *strings)
{
	uint64_t	codes = 0;		/* (ga_put reads up to 8 bytes; a code is 4) */
	int			ok = GA_DEFORM_OK;

	if ((L->bpchars >> c) & 1)
	{
		if (!ga_bpchar_codes(strings, src, &codes))
			ok = GA_DEFORM_STRING;
	}
	else
	{
		uint32_t	code = 0;

		if (L->prefix[c] > 0 ? !ga_prefix_code(L, c, strings, src, &code) :
			!ga_string_code(strings, src, &code))
			ok = GA_DEFORM_STRING;
		codes = code;
	}
	ga_put(L, c, row, values, nulls, anynull, (const uint8_t *) &codes, 0);
	return ok;
}

/* The string values a row of a kept (or a failed) WHERE defers, coded. */
GA_HD int
ga_put_deferred(const GaTupleLayout *L, const GaDeferred *later, uint32_t row,
				void *const *values, uint8_t *const *nulls, uint8_t *anynull,
				const void *strings)
{
	int			ok = GA_DEFORM_OK;

	for (uint32_t i = 0; i < later->n; i++)
		if (ga_put_string(L, later->col[i], row, values, nulls, anynull, later->src[i],
						  strings) != GA_DEFORM_OK)
			ok = GA_DEFORM_STRING;
	return ok;
}

/*
 * Store attribute value src in every column c reading it; a string column
 * gets the string's code (or is deferred to later, when not NULL), a
 * length column its length, a LIKE column whether the string matches, a numeric column its scaled value.
 * Returns GA_DEFORM_OK, or what went wrong (the value is stored as 0).
 */
GA_HD int
ga_put_attr(const GaTupleLayout *L, int c, uint32_t row, void *const *values,
			uint8_t *const *nulls, uint8_t *anynull, const uint8_t *src,
			const void *strings, GaDeferred *later)
{
	int			ok = GA_DEFORM_OK;

	for (; c >= 0; c = L->next_same[c])
	{
		if (later && ((L->deferred >> c) & 1) && later->n < GA_MAX_DEFERRED)
		{
			later->col[later->n] = c;
			later->src[later->n++] = src;
		}
		else if ((L->strings >> c) & 1)
		{
			if (ga_put_string(L, c, row, values, nulls, anynull, src, strings) != GA_DEFORM_OK)
				ok = GA_DEFORM_STRING;
		}
		else if ((L->lengths >> c) & 1)
		{
			int32_t		n = 0;
			int64_t		wide;	/* (ga_put reads up to 8 bytes) */

			if (!ga_varlena_length(src, (L->octets >> c) & 1, &n) &&
				!ga_host_length(strings, src, c, &n))
				ok = GA_DEFORM_STRING;
			wide = n;
			ga_put(L, c, row, values, nulls, anynull, (const uint8_t *) &wide, 0);
		}
		else if (L->like[c] > 0)
		{
			const uint8_t *data;
			uint32_t	len;
			uint8_t		m = 0;
			uint64_t	wide;	/* (ga_put reads up to 8 bytes) */

			if (ga_varlena_inline(src, &data, &len))
				m = (uint8_t) ga_like(L->likes + L->like[c] - 1, data, len);
			else if (!ga_host_like(strings, src, c, &m))
				ok = GA_DEFORM_STRING;
			wide = m;
			ga_put(L, c, row, values, nulls, anynull, (const uint8_t *) &wide, 0);
		}
		else if ((L->dscales >> c) & 1)
		{
			const uint8_t *data;
			uint32_t	len;
			double		ds = 0;

			if (!ga_varlena_inline(src, &data, &len))
				ok = GA_DEFORM_STRING;
			else if (!ga_numeric_dscale(data, len, &ds))
				ok = GA_DEFORM_NUMERIC;
			ga_put(L, c, row, values, nulls, anynull, (const uint8_t *) &ds, 0);
		}
		else if ((L->ivparts >> c) & 1)
		{
			int64_t		v = 0;

			if (!ga_interval_part(src, L->scale[c], &v))
			{
				v = 0;
				ok = GA_DEFORM_NUMERIC;
			}
			ga_put(L, c, row, values, nulls, anynull, (const uint8_t *) &v, 0);
		}
		else if ((L->numerics >> c) & 1)
		{
			const uint8_t *data;
			uint32_t	len;
			int64_t		v = 0;

			if (!ga_varlena_inline(src, &data, &len))
				ok = GA_DEFORM_STRING;
			else if (!ga_numeric_value(data, len, L->scale[c],
									   (L->dscale_checked >> c) & 1 ? L->scale[c] : -1, &v))
			{
				v = 0;
				ok = GA_DEFORM_NUMERIC;
			}
			ga_put(L, c, row, values, nulls, anynull, (const uint8_t *) &v, 0);
		}
		else
			ga_put(L, c, row, values, nulls, anynull, src, 0);
	}
	return ok;
}

/*
 * Deform heap tuple tup (its HeapTupleHeader, len bytes as its line pointer
 * says) into row `row' of the columns, as slot_deform_heap_tuple does for
 * attributes 1 .. L->natts.  Every read stays inside the tuple, whatever
 * its bytes are.
 */
GA_HD int
ga_deform_tuple(const GaTupleLayout *L, const uint8_t *tup, uint32_t len, uint32_t row,
				void *const *values, uint8_t *const *nulls, uint8_t *anynull,
				const void *strings, GaDeferred *later)
{
	uint32_t	natts = ga_read16(tup + GA_TUP_INFOMASK2_OFF) & GA_TUP_NATTS_MASK;
	int			hasnulls = (ga_read16(tup + GA_TUP_INFOMASK_OFF) & GA_TUP_HASNULL) != 0;
	uint32_t	hoff = tup[GA_TUP_HOFF_OFF];
	const uint8_t *tp = tup + hoff;
	const uint8_t *bp = tup + GA_TUP_BITS_OFF;
	uint32_t	dlen,
				off = 0;
	int			slow = 0;
	int			ok = GA_DEFORM_OK;

	/* the header, and the null bitmap's bytes the attributes read need */
	if (hoff < GA_TUP_BITS_OFF || hoff > len ||
		(hasnulls && GA_TUP_BITS_OFF + ((natts < L->natts ? natts : L->natts) + 7) / 8 > hoff))
		return GA_DEFORM_BAD;
	dlen = len - hoff;

	/* no NULLs and every attribute read at a fixed offset (no strings) */
	if (L->all_fixed && !hasnulls && natts >= L->natts)
	{
		for (uint32_t i = 0; i < L->natts; i++)
		{
			if ((uint32_t) L->attrs[i].fixoff + (uint32_t) L->attrs[i].len > dlen)
				return GA_DEFORM_BAD;
			for (int c = L->attrs[i].col; c >= 0; c = L->next_same[c])
				ga_put(L, c, row, values, nulls, anynull, tp + L->attrs[i].fixoff, 0);
		}
		return GA_DEFORM_OK;
	}
	for (uint32_t i = 0; i < L->natts; i++)
	{
		const GaAttr *a = &L->attrs[i];
		uint32_t	size;

		if (i >= natts || (hasnulls && !(bp[i >> 3] & (1 << (i & 7)))))
		{
			/* NULL, or an attribute added after the tuple: its default
			 * (a string's: its code, which the host put in) */
			int			isnull = i < natts || a->missing_null;
			uint8_t		m[8];

			memcpy(m, &a->missing, sizeof(m));
			slow = 1;
			for (int c = a->col; c >= 0; c = L->next_same[c])
				ga_put(L, c, row, values, nulls, anynull, m, isnull);
			continue;
		}
		if (!slow && a->fixoff >= 0)
			off = (uint32_t) a->fixoff;
		else if (a->len == -1)
		{
			/* a short (1-byte header) varlena is not aligned */
			if (off < dlen && tp[off] == 0)
				off = ga_align(off, a->align);
		}
		else
			off = ga_align(off, a->align);
		if (off >= dlen)
			return GA_DEFORM_BAD;
		if (a->len > 0)
			size = (uint32_t) a->len;
		else if (a->len == -1)
		{
			/* the header's bytes first, then what it says */
			if (dlen - off < (tp[off] == 0x01 ? 2u : (tp[off] & 0x01) ? 1u : 4u))
				return GA_DEFORM_BAD;
			size = ga_varsize_any(tp + off);
			/* (a 4-byte header counts itself; a compressed one, va_tcinfo too) */
			if (size == 0 || ((tp[off] & 0x01) == 0 && size < ((tp[off] & 0x02) ? 8u : 4u)))
				return GA_DEFORM_BAD;
		}
		else
		{
			/* cstring: up to and past its terminating zero */
			for (size = 0; off + size < dlen && tp[off + size] != 0; size++)
				;
			size++;
		}
		if (size > dlen - off)
			return GA_DEFORM_BAD;
		if (a->col >= 0)
		{
			int			got = ga_put_attr(L, a->col, row, values, nulls, anynull,
										  tp + off, strings, later);

			/* a numeric that does not fit decides: the exact path */
			if (got != GA_DEFORM_OK && ok != GA_DEFORM_NUMERIC)
				ok = got;
		}
		off += size;
		if (a->len <= 0)
			slow = 1;
	}
	return ok;
}

#endif							/* GPUAGG_PAGE_H */
