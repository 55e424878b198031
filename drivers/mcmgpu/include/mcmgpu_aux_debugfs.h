/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An aux driver's debugfs seq file whose state, refcounted, outlives an
 * unbind, one source for both drivers. The file is created with
 * debugfs_create_file_unsafe() (no proxy), so the open itself holds the
 * dentry: debugfs_remove() waits for an open in progress, and an open
 * after the removal gets ENODEV. The open file's reference keeps the
 * state; its show answers ENODEV once the device has gone.
 */
#ifndef MCMGPU_AUX_DEBUGFS_H
#define MCMGPU_AUX_DEBUGFS_H

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/seq_file.h>

static inline int mcmgpu_aux_debugfs_open(struct file *file,
					  int (*show)(struct seq_file *, void *),
					  void *data, struct kref *ref)
{
	int ret = debugfs_file_get(file->f_path.dentry);

	if (ret)
		return -ENODEV;
	ret = single_open(file, show, data);
	if (!ret)
		kref_get(ref);
	debugfs_file_put(file->f_path.dentry);
	return ret;
}

/* The data given to mcmgpu_aux_debugfs_open(). */
static inline void *mcmgpu_aux_debugfs_data(struct file *file)
{
	return ((struct seq_file *)file->private_data)->private;
}

static inline int mcmgpu_aux_debugfs_release(struct inode *inode,
					     struct file *file, struct kref *ref,
					     void (*release)(struct kref *))
{
	single_release(inode, file);
	kref_put(ref, release);
	return 0;
}

#endif /* MCMGPU_AUX_DEBUGFS_H */
