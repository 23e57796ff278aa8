def edit(p, pairs):
    s=open(p).read()
    for old,new in pairs:
        assert s.count(old)==1,(p,old[:80],s.count(old))
        s=s.replace(old,new)
    open(p,'w').write(s)

edit('mm/vswap.c', [(
'''static atomic_long_t vswap_phys_nr = ATOMIC_LONG_INIT(0);
''','''static atomic_long_t vswap_phys_nr = ATOMIC_LONG_INIT(0);
/* Folios that got no vswap slot, and vswap slots that got no physical one. */
static atomic_long_t vswap_alloc_reject_nr = ATOMIC_LONG_INIT(0);
static atomic_long_t vswap_phys_reject_nr = ATOMIC_LONG_INIT(0);
'''),(
'''	if (!zswap_is_enabled() && get_nr_swap_pages() <= 0)
		return false;
	return !vswap_alloc(0, entry);
}''','''	if (!zswap_is_enabled() && get_nr_swap_pages() <= 0)
		return false;
	if (vswap_alloc(0, entry)) {
		atomic_long_inc(&vswap_alloc_reject_nr);
		return false;
	}
	return true;
}'''),(
'''uncharge:
	mem_cgroup_uncharge_vswap_phys(entry);
	return (swp_entry_t){ 0 };
}''','''uncharge:
	mem_cgroup_uncharge_vswap_phys(entry);
	atomic_long_inc(&vswap_phys_reject_nr);
	return (swp_entry_t){ 0 };
}'''),(
'''	/* memory.swap counts the physical slots of vswap entries only. */
	if (mem_cgroup_charge_vswap_phys(entry))
		return (swp_entry_t){ 0 };
''','''	/* memory.swap counts the physical slots of vswap entries only. */
	if (mem_cgroup_charge_vswap_phys(entry)) {
		atomic_long_inc(&vswap_phys_reject_nr);
		return (swp_entry_t){ 0 };
	}
'''),(
'''static void __init vswap_debugfs_init(void)
{''','''/*
 * Slots backed by zswap and by the zero-page map: counted by walking the
 * mapped part of the device, so exact whenever nothing swaps meanwhile,
 * without a counter to keep on every backend change.
 */
static int vswap_zswap_get(void *data, u64 *val)
{
	unsigned long i, max = READ_ONCE(vswap_si->max), nr = 0;

	for (i = 0; i < max; i++) {
		if (vswap_vt_zswap(atomic_long_read(&vswap_vtable[i])))
			nr++;
		if (!(i % SWAPFILE_CLUSTER))
			cond_resched();
	}
	*val = nr;
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(vswap_zswap_fops, vswap_zswap_get, NULL, "%llu\\n");

static int vswap_zero_get(void *data, u64 *val)
{
	*val = bitmap_weight(vswap_si->zeromap, READ_ONCE(vswap_si->max));
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(vswap_zero_fops, vswap_zero_get, NULL, "%llu\\n");

static int vswap_counter_get(void *data, u64 *val)
{
	*val = atomic_long_read(data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(vswap_counter_fops, vswap_counter_get, NULL, "%llu\\n");

static void __init vswap_debugfs_init(void)
{'''),(
'''	debugfs_create_file("phys", 0444, dir, NULL, &vswap_phys_fops);
}''','''	debugfs_create_file("phys", 0444, dir, NULL, &vswap_phys_fops);
	debugfs_create_file("zswap", 0444, dir, NULL, &vswap_zswap_fops);
	debugfs_create_file("zero", 0444, dir, NULL, &vswap_zero_fops);
	debugfs_create_file("alloc_reject", 0444, dir, &vswap_alloc_reject_nr,
			    &vswap_counter_fops);
	debugfs_create_file("phys_reject", 0444, dir, &vswap_phys_reject_nr,
			    &vswap_counter_fops);
}''')])
print("ok")
