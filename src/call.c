/*-------------------------------------------------------------------------
 *
 * call.c
 *		One engine call from the call block (call.h), and the answer
 *		given where no thread serves a query.
 *
 * Runs in the CUDA process's threads and in a single-user backend: no
 * PostgreSQL function here (snprintf is the C library's, through port).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "call.h"

void
GpuaggRunCall(ServiceCall *c, GaEngineSession **sp, char *host)
{
	GaEngineSession *s = *sp;
	int			err = GA_OK;
	double		t0;

	c->err[0] = '\0';
	c->need = 0;
	if (s && c->grant > 0)
	{
		ga_engine_grant(s, c->grant);
		c->grant = 0;
	}
	if (c->cancel && c->op != OP_CLOSE)
	{
		snprintf(c->err, sizeof(c->err), "the query was cancelled");
		c->result = GA_ERR_DEVICE;
		return;
	}
	switch (c->op)
	{
		case OP_OPEN:
			t0 = GpuaggCallNowMs();
			s = *sp = ga_engine_open(&c->prog, &c->args, c->seed, host, c->host_bytes,
									 &c->cancel, c->err, sizeof(c->err));
			c->open_ms += GpuaggCallNowMs() - t0;
			if (s == NULL)
			{
				err = GA_ERR_DEVICE;
				break;
			}
			/* FALLTHROUGH */
		case OP_START:
			t0 = GpuaggCallNowMs();
			err = s ? ga_engine_start(s) : GA_ERR_DEVICE;
			c->start_ms += GpuaggCallNowMs() - t0;
			break;
		case OP_WAITBUF:
			err = s ? ga_engine_wait_buffer(s, c->b) : GA_ERR_DEVICE;
			break;
		case OP_ADD:
			if (s)
			{
				GaBatch		batch = c->batch;
				char	   *base = ga_engine_buffer(s, c->b);

				for (int i = 0; i < GA_MAX_COLS; i++)
				{
					if (batch.values[i])
						batch.values[i] = base + ((uintptr_t) batch.values[i] - 1);
					if (batch.nulls[i])
						batch.nulls[i] = (const uint8_t *) base + ((uintptr_t) batch.nulls[i] - 1);
				}
				if (batch.pagelist)
				{
					batch.pagelist = (const uint32_t *) (base + ((uintptr_t) batch.pagelist - 1));
					batch.pagerows = (const uint32_t *) (base + ((uintptr_t) batch.pagerows - 1));
					batch.pagevis = (const uint32_t *) (base + ((uintptr_t) batch.pagevis - 1));
				}
				if (batch.layout)
					batch.layout = base + ((uintptr_t) batch.layout - 1);
				err = ga_engine_add_batch(s, c->b, &batch);
			}
			else
				err = GA_ERR_DEVICE;
			break;
		case OP_FINISH:
			err = s ? ga_engine_finish(s, &c->shape) : GA_ERR_DEVICE;
			break;
		case OP_FETCH:
			err = s ? ga_engine_fetch(s, c->part, c->offset, c->bytes,
									  ga_engine_buffer(s, 0)) : GA_ERR_DEVICE;
			break;
		case OP_CLOSE:
			ga_engine_close(s);
			*sp = NULL;
			break;
	}
	if (err == GA_NEED_MEMORY)
		c->need = ga_engine_need(s);
	else if (err == GA_ERR_DEVICE && s && c->err[0] == '\0')
		snprintf(c->err, sizeof(c->err), "%s", ga_engine_error(s));
	if (err == GA_ERR_DEVICE && c->err[0] == '\0')
		snprintf(c->err, sizeof(c->err), "the GPU service could not run the call");
	c->result = err;
}

void
GpuaggAnswerWithoutThread(ServiceCall *c, const char *why)
{
	snprintf(c->err, sizeof(c->err), "%s", why);
	c->result = GA_ERR_DEVICE;
	c->no_thread = 1;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	c->done_seq = c->req_seq;
	call_futex_wake(&c->done_seq);
}
