/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of <linux/revoke.h> that headers which cannot include
 * <linux/fs.h> embed: <linux/kernfs.h> keeps a call in each open file.
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
 * @out: stepped out of the gate, see revoke_step_out()
 *
 * On the caller's stack, from revoke_call_enter() to revoke_call_leave(),
 * or in the filesystem's per-file state for a call that spans two methods
 * (a seq_file's ->start and ->stop); the core's own proxies use it the
 * same way.  Not first: GCC realigns the stack of every proxy for a
 * struct that starts with a 16-byte struct.
 */
struct revoke_call {
	struct task_struct *task;
	struct list_head node;
	bool out;
};

#endif /* _LINUX_REVOKE_TYPES_H */
