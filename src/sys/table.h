/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_TABLE_H
#define TRACELLOC_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Open-addressing hash table from non-zero 64-bit keys (addresses, thread ids)
 * to fixed-size values. Linear probing with backward-shift deletion: no
 * tombstones, so a table with heavy churn never degrades.
 */
struct table;

struct table *table__new(size_t value_size);
void table__destroy(struct table *t);

/* value of key, or NULL */
void *table__lookup(const struct table *t, uint64_t key);
/* value of key, inserted zeroed when absent (*existed says which); NULL on ENOMEM */
void *table__upsert(struct table *t, uint64_t key, bool *existed);
/* copies the value to value_out (if not NULL) and removes it; -ENOENT if absent */
int table__remove(struct table *t, uint64_t key, void *value_out);
size_t table__count(const struct table *t);
/* removes every key, keeps the capacity */
void table__clear(struct table *t);
/* bytes held by the table itself */
size_t table__memory(const struct table *t);

/* iteration: start with *pos = 0; returns the next value and its key, or NULL at the end */
void *table__next(const struct table *t, size_t *pos, uint64_t *key);

#endif
