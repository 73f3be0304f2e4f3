//! The `ldwarc` command: parses arguments, calls the libraries, prints.

mod cli;
mod demo;

fn main() {
    std::process::exit(cli::run());
}
