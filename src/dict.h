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

#endif							/* GPUAGG_DICT_H */
