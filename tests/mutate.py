# SPDX-License-Identifier: GPL-2.0
"""make mutate: does the test suite catch small, deliberate bugs?

Each mutation below changes a few characters of kvmtop's source, the way
a real slip would (a rank rounded down, a quantile at the wrong q, two
names swapped, an entry that does not close its exit ...).  For each one
this copies nothing twice: the tree is copied once to a scratch
directory and built, then each mutation is applied there, the suite runs
(`make -j2 check` in stages: the unit tests, then the suites most
mutations fail, then the rest, stopping at the first stage that fails),
and the file is put back.  A mutation is caught when the suite fails.  Every one must be caught; the summary line says how many
were applied and caught, and the exit status is 1 if any survived or
could not be applied (its text no longer in the source: update the list).

usage: python3 tests/mutate.py [--src DIR] [--only TEXT]... [--from N] [--keep] [--check]
                               [--tests TEST]... [--live]
--check only says whether every mutation's text is still once in the
source (seconds, no build): make check runs it, so a change that moves
code keeps this list true.
It takes about two minutes per mutation on two cores; it is not run by CI.
Where this machine's KVM cannot run the live cases, the emulated KVM host
that would run them (tests/vmhost) is left out: every mutation here is
caught without it.  --live keeps it, and --tests runs only the tests named
(unmutated and mutated) instead of the whole suite: with both, whether a
live test alone catches a row (--only) is known in minutes, e.g.
--only "kvm_msr's direction" --live --tests tests/live_objects.py.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

# (what, [(file, old text, new text), ...]): each old text must occur exactly once
MUTATIONS = [
    ("settings file: a tree value other than on or off taken as off, unsaid",
     [("ui/tui_rc.c", 'if (strcasecmp(val, "on") && strcasecmp(val, "off")) {\n\t\tsnprintf(err, len, "tree:',
       'if (0 && strcasecmp(val, "off")) {\n\t\tsnprintf(err, len, "tree:')]),
    ("hist: percentile rank rounded down (floor, not ceil)",
     [("src/model/hist.c", "\t\trank++;\n", "\t\t;\n")]),
    ("hist: a bucket's lower edge instead of its middle",
     [("src/model/hist.c", "v = lo + width / 2;", "v = lo;")]),
    ("hist: the mean divides by one sample more",
     [("src/model/hist.c", "hist_sum_frac(h) / (double)h->samples", "hist_sum_frac(h) / (double)(h->samples + 1)")]),
    ("text/CSV/JSON: p99.9 worked out at q = 0.99",
     [("src/model/model_fields.c", "v->u = model_quantile(&w->lat, 0.999)", "v->u = model_quantile(&w->lat, 0.99)")]),
    ("CSV/text/screen: the P50 column at q = 0.60",
     [("src/model/model_fields.c", "v->u = model_quantile(&w->lat, 0.50)", "v->u = model_quantile(&w->lat, 0.60)")]),
    ("x86: the names of VMX codes 12 (HLT) and 30 (IO_INSTRUCTION) swapped",
     [("arch/x86.c", '{ 12, "HLT" }', '{ 12, "IO_INSTRUCTION" }'),
      ("arch/x86.c", '{ 30, "IO_INSTRUCTION" }', '{ 30, "HLT" }')]),
    ("x86: the VMX flags (FAILED_VMENTRY) dropped",
     [("arch/x86.c", "ev->flags = raw & 0xffff0000;", "ev->flags = 0;")]),
    ("arm64: a trap's EC left out of its code",
     [("arch/arm64.c", "ev->reason = (type < TYPE_NONE ? type : TYPE_LARGE) << 8 | ec;",
       "ev->reason = (type < TYPE_NONE ? type : TYPE_LARGE) << 8;")]),
    ("powerpc: ceded exits not told apart",
     [("arch/powerpc.c", "fv->v[FR_AUX] ? PPC_CEDED : 0;", "fv->v[FR_AUX] ? 0 : 0;")]),
    ("s390: 'Wait state' named 'Validity'",
     [("arch/s390.c", '[0x1c] = "Wait state"', '[0x1c] = "Validity"')]),
    ("riscv: the scause interrupt bit dropped",
     [("arch/riscv.c", "(uint32_t)(scause & RV_CAUSE_MASK) | (irq ? RV_IRQ : 0);",
       "(uint32_t)(scause & RV_CAUSE_MASK);")]),
    ("riscv: a WFI exit not told apart from other virtual instructions",
     [("arch/riscv.c", "\t\tev->flags = RV_FLAG_WFI;", "\t\tev->flags = 0;")]),
    ("loongarch: the names of GSPR (22) and HVC (23) swapped",
     [("arch/loongarch.c", '[22] = "GSPR", [23] = "HVC"', '[22] = "HVC", [23] = "GSPR"')]),
    ("loongarch: kvm_enter (back from user space) does not end an exit",
     [("arch/loongarch.c", '.entry_event2 = "kvm_enter",', '.entry_event2 = NULL,')]),
    ("replay: a CPU's first compressed chunk not checked before libtracecmd opens the file",
     [("src/sources/replay_layout.c", "ret = walk_first_chunks(&w, l);", "ret = 0;")]),
    ("pairing: an entry does not close its exit",
     [("src/model/model.c", "\tv->pending = false;\n\tlat = ev->time", "\tlat = ev->time")]),
    ("pairing: latency one unit long",
     [("src/model/model.c", "ev->time - v->pending_time : 0;", "ev->time - v->pending_time + 1 : 0;")]),
    ("pairing: an exit after an exit is not counted unmatched",
     [("src/model/model.c", "\tif (v->pending) {\n\t\tv->unmatched_exits.total++;\n", "\tif (v->pending) {\n")]),
    ("lost events: half of the missed events counted",
     [("src/model/model.c", "n > 0 ? (uint64_t)n :", "n > 0 ? (uint64_t)n / 2 :")]),
    ("intervals: an event on a boundary counted in the interval before",
     [("src/driver/loop_recording.c", "while (ev->time >= cur->next && cur->next != UINT64_MAX) {",
       "while (ev->time > cur->next && cur->next != UINT64_MAX) {")]),
    ("intervals: the first interval one microsecond long",
     [("src/driver/loop_recording.c", "cur->next = after(ev->time, cur->step);", "cur->next = after(ev->time, cur->step + 1000);")]),
    ("rates: per second of twice the interval",
     [("outputs/batch_common.c", "return b->ns ? (double)t / 1e9 : 0.0;", "return b->ns ? (double)t / 0.5e9 : 0.0;")]),
    ("escaping: ESC reaches the terminal",
     [("src/util/escape.c", "if (n == 1 && *p >= 0x20 && *p != 0x7f && *p != '\\\\') {",
       "if (n == 1 && (*p >= 0x20 || *p == 0x1b) && *p != 0x7f && *p != '\\\\') {")]),
    ("escaping: a quote unescaped in JSON",
     [("src/util/escape.c", "} else if (*p == '\"' || *p == '\\\\') {", "} else if (*p == '\\\\') {")]),
    ("CSV: a comma left unquoted",
     [("src/util/escape.c", 'if (!strpbrk(buf, ",\\"")', 'if (!strpbrk(buf, "\\"")')]),
    ("CSV: a cell starting with '-' not treated as a formula",
     [("src/util/escape.c", '&& !strchr("=+-@", buf[0])', '&& !strchr("=+@", buf[0])')]),
    ("KASLR: the offset added instead of taken off",
     [("src/sym/sym.c", "uint64_t a = ip - t->offset;", "uint64_t a = ip + t->offset;")]),
    ("symbols: an IP at a symbol's first byte given the symbol before",
     [("src/sym/sym.c", "if (t->s[mid].addr <= a)", "if (t->s[mid].addr < a)")]),
    ("screen (model_recent): the recent exits oldest first",
     [("src/model/model_read.c", "(v->ring_head + size - n + i) % size", "(v->ring_head + size - 1 - i) % size")]),
    ("decode: a field's offset taken from the file unchecked",
     [("src/decode/decode.c", "if (fld->offset >= 0 && fld->size > 0", "if (1 || fld->size > 0")]),
    ("CSV: a formula only quoted, without the leading '",
     [("src/util/escape.c", "\t\tfputc('\\'', f);", "\t\t;")]),
    ("intervals: a gap printed as one snapshot per empty interval",
     [("src/driver/loop_recording.c", "if (drv->interval || cur->next == UINT64_MAX ||", "if (1 || cur->next == UINT64_MAX ||")]),
    ("replay: a version 6 file's CPU count past the limit left to libtracecmd",
     [("src/sources/replay_layout.c", "\tif (cpus > REPLAY_CPUS_MAX) {\n", "\tif (cpus > (1 << 30)) {\n")]),
    ("time: a thread switched out runnable (R) counted as asleep",
     [("src/model/model_time.c", "ev->state & SCHED_SLEEP_MASK ? VS_HALT : VS_WAIT", "VS_HALT")]),
    ("time: a thread's sched events before its first KVM event are forgotten (woken 250 us: host, not wait)",
     [("src/model/model_time.c", "\t\tv->time[st].total += p->acc[st];\n", "")]),
    ("stats: a VMM that holds no statistics fds left out, not listed with its reason",
     [("src/sources/stats.c", "none ? STATS_NO_FDS : NULL", "NULL")]),
    ("text: a VM's 'exits unknown:' line left out",
     [("outputs/batch_text.c", "\tif (vm->exits_unknown)\n\t\tfprintf", "\tif (0)\n\t\tfprintf")]),
    ("stats: no look for new VMs between samples (a VM of a few seconds never seen)",
     [("src/driver/pipeline.c", "if (!drv->ops->discover || now < drv->discover_at)", "if (1)")]),
    ("trace on a host whose KVM traces no exits: its VMs not told why",
     [("src/driver/pipeline.c", "drv->c->exits_unknown && vms_unseen(drv)", "0")]),
    ("births: CLONE_THREAD ignored, every new thread a process of its own",
     [("src/driver/pipeline.c", "ev->info1 & 0x00010000", "false")]),
    ("births: the new thread's creator taken for the thread itself",
     [("src/ident/ident_births.c", "\t\ttid = s->creator;\n", "")]),
    ("time: a userspace exit does not start VMM time",
     [("src/model/model_time.c", "set_state(m, v, ev->time, VS_HOST, VS_VMM);", "set_state(m, v, ev->time, VS_HOST, VS_HOST);")]),
    ("time: the current states not brought up to the snapshot's end",
     [("src/driver/pipeline.c", "\tmodel_time_to(drv->m, end);\n", "\n")]),
    ("split: a switched-in thread resumes in the host, not where it left (VMM)",
     [("src/model/model_time.c", "next->state == VS_NONE ? VS_HOST : next->on_cpu", "VS_HOST")]),
    ("live: a kernel without the mono trace clock not refused",
     [("src/sources/trace.c", 'if (tracefs_instance_file_write(t->inst, "trace_clock", "mono") < 0) {',
       'if (tracefs_instance_file_write(t->inst, "trace_clock", "mono") < 0 && 0) {')]),
    ("live: the sched events not narrowed to the vCPU threads",
     [("src/sources/trace.c", "return t->sched ? trace_sched_filters(t, tids, n) : 0;", "return 0;")]),
    ("replay: CPU numbers in the options left to libtracecmd",
     [("src/sources/replay_layout.c", "\tif (cpu < REPLAY_CPUS_MAX)\n", "\tif (cpu < (1 << 30))\n")]),
    ("proc: run-queue wait not taken from schedstat",
     [("src/model/model_time.c", "\twait = t->wait_ns - o->wait_ns;\n", "\twait = 0;\n")]),
    ("proc: the on-CPU split by ticks without guest_time",
     [("src/model/model_time.c", "guest = u + s ? share(run, g, u + s) : 0;", "guest = 0;")]),
    ("proc: stat's guest_time read from the wrong field",
     [("src/ident/ident_proc.c", "stat_field(p, 43, &out->gtime)", "stat_field(p, 44, &out->gtime)")]),
    ("groups: a thread gone since the last reading adds time",
     [("src/model/model.c", "\t\tif (a->tid < b->tid) {\n\t\t\ti++;", "\t\tif (a->tid < b->tid) {\n\t\t\tgs->run.total += 1;\n\t\t\ti++;")]),
    ("history: a share's level rounded down",
     [("ui/history.c", "(s * 8 + 50) / 100", "(s * 8) / 100")]),
    ("history: the oldest snapshot drawn first slot off",
     [("ui/history.c", "(e->head + HISTORY_LEN - e->count + (unsigned int)(i))", "(e->head + HISTORY_LEN - e->count + 1 + (unsigned int)(i))")]),
    ("replay: compressed options not walked",
     [("src/sources/replay_layout.c", "ret = id == 0 || is_part(id) ?", "ret = is_part(id) ?")]),
    ("kstat: a log histogram's bucket bound one too high",
     [("src/decode/kstat.c", "(i ? (UINT64_C(1) << i) - 1 : 0)", "(UINT64_C(1) << i)")]),
    ("kstat: a KVM duration's suffix chosen wrong (_seconds for its ns)",
     [("src/decode/kstat.c", 'return d->base ? "" : "_ns";', 'return d->base ? "" : "_seconds";')]),
    ("kstat: a KVM statistic's unit word kept before its suffix (halt_wait_ns_ns)",
     [("src/decode/kstat.c", "\t\t\tn -= w;\n", "\t\t\t;\n")]),
    ("kstat: a KiB statistic not scaled to bytes",
     [("src/decode/kstat.c", "\t\t*scale = d->exponent;\n\t\treturn \"_bytes\";", "\t\treturn \"_bytes\";")]),
    ("JSON: a KVM statistic's sum of ns written as a number (rounded past 2^53 by a double-based reader)",
     [("outputs/batch_kstats.c", "jsonw_u64(jw, kstats_val(d, c, nr, 0));", "jsonw_uint(jw, kstats_val(d, c, nr, 0));")]),
    ("--fields: a KVM statistic's field made for the family's own key (never found)",
     [("src/model/model_fields.c", "kf->f.key = kf->name + strcspn(fam->name, \"<\");",
       "kf->f.key = fam->key;")]),
    ("old names: kvm_vm_<stat> renamed after kvm_<stat> (a VM's column read as a vCPU's)",
     [("src/model/model_field_names.c", '\t{ "kvm_vm_<stat>",          "vm_kvm_<stat>", NULL },\n', ""),
      ("src/model/model_field_names.c", '\t{ "kvm_<stat>",             "vcpu_kvm_<stat>", NULL },\n',
       '\t{ "kvm_<stat>",             "vcpu_kvm_<stat>", NULL },\n\t{ "kvm_vm_<stat>",          "vm_kvm_<stat>", NULL },\n')]),
    ("stats: a VM running at start counted from zero, not from then",
     [("src/sources/stats.c", "\t\tif (f->from != MODEL_FROM_BIRTH) {", "\t\tif (0) {")]),
    ("stats: a vCPU made after kvmtop started: its first reading taken as the baseline (its first exits lost)",
     [("src/sources/stats.c", "\t\tif (f->from != MODEL_FROM_BIRTH) {", "\t\tif (1) {")]),
    ("stats: a known VM's fds listed on the old schedule (its first 3 looks, then every 30th): late vCPUs missed",
     [("src/sources/stats.c", "\tif (s->looks < vm->next_scan && stats_sig_eq(&sig, &vm->sig))",
       "\tif (s->looks < vm->next_scan)"),
      ("src/sources/stats.c", "\tvm->next_scan = s->looks + (s->sig_ok ? STATS_RESCAN : 1);\n\tvm->seen = false;",
       "\tvm->next_scan = s->looks + (vm->scans < STATS_YOUNG ? 1 : STATS_RESCAN);\n\tvm->seen = false;")]),
    ("stats: a process's fd table signature ignored (a VM made late in its life found up to 30 s late)",
     [("src/sources/stats.c", "\tif (s->looks < e->next && stats_sig_eq(&sig, &e->sig))", "\tif (s->looks < e->next)")]),
    ("stats: a vCPU found late but made before kvmtop started counted from zero (its life before counted)",
     [("src/sources/stats.c", "\treturn s->fresh ? MODEL_FROM_START : MODEL_FROM_FOUND;",
       "\treturn s->fresh ? MODEL_FROM_START : MODEL_FROM_BIRTH;")]),
    ("stats: a vCPU's statistics that could not be had not tried again at the next look (up to 30 s late)",
     [("src/sources/stats.c", "\t\t\tvm->next_scan = s->looks + 1;\n\t\t\tbreak;", "\t\t\tbreak;")]),
    ("stats: a VM whose vCPU was found late not marked found",
     [("src/sources/stats.c", "if (vm->vcpus[j].fd >= 0 && vm->vcpus[j].from == MODEL_FROM_FOUND)", "if (0)")]),
    ("stats: an ended VM's fds kept open",
     [("src/sources/stats.c", "\t\t\tvm_close(vm);\n\t\t\tif (r)", "\t\t\tif (r)")]),
    ("stats: a vCPU's thread by its name only, not by its syscall",
     [("src/ident/ident_proc.c", "!strncmp(buf, want, strlen(want))", "0")]),
    ("hist: the third sample does not spill the first into buckets",
     [("src/model/hist.c", "\tcount_in(h, h->min);\n", "")]),
    ("model: a vCPU's ring wraps at its first allocation, never grows",
     [("src/model/model.c", "if (++v->ring_head == m->ring_size)", "if (++v->ring_head == v->ring_alloc)")]),
    ("model: a vCPU changed in an interval not put on the dirty list",
     [("src/model/model.c", "\tif (v->dirty)\n\t\treturn;\n\tv->dirty = true;", "\tif (1)\n\t\treturn;\n\tv->dirty = true;")]),
    ("recordings: the guess groups by tid + vCPU id",
     [("src/ident/ident_threads.c", "k >= 0 && tid - k > 0 ? tid - k : tid", "k >= 0 ? tid + k : tid")]),
    ("metrics: a double quote in a label value not escaped",
     [("outputs/metrics.c", "if (*p == '\\\\' || *p == '\"') {", "if (*p == '\\\\') {")]),
    ("metrics: a bucket counts the sample that straddles its bound",
     [("src/model/hist.c", "if (lo + (width - 1) > v)", "if (lo > v)")]),
    ("exporter: POST answered like GET",
     [("outputs/export.c", "if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {",
       "if (0) {")]),
    ("metrics: OpenMetrics without its # EOF",
     [("outputs/metrics.c", "\t\tif (k)\n\t\t\td->seg[k][d->nr[k]++] = (struct metrics_seg){ \"# EOF\\n\", 6 };",
       "\t\tif (0)\n\t\t\td->seg[k][d->nr[k]++] = (struct metrics_seg){ \"# EOF\\n\", 6 };")]),
    ("--threads: a tid listed twice accepted",
     [("src/ident/ident_threads.c", "\t\tif (t->t[i].tid != t->t[i - 1].tid)\n\t\t\tcontinue;", "\t\tif (1)\n\t\t\tcontinue;")]),
    ("metrics: a VM that ends takes its exit latencies out of the host's histogram",
     [("src/model/model.c", "\t\t\t\t\thost_lat_fold(m, i, &v->rs[i]->lat);", "\t\t\t\t\t;")]),
    ("screen: a recording's screen up only once it is read",
     [("src/driver/loop_recording.c", "\tret = progress_start(cur);\n", "\tret = 0;\n")]),
    ("pages: TSC counts converted with the shift one too large",
     [("src/sources/replay_pages.c", "* p->tsc_mult) >> p->tsc_shift);", "* p->tsc_mult) >> (p->tsc_shift + 1));")]),
    ("pages: the events lost before a page not counted",
     [("src/sources/replay_pages.c", "\tr->missed_events = c->missed;", "\tr->missed_events = 0;")]),
    ("pages: a later page's header not checked before kbuffer reads it",
     [("src/sources/replay_pages.c", "\tif (need <= p->page_size)\n\t\treturn 0;", "\tif (1)\n\t\treturn 0;")]),
    ("decode: the one-load read takes a field's 8 bytes from its start, not its end",
     [("src/decode/decode.c", "(const char *)data + sl->end - 8, sizeof(v));", "(const char *)data + sl->off, sizeof(v));")]),
    ("decode: a record too short for every field read as a whole one",
     [("src/decode/decode.c", "if (size >= f->slots_end && f->wide && d->native) {", "if (f->wide && d->native) {")]),
    ("IP tables: the heap not built when the table fills",
     [("src/model/model_ips.c", "\t\tif (t->nr == t->cap)\n\t\t\theapify(t);\n", "")]),
    ("IP tables: a count raised on a full table not sifted down",
     [("src/model/model_ips.c", "\t\t\t\tif (t->heap)\n\t\t\t\t\tsift_down(t, i);", "\t\t\t\tif (0)\n\t\t\t\t\tsift_down(t, i);")]),
    ("decode: the one-load read used on a file of the other byte order",
     [("src/decode/decode.c", "if (size >= f->slots_end && f->wide && d->native) {", "if (size >= f->slots_end && f->wide) {")]),
    ("views: recent-exit rings kept for a view that shows none",
     [("src/driver/pipeline.c", "drv->v->recent ? c->ring : 0", "c->ring")]),
    ("views: guest IP tables kept for CSV and the metrics formats",
     [("outputs/batch.c", "b->view.ips = b->fmt->ips;", "b->view.ips = true;")]),
    ("views: the screen keeps no recent exits",
     [("ui/tui.c", "\t.recent = true,\n", "")]),
    ("screen: a severe finding lands under a key typed and not read yet",
     [("ui/tui.c", "\t\tt->ahead[t->nr_ahead++] = ch;\n\t\tt->keyed = true;\n", "\t\tt->ahead[t->nr_ahead++] = ch;\n")]),
    ("decode: the common fields read in place on a file of the other byte order",
     [("src/decode/decode.c", "d->std_common = d->native && d->type_off == 0", "d->std_common = d->type_off == 0")]),
    ("replay_check: a compressed metadata section handed to libtracecmd unwalked",
     [("src/sources/replay_layout.c", "ret = id == 0 || is_part(id) ?", "ret = id == 0 ?")]),
    ("driver: an event at an interval's end counted in the interval it ends",
     [("src/driver/loop_recording.c", "|| (ev->time >= cur->next && cur->next != UINT64_MAX)))",
       "|| (ev->time > cur->next && cur->next != UINT64_MAX)))")]),
    ("steal: live, a worker that slept as it gave the CPU back blamed for the unseen thief's time",
     [("src/model/model_steal.c", "if (!vcpu && c->tid > 0 && c->tid != ev->tid && (ev->state & SCHED_SLEEP_MASK)) {",
       "if (!vcpu && c->tid > 0 && c->tid != ev->tid && 0) {")]),
    ("scope: --vcpu shows every vCPU",
     [("src/model/model_read.c", "if (!f || !f->nr_vcpus)", "if (1 || !f->nr_vcpus)")]),
    ("scope: -g takes a name, not a glob",
     [("src/model/model_read.c", "return !fnmatch(glob, vm->name, 0) ||", "return !strcmp(glob, vm->name) ||")]),
    ("scope: --sort KEY least first, -KEY most first",
     [("outputs/batch_common.c", "\tif (!ascending)\n\t\tr = -r;", "\tif (ascending)\n\t\tr = -r;")]),
    ("scope: -z keeps idle vCPUs",
     [("outputs/batch_common.c", "if (!b->zero || model_vcpu_active(b->m, v))", "if (1)")]),
    ("logs: CSV's header once per run, not at the start of each --output file",
     [("outputs/batch_csv.c", "\tif (!b->in_file)\n\t\tcsv_header(b);", "\tif (!b->snapshots)\n\t\tcsv_header(b);")]),
    ("logs: SIGHUP reopens nothing: the snapshots after it go on into the renamed --output file",
     [("outputs/batch.c", "return b->fmt->replace ? 0 : batch_output_open(b, err, len);", "return 0;")]),
    ("screen: N searches forward, not back",
     [("ui/tui_stack.c", "(p->sel + n - 1 - i) % n", "(p->sel + 1 + i) % n")]),
    ("screen: a second click on the sort column's title does not invert it",
     [("ui/tui_mouse.c", "p->invert = !p->invert;", "p->invert = p->invert;")]),
    ("screen: --no-mouse still asks the terminal for mouse reports",
     [("ui/tui.c", "t->mouse = !c->no_mouse;", "t->mouse = true;")]),
    ("objects: an exit's own object (port, vector) forgotten: only companion events name one",
     [("src/model/model.c", "\t\tmodel_objs_note(v, ev);\n\t}\n\treturn m->ip_slots", "\t}\n\treturn m->ip_slots")]),
    ("objects: each exit of an object a new site: a site's exits not counted together",
     [("src/model/model_objs.c", "if (o->site[i].ip == ip || !o->site[i].ip) {", "if (!o->site[i].ip) {")]),
    ("objects: merging vCPUs' object rows drops the exits of their other sites",
     [("src/model/model_scope.c", "\t\t\tto->site_rest += w->site_rest;\n", "")]),
    ("objects: the first companion event of an exit wins, not the last",
     [("src/model/model.c", "if (ev->obj_kind != KVM_OBJ_NONE && v->pending && m->max_objs)",
       "if (ev->obj_kind != KVM_OBJ_NONE && v->pending && m->max_objs && !v->pending_obj)")]),
    ("context: JSON's net_interfaces gives a tap's tx bytes as its rx",
     [("outputs/batch_json.c", '{ "rx_bytes_per_s", "rx_bytes", CTX_TAP_RXB }, { "tx_bytes_per_s", "tx_bytes", CTX_TAP_TXB }',
       '{ "rx_bytes_per_s", "rx_bytes", CTX_TAP_TXB }, { "tx_bytes_per_s", "tx_bytes", CTX_TAP_RXB }')]),
    ("metrics: a label's control bytes (a terminal's escapes) written raw",
     [("outputs/metrics.c", "if (*p < 0x20 || *p == 0x7f) {", "if (0) {")]),
    ("objects: LoongArch's kvm_mmio reads counted as writes (the write type taken as 1)",
     [("arch/loongarch.c", 'KVM_OBJ_MMIO_PAGE, "gpa", "type", "len", 2,', 'KVM_OBJ_MMIO_PAGE, "gpa", "type", "len", 1,')]),
    ("objects: LoongArch's CSRRD and CSRWR swapped (the rj field misread)",
     [("arch/loongarch_objects.c", "return rj == 0 ? LA_GSPR_CSRRD : rj == 1 ? LA_GSPR_CSRWR : LA_GSPR_CSRXCHG;",
       "return rj == 1 ? LA_GSPR_CSRRD : rj == 0 ? LA_GSPR_CSRWR : LA_GSPR_CSRXCHG;")]),
    ("objects: LoongArch's IDLE word not known as IDLE (only kvm_exit_idle says it)",
     [("arch/loongarch_objects.c", "if ((w >> 15) == 0xc91)", "if ((w >> 15) == 0xc92)")]),
    ("objects: an SVM npf's MMIO direction inverted",
     [("arch/x86.c", "ev->obj_dir = err & 2 ? OBJ_DIR_WRITE : OBJ_DIR_READ;",
       "ev->obj_dir = err & 2 ? OBJ_DIR_READ : OBJ_DIR_WRITE;")]),
    ("objects: every SVM npf an MMIO access, guest RAM faults too",
     [("arch/x86.c", "!FV_HAS(fv, FR_INFO2) || !(err & 8))", "!FV_HAS(fv, FR_INFO2))")]),
    ("objects: a VMX port-I/O exit's direction inverted",
     [("arch/x86.c", "ev->obj_dir = q & 8 ? OBJ_DIR_READ : OBJ_DIR_WRITE;",
       "ev->obj_dir = q & 8 ? OBJ_DIR_WRITE : OBJ_DIR_READ;")]),
    ("objects: MSR names swapped (IA32_TSC and IA32_TSC_DEADLINE)",
     [("arch/x86_objects.c", '{ 0x00000010, 0x00000010, "IA32_TSC" },', '{ 0x00000010, 0x00000010, "IA32_TSC_DEADLINE" },'),
      ("arch/x86_objects.c", '{ 0x000006e0, 0x000006e0, "IA32_TSC_DEADLINE" },', '{ 0x000006e0, 0x000006e0, "IA32_TSC" },')]),
    ("objects: kvm_msr's direction inverted (an rdmsr counted as a write, a wrmsr as a read)",
     [("arch/x86.c", '"kvm_msr", KVM_OBJ_MSR, "ecx", "write", NULL, OBJ_WRITE_ANY, 0, NULL }',
       '"kvm_msr", KVM_OBJ_MSR, "ecx", "write", NULL, 0, 0, NULL }')]),
    ("objects: an MMIO read QEMU completed (kvm_mmio type 1) counted as a write",
     [("arch/x86.c", '"kvm_mmio", KVM_OBJ_MMIO, "gpa", "type", "len", 2, ~0xfffull, NULL }',
       '"kvm_mmio", KVM_OBJ_MMIO, "gpa", "type", "len", OBJ_WRITE_ANY, ~0xfffull, NULL }')]),
    ("objects: an MMIO access counted by its address, not its page",
     [("arch/x86.c", '"gpa", "type", "len", 2, ~0xfffull, NULL }', '"gpa", "type", "len", 2, 0, NULL }')]),
    ("objects: an exit that names none counted on the object of the exit before",
     [("src/model/model_objs.c", "\t\treturn 0;\n\tv->pending_obj = false;\n", "\t\treturn 0;\n")]),
    ("objects: exits counted on their objects but never timed",
     [("src/model/model.c", "if (hist_add(&rs->lat, lat) || model_objs_close(m, v, lat))",
       "if (hist_add(&rs->lat, lat) || model_objs_close(m, v, MODEL_LAT_NONE))")]),
    ("objects: a vCPU keeps 63 objects, not 64",
     [("src/model/model_objs.c", "o = t->nr < t->cap ? objs_add(", "o = t->nr < t->cap - 1 ? objs_add(")]),
    ("objects: an object pushed out of a full table takes its exits with it (not to other objects)",
     [("src/model/model_objs.c", "\trest->count.total += o->count.total;\n", "")]),
    ("objects: a new object in a full table takes the most counted one's place",
     [("src/model/model_objs.c", "if (t->o[i].count.total < o->count.total ||", "if (t->o[i].count.total > o->count.total ||")]),
    ("objects: of two least counted, the newer one makes room (a new object goes at once)",
     [("src/model/model_objs.c", "t->o[i].since < o->since))", "t->o[i].since > o->since))")]),
    ("objects: an exit counted on the exit before's object, whatever its own",
     [("src/model/model_objs.c", "if (t->nr && objs_same(&t->o[t->last].key, &v->pobj))", "if (t->nr)")]),
    ("objects: an interval's latencies not cleared when it closes (counted again in the next)",
     [("src/model/model_objs.c", "\t\treturn -1;\n\thist_clear(&o->lat);\n\treturn 0;", "\t\treturn -1;\n\treturn 0;")]),
    ("objects: powerpc's H_CEDE named H_CONFER",
     [("arch/powerpc_objects.c", '{ 0xe0, "H_CEDE" }', '{ 0xe0, "H_CONFER" }')]),
    ("objects: a powerpc exit that leaves its vCPU ceded names no hcall (H_CEDE only from kvm_hcall_enter)",
     [("arch/powerpc.c", "\t\tev->obj_kind = KVM_OBJ_PPC_HCALL;\n\t\tev->obj = PPC_H_CEDE;\n", "")]),
    ("objects: an s390 0xeb instruction's second opcode byte taken from its register byte",
     [("arch/s390_objects.c", "{ 0xeb, 16, 0xff }", "{ 0xeb, 48, 0xff }")]),
    ("objects: an s390 intercepted instruction counted by its whole field, not its opcode",
     [("arch/s390.c", '"instruction", NULL, NULL, 0, 0,\n\t  s390_insn_opcode }', '"instruction", NULL, NULL, 0, 0,\n\t  NULL }')]),
    ("objects: s390's kvm_s390_handle_diag not bound (a DIAG counted on its instruction)",
     [("arch/s390.c", '{ "kvm", "kvm_s390_handle_diag", KVM_OBJ_S390_DIAG,', '{ "kvm", "kvm_s390_handle_diag_", KVM_OBJ_S390_DIAG,')]),
    ("findings: DIAG 0x9c not counted as a yield (diag-yield)",
     [("src/model/findings.c", "{ KVM_OBJ_S390_DIAG, 0x9c, 0x9c, OBJ_DIR_NONE },", "{ KVM_OBJ_S390_DIAG, 0x9d, 0x9d, OBJ_DIR_NONE },")]),
    ("findings: H_PROD counted as H_CEDE (h-cede)",
     [("src/model/findings.c", "{ KVM_OBJ_PPC_HCALL, 0xe0, 0xe0, OBJ_DIR_NONE }", "{ KVM_OBJ_PPC_HCALL, 0xe0, 0xe8, OBJ_DIR_NONE }")]),
    ("findings: H_CEDE's threshold ten times too high (h-cede)",
     [("src/model/findings.c", "#define CEDE_RATE\t1000.0", "#define CEDE_RATE\t10000.0")]),
    ("metrics: an object's series named by its kind, not the tables",
     [("outputs/metrics.c", "label_value(f, name ? name : \"unknown\");", "label_value(f, kvm_obj_kind_name(w->kind));")]),
    ("objects: the screen's recent exits of an object show every exit of the vCPU",
     [("ui/pane_recent.c", "if (p->obj.on && (e->reason_id != p->reason", "if (0 && (e->reason_id != p->reason")]),
    ("settings: a line that is not text stops the reading",
     [("ui/tui_rc.c", "if (*bad)\n\t\t\trc_say(in, bad);", "if (*bad)\n\t\t\tbreak;")]),
    ("settings: W writes over the file in place, not a new file renamed over it",
     [("ui/tui_rc.c", 'snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);\n\tfd = mkstemp(tmp);',
       'snprintf(tmp, sizeof(tmp), "%s", path);\n\tfd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);')]),
    ("settings: W writes the delay with 6 digits, so the next start reads another delay",
     [("ui/tui_rc.c", 'snprintf(buf, len, "%.15g", t->delay);\n\tif (strtod(buf, NULL) != t->delay)',
       'snprintf(buf, len, "%g", t->delay);\n\tif (0)')]),
    ("context: swapped memory read from VmRSS",
     [("src/context/context_proc.c", 'keyval_find(c->buf, "VmSwap:", &v)', 'keyval_find(c->buf, "VmRSS:", &v)')]),
    ("context: a multiqueue tap counted once per queue",
     [("src/context/context_net.c", "!t->name[i][len])\n\t\t\treturn;", "!t->name[i][len])\n\t\t\tbreak;")]),
    ("context: pressure of a cgroup the VMM shares",
     [("src/context/context_psi.c", "if (atoi(p) != pid)\n\t\t\treturn false;", "if (atoi(p) != pid)\n\t\t\tcontinue;")]),
    ("context: an unknown figure written as a zero",
     [("outputs/batch_common.c", "if (v->unknown || (t == BV_INT", "if ((v->unknown && false) || (t == BV_INT")]),
    ("JSON: the writer drops the comma after an object or an array",
     [("outputs/json_writer.c", "\t\tjw->depth--;\n\tjw->sep = true;", "\t\tjw->depth--;\n\tjw->sep = false;")]),
    ("JSON: the writer puts a comma between a name and its value (\"key\":,1)",
     [("outputs/json_writer.c", "fputc(':', jw->out);\n\t/* its value follows the colon, with no comma before it */\n"
       "\tjw->sep = false;", "fputc(':', jw->out);")]),
    ("JSON: an address written as a number (a double-based reader rounds it)",
     [("outputs/json_writer.c", 'fprintf(jw->out, "\\"0x%" PRIx64 "\\"", v);', 'fprintf(jw->out, "%" PRIu64, v);')]),
    ("JSON: null written as 0",
     [("outputs/json_writer.c", 'fputs("null", jw->out);', 'fputs("0", jw->out);')]),
    ("JSON/CSV: a -1 (a vCPU index not known) written as a number, not null",
     [("outputs/batch_common.c", "(t == BV_INT && v->i < 0) ||", "(t == BV_INT && v->i < -1) ||")]),
    ("findings: memory and io pressure severe on some, not on full",
     [("src/model/findings.c", "return full >= FULL_SEVERE ? FS_SEVERE : FS_WARNING;",
       "return some >= FULL_SEVERE ? FS_SEVERE : FS_WARNING;")]),
    ("metrics: a VM context's counter from its last rate, not the kernel's total",
     [("outputs/metrics.c", "(double)x->prev[vm_ctx_metrics[i].f] * scale", "x->val[vm_ctx_metrics[i].f] * scale")]),
    ("context: numa_maps' node ids shifted by one (N0= counted on node 1)",
     [("src/context/context_numa.c", "(n = atoi(tok + 1)) >= 0", "(n = atoi(tok + 1) + 1) >= 0")]),
    ("context: a vCPU's NUMA node taken as its CPU's number",
     [("src/context/context_numa.c", "v->ctx_node = c->cpu_node[cpu];", "v->ctx_node = (int)cpu;")]),
    ("screen: the VMs pane's resident column shown by default",
     [("ui/pane_vms.c", '"vm_mem_rss_bytes",    NULL,         8,  COL_RIGHT, NULL,             NULL,               true,  -1,',
       '"vm_mem_rss_bytes",    NULL,         8,  COL_RIGHT, NULL,             NULL,               true,  1,')]),
    ("context pane: a VMM thread's bytes read and written swapped",
     [("src/model/model.c", "b->d_rd = b->rd_bytes - a->rd_bytes;\n\t\t\tb->d_wr = b->wr_bytes - a->wr_bytes;",
       "b->d_wr = b->rd_bytes - a->rd_bytes;\n\t\t\tb->d_rd = b->wr_bytes - a->wr_bytes;")]),
    ("context pane: a VMM thread's CPU share from its whole time, not this interval's",
     [("src/model/model.c", "b->d_run = b->run_ns - a->run_ns;", "b->d_run = b->run_ns;")]),
    ("context pane: a thread's io read from the process's file",
     [("src/ident/ident_proc.c", '\telse\n\t\tsnprintf(rel, sizeof(rel), "%d/task/%d/io", pid, tid);',
       '\telse\n\t\tsnprintf(rel, sizeof(rel), "%d/io", pid + 0 * tid);')]),
    ("context pane: the VMM's main thread's io read from the process's file (tid == pid)",
     [("src/ident/ident_proc.c", "\tif (!pid)\n\t\tsnprintf(rel", "\tif (!pid || pid == tid)\n\t\tsnprintf(rel")]),
    ("context pane: VMM threads idlest first",
     [("ui/pane_context.c", "return rx < ry ? 1 : -1;", "return rx < ry ? -1 : 1;")]),
    ("context pane: the threads of a VM no longer shown kept and read on",
     [("src/driver/pipeline.c", "\tdrv->groups.detail_pid = drv->v->detail_pid;",
       "\tif (drv->v->detail_pid)\n\t\tdrv->groups.detail_pid = drv->v->detail_pid;")]),
    ("-g: a VM called only by its VMM's name, not who it is",
     [("src/model/model_read.c", "return !fnmatch(glob, vm->name, 0) || (id->read &&",
       "return !fnmatch(glob, vm->name, 0) || (!id &&")]),
    ("--threads: who a VM is not read from the snapshot's command line",
     [("src/ident/ident_threads.c", "out->vm_ident = pr && pr->id.read ? &pr->id : NULL;", "out->vm_ident = NULL;")]),
    ("--threads: a thread born after the snapshot loses its VM's identity",
     [("src/driver/pipeline.c", "\t\tout->vm_ident = p.vm_ident;\n", "")]),
    ("screen: the context pane's MiB of 1000 KiB",
     [("ui/pane_context.c", "\t\tv /= 1024;\n", "\t\tv /= 1000;\n")]),
    ("context: a rate over the snapshot's seconds counted twice",
     [("src/context/context_sum.c", "x->val[f] = (double)(x->sum[f] - x->base[f]) * sum_scale(c, f) / secs;",
       "x->val[f] = (double)(x->sum[f] - x->base[f]) * sum_scale(c, f) / secs / 2;")]),
    ("identity: a libvirt status file of another pid taken as the VM's",
     [("src/ident/ident_vm.c", "if (pid <= 0 || ident_libvirt_pid(xml, len) != pid)", "if (pid <= 0)")]),
    ("identity: OpenStack's display name not preferred to libvirt's domain name",
     [("src/ident/ident_vm.c", "\tstrlcpy(out->name, name, sizeof(out->name));\n\tout->from = \"openstack\";",
       "\tout->from = \"openstack\";")]),
    ("identity: Kata's sandbox id keeps QEMU's sandbox- prefix",
     [("src/ident/ident_vm.c", "strlcpy(out->name, vm_name + 8, sizeof(out->name));",
       "strlcpy(out->name, vm_name, sizeof(out->name));")]),
    ("identity: an XML entity's first character kept, not decoded",
     [("src/ident/ident_vm.c", "u[0] = ents[k][1][0];", "u[0] = *p;")]),
    ("identity: a numeric XML entity past Unicode taken",
     [("src/ident/ident_vm.c", "if (*e != ';' || !cp || cp > 0x10ffff)", "if (*e != ';' || !cp)")]),
    ("identity: a status file named otherwise not found by its pid",
     [("src/context/context_ident.c", "\tctx_ident_scan(c, vm->pid, id);\n}", "\t(void)ctx_ident_scan;\n}")]),
    ("identity: a status file libvirt rewrote not read again",
     [("src/context/context_ident.c", "if (id->read && id->dir_sig == dir_sig)", "if (id->read)")]),
    ("identity: read at every snapshot, not only when the files change",
     [("src/context/context_ident.c", "if (id->read && id->dir_sig == dir_sig)", "if (!id)"),
      ("src/context/context_ident.c", "if (id->read && file_sig && file_sig == id->file_sig) {", "if (!id) {")]),
    ("identity: the text's identity line unescaped",
     [("outputs/batch_text.c", 'fprintf(b->out, "%s %s=%s", sep, f->name, batch_text_field(f->name, row, buf, sizeof(buf)));\n\t\tsep = "";\n\t}\n\tif (!*sep)\n\t\tfputc(\'\\n\', b->out);\n}\n\n/*\n * Live: who',
       'fprintf(b->out, "%s %s=%s", sep, f->name, v.s);\n\t\tsep = "";\n\t}\n\tif (!*sep)\n\t\tfputc(\'\\n\', b->out);\n}\n\n/*\n * Live: who')]),
    ("screen: the context pane's VM name unescaped",
     [("ui/pane_context.c", "escape_text(id->name[0] ? id->name : vm->name, w->detail, sizeof(w->detail));",
       "snprintf(w->detail, sizeof(w->detail), \"%s\", id->name[0] ? id->name : vm->name);")]),
    ("metrics: --metrics-identity gives no kvmtop_vm_info",
     [("outputs/metrics.c", "\tif (o->o->identity)\n\t\tvm_info(o, vm);", "\tif (!o->o->identity)\n\t\tvm_info(o, vm);")]),
    ("findings: the CMOS ports' range one port too long (timer-polling)",
     [("src/model/findings.c", "{ KVM_OBJ_PORT, 0x70, 0x71, OBJ_DIR_NONE },", "{ KVM_OBJ_PORT, 0x70, 0x72, OBJ_DIR_NONE },")]),
    ("findings: the PIT's ports from 0x3f (timer-polling)",
     [("src/model/findings.c", "{ KVM_OBJ_PORT, 0x40, 0x43, OBJ_DIR_NONE },", "{ KVM_OBJ_PORT, 0x3f, 0x43, OBJ_DIR_NONE },")]),
    ("findings: serial port reads counted as console writes (serial-console)",
     [("src/model/findings.c", "{ KVM_OBJ_PORT, 0x3f8, 0x3ff, OBJ_DIR_WRITE },", "{ KVM_OBJ_PORT, 0x3f8, 0x3ff, OBJ_DIR_NONE },")]),
    ("findings: the APIC registers after the ICR counted as ICR writes (ipi)",
     [("src/model/findings.c", "{ KVM_OBJ_APIC, 0x300, 0x300, OBJ_DIR_WRITE },", "{ KVM_OBJ_APIC, 0x300, 0x310, OBJ_DIR_WRITE },")]),
    ("findings: TSC deadline writes summed over the VM, not per vCPU (tsc-deadline)",
     [("src/model/findings.c", '{ "tsc-deadline", FSC_VCPU,', '{ "tsc-deadline", FSC_VM,')]),
    ("findings: mmio-page on all pages' writes, not the busiest page's",
     [("src/model/findings.c", "return objs_eval(in, page, 3, true,", "return objs_eval(in, page, 3, false,")]),
    ("findings: the local APIC's page taken for a doorbell (mmio-page)",
     [("src/model/findings.c", "{ KVM_OBJ_MMIO, 0xfee01000, UINT64_MAX, OBJ_DIR_WRITE },",
       "{ KVM_OBJ_MMIO, 0xfee00000, UINT64_MAX, OBJ_DIR_WRITE },")]),
    ("findings: an object rule's rate threshold compared the wrong way",
     [("src/model/findings.c", "rate < at || n < OBJS_MIN", "rate > at || n < OBJS_MIN")]),
    ("findings: an object rule fires on a handful of exits in a short snapshot",
     [("src/model/findings.c", "rate < at || n < OBJS_MIN", "rate < at || n < 1")]),
    ("findings: an object rule's share taken of four exits fewer than its scope's",
     [("src/model/findings.c", "100.0 * (double)n / (double)in->sc->exits", "100.0 * (double)n / (double)(in->sc->exits - 4)")]),
    ("arm64: a system register's CRn and CRm swapped (kvm_sys_access)",
     [("arch/arm64.c", "ARM64_SYSREG(fv->v[FR_INFO1] & 0xff, p[0], p[1], p[2], p[3])",
       "ARM64_SYSREG(fv->v[FR_INFO1] & 0xff, p[0], p[2], p[1], p[3])")]),
    ("decode: an object's parts bound but not composed (only Op0 of a system register)",
     [("src/decode/decode.c", "f->parts = p && p->event ? p : NULL;", "f->parts = NULL;")]),
    ("arm64: a system register shown with Op0 and Op1 swapped",
     [("arch/arm64_objects.c", '"S%u_%u_C%u_C%u_%u", (unsigned int)(reg >> 32 & 0xff),\n\t\t (unsigned int)(reg >> 24 & 0xff),',
       '"S%u_%u_C%u_C%u_%u", (unsigned int)(reg >> 24 & 0xff),\n\t\t (unsigned int)(reg >> 32 & 0xff),')]),
    ("arm64: kvm_sys_access' is_write read as write only when 1",
     [("arch/arm64.c", '"Op0", "is_write", NULL, OBJ_WRITE_ANY, 0, NULL },', '"Op0", "is_write", NULL, 1, 0, NULL },')]),
    ("arm64: an HVC's r0 taken whole, not its w0 (the SMCCC function id)",
     [("arch/arm64.c", '"r0", NULL, NULL, 0, 0xffffffffull, NULL },', '"r0", NULL, NULL, 0, 0, NULL },')]),
    ("arm64: PSCI CPU_ON and CPU_OFF named the other way round",
     [("arch/arm64_objects.c", 'FN(0x84000002, "PSCI_CPU_OFF")', 'FN(0x84000002, "PSCI_CPU_ON")')]),
    ("arm64: WFI and WFE named the other way round",
     [("arch/arm64_objects.c", 'return is_wfe == 0 ? "WFI" : is_wfe == 1 ? "WFE" : NULL;',
       'return is_wfe == 0 ? "WFE" : is_wfe == 1 ? "WFI" : NULL;')]),
    ("arm64: an IPA named from x86's MMIO map",
     [("src/decode/objects.c", '{ "mmio",\t{ "read", "write" }, false, arm64_mmio_name },',
       '{ "mmio",\t{ "read", "write" }, false, x86_mmio_name },')]),
    ("arm64: CNTV_CTL_EL0 at CNTV_TVAL_EL0's encoding",
     [("arch/arm64_objects.c", 'SR("CNTV_CTL_EL0", 3, 3, 14, 3, 1)', 'SR("CNTV_CTL_EL0", 3, 3, 14, 3, 0)')]),
    ("findings: wfx-trapping summed over the VM, not per vCPU",
     [("src/model/findings.c", '{ "wfx-trapping", FSC_VCPU,', '{ "wfx-trapping", FSC_VM,')]),
    ("findings: wfx-trapping from 700 exits/s, not 1000",
     [("src/model/findings.c", "#define WFX_RATE\t1000.0", "#define WFX_RATE\t700.0")]),
    # issue 43: the screen never spins and always stops
    ("screen: started without a terminal on stdin and stdout (no check first)",
     [("src/main.c", "if (!o.batch && !o.listen && tui_usable(err, sizeof(err))) {",
       "if (!o.batch && !o.listen && 0 && tui_usable(err, sizeof(err))) {")]),
    ("screen: a TERM curses does not know not refused first",
     [("ui/tui.c", "if (setupterm(NULL, STDOUT_FILENO, &why) != OK) {",
       "if (setupterm(NULL, STDOUT_FILENO, &why) != OK && 0) {")]),
    ("driver_wait: a signal pending when ppoll() returns not let in (the old wait)",
     [("src/driver/signals.c", "\tif (n >= 0)\n\t\tsignals_deliver();", "\tif (n < -1)\n\t\tsignals_deliver();")]),
    ("screen: every key typed read in one call, without a bound",
     [("ui/tui.c", "n < TUI_KEYS_PER_CALL &&\n", "\n")]),
    # issue 43: one definition per figure; the modes S, r, Z, s/d (tests/modes.py)
    ("screen: S after ] divides the counts since the start by the interval shown",
     [("ui/tui_stack.c", "t->start = t->cumulative ? t->since : t->snap_start;", "t->start = t->snap_start;")]),
    ("screen: the VMs pane's HALT% is time in blocking exits again",
     [("src/model/model_fields.c", "GET_SHARE(get_vm_halt_pct, vm_sc, 1u << VS_HALT, row->vm->nr_vcpus)",
       "GET_SC(get_vm_halt_pct, vm_sc, v->d = snap_span(s) ? 100.0 * (double)sc->halted / "
       "(double)snap_span(s) / row->vm->nr_vcpus : -1; v->unknown = v->d < 0)")]),
    ("screen: r leaves the rows' and the header's counts",
     [("src/model/model.c", "\tctrs_apply(m, ctr_zero, true);\n", "\n")]),
    ("screen: just after r a rate is the count (no time covered)",
     [("ui/tui_fmt.c", "if (t->secs <= 0 && t->ns) {", "if (t->secs < 0 && t->ns) {")]),
    ("screen: the header read from the live model at each redraw (Z, prompt)",
     [("ui/tui_draw.c", "tui_fmt_count(t->head.total, b, sizeof(b));", "tui_fmt_count(t->m->exits.total, b, sizeof(b));")]),
    ("screen: the delay prompt starts with the delay, typing appends",
     [("ui/tui_keys.c", "\tt->edit[0] = '\\0';\n\treturn 0;", "\tsnprintf(t->edit, sizeof(t->edit), \"%g\", t->delay);\n\treturn 0;")]),
    ("replay: [ back re-reads the intervals before without splitting the states at their ends",
     [("src/driver/loop_recording.c", "\tmodel_time_to(drv->m, end);\n\tif (model_interval_end", "\tif (model_interval_end")]),
    ("screen: the vCPUs pane's time-state shares computed over the span twice",
     [("src/model/model_fields.c", "GET_SHARE(get_vcpu_guest_pct, vcpu_sc, 1u << VS_GUEST, 1)",
       "GET_SHARE(get_vcpu_guest_pct, vcpu_sc, 1u << VS_GUEST, 2)")]),
    ("VMs pane, CSV: vm_exits_pct over the VM's own exits, not the host's",
     [("src/model/model_fields.c", "100.0 * (double)sc->exits / (double)snap_host_exits(row))",
       "100.0 * (double)sc->exits / (double)(sc->exits ? sc->exits : 1))")]),
    ("VMs pane: %HOST 0.0 where the host had no exits (0/0 made up as 0)",
     [("src/model/model_fields.c", "GET_SC(get_vm_exits_pct, vm_sc, v->unknown = !snap_host_exits(row);",
       "GET_SC(get_vm_exits_pct, vm_sc, v->unknown = 0;")]),
    ("VMs pane, CSV: a VM's latency over every reason, HLT's waits too",
     [("src/model/model_fields.c", "GET_SC(fn, member, const struct hist *h = &sc->handling;",
       "GET_SC(fn, member, const struct hist *h = sc->top >= 0 ? &sc->rows[sc->top].lat : &sc->handling;")]),
    ("VMs and vCPUs panes, CSV: the latency's stddev is the mean again",
     [("src/model/model_fields.c", "GET_SC_LAT(get_vm_lat_stddev, vm_sc, v->d = hist_stddev(h))",
       "GET_SC_LAT(get_vm_lat_stddev, vm_sc, v->d = hist_mean(h))"),
      ("src/model/model_fields.c", "GET_SC_LAT(get_vcpu_lat_stddev, vcpu_sc, v->d = hist_stddev(h))",
       "GET_SC_LAT(get_vcpu_lat_stddev, vcpu_sc, v->d = hist_mean(h))")]),
    ("screen: an unknown value sorts first in a column's descending order",
     [("ui/tui_stack.c", "\t\treturn hx ? -1 : 1;\n\tr = tui_col_cmp", "\t\treturn hx ? 1 : -1;\n\tr = tui_col_cmp")]),
    ("screen: paused, Enter opens a pane built from the live model",
     [("ui/tui_stack.c", "if (!t->live || !t->paused || !t->depth ||", "if (1 || !t->paused || !t->depth ||")]),
    ("screen: paused, S switches the mode over the frozen figures",
     [("ui/tui_keys.c", "\tif (t->live && t->paused) {\n\t\tsnprintf(t->msg, sizeof(t->msg), \"paused: S",
       "\tif (0) {\n\t\tsnprintf(t->msg, sizeof(t->msg), \"paused: S")]),
    # issue 43: messages (empty panes say why, messages true on this host, the man page's stale lines)
    ("screen: a column off until picked (the VMs pane's UUID) shown as the cut last column",
     [("ui/tui_draw.c", "ops->cols[ops->nr_cols - 1].align == COL_LEFT &&\n\t    ops->cols[ops->nr_cols - 1].priority >= 0)",
       "ops->cols[ops->nr_cols - 1].align == COL_LEFT)")]),
    ("screen: -p/-g matching no VM of a recording says no KVM events",
     [("ui/pane_vms.c", "\tif (vms_filter_text(t->m->filter, filter, sizeof(filter))) {",
       "\tif (0 && vms_filter_text(t->m->filter, filter, sizeof(filter))) {")]),
    ("screen: an object's recent exits pushed out of the ring say nothing of --ring",
     [("ui/pane_recent.c", "\t.empty = recent_empty,\n", "")]),
    ("-p on a recording: says kvmtop keeps watching for it",
     [("src/driver/pipeline.c", "\t\telse if (drv->src.live)\n\t\t\tdriver_notice(drv, \"-p %d: no VM is that process (yet)",
       "\t\telse if (1)\n\t\t\tdriver_notice(drv, \"-p %d: no VM is that process (yet)")]),
    ("debugfs: EPERM blamed on lockdown whatever securityfs says",
     [("src/sources/debugfs.c", "\telse if (lock > 0)\n", "\telse if (lock >= 0)\n")]),
    ("screen: a vCPUs pane emptied by --vcpu says no KVM events",
     [("ui/pane_vcpus.c", "\t.empty = vcpus_empty,\n", "")]),
    ("debugfs: no kvm directory asks whether the kvm module is loaded, whatever /sys/module/kvm says",
     [("src/sources/debugfs.c", 'if (!stat("/sys/module/kvm", &st))', 'if (0)')]),
    ("keys: the invert key's label i, where the man page says I",
     [("ui/tui_keys.c", '{ "I", "inverts",', '{ "i", "inverts",')]),
    # issue 45: top's, htop's and virt-top's keys; the columns' priorities
    ("keys: P M T sort least first",
     [("ui/tui_keys.c", "\tp->invert = !p->ops->cols[col].descending;", "\tp->invert = p->ops->cols[col].descending;")]),
    ("keys: T sorts by the exit rate, not the total",
     [("ui/tui_keys.c", '{ "vm_exits_total", "vcpu_exits_total", "total" }', '{ "vm_exits_per_s", "vcpu_exits_total", "total" }')]),
    ("keys: M on a pane without memory says nothing",
     [("ui/tui_keys.c", "\t\tsnprintf(t->msg, sizeof(t->msg), \"%c sorts by %s: the %s pane has no such column\",",
       "\t\tif (0) snprintf(t->msg, sizeof(t->msg), \"%c sorts by %s: the %s pane has no such column\",")]),
    ("keys: the sort column (P M T) not drawn when off by width or until picked",
     [("ui/tui_draw.c", "int pr = i == p->sort ? 10 : ops->cols[i].priority;", "int pr = ops->cols[i].priority;")]),
    ("keys: i judges a VM idle by its total, not its exits in the interval",
     [("ui/pane_vms.c", '\t.busy = "vm_exits_per_s",', '\t.busy = "vm_exits_total",')]),
    ("settings: W writes idle = shown whatever i says",
     [("ui/tui_rc.c", 'snprintf(buf, len, "%s", t->hide_idle ? "hidden" : "shown");', 'snprintf(buf, len, "%s", "shown");')]),
    ("keys: 2 shows a disk column for the network's RX",
     [("ui/tui_cols.c", '"vm_name,vm_pid,vm_net_rx_bytes_per_s,', '"vm_name,vm_pid,vm_disk_rd_bytes_per_s,')]),
    ("keys: Esc leaves a view of the VMs pane on",
     [("ui/tui_keys.c", "\t} else if (tui_pane_is(t, p, PANE_VMS) && t->vms_view >= 0) {", "\t} else if (0) {")]),
    ("keys: F9 says nothing",
     [("ui/tui_keys.c", '\tsnprintf(t->msg, sizeof(t->msg), "F9: kvmtop kills', '\tif (0) snprintf(t->msg, sizeof(t->msg), "F9: kvmtop kills')]),
    ("columns: TOP REASON at its old priority, off at 80 columns",
     [("ui/pane_vms.c", 'NULL,         NULL, false, 8, 0,                              "vm_top_reason"',
       'NULL,         NULL, false, 5, 0,                              "vm_top_reason"')]),
    ("columns: TOTAL among the least useful, off at 80 columns",
     [("ui/pane_vms.c", 'NULL,        NULL, true,  8, 0,                              "vm_exits_total"',
       'NULL,        NULL, true,  1, 0,                              "vm_exits_total"')]),
    ("columns: UEXITS/s and EVENTS/s drawn though no VM has had one",
     [("ui/tui_draw.c", "\treturn !(p->ops->cols[i].needs & COL_SEEN) || (i < 64 && (p->seen & (1ull << i)));", "\treturn true;")]),
    ("columns: a column a row had a figure in never drawn (COL_SEEN)",
     [("ui/tui_cols.c", "\t\t\t\tp->seen |= 1ull << i;", "\t\t\t\t(void)0;")]),
    # issue 43: no made-up figure
    ("latency fields: an empty histogram's max printed as 0 again",
     [("src/model/model_fields.c", "GET(get_max, v->unknown = !w->lat.samples; ", "GET(get_max, ")]),
    ("latency fields: an empty object histogram's p50 printed as 0 again",
     [("src/model/model_fields.c", "GET_OBJ(get_o_p50, v->unknown = !o->lat.samples; ", "GET_OBJ(get_o_p50, ")]),
    ("stats: the exits no counter of a kind counts left without a row (other_exits)",
     [("src/sources/stats.c", "return model_add_exits(m, tid, s->other_exits, exits - kinds);", "return 0;")]),
    ("JSON: a counter source's latency samples 0, not null",
     [("outputs/batch_common.c", "if (f->hist != MF_NO_HIST && !b->traced)",
       "if (f->hist != MF_NO_HIST && !b->traced && f->kind != MF_NUM)")]),
    ("screen: a counter source's UEXITS/s and kvm events/s a rate of 0 again",
     [("ui/tui_fmt.c", "\tif (t->traced)\n\t\ttui_fmt_rate(t, n, buf, len);", "\tif (1)\n\t\ttui_fmt_rate(t, n, buf, len);")]),
    ("screen: UTIL% 0.0 before the time states are measured",
     [("src/model/model_scope.c", "!states || (sc->time_known & states) != states)", "!states)")]),
    ("findings: legacy-io names the busiest port's number for every port it counts",
     [("src/model/findings.c", "\t\t\t\t      t[i].value, t[i].n);", "\t\t\t\t      t[0].value, t[i].n);")]),
    ("live: an interval ends when kvmtop gets the CPU back, not where its drain stopped",
     [("src/driver/loop_live.c", "return to > l->drv->m->interval_start && to < now ? to : now;", "return now;")]),
    ("live: a snapshot due during a drain ends where that drain began, before its deadline",
     [("src/driver/loop_live.c", "if (!drv->src.read_to || drv->src.read_to >= l->next || *now < l->next)",
       "if (1)")]),
    ("screen: a TSC recording's VMs pane keeps EXITS/s, all '-', and sorts by it",
     [("ui/tui_draw.c", "model_time_known(t->m) | (t->ns ? COL_NS : COL_CYCLES);", "model_time_known(t->m) | COL_NS;"),
      ("ui/tui_stack.c", "p->sort = !t->ns && ops->default_sort_cycles ?", "p->sort = 0 && ops->default_sort_cycles ?")]),
    ("fields: a reason's count_per_s per millisecond, not per second",
     [("src/model/model_fields.c", "v->d = span ? (double)(n) * 1e9 / (double)span : 0.0;",
       "v->d = span ? (double)(n) * 1e6 / (double)span : 0.0;")]),
    ("screen: the reasons pane's rate column named rate again, outside the fields table",
     [("ui/pane_reasons.c", '{ "count_per_s",  NULL,         9,               COL_RIGHT, reasons_c_rate, reasons_cmp_count, true,  5, COL_NS,     "count_per_s" }',
       '{ "rate",         "RATE/s",     9,               COL_RIGHT, reasons_c_rate, reasons_cmp_count, true,  5, COL_NS,     NULL }')]),
    ("fields: a reason's pct 0.00 in a scope without exits, not unknown",
     [("src/model/model_fields.c", "GET(get_pct, v->unknown = !w->scope_exits;", "GET(get_pct, v->unknown = false;")]),
    ("live: a vCPU thread keeps the name it had when kvmtop met it",
     [("src/model/model.c", "\t\t\tvcpu_rename(v, ev->prev_comm);\n\t\t\tvcpu_rename(next, ev->next_comm);\n", "")]),
    ("hist: the standard deviation of a sample (n - 1), not of the population",
     [("src/model/hist.c", "sqrt(h->m2 / (double)h->samples)", "sqrt(h->m2 / (double)(h->samples - 1))")]),
    ("hist: Welford's step takes the mean after one sample too many",
     [("src/model/hist.c", "/ (double)(h->samples + 1);\n\th->m2", "/ (double)(h->samples + 2);\n\th->m2")]),
    ("hist: merging drops the spread between the two means",
     [("src/model/hist.c", "(dst->samples ? d * d * na * nb / (na + nb) : 0.0)", "0.0")]),
    ("CSV --fields: snapshot,start,end prepended again",
     [("outputs/batch_csv.c", "\tunsigned int j, n = csv_nr_cols(b);\n\n\tfor (j = 0; j < n; j++)\n\t\tfprintf(b->out, \"%s%s\", j ? \",\" : \"\", csv_col(b, j)->name);",
       "\tunsigned int j, n = csv_nr_cols(b);\n\n\tif (b->nr_fields)\n\t\tfputs(\"snapshot,start,end,\", b->out);\n\tfor (j = 0; j < n; j++)\n\t\tfprintf(b->out, \"%s%s\", j ? \",\" : \"\", csv_col(b, j)->name);")]),
    ("CSV --fields: only VM fields still a row per (vCPU, reason)",
     [("outputs/batch_common.c", "b->nr_fields ? MR_SNAPSHOT : MR_REASON;", "MR_REASON;")]),
    ("batch --fields: a screen column that is no field passed (and dropped)",
     [("src/options.c", "\t\tif (!field_known(name, true))\n\t\t\tdie_usage(\"--fields %s: batch", "\t\tif (!field_known(name, false))\n\t\t\tdie_usage(\"--fields %s: batch")]),
    ("text --fields: only a reason's fields honoured (the old table's columns)",
     [("outputs/batch_text.c", "\tif (b->nr_fields)\n\t\treturn text_fields(b, end);", "\tif (0)\n\t\treturn text_fields(b, end);")]),
    ("text: an unknown figure written as a number, not \"-\"",
     [("outputs/batch_common.c", "\tcase BV_NONE:\n\t\tsnprintf(buf, len, \"-\");", "\tcase BV_NONE:\n\t\tsnprintf(buf, len, \"%\" PRIu64, v.u);")]),
    ("JSON: a sum of times past 2^53 written as a number a double rounds",
     [("outputs/batch_common.c", "\t\tif (model_field_big(f))\n\t\t\tjsonw_u64(jw, v.u);", "\t\tif (0)\n\t\t\tjsonw_u64(jw, v.u);")]),
    ("JSON: the snapshot's start written as a number a double rounds",
     [("outputs/batch_json.c", "jsonw_u64_field(jw, \"start\", batch_start(b));", "jsonw_uint_field(jw, \"start\", batch_start(b));")]),
    ("batch --sort: a VM's field leaves the VMs in their own order",
     [("outputs/batch_common.c", "sort_rows(b, MR_VM, (const void **)vms, *n)", "sort_rows(b, MR_SNAPSHOT, (const void **)vms, *n)")]),
    ("batch --sort: a vCPU's figures over the snapshot not read for its key",
     [("outputs/batch_common.c", "\treturn model_scope_vcpu(sc, b->m, v, b->cumulative) || model_scope_summary(sc) ? -1 : 0;",
       "\treturn 0;")]),
    ("wall clock: live times without CLOCK_REALTIME's offset",
     [("outputs/batch_common.c", ".wall_offset = b->live ? clock_wall_offset() : 0,", ".wall_offset = 0,")]),
    ("wall clock: a recording's times taken for the wall clock without its DATE option",
     [("src/sources/replay.c", "r->wall = layout.date && r->ns;", "r->wall = r->ns;")]),
    ("CSV: time_unit always ns",
     [("src/model/model_fields.c", "GET_SNAP(get_time_unit, v->s = s->time_unit)", "GET_SNAP(get_time_unit, v->s = \"ns\")")]),
    ("CSV/JSON: the wall-clock time's microseconds as milliseconds",
     [("src/model/model_fields.c", "(int)(ns % 1000000000 / 1000)", "(int)(ns % 1000000000 / 1000000)")]),
    ("names: an old name's alias dropped (--fields p99 refused)",
     [("src/model/model_field_names.c", '\t{ "p99",                    "latency_p99", NULL },\n', "")]),
    ("names: a rate named _s again, against the rule (vm_exits_s)",
     [("src/model/model_fields.c", 'VMAPART("vm_exits_per_s",', 'VMAPART("vm_exits_s",')]),
    ("names: a JSON key that is not its field's name less the level (mem_rss)",
     [("src/model/model_fields.c", 'VM("vm_mem_rss_bytes",       "mem_rss_bytes",',
       'VM("vm_mem_rss_bytes",       "mem_rss",')]),
    ("JSON: a VM's field left apart, skipped by the row's loop (vm_top_reason)",
     [("src/model/model_fields.c", 'VMX("vm_top_reason",', 'VMAPART("vm_top_reason",')]),
    ("JSON: a vCPU's field written under its CSV name (vcpu_halt_pct, not halt_pct)",
     [("src/model/model_fields.c", "{ MR_VCPU, n, NULL, VCPU_KEY(n), t, kind, MF_NO_HIST, false, fn, d, false }",
       "{ MR_VCPU, n, NULL, n, t, kind, MF_NO_HIST, false, fn, d, false }")]),
    ("JSON: a VM's latency figures without the row's summed-up scope (null)",
     [("outputs/batch_json.c", "if (model_scope_vm(&vs, m, vm, b->cumulative) || model_scope_summary(&vs))",
       "if (model_scope_vm(&vs, m, vm, b->cumulative))")]),
    ("names: an old name said twice in the notice",
     [("src/model/model_field_names.c", "if (!model_note_has(note, said))", "if (!model_note_has(note, said) || note)")]),
    ("names: kvmtop_vm_info's display-name label back to name",
     [("outputs/metrics.c", '{ "display_name", "vm_display_name" },', '{ "name", "vm_display_name" },')]),
    ("names: batch --fields keeps an old name that is a screen column (tid: the thieves pane's)",
     [("src/tables.c", "return ctx ? model_field(name) || model_field_family(name) : field_known(name, false);",
       "return field_known(name, false);")]),
    # issue 45: the operator's first hour
    ("help pane: a text cut at its column's width, mid-word, not wrapped at a space",
     [("ui/pane_help.c", "for (cut = (size_t)w; cut > 0 && s[cut] != ' '; cut--)",
       "for (cut = (size_t)w; 0 && s[cut] != ' '; cut--)")]),
    ("help pane: texts wrapped at 90 columns whatever the terminal's width",
     [("ui/pane_help.c", "int w = cols - help_cols[0].width - 1;", "int w = 90;")]),
    ("--listen: says nothing when it starts serving",
     [("outputs/export.c", "\t\texport_say_url((struct sockaddr *)&ss);\n", "")]),
    ("README: command (1) runs the tree's kvmtop, not make install",
     [("README", "make -j2 && make install && kvmtop --demo", "make -j2 && ./kvmtop --demo")]),
    ("README: command (1) installs under a prefix not on PATH, nor man's",
     [("README", "autoreconf -fi && ./configure && make -j2 && make install && kvmtop --demo",
       "autoreconf -fi && ./configure --prefix=/opt/kvmtop && make -j2 && make install && kvmtop --demo")]),
    # issue 45 item 4: TIME%, perf kvm stat's Time%
    ("TIME%: a reason's latency sum over the scope's exits, not over its summed latency",
     [("src/model/model_fields.c", "100.0 * hist_sum_frac(&w->lat) / w->scope_lat_sum)",
       "100.0 * hist_sum_frac(&w->lat) / (double)w->scope_exits)")]),
    ("TIME%: the scope's summed latency without the blocking reasons' (HLT), as its handling is",
     [("src/model/model_scope.c", "\t\tlat_sum += hist_sum_frac(&sc->rows[i].lat);\n",
       "\t\tlat_sum += sc->rows[i].r->blocking ? 0 : hist_sum_frac(&sc->rows[i].lat);\n")]),
    ("TIME%: a reason without pairs in a scope with some printed as 0, not unknown",
     [("src/model/model_fields.c", "GET(get_sum_pct, v->unknown = !w->lat.samples || ", "GET(get_sum_pct, v->unknown = ")]),
    ("screen: the reasons pane's TIME% column shows the share of exits (pct)",
     [("ui/pane_reasons.c", 'COL_RIGHT, NULL,           NULL,              true,  3, 0,          "latency_sum_pct" }',
       'COL_RIGHT, NULL,           NULL,              true,  3, 0,          "pct" }')]),
    # issue 45 item 2: F5, the VMs pane as htop's tree
    ("tree: every vCPU listed under the first VM",
     [("ui/pane_vms.c", "\tlong parent = (long)p->nr - 1;", "\tlong parent = 0;")]),
    ("tree: a vCPU's EXITS its total, not its exits in the interval (vm_exits paired with vcpu_exits_total)",
     [("src/model/model_fields.c", '{ "vm_exits",             "vcpu_exits" },', '{ "vm_exits",             "vcpu_exits_total" },')]),
    ("tree: a column with no vCPU counterpart '-' on a vCPU's row, not blank",
     [("ui/tui_cols.c", "\t\t\tvals[i].blank = true;", "\t\t\tvals[i].blank = false;")]),
    ("tree: a VM's vCPUs by their id, not by the sort column's vCPU figure",
     [("ui/tui_stack.c", "\tif (!order_blank(p, x, p->sort) && !order_blank(p, y, p->sort))",
       "\tif (0)")]),
    ("tree: the last vCPU's glyph as every other's",
     [("ui/tui_stack.c", "\t\ttui_row_node(p, r)->last = up && (", "\t\ttui_row_node(p, r)->last = 0 && (")]),
    ("tree: Enter on a vCPU's row opens its VM's vCPUs",
     [("ui/pane_vms.c", "\tif (w->tid >= 0)\n\t\treturn tui_push(t, PANE_REASONS,", "\tif (0)\n\t\treturn tui_push(t, PANE_REASONS,")]),
    ("tree: i leaves idle vCPUs shown (a vCPU's row never idle)",
     [("ui/tui_cols.c", "\treturn col >= 0 && ops->cols[col].field && row_val(ops, r, col)->has &&",
       "\treturn col >= 0 && ops->cols[col].field && row_val(ops, r, col)->has && !row_val(ops, r, 0)->blank &&")]),
    ("settings: W writes tree = off whatever F5 says",
     [("ui/tui_rc.c", 'snprintf(buf, len, "%s", t->vms_tree ? "on" : "off");', 'snprintf(buf, len, "%s", "off");')]),
    # issue 46 item 5: ended VMs, the summary of the whole run
    ("ended: a VMM that began after kvmtop not counted from zero (its first reading counts nothing)",
     [("src/context/context_sum.c", "\t\tx->sum[f] = born ? v : 0;\n", "\t\tx->sum[f] = 0;\n")]),
    ("ended: a tap of a VMM that began after kvmtop not counted from zero",
     [("src/context/context_sum.c", "\t\t\t\tt->sum[i] = born ? ctr[i] : 0;\n", "\t\t\t\tt->sum[i] = 0;\n")]),
    ("ended: a VM that ended loses its memory figures (levels known only where read now)",
     [("src/context/context_sum.c", "uint32_t known = (last ? x->levels : now_known) & CTX_LEVELS;",
       "uint32_t known = now_known & CTX_LEVELS;")]),
    ("ended: the peak resident read as VmRSS, not VmHWM",
     [("src/context/context_proc.c", 'keyval_find(c->buf, "VmHWM:", &v)', 'keyval_find(c->buf, "VmRSS:", &v)')]),
    ("ended: no end time kept (a VM marked ended goes at the next snapshot, never shown so)",
     [("src/model/model_ended.c", "\t\tvm->end = now;\n", "\t\tvm->end = 0;\n")]),
    ("ended: the run's start not read (the first snapshot's and a summary's rates unknown)",
     [("src/driver/loop_live.c", "driver_context(drv, now, true)", "driver_context(drv, now, false)")]),
    ("ended: --keep-ended ignored (the default bound instead)",
     [("src/driver/pipeline.c", "m->max_ended = c->keep_ended;", "m->max_ended = MODEL_KEEP_ENDED;")]),
    ("ended: ended VMs kept whatever the view (the exporter keeps their series)",
     [("src/driver/pipeline.c", "m->keep_ended = c->summary && drv->src.live;", "m->keep_ended = drv->src.live;")]),
    ("ended: the rest's row takes the VMs that ended last, not first",
     [("src/model/model_ended.c", "(!first || vm->end < first->end)", "(!first || vm->end >= first->end)")]),
    ("ended: the rest's row leaves out the folded VMs' exits",
     [("src/model/model_scope.c", "\tsc->exits_total += r->exits;\n", "")]),
]


def sh(cmd, cwd, log=None, env=None):
    with open(log or os.devnull, "w") as out:
        return subprocess.run(cmd, cwd=cwd, shell=True, stdout=out, stderr=subprocess.STDOUT, env=env).returncode


def failed_tests(work):
    """The test programs that failed, from automake's test-suite.log."""
    try:
        text = open(os.path.join(work, "test-suite.log")).read()
    except OSError:
        return ["(no test-suite.log: the build failed)"]
    # a TAP test's cases say 'FAIL: tests/x.py N - ...', its log's title 'FAIL: tests/x'
    return sorted(set(os.path.basename(l.split()[1]).replace(".py", "")
                      for l in text.splitlines() if l.startswith(("FAIL:", "ERROR:"))))


# The suites most mutations fail, run first: a mutation is caught at the
# first stage whose tests fail, and the rest of the suite is not run for
# it; one that survives has run the whole suite.
FIRST = ["tests/structure.py", "tests/objects.py", "tests/golden.py", "tests/replay_gen.py", "tests/replay_oracle.py",
         "tests/scope.py", "tests/time_states.py", "tests/steal.py", "tests/findings.py", "tests/ips.py",
         "tests/bad_input.py", "tests/metrics.py", "tests/born.py", "tests/listed.py", "tests/identity.py"]


def test_stages(work):
    """The suite's TESTS (Makefile.am) in stages: the unit tests, then FIRST one by one, then the rest."""
    mk = subprocess.run(["make", "-s", "-f", "Makefile", "-f", "-", "kvmtop-print-tests"], cwd=work,
                        input="kvmtop-print-tests:\n\t@echo $(TESTS)\n", capture_output=True, text=True)
    tests = mk.stdout.split()
    if mk.returncode or not tests:
        return [None]		# the whole suite at once
    unit = [t for t in tests if os.path.basename(t).startswith("test_")]
    first = [t for t in FIRST if t in tests]
    rest = [t for t in tests if t not in unit and t not in first]
    return [unit] + [[t] for t in first] + [rest]


def check_staged(work, env, stages):
    """make check over the stages in turn: the status of the first that fails, else 0."""
    for stage in stages:
        cmd = "make -j2 check" + ("" if stage is None else " TESTS='%s'" % " ".join(stage))
        rc = sh(cmd, work, env=env)
        if rc:
            return rc
    return 0


def check_texts(src, todo):
    """0 when every edit's old text occurs exactly once in its file under src, else 1 (said which)."""
    bad = 0
    for what, edits in todo:
        for path, old, _ in edits:
            try:
                n = open(os.path.join(src, path)).read().count(old)
            except OSError as e:
                n = "no file (%s)" % e.strerror
            if n != 1:
                print("mutate: %s: its text is %s times in %s" % (what, n, path))
                bad = 1
    print("mutate: %d mutations, %s" % (len(todo), "each text once in its file" if not bad else "some stale"))
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--only", action="append",
                    help="only mutations whose description contains this (given again: any of them)")
    ap.add_argument("--from", dest="first", type=int, default=1,
                    help="start at mutation N of the list (1-based): resume a run cut short")
    ap.add_argument("--keep", action="store_true", help="keep the scratch tree")
    ap.add_argument("--check", action="store_true",
                    help="only check that each mutation's text is once in the source: exit 1 if not")
    ap.add_argument("--tests", action="append",
                    help="only this test of TESTS (e.g. tests/live_objects.py), unmutated and mutated; given again: "
                    "these tests")
    ap.add_argument("--live", action="store_true", help="keep the live cases the emulated KVM host runs")
    a = ap.parse_args()
    todo = [m for m in MUTATIONS[max(a.first, 1) - 1:] if not a.only or any(o in m[0] for o in a.only)]
    if a.check:
        sys.exit(check_texts(a.src, todo))

    env = dict(os.environ)
    # the live cases the emulated host runs are left out (tap.in_kvm_host): minutes a mutation
    if not a.live:
        env["KVMTOP_MUTATE"] = "1"
    traces = os.path.join(os.path.dirname(os.path.abspath(a.src)), "shared", "traces")
    if "KVMTOP_TRACES" not in env and os.path.isdir(traces):
        env["KVMTOP_TRACES"] = traces
    work = tempfile.mkdtemp(prefix="kvmtop-mutate-")
    files = subprocess.run(["git", "ls-files"], cwd=a.src, capture_output=True, text=True)
    if files.returncode:
        sys.exit("mutate: %s is not a git checkout: %s" % (a.src, files.stderr.strip()))
    for f in files.stdout.splitlines():
        os.makedirs(os.path.join(work, os.path.dirname(f)), exist_ok=True)
        shutil.copy2(os.path.join(a.src, f), os.path.join(work, f))
    print("mutate: scratch tree %s; building and checking it unmutated" % work, flush=True)
    if sh("autoreconf -fi && ./configure -q && make -j2", work, os.path.join(work, "mutate-build.log")):
        sys.exit("mutate: the unmutated tree does not build (see %s/mutate-build.log)" % work)
    tests = " TESTS='%s'" % " ".join(a.tests) if a.tests else ""
    if sh("make -j2 check" + tests, work, env=env):
        sys.exit("mutate: the unmutated tree fails its tests: %s" % ", ".join(failed_tests(work)))

    stages = [a.tests] if a.tests else test_stages(work)
    caught, survived, broken = [], [], []
    for n, (what, edits) in enumerate(todo, 1):
        saved, ok = {}, True
        for path, old, new in edits:
            full = os.path.join(work, path)
            text = saved.get(path) or open(full).read()
            saved.setdefault(path, text)
            cur = open(full).read()
            if cur.count(old) != 1:
                ok = False
                break
            open(full, "w").write(cur.replace(old, new))
        if not ok:
            broken.append(what)
            print("[%d/%d] NOT APPLIED  %s (its text is not once in %s)" % (n, len(todo), what, path), flush=True)
        else:
            t0 = time.time()
            rc = check_staged(work, env, stages)
            fails = failed_tests(work) if rc else []
            (caught if rc else survived).append(what)
            print("[%d/%d] %-9s %s  (%.0f s%s)" % (n, len(todo), "caught" if rc else "SURVIVED", what,
                                                  time.time() - t0, "; " + ", ".join(fails) if fails else ""),
                  flush=True)
        for path, text in saved.items():
            open(os.path.join(work, path), "w").write(text)
    if not a.keep:
        shutil.rmtree(work)
    print("mutate: %d mutations applied, %d caught, %d survived, %d not applied"
          % (len(todo) - len(broken), len(caught), len(survived), len(broken)))
    for what in survived:
        print("mutate: survived: " + what)
    sys.exit(1 if survived or broken else 0)


if __name__ == "__main__":
    main()
