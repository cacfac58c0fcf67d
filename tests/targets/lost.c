/*
 * lost: every case of a leak check, in known bytes per class and site.
 *
 *   lost [wait|exit]
 *
 * With "wait", writes "ready PID" to $TL_READY and waits for SIGUSR1 first
 * (so that a tracer attached with -p sees every block). Then makes its
 * blocks, writes "ready PID" again (with "wait": to the same file), and
 * sleeps until killed; with "exit", returns from main (exit(0)) instead.
 * What a leak check must find:
 *
 *   definitely lost: site_dropped 1000 (1), site_xor 500 (1),
 *                    site_list_head 64 (1), site_cycle 48 (1)   1612 bytes in 4
 *   indirectly lost: site_list_node 128 (2), site_cycle 48 (1)   176 bytes in 3
 *   possibly lost:   site_interior 400 (1)
 *   still reachable: site_global 100, site_chain 500 (2), site_tls 700,
 *                    site_thread_stack 600, site_thread_tls 900 (a
 *                    __thread variable of another thread), site_in_mmap 800
 *   nothing of site_freed (freed)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>

#include "ledger.h"

struct node {
	struct node *next;
	char pad[56];
};

/* volatile: stores to statics nobody reads would be dropped */
static void *volatile g_global;
static void **volatile g_chain;
static volatile uintptr_t g_xor;
static char *volatile g_interior;
static void **volatile g_region;
static __thread void *volatile t_main;
static pthread_mutex_t g_hold = PTHREAD_MUTEX_INITIALIZER;
static volatile int g_thread_ready;

SITE void *site_global(size_t n) { return malloc(n); }
SITE void *site_chain(size_t n) { return malloc(n); }
SITE void *site_dropped(size_t n) { return malloc(n); }
SITE void *site_xor(size_t n) { return malloc(n); }
SITE void *site_list_head(size_t n) { return malloc(n); }
SITE void *site_list_node(size_t n) { return malloc(n); }
SITE void *site_cycle(size_t n) { return malloc(n); }
SITE void *site_interior(size_t n) { return malloc(n); }
SITE void *site_tls(size_t n) { return malloc(n); }
SITE void *site_thread_stack(size_t n) { return malloc(n); }
SITE void *site_thread_tls(size_t n) { return malloc(n); }
SITE void *site_in_mmap(size_t n) { return malloc(n); }
SITE void *site_freed(size_t n) { return malloc(n); }

/* a thread that holds its block in a local only, blocked */
static void *holder(void *arg)
{
	void *volatile mine = site_thread_stack(600);

	/* its own copy of the __thread variable, in its static TLS above its stack */
	t_main = site_thread_tls(900);
	g_thread_ready = 1;
	pthread_mutex_lock(&g_hold);
	pthread_mutex_unlock(&g_hold);
	return (void *)mine;
}

__attribute__((noinline)) static void make_lost(void)
{
	struct node *head, *a, *b;
	void **c1, **c2;

	/* no pointer kept */
	memset(site_dropped(1000), 1, 1000);
	/* kept only xor-ed: no scanner can see it */
	g_xor = (uintptr_t)site_xor(500) ^ 0x5a5a5a5a5a5aULL;
	/* a lost list: its head definitely, its nodes indirectly */
	head = site_list_head(sizeof(*head));
	a = site_list_node(sizeof(*a));
	b = site_list_node(sizeof(*b));
	b->next = NULL;
	a->next = b;
	head->next = a;
	/* a lost cycle */
	c1 = site_cycle(48);
	c2 = site_cycle(48);
	c1[0] = c2;
	c2[0] = c1;
	/* through its middle only */
	g_interior = (char *)site_interior(400) + 16;
	free(site_freed(300));
}

__attribute__((noinline)) static void make_reachable(void)
{
	pthread_t t;

	g_global = site_global(100);
	g_chain = site_chain(200);
	g_chain[0] = site_chain(300);
	t_main = site_tls(700);
	g_region = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	lg_check(g_region != MAP_FAILED, "mmap");
	g_region[7] = site_in_mmap(800);
	pthread_mutex_lock(&g_hold);
	lg_check(!pthread_create(&t, NULL, holder, NULL), "pthread_create");
	while (!g_thread_ready)
		usleep(1000);
}

int main(int argc, char **argv)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (argc > 1 && !strcmp(argv[1], "wait")) {
		tl_ready();
		sigwait(&set, &sig);
	}
	make_reachable();
	make_lost();
	lg_sink = NULL;
	lg_scrub_stack();
	tl_ready();
	if (argc > 1 && !strcmp(argv[1], "exit"))
		return 0;
	for (;;)
		pause();
}
