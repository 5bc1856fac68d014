use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // The hidden dynamic-completion entry point the shell scripts call (SPEC §3.13).
    if args.get(1).is_some_and(|a| a == "__complete") {
        let words: Vec<String> = args[2..].iter().map(|a| a.to_string_lossy().into_owned()).collect();
        return ExitCode::from(memctl::complete::main(&words));
    }
    let json_arg = args.iter().any(|a| a == "--json");
    memctl::install_panic_hook(json_arg);
    let cli = match memctl::command_tree::parse(&args) {
        Ok(cli) => cli,
        Err(e) => match memctl::usage_error(&e, &args) {
            Some(err) => return memctl::print_error(&err, json_arg),
            None => e.exit(),
        },
    };
    if reads_whole_dir(&cli.command) {
        fixed_mmap_threshold();
    } else if takes_snapshots(&cli.command) {
        // Not the hook: it runs inside every turn of Claude Code, where a fault
        // that waits for the kernel to compact memory would be felt.
        heap_kept(!matches!(cli.command, memctl::cli::Command::Hook(_)));
    }
    let json = memctl::wants_json(&cli);
    let policy = memctl::exit_policy(&cli);
    if policy != memctl::error::ExitPolicy::Standard {
        memctl::install_panic_hook_with(json_arg, policy);
    }
    match memctl::run(cli) {
        Ok(code) => code,
        Err(err) if memctl::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => memctl::report_with(&err, json, policy),
    }
}

/// The commands whose peak RSS is a target (issue 31: flat in N, ≤ 16 MiB): they
/// read every memory of a dir, and the large tables of one phase (the index's, at
/// 20 000 lines) are freed before the next grows.
fn reads_whole_dir(command: &memctl::cli::Command) -> bool {
    use memctl::cli::Command;
    matches!(
        command,
        Command::Lint(_) | Command::Review(_) | Command::Dream(_) | Command::TruncateCheck(_)
    )
}

/// glibc raises its mmap threshold to the size of every large block freed (up to
/// 32 MiB), so that after the index's first 3 MB buffer is freed every table below
/// that size comes from the heap, where freed space is kept and the readers'
/// threads do not reuse it: `lint` at 20 000 files peaked at 15.5–16.5 MiB. A fixed
/// 256 KiB threshold returns each large table when freed: 14.0–14.3 MiB, for
/// ~2 000 more page faults (~4 % of lint's time there).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn fixed_mmap_threshold() {
    // SAFETY: `mallopt` only sets a parameter of glibc's allocator, here before any
    // other thread exists; an unknown parameter or value is refused (returns 0).
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 10);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn fixed_mmap_threshold() {}

/// The commands that take a snapshot as they write (the hook's after every memory
/// write Claude Code makes): at 20 000 files a snapshot makes and frees buffers of
/// 1–4 MB one after the other (the stat cache, the index, the mtimes, the root
/// tree), and the whole walk's records. `import` too: a bundle of 20 000 files is
/// unpacked, checked and written through as many buffers (64 MB touched); with the
/// heap kept and on huge pages, `import -y` at 20 000 files 615–871 → 573–577 ms on
/// two cores and 854 → 675 ms on one (medians of interleaved runs; peak RSS
/// 72 → 75 MB).
fn takes_snapshots(command: &memctl::cli::Command) -> bool {
    use memctl::cli::Command;
    matches!(
        command,
        Command::Add(_)
            | Command::Forget(_)
            | Command::Edit(_)
            | Command::Snapshot(_)
            | Command::Restore(_)
            | Command::Undo(_)
            | Command::Hook(_)
            | Command::Import(_)
    )
}

/// glibc gives each block over its mmap threshold (128 KiB at first) pages of its
/// own, faulted in on first touch and returned when freed, and trims the heap's top
/// whenever 128 KiB of it are free: each of a snapshot's large buffers faulted in
/// fresh pages. With the threshold at its 32 MiB ceiling and no trim below
/// 256 MiB, a freed buffer's pages serve the next: `add` at 20 000 files 13 300 →
/// 11 000 page faults, `forget` 12 400 → 9 070, the hook 7 300 → 6 700, about
/// 8 % of their time; peak RSS the same or lower (56 / 48 / 39 MiB).
///
/// Their threads (the stat cache rendered beside the tree, `lstat`s and reads
/// split over the cores) allocate from that one heap too, not each from an arena
/// of its own: `add` at 20 000 files ~2 200 → ~900 faults and 2–3 ms less on one
/// core; their few large blocks make the shared lock no cost on two (a cold-cache
/// `add`, 20 000 files read on both cores, was no slower).
///
/// With `huge_pages`, see [`mark_heap_huge`].
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn heap_kept(huge_pages: bool) {
    // SAFETY: as in `fixed_mmap_threshold`: parameters of glibc's allocator, set
    // before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
    if huge_pages {
        mark_heap_huge();
    }
}

/// What is left once the heap is kept is the first touch of the ~35 MB such a
/// command holds at 20 000 files: 8 500 faults of 4 KiB for `add`. The heap is
/// grown by 64 MiB of address space at once, and those 64 MiB are marked for
/// transparent huge pages, as glibc's own `glibc.malloc.hugetlb=1` tunable marks
/// every growth (a program cannot set it for itself; growth past the first
/// 64 MiB stays unmarked here). In THP's `madvise` mode (Debian's and Ubuntu's
/// default) the heap is then faulted in 2 MiB at a time where the kernel has
/// huge pages free: `add` at 20 000 files 8 500 → 2 200 faults and ~10 % of its
/// time, `import` ~20 % on one core; at 200 files nothing changes. In `always`
/// mode (RHEL's, Fedora's) the heap was on huge pages already; with THP off, or
/// no huge page free, the pages are the usual ones. With the kernel's default
/// `defrag` setting a fault in marked memory may first compact memory, which
/// can stall: the hook does not take the hint.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn mark_heap_huge() {
    /// The huge page of x86-64 and of 4 KiB-page arm64 (where it is larger,
    /// the hint covers too little to matter and nothing changes).
    const HUGE: usize = 2 << 20;
    // SAFETY: a parameter of glibc's allocator, set before any other thread
    // exists; `sbrk(0)` only reads the program break (`-1` when it cannot); the
    // block is malloc's own, freed at once; `madvise(MADV_HUGEPAGE)` is a hint
    // on pages of the heap (between the block and the break) that changes no
    // byte of them.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 64 << 20);
        let before = libc::sbrk(0) as usize;
        let block = libc::malloc(1 << 20);
        let after = libc::sbrk(0) as usize;
        let at = block as usize;
        let (start, stop) = (at.next_multiple_of(HUGE), after & !(HUGE - 1));
        // The heap grew by `brk` to hold the block, which ends below the new
        // break (else, as for a block `mmap`ped on its own: no hint, as before).
        let grew = before != usize::MAX && after != usize::MAX && after > before;
        if !block.is_null() && grew && at.saturating_add(1 << 20) <= after && start < stop {
            libc::madvise(start as *mut libc::c_void, stop - start, libc::MADV_HUGEPAGE);
        }
        libc::free(block);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn heap_kept(_huge_pages: bool) {}
