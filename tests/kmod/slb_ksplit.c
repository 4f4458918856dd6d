// SPDX-License-Identifier: GPL-2.0
/*
 * slb_ksplit: test module for kernel-mode split locks. Each file in
 * /sys/kernel/debug/slb_ksplit/ makes the kernel perform a LOCKed add on
 * a cache-line-crossing operand, in a different context:
 *
 *   trigger          written to: in the writing task (process context)
 *   trigger_hardirq  written to: in a hard-irq hrtimer callback, 1 ms
 *                    later; the write waits up to 1 s for it
 *   trigger_locked   written to: in the writing task, with slb_lock held
 *   locked           read: 1 while slb_lock is held, else 0
 *
 * With detection off each returns and logs "split lock returned". With
 * it on, the #AC in the kernel: in fatal mode panics ("Split lock
 * detected at ..."), wherever it happens; in warn mode oopses (die()),
 * which kills the writing task and leaves slb_lock held for good
 * (trigger_locked: "locked" reads 1 afterwards), and panics in interrupt
 * context (trigger_hardirq: "Fatal exception in interrupt").
 */
#include <linux/cache.h>
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>

static struct dentry *slb_dir;

/* Two cache lines; the operand straddles the boundary between them. */
static u8 slb_buf[2 * SMP_CACHE_BYTES] __aligned(SMP_CACHE_BYTES);

static DEFINE_SPINLOCK(slb_lock);
static struct hrtimer slb_timer;
static DECLARE_COMPLETION(slb_timer_done);

/* Inlined, so that the #AC names the trigger (slb_trigger_write, slb_timer_fn). */
static __always_inline void slb_split_lock(const char *where)
{
	u32 *p = (u32 *)(slb_buf + SMP_CACHE_BYTES - 2);

	pr_info("slb_ksplit: LOCK ADD on %px, crossing a %d-byte line, %s\n",
		p, SMP_CACHE_BYTES, where);
	asm volatile("lock addl $1, %0" : "+m" (*p) : : "memory");
	pr_info("slb_ksplit: split lock returned (%s)\n", where);
}

static ssize_t slb_trigger_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	slb_split_lock("in process context");
	return count;
}

static enum hrtimer_restart slb_timer_fn(struct hrtimer *t)
{
	slb_split_lock("in a hard-irq hrtimer");
	complete(&slb_timer_done);
	return HRTIMER_NORESTART;
}

static ssize_t slb_trigger_hardirq_write(struct file *file,
					 const char __user *ubuf,
					 size_t count, loff_t *ppos)
{
	reinit_completion(&slb_timer_done);
	hrtimer_start(&slb_timer, ms_to_ktime(1), HRTIMER_MODE_REL_HARD);
	if (!wait_for_completion_timeout(&slb_timer_done, HZ))
		return -ETIMEDOUT;
	return count;
}

static ssize_t slb_trigger_locked_write(struct file *file,
					const char __user *ubuf,
					size_t count, loff_t *ppos)
{
	spin_lock(&slb_lock);
	slb_split_lock("with a spinlock held");
	spin_unlock(&slb_lock);
	return count;
}

static int slb_locked_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", spin_is_locked(&slb_lock));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(slb_locked);

static const struct file_operations slb_trigger_fops = {
	.owner = THIS_MODULE,
	.write = slb_trigger_write,
	.llseek = noop_llseek,
};

static const struct file_operations slb_trigger_hardirq_fops = {
	.owner = THIS_MODULE,
	.write = slb_trigger_hardirq_write,
	.llseek = noop_llseek,
};

static const struct file_operations slb_trigger_locked_fops = {
	.owner = THIS_MODULE,
	.write = slb_trigger_locked_write,
	.llseek = noop_llseek,
};

static int __init slb_ksplit_init(void)
{
	hrtimer_init(&slb_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	slb_timer.function = slb_timer_fn;
	slb_dir = debugfs_create_dir("slb_ksplit", NULL);
	debugfs_create_file("trigger", 0200, slb_dir, NULL, &slb_trigger_fops);
	debugfs_create_file("trigger_hardirq", 0200, slb_dir, NULL,
			    &slb_trigger_hardirq_fops);
	debugfs_create_file("trigger_locked", 0200, slb_dir, NULL,
			    &slb_trigger_locked_fops);
	debugfs_create_file("locked", 0444, slb_dir, NULL, &slb_locked_fops);
	return 0;
}

static void __exit slb_ksplit_exit(void)
{
	debugfs_remove_recursive(slb_dir);
	hrtimer_cancel(&slb_timer);
}

module_init(slb_ksplit_init);
module_exit(slb_ksplit_exit);
MODULE_DESCRIPTION("splitlock-bench: trigger a split lock in kernel mode");
MODULE_LICENSE("GPL");
