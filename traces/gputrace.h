/* gputrace.h: the trace file, as records, a writer and a streaming reader.
 *
 * This is the one public header of the trace library (libgttrace.a). The recorder writes traces
 * through it and the analyzer reads them through it; a third program can do either. The byte layout
 * behind it is specified in gputrace-format(5). The library never prints and never exits: every
 * function returns 0 (or a count) on success and a negative GT_ERR_* on failure; gt_strerror() names
 * the error, and the reader keeps a one-line description with the byte offset where it went wrong.
 *
 * Records come in two shapes:
 *   - fixed records (events: kernels, copies, API calls, ...): plain C structs below, identical to
 *     what a reader hands back; the file stores them delta-encoded and byte-transposed per block;
 *   - variable records (definitions and blobs: strings, metadata, devices, cubins, captured buffers):
 *     a byte string whose layout each type documents.
 * Timestamps are nanoseconds on CUPTI's clock unless a field says otherwise; a CLOCK_SYNC record pairs
 * that clock with the host's. Identifiers that name strings are string ids (0 = none), which a
 * STRING definition introduces before any record uses them.
 */
#ifndef GPUTRACE_H
#define GPUTRACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GT_FORMAT_MAJOR 1
#define GT_FORMAT_MINOR 0
#define GT_TOOL_VERSION "0.1.0" /* gputrace's own version: recorder, launcher, analyzer */

/* ---- errors -------------------------------------------------------------------------------- */
enum gt_err {
	GT_OK = 0,
	GT_ERR_IO = -1,        /* read/write/open failed; errno kept by the caller's libc */
	GT_ERR_NOMEM = -2,     /* an allocation failed */
	GT_ERR_MAGIC = -3,     /* not a gputrace file (bad file or chunk magic) */
	GT_ERR_VERSION = -4,   /* a major format version this reader does not know */
	GT_ERR_CORRUPT = -5,   /* a structure inside the file is inconsistent */
	GT_ERR_CHECKSUM = -6,  /* zstd's content checksum (or a header check) failed */
	GT_ERR_TOO_LARGE = -7, /* a size or count beyond the format's limits */
	GT_ERR_ARG = -8,       /* the caller passed something invalid */
	GT_ERR_EMPTY = -9,     /* the file is empty or shorter than its header */
	GT_ERR_EXISTS = -10,   /* the output file exists and the writer was asked not to clobber */
	GT_ERR_STATE = -11,    /* call out of order (e.g. a write after close) */
};
const char *gt_strerror(int err);

/* ---- record types --------------------------------------------------------------------------
 * Numbers are part of the format. 1..63 are variable records, 64..255 fixed records; a reader skips
 * a type it does not know (each block carries its size). */
enum gt_rec_type {
	/* variable records: definitions and blobs */
	GT_REC_STRING = 1,   /* u32 id, then the string's bytes (no NUL) */
	GT_REC_META = 2,     /* u32 key_len, key bytes, value bytes: "tool.version" -> "0.1.0" */
	GT_REC_DEVICE = 3,   /* struct gt_device, then the device name's bytes */
	GT_REC_BLOB = 4,     /* struct gt_blob_piece, then the piece's bytes */
	GT_REC_CAPTURE = 5,  /* a captured kernel launch for shadow replay; see gt_capture_* below */
	GT_REC_END = 6,      /* struct gt_end: written once, last, by a writer that closed cleanly */

	/* fixed records: events */
	GT_REC_KERNEL = 64,
	GT_REC_MEMCPY = 65,
	GT_REC_MEMSET = 66,
	GT_REC_API = 67,
	GT_REC_SYNC = 68,
	GT_REC_NVTX = 69,
	GT_REC_MEMORY = 70,
	GT_REC_DROPPED = 71,
	GT_REC_PROCESS = 72,
	GT_REC_OVERHEAD = 73,
	GT_REC_CLOCK_SYNC = 74,
	GT_REC_CLOCK_SAMPLE = 75,
	GT_REC_GRAPH_LAUNCH = 76,
	GT_REC_METRIC_SAMPLE = 77,
	GT_REC_LAUNCH_METRIC = 78,
};
#define GT_REC_FIRST_FIXED 64
#define GT_REC_TYPE_MAX 255
const char *gt_rec_type_name(int type); /* "kernel", "memcpy", ...; "unknown" otherwise */

/* ---- fixed records ---------------------------------------------------------------------------
 * Every struct is a multiple of 8 bytes with no implicit padding; the first field of each is its
 * timestamp base. Fields are appended, never reordered, in later minor versions. */

/* Kernel flags */
#define GT_KERNEL_HAS_QUEUED    0x1u /* queued/submitted were measured (latency timestamps on) */
#define GT_KERNEL_FROM_GRAPH    0x2u /* launched as a node of a CUDA graph */
#define GT_KERNEL_COOPERATIVE   0x4u
#define GT_KERNEL_BAD_TIMES     0x8u /* CUPTI gave end < start or zero timestamps: never averaged */

struct gt_kernel {
	uint64_t start;          /* ns, start of execution on the GPU */
	uint64_t end;            /* ns */
	uint64_t queued;         /* ns, when the launch was queued; 0 unless GT_KERNEL_HAS_QUEUED */
	uint64_t submitted;      /* ns, when it was submitted to the GPU; 0 unless GT_KERNEL_HAS_QUEUED */
	uint64_t graph_node_id;  /* CUPTI graph node id, 0 if not from a graph */
	uint32_t name_id;        /* string: the mangled kernel name */
	uint32_t correlation_id; /* pairs the kernel with the API call that launched it */
	uint32_t device_id;
	uint32_t context_id;
	uint32_t stream_id;
	uint32_t graph_id;       /* 0 if not from a graph */
	uint32_t grid_x, grid_y, grid_z;
	uint32_t block_x, block_y, block_z;
	uint32_t cluster_x, cluster_y, cluster_z; /* 0 when no cluster was set */
	uint32_t static_smem;    /* bytes per block */
	uint32_t dynamic_smem;   /* bytes per block */
	uint32_t local_mem;      /* local memory bytes per thread */
	uint16_t registers;      /* per thread */
	uint16_t flags;          /* GT_KERNEL_* */
	uint32_t reserved;
};

/* The format's own kinds of copy, memory and synchronisation. Their numbers are part of the format
 * (trace files hold them): they were first taken from CUPTI's (CUpti_ActivityMemcpyKind,
 * CUpti_ActivityMemoryKind, CUpti_ActivitySynchronizationType) and still coincide, but the recorder
 * maps CUPTI's values to them one by one (cupti/translate_kinds.c) and writes a value CUPTI adds later as the
 * UNKNOWN of its enum (0), never as CUPTI's bare number.
 * Copy kinds: H host, D device, A CUDA array, P peer device. */
enum gt_copy_kind {
	GT_COPY_UNKNOWN = 0, GT_COPY_HTOD = 1, GT_COPY_DTOH = 2, GT_COPY_HTOA = 3, GT_COPY_ATOH = 4,
	GT_COPY_ATOA = 5, GT_COPY_ATOD = 6, GT_COPY_DTOA = 7, GT_COPY_DTOD = 8, GT_COPY_HTOH = 9,
	GT_COPY_PTOP = 10,
};
/* Where memory lives: pageable or pinned host memory, device memory, a CUDA array, managed memory;
 * the static kinds are __device__ / __managed__ variables. */
enum gt_mem_kind {
	GT_MEM_UNKNOWN = 0, GT_MEM_PAGEABLE = 1, GT_MEM_PINNED = 2, GT_MEM_DEVICE = 3, GT_MEM_ARRAY = 4,
	GT_MEM_MANAGED = 5, GT_MEM_DEVICE_STATIC = 6, GT_MEM_MANAGED_STATIC = 7,
};
const char *gt_copy_kind_name(int kind); /* "HtoD", "DtoH", ...; "unknown" for others */
const char *gt_mem_kind_name(int kind);  /* "pageable", "pinned", "device", ... */

#define GT_COPY_ASYNC 0x1u /* the call was asynchronous (CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) */
#define GT_COPY_TOOL 0x2u  /* made by the recorder itself (shadow capture), not by the program:
                            * analyses of the program leave it out */

struct gt_memcpy {
	uint64_t start, end;
	uint64_t bytes;
	uint64_t graph_node_id;
	uint32_t correlation_id;
	uint32_t device_id;      /* device that executed it (source device for peer copies) */
	uint32_t dst_device_id;  /* peer copies: the other device; else same as device_id */
	uint32_t context_id;
	uint32_t stream_id;
	uint32_t graph_id;
	uint8_t copy_kind;       /* enum gt_copy_kind */
	uint8_t src_kind;        /* enum gt_mem_kind */
	uint8_t dst_kind;        /* enum gt_mem_kind */
	uint8_t flags;           /* GT_COPY_ASYNC, GT_COPY_TOOL */
	uint32_t reserved;
};

struct gt_memset {
	uint64_t start, end;
	uint64_t bytes;
	uint64_t graph_node_id;
	uint32_t correlation_id;
	uint32_t device_id;
	uint32_t context_id;
	uint32_t stream_id;
	uint32_t value;
	uint32_t graph_id;
	uint8_t mem_kind;        /* enum gt_mem_kind */
	uint8_t flags;           /* GT_COPY_ASYNC */
	uint16_t reserved16;
	uint32_t reserved;
};

enum gt_api_domain { GT_API_RUNTIME = 1, GT_API_DRIVER = 2 };

struct gt_api {
	uint64_t start, end;     /* ns, on the calling thread */
	uint64_t thread_id;      /* the OS thread id (gettid) where trace.thread_ids is "os", else pthread_self() */
	uint32_t name_id;        /* string: "cudaLaunchKernel" */
	uint32_t correlation_id;
	uint32_t cbid;           /* CUPTI callback id within the domain */
	uint32_t process_id;
	int32_t return_value;    /* the CUresult / cudaError_t the call returned */
	uint8_t domain;          /* enum gt_api_domain */
	uint8_t reserved8[3];
};

/* What a host-side synchronisation waited for: cudaEventSynchronize, cudaStreamWaitEvent,
 * cudaStreamSynchronize, cudaDeviceSynchronize / cuCtxSynchronize. */
enum gt_sync_kind {
	GT_SYNC_UNKNOWN = 0, GT_SYNC_EVENT = 1, GT_SYNC_STREAM_WAIT_EVENT = 2, GT_SYNC_STREAM = 3,
	GT_SYNC_CONTEXT = 4,
};
const char *gt_sync_kind_name(int kind);

struct gt_sync {
	uint64_t start, end;     /* ns, host side */
	uint32_t correlation_id;
	uint32_t context_id;
	uint32_t stream_id;      /* 0xffffffff when the sync is not on one stream */
	uint32_t event_id;
	uint8_t kind;            /* enum gt_sync_kind */
	uint8_t reserved8[7];
};

enum gt_nvtx_kind { GT_NVTX_MARK = 1, GT_NVTX_PUSH_POP = 2, GT_NVTX_START_END = 3 };

struct gt_nvtx {
	uint64_t start;          /* ns */
	uint64_t end;            /* ns; equals start for a mark; 0 for a range never closed */
	uint64_t range_id;       /* start/end ranges: the id nvtxRangeStart returned */
	uint32_t name_id;        /* string: the range's message */
	uint32_t domain_id;      /* string: the domain's name, 0 for the default domain */
	uint32_t thread_id;      /* as the API records' thread_id (low 32 bits: all of an OS thread id) */
	uint32_t depth;          /* push/pop nesting depth on its thread, 0 = top level */
	uint32_t color;          /* ARGB as the program set it, 0 if none */
	uint8_t kind;            /* enum gt_nvtx_kind */
	uint8_t reserved8[3];
};

enum gt_memory_op { GT_MEMORY_ALLOC = 1, GT_MEMORY_FREE = 2 };

struct gt_memory {
	uint64_t timestamp;
	uint64_t address;
	uint64_t bytes;
	uint32_t correlation_id;
	uint32_t device_id;
	uint32_t context_id;
	uint32_t stream_id;
	uint32_t process_id;
	uint8_t op;              /* enum gt_memory_op */
	uint8_t mem_kind;        /* enum gt_mem_kind */
	uint16_t reserved16;
};

/* Why records are missing. A trace says every loss it knows of. */
enum gt_drop_reason {
	GT_DROP_CUPTI = 1,       /* CUPTI dropped records (buffer full before it was handed over) */
	GT_DROP_BUFFER_LOST = 2, /* a buffer we could not take or write (no memory, disk error) */
	GT_DROP_FILTERED = 3,    /* records left out on purpose by a filter (GPUTRACE_KERNELS) */
	GT_DROP_BAD_RECORD = 4,  /* records CUPTI gave with impossible values (end < start, ...) */
	GT_DROP_CAPTURE = 5,     /* shadow captures skipped (caps reached, memory not copyable) */
	GT_DROP_UNKNOWN_KIND = 6,/* activity records of a kind we do not translate */
};
const char *gt_drop_reason_name(int reason);

struct gt_dropped {
	uint64_t timestamp;      /* when the loss was noticed (CUPTI clock, 0 if unknown) */
	uint64_t count;          /* records lost */
	uint32_t reason;         /* enum gt_drop_reason */
	uint32_t context_id;     /* 0 if not per context */
	uint32_t stream_id;
	uint32_t reserved;
};

enum gt_process_event {
	GT_PROCESS_START = 1,
	GT_PROCESS_EXIT = 2,     /* status = the exit status */
	GT_PROCESS_SIGNAL = 3,   /* status = the signal that ended it */
	GT_PROCESS_FORKED = 4,   /* a child's first record: status = the parent's pid */
	GT_PROCESS_EXEC = 5,     /* the process called exec: the trace ends here */
	GT_PROCESS_TRACING_OFF = 6, /* the recorder stopped tracing; the reason is in META "tracing.off" */
	GT_PROCESS_WINDOW_OPEN = 7, /* a recording window opened (GPUTRACE_WINDOW); status = its number */
	GT_PROCESS_WINDOW_CLOSE = 8,/* a recording window closed; status = its number */
};

struct gt_process {
	uint64_t timestamp;      /* CUPTI clock if known, else 0 (see host_ns) */
	uint64_t host_ns;        /* CLOCK_REALTIME */
	uint32_t pid;
	uint32_t event;          /* enum gt_process_event */
	int32_t status;
	uint32_t reserved;
};

enum gt_overhead_kind {
	GT_OVERHEAD_UNKNOWN = 0, GT_OVERHEAD_DRIVER_COMPILER = 1, GT_OVERHEAD_CUPTI_BUFFER_FLUSH = 2,
	GT_OVERHEAD_CUPTI_INSTRUMENTATION = 3, GT_OVERHEAD_CUPTI_RESOURCE = 4,
	GT_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING = 5, GT_OVERHEAD_LAZY_FUNCTION_LOADING = 6,
	GT_OVERHEAD_COMMAND_BUFFER_FULL = 7, GT_OVERHEAD_ACTIVITY_BUFFER_REQUEST = 8,
	GT_OVERHEAD_UVM_ACTIVITY_INIT = 9, GT_OVERHEAD_CAPTURE = 100, /* our own shadow capture */
};

/* What an overhead record's object_id names; the numbers are CUPTI's CUpti_ActivityObjectKind. */
enum gt_object_kind {
	GT_OBJECT_UNKNOWN = 0, GT_OBJECT_PROCESS = 1, GT_OBJECT_THREAD = 2, GT_OBJECT_DEVICE = 3,
	GT_OBJECT_CONTEXT = 4, GT_OBJECT_STREAM = 5,
};

struct gt_overhead {
	uint64_t start, end;
	uint64_t object_id;      /* thread or device, per object_kind */
	uint32_t kind;           /* enum gt_overhead_kind */
	uint32_t object_kind;    /* enum gt_object_kind */
};

/* Pairs CUPTI's clock with the host clocks; written at start and at end of recording. */
struct gt_clock_sync {
	uint64_t cupti_ns;
	uint64_t realtime_ns;    /* CLOCK_REALTIME */
	uint64_t monotonic_ns;   /* CLOCK_MONOTONIC */
};

/* Clock and throttle state of a device, sampled through NVML during the run. */
struct gt_clock_sample {
	uint64_t timestamp;      /* CUPTI clock */
	uint64_t throttle_reasons; /* nvmlClocksEventReasons bit mask */
	uint32_t device_id;
	uint32_t sm_clock_mhz;
	uint32_t mem_clock_mhz;
	uint32_t temperature_c;
	uint32_t power_mw;
	uint32_t utilization_gpu; /* percent */
};

/* A CUDA graph launch (cudaGraphLaunch / cuGraphLaunch) as the host issued it. */
struct gt_graph_launch {
	uint64_t start, end;     /* the API call, host side */
	uint32_t graph_id;
	uint32_t correlation_id;
	uint32_t stream_id;
	uint32_t reserved;
};

/* Hardware-counter records. A metric is named by its CUPTI metric name, a string
 * ("dram__bytes_read.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed"), whose suffix says
 * its unit: .sum a count over the interval, .per_second a rate, .pct_of_peak_* a percentage.
 * Values are IEEE-754 doubles, stored as their bits. A metric that could not be read is absent
 * (META says why), never a record holding 0. */
#define GT_METRIC_BAD_TIMES 0x1u /* the sampler gave no interval (end < start, zero times): never
                                  * placed on the timeline */
#define GT_METRIC_PARTIAL   0x2u /* the counters may miss part of the interval (the hardware buffer
                                  * overflowed or sampling stopped within it) */

/* One metric's value over one PM-sampling interval on one device (GPUTRACE_METRICS): device-wide,
 * not any one kernel's. */
struct gt_metric_sample {
	uint64_t start, end;     /* the interval, on the trace's clock */
	double value;            /* the metric over the interval */
	uint32_t device_id;
	uint32_t metric_id;      /* string: the CUPTI metric name */
	uint32_t flags;          /* GT_METRIC_* */
	uint32_t reserved;
};

/* One metric's exact value for one kernel launch, measured by replaying it under CUPTI's Range
 * Profiler (gputrace replay --metrics). */
struct gt_launch_metric {
	uint64_t start, end;     /* the launch's own times: its kernel record's */
	double value;            /* the metric over the launch */
	uint32_t device_id;
	uint32_t metric_id;      /* string: the CUPTI metric name */
	uint32_t name_id;        /* string: the mangled kernel name */
	uint32_t correlation_id; /* the replay trace's kernel record of this launch */
	uint32_t passes;         /* profiler passes the launch's metric set took */
	uint32_t flags;          /* GT_METRIC_BAD_TIMES, GT_METRIC_PARTIAL (a pass failed) */
};

/* ---- variable records ----------------------------------------------------------------------- */

/* GT_REC_DEVICE: this struct, then name_len bytes of the device's name. */
struct gt_device {
	uint32_t device_id;
	uint32_t sm_count;
	uint32_t cc_major, cc_minor;
	uint64_t global_mem_bytes;
	uint32_t sm_clock_khz;       /* maximum SM clock */
	uint32_t mem_clock_khz;      /* peak memory clock */
	uint32_t mem_bus_width_bits;
	uint32_t pcie_gen;           /* maximum link generation from NVML, 0 if unknown */
	uint32_t pcie_width;         /* maximum link width, 0 if unknown */
	uint32_t pcie_gen_current;   /* at recording start, 0 if unknown */
	uint32_t pcie_width_current;
	uint32_t l2_bytes;
	uint32_t max_threads_per_sm;
	uint32_t name_len;
	uint32_t reserved;
	uint8_t uuid[16];
};
/* Theoretical peaks, in bytes per second (decimal). Device memory: 2 (DDR) x clock x width / 8.
 * PCIe: per direction, from generation and width with the line encoding of each generation. 0 when
 * the inputs are unknown. */
double gt_device_peak_mem_bw(const struct gt_device *d);
double gt_device_peak_pcie_bw(const struct gt_device *d);

/* GT_REC_BLOB: large payloads (cubins, captured buffers) in pieces that fit a chunk. */
struct gt_blob_piece {
	uint64_t blob_id;
	uint64_t total_bytes;
	uint64_t offset;
	uint32_t kind;               /* enum gt_blob_kind */
	uint32_t piece_bytes;        /* bytes that follow */
};
enum gt_blob_kind { GT_BLOB_CUBIN = 1, GT_BLOB_BUFFER = 2 };

/* GT_REC_CAPTURE: one kernel launch captured for shadow replay. Layout: struct gt_capture, then
 * nparams x struct gt_capture_param, then param_bytes raw parameter bytes (the kernel's parameter
 * buffer exactly as launched). Buffers are BLOB records (kind GT_BLOB_BUFFER) written before it; the
 * module's cubin is a BLOB of kind GT_BLOB_CUBIN. Build and parse with gt_capture_encode/parse. */
#define GT_CAPTURE_STREAM_SYNCED 0x1u   /* the launch's stream was synchronised for the "after" copy */
#define GT_CAPTURE_LAYOUT_NVINFO 0x2u   /* layout came from the cubin's .nv.info */
#define GT_CAPTURE_LAYOUT_DRIVER 0x4u   /* layout came from cu{Kernel,Func}GetParamInfo */
#define GT_CAPTURE_LAYOUT_MISMATCH 0x8u /* the two layouts disagreed (the driver's was used) */
#define GT_CAPTURE_INCOMPLETE 0x10u     /* at least one parameter's memory was not captured */
#define GT_CAPTURE_MODULE_GUESSED 0x20u /* several loaded images hold a kernel of this name; the saved
                                         * one is the newest whose launch bounds admit the block */

struct gt_capture {
	uint64_t capture_id;         /* 1, 2, ... in launch order */
	uint64_t timestamp;          /* CUPTI clock at the launch call */
	uint64_t cubin_blob_id;      /* 0 if the module image was not saved */
	uint32_t name_id;            /* string: the mangled kernel name */
	uint32_t correlation_id;     /* the launch's API correlation id: pairs with the kernel record */
	uint32_t device_id;
	uint32_t stream_id;          /* CUPTI stream id, 0 if unknown */
	uint32_t grid[3];
	uint32_t block[3];
	uint32_t cluster[3];
	uint32_t dynamic_smem;
	uint32_t nparams;
	uint32_t param_bytes;
	uint32_t flags;              /* GT_CAPTURE_* */
	uint32_t launch_index;       /* which launch of this kernel this was (0-based) */
};

enum gt_param_kind {
	GT_PARAM_SCALAR = 1,         /* bytes only */
	GT_PARAM_POINTER = 2,        /* an 8-byte value that points into a device allocation */
	GT_PARAM_INNER_POINTER = 3,  /* an 8-byte word inside a by-value struct parameter (at offset,
	                              * 8-aligned in the parameter buffer) that points into a device
	                              * allocation; such entries follow the declared parameters, so
	                              * the declared ones keep their indices */
};
/* Either kind of pointer entry: an allocation was looked up (and copied when status is OK). */
#define GT_PARAM_IS_POINTER(kind) ((kind) == GT_PARAM_POINTER || (kind) == GT_PARAM_INNER_POINTER)
enum gt_param_status {
	GT_PARAM_OK = 0,             /* scalar, or pointer whose allocation was copied before and after */
	GT_PARAM_NOT_DEVICE = 1,     /* 8 bytes that are not a device address: treated as a scalar */
	GT_PARAM_MANAGED = 2,        /* managed memory: not copied */
	GT_PARAM_TOO_LARGE = 3,      /* over the byte cap: not copied */
	GT_PARAM_COPY_FAILED = 4,    /* the copy failed */
	GT_PARAM_STRUCT = 5,         /* a by-value struct (> 8 bytes): pointers inside it are not followed */
	GT_PARAM_STRUCT_SCANNED = 6, /* a by-value struct whose every 8-aligned word was looked up: each
	                              * that points into device memory follows as a GT_PARAM_INNER_POINTER
	                              * entry (pointers at unaligned offsets, or stored in device memory,
	                              * are still not seen) */
};

struct gt_capture_param {
	uint32_t offset;             /* in the parameter buffer */
	uint32_t size;
	uint32_t kind;               /* enum gt_param_kind */
	uint32_t status;             /* enum gt_param_status */
	uint64_t alloc_base;         /* pointer: base of its allocation (cuMemGetAddressRange) */
	uint64_t alloc_bytes;        /* pointer: size of its allocation */
	uint64_t before_blob;        /* pointer: BLOB id of the allocation before the launch, 0 if none */
	uint64_t after_blob;         /* pointer: BLOB id after the launch completed, 0 if none */
};

struct gt_event;
/* Serialises a capture into a malloc'ed buffer for gt_writer_add_var(GT_REC_CAPTURE). */
int gt_capture_encode(const struct gt_capture *c, const struct gt_capture_param *params,
                      const void *param_bytes, uint8_t **out, size_t *len);
/* Parses a CAPTURE event; the pointers point into the event's data (valid until the next read).
 * The parameter table may be unaligned there: read entries with gt_capture_param_get(). */
int gt_capture_parse(const struct gt_event *ev, struct gt_capture *c, const uint8_t **params_raw,
                     const uint8_t **param_bytes);
void gt_capture_param_get(const uint8_t *params_raw, uint32_t i, struct gt_capture_param *out);

/* GT_REC_END: totals of what the writer wrote, so a reader can tell a clean close from a cut. */
struct gt_end {
	uint64_t records;            /* all records before this one */
	uint64_t chunks;             /* chunks before the one holding this record */
	uint64_t host_ns;            /* CLOCK_REALTIME at close */
};

/* ---- writer ----------------------------------------------------------------------------------
 * Not thread-safe: one thread owns a writer (the recorder's writer thread). Records are buffered in
 * blocks per type; gt_writer_flush() writes them as one chunk. */
struct gt_writer;

#define GT_WRITE_NO_CLOBBER 0x1u /* fail with GT_ERR_EXISTS rather than replace a file */

struct gt_writer_options {
	int compression_level;       /* zstd level; 0 = default (3) */
	size_t chunk_bytes;          /* raw bytes that trigger a flush; 0 = default (1 MiB) */
};

int gt_writer_open(struct gt_writer **out, const char *path, unsigned flags,
                   const struct gt_writer_options *opt);
/* Takes ownership of fd on success (closed by gt_writer_close); on failure the caller keeps it. */
int gt_writer_open_fd(struct gt_writer **out, int fd, const struct gt_writer_options *opt);
/* Appends a fixed record; rec points to the struct of that type. */
int gt_writer_add(struct gt_writer *w, int type, const void *rec);
/* Appends a variable record of len bytes. */
int gt_writer_add_var(struct gt_writer *w, int type, const void *data, size_t len);
/* Returns the id of string s (interning it, and writing its definition the first time); 0 on error. */
uint32_t gt_writer_intern(struct gt_writer *w, const char *s);
uint32_t gt_writer_intern_n(struct gt_writer *w, const char *s, size_t len);
int gt_writer_meta(struct gt_writer *w, const char *key, const char *value);
int gt_writer_device(struct gt_writer *w, const struct gt_device *d, const char *name);
/* Writes a blob in pieces; returns its id (>0) or a negative error. */
int64_t gt_writer_blob(struct gt_writer *w, uint32_t kind, const void *data, uint64_t len);
/* Writes everything buffered as one chunk (no-op when nothing is buffered). */
int gt_writer_flush(struct gt_writer *w);
/* Writes the END record, flushes, closes the file and frees w. Safe with NULL. */
int gt_writer_close(struct gt_writer *w);
/* Frees w without writing END (what a crashed process would leave). Safe with NULL. */
void gt_writer_abandon(struct gt_writer *w);
/* Counters: bytes written to the file so far, records accepted. */
uint64_t gt_writer_bytes(const struct gt_writer *w);
uint64_t gt_writer_records(const struct gt_writer *w);

/* ---- reader ----------------------------------------------------------------------------------
 * Streams a file chunk by chunk; memory use is one chunk plus the definitions seen so far. */
struct gt_reader;

struct gt_event {
	int type;                    /* enum gt_rec_type (possibly one this reader does not know) */
	uint64_t offset;             /* file offset of the chunk holding the record */
	union {
		struct gt_kernel kernel;
		struct gt_memcpy memcpy;
		struct gt_memset memset;
		struct gt_api api;
		struct gt_sync sync;
		struct gt_nvtx nvtx;
		struct gt_memory memory;
		struct gt_dropped dropped;
		struct gt_process process;
		struct gt_overhead overhead;
		struct gt_clock_sync clock_sync;
		struct gt_clock_sample clock_sample;
		struct gt_graph_launch graph_launch;
		struct gt_metric_sample metric_sample;
		struct gt_launch_metric launch_metric;
		struct {
			const uint8_t *data; /* valid until the next gt_reader_next() */
			uint32_t len;
		} var;
	} u;
};

/* For a trace that arrives as a stream (a pipe), to be checked as it comes: the file header's
 * checks and a chunk header's checks that need only its own 32 bytes (magic, version, sizes,
 * the header's check word), the first ones gt_reader_open and the reader make. 0 with the file
 * header's size (where the first chunk starts) or the chunk's compressed size (the bytes that follow
 * its header); a negative GT_ERR_* when the reader would refuse the trace there. */
int gt_stream_file_header(const uint8_t h[32], uint32_t *header_bytes);
int gt_stream_chunk_header(const uint8_t h[32], uint32_t *csize);

/* Opens path and checks its file header. On failure returns < 0 and, when err is not NULL, writes a
 * one-line description there ("run.gtrace: not a gputrace file (bad magic at byte 0)"). */
int gt_reader_open(struct gt_reader **out, const char *path, char *err, size_t errlen);
/* Next record in file order: 1 = *ev filled, 0 = end of trace, < 0 = error (see gt_reader_error).
 * A file cut off inside a chunk ends (0) after the last complete chunk; gt_reader_tail() says so.
 * STRING, META and DEVICE records are also kept by the reader (lookups below) and still returned. */
int gt_reader_next(struct gt_reader *r, struct gt_event *ev);
/* Reads to the end, filling the definitions; for tools that want the metadata first. Restarts the
 * stream, so gt_reader_next() begins again at the first record afterwards. */
int gt_reader_scan_definitions(struct gt_reader *r);
int gt_reader_rewind(struct gt_reader *r);
void gt_reader_close(struct gt_reader *r);

/* "file.gtrace: bad chunk checksum at byte 4096" for the last failure; "" if none. */
const char *gt_reader_error(const struct gt_reader *r);
const char *gt_reader_path(const struct gt_reader *r);

struct gt_tail {
	int complete;                /* 1: the END record was read; 0: the trace stops early */
	uint64_t file_bytes;
	uint64_t good_bytes;         /* bytes up to the end of the last complete chunk */
	uint64_t lost_bytes;         /* file_bytes - good_bytes: an incomplete last chunk */
	uint64_t chunks;             /* complete chunks read so far */
	uint64_t records;            /* records read so far */
	uint64_t skipped_records;    /* records of types this reader does not know */
};
void gt_reader_tail(const struct gt_reader *r, struct gt_tail *t);
int gt_reader_version(const struct gt_reader *r, int *major, int *minor);

/* Definitions seen so far. */
const char *gt_reader_string(const struct gt_reader *r, uint32_t id); /* "" for 0 / unknown */
uint32_t gt_reader_string_count(const struct gt_reader *r);
const char *gt_reader_meta(const struct gt_reader *r, const char *key); /* NULL if absent */
size_t gt_reader_meta_count(const struct gt_reader *r);
int gt_reader_meta_at(const struct gt_reader *r, size_t i, const char **key, const char **value);
size_t gt_reader_device_count(const struct gt_reader *r);
/* NULL if i is out of range; name through *name. */
const struct gt_device *gt_reader_device_at(const struct gt_reader *r, size_t i, const char **name);
const struct gt_device *gt_reader_device(const struct gt_reader *r, uint32_t device_id,
                                         const char **name);

/* Parsers for variable records handed back by gt_reader_next(). */
int gt_parse_string(const struct gt_event *ev, uint32_t *id, const char **s, size_t *len);
int gt_parse_meta(const struct gt_event *ev, const char **key, size_t *key_len, const char **value,
                  size_t *value_len);
int gt_parse_blob(const struct gt_event *ev, struct gt_blob_piece *piece, const uint8_t **data);

#ifdef __cplusplus
}
#endif
#endif
