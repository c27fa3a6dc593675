/* interpose.c: notices another CUPTI client that CUPTI turns away because we hold it.
 *
 * CUPTI allows one subscriber per process. When a program starts its own profiler under gputrace
 * (torch.profiler, for one), that profiler's cuptiSubscribe fails and it records nothing; its own
 * warning is easy to miss. Preloaded, this library's cuptiSubscribe and cuptiSubscribe_v2 come first
 * in symbol lookup: they call CUPTI's, and when CUPTI refuses the other client, say so in one
 * "gputrace:" line and in the trace. The caller gets CUPTI's answer unchanged.
 */
#include "cupti/libs.h"
#include "preload/log.h"
#include "preload/recorder.h"

#include <dlfcn.h>
#include <stdatomic.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback,
                                  void *userdata);
EXPORT CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback,
                                     void *userdata, CUpti_SubscriberParams *params);

static atomic_int refused;

static void note_refusal(CUptiResult r)
{
	if (r != CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED || !recorder_running())
		return;
	if (atomic_fetch_add(&refused, 1) == 0)
		gtp_error("another CUPTI client in this process (e.g. torch.profiler) was refused by "
		          "CUPTI because gputrace holds it: that client will record nothing; gputrace's "
		          "trace is complete");
	recorder_note_collision();
}

CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback,
                           void *userdata)
{
	__typeof__(cuptiSubscribe) *real = (__typeof__(cuptiSubscribe) *)dlsym(RTLD_NEXT, "cuptiSubscribe");
	if (!real)
		return CUPTI_ERROR_NOT_INITIALIZED;
	CUptiResult r = real(subscriber, callback, userdata);
	note_refusal(r);
	return r;
}

CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback,
                              void *userdata, CUpti_SubscriberParams *params)
{
	__typeof__(cuptiSubscribe_v2) *real =
		(__typeof__(cuptiSubscribe_v2) *)dlsym(RTLD_NEXT, "cuptiSubscribe_v2");
	if (!real)
		return CUPTI_ERROR_NOT_INITIALIZED;
	CUptiResult r = real(subscriber, callback, userdata, params);
	note_refusal(r);
	return r;
}
