/*
 * nolibc: a statically linked program with no libc at all, hence no
 * allocator tracelloc could recognise: "tracelloc -p PID" on it must fail
 * with one line on stderr and a non-zero exit.
 *
 * Build (the Makefile special-cases this file):
 *   gcc -static -nostdlib -fno-stack-protector -fno-pie -no-pie -O1 -g -o build/tests/nolibc tests/targets/nolibc.c
 *
 * _start sleeps in nanosleep(1 s) in a loop and exits by itself after
 * 120 s, so a harness that forgets it leaves nothing behind for long.
 */
struct tl_timespec {
	long tv_sec;
	long tv_nsec;
};

#if defined(__x86_64__)
#define SYS_NANOSLEEP 35
#define SYS_EXIT_GROUP 231
static long sys2(long nr, long a, long b)
{
	long ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b)
			 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
#define SYS_NANOSLEEP 101
#define SYS_EXIT_GROUP 94
static long sys2(long nr, long a, long b)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1) : "memory");
	return x0;
}
#else
#error "nolibc.c: unsupported architecture"
#endif

__attribute__((noreturn, used)) void _start(void)
{
	struct tl_timespec ts = { 1, 0 };
	int i;

	for (i = 0; i < 120; i++)
		sys2(SYS_NANOSLEEP, (long)&ts, 0);
	for (;;)
		sys2(SYS_EXIT_GROUP, 0, 0);
}
