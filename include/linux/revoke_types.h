/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of <linux/revoke.h> and <linux/revoke_gate.h> that headers
 * which cannot include <linux/fs.h> embed: <linux/kernfs.h> keeps a
 * file gate in each open file.
 */
#ifndef _LINUX_REVOKE_TYPES_H
#define _LINUX_REVOKE_TYPES_H

#include <linux/list.h>
#include <linux/types.h>

struct task_struct;

/**
 * struct revoke_call - a call in a file's gate
 * @task: the task in the call, if it is not the one noted as the file's
 *	idle caller
 * @node: in the file's list of calls while @task is set, or empty for a
 *	call nested in the task's own call that is noted as the idle caller
 *
 * On the caller's stack, from revoke_call_enter() to revoke_call_leave();
 * the core's own proxies use it the same way.  Not first: GCC realigns
 * the stack of every proxy for a struct that starts with a 16-byte
 * struct.
 */
struct revoke_call {
	struct task_struct *task;
	struct list_head node;
};

/**
 * struct file_gate - the calls in flight of one open file
 * @calls: their number; negative for good once the gate is closed
 *
 * For a filesystem that keeps the gate of its open files in its own
 * per-open state (kernfs' kernfs_open_file), with methods of its own that
 * enter it around each call into the driver: see <linux/revoke_gate.h>.
 */
struct file_gate {
	atomic_t calls;
};

#endif /* _LINUX_REVOKE_TYPES_H */
