//! The process's allocator: mimalloc rather than the system's. Snapshots, diffs and exports
//! allocate many small strings on every core at once, where glibc's allocator was prominent
//! in profiles (`benches/peers.sh` prints the commands' times). It backs its
//! memory with transparent huge pages where the system allows them on request: that speeds
//! up commands holding large graphs (`parse` of a large file) and costs a short command
//! such as `ldwarc query` a fraction of a millisecond at start (clearing its first 2 MiB
//! page); `benches/index_throughput.rs` prints that command's latency. The server turns
//! huge pages off ([`configure_for_server`]).

/// The allocator of every command.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (its place in `mi_option_e`, mimalloc.h): how long
/// freed memory is kept before it goes back to the system, 1 s by default (options.c of
/// the mimalloc 3 that libmimalloc-sys builds).
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Sets the allocator up for a long-running server, whose memory must follow what its
/// requests hold: freed memory goes back to the system at once instead of after mimalloc's
/// delay (which a thread only honours the next time it allocates: one that streamed a large
/// answer and then waits on a stalled client would keep what it freed), and no transparent
/// huge pages (one touched byte would make 2 MiB resident, so the resident size of a server
/// with many small requests would grow in steps unrelated to them).
pub fn configure_for_server() {
    // SAFETY: mi_option_set only records the option's value, which mimalloc reads on its
    // next purge; any value is valid for this option.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, 0) }
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes integer arguments only and sets a flag of this
    // process's memory map, which the kernel checks at each later page fault.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_purge_delay_option_is_the_one_mimalloc_defaults_to_1000_ms() {
        // SAFETY: reading an option has no precondition.
        let default = unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) };
        assert_eq!(
            default, 1000,
            "option {PURGE_DELAY} is not mimalloc's purge delay"
        );
    }
}
