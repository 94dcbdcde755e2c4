/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A freestanding multiboot guest for QEMU's -kernel, the VM the real-QEMU
 * live test (tests/live_qemu.py) watches.  It exits to the host a known
 * number of times at known instructions, then ends QEMU through
 * isa-debug-exit (iobase 0xf4): QEMU's status is (0x10 << 1) | 1 = 33.
 *
 *   port_writes:  N_OUT  x outb to port 0x700   (SVM io, to QEMU)
 *   port_reads:   N_IN   x inb from port 0x704  (SVM io, to QEMU)
 *   cpuid_loop:   N_CPUID x cpuid                (SVM cpuid, in KVM)
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
