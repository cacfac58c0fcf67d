/*
 * fakeheld: a BPF map named as tracelloc's map of held processes
 * (tracelloc_held, a hash of 4-byte pids), with PID entered, that no
 * tracing program uses: what an unprivileged user could make where the
 * kernel lets one create BPF maps. A tracelloc that took it for another
 * tracelloc's would leave PID stopped at its exit, waiting for a holder
 * that never lets go.
 *
 *   fakeheld PID
 *
 * Writes "ready" to $TL_READY once the map holds PID, and sleeps until
 * killed (the map lives as long as it does).
 */
#include <bpf/bpf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uint32_t pid, how = 0;
	const char *ready = getenv("TL_READY");
	FILE *f;
	int fd;

	if (argc != 2 || !(pid = (uint32_t)atoi(argv[1]))) {
		fprintf(stderr, "usage: fakeheld PID\n");
		return 2;
	}
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, "tracelloc_held", sizeof(pid), sizeof(how), 16, NULL);
	if (fd < 0 || bpf_map_update_elem(fd, &pid, &how, BPF_ANY)) {
		perror("fakeheld: the map");
		return 1;
	}
	if (ready && (f = fopen(ready, "w"))) {
		fprintf(f, "ready %d\n", getpid());
		fclose(f);
	}
	for (;;)
		pause();
}
