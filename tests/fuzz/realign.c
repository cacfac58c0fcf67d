// SPDX-License-Identifier: GPL-2.0
/* A seed for the unwind tables: a function that realigns its stack through a
 * DRAP register (CFA = *(rbp - 8)), one that keeps a frame pointer, and calls
 * through the .plt. */
extern void sink(volatile char *p);

int realign(int n)
{
	_Alignas(64) volatile char buf[64];
	volatile char vla[n];

	buf[0] = n;
	vla[0] = 1;
	sink(buf);
	sink(vla);
	return buf[0] + n;
}

__attribute__((optimize("no-omit-frame-pointer"))) int framed(int n)
{
	volatile char buf[32];

	buf[0] = n;
	sink(buf);
	return buf[0];
}
