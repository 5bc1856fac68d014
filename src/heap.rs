//! Giving the allocator's free memory back to the system.

/// Return the free memory of every malloc arena to the system (glibc's
/// `malloc_trim`: also the whole free pages inside an arena, not only its top),
/// so that what a reader thread's arena freed stops counting in the peak RSS.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn give_back() {
    // SAFETY: `malloc_trim` only releases pages of free chunks; it takes the
    // arenas' locks itself and is safe to call from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn give_back() {}
