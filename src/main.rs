//! The `ldwarc` command: parses arguments, calls the libraries, prints.

mod cli;
mod demo;

/// mimalloc rather than the system allocator: snapshots, diffs and exports allocate many
/// small strings on every core at once, where glibc's allocator spent about a fifth of a
/// snapshot's time (benches/peers.sh prints the effect on each command).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(cli::run());
}
