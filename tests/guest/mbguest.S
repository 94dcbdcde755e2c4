/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A freestanding multiboot guest for QEMU's -kernel, the VM the real-QEMU
 * live tests (tests/live_qemu.py, tests/live_objects.py) watch.  It exits
 * to the host a known number of times at known instructions, then ends
 * QEMU through isa-debug-exit (iobase 0xf4): QEMU's status is
 * (0x10 << 1) | 1 = 33.
 *
 *   port_writes:  N_OUT  x outb to port 0x700   (SVM io, to QEMU)
 *   port_reads:   N_IN   x inb from port 0x704  (SVM io, to QEMU)
 *   cpuid_loop:   N_CPUID x cpuid                (SVM cpuid, in KVM)
 *   objects:      with -DOBJECTS (tests/live_objects.py), one loop per
 *                 object, on objects SeaBIOS never touches, so that each
 *                 object's count is its loop's (every count 1 or more):
 *                 N_OUTB x outb to 0x708, N_OUTW x outw to 0x70c, N_OUTL
 *                 x outl to 0x710 (SVM io, to QEMU: no device there);
 *                 N_RDMSR1 x rdmsr, then N_WRMSR1 x wrmsr of what it read,
 *                 of MSR1 (IA32_MISC_ENABLE, 0x1a0), N_RDMSR2 and N_WRMSR2
 *                 of MSR2 (IA32_PAT, 0x277) (SVM msr, KVM emulates both);
 *                 N_MMIO_ST x 32-bit store, N_MMIO_LD x 32-bit load at
 *                 0xfed00000 (HPET's capabilities, read-only: npf, to
 *                 QEMU); N_LEAF x cpuid of leaf 6 (thermal, power);
 *                 N_HCALL x vmmcall of KVM_HC_VAPIC_POLL_IRQ (1), which
 *                 KVM answers 0 (SVM vmmcall)
 *   hold_rtc:     until the RTC's seconds changed HOLD_TICKS times
 *                 (rtc_seconds: io to 0x70, 0x71; as many as it takes)
 *
 * With -DHALT_AT_END it halts for good instead (interrupts are off), so
 * QEMU stays up until it is killed: for the screen test.
 * Build: cc -m32 -nostdlib -static -no-pie -Wl,-Ttext=0x100000
 * -DN_OUT=.. -DN_IN=.. -DN_CPUID=.. mbguest.S; nm of it is its System.map.
 */
#ifndef N_OUT
#define N_OUT	3000
#endif
#ifndef N_IN
#define N_IN	2000
#endif
#ifndef N_CPUID
#define N_CPUID	2500
#endif
#ifndef HOLD_TICKS
#define HOLD_TICKS	3
#endif
#ifndef SPIN
#define SPIN	200000
#endif
#ifdef OBJECTS
#if !(N_OUTB > 0 && N_OUTW > 0 && N_OUTL > 0 && N_RDMSR1 > 0 && N_WRMSR1 > 0 && N_RDMSR2 > 0 && \
      N_WRMSR2 > 0 && N_MMIO_ST > 0 && N_MMIO_LD > 0 && N_LEAF > 0 && N_HCALL > 0)
#error "-DOBJECTS needs each of N_OUTB .. N_HCALL defined, 1 or more"
#endif
#endif
#define MSR1	0x1a0		/* IA32_MISC_ENABLE */
#define MSR2	0x277		/* IA32_PAT */
#define HPET	0xfed00000	/* its general capabilities and ID */
#define LEAF	6		/* thermal and power management */
#define HCALL	1		/* KVM_HC_VAPIC_POLL_IRQ */

	.text
	/* the multiboot header: in the first 8 KiB of the file, 4-aligned */
	.align 4
multiboot_header:
	.long 0x1BADB002
	.long 0
	.long -0x1BADB002

	.globl _start
_start:
	cli
	/* multiboot leaves the stack pointer undefined */
	mov $stack_top, %esp
	jmp port_writes

	.globl port_writes
port_writes:
	mov $N_OUT, %ecx
	mov $0x5a, %al
	mov $0x700, %dx
3:	outb %al, %dx
	dec %ecx
	jnz 3b

	.globl port_reads
port_reads:
	mov $N_IN, %ecx
	mov $0x704, %dx
4:	inb %dx, %al
	dec %ecx
	jnz 4b

	.globl cpuid_loop
cpuid_loop:
	mov $N_CPUID, %esi
5:	xor %eax, %eax
	cpuid
	dec %esi
	jnz 5b
#ifdef OBJECTS
	jmp objects
#endif

	/*
	 * Stay up until the RTC's seconds have changed HOLD_TICKS times (at
	 * least HOLD_TICKS - 1 s, whatever the host's speed), so that a
	 * monitor sampling each second sees the VM in two snapshots or more.
	 * Each look is two io exits (0x70, 0x71), counted at hold_rtc; a
	 * spin between looks keeps them few.
	 */
	.globl hold_rtc
hold_rtc:
	mov $HOLD_TICKS, %edi
	call rtc_seconds
	mov %al, %bl
8:	mov $SPIN, %ecx
9:	dec %ecx
	jnz 9b
	call rtc_seconds
	cmp %al, %bl
	je 8b
	mov %al, %bl
	dec %edi
	jnz 8b
	jmp finish

	/* the RTC's seconds register (CMOS 0) in %al */
	.globl rtc_seconds
rtc_seconds:
	mov $0, %al
	outb %al, $0x70
	inb $0x71, %al
	ret

#ifdef OBJECTS
	/* each loop counts down %esi; none of them may be 0 (2^32 times) */
	.globl objects
objects:
	mov $0x5a, %eax
	mov $0x708, %dx
	mov $N_OUTB, %esi
10:	outb %al, %dx
	dec %esi
	jnz 10b
	mov $0x70c, %dx
	mov $N_OUTW, %esi
11:	outw %ax, %dx
	dec %esi
	jnz 11b
	mov $0x710, %dx
	mov $N_OUTL, %esi
12:	outl %eax, %dx
	dec %esi
	jnz 12b

	/* rdmsr leaves the MSR in %edx:%eax, which wrmsr writes back */
	.globl msr_loops
msr_loops:
	mov $MSR1, %ecx
	mov $N_RDMSR1, %esi
13:	rdmsr
	dec %esi
	jnz 13b
	mov $N_WRMSR1, %esi
14:	wrmsr
	dec %esi
	jnz 14b
	mov $MSR2, %ecx
	mov $N_RDMSR2, %esi
15:	rdmsr
	dec %esi
	jnz 15b
	mov $N_WRMSR2, %esi
16:	wrmsr
	dec %esi
	jnz 16b

	/* a write to the read-only capabilities register changes nothing */
	.globl mmio_loops
mmio_loops:
	mov $N_MMIO_ST, %esi
17:	movl %eax, HPET
	dec %esi
	jnz 17b
	mov $N_MMIO_LD, %esi
18:	movl HPET, %eax
	dec %esi
	jnz 18b

	.globl leaf_loop
leaf_loop:
	mov $N_LEAF, %esi
19:	mov $LEAF, %eax
	xor %ecx, %ecx
	cpuid
	dec %esi
	jnz 19b

	/* a 32-bit caller: nr in %eax, arguments in %ebx, %ecx, %edx, %esi */
	.globl hcall_loop
hcall_loop:
	mov $N_HCALL, %edi
20:	mov $HCALL, %eax
	xor %ebx, %ebx
	xor %ecx, %ecx
	xor %edx, %edx
	xor %esi, %esi
	vmmcall
	dec %edi
	jnz 20b
	jmp hold_rtc
#endif

	.globl finish
finish:
#ifdef HALT_AT_END
6:	hlt
	jmp 6b
#else
	mov $0x10, %eax
	outl %eax, $0xf4
	/* not reached: QEMU has ended */
7:	hlt
	jmp 7b
#endif

	.bss
	.align 16
	.space 4096
stack_top:
