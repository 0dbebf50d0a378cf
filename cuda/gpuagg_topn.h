/*-------------------------------------------------------------------------
 *
 * gpuagg_topn.h
 *		GPU Top-N: which groups a device returns under ORDER BY a count or
 *		a sum [, group keys] LIMIT n (GaTopN), shared by both devices.
 *
 * A group's rank is a row of words, compared word by word as unsigned
 * integers, smaller ranking first: the count (complemented when DESC),
 * or a sum's NULL-ness (a sum of no rows is NULL, first or last as the
 * ORDER BY places NULLs) and its int64 or int128 value, sign bit flipped
 * (all of it complemented when DESC: a numeric sum's values share one
 * scale, so their integers order as the numerics do), then each tie key
 * in a form whose unsigned order is PostgreSQL's (NULLs first or last,
 * DESC complemented; NaN above every float, -0 equal to 0).  Two
 * properties make the device's choice safe:
 *
 *	- groups PostgreSQL finds equal have equal words, and
 *	- a group that PostgreSQL ranks before another has words no larger.
 *
 * (A NULL and the extreme value it is placed next to share a word; the
 * host tells them apart.)  Where the count and the tie keys are the whole
 * ORDER BY (GaTopN.whole), groups equal in them are interchangeable: any n
 * of them answer the query, so a last word, the group's place in the table
 * or result (unique), breaks their ties, and a query whose groups all tie
 * (a group a row, ORDER BY its count) returns n groups, not all of them.
 * So if B is the row of words the n-th smallest row has, every group
 * PostgreSQL ranks n-th or before has words at most B: fewer than n
 * groups have smaller words than any group it could be tied with.  A device finds B, or a bound above it, by a radix select: a
 * histogram of the next 8 bits of the groups that share the bits found so
 * far (ga_topn_digit), the digit where the count reaches n
 * (ga_topn_step), again, until the groups that share the prefix are few or
 * every word is decided.  It then returns the groups whose words are at
 * most the prefix followed by ones (ga_topn_keeps), and the host's heap
 * (topn.c) picks the n and their ties from those exactly, by PostgreSQL's
 * comparators.
 *
 * Groups are read from struct-of-arrays columns with a stride: a GPU's
 * table (stride its capacity) or a result (stride its groups).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUAGG_TOPN_H
#define GPUAGG_TOPN_H

#include "gpuagg_eval.h"

/* the place word's NULL bits, a tie key each, over a place of 56 bits */
#if GA_MAX_KEYS > 8
#error "GA_MAX_KEYS tie keys' NULL bits do not fit the place word"
#endif
#ifdef __CUDA_ARCH__
#define GA_CLZ64(x)			__clzll((long long) (x))
#else
#define GA_CLZ64(x)			__builtin_clzll(x)
#endif

/* a select stops where this many groups or fewer share its prefix */
#define GA_TOPN_FEW			4096

/* Where a radix select stands: the bits of the bound it has decided. */
typedef struct GaTopNBound
{
	uint32_t	word;			/* words before it are decided */
	uint32_t	shift;			/* and its bits from shift up (64: none) */
	uint64_t	prefix[GA_TOPN_WORDS];
	uint64_t	below;			/* groups whose words are under the prefix */
	uint64_t	within;			/* groups whose words start with it */
} GaTopNBound;

/*
 * Does the device choose among the groups?  Not where sets are paired
 * with groups by their position (ga_agg_set_pairs): every group goes.
 */
GA_HD int
ga_topn_applies(const GaProgram *p, uint64_t ngroups)
{
	if (p->topn.n == 0 || ngroups <= p->topn.n)
		return 0;
	for (uint32_t a = 0; a < p->naggs; a++)
		if (ga_agg_set_pairs(&p->aggs[a]))
			return 0;
	return 1;
}

/*
 * Words of the aggregate's rank: a count's value; a sum's NULL-ness (no
 * rows), then its value, one word of int64 or two of int128.
 */
GA_HD uint32_t
ga_topn_aggwords(const GaProgram *p)
{
	return p->topn.kind == GA_AGG_SUM_I64 ? 2 : p->topn.kind == GA_AGG_SUM_I128 ? 3 : 1;
}

/* Words of a group's rank: the aggregate's, the tie keys, and its place. */
GA_HD uint32_t
ga_topn_nwords(const GaProgram *p)
{
	return ga_topn_aggwords(p) + p->topn.nties + (p->topn.whole ? 1 : 0);
}

/* A bound that keeps every group: nothing decided. */
GA_HD void
ga_topn_start(GaTopNBound *b, uint64_t ngroups)
{
	b->word = 0;
	b->shift = 64;
	for (int w = 0; w < GA_TOPN_WORDS; w++)
		b->prefix[w] = 0;
	b->below = 0;
	b->within = ngroups;
}

/* Word w of group i's rank. */
GA_HD uint64_t
ga_topn_word(const GaProgram *p, uint32_t w, const uint64_t *keys, const uint8_t *keynulls,
			 const uint64_t *states, uint64_t stride, uint64_t i)
{
	const GaTopN *t = &p->topn;
	uint32_t	aw = ga_topn_aggwords(p);
	uint32_t	k;
	uint64_t	v;

	if (w < aw)
	{
		/* slot s of the aggregate's states: states[(t->slot + s) * stride + i] */
		const uint64_t *st = states + (uint64_t) t->slot * stride + i;

		if (aw == 1)			/* a count */
			v = st[0];
		else if (w == 0)		/* NULL first or last, whatever the order */
			return st[0] == 0 ? (t->aggnullsfirst ? 0 : 2) : 1;
		else if (st[0] == 0)
			return 0;			/* (NULLs are equal) */
		else if (w == 1)		/* the int64, or the int128's high word */
			v = st[(aw - 1) * stride] ^ (UINT64_C(1) << 63);
		else
			v = st[stride];		/* the int128's low word */
		return t->desc ? ~v : v;
	}
	w -= aw - 1;				/* (tie key w - 1, or the place) */
	if (w > t->nties)
	{
		/*
		 * (whole) which of its tie keys are NULL, where a NULL shares its
		 * word with an extreme value (only the last key's can: topn.c), a
		 * bit a key, the first highest, 0 for the side that ranks first
		 * (NULLS FIRST or LAST); then the group's place (under stride),
		 * its top bit right under those, so that few steps decide it
		 */
		int			bits = stride > 1 ? 64 - GA_CLZ64(stride - 1) : 0;

		v = 0;
		for (uint32_t j = 0; j < t->nties; j++)
			v = (v << 1) |
				(uint64_t) ((keynulls[(uint64_t) t->key[j] * stride + i] != 0) == !t->nullsfirst[j]);
		return (v << 56) | (i << (56 - bits));
	}
	k = t->key[w - 1];
	if (keynulls[(uint64_t) k * stride + i])
		return t->nullsfirst[w - 1] ? 0 : UINT64_MAX;
	v = keys[(uint64_t) k * stride + i];
	if (ga_type_is_float(p->keytype[k]))
	{
		GaDatum		d;

		d.u = v;
		if (d.f != d.f)
			v = UINT64_MAX;		/* NaN, above every other value */
		else
		{
			if (d.f == 0.0)
				d.f = 0.0;		/* -0 is 0 */
			v = (d.u >> 63) ? ~d.u : d.u | (UINT64_C(1) << 63);
		}
	}
	else
		v ^= UINT64_C(1) << 63;	/* integers, widened to int64 */
	return t->keydesc[w - 1] ? ~v : v;
}

/*
 * Group i's digit of the bound's next 8 bits, or -1 when its words do not
 * start with the bound's prefix.
 */
GA_HD int
ga_topn_digit(const GaProgram *p, const GaTopNBound *b, const uint64_t *keys,
			  const uint8_t *keynulls, const uint64_t *states, uint64_t stride, uint64_t i)
{
	uint64_t	v;

	for (uint32_t w = 0; w < b->word; w++)
		if (ga_topn_word(p, w, keys, keynulls, states, stride, i) != b->prefix[w])
			return -1;
	v = ga_topn_word(p, b->word, keys, keynulls, states, stride, i);
	if (b->shift < 64 && (v >> b->shift) != (b->prefix[b->word] >> b->shift))
		return -1;
	return (int) ((v >> (b->shift - 8)) & 0xff);
}

/* Are group i's words at most the bound's prefix followed by ones? */
GA_HD int
ga_topn_keeps(const GaProgram *p, const GaTopNBound *b, const uint64_t *keys,
			  const uint8_t *keynulls, const uint64_t *states, uint64_t stride, uint64_t i)
{
	uint64_t	v;
	uint64_t	hi;

	if (p->topn.n == 0)
		return 1;
	for (uint32_t w = 0; w < b->word; w++)
	{
		v = ga_topn_word(p, w, keys, keynulls, states, stride, i);
		if (v != b->prefix[w])
			return v < b->prefix[w];
	}
	if (b->word >= ga_topn_nwords(p))
		return 1;				/* every word decided: equal */
	v = ga_topn_word(p, b->word, keys, keynulls, states, stride, i);
	hi = b->shift == 64 ? UINT64_MAX :
		b->prefix[b->word] | ((UINT64_C(1) << b->shift) - 1);
	return v <= hi;
}

/*
 * Is this the select's first step (nothing decided)?  Its histogram also
 * counts, in hist[256], the groups with a float overflow
 * (ga_group_overflowed).
 */
GA_HD int
ga_topn_first(const GaTopNBound *b)
{
	return b->word == 0 && b->shift == 64;
}

/*
 * One step of the select, from the histogram of the next digit (hist[d]:
 * groups with the prefix and digit d): decide the digit where the groups
 * reach n.  Returns nonzero when the bound is found: the groups that share
 * the prefix are few, or every word is decided.  The groups the bound
 * keeps are then b->below + b->within.  A float overflow in any group
 * (the first step's hist[256]) leaves the bound keeping every group:
 * finishing them raises the error.
 */
GA_HD int
ga_topn_step(const GaProgram *p, GaTopNBound *b, const uint64_t *hist)
{
	uint64_t	below = b->below;
	int			d;

	if (ga_topn_first(b) && hist[256] > 0)
		return 1;

	for (d = 0; d < 255 && below + hist[d] < p->topn.n; d++)
		below += hist[d];
	b->below = below;
	b->within = hist[d];
	b->shift -= 8;
	b->prefix[b->word] |= (uint64_t) d << b->shift;
	if (b->shift == 0)
	{
		b->word++;
		b->shift = 64;
	}
	return b->word >= ga_topn_nwords(p) || b->within <= GA_TOPN_FEW;
}

#endif							/* GPUAGG_TOPN_H */
