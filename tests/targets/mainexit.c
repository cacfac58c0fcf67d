/*
 * mainexit: the main thread calls pthread_exit while a worker goes on
 * allocating. Once the main thread is gone, /proc/PID/maps, map_files and
 * root are empty or unreadable: only the live threads' /proc/PID/task/TID
 * show the process's memory.
 *
 * The worker waits until the main thread has exited, writes "ready PID" to
 * $TL_READY, then waits for SIGUSR1 (attach mode) or, with the argument
 * "now", goes on at once (launch mode). Then:
 *   site_worker_keep    5 x malloc(300), all kept
 *   site_worker_churn   4 x malloc(1000), 2 freed
 *   site_late_thread    3 x malloc(200) in a thread made after main exited, 1 freed
 * and the process exits 0 from the worker.
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ledger.h"

SITE void *site_worker_keep(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_worker_churn(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_late_thread(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

static bool wait_for_signal;
static void *keep[16];
static int nkeep;

/* the main thread's state in /proc: 'Z' once it has called pthread_exit */
static bool main_exited(void)
{
	char path[64], buf[512], *p;
	int fd = -1;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)getpid());
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && (p[2] == 'Z' || p[2] == 'X');
}

static void *late_thread(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 3; i++) {
		void *p = site_late_thread(200);

		lg_check(p != NULL, "malloc(200)");
		lg_alloc("site_late_thread", 200);
		if (i == 1) {
			free(p);
			lg_free("site_late_thread", 200);
		} else {
			keep[nkeep++] = p;
		}
	}
	return NULL;
}

static void *worker(void *arg)
{
	struct timespec limit = { 60, 0 }, pause = { 0, 2000000 };
	pthread_t late;
	sigset_t set;
	siginfo_t si;
	int i;

	(void)arg;
	for (i = 0; i < 5000 && !main_exited(); i++)
		nanosleep(&pause, NULL);
	lg_check(main_exited(), "the main thread did not exit");
	lg_declare("site_worker_keep");
	lg_declare("site_worker_churn");
	lg_declare("site_late_thread");
	tl_ready();
	if (wait_for_signal) {
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		if (sigtimedwait(&set, &si, &limit) != SIGUSR1) {
			static const char msg[] = "mainexit: no SIGUSR1 within 60 s\n";
			ssize_t w = write(2, msg, sizeof(msg) - 1);

			(void)w;
			exit(2);
		}
	}

	/* ---- traced from here on ---- */
	for (i = 0; i < 5; i++) {
		void *p = site_worker_keep(300);

		lg_check(p != NULL, "malloc(300)");
		lg_alloc("site_worker_keep", 300);
		keep[nkeep++] = p;
	}
	for (i = 0; i < 4; i++) {
		void *p = site_worker_churn(1000);

		lg_check(p != NULL, "malloc(1000)");
		lg_alloc("site_worker_churn", 1000);
		if (i % 2) {
			free(p);
			lg_free("site_worker_churn", 1000);
		} else {
			keep[nkeep++] = p;
		}
	}
	if (pthread_create(&late, NULL, late_thread, NULL) == 0)
		pthread_join(late, NULL);
	else
		lg_check(0, "pthread_create");
	exit(lg_write() ? 1 : 0);
}

int main(int argc, char **argv)
{
	pthread_t th;
	sigset_t set;

	wait_for_signal = !(argc > 1 && !strcmp(argv[1], "now"));
	/* SIGUSR1 blocked in every thread; the worker takes it with sigtimedwait */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pthread_create(&th, NULL, worker, NULL) != 0)
		return 1;
	pthread_exit(NULL);
}
