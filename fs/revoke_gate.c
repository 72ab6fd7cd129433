// SPDX-License-Identifier: GPL-2.0
/*
 * Revokable files: the file gate, for a filesystem that keeps the gate of
 * each open file in its own per-open state (kernfs).
 *
 * The gate counts the calls in flight, and nothing else; closing it adds
 * FILE_GATE_CLOSED, which keeps the count negative for good, so that each
 * new call is refused by its sign, without writing it.  The closer then
 * waits for the count to come down to FILE_GATE_CLOSED; the last call out
 * wakes it.  The fast paths are in <linux/revoke_gate.h>.
 *
 * Copyright (C) 2026 The revokable files authors
 */

#include <linux/revoke_gate.h>
#include <linux/wait_bit.h>

/* The last call left a closed gate. */
void file_gate_left_closed(struct file_gate *gate)
{
	wake_up_var(&gate->calls);
}
EXPORT_SYMBOL_GPL(file_gate_left_closed);

/**
 * file_gate_close - refuse the new calls of a file
 * @gate: its gate
 *
 * The calls already in are not waited for: see file_gate_wait().
 *
 * Context: Any context.
 * Return: true if this call closed @gate, false if it was closed already.
 */
bool file_gate_close(struct file_gate *gate)
{
	int calls = atomic_read(&gate->calls);

	do {
		if (calls < 0)
			return false;
	} while (!atomic_try_cmpxchg(&gate->calls, &calls,
				     calls + FILE_GATE_CLOSED));
	return true;
}
EXPORT_SYMBOL_GPL(file_gate_close);

/**
 * file_gate_wait - wait for the calls in flight of a closed gate
 * @gate: the gate, closed by file_gate_close()
 *
 * The caller must not be in a call of @gate itself.
 *
 * Context: Process context; sleeps, killably.
 * Return: 0 once no call is in flight; -EINTR if a fatal signal came
 * first (the gate stays closed).
 */
int file_gate_wait(struct file_gate *gate)
{
	int err;

	if (WARN_ON_ONCE(!file_gate_closed(gate)))
		return -EINVAL;
	/* Acquire: what the calls did is seen once they are out. */
	err = wait_var_event_killable(&gate->calls,
				      atomic_read_acquire(&gate->calls) ==
				      FILE_GATE_CLOSED);
	return err ? -EINTR : 0;
}
EXPORT_SYMBOL_GPL(file_gate_wait);
