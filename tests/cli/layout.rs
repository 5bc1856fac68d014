//! The binary's layout (build.rs, link/hot-text.ld): on Linux the functions `lint`
//! and `dream --dry-run` run sit together in `.text.hot`, before the rest of the
//! code, so that fewer 64 KiB blocks of text count in their peak RSS; on glibc the
//! binary is linked at a fixed address and needs no shared library but libc (and
//! the loader), so that a start relocates nothing of its own and loads one library.

/// The ELF64 little-endian section headers of `elf`: (name, address, size).
#[cfg(target_os = "linux")]
fn sections(elf: &[u8]) -> Vec<(String, u64, u64)> {
    section_headers(elf).into_iter().map(|(n, a, s, _)| (n, a, s)).collect()
}

/// The ELF64 little-endian section headers of `elf`: (name, address, size, offset
/// in the file).
#[cfg(target_os = "linux")]
fn section_headers(elf: &[u8]) -> Vec<(String, u64, u64, usize)> {
    let u16_at = |o: usize| u16::from_le_bytes(elf[o..o + 2].try_into().unwrap()) as usize;
    let u32_at = |o: usize| u32::from_le_bytes(elf[o..o + 4].try_into().unwrap()) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap());
    assert_eq!(&elf[..6], b"\x7fELF\x02\x01", "an ELF64 little-endian binary");
    let (shoff, shentsize, shnum, shstrndx) = (u64_at(0x28) as usize, u16_at(0x3a), u16_at(0x3c), u16_at(0x3e));
    let header = |i: usize| shoff + i * shentsize;
    let names = u64_at(header(shstrndx) + 0x18) as usize;
    (0..shnum)
        .map(|i| {
            let h = header(i);
            let start = names + u32_at(h);
            let len = elf[start..].iter().position(|&b| b == 0).unwrap();
            let name = String::from_utf8_lossy(&elf[start..start + len]).into_owned();
            (name, u64_at(h + 0x10), u64_at(h + 0x20), u64_at(h + 0x18) as usize)
        })
        .collect()
}

#[cfg(target_os = "linux")]
#[test]
fn the_code_lint_runs_is_laid_out_together_before_the_rest() {
    if option_env!("MEMCTL_PLAIN_LAYOUT").is_some() {
        return;
    }
    let elf = std::fs::read(env!("CARGO_BIN_EXE_memctl")).unwrap();
    let sections = sections(&elf);
    let find = |n: &str| sections.iter().find(|s| s.0 == n).cloned();
    let (_, hot_at, hot_size) = find(".text.hot").expect("a .text.hot section");
    let (_, text_at, text_size) = find(".text").expect("a .text section");
    // Not empty: the script's patterns matched this build's names (at least
    // `main` and memctl's own functions, whatever the profile).
    assert!(hot_size > 4096, ".text.hot holds {hot_size} bytes");
    assert!(text_size > 0);
    assert!(
        hot_at < text_at,
        ".text.hot at {hot_at:#x} is not before .text at {text_at:#x}"
    );
}

/// On glibc, memctl is linked at a fixed address (build.rs): the dynamic loader
/// has no pointers of memctl's own to relocate at start (~13 500 in a PIE, each
/// page written a copy-on-write fault), unless the build asked for a PIE.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn the_binary_is_linked_at_a_fixed_address_unless_a_pie_is_asked_for() {
    let elf = std::fs::read(env!("CARGO_BIN_EXE_memctl")).unwrap();
    assert_eq!(&elf[..6], b"\x7fELF\x02\x01", "an ELF64 little-endian binary");
    let e_type = u16::from_le_bytes([elf[0x10], elf[0x11]]);
    // ET_EXEC (2): position-dependent; ET_DYN (3): a PIE.
    let pie = option_env!("MEMCTL_PIE").is_some_and(|v| !v.is_empty() && v != "0");
    let want = if pie { 3 } else { 2 };
    assert_eq!(e_type, want, "ELF type of the memctl binary");
}

/// On glibc, the unwinder is linked in from `libgcc_eh.a` and the one logarithm
/// comes from the `libm` crate (build.rs, Cargo.toml): the dynamic loader loads
/// neither `libgcc_s.so.1` nor `libm.so.6` at every start. The libraries the binary
/// needs are its DT_NEEDED entries.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn the_binary_needs_libc_alone() {
    let elf = std::fs::read(env!("CARGO_BIN_EXE_memctl")).unwrap();
    let headers = section_headers(&elf);
    let find = |n: &str| headers.iter().find(|s| s.0 == n).cloned().unwrap();
    let (_, _, dynamic_size, dynamic_at) = find(".dynamic");
    let (_, _, _, strings_at) = find(".dynstr");
    let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap());
    let needed: Vec<String> = (0..dynamic_size as usize / 16)
        .map(|i| dynamic_at + 16 * i)
        .filter(|&e| u64_at(e) == 1)
        .map(|e| {
            let start = strings_at + u64_at(e + 8) as usize;
            let len = elf[start..].iter().position(|&b| b == 0).unwrap();
            String::from_utf8_lossy(&elf[start..start + len]).into_owned()
        })
        .collect();
    assert!(needed.iter().any(|n| n.starts_with("libc.so")), "{needed:?}");
    // libc, and the dynamic loader every program has mapped (the unwinder of
    // GCC 12 and later asks it for `_dl_find_object`); nothing else.
    assert!(
        needed
            .iter()
            .all(|n| n.starts_with("libc.so") || n.starts_with("ld-linux")),
        "{needed:?}"
    );
}
