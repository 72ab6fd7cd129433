// SPDX-License-Identifier: GPL-2.0
/*
 * Revokable files: mappings.
 *
 * Mappings outlive the mmap() call that made them, so their vm_ops are
 * gated too: the driver's mmap runs through the gate, then the VMA gets the
 * file's proxy vm_ops, which enter the gate and return SIGBUS once the file
 * is revoked.  Revoke zaps the file's VMAs after the calls in flight, the
 * faults among them, have left: the next access faults into the closed
 * gate.  The vm_ops methods that are not calls into the driver on behalf of
 * an access (open, close, may_split, mremap, name, find_special_page) would
 * run after revoke, on munmap() or fork(); a driver that has them cannot be
 * mapped through a revokable file, as kernfs refuses a bin file with ->close.
 *
 * This file owns the mmap proxy, the vm_ops proxy of the file's mappings,
 * the list of the address spaces that may be mapping the file, and the
 * zap.  Built only with an MMU; without one, revoke_internal.h refuses
 * mmap.
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

static struct revokable_file *vma_revokable(struct vm_area_struct *vma)
{
	return file_revokable(vma->vm_file);
}

REVOKE_PROXY(vm_fault_t, vm_fault, vma_revokable(vmf->vma), VM_FAULT_SIGBUS,
	     rf->vm->real->fault,
	     PROTO(struct vm_fault *vmf),
	     ARGS(vmf));

REVOKE_PROXY(vm_fault_t, vm_huge_fault, vma_revokable(vmf->vma),
	     VM_FAULT_SIGBUS, rf->vm->real->huge_fault,
	     PROTO(struct vm_fault *vmf, unsigned int order),
	     ARGS(vmf, order));

REVOKE_PROXY(vm_fault_t, vm_page_mkwrite, vma_revokable(vmf->vma),
	     VM_FAULT_SIGBUS, rf->vm->real->page_mkwrite,
	     PROTO(struct vm_fault *vmf),
	     ARGS(vmf));

REVOKE_PROXY(vm_fault_t, vm_pfn_mkwrite, vma_revokable(vmf->vma),
	     VM_FAULT_SIGBUS, rf->vm->real->pfn_mkwrite,
	     PROTO(struct vm_fault *vmf),
	     ARGS(vmf));

/* A revoked mapping has no driver left to object. */
REVOKE_PROXY(int, vm_mprotect, vma_revokable(vma), 0, rf->vm->real->mprotect,
	     PROTO(struct vm_area_struct *vma, unsigned long start,
		   unsigned long end, unsigned long newflags),
	     ARGS(vma, start, end, newflags));

REVOKE_PROXY(unsigned long, vm_pagesize, vma_revokable(vma), PAGE_SIZE,
	     rf->vm->real->pagesize,
	     PROTO(struct vm_area_struct *vma),
	     ARGS(vma));

REVOKE_PROXY(int, vm_access, vma_revokable(vma), rf->results->error,
	     rf->vm->real->access,
	     PROTO(struct vm_area_struct *vma, unsigned long addr, void *buf,
		   int len, int write),
	     ARGS(vma, addr, buf, len, write));

#ifdef CONFIG_NUMA
REVOKE_PROXY(int, vm_set_policy, vma_revokable(vma), rf->results->error,
	     rf->vm->real->set_policy,
	     PROTO(struct vm_area_struct *vma, struct mempolicy *new),
	     ARGS(vma, new));

REVOKE_PROXY(struct mempolicy *, vm_get_policy, vma_revokable(vma), NULL,
	     rf->vm->real->get_policy,
	     PROTO(struct vm_area_struct *vma, unsigned long addr,
		   pgoff_t *ilx),
	     ARGS(vma, addr, ilx));
#endif

/*
 * As revoke_proxy_init(), for vm_ops; false if @real has a method that
 * cannot be gated.  ->map_pages is left out: it runs under RCU, and a
 * mapping does without it, faulting one page at a time.
 */
static bool revoke_vm_proxy_init(struct vm_operations_struct *proxy,
				 const struct vm_operations_struct *real)
{
	if (real->open || real->close || real->may_split || real->mremap ||
	    real->name || real->find_special_page)
		return false;
	*proxy = (struct vm_operations_struct) {};
	proxy->mprotect = real->mprotect ? revoke_vm_mprotect : NULL;
	proxy->fault = real->fault ? revoke_vm_fault : NULL;
	proxy->huge_fault = real->huge_fault ? revoke_vm_huge_fault : NULL;
	proxy->pagesize = real->pagesize ? revoke_vm_pagesize : NULL;
	proxy->page_mkwrite = real->page_mkwrite ? revoke_vm_page_mkwrite : NULL;
	proxy->pfn_mkwrite = real->pfn_mkwrite ? revoke_vm_pfn_mkwrite : NULL;
	proxy->access = real->access ? revoke_vm_access : NULL;
#ifdef CONFIG_NUMA
	proxy->set_policy = real->set_policy ? revoke_vm_set_policy : NULL;
	proxy->get_policy = real->get_policy ? revoke_vm_get_policy : NULL;
#endif
	return true;
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
 * After the driver's mmap: gate the mapping, or undo it and fail.  A driver
 * that made the mapping anonymous memory (/dev/zero's private mappings) or
 * shared anonymous memory (shmem_zero_setup(): /dev/zero's shared
 * mappings, powerpc's PCI legacy_mem) left nothing of itself in it: the
 * mapping is the process's and stays.  One that handed it to another file
 * cannot be gated: its vm_ops are found through that file.
 */
static int revoke_vm_install(struct revokable_file *rf,
			     struct vm_area_struct *vma)
{
	const struct vm_operations_struct *real = vma->vm_ops;
	struct revoke_vm *vm = rf->vm;
	bool ok = vma->vm_file == rf->file;

	if (vma_is_anonymous(vma) || (!ok && vma_is_anon_shmem(vma)))
		return 0;

	spin_lock(&vm->lock);
	if (ok && !vm->real) {
		ok = revoke_vm_proxy_init(&vm->proxy, real);
		if (ok)
			vm->real = real;
	} else {
		ok = ok && vm->real == real;
	}
	spin_unlock(&vm->lock);
	if (!ok) {
		if (real->close)
			real->close(vma);
		return -ENODEV;
	}
	vma->vm_ops = &vm->proxy;
	return 0;
}

int revoke_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct revokable_file *rf = file_revokable(file);
	struct revoke_call call __uninitialized;
	int ret;

	if (!revoke_enter(rf, &call))
		return rf->results->mmap;
	ret = revoke_vm_get(rf, vma->vm_mm);
	if (!ret)
		ret = rf->real->mmap(file, vma);
	if (!ret) {
		/* Before the VMA is in, so before a fault: see check_vma_flags(). */
		mapping_set_revokable_maps(file->f_mapping);
		ret = revoke_vm_install(rf, vma);
	}
	revoke_leave(rf, &call);
	return ret;
}

/*
 * Zap the mappings of the revoked file, and only its own: other files of
 * the inode keep theirs.  An mmap() that has left the gate may not have
 * linked its VMA into the mapping yet, with page tables its driver already
 * filled; it holds its mm's mmap_lock until it has, so take and drop that
 * of each mm that mapped the file first.
 */
void revoke_unmap(struct revokable_file *rf)
{
	struct address_space *mapping = rf->file->f_mapping;
	struct revoke_vm *vm = rf->vm;
	struct vm_area_struct *vma;
	struct revoke_mm *rm, *tmp;

	if (!vm)
		return;
	list_for_each_entry_safe(rm, tmp, &vm->mms, node) {
		mmap_read_lock(rm->mm);
		mmap_read_unlock(rm->mm);
		list_del(&rm->node);
		mmdrop(rm->mm);
		kfree(rm);
	}

	i_mmap_lock_read(mapping);
	vma_interval_tree_foreach(vma, &mapping->i_mmap, 0, ULONG_MAX) {
		if (vma->vm_file == rf->file && !vma_is_anonymous(vma))
			zap_vma_pages(vma);
	}
	i_mmap_unlock_read(mapping);
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
