// SPDX-License-Identifier: GPL-2.0
/*
 * Live source "bpf": KVM's exits counted in the kernel.  One program
 * (bpf_kvm.bpf.c) runs at every KVM tracepoint the decoder binds and
 * adds each exit to its thread's counters, latency histogram and object
 * there; once per interval this loader flips the interval's parity,
 * waits for the programs still counting into the old one, reads its
 * entries in batches, deletes them, and adds them to the model.  No
 * record is written to a ring buffer and none is read in userspace.
 *
 * Reasons and objects are named by the decoder, as the trace source's:
 * the program keeps the raw fields the decoder reads (bpf_kvm.h), and
 * each key read becomes a record of those fields that decode_record()
 * takes like any other.
 *
 * Nothing outlives kvmtop: the programs, maps and links are held by its
 * file descriptors only (nothing pinned), so the kernel drops them when
 * it exits, whatever the signal.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "source.h"
#include "trace.h"
#include "decode/decode.h"
#include "model/model_feed.h"
#include "util/clock.h"

#ifdef HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_kvm.h"
#include "bpf_kvm.skel.h"

#define BPF_ENTRIES_DEFAULT	65536
#define BPF_BATCH		256	/* entries per batch lookup */
#define BPF_DRAIN_NS		100000000ull	/* the longest wait for the old interval's programs */
#define BPF_STEP_NS		500000000ull	/* the sampling step is set again after this long at least */

/* The program's time states are the model's, in its order. */
_Static_assert(KX_STATES == VS_NR && KX_ST_GUEST == VS_GUEST && KX_ST_HOST == VS_HOST && KX_ST_VMM == VS_VMM &&
	       KX_ST_HALT == VS_HALT && KX_ST_WAIT == VS_WAIT, "bpf_kvm.h's states are enum vcpu_state's");

/* The raw fields a kind of event keeps, in its slots' order (bpf_kvm.h). */
static const enum field_role exit_roles[KX_SLOTS] = { FR_REASON, FR_ISA, FR_AUX, FR_VCPU, FR_INFO1, FR_INFO2 };
static const enum field_role other_roles[KX_SLOTS] = { FR_AUX, FR_NR, FR_NR, FR_NR, FR_NR, FR_NR };
/* a companion's: its value and direction, then those of these it has (arm64's register: four parts, no size) */
static const enum field_role comp_more[] = { FR_REASON, FR_PART1, FR_PART2, FR_PART3, FR_PART4 };

struct bpf_src {
	struct bpf_kvm *skel;
	struct trace t;			/* only where tracefs is and the formats */
	struct tep_handle *tep;
	struct decoder d;
	bool decoding;
	struct bpf_link **links;
	size_t nr_links;
	unsigned int epoch;		/* the parity the programs count in now */
	int stats_fd;			/* BPF_ENABLE_STATS, with KVMTOP_BPF_STATS: the programs timed */
	bool svm_btf;			/* SVM's exits and entries through tp_btf, not their records */
	bool states;			/* the threads' time states and exit splits counted (sched programs) */
	bool opened;			/* the driver's reading as it opened came: the next is an interval's */
	uint64_t full_said[KX_MAP_NR];	/* refused updates already told */
	uint64_t full_counted;		/* refused updates already in the model's dropped events */
	uint64_t misses_counted;	/* the programs' skipped runs already in its lost events */
	/* sampled exits (--bpf-samples): the ring buffer, the model it feeds while consumed */
	struct ring_buffer *ring;
	struct model *m;
	unsigned int rate;		/* samples a second wanted, 0: none */
	uint64_t sampled_at;		/* when the sampling step was last set */
	uint64_t interval_exits;	/* the exits of the interval read */
	uint64_t step_exits;		/* the exits since sampled_at */
	bool sample_failed;		/* the model ran out of memory in the callback */
	uint64_t cutoff;		/* while the ring is read: samples from here on are the next interval's */
	struct kx_sample *later;	/* those, kept */
	size_t nr_later, alloc_later;
	char *rec;			/* a record rebuilt from a key's fields */
	size_t rec_len;
	/* one map's entries of the interval read, keys then values */
	void *keys, *vals;
	size_t nr;
	size_t kbytes, vbytes;		/* their sizes: maps' entries differ */
	/* the events counted in each thread's own counters, by their index there: their "other" ids */
	int index_other[KX_EVENTS];
	unsigned int nr_index;
	/*
	 * The threads the programs met, by tid, this interval's reading and
	 * the one before: who one that is gone was, and its counters' growth.
	 */
	struct bpf_thr {
		int tid;
		int tgid;
		int cpu;
		bool ended;
		char comm[16];
		char leader[16];
		uint64_t start;
		uint64_t ev[KX_EVENTS];
		uint64_t sub[KX_SUBS];
		/* its time in each state, per interval parity, from the start (the program's) */
		uint64_t tacc[2][KX_STATES];
		/* of these, what the intervals read had: of the parity read now, at its last reading */
		uint64_t seen[2][KX_STATES];
	} *thr, *prev;
	size_t nr_thr, nr_prev;
	/* the buckets of the lats read, sorted by their lat key */
	struct bpf_bucket {
		struct kx_bucket_key k;
		uint64_t n;
	} *bk;
	size_t nr_b;
};

/* The roles of event l's slots, into roles[KX_SLOTS] (FR_NR: an unused slot). */
static void roles_of(const struct decode_layout *l, enum field_role *roles)
{
	size_t i, n = 2;

	if (l->kind == KVM_EV_EXIT || !l->obj) {
		memcpy(roles, l->kind == KVM_EV_EXIT ? exit_roles : other_roles, KX_SLOTS * sizeof(*roles));
		return;
	}
	roles[0] = FR_INFO1;
	roles[1] = FR_INFO2;
	for (i = 0; i < sizeof(comp_more) / sizeof(comp_more[0]) && n < KX_SLOTS; i++)
		if (l->field[comp_more[i]].size)
			roles[n++] = comp_more[i];
	while (n < KX_SLOTS)
		roles[n++] = FR_NR;
}

static int decode_vals(struct bpf_src *b, int tid, int type, const uint64_t *vals, struct kvm_event *ev);
static int sample_one(void *ctx, void *data, size_t len);

/* Event type's id among the other events (names), decoded once: -1 where it is none. */
static int other_of(struct bpf_src *b, int type)
{
	uint64_t v[KX_SLOTS] = { 0 };
	struct kvm_event e;

	return decode_vals(b, 0, type, v, &e) > 0 && e.kind == KVM_EV_OTHER ? e.other : -1;
}

/* --- the program's configuration, per event --- */

static void cfg_of(const struct decode_layout *l, struct kx_cfg *c)
{
	enum field_role roles[KX_SLOTS];
	const struct exit_keep *k;
	int i;

	roles_of(l, roles);
	memset(c, 0, sizeof(*c));
	c->kind = l->kind == KVM_EV_EXIT ? KX_EXIT : l->kind == KVM_EV_ENTRY ? KX_ENTRY :
		  l->obj ? KX_COMP : KX_OTHER;
	c->index = KX_NO_INDEX;
	/* another event's sub-reason field: the userspace exit's */
	c->has_sub = c->kind == KX_OTHER && l->field[FR_AUX].size;
	for (i = 0; i < KX_SLOTS && c->kind != KX_ENTRY; i++) {
		if (roles[i] == FR_NR || !l->field[roles[i]].size)
			continue;
		c->slot[i].off = (uint16_t)l->field[roles[i]].off;
		c->slot[i].size = (uint8_t)l->field[roles[i]].size;
		c->slot[i].role = (uint8_t)roles[i];
	}
	if (c->kind == KX_EXIT && l->field[FR_IP].size) {
		c->ip.off = (uint16_t)l->field[FR_IP].off;
		c->ip.size = (uint8_t)l->field[FR_IP].size;
		c->ip.role = FR_IP;
	}
	for (k = l->keep; k && k->reason && c->nr_rules < KX_RULES; k++)
		c->rule[c->nr_rules++] = (struct kx_rule){
			.reason = k->reason, .isa = k->isa, .info1_mask = k->info1_mask,
			.info2_mask = k->info2_mask, .info2_if = k->info2_if,
		};
}

/* Every KVM event the decoder bound, configured and attached: 0, or -1 with one line in err. */
static int attach_events(struct bpf_src *b, char *err, size_t errlen)
{
	int cfg_fd = bpf_map__fd(b->skel->maps.cfg), type;
	struct decode_layout l;
	struct kx_cfg c;

	for (type = 0; type < b->d.nr_ids; type++) {
		LIBBPF_OPTS(bpf_tracepoint_opts, opts);
		struct bpf_link *link, **links;
		uint32_t key = (uint32_t)type;

		if (!decode_layout(&b->d, type, &l) || l.kind > KVM_EV_OTHER)
			continue;
		cfg_of(&l, &c);
		/* with tp_btf, SVM's exits and entries are its programs' (their cfg is read all the same) */
		if (b->svm_btf && (l.kind == KVM_EV_EXIT || l.kind == KVM_EV_ENTRY)) {
			if (bpf_map_update_elem(cfg_fd, &key, &c, BPF_ANY))
				goto out_cfg;
			continue;
		}
		/* KVMTOP_BPF_EVENTS_MAP (tests): every one the way of those past KX_EVENTS */
		if ((c.kind == KX_OTHER || c.kind == KX_COMP) && b->nr_index < KX_EVENTS &&
		    !getenv("KVMTOP_BPF_EVENTS_MAP")) {
			c.index = (uint16_t)b->nr_index;
			b->index_other[b->nr_index++] = other_of(b, type);
		}
		/* the userspace exit: its thread is in the VMM until its next entry (model_time.c) */
		c.to_vmm = c.kind == KX_OTHER && b->d.names->uexit_other >= 0 &&
			   other_of(b, type) == b->d.names->uexit_other;
		if (bpf_map_update_elem(cfg_fd, &key, &c, BPF_ANY))
			goto out_cfg;
		opts.bpf_cookie = (__u64)type;
		link = bpf_program__attach_tracepoint_opts(b->skel->progs.kx_event, l.system, l.name, &opts);
		if (!link) {
			snprintf(err, errlen, "bpf: attaching to the tracepoint %s:%s: %s", l.system, l.name,
				 strerror(errno));
			return -1;
		}
		links = reallocarray(b->links, b->nr_links + 1, sizeof(*links));
		if (!links) {
			bpf_link__destroy(link);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		b->links = links;
		b->links[b->nr_links++] = link;
	}
	if (!b->nr_links) {
		snprintf(err, errlen, "bpf: this kernel's KVM events have no exit event to count");
		return -1;
	}
	return 0;
out_cfg:
	snprintf(err, errlen, "bpf: configuring event %s:%s: %s", l.system, l.name, strerror(errno));
	return -1;
}

/*
 * On SVM with the kvm_amd module's BTF, the exits and entries go through
 * tp_btf (the VMCB read where the record would be written from): the
 * classic kvm_exit's and kvm_entry's ids set for its programs, which
 * otherwise are not loaded.  KVMTOP_BPF_CLASSIC: the records, as on VMX.
 */
static void choose_svm_btf(struct bpf_src *b)
{
	struct decode_layout l;
	int type, exit_type = -1, entry_type = -1;

	for (type = 0; type < b->d.nr_ids; type++) {
		if (!decode_layout(&b->d, type, &l) || strcmp(l.system, "kvm"))
			continue;
		if (l.kind == KVM_EV_EXIT && !strcmp(l.name, "kvm_exit"))
			exit_type = type;
		else if (l.kind == KVM_EV_ENTRY && !strcmp(l.name, "kvm_entry"))
			entry_type = type;
	}
	b->svm_btf = exit_type >= 0 && entry_type >= 0 && !getenv("KVMTOP_BPF_CLASSIC") &&
		     !access("/sys/module/kvm_amd", F_OK) && !access("/sys/kernel/btf/kvm_amd", R_OK);
	bpf_program__set_autoload(b->skel->progs.kx_exit_svm, b->svm_btf);
	bpf_program__set_autoload(b->skel->progs.kx_entry_btf, b->svm_btf);
	b->skel->rodata->kx_exit_type = (uint32_t)exit_type;
	b->skel->rodata->kx_entry_type = (uint32_t)entry_type;
	/* a test's: a source that counts wrong (kvmtop(1), ENVIRONMENT) */
	b->skel->rodata->kx_skew = getenv("KVMTOP_BPF_SKEW") && !strcmp(getenv("KVMTOP_BPF_SKEW"), "1");
}

/*
 * The samples' ring buffer: room for two seconds of them at the rate (it
 * is read each second, and at each interval), and 1 MiB at least, for
 * the bursts before the first step is set (every exit a sample); a power
 * of two of pages.
 */
static unsigned int ring_bytes(unsigned int rate)
{
	uint64_t want = 2ull * rate * (sizeof(struct kx_sample) + 8);
	unsigned int n = 1u << 20;

	while (n < want && n < (1u << 28))
		n <<= 1;
	return n;
}

/* The maps sized, the programs loaded: 0, or -1 with one line in err. */
static int load(struct bpf_src *b, const struct source_config *sc, char *err, size_t errlen)
{
	struct bpf_map *maps[] = {
		b->skel->maps.threads, b->skel->maps.exits, b->skel->maps.lats,
		b->skel->maps.buckets, b->skel->maps.events, b->skel->maps.steal,
	};
	unsigned int n = sc->bpf_entries ? sc->bpf_entries : BPF_ENTRIES_DEFAULT;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		bpf_map__set_max_entries(maps[i], n);
	bpf_map__set_max_entries(b->skel->maps.cfg, b->d.nr_ids > 0 ? (unsigned int)b->d.nr_ids : 1);
	bpf_map__set_max_entries(b->skel->maps.samples, ring_bytes(sc->bpf_samples));
	bpf_map__set_max_entries(b->skel->maps.steal, n);
	ret = libbpf_num_possible_cpus();
	bpf_map__set_max_entries(b->skel->maps.cpus, ret > 0 ? (unsigned int)ret : KX_CPUS);
	ret = bpf_kvm__load(b->skel);
	if (ret) {
		char why[128];

		libbpf_strerror(ret, why, sizeof(why));
		snprintf(err, errlen, "bpf: loading the programs: %s (%s; KVMTOP_BPF_DEBUG=1 shows libbpf's messages)",
			 why, ret == -EPERM || ret == -EACCES ? "they need root, or CAP_BPF and CAP_PERFMON" :
			 "they need a kernel with BTF and BPF tracepoint programs, Linux 5.15 or later");
		return -1;
	}
	return 0;
}

/*
 * The programs opened against the running kernel's BTF, or the file
 * KVMTOP_BPF_BTF names (a kernel built without it: its BTF made apart, as
 * BTFHub's): 0, or -1 with one line in err.
 */
static int skel_open(struct bpf_src *b, char *err, size_t errlen)
{
	const char *btf = getenv("KVMTOP_BPF_BTF");
	LIBBPF_OPTS(bpf_object_open_opts, opts, .btf_custom_path = btf && *btf ? btf : NULL);

	if (opts.btf_custom_path && access(opts.btf_custom_path, R_OK)) {
		snprintf(err, errlen, "bpf: KVMTOP_BPF_BTF=%s: %s", opts.btf_custom_path, strerror(errno));
		return -1;
	}
	if (!opts.btf_custom_path && access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(err, errlen,
			 "bpf: this kernel has no BTF (/sys/kernel/btf/vmlinux: %s): the bpf source needs a kernel built with CONFIG_DEBUG_INFO_BTF, or its BTF in a file named by KVMTOP_BPF_BTF",
			 strerror(errno));
		return -1;
	}
	b->skel = bpf_kvm__open_opts(&opts);
	if (!b->skel) {
		snprintf(err, errlen, "bpf: opening the programs: %s", strerror(errno ? errno : ENOMEM));
		return -1;
	}
	return 0;
}

/* libbpf's own lines go to stderr only with KVMTOP_BPF_DEBUG: kvmtop says one line of its own. */
static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!getenv("KVMTOP_BPF_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/*
 * KVMTOP_BPF_STATS=FILE (make bench): the programs' runs and their time
 * in the kernel, as BPF_ENABLE_STATS counted them while kvmtop held its
 * fd (its own, not the host-wide sysctl), written as one JSON line.
 */
static void stats_start(struct bpf_src *b)
{
	b->stats_fd = getenv("KVMTOP_BPF_STATS") ? bpf_enable_stats(BPF_STATS_RUN_TIME) : -1;
}

static void stats_write(struct bpf_src *b)
{
	const char *path = getenv("KVMTOP_BPF_STATS");
	/* the KVM events' program, the threads' end's, the scheduler's (every switch and wakeup on the host) */
	struct bpf_program *progs[] = {
		b->skel->progs.kx_event, b->skel->progs.kx_thread_end, b->skel->progs.kx_switch,
		b->skel->progs.kx_waking,
	};
	unsigned long long runs[4] = { 0 }, ns[4] = { 0 };
	FILE *f;
	size_t i;

	if (!path || b->stats_fd < 0)
		return;
	for (i = 0; i < 4; i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (bpf_program__fd(progs[i]) >= 0 && !bpf_obj_get_info_by_fd(bpf_program__fd(progs[i]), &info, &len)) {
			runs[i] = info.run_cnt;
			ns[i] = info.run_time_ns;
		}
	}
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "{\"event_runs\":%llu,\"event_run_ns\":%llu,\"exit_runs\":%llu,\"exit_run_ns\":%llu,"
		"\"switch_runs\":%llu,\"switch_run_ns\":%llu,\"waking_runs\":%llu,\"waking_run_ns\":%llu}\n",
		runs[0], ns[0], runs[1], ns[1], runs[2], ns[2], runs[3], ns[3]);
	fclose(f);
}

/* The start-up comparison's window, told the programs before it opens (from first: none counts yet). */
static void check_window(void *ctx, uint64_t from, uint64_t to)
{
	struct bpf_src *b = ctx;

	b->skel->bss->kx_check_from = from;
	__atomic_store_n(&b->skel->bss->kx_check_to, to, __ATOMIC_RELEASE);
}

/*
 * bpf as kvmtop's default: the exits the programs counted in the first ms
 * against the kvm_exit records a tracefs instance holds of the same span
 * (trace_counts_agree()).  0 (equal, or no count to hold it to), or -1
 * with one line in err.
 */
static int check_exits(struct bpf_src *b, unsigned int ms, char *err, size_t errlen)
{
	char why[256];
	int64_t want = trace_count_exits(b->tep, ms, check_window, b, why, sizeof(why));
	uint64_t got = __atomic_load_n(&b->skel->bss->kx_check_n, __ATOMIC_ACQUIRE);

	b->skel->bss->kx_check_to = 0;
	if (getenv("KVMTOP_BPF_DEBUG"))
		fprintf(stderr, "kvmtop: bpf: start-up comparison: %" PRIu64 " VM exits in %u ms, tracefs %" PRId64 "%s%s\n",
			got, ms, want, want < 0 ? ": " : "", want < 0 ? why : "");
	if (want < 0 || trace_counts_agree(got, (uint64_t)want))
		return 0;
	snprintf(err, errlen, "bpf: its programs counted %" PRIu64 " VM exits in its first %u ms, tracefs %" PRId64,
		 got, ms, want);
	return -1;
}

static void bpf_source_close(struct source *src);

static int bpf_source_open(struct source *src, const struct source_config *c, struct kvm_names *names,
			   char *err, size_t errlen)
{
	struct bpf_src *b = src->priv;

	libbpf_set_print(libbpf_quiet);
	b->tep = trace_kvm_formats(&b->t, err, errlen);
	if (!b->tep)
		return -1;
	if (decode_init(&b->d, b->tep, names, err, errlen))
		goto out_close;
	b->decoding = true;
	if (!b->d.std_common) {
		snprintf(err, errlen, "bpf: this kernel's events have no standard common fields");
		goto out_close;
	}
	b->stats_fd = -1;
	b->rec_len = (size_t)b->d.rec_max;
	b->rec = calloc(1, b->rec_len);
	if (!b->rec || skel_open(b, err, errlen))
		goto out_close;
	choose_svm_btf(b);
	if (load(b, c, err, errlen))
		goto out_close;
	/*
	 * the first interval starts now, before any program runs: a thread's
	 * first state counts from it (its start left 0, the first state of a
	 * thread met at once counted from the boot)
	 */
	b->skel->bss->kx_epoch_ns[0] = clock_mono_ns();
	src->started_at = b->skel->bss->kx_epoch_ns[0];
	if (attach_events(b, err, errlen))
		goto out_close;
	stats_start(b);
	b->rate = c->bpf_samples;
	b->ring = ring_buffer__new(bpf_map__fd(b->skel->maps.samples), sample_one, b, NULL);
	if (!b->ring) {
		snprintf(err, errlen, "bpf: the samples' ring buffer: %s", strerror(errno));
		goto out_close;
	}
	/* every exit until the first interval says how many come */
	b->skel->bss->kx_every = b->rate ? 1 : 0;
	/* its threads' time states, splits and who took their CPU */
	b->states = true;
	names->sched = true;

	if (bpf_kvm__attach(b->skel)) {
		snprintf(err, errlen, "bpf: attaching its programs (sched_process_exit; kvm_exit and kvm_entry through tp_btf on SVM): %s", strerror(errno));
		goto out_close;
	}
	if (c->bpf_check_ms && check_exits(b, c->bpf_check_ms, err, errlen))
		goto out_close;
	if (b->t.mounted_by_us)
		fprintf(stderr, "kvmtop: tracefs was not mounted: mounted it at %s\n", b->t.dir);
	strlcpy(src->clock, "mono", sizeof(src->clock));
	src->time_unit = "ns";
	src->ns = true;
	src->live = true;
	src->each_event = true;
	return 0;
out_close:
	bpf_source_close(src);
	return -1;
}

static void bpf_source_close(struct source *src)
{
	struct bpf_src *b = src->priv;
	size_t i;

	if (b->skel)
		stats_write(b);
	if (b->stats_fd > 0)
		close(b->stats_fd);

	ring_buffer__free(b->ring);
	for (i = 0; i < b->nr_links; i++)
		bpf_link__destroy(b->links[i]);
	free(b->links);
	bpf_kvm__destroy(b->skel);
	if (b->decoding)
		decode_free(&b->d);
	if (b->tep)
		tep_free(b->tep);
	free(b->rec);
	free(b->keys);
	free(b->vals);
	free(b->bk);
	free(b->later);
	free(b->thr);
	free(b->prev);
	memset(b, 0, sizeof(*b));
}

/* --- an interval's entries --- */

/* How many programs are still busy in parity e, on every CPU. */
static uint64_t busy(const struct bpf_kvm__bss *bss, unsigned int e)
{
	uint64_t n = 0;
	int cpu;

	for (cpu = 0; cpu < KX_CPUS; cpu++)
		n += __atomic_load_n(&bss->kx_busy[cpu].n[e], __ATOMIC_SEQ_CST);
	return n;
}

/*
 * Every thread's time to start, the new interval's start: what each spent
 * since its last change goes to the interval read now (program kx_cut).
 */
static void cut(struct bpf_src *b, uint64_t start)
{
	struct kx_cut c = { .start = start, .e = b->epoch & 1 };
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = &c, .ctx_size_in = sizeof(c));

	if (b->states)
		bpf_prog_test_run_opts(bpf_program__fd(b->skel->progs.kx_cut), &o);
}

/*
 * A new interval: its start, then its parity, for the programs; the old
 * parity's programs done (each leaves it within microseconds, a wait here
 * is bounded all the same), then every thread's time cut at the start.
 */
static uint64_t flip(struct bpf_src *b)
{
	struct bpf_kvm__bss *bss = b->skel->bss;
	unsigned int old = b->epoch & 1;
	struct timespec ts = { 0, 20000 };
	uint64_t waited = 0, start = clock_mono_ns();

	b->epoch++;
	__atomic_store_n(&bss->kx_epoch_ns[b->epoch & 1], start, __ATOMIC_SEQ_CST);
	__atomic_store_n(&bss->kx_epoch, b->epoch & 1, __ATOMIC_SEQ_CST);
	while (busy(bss, old) && waited < BPF_DRAIN_NS) {
		nanosleep(&ts, NULL);
		waited += 20000;
	}
	cut(b, start);
	return start;
}

/* Room for n more entries of ksz + vsz bytes: 0, or -1. */
static int room(struct bpf_src *b, size_t n, size_t ksz, size_t vsz)
{
	void *k, *v;

	n = (b->nr + n) * 2;
	if (n * ksz > b->kbytes) {
		k = realloc(b->keys, n * ksz);
		if (!k)
			return -1;
		b->keys = k;
		b->kbytes = n * ksz;
	}
	if (n * vsz > b->vbytes) {
		v = realloc(b->vals, n * vsz);
		if (!v)
			return -1;
		b->vals = v;
		b->vbytes = n * vsz;
	}
	return 0;
}

/*
 * The entries of map fd whose epoch byte (at eoff in the key) is the old
 * parity, into b->keys and b->vals (b->nr of them), and out of the map;
 * eoff ALL: every entry, left there.  0, or -1 with errno.
 */
#define ALL	SIZE_MAX
static int drain(struct bpf_src *b, int fd, size_t ksz, size_t vsz, size_t eoff)
{
	uint8_t old = (uint8_t)((b->epoch - 1) & 1);
	char in[16], out[16];
	bool first = true;
	size_t i, kept;

	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	b->nr = 0;
	for (;;) {
		__u32 count = BPF_BATCH;
		int ret;

		if (room(b, BPF_BATCH, ksz, vsz))
			return -1;
		ret = bpf_map_lookup_batch(fd, first ? NULL : in, out, (char *)b->keys + b->nr * ksz,
					   (char *)b->vals + b->nr * vsz, &count, &opts);
		if (ret && errno != ENOENT)
			return -1;
		/* only the old interval's: the new one's keep counting */
		for (i = 0, kept = 0; i < count; i++) {
			char *k = (char *)b->keys + (b->nr + i) * ksz;

			if (eoff != ALL && (uint8_t)k[eoff] != old)
				continue;
			memmove((char *)b->keys + (b->nr + kept) * ksz, k, ksz);
			memmove((char *)b->vals + (b->nr + kept) * vsz, (char *)b->vals + (b->nr + i) * vsz, vsz);
			kept++;
		}
		b->nr += kept;
		if (ret)
			break;
		memcpy(in, out, sizeof(in));
		first = false;
	}
	for (i = 0; eoff != ALL && i < b->nr; i += BPF_BATCH) {
		__u32 count = b->nr - i < BPF_BATCH ? (__u32)(b->nr - i) : BPF_BATCH;

		if (bpf_map_delete_batch(fd, (char *)b->keys + i * ksz, &count, &opts) && errno != ENOENT)
			return -1;
	}
	return 0;
}

/*
 * The event a key's fields make (an exit's guest IP ip where its record
 * has one, 0: none), decoded: 1, 0 (not ours), -1 (no memory).
 */
static int decode_ip(struct bpf_src *b, int tid, int type, const uint64_t *vals, uint64_t ip,
		     struct kvm_event *ev)
{
	enum field_role roles[KX_SLOTS];
	struct decode_layout l;
	struct tep_record rec;
	uint16_t t16 = (uint16_t)type;
	int32_t pid = tid;
	int i;

	if (!decode_layout(&b->d, type, &l) || (size_t)l.rec_size > b->rec_len)
		return 0;
	roles_of(&l, roles);
	/* only what this event's record spans: rec_len is the largest any can be */
	memset(b->rec, 0, (size_t)(l.rec_size > 8 ? l.rec_size : 8));
	memcpy(b->rec, &t16, sizeof(t16));
	memcpy(b->rec + 4, &pid, sizeof(pid));
	for (i = 0; i < KX_SLOTS && l.kind != KVM_EV_ENTRY; i++)
		if (roles[i] != FR_NR && l.field[roles[i]].size)
			memcpy(b->rec + l.field[roles[i]].off, &vals[i], (size_t)l.field[roles[i]].size);
	if (ip && l.kind == KVM_EV_EXIT && l.field[FR_IP].size == sizeof(ip))
		memcpy(b->rec + l.field[FR_IP].off, &ip, sizeof(ip));
	memset(&rec, 0, sizeof(rec));
	rec.data = b->rec;
	rec.size = l.rec_size > 8 ? l.rec_size : 8;
	return decode_record(&b->d, &rec, ev);
}

static int decode_vals(struct bpf_src *b, int tid, int type, const uint64_t *vals, struct kvm_event *ev)
{
	return decode_ip(b, tid, type, vals, 0, ev);
}

/* What companion comp names, where it names an object, as exit ex's object. */
static void obj_of_comp(struct kvm_event *ex, const struct kvm_event *comp)
{
	if (comp->obj_kind == KVM_OBJ_NONE)
		return;
	ex->obj_kind = comp->obj_kind;
	ex->obj = comp->obj;
	ex->obj_dir = comp->obj_dir;
	ex->obj_size = comp->obj_size;
}

static int bucket_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct kx_bucket_key));
}

/*
 * The lat key's histogram of kind (KX_B_LAT: its latencies, KX_B_HANDLING:
 * their time on a CPU): its figures, and its buckets where it has more
 * than two samples.
 */
static int lat_hist(struct bpf_src *b, const struct kx_lat_key *k, unsigned int kind, const struct kx_lat *v,
		    struct hist *h)
{
	long double n = (long double)v->n, s = (long double)v->dsum;
	long double sq = (long double)v->sq_hi * 18446744073709551616.0L + (long double)v->sq;
	size_t lo = 0, hi = b->nr_b;

	hist_init(h);
	while (v->n > 2 && lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (memcmp(&b->bk[mid].k.l, k, sizeof(*k)) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; v->n > 2 && lo < b->nr_b && !memcmp(&b->bk[lo].k.l, k, sizeof(*k)); lo++)
		if (b->bk[lo].k.kind == kind && hist_bucket_add(h, b->bk[lo].k.bucket, b->bk[lo].n))
			return -1;
	h->samples = v->n;
	h->sum = v->sum;
	h->sum_hi = v->sum_hi;
	h->min = v->min;
	h->max = v->max;
	h->m2 = v->n ? (double)(sq - s * s / n) : 0.0;
	if (h->m2 < 0)
		h->m2 = 0;
	return 0;
}

/* The buckets of the interval with their counts, sorted by key for lat_hist(): 0, or -1 with errno. */
static int read_buckets(struct bpf_src *b)
{
	size_t i;

	if (drain(b, bpf_map__fd(b->skel->maps.buckets), sizeof(struct kx_bucket_key), sizeof(uint64_t),
		  offsetof(struct kx_bucket_key, l.x.epoch)))
		return -1;
	free(b->bk);
	b->bk = malloc((b->nr ? b->nr : 1) * sizeof(*b->bk));
	if (!b->bk)
		return -1;
	for (i = 0; i < b->nr; i++) {
		b->bk[i].k = ((const struct kx_bucket_key *)b->keys)[i];
		b->bk[i].n = ((const uint64_t *)b->vals)[i];
	}
	qsort(b->bk, b->nr, sizeof(*b->bk), bucket_cmp);
	b->nr_b = b->nr;
	return 0;
}

/* The split of a lat key's exits (their time on a CPU, runnable, asleep) into the model: 0, or -1. */
static int feed_split(struct bpf_src *b, struct model *m, const struct kx_lat_key *k, const struct kx_lats *v,
		      const struct kvm_event *ex)
{
	struct hist h;
	int ret;

	if (lat_hist(b, k, KX_B_HANDLING, &v->handling, &h))
		return -1;
	ret = model_agg_split(m, (int)k->x.tid, ex->vcpu_id != KVM_VCPU_NONE ? (int)ex->vcpu_id : -1,
			      ex->reason_id, &h, v->preempted, v->blocked);
	hist_free(&h);
	return ret;
}

/* One lat entry into the model: 0, or -1 (no memory). */
static int feed_lat(struct bpf_src *b, struct model *m, const struct kx_lat_key *k, const struct kx_lats *v)
{
	struct kvm_event ex, comp;
	struct model_obj_key obj, *o = NULL;
	struct hist h;
	int ret;

	ret = decode_vals(b, (int)k->x.tid, k->x.type, k->x.vals, &ex);
	if (ret <= 0 || ex.kind != KVM_EV_EXIT)
		return ret < 0 ? -1 : 0;
	if (ex.obj_kind != KVM_OBJ_NONE)
		o = &obj;
	comp.obj_kind = KVM_OBJ_NONE;
	if (k->comp_type && decode_vals(b, (int)k->x.tid, k->comp_type, k->comp, &comp) < 0)
		return -1;
	if (comp.obj_kind != KVM_OBJ_NONE)
		o = &obj;
	obj_of_comp(&ex, &comp);
	memset(&obj, 0, sizeof(obj));
	obj.value = ex.obj;
	obj.reason_id = ex.reason_id;
	obj.kind = (uint8_t)ex.obj_kind;
	obj.dir = ex.obj_dir;
	obj.size = ex.obj_size;
	if (lat_hist(b, k, KX_B_LAT, &v->lat, &h))
		return -1;
	ret = model_agg_latencies(m, (int)k->x.tid, ex.vcpu_id != KVM_VCPU_NONE ? (int)ex.vcpu_id : -1,
				  ex.reason_id, o, &h);
	hist_free(&h);
	if (!ret && b->states)
		ret = feed_split(b, m, k, v, &ex);
	/* each of them ended with an entry, a KVM event the program counts here only */
	return ret ? ret : model_agg_events(m, (int)k->x.tid, -1, -1, v->lat.n);
}

/* The exits and latencies of the interval: 0, or -1 (errno, ENOMEM). */
static int read_exits(struct bpf_src *b, struct model *m)
{
	struct kvm_event ev;
	size_t i;
	int ret;

	if (drain(b, bpf_map__fd(b->skel->maps.exits), sizeof(struct kx_exit_key), sizeof(uint64_t),
		  offsetof(struct kx_exit_key, epoch)))
		return -1;
	b->interval_exits = 0;
	for (i = 0; i < b->nr; i++) {
		const struct kx_exit_key *k = (const struct kx_exit_key *)b->keys + i;
		uint64_t n = ((const uint64_t *)b->vals)[i];

		b->interval_exits += n;
		ret = decode_vals(b, (int)k->tid, k->type, k->vals, &ev);
		if (ret < 0)
			goto out_nomem;
		/* an exit is a KVM event too: the program counts it here only */
		if (ret && ev.kind == KVM_EV_EXIT &&
		    (model_agg_exits(m, (int)k->tid, ev.vcpu_id != KVM_VCPU_NONE ? (int)ev.vcpu_id : -1,
				     ev.reason_id, n) || model_agg_events(m, (int)k->tid, -1, -1, n)))
			goto out_nomem;
	}
	if (read_buckets(b) ||
	    drain(b, bpf_map__fd(b->skel->maps.lats), sizeof(struct kx_lat_key), sizeof(struct kx_lats),
		  offsetof(struct kx_lat_key, x.epoch)))
		return -1;
	for (i = 0; i < b->nr; i++)
		if (feed_lat(b, m, (const struct kx_lat_key *)b->keys + i, (const struct kx_lats *)b->vals + i))
			goto out_nomem;
	return 0;
out_nomem:
	errno = ENOMEM;
	return -1;
}

/* Who ran while each thread waited, this interval: 0, or -1 (errno; ENOMEM). */
static int read_steal(struct bpf_src *b, struct model *m)
{
	size_t i;

	if (!b->states)
		return 0;
	if (drain(b, bpf_map__fd(b->skel->maps.steal), sizeof(struct kx_steal_key), sizeof(struct kx_steal),
		  offsetof(struct kx_steal_key, epoch)))
		return -1;
	for (i = 0; i < b->nr; i++) {
		const struct kx_steal_key *k = (const struct kx_steal_key *)b->keys + i;
		const struct kx_steal *v = (const struct kx_steal *)b->vals + i;
		char comm[sizeof(v->comm) + 1];

		memcpy(comm, v->comm, sizeof(v->comm));
		comm[sizeof(v->comm)] = '\0';
		if (model_agg_steal(m, (int)k->tid, k->thief == KX_THIEF_UNSEEN ? -1 : (int)k->thief, comm, v->ns)) {
			errno = ENOMEM;
			return -1;
		}
	}
	return 0;
}

/* Every event counted, and the unmatched: 0, or -1 (errno). */
static int read_events(struct bpf_src *b, struct model *m)
{
	struct kvm_event ev;
	size_t i;
	int ret;

	if (drain(b, bpf_map__fd(b->skel->maps.events), sizeof(struct kx_event_key), sizeof(uint64_t),
		  offsetof(struct kx_event_key, epoch)))
		return -1;
	for (i = 0; i < b->nr; i++) {
		const struct kx_event_key *k = (const struct kx_event_key *)b->keys + i;
		uint64_t n = ((const uint64_t *)b->vals)[i], v[KX_SLOTS] = { k->sub };

		if (k->type == KX_UNMATCHED_EXIT || k->type == KX_UNMATCHED_ENTRY) {
			model_agg_unmatched(m, (int)k->tid, k->type == KX_UNMATCHED_EXIT ? n : 0,
					    k->type == KX_UNMATCHED_ENTRY ? n : 0);
			/* an entry without its exit is a KVM event, counted here only */
			if (k->type == KX_UNMATCHED_ENTRY && model_agg_events(m, (int)k->tid, -1, -1, n)) {
				errno = ENOMEM;
				return -1;
			}
			continue;
		}
		ret = decode_vals(b, (int)k->tid, k->type, v, &ev);
		if (ret < 0 || (ret && model_agg_events(m, (int)k->tid, ev.kind == KVM_EV_OTHER ? ev.other : -1,
							 ev.sub, n))) {
			errno = ENOMEM;
			return -1;
		}
	}
	return 0;
}

static int thr_cmp(const void *a, const void *b)
{
	const struct bpf_thr *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The threads the programs met, for ident: 0, or -1 (errno). */
static int read_threads(struct bpf_src *b)
{
	size_t i;

	if (drain(b, bpf_map__fd(b->skel->maps.threads), sizeof(uint32_t), sizeof(struct kx_thread), ALL))
		return -1;
	/* this reading becomes the one before */
	free(b->prev);
	b->prev = b->thr;
	b->nr_prev = b->nr_thr;
	b->nr_thr = 0;
	b->thr = calloc(b->nr ? b->nr : 1, sizeof(*b->thr));
	if (!b->thr)
		return -1;
	for (i = 0; i < b->nr; i++) {
		const struct kx_thread *t = (const struct kx_thread *)b->vals + i;
		struct bpf_thr *o = &b->thr[b->nr_thr++];

		o->tid = (int)((const uint32_t *)b->keys)[i];
		o->tgid = (int)t->tgid;
		o->cpu = (int)t->cpu;
		o->ended = t->ended;
		memcpy(o->comm, t->comm, sizeof(o->comm));
		o->comm[sizeof(o->comm) - 1] = '\0';
		memcpy(o->leader, t->leader, sizeof(o->leader));
		o->leader[sizeof(o->leader) - 1] = '\0';
		o->start = t->start;
		memcpy(o->ev, t->ev, sizeof(o->ev));
		memcpy(o->sub, t->sub, sizeof(o->sub));
		memcpy(o->tacc, t->tacc, sizeof(o->tacc));
	}
	qsort(b->thr, b->nr_thr, sizeof(*b->thr), thr_cmp);
	return 0;
}

/*
 * Thread t's time states of the interval read (parity e): what they grew
 * by since that parity's last reading, two intervals ago (p: the reading
 * before, which carries it; all of them for a thread new since).
 */
static int feed_time(struct bpf_src *b, struct model *m, struct bpf_thr *t, const struct bpf_thr *p,
		     unsigned int e)
{
	uint64_t ns[KX_STATES];
	unsigned int i;

	if (p)
		memcpy(t->seen, p->seen, sizeof(t->seen));
	for (i = 0; i < KX_STATES; i++) {
		ns[i] = t->tacc[e][i] >= t->seen[e][i] ? t->tacc[e][i] - t->seen[e][i] : 0;
		t->seen[e][i] = t->tacc[e][i];
	}
	return b->states ? model_agg_time(m, t->tid, ns) : 0;
}

/* What thread t's counters grew by since the reading before (all of them: a thread new since). */
static int feed_thread(struct bpf_src *b, struct model *m, struct bpf_thr *t)
{
	const struct bpf_thr *p = b->prev ? bsearch(t, b->prev, b->nr_prev, sizeof(*p), thr_cmp) : NULL;
	uint64_t zero[KX_EVENTS] = { 0 };
	const uint64_t *ev, *sub;
	unsigned int i;

	if (p && p->start != t->start)
		p = NULL;
	ev = p ? p->ev : zero;
	sub = p ? p->sub : zero;
	for (i = 0; i < b->nr_index; i++)
		if (t->ev[i] != ev[i] && model_agg_events(m, t->tid, b->index_other[i], -1, t->ev[i] - ev[i]))
			return -1;
	for (i = 0; i < KX_SUBS; i++)
		if (t->sub[i] != sub[i] && model_agg_uexits(m, t->tid, (int)i, t->sub[i] - sub[i]))
			return -1;
	/* the interval read is the one before the flip */
	return feed_time(b, m, t, p, (b->epoch - 1) & 1);
}

/* Every thread's counters' growth: 0, or -1 (no memory). */
static int feed_threads(struct bpf_src *b, struct model *m)
{
	size_t i;

	for (i = 0; i < b->nr_thr; i++)
		if (feed_thread(b, m, &b->thr[i]))
			return -1;
	return 0;
}

/*
 * The threads' last CPUs into the model; those that ended, read once more
 * (their last interval fed), out of the map.
 */
static void forget_ended(struct bpf_src *b, struct model *m)
{
	int fd = bpf_map__fd(b->skel->maps.threads);
	size_t i;

	for (i = 0; i < b->nr_thr; i++) {
		uint32_t tid = (uint32_t)b->thr[i].tid;

		model_agg_last_cpu(m, b->thr[i].tid, b->thr[i].cpu);
		model_agg_name(m, b->thr[i].tid, b->thr[i].comm);
		if (b->thr[i].ended)
			bpf_map_delete_elem(fd, &tid);
	}
}

/* Thread tid as the map has it now, into *o (who it is): true, or false where it has none. */
static bool thread_now(struct bpf_src *b, int tid, struct bpf_thr *o)
{
	uint32_t key = (uint32_t)tid;
	struct kx_thread *t = calloc(1, sizeof(*t));
	bool ok = t && !bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.threads), &key, t);

	if (ok) {
		o->tid = tid;
		o->tgid = (int)t->tgid;
		memcpy(o->comm, t->comm, sizeof(o->comm));
		o->comm[sizeof(o->comm) - 1] = '\0';
		memcpy(o->leader, t->leader, sizeof(o->leader));
		o->leader[sizeof(o->leader) - 1] = '\0';
	}
	free(t);
	return ok;
}

/*
 * Who thread tid is: the host's /proc, else (it is gone) what the program
 * kept of it: its process, named by /proc while that runs, else by its
 * first thread's name.
 */
static void bpf_source_ident(struct source *src, int tid, struct ident_info *out)
{
	struct bpf_src *b = src->priv;
	struct bpf_thr key = { .tid = tid }, *t;
	struct ident_info p = { .vcpu_hint = -1 };
	bool found = !ident_thread(src->proc, tid, out);

	if (found && (out->kernel || out->comm[0]))
		return;
	t = b->thr ? bsearch(&key, b->thr, b->nr_thr, sizeof(*b->thr), thr_cmp) : NULL;
	/* one met since the last reading (a sample read between two): the map has it */
	if (!t && thread_now(b, tid, &key))
		t = &key;
	if (!t || t->tgid <= 0)
		return;
	/* it ended between /proc's status and comm: its name as the program kept it */
	if (found) {
		strlcpy(out->comm, t->comm, sizeof(out->comm));
		return;
	}
	out->pid = t->tgid;
	strlcpy(out->comm, t->comm, sizeof(out->comm));
	if (!ident_thread(src->proc, t->tgid, &p) && p.pid == t->tgid) {
		strlcpy(out->vm_name, p.vm_name, sizeof(out->vm_name));
		out->vm_ident = p.vm_ident;
	} else {
		strlcpy(out->vm_name, t->leader, sizeof(out->vm_name));
	}
}

/* Updates the maps refused since the last time, said once. */
static void say_full(struct source *src, struct bpf_src *b)
{
	static const char *const names[KX_MAP_NR] = { "threads", "exits", "lats", "buckets", "events", "steal" };
	int i;

	for (i = 0; i < KX_MAP_NR; i++) {
		uint64_t n = __atomic_load_n(&b->skel->bss->kx_full[i], __ATOMIC_RELAXED);

		if (n == b->full_said[i])
			continue;
		snprintf(src->notice, sizeof(src->notice),
			 "bpf: the map %s is full: %llu updates refused, their figures are short (raise --bpf-entries)",
			 names[i], (unsigned long long)n);
		b->full_said[i] = n;
	}
}

/*
 * What was not counted, into the model's figures, so that no short count
 * passes for a whole one: the updates a full map refused (each an event
 * seen and not counted: dropped_events), and the programs' runs the
 * kernel skipped (a KVM event that fired while a program ran on the same
 * CPU, from an interrupt: recursion_misses, Linux 5.12+; the events a
 * trace buffer would have lost: lost_events).
 */
static void count_missed(struct bpf_src *b, struct model *m)
{
	struct bpf_program *progs[] = {
		b->skel->progs.kx_event, b->skel->progs.kx_exit_svm, b->skel->progs.kx_entry_btf,
		b->skel->progs.kx_switch, b->skel->progs.kx_waking,
	};
	uint64_t full = 0, misses = 0;
	size_t i;

	for (i = 0; i < KX_MAP_NR; i++)
		full += __atomic_load_n(&b->skel->bss->kx_full[i], __ATOMIC_RELAXED);
	if (full > b->full_counted)
		model_agg_dropped(m, full - b->full_counted);
	b->full_counted = full;
	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (bpf_program__fd(progs[i]) >= 0 &&
		    !bpf_obj_get_info_by_fd(bpf_program__fd(progs[i]), &info, &len))
			misses += info.recursion_misses;
	}
	if (misses > b->misses_counted)
		model_lost(m, (long long)(misses - b->misses_counted));
	b->misses_counted = misses;
}

/* --- sampled exits (the ring buffer) --- */

/* Sampled exit s into the model b->m: 0, or -1 (no memory). */
static int sample_feed(struct bpf_src *b, const struct kx_sample *s)
{
	struct kvm_event ex, comp;
	int ret;

	ret = decode_ip(b, (int)s->tid, s->type, s->vals, s->ip, &ex);
	if (ret <= 0 || ex.kind != KVM_EV_EXIT)
		return ret < 0 ? -1 : 0;
	comp.obj_kind = KVM_OBJ_NONE;
	if (s->comp_type && decode_vals(b, (int)s->tid, s->comp_type, s->comp, &comp) < 0)
		return -1;
	obj_of_comp(&ex, &comp);
	ex.time = s->exit_ns;
	ex.cpu = (int)s->cpu;
	return model_agg_sample(b->m, (int)s->tid, &ex, s->lat == KX_NO_LAT ? MODEL_LAT_NONE : s->lat, s->weight);
}

/* Sample s kept for the next reading: 0, or -1 (no memory). */
static int sample_keep(struct bpf_src *b, const struct kx_sample *s)
{
	if (b->nr_later == b->alloc_later) {
		size_t n = b->alloc_later ? b->alloc_later * 2 : 256;
		struct kx_sample *l = reallocarray(b->later, n, sizeof(*l));

		if (!l)
			return -1;
		b->later = l;
		b->alloc_later = n;
	}
	b->later[b->nr_later++] = *s;
	return 0;
}

/*
 * One sampled exit from the ring: into the model, or kept for the next
 * reading where it came after the interval read ended (b->cutoff: the
 * ring holds what came up to this moment, past the flip).  0, or -1 (no
 * memory: libbpf stops the read there).
 */
static int sample_one(void *ctx, void *data, size_t len)
{
	struct bpf_src *b = ctx;
	const struct kx_sample *s = data;
	int ret;

	if (len < sizeof(*s))
		return 0;
	ret = b->cutoff && s->exit_ns >= b->cutoff ? sample_keep(b, s) : sample_feed(b, s);
	if (ret < 0)
		b->sample_failed = true;
	return ret < 0 ? -1 : 0;
}

/*
 * The samples the programs wrote so far into m, those kept from the last
 * reading first; with cutoff (the interval's end), those that came after
 * it kept for the next.  0, or -1 (errno).
 */
static int samples_read(struct bpf_src *b, struct model *m, uint64_t cutoff)
{
	size_t i, kept = 0;
	int ret;

	if (!b->ring)
		return 0;
	b->m = m;
	for (i = 0; i < b->nr_later; i++) {
		if (cutoff && b->later[i].exit_ns >= cutoff)
			b->later[kept++] = b->later[i];
		else if (sample_feed(b, &b->later[i]))
			goto out_nomem;
	}
	b->nr_later = kept;
	b->sample_failed = false;
	b->cutoff = cutoff;
	ret = ring_buffer__consume(b->ring);
	b->cutoff = 0;
	if (b->sample_failed)
		goto out_nomem;
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return 0;
out_nomem:
	errno = ENOMEM;
	return -1;
}

/*
 * The sampling step from here on: every exit while the host's exits came
 * within --bpf-samples' rate, else every Nth, N the smallest that keeps
 * within it; none where the view keeps neither guest IPs nor recent
 * exits.  The rate is measured over half a second at least: a snapshot
 * may sample twice within microseconds (a VM ending), and so may the last.
 */
static void sample_step(struct bpf_src *b, const struct model *m)
{
	uint64_t now = clock_mono_ns(), every = 0;
	double want;

	b->step_exits += b->interval_exits;
	if (!b->sampled_at)
		b->sampled_at = now;
	if (now - b->sampled_at < BPF_STEP_NS)
		return;
	if (b->rate && (m->ip_slots || m->ring_size)) {
		want = b->rate * ((double)(now - b->sampled_at) / 1e9);
		every = (double)b->step_exits <= want ? 1 : (uint64_t)ceil((double)b->step_exits / want);
	}
	b->sampled_at = now;
	b->step_exits = 0;
	__atomic_store_n(&b->skel->bss->kx_every, every, __ATOMIC_RELAXED);
}

static int bpf_source_discover(struct source *src, struct model *m, char *err, size_t errlen)
{
	struct bpf_src *b = src->priv;

	if (samples_read(b, m, 0)) {
		snprintf(err, errlen, "bpf: reading the sampled exits: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int bpf_source_sample(struct source *src, struct model *m, char *err, size_t errlen)
{
	struct bpf_src *b = src->priv;

	/*
	 * the driver's reading as the source opens: the programs count from
	 * the first interval's start (src->started_at), the snapshot's, so
	 * there is no baseline to take; a flip here would start the next
	 * interval inside the snapshot, and a thread met after it would count
	 * its first state from there
	 */
	if (!b->opened) {
		b->opened = true;
		return 0;
	}
	/* the interval read ends where the programs began the next: the snapshot's end */
	src->sampled_to = flip(b);
	if (read_threads(b) || read_events(b, m) || read_exits(b, m) || samples_read(b, m, src->sampled_to)) {
		snprintf(err, errlen, "bpf: reading the maps: %s", strerror(errno));
		return -1;
	}
	sample_step(b, m);
	if (feed_threads(b, m)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* the vCPUs' rows are made: who ran while they waited */
	if (read_steal(b, m)) {
		snprintf(err, errlen, "bpf: reading the map steal: %s", strerror(errno));
		return -1;
	}
	forget_ended(b, m);
	count_missed(b, m);
	say_full(src, b);
	return 0;
}

#else	/* !HAVE_BPF */

struct bpf_src {
	int none;
};

static int bpf_source_open(struct source *src, const struct source_config *c, struct kvm_names *names,
			   char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "--source bpf is not built in: configure found no libbpf, clang or bpftool (apt-get install libbpf-dev clang bpftool, then build again)");
	return -1;
}

static int bpf_source_sample(struct source *src, struct model *m, char *err, size_t errlen)
{
	return 0;
}

static void bpf_source_close(struct source *src)
{
}

#endif

const struct source_ops source_bpf = {
	.name = "bpf",
	.select = "bpf",
	.priv_size = sizeof(struct bpf_src),
	.open = bpf_source_open,
	.sample = bpf_source_sample,
#ifdef HAVE_BPF
	.discover = bpf_source_discover,
	.ident = bpf_source_ident,
	.ident_host = true,
#endif
	.close = bpf_source_close,
};
