// SPDX-License-Identifier: GPL-2.0
/* the library of lsan_use_tls_dynamic.c: a TLS variable of its own */
__thread void *peer_tls_var;

void peer_tls_store(void *p)
{
	peer_tls_var = p;
}
