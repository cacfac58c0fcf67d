// SPDX-License-Identifier: GPL-2.0
/* forks.c: the two halves of a fork in either order, their expiry, slots */
#include "forks.h"
#include "test.h"
#include "tracelloc.h"

#define SEC 1000000000ULL

TEST(forks_halves_either_order)
{
	struct fork_record parent = { .parent = true, .slot = 3, .child_own = 100 };
	struct fork_record child = { .slot = 3, .child_own = 100, .child = 4100 };
	struct forks *f = forks__new(4);
	struct fork_child c = { 0 };

	ASSERT_TRUE(f != NULL, "forks__new");
	/* the parent's first: the child's number is given meanwhile */
	ASSERT_EQ(forks__half(f, &parent, 1 * SEC, &c), FORK_KEPT, "the parent's half first");
	forks__set_idx(f, &parent, 7);
	ASSERT_EQ(forks__half(f, &child, 1 * SEC, &c), FORK_PAIRED, "then the child's");
	ASSERT_EQ(c.child, 4100, "the child's pid, from its half");
	ASSERT_EQ(c.idx, 7, "its number, from the parent's");
	ASSERT_EQ(c.slot, 3, "its parent's slot");
	/* the child's first */
	ASSERT_EQ(forks__half(f, &child, 2 * SEC, &c), FORK_KEPT, "the child's half first");
	ASSERT_EQ(forks__half(f, &parent, 2 * SEC, &c), FORK_PAIRED, "then the parent's");
	ASSERT_EQ(c.child, 4100, "the child's pid, kept from its half");
	/* the same child pid under another parent is another fork */
	parent.slot = 4;
	ASSERT_EQ(forks__half(f, &child, 3 * SEC, &c), FORK_KEPT, "a child's half");
	ASSERT_EQ(forks__half(f, &parent, 3 * SEC, &c), FORK_KEPT, "another parent's: no pair");
	/* two halves of one side never pair */
	ASSERT_EQ(forks__half(f, &parent, 3 * SEC, &c), FORK_KEPT, "the parent's half twice");
	forks__destroy(f);
}

TEST(forks_full_and_expiry)
{
	struct fork_record r = { .slot = 1, .child = 500 };
	struct forks *f = forks__new(3);
	enum fork_expiry why;
	struct fork_child c = { 0 }, waiting = { .slot = NO_SLOT, .child = 600, .idx = 9 };
	int kinds[3] = { 0 };

	ASSERT_TRUE(f != NULL, "forks__new");
	r.child_own = 1;
	ASSERT_EQ(forks__half(f, &r, 0, &c), FORK_KEPT, "a child's half");
	r.child_own = 2;
	r.parent = true;
	ASSERT_EQ(forks__half(f, &r, SEC / 2, &c), FORK_KEPT, "a parent's half");
	forks__set_idx(f, &r, 8);
	ASSERT_TRUE(forks__wait_slot(f, &waiting, SEC), "a child waits for a slot");
	r.child_own = 3;
	ASSERT_EQ(forks__half(f, &r, SEC, &c), FORK_NO_ROOM, "no room for a fourth");
	ASSERT_FALSE(forks__wait_slot(f, &waiting, SEC), "nor for a child that waits");

	ASSERT_FALSE(forks__expire(f, FORK_HALF_WAIT_NS - 1, &c, &why), "none too old yet");
	ASSERT_TRUE(forks__expire(f, FORK_HALF_WAIT_NS, &c, &why), "the child's half, too old");
	ASSERT_EQ(why, FORK_NO_PARENT, "its parent's half never came");
	ASSERT_EQ(c.child, 500, "that child");
	ASSERT_FALSE(forks__expire(f, FORK_HALF_WAIT_NS, &c, &why), "one at a time as they age");
	while (forks__expire(f, 10 * SEC, &c, &why))
		kinds[why]++;
	ASSERT_EQ(kinds[FORK_NO_CHILD], 1, "the parent's half whose child never came");
	ASSERT_EQ(kinds[FORK_NO_SLOT], 1, "the child that waited for a slot in vain");
	ASSERT_FALSE(forks__take_waiting(f, &c), "none waits any more");
	forks__destroy(f);
}

TEST(forks_waiting_for_slots)
{
	struct fork_child a = { .slot = 2, .child = 700, .idx = 1 }, b = { .slot = 5, .child = 701 };
	struct fork_record r = { .parent = true, .slot = 2, .child_own = 9 };
	struct forks *f = forks__new(4);
	struct fork_child c = { 0 };

	ASSERT_TRUE(f != NULL, "forks__new");
	ASSERT_TRUE(forks__wait_slot(f, &a, 0), "a waits");
	ASSERT_EQ(forks__half(f, &r, 0, &c), FORK_KEPT, "a half kept meanwhile");
	ASSERT_TRUE(forks__wait_slot(f, &b, 0), "b waits");
	ASSERT_TRUE(forks__take_waiting(f, &c), "one taken");
	ASSERT_TRUE(forks__take_waiting(f, &c) && (c.child == 700 || c.child == 701),
		    "the other taken");
	ASSERT_FALSE(forks__take_waiting(f, &c), "a kept half is no child waiting for a slot");
	/* a waiting child is no half: a child's record of the same key does not pair */
	r.parent = false;
	r.child_own = 0;
	ASSERT_TRUE(forks__wait_slot(f, &a, 0), "a waits again");
	r.slot = 2;
	ASSERT_EQ(forks__half(f, &r, 0, &c), FORK_KEPT, "a record does not pair with it");
	forks__destroy(f);
}
