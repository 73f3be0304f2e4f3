//! The `ldwarc` command: parses arguments, calls the libraries, prints.

mod allocator;
mod cli;
mod demo;

fn main() {
    std::process::exit(cli::run());
}
