/*-------------------------------------------------------------------------
 *
 * dict.h
 *		The per-query string dictionary: text values as int32 codes.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUAGG_DICT_H
#define GPUAGG_DICT_H

typedef struct GpuaggDict GpuaggDict;

extern GpuaggDict *GpuaggDictCreate(MemoryContext cxt);

/*
 * The code of the bytes of a (possibly TOASTed) text, varchar or bpchar
 * Datum: equal bytes, equal codes.
 */
extern uint32 GpuaggDictEncode(GpuaggDict *dict, Datum value);

/* A string register's value: the two codes (GA_T_TEXT in gpuagg_abi.h). */
extern uint64 GpuaggDictRegister(GpuaggDict *dict, Datum value, bool bpchar);

/* The value with this (untrimmed) code. */
extern Datum GpuaggDictValue(GpuaggDict *dict, uint32 code);

/*
 * A copy of the value under a code of its own, found by that code only:
 * GpuaggDictEncode of the same bytes later gives another code, so only
 * for values nothing encodes again (GpuaggRekey's, which it tells apart
 * itself), the dictionary sealed or not.
 */
extern uint32 GpuaggDictAppend(GpuaggDict *dict, Datum value);

/* The code of len bytes of text. */
extern uint32 GpuaggDictEncodeBytes(GpuaggDict *dict, const char *data, int32 len);

/* Codes given so far (the next code). */
extern uint32 GpuaggDictCount(GpuaggDict *dict);

/*
 * Page form: the strings so far for a device's dictionary (NULL if they do
 * not fit max bytes), read back by a CPU device, and the strings a device
 * added, back in.
 */
extern char *GpuaggDictSerialize(GpuaggDict *dict, Size max, uint32 *bytes);
extern void GpuaggDictDeserialize(GpuaggDict *dict, const char *seed, uint32 nseed);
extern void GpuaggDictLoad(GpuaggDict *dict, uint32 first, uint64 n, const uint32 *len,
						   const uint64 *at, const char *bytes, uint64 nbytes);
extern void GpuaggDictLoadSome(GpuaggDict *dict, uint32 first, uint64 n, uint32 nsel,
							   const uint32 *sel, const uint32 *len, const uint64 *at,
							   const char *bytes, uint64 nbytes);

#endif							/* GPUAGG_DICT_H */
