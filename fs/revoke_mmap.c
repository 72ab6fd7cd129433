// SPDX-License-Identifier: GPL-2.0
/*
 * Revokable files: mappings.
 *
 * Mappings outlive the mmap() call that made them.  They keep the
 * driver's vm_ops while the file lives, so faults, fault-around and
 * userfaultfd work as on any mapping of it.  Revoke, once the calls in
 * flight have left, switches each mapping of the file to a const empty
 * vm_ops and zaps it, under its mm's mmap_lock and the VMA's write lock,
 * so after the faults in flight, which hold one of them for reading: no
 * fault reaches the driver afterwards, and the next access gets SIGBUS.
 * The switched mapping calls none of the driver's vm_ops again, so a
 * driver whose vm_ops keep a count of their own (open, close) or are
 * called outside an access (may_split, mremap, name, find_special_page)
 * cannot be mapped through a revokable file, as kernfs refuses a bin file
 * with ->close.  The mappings of a file whose driver is released at its
 * close only (release_at_close) are the driver's, as they were made: they
 * hold the file, so they are gone before its release.
 *
 * This file owns what the mmap method does for a mapping revoke switches
 * off, the list of the address spaces with an mmap() of the file in
 * flight, and the switch.  Built only with an MMU;
 * without one, revoke_internal.h refuses mmap.
 *
 * Copyright (C) 2026 The revokable files authors
 */

#include <kunit/visibility.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/pagemap.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "revoke_internal.h"

/* An address space that may be mapping the file: see revoke_unmap(). */
struct revoke_mm {
	struct list_head node;
	struct mm_struct *mm;
};

/*
 * The vm_ops of a revoked file's mappings: no ->fault, so an access gets
 * SIGBUS; no ->close, so munmap() calls nothing of the released driver.
 */
static const struct vm_operations_struct revoke_dead_vm_ops = {};

/* A driver's vm_ops that a mapping of a revokable file may keep. */
static bool revoke_vm_ops_switchable(const struct vm_operations_struct *ops)
{
	return !ops->open && !ops->close && !ops->may_split && !ops->mremap &&
	       !ops->name && !ops->find_special_page;
}

/*
 * Before the driver's mmap: the file's revoke_vm, and @mm on its list, for
 * revoke_unmap() to wait for the mmap to be done.  An mm whose mmap_lock is
 * free has no mmap() of the file in flight, so its entry goes: the list
 * holds the address spaces mapping the file now, not all that ever did.
 * The state is dropped with the file's; the list is emptied by revoke.
 */
VISIBLE_IF_KUNIT int revoke_vm_get(struct revokable_file *rf, struct mm_struct *mm)
{
	struct revoke_vm *vm = READ_ONCE(rf->vm);
	struct revoke_mm *rm, *new, *tmp;
	LIST_HEAD(done);

	if (!vm) {
		vm = kzalloc(sizeof(*vm), GFP_KERNEL_ACCOUNT);
		if (!vm)
			return -ENOMEM;
		spin_lock_init(&vm->lock);
		INIT_LIST_HEAD(&vm->mms);
		if (cmpxchg(&rf->vm, NULL, vm)) {
			kfree(vm);
			vm = rf->vm;
		}
	}

	new = kmalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	if (!new)
		return -ENOMEM;
	mmgrab(mm);
	new->mm = mm;
	spin_lock(&vm->lock);
	list_for_each_entry_safe(rm, tmp, &vm->mms, node) {
		if (rm->mm == mm) {
			list_add(&new->node, &done);
			new = NULL;
			continue;
		}
		/* Ours is write-locked: a trylock fails, as for any mmap() in flight. */
		if (mmap_read_trylock(rm->mm)) {
			mmap_read_unlock(rm->mm);
			list_move(&rm->node, &done);
		}
	}
	if (new)
		list_add(&new->node, &vm->mms);
	spin_unlock(&vm->lock);

	list_for_each_entry_safe(rm, tmp, &done, node) {
		mmdrop(rm->mm);
		kfree(rm);
	}
	return 0;
}

/*
 * After the driver's mmap: keep the mapping, or undo it and fail.  A
 * driver that made the mapping anonymous memory (/dev/zero's private
 * mappings) or shared anonymous memory (shmem_zero_setup(): /dev/zero's
 * shared mappings, powerpc's PCI legacy_mem) left nothing of itself in
 * it: the mapping is the process's and stays.  One that handed it to
 * another file cannot be revoked: revoke finds the file's own mappings.
 */
static int revoke_vm_check(struct revokable_file *rf,
			   struct vm_area_struct *vma)
{
	const struct vm_operations_struct *ops = vma->vm_ops;

	/* Not device memory behind empty vm_ops: see revoke_unmap_mm(). */
	if ((vma_is_anonymous(vma) &&
	     !(vma->vm_flags & (VM_PFNMAP | VM_MIXEDMAP | VM_IO))) ||
	    (vma->vm_file != rf->file && vma_is_anon_shmem(vma)))
		return 0;
	if (vma->vm_file == rf->file && revoke_vm_ops_switchable(ops))
		return 0;
	if (ops->close)
		ops->close(vma);
	return -ENODEV;
}

/*
 * The driver's ->mmap, for revoke_fop_mmap(), in the gate: keep the
 * mapping only if revoke can switch it off later (see revoke_vm_check()).
 */
int revoke_mmap_switchable(struct revokable_file *rf,
			   struct vm_area_struct *vma)
{
	int ret = revoke_vm_get(rf, vma->vm_mm);

	if (!ret)
		ret = rf->real->mmap(rf->file, vma);
	if (ret)
		return ret;
	/* Before the VMA is in, so before a fault: see check_vma_flags(). */
	mapping_set_revokable_maps(rf->file->f_mapping);
	return revoke_vm_check(rf, vma);
}

/*
 * Switch the mappings of the revoked file, and only its own (other files
 * of the inode keep theirs), in @mm to revoke_dead_vm_ops, and zap them.
 * 0, or -EINTR if @killable and the revoker is killed waiting for @mm.
 * Waiting for a fault in flight under the VMA's lock is not killable.
 */
static int revoke_unmap_mm(struct revokable_file *rf, struct mm_struct *mm,
			   bool killable)
{
	struct vm_area_struct *vma;

	VMA_ITERATOR(vmi, mm, 0);

	if (!killable)
		mmap_write_lock(mm);
	else if (mmap_write_lock_killable(mm))
		return -EINTR;
	for_each_vma(vmi, vma) {
		/* What follows in a failed fork()'s copy is not its own. */
		if (unlikely(xa_is_zero(vma)))
			break;
		if (vma->vm_file != rf->file || vma_is_anonymous(vma) ||
		    vma->vm_ops == &revoke_dead_vm_ops)
			continue;
		/* Waits for the faults in flight under the VMA's lock. */
		vma_start_write(vma);
		vma->vm_ops = &revoke_dead_vm_ops;
		zap_vma_pages(vma);
	}
	mmap_write_unlock(mm);
	return 0;
}

/*
 * An mm with a mapping of the revoked file that is not switched yet, held,
 * or NULL.  The mapping only tells which mm is next: vm_ops change under
 * the mm's mmap_lock, which nests outside the mapping's i_mmap lock.
 */
static struct mm_struct *revoke_next_mm(struct revokable_file *rf)
{
	struct address_space *mapping = rf->file->f_mapping;
	struct vm_area_struct *vma;
	struct mm_struct *mm = NULL;

	i_mmap_lock_read(mapping);
	vma_interval_tree_foreach(vma, &mapping->i_mmap, 0, ULONG_MAX) {
		if (vma->vm_file == rf->file && !vma_is_anonymous(vma) &&
		    vma->vm_ops != &revoke_dead_vm_ops) {
			mm = vma->vm_mm;
			mmgrab(mm);
			break;
		}
	}
	i_mmap_unlock_read(mapping);
	return mm;
}

/*
 * Switch and zap the mappings of the revoked file.  An mmap() that has
 * left the gate may not have linked its VMA into the mapping yet, with
 * page tables its driver already filled; it holds its mm's mmap_lock until
 * it has, and its mm is on the list, so do that mm first.  A fork()
 * copies a VMA under the mmap_lock the switch takes: the copy is switched
 * already, or linked before the next look at the mapping.
 */
int revoke_unmap(struct revokable_file *rf, bool killable)
{
	struct revoke_vm *vm = rf->vm;
	struct revoke_mm *rm, *tmp;
	struct mm_struct *mm;
	int err;

	if (!vm)
		return 0;
	/* A killed revoker leaves the rest to the next one. */
	list_for_each_entry_safe(rm, tmp, &vm->mms, node) {
		err = revoke_unmap_mm(rf, rm->mm, killable);
		if (err)
			return err;
		list_del(&rm->node);
		mmdrop(rm->mm);
		kfree(rm);
	}
	while ((mm = revoke_next_mm(rf))) {
		err = revoke_unmap_mm(rf, mm, killable);
		mmdrop(mm);
		if (err)
			return err;
	}
	return 0;
}

void revoke_vm_free(struct revoke_vm *vm)
{
	struct revoke_mm *rm, *tmp;

	if (!vm)
		return;
	list_for_each_entry_safe(rm, tmp, &vm->mms, node) {
		mmdrop(rm->mm);
		kfree(rm);
	}
	kfree(vm);
}
