// SPDX-License-Identifier: GPL-2.0
/*
 * slb_ksplit: test module for kernel-mode split locks. Writing anything to
 * /sys/kernel/debug/slb_ksplit/trigger performs a LOCKed add on a
 * cache-line-crossing operand in kernel mode. With split lock detection
 * enabled the kernel panics ("Split lock detected"); with it off the
 * write returns and the kernel goes on (after one bus lock).
 */
#include <linux/cache.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>

static struct dentry *slb_dir;

/* Two cache lines; the operand straddles the boundary between them. */
static u8 slb_buf[2 * SMP_CACHE_BYTES] __aligned(SMP_CACHE_BYTES);

static ssize_t slb_trigger_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	u32 *p = (u32 *)(slb_buf + SMP_CACHE_BYTES - 2);

	pr_info("slb_ksplit: LOCK ADD on %px, crossing a %d-byte line\n",
		p, SMP_CACHE_BYTES);
	asm volatile("lock addl $1, %0" : "+m" (*p) : : "memory");
	pr_info("slb_ksplit: split lock returned (detection off)\n");
	return count;
}

static const struct file_operations slb_trigger_fops = {
	.owner = THIS_MODULE,
	.write = slb_trigger_write,
	.llseek = noop_llseek,
};

static int __init slb_ksplit_init(void)
{
	slb_dir = debugfs_create_dir("slb_ksplit", NULL);
	debugfs_create_file("trigger", 0200, slb_dir, NULL, &slb_trigger_fops);
	return 0;
}

static void __exit slb_ksplit_exit(void)
{
	debugfs_remove_recursive(slb_dir);
}

module_init(slb_ksplit_init);
module_exit(slb_ksplit_exit);
MODULE_DESCRIPTION("splitlock-bench: trigger a split lock in kernel mode");
MODULE_LICENSE("GPL");
