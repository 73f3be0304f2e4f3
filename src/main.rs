//! The `ldwarc` command: parses arguments and hands over to the library.

fn main() {
    std::process::exit(ldwarc::cli::run());
}
