/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Functions libtracecmd exports but does not declare in its public
 * header (trace-cmd.h).  The prototypes and the compression protocol
 * structure are those of libtracecmd 1.3 (trace-cmd 3.1.x, Debian 12)
 * and unchanged up to 1.5; configure checks that the symbols link.
 */
#ifndef KVMTOP_TRACECMD_PRIV_H
#define KVMTOP_TRACECMD_PRIV_H

#include <stdbool.h>
#include <trace-cmd/trace-cmd.h>

struct tracecmd_compression_proto {
	int weight;
	const char *name;
	const char *version;
	int (*compress)(void *ctx, const void *in, int in_bytes, void *out, int out_bytes);
	int (*uncompress)(void *ctx, const void *in, int in_bytes, void *out, int out_bytes);
	unsigned int (*compress_size)(void *ctx, unsigned int bytes);
	bool (*is_supported)(const char *name, const char *version);
	void *(*new_context)(void);
	void (*free_context)(void *ctx);
};

int tracecmd_compress_proto_register(struct tracecmd_compression_proto *proto);
bool tracecmd_compress_is_supported(const char *name, const char *version);

const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);
int tracecmd_cpus(struct tracecmd_input *handle);
unsigned long tracecmd_get_flags(struct tracecmd_input *handle);
unsigned long tracecmd_get_in_file_version(struct tracecmd_input *handle);
int tracecmd_get_file_compress_proto(struct tracecmd_input *handle,
				     const char **name, const char **version);

/* tracecmd_get_flags(): timestamps were converted to nanoseconds */
#define TRACECMD_FL_IN_USECS	(1 << 2)

/* --- writing, for the test-data generator --- */
struct tracecmd_output;
struct tracecmd_event_list;
struct tracecmd_option;

enum {
	TRACECMD_OPTION_TRACECLOCK = 4,
	TRACECMD_OPTION_TSC2NSEC = 14,
};

struct tracecmd_output *tracecmd_output_create(const char *output_file);
int tracecmd_output_set_trace_dir(struct tracecmd_output *handle, const char *tracing_dir);
int tracecmd_output_set_kallsyms(struct tracecmd_output *handle, const char *kallsyms);
int tracecmd_output_set_version(struct tracecmd_output *handle, int file_version);
int tracecmd_output_set_compression(struct tracecmd_output *handle, const char *compression);
int tracecmd_output_write_headers(struct tracecmd_output *handle,
				  struct tracecmd_event_list *list);
struct tracecmd_option *tracecmd_add_option(struct tracecmd_output *handle,
					    unsigned short id, int size, const void *data);
int tracecmd_write_cmdlines(struct tracecmd_output *handle);
int tracecmd_append_cpu_data(struct tracecmd_output *handle,
			     int cpus, char * const *cpu_data_files);
void tracecmd_output_close(struct tracecmd_output *handle);
void tracecmd_set_quiet(struct tracecmd_output *handle, bool set_quiet);
void tracecmd_set_out_clock(struct tracecmd_output *handle, const char *clock);

#endif
